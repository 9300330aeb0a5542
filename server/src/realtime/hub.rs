//! Who is joined to which topic on this instance, and fan-out to them.
//!
//! Each socket owns a bounded outbox (`queue.rs`); the hub only ever pushes into it without
//! waiting, so a slow client loses its connection (its outbox lags, and the socket is closed
//! after what it had queued) instead of slowing anyone else. A message is encoded once per
//! serializer version, then shared by every recipient; each worker thread's sockets get it from
//! that thread's lane (`fanout.rs`).
//! The hub holds presence too (`presence.rs`). It never touches the database or the relay.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use super::fanout::{Lanes, WorkerId};
use super::presence::Presence;
use super::protocol::{Frame, Vsn};
use super::queue::{self, Pushed};

/// Identifies a socket on this instance.
pub type SocketId = u64;

/// A socket's outbound queue, shared by every channel it joined.
#[derive(Clone, Debug)]
pub struct Outbox {
    pub socket: SocketId,
    pub vsn: Vsn,
    /// The worker thread that writes this socket, when it has a lane.
    pub worker: Option<WorkerId>,
    tx: queue::Sender,
}

impl Outbox {
    /// A queue of `capacity` frames and its receiving end, read on `worker`'s thread.
    pub fn new(socket: SocketId, vsn: Vsn, capacity: usize, worker: Option<WorkerId>) -> (Outbox, queue::Reader) {
        let (tx, rx) = queue::queue(capacity);
        (Outbox { socket, vsn, worker, tx }, rx)
    }

    /// Queue a frame without waiting; a full queue marks the socket lagged, and a lagging socket
    /// takes nothing more (it is being closed after what it has queued, which thus has no gap).
    pub fn send(&self, frame: Frame) {
        if self.tx.push(frame) == Pushed::Queued {
            crate::metrics::realtime_frames("sent", 1);
        }
    }

    /// Whether a frame was dropped because the client did not keep up.
    pub fn is_lagged(&self) -> bool {
        self.tx.is_lagged()
    }
}

/// A topic: public and private channels of one name are distinct.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopicKey {
    pub private: bool,
    /// The topic without its `realtime:` prefix (what SQL and the REST API name).
    pub name: String,
}

/// One channel joined on a topic.
#[derive(Debug, Clone)]
pub struct Member {
    pub outbox: Outbox,
    /// The full topic as the client wrote it (`realtime:<name>`).
    pub topic: String,
    pub join_ref: String,
    /// Receives its own broadcasts (`config.broadcast.self`).
    pub receive_own: bool,
    /// Receives broadcasts (a private channel may be allowed presence only).
    pub receive_broadcast: bool,
    /// Receives presence events (`config.presence.enabled` and, when private, allowed).
    pub receive_presence: bool,
}

/// A message encoded lazily, once per serializer version.
pub struct Encoded<F: Fn(Vsn) -> Frame> {
    build: F,
    v1: OnceLock<Frame>,
    v2: OnceLock<Frame>,
}

impl<F: Fn(Vsn) -> Frame> Encoded<F> {
    pub fn new(build: F) -> Self {
        Encoded { build, v1: OnceLock::new(), v2: OnceLock::new() }
    }

    pub fn get(&self, vsn: Vsn) -> Frame {
        let cell = match vsn {
            Vsn::V1 => &self.v1,
            Vsn::V2 => &self.v2,
        };
        cell.get_or_init(|| (self.build)(vsn)).clone()
    }
}

#[derive(Default)]
struct Topic {
    members: Vec<Member>,
    presence: Presence,
}

/// A topic of this instance as the dashboard lists it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TopicInfo {
    pub topic: String,
    pub private: bool,
    /// Channels joined to it on this instance.
    pub channels: usize,
    /// Presences tracked on it (from every instance).
    pub presences: usize,
}

/// Topics of this instance.
#[derive(Default)]
pub struct Hub {
    topics: RwLock<HashMap<TopicKey, Topic>>,
    lanes: Lanes,
}

/// Workers with recipients of one broadcast, as bits (worker numbers under 64; others are
/// delivered to by the broadcasting thread).
#[derive(Default, Clone, Copy)]
struct Recipients {
    workers: u64,
    v1: bool,
    v2: bool,
}

impl Hub {
    /// The current worker thread's number for a socket it will write, its lane started if needed.
    pub fn enlist_current_worker(&self) -> Option<WorkerId> {
        self.lanes.enlist_current()
    }

    /// Add a channel to a topic (replacing an earlier join of the same socket).
    pub fn join(&self, key: &TopicKey, member: Member) {
        let mut topics = self.topics.write().unwrap_or_else(|e| e.into_inner());
        let topic = topics.entry(key.clone()).or_default();
        topic.members.retain(|m| m.outbox.socket != member.outbox.socket);
        topic.members.push(member);
    }

    /// Remove a socket's channel from a topic.
    pub fn leave(&self, key: &TopicKey, socket: SocketId) {
        let mut topics = self.topics.write().unwrap_or_else(|e| e.into_inner());
        if let Some(topic) = topics.get_mut(key) {
            topic.members.retain(|m| m.outbox.socket != socket);
            if topic.members.is_empty() && topic.presence.is_empty() {
                topics.remove(key);
            }
        }
    }

    /// Turn presence on for a socket's channel that joined without it (its first `track`, as
    /// Supabase Realtime does); true when it was off.
    pub fn enable_presence(&self, key: &TopicKey, socket: SocketId) -> bool {
        let mut topics = self.topics.write().unwrap_or_else(|e| e.into_inner());
        let Some(member) = topics.get_mut(key).and_then(|t| t.members.iter_mut().find(|m| m.outbox.socket == socket))
        else {
            return false;
        };
        !std::mem::replace(&mut member.receive_presence, true)
    }

    /// Number of channels joined on this instance.
    pub fn channel_count(&self) -> usize {
        self.topics.read().unwrap_or_else(|e| e.into_inner()).values().map(|t| t.members.len()).sum()
    }

    /// The topics of this instance with their channels and presences, by name (the dashboard's view).
    pub fn topics(&self) -> Vec<TopicInfo> {
        let topics = self.topics.read().unwrap_or_else(|e| e.into_inner());
        let mut listed: Vec<TopicInfo> = topics
            .iter()
            .map(|(key, t)| TopicInfo {
                topic: key.name.clone(),
                private: key.private,
                channels: t.members.len(),
                presences: t.presence.count(),
            })
            .collect();
        listed.sort_by(|a, b| (&a.topic, a.private).cmp(&(&b.topic, b.private)));
        listed
    }

    /// Send a broadcast to the topic's members (not to `from` unless it asked for its own): each
    /// worker's members from that worker's lane, so every member gets broadcasts in the order
    /// they were made (two made one after the other, on any threads, arrive in that order).
    /// Returns how many members it goes to.
    pub fn broadcast<F: Fn(Vsn) -> Frame>(
        self: &Arc<Self>,
        key: &TopicKey,
        from: Option<SocketId>,
        message: &Encoded<F>,
    ) -> usize {
        let mut lanes = Recipients::default();
        let mut sent = 0;
        {
            let topics = self.topics.read().unwrap_or_else(|e| e.into_inner());
            let Some(topic) = topics.get(key) else { return 0 };
            for member in topic.members.iter().filter(|m| receives_broadcast(m, from)) {
                sent += 1;
                match member.outbox.worker.filter(|w| *w < 64) {
                    Some(worker) => {
                        lanes.workers |= 1 << worker;
                        match member.outbox.vsn {
                            Vsn::V1 => lanes.v1 = true,
                            Vsn::V2 => lanes.v2 = true,
                        }
                    }
                    None => member.outbox.send(message.get(member.outbox.vsn)),
                }
            }
        }
        let v1 = lanes.v1.then(|| message.get(Vsn::V1));
        let v2 = lanes.v2.then(|| message.get(Vsn::V2));
        for worker in (0..64).filter(|w| lanes.workers & (1 << w) != 0) {
            let (hub, owned_key, lane_v1, lane_v2) = (self.clone(), key.clone(), v1.clone(), v2.clone());
            let job = Box::new(move || hub.deliver_here(&owned_key, from, Some(worker), lane_v1, lane_v2));
            if self.lanes.run_on(worker, job).is_err() {
                // The worker's runtime is gone (shutting down): its sockets are written from here.
                self.deliver_here(key, from, Some(worker), v1.clone(), v2.clone());
            }
        }
        sent
    }

    /// The broadcast part of `broadcast` for the members written by `worker`.
    fn deliver_here(
        &self,
        key: &TopicKey,
        from: Option<SocketId>,
        worker: Option<WorkerId>,
        v1: Option<Frame>,
        v2: Option<Frame>,
    ) {
        let topics = self.topics.read().unwrap_or_else(|e| e.into_inner());
        let Some(topic) = topics.get(key) else { return };
        for member in topic.members.iter().filter(|m| m.outbox.worker == worker && receives_broadcast(m, from)) {
            let frame = match member.outbox.vsn {
                Vsn::V1 => v1.as_ref(),
                Vsn::V2 => v2.as_ref(),
            };
            if let Some(frame) = frame {
                member.outbox.send(frame.clone());
            }
        }
    }

    /// Run `f` on the topic's presence, then send the resulting event (if any) to members that
    /// receive presence. Returns what `f` returned.
    pub fn with_presence<R>(
        &self,
        key: &TopicKey,
        f: impl FnOnce(&mut Presence) -> (R, Option<serde_json::Value>),
    ) -> R {
        let mut topics = self.topics.write().unwrap_or_else(|e| e.into_inner());
        let topic = topics.entry(key.clone()).or_default();
        let (result, diff) = f(&mut topic.presence);
        if let Some(diff) = diff {
            let encoded =
                Encoded::new(|vsn| super::protocol::encode(vsn, None, None, &topic_name(key), "presence_diff", &diff));
            for member in topic.members.iter().filter(|m| m.receive_presence) {
                member.outbox.send(encoded.get(member.outbox.vsn));
            }
        }
        if topic.members.is_empty() && topic.presence.is_empty() {
            topics.remove(key);
        }
        result
    }

    /// Apply `f` to every topic's presence (e.g. dropping a vanished instance), sending diffs.
    pub fn each_presence(&self, f: impl Fn(&mut Presence) -> Option<serde_json::Value>) {
        let keys: Vec<TopicKey> = self.topics.read().unwrap_or_else(|e| e.into_inner()).keys().cloned().collect();
        for key in keys {
            self.with_presence(&key, |p| ((), f(p)));
        }
    }

    /// The presence state of a topic, as `presence_state` carries it.
    pub fn presence_state(&self, key: &TopicKey) -> serde_json::Value {
        let topics = self.topics.read().unwrap_or_else(|e| e.into_inner());
        topics.get(key).map(|t| t.presence.state()).unwrap_or_else(|| serde_json::json!({}))
    }

    /// Every topic with presences owned by this instance, for a peer that asks.
    pub fn local_presences(&self, instance: &str) -> Vec<(TopicKey, serde_json::Value)> {
        let topics = self.topics.read().unwrap_or_else(|e| e.into_inner());
        topics.iter().filter_map(|(key, t)| t.presence.owned_by(instance).map(|joins| (key.clone(), joins))).collect()
    }
}

/// Whether `member` gets a broadcast sent by socket `from`.
fn receives_broadcast(member: &Member, from: Option<SocketId>) -> bool {
    member.receive_broadcast && (Some(member.outbox.socket) != from || member.receive_own)
}

/// The wire topic of a key.
pub fn topic_name(key: &TopicKey) -> String {
    format!("realtime:{}", key.name)
}
