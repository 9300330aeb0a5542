//! What a client asks of its channels: join (config, token, private-channel rights, postgres
//! changes), leave, broadcast, presence, a new access token; and the channel's end when its
//! token expires. Replies and pushes go through the socket's outbox, in order with everything
//! else it receives. One `Connection` per socket, owned by its task: no locking here.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use serde_json::{json, Map, Value};

use super::authz::{self, Policies, Token};
use super::changes::{self, binding, Subscription};
use super::error::{JoinError, TokenError};
use super::hub::{Member, Outbox, TopicKey};
use super::presence::Owner;
use super::protocol::{self, BroadcastBody, Incoming, Payload};
use super::Realtime;

/// A channel this socket joined.
struct Joined {
    join_ref: String,
    key: TopicKey,
    token: Token,
    ack: bool,
    presence_key: String,
    policies: Policies,
    changes: bool,
    tracked: bool,
}

/// Counts events in one-second windows.
struct Rate {
    window: Instant,
    count: u32,
}

impl Rate {
    fn new() -> Rate {
        Rate { window: Instant::now(), count: 0 }
    }

    /// Count one event; false when over `limit` in the current second.
    fn allow(&mut self, limit: u32) -> bool {
        if self.window.elapsed().as_secs() >= 1 {
            self.window = Instant::now();
            self.count = 0;
        }
        self.count += 1;
        self.count <= limit
    }
}

/// The state of one socket.
pub struct Connection {
    rt: Arc<Realtime>,
    outbox: Outbox,
    /// The socket's own token (its `apikey`), used by joins without an access token.
    token: Token,
    channels: HashMap<String, Joined>,
    joins: Rate,
    events: Rate,
}

fn flag(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
        _ => false,
    }
}

impl Connection {
    pub fn new(rt: Arc<Realtime>, outbox: Outbox, token: Token) -> Connection {
        Connection { rt, outbox, token, channels: HashMap::new(), joins: Rate::new(), events: Rate::new() }
    }

    fn send(&self, join_ref: Option<&str>, reference: Option<&str>, topic: &str, event: &str, payload: &Value) {
        self.outbox.send(protocol::encode(self.outbox.vsn, join_ref, reference, topic, event, payload));
    }

    fn reply(&self, msg: &Incoming, status: &str, response: Value) {
        let payload = json!({"status": status, "response": response});
        self.send(msg.join_ref.as_deref(), msg.reference.as_deref(), &msg.topic, "phx_reply", &payload);
    }

    fn reply_error(&self, msg: &Incoming, reason: impl Into<String>) {
        self.reply(msg, "error", json!({"reason": reason.into()}));
    }

    /// Phoenix's answer for a topic no channel serves: no join_ref.
    fn unmatched(&self, msg: &Incoming) {
        let payload = json!({"status": "error", "response": {"reason": "unmatched topic"}});
        self.send(None, msg.reference.as_deref(), &msg.topic, "phx_reply", &payload);
    }

    /// A `system` message on a channel.
    fn system(&self, topic: &str, join_ref: &str, extension: &str, status: &str, message: &str) {
        let channel = topic.strip_prefix("realtime:").unwrap_or(topic);
        let payload = json!({"channel": channel, "extension": extension, "message": message, "status": status});
        self.send(Some(join_ref), None, topic, "system", &payload);
    }

    /// A text frame from the client.
    pub async fn on_text(&mut self, text: &str) {
        if text.len() > self.rt.config.max_payload_bytes() + 500 {
            return self.too_large(protocol::decode_text(self.outbox.vsn, text));
        }
        match protocol::decode_text(self.outbox.vsn, text) {
            Ok(msg) => self.handle(msg).await,
            Err(err) => self.malformed(&err),
        }
    }

    /// A binary frame from the client (serializer 2.0.0 only).
    pub async fn on_binary(&mut self, data: Bytes) {
        if self.outbox.vsn != protocol::Vsn::V2 {
            return self.malformed(&protocol::FrameError::Malformed("binary frames need serializer 2.0.0"));
        }
        let decoded = protocol::decode_binary(&data);
        if data.len() > self.rt.config.max_payload_bytes() + 500 {
            return self.too_large(decoded);
        }
        match decoded {
            Ok(msg) => self.handle(msg).await,
            Err(err) => self.malformed(&err),
        }
    }

    /// A frame that cannot be read names no channel: the error goes to the `phoenix` topic, and
    /// every channel of the socket carries on.
    fn malformed(&self, err: &protocol::FrameError) {
        tracing::debug!(error = %err, "realtime: malformed frame");
        self.send(
            None,
            None,
            "phoenix",
            "phx_reply",
            &json!({"status": "error", "response": {"reason": err.to_string()}}),
        );
    }

    /// A frame over the payload limit: its channel is told, or, when the frame cannot even be
    /// read, the `phoenix` topic as for any unreadable frame.
    fn too_large(&self, decoded: Result<Incoming, protocol::FrameError>) {
        match decoded {
            Ok(msg) => self.reply(&msg, "error", json!("payload_size_exceeded")),
            Err(err) => self.malformed(&err),
        }
    }

    async fn handle(&mut self, msg: Incoming) {
        if msg.topic == "phoenix" && msg.event == "heartbeat" {
            return self.reply(&msg, "ok", json!({}));
        }
        if msg.event == "phx_join" {
            if let Err(err) = self.join(&msg).await {
                tracing::debug!(topic = %msg.topic, reason = %err, "realtime: join refused");
                self.reply_error(&msg, err.to_string());
            }
            return;
        }
        if !self.channels.contains_key(&msg.topic) {
            return match msg.event.as_str() {
                "phx_leave" => self.reply(&msg, "ok", json!({})),
                _ => self.unmatched(&msg),
            };
        }
        if !self.events.allow(self.rt.config.max_events_per_second) {
            return self.reply_error(&msg, "Too many messages per second");
        }
        match msg.event.as_str() {
            "phx_leave" => {
                self.reply(&msg, "ok", json!({}));
                self.close(&msg.topic, None);
            }
            "broadcast" => self.broadcast(&msg),
            "presence" => self.presence(&msg),
            "access_token" => self.access_token(&msg).await,
            other => self.reply_error(&msg, format!("unknown event {other}")),
        }
    }

    async fn join(&mut self, msg: &Incoming) -> Result<(), JoinError> {
        let Some(name) = msg.topic.strip_prefix("realtime:") else {
            self.unmatched(msg);
            return Ok(());
        };
        if name.is_empty() {
            return Err(JoinError::TopicNameRequired);
        }
        if *self.rt.shutdown.borrow() {
            return Err(JoinError::Restarting);
        }
        if !self.joins.allow(self.rt.config.max_joins_per_second) {
            return Err(JoinError::TooManyJoins);
        }
        if self.channels.contains_key(&msg.topic) {
            // Joining again replaces the earlier channel, which the client is told is closed.
            self.close(&msg.topic, None);
        }
        if self.channels.len() >= self.rt.config.max_channels_per_client {
            return Err(JoinError::TooManyChannels);
        }
        let Payload::Json(payload) = &msg.payload else {
            return Err(JoinError::Configuration("the join payload must be JSON".into()));
        };
        let config = payload.get("config").cloned().unwrap_or_else(|| json!({}));
        let private = flag(config.get("private"));
        let receive_own = flag(config.pointer("/broadcast/self"));
        let ack = flag(config.pointer("/broadcast/ack"));
        let presence_enabled = flag(config.pointer("/presence/enabled"));
        let presence_key = match config.pointer("/presence/key") {
            Some(Value::String(k)) if !k.is_empty() => k.clone(),
            Some(Value::Null) | None | Some(Value::String(_)) => uuid::Uuid::new_v4().to_string(),
            Some(other) => other.to_string(),
        };
        let bindings = match config.get("postgres_changes") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(entries)) => entries
                .iter()
                .filter(|e| !e.is_null())
                .map(binding::parse)
                .collect::<Result<Vec<_>, _>>()
                .map_err(JoinError::Configuration)?,
            Some(_) => return Err(JoinError::Configuration("`postgres_changes` must be a list".into())),
        };
        let access_token = payload
            .get("access_token")
            .or_else(|| payload.get("user_token"))
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty() && !t.starts_with("sb_"));
        let token = match access_token {
            Some(t) => authz::verify(&self.rt.gate, t).map_err(JoinError::Token)?,
            None => {
                if self.token.exp <= authz::now() {
                    return Err(JoinError::Token(TokenError::Expired(authz::now().saturating_sub(self.token.exp))));
                }
                self.token.clone()
            }
        };
        let key = TopicKey { private, name: name.to_string() };
        let policies = if private {
            let p = authz::policies(&self.rt.pools, &token.caller, name).await.map_err(|err| {
                tracing::warn!(error = %err, "realtime: private channel authorization failed");
                JoinError::Database
            })?;
            if !p.can_join() {
                return Err(JoinError::Unauthorized(name.to_string()));
            }
            p
        } else {
            Policies::all()
        };
        let echo: Vec<Value> = bindings.iter().map(|b| b.echo.clone()).collect();
        let has_changes = !bindings.is_empty();
        if has_changes {
            let sub = Subscription {
                socket: self.outbox.socket,
                topic: msg.topic.clone(),
                outbox: self.outbox.clone(),
                caller: token.caller.clone(),
                bindings,
            };
            changes::subscribe(&self.rt, sub).await.map_err(JoinError::Configuration)?;
        }
        let join_ref = msg.join_ref.clone().or_else(|| msg.reference.clone()).unwrap_or_default();
        let receive_presence = presence_enabled && policies.read_presence;
        self.rt.hub.join(
            &key,
            Member {
                outbox: self.outbox.clone(),
                topic: msg.topic.clone(),
                join_ref: join_ref.clone(),
                receive_own,
                receive_broadcast: policies.read_broadcast,
                receive_presence,
            },
        );
        self.reply(msg, "ok", json!({"postgres_changes": echo}));
        if receive_presence {
            let state = self.rt.hub.presence_state(&key);
            self.send(Some(&join_ref), None, &msg.topic, "presence_state", &state);
        }
        if has_changes {
            self.system(&msg.topic, &join_ref, "postgres_changes", "ok", "Subscribed to PostgreSQL");
        }
        let joined = Joined { join_ref, key, token, ack, presence_key, policies, changes: has_changes, tracked: false };
        self.channels.insert(msg.topic.clone(), joined);
        Ok(())
    }

    fn broadcast(&self, msg: &Incoming) {
        let Some(joined) = self.channels.get(&msg.topic) else { return };
        let (event, body) = match &msg.payload {
            Payload::UserBroadcast { event, body, .. } => (event.clone(), body.clone()),
            Payload::Json(payload) => match payload.get("event").and_then(Value::as_str) {
                Some(event) => {
                    (event.to_string(), BroadcastBody::Json(payload.get("payload").cloned().unwrap_or(json!({}))))
                }
                None => return self.reply_error(msg, "a broadcast needs an `event`"),
            },
        };
        if !joined.policies.write_broadcast {
            return self.reply_error(
                msg,
                format!(
                    "Unauthorized: You do not have permissions to write to this Channel topic: {}",
                    joined.key.name
                ),
            );
        }
        self.rt.deliver_broadcast(&joined.key, Some(self.outbox.socket), &event, &body, None);
        self.rt.relay.broadcast(&joined.key, &event, &body, None);
        if joined.ack {
            self.reply(msg, "ok", json!({}));
        }
    }

    fn presence(&mut self, msg: &Incoming) {
        let Payload::Json(payload) = &msg.payload else {
            return self.reply(msg, "error", json!({}));
        };
        let socket = self.outbox.socket;
        let instance = self.rt.relay.instance.clone();
        let Some(joined) = self.channels.get_mut(&msg.topic) else { return };
        if !joined.policies.write_presence {
            return self.reply(msg, "error", json!({}));
        }
        let owner = Owner { instance, socket };
        let event = payload.get("event").and_then(Value::as_str).map(str::to_ascii_lowercase);
        let diff = match event.as_deref() {
            None => None,
            Some("track") => {
                let data: Map<String, Value> = match payload.get("payload") {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(m)) => m.clone(),
                    Some(_) => {
                        return self.reply(msg, "error", json!({"reason": "Presence track payload must be a map"}))
                    }
                };
                joined.tracked = true;
                let phx_ref = uuid::Uuid::new_v4().simple().to_string();
                let key = joined.presence_key.clone();
                let limit = self.rt.config.max_presence_state_kb.saturating_mul(1000);
                let tracked =
                    self.rt.hub.with_presence(&joined.key, |p| match p.track(&key, owner, phx_ref, data, limit) {
                        Ok(d) => (Ok(d.clone()), d),
                        Err(too_large) => (Err(too_large), None),
                    });
                match tracked {
                    Ok(d) => d,
                    Err(_) => {
                        let reason = format!(
                            "PresenceStateTooLarge: the channel's presence state would pass {} KB \
                             (REALTIME_MAX_PRESENCE_STATE_KB)",
                            self.rt.config.max_presence_state_kb
                        );
                        return self.reply(msg, "error", json!({ "reason": reason }));
                    }
                }
            }
            Some("untrack") => self.rt.hub.with_presence(&joined.key, |p| {
                let d = p.untrack(&owner);
                (d.clone(), d)
            }),
            Some(_) => return self.reply(msg, "error", json!({})),
        };
        if let Some(diff) = diff {
            relay_diff(&self.rt, &joined.key, socket, &diff);
        }
        // A channel joined without presence starts receiving it at its first track, with the
        // state (its own presence included) after the reply, as Supabase Realtime does.
        let enabled = event.as_deref() == Some("track")
            && joined.policies.read_presence
            && self.rt.hub.enable_presence(&joined.key, socket);
        let state = enabled.then(|| (joined.join_ref.clone(), self.rt.hub.presence_state(&joined.key)));
        self.reply(msg, "ok", json!({}));
        if let Some((join_ref, state)) = state {
            self.send(Some(&join_ref), None, &msg.topic, "presence_state", &state);
        }
    }

    async fn access_token(&mut self, msg: &Incoming) {
        let Payload::Json(payload) = &msg.payload else { return };
        let Some(token) = payload.get("access_token").and_then(Value::as_str).filter(|t| !t.starts_with("sb_")) else {
            return;
        };
        let verified = authz::verify(&self.rt.gate, token);
        let Some(joined) = self.channels.get(&msg.topic) else { return };
        let verified = match verified {
            Ok(v) => v,
            Err(err) => {
                let message = err.to_string();
                return self.close(&msg.topic, Some(&message));
            }
        };
        if joined.key.private {
            let name = joined.key.name.clone();
            match authz::policies(&self.rt.pools, &verified.caller, &name).await {
                Ok(p) if p.can_join() => {
                    if let Some(j) = self.channels.get_mut(&msg.topic) {
                        j.policies = p;
                    }
                }
                _ => {
                    let message = format!("You do not have permissions to read from this Channel topic: {name}");
                    return self.close(&msg.topic, Some(&message));
                }
            }
        }
        if let Some(joined) = self.channels.get_mut(&msg.topic) {
            if joined.changes {
                self.rt.changes.set_caller(self.outbox.socket, &msg.topic, &verified.caller);
            }
            joined.token = verified;
        }
    }

    /// Close the channels whose token has expired.
    pub fn expire_tokens(&mut self) {
        let now = authz::now();
        let expired: Vec<(String, i64)> = self
            .channels
            .iter()
            .filter(|(_, j)| j.token.exp <= now)
            .map(|(topic, j)| (topic.clone(), now.saturating_sub(j.token.exp)))
            .collect();
        for (topic, ago) in expired {
            self.close(&topic, Some(&TokenError::Expired(ago).to_string()));
        }
    }

    /// End a channel: an error `system` message first when `error` is given, then `phx_close`.
    fn close(&mut self, topic: &str, error: Option<&str>) {
        let Some(joined) = self.channels.remove(topic) else { return };
        if let Some(message) = error {
            self.system(topic, &joined.join_ref, "system", "error", message);
        }
        self.send(Some(&joined.join_ref), Some(&joined.join_ref), topic, "phx_close", &json!({}));
        self.cleanup(topic, joined);
    }

    fn cleanup(&self, topic: &str, joined: Joined) {
        let socket = self.outbox.socket;
        self.rt.hub.leave(&joined.key, socket);
        if joined.tracked {
            let owner = Owner { instance: self.rt.relay.instance.clone(), socket };
            if let Some(diff) = self.rt.hub.with_presence(&joined.key, |p| {
                let d = p.untrack(&owner);
                (d.clone(), d)
            }) {
                relay_diff(&self.rt, &joined.key, socket, &diff);
            }
        }
        if joined.changes {
            self.rt.changes.unsubscribe(socket, topic);
        }
    }

    /// The socket is gone: leave every channel.
    pub fn close_all(&mut self) {
        for (topic, joined) in std::mem::take(&mut self.channels) {
            self.cleanup(&topic, joined);
        }
    }
}

/// Relay a local presence diff: joins as `[key, socket, meta]`, leaves as their `phx_ref`s.
fn relay_diff(rt: &Realtime, key: &TopicKey, socket: u64, diff: &Value) {
    let metas = |side: &str| -> Vec<(String, Value)> {
        diff[side]
            .as_object()
            .into_iter()
            .flatten()
            .flat_map(|(k, v)| v["metas"].as_array().into_iter().flatten().map(move |m| (k.clone(), m.clone())))
            .collect()
    };
    let joins = metas("joins").into_iter().map(|(k, m)| json!([k, socket, m])).collect();
    let leaves = metas("leaves")
        .into_iter()
        .filter_map(|(_, m)| m.get("phx_ref").and_then(Value::as_str).map(str::to_string))
        .collect();
    rt.relay.presence(key, joins, leaves);
}
