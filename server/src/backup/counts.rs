//! Row counts recorded when a backup is taken, and compared when it is verified.
//!
//! A backup's own end is a point no query can see, so the counts are taken at a point of their
//! own: right after the backup, every table is locked against writes (`SHARE` mode, which waits
//! for the writes under way and lets reads go on), counted, and a named restore point is written
//! (`pg_create_restore_point`) before the locks go. A restore to that point has exactly the
//! counted rows; `verify` restores there and compares every table. Writes wait while the tables
//! are counted (the time of a `count(*)` of each); when the locks cannot be had within
//! `LOCK_WAIT`, no counts are recorded and the verification says so instead of comparing.
//!
//! Unlogged tables are left out: a restore leaves them empty.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use tokio_postgres::Client;

use super::files::Counts;
use super::BackupError;

/// Longest wait for the locks of every table.
const LOCK_WAIT: &str = "10s";

/// The tables counted: logged, ordinary, outside the catalogues.
const TABLES: &str = "select format('%I.%I', n.nspname, c.relname) from pg_class c \
     join pg_namespace n on n.oid = c.relnamespace \
     where c.relkind = 'r' and c.relpersistence = 'p' \
     and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%' order by 1";

/// The restore point of backup `label`.
pub fn point_name(label: &str) -> String {
    format!("backup-{label}")
}

/// Count every table at a new restore point named for `label`, then switch to a new WAL
/// segment and wait (up to `archive_wait`) until it is archived, so the point can be reached.
pub async fn record(client: &Client, label: &str, archive_wait: Duration) -> Result<Counts, BackupError> {
    let db = |e: tokio_postgres::Error| BackupError::Database(format!("cannot count the rows at backup time: {e}"));
    client.batch_execute("begin").await.map_err(db)?;
    let counted = count_locked(client, label).await;
    let ended = client.batch_execute(if counted.is_ok() { "commit" } else { "rollback" }).await;
    let counts = counted?;
    ended.map_err(db)?;
    let row = client.query_one("select pg_walfile_name(pg_switch_wal())", &[]).await.map_err(db)?;
    let segment: String = row.get(0);
    let deadline = Instant::now() + archive_wait;
    loop {
        let row =
            client.query_one("select coalesce(last_archived_wal, '') from pg_stat_archiver", &[]).await.map_err(db)?;
        let archived: String = row.get(0);
        if archived.len() == 24 && archived[8..] >= segment[8..] {
            return Ok(counts);
        }
        if Instant::now() > deadline {
            tracing::warn!(segment, "backups: the WAL of the counts' restore point is not archived yet");
            return Ok(counts);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn count_locked(client: &Client, label: &str) -> Result<Counts, BackupError> {
    let db = |e: tokio_postgres::Error| BackupError::Database(format!("cannot count the rows at backup time: {e}"));
    client.batch_execute(&format!("set local lock_timeout = '{LOCK_WAIT}'")).await.map_err(db)?;
    let names: Vec<String> = client.query(TABLES, &[]).await.map_err(db)?.iter().map(|r| r.get(0)).collect();
    if !names.is_empty() {
        // The names come from the catalogue, quoted by format('%I.%I').
        client.batch_execute(&format!("lock table {} in share mode", names.join(", "))).await.map_err(db)?;
    }
    let mut tables = BTreeMap::new();
    for name in names {
        let row = client.query_one(&format!("select count(*) from {name}"), &[]).await.map_err(db)?;
        tables.insert(name, row.get::<_, i64>(0));
    }
    let point = point_name(label);
    client.query_one("select pg_create_restore_point($1)::text", &[&point]).await.map_err(db)?;
    Ok(Counts { point, tables })
}

/// Every table of the restored database and its rows.
pub async fn count_all(client: &Client) -> Result<BTreeMap<String, Result<i64, String>>, BackupError> {
    let names = client.query(TABLES, &[]).await.map_err(|e| BackupError::Database(e.to_string()))?;
    let mut tables = BTreeMap::new();
    for row in names {
        let name: String = row.get(0);
        let count = client
            .query_one(&format!("select count(*) from {name}"), &[])
            .await
            .map(|row| row.get::<_, i64>(0))
            .map_err(|e| e.to_string());
        tables.insert(name, count);
    }
    Ok(tables)
}

/// What differs between the recorded counts and the restored tables, one line each.
pub fn compare(recorded: &BTreeMap<String, i64>, restored: &BTreeMap<String, Result<i64, String>>) -> Vec<String> {
    let mut failures = Vec::new();
    for (table, expected) in recorded {
        match restored.get(table) {
            None => failures.push(format!("table {table} is missing ({expected} rows recorded at backup time)")),
            Some(Err(err)) => failures.push(format!("table {table} cannot be read: {err}")),
            Some(Ok(rows)) if rows != expected => {
                failures.push(format!("table {table} has {rows} rows, {expected} were recorded at backup time"))
            }
            Some(Ok(_)) => {}
        }
    }
    for (table, count) in restored {
        if let (Err(err), false) = (count, recorded.contains_key(table)) {
            failures.push(format!("table {table} cannot be read: {err}"));
        }
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_counts_pass_and_each_difference_is_named() {
        let recorded: BTreeMap<String, i64> =
            [("public.a".into(), 3), ("public.b".into(), 5), ("public.gone".into(), 1)].into();
        let restored: BTreeMap<String, Result<i64, String>> = [
            ("public.a".into(), Ok(3)),
            ("public.b".into(), Ok(4)),
            ("public.new".into(), Ok(9)),
            ("public.bad".into(), Err("read error".into())),
        ]
        .into();
        assert_eq!(
            compare(&recorded, &restored),
            [
                "table public.b has 4 rows, 5 were recorded at backup time",
                "table public.gone is missing (1 rows recorded at backup time)",
                "table public.bad cannot be read: read error",
            ]
        );
        let same: BTreeMap<String, Result<i64, String>> = recorded.iter().map(|(k, v)| (k.clone(), Ok(*v))).collect();
        assert!(compare(&recorded, &same).is_empty());
    }

    #[test]
    fn the_restore_point_is_named_for_its_backup() {
        assert_eq!(point_name("20261206-071744F"), "backup-20261206-071744F");
    }
}
