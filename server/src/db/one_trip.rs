//! A caller's statement in one round trip and one answer: `BEGIN`, the context (role, claims,
//! request facts, role settings), an optional pre-request call, the statement and the end of the
//! transaction go to Postgres as one simple-query message, which Postgres answers once (the
//! extended protocol answers every `Sync`, so even pipelined it answers once per statement).
//!
//! The statement stays prepared: it runs as `EXECUTE r<n>(<literals>)` where `r<n>` is a
//! statement prepared with SQL `PREPARE`, in the same message and inside the same transaction the
//! first time a connection runs it (after the context, so the request's `search_path` resolves
//! its names and the caller role's `statement_timeout` bounds its parse analysis, as a `Parse`
//! inside the transaction did). Values go in as `E'...'` literals, which Postgres reads with the
//! type it inferred for each `$n`, exactly as it reads text-format bind parameters; a value
//! holding a NUL byte cannot be written in a message, and [`inlinable`] says so beforehand.
//!
//! A statement text keeps its name for the life of the process, and each connection remembers
//! which names it has prepared. When the database says otherwise (a pooler handed the
//! transaction to another server connection, or the statement was deallocated) the message is
//! sent again with or without the `PREPARE`. Both maps are bounded: past [`MAX_TEXTS`] statement
//! texts the names start over at fresh numbers, and a connection holding [`MAX_PER_CONNECTION`]
//! statements deallocates them.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, Mutex, PoisonError, Weak};

use deadpool_postgres::{Object, StatementCache};
use futures_util::{pin_mut, TryStreamExt};
use tokio_postgres::{SimpleQueryMessage, SimpleQueryRow};

use super::context::{Access, End, Unit};
use super::escaped_literal;

/// Statement texts given a name before the names start over.
const MAX_TEXTS: usize = 10_000;
/// Statements a connection keeps prepared before it deallocates them.
const MAX_PER_CONNECTION: usize = 1_000;

/// `duplicate_prepared_statement` and `invalid_sql_statement_name` (no such prepared statement).
const ALREADY_PREPARED: &str = "42P05";
const NOT_PREPARED: &str = "26000";

/// How the transaction ends in the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// `COMMIT` or `ROLLBACK` as the unit says, in the same message.
    InMessage,
    /// Left open: the caller decides on the statement's rows, then calls [`end`].
    Open,
}

/// Whether these values can be written as literals (none holds a NUL byte).
pub fn inlinable<'a>(mut params: impl Iterator<Item = Option<&'a str>>) -> bool {
    params.all(|p| !p.is_some_and(|v| v.contains('\0')))
}

/// Run `text` with `params` as the caller in one message; the statement's rows, as text.
pub async fn run(
    client: &Object,
    unit: &Unit<'_>,
    text: &str,
    params: &[Option<&str>],
    ending: Ending,
) -> Result<Vec<SimpleQueryRow>, tokio_postgres::Error> {
    let name = name_of(text);
    let mut prepare = !connection_has(client, name);
    let mut retried = false;
    loop {
        let message = message(unit, text, name, params, prepare, ending);
        match send(client, &message, unit.extra.is_some(), prepare).await {
            Ok(rows) => {
                if prepare {
                    remember(client, name).await;
                }
                return Ok(rows);
            }
            Err((err, prepared_now)) => {
                let _ = client.batch_execute("ROLLBACK").await;
                if prepared_now {
                    remember(client, name).await;
                }
                if retried {
                    return Err(err);
                }
                match err.code().map(|c| c.code()) {
                    Some(NOT_PREPARED) if !prepare => {
                        forget(client, name);
                        prepare = true;
                    }
                    Some(ALREADY_PREPARED) if prepare => {
                        remember(client, name).await;
                        prepare = false;
                    }
                    _ => return Err(err),
                }
                retried = true;
            }
        }
    }
}

/// [`run`] leaving the transaction open: the caller looks at the rows, then ends it with
/// [`OpenTransaction::end`]. Dropped without that, it rolls back.
pub async fn run_open(
    client: Object,
    unit: &Unit<'_>,
    text: &str,
    params: &[Option<&str>],
) -> Result<(Vec<SimpleQueryRow>, OpenTransaction), tokio_postgres::Error> {
    let mut open = OpenTransaction { client: Some(client) };
    let client = open.client.as_ref().expect("set above");
    match run(client, unit, text, params, Ending::Open).await {
        Ok(rows) => Ok((rows, open)),
        Err(err) => {
            // `run` rolled back already.
            open.client = None;
            Err(err)
        }
    }
}

/// A transaction [`run_open`] left open on its connection.
pub struct OpenTransaction {
    client: Option<Object>,
}

impl OpenTransaction {
    /// Commit or roll back.
    pub async fn end(mut self, end: End) -> Result<(), tokio_postgres::Error> {
        let Some(client) = self.client.take() else { return Ok(()) };
        match end {
            End::Commit => client.batch_execute("COMMIT").await,
            End::Rollback => client.batch_execute("ROLLBACK").await,
        }
    }
}

impl Drop for OpenTransaction {
    /// Not ended (an early return, a cancelled request): roll back before the connection goes back
    /// to the pool, so the next request on it does not run inside this transaction.
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            tokio::spawn(async move {
                let _ = client.batch_execute("ROLLBACK").await;
            });
        }
    }
}

/// The whole message.
fn message(unit: &Unit<'_>, text: &str, name: u64, params: &[Option<&str>], prepare: bool, ending: Ending) -> String {
    let Unit { caller, request, access, extra, end } = *unit;
    let mut sql = String::with_capacity(256 + text.len() * usize::from(prepare));
    sql.push_str(if access == Access::ReadOnly { "BEGIN READ ONLY;" } else { "BEGIN;" });
    // One statement sets everything; `num_nulls` answers one small number instead of echoing
    // the values back.
    sql.push_str("SELECT num_nulls(set_config('role',");
    sql.push_str(&escaped_literal(&caller.role));
    sql.push_str(",true),set_config('request.jwt.claims',");
    sql.push_str(&escaped_literal(&caller.claims.to_string()));
    sql.push_str(",true),set_config('request.method',");
    sql.push_str(&escaped_literal(&request.method));
    sql.push_str(",true),set_config('request.path',");
    sql.push_str(&escaped_literal(&request.path));
    sql.push_str(",true),set_config('request.headers',");
    sql.push_str(&escaped_literal(&request.headers.to_string()));
    sql.push_str(",true)");
    for (key, value) in &request.settings {
        sql.push_str(",set_config(");
        sql.push_str(&escaped_literal(key));
        sql.push(',');
        sql.push_str(&escaped_literal(value));
        sql.push_str(",true)");
    }
    sql.push_str(");");
    if let Some(extra) = extra {
        sql.push_str(extra);
        sql.push(';');
    }
    if prepare {
        sql.push_str(&format!("PREPARE r{name} AS "));
        sql.push_str(text);
        sql.push(';');
    }
    sql.push_str(&format!("EXECUTE r{name}"));
    if !params.is_empty() {
        sql.push('(');
        for (i, param) in params.iter().enumerate() {
            if i > 0 {
                sql.push(',');
            }
            match param {
                Some(value) => sql.push_str(&escaped_literal(value)),
                None => sql.push_str("NULL"),
            }
        }
        sql.push(')');
    }
    if ending == Ending::InMessage {
        sql.push_str(if end == End::Commit { ";COMMIT" } else { ";ROLLBACK" });
    }
    sql
}

/// Send the message; the `EXECUTE`'s rows. On an error, also whether the `PREPARE` had
/// completed before it.
async fn send(
    client: &Object,
    message: &str,
    extra: bool,
    prepare: bool,
) -> Result<Vec<SimpleQueryRow>, (tokio_postgres::Error, bool)> {
    // Statements before the EXECUTE: BEGIN, the context, the pre-request call, the PREPARE.
    let execute_index = 2 + usize::from(extra) + usize::from(prepare);
    let prepare_index = execute_index - 1;
    let mut completed = 0;
    let stream = client.simple_query_raw(message).await.map_err(|e| (e, false))?;
    pin_mut!(stream);
    let mut rows = Vec::new();
    loop {
        match stream.try_next().await {
            Ok(Some(SimpleQueryMessage::Row(row))) if completed == execute_index => rows.push(row),
            Ok(Some(SimpleQueryMessage::CommandComplete(_))) => completed += 1,
            Ok(Some(_)) => {}
            Ok(None) => return Ok(rows),
            Err(err) => return Err((err, prepare && completed > prepare_index)),
        }
    }
}

/// Names given to statement texts, for the life of the process.
struct Names {
    by_text: HashMap<String, u64>,
    next: u64,
}

static NAMES: LazyLock<Mutex<Names>> = LazyLock::new(|| Mutex::new(Names { by_text: HashMap::new(), next: 1 }));

fn name_of(text: &str) -> u64 {
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&name) = names.by_text.get(text) {
        return name;
    }
    if names.by_text.len() >= MAX_TEXTS {
        names.by_text.clear();
    }
    let name = names.next;
    names.next += 1;
    names.by_text.insert(text.to_string(), name);
    name
}

/// What one connection has prepared, keyed by its statement cache (one per connection, alive as
/// long as the connection).
struct Prepared {
    owner: Weak<StatementCache>,
    names: HashSet<u64>,
}

static PREPARED: LazyLock<Mutex<HashMap<usize, Prepared>>> = LazyLock::new(|| Mutex::new(HashMap::new()));

fn key(client: &Object) -> usize {
    Arc::as_ptr(&client.statement_cache) as usize
}

fn connection_has(client: &Object, name: u64) -> bool {
    let prepared = PREPARED.lock().unwrap_or_else(PoisonError::into_inner);
    prepared
        .get(&key(client))
        .is_some_and(|p| Weak::ptr_eq(&p.owner, &Arc::downgrade(&client.statement_cache)) && p.names.contains(&name))
}

fn forget(client: &Object, name: u64) {
    let mut prepared = PREPARED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(p) = prepared.get_mut(&key(client)) {
        p.names.remove(&name);
    }
}

/// Record that this connection has `name` prepared; past the bound, deallocate what it holds.
async fn remember(client: &Object, name: u64) {
    let full = {
        let mut prepared = PREPARED.lock().unwrap_or_else(PoisonError::into_inner);
        let owner = Arc::downgrade(&client.statement_cache);
        let key = key(client);
        let stale = prepared.get(&key).is_none_or(|p| !Weak::ptr_eq(&p.owner, &owner));
        if stale {
            // A new connection (maybe where a closed one lived): drop what closed ones left.
            prepared.retain(|_, p| p.owner.strong_count() > 0);
            prepared.insert(key, Prepared { owner, names: HashSet::new() });
        }
        let entry = prepared.get_mut(&key).expect("inserted above");
        entry.names.insert(name);
        if entry.names.len() >= MAX_PER_CONNECTION {
            Some(std::mem::take(&mut entry.names))
        } else {
            None
        }
    };
    if let Some(names) = full {
        let sql: String = names.iter().map(|n| format!("DEALLOCATE r{n};")).collect();
        if let Err(err) = client.batch_execute(&sql).await {
            tracing::warn!(error = %err, "could not deallocate a connection's statements");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_with_nul_bytes_are_not_inlinable() {
        assert!(inlinable([Some("a'b\\c"), None].into_iter()));
        assert!(!inlinable([Some("a\0b")].into_iter()));
    }

    #[test]
    fn a_text_keeps_its_name_and_another_text_gets_another() {
        let a = name_of("select 1 -- one_trip test a");
        let b = name_of("select 1 -- one_trip test b");
        assert_ne!(a, b);
        assert_eq!(a, name_of("select 1 -- one_trip test a"));
    }
}
