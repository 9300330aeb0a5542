//! Read replicas (`DATABASE_READ_URL`): `/rest/v1` requests whose transaction is read-only (GET
//! and HEAD, and calls of stable or immutable functions) run on a replica's request pool, taken in
//! turn; everything else, and every surface but REST, stays on the primary.
//!
//! A replica is in rotation while it answers and its replay lags the WAL it has received by at
//! most `DATABASE_READ_MAX_LAG_SECONDS` (checked every second); one that fails to give a
//! connection is taken out at once and its request goes to the primary. Read-your-writes: after
//! a write, the same caller (its `sub`, else its role) reads from the primary for that many
//! seconds. The marker lives in this instance's memory, and in a cookie on the write's answer
//! for clients that keep cookies, so another instance honours it too.

use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::Pool;
use secrecy::{ExposeSecret, SecretString};

use super::{PoolError, AUTHENTICATOR};

/// The cookie that marks a client that wrote recently.
pub const WROTE_COOKIE: &str = "sb-read-primary";

/// How often each replica's state is checked.
const CHECK_EVERY: Duration = Duration::from_secs(1);

struct Member {
    pool: Pool,
    /// `host:port/db`, for logs (never the password).
    label: String,
    healthy: AtomicBool,
}

/// The replicas of the primary, and who wrote recently.
pub struct Replicas {
    members: Vec<Member>,
    next: AtomicUsize,
    writers: moka::sync::Cache<String, ()>,
    /// Longest accepted replay lag, and how long a writer reads from the primary.
    pub max_lag: Duration,
}

impl Replicas {
    /// One request pool (as `authenticator`) per replica URL; none gives an empty set.
    pub fn new(
        urls: &[SecretString],
        authenticator_password: &str,
        size: usize,
        max_lag: Duration,
    ) -> Result<Replicas, PoolError> {
        let mut members = Vec::with_capacity(urls.len());
        for url in urls.iter().filter(|u| !u.expose_secret().trim().is_empty()) {
            let mut cfg = tokio_postgres::Config::from_str(url.expose_secret())
                .map_err(|e| PoolError::Url(format!("DATABASE_READ_URL: {e}")))?;
            let label = format!(
                "{}/{}",
                cfg.get_hosts()
                    .first()
                    .map(|h| match h {
                        tokio_postgres::config::Host::Tcp(host) => host.clone(),
                        tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
                    })
                    .unwrap_or_default(),
                cfg.get_dbname().unwrap_or_default()
            );
            cfg.user(AUTHENTICATOR).password(authenticator_password).application_name("server-replica");
            members.push(Member { pool: super::request_pool(cfg, size)?, label, healthy: AtomicBool::new(true) });
        }
        Ok(Replicas {
            members,
            next: AtomicUsize::new(0),
            writers: moka::sync::Cache::builder().max_capacity(100_000).time_to_live(max_lag).build(),
            max_lag,
        })
    }

    /// No replica: everything on the primary.
    pub fn none() -> Replicas {
        Replicas {
            members: Vec::new(),
            next: AtomicUsize::new(0),
            writers: moka::sync::Cache::new(0),
            max_lag: Duration::ZERO,
        }
    }

    /// Whether any replica is configured.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// A connection from the next healthy replica; `None` when none is (use the primary). A
    /// replica that cannot give one is taken out of rotation.
    pub async fn connection(&self) -> Option<deadpool_postgres::Object> {
        let n = self.members.len();
        for _ in 0..n {
            let member = &self.members[self.next.fetch_add(1, Ordering::Relaxed) % n];
            if !member.healthy.load(Ordering::Relaxed) {
                continue;
            }
            match member.pool.get().await {
                Ok(client) => return Some(client),
                Err(err) => {
                    tracing::warn!(replica = %member.label, error = %err, "replica out of rotation: no connection");
                    member.healthy.store(false, Ordering::Relaxed);
                }
            }
        }
        None
    }

    /// Each replica's label, whether it is in rotation, and its pool (for metrics).
    pub fn members(&self) -> impl Iterator<Item = (&str, bool, &Pool)> {
        self.members.iter().map(|m| (m.label.as_str(), m.healthy.load(Ordering::Relaxed), &m.pool))
    }

    /// Note that `caller` wrote: it reads from the primary for `max_lag`.
    pub fn wrote(&self, caller: &str) {
        self.writers.insert(caller.to_string(), ());
    }

    /// Whether `caller` wrote within `max_lag`.
    pub fn wrote_recently(&self, caller: &str) -> bool {
        self.writers.contains_key(caller)
    }

    /// Check every replica each second, for as long as the runtime lives.
    pub fn spawn_checks(self: &Arc<Self>) {
        if self.is_empty() {
            return;
        }
        let replicas = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(CHECK_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(replicas) = replicas.upgrade() else { return };
                for member in &replicas.members {
                    let healthy = tokio::time::timeout(CHECK_EVERY * 2, lag(&member.pool))
                        .await
                        .ok()
                        .and_then(Result::ok)
                        .is_some_and(|lag| lag <= replicas.max_lag.as_secs_f64());
                    if member.healthy.swap(healthy, Ordering::Relaxed) != healthy {
                        if healthy {
                            tracing::info!(replica = %member.label, "replica back in rotation");
                        } else {
                            tracing::warn!(replica = %member.label, "replica out of rotation: down or lagging");
                        }
                    }
                }
            }
        });
    }
}

/// Seconds the replica's replay is behind what it has received (0 when it has replayed it all,
/// or when it is not a standby at all).
async fn lag(pool: &Pool) -> Result<f64, String> {
    let client = pool.get().await.map_err(|e| e.to_string())?;
    let row = client
        .simple_query(
            "select case when not pg_is_in_recovery() then 0 \
               when pg_last_wal_receive_lsn() is not distinct from pg_last_wal_replay_lsn() then 0 \
               else coalesce(extract(epoch from now() - pg_last_xact_replay_timestamp()), 0) end::float8",
        )
        .await
        .map_err(|e| e.to_string())?;
    row.iter()
        .find_map(|m| match m {
            tokio_postgres::SimpleQueryMessage::Row(r) => r.get(0).and_then(|v| v.parse().ok()),
            _ => None,
        })
        .ok_or_else(|| "no answer".to_string())
}
