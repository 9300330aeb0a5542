//! A request body read whole, up to a limit, for the dashboard's routes that take more than
//! actix's JSON extractor allows (an import of rows, a cell's bytes).

use actix_web::web;
use futures_util::StreamExt;

use super::error::StudioError;

/// The body's bytes; `too_large()` is the error once they would pass `limit`.
pub async fn read_limited(
    payload: &mut web::Payload,
    limit: usize,
    too_large: impl Fn() -> StudioError,
) -> Result<web::BytesMut, StudioError> {
    let mut raw = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| StudioError::BadRequest(format!("body: {e}")))?;
        if raw.len() + chunk.len() > limit {
            return Err(too_large());
        }
        raw.extend_from_slice(&chunk);
    }
    Ok(raw)
}
