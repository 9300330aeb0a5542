//! A request's body on its way to a function, streamed: a task on the request's thread reads it
//! from the client and hands it over a small bounded channel, so the body is never held whole and
//! a function that reads slowly slows the client down. It is counted against the body limit on
//! the way: past the limit the body ends with an error and `Upload::exceeded` says so (the
//! caller then answers 413). It does not look at what the bytes are.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use actix_web::web::{self, Bytes};
use futures_util::StreamExt;
use http_body::Frame;
use tokio::sync::mpsc;

/// Chunks read ahead of the function, at most.
const CHUNKS_AHEAD: usize = 4;

/// The body being streamed.
pub struct Upload {
    /// The body to send to the router.
    pub body: reqwest::Body,
    exceeded: Arc<AtomicBool>,
}

impl Upload {
    /// Start reading `payload` (on the current thread: actix's payload stays on it), at most
    /// `limit` bytes.
    pub fn start(mut payload: web::Payload, limit: usize) -> Upload {
        let (tx, rx) = mpsc::channel(CHUNKS_AHEAD);
        let exceeded = Arc::new(AtomicBool::new(false));
        let flag = exceeded.clone();
        actix_web::rt::spawn(async move {
            let mut total = 0usize;
            while let Some(chunk) = payload.next().await {
                let item = match chunk {
                    Ok(chunk) if total + chunk.len() > limit => {
                        flag.store(true, Ordering::SeqCst);
                        Err(std::io::Error::other(format!("the request body is over {limit} bytes")))
                    }
                    Ok(chunk) => {
                        total += chunk.len();
                        Ok(chunk)
                    }
                    Err(err) => Err(std::io::Error::other(format!("the client broke the body off: {err}"))),
                };
                let last = item.is_err();
                // The router stopped reading (the function answered without the rest): done.
                if tx.send(item).await.is_err() || last {
                    return;
                }
            }
        });
        Upload { body: reqwest::Body::wrap(ChannelBody { rx }), exceeded }
    }

    /// A flag that turns true once the body went past its limit.
    pub fn exceeded(&self) -> Arc<AtomicBool> {
        self.exceeded.clone()
    }
}

/// The receiving end of the channel, as an HTTP body.
struct ChannelBody {
    rx: mpsc::Receiver<std::io::Result<Bytes>>,
}

impl http_body::Body for ChannelBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.rx.poll_recv(cx).map(|item| item.map(|chunk| chunk.map(Frame::data)))
    }
}
