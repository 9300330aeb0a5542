//! A caller's statement in one round trip and one answer: `BEGIN`, the context (role, claims,
//! request facts, the role's settings), an optional pre-request call, the statement and the end
//! of the transaction reach Postgres together, and Postgres answers once.
//!
//! On connections that go through [`super::wire`] (the usual case) they are one extended-protocol
//! pipeline: each a statement prepared on the connection under its text's name, the context one
//! `select set_config(...)` whose values (and setting names) are bind parameters, one `Sync`. A
//! pipeline that commits leaves out `BEGIN` and `COMMIT`: what comes before a `Sync` is one
//! implicit transaction, which the `Sync` commits (or rolls back after an error), and a read-only
//! one sets `transaction_read_only` in the context statement instead of `BEGIN READ ONLY`. A
//! statement the connection lacks is closed and parsed in place, after the context like the rest,
//! so the request's `search_path` resolves its names and the caller role's `statement_timeout`
//! bounds its parse analysis. Values that cannot be sent ([`inlinable`]) are the callers' to avoid.
//!
//! Elsewhere (several hosts or TLS in the URL, or behind a transaction-mode pooler) they are one
//! simple-query message, the context as `SET LOCAL`s (tokio-postgres ends every extended-protocol
//! statement with a `Sync`, and Postgres answers each).
//!
//! In that message the statement stays prepared: it runs as `EXECUTE r<n>(<literals>)` where `r<n>` is a
//! statement prepared with SQL `PREPARE`, in the same message and inside the same transaction the
//! first time a connection runs it (after the context, so the request's `search_path` resolves
//! its names and the caller role's `statement_timeout` bounds its parse analysis, as a `Parse`
//! inside the transaction did). Values go in as `E'...'` literals, which Postgres reads with the
//! type it inferred for each `$n`, exactly as it reads text-format bind parameters; a value
//! holding a NUL byte cannot be written in a message, and [`inlinable`] says so beforehand.
//!
//! A statement's name is a hash of its text, the same in every process, and each connection
//! remembers which names it has prepared; a connection holding `MAX_PER_CONNECTION` statements
//! deallocates them. When the database says otherwise (a pooler handed the transaction to another
//! server connection, or the statement was deallocated) the message is sent again with or
//! without the `PREPARE`. Behind a transaction-mode pooler (`DB_PREPARED_STATEMENTS=false`) that
//! happens until every server connection has prepared the statement; the second try may reach
//! yet another server connection, so there it starts with `DEALLOCATE ALL` and prepares, which
//! cannot miss. Since a name is its text's hash, a statement another instance prepared on a
//! shared server connection is the same statement.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::{Arc, LazyLock, Mutex, OnceLock, PoisonError, Weak};

use deadpool_postgres::{ClientWrapper, Object, StatementCache};
use futures_util::{pin_mut, TryStreamExt};
use tokio_postgres::{SimpleQueryMessage, SimpleQueryRow};

use super::context::{Access, End, Unit};
use super::{push_escaped_literal, push_quoted_ident};

/// Statements a connection keeps prepared before it deallocates them (each holds its plans in
/// the connection's backend).
const MAX_PER_CONNECTION: usize = 200;

/// `duplicate_prepared_statement` and `invalid_sql_statement_name` (no such prepared statement).
const ALREADY_PREPARED: &str = "42P05";
const NOT_PREPARED: &str = "26000";
/// `in_failed_sql_transaction`: the connection was already in a failed transaction block when the
/// message came, so nothing of it ran. A request that opens its transaction with `BEGIN` (`Prefer:
/// tx=rollback`) and whose future is dropped before Postgres answers it with an error cannot roll
/// back, and its connection goes back to the pool in that state. (A client going away does not
/// drop it: actix runs the handler to its end. A panic caught around the handler would.) The
/// request that gets the connection next rolls back and sends its message again.
const IN_FAILED_TRANSACTION: &str = "25P02";

/// How the transaction ends in the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// `COMMIT` or `ROLLBACK` as the unit says, in the same message.
    InMessage,
    /// Left open: the caller decides on the statement's rows, then ends it ([`run_open`]).
    Open,
}

/// Whether these values can be written as literals (none holds a NUL byte).
pub fn inlinable<'a>(mut params: impl Iterator<Item = Option<&'a str>>) -> bool {
    params.all(|p| !p.is_some_and(|v| v.contains('\0')))
}

/// Whether [`run`] sends this transaction as a pipeline that ends it, which leaves its connection
/// ready for the next whatever happens, so that it may share a connection ([`super::lanes`]).
pub fn self_contained(unit: &Unit<'_>, text: &str, ending: Ending) -> bool {
    ending == Ending::InMessage && unit.end == End::Commit && pipelined(unit, text)
}

/// Whether [`run`] sends `text` as an extended-protocol pipeline ([`super::wire`]): it can be
/// written as a message (no NUL byte), and the connections carry pipelines.
fn pipelined(unit: &Unit<'_>, text: &str) -> bool {
    !text.contains('\0')
        && !unit.extra.is_some_and(|extra| extra.contains('\0'))
        && super::wire::available()
        && !super::cached::unnamed()
}

/// Run `text` with `params` as the caller in one round trip; the statement's rows, as text.
pub async fn run(
    client: &ClientWrapper,
    unit: &Unit<'_>,
    text: &str,
    params: &[Option<&str>],
    ending: Ending,
) -> Result<Vec<SimpleQueryRow>, tokio_postgres::Error> {
    // A text with a NUL byte cannot be written as a message: the simple query below reports it
    // without sending anything.
    if pipelined(unit, text) {
        return run_on_the_wire(client, unit, text, params, ending).await;
    }
    let name = name_of(text);
    let mut prepare = !connection_has(client, name);
    // Behind a pooler the retry may reach yet another server connection, which may or may not
    // hold the statement: it clears what that connection holds and prepares, which cannot miss.
    let pooled = super::cached::unnamed();
    let mut retried = false;
    loop {
        let (mut message, mut before) = message(unit, text, name, params, prepare, ending);
        if pooled && retried {
            message.insert_str(0, "DEALLOCATE ALL;");
            before += 1;
        }
        match send(client, &message, before, prepare).await {
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
                    Some(ALREADY_PREPARED) if prepare && !pooled => {
                        remember(client, name).await;
                        prepare = false;
                    }
                    Some(ALREADY_PREPARED) if prepare => {}
                    Some(IN_FAILED_TRANSACTION) => {}
                    _ => return Err(err),
                }
                retried = true;
            }
        }
    }
}

/// [`run`] as one extended-protocol pipeline ([`super::wire`]): every statement (`BEGIN` unless
/// the pipeline's own implicit transaction is enough, the context as one `SELECT set_config(...)`,
/// the pre-request call, the statement, the end unless implicit) a
/// statement prepared on the connection under its text's name, its values bind parameters, and
/// one `Sync`. A statement the connection has not prepared yet is closed (which is no error when
/// there is none) and parsed in place, so the statement itself is still parsed after the context.
async fn run_on_the_wire(
    client: &ClientWrapper,
    unit: &Unit<'_>,
    text: &str,
    params: &[Option<&str>],
    ending: Ending,
) -> Result<Vec<SimpleQueryRow>, tokio_postgres::Error> {
    // A pipeline that commits needs no `BEGIN` or `COMMIT`: its statements up to the `Sync` are
    // one implicit transaction, which the `Sync` commits, or rolls back after an error.
    let implicit = ending == Ending::InMessage && unit.end == End::Commit;
    let context = Context::of(unit, implicit && unit.access == Access::ReadOnly);
    let mut steps = Vec::with_capacity(5);
    if !implicit {
        steps.push(Step::new(unit.access.begin_sql(), Vec::new(), false));
    }
    steps.push(Step { text: &context.sql, name: context.name, values: context.values(), rows: false });
    if let Some(extra) = unit.extra {
        steps.push(Step::new(extra, Vec::new(), false));
    }
    let before = steps.len();
    steps.push(Step::new(text, params.to_vec(), true));
    if ending == Ending::InMessage && !implicit {
        steps.push(Step::new(unit.end.sql(), Vec::new(), false));
    }
    let mut retried = false;
    loop {
        let (messages, parsed) = pipeline(&steps, |name| !retried && connection_has(client, name));
        let pipeline = super::wire::Pipeline::register(messages);
        match send(client, &pipeline.marker(), before, false).await {
            Ok(rows) => {
                for name in parsed {
                    remember(client, name).await;
                }
                return Ok(rows);
            }
            Err((err, _)) => {
                let code = err.code().map(|c| c.code());
                // An implicit transaction ends at the `Sync`, error or not; an explicit one, or
                // one the connection was left in ([`IN_FAILED_TRANSACTION`]), is rolled back.
                if !implicit || code == Some(IN_FAILED_TRANSACTION) {
                    let _ = client.batch_execute("ROLLBACK").await;
                }
                // Whether what was parsed before the error is still there is not known: it is
                // closed and parsed again next time.
                for name in parsed {
                    forget(client, name);
                }
                // A statement this connection had prepared is gone (`DEALLOCATE` in SQL): prepare
                // them all again, once. Likewise once after a failed transaction left behind.
                if retried || !matches!(code, Some(NOT_PREPARED | IN_FAILED_TRANSACTION)) {
                    return Err(err);
                }
                retried = true;
            }
        }
    }
}

/// One statement of a pipeline: its text, its values, and whether its rows are wanted.
struct Step<'a> {
    text: &'a str,
    name: u64,
    values: Vec<Option<&'a str>>,
    rows: bool,
}

impl<'a> Step<'a> {
    fn new(text: &'a str, values: Vec<Option<&'a str>>, rows: bool) -> Step<'a> {
        Step { text, name: name_of(text), values, rows }
    }
}

/// The context as one statement: role, claims and request facts, then each of the request's
/// settings, every value (and setting name) a parameter, so that the text depends only on how
/// many settings there are.
struct Context<'a> {
    sql: Cow<'static, str>,
    name: u64,
    role: &'a str,
    claims: String,
    method: &'a str,
    path: &'a str,
    headers: String,
    settings: &'a [(String, String)],
    /// Whether the transaction is made read-only (`transaction_read_only`, set as one more setting).
    read_only: bool,
}

/// The context statement's text and name for each number of settings, made once.
static CONTEXT_SQL: [OnceLock<(String, u64)>; 32] = [const { OnceLock::new() }; 32];

/// The context statement for `settings` settings, and its name; past the table's size (a role
/// with that many settings is rare), made for the request.
fn context_sql(settings: usize) -> (Cow<'static, str>, u64) {
    let make = || {
        let mut sql = String::from(
            "select set_config('role',$1,true),set_config('request.jwt.claims',$2,true),\
             set_config('request.method',$3,true),set_config('request.path',$4,true),\
             set_config('request.headers',$5,true)",
        );
        for i in 0..settings {
            let _ = write!(sql, ",set_config(${},${},true)", 6 + 2 * i, 7 + 2 * i);
        }
        let name = name_of(&sql);
        (sql, name)
    };
    match CONTEXT_SQL.get(settings) {
        Some(cell) => {
            let (sql, name) = cell.get_or_init(make);
            (Cow::Borrowed(sql.as_str()), *name)
        }
        None => {
            let (sql, name) = make();
            (Cow::Owned(sql), name)
        }
    }
}

impl<'a> Context<'a> {
    fn of(unit: &Unit<'a>, read_only: bool) -> Context<'a> {
        let Unit { caller, request, .. } = *unit;
        let (sql, name) = context_sql(request.settings.len() + usize::from(read_only));
        Context {
            sql,
            name,
            role: &caller.role,
            claims: json_text(&caller.claims),
            method: &request.method,
            path: &request.path,
            headers: json_text(&request.headers),
            settings: &request.settings,
            read_only,
        }
    }

    fn values(&self) -> Vec<Option<&str>> {
        let mut values =
            vec![Some(self.role), Some(&self.claims), Some(self.method), Some(self.path), Some(&self.headers)];
        // First, so that a role's own setting of it comes after, as it did after `BEGIN READ ONLY`.
        if self.read_only {
            values.extend([Some("transaction_read_only"), Some("on")]);
        }
        for (key, value) in self.settings {
            values.push(Some(key));
            values.push(Some(value));
        }
        values
    }
}

/// The pipeline's messages, and the names it parses (those `prepared` says the connection lacks).
fn pipeline(steps: &[Step<'_>], prepared: impl Fn(u64) -> bool) -> (bytes::BytesMut, Vec<u64>) {
    use postgres_protocol::message::frontend;
    use postgres_protocol::IsNull;
    let size: usize = steps
        .iter()
        .map(|s| 64 + s.text.len() + s.values.iter().map(|v| 4 + v.map_or(0, str::len)).sum::<usize>())
        .sum();
    let mut buf = bytes::BytesMut::with_capacity(size);
    let mut parsed = Vec::new();
    let mut name = String::with_capacity(24);
    for step in steps {
        name.clear();
        let _ = write!(name, "r{}", step.name);
        // Writing to a BytesMut fails only on a NUL byte in a name or text, which [`run`] rules
        // out beforehand (a NUL byte in a value is sent, and refused by Postgres).
        if !prepared(step.name) && !parsed.contains(&step.name) {
            let _ = frontend::close(b'S', &name, &mut buf);
            let _ = frontend::parse(&name, step.text, std::iter::empty(), &mut buf);
            parsed.push(step.name);
        }
        let _ = frontend::bind(
            "",
            &name,
            std::iter::empty::<i16>(),
            step.values.iter(),
            |value, buf| match value {
                Some(v) => {
                    buf.extend_from_slice(v.as_bytes());
                    Ok(IsNull::No)
                }
                None => Ok(IsNull::Yes),
            },
            std::iter::empty::<i16>(),
            &mut buf,
        );
        if step.rows {
            let _ = frontend::describe(b'P', "", &mut buf);
        }
        let _ = frontend::execute("", 0, &mut buf);
    }
    frontend::sync(&mut buf);
    (buf, parsed)
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
        client.batch_execute(end.sql()).await
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

/// The whole message, and how many statements come before the `EXECUTE`.
fn message(
    unit: &Unit<'_>,
    text: &str,
    name: u64,
    params: &[Option<&str>],
    prepare: bool,
    ending: Ending,
) -> (String, usize) {
    let Unit { caller, request, access, extra, end } = *unit;
    let mut sql = String::with_capacity(512 + text.len() * usize::from(prepare));
    sql.push_str(access.begin_sql());
    sql.push(';');
    let mut before = 1;
    // `SET LOCAL` is a utility statement: parsed, never planned, which costs Postgres less than
    // a `SELECT set_config(...)` parsed and planned on every request. A setting whose value may
    // be a list goes through `set_config` (a quoted value would be one element for `SET`),
    // unless it is a list of identifiers that `SET` can take as written.
    set_local(&mut sql, "role", &caller.role);
    // serde_json's writer, not `Value`'s `Display` (which formats through `fmt::Write`).
    set_local(&mut sql, "request.jwt.claims", &json_text(&caller.claims));
    set_local(&mut sql, "request.method", &request.method);
    set_local(&mut sql, "request.path", &request.path);
    set_local(&mut sql, "request.headers", &json_text(&request.headers));
    before += 5;
    for (key, value) in &request.settings {
        if is_scalar(key) {
            set_local(&mut sql, key, value);
        } else if key.eq_ignore_ascii_case("search_path") && is_identifier_list(value) {
            sql.push_str("SET LOCAL search_path = ");
            sql.push_str(value);
            sql.push(';');
        } else {
            sql.push_str("SELECT set_config(");
            push_escaped_literal(&mut sql, key);
            sql.push(',');
            push_escaped_literal(&mut sql, value);
            sql.push_str(",true) IS NULL;");
        }
        before += 1;
    }
    if let Some(extra) = extra {
        sql.push_str(extra);
        sql.push(';');
        before += 1;
    }
    if prepare {
        let _ = write!(sql, "PREPARE r{name} AS ");
        sql.push_str(text);
        sql.push(';');
        before += 1;
    }
    let _ = write!(sql, "EXECUTE r{name}");
    if !params.is_empty() {
        sql.push('(');
        for (i, param) in params.iter().enumerate() {
            if i > 0 {
                sql.push(',');
            }
            match param {
                Some(value) => push_escaped_literal(&mut sql, value),
                None => sql.push_str("NULL"),
            }
        }
        sql.push(')');
    }
    if ending == Ending::InMessage {
        sql.push(';');
        sql.push_str(end.sql());
    }
    (sql, before)
}

/// Whether `value` is a comma-separated list of identifiers, each plain (lower-case letters,
/// digits, `_`, `$`) or double-quoted (`""` inside), so that it can be written after `SET`
/// as it is.
fn is_identifier_list(value: &str) -> bool {
    let mut chars = value.trim().chars().peekable();
    loop {
        while chars.peek() == Some(&' ') {
            chars.next();
        }
        match chars.next() {
            Some('"') => loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                    }
                    Some('"') => break,
                    Some('\0') | None => return false,
                    Some(_) => {}
                }
            },
            Some(c) if c.is_ascii_lowercase() || c == '_' => {
                while chars
                    .peek()
                    .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_' || *c == '$')
                {
                    chars.next();
                }
            }
            _ => return false,
        }
        while chars.peek() == Some(&' ') {
            chars.next();
        }
        match chars.next() {
            Some(',') => {}
            None => return true,
            Some(_) => return false,
        }
    }
}

/// `SET LOCAL "<key>" = E'<value>';`
fn set_local(sql: &mut String, key: &str, value: &str) {
    sql.push_str("SET LOCAL ");
    push_quoted_ident(sql, key);
    sql.push_str(" = ");
    push_escaped_literal(sql, value);
    sql.push(';');
}

/// A JSON value's text.
fn json_text(value: &serde_json::Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}

/// Whether `SET` reads a quoted value of this setting as `set_config` does: true for the
/// request's own settings and for scalar ones a role commonly sets; false for `search_path`
/// and any other setting that may take a list.
fn is_scalar(key: &str) -> bool {
    key.starts_with("request.")
        || matches!(
            key.to_ascii_lowercase().as_str(),
            "statement_timeout"
                | "lock_timeout"
                | "idle_in_transaction_session_timeout"
                | "work_mem"
                | "timezone"
                | "application_name"
                | "default_transaction_isolation"
        )
}

/// Send the message; the `EXECUTE`'s rows. On an error, also whether the `PREPARE` had
/// completed before it.
async fn send(
    client: &ClientWrapper,
    message: &str,
    execute_index: usize,
    prepare: bool,
) -> Result<Vec<SimpleQueryRow>, (tokio_postgres::Error, bool)> {
    // The PREPARE, when there is one, comes just before the EXECUTE.
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

/// A statement's name: a 64-bit hash of its text (SipHash with fixed keys). The same text has
/// the same name in every process, and two texts share one only by a 2^-64 chance, so
/// instances sharing server connections through a pooler never run each other's statements
/// under one name.
fn name_of(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// What one connection has prepared, keyed by its statement cache (one per connection, alive as
/// long as the connection).
struct Prepared {
    owner: Weak<StatementCache>,
    names: HashSet<u64>,
}

static PREPARED: LazyLock<Mutex<HashMap<usize, Prepared>>> = LazyLock::new(|| Mutex::new(HashMap::new()));

fn key(client: &ClientWrapper) -> usize {
    Arc::as_ptr(&client.statement_cache) as usize
}

fn connection_has(client: &ClientWrapper, name: u64) -> bool {
    let prepared = PREPARED.lock().unwrap_or_else(PoisonError::into_inner);
    prepared
        .get(&key(client))
        .is_some_and(|p| Weak::ptr_eq(&p.owner, &Arc::downgrade(&client.statement_cache)) && p.names.contains(&name))
}

fn forget(client: &ClientWrapper, name: u64) {
    let mut prepared = PREPARED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(p) = prepared.get_mut(&key(client)) {
        p.names.remove(&name);
    }
}

/// Record that this connection has `name` prepared; past the bound, deallocate what it holds.
async fn remember(client: &ClientWrapper, name: u64) {
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
    // Behind a pooler the statements live on server connections this one does not choose (the
    // pooler recycles them); forgetting them is all that can be done.
    if let Some(names) = full.filter(|_| !super::cached::unnamed()) {
        let sql: String = names.iter().map(|n| format!("DEALLOCATE r{n};")).collect();
        if let Err(err) = client.batch_execute(&sql).await {
            tracing::warn!(error = %err, "could not deallocate a connection's statements");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::context::{Access, Caller, RequestInfo};

    #[test]
    fn the_message_sets_the_context_prepares_executes_and_commits() {
        let caller = Caller {
            role: "authenticated".into(),
            claims: Arc::new(serde_json::json!({"sub": "u1", "name": "O'Brien \\o/"})),
        };
        let request = RequestInfo {
            method: "GET".into(),
            path: "/items".into(),
            headers: serde_json::json!({"x-note": "it's"}),
            settings: vec![
                ("statement_timeout".into(), "8s".into()),
                ("search_path".into(), r#""public", "extensions""#.into()),
                ("my.list".into(), "a, b".into()),
                ("request.odd\"key".into(), "v".into()),
            ],
        };
        let unit = Unit { caller: &caller, request: &request, access: Access::ReadOnly, extra: None, end: End::Commit };
        let (sql, before) = message(&unit, "select $1, $2", 7, &[Some(r"a'\b"), None], true, Ending::InMessage);
        assert_eq!(
            sql,
            r#"BEGIN READ ONLY;SET LOCAL "role" = E'authenticated';SET LOCAL "request.jwt.claims" = E'{"sub":"u1","name":"O''Brien \\\\o/"}';SET LOCAL "request.method" = E'GET';SET LOCAL "request.path" = E'/items';SET LOCAL "request.headers" = E'{"x-note":"it''s"}';SET LOCAL "statement_timeout" = E'8s';SET LOCAL search_path = "public", "extensions";SELECT set_config(E'my.list',E'a, b',true) IS NULL;SET LOCAL "request.odd""key" = E'v';PREPARE r7 AS select $1, $2;EXECUTE r7(E'a''\\b',NULL);COMMIT"#
        );
        assert_eq!(before, 11, "BEGIN, nine settings and the PREPARE come before the EXECUTE");
    }

    #[test]
    fn the_context_statement_has_two_parameters_per_setting_whatever_their_number() {
        let (two, name) = context_sql(2);
        assert!(two.ends_with("set_config('request.headers',$5,true),set_config($6,$7,true),set_config($8,$9,true)"));
        assert_eq!(name, name_of(&two));
        assert_eq!(context_sql(2), (two.clone(), name), "the same text and name from the table");
        let (many, name) = context_sql(40);
        assert!(many.starts_with(two.as_ref()) && many.ends_with(",set_config($84,$85,true)"));
        assert_eq!(name, name_of(&many));
    }

    #[test]
    fn values_with_nul_bytes_are_not_inlinable() {
        assert!(inlinable([Some("a'b\\c"), None].into_iter()));
        assert!(!inlinable([Some("a\0b")].into_iter()));
    }

    #[test]
    fn only_lists_of_identifiers_are_written_as_they_are() {
        assert!(is_identifier_list(r#""public", "extensions""#));
        assert!(is_identifier_list(r#""$user", public, x_1"#));
        assert!(is_identifier_list(r#""a ""quoted"", one""#));
        assert!(!is_identifier_list("public; drop table x"));
        assert!(!is_identifier_list(r#""unterminated"#));
        assert!(!is_identifier_list("Public"));
        assert!(!is_identifier_list(""));
        assert!(!is_identifier_list("a,"));
    }

    #[test]
    fn a_text_keeps_its_name_and_another_text_gets_another() {
        let a = name_of("select 1 -- one_trip test a");
        let b = name_of("select 1 -- one_trip test b");
        assert_ne!(a, b);
        assert_eq!(a, name_of("select 1 -- one_trip test a"));
    }
}
