//! Downloads: `GET`/`HEAD` of an object as the caller, of a public bucket's object without any
//! key, and through a signed URL; `GET /object/info/...`. One `serve` answers all of them with
//! streamed bytes, single byte ranges (206/416), `ETag` / `If-None-Match` (304), the stored
//! `Cache-Control` and `Content-Type`, and `?download=` as an attachment. A local file's bytes go
//! out by `sendfile` where the connection allows it (`object_body`).
//!
//! The caller's reads go through RLS; public and signed reads use the admin pool only after the
//! bucket's public flag or the token's signature said yes. Nothing here writes.

use actix_web::body::SizedStream;
use actix_web::http::header::{self, HttpDate};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::stream;
use object_store::{GetOptions, GetRange};
use serde_json::json;

use super::db::{self, Ctx, ObjectRow};
use super::error::StorageError;
use super::key::{split_bucket_key, tail_after};
use super::object_body::ObjectBody;
use super::{token, StorageState};
use crate::db::context::Access;

/// A single byte range asked for, resolved against the object's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteRange {
    Full,
    /// Inclusive bounds.
    Partial(u64, u64),
    Unsatisfiable,
}

/// Parse a `Range` header (single ranges only; anything else serves the whole object, as RFC 9110 allows).
pub fn parse_range(header: Option<&str>, size: u64) -> ByteRange {
    let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else {
        return ByteRange::Full;
    };
    if spec.contains(',') {
        return ByteRange::Full;
    }
    let Some((start, end)) = spec.trim().split_once('-') else {
        return ByteRange::Full;
    };
    let (start, end) = (start.trim(), end.trim());
    match (start.parse::<u64>(), end.parse::<u64>()) {
        (Ok(a), Ok(b)) if a <= b => {
            if a >= size {
                ByteRange::Unsatisfiable
            } else {
                ByteRange::Partial(a, b.min(size - 1))
            }
        }
        (Ok(a), Err(_)) if end.is_empty() => {
            if a >= size {
                ByteRange::Unsatisfiable
            } else {
                ByteRange::Partial(a, size - 1)
            }
        }
        (Err(_), Ok(n)) if start.is_empty() => {
            if n == 0 || size == 0 {
                ByteRange::Unsatisfiable
            } else {
                ByteRange::Partial(size - n.min(size), size - 1)
            }
        }
        _ => ByteRange::Full,
    }
}

fn query_param(req: &HttpRequest, name: &str) -> Option<String> {
    url::form_urlencoded::parse(req.query_string().as_bytes()).find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
}

fn content_disposition(filename: &str) -> String {
    let ascii: String = filename
        .chars()
        .map(|c| if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' { c } else { '_' })
        .collect();
    let encoded = percent_encoding::utf8_percent_encode(filename, percent_encoding::NON_ALPHANUMERIC);
    format!("attachment; filename=\"{ascii}\"; filename*=UTF-8''{encoded}")
}

/// Answer a download of `row`.
pub async fn serve(state: &StorageState, req: &HttpRequest, row: ObjectRow) -> Result<HttpResponse, StorageError> {
    let head = req.method() == actix_web::http::Method::HEAD;
    let size = row.size();
    let etag = row.meta_str("eTag").unwrap_or("").to_string();
    let mut builder = HttpResponse::Ok();
    if !etag.is_empty() {
        builder.insert_header((header::ETAG, etag.clone()));
    }
    if let Some(updated) = row.updated_at {
        builder.insert_header((header::LAST_MODIFIED, HttpDate::from(std::time::SystemTime::from(updated))));
    }
    let if_none_match = req.headers().get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok());
    if let Some(tags) = if_none_match {
        if !etag.is_empty()
            && tags.split(',').any(|t| t.trim() == etag || t.trim() == "*" || t.trim() == format!("W/{etag}"))
        {
            return Ok(builder.status(StatusCode::NOT_MODIFIED).finish());
        }
    }
    builder.insert_header((header::CONTENT_TYPE, row.meta_str("mimetype").unwrap_or("application/octet-stream")));
    builder.insert_header((header::CACHE_CONTROL, row.meta_str("cacheControl").unwrap_or("no-cache")));
    builder.insert_header((header::ACCEPT_RANGES, "bytes"));
    if let Some(download) = query_param(req, "download") {
        let fallback = row.name.rsplit('/').next().unwrap_or(&row.name);
        builder.insert_header((
            header::CONTENT_DISPOSITION,
            content_disposition(if download.is_empty() { fallback } else { &download }),
        ));
    }
    let version = row.version.clone().ok_or(StorageError::NoSuchKey)?;
    let range = parse_range(req.headers().get(header::RANGE).and_then(|v| v.to_str().ok()), size);
    let (start, end) = match range {
        ByteRange::Full => (0, size.saturating_sub(1)),
        ByteRange::Partial(a, b) => {
            builder.status(StatusCode::PARTIAL_CONTENT);
            builder.insert_header((header::CONTENT_RANGE, format!("bytes {a}-{b}/{size}")));
            (a, b)
        }
        ByteRange::Unsatisfiable => {
            return Ok(HttpResponse::build(StatusCode::RANGE_NOT_SATISFIABLE)
                .insert_header((header::CONTENT_RANGE, format!("bytes */{size}")))
                .json(StorageError::InvalidRange.body()));
        }
    };
    let length = if size == 0 { 0 } else { end - start + 1 };
    if head || length == 0 {
        return Ok(builder.body(SizedStream::new(length, stream::empty::<Result<bytes::Bytes, std::io::Error>>())));
    }
    let options = GetOptions { range: Some(GetRange::Bounded(start..end + 1)), ..Default::default() };
    let got = state.store.get_opts(&super::backend::key_of(&version), options).await?;
    Ok(builder.body(ObjectBody::new(got, state.downloads.clone())))
}

/// `GET|HEAD /object/{bucket}/{key}` and `/object/authenticated/...`: as the caller, through RLS.
pub async fn as_caller(req: &HttpRequest, state: &StorageState, prefix: &str) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(req)?;
    let (bucket, key) = split_bucket_key(&tail_after(req.path(), prefix)?)?;
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, &ctx, Access::ReadOnly).await?;
    let row = db::find_object(&tx, &bucket, &key).await?;
    db::commit(tx).await?;
    drop(client);
    serve(state, req, row.ok_or(StorageError::NoSuchKey)?).await
}

pub async fn object(req: HttpRequest, state: web::Data<StorageState>) -> Result<HttpResponse, StorageError> {
    as_caller(&req, &state, "/object/").await
}

pub async fn authenticated(req: HttpRequest, state: web::Data<StorageState>) -> Result<HttpResponse, StorageError> {
    as_caller(&req, &state, "/object/authenticated/").await
}

/// `GET|HEAD /object/public/{bucket}/{key}`: no key needed, only for public buckets.
pub async fn public(req: HttpRequest, state: web::Data<StorageState>) -> Result<HttpResponse, StorageError> {
    let (bucket, key) = split_bucket_key(&tail_after(req.path(), "/object/public/")?)?;
    let found = db::find_bucket(&state.admin, &bucket).await?;
    if !found.public {
        return Err(StorageError::NoSuchBucket);
    }
    let client = db::connection(&state.admin).await?;
    let row = db::find_object(&client, &bucket, &key).await?;
    drop(client);
    serve(&state, &req, row.ok_or(StorageError::NoSuchKey)?).await
}

/// `GET|HEAD /object/sign/{bucket}/{key}?token=`: no key needed, the token decides.
pub async fn signed(req: HttpRequest, state: web::Data<StorageState>) -> Result<HttpResponse, StorageError> {
    let tail = tail_after(req.path(), "/object/sign/")?;
    let (bucket, key) = split_bucket_key(&tail)?;
    let claims = token::verify(&state.secret, &token::from_query(req.query_string())?, &tail)?;
    if claims.upsert.is_some() {
        // An upload token is not a download token.
        return Err(StorageError::InvalidSignature("Invalid signature".into()));
    }
    let client = db::connection(&state.admin).await?;
    let row = db::find_object(&client, &bucket, &key).await?;
    drop(client);
    serve(&state, &req, row.ok_or(StorageError::NoSuchKey)?).await
}

/// `GET /object/info/{bucket}/{key}`: the object's facts, as the caller.
pub async fn info(req: HttpRequest, state: web::Data<StorageState>) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let tail = tail_after(req.path(), "/object/info/")?;
    let tail = tail.strip_prefix("authenticated/").map(str::to_string).unwrap_or(tail);
    let (bucket, key) = split_bucket_key(&tail)?;
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, &ctx, Access::ReadOnly).await?;
    let row = db::find_object(&tx, &bucket, &key).await?.ok_or(StorageError::NoSuchKey)?;
    db::commit(tx).await?;
    Ok(HttpResponse::Ok().json(json!({
        "id": row.id,
        "name": row.name,
        "version": row.version,
        "bucket_id": bucket,
        "size": row.size(),
        "content_type": row.meta_str("mimetype"),
        "cache_control": row.meta_str("cacheControl"),
        "etag": row.meta_str("eTag"),
        // storage-api answers `{}` for an object uploaded without user metadata
        "metadata": row.user_metadata.clone().filter(|m| !m.is_null()).unwrap_or_else(|| json!({})),
        "last_modified": row.updated_at,
        "created_at": row.created_at,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_resolve_against_the_size() {
        assert_eq!(parse_range(None, 100), ByteRange::Full);
        assert_eq!(parse_range(Some("bytes=0-9"), 100), ByteRange::Partial(0, 9));
        assert_eq!(parse_range(Some("bytes=90-200"), 100), ByteRange::Partial(90, 99));
        assert_eq!(parse_range(Some("bytes=50-"), 100), ByteRange::Partial(50, 99));
        assert_eq!(parse_range(Some("bytes=-10"), 100), ByteRange::Partial(90, 99));
        assert_eq!(parse_range(Some("bytes=-500"), 100), ByteRange::Partial(0, 99));
        assert_eq!(parse_range(Some("bytes=100-"), 100), ByteRange::Unsatisfiable);
        assert_eq!(parse_range(Some("bytes=-0"), 100), ByteRange::Unsatisfiable);
        assert_eq!(parse_range(Some("bytes=5-1"), 100), ByteRange::Full);
        assert_eq!(parse_range(Some("bytes=0-1,5-6"), 100), ByteRange::Full);
        assert_eq!(parse_range(Some("items=0-1"), 100), ByteRange::Full);
    }

    #[test]
    fn attachments_carry_an_ascii_and_a_utf8_filename() {
        assert_eq!(content_disposition("a b.png"), "attachment; filename=\"a b.png\"; filename*=UTF-8''a%20b%2Epng");
        assert!(content_disposition("été.txt").starts_with("attachment; filename=\"_t_.txt\""));
    }
}
