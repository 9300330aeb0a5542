//! Settings of backups and point-in-time recovery (`BACKUP_*`).
//!
//! Only describes and parses settings; `pgbackrest` turns them into pgBackRest's configuration
//! file. The S3 endpoint, region and credentials are the storage surface's (`GLOBAL_S3_ENDPOINT`,
//! `REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`); only the bucket is the backups' own.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use secrecy::SecretString;

use crate::config::{seconds, secret};

/// Where backups go, how often they are taken and how long they are kept.
#[derive(Debug, Clone, Args)]
pub struct BackupConfig {
    /// Continuous WAL archiving and scheduled backups of the embedded cluster with pgBackRest.
    /// Unset: on for `serve` (and for every command once the repository exists), off for the
    /// first `db start` (the test cluster); `false` turns them off everywhere.
    #[arg(id = "backup-enabled", long = "backup-enabled", env = "BACKUP_ENABLED", action = clap::ArgAction::Set)]
    pub enabled: Option<bool>,

    /// Repository folder (`posix`), or the path inside the bucket (`s3`). Default:
    /// DATA_DIR/backups for `posix` (point it at another disk), `/backups` for `s3`.
    #[arg(id = "backup-repo-path", long = "backup-repo-path", env = "BACKUP_REPO_PATH")]
    pub repo_path: Option<PathBuf>,

    /// Repository kind: `posix` (a folder) or `s3` (the storage surface's S3 endpoint and keys).
    #[arg(id = "backup-repo-type", long = "backup-repo-type", env = "BACKUP_REPO_TYPE", default_value = "posix")]
    pub repo_type: String,

    /// Bucket of an `s3` repository.
    #[arg(id = "backup-s3-bucket", long = "backup-s3-bucket", env = "BACKUP_S3_BUCKET")]
    pub s3_bucket: Option<String>,

    /// Whether pgBackRest checks the S3 endpoint's TLS certificate (pgBackRest speaks only
    /// HTTPS to S3; `false` for a test endpoint with a self-signed certificate).
    #[arg(id = "backup-s3-verify-tls", long = "backup-s3-verify-tls", env = "BACKUP_S3_VERIFY_TLS", default_value_t = true, action = clap::ArgAction::Set)]
    pub s3_verify_tls: bool,

    /// Passphrase that encrypts the repository: pgBackRest's part (AES-256-CBC) and the stored
    /// files, secrets and manifests under `files/` (AES-256-GCM, key derived with PBKDF2); unset,
    /// nothing is encrypted. It is written only to pgBackRest's configuration file (mode 0600)
    /// and never logged. Without it an encrypted repository cannot be read.
    #[arg(id = "backup-cipher-pass", long = "backup-cipher-pass", env = "BACKUP_CIPHER_PASS", hide_env_values = true, value_parser = secret)]
    pub cipher_pass: Option<SecretString>,

    /// Seconds between two full backups.
    #[arg(id = "backup-full-interval-seconds", long = "backup-full-interval-seconds", env = "BACKUP_FULL_INTERVAL_SECONDS", default_value = "604800", value_parser = seconds)]
    pub full_interval: Duration,

    /// Seconds between two differential backups (changes since the last full one).
    #[arg(id = "backup-diff-interval-seconds", long = "backup-diff-interval-seconds", env = "BACKUP_DIFF_INTERVAL_SECONDS", default_value = "86400", value_parser = seconds)]
    pub diff_interval: Duration,

    /// Full backups kept (with their differential backups and the WAL they need); older ones
    /// are expired after each backup.
    #[arg(
        id = "backup-retention-full",
        long = "backup-retention-full",
        env = "BACKUP_RETENTION_FULL",
        default_value_t = 2
    )]
    pub retention_full: u32,

    /// Keep full backups by age instead of count: those of the last N days (and the newest one
    /// older than that, which the oldest point in the window needs).
    #[arg(id = "backup-retention-days", long = "backup-retention-days", env = "BACKUP_RETENTION_DAYS")]
    pub retention_days: Option<u32>,

    /// Longest time (seconds) a written WAL segment waits before it is archived: the recovery
    /// point of a lost disk on a quiet server (PostgreSQL's `archive_timeout`).
    #[arg(
        id = "backup-archive-timeout-seconds",
        long = "backup-archive-timeout-seconds",
        env = "BACKUP_ARCHIVE_TIMEOUT_SECONDS",
        default_value_t = 60
    )]
    pub archive_timeout_secs: u64,

    /// Seconds between two copies of new stored files (local file backend) into the repository.
    #[arg(id = "backup-files-interval-seconds", long = "backup-files-interval-seconds", env = "BACKUP_FILES_INTERVAL_SECONDS", default_value = "60", value_parser = seconds)]
    pub files_interval: Duration,

    /// Seconds between two verifications (restore of the latest backup into a scratch folder,
    /// checked); 0: only `server backup verify`.
    #[arg(
        id = "backup-verify-interval-seconds",
        long = "backup-verify-interval-seconds",
        env = "BACKUP_VERIFY_INTERVAL_SECONDS",
        default_value_t = 0
    )]
    pub verify_interval_secs: u64,

    /// Seconds after which a backup is too old for readiness: `/health/ready` answers 503 when
    /// the last backup finished longer ago (or, before any, the schedule started longer ago).
    /// 0: a stale backup is told in `/health` but never fails readiness.
    #[arg(
        id = "backup-ready-max-age-seconds",
        long = "backup-ready-max-age-seconds",
        env = "BACKUP_READY_MAX_AGE_SECONDS",
        default_value_t = 0
    )]
    pub ready_max_age_secs: u64,

    /// The pgBackRest program (Debian's `pgbackrest`).
    #[arg(
        id = "backup-pgbackrest-bin",
        long = "backup-pgbackrest-bin",
        env = "BACKUP_PGBACKREST_BIN",
        default_value = "pgbackrest"
    )]
    pub pgbackrest_bin: PathBuf,
}
