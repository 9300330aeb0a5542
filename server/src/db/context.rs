//! The per-request database context: the primitive every surface uses to run SQL as the caller.
//!
//! `begin` opens one transaction (read-only for read requests) on a request-pool connection and,
//! before anything else, sets the role (the JWT's `role` claim, `anon` without a token),
//! `request.jwt.claims`, `request.method`, `request.path` and `request.headers` with
//! transaction-local `set_config`, so nothing leaks to the next request on the connection and it
//! stays correct behind PgBouncer in transaction mode. Row-level security then decides. The caller
//! commits or rolls back; dropping the transaction rolls back. This module does not authenticate:
//! it trusts the `Caller` it is given.

use std::sync::Arc;

use deadpool_postgres::{Object, Transaction};

use super::cached::CachedQueries;
use serde_json::Value;

/// Who makes the request, as established by the API-key / JWT gate.
#[derive(Debug, Clone)]
pub struct Caller {
    /// Database role to run as (`anon`, `authenticated`, `service_role`, ...).
    pub role: String,
    /// All claims of the verified token (`{}` for none), given to SQL as `request.jwt.claims`.
    pub claims: Arc<Value>,
}

impl Caller {
    /// A caller without any token: its claims are `{"role": role}`, as PostgREST gives SQL.
    pub fn anonymous(role: &str) -> Caller {
        let claims = serde_json::json!({ "role": role });
        Caller { role: role.to_string(), claims: Arc::new(claims) }
    }

    /// The `sub` claim, when present.
    pub fn subject(&self) -> Option<&str> {
        self.claims.get("sub").and_then(Value::as_str)
    }
}

/// The request facts given to SQL alongside the caller.
#[derive(Debug, Clone, Default)]
pub struct RequestInfo {
    pub method: String,
    pub path: String,
    /// Request headers as a JSON object with lower-case names.
    pub headers: Value,
    /// Extra transaction-local settings (the caller role's `statement_timeout`, ...).
    pub settings: Vec<(String, String)>,
}

/// Read-only transactions for reads; read-write otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    ReadOnly,
    ReadWrite,
}

impl Access {
    /// The statement that opens a transaction of this access.
    pub fn begin_sql(self) -> &'static str {
        match self {
            Access::ReadOnly => "BEGIN READ ONLY",
            Access::ReadWrite => "BEGIN",
        }
    }
}

/// Sets the caller's role and claims and the request facts, transaction-locally.
pub(crate) const SET_CONTEXT: &str = "select set_config('role', $1, true), set_config('request.jwt.claims', $2, true), \
     set_config('request.method', $3, true), set_config('request.path', $4, true), set_config('request.headers', $5, true), \
     (select count(set_config(k, v, true)) from unnest($6::text[], $7::text[]) as s(k, v))";

/// `SET_CONTEXT`'s seven parameters for one caller and request (the JSON texts built once).
pub(crate) struct ContextValues<'a> {
    caller: &'a Caller,
    request: &'a RequestInfo,
    claims: String,
    headers: String,
    keys: Vec<&'a str>,
    values: Vec<&'a str>,
}

impl<'a> ContextValues<'a> {
    pub(crate) fn of(caller: &'a Caller, request: &'a RequestInfo) -> ContextValues<'a> {
        ContextValues {
            caller,
            request,
            claims: caller.claims.to_string(),
            headers: request.headers.to_string(),
            keys: request.settings.iter().map(|(k, _)| k.as_str()).collect(),
            values: request.settings.iter().map(|(_, v)| v.as_str()).collect(),
        }
    }

    pub(crate) fn params(&self) -> [&(dyn tokio_postgres::types::ToSql + Sync); 7] {
        let ContextValues { caller, request, claims, headers, keys, values } = self;
        [&caller.role, claims, &request.method, &request.path, headers, keys, values]
    }
}

/// Open the caller's transaction on `client` with the role and claims set.
pub async fn begin<'a>(
    client: &'a mut Object,
    caller: &Caller,
    request: &RequestInfo,
    access: Access,
) -> Result<Transaction<'a>, tokio_postgres::Error> {
    let tx = client.build_transaction().read_only(access == Access::ReadOnly).start().await?;
    let ctx = ContextValues::of(caller, request);
    tx.cached_query_one(SET_CONTEXT, &ctx.params()).await?;
    Ok(tx)
}

/// How a pipelined unit of work ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Commit,
    Rollback,
}

impl End {
    /// The statement that ends the transaction so.
    pub fn sql(self) -> &'static str {
        match self {
            End::Commit => "COMMIT",
            End::Rollback => "ROLLBACK",
        }
    }
}

/// Who runs a pipelined statement, and how its transaction is framed.
#[derive(Debug, Clone, Copy)]
pub struct Unit<'a> {
    pub caller: &'a Caller,
    pub request: &'a RequestInfo,
    pub access: Access,
    /// SQL run after the context and before the statement (a pre-request call).
    pub extra: Option<&'a str>,
    pub end: End,
}

/// Run one statement as the caller in a single network round trip: `BEGIN`, the context
/// statement, `extra` (e.g. a pre-request call), the statement and `COMMIT`/`ROLLBACK` are
/// pipelined on the connection. A failed statement aborts the transaction, so `COMMIT` then
/// rolls back; the first error in statement order is returned.
///
/// A statement this connection has not prepared yet is parsed *inside* the transaction, after the
/// context, so the caller role's `statement_timeout` bounds its parse analysis as well as its
/// planning and execution; its execution and the `COMMIT` follow once it is parsed (a second
/// round trip, which preparing before `BEGIN` took too).
pub async fn run_pipelined(
    client: &Object,
    unit: &Unit<'_>,
    text: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
    let Unit { caller, request, access, extra, end } = *unit;
    if super::cached::unnamed() {
        return run_in_steps(client, unit, text, params).await;
    }
    let context = client.prepare_cached(SET_CONTEXT).await?;
    let ctx = ContextValues::of(caller, request);
    let (begin, finish) = (access.begin_sql(), end.sql());
    let ctx_params = ctx.params();
    let extra_sql = extra.unwrap_or("");
    // `tokio::join!` polls in order and each request is sent on its first poll, so the messages
    // leave in this order. A cached statement is ready at once, and its execution and the end of
    // the transaction go out in the same write as `BEGIN`.
    let statement = async {
        let main = client.prepare_cached(text).await?;
        let (rows, end) = tokio::join!(client.query(&main, params), client.batch_execute(finish));
        Ok::<_, tokio_postgres::Error>((rows, end))
    };
    let (b, c, x, m) = tokio::join!(
        client.batch_execute(begin),
        client.query(&context, &ctx_params),
        client.batch_execute(extra_sql),
        statement,
    );
    let outcome = b.and(c.map(drop)).and(x).and(m);
    let (rows, end) = match outcome {
        Ok((Ok(rows), end)) => (rows, end),
        Ok((Err(err), _)) | Err(err) => {
            // Make sure nothing stays open whatever happened before the end was sent.
            let _ = client.batch_execute("ROLLBACK").await;
            return Err(err);
        }
    };
    end?;
    Ok(rows)
}

/// [`run_pipelined`] behind a transaction-mode pooler (`DB_PREPARED_STATEMENTS=false`): the same
/// steps one after the other, each an unnamed statement, inside the one transaction that keeps
/// them on one server connection.
async fn run_in_steps(
    client: &Object,
    unit: &Unit<'_>,
    text: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
    let Unit { caller, request, access, extra, end } = *unit;
    client.batch_execute(access.begin_sql()).await?;
    let steps = async {
        let ctx = ContextValues::of(caller, request);
        client.cached_query_one(SET_CONTEXT, &ctx.params()).await?;
        if let Some(extra) = extra {
            client.batch_execute(extra).await?;
        }
        client.cached_query(text, params).await
    };
    match steps.await {
        Ok(rows) => {
            client.batch_execute(end.sql()).await?;
            Ok(rows)
        }
        Err(err) => {
            let _ = client.batch_execute("ROLLBACK").await;
            Err(err)
        }
    }
}
