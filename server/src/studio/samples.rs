//! The reports' sampler: one task per server instance that every `REPORTS_SAMPLE_SECS` writes
//! the figures of `figures` (database connections by state, cache hit ratio, bytes per storage
//! bucket) and the realtime sockets open on this instance into `_studio.metric_samples`, one row
//! per figure, then deletes the samples older than `KEEP_DAYS`. It only writes samples: the
//! reports read them (`report_history`). A failed round is logged and the next one tried; the
//! task never stops the server.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{GenericClient, Pool};

use super::figures;
use crate::realtime::Realtime;

/// Days of samples kept: the longest period of the reports.
pub const KEEP_DAYS: i32 = 7;

const INSERT: &str = "insert into _studio.metric_samples (at, instance, name, key, value) \
     select now(), $1, * from unnest($2::text[], $3::text[], $4::float8[])";

const PRUNE: &str = "delete from _studio.metric_samples where at < now() - make_interval(days => $1)";

/// Start the sampler on the current runtime; nothing when `every_secs` is 0.
pub fn spawn(every_secs: u64, pool: Pool, realtime: Arc<Realtime>) {
    if every_secs == 0 {
        return;
    }
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(every_secs));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let sockets = realtime.connections.load(Ordering::Relaxed);
            match pool.get().await {
                Ok(client) => {
                    if let Err(err) = sample(&client, &realtime.relay.instance, sockets).await {
                        tracing::warn!(error = %err, "reports: a sample was not written");
                    }
                }
                Err(err) => tracing::warn!(error = %err, "reports: no connection to sample"),
            }
        }
    });
}

/// One round: read the figures, write them as rows of `instance`, prune the old rows.
pub async fn sample(db: &impl GenericClient, instance: &str, sockets: usize) -> Result<(), tokio_postgres::Error> {
    let mut rows: Vec<(&str, String, f64)> = Vec::new();
    for (state, count) in figures::connections(db).await? {
        rows.push(("db_connections", state, count as f64));
    }
    if let Some(ratio) = figures::cache_hit_ratio(db).await? {
        rows.push(("cache_hit_ratio", String::new(), ratio));
    }
    for b in figures::storage(db).await? {
        rows.push(("storage_bytes", b.bucket, b.bytes as f64));
    }
    rows.push(("realtime_connections", String::new(), sockets as f64));
    let names: Vec<&str> = rows.iter().map(|r| r.0).collect();
    let keys: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    let values: Vec<f64> = rows.iter().map(|r| r.2).collect();
    db.execute(INSERT, &[&instance, &names, &keys, &values]).await?;
    db.execute(PRUNE, &[&KEEP_DAYS]).await?;
    Ok(())
}
