//! Keeps the embedded PostgreSQL running: checks its postmaster every `EVERY`, and when it has
//! died (killed, crashed, out of memory) starts it again, as an operator would with
//! `server db start`. PostgreSQL's crash recovery replays its WAL, so committed data is kept.
//! Requests during the outage get each surface's 503; the pools reconnect by themselves once
//! the cluster is back. It stops watching when the server stops, before the cluster is stopped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::embedded::{postmaster_alive, EmbeddedPostgres};

const EVERY: Duration = Duration::from_secs(1);

/// A running supervision; `stop()` ends it.
pub struct Supervisor {
    stopping: Arc<AtomicBool>,
}

impl Supervisor {
    /// Watch `cluster` until `stop()`.
    pub fn spawn(cluster: Arc<EmbeddedPostgres>) -> Supervisor {
        let stopping = Arc::new(AtomicBool::new(false));
        let flag = stopping.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(EVERY);
            loop {
                tick.tick().await;
                if flag.load(Ordering::Acquire) {
                    return;
                }
                if postmaster_alive(cluster.pgdata()) {
                    continue;
                }
                tracing::error!("embedded PostgreSQL is not running; starting it again");
                let c = cluster.clone();
                match tokio::task::spawn_blocking(move || c.start()).await {
                    Ok(Ok(())) => tracing::info!("embedded PostgreSQL is running again"),
                    Ok(Err(err)) => tracing::error!(error = %err, "embedded PostgreSQL could not be started; retrying"),
                    Err(err) => tracing::error!(error = %err, "embedded PostgreSQL restart task failed; retrying"),
                }
            }
        });
        Supervisor { stopping }
    }

    /// Stop watching (the server is stopping the cluster on purpose).
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
    }
}
