//! The bytes of objects, through the `object_store` crate: a local directory or S3.
//!
//! Bytes are stored under a key derived from the row's `version` (a fresh UUID per write), never
//! from the object's name: a write streams to a key no row points at yet, the row is then
//! written in the caller's transaction, and only a committed row makes the bytes visible. Moves
//! are row updates; overwritten or deleted versions are removed after the commit. Uploads stream
//! in bounded parts (memory stays flat whatever the size) and are aborted, leaving nothing, when
//! the body fails or exceeds its limit. This module knows nothing of rows, roles or HTTP.

use std::fmt::Display;
use std::path::Path as FsPath;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use futures_util::stream::{self, BoxStream};
use futures_util::{Stream, StreamExt};
use md5::{Digest, Md5};
use object_store::aws::AmazonS3Builder;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{GetResult, GetResultPayload, ObjectStore, PutPayload, WriteMultipart};
use secrecy::ExposeSecret;

use super::config::{EtagAlgorithm, StorageConfig};
use super::error::StorageError;

/// Size of each part of a streamed upload (S3's minimum part size is 5 MiB).
const PART_SIZE: usize = 5 * 1024 * 1024;
/// Parts in flight at once; with `PART_SIZE` this bounds an upload's memory.
const PARTS_IN_FLIGHT: usize = 2;

/// The directory of the `file` backend (`None` for S3).
pub fn local_dir(config: &StorageConfig, data_dir: &FsPath) -> Option<std::path::PathBuf> {
    (config.backend == "file").then(|| config.file_path.clone().unwrap_or_else(|| data_dir.join("storage")))
}

/// Build the configured object store.
pub fn build(config: &StorageConfig, data_dir: &FsPath) -> Result<Arc<dyn ObjectStore>, String> {
    match config.backend.as_str() {
        "file" => {
            let dir = local_dir(config, data_dir).unwrap_or_else(|| data_dir.join("storage"));
            std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            let store = LocalFileSystem::new_with_prefix(&dir).map_err(|e| e.to_string())?;
            Ok(Arc::new(store))
        }
        "s3" => {
            let bucket = config.s3_bucket.as_deref().ok_or("STORAGE_BACKEND=s3 needs GLOBAL_S3_BUCKET")?;
            let mut builder = AmazonS3Builder::from_env()
                .with_bucket_name(bucket)
                .with_region(&config.region)
                .with_virtual_hosted_style_request(!config.s3_force_path_style);
            if let Some(endpoint) = &config.s3_endpoint {
                builder = builder.with_endpoint(endpoint).with_allow_http(endpoint.starts_with("http://"));
            }
            if let Some(id) = &config.access_key_id {
                builder = builder.with_access_key_id(id);
            }
            if let Some(secret) = &config.secret_access_key {
                builder = builder.with_secret_access_key(secret.expose_secret());
            }
            Ok(Arc::new(builder.build().map_err(|e| e.to_string())?))
        }
        other => Err(format!("unknown STORAGE_BACKEND {other:?} (expected file or s3)")),
    }
}

/// The key of one stored version.
pub fn key_of(version: &str) -> Path {
    let shard: String = version.chars().take(2).collect();
    Path::from(format!("objects/{shard}/{version}"))
}

/// What a finished upload wrote.
#[derive(Debug, Clone)]
pub struct Stored {
    pub size: u64,
    /// `"<md5 hex>"` or `"<mtime ms hex>-<size hex>"`, quoted as S3 quotes ETags.
    pub etag: String,
}

/// How `put_stream` makes the ETag: hashing every byte, or from the stored file's modification
/// time and size (only where the store has files: `local_dir` is set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Etag {
    Md5,
    Mtime,
}

impl Etag {
    /// The configured algorithm where it applies: the `s3` backend always hashes, as S3 does.
    pub fn of(config: &StorageConfig) -> Etag {
        match (config.backend.as_str(), config.etag_algorithm) {
            ("file", EtagAlgorithm::Mtime) => Etag::Mtime,
            _ => Etag::Md5,
        }
    }
}

/// Stream `body` to `key`, refusing more than `limit` bytes. On any failure nothing is left at `key`.
pub async fn put_stream<S, E>(
    store: &dyn ObjectStore,
    key: &Path,
    mut body: S,
    limit: u64,
    etag: Etag,
) -> Result<Stored, StorageError>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: Display,
{
    let mut md5 = (etag == Etag::Md5).then(Md5::new);
    let mut size: u64 = 0;
    let mut small = BytesMut::new();
    let mut writer: Option<WriteMultipart> = None;
    while let Some(chunk) = body.next().await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(err) => {
                abort(writer).await;
                tracing::debug!(error = %err, "upload body interrupted");
                return Err(StorageError::InvalidRequest("The upload was interrupted".into()));
            }
        };
        size += chunk.len() as u64;
        if size > limit {
            abort(writer).await;
            return Err(StorageError::EntityTooLarge);
        }
        if let Some(md5) = md5.as_mut() {
            md5.update(&chunk);
        }
        match writer.as_mut() {
            Some(w) => {
                if let Err(err) = w.wait_for_capacity(PARTS_IN_FLIGHT).await {
                    abort(writer).await;
                    return Err(err.into());
                }
                w.write(&chunk);
            }
            None => {
                small.extend_from_slice(&chunk);
                if small.len() >= PART_SIZE {
                    let upload = store.put_multipart(key).await?;
                    let mut w = WriteMultipart::new_with_chunk_size(upload, PART_SIZE);
                    w.write(&small);
                    small = BytesMut::new();
                    writer = Some(w);
                }
            }
        }
    }
    match writer {
        Some(w) => {
            w.finish().await?;
        }
        None => {
            store.put(key, PutPayload::from(small.freeze())).await?;
        }
    }
    let etag = match md5 {
        Some(md5) => format!("\"{}\"", hex::encode(md5.finalize())),
        None => {
            let meta = store.head(key).await?;
            format!("\"{:x}-{:x}\"", meta.last_modified.timestamp_millis(), meta.size)
        }
    };
    Ok(Stored { size, etag })
}

/// Stream the objects at `parts`, in order, into `key` (as `put_stream`: nothing is left at
/// `key` on a failure). Joins the chunks of resumable and multipart uploads.
pub async fn put_concat(
    store: &Arc<dyn ObjectStore>,
    parts: Vec<Path>,
    key: &Path,
    limit: u64,
    etag: Etag,
) -> Result<Stored, StorageError> {
    use futures_util::TryStreamExt;
    let source = store.clone();
    let body = stream::iter(parts)
        .then(move |part| {
            let source = source.clone();
            async move { source.get(&part).await.map(|got| got.into_stream()) }
        })
        .try_flatten()
        .map_err(|e| e.to_string());
    put_stream(store.as_ref(), key, Box::pin(body), limit, etag).await
}

async fn abort(writer: Option<WriteMultipart>) {
    if let Some(w) = writer {
        if let Err(err) = w.abort().await {
            tracing::warn!(error = %err, "could not abort a multipart upload");
        }
    }
}

/// Bytes read per step when streaming a local file (object_store reads 8 KiB per blocking task,
/// which caps local downloads far below the disk's speed). Below the allocator's mmap threshold
/// (256 KiB, `startup::return_large_allocations`): a buffer that size or larger is mapped and
/// unmapped for every read, and the page faults and zeroing cost more than the read itself.
const READ_CHUNK: u64 = 192 * 1024;

/// The body of a `get`: local files in `READ_CHUNK` reads, remote stores as they stream.
pub fn body_stream(got: GetResult) -> BoxStream<'static, std::io::Result<Bytes>> {
    let range = got.range.clone();
    match got.payload {
        GetResultPayload::File(file, _) => {
            let state = (file, range.start, range.end);
            stream::try_unfold(state, |(mut file, pos, end)| async move {
                if pos >= end {
                    return Ok(None);
                }
                let len = READ_CHUNK.min(end - pos);
                let (file, buf) = tokio::task::spawn_blocking(move || {
                    use std::io::{Read, Seek, SeekFrom};
                    let mut buf = vec![0u8; len as usize];
                    file.seek(SeekFrom::Start(pos))?;
                    file.read_exact(&mut buf)?;
                    Ok::<_, std::io::Error>((file, buf))
                })
                .await
                .map_err(std::io::Error::other)??;
                Ok(Some((Bytes::from(buf), (file, pos + len, end))))
            })
            .boxed()
        }
        GetResultPayload::Stream(s) => s.map(|chunk| chunk.map_err(std::io::Error::other)).boxed(),
    }
}

/// Delete stored versions after their rows are gone; failures are logged (orphan bytes, no dangling row).
pub async fn delete_versions(store: &dyn ObjectStore, versions: impl IntoIterator<Item = String>) {
    for version in versions {
        if let Err(err) = store.delete(&key_of(&version)).await {
            if !matches!(err, object_store::Error::NotFound { .. }) {
                tracing::warn!(error = %err, version, "could not delete stored bytes");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(n: usize, size: usize) -> impl Stream<Item = Result<Bytes, String>> + Unpin {
        futures_util::stream::iter((0..n).map(move |i| Ok(Bytes::from(vec![i as u8; size]))))
    }

    #[tokio::test]
    async fn small_and_large_uploads_are_stored_whole() {
        let dir = std::env::temp_dir().join(format!("storage-backend-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = LocalFileSystem::new_with_prefix(&dir).unwrap();
        let small = put_stream(&store, &key_of("aa1"), chunks(3, 10), 100, Etag::Md5).await.unwrap();
        assert_eq!(small.size, 30);
        let mut md5 = Md5::new();
        (0..3u8).for_each(|i| md5.update([i; 10]));
        assert_eq!(small.etag, format!("\"{}\"", hex::encode(md5.finalize())));
        let large = put_stream(&store, &key_of("bb2"), chunks(12, 1024 * 1024), u64::MAX, Etag::Mtime).await.unwrap();
        assert_eq!(large.size, 12 * 1024 * 1024);
        let meta = store.head(&key_of("bb2")).await.unwrap();
        let mtime = format!("\"{:x}-{:x}\"", meta.last_modified.timestamp_millis(), 12 * 1024 * 1024);
        assert_eq!(large.etag, mtime, "the mtime ETag is the file's modification time and size");
        let got = store.get(&key_of("bb2")).await.unwrap().bytes().await.unwrap();
        assert_eq!(got.len(), 12 * 1024 * 1024);
        assert_eq!(got[11 * 1024 * 1024], 11);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn an_upload_over_its_limit_leaves_nothing() {
        let dir = std::env::temp_dir().join(format!("storage-backend-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = LocalFileSystem::new_with_prefix(&dir).unwrap();
        let err =
            put_stream(&store, &key_of("cc3"), chunks(8, 1024 * 1024), 7 * 1024 * 1024, Etag::Md5).await.unwrap_err();
        assert!(matches!(err, StorageError::EntityTooLarge));
        assert!(store.head(&key_of("cc3")).await.is_err());
        let leftovers = walk(&dir);
        assert!(leftovers.is_empty(), "{leftovers:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn local_bodies_stream_the_asked_range_in_large_reads() {
        let dir = std::env::temp_dir().join(format!("storage-backend-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = LocalFileSystem::new_with_prefix(&dir).unwrap();
        let bytes: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
        store.put(&key_of("dd4"), PutPayload::from(bytes.clone())).await.unwrap();
        let options = object_store::GetOptions {
            range: Some(object_store::GetRange::Bounded(100..500_000)),
            ..Default::default()
        };
        let got = store.get_opts(&key_of("dd4"), options).await.unwrap();
        let chunks: Vec<Bytes> = body_stream(got).map(|c| c.unwrap()).collect().await;
        assert_eq!(chunks.len() as u64, 499_900u64.div_ceil(READ_CHUNK), "READ_CHUNK reads");
        assert_eq!(chunks.concat(), bytes[100..500_000]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn walk(dir: &FsPath) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                files.extend(walk(&path));
            } else {
                files.push(path);
            }
        }
        files
    }
}
