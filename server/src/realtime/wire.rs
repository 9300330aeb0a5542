//! A socket's response body: what the server writes on one WebSocket. Frames from the socket's
//! outbox (its channel replies and every broadcast or change fanned out to it) and the socket
//! task's control frames (pongs, the closing frame) are encoded straight into the connection's
//! write buffer — all that are waiting in one write — so a fanned-out message reaches the
//! connection in one hop: the hub's push wakes the connection itself, not a task that would
//! pass the frame on through a second channel. A socket whose outbox overflowed is closed
//! here with 1013 after what it has queued. Knows nothing of Phoenix or of channels.

use std::pin::Pin;
use std::task::{Context, Poll};

use actix_http::ws::{Codec, Message};
use actix_web::body::{BodyStream, BoxBody, MessageBody};
use actix_ws::{CloseCode, CloseReason};
use bytes::{Bytes, BytesMut};
use futures_util::Stream;
use tokio::sync::mpsc;
use tokio_util::codec::Encoder;

use super::protocol::Frame;
use super::queue;

/// Bytes gathered before a chunk is handed to the connection, even if more frames wait.
const CHUNK: usize = 64 * 1024;

/// Frames taken from the outbox under one lock.
const BATCH: usize = 32;

/// What the socket task itself writes.
#[derive(Debug)]
pub enum Control {
    /// The answer to a client's ping.
    Pong(Bytes),
    /// The closing frame, after everything already queued; the body ends with it.
    Close(Option<CloseReason>),
}

/// The body of a socket's `101 Switching Protocols` response.
pub struct Wire {
    outgoing: queue::Reader,
    control: mpsc::UnboundedReceiver<Control>,
    taken: Vec<Frame>,
    codec: Codec,
    buf: BytesMut,
    /// The socket task's closing frame, written once the outbox has nothing more waiting.
    close_asked: Option<Option<CloseReason>>,
    closed: bool,
    /// actix-ws's own body for this socket, never polled: dropping it (with this body, when the
    /// connection ends) is what tells the socket's incoming message stream that it closed.
    _handshake_body: BoxBody,
}

impl Wire {
    /// Swap the body of actix-ws's handshake `response` for one fed by `outgoing` (the socket's
    /// outbox) and `control`.
    pub fn attach(
        response: actix_web::HttpResponse,
        outgoing: queue::Reader,
        control: mpsc::UnboundedReceiver<Control>,
    ) -> actix_web::HttpResponse {
        let (head, handshake_body) = response.into_parts();
        let wire = Wire {
            outgoing,
            control,
            taken: Vec::new(),
            codec: Codec::new(),
            buf: BytesMut::new(),
            close_asked: None,
            closed: false,
            _handshake_body: handshake_body,
        };
        head.set_body(BodyStream::new(wire).boxed())
    }

    fn encode(&mut self, message: Message) {
        // Encoding a text, binary, pong or close message into a buffer does not fail.
        let _ = self.codec.encode(message, &mut self.buf);
    }

    fn close(&mut self, reason: Option<CloseReason>) {
        self.encode(Message::Close(reason));
        self.closed = true;
        self.outgoing.close();
        self.control.close();
        self.taken = Vec::new();
    }

    /// Encode the outbox's waiting frames, up to a chunk; `true` when its senders are all gone.
    fn drain_outbox(&mut self, cx: &mut Context<'_>) -> bool {
        let mut taken = std::mem::take(&mut self.taken);
        let mut ended = false;
        while self.buf.len() < CHUNK {
            match self.outgoing.poll_take(cx, BATCH, &mut taken) {
                Poll::Ready(false) => {
                    for frame in taken.drain(..) {
                        match frame {
                            Frame::Text(text) => self.encode(Message::Text(text)),
                            Frame::Binary(bytes) => self.encode(Message::Binary(bytes)),
                        }
                    }
                }
                Poll::Ready(true) => {
                    ended = true;
                    break;
                }
                Poll::Pending => break,
            }
        }
        self.taken = taken;
        ended
    }
}

impl Stream for Wire {
    type Item = Result<Bytes, std::convert::Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        while !this.closed && this.close_asked.is_none() && this.buf.len() < CHUNK {
            match this.control.poll_recv(cx) {
                Poll::Ready(Some(Control::Pong(bytes))) => this.encode(Message::Pong(bytes)),
                Poll::Ready(Some(Control::Close(reason))) => this.close_asked = Some(reason),
                // The socket task ended without a closing frame (it cannot, short of a panic).
                Poll::Ready(None) => this.close_asked = Some(None),
                Poll::Pending => break,
            }
        }
        if !this.closed {
            let ended = this.drain_outbox(cx);
            // Under a chunk after draining: the outbox has nothing more waiting, so a close (asked
            // for, lagging, or every sender gone) comes after everything that was queued.
            if this.buf.len() < CHUNK {
                if let Some(reason) = this.close_asked.take() {
                    this.close(reason);
                } else if this.outgoing.is_lagged() {
                    this.close(Some(CloseReason {
                        code: CloseCode::Again,
                        description: Some("client too slow".into()),
                    }));
                } else if ended {
                    this.close(None);
                }
            }
        }
        if !this.buf.is_empty() {
            return Poll::Ready(Some(Ok(std::mem::take(&mut this.buf).freeze())));
        }
        if this.closed {
            return Poll::Ready(None);
        }
        Poll::Pending
    }
}
