//! The loop that reads this instance's replication slot: peek whole transactions, deliver them,
//! then advance the slot past them. It polls every `POLL_INTERVAL_MS` while subscriptions exist
//! (once a second otherwise, so the slot never holds WAL back), on its own connection whose
//! settings (UTC, ISO dates) fix how values are written. A lost connection is retried.

use std::sync::Arc;
use std::time::Duration;

use secrecy::ExposeSecret;

use super::decode::Decoder;
use super::deliver;
use crate::realtime::Realtime;

/// Most changes read at once (whole transactions are always read whole).
const BATCH: i32 = 2000;
const IDLE_POLL: Duration = Duration::from_secs(1);

/// Start the reader task.
pub fn spawn(rt: Arc<Realtime>) {
    tokio::spawn(async move {
        let mut shutdown = rt.shutdown.subscribe();
        let mut backoff = Duration::from_millis(200);
        loop {
            tokio::select! {
                result = read(&rt) => match result {
                    Ok(()) => return,
                    Err(err) => tracing::warn!(error = %err, slot = %rt.changes.slot, "realtime: reading the replication slot failed; retrying"),
                },
                _ = shutdown.wait_for(|stop| *stop) => return,
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(5));
        }
    });
}

fn lsn_text(lsn: u64) -> String {
    format!("{:X}/{:X}", lsn >> 32, lsn & 0xffff_ffff)
}

async fn read(rt: &Arc<Realtime>) -> Result<(), tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::connect(rt.database_url.expose_secret(), tokio_postgres::NoTls).await?;
    let driver = tokio::spawn(async move {
        if let Err(err) = connection.await {
            tracing::warn!(error = %err, "realtime: replication reader connection closed");
        }
    });
    client
        .batch_execute(
            "set timezone = 'UTC'; set datestyle = 'ISO, YMD'; set intervalstyle = 'postgres'; \
             set application_name = 'server-realtime'",
        )
        .await?;
    let peek = client
        .prepare(
            "select data from pg_logical_slot_peek_binary_changes($1, null, $2, \
             'proto_version', '1', 'publication_names', 'supabase_realtime')",
        )
        .await?;
    let advance = client.prepare("select pg_replication_slot_advance($1, $2::text::pg_lsn)").await?;
    let changes = &rt.changes;
    let mut decoder = Decoder::default();
    let result = loop {
        let rows = match client.query(&peek, &[&changes.slot, &BATCH]).await {
            Ok(rows) => rows,
            Err(err) => break Err(err),
        };
        let raw: Vec<Vec<u8>> = rows.iter().map(|r| r.get(0)).collect();
        let decoded = match decoder.decode(&client, &raw).await {
            Ok(d) => d,
            Err(err) => break Err(err),
        };
        if !decoded.changes.is_empty() {
            let subs = changes.remember_and_snapshot(&decoded.changes);
            deliver::deliver(rt, &decoded.changes, subs).await;
        }
        if let Some(lsn) = decoded.advance_to {
            if let Err(err) = client.query(&advance, &[&changes.slot, &lsn_text(lsn)]).await {
                break Err(err);
            }
        }
        if raw.is_empty() {
            let wait = if changes.has_subscriptions() { changes.poll } else { IDLE_POLL };
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = changes.wake.notified() => {}
            }
        }
    };
    driver.abort();
    result
}

#[cfg(test)]
mod tests {
    #[test]
    fn positions_print_and_parse_as_postgres_writes_them() {
        assert_eq!(super::lsn_text(0x0000_0001_0154_4060), "1/1544060");
        assert_eq!(super::lsn_text(0x1544060), "0/1544060");
        assert_eq!(crate::realtime::changes::parse_lsn("1/1544060"), Some(0x0000_0001_0154_4060));
        assert_eq!(crate::realtime::changes::parse_lsn("zz"), None);
    }
}
