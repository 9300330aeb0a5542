//! Connections an HTTP worker shares among its requests' one-trip pipelines ("lanes"), so that
//! the transactions of requests that arrive together reach Postgres in one write and are
//! answered in one read, by one backend woken once.
//!
//! A pipeline that commits ([`super::one_trip`]) is a whole transaction that ends at its `Sync`,
//! whatever happens in it: Postgres commits it, or rolls it back after an error, and the
//! connection is ready for the next. So pipelines of different requests can follow one another
//! on one connection without waiting for each other's answers, as tokio-postgres sends the
//! queries of concurrent callers of one client. Each worker thread keeps up to `per_worker`
//! lanes, opened on first need on that thread, whose connection tasks therefore run where the
//! requests run (no wake-up of another thread on the way to Postgres and back).
//!
//! Read-only transactions have a lane of their own per worker, deeper (`DB_SHARED_READ_DEPTH`,
//! 16; [`SharedConnections`] says why reads and not writes).
//!
//! A request takes the first lane with room: fewer than its set's depth of pipelines in flight,
//! and, when there are some, one answered within [`STALL`] (a lane whose head pipeline is slow
//! takes no new ones, so that a quick request is not queued behind a long statement). Without
//! such a lane, and with every lane of its worker opened, it takes a connection of its own from
//! the pool as before. Only transactions that end in their own message run on lanes: an explicit
//! `BEGIN` (`Prefer: tx=rollback`) or a transaction left open for a check takes a pooled
//! connection, and so does every request while read replicas are configured (a read may go to
//! one, a write marks its caller as a writer). What a statement leaves in its session (a
//! session-level `set_config`, a temporary table) is seen by the requests after it on the
//! connection, as on a pooled one.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use deadpool_postgres::{ClientWrapper, Connect as _};

use super::context::Access;

/// A set of lanes of one database, per worker thread.
struct Lanes {
    id: u64,
    config: tokio_postgres::Config,
    per_worker: usize,
    depth: usize,
}

/// One shared connection.
struct Lane {
    client: ClientWrapper,
    in_flight: AtomicUsize,
    /// When the lane last answered a pipeline, or went from idle to busy.
    progress: Mutex<Instant>,
}

/// Pipelines a lane that any of them may take carries before it is full.
const DEPTH: usize = 4;
/// How long a busy lane may go without answering before it takes no more pipelines.
const STALL: Duration = Duration::from_millis(2);
/// How long opening a lane may take (the request pool's limit for a new connection).
const OPEN_TIMEOUT: Duration = Duration::from_secs(10);

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// This thread's lanes, by [`Lanes::id`].
    static WORKERS: RefCell<HashMap<u64, Worker>> = RefCell::new(HashMap::new());
}

/// The lanes of one database: those any one-trip pipeline may take (`per_worker` per thread,
/// [`DEPTH`] deep), and, unless `read_depth` is 0, one more per thread that only read-only
/// pipelines take, `read_depth` deep. A read-only transaction writes no commit record, so the
/// reads of a whole worker can follow one another on one backend; a write's `COMMIT` waits for
/// its WAL to reach the disk, and writes queued on one backend would each wait in turn where
/// several backends share a flush.
pub struct SharedConnections {
    any: Lanes,
    reads: Option<Lanes>,
}

impl SharedConnections {
    /// `None` when `per_worker` is 0 or the connections cannot carry pipelines.
    pub fn new(config: tokio_postgres::Config, per_worker: usize, read_depth: usize) -> Option<SharedConnections> {
        let any = Lanes::new(config.clone(), per_worker, DEPTH)?;
        Some(SharedConnections { any, reads: Lanes::new(config, 1, read_depth) })
    }

    /// A lane for a pipeline of `access` (a read-only one on the readers' lane when there is
    /// one); `None` when it has no room (the caller takes a pooled connection).
    pub async fn take(&self, access: Access) -> Option<LaneGuard> {
        match (access, &self.reads) {
            (Access::ReadOnly, Some(reads)) => reads.take().await,
            _ => self.any.take().await,
        }
    }
}

impl Lanes {
    /// Lanes on `config` (the request pool's), `per_worker` per thread, each taking up to `depth`
    /// pipelines; `None` when either is 0 or when the connections cannot carry pipelines
    /// ([`super::wire::qualifies`]).
    fn new(mut config: tokio_postgres::Config, per_worker: usize, depth: usize) -> Option<Lanes> {
        if per_worker == 0 || depth == 0 || !super::wire::qualifies(&config) {
            return None;
        }
        // Told apart from the pool's in `pg_stat_activity` between requests (a request's id is
        // the `application_name` of its own transaction).
        config.application_name("server-shared");
        Some(Lanes { id: NEXT_ID.fetch_add(1, Ordering::Relaxed), config, per_worker, depth })
    }

    /// A lane with room on this thread, opening one when every open lane is full and fewer than
    /// `per_worker` are open or opening; `None` when there is none to be had (the caller takes a
    /// pooled connection).
    async fn take(&self) -> Option<LaneGuard> {
        let now = Instant::now();
        let found = self.with_worker(|worker| {
            worker.lanes.retain(|lane| !lane.client.is_closed());
            if let Some(lane) = worker.lanes.iter().find(|lane| lane.has_room(now, self.depth)) {
                return Ok(lane.clone());
            }
            if worker.lanes.len() + worker.opening >= self.per_worker {
                return Err(false);
            }
            worker.opening += 1;
            Err(true)
        });
        match found {
            Ok(lane) => Some(LaneGuard::enter(lane, now)),
            Err(false) => None,
            Err(true) => {
                let opening = Opening { lanes: self };
                let lane = Arc::new(self.open().await?);
                drop(opening);
                self.with_worker(|worker| worker.lanes.push(lane.clone()));
                Some(LaneGuard::enter(lane, Instant::now()))
            }
        }
    }

    /// A new lane, within the pool's time limit for a new connection.
    async fn open(&self) -> Option<Lane> {
        let opened = tokio::time::timeout(OPEN_TIMEOUT, super::wire::WireConnect.connect(&self.config)).await;
        match opened {
            Ok(Ok((client, task))) => Some(Lane {
                client: ClientWrapper::new(client, task),
                in_flight: AtomicUsize::new(0),
                progress: Mutex::new(Instant::now()),
            }),
            Ok(Err(err)) => {
                tracing::warn!(error = %err, "could not open a shared connection");
                None
            }
            Err(_) => {
                tracing::warn!("could not open a shared connection in time");
                None
            }
        }
    }

    fn with_worker<T>(&self, f: impl FnOnce(&mut Worker) -> T) -> T {
        WORKERS.with_borrow_mut(|workers| f(workers.entry(self.id).or_default()))
    }
}

/// One thread's lanes of one database.
#[derive(Default)]
struct Worker {
    lanes: Vec<Arc<Lane>>,
    /// Lanes being opened.
    opening: usize,
}

/// A lane being opened, counted until it is open or has failed (or its request went away).
struct Opening<'a> {
    lanes: &'a Lanes,
}

impl Drop for Opening<'_> {
    fn drop(&mut self) {
        self.lanes.with_worker(|worker| worker.opening = worker.opening.saturating_sub(1));
    }
}

impl Lane {
    fn has_room(&self, now: Instant, depth: usize) -> bool {
        let progress = *self.progress.lock().unwrap_or_else(PoisonError::into_inner);
        room(self.in_flight.load(Ordering::Relaxed), now.saturating_duration_since(progress), depth, STALL)
    }
}

/// Whether a lane with `in_flight` pipelines, the last answered (or the first sent) `quiet` ago,
/// takes one more.
fn room(in_flight: usize, quiet: Duration, depth: usize, stall: Duration) -> bool {
    in_flight == 0 || (in_flight < depth && quiet < stall)
}

/// A request's use of a lane: its connection, for one pipeline.
pub struct LaneGuard {
    lane: Arc<Lane>,
}

impl LaneGuard {
    fn enter(lane: Arc<Lane>, now: Instant) -> LaneGuard {
        if lane.in_flight.fetch_add(1, Ordering::Relaxed) == 0 {
            *lane.progress.lock().unwrap_or_else(PoisonError::into_inner) = now;
        }
        LaneGuard { lane }
    }
}

impl Deref for LaneGuard {
    type Target = ClientWrapper;
    fn deref(&self) -> &ClientWrapper {
        &self.lane.client
    }
}

impl Drop for LaneGuard {
    fn drop(&mut self) {
        *self.lane.progress.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
        self.lane.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_lane_always_has_room_a_busy_one_while_it_answers_and_is_not_full() {
        let ms = Duration::from_millis;
        assert!(room(0, ms(10_000), DEPTH, STALL), "idle, however long ago its last answer");
        assert!(room(1, ms(0), DEPTH, STALL));
        assert!(room(DEPTH - 1, ms(1), DEPTH, STALL));
        assert!(!room(DEPTH, ms(0), DEPTH, STALL), "full");
        assert!(!room(1, STALL, DEPTH, STALL), "no answer for as long as the stall bound");
        assert!(!room(1, ms(1_000), DEPTH, STALL), "a slow statement at its head");
    }
}
