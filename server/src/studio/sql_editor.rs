//! The SQL editor: one or many statements run in one transaction, as the database owner or as
//! a chosen caller (the service role, anon, or an app user with the claims their access token
//! would carry), set with `db::context::begin`, the context the REST surface gives SQL.
//!
//! Statements are split as the Supabase CLI splits files (`project::split`). A statement that
//! reads (a `select`, `values`, `table` or `with` that `declare cursor` accepts) is read through
//! a cursor, `limit` rows at a time from `offset`, so a large result is never held whole; any
//! other statement runs as it is and its rows are capped. The first failing statement ends the
//! run (the transaction rolls back) and its error comes back with its place in the script.
//! Every run is audited, after the transaction, whether it committed, rolled back or failed.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_postgres::SimpleQueryMessage;
use uuid::Uuid;

use super::audit;
use super::error::StudioError;
use super::session::OperatorSession;
use crate::db::context::{self, Access, Caller, RequestInfo};
use crate::state::AppState;

/// The most rows a statement's page holds.
pub const MAX_ROWS: usize = 1000;
/// A run's statement timeout.
const STATEMENT_TIMEOUT: &str = "60s";
/// The cursor a reading statement is read through.
const CURSOR: &str = "studio_cursor";

/// Who the statements run as.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunAs {
    /// The database owner (no role switch, row-level security bypassed as the owner does).
    Owner,
    ServiceRole,
    Anon,
    /// An app user (`auth.users.id`) with their access token's claims.
    User {
        id: Uuid,
    },
}

#[derive(Deserialize)]
pub struct Run {
    sql: String,
    #[serde(default = "owner")]
    run_as: RunAs,
    /// Roll the transaction back at the end (to look without changing anything).
    #[serde(default)]
    rollback: bool,
    limit: Option<usize>,
    /// Rows to skip in a reading statement (the "more" of a result: only with one statement).
    #[serde(default)]
    offset: u64,
}

pub(super) fn owner() -> RunAs {
    RunAs::Owner
}

/// A statement of the script and where it starts (in characters, for the editor's marks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub text: String,
    pub start: usize,
}

/// The statements of `script` with their starting character offsets.
pub fn statements(script: &str) -> Vec<Statement> {
    let mut cursor = 0usize;
    let mut out = Vec::new();
    for text in crate::project::split::split(script) {
        let found = script[cursor..].find(&text).map(|i| cursor + i).unwrap_or(cursor);
        out.push(Statement { start: script[..found].chars().count(), text: text.clone() });
        cursor = found + text.len();
    }
    out
}

/// Whether a statement may be read through a cursor (`declare` still decides).
pub fn reads(text: &str) -> bool {
    let mut rest = text.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("--") {
            rest = after.split_once('\n').map(|(_, r)| r).unwrap_or("").trim_start();
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map(|(_, r)| r).unwrap_or("").trim_start();
        } else {
            break;
        }
    }
    let word: String = rest.chars().take_while(|c| c.is_ascii_alphabetic()).collect::<String>().to_lowercase();
    rest.starts_with('(') || matches!(word.as_str(), "select" | "values" | "table" | "with")
}

fn text_rows(messages: Vec<SimpleQueryMessage>, cap: usize) -> (Vec<String>, Vec<Vec<Option<String>>>, Option<u64>) {
    let mut columns = Vec::new();
    let mut rows = Vec::new();
    let mut affected = None;
    for m in messages {
        match m {
            SimpleQueryMessage::RowDescription(cols) => {
                columns = cols.iter().map(|c| c.name().to_string()).collect();
            }
            SimpleQueryMessage::Row(row) => {
                if columns.is_empty() {
                    columns = row.columns().iter().map(|c| c.name().to_string()).collect();
                }
                if rows.len() < cap {
                    rows.push((0..row.len()).map(|i| row.get(i).map(str::to_string)).collect());
                }
            }
            SimpleQueryMessage::CommandComplete(n) => affected = Some(n),
            _ => {}
        }
    }
    (columns, rows, affected)
}

/// The caller a run goes as, `None` for the owner.
pub(super) async fn caller_of(state: &AppState, run_as: &RunAs) -> Result<Option<Caller>, StudioError> {
    match run_as {
        RunAs::Owner => Ok(None),
        RunAs::ServiceRole => Ok(Some(Caller::anonymous("service_role"))),
        RunAs::Anon => Ok(Some(Caller::anonymous("anon"))),
        RunAs::User { id } => {
            let client = state.pools.admin.get().await?;
            let user = crate::auth::users::by_id(&client, *id)
                .await
                .map_err(StudioError::internal)?
                .ok_or_else(|| StudioError::NotFound("No such user".into()))?;
            let now = chrono::Utc::now().timestamp();
            let exp = now + state.config.auth.jwt_exp as i64;
            let claims = user.access_claims(&state.auth.issuer, now, exp, "aal1".into(), Vec::new(), String::new());
            let claims = serde_json::to_value(claims).map_err(StudioError::internal)?;
            let role = claims.get("role").and_then(Value::as_str).unwrap_or("authenticated").to_string();
            Ok(Some(Caller { role, claims: std::sync::Arc::new(claims) }))
        }
    }
}

/// Open a run's transaction as `caller` (the owner when `None`), with the run's statement timeout.
pub(super) async fn begin<'a>(
    client: &'a mut deadpool_postgres::Object,
    caller: Option<&Caller>,
    path: &str,
) -> Result<deadpool_postgres::Transaction<'a>, StudioError> {
    Ok(match caller {
        Some(caller) => {
            let request = RequestInfo {
                method: "POST".into(),
                path: path.into(),
                headers: json!({}),
                settings: vec![("statement_timeout".into(), STATEMENT_TIMEOUT.into())],
            };
            context::begin(client, caller, &request, Access::ReadWrite).await?
        }
        None => {
            let tx = client.transaction().await?;
            tx.execute("select set_config('statement_timeout', $1, true)", &[&STATEMENT_TIMEOUT]).await?;
            tx
        }
    })
}

/// The failure of statement `index`, with its place in the whole script.
pub(super) fn failure(
    index: usize,
    stmt: &Statement,
    err: tokio_postgres::Error,
    shift: u32,
) -> Result<Value, StudioError> {
    match StudioError::from(err) {
        StudioError::Database { code, message, detail, hint, position } => {
            let position = position.filter(|p| *p > shift).map(|p| stmt.start as u64 + u64::from(p - shift));
            Ok(json!({
                "statement": index, "sqlstate": code, "message": message, "detail": detail, "hint": hint,
                "position": position,
            }))
        }
        other => Err(other),
    }
}

/// Run one statement on `tx`: its result, or its failure.
async fn run_one(
    tx: &deadpool_postgres::Transaction<'_>,
    stmt: &Statement,
    limit: usize,
    offset: u64,
) -> Result<Result<Value, (tokio_postgres::Error, u32)>, StudioError> {
    let started = std::time::Instant::now();
    let elapsed = |s: std::time::Instant| s.elapsed().as_secs_f64() * 1000.0;
    let prepared = match tx.prepare(&stmt.text).await {
        Ok(p) => p,
        Err(err) => return Ok(Err((err, 0))),
    };
    let types: Vec<String> = prepared.columns().iter().map(|c| c.type_().name().to_string()).collect();
    if !types.is_empty() && reads(&stmt.text) {
        let prefix = format!("declare {CURSOR} no scroll cursor for ");
        tx.batch_execute("savepoint studio_read").await?;
        match tx.batch_execute(&format!("{prefix}{}", stmt.text)).await {
            Ok(()) => {
                let mut script = String::new();
                if offset > 0 {
                    script.push_str(&format!("move forward {offset} in {CURSOR}; "));
                }
                script.push_str(&format!("fetch forward {} from {CURSOR}", limit + 1));
                let fetched = match tx.simple_query(&script).await {
                    Ok(m) => m,
                    Err(err) => return Ok(Err((err, 0))),
                };
                let (columns, mut rows, _) = text_rows(fetched, limit + 1);
                tx.batch_execute(&format!("close {CURSOR}; release savepoint studio_read")).await?;
                let more = rows.len() > limit;
                rows.truncate(limit);
                let names = if columns.is_empty() {
                    prepared.columns().iter().map(|c| c.name().to_string()).collect()
                } else {
                    columns
                };
                return Ok(Ok(json!({
                    "columns": names.iter().zip(&types).map(|(n, t)| json!({"name": n, "type": t})).collect::<Vec<_>>(),
                    "rows": rows, "offset": offset, "more": more, "pageable": true, "elapsed_ms": elapsed(started),
                })));
            }
            Err(_) => tx.batch_execute("rollback to savepoint studio_read").await?,
        }
    }
    match tx.simple_query(&stmt.text).await {
        Ok(messages) => {
            let (columns, rows, affected) = text_rows(messages, limit + 1);
            let more = rows.len() > limit;
            let rows: Vec<_> = rows.into_iter().take(limit).collect();
            let cols: Vec<Value> = columns
                .iter()
                .enumerate()
                .map(|(i, n)| json!({"name": n, "type": types.get(i).cloned().unwrap_or_default()}))
                .collect();
            Ok(Ok(json!({
                "columns": cols, "rows": rows, "offset": 0, "more": more, "pageable": false,
                "rows_affected": affected, "elapsed_ms": elapsed(started),
            })))
        }
        Err(err) => Ok(Err((err, 0))),
    }
}

/// `POST /studio/api/sql` `{sql, run_as, rollback, limit, offset}`:
/// `{results: [{columns, rows, more, ...}], error: null | {statement, message, position, ...}, committed}`.
pub async fn run(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<Run>,
) -> Result<HttpResponse, StudioError> {
    let run = body.into_inner();
    let list = statements(&run.sql);
    if list.is_empty() {
        return Err(StudioError::BadRequest("Nothing to run".into()));
    }
    if run.offset > 0 && list.len() != 1 {
        return Err(StudioError::BadRequest("An offset pages one statement only".into()));
    }
    let limit = run.limit.unwrap_or(MAX_ROWS).clamp(1, MAX_ROWS);
    let caller = caller_of(&state, &run.run_as).await?;
    let mut client = state.pools.admin.get().await?;
    let tx = begin(&mut client, caller.as_ref(), "/studio/api/sql").await?;
    let mut results = Vec::new();
    let mut error = Value::Null;
    for (index, stmt) in list.iter().enumerate() {
        match run_one(&tx, stmt, limit, run.offset).await? {
            Ok(mut result) => {
                result["sql"] = json!(stmt.text);
                results.push(result)
            }
            Err((err, shift)) => {
                error = failure(index, stmt, err, shift)?;
                break;
            }
        }
    }
    let committed = error.is_null() && !run.rollback;
    if committed {
        tx.commit().await?;
    } else {
        tx.rollback().await?;
    }
    drop(client);
    let client = state.pools.admin.get().await?;
    let sql: String = run.sql.chars().take(4000).collect();
    let run_as = match &run.run_as {
        RunAs::Owner => json!("owner"),
        RunAs::ServiceRole => json!("service_role"),
        RunAs::Anon => json!("anon"),
        RunAs::User { id } => json!({"user": id}),
    };
    let detail = json!({"sql": sql, "run_as": run_as, "committed": committed, "failed": !error.is_null()});
    audit::record(&client, &op, "sql.run", None, detail).await?;
    Ok(HttpResponse::Ok().json(json!({ "results": results, "error": error, "committed": committed })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_know_where_they_start() {
        let script = "select 1;\n-- two\nselect 'é;' ;  select 3";
        let list = statements(script);
        assert_eq!(list.len(), 3);
        assert_eq!(list[0], Statement { text: "select 1".into(), start: 0 });
        assert_eq!(list[1].text, "-- two\nselect 'é;'");
        assert_eq!(list[1].start, 10);
        assert_eq!(list[2].start, script.chars().count() - "select 3".len());
    }

    #[test]
    fn reading_statements_are_told_apart() {
        for yes in [
            "select 1",
            "  -- c\nSELECT 1",
            "/* x */ with a as (select 1) select * from a",
            "values (1)",
            "table t",
            "(select 1)",
        ] {
            assert!(reads(yes), "{yes}");
        }
        for no in ["insert into t values (1)", "update t set a = 1", "create table t ()", "selectx", "explain select 1"]
        {
            assert!(!reads(no), "{no}");
        }
    }

    #[test]
    fn run_as_is_tagged_by_kind() {
        let r: RunAs =
            serde_json::from_value(json!({"kind": "user", "id": "6f1b6c1e-0000-4000-8000-000000000001"})).unwrap();
        assert!(matches!(r, RunAs::User { .. }));
        assert_eq!(serde_json::from_value::<RunAs>(json!({"kind": "anon"})).unwrap(), RunAs::Anon);
    }
}
