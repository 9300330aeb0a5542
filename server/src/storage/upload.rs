//! Uploads: `POST` (create, `x-upsert` to overwrite) and `PUT` (overwrite) of
//! `/object/{bucket}/{key}`, signed upload URLs (`POST` to sign, `PUT ...?token=` to upload).
//!
//! The body is a multipart form (`cacheControl`, `metadata`, then the file) or the raw bytes
//! (`content-type`, `cache-control`, `x-metadata`). The order is: bucket limits, a rolled-back
//! trial write of the row as the caller (so RLS and duplicates refuse before any byte is
//! stored), the bytes streamed to a fresh version key, then the row written and committed;
//! a failed write deletes the new bytes and a committed overwrite deletes the old ones.

use std::pin::Pin;

use actix_multipart::Multipart;
use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine;
use bytes::Bytes;
use futures_util::{stream, Stream, StreamExt};
use serde_json::{json, Value};
use uuid::Uuid;

use super::backend::{self, key_of};
use super::db::{self, Bucket, Ctx, NewRow};
use super::error::StorageError;
use super::key::{split_bucket_key, tail_after};
use super::limits::check_mime;
use super::{token, StorageState};
use crate::db::context::Access;

type Body = Pin<Box<dyn Stream<Item = Result<Bytes, String>>>>;

/// Largest text field of a multipart upload (`metadata`, `cacheControl`).
const MAX_FIELD_BYTES: usize = 1024 * 1024;
/// Lifetime of a signed upload URL, in seconds (Supabase's: two hours).
const SIGNED_UPLOAD_TTL: i64 = 7200;

/// What the request says about the file, and its bytes.
struct Incoming {
    mimetype: String,
    cache_control: String,
    user_metadata: Option<Value>,
    declared_size: Option<u64>,
    body: Body,
}

fn header_str<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

fn parse_metadata(text: &str) -> Result<Value, StorageError> {
    serde_json::from_str::<Value>(text)
        .ok()
        .filter(Value::is_object)
        .ok_or_else(|| StorageError::InvalidRequest("Invalid metadata".into()))
}

/// Read the form's text fields up to the file, or take the raw body.
async fn incoming(req: &HttpRequest, payload: web::Payload) -> Result<Incoming, StorageError> {
    let content_type = header_str(req, "content-type").unwrap_or("application/octet-stream").to_string();
    if !content_type.to_ascii_lowercase().starts_with("multipart/form-data") {
        let user_metadata = match header_str(req, "x-metadata") {
            Some(encoded) => {
                let decoded = base64::engine::general_purpose::STANDARD
                    .decode(encoded.trim())
                    .map_err(|_| StorageError::InvalidRequest("Invalid metadata".into()))?;
                Some(parse_metadata(&String::from_utf8_lossy(&decoded))?)
            }
            None => None,
        };
        let declared_size = header_str(req, "content-length").and_then(|v| v.parse().ok());
        let body = payload.map(|chunk| chunk.map_err(|e| e.to_string()));
        return Ok(Incoming {
            mimetype: content_type,
            cache_control: header_str(req, "cache-control").unwrap_or("no-cache").to_string(),
            user_metadata,
            declared_size,
            body: Box::pin(body),
        });
    }
    let mut form = Multipart::new(req.headers(), payload);
    let mut cache_control = None;
    let mut user_metadata = None;
    while let Some(field) = form.next().await {
        let mut field = field.map_err(|e| StorageError::InvalidRequest(format!("Invalid multipart body: {e}")))?;
        let name = field.name().unwrap_or("").to_string();
        let is_file = field.content_disposition().and_then(|cd| cd.get_filename()).is_some() || name.is_empty();
        if is_file {
            let mimetype =
                field.content_type().map(|m| m.essence_str().to_string()).unwrap_or("application/octet-stream".into());
            let body = stream::unfold((form, field), |(form, mut field)| async move {
                let next = field.next().await?;
                Some((next.map_err(|e| e.to_string()), (form, field)))
            });
            return Ok(Incoming {
                mimetype,
                cache_control: cache_control.unwrap_or_else(|| "no-cache".into()),
                user_metadata,
                declared_size: None,
                body: Box::pin(body),
            });
        }
        let mut text = Vec::new();
        while let Some(chunk) = field.next().await {
            let chunk = chunk.map_err(|e| StorageError::InvalidRequest(format!("Invalid multipart body: {e}")))?;
            if text.len() + chunk.len() > MAX_FIELD_BYTES {
                return Err(StorageError::InvalidRequest(format!("Field {name} is too large")));
            }
            text.extend_from_slice(&chunk);
        }
        let text = String::from_utf8_lossy(&text).trim().to_string();
        match name.as_str() {
            "cacheControl" if !text.is_empty() => {
                cache_control =
                    Some(if text.chars().all(|c| c.is_ascii_digit()) { format!("max-age={text}") } else { text })
            }
            "metadata" if !text.is_empty() => user_metadata = Some(parse_metadata(&text)?),
            _ => {}
        }
    }
    Err(StorageError::InvalidRequest("No content provided".into()))
}

/// The effective size limit of an upload to `bucket`.
fn limit_of(state: &StorageState, bucket: &Bucket) -> u64 {
    let global = state.config.file_size_limit;
    match bucket.file_size_limit {
        Some(limit) if limit > 0 => global.min(limit as u64),
        _ => global,
    }
}

/// Bodies at most this large (declared) are stored before their row is tried (see `store`).
const SMALL_UPLOAD: u64 = 256 * 1024;

/// Store an upload as `ctx` and return the `{Id, Key}` answer.
async fn store(
    req: &HttpRequest,
    payload: web::Payload,
    state: &StorageState,
    ctx: &Ctx,
    bucket_id: &str,
    key: &str,
    upsert: bool,
) -> Result<HttpResponse, StorageError> {
    let bucket = db::find_bucket(&state.admin, bucket_id).await?;
    let limit = limit_of(state, &bucket);
    if header_str(req, "content-length")
        .and_then(|v| v.parse::<u64>().ok())
        .is_some_and(|n| n > limit.saturating_add(64 * 1024))
    {
        return Err(StorageError::EntityTooLarge);
    }
    let incoming = incoming(req, payload).await?;
    if incoming.declared_size.is_some_and(|n| n > limit) {
        return Err(StorageError::EntityTooLarge);
    }
    check_mime(bucket.allowed_mime_types.as_deref(), &incoming.mimetype)?;

    // Trial write, rolled back: RLS refusals and duplicates answer before any byte is stored.
    // A small body skips it: its bytes are stored first and removed again if the row is refused,
    // which costs less than a transaction more (and a crash in between leaves an orphan file the
    // sweep removes).
    let size_hint = incoming.declared_size.unwrap_or(0);
    let small = incoming.declared_size.is_some_and(|n| n <= SMALL_UPLOAD);
    let trial = NewRow {
        bucket: bucket_id,
        name: key,
        metadata: db::object_metadata(size_hint, "", &incoming.mimetype, &incoming.cache_control),
        user_metadata: incoming.user_metadata.clone(),
        version: "pending",
    };
    if !small {
        let mut client = db::connection(&state.request).await?;
        let tx = db::begin(&mut client, ctx, Access::ReadWrite).await?;
        db::write_object(&tx, ctx, upsert, &trial).await?;
        tx.rollback().await.map_err(|e| StorageError::from_db(&e, "rollback"))?;
    }

    let version = Uuid::new_v4().to_string();
    let stored = backend::put_stream(
        state.store.as_ref(),
        state.local.as_deref(),
        &key_of(&version),
        incoming.body,
        limit,
        backend::Etag::of(&state.config),
    )
    .await?;
    let row = NewRow {
        metadata: db::object_metadata(stored.size, &stored.etag, &incoming.mimetype, &incoming.cache_control),
        version: &version,
        ..trial
    };
    let id = commit_version(state, ctx, upsert, &row).await?;
    Ok(HttpResponse::Ok().json(json!({"Id": id, "Key": format!("{bucket_id}/{key}")})))
}

/// Write the row of bytes already stored at `row.version`, as `ctx`, and commit; then delete the
/// version it replaced. Refused, the new bytes are deleted instead. The row's id.
pub(crate) async fn commit_version(
    state: &StorageState,
    ctx: &Ctx,
    upsert: bool,
    row: &NewRow<'_>,
) -> Result<Uuid, StorageError> {
    let written = async {
        let mut client = db::connection(&state.request).await?;
        if !upsert {
            return db::insert_object(&client, ctx, row).await.map(|id| (id, None));
        }
        let tx = db::begin(&mut client, ctx, Access::ReadWrite).await?;
        let result = db::write_object(&tx, ctx, upsert, row).await?;
        db::commit(tx).await?;
        Ok::<_, StorageError>(result)
    }
    .await;
    match written {
        Ok((id, replaced)) => {
            backend::delete_versions(state.store.as_ref(), replaced.filter(|v| v != row.version)).await;
            Ok(id)
        }
        Err(err) => {
            backend::delete_versions(state.store.as_ref(), [row.version.to_string()]).await;
            Err(err)
        }
    }
}

fn upsert_header(req: &HttpRequest) -> bool {
    header_str(req, "x-upsert").is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// `POST /object/{bucket}/{key}`.
pub async fn create(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let (bucket, key) = split_bucket_key(&tail_after(req.path(), "/object/")?)?;
    store(&req, payload, &state, &ctx, &bucket, &key, upsert_header(&req)).await
}

/// `PUT /object/{bucket}/{key}`: overwrite (storage-api uploads it as an upsert).
pub async fn update(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let (bucket, key) = split_bucket_key(&tail_after(req.path(), "/object/")?)?;
    store(&req, payload, &state, &ctx, &bucket, &key, true).await
}

/// `POST /object/upload/sign/{bucket}/{key}`: check the caller may write there, then sign.
pub async fn sign(req: HttpRequest, state: web::Data<StorageState>) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let tail = tail_after(req.path(), "/object/upload/sign/")?;
    let (bucket, key) = split_bucket_key(&tail)?;
    db::find_bucket(&state.admin, &bucket).await?;
    let upsert = upsert_header(&req);
    let trial = NewRow { bucket: &bucket, name: &key, metadata: json!({}), user_metadata: None, version: "pending" };
    {
        let mut client = db::connection(&state.request).await?;
        let tx = db::begin(&mut client, &ctx, Access::ReadWrite).await?;
        db::write_object(&tx, &ctx, upsert, &trial).await?;
        tx.rollback().await.map_err(|e| StorageError::from_db(&e, "rollback"))?;
    }
    let owner = ctx.caller.subject().map(str::to_string);
    let token = token::sign(&state.secret, &tail, SIGNED_UPLOAD_TTL, owner, Some(upsert))?;
    Ok(HttpResponse::Ok().json(json!({"url": format!("/object/upload/sign/{tail}?token={token}"), "token": token})))
}

/// `PUT /object/upload/sign/{bucket}/{key}?token=`: no key needed, the token decides.
pub async fn signed_put(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let tail = tail_after(req.path(), "/object/upload/sign/")?;
    let (bucket, key) = split_bucket_key(&tail)?;
    let claims = token::verify(&state.secret, &token::from_query(req.query_string())?, &tail)?;
    // A download token (no `upsert` claim) is not an upload token.
    let upsert = claims.upsert.ok_or_else(|| StorageError::InvalidSignature("Invalid signature".into()))?;
    let ctx = Ctx::service(&req, claims.owner.as_deref());
    store(&req, payload, &state, &ctx, &bucket, &key, upsert).await
}
