//! `/realtime/v1`: Supabase Realtime over WebSocket — broadcast, presence and Postgres changes
//! with row-level security — that unchanged realtime-js subscribes to.
//!
//! `socket` runs one task per connection (`protocol` reads and writes its frames, `channel`
//! handles what a client asks of a topic); `hub` fans messages out to the channels joined on
//! this instance; `relay` carries broadcasts and presence between instances through
//! LISTEN/NOTIFY; `changes` reads the WAL of the publication `supabase_realtime` by logical
//! decoding and delivers each change to the subscribers whose role and claims may `select` it;
//! `authz` decides private channels with the policies of `realtime.messages`; `api` is the
//! REST broadcast endpoint. Errors are `error::RealtimeError`, in Realtime's shapes.

pub mod api;
pub mod authz;
pub mod changes;
mod channel;
pub mod config;
pub mod error;
mod fanout;
pub mod hub;
pub mod presence;
pub mod protocol;
mod queue;
pub mod relay;
mod socket;
mod wire;

use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::Arc;

use actix_web::web;
use serde_json::Value;

use crate::db::Pools;
use crate::gate::Gate;
pub use config::RealtimeConfig;
use hub::{Encoded, Hub, SocketId, TopicKey};
use protocol::BroadcastBody;

/// Shared state of the realtime surface.
pub struct Realtime {
    pub config: RealtimeConfig,
    pub gate: Gate,
    /// Owner credentials, for the connections the relay and the change reader keep open.
    pub database_url: secrecy::SecretString,
    pub pools: Pools,
    pub hub: Arc<Hub>,
    pub relay: relay::Relay,
    pub changes: changes::Changes,
    /// Open WebSocket connections.
    pub connections: AtomicUsize,
    next_socket: AtomicU64,
    /// Flips to true when the server stops: every socket closes (clients reconnect elsewhere).
    pub shutdown: tokio::sync::watch::Sender<bool>,
}

impl Realtime {
    /// Build the state and start the relay and the change reader.
    pub async fn start(
        config: RealtimeConfig,
        gate: Gate,
        pools: Pools,
        database_url: secrecy::SecretString,
        database_name: String,
        http_port: u16,
    ) -> Arc<Realtime> {
        let instance = uuid::Uuid::new_v4().to_string();
        let (relay, outgoing) = relay::Relay::new(instance);
        let slot = config.slot_name.clone().unwrap_or_else(|| changes::default_slot_name(&database_name, http_port));
        let changes = changes::Changes::new(slot, &config);
        let rt = Arc::new(Realtime {
            config,
            gate,
            database_url: database_url.clone(),
            pools,
            hub: Arc::new(Hub::default()),
            relay,
            changes,
            connections: AtomicUsize::new(0),
            next_socket: AtomicU64::new(1),
            shutdown: tokio::sync::watch::channel(false).0,
        });
        relay::spawn(rt.clone(), database_url, outgoing);
        changes::resume_if_slot_exists(rt.clone()).await;
        rt
    }

    /// A new socket id.
    pub fn next_socket_id(&self) -> SocketId {
        self.next_socket.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    /// Close every socket (server shutdown) and tell peers this instance is gone.
    pub fn stop(&self) {
        self.relay.bye();
        let _ = self.shutdown.send(true);
    }

    /// Deliver a broadcast to this instance's channels on `key` (not to `from` unless it asked).
    pub fn deliver_broadcast(
        &self,
        key: &TopicKey,
        from: Option<SocketId>,
        event: &str,
        body: &BroadcastBody,
        meta: Option<&Value>,
    ) {
        let topic = hub::topic_name(key);
        let encoded = Encoded::new(|vsn| protocol::encode_broadcast(vsn, &topic, event, body, meta));
        self.hub.broadcast(key, from, &encoded);
    }

    /// Apply a presence diff relayed from `instance`.
    pub fn apply_remote_presence(&self, instance: &str, key: &TopicKey, joins: &Value, leaves: &Value) {
        let joins: Vec<(String, u64, Value)> = joins
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|j| Some((j.get(0)?.as_str()?.to_string(), j.get(1)?.as_u64()?, j.get(2)?.clone())))
            .collect();
        let leaves: Vec<String> =
            leaves.as_array().into_iter().flatten().filter_map(|l| l.as_str().map(str::to_string)).collect();
        self.hub.with_presence(key, |p| ((), p.apply_remote(instance, &joins, &leaves)));
    }

    /// Drop every presence of an instance that went away.
    pub fn drop_instance(&self, instance: &str) {
        self.hub.each_presence(|p| p.drop_instance(instance));
    }

    /// Send this instance's presences to a peer that just appeared.
    pub fn send_presence_sync(&self, peer: &str) {
        self.relay.sync(peer, self.hub.local_presences(&self.relay.instance));
    }
}

/// Mount `/realtime/v1`.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/realtime/v1")
            .app_data(web::PayloadConfig::new(api::BODY_LIMIT))
            .route("/websocket", web::get().to(socket::websocket))
            .route("/api/broadcast", web::post().to(api::broadcast))
            .route("/api/broadcast/{topic}/events/{event}", web::post().to(api::broadcast_one)),
    );
}
