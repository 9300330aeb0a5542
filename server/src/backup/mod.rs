//! Backups and point-in-time recovery of the embedded cluster and its stored files.
//!
//! pgBackRest does the database's part (`pgbackrest`: WAL archiving, full / differential /
//! incremental backups, retention, restore to a time); this module configures it for the
//! cluster the server runs (`archive`), takes backups on a schedule (`schedule`), copies the local
//! file backend's objects into the repository beside them (`files`), restores (`restore`),
//! verifies a backup by restoring it and comparing its tables with the row counts recorded when
//! it was taken (`verify`, `counts`), keeps each backup's manifest in the repository (`manifests`),
//! records the S3 storage backend's object versions (`objects`), seals the copied files with the repository's passphrase
//! (`cipher`) and reports on `/metrics` and `/health` (`status`). It never touches a database
//! named by `DATABASE_URL`: pgBackRest must run on that server's machine.

pub mod archive;
pub mod cipher;
pub mod commands;
pub mod config;
pub mod counts;
pub mod files;
pub mod manifests;
pub mod objects;
pub mod pgbackrest;
pub mod restore;
pub mod schedule;
pub mod scratch;
pub mod status;
pub mod verify;

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::db::embedded::{EmbeddedError, EmbeddedPostgres};
use pgbackrest::{PgBackRest, Repo, Settings};

/// Why a backup, restore or verification failed.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("pgBackRest was not found ({0}): install Debian's `pgbackrest` (make setup-system) or set BACKUP_PGBACKREST_BIN")]
    NoPgBackRest(PathBuf),
    #[error("backups cover the embedded cluster only: with DATABASE_URL, run pgBackRest on the database's machine (docs/operations.md)")]
    External,
    #[error("no backup repository is configured under {0}: start the server once with backups on (BACKUP_ENABLED)")]
    NotConfigured(PathBuf),
    #[error("pgbackrest {command} failed: {detail}")]
    PgBackRest { command: String, detail: String },
    #[error("unexpected answer of `pgbackrest info`: {0}")]
    Info(String),
    #[error("{0}")]
    Refused(String),
    #[error("database: {0}")]
    Database(String),
    #[error("file system error on {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Embedded(#[from] EmbeddedError),
    #[error(transparent)]
    Cipher(#[from] cipher::CipherError),
}

/// Backups of one data directory: pgBackRest, its settings, and the stored files' folders.
#[derive(Debug, Clone)]
pub struct Backups {
    pub pgbackrest: PgBackRest,
    pub settings: Settings,
    pub config: config::BackupConfig,
    /// The repository's folder of stored files (`posix` repositories only).
    pub files: Option<files::FileStore>,
    /// Where the backups' manifests (row counts, objects named) are kept: beside the stored
    /// files (`posix`) or in the repository's bucket (`s3`).
    pub manifests: manifests::Manifests,
    /// The storage surface's S3 bucket (`STORAGE_BACKEND=s3`): each backup records the version
    /// of every object the database names (`objects`).
    pub storage_s3: Option<std::sync::Arc<dyn object_store::ObjectStore>>,
    /// The local file backend's folder (none with the S3 backend).
    pub storage_dir: Option<PathBuf>,
    pub data_dir: PathBuf,
    /// PostgreSQL's programs, for the clusters a restore or a verification starts.
    pub bin_dir: PathBuf,
}

impl Backups {
    /// The backups of `cluster` as `config` describes them (nothing is written but the stored
    /// files' key file, the first time a passphrase is set).
    pub fn new(config: &Config, cluster: &EmbeddedPostgres) -> Result<Backups, BackupError> {
        if config.database_url.is_some() {
            return Err(BackupError::External);
        }
        let backup = &config.backup;
        let data_dir = cluster.data_dir().to_path_buf();
        let repo = match backup.repo_type.as_str() {
            "posix" => Repo::Posix(absolute(backup.repo_path.clone().unwrap_or_else(|| data_dir.join("backups")))),
            "s3" => Repo::S3 {
                bucket: backup
                    .s3_bucket
                    .clone()
                    .ok_or_else(|| BackupError::Refused("BACKUP_REPO_TYPE=s3 needs BACKUP_S3_BUCKET".into()))?,
                path: backup.repo_path.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "/backups".into()),
                endpoint: config.storage.s3_endpoint.clone(),
                region: config.storage.region.clone(),
                verify_tls: backup.s3_verify_tls,
            },
            other => {
                return Err(BackupError::Refused(format!("unknown BACKUP_REPO_TYPE {other:?} (expected posix or s3)")))
            }
        };
        let home = home(&data_dir);
        let settings = Settings {
            repo: repo.clone(),
            s3_key: config.storage.access_key_id.clone(),
            s3_secret: config.storage.secret_access_key.clone(),
            cipher_pass: backup.cipher_pass.clone(),
            retention_full: backup.retention_full,
            retention_days: backup.retention_days,
            home: home.clone(),
            pgdata: cluster.pgdata().to_path_buf(),
            socket_dir: cluster.run_dir().to_path_buf(),
            port: cluster.socket_port(),
        };
        let pgbackrest = PgBackRest::new(&backup.pgbackrest_bin, home.join("pgbackrest.conf"), home, cluster.owner())?;
        let files = match files_root(config) {
            Some(root) => Some(files::FileStore::open(root, backup.cipher_pass.as_ref())?),
            None => None,
        };
        let manifests = match (&files, &repo) {
            (Some(store), _) => manifests::Manifests::Local(store.clone()),
            (None, Repo::S3 { bucket, path, endpoint, region, verify_tls }) => {
                manifests::Manifests::S3(manifests::S3Manifests::new(
                    manifests::S3Endpoint {
                        bucket,
                        path,
                        endpoint: endpoint.as_deref(),
                        region,
                        verify_tls: *verify_tls,
                        key: config.storage.access_key_id.as_deref(),
                        secret: config.storage.secret_access_key.as_ref(),
                    },
                    backup.cipher_pass.clone(),
                )?)
            }
            (None, Repo::Posix(path)) => manifests::Manifests::Local(files::FileStore::new(path.join("files"))),
        };
        let storage_s3 = match config.storage.backend.as_str() {
            "s3" => Some(
                crate::storage::backend::build(&config.storage, &data_dir)
                    .map_err(|e| BackupError::Refused(format!("the storage surface's S3 bucket: {e}")))?
                    .store,
            ),
            _ => None,
        };
        Ok(Backups {
            pgbackrest,
            settings,
            config: backup.clone(),
            files,
            manifests,
            storage_s3,
            storage_dir: crate::storage::backend::local_dir(&config.storage, &data_dir).map(absolute),
            data_dir,
            bin_dir: cluster.bin_dir().to_path_buf(),
        })
    }

    /// Write pgBackRest's configuration file.
    pub fn write_conf(&self) -> Result<(), BackupError> {
        self.pgbackrest.write_conf(&self.settings)
    }

    /// Where the repository is, for people.
    pub fn describe(&self) -> String {
        match &self.settings.repo {
            Repo::Posix(path) => path.display().to_string(),
            Repo::S3 { bucket, path, .. } => format!("s3://{bucket}{path}"),
        }
    }
}

/// pgBackRest's folder under a data directory: its configuration, locks, logs and spool.
pub fn home(data_dir: &Path) -> PathBuf {
    data_dir.join("pgbackrest")
}

/// Whether backups were ever set up for this data directory.
pub fn configured(data_dir: &Path) -> bool {
    home(data_dir).join("pgbackrest.conf").exists()
}

/// The repository's folder of stored files and secrets (`posix` repositories only).
pub fn files_root(config: &Config) -> Option<PathBuf> {
    (config.backup.repo_type == "posix").then(|| {
        absolute(config.backup.repo_path.clone().unwrap_or_else(|| config.data_dir.join("backups"))).join("files")
    })
}

/// Run blocking work (pgBackRest, file copies) off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, BackupError> + Send + 'static,
) -> Result<T, BackupError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| BackupError::Refused(format!("a backup task failed: {e}")))?
}

fn absolute(path: PathBuf) -> PathBuf {
    if path.is_absolute() {
        path
    } else {
        std::env::current_dir().map(|dir| dir.join(&path)).unwrap_or(path)
    }
}
