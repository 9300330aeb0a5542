//! `server backup verify`: a backup is trusted once it has been restored and read. The latest
//! backup is restored into a scratch folder (pgBackRest checks every file against the checksum
//! its manifest recorded), started on a free port, every table is read to the end
//! (`count(*)`), every stored file the restored database names is checked against its SHA-256,
//! and pgBackRest's own `verify` checks the whole repository, WAL included.
//!
//! Row counts cannot be compared with the live catalogue (`reltuples` is an estimate and the
//! live database has moved on); they are reported, and a table that cannot be read fails.

use std::time::{Duration, Instant};

use super::files::{self, Report};
use super::pgbackrest::Target;
use super::{blocking, scratch, status, BackupError, Backups};

/// What a verification found.
#[derive(Debug, Default)]
pub struct Verification {
    pub label: String,
    pub tables: usize,
    pub rows: i64,
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

/// Verify the latest backup of `backups`; the outcome is also `/metrics`' `backup_last_verify_ok`.
pub async fn run(backups: &Backups) -> Result<Verification, BackupError> {
    let outcome = verify(backups).await;
    let ok = matches!(&outcome, Ok(v) if v.ok());
    status::verified(ok);
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
    let restored = blocking(move || pgbackrest.restore(&dir, &Target::Backup(label), false, true)).await;
    if let Err(err) = restored {
        verification.failures.push(format!("restore: {err}"));
    } else {
        let bin = backups.bin_dir.clone();
        let dir = scratch_dir.clone();
        match blocking(move || scratch::start(&dir, &bin)).await {
            Ok(cluster) => {
                if let Err(err) = read_everything(backups, &cluster, &mut verification).await {
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

/// Count every table's rows and check the stored files the restored database names.
async fn read_everything(
    backups: &Backups,
    cluster: &crate::db::embedded::EmbeddedPostgres,
    verification: &mut Verification,
) -> Result<(), BackupError> {
    let client = scratch::connect_promoted(cluster).await?;
    let tables = client
        .query(
            "select format('%I.%I', n.nspname, c.relname) from pg_class c join pg_namespace n on n.oid = c.relnamespace \
             where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') \
             and n.nspname not like 'pg_toast%' order by 1",
            &[],
        )
        .await
        .map_err(|e| BackupError::Database(e.to_string()))?;
    for table in &tables {
        let name: String = table.get(0);
        // The name comes from the catalogue, quoted by format('%I').
        match client.query_one(&format!("select count(*) from {name}"), &[]).await {
            Ok(row) => {
                verification.tables += 1;
                verification.rows += row.get::<_, i64>(0);
            }
            Err(err) => verification.failures.push(format!("table {name} cannot be read: {err}")),
        }
    }
    if let Some(store) = backups.files.clone() {
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
