//! A socket's outbound frames: a bounded queue that never makes a sender wait, read by one
//! reader (the socket's response body). A push is one uncontended lock and, when the reader
//! sleeps, one wake; the reader takes every waiting frame under one lock. The queue that
//! overflows is marked lagging and takes nothing more. Cheaper per frame than a bounded tokio
//! channel (whose permits, block list and two wakers cost more than the frame's write at a
//! 5,000-socket fan-out); knows nothing of sockets or frames' contents.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use super::protocol::Frame;

struct Queue {
    state: Mutex<State>,
    lagged: AtomicBool,
    capacity: usize,
}

#[derive(Default)]
struct State {
    frames: VecDeque<Frame>,
    waker: Option<Waker>,
    senders_gone: bool,
    reader_gone: bool,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What became of a pushed frame.
#[derive(Debug, PartialEq, Eq)]
pub enum Pushed {
    Queued,
    /// The queue was full (it is now lagging) or already lagging: the frame was dropped.
    Lagging,
    /// The reader is gone.
    Closed,
}

/// The sending side; clones share it, and the last one dropped ends the queue for the reader.
#[derive(Clone)]
pub struct Sender(Arc<SenderGuard>);

struct SenderGuard(Arc<Queue>);

impl Drop for SenderGuard {
    fn drop(&mut self) {
        let waker = {
            let mut state = self.0.lock();
            state.senders_gone = true;
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl std::fmt::Debug for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender").field("lagged", &self.is_lagged()).finish()
    }
}

/// The reading side.
pub struct Reader(Arc<Queue>);

/// A queue of at most `capacity` frames.
pub fn queue(capacity: usize) -> (Sender, Reader) {
    let queue = Arc::new(Queue { state: Mutex::default(), lagged: AtomicBool::new(false), capacity });
    (Sender(Arc::new(SenderGuard(queue.clone()))), Reader(queue))
}

impl Sender {
    /// Queue `frame` without waiting.
    pub fn push(&self, frame: Frame) -> Pushed {
        let queue = &self.0 .0;
        if queue.lagged.load(Ordering::Relaxed) {
            return Pushed::Lagging;
        }
        let waker = {
            let mut state = queue.lock();
            if state.reader_gone {
                return Pushed::Closed;
            }
            if state.frames.len() >= queue.capacity {
                queue.lagged.store(true, Ordering::Relaxed);
                return Pushed::Lagging;
            }
            state.frames.push_back(frame);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        Pushed::Queued
    }

    /// Whether a frame was dropped because the reader did not keep up.
    pub fn is_lagged(&self) -> bool {
        self.0 .0.lagged.load(Ordering::Relaxed)
    }
}

impl Reader {
    /// Move up to `max` waiting frames, in order, into `out`. `Ready(true)` when the queue has
    /// ended (every sender gone, nothing left); `Ready(false)` when frames were taken; `Pending`
    /// (the task woken by the next push) when there was none.
    pub fn poll_take(&self, cx: &mut Context<'_>, max: usize, out: &mut Vec<Frame>) -> Poll<bool> {
        let mut state = self.0.lock();
        if state.frames.is_empty() {
            if state.senders_gone {
                return Poll::Ready(true);
            }
            if !state.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                state.waker = Some(cx.waker().clone());
            }
            return Poll::Pending;
        }
        let n = max.min(state.frames.len());
        out.extend(state.frames.drain(..n));
        Poll::Ready(false)
    }

    /// Whether a frame was dropped because the reader did not keep up.
    pub fn is_lagged(&self) -> bool {
        self.0.lagged.load(Ordering::Relaxed)
    }

    /// Take nothing more: what is queued is dropped and later pushes are refused.
    pub fn close(&self) {
        let mut state = self.0.lock();
        state.reader_gone = true;
        state.frames.clear();
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Waker;

    fn text(s: &str) -> Frame {
        Frame::Text(s.into())
    }

    fn take(reader: &Reader, max: usize) -> Poll<(bool, Vec<Frame>)> {
        let mut cx = Context::from_waker(Waker::noop());
        let mut out = Vec::new();
        reader.poll_take(&mut cx, max, &mut out).map(|ended| (ended, out))
    }

    #[test]
    fn frames_come_out_in_order_a_batch_at_a_time() {
        let (tx, rx) = queue(8);
        for s in ["a", "b", "c"] {
            assert_eq!(tx.push(text(s)), Pushed::Queued);
        }
        assert_eq!(take(&rx, 2), Poll::Ready((false, vec![text("a"), text("b")])));
        assert_eq!(take(&rx, 2), Poll::Ready((false, vec![text("c")])));
        assert_eq!(take(&rx, 2), Poll::Pending);
    }

    #[test]
    fn a_full_queue_lags_and_then_takes_nothing_even_with_room() {
        let (tx, rx) = queue(2);
        assert_eq!(tx.push(text("1")), Pushed::Queued);
        assert_eq!(tx.push(text("2")), Pushed::Queued);
        assert_eq!(tx.push(text("3")), Pushed::Lagging);
        assert!(rx.is_lagged() && tx.is_lagged());
        assert_eq!(take(&rx, 10), Poll::Ready((false, vec![text("1"), text("2")])));
        assert_eq!(tx.push(text("4")), Pushed::Lagging, "no gap after what was queued");
    }

    #[test]
    fn the_queue_ends_when_the_last_sender_is_dropped_after_its_frames() {
        let (tx, rx) = queue(4);
        let other = tx.clone();
        tx.push(text("x"));
        drop(tx);
        assert_eq!(take(&rx, 4), Poll::Ready((false, vec![text("x")])));
        assert_eq!(take(&rx, 4), Poll::Pending, "a clone is still there");
        drop(other);
        assert_eq!(take(&rx, 4), Poll::Ready((true, vec![])));
    }

    #[test]
    fn a_closed_reader_refuses_frames() {
        let (tx, rx) = queue(4);
        tx.push(text("x"));
        drop(rx);
        assert_eq!(tx.push(text("y")), Pushed::Closed);
    }

    #[test]
    fn a_push_wakes_the_reader_that_found_it_empty() {
        use std::sync::atomic::AtomicUsize;
        struct Count(AtomicUsize);
        impl std::task::Wake for Count {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let (tx, rx) = queue(4);
        let mut out = Vec::new();
        assert!(rx.poll_take(&mut Context::from_waker(&waker), 4, &mut out).is_pending());
        tx.push(text("x"));
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        tx.push(text("y"));
        assert_eq!(count.0.load(Ordering::SeqCst), 1, "woken once until it reads again");
    }
}
