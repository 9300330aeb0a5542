//! Delivery of one message to many sockets by the threads that serve them. Each HTTP worker
//! thread that serves sockets gets a lane: a task on that thread's runtime running, in order, the
//! deliveries handed to it. A broadcast to a topic whose sockets are spread over the workers thus
//! wakes each worker once, instead of waking every remote socket's writer one by one from the
//! broadcasting thread (each such wake is a cross-thread push and, often, an eventfd write that
//! pulls the other thread out of its poll — hundreds per message at 5,000 sockets). The
//! broadcasting thread's own sockets go through its lane too, so that every socket gets the
//! deliveries in the order they were handed over. Knows nothing of topics or frames: a delivery
//! is a closure.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::RwLock;

use tokio::sync::mpsc;

/// A worker thread's number, given the first time it asks.
pub type WorkerId = usize;

type Job = Box<dyn FnOnce() + Send>;

static NEXT_WORKER: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static WORKER: Cell<Option<WorkerId>> = const { Cell::new(None) };
}

/// The worker has no lane running (its runtime is gone).
#[derive(Debug)]
pub struct NoLane;

/// The lanes of every worker that serves sockets.
#[derive(Default)]
pub struct Lanes {
    lanes: RwLock<Vec<Option<mpsc::UnboundedSender<Job>>>>,
}

impl Lanes {
    /// This thread's worker number, its lane started on this thread's runtime if it has none
    /// yet; `None` outside a runtime (then deliveries to its sockets are made by the caller).
    pub fn enlist_current(&self) -> Option<WorkerId> {
        if let Some(id) = WORKER.with(Cell::get) {
            if self.lanes.read().unwrap_or_else(|e| e.into_inner()).get(id).is_some_and(Option::is_some) {
                return Some(id);
            }
        }
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let id = WORKER.with(|w| {
            let id = w.get().unwrap_or_else(|| NEXT_WORKER.fetch_add(1, Ordering::Relaxed));
            w.set(Some(id));
            id
        });
        let (tx, mut rx) = mpsc::unbounded_channel::<Job>();
        runtime.spawn(async move {
            while let Some(job) = rx.recv().await {
                job();
            }
        });
        let mut lanes = self.lanes.write().unwrap_or_else(|e| e.into_inner());
        if lanes.len() <= id {
            lanes.resize_with(id + 1, || None);
        }
        lanes[id] = Some(tx);
        Some(id)
    }

    /// Run `job` on `worker`'s thread after the deliveries already handed to it; an error (the
    /// job dropped unrun) if that worker has no running lane.
    pub fn run_on(&self, worker: WorkerId, job: Job) -> Result<(), NoLane> {
        let lanes = self.lanes.read().unwrap_or_else(|e| e.into_inner());
        match lanes.get(worker).and_then(Option::as_ref) {
            Some(lane) => lane.send(job).map_err(|_| NoLane),
            None => Err(NoLane),
        }
    }
}
