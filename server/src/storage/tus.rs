//! Resumable uploads (TUS 1.0) at `/upload/resumable`, as Supabase Storage serves them to
//! `tus-js-client` and Uppy: `POST` creates an upload (`Upload-Length`, `Upload-Metadata` with
//! `bucketName`, `objectName`, `contentType`, `cacheControl`, `metadata`; `x-upsert`), with its
//! first bytes in the same request if the client sends them (creation-with-upload); `PATCH` adds
//! bytes at `Upload-Offset`; `HEAD` tells how far an upload got, so an interrupted one resumes;
//! `DELETE` abandons it. The upload's URL ends with the base64url of `bucket/object/version`,
//! as storage-api's does.
//!
//! Where things live, so that any server instance can take the next request: the upload's state
//! in `storage.tus_uploads` (V59), each received chunk as its own object under `tus/<version>/`
//! in the object store. One request at a time writes an upload's next chunk: a `PATCH` first
//! claims the upload at its offset (a token and an expiry in the upload's row, V73, renewed while
//! bytes arrive), stores the chunk, then moves the offset on and drops the claim in one
//! conditional update. A second `PATCH` meanwhile is refused with 409 and the current offset
//! before it writes a byte, so it can neither replace nor delete the chunk being written, and no
//! transaction is held open while bytes arrive. A claim left by a server that died expires after
//! `CLAIM_SECS`.
//!
//! Row-level security decides at creation (a rolled-back trial write of the object row as the
//! caller) and at completion (the real write, as the caller); in between, only the user who
//! created the upload may send its bytes. On completion the chunks are streamed into the
//! object's version key, the row is written, and the chunks are deleted: a half-sent upload is
//! never a visible object. Uploads not finished within a day are removed by the sweep.
//!
//! Not served: the signed variant (`/upload/resumable/sign` with `x-signature`) and
//! `Upload-Defer-Length`.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine;
use futures_util::StreamExt;
use object_store::path::Path;
use serde_json::Value;
use uuid::Uuid;

use super::backend::{self, key_of};
use super::db::{self, Ctx, NewRow};
use super::error::StorageError;
use super::key::validate_key;
use super::limits::check_mime;
use super::StorageState;
use crate::db::cached::CachedQueries;
use crate::db::context::Access;

const TUS_VERSION: &str = "1.0.0";
/// How long an unfinished upload is kept.
pub const EXPIRY_HOURS: i64 = 24;

/// How long a `PATCH`'s claim on an upload lasts without renewal.
const CLAIM_SECS: i32 = 30;
/// How often a `PATCH` still receiving bytes renews its claim.
const RENEW_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// A refusal in TUS's way: a status and a plain-text body (storage-api sends the message), with
/// the upload's current offset on a conflict.
#[derive(Debug)]
pub struct Refusal(StatusCode, String, Option<i64>);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.1)
    }
}

impl actix_web::ResponseError for Refusal {
    fn status_code(&self) -> StatusCode {
        self.0
    }

    fn error_response(&self) -> HttpResponse {
        let mut res = HttpResponse::build(self.0);
        res.insert_header(("Tus-Resumable", TUS_VERSION));
        if self.0 == StatusCode::PRECONDITION_FAILED {
            res.insert_header(("Tus-Version", TUS_VERSION));
        }
        if let Some(offset) = self.2 {
            res.insert_header(("Upload-Offset", offset.to_string()));
        }
        res.content_type("text/plain; charset=utf-8").body(self.1.clone())
    }
}

impl From<StorageError> for Refusal {
    fn from(err: StorageError) -> Refusal {
        Refusal(StatusCode::from_u16(err.status()).unwrap_or(StatusCode::BAD_REQUEST), err.to_string(), None)
    }
}

fn refusal(status: StatusCode, message: &str) -> Refusal {
    Refusal(status, message.to_string(), None)
}

/// 409: the request's offset is not (or no longer) where the upload is, or another request is
/// writing its next chunk; `offset` is where the upload is now.
fn conflict(offset: i64) -> Refusal {
    Refusal(StatusCode::CONFLICT, "Upload-Offset does not match the upload's offset".to_string(), Some(offset))
}

fn from_storage(err: StorageError) -> Refusal {
    Refusal::from(err)
}

fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok()).map(str::trim)
}

/// The client must speak TUS 1.0.0 (`Tus-Resumable`).
fn check_version(req: &HttpRequest) -> Result<(), Refusal> {
    match header(req, "tus-resumable") {
        Some(TUS_VERSION) => Ok(()),
        _ => Err(refusal(StatusCode::PRECONDITION_FAILED, "Unsupported TUS version")),
    }
}

/// `Upload-Metadata`: comma-separated `key base64(value)` pairs.
fn parse_metadata(raw: &str) -> Result<std::collections::HashMap<String, String>, Refusal> {
    let invalid = || refusal(StatusCode::BAD_REQUEST, "Invalid Upload-Metadata header");
    let mut out = std::collections::HashMap::new();
    for pair in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let mut parts = pair.splitn(2, ' ');
        let key = parts.next().filter(|k| !k.is_empty()).ok_or_else(invalid)?;
        let value = match parts.next() {
            Some(encoded) => {
                let bytes = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).map_err(|_| invalid())?;
                String::from_utf8(bytes).map_err(|_| invalid())?
            }
            None => String::new(),
        };
        out.insert(key.to_string(), value);
    }
    Ok(out)
}

/// The upload id of a URL: base64url of `bucket/object/version`.
fn decode_id(id: &str) -> Option<(String, String, Uuid)> {
    let text =
        String::from_utf8(base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(id.trim_end_matches('=')).ok()?)
            .ok()?;
    let (rest, version) = text.rsplit_once('/')?;
    let (bucket, object) = rest.split_once('/')?;
    Some((bucket.to_string(), object.to_string(), Uuid::parse_str(version).ok()?))
}

fn encode_id(bucket: &str, object: &str, version: Uuid) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{bucket}/{object}/{version}"))
}

fn chunk_key(version: Uuid, offset: i64) -> Path {
    Path::from(format!("tus/{version}/{offset:020}"))
}

/// One upload's state.
struct Upload {
    bucket: String,
    name: String,
    owner_id: Option<String>,
    role: String,
    length: i64,
    offset: i64,
    chunks: Vec<i64>,
    upsert: bool,
    content_type: String,
    cache_control: String,
    user_metadata: Option<Value>,
    expires: String,
}

async fn load(state: &StorageState, version: Uuid) -> Result<Option<Upload>, StorageError> {
    let client = db::connection(&state.admin).await?;
    let row = client
        .cached_query_opt(
            "select bucket_id, name, owner_id, role, upload_length, upload_offset, chunks, upsert, content_type, \
             cache_control, user_metadata, to_char(expires_at at time zone 'GMT', 'Dy, DD Mon YYYY HH24:MI:SS \"GMT\"') \
             from storage.tus_uploads where id = $1 and expires_at > now()",
            &[&version],
        )
        .await
        .map_err(|e| StorageError::from_db(&e, "read upload"))?;
    Ok(row.map(|r| Upload {
        bucket: r.get(0),
        name: r.get(1),
        owner_id: r.get(2),
        role: r.get(3),
        length: r.get(4),
        offset: r.get(5),
        chunks: r.get(6),
        upsert: r.get(7),
        content_type: r.get(8),
        cache_control: r.get(9),
        user_metadata: r.get(10),
        expires: r.get(11),
    }))
}

/// The upload of the URL's id, if the caller is the one who created it.
async fn own_upload(state: &StorageState, ctx: &Ctx, id: &str) -> Result<(Uuid, Upload), Refusal> {
    let not_found = || refusal(StatusCode::NOT_FOUND, "Upload not found");
    let (bucket, object, version) = decode_id(id).ok_or_else(not_found)?;
    let upload = load(state, version).await.map_err(from_storage)?.ok_or_else(not_found)?;
    if upload.bucket != bucket || upload.name != object {
        return Err(not_found());
    }
    if upload.owner_id != ctx.owner().1 || upload.role != ctx.caller.role {
        return Err(refusal(StatusCode::FORBIDDEN, "You are not the owner of this upload"));
    }
    Ok((version, upload))
}

fn limit_of(state: &StorageState, bucket: &db::Bucket) -> u64 {
    match bucket.file_size_limit {
        Some(limit) if limit > 0 => state.config.file_size_limit.min(limit as u64),
        _ => state.config.file_size_limit,
    }
}

fn upload_url(req: &HttpRequest, id: &str) -> String {
    let info = req.connection_info();
    let mount = super::key::mount_of(req.path());
    format!("{}://{}{mount}/upload/resumable/{id}", info.scheme(), info.host())
}

/// `OPTIONS /upload/resumable[/{id}]`: what this server speaks.
pub async fn options(state: web::Data<StorageState>) -> HttpResponse {
    HttpResponse::NoContent()
        .insert_header(("Tus-Resumable", TUS_VERSION))
        .insert_header(("Tus-Version", TUS_VERSION))
        .insert_header(("Tus-Extension", "creation,creation-with-upload,termination,expiration"))
        .insert_header(("Tus-Max-Size", state.config.file_size_limit.to_string()))
        .finish()
}

/// `POST /upload/resumable`: a new upload, and its first bytes when they come along.
pub async fn create(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, Refusal> {
    check_version(&req)?;
    create_inner(&req, payload, &state).await
}

async fn create_inner(req: &HttpRequest, payload: web::Payload, state: &StorageState) -> Result<HttpResponse, Refusal> {
    let ctx = Ctx::of(req).map_err(from_storage)?;
    let length: i64 =
        header(req, "upload-length").and_then(|v| v.parse().ok()).filter(|n| *n >= 0).ok_or_else(|| {
            refusal(StatusCode::BAD_REQUEST, "Upload-Length is required (Upload-Defer-Length is not supported)")
        })?;
    let metadata = parse_metadata(header(req, "upload-metadata").unwrap_or_default())?;
    let field = |k: &str| metadata.get(k).cloned().unwrap_or_default();
    let (bucket_id, object) = (field("bucketName"), field("objectName"));
    if bucket_id.is_empty() || object.is_empty() {
        return Err(refusal(StatusCode::BAD_REQUEST, "Upload-Metadata needs bucketName and objectName"));
    }
    validate_key(&object).map_err(from_storage)?;
    let content_type =
        Some(field("contentType")).filter(|c| !c.is_empty()).unwrap_or("application/octet-stream".into());
    let cache_control = match field("cacheControl") {
        c if c.is_empty() => "max-age=3600".to_string(),
        c if c.chars().all(|ch| ch.is_ascii_digit()) => format!("max-age={c}"),
        c => c,
    };
    let user_metadata = match field("metadata") {
        m if m.is_empty() => None,
        m => Some(
            serde_json::from_str::<Value>(&m)
                .ok()
                .filter(Value::is_object)
                .ok_or_else(|| refusal(StatusCode::BAD_REQUEST, "Invalid metadata"))?,
        ),
    };
    let upsert = header(req, "x-upsert").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let bucket = db::find_bucket(&state.admin, &bucket_id).await.map_err(from_storage)?;
    if length as u64 > limit_of(state, &bucket) {
        return Err(from_storage(StorageError::EntityTooLarge));
    }
    check_mime(bucket.allowed_mime_types.as_deref(), &content_type).map_err(from_storage)?;

    // RLS and duplicates decide now, before any byte is kept (a rolled-back trial write).
    let trial = NewRow {
        bucket: &bucket_id,
        name: &object,
        metadata: db::object_metadata(length as u64, "", &content_type, &cache_control),
        user_metadata: user_metadata.clone(),
        version: "pending",
    };
    {
        let mut client = db::connection(&state.request).await.map_err(from_storage)?;
        let tx = db::begin(&mut client, &ctx, Access::ReadWrite).await.map_err(from_storage)?;
        db::write_object(&tx, &ctx, upsert, &trial).await.map_err(from_storage)?;
        tx.rollback().await.map_err(|e| from_storage(StorageError::from_db(&e, "rollback")))?;
    }

    let version = Uuid::new_v4();
    let (_, owner_id) = ctx.owner();
    let client = db::connection(&state.admin).await.map_err(from_storage)?;
    client
        .cached_execute(
            "insert into storage.tus_uploads (id, bucket_id, name, owner_id, role, upload_length, upsert, content_type, \
             cache_control, user_metadata, expires_at) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + make_interval(hours => $11::int))",
            &[
                &version,
                &bucket_id,
                &object,
                &owner_id,
                &ctx.caller.role,
                &length,
                &upsert,
                &content_type,
                &cache_control,
                &user_metadata,
                &(EXPIRY_HOURS as i32),
            ],
        )
        .await
        .map_err(|e| from_storage(StorageError::from_db(&e, "create upload")))?;
    drop(client);
    let id = encode_id(&bucket_id, &object, version);
    let mut res = HttpResponse::Created();
    res.insert_header(("Tus-Resumable", TUS_VERSION)).insert_header(("Location", upload_url(req, &id)));

    let upload = load(state, version)
        .await
        .map_err(from_storage)?
        .ok_or_else(|| refusal(StatusCode::NOT_FOUND, "Upload not found"))?;
    res.insert_header(("Upload-Expires", upload.expires.clone()));
    if length == 0 {
        // an empty file is whole at once
        finish(state, &ctx, version, &upload, &[]).await.map_err(from_storage)?;
        res.insert_header(("Upload-Offset", "0"));
        return Ok(res.finish());
    }
    let with_data =
        header(req, "content-type").is_some_and(|c| c.eq_ignore_ascii_case("application/offset+octet-stream"));
    if with_data && header(req, "content-length").is_some_and(|l| l != "0") {
        let (offset, _) = receive(state, &ctx, version, upload, 0, payload).await?;
        res.insert_header(("Upload-Offset", offset.to_string()));
    }
    Ok(res.finish())
}

/// `HEAD /upload/resumable/{id}`: how far the upload got.
pub async fn head(
    req: HttpRequest,
    path: web::Path<String>,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, Refusal> {
    let ctx = Ctx::of(&req)?;
    let (_, upload) = own_upload(&state, &ctx, &path).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Tus-Resumable", TUS_VERSION))
        .insert_header(("Upload-Offset", upload.offset.to_string()))
        .insert_header(("Upload-Length", upload.length.to_string()))
        .insert_header(("Upload-Expires", upload.expires))
        .insert_header(("Cache-Control", "no-store"))
        .finish())
}

/// `PATCH /upload/resumable/{id}`: bytes at `Upload-Offset`.
pub async fn patch(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, Refusal> {
    check_version(&req)?;
    {
        let ctx = Ctx::of(&req)?;
        if !header(&req, "content-type").is_some_and(|c| c.eq_ignore_ascii_case("application/offset+octet-stream")) {
            return Err(refusal(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Content-Type must be application/offset+octet-stream",
            ));
        }
        let offset: i64 = header(&req, "upload-offset")
            .and_then(|v| v.parse().ok())
            .filter(|n| *n >= 0)
            .ok_or_else(|| refusal(StatusCode::BAD_REQUEST, "Upload-Offset is required"))?;
        let (version, upload) = own_upload(&state, &ctx, &path).await?;
        let (offset, expires) = receive(&state, &ctx, version, upload, offset, payload).await?;
        Ok(HttpResponse::NoContent()
            .insert_header(("Tus-Resumable", TUS_VERSION))
            .insert_header(("Upload-Offset", offset.to_string()))
            .insert_header(("Upload-Expires", expires))
            .finish())
    }
}

/// Store a chunk sent for `offset`, move the offset on, and finish the upload when it is whole.
/// Returns the new offset and the upload's expiry.
async fn receive(
    state: &StorageState,
    ctx: &Ctx,
    version: Uuid,
    upload: Upload,
    offset: i64,
    payload: web::Payload,
) -> Result<(i64, String), Refusal> {
    if offset != upload.offset {
        return Err(conflict(upload.offset));
    }
    let token = claim(state, version, offset).await?;
    let remaining = (upload.length - offset).max(0) as u64;
    let key = chunk_key(version, offset);
    let body = payload.map(|c| c.map_err(|e| e.to_string()));
    let put =
        backend::put_stream(state.store.as_ref(), state.local.as_deref(), &key, body, remaining, backend::Etag::Mtime);
    // Bytes are written only while the claim holds: a claim that cannot be renewed stops them.
    let stored = tokio::select! {
        stored = put => stored.map_err(|err| match err {
            StorageError::EntityTooLarge => refusal(StatusCode::PAYLOAD_TOO_LARGE, "The chunk goes past Upload-Length"),
            err => from_storage(err),
        }),
        lost = keep_claim(state, version, token) => Err(lost),
    };
    let stored = match stored {
        Ok(stored) => stored,
        Err(refused) => {
            release(state, version, token).await;
            return Err(refused);
        }
    };
    if stored.size == 0 {
        // nothing came: nothing to keep
        let _ = state.store.delete(&key).await;
        release(state, version, token).await;
        return Ok((offset, upload.expires));
    }
    let new_offset = offset + stored.size as i64;
    let moved = async {
        let client = db::connection(&state.admin).await?;
        let row = client
            .cached_query_opt(
                "update storage.tus_uploads set upload_offset = $3, chunks = chunks || $2::int8, \
                 receiving = null, receiving_until = null \
                 where id = $1 and upload_offset = $2 and receiving = $4 returning upload_offset",
                &[&version, &offset, &new_offset, &token],
            )
            .await
            .map_err(|e| StorageError::from_db(&e, "move upload offset"))?;
        Ok::<_, StorageError>(row.is_some())
    }
    .await;
    match moved {
        Ok(true) => {}
        Ok(false) => {
            // The claim was lost (it expired, or the upload was abandoned): the chunk may now be
            // another request's, so it is left to that request or to the sweep.
            return Err(match load(state, version).await {
                Ok(Some(now)) => conflict(now.offset),
                _ => refusal(StatusCode::NOT_FOUND, "Upload not found"),
            });
        }
        Err(err) => {
            let _ = state.store.delete(&key).await;
            release(state, version, token).await;
            return Err(from_storage(err));
        }
    }
    if new_offset == upload.length {
        let mut chunks = upload.chunks.clone();
        chunks.push(offset);
        finish(state, ctx, version, &upload, &chunks).await.map_err(from_storage)?;
    }
    Ok((new_offset, upload.expires))
}

/// Claim the upload at `offset` for this request, or refuse with 409 and the current offset when
/// it is elsewhere or another request holds an unexpired claim.
async fn claim(state: &StorageState, version: Uuid, offset: i64) -> Result<Uuid, Refusal> {
    let token = Uuid::new_v4();
    let client = db::connection(&state.admin).await.map_err(from_storage)?;
    let row = client
        .cached_query_opt(
            "with claimed as (update storage.tus_uploads set receiving = $3, \
               receiving_until = now() + make_interval(secs => $4) \
               where id = $1 and upload_offset = $2 and expires_at > now() \
               and (receiving is null or receiving_until < now()) returning upload_offset) \
             select (select upload_offset from claimed), \
               (select upload_offset from storage.tus_uploads where id = $1)",
            &[&version, &offset, &token, &(CLAIM_SECS as f64)],
        )
        .await
        .map_err(|e| from_storage(StorageError::from_db(&e, "claim upload")))?;
    let (claimed, current): (Option<i64>, Option<i64>) = row.map(|r| (r.get(0), r.get(1))).unwrap_or((None, None));
    match (claimed, current) {
        (Some(_), _) => Ok(token),
        (None, Some(current)) => Err(conflict(current)),
        (None, None) => Err(refusal(StatusCode::NOT_FOUND, "Upload not found")),
    }
}

/// Renew the claim every `RENEW_EVERY` while the chunk arrives; returns only when it could not
/// be renewed (then the chunk must not be kept).
async fn keep_claim(state: &StorageState, version: Uuid, token: Uuid) -> Refusal {
    loop {
        tokio::time::sleep(RENEW_EVERY).await;
        let renewed = async {
            let client = db::connection(&state.admin).await?;
            client
                .cached_query_opt(
                    "update storage.tus_uploads set receiving_until = now() + make_interval(secs => $3) \
                     where id = $1 and receiving = $2 returning 1",
                    &[&version, &token, &(CLAIM_SECS as f64)],
                )
                .await
                .map_err(|e| StorageError::from_db(&e, "renew upload claim"))
        }
        .await;
        match renewed {
            Ok(Some(_)) => {}
            Ok(None) => return refusal(StatusCode::CONFLICT, "The upload was interrupted"),
            Err(err) => return from_storage(err),
        }
    }
}

/// Drop this request's claim (its chunk was not kept).
async fn release(state: &StorageState, version: Uuid, token: Uuid) {
    if let Ok(client) = db::connection(&state.admin).await {
        let _ = client
            .cached_execute(
                "update storage.tus_uploads set receiving = null, receiving_until = null where id = $1 and receiving = $2",
                &[&version, &token],
            )
            .await;
    }
}

/// The upload is whole: its chunks become the object's bytes, the row is written as the caller,
/// the chunks and the state go.
async fn finish(
    state: &StorageState,
    ctx: &Ctx,
    version: Uuid,
    upload: &Upload,
    chunks: &[i64],
) -> Result<(), StorageError> {
    let keys: Vec<Path> = chunks.iter().map(|o| chunk_key(version, *o)).collect();
    let version_text = version.to_string();
    let stored = backend::put_concat(
        &state.store,
        state.local.as_deref(),
        keys.clone(),
        &key_of(&version_text),
        upload.length as u64,
        backend::Etag::of(&state.config),
    )
    .await?;
    let row = NewRow {
        bucket: &upload.bucket,
        name: &upload.name,
        metadata: db::object_metadata(stored.size, &stored.etag, &upload.content_type, &upload.cache_control),
        user_metadata: upload.user_metadata.clone(),
        version: &version_text,
    };
    let written = super::upload::commit_version(state, ctx, upload.upsert, &row).await;
    forget(state, version, &keys).await;
    written.map(|_| ())
}

/// Delete an upload's state and chunks.
async fn forget(state: &StorageState, version: Uuid, keys: &[Path]) {
    if let Ok(client) = db::connection(&state.admin).await {
        if let Err(err) = client.cached_execute("delete from storage.tus_uploads where id = $1", &[&version]).await {
            tracing::warn!(error = %err, "storage: could not delete a finished upload's state");
        }
    }
    for key in keys {
        let _ = state.store.delete(key).await;
    }
}

/// `DELETE /upload/resumable/{id}`: abandon an upload.
pub async fn delete(
    req: HttpRequest,
    path: web::Path<String>,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, Refusal> {
    check_version(&req)?;
    let ctx = Ctx::of(&req)?;
    let (version, upload) = own_upload(&state, &ctx, &path).await?;
    let keys: Vec<Path> = upload.chunks.iter().map(|o| chunk_key(version, *o)).collect();
    forget(&state, version, &keys).await;
    Ok(HttpResponse::NoContent().insert_header(("Tus-Resumable", TUS_VERSION)).finish())
}

/// Remove uploads past their expiry, and their chunks (called by the sweep).
pub async fn expire(state: &StorageState) -> Result<usize, String> {
    let client = db::connection(&state.admin).await.map_err(|e| e.to_string())?;
    let rows = client
        .cached_query("delete from storage.tus_uploads where expires_at < now() returning id, chunks", &[])
        .await
        .map_err(|e| e.to_string())?;
    let expired = rows.len();
    for row in rows {
        let version: Uuid = row.get(0);
        let chunks: Vec<i64> = row.get(1);
        for offset in chunks {
            let _ = state.store.delete(&chunk_key(version, offset)).await;
        }
    }
    Ok(expired)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upload_ids_are_base64url_of_bucket_object_and_version() {
        let version = Uuid::new_v4();
        let id = encode_id("photos", "voitures/été 2026.jpg", version);
        assert!(!id.contains('/') && !id.contains('+') && !id.contains('='));
        assert_eq!(decode_id(&id), Some(("photos".into(), "voitures/été 2026.jpg".into(), version)));
        assert_eq!(decode_id("bm9wZQ"), None);
        assert_eq!(decode_id("%%%"), None);
    }

    #[test]
    fn upload_metadata_is_key_space_base64_pairs() {
        let m = parse_metadata("bucketName cGhvdG9z,objectName YS9iLnBuZw==,empty").unwrap();
        assert_eq!(m["bucketName"], "photos");
        assert_eq!(m["objectName"], "a/b.png");
        assert_eq!(m["empty"], "");
        assert!(parse_metadata("bucketName !!!").is_err());
    }
}
