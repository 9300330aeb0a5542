//! A restored cluster brought up for inspection: started on a free port with archiving off,
//! waited on until its recovery has ended (promoted), cleaned of replication slots it cannot use.
//!
//! Shared by `restore` and `verify`; it starts and stops clusters but takes no backup.

use std::path::Path;
use std::time::{Duration, Instant};

use tokio_postgres::{Client, NoTls};

use crate::db::embedded::EmbeddedPostgres;

use super::BackupError;

/// Longest wait for a restored cluster's recovery (replaying a day of WAL can take a while).
const RECOVERY_WAIT: Duration = Duration::from_secs(3600);

/// A port nobody listens on now.
pub fn free_port() -> Result<u16, BackupError> {
    let io = |source| BackupError::Io { path: "127.0.0.1:0".into(), source };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(io)?;
    Ok(listener.local_addr().map_err(io)?.port())
}

/// Start the cluster restored under `data_dir` (its `postgres/` folder) on a free port, without
/// archiving. Blocking.
pub fn start(data_dir: &Path, bin_dir: &Path) -> Result<EmbeddedPostgres, BackupError> {
    let cluster = EmbeddedPostgres::new(data_dir, free_port()?, Some(bin_dir))?;
    cluster.start()?;
    Ok(cluster)
}

/// Connect over the cluster's socket and wait until recovery has ended.
pub async fn connect_promoted(cluster: &EmbeddedPostgres) -> Result<Client, BackupError> {
    let deadline = Instant::now() + RECOVERY_WAIT;
    let url = cluster.socket_url();
    loop {
        if let Ok((client, connection)) = tokio_postgres::connect(&url, NoTls).await {
            tokio::spawn(connection);
            let in_recovery = client
                .query_one("select pg_is_in_recovery()", &[])
                .await
                .map(|row| row.get::<_, bool>(0))
                .unwrap_or(true);
            if !in_recovery {
                return Ok(client);
            }
        }
        if !crate::db::embedded::postmaster_alive(cluster.pgdata()) {
            let log = std::fs::read_to_string(cluster.run_dir().join("postgres.log")).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(8).collect();
            return Err(BackupError::Refused(format!(
                "the restored cluster stopped during its recovery:\n{}",
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            )));
        }
        if Instant::now() > deadline {
            return Err(BackupError::Refused("the restored cluster's recovery did not end within an hour".into()));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Drop the replication slots no session uses (realtime's, of the instance that ran before):
/// the server makes its own again when a client subscribes. pgBackRest does not copy
/// `pg_replslot`, so a restored cluster usually has none.
pub async fn drop_stale_slots(client: &Client) -> Result<Vec<String>, BackupError> {
    let rows = client
        .query(
            "select slot_name::text, pg_drop_replication_slot(slot_name) is null from pg_replication_slots where not active",
            &[],
        )
        .await
        .map_err(|e| BackupError::Database(format!("cannot drop the stale replication slots: {e}")))?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}
