//! The bus between server instances sharing one database: PostgreSQL's LISTEN/NOTIFY on the
//! channel `realtime_relay`.
//!
//! Instances announce themselves once listening (`h` with `ready`) and then every few seconds
//! while another instance is alive (`h`, with their open sockets and joined channels, which the
//! dashboard's realtime inspector shows per instance); a lone instance stays silent, since a
//! NOTIFY takes a transaction id and writes a commit to the WAL, and a commit every few seconds
//! made an idle server fill and archive a WAL segment a minute. A newcomer's `ready` is heard by
//! every instance already listening, which then beats again; and each instance says `ready` again
//! whenever its listening connection comes back. Instances relay client broadcasts (`b`) and
//! presence diffs (`p`) to each other, answer a newcomer with their presences (`s`) and say
//! goodbye on shutdown (`x`); an instance silent for `PEER_TIMEOUT` is presumed gone and its
//! presences leave. Messages sent from SQL (`realtime.send`) arrive through the same channel
//! from a trigger (`m`). A body over the 8000-byte NOTIFY limit goes through the unlogged
//! table `realtime.relay` and only its key is notified. With no peer alive nothing is relayed,
//! so one instance pays nothing. Delivery is at-most-once: a message sent while an instance's
//! listening connection is down does not reach it.

use crate::db::cached::CachedQueries;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use secrecy::SecretString;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::hub::TopicKey;
use super::protocol::BroadcastBody;
use super::Realtime;

/// The NOTIFY channel.
pub const CHANNEL: &str = "realtime_relay";
/// Largest body sent inline (PostgreSQL refuses payloads of 8000 bytes and more).
const INLINE_LIMIT: usize = 7900;
const HELLO_EVERY: Duration = Duration::from_secs(5);
const PEER_TIMEOUT: Duration = Duration::from_secs(20);

/// The sending side of the bus and what this instance knows of its peers.
pub struct Relay {
    pub instance: String,
    outgoing: mpsc::Sender<String>,
    peers: Mutex<HashMap<String, Peer>>,
}

/// What a peer said in its last hello.
#[derive(Debug, Clone, Copy)]
struct Peer {
    seen: Instant,
    /// Its open sockets and joined channels (absent from an older server's hello).
    counts: Option<(u64, u64)>,
}

/// Another instance as this one knows it (the dashboard's view).
#[derive(Debug, Clone, serde::Serialize)]
pub struct PeerInfo {
    pub instance: String,
    pub seconds_since_hello: u64,
    pub connections: Option<u64>,
    pub channels: Option<u64>,
}

impl Relay {
    /// A relay for `instance` and the receiver its sender task drains.
    pub fn new(instance: String) -> (Relay, mpsc::Receiver<String>) {
        let (outgoing, rx) = mpsc::channel(10_000);
        (Relay { instance, outgoing, peers: Mutex::new(HashMap::new()) }, rx)
    }

    /// Whether another instance is alive (only then are broadcasts and presence relayed).
    pub fn has_peers(&self) -> bool {
        !self.peers.lock().unwrap_or_else(|e| e.into_inner()).is_empty()
    }

    fn publish(&self, body: Value) {
        if self.outgoing.try_send(body.to_string()).is_err() {
            tracing::warn!("realtime relay queue full; a message to other instances was dropped");
        }
    }

    /// Relay a client broadcast to the other instances.
    pub fn broadcast(&self, key: &TopicKey, event: &str, body: &BroadcastBody, meta: Option<&Value>) {
        if !self.has_peers() {
            return;
        }
        let mut msg = json!({"k": "b", "o": self.instance, "t": key.name, "p": key.private, "e": event, "m": meta});
        match body {
            BroadcastBody::Json(v) => msg["d"] = v.clone(),
            BroadcastBody::Binary(b) => msg["x"] = Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
        }
        self.publish(msg);
    }

    /// Relay a presence change made here: joined metas `[key, socket, meta]` and left `phx_ref`s.
    pub fn presence(&self, key: &TopicKey, joins: Vec<Value>, leaves: Vec<String>) {
        if self.has_peers() && !(joins.is_empty() && leaves.is_empty()) {
            self.publish(
                json!({"k": "p", "o": self.instance, "t": key.name, "p": key.private, "j": joins, "l": leaves}),
            );
        }
    }

    /// Say goodbye (shutdown): peers drop this instance's presences at once.
    pub fn bye(&self) {
        self.publish(json!({"k": "x", "o": self.instance}));
    }

    /// The periodic hello, sent only while another instance is alive; true when it was sent.
    fn beat(&self, connections: usize, channels: usize) -> bool {
        if !self.has_peers() {
            return false;
        }
        self.publish(json!({"k": "h", "o": self.instance, "c": connections, "n": channels}));
        true
    }

    /// The peers heard from, with the counts of their last hello.
    pub fn peers(&self) -> Vec<PeerInfo> {
        let peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        let mut listed: Vec<PeerInfo> = peers
            .iter()
            .map(|(instance, peer)| PeerInfo {
                instance: instance.clone(),
                seconds_since_hello: peer.seen.elapsed().as_secs(),
                connections: peer.counts.map(|c| c.0),
                channels: peer.counts.map(|c| c.1),
            })
            .collect();
        listed.sort_by(|a, b| a.instance.cmp(&b.instance));
        listed
    }

    /// The hello sent once this instance listens: every peer answers it, even one that already
    /// heard an earlier hello whose answer arrived before this instance was listening.
    fn ready(&self) {
        self.publish(json!({"k": "h", "o": self.instance, "ready": true}));
    }

    /// Note that `peer` is alive (with the counts its hello carried); true when it is new.
    fn seen(&self, peer: &str, counts: Option<(u64, u64)>) -> bool {
        let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        let known = peers.get(peer).and_then(|p| p.counts);
        peers.insert(peer.to_string(), Peer { seen: Instant::now(), counts: counts.or(known) }).is_none()
    }

    fn forget(&self, peer: &str) {
        self.peers.lock().unwrap_or_else(|e| e.into_inner()).remove(peer);
    }

    /// Peers not heard from for `PEER_TIMEOUT`, removed.
    fn expired(&self) -> Vec<String> {
        let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        let gone: Vec<String> =
            peers.iter().filter(|(_, p)| p.seen.elapsed() > PEER_TIMEOUT).map(|(p, _)| p.clone()).collect();
        for p in &gone {
            peers.remove(p);
        }
        gone
    }
}

/// Start the listener, the sender and the heartbeat; they live as long as the runtime.
pub fn spawn(rt: Arc<Realtime>, url: SecretString, outgoing: mpsc::Receiver<String>) {
    tokio::spawn(send_loop(rt.clone(), outgoing));
    let listener = rt.clone();
    tokio::spawn(async move {
        let mut backoff = Duration::from_millis(200);
        loop {
            match listen(&listener, &url).await {
                Ok(()) => backoff = Duration::from_millis(200),
                Err(err) => tracing::warn!(error = %err, "realtime relay lost its connection; retrying"),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(10));
        }
    });
    tokio::spawn(async move {
        // The first hello is `listen`'s, once this instance can hear the answers.
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + HELLO_EVERY, HELLO_EVERY);
        let mut beats: u64 = 0;
        loop {
            tick.tick().await;
            beats += 1;
            if beats.is_multiple_of(12) {
                prune(&rt).await;
            }
            let connections = rt.connections.load(std::sync::atomic::Ordering::Relaxed);
            rt.relay.beat(connections, rt.hub.channel_count());
            for gone in rt.relay.expired() {
                tracing::info!(peer = %gone, "realtime peer instance went silent; dropping its presences");
                rt.drop_instance(&gone);
            }
        }
    });
}

/// Remove relayed bodies every instance has had time to read, and database messages older than
/// three days (Supabase keeps about as long).
async fn prune(rt: &Realtime) {
    let Ok(client) = rt.pools.admin.get().await else { return };
    let pruned = client
        .batch_execute(
            "delete from realtime.relay where created_at < now() - interval '1 minute'; \
             delete from realtime.messages where inserted_at < now() - interval '3 days'",
        )
        .await;
    if let Err(err) = pruned {
        tracing::warn!(error = %err, "realtime: pruning old messages failed");
    }
}

async fn send_loop(rt: Arc<Realtime>, mut rx: mpsc::Receiver<String>) {
    let mut batch = Vec::new();
    while rx.recv_many(&mut batch, 200).await > 0 {
        let (small, large): (Vec<String>, Vec<String>) = batch.drain(..).partition(|b| b.len() <= INLINE_LIMIT);
        let result = async {
            let client = rt.pools.admin.get().await.map_err(|e| e.to_string())?;
            if !small.is_empty() {
                client
                    .cached_execute("select pg_notify($1, b) from unnest($2::text[]) b", &[&CHANNEL, &small])
                    .await
                    .map_err(|e| e.to_string())?;
            }
            for body in &large {
                client
                    .cached_execute(
                        "with r as (insert into realtime.relay (body) values ($2) returning id) \
                         select pg_notify($1, json_build_object('k', 'r', 'id', id)::text) from r",
                        &[&CHANNEL, body],
                    )
                    .await
                    .map_err(|e| e.to_string())?;
            }
            Ok::<_, String>(())
        }
        .await;
        if let Err(err) = result {
            tracing::warn!(error = %err, "realtime relay could not notify the other instances");
        }
    }
}

async fn listen(rt: &Arc<Realtime>, url: &SecretString) -> Result<(), tokio_postgres::Error> {
    let crate::db::listen::Listener { client, payloads: mut rx, driver } =
        crate::db::listen::listen(url, CHANNEL).await?;
    rt.relay.ready();
    while let Some(payload) = rx.recv().await {
        let Ok(msg) = serde_json::from_str::<Value>(&payload) else { continue };
        if let Err(err) = receive(rt, &client, msg).await {
            tracing::warn!(error = %err, "realtime relay could not read a message");
        }
    }
    driver.abort();
    Ok(())
}

fn text(msg: &Value, key: &str) -> String {
    msg.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

fn body_of(msg: &Value, json_key: &str, binary_key: &str) -> Option<BroadcastBody> {
    match msg.get(binary_key).and_then(Value::as_str) {
        Some(b64) => {
            base64::engine::general_purpose::STANDARD.decode(b64).ok().map(|b| BroadcastBody::Binary(b.into()))
        }
        None => Some(BroadcastBody::Json(msg.get(json_key).cloned().unwrap_or(Value::Null))),
    }
}

/// Act on one message of the bus.
async fn receive(rt: &Arc<Realtime>, client: &tokio_postgres::Client, msg: Value) -> Result<(), tokio_postgres::Error> {
    let kind = text(&msg, "k");
    let origin = text(&msg, "o");
    if !origin.is_empty() {
        if origin == rt.relay.instance {
            return Ok(());
        }
        let counts = match (msg.get("c").and_then(Value::as_u64), msg.get("n").and_then(Value::as_u64)) {
            (Some(c), Some(n)) if kind == "h" => Some((c, n)),
            _ => None,
        };
        let newcomer = rt.relay.seen(&origin, counts) || msg["ready"] == true;
        if newcomer && kind != "x" {
            // A newcomer: tell it who is present here.
            rt.send_presence_sync(&origin);
        }
    }
    match kind.as_str() {
        "r" => {
            let id = msg.get("id").and_then(Value::as_i64).unwrap_or_default();
            if let Some(row) = client.query_opt("select body from realtime.relay where id = $1", &[&id]).await? {
                let body: String = row.get(0);
                if let Ok(inner) = serde_json::from_str::<Value>(&body) {
                    return Box::pin(receive(rt, client, inner)).await;
                }
            }
        }
        "b" => {
            let key = TopicKey { private: msg["p"].as_bool().unwrap_or(false), name: text(&msg, "t") };
            if let Some(body) = body_of(&msg, "d", "x") {
                let meta = msg.get("m").filter(|m| !m.is_null());
                rt.deliver_broadcast(&key, None, &text(&msg, "e"), &body, meta);
            }
        }
        "m" => {
            let msg = match msg.get("id").and_then(Value::as_str) {
                Some(id) => {
                    let row = client
                        .query_opt(
                            "select json_build_object('topic', topic, 'event', event, 'private', private, \
                             'payload', payload, 'binary', encode(binary_payload, 'base64'), 'id', id) \
                             from realtime.messages where id = $1::text::uuid",
                            &[&id],
                        )
                        .await?;
                    match row {
                        Some(row) => row.get::<_, Value>(0),
                        None => return Ok(()),
                    }
                }
                None => msg,
            };
            let key = TopicKey { private: msg["private"].as_bool().unwrap_or(false), name: text(&msg, "topic") };
            if let Some(body) = body_of(&msg, "payload", "binary") {
                let id = match &body {
                    BroadcastBody::Json(p) => p.get("id").cloned(),
                    BroadcastBody::Binary(_) => msg.get("id").cloned(),
                };
                let meta = id.map(|id| json!({"id": id}));
                rt.deliver_broadcast(&key, None, &text(&msg, "event"), &body, meta.as_ref());
            }
        }
        "p" => {
            let key = TopicKey { private: msg["p"].as_bool().unwrap_or(false), name: text(&msg, "t") };
            rt.apply_remote_presence(&origin, &key, &msg["j"], &msg["l"]);
        }
        "s" if text(&msg, "to") == rt.relay.instance => {
            for topic in msg["topics"].as_array().into_iter().flatten() {
                let key = TopicKey { private: topic["p"].as_bool().unwrap_or(false), name: text(topic, "t") };
                rt.apply_remote_presence(&origin, &key, &topic["j"], &Value::Null);
            }
        }
        "x" => {
            rt.relay.forget(&origin);
            rt.drop_instance(&origin);
        }
        _ => {}
    }
    Ok(())
}

impl Relay {
    /// Send this instance's presences to `peer`.
    pub fn sync(&self, peer: &str, topics: Vec<(TopicKey, Value)>) {
        if topics.is_empty() {
            // Still answer, so the newcomer learns this instance exists.
            self.publish(json!({"k": "s", "o": self.instance, "to": peer, "topics": []}));
            return;
        }
        let topics: Vec<Value> =
            topics.into_iter().map(|(k, j)| json!({"t": k.name, "p": k.private, "j": j})).collect();
        self.publish(json!({"k": "s", "o": self.instance, "to": peer, "topics": topics}));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_instance_beats_only_once_another_is_heard_and_again_not_once_it_is_gone() {
        let (relay, mut sent) = Relay::new("me".into());
        assert!(!relay.beat(1, 2), "no hello while alone");
        assert!(sent.try_recv().is_err(), "nothing published while alone");

        relay.ready();
        let ready: Value = serde_json::from_str(&sent.try_recv().expect("the ready hello")).expect("json");
        assert_eq!(ready["ready"], true);

        assert!(relay.seen("peer", None), "a newcomer");
        assert!(relay.beat(1, 2));
        let hello: Value = serde_json::from_str(&sent.try_recv().expect("a hello")).expect("json");
        assert_eq!((hello["k"].as_str(), hello["c"].as_u64(), hello["n"].as_u64()), (Some("h"), Some(1), Some(2)));

        relay.forget("peer");
        assert!(!relay.beat(1, 2), "alone again");
        assert!(sent.try_recv().is_err());
    }
}
