//! The bytes of objects, through the `object_store` crate: a local directory or S3.
//!
//! Bytes are stored under a key derived from the row's `version` (a fresh UUID per write), never
//! from the object's name: a write streams to a key no row points at yet, the row is then
//! written in the caller's transaction, and only a committed row makes the bytes visible. Moves
//! are row updates; overwritten or deleted versions are removed after the commit. Uploads stream
//! in bounded parts (memory stays flat whatever the size) and are aborted, leaving nothing, when
//! the body fails or exceeds its limit. This module knows nothing of rows, roles or HTTP.

use std::fmt::Display;
use std::path::{Path as FsPath, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use bytes::Bytes;
use futures_util::stream::{self, BoxStream};
use futures_util::{Stream, StreamExt};
use object_store::aws::AmazonS3Builder;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{GetResult, GetResultPayload, ObjectStore, PutPayload, WriteMultipart};
use secrecy::ExposeSecret;

use super::config::{EtagAlgorithm, StorageConfig};
use super::error::StorageError;
use super::md5_hash::Md5;

/// Size of each part of a streamed upload (S3's minimum part size is 5 MiB).
const PART_SIZE: usize = 5 * 1024 * 1024;
/// Parts in flight at once; with `PART_SIZE` this bounds an upload's memory.
const PARTS_IN_FLIGHT: usize = 2;

/// The directory of the `file` backend (`None` for S3).
pub fn local_dir(config: &StorageConfig, data_dir: &FsPath) -> Option<std::path::PathBuf> {
    (config.backend == "file").then(|| config.file_path.clone().unwrap_or_else(|| data_dir.join("storage")))
}

/// The configured object store; for the `file` backend also its `LocalFileSystem`, through which
/// `put_stream` writes files itself (see `LocalWriter`).
pub struct Built {
    pub store: Arc<dyn ObjectStore>,
    pub local: Option<Arc<LocalFileSystem>>,
}

/// Build the configured object store.
pub fn build(config: &StorageConfig, data_dir: &FsPath) -> Result<Built, String> {
    match config.backend.as_str() {
        "file" => {
            let dir = local_dir(config, data_dir).unwrap_or_else(|| data_dir.join("storage"));
            std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            let local = Arc::new(LocalFileSystem::new_with_prefix(&dir).map_err(|e| e.to_string())?);
            Ok(Built { store: local.clone(), local: Some(local) })
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
            Ok(Built { store: Arc::new(builder.build().map_err(|e| e.to_string())?), local: None })
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
///
/// With `local` (the `file` backend), a body larger than `BATCH` goes to `LocalWriter`: the
/// received chunks are written as they are, without being copied into parts first. Otherwise a
/// small body is one `put` and a larger one a multipart upload of `PART_SIZE` parts.
pub async fn put_stream<S, E>(
    store: &dyn ObjectStore,
    local: Option<&LocalFileSystem>,
    key: &Path,
    mut body: S,
    limit: u64,
    etag: Etag,
) -> Result<Stored, StorageError>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: Display,
{
    let mut md5 = (etag == Etag::Md5).then(Hasher::new);
    let mut size: u64 = 0;
    let mut writer = Writer::Pending(Vec::new(), 0);
    while let Some(chunk) = body.next().await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(err) => {
                writer.abort().await;
                tracing::debug!(error = %err, "upload body interrupted");
                return Err(StorageError::InvalidRequest("The upload was interrupted".into()));
            }
        };
        size += chunk.len() as u64;
        if size > limit {
            writer.abort().await;
            return Err(StorageError::EntityTooLarge);
        }
        if let Some(md5) = md5.as_mut() {
            md5.push(chunk.clone()).await;
        }
        if let Err(err) = writer.push(store, local, key, chunk).await {
            writer.abort().await;
            return Err(err);
        }
    }
    let modified = match writer {
        Writer::Pending(chunks, _) => {
            store.put(key, PutPayload::from_iter(chunks)).await?;
            None
        }
        Writer::Multipart(w) => {
            w.finish().await?;
            None
        }
        Writer::Local(w) => Some(w.finish().await?),
    };
    let digest = match md5 {
        Some(md5) => Some(md5.finish().await?),
        None => None,
    };
    let etag = match (digest, modified) {
        (Some(digest), _) => format!("\"{}\"", hex::encode(digest)),
        (None, Some(modified)) => format!("\"{:x}-{:x}\"", millis_of(modified), size),
        (None, None) => {
            let meta = store.head(key).await?;
            format!("\"{:x}-{:x}\"", meta.last_modified.timestamp_millis(), meta.size)
        }
    };
    Ok(Stored { size, etag })
}

/// Milliseconds since the epoch, as `object_store` reports a file's modification time.
fn millis_of(time: SystemTime) -> i64 {
    chrono::DateTime::<chrono::Utc>::from(time).timestamp_millis()
}

/// Received chunks gathered for a blocking task (the hasher's, the local writer's): about
/// `BATCH` bytes, at most `MAX_SLICES` chunks, sent through a channel as one message.
#[derive(Default)]
struct Batch {
    chunks: Vec<Bytes>,
    len: usize,
}

impl Batch {
    /// Add `chunk`; the whole batch once it is full.
    fn add(&mut self, chunk: Bytes) -> Option<Vec<Bytes>> {
        self.len += chunk.len();
        self.chunks.push(chunk);
        (self.len >= BATCH || self.chunks.len() >= MAX_SLICES).then(|| self.take())
    }

    fn take(&mut self) -> Vec<Bytes> {
        self.len = 0;
        std::mem::take(&mut self.chunks)
    }
}

/// The MD5 of an upload's body. The first `BATCH` bytes are hashed where they arrive; past that,
/// the hash moves to a blocking thread fed batches of the received chunks (shared, not copied),
/// so that hashing, which is the slowest step of a large upload, overlaps reading the socket
/// and writing the bytes, and does not hold the HTTP worker thread that also serves other
/// requests. The channel is bounded: a body is read no faster than it is hashed.
enum Hasher {
    Inline(Md5, usize),
    Task { batch: Batch, sender: tokio::sync::mpsc::Sender<Vec<Bytes>>, task: tokio::task::JoinHandle<Md5> },
}

impl Hasher {
    fn new() -> Hasher {
        Hasher::Inline(Md5::new(), 0)
    }

    async fn push(&mut self, chunk: Bytes) {
        match self {
            Hasher::Inline(md5, len) if *len + chunk.len() <= BATCH => {
                *len += chunk.len();
                md5.update(&chunk);
            }
            Hasher::Inline(md5, _) => {
                let md5 = std::mem::take(md5);
                let (sender, mut batches) = tokio::sync::mpsc::channel::<Vec<Bytes>>(BATCHES_IN_FLIGHT);
                let task = tokio::task::spawn_blocking(move || {
                    let mut md5 = md5;
                    while let Some(batch) = batches.blocking_recv() {
                        for chunk in &batch {
                            md5.update(chunk);
                        }
                    }
                    md5
                });
                // A chunk of `BATCH` bytes or more fills the first batch by itself: it is sent
                // at once, not dropped.
                let mut batch = Batch::default();
                if let Some(full) = batch.add(chunk) {
                    let _ = sender.send(full).await;
                }
                *self = Hasher::Task { batch, sender, task };
            }
            Hasher::Task { batch, sender, .. } => {
                if let Some(full) = batch.add(chunk) {
                    // A closed channel means the task has stopped; `finish` reports it.
                    let _ = sender.send(full).await;
                }
            }
        }
    }

    async fn finish(self) -> Result<[u8; 16], StorageError> {
        let md5 = match self {
            Hasher::Inline(md5, _) => md5,
            Hasher::Task { mut batch, sender, task } => {
                let rest = batch.take();
                if !rest.is_empty() {
                    let _ = sender.send(rest).await;
                }
                drop(sender);
                task.await.map_err(|err| StorageError::internal("hashing an upload", err))?
            }
        };
        md5.finalize().ok_or_else(|| StorageError::internal("hashing an upload", "OpenSSL's MD5 failed"))
    }
}

/// Bytes received before `put_stream` starts writing to a local file (smaller bodies are one `put`).
const BATCH: usize = 1024 * 1024;
/// Most chunks in one `writev` (Linux's IOV_MAX is 1024).
const MAX_SLICES: usize = 512;
/// Batches queued for a local file's writer; with `BATCH` this bounds an upload's memory.
const BATCHES_IN_FLIGHT: usize = 4;

/// Where `put_stream` is: holding the first chunks, writing parts, or writing a local file.
enum Writer {
    Pending(Vec<Bytes>, usize),
    Multipart(WriteMultipart),
    Local(LocalWriter),
}

impl Writer {
    async fn push(
        &mut self,
        store: &dyn ObjectStore,
        local: Option<&LocalFileSystem>,
        key: &Path,
        chunk: Bytes,
    ) -> Result<(), StorageError> {
        match self {
            Writer::Pending(chunks, len) => {
                *len += chunk.len();
                chunks.push(chunk);
                let held = *len;
                match local {
                    Some(fs) if held >= BATCH => {
                        let mut w = LocalWriter::start(fs, key)?;
                        for chunk in std::mem::take(chunks) {
                            if let Err(err) = w.push(chunk).await {
                                w.abort().await;
                                return Err(err);
                            }
                        }
                        *self = Writer::Local(w);
                    }
                    None if held >= PART_SIZE => {
                        let upload = store.put_multipart(key).await?;
                        let mut w = WriteMultipart::new_with_chunk_size(upload, PART_SIZE);
                        for chunk in std::mem::take(chunks) {
                            w.write(&chunk);
                        }
                        *self = Writer::Multipart(w);
                    }
                    _ => {}
                }
                Ok(())
            }
            Writer::Multipart(w) => {
                w.wait_for_capacity(PARTS_IN_FLIGHT).await?;
                w.write(&chunk);
                Ok(())
            }
            Writer::Local(w) => w.push(chunk).await,
        }
    }

    async fn abort(self) {
        match self {
            Writer::Pending(..) => {}
            Writer::Multipart(w) => {
                if let Err(err) = w.abort().await {
                    tracing::warn!(error = %err, "could not abort a multipart upload");
                }
            }
            Writer::Local(w) => w.abort().await,
        }
    }
}

/// A local file written by one blocking task, fed batches of received chunks through a bounded
/// channel: each batch is one `writev` of the chunks as they came off the socket, to a staging
/// file (`<version>#direct`, which the store's listings hide and the sweep removes if a crash
/// leaves it) renamed into place once whole. Reading the body goes on while a batch is written.
/// Dropped unfinished (the request's future dropped when its client goes away), it removes its
/// staging file once the writer task has stopped.
struct LocalWriter {
    batch: Batch,
    sender: Option<tokio::sync::mpsc::Sender<Vec<Bytes>>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<std::fs::File>>>,
    staging: PathBuf,
    dest: PathBuf,
    /// Renamed into place, or removed: nothing left for `drop` to clean.
    done: bool,
}

impl LocalWriter {
    fn start(fs: &LocalFileSystem, key: &Path) -> Result<LocalWriter, StorageError> {
        let dest = fs.path_to_filesystem(key)?;
        let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let staging = dest.with_file_name(format!("{name}#direct"));
        let (sender, mut batches) = tokio::sync::mpsc::channel::<Vec<Bytes>>(BATCHES_IN_FLIGHT);
        let path = staging.clone();
        let task = tokio::task::spawn_blocking(move || {
            let mut file = create_file(&path)?;
            while let Some(batch) = batches.blocking_recv() {
                write_all_vectored(&mut file, &batch)?;
            }
            Ok(file)
        });
        Ok(LocalWriter { batch: Batch::default(), sender: Some(sender), task: Some(task), staging, dest, done: false })
    }

    async fn push(&mut self, chunk: Bytes) -> Result<(), StorageError> {
        match self.batch.add(chunk) {
            Some(full) => self.send(full).await,
            None => Ok(()),
        }
    }

    async fn flush(&mut self) -> Result<(), StorageError> {
        let rest = self.batch.take();
        self.send(rest).await
    }

    async fn send(&mut self, batch: Vec<Bytes>) -> Result<(), StorageError> {
        let sent = match &self.sender {
            Some(sender) if !batch.is_empty() => sender.send(batch).await.is_ok(),
            _ => true,
        };
        if sent {
            return Ok(());
        }
        // The writer stopped: its error says why.
        let err = match self.join().await {
            Some(Err(err)) => err,
            _ => std::io::Error::other("the upload's writer stopped"),
        };
        Err(StorageError::internal("writing an upload", err))
    }

    /// Close the channel and wait for the writer task: its file, or why it stopped (`None` once
    /// it has been waited for).
    async fn join(&mut self) -> Option<std::io::Result<std::fs::File>> {
        self.sender = None;
        let task = self.task.take()?;
        Some(task.await.unwrap_or_else(|err| Err(std::io::Error::other(err))))
    }

    /// Write what is left, move the file into place; its modification time.
    async fn finish(mut self) -> Result<SystemTime, StorageError> {
        if let Err(err) = self.flush().await {
            self.abort().await;
            return Err(err);
        }
        let written = match self.join().await {
            Some(Ok(file)) => {
                let (staging, dest) = (self.staging.clone(), self.dest.clone());
                tokio::task::spawn_blocking(move || {
                    std::fs::rename(&staging, &dest)?;
                    file.metadata()?.modified()
                })
                .await
                .unwrap_or_else(|err| Err(std::io::Error::other(err)))
            }
            Some(Err(err)) => Err(err),
            None => Err(std::io::Error::other("the upload's writer stopped")),
        };
        match written {
            Ok(modified) => {
                self.done = true;
                Ok(modified)
            }
            Err(err) => {
                self.abort().await;
                Err(StorageError::internal("writing an upload", err))
            }
        }
    }

    /// Stop the writer and remove the staging file.
    async fn abort(mut self) {
        let _ = self.join().await;
        let staging = self.staging.clone();
        let _ = tokio::task::spawn_blocking(move || std::fs::remove_file(staging)).await;
        self.done = true;
    }
}

impl Drop for LocalWriter {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        self.sender = None;
        let task = self.task.take();
        let staging = std::mem::take(&mut self.staging);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Some(task) = task {
                    let _ = task.await;
                }
                let _ = tokio::task::spawn_blocking(move || std::fs::remove_file(staging)).await;
            });
        }
    }
}

/// Create (or truncate) `path`, and its directories when they are missing.
fn create_file(path: &FsPath) -> std::io::Result<std::fs::File> {
    match std::fs::File::create(path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::File::create(path)
        }
        other => other,
    }
}

/// `write_all` of several buffers, with as few `writev` calls as the kernel allows.
fn write_all_vectored(file: &mut std::fs::File, chunks: &[Bytes]) -> std::io::Result<()> {
    use std::io::{IoSlice, Write};
    let mut slices: Vec<IoSlice<'_>> = chunks.iter().map(|c| IoSlice::new(c)).collect();
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        match file.write_vectored(rest) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut rest, n),
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

/// Stream the objects at `parts`, in order, into `key` (as `put_stream`: nothing is left at
/// `key` on a failure). Joins the chunks of resumable and multipart uploads.
pub async fn put_concat(
    store: &Arc<dyn ObjectStore>,
    local: Option<&LocalFileSystem>,
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
            async move { source.get(&part).await.map(|got| body_stream(got).map_err(|e| e.to_string())) }
        })
        .map_err(|e| e.to_string())
        .try_flatten();
    put_stream(store.as_ref(), local, key, Box::pin(body), limit, etag).await
}

/// Bytes read per step when streaming a local file (object_store reads 8 KiB per blocking task,
/// which caps local downloads far below the disk's speed). Below glibc's mmap threshold as the
/// server sets it (2 MiB, `startup::return_large_allocations`), so that under glibc a buffer
/// this size, ours or the copy actix makes of it in its write buffer, comes from the heap instead
/// of being mapped and faulted in for every read; the `server` binary's mimalloc reuses such
/// buffers from its arenas. 512 KiB against 192 KiB: a third of the blocking-thread hand-offs and
/// socket writes, 18% faster downloads; 1 MiB against 512 KiB (under mimalloc): 1,812–1,894
/// against 1,011–1,660 MB/s in three alternated pairs (docs/storage.md).
const READ_CHUNK: u64 = 1024 * 1024;

/// The body of a `get`: local files in `READ_CHUNK` reads, remote stores as they stream. A local
/// file is read one step ahead: the next read runs on a blocking thread while the server copies
/// and sends the chunk before it, so reading the file and writing the socket overlap.
pub fn body_stream(got: GetResult) -> BoxStream<'static, std::io::Result<Bytes>> {
    let range = got.range.clone();
    match got.payload {
        GetResultPayload::File(file, _) => file_stream(Arc::new(file), range.start, range.end),
        GetResultPayload::Stream(s) => s.map(|chunk| chunk.map_err(std::io::Error::other)).boxed(),
    }
}

/// The bytes `[start, end)` of a local file, in `READ_CHUNK` reads, each started while the one
/// before is sent.
pub fn file_stream(file: Arc<std::fs::File>, start: u64, end: u64) -> BoxStream<'static, std::io::Result<Bytes>> {
    let first = read_ahead(&file, start, end);
    stream::try_unfold((file, start, end, first), |(file, pos, end, pending)| async move {
        let Some(read) = pending else {
            return Ok(None);
        };
        let buf = read.await.map_err(std::io::Error::other)??;
        let pos = pos + buf.len() as u64;
        let next = read_ahead(&file, pos, end);
        Ok(Some((buf, (file, pos, end, next))))
    })
    .boxed()
}

/// The read of `file`'s next `READ_CHUNK` from `pos`, started on a blocking thread; `None` at
/// `end`. Dropped unawaited (the client went away), the read still finishes and its buffer is freed.
fn read_ahead(
    file: &Arc<std::fs::File>,
    pos: u64,
    end: u64,
) -> Option<tokio::task::JoinHandle<std::io::Result<Bytes>>> {
    if pos >= end {
        return None;
    }
    let file = file.clone();
    let len = READ_CHUNK.min(end - pos) as usize;
    Some(tokio::task::spawn_blocking(move || read_at(&file, pos, len)))
}

/// `len` bytes of `file` from `pos`, read into a buffer that is not zeroed first (`pread`
/// fills it; zeroing each step's buffer cost more than a tenth of a download's CPU).
fn read_at(file: &std::fs::File, pos: u64, len: usize) -> std::io::Result<Bytes> {
    use std::os::fd::AsRawFd;
    let mut buf = bytes::BytesMut::with_capacity(len);
    while buf.len() < len {
        let filled = buf.len();
        let offset = libc::off_t::try_from(pos + filled as u64).map_err(std::io::Error::other)?;
        let spare = buf.spare_capacity_mut();
        let want = spare.len().min(len - filled);
        // SAFETY: `spare` is this buffer's own unused capacity, at least `want` bytes long; pread
        // writes at most `want` bytes into it and returns how many it wrote, which `set_len`
        // then covers, so no byte past what was written is ever read.
        let read = unsafe { libc::pread(file.as_raw_fd(), spare.as_mut_ptr().cast(), want, offset) };
        match read {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n if n > 0 => unsafe { buf.set_len(filled + n as usize) },
            _ => {
                let err = std::io::Error::last_os_error();
                if err.kind() != std::io::ErrorKind::Interrupted {
                    return Err(err);
                }
            }
        }
    }
    Ok(buf.freeze())
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
    // The digests are checked against the pure-Rust `md-5` crate, not the OpenSSL one stored.
    use md5::{Digest, Md5};

    use super::*;

    fn chunks(n: usize, size: usize) -> impl Stream<Item = Result<Bytes, String>> + Unpin {
        futures_util::stream::iter((0..n).map(move |i| Ok(Bytes::from(vec![i as u8; size]))))
    }

    #[tokio::test]
    async fn small_and_large_uploads_are_stored_whole() {
        let (dir, store) = scratch_store();
        let small = put_stream(&store, Some(&store), &key_of("aa1"), chunks(3, 10), 100, Etag::Md5).await.unwrap();
        assert_eq!(small.size, 30);
        let mut md5 = Md5::new();
        (0..3u8).for_each(|i| md5.update([i; 10]));
        assert_eq!(small.etag, format!("\"{}\"", hex::encode(md5.finalize())));
        // Written by `LocalWriter` (local) and by a multipart upload (the store alone, as on S3).
        for (version, local) in [("bb2", Some(&store)), ("bb3", None)] {
            let large = put_stream(&store, local, &key_of(version), chunks(12, 1024 * 1024), u64::MAX, Etag::Mtime)
                .await
                .unwrap();
            assert_eq!(large.size, 12 * 1024 * 1024);
            let meta = store.head(&key_of(version)).await.unwrap();
            let mtime = format!("\"{:x}-{:x}\"", meta.last_modified.timestamp_millis(), 12 * 1024 * 1024);
            assert_eq!(large.etag, mtime, "the mtime ETag is the file's modification time and size");
            let got = store.get(&key_of(version)).await.unwrap().bytes().await.unwrap();
            assert_eq!(got.len(), 12 * 1024 * 1024);
            assert!((0..12).all(|i| got[i * 1024 * 1024] == i as u8 && got[(i + 1) * 1024 * 1024 - 1] == i as u8));
        }
        assert_eq!(walk(&dir).len(), 3, "no staging file is left: {:?}", walk(&dir));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Chunks as large as a batch or larger (a part read back in `READ_CHUNK` steps when uploads
    /// are joined): the one that moves the hash to its task is hashed too.
    #[tokio::test]
    async fn chunks_of_a_whole_batch_are_all_hashed() {
        let (dir, store) = scratch_store();
        let sizes = [BATCH / 2, BATCH, BATCH + 7, BATCH, 3];
        let body: Vec<Bytes> = sizes.iter().enumerate().map(|(i, n)| Bytes::from(vec![i as u8 + 1; *n])).collect();
        let whole = body.concat();
        let expected = format!("\"{}\"", hex::encode(Md5::digest(&whole)));
        for (version, local) in [("ab8", Some(&store)), ("ab9", None)] {
            let chunks = stream::iter(body.clone().into_iter().map(Ok::<_, String>));
            let stored = put_stream(&store, local, &key_of(version), chunks, u64::MAX, Etag::Md5).await.unwrap();
            assert_eq!(stored.etag, expected, "the MD5 of every byte");
            assert_eq!(store.get(&key_of(version)).await.unwrap().bytes().await.unwrap(), whole);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn a_large_body_hashed_off_the_worker_has_the_md5_of_all_its_bytes() {
        let (dir, store) = scratch_store();
        // Uneven chunks: the hash moves to its task in the middle of the body, not at a boundary.
        let body: Vec<Bytes> = (0..9u8).map(|i| Bytes::from(vec![i; 700 * 1024 + i as usize])).collect();
        let whole = body.concat();
        let expected = format!("\"{}\"", hex::encode(Md5::digest(&whole)));
        for (version, local) in [("ff6", Some(&store)), ("ff7", None)] {
            let chunks = stream::iter(body.clone().into_iter().map(Ok::<_, String>));
            let stored = put_stream(&store, local, &key_of(version), chunks, u64::MAX, Etag::Md5).await.unwrap();
            assert_eq!(stored.size, whole.len() as u64);
            assert_eq!(stored.etag, expected, "the MD5 of the whole body, in order");
            assert_eq!(store.get(&key_of(version)).await.unwrap().bytes().await.unwrap(), whole);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn a_local_upload_cut_short_leaves_nothing() {
        let (dir, store) = scratch_store();
        // 3 MiB arrive (the local file is being written), then the body fails.
        let body = futures_util::stream::iter((0..4).map(|i| {
            if i < 3 {
                Ok(Bytes::from(vec![1u8; 1024 * 1024]))
            } else {
                Err("reset".to_string())
            }
        }));
        let err = put_stream(&store, Some(&store), &key_of("ee5"), body, u64::MAX, Etag::Md5).await.unwrap_err();
        assert!(matches!(err, StorageError::InvalidRequest(_)), "{err:?}");
        assert!(store.head(&key_of("ee5")).await.is_err());
        assert!(walk(&dir).is_empty(), "{:?}", walk(&dir));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn a_local_upload_dropped_midway_removes_its_staging_file() {
        let (dir, store) = scratch_store();
        let store = std::sync::Arc::new(store);
        // 3 MiB arrive, then nothing more: the client went away and the request's future is dropped.
        let body = futures_util::stream::iter((0..3).map(|_| Ok::<_, String>(Bytes::from(vec![2u8; 1024 * 1024]))))
            .chain(futures_util::stream::pending());
        let writing = store.clone();
        let upload = tokio::spawn(async move {
            put_stream(writing.as_ref(), Some(writing.as_ref()), &key_of("ff6"), Box::pin(body), u64::MAX, Etag::Mtime)
                .await
        });
        let staged = until(|| walk(&dir).iter().any(|p| p.to_string_lossy().ends_with("#direct"))).await;
        assert!(staged, "the staging file was never written: {:?}", walk(&dir));
        upload.abort();
        assert!(until(|| walk(&dir).is_empty()).await, "{:?}", walk(&dir));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Whether `done` holds within 10 s, polled every 20 ms.
    async fn until(done: impl Fn() -> bool) -> bool {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !done() {
            if std::time::Instant::now() > deadline {
                return false;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        true
    }

    /// A local store in a new directory of its own.
    fn scratch_store() -> (std::path::PathBuf, LocalFileSystem) {
        let dir = std::env::temp_dir().join(format!("storage-backend-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = LocalFileSystem::new_with_prefix(&dir).unwrap();
        (dir, store)
    }

    #[test]
    fn vectored_writes_write_every_chunk_in_order() {
        let path = std::env::temp_dir().join(format!("storage-writev-{}", uuid::Uuid::new_v4()));
        let chunks: Vec<Bytes> =
            (0..700u32).map(|i| Bytes::from(vec![(i % 256) as u8; 1 + (i as usize % 97)])).collect();
        let mut file = create_file(&path).unwrap();
        write_all_vectored(&mut file, &chunks).unwrap();
        drop(file);
        assert_eq!(std::fs::read(&path).unwrap(), chunks.concat());
        std::fs::remove_file(&path).unwrap();
    }

    #[tokio::test]
    async fn an_upload_over_its_limit_leaves_nothing() {
        let (dir, store) = scratch_store();
        for local in [Some(&store), None] {
            let limit = 7 * 1024 * 1024;
            let err =
                put_stream(&store, local, &key_of("cc3"), chunks(8, 1024 * 1024), limit, Etag::Md5).await.unwrap_err();
            assert!(matches!(err, StorageError::EntityTooLarge));
            assert!(store.head(&key_of("cc3")).await.is_err());
            let leftovers = walk(&dir);
            assert!(leftovers.is_empty(), "{leftovers:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn local_bodies_stream_the_asked_range_in_large_reads() {
        let (dir, store) = scratch_store();
        let bytes: Vec<u8> = (0..1_300_000u32).map(|i| (i % 251) as u8).collect();
        store.put(&key_of("dd4"), PutPayload::from(bytes.clone())).await.unwrap();
        let options = object_store::GetOptions {
            range: Some(object_store::GetRange::Bounded(100..1_200_000)),
            ..Default::default()
        };
        let got = store.get_opts(&key_of("dd4"), options).await.unwrap();
        let chunks: Vec<Bytes> = body_stream(got).map(|c| c.unwrap()).collect().await;
        assert_eq!(chunks.len() as u64, 1_199_900u64.div_ceil(READ_CHUNK), "READ_CHUNK reads");
        assert_eq!(chunks.concat(), bytes[100..1_200_000]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn a_file_cut_short_while_streaming_ends_the_body_with_an_error() {
        let (dir, store) = scratch_store();
        let bytes = vec![7u8; 3 * READ_CHUNK as usize];
        store.put(&key_of("ee5"), PutPayload::from(bytes)).await.unwrap();
        let got = store.get(&key_of("ee5")).await.unwrap();
        let path = store.path_to_filesystem(&key_of("ee5")).unwrap();
        let mut body = body_stream(got);
        let first = body.next().await.unwrap().unwrap();
        assert_eq!(first.len() as u64, READ_CHUNK);
        // The second read may already have run ahead; the third finds the file shorter.
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(READ_CHUNK + 10).unwrap();
        let rest: Vec<std::io::Result<Bytes>> = body.collect().await;
        let err = rest.iter().find_map(|r| r.as_ref().err()).expect("an error, not a silently short body");
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
        let sent: usize = rest.iter().filter_map(|r| r.as_ref().ok()).map(|b| b.len()).sum();
        assert!(sent as u64 <= READ_CHUNK, "nothing past the cut is sent: {sent} bytes after the first chunk");
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
