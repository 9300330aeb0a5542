//! Where each backup's manifest lives: the row counts recorded at its restore point (`counts`)
//! and the stored objects it names (`files`), sealed with the repository's passphrase.
//!
//! A `posix` repository keeps them beside the stored files' copies (`REPO/files/manifests`,
//! `files::FileStore`); an `s3` repository keeps them in its bucket, under
//! `<BACKUP_REPO_PATH>/files/manifests/<label>.json`, with the key file (`cipher.json`) beside
//! them, so counts and object versions survive the loss of the machine with the backups. This
//! module reads and writes manifests only; it takes no backup and reads no row.

use std::sync::Arc;

use object_store::aws::AmazonS3Builder;
use object_store::path::Path;
use object_store::{ClientOptions, ObjectStore, PutPayload};
use secrecy::{ExposeSecret, SecretString};
use tokio::sync::OnceCell;

use super::cipher::{self, Cipher, KeyFile};
use super::files::{self, FileStore, Manifest};
use super::{blocking, BackupError};

/// A backup's manifest and the bytes it takes in the repository (sealed, with a passphrase).
#[derive(Debug, Clone)]
pub struct Stored {
    pub manifest: Manifest,
    pub bytes: u64,
}

/// The manifests of one repository.
#[derive(Debug, Clone)]
pub enum Manifests {
    /// `REPO/files/manifests` of a `posix` repository.
    Local(FileStore),
    /// `<path>/files/manifests` in the bucket of an `s3` repository.
    S3(S3Manifests),
}

/// The manifests of an `s3` repository.
#[derive(Clone)]
pub struct S3Manifests {
    store: Arc<dyn ObjectStore>,
    /// `<path>/files`, without a leading slash.
    prefix: String,
    pass: Option<SecretString>,
    /// Opened (or created) on first use from `<prefix>/cipher.json`.
    cipher: Arc<OnceCell<Option<Arc<Cipher>>>>,
}

impl std::fmt::Debug for S3Manifests {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Manifests").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

/// The S3 endpoint of an `s3` repository (pgBackRest's settings), for the object store client.
pub struct S3Endpoint<'a> {
    pub bucket: &'a str,
    pub path: &'a str,
    pub endpoint: Option<&'a str>,
    pub region: &'a str,
    pub verify_tls: bool,
    pub key: Option<&'a str>,
    pub secret: Option<&'a SecretString>,
}

impl S3Manifests {
    /// The manifests under `<path>/files` of the repository's bucket.
    pub fn new(s3: S3Endpoint<'_>, pass: Option<SecretString>) -> Result<S3Manifests, BackupError> {
        let mut builder = AmazonS3Builder::new()
            .with_bucket_name(s3.bucket)
            .with_region(s3.region)
            .with_virtual_hosted_style_request(false)
            .with_client_options(ClientOptions::new().with_allow_invalid_certificates(!s3.verify_tls));
        if let Some(endpoint) = s3.endpoint {
            // pgBackRest speaks only HTTPS: an endpoint without a scheme is an HTTPS one.
            let endpoint = if endpoint.contains("://") { endpoint.to_string() } else { format!("https://{endpoint}") };
            builder = builder.with_allow_http(endpoint.starts_with("http://")).with_endpoint(endpoint);
        }
        if let Some(key) = s3.key {
            builder = builder.with_access_key_id(key);
        }
        if let Some(secret) = s3.secret {
            builder = builder.with_secret_access_key(secret.expose_secret());
        }
        let store = builder
            .build()
            .map_err(|e| BackupError::Refused(format!("the S3 repository's manifests cannot be reached: {e}")))?;
        Ok(S3Manifests { store: Arc::new(store), prefix: prefix(s3.path), pass, cipher: Arc::new(OnceCell::new()) })
    }

    fn path(&self, rest: &str) -> Path {
        Path::from(format!("{}/{rest}", self.prefix))
    }

    async fn cipher(&self) -> Result<Option<Arc<Cipher>>, BackupError> {
        let cipher = self
            .cipher
            .get_or_try_init(|| async {
                let key_path = self.path(cipher::KEY_FILE);
                let existing = match self.store.get(&key_path).await {
                    Ok(got) => {
                        let bytes = got.bytes().await.map_err(s3_error)?;
                        Some(serde_json::from_slice::<KeyFile>(&bytes).map_err(|e| {
                            BackupError::Refused(format!("{key_path} in the S3 repository cannot be read: {e}"))
                        })?)
                    }
                    Err(object_store::Error::NotFound { .. }) => None,
                    Err(err) => return Err(s3_error(err)),
                };
                let (cipher, new_file) = cipher::key_for(existing, self.pass.as_ref())?;
                if let Some(file) = new_file {
                    let text = serde_json::to_vec_pretty(&file).map_err(|e| BackupError::Refused(e.to_string()))?;
                    self.store.put(&key_path, PutPayload::from(text)).await.map_err(s3_error)?;
                }
                Ok::<_, BackupError>(cipher.map(Arc::new))
            })
            .await?;
        Ok(cipher.clone())
    }
}

impl Manifests {
    /// Write a backup's manifest; the bytes it takes in the repository.
    pub async fn write(&self, manifest: Manifest) -> Result<u64, BackupError> {
        match self {
            Manifests::Local(store) => {
                let store = store.clone();
                blocking(move || store.write_manifest(&manifest)).await
            }
            Manifests::S3(s3) => {
                let cipher = s3.cipher().await?;
                let text = serde_json::to_vec_pretty(&manifest).map_err(|e| BackupError::Refused(e.to_string()))?;
                let label = &manifest.label;
                let bytes = cipher::seal_bytes(cipher.as_deref(), &format!("manifests/{label}"), text)?;
                let len = bytes.len() as u64;
                s3.store.put(&s3.path(&manifest_name(label)), PutPayload::from(bytes)).await.map_err(s3_error)?;
                Ok(len)
            }
        }
    }

    /// The manifest of backup `label`, if the repository has one.
    pub async fn read(&self, label: &str) -> Result<Option<Stored>, BackupError> {
        match self {
            Manifests::Local(store) => {
                let (store, label) = (store.clone(), label.to_string());
                let found = blocking(move || store.manifest_stored(&label)).await?;
                Ok(found.map(|(manifest, bytes)| Stored { manifest, bytes }))
            }
            Manifests::S3(s3) => {
                let bytes = match s3.store.get(&s3.path(&manifest_name(label))).await {
                    Ok(got) => got.bytes().await.map_err(s3_error)?,
                    Err(object_store::Error::NotFound { .. }) => return Ok(None),
                    Err(err) => return Err(s3_error(err)),
                };
                let cipher = s3.cipher().await?;
                let manifest = files::parse_manifest(cipher.as_deref(), label, &bytes)?;
                Ok(Some(Stored { manifest, bytes: bytes.len() as u64 }))
            }
        }
    }

    /// The labels of the manifests the repository holds, oldest first.
    pub async fn labels(&self) -> Result<Vec<String>, BackupError> {
        match self {
            Manifests::Local(store) => {
                let store = store.clone();
                blocking(move || Ok(store.labels())).await
            }
            Manifests::S3(s3) => {
                use futures_util::TryStreamExt;
                let listed: Vec<_> =
                    s3.store.list(Some(&s3.path("manifests"))).try_collect().await.map_err(s3_error)?;
                let mut labels: Vec<String> = listed
                    .iter()
                    .filter_map(|meta| meta.location.filename()?.strip_suffix(".json").map(str::to_string))
                    .collect();
                labels.sort();
                Ok(labels)
            }
        }
    }

    /// Remove the manifests of backups not in `kept` (an `s3` repository's; a `posix` one's go
    /// with its copies in `FileStore::prune`). Nothing is removed when no backup is kept.
    pub async fn prune(&self, kept: &[String]) -> Result<usize, BackupError> {
        let Manifests::S3(s3) = self else { return Ok(0) };
        if kept.is_empty() {
            return Ok(0);
        }
        let mut removed = 0;
        for label in self.labels().await? {
            if !kept.contains(&label) {
                s3.store.delete(&s3.path(&manifest_name(&label))).await.map_err(s3_error)?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}

fn manifest_name(label: &str) -> String {
    format!("manifests/{label}.json")
}

/// `/backups` → `backups/files`; `/` → `files`.
fn prefix(path: &str) -> String {
    let path = path.trim_matches('/');
    if path.is_empty() {
        "files".into()
    } else {
        format!("{path}/files")
    }
}

fn s3_error(err: object_store::Error) -> BackupError {
    BackupError::Refused(format!("the S3 repository's manifests: {err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_sit_under_the_repository_path_in_the_bucket() {
        assert_eq!(prefix("/backups"), "backups/files");
        assert_eq!(prefix("/a/b/"), "a/b/files");
        assert_eq!(prefix("/"), "files");
        assert_eq!(manifest_name("20261206-071744F"), "manifests/20261206-071744F.json");
    }
}
