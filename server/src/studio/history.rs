//! The SQL editor's history: the operator's own recent runs, read from the audit log (each run
//! is audited with its text, who it ran as and whether it committed), so nothing is stored twice.

use actix_web::{web, HttpResponse};
use serde_json::{json, Value};

use super::error::StudioError;
use super::session::OperatorSession;
use crate::state::AppState;

/// How many runs the history shows.
const LENGTH: i64 = 50;

/// `GET /studio/api/sql/history`: `{runs: [{sql, run_as, committed, failed, at}]}`, newest first.
pub async fn list(state: web::Data<AppState>, op: web::ReqData<OperatorSession>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let rows = client
        .query(
            "select detail, at from _studio.audit_log where operator_id = $1 and action = 'sql.run' \
             order by id desc limit $2",
            &[&op.operator_id, &LENGTH],
        )
        .await?;
    let runs: Vec<Value> = rows
        .iter()
        .map(|r| {
            let detail: Value = r.get(0);
            json!({
                "sql": detail.get("sql").cloned().unwrap_or(Value::Null),
                "run_as": detail.get("run_as").cloned().unwrap_or(Value::Null),
                "committed": detail.get("committed").cloned().unwrap_or(Value::Null),
                "failed": detail.get("failed").cloned().unwrap_or(Value::Null),
                "at": r.get::<_, chrono::DateTime<chrono::Utc>>(1),
            })
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "runs": runs })))
}
