//! The server's backup schedule: at start the stanza and (for a new repository) a first full
//! backup; then, checked every `TICK`, a full backup every `BACKUP_FULL_INTERVAL_SECONDS`, a
//! differential one every `BACKUP_DIFF_INTERVAL_SECONDS`, new stored files every
//! `BACKUP_FILES_INTERVAL_SECONDS`, a verification every `BACKUP_VERIFY_INTERVAL_SECONDS` when
//! set, and the archive's lag. After each backup, the rows are counted at a restore point of
//! its own (`counts`), its manifest written and the copies no kept backup needs pruned. One
//! task; a failure is an error in the log and the next tick tries again. It stops taking new
//! work when the server stops.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use deadpool_postgres::Pool;
use tokio_postgres::Client;

use super::{archive, blocking, counts, files, status, verify, BackupError, Backups};

const TICK: Duration = Duration::from_secs(5);

/// The running schedule; `stop()` ends it after the work under way.
pub struct Schedule {
    stopping: Arc<AtomicBool>,
}

impl Schedule {
    /// Start the schedule of `backups` on the database `pool` reaches.
    pub fn spawn(backups: Backups, pool: Pool) -> Schedule {
        status::activate();
        let stopping = Arc::new(AtomicBool::new(false));
        let flag = stopping.clone();
        tokio::spawn(async move { run(backups, pool, flag).await });
        Schedule { stopping }
    }

    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
    }
}

async fn run(backups: Backups, pool: Pool, stopping: Arc<AtomicBool>) {
    if !archiving(&pool).await {
        tracing::warn!(
            "backups: the embedded PostgreSQL runs without WAL archiving (started by `db start` before backups were \
             set up?): stop it (`server db stop`) and start the server again"
        );
        return;
    }
    let b = backups.clone();
    match blocking(move || archive::first_backup(&b)).await {
        Ok(Some(label)) => {
            tracing::info!(label = %label, repository = %backups.describe(), "backups: first full backup taken");
            if let Ok(client) = pool.get().await {
                after_backup(&backups, &client, &label, Vec::new()).await;
            }
        }
        Ok(None) => {}
        Err(err) => tracing::error!(error = %err, "backups: cannot set up the repository; retrying at the next tick"),
    }
    let (mut last_files, mut last_verify) = (Instant::now(), Instant::now());
    // The first tick looks at the repository at once (the last backup's time for /metrics).
    let mut last_check = Instant::now().checked_sub(TICK).unwrap_or_else(Instant::now);
    // Files may be copied more often than backups are looked at.
    let mut tick = tokio::time::interval(TICK.min(backups.config.files_interval));
    loop {
        tick.tick().await;
        if stopping.load(Ordering::Acquire) {
            return;
        }
        let Ok(client) = pool.get().await else { continue };
        if last_check.elapsed() >= TICK {
            last_check = Instant::now();
            let _ = status::measure_lag(&client).await;
            match due(&backups).await {
                Ok(Some(kind)) => {
                    let _ = take(&backups, &client, kind).await;
                }
                Ok(None) => {}
                Err(err) => tracing::error!(error = %err, "backups: cannot read the repository"),
            }
        }
        if last_files.elapsed() >= backups.config.files_interval {
            sync_files(&backups, &client).await;
            last_files = Instant::now();
        }
        drop(client);
        let every = backups.config.verify_interval_secs;
        if every > 0 && last_verify.elapsed() >= Duration::from_secs(every) {
            let _ = verify::run(&backups).await;
            last_verify = Instant::now();
        }
    }
}

async fn archiving(pool: &Pool) -> bool {
    let Ok(client) = pool.get().await else { return true };
    client
        .query_one("select current_setting('archive_mode') <> 'off'", &[])
        .await
        .map(|row| row.get::<_, bool>(0))
        .unwrap_or(true)
}

/// The kind of backup due now, if any (`stanza-create` first when the stanza is missing).
async fn due(backups: &Backups) -> Result<Option<&'static str>, BackupError> {
    let pgbackrest = backups.pgbackrest.clone();
    let info = blocking(move || pgbackrest.info()).await?;
    let now = chrono::Utc::now().timestamp();
    if let Some(last) = info.backup.last() {
        status::succeeded(last.timestamp.stop);
    }
    let last_full = info.backup.iter().filter(|b| b.kind == "full").map(|b| b.timestamp.stop).max();
    let last_any = info.backup.iter().map(|b| b.timestamp.stop).max();
    let age = |t: Option<i64>| t.map(|t| Duration::from_secs((now - t).max(0) as u64));
    Ok(match (age(last_full), age(last_any)) {
        (None, _) => Some("full"),
        (Some(full), _) if full >= backups.config.full_interval => Some("full"),
        (_, Some(any)) if any >= backups.config.diff_interval => Some("diff"),
        _ => None,
    })
}

/// Take a backup of `kind` with the stored files around it (before: what the backup's rows
/// name exists in the repository; after: what was uploaded while it ran). Its label.
pub async fn take(backups: &Backups, client: &Client, kind: &str) -> Result<String, BackupError> {
    let before = sync_files(backups, client).await.map(|r| r.listed).unwrap_or_default();
    let (pgbackrest, k) = (backups.pgbackrest.clone(), kind.to_string());
    let taken = blocking(move || {
        pgbackrest.stanza_create()?;
        pgbackrest.backup(&k)?;
        pgbackrest.info()
    })
    .await;
    let info = match taken {
        Ok(info) => info,
        Err(err) => {
            tracing::error!(error = %err, kind, "backups: the backup failed");
            return Err(err);
        }
    };
    let last = info.backup.last().ok_or_else(|| BackupError::Info("no backup after a backup".into()))?;
    status::succeeded(last.timestamp.stop);
    tracing::info!(label = %last.label, kind = %last.kind, bytes = last.info.repository.delta, "backups: backup taken");
    after_backup(backups, client, &last.label, before).await;
    Ok(last.label.clone())
}

/// After backup `label`: count the rows at a restore point, copy the files uploaded meanwhile
/// (or, on the S3 storage backend, record each object's bucket version), write the backup's
/// manifest (the objects listed before and after it, and the counts) and prune what no kept
/// backup needs. Failures are logged: the backup itself is taken.
pub async fn after_backup(backups: &Backups, client: &Client, label: &str, before: Vec<files::Entry>) {
    let counts = match counts::record(client, label, Duration::from_secs(60)).await {
        Ok(counts) => Some(counts),
        Err(err) => {
            tracing::warn!(error = %err, label, "backups: no row counts recorded; its verification will not compare them");
            None
        }
    };
    let after = sync_files(backups, client).await.map(|r| r.listed).unwrap_or_default();
    let mut objects = before;
    for entry in after {
        if !objects.iter().any(|e| e.version == entry.version) {
            objects.push(entry);
        }
    }
    if let Some(store) = &backups.storage_s3 {
        match files::rows(client).await {
            Ok(rows) => {
                let (recorded, missing) = super::objects::record(store.clone(), rows).await;
                if !missing.is_empty() {
                    tracing::warn!(label, missing = ?missing, "backups: stored objects named by rows are not in the S3 bucket");
                }
                objects = recorded;
            }
            Err(err) => tracing::error!(error = %err, label, "backups: cannot list the stored objects"),
        }
    }
    let manifest =
        files::Manifest { label: label.to_string(), taken_at: chrono::Utc::now().timestamp(), objects, counts };
    let written = backups.manifests.write(manifest).await;
    let pgbackrest = backups.pgbackrest.clone();
    let store = backups.files.clone();
    let manifests = backups.manifests.clone();
    let done = async {
        written?;
        let info = blocking(move || pgbackrest.info()).await?;
        let kept: Vec<String> = info.backup.iter().map(|b| b.label.clone()).collect();
        let oldest = info.backup.iter().map(|b| b.timestamp.start).min().unwrap_or(0);
        let mut pruned = match store {
            Some(store) => {
                let kept = kept.clone();
                blocking(move || store.prune(&kept, oldest)).await?
            }
            None => files::Pruned::default(),
        };
        pruned.manifests += manifests.prune(&kept).await?;
        Ok::<_, BackupError>(pruned)
    }
    .await;
    match done {
        Ok(pruned) if pruned.objects + pruned.manifests > 0 => tracing::info!(
            manifests = pruned.manifests,
            objects = pruned.objects,
            bytes = pruned.bytes,
            "backups: manifests and stored file copies no kept backup needs were pruned"
        ),
        Ok(_) => {}
        Err(err) => tracing::error!(error = %err, label, "backups: cannot write the manifest or prune the copies"),
    }
}

/// Copy new stored files (and the data directory's secrets) into the repository. Failures are
/// logged.
pub async fn sync_files(backups: &Backups, client: &Client) -> Option<files::Report> {
    let (Some(store), Some(storage_dir)) = (backups.files.clone(), backups.storage_dir.clone()) else { return None };
    let entries = match files::rows(client).await {
        Ok(entries) => entries,
        Err(err) => {
            tracing::error!(error = %err, "backups: cannot list the stored files");
            return None;
        }
    };
    let secrets = backups.data_dir.join("secrets");
    let synced = blocking(move || {
        store.save_secrets(&secrets)?;
        store.copy_new(&storage_dir, &entries)
    })
    .await;
    match synced {
        Ok(report) => Some(report),
        Err(err) => {
            tracing::error!(error = %err, "backups: cannot copy the stored files");
            None
        }
    }
}
