//! Object operations other than uploads and downloads: list, remove, move, copy and signing
//! download URLs, each in the caller's transaction so RLS decides (list and sign need SELECT,
//! remove SELECT + DELETE, move UPDATE, copy SELECT on the source and INSERT on the target).
//!
//! Bytes are only touched after a commit (deleting removed versions) or before a row that
//! would point at them (copying to a fresh version); a move never touches bytes.

use crate::db::cached::CachedQueries;
use std::collections::HashSet;

use actix_web::{web, HttpRequest, HttpResponse};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

use super::backend::{self, key_of};
use super::db::{self, Ctx, NewRow};
use super::error::StorageError;
use super::key::{split_bucket_key, tail_after, validate_key};
use super::{token, StorageState};
use crate::db::context::Access;

/// Parse a JSON request body into `T`.
pub fn json_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, StorageError> {
    let body = if body.iter().all(u8::is_ascii_whitespace) { b"{}".as_slice() } else { body };
    serde_json::from_slice(body).map_err(|e| StorageError::InvalidRequest(format!("Invalid body: {e}")))
}

pub(super) fn json_text(text: String) -> HttpResponse {
    HttpResponse::Ok().content_type("application/json").body(text)
}

/// `text` as a literal part of a `like` pattern (`escape '\\'`).
pub(crate) fn like_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

#[derive(Debug, Default, Deserialize)]
struct SortBy {
    column: Option<String>,
    order: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListBody {
    prefix: Option<String>,
    limit: Option<i64>,
    offset: Option<i64>,
    sort_by: Option<SortBy>,
    search: Option<String>,
}

/// `POST /object/list/{bucket}`: files and folders (`id: null`) directly under `prefix`.
pub async fn list(
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let bucket = path.into_inner();
    let body: ListBody = json_body(&body)?;
    db::find_bucket(&state.admin, &bucket).await?;
    let mut prefix = body.prefix.unwrap_or_default().trim_start_matches('/').to_string();
    if !prefix.is_empty() && !prefix.ends_with('/') {
        prefix.push('/');
    }
    let sort = body.sort_by.unwrap_or_default();
    let column = match sort.column.as_deref().unwrap_or("name") {
        c @ ("name" | "created_at" | "updated_at" | "last_accessed_at") => c,
        _ => return Err(StorageError::InvalidRequest("Invalid sort column".into())),
    };
    let order = if sort.order.as_deref().is_some_and(|o| o.eq_ignore_ascii_case("desc")) { "desc" } else { "asc" };
    let limit = body.limit.unwrap_or(100).clamp(0, 10_000);
    let offset = body.offset.unwrap_or(0).max(0);
    let search = body.search.filter(|s| !s.is_empty()).map(|s| format!("{}%", like_escape(&s))).unwrap_or_default();
    let sql = format!(
        "with objs as ( \
           select id, name, updated_at, created_at, last_accessed_at, metadata, substr(name, char_length($3) + 1) as rest \
           from storage.objects where bucket_id = $1 and name like $2 escape '\\'), \
         entries as ( \
           select distinct on (split_part(rest, '/', 1)) split_part(rest, '/', 1) as name, null::uuid as id, \
             null::timestamptz as updated_at, null::timestamptz as created_at, null::timestamptz as last_accessed_at, \
             null::jsonb as metadata \
           from objs where strpos(rest, '/') > 0 \
           union all \
           select rest, id, updated_at, created_at, last_accessed_at, metadata from objs where strpos(rest, '/') = 0) \
         select coalesce(json_agg(json_build_object('name', e.name, 'id', e.id, \
           'updated_at', storage.js_time(e.updated_at), 'created_at', storage.js_time(e.created_at), \
           'last_accessed_at', storage.js_time(e.last_accessed_at), 'metadata', e.metadata)), '[]'::json)::text from ( \
           select * from entries where $4 = '' or name ilike $4 escape '\\' \
           order by {column} {order} nulls last, name collate \"C\" {order} limit $5 offset $6) e"
    );
    let pattern = format!("{}%", like_escape(&prefix));
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, &ctx, Access::ReadOnly).await?;
    let row = tx
        .cached_query_one(&sql, &[&bucket, &pattern, &prefix, &search, &limit, &offset])
        .await
        .map_err(|e| StorageError::from_db(&e, "list objects"))?;
    db::commit(tx).await?;
    Ok(json_text(row.get(0)))
}

const DELETED: &str = "with d as (delete from storage.objects where bucket_id = $1 and name = any($2) \
     returning bucket_id, name, id, owner, owner_id, version, created_at, updated_at, last_accessed_at, metadata, user_metadata) \
     select coalesce(json_agg(d), '[]'::json)::text, coalesce(array_agg(d.version) filter (where d.version is not null), '{}') from d";

/// Delete rows as the caller, commit, then delete their bytes; returns the deleted rows as JSON.
pub(crate) async fn delete_rows(
    state: &StorageState,
    ctx: &Ctx,
    bucket: &str,
    names: &[String],
) -> Result<(String, usize), StorageError> {
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, ctx, Access::ReadWrite).await?;
    let row = tx
        .cached_query_one(DELETED, &[&bucket, &names])
        .await
        .map_err(|e| StorageError::from_db(&e, "delete objects"))?;
    db::commit(tx).await?;
    let versions: Vec<String> = row.get(1);
    let count = versions.len();
    backend::delete_versions(state.store.as_ref(), versions).await;
    Ok((row.get(0), count))
}

#[derive(Debug, Deserialize)]
struct RemoveBody {
    prefixes: Vec<String>,
}

/// `DELETE /object/{bucket}` (`{prefixes}`) and `DELETE /object/{bucket}/{key}`.
pub async fn remove(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let tail = tail_after(req.path(), "/object/")?;
    if !tail.contains('/') {
        let body: RemoveBody = json_body(&body)?;
        db::find_bucket(&state.admin, &tail).await?;
        let (rows, _) = delete_rows(&state, &ctx, &tail, &body.prefixes).await?;
        return Ok(json_text(rows));
    }
    let (bucket, key) = split_bucket_key(&tail)?;
    let (_, count) = delete_rows(&state, &ctx, &bucket, &[key]).await?;
    if count == 0 {
        return Err(StorageError::NoSuchKey);
    }
    Ok(HttpResponse::Ok().json(json!({"message": "Successfully deleted"})))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct MoveBody {
    bucket_id: String,
    source_key: String,
    destination_key: String,
    destination_bucket: Option<String>,
    copy_metadata: Option<bool>,
    metadata: Option<Value>,
}

impl MoveBody {
    fn validated(self) -> Result<MoveBody, StorageError> {
        validate_key(&self.source_key)?;
        validate_key(&self.destination_key)?;
        Ok(self)
    }

    fn target_bucket(&self) -> &str {
        self.destination_bucket.as_deref().filter(|b| !b.is_empty()).unwrap_or(&self.bucket_id)
    }
}

/// `POST /object/move`: rename the row (bytes stay where they are).
pub async fn move_object(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let body: MoveBody = json_body::<MoveBody>(&body)?.validated()?;
    db::find_bucket(&state.admin, body.target_bucket()).await?;
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, &ctx, Access::ReadWrite).await?;
    let moved = tx
        .cached_query_opt(
            "update storage.objects set bucket_id = $3, name = $4, last_accessed_at = now() \
             where bucket_id = $1 and name = $2 returning id",
            &[&body.bucket_id, &body.source_key, &body.target_bucket(), &body.destination_key],
        )
        .await
        .map_err(|e| StorageError::from_db(&e, "move object"))?;
    if moved.is_none() {
        return Err(StorageError::NoSuchKey);
    }
    db::commit(tx).await?;
    Ok(HttpResponse::Ok().json(json!({"message": "Successfully moved"})))
}

/// `POST /object/copy`: copy the bytes to a fresh version, then insert the target row.
pub async fn copy_object(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let body: MoveBody = json_body::<MoveBody>(&body)?.validated()?;
    let target = body.target_bucket().to_string();
    db::find_bucket(&state.admin, &target).await?;
    let upsert = req.headers().get("x-upsert").and_then(|v| v.to_str().ok()).is_some_and(|v| v == "true");
    let mut client = db::connection(&state.request).await?;
    let source = {
        let tx = db::begin(&mut client, &ctx, Access::ReadOnly).await?;
        let row = db::find_object(&tx, &body.bucket_id, &body.source_key).await?.ok_or(StorageError::NoSuchKey)?;
        db::commit(tx).await?;
        row
    };
    let from = source.version.clone().ok_or(StorageError::NoSuchKey)?;
    let version = Uuid::new_v4().to_string();
    state.store.copy(&key_of(&from), &key_of(&version)).await?;
    let mut metadata = source.metadata.clone();
    if let Some(fields) = metadata.as_object_mut() {
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        fields.insert("lastModified".into(), json!(now));
    }
    let user_metadata =
        if body.copy_metadata == Some(false) { body.metadata.clone() } else { source.user_metadata.clone() };
    let row = NewRow { bucket: &target, name: &body.destination_key, metadata, user_metadata, version: &version };
    let written = async {
        let tx = db::begin(&mut client, &ctx, Access::ReadWrite).await?;
        let result = db::write_object(&tx, &ctx, upsert, &row).await?;
        db::commit(tx).await?;
        Ok::<_, StorageError>(result)
    }
    .await;
    match written {
        Ok((id, replaced)) => {
            backend::delete_versions(state.store.as_ref(), replaced).await;
            Ok(HttpResponse::Ok().json(json!({"Id": id, "Key": format!("{target}/{}", body.destination_key)})))
        }
        Err(err) => {
            backend::delete_versions(state.store.as_ref(), [version]).await;
            Err(err)
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SignBody {
    #[serde(deserialize_with = "integer_or_text")]
    expires_in: i64,
    paths: Option<Vec<String>>,
    /// Image transformations: the URL then renders the image (`/render/image/sign/...`).
    transform: Option<Value>,
}

/// An integer given as a JSON number or as its text (`"60"`, as supabase-py sends `expiresIn`):
/// storage-api's validation coerces both.
fn integer_or_text<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    use serde::de::Error;
    match Value::deserialize(deserializer)? {
        Value::Number(n) => n.as_i64().ok_or_else(|| D::Error::custom("expiresIn must be an integer")),
        Value::String(s) => s.trim().parse().map_err(|_| D::Error::custom("expiresIn must be an integer")),
        _ => Err(D::Error::custom("expiresIn must be an integer")),
    }
}

/// `POST /object/sign/{bucket}/{key}` (`{expiresIn}`) and `POST /object/sign/{bucket}` (`{expiresIn, paths}`).
pub async fn sign(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let tail = tail_after(req.path(), "/object/sign/")?;
    let body: SignBody = json_body(&body)?;
    if body.expires_in <= 0 {
        return Err(StorageError::InvalidRequest("expiresIn must be positive".into()));
    }
    let (bucket, paths, single) = if tail.contains('/') {
        let (bucket, key) = split_bucket_key(&tail)?;
        (bucket, vec![key], true)
    } else {
        (tail.clone(), body.paths.clone().unwrap_or_default(), false)
    };
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, &ctx, Access::ReadOnly).await?;
    let rows = tx
        .cached_query("select name from storage.objects where bucket_id = $1 and name = any($2)", &[&bucket, &paths])
        .await
        .map_err(|e| StorageError::from_db(&e, "sign"))?;
    db::commit(tx).await?;
    let found: HashSet<String> = rows.iter().map(|r| r.get(0)).collect();
    let signed_url = |path: &str| -> Result<String, StorageError> {
        let url = format!("{bucket}/{path}");
        let token = token::sign(&state.secret, &url, body.expires_in, None, None)?;
        Ok(format!("/object/sign/{url}?token={token}"))
    };
    if single {
        if !found.contains(&paths[0]) {
            return Err(StorageError::NoSuchKey);
        }
        if let Some(transform) = body.transform.as_ref().filter(|t| t.as_object().is_some_and(|o| !o.is_empty())) {
            let transformations = super::render::Transform::from_json(transform)?.to_token();
            let url = format!("{bucket}/{}", paths[0]);
            let token = token::sign_render(&state.secret, &url, body.expires_in, transformations)?;
            return Ok(HttpResponse::Ok().json(json!({"signedURL": format!("/render/image/sign/{url}?token={token}")})));
        }
        return Ok(HttpResponse::Ok().json(json!({"signedURL": signed_url(&paths[0])?})));
    }
    let mut out = Vec::with_capacity(paths.len());
    for path in &paths {
        out.push(if found.contains(path) {
            json!({"error": null, "path": path, "signedURL": signed_url(path)?})
        } else {
            json!({"error": "Either the object does not exist or you do not have access to it", "path": path, "signedURL": null})
        });
    }
    Ok(HttpResponse::Ok().json(out))
}
