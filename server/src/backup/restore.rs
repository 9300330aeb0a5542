//! `server restore`: the database from pgBackRest's repository and the stored files from the
//! repository's `files/` folder (or, on the S3 storage backend, the bucket versions the backups
//! recorded: `objects`), to the latest archived point, to a time or to a backup.
//!
//! Into a separate folder (`--target-dir`), the restore makes a data directory of its own
//! (`postgres/`, `storage/`, `secrets/`), started on a free port for inspection while the live
//! server keeps running; its archiving is off, so it never writes to the repository. Into
//! DATA_DIR itself, only with the cluster stopped and `--yes`; that cluster then archives again,
//! on the new timeline its promotion opened. Either way the restored cluster has ended its
//! recovery and holds no stale replication slot when this returns.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::db::embedded::{postmaster_alive, EmbeddedPostgres};

use super::files::{self, Report};
use super::pgbackrest::Target;
use super::{archive, blocking, objects, scratch, BackupError, Backups};

/// What to restore, and where.
#[derive(Debug, Clone)]
pub struct Request {
    pub target: Target,
    /// A separate folder; `None`: DATA_DIR.
    pub target_dir: Option<PathBuf>,
    /// The operator confirmed a restore of DATA_DIR.
    pub yes: bool,
}

/// What a restore did.
#[derive(Debug)]
pub struct Outcome {
    pub data_dir: PathBuf,
    /// The restored cluster's URL, while it runs (`--target-dir`).
    pub url: Option<String>,
    pub files: Option<Report>,
    pub slots_dropped: Vec<String>,
    /// From the start of pgBackRest's restore to a promoted cluster with its files.
    pub elapsed: Duration,
}

/// Restore as `request` says.
pub async fn run(config: &Config, request: Request) -> Result<Outcome, BackupError> {
    let started = Instant::now();
    if request.target_dir.is_none() {
        // Before the cluster's description, which would make a new database password: after a
        // lost disk the repository's secrets are the data directory's.
        if let Some(root) = super::files_root(config) {
            super::files::FileStore::open(root, config.backup.cipher_pass.as_ref())?
                .restore_secrets(&config.data_dir.join("secrets"))?;
        }
    }
    let live = EmbeddedPostgres::new(&config.data_dir, config.db_port, config.pg_bin_dir.as_deref())?;
    let backups = Backups::new(config, &live)?;
    // Written again from the settings: a lost disk took the old file with it.
    backups.write_conf()?;
    let data_dir = match &request.target_dir {
        Some(dir) => prepare_target(&backups, dir)?,
        None => prepare_live(&live, &request)?,
    };
    let pgdata = data_dir.join("postgres");
    let delta = pgdata.join("PG_VERSION").exists();
    let (pgbackrest, target, into_target) =
        (backups.pgbackrest.clone(), request.target.clone(), request.target_dir.is_some());
    let dir = pgdata.clone();
    blocking(move || pgbackrest.restore(&dir, &target, delta, into_target)).await?;

    let cluster = if into_target {
        let (dir, bin) = (data_dir.clone(), live.bin_dir().to_path_buf());
        blocking(move || scratch::start(&dir, &bin)).await?
    } else {
        let (cluster, _) = archive::prepare(config, live.clone(), true);
        let c = cluster.clone();
        blocking(move || Ok(c.start()?)).await?;
        cluster
    };
    let finished = finish(&backups, &cluster, &data_dir, into_target).await;
    let url = into_target.then(|| cluster.socket_url());
    if !into_target || finished.is_err() {
        let c = cluster.clone();
        let _ = tokio::task::spawn_blocking(move || c.stop()).await;
    }
    let (files, slots_dropped) = finished?;
    Ok(Outcome { data_dir, url, files, slots_dropped, elapsed: started.elapsed() })
}

/// Wait for the promotion, drop stale slots, bring back the stored files the database names.
async fn finish(
    backups: &Backups,
    cluster: &EmbeddedPostgres,
    data_dir: &Path,
    into_target: bool,
) -> Result<(Option<Report>, Vec<String>), BackupError> {
    let client = scratch::connect_promoted(cluster).await?;
    let slots = scratch::drop_stale_slots(&client).await?;
    let storage_dir = if into_target { Some(data_dir.join("storage")) } else { backups.storage_dir.clone() };
    let report = match (&backups.storage_s3, &backups.files, storage_dir) {
        (Some(bucket), _, _) => Some(s3_objects(backups, bucket.clone(), &client).await?),
        (None, Some(store), Some(storage_dir)) => {
            let entries = files::rows(&client).await?;
            let store = store.clone();
            Some(blocking(move || store.restore(&entries, &storage_dir)).await?)
        }
        _ => None,
    };
    Ok((report, slots))
}

/// On the S3 storage backend: every key the restored rows name is in the bucket, or brought
/// back from the bucket version a backup's manifest recorded (`objects`).
async fn s3_objects(
    backups: &Backups,
    bucket: std::sync::Arc<dyn object_store::ObjectStore>,
    client: &tokio_postgres::Client,
) -> Result<Report, BackupError> {
    let entries = files::rows(client).await?;
    let recorded = recorded_versions(backups).await?;
    Ok(objects::bring_back(bucket, entries, &recorded).await)
}

/// The bucket versions every manifest of the repository recorded.
pub(crate) async fn recorded_versions(
    backups: &Backups,
) -> Result<std::collections::HashMap<String, String>, BackupError> {
    let mut manifests = Vec::new();
    for label in backups.manifests.labels().await? {
        if let Some(stored) = backups.manifests.read(&label).await? {
            manifests.push(stored.manifest.objects);
        }
    }
    Ok(objects::recorded_versions(manifests.iter().map(Vec::as_slice)))
}

/// DATA_DIR: only stopped and confirmed.
fn prepare_live(live: &EmbeddedPostgres, request: &Request) -> Result<PathBuf, BackupError> {
    if !request.yes {
        return Err(BackupError::Refused(
            "a restore into DATA_DIR replaces its database: stop the server, then add --yes (or restore into --target-dir DIR)"
                .into(),
        ));
    }
    if postmaster_alive(live.pgdata()) {
        return Err(BackupError::Refused(
            "the embedded PostgreSQL of DATA_DIR is running: stop the server (and `server db stop`) first".into(),
        ));
    }
    let _ = fs::remove_file(live.pgdata().join("postmaster.pid"));
    make_dir(live, live.pgdata(), 0o700)?;
    Ok(live.data_dir().to_path_buf())
}

/// A new data directory: refused when it already holds a cluster. The live secrets come along,
/// so the restored folder can be served with the same keys.
fn prepare_target(backups: &Backups, dir: &Path) -> Result<PathBuf, BackupError> {
    fs::create_dir_all(dir).map_err(|source| BackupError::Io { path: dir.to_path_buf(), source })?;
    let dir = fs::canonicalize(dir).map_err(|source| BackupError::Io { path: dir.to_path_buf(), source })?;
    let pgdata = dir.join("postgres");
    if pgdata.join("PG_VERSION").exists() {
        return Err(BackupError::Refused(format!(
            "{} already holds a cluster: restore into an empty folder",
            dir.display()
        )));
    }
    backups.pgbackrest.chown(&dir)?;
    fs::create_dir_all(&pgdata).map_err(|source| BackupError::Io { path: pgdata.clone(), source })?;
    fs::set_permissions(&pgdata, fs::Permissions::from_mode(0o700))
        .map_err(|source| BackupError::Io { path: pgdata.clone(), source })?;
    backups.pgbackrest.chown(&pgdata)?;
    copy_secrets(&backups.data_dir.join("secrets"), &dir.join("secrets"))?;
    if let Some(store) = &backups.files {
        store.restore_secrets(&dir.join("secrets"))?;
    }
    Ok(dir)
}

fn make_dir(live: &EmbeddedPostgres, path: &Path, mode: u32) -> Result<(), BackupError> {
    fs::create_dir_all(path).map_err(|source| BackupError::Io { path: path.to_path_buf(), source })?;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|source| BackupError::Io { path: path.to_path_buf(), source })?;
    if let Some((uid, gid)) = live.owner() {
        std::os::unix::fs::chown(path, Some(uid), Some(gid))
            .map_err(|source| BackupError::Io { path: path.to_path_buf(), source })?;
    }
    Ok(())
}

/// Copy the files of `from` into `to` (mode 0600), leaving those `to` already has.
fn copy_secrets(from: &Path, to: &Path) -> Result<(), BackupError> {
    let Ok(entries) = fs::read_dir(from) else { return Ok(()) };
    fs::create_dir_all(to).map_err(|source| BackupError::Io { path: to.to_path_buf(), source })?;
    fs::set_permissions(to, fs::Permissions::from_mode(0o700))
        .map_err(|source| BackupError::Io { path: to.to_path_buf(), source })?;
    for entry in entries.flatten() {
        let dest = to.join(entry.file_name());
        if entry.path().is_file() && !dest.exists() {
            fs::copy(entry.path(), &dest).map_err(|source| BackupError::Io { path: dest.clone(), source })?;
            fs::set_permissions(&dest, fs::Permissions::from_mode(0o600))
                .map_err(|source| BackupError::Io { path: dest.clone(), source })?;
        }
    }
    Ok(())
}

/// `--to` / `--to-backup` as a restore target.
pub fn target(to: Option<String>, to_backup: Option<String>) -> Result<Target, BackupError> {
    match (to, to_backup) {
        (Some(_), Some(_)) => Err(BackupError::Refused("give --to or --to-backup, not both".into())),
        (Some(time), None) if time.trim().is_empty() => Err(BackupError::Refused("--to wants a time".into())),
        (Some(time), None) => Ok(Target::Time(time.trim().to_string())),
        (None, Some(label)) => Ok(Target::Backup(label.trim().to_string())),
        (None, None) => Ok(Target::Latest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_choose_the_target() {
        assert_eq!(target(None, None).unwrap(), Target::Latest);
        assert_eq!(
            target(Some(" 2026-12-06 08:00:00+00 ".into()), None).unwrap(),
            Target::Time("2026-12-06 08:00:00+00".into())
        );
        assert_eq!(target(None, Some("20261206-071744F".into())).unwrap(), Target::Backup("20261206-071744F".into()));
        assert!(target(Some(String::new()), None).is_err());
        assert!(target(Some("t".into()), Some("l".into())).is_err());
    }

    #[test]
    fn a_restore_of_data_dir_wants_confirmation() {
        let dir = std::env::temp_dir().join(format!("backup-restore-refused-{}", std::process::id()));
        let Ok(live) = EmbeddedPostgres::new(&dir, 0, None) else { return };
        let request = Request { target: Target::Latest, target_dir: None, yes: false };
        let err = prepare_live(&live, &request).unwrap_err().to_string();
        assert!(err.contains("--yes"), "{err}");
        let _ = fs::remove_dir_all(&dir);
    }
}
