//! Stored objects on the S3 storage backend: what a backup records of them, and what a restore
//! brings back.
//!
//! With `STORAGE_BACKEND=s3` the bytes stay in the storage bucket; the backups do not copy them.
//! A stored version's key never changes its bytes (`storage::backend`: a write makes a new key),
//! so a restored row names bytes that are right as long as its key still exists. Overwrites and
//! deletes remove keys after their commit; with bucket versioning on, S3 keeps the removed bytes
//! as a noncurrent version. Each backup therefore records, in its manifest, the bucket's version
//! id and ETag of every key the database names (`record`); a restore looks up each key the
//! restored rows name and, when it is gone, copies the recorded version back to it
//! (`bring_back`). Without bucket versioning no version id is recorded and a removed key cannot
//! come back: the restore names it. Nothing here reads rows; `files::rows` does.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::{stream, StreamExt};
use object_store::{GetOptions, ObjectStore, PutPayload};

use super::files::{Entry, Report};
use crate::storage::backend::key_of;

/// Requests to the bucket in flight at once.
const IN_FLIGHT: usize = 16;

/// `entries` with each key's size, ETag and version id as the bucket says now; a key the bucket
/// does not have is left out and named in the second list.
///
/// The futures own what they use (`Arc`, owned entries): they run inside spawned tasks, where a
/// borrow in a stream of futures trips the compiler's `Send` check.
pub async fn record(store: Arc<dyn ObjectStore>, entries: Vec<Entry>) -> (Vec<Entry>, Vec<String>) {
    let looked: Vec<(Entry, Option<object_store::ObjectMeta>)> = stream::iter(entries)
        .map(move |entry| {
            let store = store.clone();
            async move {
                let meta = store.head(&key_of(&entry.version)).await;
                if let Err(err) = &meta {
                    if !matches!(err, object_store::Error::NotFound { .. }) {
                        tracing::warn!(error = %err, version = %entry.version, "backups: cannot look up a stored object");
                    }
                }
                (entry, meta.ok())
            }
        })
        .buffered(IN_FLIGHT)
        .collect()
        .await;
    let (mut recorded, mut missing) = (Vec::new(), Vec::new());
    for (entry, meta) in looked {
        match meta {
            Some(meta) => recorded.push(Entry {
                size: meta.size,
                // The bytes stay in the bucket: none in the backup repository.
                stored: 0,
                s3_version: meta.version,
                etag: meta.e_tag,
                ..entry
            }),
            None => missing.push(format!("{}/{}", entry.bucket, entry.name)),
        }
    }
    (recorded, missing)
}

/// The version ids recorded by `manifests` (storage version → the bucket's version id).
pub fn recorded_versions<'a>(manifests: impl IntoIterator<Item = &'a [Entry]>) -> HashMap<String, String> {
    let mut versions = HashMap::new();
    for objects in manifests {
        for entry in objects {
            if let Some(id) = &entry.s3_version {
                versions.insert(entry.version.clone(), id.clone());
            }
        }
    }
    versions
}

/// For each of `entries` (the restored rows): present in the bucket (`kept`), brought back from
/// the version `recorded` names (`copied`), or `missing`.
pub async fn bring_back(
    store: Arc<dyn ObjectStore>,
    entries: Vec<Entry>,
    recorded: &HashMap<String, String>,
) -> Report {
    let outcomes: Vec<(String, Result<Option<u64>, String>)> = stream::iter(entries)
        .map(move |entry| {
            let store = store.clone();
            let id = recorded.get(&entry.version).cloned();
            async move {
                let who = format!("{}/{}", entry.bucket, entry.name);
                (who, restore_one(store, entry.version, id).await)
            }
        })
        .buffered(IN_FLIGHT)
        .collect()
        .await;
    let mut report = Report::default();
    for (who, outcome) in outcomes {
        match outcome {
            Ok(None) => report.kept += 1,
            Ok(Some(bytes)) => {
                report.copied += 1;
                report.bytes_copied += bytes;
            }
            Err(why) => {
                tracing::warn!(object = %who, why, "restore: a stored object cannot be brought back");
                report.missing.push(who);
            }
        }
    }
    report
}

/// For each of `entries`: its key is in the bucket, or a version was recorded to bring it back
/// from (`kept`), or neither (`missing`). Nothing is written.
pub async fn check(store: Arc<dyn ObjectStore>, entries: Vec<Entry>, recorded: &HashMap<String, String>) -> Report {
    let outcomes: Vec<(String, bool)> = stream::iter(entries)
        .map(move |entry| {
            let store = store.clone();
            let known = recorded.contains_key(&entry.version);
            async move {
                let who = format!("{}/{}", entry.bucket, entry.name);
                let there = store.head(&key_of(&entry.version)).await.is_ok();
                (who, there || known)
            }
        })
        .buffered(IN_FLIGHT)
        .collect()
        .await;
    let mut report = Report::default();
    for (who, ok) in outcomes {
        if ok {
            report.kept += 1;
        } else {
            report.missing.push(who);
        }
    }
    report
}

/// `None`: the key is there; `Some(bytes)`: copied back from `version_id`.
async fn restore_one(
    store: Arc<dyn ObjectStore>,
    version: String,
    version_id: Option<String>,
) -> Result<Option<u64>, String> {
    let key = key_of(&version);
    match store.head(&key).await {
        Ok(_) => return Ok(None),
        Err(object_store::Error::NotFound { .. }) => {}
        Err(err) => return Err(err.to_string()),
    }
    let Some(id) = version_id else {
        return Err("the key is gone and no bucket version was recorded (is bucket versioning on?)".into());
    };
    let options = GetOptions { version: Some(id), ..GetOptions::default() };
    let bytes =
        store.get_opts(&key, options).await.map_err(|e| e.to_string())?.bytes().await.map_err(|e| e.to_string())?;
    let len = bytes.len() as u64;
    store.put(&key, PutPayload::from(bytes)).await.map_err(|e| e.to_string())?;
    Ok(Some(len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_record_of_each_version_wins() {
        let mut a = Entry::named("b".into(), "a.txt".into(), "v1".into());
        a.s3_version = Some("s3-1".into());
        let mut b = Entry::named("b".into(), "b.txt".into(), "v2".into());
        b.s3_version = Some("s3-2".into());
        let none = Entry::named("b".into(), "c.txt".into(), "v3".into());
        let first = vec![a.clone(), none];
        let second = vec![b];
        let versions = recorded_versions([first.as_slice(), second.as_slice()]);
        assert_eq!(versions.len(), 2);
        assert_eq!(versions["v1"], "s3-1");
        assert_eq!(versions["v2"], "s3-2");
    }
}
