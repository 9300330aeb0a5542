//! The task that streams this instance's replication slot: logical replication over the
//! streaming protocol (`START_REPLICATION ... LOGICAL`, `pgoutput`, by `pgwire-replication`),
//! whole transactions delivered as they commit, and the slot's confirmed position reported back
//! once they are delivered (a standby status update within 10 ms).
//!
//! Postgres decodes each WAL record once, on its side, and the connection waits without cost when
//! nothing happens. WAL that carries nothing for the publication (a bulk load of a table outside
//! it, say) produces no message, only keepalives that carry the position Postgres has read to:
//! while no transaction is open here, that position is confirmed, so the slot moves past such WAL
//! and never decodes it again.
//!
//! Exactly once across a lost connection (Postgres restarted or crashed): the end of the last
//! transaction delivered is kept (`Changes::delivered`), the stream restarts from there, and a
//! transaction that still comes back at or before it (the slot's position on disk is only as
//! recent as Postgres's last checkpoint) is skipped. A slot that is gone (dropped by an operator,
//! a failover, a restore) is created again at the next try; what was committed between its loss
//! and its creation is not delivered.
//!
//! Values are written by the walsender with the session settings given at connection (UTC, ISO
//! dates, `postgres` intervals) and its decoding memory is `REALTIME_DECODING_WORK_MEM`. The
//! catalog (relations, types) is read on an ordinary connection of its own.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use pgwire_replication::{Lsn, PgWireError, ReplicationClient, ReplicationConfig, ReplicationEvent, TlsConfig};
use secrecy::ExposeSecret;

use super::decode::{Change, Decoder};
use super::deliver;
use crate::realtime::Realtime;

/// Most changes delivered at once: the transactions already received are delivered together,
/// up to this many changes (a transaction is never split).
const BATCH: usize = 2000;

/// Why one streaming session ended.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    #[error("catalog connection: {0}")]
    Catalog(#[from] tokio_postgres::Error),
    #[error("replication stream: {0}")]
    Stream(#[from] PgWireError),
    #[error("{0}")]
    Config(String),
}

impl ReadError {
    /// The slot does not exist (Postgres's 42704 on `START_REPLICATION`).
    fn slot_missing(&self) -> bool {
        matches!(self, ReadError::Stream(PgWireError::Server(m)) if m.contains("42704") || m.contains("does not exist"))
    }
}

/// Start the reader task.
pub fn spawn(rt: Arc<Realtime>) {
    tokio::spawn(async move {
        let mut shutdown = rt.shutdown.subscribe();
        let mut backoff = Duration::from_millis(200);
        loop {
            let result = tokio::select! {
                result = read(&rt) => result,
                _ = shutdown.wait_for(|stop| *stop) => return,
            };
            match result {
                Ok(()) => return,
                Err(err) if err.slot_missing() => {
                    tracing::warn!(slot = %rt.changes.slot, "realtime: the replication slot is gone; creating it again");
                    if let Err(err) = super::create_slot(&rt).await {
                        tracing::warn!(error = %err, "realtime: could not create the replication slot; retrying");
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %err, slot = %rt.changes.slot, "realtime: reading the replication slot failed; retrying")
                }
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(5));
        }
    });
}

/// The streaming connection's settings, from the database URL (TCP or a socket directory).
fn stream_config(rt: &Realtime, start: u64) -> Result<ReplicationConfig, ReadError> {
    let url: tokio_postgres::Config =
        rt.database_url.expose_secret().parse().map_err(|e| ReadError::Config(format!("database URL: {e}")))?;
    let user = url.get_user().unwrap_or("postgres").to_string();
    let password = url.get_password().map(|p| String::from_utf8_lossy(p).into_owned()).unwrap_or_default();
    let database = url.get_dbname().map(str::to_string).unwrap_or_else(|| user.clone());
    let port = url.get_ports().first().copied().unwrap_or(5432);
    let host = match url.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
        Some(tokio_postgres::config::Host::Unix(dir)) => dir.display().to_string(),
        None => "localhost".to_string(),
    };
    let mut cfg = if host.starts_with('/') {
        ReplicationConfig::unix(host, port, user, password, database, &rt.changes.slot, "supabase_realtime")
    } else {
        ReplicationConfig::new(host, user, password, database, &rt.changes.slot, "supabase_realtime").with_port(port)
    };
    cfg = cfg
        .with_tls(TlsConfig::disabled())
        .with_start_lsn(Lsn::from_u64(start))
        // A delivered position reaches Postgres within 10 ms, so an instance stopped right after a
        // delivery restarts past it.
        .with_status_interval(Duration::from_millis(10));
    cfg.application_name = Some("server-realtime".to_string());
    cfg.options = Some(format!(
        "-c timezone=UTC -c datestyle=ISO,YMD -c intervalstyle=postgres -c logical_decoding_work_mem={}kB",
        rt.changes.decoding_work_mem_kb
    ));
    Ok(cfg)
}

/// Transactions received and not yet delivered.
#[derive(Default)]
struct Batch {
    changes: Vec<Arc<Change>>,
    /// End of the last transaction in the batch.
    end: u64,
    /// Transaction ids of the batch's transactions that have changes.
    xids: Vec<u32>,
}

/// Whether every transaction of `xids` is visible to a new snapshot. The walsender may send a
/// commit the moment its WAL is flushed, a little before the committing backend has left the
/// list of running transactions; a row-level-security check made in that moment would not see
/// the row and would withhold the change. The epoch of each 32-bit id is the snapshot's.
const VISIBLE: &str = "select coalesce(bool_and(pg_visible_in_snapshot(((case when x > (n & 4294967295) \
     then (n >> 32) - 1 else n >> 32 end) << 32 | x)::text::xid8, s)), true) \
     from (select pg_current_snapshot() as s) snap, \
     lateral (select pg_snapshot_xmax(snap.s)::text::bigint as n) next, unnest($1::bigint[]) as x";

/// Wait (a few milliseconds at most, in practice) until the batch's transactions are visible.
async fn wait_visible(client: &tokio_postgres::Client, xids: &[u32]) {
    if xids.is_empty() {
        return;
    }
    let ids: Vec<i64> = xids.iter().map(|x| i64::from(*x)).collect();
    for _ in 0..1000 {
        match client.query_one(VISIBLE, &[&ids]).await {
            Ok(row) if row.get::<_, bool>(0) => return,
            Ok(_) => tokio::time::sleep(Duration::from_millis(1)).await,
            Err(err) => {
                tracing::debug!(error = %err, "realtime: could not check that transactions are visible");
                return;
            }
        }
    }
}

async fn read(rt: &Arc<Realtime>) -> Result<(), ReadError> {
    let changes = &rt.changes;
    let (client, connection) = tokio_postgres::connect(rt.database_url.expose_secret(), tokio_postgres::NoTls).await?;
    let driver = tokio::spawn(async move {
        if let Err(err) = connection.await {
            tracing::warn!(error = %err, "realtime: catalog connection closed");
        }
    });
    client.batch_execute("set application_name = 'server-realtime-catalog'").await?;
    // A database that went back in time (restored, or a standby promoted behind) has positions
    // below what was delivered: those are new transactions, not ones sent before.
    let wal_end: String = client.query_one("select pg_current_wal_lsn()::text", &[]).await?.get(0);
    if super::parse_lsn(&wal_end).is_some_and(|end| end < changes.delivered.load(Ordering::Acquire)) {
        tracing::warn!(slot = %changes.slot, "realtime: the database's WAL is behind what was delivered; starting over");
        changes.delivered.store(0, Ordering::Release);
    }
    let delivered = changes.delivered.load(Ordering::Acquire);
    let mut stream = ReplicationClient::connect(stream_config(rt, delivered)?).await?;
    tracing::debug!(slot = %changes.slot, from = delivered, "realtime: streaming the replication slot");
    let mut decoder = Decoder::default();
    let mut batch = Batch::default();
    let mut current_xid: u32 = 0;
    let result = loop {
        // Wait for the next event, unless a batch is ready: then take only what is already
        // there, and deliver when nothing more is.
        let event = if batch.end == 0 {
            stream.recv().await
        } else {
            match stream.recv().now_or_never() {
                Some(event) => event,
                None => {
                    flush(rt, &client, &stream, &mut batch).await;
                    continue;
                }
            }
        };
        let event = match event {
            Ok(Some(event)) => event,
            Ok(None) => break Ok(()),
            Err(err) => break Err(ReadError::Stream(err)),
        };
        match event {
            ReplicationEvent::Begin { xid, .. } => {
                decoder.begin();
                current_xid = xid;
            }
            ReplicationEvent::XLogData { data, .. } => {
                if let Err(err) = decoder.message(&client, &data).await {
                    break Err(err.into());
                }
            }
            ReplicationEvent::Commit { end_lsn, commit_time_micros, .. } => {
                let end = end_lsn.as_u64();
                let committed = decoder.commit(end, commit_time_micros);
                if end <= changes.delivered.load(Ordering::Acquire) {
                    // Sent before the connection was lost: Postgres's slot had not recorded it.
                    changes.redelivered_skipped.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                if !committed.is_empty() {
                    batch.xids.push(current_xid);
                }
                batch.changes.extend(committed);
                batch.end = end;
                if batch.changes.len() >= BATCH {
                    flush(rt, &client, &stream, &mut batch).await;
                }
            }
            ReplicationEvent::KeepAlive { wal_end, .. } => {
                // Postgres has read this far and sent everything due before it: with no
                // transaction open and nothing waiting here, the slot may move up to it.
                if !decoder.in_transaction() && batch.end == 0 {
                    confirm(rt, &stream, wal_end.as_u64());
                }
            }
            ReplicationEvent::Message { .. } | ReplicationEvent::StoppedAt { .. } => {}
        }
    };
    if batch.end != 0 {
        flush(rt, &client, &stream, &mut batch).await;
    }
    stream.abort();
    driver.abort();
    result
}

/// Deliver the batch (once its transactions are visible), then let the slot move past it.
async fn flush(rt: &Arc<Realtime>, client: &tokio_postgres::Client, stream: &ReplicationClient, batch: &mut Batch) {
    let Batch { changes, end, xids } = std::mem::take(batch);
    if !changes.is_empty() {
        wait_visible(client, &xids).await;
        let subs = rt.changes.remember_and_snapshot(&changes);
        deliver::deliver(rt, &changes, subs).await;
    }
    confirm(rt, stream, end);
}

/// Everything up to `lsn` is delivered (or carries nothing to deliver).
fn confirm(rt: &Realtime, stream: &ReplicationClient, lsn: u64) {
    let before = rt.changes.delivered.fetch_max(lsn, Ordering::AcqRel);
    if lsn > before {
        stream.update_applied_lsn(Lsn::from_u64(lsn));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn positions_parse_as_postgres_writes_them() {
        assert_eq!(crate::realtime::changes::parse_lsn("1/1544060"), Some(0x0000_0001_0154_4060));
        assert_eq!(crate::realtime::changes::parse_lsn("0/1544060"), Some(0x1544060));
        assert_eq!(crate::realtime::changes::parse_lsn("zz"), None);
    }
}
