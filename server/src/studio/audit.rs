//! The audit log of the dashboard (`_studio.audit_log`): one row per write an operator makes
//! (who, what, on what, when, with a JSON detail), and its listing for the audit screen. Handlers
//! call [`record`] in the transaction of the write, so a row is kept only if the write is.

use actix_web::{web, HttpResponse};
use deadpool_postgres::GenericClient;
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

use super::error::StudioError;
use super::session::OperatorSession;
use crate::state::AppState;

/// Record an action of the signed-in operator.
pub async fn record(
    db: &impl GenericClient,
    op: &OperatorSession,
    action: &str,
    target: Option<&str>,
    detail: Value,
) -> Result<(), tokio_postgres::Error> {
    record_as(db, Some(op.operator_id), &op.email, action, target, detail).await
}

/// Record an action under an e-mail (a failed sign-in has no operator).
pub async fn record_as(
    db: &impl GenericClient,
    operator_id: Option<Uuid>,
    email: &str,
    action: &str,
    target: Option<&str>,
    detail: Value,
) -> Result<(), tokio_postgres::Error> {
    db.execute(
        "insert into _studio.audit_log (operator_id, operator_email, action, target, detail) \
         values ($1, $2, $3, $4, $5)",
        &[&operator_id, &email, &action, &target, &detail],
    )
    .await
    .map(drop)
}

#[derive(Deserialize)]
pub struct Page {
    /// Rows before this id (the next page of a newest-first list).
    before: Option<i64>,
    limit: Option<i64>,
}

/// `GET /studio/api/audit?before=&limit=`: the newest entries first.
pub async fn list(state: web::Data<AppState>, page: web::Query<Page>) -> Result<HttpResponse, StudioError> {
    let limit = page.limit.unwrap_or(100).clamp(1, 500);
    let before = page.before.unwrap_or(i64::MAX);
    let client = state.pools.admin.get().await?;
    let rows = client
        .query(
            "select id, operator_email, action, target, detail, at from _studio.audit_log \
             where id < $1 order by id desc limit $2",
            &[&before, &limit],
        )
        .await?;
    let entries: Vec<Value> = rows
        .iter()
        .map(|r| {
            json!({
                "id": r.get::<_, i64>(0),
                "operator": r.get::<_, String>(1),
                "action": r.get::<_, String>(2),
                "target": r.get::<_, Option<String>>(3),
                "detail": r.get::<_, Value>(4),
                "at": r.get::<_, chrono::DateTime<chrono::Utc>>(5),
            })
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "entries": entries })))
}
