//! The management API of the functions and their secrets, shaped like the Supabase Management
//! API that `supabase functions deploy|list|delete` and `supabase secrets` call:
//! `/v1/projects/{ref}/functions[...]` and `/v1/projects/{ref}/secrets`, any `ref` (this server
//! is one project). Only the service key may call it (`Authorization: Bearer` with the
//! `service_role` JWT or the `sb_secret_…` key), or the access token [`access_token`] derives
//! from the JWT secret in the Supabase CLI's `sbp_<40 hex>` format (the CLI refuses any other).
//!
//! Handlers store through `store`, then reload this instance's catalog before answering, so the
//! next request here runs the new version; other instances follow on the NOTIFY. Errors are
//! `{"message": …}` as the Management API's; causes are logged, values of secrets never. `ops`
//! is the same operations for callers inside the server (the dashboard).

mod functions;
pub mod ops;
mod secrets;

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};
use serde_json::json;

use super::store::StoreError;
use super::FunctionsState;

/// Largest JSON body of a management call, in bytes (a function's source may travel in it).
const MAX_JSON_BYTES: usize = super::store::MAX_BUNDLE_BYTES + 1024 * 1024;

/// Why a management call was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum ManageError {
    #[error("Unauthorized")]
    Unauthorized,
    #[error("This endpoint requires the service key")]
    Forbidden,
    #[error("Function not found")]
    NotFound,
    #[error("{0}")]
    BadRequest(String),
    #[error("Request body is larger than {0} bytes")]
    TooLarge(usize),
    #[error("{0}")]
    Unsupported(String),
    /// The database is not reachable or failed (logged where it happens).
    #[error("Internal error")]
    Internal,
}

impl From<StoreError> for ManageError {
    fn from(err: StoreError) -> ManageError {
        match err {
            StoreError::Invalid(message) => ManageError::BadRequest(message),
            StoreError::Db(err) => {
                tracing::error!(error = %err, "functions: management call failed in the database");
                ManageError::Internal
            }
        }
    }
}

impl ResponseError for ManageError {
    fn status_code(&self) -> StatusCode {
        match self {
            ManageError::Unauthorized => StatusCode::UNAUTHORIZED,
            ManageError::Forbidden => StatusCode::FORBIDDEN,
            ManageError::NotFound => StatusCode::NOT_FOUND,
            ManageError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ManageError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ManageError::Unsupported(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ManageError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        HttpResponse::build(self.status_code()).json(json!({ "message": self.to_string() }))
    }
}

/// Mount the management routes.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/v1/projects/{ref}")
            .route("/functions", web::get().to(functions::list))
            .route("/functions", web::post().to(functions::create))
            .route("/functions", web::put().to(functions::bulk_update))
            .route("/functions/deploy", web::post().to(functions::deploy))
            .route("/functions/{slug}", web::get().to(functions::get))
            .route("/functions/{slug}", web::patch().to(functions::update))
            .route("/functions/{slug}", web::delete().to(functions::delete))
            .route("/functions/{slug}/logs", web::get().to(functions::logs))
            .route("/secrets", web::get().to(secrets::list))
            .route("/secrets", web::post().to(secrets::set))
            .route("/secrets", web::delete().to(secrets::unset)),
    );
}

/// The Management API access token of this server: `sbp_` and 40 hex digits (the format the
/// Supabase CLI insists on), an HMAC of a fixed purpose under the JWT secret, so every instance
/// sharing the secret accepts it. `server keys` prints it.
pub fn access_token(jwt_secret: &secrecy::SecretString) -> secrecy::SecretString {
    let hex = crate::keys::derive_password(jwt_secret, "management-api-access-token");
    secrecy::SecretString::from(format!("sbp_{}", &hex[..40.min(hex.len())]))
}

/// The caller holds the service key: a `service_role` token or the `sb_secret_…` key as Bearer
/// (or as `apikey`, as the other surfaces take it).
fn authorize(req: &HttpRequest, state: &FunctionsState) -> Result<(), ManageError> {
    let token = crate::gate::bearer_of(req).or_else(|| crate::gate::apikey_of(req)).ok_or(ManageError::Unauthorized)?;
    if token.starts_with("sbp_") {
        use secrecy::ExposeSecret;
        use subtle::ConstantTimeEq;
        let expected = state.access_token.expose_secret().as_bytes();
        return match bool::from(token.as_bytes().ct_eq(expected)) {
            true => Ok(()),
            false => Err(ManageError::Unauthorized),
        };
    }
    let claims = state.verifier.verify(&token).map_err(|_| ManageError::Unauthorized)?;
    match claims.get("role").and_then(|r| r.as_str()) {
        Some("service_role") => Ok(()),
        _ => Err(ManageError::Forbidden),
    }
}

/// The database pool, or the management API is unavailable (a server without a database).
fn pool(state: &FunctionsState) -> Result<&deadpool_postgres::Pool, ManageError> {
    state.pool.as_ref().ok_or(ManageError::Internal)
}

async fn client(state: &FunctionsState) -> Result<deadpool_postgres::Object, ManageError> {
    pool(state)?.get().await.map_err(|err| {
        tracing::error!(error = %err, "functions: no database connection for a management call");
        ManageError::Internal
    })
}

/// Reload this instance's catalog (and start the runtime when functions appeared).
async fn refresh(state: &FunctionsState) -> Result<(), ManageError> {
    let (Some(catalog), Ok(pool)) = (&state.catalog, pool(state)) else { return Ok(()) };
    catalog.reload(pool).await?;
    if !catalog.is_empty() {
        state.ensure_runtime();
    }
    Ok(())
}

/// The whole body, up to `limit` bytes.
async fn read_body(mut payload: web::Payload, limit: usize) -> Result<web::Bytes, ManageError> {
    super::proxy::read_body(&mut payload, limit).await.map_err(|err| match err {
        super::proxy::BodyError::Broken => ManageError::BadRequest("the request body was broken off".into()),
        super::proxy::BodyError::TooLarge => ManageError::TooLarge(limit),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::MessageBody;

    fn body(err: ManageError) -> (u16, String) {
        let response = err.error_response();
        let status = response.status().as_u16();
        let bytes = response.into_body().try_into_bytes().unwrap_or_default();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }

    #[test]
    fn the_access_token_has_the_clis_format_and_follows_the_secret() {
        use secrecy::{ExposeSecret, SecretString};
        let token = access_token(&SecretString::from("a".repeat(40)));
        let text = token.expose_secret();
        assert!(text.starts_with("sbp_") && text.len() == 44);
        assert!(text[4..].bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        assert_eq!(access_token(&SecretString::from("a".repeat(40))).expose_secret(), text);
        assert_ne!(access_token(&SecretString::from("b".repeat(40))).expose_secret(), text);
    }

    #[test]
    fn errors_have_the_management_api_shape() {
        assert_eq!(body(ManageError::Unauthorized), (401, r#"{"message":"Unauthorized"}"#.into()));
        assert_eq!(
            body(ManageError::Forbidden),
            (403, r#"{"message":"This endpoint requires the service key"}"#.into())
        );
        assert_eq!(body(ManageError::NotFound), (404, r#"{"message":"Function not found"}"#.into()));
        assert_eq!(body(ManageError::BadRequest("bad".into())), (400, r#"{"message":"bad"}"#.into()));
        assert_eq!(body(ManageError::Internal), (500, r#"{"message":"Internal error"}"#.into()));
    }
}
