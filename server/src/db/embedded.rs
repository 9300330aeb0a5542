//! The private PostgreSQL cluster the server runs when no `DATABASE_URL` is given.
//!
//! It lives in `DATA_DIR/postgres` (initdb on first start, `wal_level=logical`), listens on
//! 127.0.0.1:`DB_PORT` and on a socket in `DATA_DIR/pg-run`, and uses the system's PostgreSQL
//! binaries. PostgreSQL refuses to run as root, so when the server is root the cluster runs as
//! the `postgres` system user and its directories are owned by it. This module only manages the
//! cluster's process and files; it never runs SQL.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use secrecy::{ExposeSecret, SecretString};

use crate::keys;

/// Superuser created by initdb.
pub const SUPERUSER: &str = "postgres";

/// Why the cluster could not be managed.
#[derive(Debug, thiserror::Error)]
pub enum EmbeddedError {
    #[error("no PostgreSQL binaries found (looked in PG_BIN_DIR, /usr/lib/postgresql/*/bin and PATH); run `make setup` or install Debian's `postgresql` package")]
    NoBinaries,
    #[error("the server runs as root, so PostgreSQL must run as the `postgres` system user, which does not exist; install Debian's `postgresql` package")]
    NoPostgresUser,
    #[error(
        "the `postgres` user cannot reach {0}; set DATA_DIR to a directory it can enter (e.g. under /tmp or /var/lib)"
    )]
    Unreachable(PathBuf),
    #[error("{action} failed: {detail}")]
    Command { action: &'static str, detail: String },
    #[error("file system error on {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Keys(#[from] keys::KeysError),
}

/// A cluster on disk, started or not.
#[derive(Debug, Clone)]
pub struct EmbeddedPostgres {
    bin_dir: PathBuf,
    data_dir: PathBuf,
    pgdata: PathBuf,
    run_dir: PathBuf,
    port: u16,
    owner: Option<(u32, u32)>,
    password: SecretString,
    archive: Option<Archive>,
}

/// Continuous WAL archiving of the cluster: the command Postgres runs for each finished WAL
/// segment, and the longest time a written segment may wait before it is switched and archived.
#[derive(Debug, Clone)]
pub struct Archive {
    pub command: String,
    pub timeout_secs: u64,
}

impl EmbeddedPostgres {
    /// Describe the cluster under `data_dir` (made absolute); nothing is started.
    pub fn new(data_dir: &Path, port: u16, bin_dir: Option<&Path>) -> Result<EmbeddedPostgres, EmbeddedError> {
        fs::create_dir_all(data_dir).map_err(|source| EmbeddedError::Io { path: data_dir.to_path_buf(), source })?;
        let data_dir =
            fs::canonicalize(data_dir).map_err(|source| EmbeddedError::Io { path: data_dir.to_path_buf(), source })?;
        let bin_dir = find_bin_dir(bin_dir).ok_or(EmbeddedError::NoBinaries)?;
        // SAFETY-free check of the effective user: root is uid 0.
        let owner = if is_root() { Some(postgres_user().ok_or(EmbeddedError::NoPostgresUser)?) } else { None };
        let password = SecretString::from(keys::read_or_create_secret(&data_dir, "db_password")?);
        Ok(EmbeddedPostgres {
            bin_dir,
            pgdata: data_dir.join("postgres"),
            run_dir: data_dir.join("pg-run"),
            data_dir,
            port,
            owner,
            password,
            archive: None,
        })
    }

    /// The same cluster with WAL archiving on (`archive_mode`, written at each start: a change
    /// takes a restart of the cluster).
    pub fn with_archive(mut self, archive: Option<Archive>) -> EmbeddedPostgres {
        self.archive = archive;
        self
    }

    /// Whether this description archives WAL.
    pub fn archives(&self) -> bool {
        self.archive.is_some()
    }

    /// The directory of the cluster's socket, lock and log.
    pub fn run_dir(&self) -> &Path {
        &self.run_dir
    }

    /// The port in the socket's name (5432 when the cluster listens on the socket only).
    pub fn socket_port(&self) -> u16 {
        if self.port == 0 {
            5432
        } else {
            self.port
        }
    }

    /// The directory of the PostgreSQL binaries.
    pub fn bin_dir(&self) -> &Path {
        &self.bin_dir
    }

    /// The (absolute) data directory the cluster lives under.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The user and group the cluster's files belong to when the server runs as root.
    pub fn owner(&self) -> Option<(u32, u32)> {
        self.owner
    }

    /// The connection URL over the private socket (superuser, trust auth on the socket).
    pub fn socket_url(&self) -> String {
        let port = if self.port == 0 { 5432 } else { self.port };
        let host: String = url::form_urlencoded::byte_serialize(self.run_dir.to_string_lossy().as_bytes()).collect();
        format!("postgresql:///postgres?user={SUPERUSER}&host={host}&port={port}")
    }

    /// The connection URL over TCP, with the generated superuser password (for psql and tools).
    pub fn tcp_url(&self) -> String {
        format!("postgresql://{SUPERUSER}:{}@127.0.0.1:{}/postgres", self.password.expose_secret(), self.port)
    }

    /// Initialise the cluster when its directory is empty, then start it unless it already runs.
    pub fn start(&self) -> Result<(), EmbeddedError> {
        self.prepare_dirs()?;
        if !self.pgdata.join("PG_VERSION").exists() {
            self.initdb()?;
        }
        self.write_settings()?;
        if self.is_running() {
            tracing::info!(pgdata = %self.pgdata.display(), "embedded PostgreSQL already running, reusing it");
            return Ok(());
        }
        let log = self.run_dir.join("postgres.log");
        let out = self.pg_ctl(&["-D", path_str(&self.pgdata), "-l", path_str(&log), "-w", "-t", "60", "start"])?;
        if !out.status.success() {
            let tail = fs::read_to_string(&log).unwrap_or_default();
            let tail: Vec<&str> = tail.lines().rev().take(10).collect();
            return Err(EmbeddedError::Command {
                action: "pg_ctl start",
                detail: format!(
                    "{}\n{}",
                    String::from_utf8_lossy(&out.stderr),
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                ),
            });
        }
        tracing::info!(pgdata = %self.pgdata.display(), port = self.port, "embedded PostgreSQL started");
        Ok(())
    }

    /// Stop the cluster (fast shutdown: sessions are ended, data is flushed).
    pub fn stop(&self) -> Result<(), EmbeddedError> {
        if !self.is_running() {
            return Ok(());
        }
        let out = self.pg_ctl(&["-D", path_str(&self.pgdata), "-m", "fast", "-w", "-t", "60", "stop"])?;
        if !out.status.success() {
            return Err(EmbeddedError::Command {
                action: "pg_ctl stop",
                detail: String::from_utf8_lossy(&out.stderr).into(),
            });
        }
        tracing::info!("embedded PostgreSQL stopped");
        Ok(())
    }

    /// The cluster's data directory.
    pub fn pgdata(&self) -> &Path {
        &self.pgdata
    }

    /// Whether a postmaster runs on this data directory.
    pub fn is_running(&self) -> bool {
        self.pgdata.join("postmaster.pid").exists()
            && self.pg_ctl(&["-D", path_str(&self.pgdata), "status"]).map(|out| out.status.success()).unwrap_or(false)
    }

    fn prepare_dirs(&self) -> Result<(), EmbeddedError> {
        for dir in [&self.pgdata, &self.run_dir] {
            fs::create_dir_all(dir).map_err(|source| EmbeddedError::Io { path: dir.clone(), source })?;
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
                .map_err(|source| EmbeddedError::Io { path: dir.clone(), source })?;
            if let Some((uid, gid)) = self.owner {
                std::os::unix::fs::chown(dir, Some(uid), Some(gid))
                    .map_err(|source| EmbeddedError::Io { path: dir.clone(), source })?;
            }
        }
        if self.owner.is_some() {
            // The postgres user must be able to enter every ancestor of the data directory.
            let out = self.as_owner(Command::new("test")).args(["-x", path_str(&self.pgdata)]).output();
            if !matches!(out, Ok(ref o) if o.status.success()) {
                return Err(EmbeddedError::Unreachable(self.data_dir.clone()));
            }
        }
        Ok(())
    }

    fn initdb(&self) -> Result<(), EmbeddedError> {
        let pwfile = self.run_dir.join("initdb.pw");
        fs::write(&pwfile, self.password.expose_secret())
            .map_err(|source| EmbeddedError::Io { path: pwfile.clone(), source })?;
        if let Some((uid, gid)) = self.owner {
            std::os::unix::fs::chown(&pwfile, Some(uid), Some(gid))
                .map_err(|source| EmbeddedError::Io { path: pwfile.clone(), source })?;
        }
        let out = self
            .as_owner(Command::new(self.bin_dir.join("initdb")))
            .args(["-D", path_str(&self.pgdata), "-U", SUPERUSER, "--pwfile", path_str(&pwfile)])
            .args(["--auth-local=trust", "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C.UTF-8"])
            .output()
            .map_err(|err| EmbeddedError::Command { action: "initdb", detail: err.to_string() });
        let _ = fs::remove_file(&pwfile);
        let out = out?;
        if !out.status.success() {
            return Err(EmbeddedError::Command {
                action: "initdb",
                detail: String::from_utf8_lossy(&out.stderr).into(),
            });
        }
        let conf = self.pgdata.join("postgresql.conf");
        let mut text = fs::read_to_string(&conf).map_err(|source| EmbeddedError::Io { path: conf.clone(), source })?;
        text.push_str("\n# Settings managed by the server on every start.\ninclude_if_exists 'server.conf'\n");
        fs::write(&conf, text).map_err(|source| EmbeddedError::Io { path: conf.clone(), source })?;
        tracing::info!(pgdata = %self.pgdata.display(), "initialised embedded PostgreSQL cluster");
        Ok(())
    }

    /// Settings rewritten at each start, so a changed DB_PORT or data path takes effect.
    /// pg_stat_statements is loaded and `compute_query_id` on, as in Supabase's Postgres: once
    /// `create extension pg_stat_statements` has run in a database, it shows what each statement
    /// costs, and verbose plans carry their "Query Identifier". pg_cron is loaded too (Debian's
    /// `postgresql-<major>-cron`), for the server's database `postgres`; its jobs connect over
    /// the private socket.
    fn write_settings(&self) -> Result<(), EmbeddedError> {
        let listen = if self.port == 0 { "" } else { "127.0.0.1" };
        let port = if self.port == 0 { 5432 } else { self.port };
        let run_dir = self.run_dir.display().to_string().replace('\'', "''");
        // Only what this installation has: a missing preload library stops Postgres starting.
        let has = |library: &str| self.bin_dir.parent().is_some_and(|d| d.join(format!("lib/{library}.so")).exists());
        let preload: Vec<&str> = ["pg_stat_statements", "pg_cron"].into_iter().filter(|l| has(l)).collect();
        let mut extra = String::new();
        if !preload.is_empty() {
            extra.push_str(&format!("shared_preload_libraries = '{}'\n", preload.join(",")));
        }
        if preload.contains(&"pg_cron") {
            extra.push_str(&format!("cron.database_name = 'postgres'\ncron.host = '{run_dir}'\n"));
        }
        let mut text = format!(
            "listen_addresses = '{listen}'\nport = {port}\nunix_socket_directories = '{run_dir}'\nwal_level = logical\nmax_connections = 200\nmax_wal_senders = 10\nmax_replication_slots = 64\nshared_buffers = 128MB\nlog_min_messages = warning\ncompute_query_id = on\n{extra}"
        );
        text.push_str(&archive_settings(self.archive.as_ref()));
        let path = self.pgdata.join("server.conf");
        fs::write(&path, text).map_err(|source| EmbeddedError::Io { path: path.clone(), source })?;
        if let Some((uid, gid)) = self.owner {
            std::os::unix::fs::chown(&path, Some(uid), Some(gid))
                .map_err(|source| EmbeddedError::Io { path, source })?;
        }
        Ok(())
    }

    fn pg_ctl(&self, args: &[&str]) -> Result<Output, EmbeddedError> {
        self.as_owner(Command::new(self.bin_dir.join("pg_ctl")))
            .args(args)
            .output()
            .map_err(|err| EmbeddedError::Command { action: "pg_ctl", detail: err.to_string() })
    }

    /// `command` run as the cluster's owner (the `postgres` user when the server is root).
    pub fn as_owner(&self, command: Command) -> Command {
        let mut command = command;
        if let Some((uid, gid)) = self.owner {
            command.uid(uid).gid(gid).env("HOME", &self.data_dir).current_dir(&self.data_dir);
        }
        command
    }
}

/// The archiving lines of `server.conf`: on with its command, or off (a restored copy started
/// for inspection must not push its WAL into the live cluster's repository).
fn archive_settings(archive: Option<&Archive>) -> String {
    match archive {
        Some(archive) => format!(
            "archive_mode = on\narchive_command = '{}'\narchive_timeout = {}\n",
            archive.command.replace('\'', "''"),
            archive.timeout_secs
        ),
        None => "archive_mode = off\n".to_string(),
    }
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap_or_default()
}

fn is_root() -> bool {
    // /proc/self/status holds the effective uid; avoids unsafe libc calls.
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("Uid:")).and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

/// uid and gid of the `postgres` system user, from /etc/passwd.
fn postgres_user() -> Option<(u32, u32)> {
    let passwd = fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        if fields.first() == Some(&"postgres") && fields.len() > 3 {
            Some((fields[2].parse().ok()?, fields[3].parse().ok()?))
        } else {
            None
        }
    })
}

/// PG_BIN_DIR, else the newest `/usr/lib/postgresql/<version>/bin` (15 or newer), else PATH.
pub fn find_bin_dir(configured: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = configured {
        return dir.join("initdb").exists().then(|| dir.to_path_buf());
    }
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version: u32 = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            (version >= 15 && bin.join("initdb").exists()).then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path).find(|dir| dir.join("initdb").exists() && dir.join("pg_ctl").exists())
    })
}

/// Whether the postmaster named in `pgdata/postmaster.pid` is alive (no process started: cheap
/// enough for a health check).
pub fn postmaster_alive(pgdata: &Path) -> bool {
    let Ok(text) = fs::read_to_string(pgdata.join("postmaster.pid")) else { return false };
    let Some(pid) = text.lines().next().and_then(|l| l.trim().parse::<libc::pid_t>().ok()) else { return false };
    // SAFETY: signal 0 only asks whether the process exists; nothing is delivered.
    pid > 0 && unsafe { libc::kill(pid, 0) == 0 }
}
