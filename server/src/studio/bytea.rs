//! The table editor's bytea cells: a value set from hex the operator typed (`\x…`) or from a
//! file's bytes sent base64, decoded here and **bound as bytea** (never written into the
//! statement), and a cell's bytes downloaded as a file. The statements come from `query`
//! (`update_bytes`, `select_bytes`); a write is audited with its size, not its bytes.

use actix_web::{web, HttpResponse};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::audit;
use super::body::read_limited;
use super::catalog::relation;
use super::error::StudioError;
use super::query;
use super::session::OperatorSession;
use crate::state::AppState;

/// The largest value set through the editor.
pub const MAX_BYTES: usize = 10 * 1024 * 1024;
/// The largest request body: the value in base64 (or hex) and its key.
const MAX_BODY: usize = 2 * MAX_BYTES + 64 * 1024;

/// Why a value is not bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BytesError {
    #[error("Enter bytes as hex: \\x followed by pairs of hexadecimal digits (0-9, a-f)")]
    NotHex,
    #[error("An odd number of hexadecimal digits: each byte is two")]
    OddHex,
    #[error("The file's bytes are not valid base64")]
    NotBase64,
    #[error("A value is at most {} MB", MAX_BYTES >> 20)]
    TooLarge,
    #[error("Send one of hex or base64")]
    NoValue,
}

impl From<BytesError> for StudioError {
    fn from(err: BytesError) -> StudioError {
        StudioError::BadRequest(err.to_string())
    }
}

/// The bytes of `\x…` hex text (Postgres's hex format; spaces and line breaks between digits
/// are ignored, upper or lower case).
pub fn from_hex(text: &str) -> Result<Vec<u8>, BytesError> {
    let digits = text.trim().strip_prefix("\\x").ok_or(BytesError::NotHex)?;
    let digits: Vec<u8> = digits.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return Err(BytesError::NotHex);
    }
    if digits.len() % 2 == 1 {
        return Err(BytesError::OddHex);
    }
    if digits.len() / 2 > MAX_BYTES {
        return Err(BytesError::TooLarge);
    }
    let nibble = |d: u8| (d as char).to_digit(16).map(|n| n as u8).ok_or(BytesError::NotHex);
    digits.chunks(2).map(|pair| Ok(nibble(pair[0])? << 4 | nibble(pair[1])?)).collect()
}

/// The bytes of standard base64 (a file read by the browser).
pub fn from_base64(text: &str) -> Result<Vec<u8>, BytesError> {
    if text.len() / 4 * 3 > MAX_BYTES + 3 {
        return Err(BytesError::TooLarge);
    }
    let bytes = STANDARD.decode(text.trim()).map_err(|_| BytesError::NotBase64)?;
    if bytes.len() > MAX_BYTES {
        return Err(BytesError::TooLarge);
    }
    Ok(bytes)
}

/// A download's file name: `table-column.bin`, with only letters, digits, `_` and `-`.
pub fn file_name(table: &str, column: &str) -> String {
    let clean = |s: &str| s.replace(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '-', "_");
    format!("{}-{}.bin", clean(table), clean(column))
}

#[derive(Deserialize)]
pub struct SetBytes {
    key: Map<String, Value>,
    column: String,
    #[serde(default)]
    hex: Option<String>,
    #[serde(default)]
    base64: Option<String>,
}

impl SetBytes {
    /// The value's bytes, from whichever of hex and base64 was sent (one, not both).
    pub fn bytes(&self) -> Result<Vec<u8>, BytesError> {
        match (&self.hex, &self.base64) {
            (Some(hex), None) => from_hex(hex),
            (None, Some(b64)) => from_base64(b64),
            _ => Err(BytesError::NoValue),
        }
    }
}

/// `PUT /studio/api/tables/{schema}/{table}/bytes` `{key, column, hex | base64}`: the changed
/// row. Audited as `rows.set_bytes` with the key, the column and the size.
pub async fn set(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    path: web::Path<(String, String)>,
    mut payload: web::Payload,
) -> Result<HttpResponse, StudioError> {
    let (schema, name) = path.into_inner();
    let raw = read_limited(&mut payload, MAX_BODY, || BytesError::TooLarge.into()).await?;
    let body: SetBytes = serde_json::from_slice(&raw).map_err(|e| StudioError::BadRequest(format!("body: {e}")))?;
    let bytes = body.bytes()?;
    let mut client = state.pools.admin.get().await?;
    let rel = relation(&client, &schema, &name).await?;
    let built = query::update_bytes(&rel, &body.key, &body.column)?;
    let mut params = built.param_refs();
    params.push(&bytes);
    let tx = client.transaction().await?;
    let row = tx.query_opt(&built.sql, &params).await?;
    let Some(row) = row else {
        return Err(StudioError::NotFound("No row has this key".into()));
    };
    let detail = json!({"key": body.key, "column": body.column, "bytes": bytes.len()});
    audit::record(&tx, &op, "rows.set_bytes", Some(&format!("{schema}.{name}")), detail).await?;
    tx.commit().await?;
    let row: Value = serde_json::from_str(row.get::<_, &str>(0)).map_err(StudioError::internal)?;
    Ok(HttpResponse::Ok().json(json!({ "row": row })))
}

#[derive(Deserialize)]
pub struct GetBytes {
    column: String,
    /// The row's primary key as a JSON object.
    key: String,
}

/// `GET /studio/api/tables/{schema}/{table}/bytes?column=…&key={…}`: the cell's bytes as a file
/// (`application/octet-stream`, an attachment); a NULL cell is `not_found`.
pub async fn download(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    q: web::Query<GetBytes>,
) -> Result<HttpResponse, StudioError> {
    let (schema, name) = path.into_inner();
    let key: Map<String, Value> =
        serde_json::from_str(&q.key).map_err(|e| StudioError::BadRequest(format!("key: {e}")))?;
    let client = state.pools.admin.get().await?;
    let rel = relation(&client, &schema, &name).await?;
    let built = query::select_bytes(&rel, &key, &q.column)?;
    let row = client.query_opt(&built.sql, &built.param_refs()).await?;
    let bytes: Option<Vec<u8>> = match row {
        Some(row) => row.get(0),
        None => return Err(StudioError::NotFound("No row has this key".into())),
    };
    let bytes = bytes.ok_or_else(|| StudioError::NotFound(format!("{} is NULL in this row", q.column)))?;
    Ok(HttpResponse::Ok()
        .content_type("application/octet-stream")
        .insert_header(("Content-Disposition", format!("attachment; filename=\"{}\"", file_name(&name, &q.column))))
        .insert_header(("Cache-Control", "no-store"))
        .insert_header(("X-Content-Type-Options", "nosniff"))
        .body(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_read_as_postgres_writes_it_and_refused_with_a_reason() {
        assert_eq!(from_hex("\\x48656C6c6f").unwrap(), b"Hello");
        assert_eq!(from_hex(" \\x00 ff\n10 ").unwrap(), vec![0, 255, 16]);
        assert_eq!(from_hex("\\x").unwrap(), Vec::<u8>::new());
        assert_eq!(from_hex("48656c"), Err(BytesError::NotHex), "the \\x prefix is required");
        assert_eq!(from_hex("\\x4g"), Err(BytesError::NotHex));
        assert_eq!(from_hex("\\xabc"), Err(BytesError::OddHex));
        assert_eq!(from_hex("\\x'; drop table t; --"), Err(BytesError::NotHex));
    }

    #[test]
    fn base64_is_decoded_and_its_size_capped() {
        assert_eq!(from_base64("AAH/aGk=").unwrap(), vec![0, 1, 255, b'h', b'i']);
        assert_eq!(from_base64(""), Ok(Vec::new()));
        assert_eq!(from_base64("not base64!"), Err(BytesError::NotBase64));
        let big = STANDARD.encode(vec![0u8; MAX_BYTES + 1]);
        assert_eq!(from_base64(&big), Err(BytesError::TooLarge));
        let hex = format!("\\x{}", "00".repeat(MAX_BYTES + 1));
        assert_eq!(from_hex(&hex), Err(BytesError::TooLarge));
    }

    #[test]
    fn a_value_comes_from_hex_or_base64_not_both_nor_neither() {
        let body = |v: Value| serde_json::from_value::<SetBytes>(v).unwrap().bytes();
        assert_eq!(body(json!({"key": {}, "column": "c", "hex": "\\x01"})), Ok(vec![1]));
        assert_eq!(body(json!({"key": {}, "column": "c", "base64": "AQ=="})), Ok(vec![1]));
        assert_eq!(body(json!({"key": {}, "column": "c"})), Err(BytesError::NoValue));
        assert_eq!(body(json!({"key": {}, "column": "c", "hex": "\\x01", "base64": "AQ=="})), Err(BytesError::NoValue));
    }

    #[test]
    fn a_download_is_named_after_the_table_and_column_only() {
        assert_eq!(file_name("cars", "photo"), "cars-photo.bin");
        assert_eq!(file_name("a\"b\r\n", "../x y"), "a_b__-___x_y.bin");
    }
}
