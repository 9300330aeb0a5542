//! Statements prepared once per connection and reused: `db.cached_query_one(SQL, &[...])` is
//! `query_one` through deadpool's per-connection statement cache, so a statement that runs on
//! every call (a refresh, `GET /user`) is parsed by Postgres once per connection instead of
//! once per call, and runs in one round trip. For SQL texts from a fixed set only: every
//! distinct text stays in the cache of each connection that ran it.
//!
//! Behind a transaction-mode pooler that does not carry named statements from one transaction
//! to the next (PgBouncer before 1.21), `DB_PREPARED_STATEMENTS=false` switches every one of
//! these calls to an unnamed statement sent with its values in one message (Parse, Bind,
//! Execute, Sync), which a pooler cannot split. The parameter types that message needs are
//! learnt once per text on a direct connection (`DATABASE_DIRECT_URL`) and kept for the
//! process. Statements inside an explicit transaction are pinned to one server connection by
//! the pooler and need none of this.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock, PoisonError};

use deadpool_postgres::GenericClient;
use futures_util::{pin_mut, TryStreamExt};
use secrecy::{ExposeSecret, SecretString};
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Error, Row, RowStream};

static UNNAMED: AtomicBool = AtomicBool::new(false);
static DIRECT_URL: OnceLock<SecretString> = OnceLock::new();
/// Parameter types learnt per statement text (a fixed set of texts, so bounded in practice;
/// emptied past `MAX_TEXTS` all the same).
static TYPES: LazyLock<Mutex<HashMap<String, Arc<[Type]>>>> = LazyLock::new(Default::default);
const MAX_TEXTS: usize = 10_000;
/// The direct connection that learns parameter types.
static LEARNER: LazyLock<tokio::sync::Mutex<Option<tokio_postgres::Client>>> = LazyLock::new(Default::default);

/// Send unnamed statements only (`DB_PREPARED_STATEMENTS=false`), learning parameter types on
/// `direct_url`. Process-wide; called once at start.
pub fn use_unnamed_statements(direct_url: SecretString) {
    let _ = DIRECT_URL.set(direct_url);
    UNNAMED.store(true, Ordering::Relaxed);
}

/// Whether statements are sent unnamed (behind a transaction-mode pooler).
pub fn unnamed() -> bool {
    UNNAMED.load(Ordering::Relaxed)
}

/// The parameter types Postgres infers for `sql`, learnt on the direct connection.
async fn param_types(sql: &str) -> Result<Arc<[Type]>, Error> {
    if let Some(types) = TYPES.lock().unwrap_or_else(PoisonError::into_inner).get(sql) {
        return Ok(types.clone());
    }
    let mut learner = LEARNER.lock().await;
    // Another caller may have learnt this text while this one waited for the learner.
    if let Some(types) = TYPES.lock().unwrap_or_else(PoisonError::into_inner).get(sql) {
        return Ok(types.clone());
    }
    if learner.as_ref().is_none_or(tokio_postgres::Client::is_closed) {
        let url = DIRECT_URL.get().map(|u| u.expose_secret().to_string()).unwrap_or_default();
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await?;
        tokio::spawn(connection);
        *learner = Some(client);
    }
    let Some(client) = learner.as_mut() else { unreachable!("connected above") };
    // Inside a transaction, and closed (when dropped) before it ends: nothing is left behind on
    // the server connection even if the "direct" URL goes through a pooler after all.
    let tx = client.transaction().await?;
    let types: Arc<[Type]> = tx.prepare(sql).await?.params().into();
    tx.rollback().await?;
    let mut map = TYPES.lock().unwrap_or_else(PoisonError::into_inner);
    if map.len() >= MAX_TEXTS {
        map.clear();
    }
    map.insert(sql.to_string(), types.clone());
    Ok(types)
}

type Typed<'a> = Vec<(&'a (dyn ToSql + Sync), Type)>;

/// Unnamed statements with explicit parameter types, on a pooled connection or a transaction.
pub trait Unnamed: Sync {
    fn unnamed_raw<'a>(
        &'a self,
        sql: &'a str,
        params: Typed<'a>,
    ) -> impl Future<Output = Result<RowStream, Error>> + Send + 'a;
    fn unnamed_one<'a>(
        &'a self,
        sql: &'a str,
        params: &'a [(&'a (dyn ToSql + Sync), Type)],
    ) -> impl Future<Output = Result<Row, Error>> + Send + 'a;
    fn unnamed_opt<'a>(
        &'a self,
        sql: &'a str,
        params: &'a [(&'a (dyn ToSql + Sync), Type)],
    ) -> impl Future<Output = Result<Option<Row>, Error>> + Send + 'a;
}

macro_rules! unnamed_for {
    ($ty:ty, $inner:ty) => {
        impl Unnamed for $ty {
            fn unnamed_raw<'a>(
                &'a self,
                sql: &'a str,
                params: Typed<'a>,
            ) -> impl Future<Output = Result<RowStream, Error>> + Send + 'a {
                let inner: &$inner = self;
                inner.query_typed_raw(sql, params)
            }
            fn unnamed_one<'a>(
                &'a self,
                sql: &'a str,
                params: &'a [(&'a (dyn ToSql + Sync), Type)],
            ) -> impl Future<Output = Result<Row, Error>> + Send + 'a {
                let inner: &$inner = self;
                inner.query_typed_one(sql, params)
            }
            fn unnamed_opt<'a>(
                &'a self,
                sql: &'a str,
                params: &'a [(&'a (dyn ToSql + Sync), Type)],
            ) -> impl Future<Output = Result<Option<Row>, Error>> + Send + 'a {
                let inner: &$inner = self;
                inner.query_typed_opt(sql, params)
            }
        }
    };
}

unnamed_for!(deadpool_postgres::Object, tokio_postgres::Client);
unnamed_for!(deadpool_postgres::Transaction<'_>, tokio_postgres::Transaction<'_>);

/// `sql`'s values paired with the types Postgres infers for them.
async fn typed<'a>(sql: &str, params: &'a [&'a (dyn ToSql + Sync)]) -> Result<Typed<'a>, Error> {
    let types = if params.is_empty() { Arc::from([]) } else { param_types(sql).await? };
    Ok(params.iter().copied().zip(types.iter().cloned()).collect())
}

/// Run `sql` unnamed: its rows and the number of rows it affected.
async fn unnamed_rows<C: Unnamed + ?Sized>(
    db: &C,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<(Vec<Row>, u64), Error> {
    let stream = db.unnamed_raw(sql, typed(sql, params).await?).await?;
    pin_mut!(stream);
    let mut rows = Vec::new();
    while let Some(row) = stream.try_next().await? {
        rows.push(row);
    }
    let affected = stream.rows_affected().unwrap_or(0);
    Ok((rows, affected))
}

/// One method of [`CachedQueries`]: without named statements `$unnamed` (an expression of
/// `self`, `sql` and `params`), else `$named` on the statement prepared once per connection.
macro_rules! cached {
    ($(#[$doc:meta])* $name:ident -> $out:ty, $named:ident, |$this:ident, $sql:ident, $params:ident| $unnamed:expr) => {
        $(#[$doc])*
        fn $name<'a>(
            &'a self,
            sql: &'a str,
            params: &'a [&'a (dyn ToSql + Sync)],
        ) -> impl Future<Output = Result<$out, Error>> + Send + 'a {
            async move {
                if unnamed() {
                    let ($this, $sql, $params) = (self, sql, params);
                    return $unnamed;
                }
                let statement = self.prepare_cached(sql).await?;
                self.$named(&statement, params).await
            }
        }
    };
}

/// The cached forms of `query`, `query_one`, `query_opt` and `execute`.
pub trait CachedQueries: GenericClient + Unnamed {
    cached!(cached_query -> Vec<Row>, query, |db, sql, params| Ok(unnamed_rows(db, sql, params).await?.0));
    cached!(cached_query_one -> Row, query_one, |db, sql, params| db.unnamed_one(sql, &typed(sql, params).await?).await);
    cached!(cached_query_opt -> Option<Row>, query_opt, |db, sql, params| db
        .unnamed_opt(sql, &typed(sql, params).await?)
        .await);
    cached!(cached_execute -> u64, execute, |db, sql, params| Ok(unnamed_rows(db, sql, params).await?.1));
}

impl<T: GenericClient + Unnamed + ?Sized> CachedQueries for T {}

/// What every database-using function takes: a pooled connection or a transaction on one.
pub trait Db: CachedQueries {}

impl<T: CachedQueries + ?Sized> Db for T {}
