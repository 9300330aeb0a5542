//! The SQL editor's plan: one statement run under `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` as
//! the chosen caller (the run-as of `sql_editor`), in a transaction that is always rolled back,
//! since `ANALYZE` really executes it (an `insert` inserts, then is undone). The answer is
//! Postgres's JSON plan, drawn as a tree by the dashboard.
//!
//! A script of several statements is refused (one plan at a time); a failure comes back as the
//! SQL editor's failures do, its position moved back into the operator's text. Each explain is
//! audited (`sql.explain`), as a run is.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};

use super::audit;
use super::error::StudioError;
use super::session::OperatorSession;
use super::sql_editor::{self, RunAs};
use crate::state::AppState;

/// What is written before the operator's statement.
pub const PREFIX: &str = "explain (analyze, buffers, format json) ";

#[derive(Deserialize)]
pub struct Explain {
    sql: String,
    #[serde(default = "sql_editor::owner")]
    run_as: RunAs,
}

/// The statement to explain, or why there is none to.
pub fn explained(script: &str) -> Result<(sql_editor::Statement, String), StudioError> {
    let mut list = sql_editor::statements(script);
    match list.len() {
        0 => Err(StudioError::BadRequest("Nothing to explain".into())),
        1 => {
            let stmt = list.remove(0);
            let text = format!("{PREFIX}{}", stmt.text);
            Ok((stmt, text))
        }
        n => Err(StudioError::BadRequest(format!(
            "Explain takes one statement, the script has {n}: select the one to explain and run it alone"
        ))),
    }
}

/// `POST /studio/api/sql/explain` `{sql, run_as}`: `{plan, error}`, `plan` being Postgres's JSON
/// (`[{Plan, Planning Time, Execution Time}]`), always rolled back.
pub async fn run(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<Explain>,
) -> Result<HttpResponse, StudioError> {
    let body = body.into_inner();
    let (stmt, text) = explained(&body.sql)?;
    let caller = sql_editor::caller_of(&state, &body.run_as).await?;
    let mut client = state.pools.admin.get().await?;
    let tx = sql_editor::begin(&mut client, caller.as_ref(), "/studio/api/sql/explain").await?;
    let outcome = tx.query_one(text.as_str(), &[]).await;
    tx.rollback().await?;
    drop(client);
    let shift = PREFIX.chars().count() as u32;
    let (plan, error) = match outcome {
        Ok(row) => (row.get::<_, Value>(0), Value::Null),
        Err(err) => (Value::Null, sql_editor::failure(0, &stmt, err, shift)?),
    };
    let client = state.pools.admin.get().await?;
    let sql: String = body.sql.chars().take(4000).collect();
    let run_as = match &body.run_as {
        RunAs::Owner => json!("owner"),
        RunAs::ServiceRole => json!("service_role"),
        RunAs::Anon => json!("anon"),
        RunAs::User { id } => json!({"user": id}),
    };
    let detail = json!({"sql": sql, "run_as": run_as, "failed": !error.is_null()});
    audit::record(&client, &op, "sql.explain", None, detail).await?;
    Ok(HttpResponse::Ok().json(json!({ "plan": plan, "error": error })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_statement_is_explained_behind_the_prefix() {
        let (stmt, text) = explained("  select * from t where a = 1;  ").unwrap();
        assert_eq!(stmt.text, "select * from t where a = 1");
        assert_eq!(text, "explain (analyze, buffers, format json) select * from t where a = 1");
        assert!(explained("select 1; select 2").is_err());
        assert!(explained("  ;  ").is_err());
    }
}
