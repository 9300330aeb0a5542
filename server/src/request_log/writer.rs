//! The task that writes the request log: it drains the channel every `REQUEST_LOG_FLUSH_MS`
//! into one `insert … select from unnest(…)` (one statement and one round trip per batch, the
//! values bound as arrays), and runs the retention once a minute. A failed write drops its
//! batch (counted as dropped) rather than holding entries while the database is away.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use deadpool_postgres::Pool;
use tokio::sync::mpsc;
use uuid::Uuid;

use super::{retention, Entry, RequestLog, RequestLogConfig};

/// Largest batch one insert carries.
const MAX_BATCH: usize = 5000;
/// How often old rows are pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(60);

const INSERT: &str = "insert into _studio.request_log \
     (at, surface, method, path, route, status, duration_ms, request_id, user_id, role, bytes) \
     select * from unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int2[], \
     $7::float8[], $8::text[], $9::uuid[], $10::text[], $11::int8[])";

/// Start the writer on the current runtime; `None` when the log is off.
pub fn spawn(config: &RequestLogConfig, pool: Pool) -> Option<RequestLog> {
    if !config.enabled {
        return None;
    }
    let (log, rx) = RequestLog::channel(config.buffer);
    let flush = Duration::from_millis(config.flush_ms.max(10));
    let limits = retention::Limits { max_age_hours: config.retention_hours, max_rows: config.max_rows };
    tokio::spawn(run(rx, pool, log.clone(), flush, limits));
    Some(log)
}

async fn run(mut rx: mpsc::Receiver<Entry>, pool: Pool, log: RequestLog, flush: Duration, limits: retention::Limits) {
    let mut batch = Vec::with_capacity(1024);
    let mut last_prune: Option<Instant> = None;
    let mut tick = tokio::time::interval(flush);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        loop {
            batch.clear();
            let closed = rx.is_closed() && rx.is_empty();
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(entry) => batch.push(entry),
                    Err(_) => break,
                }
            }
            if !batch.is_empty() {
                if let Err(err) = write(&pool, &batch).await {
                    tracing::warn!(error = %err, entries = batch.len(), "request log: a batch was not written");
                    log.count_dropped(batch.len() as u64);
                }
            }
            if closed {
                return;
            }
            if batch.len() < MAX_BATCH {
                break;
            }
        }
        if last_prune.is_none_or(|at| at.elapsed() >= PRUNE_EVERY) {
            last_prune = Some(Instant::now());
            match pool.get().await {
                Ok(client) => {
                    if let Err(err) = retention::prune(&client, limits).await {
                        tracing::warn!(error = %err, "request log: pruning failed");
                    }
                }
                Err(err) => tracing::warn!(error = %err, "request log: no connection to prune"),
            }
        }
    }
}

/// Insert a batch in one statement.
pub async fn write(pool: &Pool, batch: &[Entry]) -> Result<(), String> {
    let client = pool.get().await.map_err(|e| e.to_string())?;
    let columns = Columns::of(batch);
    client
        .execute(
            INSERT,
            &[
                &columns.at,
                &columns.surface,
                &columns.method,
                &columns.path,
                &columns.route,
                &columns.status,
                &columns.duration_ms,
                &columns.request_id,
                &columns.user_id,
                &columns.role,
                &columns.bytes,
            ],
        )
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}

/// A batch turned into one array per column.
struct Columns {
    at: Vec<DateTime<Utc>>,
    surface: Vec<&'static str>,
    method: Vec<String>,
    path: Vec<String>,
    route: Vec<Option<String>>,
    status: Vec<i16>,
    duration_ms: Vec<f64>,
    request_id: Vec<String>,
    user_id: Vec<Option<Uuid>>,
    role: Vec<Option<String>>,
    bytes: Vec<Option<i64>>,
}

impl Columns {
    fn of(batch: &[Entry]) -> Columns {
        Columns {
            at: batch.iter().map(|e| DateTime::<Utc>::from(e.at)).collect(),
            surface: batch.iter().map(|e| e.surface).collect(),
            method: batch.iter().map(|e| e.method.as_str().to_string()).collect(),
            path: batch.iter().map(|e| e.path.clone()).collect(),
            route: batch.iter().map(|e| e.route.clone()).collect(),
            status: batch.iter().map(|e| i16::try_from(e.status).unwrap_or(i16::MAX)).collect(),
            duration_ms: batch.iter().map(|e| e.duration_ms).collect(),
            request_id: batch.iter().map(|e| e.request_id.clone()).collect(),
            // A service key's `sub` is no user id: only a UUID is kept.
            user_id: batch.iter().map(|e| e.subject.as_deref().and_then(|s| Uuid::parse_str(s).ok())).collect(),
            role: batch.iter().map(|e| e.role.clone()).collect(),
            bytes: batch.iter().map(|e| e.bytes.and_then(|b| i64::try_from(b).ok())).collect(),
        }
    }
}
