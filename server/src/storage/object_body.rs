//! The HTTP body of a download. A local file's bytes are handed to the HTTP/1 dispatcher as a
//! file region, which the patched actix-http (`server/vendor/README.md`) writes to the socket with
//! `sendfile(2)`: the kernel copies the file's pages to the connection, and the bytes never pass
//! through the server's memory. Where the connection cannot take a region (HTTP/2, TLS, a system
//! other than Linux), the same file is read in steps ([`backend::file_stream`]); a remote store's
//! bytes stream as they come. Each way counts its bytes in [`DownloadBytes`], which `/metrics`
//! reports.

use std::fs::File;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use actix_web::body::{BodySize, FileRegion, MessageBody};
use bytes::Bytes;
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use object_store::{GetResult, GetResultPayload};

use super::backend;

/// Bytes of downloads, by the way they left the server.
#[derive(Debug, Default)]
pub struct DownloadBytes {
    /// Sent by the kernel from the file (`sendfile`).
    pub sendfile: AtomicU64,
    /// Read into memory and written by the server.
    pub streamed: AtomicU64,
}

/// A download's body: the bytes of a stored object that a `get` asked for (whole or a range).
pub struct ObjectBody {
    length: u64,
    source: Source,
    counts: Arc<DownloadBytes>,
}

enum Source {
    /// A local file's range `[start, end)`, nothing of it sent yet.
    File { file: Arc<File>, start: u64, end: u64 },
    /// Bytes read or fetched step by step.
    Stream(BoxStream<'static, io::Result<Bytes>>),
    /// Handed over whole as a file region.
    Handed,
}

impl ObjectBody {
    /// The body of `got` (its range's bytes), counted in `counts`.
    pub fn new(got: GetResult, counts: Arc<DownloadBytes>) -> ObjectBody {
        let range = got.range.clone();
        let length = range.end.saturating_sub(range.start);
        let source = match got.payload {
            GetResultPayload::File(file, _) => {
                Source::File { file: Arc::new(file), start: range.start, end: range.end }
            }
            GetResultPayload::Stream(_) => Source::Stream(backend::body_stream(got)),
        };
        ObjectBody { length, source, counts }
    }
}

impl MessageBody for ObjectBody {
    type Error = io::Error;

    fn size(&self) -> BodySize {
        BodySize::Sized(self.length)
    }

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, io::Error>>> {
        let this = &mut *self;
        if let Source::File { file, start, end } = &this.source {
            this.source = Source::Stream(backend::file_stream(file.clone(), *start, *end));
        }
        let Source::Stream(stream) = &mut this.source else {
            return Poll::Ready(None);
        };
        let next = stream.poll_next_unpin(cx);
        if let Poll::Ready(Some(Ok(chunk))) = &next {
            this.counts.streamed.fetch_add(chunk.len() as u64, Ordering::Relaxed);
        }
        next
    }

    fn take_file_region(mut self: Pin<&mut Self>) -> Option<FileRegion> {
        let Source::File { file, start, end } = &self.source else {
            return None;
        };
        let region = FileRegion::new(file.clone(), *start, end.saturating_sub(*start));
        self.source = Source::Handed;
        self.counts.sendfile.fetch_add(region.len(), Ordering::Relaxed);
        Some(region)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::local::LocalFileSystem;
    use object_store::memory::InMemory;
    use object_store::{GetOptions, GetRange, ObjectStore, PutPayload};

    fn bytes() -> Vec<u8> {
        (0..3_000_000u32).map(|i| (i % 253) as u8).collect()
    }

    async fn ranged(store: &dyn ObjectStore, range: std::ops::Range<u64>) -> GetResult {
        let key = backend::key_of("ab1");
        store.put(&key, PutPayload::from(bytes())).await.expect("put");
        let options = GetOptions { range: Some(GetRange::Bounded(range)), ..Default::default() };
        store.get_opts(&key, options).await.expect("get")
    }

    fn scratch() -> (std::path::PathBuf, LocalFileSystem) {
        let dir = std::env::temp_dir().join(format!("object-body-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("dir");
        let store = LocalFileSystem::new_with_prefix(&dir).expect("store");
        (dir, store)
    }

    #[tokio::test]
    async fn a_local_file_is_handed_over_once_as_its_asked_range() {
        let (dir, store) = scratch();
        let counts = Arc::new(DownloadBytes::default());
        let got = ranged(&store, 1_000..2_500_000).await;
        let mut body = ObjectBody::new(got, counts.clone());
        assert_eq!(body.size(), BodySize::Sized(2_499_000));

        let region = Pin::new(&mut body).take_file_region().expect("a region");
        assert_eq!((region.offset(), region.len()), (1_000, 2_499_000));
        assert!(Pin::new(&mut body).take_file_region().is_none(), "handed over once");
        let rest = actix_web::body::to_bytes(body).await.expect("the rest");
        assert!(rest.is_empty(), "nothing follows the region");
        assert_eq!(counts.sendfile.load(Ordering::Relaxed), 2_499_000);
        assert_eq!(counts.streamed.load(Ordering::Relaxed), 0);

        // The region's file is the stored one: reading it there gives the range's bytes.
        use std::os::unix::fs::FileExt;
        let mut head = [0u8; 16];
        region.file().read_exact_at(&mut head, region.offset()).expect("read");
        assert_eq!(head, bytes()[1_000..1_016]);
        std::fs::remove_dir_all(&dir).expect("clean");
    }

    #[tokio::test]
    async fn a_local_file_polled_instead_streams_its_range() {
        // As over HTTP/2 or TLS, where the dispatcher never asks for a region.
        let (dir, store) = scratch();
        let counts = Arc::new(DownloadBytes::default());
        let got = ranged(&store, 10..2_900_000).await;
        let body = ObjectBody::new(got, counts.clone());
        let all = actix_web::body::to_bytes(body).await.expect("body");
        assert!(all.as_ref() == &bytes()[10..2_900_000], "the range's bytes, in order");
        assert_eq!(counts.streamed.load(Ordering::Relaxed), 2_899_990);
        assert_eq!(counts.sendfile.load(Ordering::Relaxed), 0);
        std::fs::remove_dir_all(&dir).expect("clean");
    }

    #[tokio::test]
    async fn a_started_stream_and_a_remote_store_give_no_region() {
        let (dir, store) = scratch();
        let counts = Arc::new(DownloadBytes::default());
        let mut local = ObjectBody::new(ranged(&store, 0..3_000_000).await, counts.clone());
        let first = futures_util::future::poll_fn(|cx| Pin::new(&mut local).poll_next(cx)).await;
        assert!(first.is_some_and(|chunk| chunk.is_ok()));
        assert!(Pin::new(&mut local).take_file_region().is_none(), "once streaming, it streams to the end");
        std::fs::remove_dir_all(&dir).expect("clean");

        let memory = InMemory::new();
        let mut remote = ObjectBody::new(ranged(&memory, 5..105).await, counts.clone());
        assert!(Pin::new(&mut remote).take_file_region().is_none(), "a remote store has no file");
        let all = actix_web::body::to_bytes(remote).await.expect("body");
        assert!(all.as_ref() == &bytes()[5..105]);
    }
}
