//! What `/metrics` says of backups: `backup_last_success_timestamp` (Unix seconds of the last
//! backup that finished), `backup_last_verify_ok` (1, 0, or -1 before any verification) and
//! `wal_archive_lag_seconds` (how long written WAL has waited for the archive; 0 when all of it
//! is archived).
//!
//! The same values, with the last verification's time, are `/health`'s `backups` object
//! (`summary`); a stale backup makes `/health/ready` fail only when `BACKUP_READY_MAX_AGE_SECONDS`
//! is set (`stale`).
//!
//! Process-wide values, set by the scheduler and the commands and read when `/metrics` is
//! scraped; this module runs nothing itself except the one `pg_stat_archiver` query.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use serde::Serialize;

static ACTIVE: AtomicBool = AtomicBool::new(false);
static ACTIVE_SINCE: AtomicI64 = AtomicI64::new(0);
static LAST_SUCCESS: AtomicI64 = AtomicI64::new(0);
static LAST_VERIFY: AtomicI64 = AtomicI64::new(-1);
static LAST_VERIFY_AT: AtomicI64 = AtomicI64::new(0);
static ARCHIVE_LAG: AtomicI64 = AtomicI64::new(0);

/// This process takes backups: the gauges are published.
pub fn activate() {
    if !ACTIVE.swap(true, Ordering::Relaxed) {
        ACTIVE_SINCE.store(chrono::Utc::now().timestamp(), Ordering::Relaxed);
    }
}

/// The backups' state as `/health` tells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Unix time of the last backup that finished (`None` before any).
    pub last_success: Option<i64>,
    /// Seconds since then (since the schedule started, before any backup).
    pub last_success_age_seconds: i64,
    pub wal_archive_lag_seconds: i64,
    /// Whether the last verification passed (`None` before any).
    pub last_verify_ok: Option<bool>,
    /// Unix time of the last verification.
    pub last_verify_at: Option<i64>,
}

/// The backups' state now, when this process takes backups.
pub fn summary(now: i64) -> Option<Summary> {
    if !ACTIVE.load(Ordering::Relaxed) {
        return None;
    }
    let last = LAST_SUCCESS.load(Ordering::Relaxed);
    let since = if last > 0 { last } else { ACTIVE_SINCE.load(Ordering::Relaxed) };
    let verify = LAST_VERIFY.load(Ordering::Relaxed);
    let verify_at = LAST_VERIFY_AT.load(Ordering::Relaxed);
    Some(Summary {
        last_success: (last > 0).then_some(last),
        last_success_age_seconds: (now - since).max(0),
        wal_archive_lag_seconds: ARCHIVE_LAG.load(Ordering::Relaxed),
        last_verify_ok: (verify >= 0).then_some(verify == 1),
        last_verify_at: (verify_at > 0).then_some(verify_at),
    })
}

/// Whether `summary` is stale for readiness: only when `max_age_secs` is set (not 0) and the
/// last backup (or the schedule's start, before any) is older than that.
pub fn stale(summary: &Summary, max_age_secs: u64) -> bool {
    max_age_secs > 0 && summary.last_success_age_seconds > max_age_secs as i64
}

/// A backup finished at `stop` (Unix seconds).
pub fn succeeded(stop: i64) {
    LAST_SUCCESS.fetch_max(stop, Ordering::Relaxed);
}

/// A verification ended at `at` (Unix seconds).
pub fn verified(ok: bool, at: i64) {
    LAST_VERIFY.store(i64::from(ok), Ordering::Relaxed);
    LAST_VERIFY_AT.store(at, Ordering::Relaxed);
}

/// The archive's lag as last measured.
pub fn archive_lag(seconds: i64) {
    ARCHIVE_LAG.store(seconds.max(0), Ordering::Relaxed);
}

/// Describe the gauges (with the other metrics, when `/metrics` is enabled).
pub fn describe() {
    metrics::describe_gauge!("backup_last_success_timestamp", "Unix time at which the last backup finished");
    metrics::describe_gauge!(
        "backup_last_verify_ok",
        "1 when the last verification of a backup passed, 0 when it failed, -1 before any"
    );
    metrics::describe_gauge!(
        "wal_archive_lag_seconds",
        "Seconds written WAL has waited for the archive (0: all archived)"
    );
}

/// Set the gauges (called when `/metrics` is scraped).
pub fn publish() {
    if !ACTIVE.load(Ordering::Relaxed) {
        return;
    }
    metrics::gauge!("backup_last_success_timestamp").set(LAST_SUCCESS.load(Ordering::Relaxed) as f64);
    metrics::gauge!("backup_last_verify_ok").set(LAST_VERIFY.load(Ordering::Relaxed) as f64);
    metrics::gauge!("wal_archive_lag_seconds").set(ARCHIVE_LAG.load(Ordering::Relaxed) as f64);
}

/// Measure the archive's lag: when WAL has been written past the end of the last archived
/// segment, the time since that segment was archived (or since the cluster started).
pub async fn measure_lag(client: &tokio_postgres::Client) -> Result<i64, tokio_postgres::Error> {
    let row = client
        .query_one(
            "select a.last_archived_wal, pg_current_wal_lsn()::text, \
             (select setting::bigint from pg_settings where name = 'wal_segment_size'), \
             extract(epoch from now() - coalesce(a.last_archived_time, pg_postmaster_start_time()))::bigint \
             from pg_stat_archiver a",
            &[],
        )
        .await?;
    let (archived, current, segment, since): (Option<String>, String, i64, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    let end = archived.as_deref().and_then(|w| segment_end(w, segment as u64)).unwrap_or(0);
    let lag = match parse_lsn(&current) {
        Some(lsn) if lsn > end => since,
        _ => 0,
    };
    archive_lag(lag);
    Ok(lag)
}

/// `16/B374D848` as a byte position.
pub fn parse_lsn(text: &str) -> Option<u64> {
    let (hi, lo) = text.split_once('/')?;
    Some((u64::from_str_radix(hi, 16).ok()? << 32) | u64::from_str_radix(lo, 16).ok()?)
}

/// The byte position just past WAL segment `name` (`TTTTTTTTXXXXXXXXYYYYYYYY`; a history or
/// backup file archived last gives none).
pub fn segment_end(name: &str, segment_size: u64) -> Option<u64> {
    if name.len() != 24 || segment_size == 0 {
        return None;
    }
    let log = u64::from_str_radix(name.get(8..16)?, 16).ok()?;
    let seg = u64::from_str_radix(name.get(16..24)?, 16).ok()?;
    Some((log << 32) + (seg + 1) * segment_size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_backup_fails_readiness_only_when_a_maximum_age_is_set() {
        let summary = Summary {
            last_success: Some(1_000),
            last_success_age_seconds: 7_200,
            wal_archive_lag_seconds: 0,
            last_verify_ok: None,
            last_verify_at: None,
        };
        assert!(!stale(&summary, 0), "unset: never");
        assert!(stale(&summary, 3_600));
        assert!(!stale(&summary, 86_400));
    }

    #[test]
    fn lsns_and_segment_names_become_byte_positions() {
        assert_eq!(parse_lsn("0/3000148"), Some(0x3000148));
        assert_eq!(parse_lsn("16/B374D848"), Some((0x16 << 32) | 0xB374D848));
        assert_eq!(parse_lsn("nope"), None);
        let mb16 = 16 * 1024 * 1024;
        assert_eq!(segment_end("000000010000000000000002", mb16), Some(3 * mb16));
        assert_eq!(segment_end("000000010000000100000000", mb16), Some((1 << 32) + mb16));
        assert_eq!(segment_end("00000002.history", mb16), None);
    }
}
