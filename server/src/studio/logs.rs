//! The log explorer's API, read-only: the request log (`_studio.request_log`, filtered by
//! `log_query`, newest first, keyset pages and a live tail), one request's detail, the Postgres
//! log of the embedded cluster (`pg_log`) and the auth audit log (`auth.audit_log_entries`).

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::StudioError;
use super::log_query::{row_json, RequestFilter, RequestParams, COLUMNS};
use super::pg_log;
use crate::state::AppState;

/// `GET /studio/api/logs/requests?surface=&path=&status=&user=&request_id=&from=&to=&before=&after=&limit=`
pub async fn requests(state: web::Data<AppState>, q: web::Query<RequestParams>) -> Result<HttpResponse, StudioError> {
    let filter = RequestFilter::parse(&q).map_err(StudioError::BadRequest)?;
    let built = filter.select();
    let client = state.pools.admin.get().await?;
    let rows = client.query(&built.sql, &built.param_refs()).await?;
    let entries: Vec<Value> = rows.iter().map(row_json).collect();
    // Older rows may follow only when the page is full (the live tail never pages back).
    let next_before = (filter.after.is_none() && rows.len() as i64 == filter.limit)
        .then(|| rows.last().map(|r| r.get::<_, i64>(0)))
        .flatten();
    Ok(HttpResponse::Ok().insert_header(("Cache-Control", "no-store")).json(json!({
        "enabled": state.config.request_log.enabled,
        "retention_hours": state.config.request_log.retention_hours,
        "entries": entries,
        "next_before": next_before,
    })))
}

/// `GET /studio/api/logs/requests/{id}`: one request, with what else the log holds under its
/// request id within an hour of it (a retried request id shows each answer; the id has no index).
pub async fn request(state: web::Data<AppState>, id: web::Path<String>) -> Result<HttpResponse, StudioError> {
    let id: i64 = id.parse().map_err(|_| StudioError::BadRequest("a request's row id is a number".into()))?;
    let client = state.pools.admin.get().await?;
    let row = client
        .query_opt(&format!("select {COLUMNS} from _studio.request_log where id = $1"), &[&id])
        .await?
        .ok_or_else(|| StudioError::NotFound("No such request in the log (it may have been pruned)".into()))?;
    let entry = row_json(&row);
    let request_id: String = row.get(8);
    let at: chrono::DateTime<chrono::Utc> = row.get(1);
    let same = client
        .query(
            &format!(
                "select {COLUMNS} from _studio.request_log where request_id = $1 and id <> $2 \
                 and at between $3::timestamptz - interval '1 hour' and $3::timestamptz + interval '1 hour' \
                 order by id desc limit 20"
            ),
            &[&request_id, &id, &at],
        )
        .await?;
    Ok(HttpResponse::Ok().json(json!({
        "entry": entry,
        "same_request_id": same.iter().map(row_json).collect::<Vec<_>>(),
    })))
}

#[derive(Debug, Deserialize)]
pub struct PgLogParams {
    level: Option<String>,
    q: Option<String>,
    limit: Option<usize>,
}

/// `GET /studio/api/logs/postgres?level=all|warning|error&q=&limit=`: the tail of the embedded
/// cluster's log; `available: false` with the reason otherwise.
pub async fn postgres(state: web::Data<AppState>, q: web::Query<PgLogParams>) -> Result<HttpResponse, StudioError> {
    let min = pg_log::MinLevel::parse(q.level.as_deref()).map_err(StudioError::BadRequest)?;
    let limit = q.limit.unwrap_or(500).clamp(1, 5000);
    let Some(path) = state.embedded_pgdata.as_deref().and_then(pg_log::log_path) else {
        return Ok(HttpResponse::Ok().json(json!({
            "available": false,
            "reason": "The server uses an external database (DATABASE_URL): read its log where that server keeps it.",
            "lines": [],
        })));
    };
    let file = path.clone();
    let text = web::block(move || pg_log::read_tail(&file)).await.map_err(StudioError::internal)?;
    let text = match text {
        Ok(text) => text,
        Err(err) => {
            return Ok(HttpResponse::Ok().json(json!({
                "available": false,
                "reason": format!("The log file cannot be read: {err}"),
                "lines": [],
            })))
        }
    };
    let lines = pg_log::filter(&text, min, q.q.as_deref(), limit);
    Ok(HttpResponse::Ok().insert_header(("Cache-Control", "no-store")).json(json!({
        "available": true,
        "file": path.file_name().map(|f| f.to_string_lossy().into_owned()),
        "lines": lines,
    })))
}

#[derive(Debug, Deserialize)]
pub struct AuthLogParams {
    q: Option<String>,
    before: Option<String>,
    limit: Option<i64>,
}

/// `GET /studio/api/logs/auth?q=&before=&limit=`: `auth.audit_log_entries`, newest first,
/// `before` being the `created_at` of the last row of the previous page.
pub async fn auth(state: web::Data<AppState>, q: web::Query<AuthLogParams>) -> Result<HttpResponse, StudioError> {
    let limit = q.limit.unwrap_or(100).clamp(1, 500);
    let before = q
        .before
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(|s| {
            DateTime::parse_from_rfc3339(s)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|_| StudioError::BadRequest("before must be a date and time".into()))
        })
        .transpose()?;
    let needle = q.q.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(super::log_query::escape_like);
    let client = state.pools.admin.get().await?;
    let rows = client
        .query(
            "select id, created_at, ip_address, payload::jsonb from auth.audit_log_entries \
             where ($1::timestamptz is null or created_at < $1) \
               and ($2::text is null or payload::text ilike '%' || $2 || '%') \
             order by created_at desc nulls last, id desc limit $3",
            &[&before, &needle, &limit],
        )
        .await?;
    let entries: Vec<Value> = rows
        .iter()
        .map(|r| {
            let payload: Option<Value> = r.get(3);
            let payload = payload.unwrap_or(Value::Null);
            json!({
                "id": r.get::<_, uuid::Uuid>(0),
                "at": r.get::<_, Option<DateTime<Utc>>>(1),
                "ip": r.get::<_, String>(2),
                "action": payload.get("action").cloned().unwrap_or(Value::Null),
                "actor": payload.get("actor_username").cloned().unwrap_or(Value::Null),
                "payload": payload,
            })
        })
        .collect();
    let next_before =
        (rows.len() as i64 == limit).then(|| rows.last().and_then(|r| r.get::<_, Option<DateTime<Utc>>>(1))).flatten();
    Ok(HttpResponse::Ok().json(json!({ "entries": entries, "next_before": next_before })))
}
