//! Running REST statements inside the caller's per-request transaction: connection, context
//! (role, claims, role settings, search_path), the pre-request function, commit or rollback
//! as `PGRST_DB_TX_END` and `Prefer: tx=` decide, and Postgres errors mapped to `RestError`.

use deadpool_postgres::{ClientWrapper, Object, PoolError, Transaction};
use tokio_postgres::Row;

use crate::db::cached::CachedQueries;
use crate::db::context::{self, Access};
use crate::db::one_trip::{self, Ending};
use crate::rest::error::RestError;
use crate::rest::parse::TxPref;
use crate::rest::request::RestRequest;
use crate::rest::sql::Sql;
use crate::rest::RestState;

/// How many more times a write whose transaction lost a deadlock (`40P01`) or a serialization
/// conflict (`40001`) is run: the transaction was rolled back whole, so running it again is safe.
const CONFLICT_RETRIES: u32 = 3;

/// Run `attempt` (one whole transaction) again while it loses a deadlock or a serialization
/// conflict, after a short growing pause. What still conflicts after the retries answers 409.
pub async fn retrying<T, F, Fut>(mut attempt: F) -> Result<T, RestError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, RestError>>,
{
    let mut retries = 0;
    loop {
        match attempt().await {
            Err(err) if err.is_concurrency_conflict() => {
                if retries == CONFLICT_RETRIES {
                    return Err(err.after_conflict_retries(CONFLICT_RETRIES));
                }
                retries += 1;
                tracing::debug!(retry = retries, error = %err, "rest: transaction conflicted, running it again");
                // Jitter keeps two transactions that deadlocked from meeting again in step.
                let pause = 10 * u64::from(retries) + rand::random::<u64>() % 20;
                tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
            }
            other => return other,
        }
    }
}

/// A connection for `req`'s transaction: a read-only one goes to a replica when one is in
/// rotation and the caller has not written recently; a read-write one marks the caller as a
/// writer (read-your-writes).
pub async fn connection_for(state: &RestState, req: &RestRequest, access: Access) -> Result<Object, RestError> {
    let replicas = &state.replicas;
    if !replicas.is_empty() {
        let writer = req.caller.subject().unwrap_or(&req.caller.role);
        if access == Access::ReadWrite {
            replicas.wrote(writer);
        } else if !req.wrote_recently && !replicas.wrote_recently(writer) {
            if let Some(client) = replicas.connection().await {
                return Ok(client);
            }
        }
    }
    connection(state).await
}

/// A shared connection for `unit`'s transaction, when it is one message that ends it
/// ([`one_trip::self_contained`]), lanes are configured, and no replica is in play (a read may
/// go to one; a write marks its caller as a writer); `None` when no lane has room.
async fn lane_for(state: &RestState, unit: &context::Unit<'_>, text: &str) -> Option<crate::db::lanes::LaneGuard> {
    let lanes = state.lanes.as_ref()?;
    if !state.replicas.is_empty() || !one_trip::self_contained(unit, text, Ending::InMessage) {
        return None;
    }
    let lane = lanes.take(unit.access).await;
    crate::metrics::shared_connection(lane.is_some());
    lane
}

/// `unit`'s statement as a whole transaction in one round trip ([`one_trip`]): on a shared
/// connection when one has room, else on a connection of its own.
async fn in_one_trip(
    state: &RestState,
    req: &RestRequest,
    unit: &context::Unit<'_>,
    text: &str,
    params: &[Option<&str>],
) -> Result<ReadResult, RestError> {
    let lane = lane_for(state, unit, text).await;
    let pooled;
    let client: &ClientWrapper = match &lane {
        Some(lane) => lane,
        None => {
            pooled = connection_for(state, req, unit.access).await?;
            &pooled
        }
    };
    let rows = one_trip::run(client, unit, text, params, Ending::InMessage).await.map_err(|e| pg(&e, req))?;
    first_text_row(&rows)
}

/// A connection from the request pool.
pub async fn connection(state: &RestState) -> Result<Object, RestError> {
    state.request.get().await.map_err(|err| match err {
        PoolError::Timeout(_) => {
            crate::metrics::pool_timeout("request");
            RestError::PoolTimeout
        }
        // No new connection could be made: whatever PostgreSQL said, it is PGRST000 (503).
        PoolError::Backend(e) => {
            tracing::error!(error = %e, "rest: cannot connect to the database");
            RestError::ConnectionFailed
        }
        other => RestError::internal(format!("connection pool: {other}")),
    })
}

/// Map a Postgres error for this request.
pub fn pg(err: &tokio_postgres::Error, req: &RestRequest) -> RestError {
    RestError::from_pg(err, req.anonymous)
}

/// Open the caller's transaction and run the pre-request function.
pub async fn begin<'a>(
    client: &'a mut Object,
    req: &RestRequest,
    state: &RestState,
    access: Access,
) -> Result<Transaction<'a>, RestError> {
    let anonymous = req.anonymous;
    let tx =
        context::begin(client, &req.caller, &req.info, access).await.map_err(|e| RestError::from_pg(&e, anonymous))?;
    if let Some(pre) = pre_request_sql(state) {
        tx.batch_execute(&pre).await.map_err(|e| RestError::from_pg(&e, anonymous))?;
    }
    Ok(tx)
}

/// The pre-request call, as SQL, when configured.
pub fn pre_request_sql(state: &RestState) -> Option<String> {
    state.config.pre_request.as_ref().map(|function| {
        let name = function
            .split('.')
            .map(|part| crate::db::quote_ident(part.trim_matches('"')))
            .collect::<Vec<_>>()
            .join(".");
        format!("select {name}()")
    })
}

/// A read statement in one round trip and one answer ([`one_trip`]), on a shared connection
/// when it may take one ([`crate::db::lanes`]), else on a connection of its own.
pub async fn read_in_one_trip(
    req: &RestRequest,
    state: &RestState,
    text: &str,
    sql: &Sql,
) -> Result<ReadResult, RestError> {
    tracing::debug!(target: "server::rest::sql", sql = %text, "statement");
    let access = Access::ReadOnly;
    let end = end_of(req, state);
    let pre = pre_request_sql(state);
    let unit = context::Unit { caller: &req.caller, request: &req.info, access, extra: pre.as_deref(), end };
    if let Some(params) = literal_params(sql) {
        return in_one_trip(state, req, &unit, text, &params).await;
    }
    let client = connection_for(state, req, access).await?;
    let rows = context::run_pipelined(&client, &unit, text, &sql.refs()).await.map_err(|e| pg(&e, req))?;
    let row = rows.first().ok_or_else(|| RestError::internal("read statement returned no row"))?;
    Ok(ReadResult::of(row))
}

/// A check made on a statement's result before its transaction ends: an error it returns rolls
/// everything back and is the answer.
pub type Check<'a> = &'a (dyn Fn(&ReadResult) -> Option<RestError> + Sync);

/// One statement as the caller's whole transaction (a write, a call). Without a check, it runs
/// in one round trip; with one, the transaction's end waits for the check (two round trips).
pub async fn run_statement(
    req: &RestRequest,
    state: &RestState,
    access: Access,
    text: &str,
    sql: &Sql,
    check: Option<Check<'_>>,
) -> Result<ReadResult, RestError> {
    if let Some(params) = literal_params(sql) {
        tracing::debug!(target: "server::rest::sql", sql = %text, "statement");
        let end = end_of(req, state);
        let pre = pre_request_sql(state);
        let unit = context::Unit { caller: &req.caller, request: &req.info, access, extra: pre.as_deref(), end };
        let Some(check) = check else {
            return in_one_trip(state, req, &unit, text, &params).await;
        };
        let client = connection_for(state, req, access).await?;
        let (rows, open) = one_trip::run_open(client, &unit, text, &params).await.map_err(|e| pg(&e, req))?;
        let result = first_text_row(&rows)?;
        if let Some(refusal) = check(&result) {
            open.end(context::End::Rollback).await.map_err(|e| pg(&e, req))?;
            return Err(refusal);
        }
        open.end(end).await.map_err(|e| pg(&e, req))?;
        return Ok(result);
    }
    let mut client = connection_for(state, req, access).await?;
    let tx = begin(&mut client, req, state, access).await?;
    let result = read(&tx, text, sql, req).await?;
    if let Some(refusal) = check.and_then(|check| check(&result)) {
        drop(tx);
        return Err(refusal);
    }
    finish(tx, req, state).await?;
    Ok(result)
}

/// The statement's values for [`one_trip`], unless one cannot be written as a literal.
fn literal_params(sql: &Sql) -> Option<Vec<Option<&str>>> {
    let params: Vec<Option<&str>> = sql.params.iter().map(|p| p.0.as_deref()).collect();
    one_trip::inlinable(params.iter().copied()).then_some(params)
}

/// How this request's transaction ends.
fn end_of(req: &RestRequest, state: &RestState) -> context::End {
    if commits(req, state).0 {
        context::End::Commit
    } else {
        context::End::Rollback
    }
}

fn first_text_row(rows: &[tokio_postgres::SimpleQueryRow]) -> Result<ReadResult, RestError> {
    let row = rows.first().ok_or_else(|| RestError::internal("statement returned no row"))?;
    ReadResult::of_text(row)
}

/// Whether this request's transaction commits (and whether `tx=` was honoured).
pub fn commits(req: &RestRequest, state: &RestState) -> (bool, bool) {
    let tunables = state.tunables();
    let end = tunables.tx_end.as_str();
    let default_commit = end.starts_with("commit");
    let overridable = end.ends_with("allow-override");
    match (req.prefer.tx, overridable) {
        (Some(TxPref::Commit), true) => (true, true),
        (Some(TxPref::Rollback), true) => (false, true),
        _ => (default_commit, false),
    }
}

/// Commit or roll back as configured.
pub async fn finish(tx: Transaction<'_>, req: &RestRequest, state: &RestState) -> Result<(), RestError> {
    let (commit, _) = commits(req, state);
    let result = if commit { tx.commit().await } else { tx.rollback().await };
    result.map_err(|e| pg(&e, req))
}

/// Prepare (cached) and run a statement returning rows.
pub async fn query(tx: &Transaction<'_>, text: &str, sql: &Sql, req: &RestRequest) -> Result<Vec<Row>, RestError> {
    // The statement text only (never the bound values, which may hold secrets).
    tracing::debug!(target: "server::rest::sql", sql = %text, "statement");
    tx.cached_query(text, &sql.refs()).await.map_err(|e| pg(&e, req))
}

/// The `(total, page, body, response_headers, response_status)` row of a statement.
pub struct ReadResult {
    pub total: Option<i64>,
    pub page: i64,
    pub body: String,
    /// What SQL set in `response.headers` and `response.status`.
    pub settings: ResponseSettings,
}

/// The response GUCs as SQL left them (unparsed: [`crate::rest::response::apply_settings`]
/// checks them).
#[derive(Debug, Default, Clone)]
pub struct ResponseSettings {
    pub headers: Option<String>,
    pub status: Option<String>,
}

impl ReadResult {
    /// The same row answered as text by a simple query.
    fn of_text(row: &tokio_postgres::SimpleQueryRow) -> Result<ReadResult, RestError> {
        let text = |i: usize| if row.len() > i { row.get(i).map(str::to_string) } else { None };
        let number = |i: usize| -> Result<Option<i64>, RestError> {
            text(i)
                .map(|t| t.parse::<i64>().map_err(|_| RestError::internal("statement answered a non-number count")))
                .transpose()
        };
        Ok(ReadResult {
            total: number(0)?,
            page: number(1)?.unwrap_or_default(),
            body: text(2).unwrap_or_default(),
            settings: ResponseSettings { headers: text(3), status: text(4) },
        })
    }

    fn of(row: &Row) -> ReadResult {
        let text = |i: usize| if row.len() > i { row.get::<_, Option<String>>(i) } else { None };
        ReadResult {
            total: row.get(0),
            page: row.get(1),
            body: row.get(2),
            settings: ResponseSettings { headers: text(3), status: text(4) },
        }
    }
}

pub async fn read(tx: &Transaction<'_>, text: &str, sql: &Sql, req: &RestRequest) -> Result<ReadResult, RestError> {
    let rows = query(tx, text, sql, req).await?;
    let row = rows.first().ok_or_else(|| RestError::internal("read statement returned no row"))?;
    Ok(ReadResult::of(row))
}

/// `EXPLAIN (FORMAT JSON)` of a statement, as text.
pub async fn explain(tx: &Transaction<'_>, text: &str, sql: &Sql, req: &RestRequest) -> Result<String, RestError> {
    explain_with(tx, text, sql, req, "FORMAT JSON").await
}

/// `EXPLAIN (<options>)` of a statement: a JSON plan as its text, a text plan as its lines.
pub async fn explain_with(
    tx: &Transaction<'_>,
    text: &str,
    sql: &Sql,
    req: &RestRequest,
    options: &str,
) -> Result<String, RestError> {
    let rows = query(tx, &format!("EXPLAIN ({options}) {text}"), sql, req).await?;
    if options.contains("FORMAT TEXT") {
        let lines: Vec<String> = rows.iter().map(|r| r.get::<_, String>(0)).collect();
        return Ok(lines.join("\n"));
    }
    let row = rows.first().ok_or_else(|| RestError::internal("explain returned no row"))?;
    let plan: serde_json::Value = row.get(0);
    Ok(plan.to_string())
}

/// Planned row count of a count query (`count=planned`).
pub async fn planned_count(tx: &Transaction<'_>, text: &str, sql: &Sql, req: &RestRequest) -> Result<i64, RestError> {
    let plan: serde_json::Value = serde_json::from_str(&explain(tx, text, sql, req).await?).unwrap_or_default();
    Ok(plan.get(0).and_then(|p| p.get("Plan")).and_then(|p| p.get("Plan Rows")).and_then(|r| r.as_f64()).unwrap_or(0.0)
        as i64)
}
