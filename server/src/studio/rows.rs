//! The table editor's rows: a page (filter, sort, keyset or offset paging), insert, update by
//! primary key, delete by primary keys. The statements come from `query`; they run as the
//! database owner on the admin pool, and each write is audited in its own transaction.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::audit;
use super::catalog::relation;
use super::error::StudioError;
use super::query::{self, BuildError, Paging, Select};
use super::session::OperatorSession;
use crate::state::AppState;

impl From<BuildError> for StudioError {
    fn from(err: BuildError) -> StudioError {
        StudioError::BadRequest(err.to_string())
    }
}

#[derive(Deserialize)]
pub struct PageQuery {
    /// The [`Select`] as JSON (filters, sort, limit, after, offset).
    q: Option<String>,
}

fn parse_rows(rows: &[tokio_postgres::Row]) -> Result<Vec<Value>, StudioError> {
    rows.iter().map(|r| serde_json::from_str::<Value>(r.get::<_, &str>(0)).map_err(StudioError::internal)).collect()
}

/// `GET /studio/api/tables/{schema}/{table}/rows?q={...}`: `{rows, next}`, where `next` is the
/// cursor of the following page (`{after: {...}}` or `{offset: n}`) or `null` at the end.
pub async fn select(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, StudioError> {
    let (schema, name) = path.into_inner();
    let spec: Select = match page.q.as_deref() {
        Some(text) => serde_json::from_str(text).map_err(|e| StudioError::BadRequest(format!("q: {e}")))?,
        None => Select::default(),
    };
    let client = state.pools.admin.get().await?;
    let rel = relation(&client, &schema, &name).await?;
    let (built, paging) = query::select(&rel, &spec)?;
    let started = std::time::Instant::now();
    let rows = client.query(&built.sql, &built.param_refs()).await?;
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    let mut rows = parse_rows(&rows)?;
    let limit = spec.limit.unwrap_or(100).clamp(1, query::MAX_LIMIT) as usize;
    let more = rows.len() > limit;
    rows.truncate(limit);
    let next = match (&paging, rows.last()) {
        (_, None) => Value::Null,
        _ if !more => Value::Null,
        (Paging::Keyset { keys, .. }, Some(last)) => {
            let after: Map<String, Value> =
                keys.iter().map(|k| (k.clone(), last.get(k).cloned().unwrap_or(Value::Null))).collect();
            json!({ "after": after })
        }
        (Paging::Offset, Some(_)) => json!({ "offset": spec.offset.unwrap_or(0).max(0) + limit as i64 }),
    };
    Ok(HttpResponse::Ok().json(json!({
        "rows": rows,
        "next": next,
        "paging": if matches!(paging, Paging::Offset) { "offset" } else { "keyset" },
        "elapsed_ms": elapsed_ms,
    })))
}

#[derive(Deserialize)]
pub struct Insert {
    values: Map<String, Value>,
}

#[derive(Deserialize)]
pub struct Update {
    key: Map<String, Value>,
    values: Map<String, Value>,
}

#[derive(Deserialize)]
pub struct Delete {
    keys: Vec<Map<String, Value>>,
}

/// Look up the relation, build a write with `build`, and run it with its audit row in one
/// transaction; answers the statement's rows as JSON.
async fn write(
    state: &AppState,
    op: &OperatorSession,
    path: (String, String),
    action: &str,
    detail: Value,
    build: impl FnOnce(&query::Relation) -> Result<query::Built, BuildError>,
) -> Result<Vec<Value>, StudioError> {
    let (schema, name) = path;
    let mut client = state.pools.admin.get().await?;
    let rel = relation(&client, &schema, &name).await?;
    let built = build(&rel)?;
    let tx = client.transaction().await?;
    let rows = tx.query(&built.sql, &built.param_refs()).await?;
    audit::record(&tx, op, action, Some(&format!("{schema}.{name}")), detail).await?;
    tx.commit().await?;
    parse_rows(&rows)
}

/// `POST /studio/api/tables/{schema}/{table}/rows` `{values}`: the new row.
pub async fn insert(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    path: web::Path<(String, String)>,
    body: web::Json<Insert>,
) -> Result<HttpResponse, StudioError> {
    let detail = json!({"values": body.values});
    let rows =
        write(&state, &op, path.into_inner(), "rows.insert", detail, |rel| query::insert(rel, &body.values)).await?;
    Ok(HttpResponse::Created().json(json!({ "row": rows.into_iter().next().unwrap_or(Value::Null) })))
}

/// `PATCH /studio/api/tables/{schema}/{table}/rows` `{key, values}`: the changed row.
pub async fn update(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    path: web::Path<(String, String)>,
    body: web::Json<Update>,
) -> Result<HttpResponse, StudioError> {
    let detail = json!({"key": body.key, "values": body.values});
    let build = |rel: &query::Relation| query::update(rel, &body.key, &body.values);
    match write(&state, &op, path.into_inner(), "rows.update", detail, build).await?.into_iter().next() {
        Some(row) => Ok(HttpResponse::Ok().json(json!({ "row": row }))),
        None => Err(StudioError::NotFound("No row has this key".into())),
    }
}

/// `DELETE /studio/api/tables/{schema}/{table}/rows` `{keys}`: how many rows went.
pub async fn delete(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    path: web::Path<(String, String)>,
    body: web::Json<Delete>,
) -> Result<HttpResponse, StudioError> {
    let detail = json!({"keys": body.keys});
    let rows =
        write(&state, &op, path.into_inner(), "rows.delete", detail, |rel| query::delete(rel, &body.keys)).await?;
    Ok(HttpResponse::Ok().json(json!({ "deleted": rows.len() })))
}
