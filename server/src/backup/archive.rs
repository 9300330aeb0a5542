//! Archiving setup of the embedded cluster: whether it archives its WAL, the configuration file
//! pgBackRest reads, the cluster's `archive_command`, and on the first start the stanza and a
//! first full backup.
//!
//! It decides and prepares; it never starts the cluster (the `db` module does) nor schedules
//! anything (`schedule` does).

use crate::config::Config;
use crate::db::embedded::{Archive, EmbeddedPostgres};

use super::{configured, BackupError, Backups};

/// Whether the embedded cluster of `config` archives its WAL: as `BACKUP_ENABLED` says, else
/// when the server serves (`make run`) or when the data directory already has a repository (a
/// later `db start` must not leave a gap in the archive). Never for `DATABASE_URL`.
pub fn wanted(config: &Config, serving: bool) -> bool {
    if config.database_url.is_some() {
        return false;
    }
    config.backup.enabled.unwrap_or_else(|| serving || configured(&config.data_dir))
}

/// `cluster` with archiving on and pgBackRest's configuration written, when `wanted`; the
/// backups that go with it. A missing pgBackRest is a warning and the cluster does not archive
/// (an `archive_command` that always fails would fill its disk with WAL).
pub fn prepare(config: &Config, cluster: EmbeddedPostgres, serving: bool) -> (EmbeddedPostgres, Option<Backups>) {
    if !wanted(config, serving) {
        return (cluster, None);
    }
    let backups = match Backups::new(config, &cluster).and_then(|b| b.write_conf().map(|()| b)) {
        Ok(backups) => backups,
        Err(err) => {
            tracing::warn!(error = %err, "backups are off: WAL is not archived");
            return (cluster, None);
        }
    };
    let archive =
        Archive { command: backups.pgbackrest.archive_command(), timeout_secs: config.backup.archive_timeout_secs };
    (cluster.with_archive(Some(archive)), Some(backups))
}

/// On a running, archiving cluster: create the stanza (idempotent) and take a full backup when
/// the repository has none. Blocking (pgBackRest runs as a child process).
pub fn first_backup(backups: &Backups) -> Result<Option<String>, BackupError> {
    backups.pgbackrest.stanza_create()?;
    let info = backups.pgbackrest.info()?;
    if !info.backup.is_empty() {
        return Ok(None);
    }
    backups.pgbackrest.backup("full")?;
    let info = backups.pgbackrest.info()?;
    Ok(info.backup.last().map(|b| b.label.clone()))
}

/// The line printed at start: where the backups go and how to move them.
pub fn announce(backups: &Backups) -> String {
    format!(
        "Backups: WAL archived and backed up with pgBackRest to {} (move it with BACKUP_REPO_PATH, or BACKUP_REPO_TYPE=s3; \
         BACKUP_ENABLED=false turns backups off)",
        backups.describe()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn config(args: &[&str]) -> Config {
        let mut argv = vec!["server", "--data-dir", "/nonexistent/backup-test"];
        argv.extend_from_slice(args);
        crate::config::Cli::parse_from(argv).config
    }

    #[test]
    fn serving_archives_by_default_and_a_first_db_start_does_not() {
        assert!(wanted(&config(&[]), true));
        assert!(!wanted(&config(&[]), false));
    }

    #[test]
    fn backup_enabled_decides_for_every_command() {
        assert!(!wanted(&config(&["--backup-enabled", "false"]), true));
        assert!(wanted(&config(&["--backup-enabled", "true"]), false));
    }

    #[test]
    fn an_external_database_is_never_archived_by_the_server() {
        assert!(!wanted(&config(&["--database-url", "postgres://x@y/z", "--backup-enabled", "true"]), true));
    }
}
