//! The pgBackRest driver: writes the stanza's configuration file, runs pgBackRest's commands as
//! child processes (as the cluster's owner, since its files and the repository are that user's)
//! and reads `info --output=json`.
//!
//! It knows nothing of schedules, stored files or the server: it turns settings into pgBackRest's
//! options and its answers into typed values. Secrets (the repository's passphrase, S3 keys) go
//! only into the configuration file, mode 0600; pgBackRest redacts them in its own logs.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

use super::BackupError;

/// The stanza: pgBackRest's name for the one cluster the server backs up.
pub const STANZA: &str = "main";

/// Where pgBackRest keeps a repository.
#[derive(Debug, Clone)]
pub enum Repo {
    /// A folder on this machine.
    Posix(PathBuf),
    /// A path inside an S3 bucket.
    S3 { bucket: String, path: String, endpoint: Option<String>, region: String, verify_tls: bool },
}

/// Everything the configuration file says.
#[derive(Debug, Clone)]
pub struct Settings {
    pub repo: Repo,
    pub s3_key: Option<String>,
    pub s3_secret: Option<SecretString>,
    pub cipher_pass: Option<SecretString>,
    pub retention_full: u32,
    pub retention_days: Option<u32>,
    /// pgBackRest's lock, log and spool folder.
    pub home: PathBuf,
    pub pgdata: PathBuf,
    pub socket_dir: PathBuf,
    pub port: u16,
}

/// The text of `pgbackrest.conf` for `settings`.
pub fn render_conf(settings: &Settings) -> String {
    let mut global: Vec<(String, String)> = Vec::new();
    let mut set = |key: &str, value: String| global.push((key.to_string(), value));
    match &settings.repo {
        Repo::Posix(path) => {
            set("repo1-type", "posix".into());
            set("repo1-path", path.display().to_string());
        }
        Repo::S3 { bucket, path, endpoint, region, verify_tls } => {
            set("repo1-type", "s3".into());
            set("repo1-path", path.clone());
            set("repo1-s3-bucket", bucket.clone());
            set("repo1-s3-region", region.clone());
            let endpoint = endpoint.clone().unwrap_or_else(|| format!("s3.{region}.amazonaws.com"));
            let (host, port) = host_and_port(&endpoint);
            set("repo1-s3-endpoint", host);
            if let Some(port) = port {
                set("repo1-storage-port", port.to_string());
            }
            set("repo1-s3-uri-style", "path".into());
            // Small files bundled into a few objects: a fresh cluster's ~1,000 files would be
            // ~1,000 requests each way, and every request to an object store has its latency.
            set("repo1-bundle", "y".into());
            // Requests in flight at once (backup, restore, verify): an object store's latency,
            // not the CPU, bounds them.
            set("process-max", "4".into());
            if !verify_tls {
                set("repo1-storage-verify-tls", "n".into());
            }
            if let Some(key) = &settings.s3_key {
                set("repo1-s3-key", key.clone());
            }
            if let Some(secret) = &settings.s3_secret {
                set("repo1-s3-key-secret", secret.expose_secret().to_string());
            }
        }
    }
    if let Some(pass) = &settings.cipher_pass {
        set("repo1-cipher-type", "aes-256-cbc".into());
        set("repo1-cipher-pass", pass.expose_secret().to_string());
    }
    match settings.retention_days {
        Some(days) => {
            set("repo1-retention-full-type", "time".into());
            set("repo1-retention-full", days.max(1).to_string());
        }
        None => set("repo1-retention-full", settings.retention_full.max(1).to_string()),
    }
    set("lock-path", settings.home.join("lock").display().to_string());
    set("log-path", settings.home.join("log").display().to_string());
    set("spool-path", settings.home.join("spool").display().to_string());
    set("log-level-console", "warn".into());
    set("log-level-stderr", "off".into());
    set("log-level-file", "info".into());
    set("start-fast", "y".into());
    set("compress-type", "lz4".into());
    set("archive-timeout", "120".into());
    let mut text =
        String::from("# Written by the server at each start (settings BACKUP_*): edits are lost.\n[global]\n");
    for (key, value) in global {
        text.push_str(&format!("{key}={value}\n"));
    }
    text.push_str(&format!(
        "\n[{STANZA}]\npg1-path={}\npg1-socket-path={}\npg1-port={}\npg1-user=postgres\n",
        settings.pgdata.display(),
        settings.socket_dir.display(),
        settings.port
    ));
    text
}

/// `https://host:9000` → (`host`, Some(9000)); pgBackRest wants the host alone.
fn host_and_port(endpoint: &str) -> (String, Option<u16>) {
    let bare = endpoint.trim_start_matches("https://").trim_start_matches("http://").trim_end_matches('/');
    match bare.rsplit_once(':') {
        Some((host, port)) if port.parse::<u16>().is_ok() => (host.to_string(), port.parse().ok()),
        _ => (bare.to_string(), None),
    }
}

/// pgBackRest for one stanza: its program, its configuration file and the user it runs as.
#[derive(Debug, Clone)]
pub struct PgBackRest {
    pub bin: PathBuf,
    pub conf: PathBuf,
    owner: Option<(u32, u32)>,
    home: PathBuf,
}

/// What a restore aims at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Every archived WAL segment replayed.
    Latest,
    /// The last transaction committed at or before this time.
    Time(String),
    /// The end of this backup.
    Backup(String),
    /// A named restore point (`pg_create_restore_point`) reached from backup `label`.
    Point { label: String, name: String },
}

impl PgBackRest {
    /// pgBackRest as `bin` (looked up in PATH when not a path), with `conf`, run as `owner`.
    pub fn new(bin: &Path, conf: PathBuf, home: PathBuf, owner: Option<(u32, u32)>) -> Result<PgBackRest, BackupError> {
        let bin = resolve(bin).ok_or_else(|| BackupError::NoPgBackRest(bin.to_path_buf()))?;
        Ok(PgBackRest { bin, conf, owner, home })
    }

    /// Write the configuration file (mode 0600, the owner's) and pgBackRest's folders.
    pub fn write_conf(&self, settings: &Settings) -> Result<(), BackupError> {
        for dir in [self.home.clone(), self.home.join("lock"), self.home.join("log"), self.home.join("spool")] {
            fs::create_dir_all(&dir).map_err(|source| BackupError::Io { path: dir.clone(), source })?;
            fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
                .map_err(|source| BackupError::Io { path: dir.clone(), source })?;
            self.chown(&dir)?;
        }
        if let Repo::Posix(path) = &settings.repo {
            fs::create_dir_all(path).map_err(|source| BackupError::Io { path: path.clone(), source })?;
            self.chown(path)?;
        }
        let tmp = self.conf.with_extension("conf.tmp");
        let io = |source| BackupError::Io { path: tmp.clone(), source };
        let mut file =
            fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp).map_err(io)?;
        file.write_all(render_conf(settings).as_bytes()).map_err(io)?;
        drop(file);
        self.chown(&tmp)?;
        fs::rename(&tmp, &self.conf).map_err(|source| BackupError::Io { path: self.conf.clone(), source })
    }

    /// Give `path` to the cluster's owner (when the server runs as root).
    pub fn chown(&self, path: &Path) -> Result<(), BackupError> {
        if let Some((uid, gid)) = self.owner {
            std::os::unix::fs::chown(path, Some(uid), Some(gid))
                .map_err(|source| BackupError::Io { path: path.to_path_buf(), source })?;
        }
        Ok(())
    }

    /// The `archive_command` of the cluster.
    pub fn archive_command(&self) -> String {
        format!("{} --config={} --stanza={STANZA} archive-push %p", self.bin.display(), self.conf.display())
    }

    /// Create the stanza (idempotent: an existing one that matches the cluster is fine).
    pub fn stanza_create(&self) -> Result<(), BackupError> {
        self.run("stanza-create", &[]).map(drop)
    }

    /// pgBackRest's `check`: the configuration, and that a WAL segment reaches the archive.
    pub fn check(&self) -> Result<(), BackupError> {
        self.run("check", &[]).map(drop)
    }

    /// Take a backup (`full`, `diff` or `incr`); expired backups are removed afterwards.
    pub fn backup(&self, kind: &str) -> Result<(), BackupError> {
        if !matches!(kind, "full" | "diff" | "incr") {
            return Err(BackupError::Refused(format!("unknown backup type {kind:?} (expected full, diff or incr)")));
        }
        self.run("backup", &[format!("--type={kind}").into()]).map(drop)
    }

    /// The stanza's backups and archive.
    pub fn info(&self) -> Result<Info, BackupError> {
        let out = self.run("info", &["--output=json".into()])?;
        let info = parse_info(&out)?;
        // 0 ok, 1 no stanza yet, 2 no backup yet, 3 stanza data missing, 6 a backup runs; the
        // others (5 the database changed, 99 the repository cannot be read) are failures.
        if matches!(info.status.code, 0..=3 | 6) {
            return Ok(info);
        }
        let said = info.repo.iter().map(|r| r.status.message.as_str()).collect::<Vec<_>>().join("\n");
        Err(BackupError::PgBackRest { command: "info".into(), detail: explain(&said) })
    }

    /// pgBackRest's own `verify`: every file of the repository against its recorded checksum.
    pub fn verify(&self) -> Result<String, BackupError> {
        self.run("verify", &["--log-level-console=info".into()])
    }

    /// Restore into `pgdata` (another folder than the stanza's, or the stanza's own with
    /// `delta`). `archive_off`: the restored cluster must not push WAL to this repository.
    pub fn restore(&self, pgdata: &Path, target: &Target, delta: bool, archive_off: bool) -> Result<(), BackupError> {
        let mut args: Vec<OsString> = vec![format!("--pg1-path={}", pgdata.display()).into()];
        args.extend(restore_args(target).into_iter().map(OsString::from));
        if delta {
            args.push("--delta".into());
        }
        if archive_off {
            args.push("--archive-mode=off".into());
        }
        self.run("restore", &args).map(drop)
    }

    /// Run one command; its standard output, or an error with what pgBackRest said.
    pub fn run(&self, command: &str, args: &[OsString]) -> Result<String, BackupError> {
        let mut cmd = Command::new(&self.bin);
        cmd.arg(format!("--config={}", self.conf.display())).arg(format!("--stanza={STANZA}")).args(args).arg(command);
        // pgBackRest reads PGBACKREST_* variables: only the configuration file speaks.
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("PGBACKREST_") {
                cmd.env_remove(name);
            }
        }
        if let Some((uid, gid)) = self.owner {
            use std::os::unix::process::CommandExt;
            cmd.uid(uid).gid(gid).env("HOME", &self.home).current_dir(&self.home);
        }
        let out = cmd.output().map_err(|err| BackupError::PgBackRest {
            command: command.to_string(),
            detail: format!("cannot run {}: {err}", self.bin.display()),
        })?;
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        if out.status.success() {
            return Ok(stdout);
        }
        let said = format!("{}{}", String::from_utf8_lossy(&out.stderr), stdout);
        Err(BackupError::PgBackRest { command: command.to_string(), detail: explain(said.trim()) })
    }
}

/// The options of a restore to `target`; the restored cluster is promoted when it gets there.
pub fn restore_args(target: &Target) -> Vec<String> {
    match target {
        Target::Latest => vec!["--type=default".into()],
        Target::Time(time) => {
            vec!["--type=time".into(), format!("--target={time}"), "--target-action=promote".into()]
        }
        Target::Backup(label) => {
            vec![format!("--set={label}"), "--type=immediate".into(), "--target-action=promote".into()]
        }
        Target::Point { label, name } => vec![
            format!("--set={label}"),
            "--type=name".into(),
            format!("--target={name}"),
            "--target-action=promote".into(),
        ],
    }
}

/// pgBackRest's message, with what to do for the failures an operator meets first. An
/// encrypted file read as plain text shows its ciphertext (`Salted__…`): never printed.
fn explain(said: &str) -> String {
    if said.contains("Salted__") {
        return "the repository is encrypted and no passphrase is set: set BACKUP_CIPHER_PASS to its passphrase".into();
    }
    let hint = if said.contains("CryptoError") {
        " (the repository is encrypted: BACKUP_CIPHER_PASS is not its passphrase)"
    } else if said.contains("LockAcquireError") || said.contains("unable to acquire lock") {
        " (another backup or restore of this stanza is running)"
    } else {
        ""
    };
    format!("{said}{hint}")
}

fn resolve(bin: &Path) -> Option<PathBuf> {
    if bin.components().count() > 1 {
        return bin.is_file().then(|| bin.to_path_buf());
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    std::env::split_paths(&path).map(|dir| dir.join(bin)).find(|p| p.is_file())
}

/// The stanza's state, from `info --output=json`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Info {
    #[serde(default)]
    pub backup: Vec<Backup>,
    #[serde(default)]
    pub archive: Vec<ArchiveRange>,
    pub status: Status,
    #[serde(default)]
    pub cipher: String,
    #[serde(default)]
    pub repo: Vec<RepoState>,
}

/// One repository's state.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RepoState {
    pub status: Status,
}

/// One backup of the stanza.
#[derive(Debug, Clone, Deserialize)]
pub struct Backup {
    pub label: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub timestamp: Span,
    pub info: Sizes,
    #[serde(default)]
    pub error: Option<bool>,
    pub archive: Option<WalRange>,
}

/// When a backup started and stopped (Unix seconds).
#[derive(Debug, Clone, Deserialize)]
pub struct Span {
    pub start: i64,
    pub stop: i64,
}

/// The database's size and what the backup takes in the repository, in bytes.
#[derive(Debug, Clone, Deserialize)]
pub struct Sizes {
    pub size: u64,
    pub repository: RepoSizes,
}

/// Bytes in the repository: all the backup needs, and what this one added.
#[derive(Debug, Clone, Deserialize)]
pub struct RepoSizes {
    pub size: u64,
    pub delta: u64,
}

/// First and last WAL segment a backup needs.
#[derive(Debug, Clone, Deserialize)]
pub struct WalRange {
    pub start: Option<String>,
    pub stop: Option<String>,
}

/// The archived WAL of one database id.
#[derive(Debug, Clone, Deserialize)]
pub struct ArchiveRange {
    pub min: Option<String>,
    pub max: Option<String>,
}

/// pgBackRest's status code (0 ok, 1 missing stanza, 2 no backup, …) and message.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Status {
    pub code: i64,
    pub message: String,
}

/// The one stanza of an `info --output=json` answer.
pub fn parse_info(json: &str) -> Result<Info, BackupError> {
    // pgBackRest escapes newlines in its messages but not other control characters (the
    // ciphertext of an encrypted file read as text shows up there): blanked, or JSON refuses them.
    let json: String = json.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let mut stanzas: Vec<Info> = serde_json::from_str(&json).map_err(|e| BackupError::Info(e.to_string()))?;
    if stanzas.is_empty() {
        return Err(BackupError::Info("no stanza".into()));
    }
    Ok(stanzas.swap_remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(repo: Repo) -> Settings {
        Settings {
            repo,
            s3_key: Some("AKID".into()),
            s3_secret: Some(SecretString::from("s3-secret")),
            cipher_pass: None,
            retention_full: 3,
            retention_days: None,
            home: "/d/pgbackrest".into(),
            pgdata: "/d/postgres".into(),
            socket_dir: "/d/pg-run".into(),
            port: 5432,
        }
    }

    #[test]
    fn a_posix_repository_is_a_folder_with_retention_by_count() {
        let text = render_conf(&settings(Repo::Posix("/d/backups".into())));
        assert!(text.contains("[global]\nrepo1-type=posix\nrepo1-path=/d/backups\n"), "{text}");
        assert!(text.contains("repo1-retention-full=3\n"));
        assert!(!text.contains("retention-full-type"));
        assert!(!text.contains("cipher"));
        assert!(!text.contains("s3-secret"), "S3 keys only for an S3 repository");
        assert!(text
            .ends_with("[main]\npg1-path=/d/postgres\npg1-socket-path=/d/pg-run\npg1-port=5432\npg1-user=postgres\n"));
    }

    #[test]
    fn an_s3_repository_names_its_endpoint_host_and_port_path_style() {
        let repo = Repo::S3 {
            bucket: "b".into(),
            path: "/backups".into(),
            endpoint: Some("https://127.0.0.1:9443/".into()),
            region: "us-east-1".into(),
            verify_tls: false,
        };
        let text = render_conf(&settings(repo));
        for line in [
            "repo1-type=s3\n",
            "repo1-path=/backups\n",
            "repo1-s3-bucket=b\n",
            "repo1-s3-endpoint=127.0.0.1\n",
            "repo1-storage-port=9443\n",
            "repo1-s3-uri-style=path\n",
            "repo1-bundle=y\n",
            "process-max=4\n",
            "repo1-storage-verify-tls=n\n",
            "repo1-s3-key=AKID\n",
            "repo1-s3-key-secret=s3-secret\n",
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
    }

    #[test]
    fn a_passphrase_encrypts_and_days_switch_retention_to_time() {
        let mut s = settings(Repo::Posix("/r".into()));
        s.cipher_pass = Some(SecretString::from("pass phrase"));
        s.retention_days = Some(14);
        let text = render_conf(&s);
        assert!(text.contains("repo1-cipher-type=aes-256-cbc\nrepo1-cipher-pass=pass phrase\n"));
        assert!(text.contains("repo1-retention-full-type=time\nrepo1-retention-full=14\n"));
        assert!(!format!("{s:?}").contains("pass phrase"), "the settings never print the passphrase");
    }

    #[test]
    fn restore_targets_become_pgbackrest_options() {
        assert_eq!(restore_args(&Target::Latest), ["--type=default"]);
        assert_eq!(
            restore_args(&Target::Time("2026-12-06 08:00:00+00".into())),
            ["--type=time", "--target=2026-12-06 08:00:00+00", "--target-action=promote"]
        );
        assert_eq!(
            restore_args(&Target::Backup("20261206-071744F".into())),
            ["--set=20261206-071744F", "--type=immediate", "--target-action=promote"]
        );
        assert_eq!(
            restore_args(&Target::Point { label: "L".into(), name: "backup-L".into() }),
            ["--set=L", "--type=name", "--target=backup-L", "--target-action=promote"]
        );
    }

    #[test]
    fn info_json_gives_backups_and_status() {
        let json = r#"[{"archive":[{"database":{"id":1,"repo-key":1},"id":"15-1","max":"000000010000000000000002","min":"000000010000000000000001"}],
            "backup":[{"archive":{"start":"000000010000000000000002","stop":"000000010000000000000002"},"backrest":{"format":5,"version":"2.45"},
            "database":{"id":1,"repo-key":1},"error":false,"info":{"delta":23213864,"repository":{"delta":4549004,"size":4549004},"size":23213864},
            "label":"20261206-071744F","lsn":{"start":"0/2000028","stop":"0/2000100"},"prior":null,"reference":null,
            "timestamp":{"start":1796541464,"stop":1796541469},"type":"full"}],
            "cipher":"none","db":[],"name":"main","repo":[],"status":{"code":0,"lock":{"backup":{"held":false}},"message":"ok"}}]"#;
        let info = parse_info(json).expect("parsed");
        assert_eq!(info.status.code, 0);
        assert_eq!(info.backup.len(), 1);
        assert_eq!(info.backup[0].label, "20261206-071744F");
        assert_eq!(info.backup[0].kind, "full");
        assert_eq!(info.backup[0].timestamp.stop, 1796541469);
        assert_eq!(info.backup[0].info.repository.size, 4549004);
        assert_eq!(info.archive[0].max.as_deref(), Some("000000010000000000000002"));
        assert!(parse_info("[]").is_err());
        let raw = "[{\"status\":{\"code\":99,\"message\":\"other\"},\"repo\":[{\"status\":{\"code\":99,\"message\":\"Salted__\u{1}\u{8}x\"}}]}]";
        let info = parse_info(raw).expect("control characters are blanked");
        assert!(explain(&info.repo[0].status.message).contains("BACKUP_CIPHER_PASS"));
        assert!(parse_info("not json").is_err());
    }

    #[test]
    fn an_encrypted_repository_read_without_its_key_says_so() {
        assert!(explain("[CryptoError] unable to load info file: unable to flush").contains("not its passphrase"));
        let plain = explain("FormatError: key/value found outside of section at line 1: Salted__Z\u{1}\u{2}");
        assert!(plain.contains("no passphrase is set") && !plain.contains("Salted"), "{plain}");
        assert_eq!(explain("ERROR: [055]: other"), "ERROR: [055]: other");
    }
}
