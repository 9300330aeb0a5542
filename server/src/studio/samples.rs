//! The reports' sampler: one task per server instance that every `REPORTS_SAMPLE_SECS` reads
//! the figures of `figures` (database connections by state, cache hit ratio, bytes per storage
//! bucket) and the realtime sockets open on this instance, and writes them into
//! `_studio.metric_samples`, one row per figure, then deletes the samples older than `KEEP_DAYS`.
//!
//! A round whose figures are those of the last round written ([`Round::same`]) is not written,
//! unless that one is [`KEYFRAME`] old: the table is unlogged, but an insert still takes a
//! transaction id and writes its commit to the WAL, and a commit a minute made an idle server
//! switch (and archive) a 16 MB WAL segment a minute (`archive_timeout`). The reports carry an
//! instance's last round forward over the rounds it did not write (`report_history`). It only
//! writes samples. A failed round is logged and the next one tried; the task never stops the
//! server.

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

/// The longest time a round equal to the last one written goes unwritten: the reports carry a
/// round forward this long (plus two rounds) at most, so an instance that stopped leaves the
/// charts within the hour.
pub const KEYFRAME: Duration = Duration::from_secs(3600);

/// How close two cache hit ratios are to count as the same (every query moves it a little).
const RATIO_STEP: f64 = 1e-3;

/// One round's figures: (name, key, value), in the order they were read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Round(pub Vec<(&'static str, String, f64)>);

impl Round {
    /// Whether `other` tells the same figures: the same names and keys, the same values (the
    /// cache hit ratio within [`RATIO_STEP`]).
    pub fn same(&self, other: &Round) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().zip(&other.0).all(|((name, key, value), (other_name, other_key, other_value))| {
                let close = if *name == "cache_hit_ratio" {
                    (value - other_value).abs() < RATIO_STEP
                } else {
                    value == other_value
                };
                name == other_name && key == other_key && close
            })
    }
}

/// What the sampler remembers of the last round it wrote.
#[derive(Debug, Default)]
struct Written(Option<(Round, std::time::Instant)>);

impl Written {
    /// Whether `round` must be written now.
    fn due(&self, round: &Round) -> bool {
        match &self.0 {
            Some((last, at)) => !last.same(round) || at.elapsed() >= KEYFRAME,
            None => true,
        }
    }
}

/// Start the sampler on the current runtime; nothing when `every_secs` is 0.
pub fn spawn(every_secs: u64, pool: Pool, realtime: Arc<Realtime>) {
    if every_secs == 0 {
        return;
    }
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(every_secs));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut written = Written::default();
        loop {
            tick.tick().await;
            let sockets = realtime.connections.load(Ordering::Relaxed);
            match pool.get().await {
                Ok(client) => {
                    let round = match read(&client, sockets).await {
                        Ok(round) => round,
                        Err(err) => {
                            tracing::warn!(error = %err, "reports: the figures were not read");
                            continue;
                        }
                    };
                    if !written.due(&round) {
                        continue;
                    }
                    match write(&client, &realtime.relay.instance, &round).await {
                        Ok(()) => written.0 = Some((round, std::time::Instant::now())),
                        Err(err) => tracing::warn!(error = %err, "reports: a sample was not written"),
                    }
                }
                Err(err) => tracing::warn!(error = %err, "reports: no connection to sample"),
            }
        }
    });
}

/// One round's figures, with `sockets` realtime sockets open on this instance.
pub async fn read(db: &impl GenericClient, sockets: usize) -> Result<Round, tokio_postgres::Error> {
    let mut rows: Vec<(&'static str, String, f64)> = Vec::new();
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
    Ok(Round(rows))
}

/// Write `round` as rows of `instance` and prune the old rows.
pub async fn write(db: &impl GenericClient, instance: &str, round: &Round) -> Result<(), tokio_postgres::Error> {
    let names: Vec<&str> = round.0.iter().map(|r| r.0).collect();
    let keys: Vec<&str> = round.0.iter().map(|r| r.1.as_str()).collect();
    let values: Vec<f64> = round.0.iter().map(|r| r.2).collect();
    db.execute(INSERT, &[&instance, &names, &keys, &values]).await?;
    db.execute(PRUNE, &[&KEEP_DAYS]).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(connections: f64, ratio: f64, bucket: Option<(&str, f64)>) -> Round {
        let mut rows =
            vec![("db_connections", "idle".to_string(), connections), ("cache_hit_ratio", String::new(), ratio)];
        rows.extend(bucket.map(|(key, bytes)| ("storage_bytes", key.to_string(), bytes)));
        rows.push(("realtime_connections", String::new(), 0.0));
        Round(rows)
    }

    #[test]
    fn a_round_equal_to_the_last_written_is_not_written_until_the_keyframe() {
        let first = round(3.0, 0.9912, Some(("avatars", 10.0)));
        let mut written = Written::default();
        assert!(written.due(&first), "the first round is written");
        written.0 = Some((first.clone(), std::time::Instant::now()));

        assert!(!written.due(&round(3.0, 0.9915, Some(("avatars", 10.0)))), "the ratio moved less than the step");
        assert!(written.due(&round(3.0, 0.9935, Some(("avatars", 10.0)))), "the ratio moved");
        assert!(written.due(&round(4.0, 0.9912, Some(("avatars", 10.0)))), "a connection more");
        assert!(written.due(&round(3.0, 0.9912, Some(("avatars", 11.0)))), "a byte more");
        assert!(written.due(&round(3.0, 0.9912, Some(("docs", 10.0)))), "another bucket");
        assert!(written.due(&round(3.0, 0.9912, None)), "a bucket gone");

        let old = std::time::Instant::now().checked_sub(KEYFRAME).expect("an hour ago");
        written.0 = Some((first.clone(), old));
        assert!(written.due(&first), "the same figures an hour later");
    }
}
