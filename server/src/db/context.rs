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
    /// A caller without any token.
    pub fn anonymous(role: &str) -> Caller {
        Caller { role: role.to_string(), claims: Arc::new(Value::Object(Default::default())) }
    }

    /// Whether the caller presented no user token (runs as the anonymous role).
    pub fn is_anonymous(&self) -> bool {
        self.role == "anon"
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

const SET_CONTEXT: &str = "select set_config('role', $1, true), set_config('request.jwt.claims', $2, true), \
     set_config('request.method', $3, true), set_config('request.path', $4, true), set_config('request.headers', $5, true), \
     (select count(set_config(k, v, true)) from unnest($6::text[], $7::text[]) as s(k, v))";

/// Open the caller's transaction on `client` with the role and claims set.
pub async fn begin<'a>(
    client: &'a mut Object,
    caller: &Caller,
    request: &RequestInfo,
    access: Access,
) -> Result<Transaction<'a>, tokio_postgres::Error> {
    let tx = client.build_transaction().read_only(access == Access::ReadOnly).start().await?;
    let stmt = tx.prepare_cached(SET_CONTEXT).await?;
    let claims = caller.claims.to_string();
    let headers = request.headers.to_string();
    let keys: Vec<&str> = request.settings.iter().map(|(k, _)| k.as_str()).collect();
    let values: Vec<&str> = request.settings.iter().map(|(_, v)| v.as_str()).collect();
    tx.query_one(&stmt, &[&caller.role, &claims, &request.method, &request.path, &headers, &keys, &values]).await?;
    Ok(tx)
}
