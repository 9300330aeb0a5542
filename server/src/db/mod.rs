//! Database access shared by every surface: connection pools, the embedded cluster,
//! migrations and the per-request transaction context.
//!
//! Two pools exist. The `admin` pool connects with the configured (owner) credentials and is
//! used for migrations and for internal work that must bypass the caller's role (auth, storage
//! bookkeeping). The `request` pool connects as the `authenticator` role, which can only switch
//! to the roles granted to it; every client request runs there under `context::begin`.

pub mod cached;
pub mod context;
pub mod embedded;
pub mod lanes;
pub mod listen;
pub mod migrate;
pub mod one_trip;
pub mod replicas;
pub mod supervise;
pub mod wire;

use std::str::FromStr;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use secrecy::{ExposeSecret, SecretString};
use tokio_postgres::NoTls;

/// Why a pool could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// The setting's name and the parser's complaint.
    #[error("invalid {0}")]
    Url(String),
    #[error("cannot build the connection pool: {0}")]
    Build(String),
}

/// The two pools of the server, and the direct one migrations use.
#[derive(Clone)]
pub struct Pools {
    pub admin: Pool,
    pub request: Pool,
    /// Owner connections that bypass a transaction-mode pooler (`DATABASE_DIRECT_URL`), for the
    /// session-level advisory lock of migrations; the admin pool when there is no pooler.
    pub direct: Pool,
    /// Connections each worker thread shares among its requests' one-trip pipelines ([`lanes`]);
    /// none until [`Pools::with_lanes`].
    pub lanes: Option<std::sync::Arc<lanes::SharedConnections>>,
    /// The request pool's settings, for the lanes.
    request_config: tokio_postgres::Config,
}

/// Whether Postgres refused a value as data (SQLSTATE class 22: a NUL byte, text the column
/// cannot hold, a bad number): the client's input, answered as a 400 by every surface.
pub fn is_data_exception(err: &tokio_postgres::Error) -> bool {
    err.code().is_some_and(|c| c.code().starts_with("22"))
}

/// Whether the database itself failed rather than the statement: the connection was lost or
/// refused, the server is shutting down or starting, or it has no connection slot left. Every
/// surface answers these with 503 and `Retry-After`.
pub fn is_unavailable(err: &tokio_postgres::Error) -> bool {
    if err.is_closed() {
        return true;
    }
    if let Some(code) = err.code() {
        return code.code().starts_with("08") || ends_the_session(err);
    }
    std::error::Error::source(err).is_some_and(|cause| cause.downcast_ref::<std::io::Error>().is_some())
}

/// Whether PostgreSQL itself ended or refused the session: shutting down, starting up, a
/// terminated backend, or no connection slot left.
pub fn ends_the_session(err: &tokio_postgres::Error) -> bool {
    err.code().is_some_and(|c| matches!(c.code(), "57P01" | "57P02" | "57P03" | "53300"))
}

/// Seconds a client is told to wait (`Retry-After`) when the database is unavailable.
pub const RETRY_AFTER_SECS: &str = "5";

/// The role client requests connect as.
pub const AUTHENTICATOR: &str = "authenticator";

impl Pools {
    /// Build both pools from the owner URL; the request pool logs in as `authenticator` with
    /// `authenticator_password` on the same host and database.
    pub fn new(database_url: &SecretString, authenticator_password: &str, size: usize) -> Result<Pools, PoolError> {
        let admin_cfg = tokio_postgres::Config::from_str(database_url.expose_secret())
            .map_err(|e| PoolError::Url(format!("DATABASE_URL: {e}")))?;
        let mut request_cfg = admin_cfg.clone();
        request_cfg.user(AUTHENTICATOR).password(authenticator_password).application_name("server-request");
        let mut admin_cfg = admin_cfg;
        admin_cfg.application_name("server-admin");
        let admin = pool(admin_cfg, size.clamp(2, 16))?;
        Ok(Pools {
            direct: admin.clone(),
            admin,
            request: request_pool(request_cfg.clone(), size)?,
            lanes: None,
            request_config: request_cfg,
        })
    }

    /// Share `per_worker` connections per worker thread among one-trip pipelines (0: none), and
    /// one more among read-only ones, `read_depth` deep (0: none).
    pub fn with_lanes(mut self, per_worker: usize, read_depth: usize) -> Pools {
        self.lanes =
            lanes::SharedConnections::new(self.request_config.clone(), per_worker, read_depth).map(std::sync::Arc::new);
        self
    }

    /// Use `direct_url` (owner credentials, no pooler) for the direct pool.
    pub fn with_direct(mut self, direct_url: &SecretString) -> Result<Pools, PoolError> {
        let mut cfg = tokio_postgres::Config::from_str(direct_url.expose_secret())
            .map_err(|e| PoolError::Url(format!("DATABASE_DIRECT_URL: {e}")))?;
        cfg.application_name("server-direct");
        self.direct = pool(cfg, 2)?;
        Ok(self)
    }
}

/// A pool whose connections run requests: through [`wire::WireStream`] when `config` allows, so
/// that [`one_trip`] can send pipelines on them; noted when it does not.
pub(crate) fn request_pool(config: tokio_postgres::Config, size: usize) -> Result<Pool, PoolError> {
    let manager_config = ManagerConfig { recycling_method: RecyclingMethod::Fast };
    if !wire::qualifies(&config) {
        wire::unavailable();
        return build(Manager::from_config(config, NoTls, manager_config), size);
    }
    build(Manager::from_connect(config, wire::WireConnect, manager_config), size)
}

/// A pool of `size` connections made with `config`.
pub(crate) fn pool(config: tokio_postgres::Config, size: usize) -> Result<Pool, PoolError> {
    build(Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast }), size)
}

fn build(manager: Manager, size: usize) -> Result<Pool, PoolError> {
    Pool::builder(manager)
        .max_size(size)
        .runtime(deadpool_postgres::Runtime::Tokio1)
        .wait_timeout(Some(std::time::Duration::from_secs(10)))
        .create_timeout(Some(std::time::Duration::from_secs(10)))
        .build()
        .map_err(|e| PoolError::Build(e.to_string()))
}

/// Quote an SQL identifier (the one place identifiers are quoted).
pub fn quote_ident(ident: &str) -> String {
    let mut out = String::with_capacity(ident.len() + 2);
    push_quoted_ident(&mut out, ident);
    out
}

/// [`quote_ident`] written onto the end of `sql`.
pub fn push_quoted_ident(sql: &mut String, ident: &str) {
    sql.push('"');
    if ident.contains('"') {
        sql.push_str(&ident.replace('"', "\"\""));
    } else {
        sql.push_str(ident);
    }
    sql.push('"');
}

/// Quote an SQL string literal (only for statements that cannot take bind parameters).
pub fn quote_literal(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// `E'...'` with quotes and backslashes escaped: the same value whatever
/// `standard_conforming_strings` says.
pub fn escaped_literal(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 3);
    push_escaped_literal(&mut out, value);
    out
}

/// [`escaped_literal`] written onto the end of `sql`, in one pass.
pub fn push_escaped_literal(sql: &mut String, value: &str) {
    sql.push_str("E'");
    let mut written = 0;
    for (i, byte) in value.bytes().enumerate() {
        // Both are ASCII, so they are whole characters; each is escaped by doubling it.
        if byte == b'\\' || byte == b'\'' {
            sql.push_str(&value[written..=i]);
            sql.push(char::from(byte));
            written = i + 1;
        }
    }
    sql.push_str(&value[written..]);
    sql.push('\'');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_and_literals_are_escaped() {
        assert_eq!(quote_ident(r#"a"b"#), r#""a""b""#);
        assert_eq!(quote_literal("it's"), "'it''s'");
        assert_eq!(escaped_literal(r"a'b\c"), r"E'a''b\\c'");
        assert_eq!(escaped_literal(r"''\é\"), r"E'''''\\é\\'");
        assert_eq!(escaped_literal(""), "E''");
        let mut sql = String::from("x = ");
        push_escaped_literal(&mut sql, "plain");
        assert_eq!(sql, "x = E'plain'");
    }
}
