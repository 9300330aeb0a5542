//! Stored files in the backup repository: the local file backend's objects, copied beside the
//! database's backups so a restore gives rows and bytes that belong together.
//!
//! A stored version's bytes never change (a write makes a new version, `storage::backend`), so
//! the copy is incremental by key: `files/objects/<shard>/<version>` is copied once, with its
//! SHA-256 beside it (`<version>.sha256`); each copy writes a manifest (`files/manifests/<label>.json`)
//! of the objects the database named then. A restore copies back the versions the restored
//! database names and checks each against its checksum. Nothing here reads rows itself except
//! `rows`, the one query of `storage.objects`.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::BackupError;

/// One stored object the database names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub bucket: String,
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub size: u64,
    #[serde(default)]
    pub sha256: String,
}

/// The objects of one copy.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub label: String,
    pub taken_at: i64,
    pub objects: Vec<Entry>,
}

/// What a copy or a restore did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Objects copied (new ones).
    pub copied: usize,
    pub bytes_copied: u64,
    /// Objects already there (copy) or present and intact (check, restore).
    pub kept: usize,
    /// Objects named by the database whose bytes are not in the source.
    pub missing: Vec<String>,
    /// Objects whose bytes do not match their checksum.
    pub corrupt: Vec<String>,
}

/// The repository's folder of stored files.
#[derive(Debug, Clone)]
pub struct FileStore {
    root: PathBuf,
}

/// Every stored object's bucket, name and version, as the database says.
pub async fn rows(client: &tokio_postgres::Client) -> Result<Vec<Entry>, BackupError> {
    let exists = client
        .query_one("select to_regclass('storage.objects') is not null", &[])
        .await
        .map_err(|e| BackupError::Database(format!("cannot look for storage.objects: {e}")))?;
    if !exists.get::<_, bool>(0) {
        // A cluster not migrated yet stores no file.
        return Ok(Vec::new());
    }
    let rows = client
        .query(
            "select bucket_id, name, version from storage.objects where version is not null order by bucket_id, name",
            &[],
        )
        .await
        .map_err(|e| BackupError::Database(format!("cannot list storage.objects: {e}")))?;
    Ok(rows
        .iter()
        .map(|r| Entry { bucket: r.get(0), name: r.get(1), version: r.get(2), size: 0, sha256: String::new() })
        .collect())
}

impl FileStore {
    pub fn new(root: PathBuf) -> FileStore {
        FileStore { root }
    }

    /// The repository's copy of a version.
    fn object(&self, version: &str) -> PathBuf {
        self.root.join(relative(version))
    }

    /// Copy the versions of `entries` not yet in the repository from the backend's folder
    /// `storage_dir`, then write the manifest `label` when one is given. Blocking.
    pub fn sync(&self, storage_dir: &Path, entries: &[Entry], label: Option<&str>) -> Result<Report, BackupError> {
        let mut report = Report::default();
        let mut listed = Vec::with_capacity(entries.len());
        for entry in entries {
            let Some(key) = safe(&entry.version) else { continue };
            let dest = self.object(key);
            let sum_path = checksum_path(&dest);
            let (size, sha256) = match (fs::metadata(&dest), fs::read_to_string(&sum_path)) {
                (Ok(meta), Ok(sum)) => {
                    report.kept += 1;
                    (meta.len(), sum.trim().to_string())
                }
                _ => {
                    let source = storage_dir.join(relative(key));
                    match copy_hashed(&source, &dest) {
                        Ok((size, sha256)) => {
                            write_atomic(&sum_path, sha256.as_bytes())?;
                            report.copied += 1;
                            report.bytes_copied += size;
                            (size, sha256)
                        }
                        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                            report.missing.push(format!("{}/{}", entry.bucket, entry.name));
                            continue;
                        }
                        Err(source) => return Err(BackupError::Io { path: storage_dir.join(relative(key)), source }),
                    }
                }
            };
            listed.push(Entry { size, sha256, ..entry.clone() });
        }
        let Some(label) = label else { return Ok(report) };
        let manifest = Manifest { label: label.to_string(), taken_at: chrono::Utc::now().timestamp(), objects: listed };
        let text = serde_json::to_vec_pretty(&manifest).map_err(|e| BackupError::Refused(e.to_string()))?;
        write_atomic(&self.root.join("manifests").join(format!("{label}.json")), &text)?;
        Ok(report)
    }

    /// Check the repository's copy of each of `entries` against its checksum. Blocking.
    pub fn check(&self, entries: &[Entry]) -> Report {
        let mut report = Report::default();
        self.with_checksums(entries, &mut report, |copy, _, expected, who, report| match hash_file(copy) {
            Ok((_, actual)) if actual == expected => report.kept += 1,
            Ok(_) => report.corrupt.push(who),
            Err(_) => report.missing.push(who),
        });
        report
    }

    /// Copy the versions of `entries` into the backend folder `storage_dir`, each checked
    /// against its checksum (a corrupt copy is reported and not restored). Blocking.
    pub fn restore(&self, entries: &[Entry], storage_dir: &Path) -> Result<Report, BackupError> {
        let mut report = Report::default();
        self.with_checksums(entries, &mut report, |copy, key, expected, who, report| {
            let dest = storage_dir.join(relative(key));
            match copy_hashed(copy, &dest) {
                Ok((size, actual)) if actual == expected => {
                    report.copied += 1;
                    report.bytes_copied += size;
                }
                Ok(_) => {
                    let _ = fs::remove_file(&dest);
                    report.corrupt.push(who);
                }
                Err(_) => report.missing.push(who),
            }
        });
        Ok(report)
    }

    /// `f(copy, key, checksum, who, report)` for each of `entries` whose copy has a recorded
    /// checksum; the others are reported missing.
    fn with_checksums(
        &self,
        entries: &[Entry],
        report: &mut Report,
        mut f: impl FnMut(&Path, &str, &str, String, &mut Report),
    ) {
        for entry in entries {
            let who = format!("{}/{}", entry.bucket, entry.name);
            let Some(key) = safe(&entry.version) else { continue };
            let copy = self.object(key);
            match fs::read_to_string(checksum_path(&copy)) {
                Ok(expected) => f(&copy, key, expected.trim(), who, report),
                Err(_) => report.missing.push(who),
            }
        }
    }

    /// The repository's copy of the data directory's secrets (JWT secret, keys).
    pub fn secrets_dir(&self) -> PathBuf {
        self.root.join("secrets")
    }

    /// Copy the data directory's secrets (`secrets/`, mode 0600 files) into the repository, so a
    /// restore after a lost disk serves with the same keys. Blocking.
    pub fn save_secrets(&self, secrets: &Path) -> Result<(), BackupError> {
        let Ok(entries) = fs::read_dir(secrets) else { return Ok(()) };
        let dir = self.secrets_dir();
        let io = |source| BackupError::Io { path: dir.clone(), source };
        fs::create_dir_all(&dir).map_err(io)?;
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).map_err(io)?;
        for entry in entries.flatten() {
            let dest = dir.join(entry.file_name());
            let Ok(bytes) = fs::read(entry.path()) else { continue };
            if fs::read(&dest).is_ok_and(|old| old == bytes) {
                continue;
            }
            let tmp = dest.with_extension("tmp");
            let io = |source| BackupError::Io { path: dest.clone(), source };
            let mut file =
                fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp).map_err(io)?;
            file.write_all(&bytes).map_err(io)?;
            fs::rename(&tmp, &dest).map_err(io)?;
        }
        Ok(())
    }

    /// The manifests' labels, oldest first.
    pub fn labels(&self) -> Vec<String> {
        let mut labels: Vec<String> = fs::read_dir(self.root.join("manifests"))
            .map(|dir| {
                dir.filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".json").map(str::to_string)).collect()
            })
            .unwrap_or_default();
        labels.sort();
        labels
    }
}

/// `objects/<shard>/<version>`, the backend's own layout (`storage::backend::key_of`).
fn relative(version: &str) -> PathBuf {
    PathBuf::from(crate::storage::backend::key_of(version).as_ref())
}

/// A version usable as a file name (the backend makes UUIDs; anything else is skipped).
fn safe(version: &str) -> Option<&str> {
    let ok = !version.is_empty() && version.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then_some(version)
}

fn checksum_path(object: &Path) -> PathBuf {
    let mut name = object.file_name().unwrap_or_default().to_os_string();
    name.push(".sha256");
    object.with_file_name(name)
}

/// Copy `source` to `dest` (through a temporary file renamed into place), hashing on the way.
fn copy_hashed(source: &Path, dest: &Path) -> std::io::Result<(u64, String)> {
    let mut input = fs::File::open(source)?;
    if let Some(parent) = dest.parent() {
        fs::create_dir_all(parent)?;
    }
    let tmp = dest.with_extension(format!("tmp-{}", std::process::id()));
    let mut output = fs::File::create(&tmp)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut size = 0u64;
    let copied = (|| loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            output.sync_all()?;
            return Ok::<(), std::io::Error>(());
        }
        hasher.update(&buf[..n]);
        output.write_all(&buf[..n])?;
        size += n as u64;
    })();
    if let Err(err) = copied.and_then(|()| fs::rename(&tmp, dest)) {
        let _ = fs::remove_file(&tmp);
        return Err(err);
    }
    Ok((size, hex::encode(hasher.finalize())))
}

fn hash_file(path: &Path) -> std::io::Result<(u64, String)> {
    let mut input = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut size = 0u64;
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            return Ok((size, hex::encode(hasher.finalize())));
        }
        hasher.update(&buf[..n]);
        size += n as u64;
    }
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), BackupError> {
    let io = |source| BackupError::Io { path: path.to_path_buf(), source };
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(io)?;
    }
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, bytes).map_err(io)?;
    fs::rename(&tmp, path).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, version: &str) -> Entry {
        Entry { bucket: "b".into(), name: name.into(), version: version.into(), size: 0, sha256: String::new() }
    }

    fn put(storage: &Path, version: &str, bytes: &[u8]) {
        let path = storage.join(relative(version));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }

    #[test]
    fn only_new_versions_are_copied_and_a_restore_checks_their_bytes() {
        let dir = std::env::temp_dir().join(format!("backup-files-{}", std::process::id()));
        let (storage, repo, target) = (dir.join("storage"), dir.join("repo"), dir.join("target"));
        put(&storage, "aa11", b"one");
        put(&storage, "bb22", b"two");
        let store = FileStore::new(repo.clone());
        let entries = vec![entry("a.txt", "aa11"), entry("b.txt", "bb22"), entry("gone.txt", "cc33")];

        let first = store.sync(&storage, &entries, Some("L1")).unwrap();
        assert_eq!((first.copied, first.kept, first.bytes_copied), (2, 0, 6));
        assert_eq!(first.missing, ["b/gone.txt"]);
        let second = store.sync(&storage, &entries[..2], Some("L2")).unwrap();
        assert_eq!((second.copied, second.kept), (0, 2), "a version is copied once");
        assert_eq!(store.labels(), ["L1", "L2"]);
        let manifest: Manifest = serde_json::from_slice(&fs::read(repo.join("manifests/L2.json")).unwrap()).unwrap();
        assert_eq!(manifest.objects[0].sha256, hex::encode(Sha256::digest(b"one")));

        fs::write(store.object("bb22"), b"tw0").unwrap();
        let check = store.check(&entries[..2]);
        assert_eq!((check.kept, check.corrupt.clone()), (1, vec!["b/b.txt".to_string()]));
        let restored = store.restore(&entries, &target).unwrap();
        assert_eq!(restored.copied, 1);
        assert_eq!(restored.corrupt, ["b/b.txt"]);
        assert_eq!(restored.missing, ["b/gone.txt"]);
        assert_eq!(fs::read(target.join(relative("aa11"))).unwrap(), b"one");
        assert!(!target.join(relative("bb22")).exists(), "corrupt bytes are not restored");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn versions_that_are_not_file_names_are_skipped() {
        assert_eq!(safe("3f1c-aa_9"), Some("3f1c-aa_9"));
        assert_eq!(safe("../etc"), None);
        assert_eq!(safe(""), None);
    }
}
