//! The stream under the request pools' connections, which lets a request's transaction reach Postgres as
//! one extended-protocol pipeline although tokio-postgres ends every statement with a `Sync`.
//!
//! tokio-postgres speaks through [`WireStream`] unchanged, with one exception: a simple query
//! whose text is a marker made by [`Pipeline::marker`] leaves as the messages registered under
//! it instead (`Parse`, `Bind`, `Describe`, `Execute` for each statement and one `Sync`), and the
//! acknowledgements only the extended protocol sends (`ParseComplete`, `BindComplete`,
//! `CloseComplete`, `NoData`, and the rows of statements nobody described) are taken out of its
//! answer, which then reads to tokio-postgres like a simple query's: each statement's
//! `CommandComplete`, the described statement's `RowDescription` and rows, one `ReadyForQuery`.
//!
//! Why: Postgres answers every `Sync` (a `ReadyForQuery` and a socket write each), and a
//! simple-query message costs it a lexing of every literal and a portal per statement, while a
//! pipeline of prepared statements with bind parameters is the cheapest way Postgres takes a
//! transaction ([`super::one_trip`] measures it).
//!
//! Which answer is a pipeline's is known from the order of requests: every `Query` and every
//! `Sync` sent is answered by exactly one `ReadyForQuery`, in order. Until the first
//! `ReadyForQuery` (the end of the start-up and authentication exchange) bytes pass as they are.
//! A connection is made through this stream when its settings name one host and no TLS
//! ([`qualifies`]); otherwise tokio-postgres connects as usual and pipelines are not used.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex, PoisonError};
use std::task::{ready, Context, Poll};

use bytes::{Buf, BytesMut};
use futures_util::future::BoxFuture;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpStream, UnixStream};
use tokio_postgres::config::{Host, SslMode, TargetSessionAttrs};
use tokio_postgres::{Client, Config, NoTls};

/// What a marker query's text starts with (no statement of ours starts with a control character).
const MARKER: &str = "\u{1}pipeline ";

/// Bytes the stream holds for the socket before a write waits for them to leave.
const HIGH_WATER: usize = 256 * 1024;

/// Pipelines registered and not yet put on the wire, by marker number.
static PENDING: LazyLock<Mutex<HashMap<u64, BytesMut>>> = LazyLock::new(Default::default);
static NEXT: AtomicU64 = AtomicU64::new(1);
/// Set when a pool that runs requests connects without this stream.
static UNAVAILABLE: AtomicBool = AtomicBool::new(false);

/// Whether every connection that runs requests goes through [`WireStream`], so that
/// [`Pipeline`]s can be sent on them.
pub fn available() -> bool {
    !UNAVAILABLE.load(Ordering::Relaxed)
}

/// Record that a pool running requests connects without this stream (no pipelines then).
pub fn unavailable() {
    UNAVAILABLE.store(true, Ordering::Relaxed);
}

/// Whether connections made with `config` can go through [`WireStream`]: one host, one port at
/// most, no TLS, no session attributes to check (what `connect_raw` leaves out).
pub fn qualifies(config: &Config) -> bool {
    config.get_hosts().len() == 1
        && config.get_hostaddrs().is_empty()
        && config.get_ports().len() <= 1
        && matches!(config.get_ssl_mode(), SslMode::Disable | SslMode::Prefer)
        && config.get_target_session_attrs() == TargetSessionAttrs::Any
}

/// A pipeline registered for one send: its marker query puts it on the wire. Dropped, it is
/// withdrawn if it never left (the connection closed first).
pub struct Pipeline {
    id: u64,
}

impl Pipeline {
    /// Register `messages` (extended-protocol messages ending with one `Sync`).
    pub fn register(messages: BytesMut) -> Pipeline {
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        PENDING.lock().unwrap_or_else(PoisonError::into_inner).insert(id, messages);
        Pipeline { id }
    }

    /// The simple query to send in its place.
    pub fn marker(&self) -> String {
        format!("{MARKER}{}", self.id)
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        PENDING.lock().unwrap_or_else(PoisonError::into_inner).remove(&self.id);
    }
}

/// The pipeline a query's text (a C string, NUL included) names, taken from the register.
fn take_marked(text: &[u8]) -> Option<BytesMut> {
    let rest = text.strip_prefix(MARKER.as_bytes())?;
    let digits = rest.strip_suffix(b"\0")?;
    let id: u64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    PENDING.lock().unwrap_or_else(PoisonError::into_inner).remove(&id)
}

/// deadpool's connector for [`WireStream`] connections.
pub struct WireConnect;

impl deadpool_postgres::Connect for WireConnect {
    fn connect(
        &self,
        config: &Config,
    ) -> BoxFuture<'_, Result<(Client, tokio::task::JoinHandle<()>), tokio_postgres::Error>> {
        let config = config.clone();
        Box::pin(async move {
            let socket = match config.get_connect_timeout() {
                Some(limit) => tokio::time::timeout(*limit, open(&config))
                    .await
                    .unwrap_or_else(|_| Err(io::Error::new(io::ErrorKind::TimedOut, "connect timeout"))),
                None => open(&config).await,
            };
            // A socket that could not be opened fails the start-up with its own error, as
            // tokio-postgres reports it.
            let socket = socket.unwrap_or_else(|err| Socket::Failed(Some(err)));
            let (client, connection) = config.connect_raw(WireStream::new(socket), NoTls).await?;
            let task = tokio::spawn(async move {
                if let Err(err) = connection.await {
                    tracing::warn!(target: "deadpool.postgres", "Connection error: {err}");
                }
            });
            Ok((client, task))
        })
    }
}

/// The socket `config` names: its one host (a Unix-socket directory or a TCP host) and port.
async fn open(config: &Config) -> io::Result<Socket> {
    let port = config.get_ports().first().copied().unwrap_or(5432);
    match config.get_hosts().first() {
        Some(Host::Unix(dir)) => Ok(Socket::Unix(UnixStream::connect(dir.join(format!(".s.PGSQL.{port}"))).await?)),
        Some(Host::Tcp(host)) => {
            let stream = TcpStream::connect((host.as_str(), port)).await?;
            stream.set_nodelay(true)?;
            if config.get_keepalives() {
                let mut keepalive = socket2::TcpKeepalive::new().with_time(config.get_keepalives_idle());
                if let Some(interval) = config.get_keepalives_interval() {
                    keepalive = keepalive.with_interval(interval);
                }
                if let Some(retries) = config.get_keepalives_retries() {
                    keepalive = keepalive.with_retries(retries);
                }
                socket2::SockRef::from(&stream).set_tcp_keepalive(&keepalive)?;
            }
            Ok(Socket::Tcp(stream))
        }
        None => Err(io::Error::new(io::ErrorKind::InvalidInput, "no host to connect to")),
    }
}

enum Socket {
    Tcp(TcpStream),
    Unix(UnixStream),
    /// Opening failed: the error, given to the first read or write.
    Failed(Option<io::Error>),
}

/// What a socket is to this stream: bytes both ways.
trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

impl Socket {
    /// The open socket, or the error that kept it from opening (once; then "not connected").
    fn io(&mut self) -> io::Result<Pin<&mut dyn Io>> {
        match self {
            Socket::Tcp(s) => Ok(Pin::new(s)),
            Socket::Unix(s) => Ok(Pin::new(s)),
            Socket::Failed(e) => {
                Err(e.take().unwrap_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "not connected")))
            }
        }
    }
}

/// A connection's socket with pipelines put in place of their markers (see the module's doc).
pub struct WireStream {
    socket: Socket,
    /// Whether start-up is over (the first `ReadyForQuery` has come): from then on, what
    /// tokio-postgres writes is read as messages.
    started: bool,
    /// Written by tokio-postgres, not yet a whole message.
    out_partial: BytesMut,
    /// For the socket.
    out: BytesMut,
    /// From the socket, not yet a whole message.
    in_partial: BytesMut,
    /// For tokio-postgres.
    in_ready: BytesMut,
    /// One entry per `ReadyForQuery` still to come, in order: whether it ends a pipeline's answer.
    answers: VecDeque<bool>,
    /// In a pipeline's answer: whether the current statement's rows are wanted (it was described).
    described: bool,
}

impl WireStream {
    fn new(socket: Socket) -> WireStream {
        WireStream {
            socket,
            started: false,
            out_partial: BytesMut::new(),
            out: BytesMut::with_capacity(8 * 1024),
            in_partial: BytesMut::with_capacity(16 * 1024),
            in_ready: BytesMut::new(),
            answers: VecDeque::new(),
            described: false,
        }
    }

    /// Move whole messages from `out_partial` to `out`, each marker replaced by its pipeline.
    fn sort_outbound(&mut self) {
        while let Some(len) = whole_message(&self.out_partial) {
            let message = self.out_partial.split_to(len);
            match message[0] {
                b'Q' => {
                    if let Some(pipeline) = take_marked(&message[5..]) {
                        self.out.extend_from_slice(&pipeline);
                        self.answers.push_back(true);
                        continue;
                    }
                    self.answers.push_back(false);
                }
                b'S' => self.answers.push_back(false),
                _ => {}
            }
            self.out.extend_from_slice(&message);
        }
    }

    /// Move whole messages from `in_partial` to `in_ready`, leaving out a pipeline's
    /// acknowledgements and the rows of its statements that were not described.
    fn sort_inbound(&mut self) {
        while let Some(len) = whole_message(&self.in_partial) {
            let message = self.in_partial.split_to(len);
            let tag = message[0];
            let keep = if self.answers.front() == Some(&true) {
                match tag {
                    b'1' | b'2' | b'3' | b'n' => false,
                    b'T' => {
                        self.described = true;
                        true
                    }
                    b'D' => self.described,
                    b'C' => {
                        self.described = false;
                        true
                    }
                    _ => true,
                }
            } else {
                true
            };
            if tag == b'Z' {
                if self.started {
                    self.answers.pop_front();
                }
                self.started = true;
                self.described = false;
            }
            if keep {
                self.in_ready.extend_from_slice(&message);
            }
        }
    }

    /// Write `out` to the socket.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.out.is_empty() {
            let written = ready!(self.socket.io()?.poll_write(cx, &self.out))?;
            if written == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.out.advance(written);
        }
        Poll::Ready(Ok(()))
    }
}

/// The length of the whole message at the start of `buf` (tag, length, body), if all of it is there.
fn whole_message(buf: &[u8]) -> Option<usize> {
    let header: [u8; 4] = buf.get(1..5)?.try_into().ok()?;
    // The length counts itself; a smaller one is not a message, and is passed on whole so that
    // tokio-postgres or Postgres reports it.
    let len = (u32::from_be_bytes(header) as usize).max(4) + 1;
    (buf.len() >= len).then_some(len)
}

impl AsyncRead for WireStream {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if !this.in_ready.is_empty() {
                let n = this.in_ready.len().min(buf.remaining());
                buf.put_slice(&this.in_ready[..n]);
                this.in_ready.advance(n);
                return Poll::Ready(Ok(()));
            }
            this.in_partial.reserve(16 * 1024);
            let read = ready!(tokio_util::io::poll_read_buf(this.socket.io()?, cx, &mut this.in_partial))?;
            if read == 0 {
                // The end: a message cut short goes on as it is, for tokio-postgres to report.
                if this.in_partial.is_empty() {
                    return Poll::Ready(Ok(()));
                }
                let rest = this.in_partial.split();
                this.in_ready.extend_from_slice(&rest);
                continue;
            }
            this.sort_inbound();
        }
    }
}

impl AsyncWrite for WireStream {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.out.len() >= HIGH_WATER {
            ready!(this.poll_drain(cx))?;
        }
        if this.started {
            this.out_partial.extend_from_slice(buf);
            this.sort_outbound();
        } else {
            this.out.extend_from_slice(buf);
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        this.socket.io()?.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        this.socket.io()?.poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(tag: u8, body: &[u8]) -> Vec<u8> {
        let mut m = vec![tag];
        m.extend_from_slice(&(body.len() as u32 + 4).to_be_bytes());
        m.extend_from_slice(body);
        m
    }

    fn started() -> WireStream {
        let mut s = WireStream::new(Socket::Failed(None));
        s.in_partial.extend_from_slice(&message(b'Z', b"I"));
        s.sort_inbound();
        s.in_ready.clear();
        s
    }

    #[test]
    fn a_marker_leaves_as_its_pipeline_and_other_messages_as_written() {
        let mut s = started();
        let pipeline = Pipeline::register(BytesMut::from(&message(b'S', b"")[..]));
        let mut text = pipeline.marker().into_bytes();
        text.push(0);
        let written: Vec<u8> = [message(b'Q', b"COMMIT\0"), message(b'Q', &text), message(b'X', b"")].concat();
        // Written in two pieces, split inside a message.
        s.out_partial.extend_from_slice(&written[..9]);
        s.sort_outbound();
        s.out_partial.extend_from_slice(&written[9..]);
        s.sort_outbound();
        let expected: Vec<u8> = [message(b'Q', b"COMMIT\0"), message(b'S', b""), message(b'X', b"")].concat();
        assert_eq!(&s.out[..], &expected[..]);
        assert_eq!(s.answers, VecDeque::from([false, true]));
        assert!(PENDING.lock().unwrap().get(&pipeline.id).is_none(), "the pipeline was taken");
    }

    #[test]
    fn an_unknown_marker_is_sent_as_the_query_it_is() {
        let mut s = started();
        let written = message(b'Q', format!("{MARKER}0\0").as_bytes());
        s.out_partial.extend_from_slice(&written);
        s.sort_outbound();
        assert_eq!(&s.out[..], &written[..]);
        assert_eq!(s.answers, VecDeque::from([false]));
    }

    #[test]
    fn a_pipeline_answer_keeps_completions_and_the_described_rows_only() {
        let mut s = started();
        s.answers.extend([true, false]);
        let answer: Vec<u8> = [
            message(b'1', b""),
            message(b'2', b""),
            message(b'C', b"BEGIN\0"),
            message(b'2', b""),
            message(b'D', b"\0\x01\0\0\0\x01x"),
            message(b'C', b"SELECT 1\0"),
            message(b'1', b""),
            message(b'2', b""),
            message(b'T', b"t"),
            message(b'D', b"row"),
            message(b'C', b"SELECT 1\0"),
            message(b'Z', b"I"),
            // The next answer is not a pipeline's: nothing is left out.
            message(b'1', b""),
            message(b'D', b"plain"),
            message(b'Z', b"I"),
        ]
        .concat();
        for byte in answer {
            s.in_partial.extend_from_slice(&[byte]);
            s.sort_inbound();
        }
        let expected: Vec<u8> = [
            message(b'C', b"BEGIN\0"),
            message(b'C', b"SELECT 1\0"),
            message(b'T', b"t"),
            message(b'D', b"row"),
            message(b'C', b"SELECT 1\0"),
            message(b'Z', b"I"),
            message(b'1', b""),
            message(b'D', b"plain"),
            message(b'Z', b"I"),
        ]
        .concat();
        assert_eq!(&s.in_ready[..], &expected[..]);
        assert!(s.answers.is_empty());
    }

    #[test]
    fn start_up_passes_as_it_is() {
        let mut s = WireStream::new(Socket::Failed(None));
        // The start-up message has no tag; a `Q` inside it must not be taken for one.
        let startup = b"\0\0\0\x09Q\0\0\0\x05";
        s.poll_write_now(startup);
        assert_eq!(&s.out[..], &startup[..]);
        assert!(s.answers.is_empty());
    }

    impl WireStream {
        fn poll_write_now(&mut self, buf: &[u8]) {
            let waker = futures_util::task::noop_waker();
            let mut cx = Context::from_waker(&waker);
            assert!(matches!(Pin::new(self).poll_write(&mut cx, buf), Poll::Ready(Ok(n)) if n == buf.len()));
        }
    }
}
