//! Postgres changes: bindings joined by clients, the instance's logical replication slot, and
//! delivery of each committed change to the subscribers allowed to see it.
//!
//! Each instance reads its own slot (`SLOT_NAME`), created on the first subscription with the
//! built-in `pgoutput` plugin over the publication `supabase_realtime`, and delivers to its
//! own sockets: a change reaches each subscriber exactly once whichever instance it uses. The
//! slot is streamed (`reader`) and its position confirmed only after delivery, so a restart
//! loses nothing committed meanwhile; for `REALTIME_RESUME_WINDOW_SECS` after start, what was
//! read is kept and replayed to subscribers that join then (clients reconnecting).
//!
//! The slot of an instance that died and never came back would hold WAL for ever: every
//! instance looks at the other instances' slots (`stale_slots`) and drops one that has been
//! inactive for `REALTIME_STALE_SLOT_SECS`.

pub mod binding;
pub mod decode;
mod deliver;
pub mod pgoutput;
mod reader;
mod stale_slots;
pub mod values;

use crate::db::cached::CachedQueries;
use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

use sha2::Digest;

use super::config::RealtimeConfig;
use super::hub::{Outbox, SocketId};
use super::Realtime;
use crate::db::context::Caller;
use binding::{Binding, Op};
pub use decode::Change;

/// One channel's postgres_changes bindings.
#[derive(Debug)]
pub struct Subscription {
    pub socket: SocketId,
    /// The channel's wire topic (`realtime:<name>`).
    pub topic: String,
    pub outbox: Outbox,
    pub caller: Caller,
    pub bindings: Vec<Binding>,
}

/// Registry of subscriptions and the reader's shared state.
pub struct Changes {
    pub slot: String,
    subscriptions: RwLock<HashMap<(SocketId, String), Arc<Subscription>>>,
    reader_started: tokio::sync::Mutex<bool>,
    started: Instant,
    resume_window: Duration,
    resume: Mutex<Vec<Arc<Change>>>,
    /// The end of the WAL when this process started with its slot already there: changes up to
    /// it were committed while the server was down, and only those are replayed. 0 (nothing to
    /// replay) when the slot is created by this process.
    backlog_end: OnceLock<u64>,
    /// The end of the last transaction delivered (or of WAL known to carry nothing to deliver):
    /// where the stream resumes after a lost connection, and at or before which a transaction
    /// Postgres sends again is skipped.
    pub delivered: AtomicU64,
    /// Transactions Postgres sent again after a lost connection and that were skipped.
    pub redelivered_skipped: AtomicU64,
    /// `logical_decoding_work_mem` of the streaming connection, in kB.
    decoding_work_mem_kb: u64,
    /// Seconds another instance's slot may stay inactive before it is dropped (0: never).
    stale_slot_secs: u64,
    /// (role, table oid) -> may select; role -> bypasses row-level security.
    privileges: moka::sync::Cache<(String, u32), bool>,
    bypass: moka::sync::Cache<String, bool>,
}

/// The default slot name: stable for one database and HTTP port, so a restarted instance finds
/// its slot, and distinct for instances on other ports or databases.
pub fn default_slot_name(database: &str, port: u16) -> String {
    let digest = sha2::Sha256::digest(format!("{database}:{port}").as_bytes());
    format!("supabase_realtime_{}", &hex::encode(digest)[..12])
}

impl Changes {
    pub fn new(slot: String, config: &RealtimeConfig) -> Changes {
        let ttl = Duration::from_secs(30);
        Changes {
            slot,
            subscriptions: RwLock::new(HashMap::new()),
            reader_started: tokio::sync::Mutex::new(false),
            started: Instant::now(),
            resume_window: Duration::from_secs(config.resume_window_secs),
            resume: Mutex::new(Vec::new()),
            backlog_end: OnceLock::new(),
            delivered: AtomicU64::new(0),
            redelivered_skipped: AtomicU64::new(0),
            decoding_work_mem_kb: config.decoding_work_mem_mb.max(1) * 1024,
            stale_slot_secs: config.stale_slot_secs,
            privileges: moka::sync::Cache::builder().max_capacity(100_000).time_to_live(ttl).build(),
            bypass: moka::sync::Cache::builder().max_capacity(10_000).time_to_live(ttl).build(),
        }
    }

    fn snapshot(&self) -> Vec<Arc<Subscription>> {
        self.subscriptions.read().unwrap_or_else(|e| e.into_inner()).values().cloned().collect()
    }

    /// Remove a channel's subscription.
    pub fn unsubscribe(&self, socket: SocketId, topic: &str) {
        self.subscriptions.write().unwrap_or_else(|e| e.into_inner()).remove(&(socket, topic.to_string()));
    }

    /// Replace the caller of a channel's subscription (a new access token).
    pub fn set_caller(&self, socket: SocketId, topic: &str, caller: &Caller) {
        let mut subs = self.subscriptions.write().unwrap_or_else(|e| e.into_inner());
        if let Some(sub) = subs.get_mut(&(socket, topic.to_string())) {
            let updated = Subscription {
                socket,
                topic: sub.topic.clone(),
                outbox: sub.outbox.clone(),
                caller: caller.clone(),
                bindings: sub.bindings.clone(),
            };
            *sub = Arc::new(updated);
        }
    }

    /// Keep, during the resume window, the changes committed before this process started
    /// reading; then give the subscriptions to deliver `changes` to. Both happen under one lock,
    /// so a subscription made meanwhile gets each change once: replayed or live.
    fn remember_and_snapshot(&self, changes: &[Arc<Change>]) -> Vec<Arc<Subscription>> {
        let mut kept = self.resume.lock().unwrap_or_else(|e| e.into_inner());
        if self.started.elapsed() < self.resume_window {
            let backlog_end = self.backlog_end.get().copied().unwrap_or(0);
            kept.extend(changes.iter().filter(|c| c.end_lsn <= backlog_end).cloned());
        } else if !kept.is_empty() {
            kept.clear();
            kept.shrink_to_fit();
        }
        self.snapshot()
    }
}

/// `X/Y` (hexadecimal halves) as a number.
pub fn parse_lsn(text: &str) -> Option<u64> {
    let (hi, lo) = text.split_once('/')?;
    Some((u64::from_str_radix(hi, 16).ok()? << 32) | u64::from_str_radix(lo, 16).ok()?)
}

/// Check a channel's bindings against the catalog, register them, and make sure the slot exists
/// and is read. The error is the reason to refuse the join.
pub async fn subscribe(rt: &Arc<Realtime>, sub: Subscription) -> Result<(), String> {
    validate(rt, &sub).await?;
    ensure_reader(rt).await?;
    let sub = Arc::new(sub);
    let kept = {
        let kept = rt.changes.resume.lock().unwrap_or_else(|e| e.into_inner());
        rt.changes
            .subscriptions
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert((sub.socket, sub.topic.clone()), sub.clone());
        kept.clone()
    };
    if !kept.is_empty() && rt.changes.started.elapsed() < rt.changes.resume_window {
        let rt = rt.clone();
        tokio::spawn(async move { deliver::deliver(&rt, &kept, vec![sub]).await });
    }
    Ok(())
}

fn unavailable(binding: &Binding) -> String {
    let filters: Vec<String> =
        binding.filters.iter().map(|f| format!("{{{}, {:?}, {}}}", f.column, f.op, f.values.join(","))).collect();
    format!(
        "Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect \
         parameters: [event: {}, schema: {}, table: {}, filters: [{}]]",
        binding.echo.get("event").and_then(|e| e.as_str()).unwrap_or("*"),
        binding.schema,
        binding.table.as_deref().unwrap_or("*"),
        filters.join(", ")
    )
}

async fn validate(rt: &Realtime, sub: &Subscription) -> Result<(), String> {
    let database = || "Realtime was unable to connect to the project database".to_string();
    let client = rt.pools.admin.get().await.map_err(|_| database())?;
    let role_ok: bool = client
        .cached_query_one("select pg_has_role('authenticator', $1, 'MEMBER')", &[&sub.caller.role])
        .await
        .map(|r| r.get(0))
        .unwrap_or(false);
    if !role_ok {
        return Err(format!("the role {} cannot be used for postgres_changes", sub.caller.role));
    }
    for binding in &sub.bindings {
        let Some(table) = &binding.table else {
            let n: i64 = client
                .cached_query_one(
                    "select count(*) from pg_publication_tables where pubname = 'supabase_realtime' \
                     and ($1 = '*' or schemaname = $1)",
                    &[&binding.schema],
                )
                .await
                .map_err(|_| database())?
                .get(0);
            if n == 0 {
                return Err(unavailable(binding));
            }
            continue;
        };
        let row = client
            .cached_query_opt(
                "select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace \
                 join pg_publication_tables p on p.pubname = 'supabase_realtime' \
                 and p.schemaname = n.nspname and p.tablename = c.relname \
                 where ($1 = '*' or n.nspname = $1) and c.relname = $2 limit 1",
                &[&binding.schema, table],
            )
            .await
            .map_err(|_| database())?;
        let Some(row) = row else { return Err(unavailable(binding)) };
        let oid: u32 = row.get(0);
        for filter in &binding.filters {
            let ty: Option<String> = client
                .cached_query_opt(
                    "select format_type(atttypid, atttypmod) from pg_attribute \
                     where attrelid = $1 and attname = $2 and attnum > 0 and not attisdropped",
                    &[&oid, &filter.column],
                )
                .await
                .map_err(|_| database())?
                .map(|r| r.get(0));
            let Some(ty) = ty else { return Err(format!("invalid column for filter {}", filter.column)) };
            if filter.op == Op::Is {
                continue;
            }
            // The type name comes from the catalog, the value is a bind parameter.
            let cast = format!("select $1::text::{ty}");
            for value in &filter.values {
                if let Err(err) = client.cached_query_one(&cast, &[value]).await {
                    let detail = err.as_db_error().map(|e| e.message().to_string()).unwrap_or_else(|| err.to_string());
                    return Err(format!("invalid value for filter {}: {detail}", filter.column));
                }
            }
        }
    }
    Ok(())
}

/// Create the slot if needed and start the reader once.
async fn ensure_reader(rt: &Arc<Realtime>) -> Result<(), String> {
    let mut started = rt.changes.reader_started.lock().await;
    if *started {
        return Ok(());
    }
    if create_slot(rt).await? {
        let _ = rt.changes.backlog_end.set(0);
    }
    reader::spawn(rt.clone());
    *started = true;
    Ok(())
}

/// Create this instance's slot unless it exists; true when it was created now.
async fn create_slot(rt: &Realtime) -> Result<bool, String> {
    let client = rt
        .pools
        .admin
        .get()
        .await
        .map_err(|e| format!("Realtime was unable to connect to the project database: {e}"))?;
    let exists = client
        .cached_query_opt("select 1 from pg_replication_slots where slot_name = $1", &[&rt.changes.slot])
        .await
        .map_err(|e| e.to_string())?
        .is_some();
    if exists {
        return Ok(false);
    }
    if let Err(err) =
        client.cached_query_one("select pg_create_logical_replication_slot($1, 'pgoutput')", &[&rt.changes.slot]).await
    {
        let detail = err.as_db_error().map(|e| e.message().to_string()).unwrap_or_else(|| err.to_string());
        tracing::error!(slot = %rt.changes.slot, error = %detail, "realtime: cannot create the replication slot");
        return Err(format!("Unable to read changes from the database: {detail}"));
    }
    tracing::info!(slot = %rt.changes.slot, "realtime: replication slot created");
    Ok(true)
}

/// At start: when this instance's slot already exists (a restart), read it at once so changes
/// committed while the server was down reach subscribers that come back.
pub async fn resume_if_slot_exists(rt: Arc<Realtime>) {
    let Ok(client) = rt.pools.admin.get().await else { return };
    let exists = client
        .cached_query_opt("select 1 from pg_replication_slots where slot_name = $1", &[&rt.changes.slot])
        .await
        .ok()
        .flatten()
        .is_some();
    if exists {
        let end: Option<String> =
            client.cached_query_one("select pg_current_wal_lsn()::text", &[]).await.ok().map(|r| r.get(0));
        let _ = rt.changes.backlog_end.set(end.as_deref().and_then(parse_lsn).unwrap_or(0));
    }
    drop(client);
    stale_slots::spawn(rt.clone(), rt.changes.stale_slot_secs);
    if exists {
        if let Err(err) = ensure_reader(&rt).await {
            tracing::warn!(error = %err, "realtime: could not resume reading the replication slot");
        }
    }
}
