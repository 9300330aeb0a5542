//! Slots left by instances that are gone. Each instance streams its own slot, which Postgres
//! shows as active while it does; a slot of another instance of this database that this one
//! sees inactive for `REALTIME_STALE_SLOT_SECS` in a row is dropped, so an instance that died
//! and never came back cannot fill the database's disk with the WAL its slot holds. A restarted
//! instance is back on its slot within seconds and keeps it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::db::cached::CachedQueries;
use crate::realtime::Realtime;

/// Watch the other instances' slots; `after_secs` 0 turns it off.
pub fn spawn(rt: Arc<Realtime>, after_secs: u64) {
    if after_secs == 0 {
        return;
    }
    let after = Duration::from_secs(after_secs);
    let every = Duration::from_secs((after_secs / 4).clamp(1, 30));
    tokio::spawn(async move {
        let mut shutdown = rt.shutdown.subscribe();
        let mut inactive_since = HashMap::new();
        loop {
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = shutdown.wait_for(|stop| *stop) => return,
            }
            if let Err(err) = sweep(&rt, after, &mut inactive_since).await {
                tracing::debug!(error = %err, "realtime: could not look at other instances' slots");
            }
        }
    });
}

/// One look: note when each other slot was first seen inactive, drop those inactive too long.
async fn sweep(rt: &Realtime, after: Duration, inactive_since: &mut HashMap<String, Instant>) -> Result<(), String> {
    let client = rt.pools.admin.get().await.map_err(|e| e.to_string())?;
    let rows = client
        .cached_query(
            "select slot_name::text, active, \
             coalesce(pg_size_pretty(pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)), '?') \
             from pg_replication_slots where slot_name like 'supabase\\_realtime\\_%' and slot_name <> $1 \
             and database = current_database()",
            &[&rt.changes.slot],
        )
        .await
        .map_err(|e| e.to_string())?;
    let now = Instant::now();
    let mut seen = Vec::with_capacity(rows.len());
    for row in rows {
        let (name, active, retained): (String, bool, String) = (row.get(0), row.get(1), row.get(2));
        if active {
            inactive_since.remove(&name);
            continue;
        }
        let since = *inactive_since.entry(name.clone()).or_insert(now);
        seen.push(name.clone());
        if now.duration_since(since) < after {
            continue;
        }
        // Refused by Postgres if the instance came back meanwhile (the slot is active again).
        match client
            .cached_execute(
                "select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = $1 and not active",
                &[&name],
            )
            .await
        {
            Ok(_) => tracing::warn!(
                slot = %name, retained = %retained, inactive_secs = after.as_secs(),
                "realtime: dropped the replication slot of an instance that is gone"
            ),
            Err(err) => tracing::info!(slot = %name, error = %err, "realtime: could not drop an inactive slot"),
        }
        inactive_since.remove(&name);
    }
    inactive_since.retain(|name, _| seen.contains(name));
    Ok(())
}
