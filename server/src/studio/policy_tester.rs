//! The policy tester: what a caller (an app user, anon, the service role) may do to a table.
//! The operation (a select with filters, an insert of a JSON row, an update or a delete by
//! primary key) is built by `query`, the table editor's builders, and run in a transaction that
//! is always rolled back, as that caller with the request context the REST surface sets
//! (`db::context::begin` with the claims the SQL editor's run-as gives, `sql_editor::caller_of`).
//! A select also counts the rows the owner sees with the same filters, so the screen can say
//! "3 of 25 rows". Nothing is written and nothing is audited: every statement is rolled back.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::catalog::relation;
use super::error::StudioError;
use super::query::{self, Filter, Select};
use super::sql_editor::{caller_of, RunAs};
use crate::db::context::{self, Access, RequestInfo};
use crate::state::AppState;

/// How many rows a tested select shows.
const SHOWN: i64 = 100;

/// The operation to try.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Operation {
    Select {
        #[serde(default)]
        filters: Vec<Filter>,
    },
    Insert {
        row: Map<String, Value>,
    },
    Update {
        key: Map<String, Value>,
        values: Map<String, Value>,
    },
    Delete {
        key: Map<String, Value>,
    },
}

#[derive(Deserialize)]
pub struct Test {
    schema: String,
    table: String,
    run_as: RunAs,
    operation: Operation,
}

/// How many rows the owner sees with `filters`: the tester's select without its limit, counted.
async fn owner_count(
    client: &deadpool_postgres::Object,
    rel: &query::Relation,
    filters: &[Filter],
) -> Result<i64, StudioError> {
    let spec = Select { filters: filters.to_vec(), sort: Vec::new(), limit: Some(1), after: None, offset: None };
    let (mut built, paging) = query::select(rel, &spec)?;
    // The limit is the last value bound, or the one before the offset when paging by offset.
    let at = built.params.len() - if paging == query::Paging::Offset { 2 } else { 1 };
    built.params[at] = i64::MAX.to_string();
    let sql = format!("select count(*) from ({}) counted", built.sql);
    Ok(client.query_one(&sql, &built.param_refs()).await?.get::<_, i64>(0))
}

/// `POST /studio/api/policies/test` `{schema, table, run_as, operation}`:
/// `{allowed, rows, affected, total, error}`; `allowed` is false when the write was refused by
/// the database (a policy's `with check`, a grant) or touched no row the caller may see.
pub async fn run(state: web::Data<AppState>, body: web::Json<Test>) -> Result<HttpResponse, StudioError> {
    let test = body.into_inner();
    let caller = caller_of(&state, &test.run_as).await?;
    let mut client = state.pools.admin.get().await?;
    let rel = relation(&client, &test.schema, &test.table).await?;
    let built = match &test.operation {
        Operation::Select { filters } => {
            let spec =
                Select { filters: filters.clone(), sort: Vec::new(), limit: Some(SHOWN), after: None, offset: None };
            query::select(&rel, &spec)?.0
        }
        Operation::Insert { row } => query::insert(&rel, row)?,
        Operation::Update { key, values } => query::update(&rel, key, values)?,
        Operation::Delete { key } => query::delete(&rel, std::slice::from_ref(key))?,
    };
    let total = match &test.operation {
        Operation::Select { filters } => Some(owner_count(&client, &rel, filters).await?),
        _ => None,
    };
    let tx = match &caller {
        Some(caller) => {
            let request = RequestInfo {
                method: "POST".into(),
                path: "/studio/api/policies/test".into(),
                headers: json!({}),
                settings: vec![("statement_timeout".into(), "15s".into())],
            };
            context::begin(&mut client, caller, &request, Access::ReadWrite).await?
        }
        None => client.transaction().await?,
    };
    let outcome = tx.query(&built.sql, &built.param_refs()).await;
    tx.rollback().await?;
    let answer = match outcome {
        Ok(rows) => {
            let rows: Vec<Value> = rows
                .iter()
                .map(|r| serde_json::from_str::<Value>(r.get::<_, &str>(0)).map_err(StudioError::internal))
                .collect::<Result<_, _>>()?;
            let affected = rows.len();
            let (rows, allowed) = match &test.operation {
                Operation::Select { .. } => (rows.into_iter().take(SHOWN as usize).collect::<Vec<_>>(), true),
                _ => (rows, affected > 0),
            };
            json!({"allowed": allowed, "rows": rows, "affected": affected, "total": total, "error": null})
        }
        Err(err) => match StudioError::from(err) {
            StudioError::Database { code, message, detail, hint, .. } => json!({
                "allowed": false, "rows": [], "affected": 0, "total": total,
                "error": {"sqlstate": code, "message": message, "detail": detail, "hint": hint},
            }),
            other => return Err(other),
        },
    };
    Ok(HttpResponse::Ok().json(answer))
}
