//! A receiver thread of the broadcast scenario: it opens and joins its share of the sockets one
//! after another (blocking, retried), then serves them all from one `mio` poll loop until told to
//! stop, tallying which ticks arrived, how often, and how long after they were sent. A tick costs
//! a read, a frame header, a substring search and two number parses: no JSON tree, no task, no
//! allocation. The loop also samples its own delay: how late it got round to a deadline set a
//! millisecond ahead — busy with other sockets, or not given a core.

use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};

use crate::phx;

const HEARTBEAT: Duration = Duration::from_secs(25);
const ATTEMPTS: usize = 3;

/// What every receiver thread reads and reports to.
pub struct Shared {
    pub url: String,
    pub topic: String,
    pub token: String,
    /// Ticks sent in the run (the size of each socket's tally).
    pub messages: usize,
    /// First receipts over all sockets, read while waiting for the run to drain.
    pub unique: AtomicU64,
    /// Set while the sender runs: the loop's delay is sampled then.
    pub measuring: AtomicBool,
    /// Set when the run is over.
    pub stop: AtomicBool,
}

/// What one thread saw.
#[derive(Default)]
pub struct Tally {
    pub joined: usize,
    pub failed: usize,
    pub first_error: Option<String>,
    /// How many times each tick arrived, `messages` entries per joined socket.
    pub received: Vec<u16>,
    /// Receive time minus send time of each first receipt, ms.
    pub latencies: Vec<f64>,
    /// Wall-clock ms of the last tick received.
    pub last: f64,
    /// Sockets the server closed before the end, by "code reason".
    pub closed: HashMap<String, u64>,
    /// The loop's delay samples while measuring, ms.
    pub delays: Vec<f64>,
}

struct Socket {
    stream: TcpStream,
    buf: Vec<u8>,
    fragments: Vec<u8>,
    open: bool,
}

/// Join the sockets numbered `range`, say so on `ready` (joined, failed, first error), then read
/// until `shared.stop`.
pub fn run(shared: &Shared, range: Range<usize>, ready: mpsc::Sender<(usize, usize, Option<String>)>) -> Tally {
    let mut tally = Tally::default();
    let Ok(mut poll) = Poll::new() else {
        let _ = ready.send((0, range.len(), Some("epoll".into())));
        return tally;
    };
    let mut sockets = Vec::with_capacity(range.len());
    for i in range {
        let mask = (i as u32).wrapping_mul(2_654_435_761).to_be_bytes();
        let mut joined = Err(String::new());
        for _ in 0..ATTEMPTS {
            joined = phx::open_and_join(&shared.url, &shared.topic, &shared.token, mask);
            if joined.is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let registered = joined.and_then(|j| {
            j.stream.set_nonblocking(true).map_err(|e| e.to_string())?;
            let mut stream = TcpStream::from_std(j.stream);
            poll.registry()
                .register(&mut stream, Token(sockets.len()), Interest::READABLE)
                .map_err(|e| e.to_string())?;
            Ok(Socket { stream, buf: j.rest, fragments: Vec::new(), open: true })
        });
        match registered {
            Ok(socket) => sockets.push(socket),
            Err(e) => {
                tally.failed += 1;
                tally.first_error.get_or_insert(e);
            }
        }
    }
    tally.joined = sockets.len();
    tally.received = vec![0; sockets.len() * shared.messages];
    let _ = ready.send((tally.joined, tally.failed, tally.first_error.clone()));

    let mut events = Events::with_capacity(1024);
    let mut scratch = vec![0u8; 64 * 1024];
    let step = Duration::from_millis(1);
    let mut deadline = Instant::now() + step;
    let mut next_heartbeat = Instant::now() + HEARTBEAT;
    let mut reference = 1u64;
    while !shared.stop.load(Ordering::Relaxed) {
        let wait = deadline.saturating_duration_since(Instant::now());
        if poll.poll(&mut events, Some(wait)).is_err() {
            continue;
        }
        for event in events.iter() {
            let index = event.token().0;
            if let Some(socket) = sockets.get_mut(index) {
                read_socket(shared, &mut tally, index, socket, &mut scratch);
            }
        }
        let now = Instant::now();
        if now >= deadline {
            if shared.measuring.load(Ordering::Relaxed) {
                tally.delays.push((now - deadline).as_secs_f64() * 1000.0);
            }
            deadline = now + step;
        }
        if now >= next_heartbeat {
            reference += 1;
            let frame = phx::text_frame(&phx::heartbeat(reference), [7, 7, 7, 7]);
            for socket in sockets.iter_mut().filter(|s| s.open) {
                let _ = socket.stream.write(&frame);
            }
            next_heartbeat = now + HEARTBEAT;
        }
    }
    let close = phx::client_frame(8, &1000u16.to_be_bytes(), [9, 9, 9, 9]);
    for socket in sockets.iter_mut().filter(|s| s.open) {
        let _ = socket.stream.write(&close);
    }
    tally
}

/// Read what the socket has and act on every whole frame in it.
fn read_socket(shared: &Shared, tally: &mut Tally, index: usize, socket: &mut Socket, scratch: &mut [u8]) {
    while socket.open {
        match socket.stream.read(scratch) {
            Ok(0) => return closed(tally, socket, "1006".into()),
            Ok(n) => {
                socket.buf.extend_from_slice(&scratch[..n]);
                // A short read emptied the socket: with edge-triggered polling the next arrival is
                // a new event, so no second read is spent to be told "would block".
                if n < scratch.len() {
                    break;
                }
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return closed(tally, socket, format!("1006 {e}")),
        }
    }
    let mut at = 0;
    while let Some((frame, used)) = phx::parse_frame(&socket.buf[at..]) {
        at += used;
        match frame.opcode {
            0..=2 if !frame.fin => socket.fragments.extend_from_slice(frame.payload),
            0..=2 if !socket.fragments.is_empty() => {
                socket.fragments.extend_from_slice(frame.payload);
                let whole = std::mem::take(&mut socket.fragments);
                on_text(shared, tally, index, &whole);
            }
            0..=2 => on_text(shared, tally, index, frame.payload),
            8 => {
                let code = frame.payload.get(..2).map_or(1005, |c| u16::from_be_bytes([c[0], c[1]]));
                let reason = String::from_utf8_lossy(frame.payload.get(2..).unwrap_or_default()).into_owned();
                return closed(tally, socket, format!("{code} {reason}").trim().to_string());
            }
            9 => {
                let pong = phx::client_frame(10, frame.payload, [3, 1, 4, 1]);
                let _ = socket.stream.write(&pong);
            }
            _ => {}
        }
    }
    socket.buf.drain(..at);
}

fn on_text(shared: &Shared, tally: &mut Tally, index: usize, text: &[u8]) {
    let Some((seq, sent)) = phx::read_tick(text) else { return };
    if seq >= shared.messages {
        return;
    }
    let at = crate::wall_ms();
    let count = &mut tally.received[index * shared.messages + seq];
    *count = count.saturating_add(1);
    if *count == 1 {
        tally.latencies.push(at - sent);
        shared.unique.fetch_add(1, Ordering::Relaxed);
    }
    tally.last = at;
}

fn closed(tally: &mut Tally, socket: &mut Socket, reason: String) {
    socket.open = false;
    *tally.closed.entry(reason).or_default() += 1;
}
