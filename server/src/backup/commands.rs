//! `server backup now|list|info|verify` and `server restore`: what the commands print, on top of
//! the module's parts. The embedded cluster is started for a command that needs it when it is
//! not running (and stopped again after), as the other commands do.

use std::error::Error;
use std::path::PathBuf;

use tokio_postgres::NoTls;

use crate::config::{BackupAction, Config};
use crate::db::embedded::EmbeddedPostgres;

use super::manifests::Stored;
use super::{archive, blocking, restore, schedule, verify, BackupError, Backups};

/// The data directory's cluster (archiving as configured) and its backups.
fn open(config: &Config) -> Result<(EmbeddedPostgres, Backups), BackupError> {
    // Before anything is written under DATA_DIR.
    if config.database_url.is_some() {
        return Err(BackupError::External);
    }
    let cluster = EmbeddedPostgres::new(&config.data_dir, config.db_port, config.pg_bin_dir.as_deref())?;
    if !archive::wanted(config, false) {
        return Err(BackupError::NotConfigured(super::home(cluster.data_dir())));
    }
    let (cluster, backups) = archive::prepare(config, cluster, false);
    match backups {
        Some(backups) => Ok((cluster, backups)),
        // `prepare` logged why; say it again as the command's error.
        None => Err(Backups::new(config, &cluster)
            .err()
            .unwrap_or(BackupError::NotConfigured(super::home(&config.data_dir)))),
    }
}

/// `server backup …`.
pub async fn backup(config: &Config, action: BackupAction) -> Result<(), Box<dyn Error>> {
    let (cluster, backups) = open(config)?;
    match action {
        BackupAction::Now { kind } => {
            let started = !cluster.is_running();
            let c = cluster.clone();
            blocking(move || Ok(c.start()?)).await?;
            let outcome = async {
                let (client, connection) = tokio_postgres::connect(&cluster.socket_url(), NoTls).await?;
                tokio::spawn(connection);
                let t0 = std::time::Instant::now();
                let label = schedule::take(&backups, &client, &kind).await?;
                println!("backup {label} taken in {:.1} s to {}", t0.elapsed().as_secs_f64(), backups.describe());
                Ok::<(), Box<dyn Error>>(())
            }
            .await;
            if started {
                let c = cluster.clone();
                blocking(move || Ok(c.stop()?)).await?;
            }
            outcome?;
        }
        BackupAction::List => {
            let pgbackrest = backups.pgbackrest.clone();
            let info = blocking(move || pgbackrest.info()).await?;
            println!(
                "{:<26}{:<6}{:<22}{:>12}{:>12}{:>12}{:>12}",
                "label", "type", "stopped (UTC)", "database", "stored", "added", "files"
            );
            for b in &info.backup {
                let stopped = chrono::DateTime::from_timestamp(b.timestamp.stop, 0)
                    .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
                    .unwrap_or_default();
                let files = match backups.manifests.read(&b.label).await {
                    Ok(Some(stored)) => manifest::stored_bytes(&stored).to_string(),
                    Ok(None) => "-".into(),
                    Err(err) => {
                        eprintln!("backup {}: {err}", b.label);
                        "?".into()
                    }
                };
                println!(
                    "{:<26}{:<6}{:<22}{:>12}{:>12}{:>12}{:>12}",
                    b.label, b.kind, stopped, b.info.size, b.info.repository.size, b.info.repository.delta, files
                );
            }
            if info.backup.is_empty() {
                println!("(no backup: {})", info.status.message);
            }
        }
        BackupAction::Info => {
            let pgbackrest = backups.pgbackrest.clone();
            let json = blocking(move || pgbackrest.run("info", &["--output=json".into()])).await?;
            let mut value: serde_json::Value = serde_json::from_str(&json)?;
            // Each backup gets what its manifest says (counts, objects, their sealed sizes).
            if let Some(list) = value.get_mut(0).and_then(|s| s.get_mut("backup")).and_then(|b| b.as_array_mut()) {
                for b in list {
                    let Some(label) = b.get("label").and_then(|l| l.as_str()).map(str::to_string) else { continue };
                    if let Some(stored) = backups.manifests.read(&label).await? {
                        b["manifest"] = manifest::summary(&stored);
                    }
                }
            }
            println!("{}", serde_json::to_string_pretty(&value)?);
        }
        BackupAction::Verify => {
            let v = verify::run(&backups).await?;
            let files = v.files.as_ref().map(|f| f.kept).unwrap_or(0);
            let compared = match v.compared {
                Some(n) => format!("{n} compared with the counts recorded at backup time"),
                None => "no counts were recorded at backup time, none compared".into(),
            };
            println!(
                "backup {}: restored and started, {} tables read ({} rows; {compared}), {} stored files checked, in {:.1} s",
                v.label,
                v.tables,
                v.rows,
                files,
                v.elapsed.as_secs_f64()
            );
            if !v.ok() {
                for failure in &v.failures {
                    eprintln!("verify: {failure}");
                }
                return Err(
                    format!("backup {} failed its verification ({} problem(s))", v.label, v.failures.len()).into()
                );
            }
            println!("backup {} verified", v.label);
        }
    }
    Ok(())
}

/// `server restore …`.
pub async fn restore(
    config: &Config,
    to: Option<String>,
    to_backup: Option<String>,
    target_dir: Option<PathBuf>,
    yes: bool,
) -> Result<(), Box<dyn Error>> {
    if config.database_url.is_some() {
        return Err(BackupError::External.into());
    }
    let target = restore::target(to, to_backup)?;
    let outcome = restore::run(config, restore::Request { target, target_dir: target_dir.clone(), yes }).await?;
    println!("restored into {} in {:.1} s", outcome.data_dir.display(), outcome.elapsed.as_secs_f64());
    if let Some(files) = &outcome.files {
        println!(
            "stored files: {} restored ({} bytes), {} already present, {} missing, {} corrupt",
            files.copied,
            files.bytes_copied,
            files.kept,
            files.missing.len(),
            files.corrupt.len()
        );
        for who in files.missing.iter().chain(&files.corrupt) {
            eprintln!("restore: stored file not restored: {who}");
        }
    }
    if !outcome.slots_dropped.is_empty() {
        println!("replication slots dropped: {}", outcome.slots_dropped.join(", "));
    }
    match (&outcome.url, &target_dir) {
        (Some(url), Some(dir)) => {
            println!("PostgreSQL runs on the restored folder: {url}");
            println!(
                "serve it with DATA_DIR={} (another PORT), stop it with `DATA_DIR={} server db stop`",
                dir.display(),
                dir.display()
            );
        }
        _ => println!("start the server: it serves the restored data"),
    }
    Ok(())
}

/// What `backup list` and `backup info` say of a backup's manifest.
mod manifest {
    use super::Stored;

    /// Bytes the backup's files take in the repository: its objects' copies (sealed with a
    /// passphrase) and the manifest itself.
    pub fn stored_bytes(stored: &Stored) -> u64 {
        stored.bytes + stored.manifest.objects.iter().map(|o| o.stored).sum::<u64>()
    }

    /// The `manifest` object `backup info` adds to each backup.
    pub fn summary(stored: &Stored) -> serde_json::Value {
        let m = &stored.manifest;
        let objects: Vec<serde_json::Value> = m
            .objects
            .iter()
            .map(|o| {
                serde_json::json!({
                    "bucket": o.bucket, "name": o.name, "key": o.version, "size": o.size,
                    "stored": o.stored, "s3_version": o.s3_version, "etag": o.etag,
                })
            })
            .collect();
        serde_json::json!({
            "taken_at": m.taken_at,
            "bytes": stored.bytes,
            "files_bytes": stored_bytes(stored),
            "counts": m.counts.as_ref().map(|c| serde_json::json!({"point": c.point, "tables": c.tables})),
            "objects": objects,
        })
    }
}
