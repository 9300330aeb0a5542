//! The log lines' writer: each line is appended to one shared buffer where it is formatted, and a
//! thread of its own writes the buffer to stderr in one system call every [`FLUSH_EVERY`] (at
//! once when it passes [`WAKE_AT`] bytes). A request's worker never waits on the terminal or the
//! log file, and, unlike a channel with a thread woken for every line (`tracing-appender`'s
//! non-blocking writer, measured at 8 % of a single-row read's samples in its own thread plus a
//! wake-up per request in the workers), nothing is woken per line. Lines are not lost: when the
//! buffer holds [`BLOCK_AT`] bytes the writer is behind (stderr blocked), and callers wait for
//! it. Dropping the [`FlushGuard`] writes what is left.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long a line may wait in the buffer.
pub const FLUSH_EVERY: Duration = Duration::from_millis(25);
/// A buffer this large is written without waiting for the next tick.
pub const WAKE_AT: usize = 256 * 1024;
/// A buffer this large makes callers wait for the writer.
pub const BLOCK_AT: usize = 16 * 1024 * 1024;

#[derive(Default)]
struct Pending {
    bytes: Vec<u8>,
    closed: bool,
}

#[derive(Default)]
struct Shared {
    pending: Mutex<Pending>,
    /// Signalled when the buffer passes `WAKE_AT` or the writer is closed (wakes the thread).
    wake: Condvar,
    /// Signalled after each write (wakes callers waiting at `BLOCK_AT`).
    drained: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        // A panic while holding the lock leaves bytes that are still lines: keep going.
        self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The writer handed to the subscriber (cheap to clone; every clone appends to the same buffer).
#[derive(Clone)]
pub struct LogWriter {
    shared: Arc<Shared>,
}

/// Writes what is left and ends the writer's thread when dropped.
pub struct FlushGuard {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// A writer to `out` with its thread started (named `log-writer`).
pub fn spawn<W: Write + Send + 'static>(out: W) -> std::io::Result<(LogWriter, FlushGuard)> {
    let shared = Arc::new(Shared::default());
    let thread = {
        let shared = shared.clone();
        std::thread::Builder::new().name("log-writer".into()).spawn(move || run(&shared, out))?
    };
    Ok((LogWriter { shared: shared.clone() }, FlushGuard { shared, thread: Some(thread) }))
}

fn run<W: Write>(shared: &Shared, mut out: W) {
    let mut spare = Vec::new();
    loop {
        let closed = {
            let mut pending = shared.lock();
            if pending.bytes.len() < WAKE_AT && !pending.closed {
                pending = match shared.wake.wait_timeout(pending, FLUSH_EVERY) {
                    Ok((guard, _)) => guard,
                    Err(poisoned) => poisoned.into_inner().0,
                };
            }
            std::mem::swap(&mut pending.bytes, &mut spare);
            pending.closed
        };
        if !spare.is_empty() {
            // Nowhere to report a failed write to stderr; the lines are dropped, the rest goes on.
            let _ = out.write_all(&spare).and_then(|()| out.flush());
            spare.clear();
            if spare.capacity() > 4 * WAKE_AT {
                spare.shrink_to(WAKE_AT);
            }
            shared.drained.notify_all();
        }
        if closed {
            return;
        }
    }
}

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let mut pending = self.shared.lock();
        while pending.bytes.len() >= BLOCK_AT && !pending.closed {
            self.shared.wake.notify_one();
            pending = match self.shared.drained.wait(pending) {
                Ok(guard) => guard,
                Err(poisoned) => poisoned.into_inner(),
            };
        }
        let before = pending.bytes.len();
        pending.bytes.extend_from_slice(buf);
        let crossed = before < WAKE_AT && pending.bytes.len() >= WAKE_AT;
        drop(pending);
        if crossed {
            self.shared.wake.notify_one();
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogWriter {
    type Writer = LogWriter;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

impl Drop for FlushGuard {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink the test can read while the writer owns it.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_from_several_threads_arrive_whole_and_in_each_threads_order() {
        let sink = Sink::default();
        let (writer, guard) = spawn(sink.clone()).unwrap();
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let mut writer = writer.clone();
                std::thread::spawn(move || {
                    for i in 0..5000 {
                        writer.write_all(format!("thread {t} line {i}\n").as_bytes()).unwrap();
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        drop(guard);
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let mut next = [0usize; 4];
        for line in text.lines() {
            let parts: Vec<&str> = line.split(' ').collect();
            assert_eq!(parts.len(), 4, "a line cut or merged: {line:?}");
            let t: usize = parts[1].parse().unwrap();
            assert_eq!(parts[3].parse::<usize>().unwrap(), next[t], "thread {t} out of order");
            next[t] += 1;
        }
        assert_eq!(next, [5000; 4], "every line written once");
    }

    #[test]
    fn a_line_reaches_the_output_within_the_flush_interval_without_a_drop() {
        let sink = Sink::default();
        let (mut writer, _guard) = spawn(sink.clone()).unwrap();
        writer.write_all(b"hello\n").unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while sink.0.lock().unwrap().is_empty() {
            assert!(std::time::Instant::now() < deadline, "the line was never written");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(&*sink.0.lock().unwrap(), b"hello\n");
    }

    /// A sink that blocks until the test lets it go, as a full pipe does.
    struct Stuck(Arc<(Mutex<bool>, Condvar)>, Sink);

    impl Write for Stuck {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let (open, cv) = &*self.0;
            let mut open = open.lock().unwrap();
            while !*open {
                open = cv.wait(open).unwrap();
            }
            self.1.write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn callers_wait_for_a_stuck_output_rather_than_lose_lines() {
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let sink = Sink::default();
        let (writer, guard) = spawn(Stuck(gate.clone(), sink.clone())).unwrap();
        let line = vec![b'x'; 1023];
        let total = 3 * BLOCK_AT / 1024;
        let producer = {
            let mut writer = writer.clone();
            let line = line.clone();
            std::thread::spawn(move || {
                for _ in 0..total {
                    writer.write_all(&line).unwrap();
                    writer.write_all(b"\n").unwrap();
                }
            })
        };
        // The producer cannot finish while the output is stuck: it fills the buffer to BLOCK_AT
        // and waits there, however slow the machine.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while writer.shared.lock().bytes.len() < BLOCK_AT {
            assert!(std::time::Instant::now() < deadline, "the buffer never filled");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!producer.is_finished(), "the producer went past a stuck output");
        assert!(writer.shared.lock().bytes.len() <= BLOCK_AT + 1024, "the buffer grew past its bound");
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        producer.join().unwrap();
        drop(guard);
        assert_eq!(sink.0.lock().unwrap().len(), total * 1024, "every byte written once");
    }
}
