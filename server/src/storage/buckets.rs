//! Bucket CRUD: `GET/POST /bucket`, `GET/PUT/DELETE /bucket/{id}`, `POST /bucket/{id}/empty`.
//!
//! Every statement runs as the caller, so `storage.buckets` policies decide (the service role
//! bypasses them, as on Supabase). Emptying deletes the rows as the caller, then their bytes.

use crate::db::cached::CachedQueries;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::db::{self, Ctx};
use super::error::StorageError;
use super::key::validate_bucket_name;
use super::limits::parse_size;
use super::objects::{json_body, json_text};
use super::{backend, StorageState};
use crate::db::context::Access;
use deadpool_postgres::Transaction;

/// A bucket as storage-api answers it: its schema's fields only, `owner` as text (`""` when
/// none), times as JavaScript writes them.
const COLUMNS: &str = "id, name, coalesce(owner::text, '') as owner, public, file_size_limit, allowed_mime_types, \
     storage.js_time(created_at) as created_at, storage.js_time(updated_at) as updated_at";

/// Runs `statements` in a transaction as the caller (so the policies decide) and commits it; an
/// error leaves it uncommitted (rolled back).
async fn as_caller<T>(
    state: &StorageState,
    ctx: &Ctx,
    access: Access,
    statements: impl AsyncFnOnce(&Transaction<'_>) -> Result<T, StorageError>,
) -> Result<T, StorageError> {
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, ctx, access).await?;
    let out = statements(&tx).await?;
    db::commit(tx).await?;
    Ok(out)
}

/// [`as_caller`] for writes on the bucket `id`, once it is known to exist (`NoSuchBucket` else).
async fn writing_in<T>(
    req: &HttpRequest,
    state: &StorageState,
    id: &str,
    statements: impl AsyncFnOnce(&Transaction<'_>) -> Result<T, StorageError>,
) -> Result<T, StorageError> {
    let ctx = Ctx::of(req)?;
    db::find_bucket(&state.admin, id).await?;
    as_caller(state, &ctx, Access::ReadWrite, statements).await
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListQuery {
    limit: Option<i64>,
    offset: Option<i64>,
    search: Option<String>,
    sort_column: Option<String>,
    sort_order: Option<String>,
}

/// `GET /bucket`.
pub async fn list(
    req: HttpRequest,
    query: web::Query<ListQuery>,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let column = match query.sort_column.as_deref().unwrap_or("name") {
        c @ ("id" | "name" | "created_at" | "updated_at") => c,
        _ => return Err(StorageError::InvalidRequest("Invalid sortColumn".into())),
    };
    let order =
        if query.sort_order.as_deref().is_some_and(|o| o.eq_ignore_ascii_case("desc")) { "desc" } else { "asc" };
    let search = query.search.clone().filter(|s| !s.is_empty()).map(|s| format!("%{s}%")).unwrap_or_default();
    let sql = format!(
        "select coalesce(json_agg(b), '[]'::json)::text from (select {COLUMNS} from storage.buckets \
         where $1 = '' or name ilike $1 order by {column} {order} limit $2 offset $3) b"
    );
    let row = as_caller(&state, &ctx, Access::ReadOnly, async |tx| {
        tx.cached_query_one(&sql, &[&search, &query.limit, &query.offset.unwrap_or(0)])
            .await
            .map_err(|e| StorageError::from_db(&e, "list buckets"))
    })
    .await?;
    Ok(json_text(row.get(0)))
}

/// `GET /bucket/{id}`.
pub async fn get(
    req: HttpRequest,
    id: web::Path<String>,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let sql = format!("select row_to_json(b)::text from (select {COLUMNS} from storage.buckets where id = $1) b");
    let row = as_caller(&state, &ctx, Access::ReadOnly, async |tx| {
        tx.cached_query_opt(&sql, &[&id.as_str()]).await.map_err(|e| StorageError::from_db(&e, "get bucket"))
    })
    .await?
    .ok_or(StorageError::NoSuchBucket)?;
    Ok(json_text(row.get(0)))
}

/// The settable fields of a bucket; `None` when the key is absent, `Some(None)` for `null`.
struct Settings {
    public: Option<bool>,
    file_size_limit: Option<Option<i64>>,
    allowed_mime_types: Option<Option<Vec<String>>>,
}

fn settings(body: &Map<String, Value>) -> Result<Settings, StorageError> {
    let public = match body.get("public") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => return Err(StorageError::InvalidRequest("public must be a boolean".into())),
    };
    let file_size_limit = body.get("file_size_limit").map(parse_size).transpose()?;
    let allowed_mime_types = match body.get("allowed_mime_types") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(value) => Some(Some(
            serde_json::from_value::<Vec<String>>(value.clone())
                .map_err(|_| StorageError::InvalidRequest("allowed_mime_types must be a list of strings".into()))?,
        )),
    };
    Ok(Settings { public, file_size_limit, allowed_mime_types })
}

/// `POST /bucket`.
pub async fn create(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let body: Map<String, Value> = json_body(&body)?;
    let name = body.get("name").and_then(Value::as_str).ok_or(StorageError::InvalidBucketName)?.to_string();
    let id = body.get("id").and_then(Value::as_str).unwrap_or(&name).to_string();
    validate_bucket_name(&id)?;
    validate_bucket_name(&name)?;
    let set = settings(&body)?;
    let kind = body.get("type").and_then(Value::as_str).unwrap_or("STANDARD").to_string();
    let (owner, owner_id) = ctx.owner();
    as_caller(&state, &ctx, Access::ReadWrite, async |tx| {
        tx.cached_execute(
        "insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types, type) \
         values ($1, $2, $3, $4, $5, $6, $7, $8)",
        &[
            &id,
            &name,
            &owner,
            &owner_id,
            &set.public.unwrap_or(false),
            &set.file_size_limit.flatten(),
            &set.allowed_mime_types.flatten(),
            &kind,
        ],
    )
    .await
    .map_err(|e| match StorageError::from_db(&e, "create bucket") {
        StorageError::Duplicate => StorageError::BucketAlreadyExists,
        other => other,
    })
    })
    .await?;
    Ok(HttpResponse::Ok().json(json!({"name": id})))
}

/// `PUT /bucket/{id}`: only the keys present change.
pub async fn update(
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Bytes,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let body: Map<String, Value> = json_body(&body)?;
    let set = settings(&body)?;
    as_caller(&state, &ctx, Access::ReadWrite, async |tx| {
        let updated = tx
            .cached_query_opt(
                "update storage.buckets set public = coalesce($2, public), \
             file_size_limit = case when $3 then $4 else file_size_limit end, \
             allowed_mime_types = case when $5 then $6 else allowed_mime_types end, updated_at = now() \
             where id = $1 returning id",
                &[
                    &id.as_str(),
                    &set.public,
                    &set.file_size_limit.is_some(),
                    &set.file_size_limit.flatten(),
                    &set.allowed_mime_types.is_some(),
                    &set.allowed_mime_types.clone().flatten(),
                ],
            )
            .await
            .map_err(|e| StorageError::from_db(&e, "update bucket"))?;
        updated.map(drop).ok_or(StorageError::NoSuchBucket)
    })
    .await?;
    Ok(HttpResponse::Ok().json(json!({"message": "Successfully updated"})))
}

/// `DELETE /bucket/{id}`: only an empty bucket.
pub async fn delete(
    req: HttpRequest,
    id: web::Path<String>,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    writing_in(&req, &state, &id, async |tx| {
        let deleted = tx
            .cached_query_opt("delete from storage.buckets where id = $1 returning id", &[&id.as_str()])
            .await
            .map_err(|e| match e.code().map(|c| c.code()) {
                Some("23503") => StorageError::BucketNotEmpty,
                _ => StorageError::from_db(&e, "delete bucket"),
            })?;
        deleted.map(drop).ok_or(StorageError::NoSuchBucket)
    })
    .await?;
    Ok(HttpResponse::Ok().json(json!({"message": "Successfully deleted"})))
}

/// `POST /bucket/{id}/empty`: delete every object the caller may delete.
pub async fn empty(
    req: HttpRequest,
    id: web::Path<String>,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let rows = writing_in(&req, &state, &id, async |tx| {
        tx.cached_query("delete from storage.objects where bucket_id = $1 returning version", &[&id.as_str()])
            .await
            .map_err(|e| StorageError::from_db(&e, "empty bucket"))
    })
    .await?;
    let versions = rows.iter().filter_map(|r| r.get::<_, Option<String>>(0));
    backend::delete_versions(state.store.as_ref(), versions).await;
    // storage-api's words (it empties in the background; here the bucket is already empty)
    Ok(HttpResponse::Ok().json(json!({"message": "Empty bucket has been queued. Completion may take up to an hour."})))
}
