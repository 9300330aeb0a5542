//! Stored files in the backup repository: the local file backend's objects, copied beside the
//! database's backups so a restore gives rows and bytes that belong together.
//!
//! A stored version's bytes never change (a write makes a new version, `storage::backend`), so
//! the copy is incremental by key: `files/objects/<shard>/<version>` is copied once, with its
//! SHA-256 beside it (`<version>.sha256`); each copy writes a manifest (`files/manifests/<label>.json`)
//! of the objects the database named then, with the row counts recorded at the backup's restore
//! point (`counts`). A restore copies back the versions the restored database names and checks
//! each against its checksum. Old copies no kept backup can need are pruned (`prune`). With
//! `BACKUP_CIPHER_PASS`, copies, secrets and manifests are sealed (`cipher`); checksums are of
//! the bytes in clear. Nothing here reads rows itself except `rows`, the one query of
//! `storage.objects`.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::cipher::{self, Cipher, CipherError, KeyFile};
use super::BackupError;

/// One stored object the database names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub bucket: String,
    pub name: String,
    pub version: String,
    /// The object's bytes (in clear).
    #[serde(default)]
    pub size: u64,
    /// The bytes its copy takes in the repository: the sealed size with a passphrase (header and
    /// a tag per chunk more than `size`), `size` without.
    #[serde(default)]
    pub stored: u64,
    #[serde(default)]
    pub sha256: String,
    /// With the S3 backend: the bucket's version id of the object's key at backup time (bucket
    /// versioning on), and its ETag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s3_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
}

impl Entry {
    /// An object the database names, nothing known yet of its bytes.
    pub fn named(bucket: String, name: String, version: String) -> Entry {
        Entry { bucket, name, version, size: 0, stored: 0, sha256: String::new(), s3_version: None, etag: None }
    }
}

/// The objects of one copy.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub label: String,
    pub taken_at: i64,
    pub objects: Vec<Entry>,
    /// Every table's rows at the backup's restore point, when they could be counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<Counts>,
}

/// Row counts recorded at backup time, at a named restore point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// The restore point (`pg_create_restore_point`) at which the rows were counted.
    pub point: String,
    /// `schema.table` (quoted as `format('%I.%I')` quotes) → rows.
    pub tables: BTreeMap<String, i64>,
}

/// What a pruning removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pruned {
    pub manifests: usize,
    pub objects: usize,
    pub bytes: u64,
}

/// What a copy or a restore did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Objects copied (new ones).
    pub copied: usize,
    /// Bytes of the copied objects, in clear.
    pub bytes_copied: u64,
    /// Bytes the new copies take in the repository (sealed, with a passphrase).
    pub bytes_stored: u64,
    /// Objects already there (copy) or present and intact (check, restore).
    pub kept: usize,
    /// Objects named by the database whose bytes are not in the source.
    pub missing: Vec<String>,
    /// Objects whose bytes do not match their checksum.
    pub corrupt: Vec<String>,
    /// The objects a copy found in the repository afterwards (for the manifest).
    pub listed: Vec<Entry>,
}

/// The repository's folder of stored files.
#[derive(Debug, Clone)]
pub struct FileStore {
    root: PathBuf,
    cipher: Option<Arc<Cipher>>,
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
    Ok(rows.iter().map(|r| Entry::named(r.get(0), r.get(1), r.get(2))).collect())
}

impl FileStore {
    /// The folder `root`, in clear.
    pub fn new(root: PathBuf) -> FileStore {
        FileStore { root, cipher: None }
    }

    /// The folder `root` with the passphrase `pass`: its key file is read (a wrong passphrase
    /// is refused), or written when the passphrase is new. Without a passphrase, a folder that
    /// has a key file is refused: its files cannot be read, and new ones must not go in clear.
    pub fn open(root: PathBuf, pass: Option<&SecretString>) -> Result<FileStore, BackupError> {
        let key_path = root.join(cipher::KEY_FILE);
        let existing = match fs::read(&key_path) {
            Ok(bytes) => Some(
                serde_json::from_slice::<KeyFile>(&bytes)
                    .map_err(|e| BackupError::Refused(format!("{} cannot be read: {e}", key_path.display())))?,
            ),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => return Err(BackupError::Io { path: key_path, source }),
        };
        let (cipher, new_file) = cipher::key_for(existing, pass)?;
        if let Some(file) = new_file {
            let text = serde_json::to_vec_pretty(&file).map_err(|e| BackupError::Refused(e.to_string()))?;
            write_atomic(&key_path, &text)?;
        }
        Ok(FileStore { root, cipher: cipher.map(Arc::new) })
    }

    /// Whether copies are sealed.
    pub fn encrypted(&self) -> bool {
        self.cipher.is_some()
    }

    /// The repository's copy of a version.
    fn object(&self, version: &str) -> PathBuf {
        self.root.join(relative(version))
    }

    /// Copy the versions of `entries` not yet in the repository from the backend's folder
    /// `storage_dir`, then write the manifest `label` when one is given. Blocking.
    pub fn sync(&self, storage_dir: &Path, entries: &[Entry], label: Option<&str>) -> Result<Report, BackupError> {
        let report = self.copy_new(storage_dir, entries)?;
        if let Some(label) = label {
            self.write_manifest(&Manifest {
                label: label.to_string(),
                taken_at: chrono::Utc::now().timestamp(),
                objects: report.listed.clone(),
                counts: None,
            })?;
        }
        Ok(report)
    }

    /// Copy the versions of `entries` not yet in the repository (`listed`: those now there).
    /// Blocking.
    pub fn copy_new(&self, storage_dir: &Path, entries: &[Entry]) -> Result<Report, BackupError> {
        let mut report = Report::default();
        let mut listed = Vec::with_capacity(entries.len());
        for entry in entries {
            let Some(key) = safe(&entry.version) else { continue };
            let dest = self.object(key);
            let sum_path = checksum_path(&dest);
            let (size, stored, sha256) = match (fs::metadata(&dest), fs::read_to_string(&sum_path)) {
                (Ok(meta), Ok(sum)) => {
                    report.kept += 1;
                    let stored = meta.len();
                    // A sealed copy's size in clear follows from its length (`cipher::plain_len`).
                    let sealed = cipher::is_sealed(&dest).unwrap_or(false);
                    let size = if sealed { cipher::plain_len(stored).unwrap_or(stored) } else { stored };
                    (size, stored, sum.trim().to_string())
                }
                _ => {
                    let source = storage_dir.join(relative(key));
                    match self.copy_in(&source, &dest, key) {
                        Ok((size, sha256)) => {
                            write_atomic(&sum_path, sha256.as_bytes())?;
                            let stored = fs::metadata(&dest).map(|m| m.len()).unwrap_or(size);
                            report.copied += 1;
                            report.bytes_copied += size;
                            report.bytes_stored += stored;
                            (size, stored, sha256)
                        }
                        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                            report.missing.push(format!("{}/{}", entry.bucket, entry.name));
                            continue;
                        }
                        Err(source) => return Err(BackupError::Io { path: storage_dir.join(relative(key)), source }),
                    }
                }
            };
            listed.push(Entry { size, stored, sha256, ..entry.clone() });
        }
        report.listed = listed;
        Ok(report)
    }

    /// Write a backup's manifest (sealed with a passphrase); the bytes it takes.
    pub fn write_manifest(&self, manifest: &Manifest) -> Result<u64, BackupError> {
        let text = serde_json::to_vec_pretty(manifest).map_err(|e| BackupError::Refused(e.to_string()))?;
        let label = &manifest.label;
        let bytes = cipher::seal_bytes(self.cipher.as_deref(), &format!("manifests/{label}"), text)?;
        write_atomic(&self.manifest_path(label), &bytes)?;
        Ok(bytes.len() as u64)
    }

    /// The manifest of backup `label`, if the repository has one.
    pub fn manifest(&self, label: &str) -> Result<Option<Manifest>, BackupError> {
        Ok(self.manifest_stored(label)?.map(|(manifest, _)| manifest))
    }

    /// The manifest of backup `label` and the bytes it takes in the repository (sealed).
    pub fn manifest_stored(&self, label: &str) -> Result<Option<(Manifest, u64)>, BackupError> {
        let path = self.manifest_path(label);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(BackupError::Io { path, source }),
        };
        let manifest = parse_manifest(self.cipher.as_deref(), label, &bytes)?;
        Ok(Some((manifest, bytes.len() as u64)))
    }

    fn manifest_path(&self, label: &str) -> PathBuf {
        self.root.join("manifests").join(format!("{label}.json"))
    }

    /// Remove the manifests of backups not in `kept`, and the copies no kept manifest names that
    /// were made before `oldest_start` (Unix seconds; the start of the oldest kept backup): a
    /// copy made later may be needed by a restore to a time between two backups. Nothing is
    /// removed when no backup is kept. Blocking.
    pub fn prune(&self, kept: &[String], oldest_start: i64) -> Result<Pruned, BackupError> {
        let mut pruned = Pruned::default();
        if kept.is_empty() {
            return Ok(pruned);
        }
        let mut named: HashSet<String> = HashSet::new();
        for label in self.labels() {
            if kept.contains(&label) {
                if let Some(manifest) = self.manifest(&label)? {
                    named.extend(manifest.objects.into_iter().map(|e| e.version));
                }
            } else {
                let path = self.manifest_path(&label);
                fs::remove_file(&path).map_err(|source| BackupError::Io { path, source })?;
                pruned.manifests += 1;
            }
        }
        let Ok(shards) = fs::read_dir(self.root.join("objects")) else { return Ok(pruned) };
        for shard in shards.flatten() {
            let Ok(copies) = fs::read_dir(shard.path()) else { continue };
            for copy in copies.flatten() {
                let name = copy.file_name().to_string_lossy().into_owned();
                if name.contains('.') || named.contains(&name) {
                    continue;
                }
                let Ok(meta) = copy.metadata() else { continue };
                let made = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(i64::MAX, |d| d.as_secs() as i64);
                if made >= oldest_start {
                    continue;
                }
                let path = copy.path();
                fs::remove_file(&path).map_err(|source| BackupError::Io { path: path.clone(), source })?;
                let _ = fs::remove_file(checksum_path(&path));
                pruned.objects += 1;
                pruned.bytes += meta.len();
            }
        }
        Ok(pruned)
    }

    /// Copy a stored file into the repository (sealed with a passphrase), hashing its bytes.
    fn copy_in(&self, source: &Path, dest: &Path, key: &str) -> std::io::Result<(u64, String)> {
        let mut input = fs::File::open(source)?;
        write_through(dest, |output| {
            let mut hashing = Hashing { inner: &mut input, hasher: Sha256::new() };
            let size = match &self.cipher {
                Some(cipher) => cipher.seal(&place(key), &mut hashing, output).map_err(into_io)?,
                None => std::io::copy(&mut hashing, output)?,
            };
            Ok((size, hex::encode(hashing.hasher.finalize())))
        })
    }

    /// A copy's bytes in clear into `output`, with their SHA-256.
    fn read_copy(&self, copy: &Path, key: &str, output: &mut dyn Write) -> Result<(u64, String), CipherError> {
        let mut hashing = HashingWriter { inner: output, hasher: Sha256::new() };
        let size = cipher::read_plain(self.cipher.as_deref(), &place(key), copy, &mut hashing)?;
        Ok((size, hex::encode(hashing.hasher.finalize())))
    }

    /// Check the repository's copy of each of `entries` against its checksum. Blocking.
    pub fn check(&self, entries: &[Entry]) -> Report {
        let mut report = Report::default();
        self.with_checksums(entries, &mut report, |copy, key, expected, who, report| {
            match self.read_copy(copy, key, &mut std::io::sink()) {
                Ok((_, actual)) if actual == expected => report.kept += 1,
                Ok(_) | Err(CipherError::Damaged) => report.corrupt.push(who),
                Err(_) => report.missing.push(who),
            }
        });
        report
    }

    /// Copy the versions of `entries` into the backend folder `storage_dir`, each checked
    /// against its checksum (a corrupt copy is reported and not restored). Blocking.
    pub fn restore(&self, entries: &[Entry], storage_dir: &Path) -> Result<Report, BackupError> {
        let mut report = Report::default();
        self.with_checksums(entries, &mut report, |copy, key, expected, who, report| {
            let dest = storage_dir.join(relative(key));
            let written = write_through(&dest, |output| {
                self.read_copy(copy, key, output).map_err(|e| match e {
                    CipherError::Io(err) => err,
                    other => std::io::Error::new(std::io::ErrorKind::InvalidData, other),
                })
            });
            match written {
                Ok((size, actual)) if actual == expected => {
                    report.copied += 1;
                    report.bytes_copied += size;
                }
                Ok(_) => {
                    let _ = fs::remove_file(&dest);
                    report.corrupt.push(who);
                }
                Err(err) if err.kind() == std::io::ErrorKind::InvalidData => report.corrupt.push(who),
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
            let name = entry.file_name().to_string_lossy().into_owned();
            let dest = dir.join(&name);
            let Ok(bytes) = fs::read(entry.path()) else { continue };
            let mut old = Vec::new();
            let same = cipher::read_plain(self.cipher.as_deref(), &format!("secrets/{name}"), &dest, &mut old)
                .is_ok_and(|_| old == bytes);
            // A copy in clear is sealed again once a passphrase is set.
            if same && (self.cipher.is_none() || cipher::is_sealed(&dest).unwrap_or(false)) {
                continue;
            }
            let sealed = match &self.cipher {
                Some(cipher) => {
                    let mut sealed = Vec::new();
                    cipher.seal(&format!("secrets/{name}"), &mut &bytes[..], &mut sealed)?;
                    sealed
                }
                None => bytes,
            };
            let tmp = dest.with_extension("tmp");
            let io = |source| BackupError::Io { path: dest.clone(), source };
            let mut file =
                fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp).map_err(io)?;
            file.write_all(&sealed).map_err(io)?;
            fs::rename(&tmp, &dest).map_err(io)?;
        }
        Ok(())
    }

    /// Copy the repository's secrets in clear into `to` (mode 0600), leaving those `to` already
    /// has. Blocking.
    pub fn restore_secrets(&self, to: &Path) -> Result<(), BackupError> {
        let Ok(entries) = fs::read_dir(self.secrets_dir()) else { return Ok(()) };
        let io = |source| BackupError::Io { path: to.to_path_buf(), source };
        fs::create_dir_all(to).map_err(io)?;
        fs::set_permissions(to, fs::Permissions::from_mode(0o700)).map_err(io)?;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let dest = to.join(&name);
            if !entry.path().is_file() || name.ends_with(".tmp") || dest.exists() {
                continue;
            }
            let mut bytes = Vec::new();
            cipher::read_plain(self.cipher.as_deref(), &format!("secrets/{name}"), &entry.path(), &mut bytes)?;
            let io = |source| BackupError::Io { path: dest.clone(), source };
            let mut file = fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&dest).map_err(io)?;
            file.write_all(&bytes).map_err(io)?;
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

/// The manifest of backup `label` from the bytes the repository holds (sealed or not).
pub fn parse_manifest(cipher: Option<&Cipher>, label: &str, bytes: &[u8]) -> Result<Manifest, BackupError> {
    let text = cipher::open_bytes(cipher, &format!("manifests/{label}"), bytes)?;
    serde_json::from_slice(&text)
        .map_err(|e| BackupError::Refused(format!("the manifest of backup {label} cannot be read: {e}")))
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

/// The associated data of an object's sealed copy: its place in the repository.
fn place(key: &str) -> String {
    format!("objects/{key}")
}

fn into_io(err: CipherError) -> std::io::Error {
    match err {
        CipherError::Io(err) => err,
        other => std::io::Error::new(std::io::ErrorKind::InvalidData, other),
    }
}

/// Write `dest` through a temporary file renamed into place once `write` has succeeded and the
/// bytes are on disk.
fn write_through<T>(dest: &Path, write: impl FnOnce(&mut dyn Write) -> std::io::Result<T>) -> std::io::Result<T> {
    if let Some(parent) = dest.parent() {
        fs::create_dir_all(parent)?;
    }
    let tmp = dest.with_extension(format!("tmp-{}", std::process::id()));
    let written = (|| {
        let file = fs::File::create(&tmp)?;
        let mut output = std::io::BufWriter::with_capacity(256 * 1024, file);
        let value = write(&mut output)?;
        output.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        fs::rename(&tmp, dest)?;
        Ok(value)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// A reader that hashes what it gives.
struct Hashing<'a> {
    inner: &'a mut dyn Read,
    hasher: Sha256,
}

impl Read for Hashing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// A writer that hashes what it is given.
struct HashingWriter<'a> {
    inner: &'a mut dyn Write,
    hasher: Sha256,
}

impl Write for HashingWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
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
        Entry::named("b".into(), name.into(), version.into())
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
    fn with_a_passphrase_copies_secrets_and_manifests_are_sealed_and_restore_to_the_same_bytes() {
        let dir = std::env::temp_dir().join(format!("backup-files-sealed-{}", std::process::id()));
        let (storage, repo, target) = (dir.join("storage"), dir.join("repo"), dir.join("target"));
        let secrets = dir.join("secrets");
        put(&storage, "aa11", b"the bytes of a stored object");
        fs::create_dir_all(&secrets).unwrap();
        fs::write(secrets.join("jwt_secret"), b"super-secret-jwt").unwrap();
        let pass = SecretString::from("correct horse".to_string());
        let store = FileStore::open(repo.clone(), Some(&pass)).unwrap();
        assert!(store.encrypted());
        let entries = vec![entry("a.txt", "aa11")];
        store.sync(&storage, &entries, Some("L1")).unwrap();
        store.save_secrets(&secrets).unwrap();

        let copy = fs::read(store.object("aa11")).unwrap();
        assert!(copy.starts_with(cipher::MAGIC) && !copy.windows(9).any(|w| w == b"the bytes"), "the copy is sealed");
        let secret = fs::read(store.secrets_dir().join("jwt_secret")).unwrap();
        assert!(!secret.windows(12).any(|w| w == b"super-secret"), "the secret is sealed");
        let manifest = fs::read(repo.join("manifests/L1.json")).unwrap();
        assert!(!manifest.windows(5).any(|w| w == b"a.txt"), "the manifest is sealed");

        let again = FileStore::open(repo.clone(), Some(&pass)).unwrap();
        let restored = again.restore(&entries, &target).unwrap();
        assert_eq!((restored.copied, restored.corrupt.len()), (1, 0));
        assert_eq!(fs::read(target.join(relative("aa11"))).unwrap(), b"the bytes of a stored object");
        again.restore_secrets(&target.join("secrets")).unwrap();
        assert_eq!(fs::read(target.join("secrets/jwt_secret")).unwrap(), b"super-secret-jwt");
        assert_eq!(again.manifest("L1").unwrap().unwrap().objects[0].name, "a.txt");
        assert_eq!(again.check(&entries).kept, 1);

        let without = FileStore::open(repo.clone(), None).unwrap_err().to_string();
        assert!(without.contains("BACKUP_CIPHER_PASS"), "{without}");
        let wrong = FileStore::open(repo.clone(), Some(&SecretString::from("wrong".to_string()))).unwrap_err();
        assert!(wrong.to_string().contains("does not open"), "{wrong}");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_sealed_copy_records_its_size_in_clear_and_its_sealed_size_copied_or_kept() {
        let dir = std::env::temp_dir().join(format!("backup-files-sizes-{}", std::process::id()));
        let (storage, repo) = (dir.join("storage"), dir.join("repo"));
        let bytes = vec![9u8; 70_000];
        put(&storage, "cc33", &bytes);
        let pass = SecretString::from("correct horse".to_string());
        let store = FileStore::open(repo.clone(), Some(&pass)).unwrap();
        let entries = vec![entry("big.bin", "cc33")];
        let on_disk = || fs::metadata(store.object("cc33")).unwrap().len();

        let first = store.sync(&storage, &entries, Some("L1")).unwrap();
        assert_eq!((first.bytes_copied, first.bytes_stored), (70_000, on_disk()));
        let second = store.sync(&storage, &entries, Some("L2")).unwrap();
        assert_eq!(second.kept, 1);
        for listed in [&first.listed[0], &second.listed[0]] {
            assert_eq!(listed.size, 70_000, "the size in clear");
            assert_eq!(listed.stored, on_disk(), "the sealed size");
            assert_eq!(listed.stored, cipher::sealed_len(70_000));
        }
        let (manifest, manifest_bytes) = store.manifest_stored("L2").unwrap().unwrap();
        assert_eq!(manifest.objects[0].stored, on_disk());
        assert_eq!(manifest_bytes, fs::metadata(repo.join("manifests/L2.json")).unwrap().len(), "the sealed manifest");

        let plain = FileStore::new(dir.join("plain"));
        let listed = plain.sync(&storage, &entries, None).unwrap().listed;
        assert_eq!((listed[0].size, listed[0].stored), (70_000, 70_000), "in clear both are the same");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn pruning_keeps_what_a_kept_backup_or_a_later_restore_may_need() {
        let dir = std::env::temp_dir().join(format!("backup-files-prune-{}", std::process::id()));
        let (storage, repo) = (dir.join("storage"), dir.join("repo"));
        for v in ["old1", "kept1", "new1"] {
            put(&storage, v, v.as_bytes());
        }
        let store = FileStore::new(repo.clone());
        // L1 named old1 and kept1; L2 names kept1 only; new1 was copied after L2 started.
        store.sync(&storage, &[entry("o", "old1"), entry("k", "kept1")], Some("L1")).unwrap();
        store.sync(&storage, &[entry("k", "kept1")], Some("L2")).unwrap();
        let l2_start = chrono::Utc::now().timestamp() + 1;
        store.sync(&storage, &[entry("n", "new1")], None).unwrap();
        let later = fs::File::options().write(true).open(store.object("new1")).unwrap();
        later.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(l2_start as u64 + 5)).unwrap();

        assert_eq!(store.prune(&[], l2_start).unwrap(), Pruned::default(), "nothing without a kept backup");
        let pruned = store.prune(&["L2".to_string()], l2_start).unwrap();
        assert_eq!((pruned.manifests, pruned.objects, pruned.bytes), (1, 1, 4));
        assert_eq!(store.labels(), ["L2"]);
        assert!(!store.object("old1").exists() && !checksum_path(&store.object("old1")).exists());
        assert!(store.object("kept1").exists(), "named by a kept backup");
        assert!(store.object("new1").exists(), "copied after the oldest kept backup started");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn versions_that_are_not_file_names_are_skipped() {
        assert_eq!(safe("3f1c-aa_9"), Some("3f1c-aa_9"));
        assert_eq!(safe("../etc"), None);
        assert_eq!(safe(""), None);
    }
}
