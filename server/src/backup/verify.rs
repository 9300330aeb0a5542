//! `server backup verify`: a backup is trusted once it has been restored and read. The latest
//! backup is restored into a scratch folder (pgBackRest checks every file against the checksum
//! its manifest recorded) up to the restore point at which its rows were counted (`counts`),
//! started on a free port, every table is read to the end (`count(*)`) and compared with the
//! count recorded then, every stored file the restored database names is checked against its
//! SHA-256, and pgBackRest's own `verify` checks the whole repository, WAL included.
//!
//! The counts are in the backup's manifest, in the repository (`manifests`: beside the stored
//! files of a `posix` repository, in the bucket of an `s3` one). A backup without recorded
//! counts (taken before they were recorded, or when its tables could not be locked) is restored to its end and its tables are read,
//! not compared; the verification says so.

use std::time::{Duration, Instant};

use super::files::{self, Counts, Report};
use super::pgbackrest::Target;
use super::{blocking, counts, scratch, status, BackupError, Backups};

/// What a verification found.
#[derive(Debug, Default)]
pub struct Verification {
    pub label: String,
    pub tables: usize,
    pub rows: i64,
    /// Tables compared with the counts recorded at backup time (`None`: none were recorded).
    pub compared: Option<usize>,
    pub files: Option<Report>,
    /// What failed; empty when the backup is good.
    pub failures: Vec<String>,
    pub elapsed: Duration,
}

impl Verification {
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
    }
}

/// One verification at a time in a process (they share the scratch folder).
static RUNNING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Verify the latest backup of `backups`; the outcome is also `/metrics`' `backup_last_verify_ok`.
pub async fn run(backups: &Backups) -> Result<Verification, BackupError> {
    let Ok(_running) = RUNNING.try_lock() else {
        return Err(BackupError::Refused("a verification is already running: wait for its end".into()));
    };
    let outcome = verify(backups).await;
    let ok = matches!(&outcome, Ok(v) if v.ok());
    status::verified(ok, chrono::Utc::now().timestamp());
    match &outcome {
        Ok(v) if v.ok() => tracing::info!(label = %v.label, tables = v.tables, rows = v.rows, "backup verified"),
        Ok(v) => tracing::error!(label = %v.label, failures = ?v.failures, "backup verification failed"),
        Err(err) => tracing::error!(error = %err, "backup verification failed"),
    }
    outcome
}

async fn verify(backups: &Backups) -> Result<Verification, BackupError> {
    let started = Instant::now();
    let pgbackrest = backups.pgbackrest.clone();
    let info = blocking(move || pgbackrest.info()).await?;
    let label = info
        .backup
        .last()
        .map(|b| b.label.clone())
        .ok_or_else(|| BackupError::Refused("the repository has no backup to verify".into()))?;
    let mut verification = Verification { label: label.clone(), ..Verification::default() };
    let recorded = backups.manifests.read(&label).await?.and_then(|stored| stored.manifest.counts);
    let target = match &recorded {
        Some(counts) => Target::Point { label: label.clone(), name: counts.point.clone() },
        None => Target::Backup(label.clone()),
    };

    let scratch_dir = super::home(&backups.data_dir).join("verify");
    let _ = std::fs::remove_dir_all(&scratch_dir);
    let pgdata = scratch_dir.join("postgres");
    for dir in [&scratch_dir, &pgdata] {
        std::fs::create_dir_all(dir).map_err(|source| BackupError::Io { path: dir.to_path_buf(), source })?;
        backups.pgbackrest.chown(dir)?;
    }
    std::fs::set_permissions(&pgdata, std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .map_err(|source| BackupError::Io { path: pgdata.clone(), source })?;

    let (pgbackrest, dir) = (backups.pgbackrest.clone(), pgdata.clone());
    let restored = blocking(move || pgbackrest.restore(&dir, &target, false, true)).await;
    if let Err(err) = restored {
        verification.failures.push(format!("restore: {err}"));
    } else {
        let bin = backups.bin_dir.clone();
        let dir = scratch_dir.clone();
        match blocking(move || scratch::start(&dir, &bin)).await {
            Ok(cluster) => {
                if let Err(err) = read_everything(backups, &cluster, recorded.as_ref(), &mut verification).await {
                    verification.failures.push(err.to_string());
                }
                let _ = blocking(move || Ok(cluster.stop()?)).await;
            }
            Err(err) => verification.failures.push(format!("start of the restored cluster: {err}")),
        }
    }
    let pgbackrest = backups.pgbackrest.clone();
    if let Err(err) = blocking(move || pgbackrest.verify()).await {
        verification.failures.push(format!("pgbackrest verify: {err}"));
    }
    let _ = std::fs::remove_dir_all(&scratch_dir);
    verification.elapsed = started.elapsed();
    Ok(verification)
}

/// Count every table's rows (compared with `recorded` when there are counts) and check the
/// stored files the restored database names.
async fn read_everything(
    backups: &Backups,
    cluster: &crate::db::embedded::EmbeddedPostgres,
    recorded: Option<&Counts>,
    verification: &mut Verification,
) -> Result<(), BackupError> {
    let client = scratch::connect_promoted(cluster).await?;
    let restored = counts::count_all(&client).await?;
    for rows in restored.values().flatten() {
        verification.tables += 1;
        verification.rows += rows;
    }
    let empty = std::collections::BTreeMap::new();
    verification.failures.extend(counts::compare(recorded.map_or(&empty, |c| &c.tables), &restored));
    verification.compared = recorded.map(|c| c.tables.len());
    if let Some(bucket) = &backups.storage_s3 {
        // S3 storage backend: each key is in the bucket or has a recorded version to come back from.
        let entries = files::rows(&client).await?;
        let recorded = super::restore::recorded_versions(backups).await?;
        let report = super::objects::check(bucket.clone(), entries, &recorded).await;
        for who in &report.missing {
            verification.failures.push(format!("stored object {who} is neither in the S3 bucket nor recorded"));
        }
        verification.files = Some(report);
    } else if let Some(store) = backups.files.clone() {
        let entries = files::rows(&client).await?;
        let report = blocking(move || Ok(store.check(&entries))).await?;
        for who in &report.corrupt {
            verification.failures.push(format!("stored file {who} does not match its checksum"));
        }
        for who in &report.missing {
            verification.failures.push(format!("stored file {who} is not in the repository"));
        }
        verification.files = Some(report);
    }
    Ok(())
}
