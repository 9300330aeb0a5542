//! The storage rows: the caller's transaction, bucket look-ups and object row reads and writes.
//!
//! Object rows are read and written only inside the caller's transaction (`context::begin`'s, or
//! `context::run_pipelined`'s for a new row in one round trip), as the caller's role, so
//! row-level security decides. Bucket settings needed to accept an upload (limits,
//! public flag) are read on the admin pool, as storage-api reads them as superuser. Values are
//! always bind parameters. Nothing here touches the object store.

use crate::db::cached::CachedQueries;
use std::sync::Arc;

use actix_web::{HttpMessage, HttpRequest};
use deadpool_postgres::{Object, Pool, PoolError, Transaction};
use serde_json::{json, Map, Value};
use uuid::Uuid;

use super::error::StorageError;
use crate::db::context::{self, Access, Caller, RequestInfo};

/// Who calls, with the request facts given to SQL.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub caller: Caller,
    pub info: RequestInfo,
}

impl Ctx {
    /// The gate's caller and this request's facts.
    pub fn of(req: &HttpRequest) -> Result<Ctx, StorageError> {
        let caller = req
            .extensions()
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| StorageError::Internal("no caller on a gated route".into()))?;
        let info = request_info(req, &caller.role);
        Ok(Ctx { caller, info })
    }

    /// A caller established outside the gate (an S3 request's signature).
    pub fn for_caller(req: &HttpRequest, caller: Caller) -> Ctx {
        let info = request_info(req, &caller.role);
        Ctx { caller, info }
    }

    /// A caller acting with the service role on behalf of `owner` (signed upload URLs).
    pub fn service(req: &HttpRequest, owner: Option<&str>) -> Ctx {
        let mut claims = Map::new();
        claims.insert("role".into(), json!("service_role"));
        if let Some(owner) = owner {
            claims.insert("sub".into(), json!(owner));
        }
        Ctx {
            caller: Caller { role: "service_role".into(), claims: Arc::new(Value::Object(claims)) },
            info: request_info(req, "service_role"),
        }
    }

    /// The owner columns: `owner` (a UUID when `sub` is one) and `owner_id` (the `sub` text).
    pub fn owner(&self) -> (Option<Uuid>, Option<String>) {
        let sub = self.caller.subject();
        (sub.and_then(|s| Uuid::parse_str(s).ok()), sub.map(str::to_string))
    }
}

/// The request facts, with the settings the database gives `role` (`statement_timeout`,
/// `work_mem`, as REST applies them), so a storage request is bounded like a REST one.
fn request_info(req: &HttpRequest, role: &str) -> RequestInfo {
    let mut headers = Map::new();
    for (name, value) in req.headers() {
        if name == "cookie" {
            continue;
        }
        if let Ok(value) = value.to_str() {
            headers.insert(name.as_str().to_string(), Value::String(value.to_string()));
        }
    }
    let mut settings: Vec<(String, String)> = req
        .app_data::<actix_web::web::Data<super::StorageState>>()
        .and_then(|state| state.roles.get().role_settings.get(role).cloned())
        .unwrap_or_default();
    settings.extend(crate::telemetry::postgres_setting(req));
    RequestInfo {
        method: req.method().to_string(),
        path: req.path().to_string(),
        headers: Value::Object(headers),
        settings,
    }
}

/// A connection from a pool.
pub async fn connection(pool: &Pool) -> Result<Object, StorageError> {
    pool.get().await.map_err(|err| match err {
        // No new connection could be made: whatever PostgreSQL said, it is unavailable.
        PoolError::Backend(e) => {
            tracing::error!(error = %e, "storage: cannot connect to the database");
            StorageError::DatabaseUnavailable
        }
        PoolError::Timeout(_) => StorageError::DatabaseTimeout,
        other => StorageError::internal("connection pool", other),
    })
}

/// Open the caller's transaction.
pub async fn begin<'a>(client: &'a mut Object, ctx: &Ctx, access: Access) -> Result<Transaction<'a>, StorageError> {
    context::begin(client, &ctx.caller, &ctx.info, access).await.map_err(|e| StorageError::from_db(&e, "begin"))
}

/// Commit the caller's transaction.
pub async fn commit(tx: Transaction<'_>) -> Result<(), StorageError> {
    tx.commit().await.map_err(|e| StorageError::from_db(&e, "commit"))
}

/// What an upload needs to know of its bucket.
#[derive(Debug, Clone)]
pub struct Bucket {
    pub id: String,
    pub public: bool,
    pub file_size_limit: Option<i64>,
    pub allowed_mime_types: Option<Vec<String>>,
}

/// Read a bucket's settings on the admin pool; `NoSuchBucket` when it does not exist.
pub async fn find_bucket(admin: &Pool, id: &str) -> Result<Bucket, StorageError> {
    let client = connection(admin).await?;
    let row = client
        .cached_query_opt(
            "select id, public, file_size_limit, allowed_mime_types from storage.buckets where id = $1",
            &[&id],
        )
        .await
        .map_err(|e| StorageError::from_db(&e, "find bucket"))?
        .ok_or(StorageError::NoSuchBucket)?;
    Ok(Bucket { id: row.get(0), public: row.get(1), file_size_limit: row.get(2), allowed_mime_types: row.get(3) })
}

/// An object row as downloads and copies need it.
#[derive(Debug, Clone)]
pub struct ObjectRow {
    pub id: Uuid,
    pub name: String,
    pub version: Option<String>,
    pub metadata: Value,
    pub user_metadata: Option<Value>,
    pub created_at: Option<chrono::DateTime<chrono::Utc>>,
    pub updated_at: Option<chrono::DateTime<chrono::Utc>>,
}

impl ObjectRow {
    pub fn size(&self) -> u64 {
        self.metadata.get("size").and_then(Value::as_u64).unwrap_or(0)
    }

    pub fn meta_str(&self, key: &str) -> Option<&str> {
        self.metadata.get(key).and_then(Value::as_str)
    }
}

/// Read one object row with `client` (the caller's transaction, or the admin pool for public and signed reads).
pub async fn find_object(
    client: &impl crate::db::cached::Db,
    bucket: &str,
    name: &str,
) -> Result<Option<ObjectRow>, StorageError> {
    let row = client
        .cached_query_opt(
            "select id, name, version, coalesce(metadata, '{}'::jsonb), user_metadata, created_at, updated_at \
             from storage.objects where bucket_id = $1 and name = $2",
            &[&bucket, &name],
        )
        .await
        .map_err(|e| StorageError::from_db(&e, "find object"))?;
    Ok(row.map(|row| ObjectRow {
        id: row.get(0),
        name: row.get(1),
        version: row.get(2),
        metadata: row.get(3),
        user_metadata: row.get(4),
        created_at: row.get(5),
        updated_at: row.get(6),
    }))
}

/// The row an upload writes.
#[derive(Debug, Clone)]
pub struct NewRow<'a> {
    pub bucket: &'a str,
    pub name: &'a str,
    pub metadata: Value,
    pub user_metadata: Option<Value>,
    pub version: &'a str,
}

/// Write an upload's row in the caller's transaction (insert, or with `upsert` insert-or-overwrite,
/// which RLS turns into INSERT + SELECT + UPDATE checks); returns its id and the version it replaced.
pub async fn write_object(
    tx: &Transaction<'_>,
    ctx: &Ctx,
    upsert: bool,
    row: &NewRow<'_>,
) -> Result<(Uuid, Option<String>), StorageError> {
    let (owner, owner_id) = ctx.owner();
    let db = |e: tokio_postgres::Error| StorageError::from_db(&e, "write object");
    let old = if !upsert {
        None
    } else {
        tx.cached_query_opt(
            "select version from storage.objects where bucket_id = $1 and name = $2",
            &[&row.bucket, &row.name],
        )
        .await
        .map_err(db)?
        .map(|r| r.get::<_, Option<String>>(0))
    };
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] =
        [&row.bucket, &row.name, &owner, &owner_id, &row.metadata, &row.user_metadata, &row.version];
    let conflict = if upsert {
        " on conflict (bucket_id, name) do update set owner = excluded.owner, owner_id = excluded.owner_id, \
          metadata = excluded.metadata, user_metadata = excluded.user_metadata, version = excluded.version, \
          last_accessed_at = now()"
    } else {
        ""
    };
    let sql = format!("{INSERT_OBJECT}{conflict} returning id");
    let inserted = tx.cached_query_opt(&sql, &params).await.map_err(db)?;
    let id = inserted.ok_or(StorageError::NoSuchKey)?.get(0);
    Ok((id, old.flatten()))
}

/// A new object row, before its conflict clause and `returning`; parameters as `write_object` binds them.
const INSERT_OBJECT: &str = "insert into storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, \
                             version) values ($1, $2, $3, $4, $5, $6, $7)";

/// Insert `row` (no upsert) as the caller and commit, in one round trip: `BEGIN`, the caller's
/// context, the insert and `COMMIT` go out together (`context::run_pipelined`), where
/// `write_object` in `begin`'s transaction takes four. For bytes already stored: a refusal (a
/// duplicate, a policy) rolls the transaction back and is returned as `write_object` returns it.
pub async fn insert_object(client: &Object, ctx: &Ctx, row: &NewRow<'_>) -> Result<Uuid, StorageError> {
    let (owner, owner_id) = ctx.owner();
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] =
        [&row.bucket, &row.name, &owner, &owner_id, &row.metadata, &row.user_metadata, &row.version];
    let unit = context::Unit {
        caller: &ctx.caller,
        request: &ctx.info,
        access: Access::ReadWrite,
        extra: None,
        end: context::End::Commit,
    };
    // The same text as `write_object`'s without upsert: one prepared statement serves both.
    let sql = format!("{INSERT_OBJECT} returning id");
    let rows = context::run_pipelined(client, &unit, &sql, &params)
        .await
        .map_err(|e| StorageError::from_db(&e, "write object"))?;
    Ok(rows.first().ok_or(StorageError::NoSuchKey)?.get(0))
}

/// The `metadata` column of a stored object, in Supabase's shape.
pub fn object_metadata(size: u64, etag: &str, mimetype: &str, cache_control: &str) -> Value {
    json!({
        "eTag": etag,
        "size": size,
        "mimetype": mimetype,
        "cacheControl": cache_control,
        "lastModified": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "contentLength": size,
        "httpStatusCode": 200,
    })
}
