//! The REST broadcast endpoints: `POST /realtime/v1/api/broadcast` (a batch of messages, what
//! `channel.send` falls back to when not joined, and what servers call) and
//! `POST /realtime/v1/api/broadcast/{topic}/events/{event}` (realtime-js's `httpSend`, JSON or
//! raw bytes). The caller is its Bearer token, else its `apikey`; a private message needs the
//! `insert` right of `realtime.messages`' policies on its topic. Both answer 202 with no body.

use actix_web::{web, HttpRequest, HttpResponse};
use serde_json::Value;

use super::authz::{self, Token};
use super::error::RealtimeError;
use super::hub::TopicKey;
use super::protocol::BroadcastBody;
use super::Realtime;

/// Largest request body read (the configured payload limit is checked on top).
pub const BODY_LIMIT: usize = 8 * 1024 * 1024;

fn caller(req: &HttpRequest, rt: &Realtime) -> Result<Token, RealtimeError> {
    let token =
        crate::gate::bearer_of(req).or_else(|| crate::gate::apikey_of(req)).ok_or(RealtimeError::Unauthorized)?;
    authz::verify(&rt.gate, &token).map_err(|_| RealtimeError::Unauthorized)
}

async fn may_write(rt: &Realtime, token: &Token, topic: &str) -> Result<bool, RealtimeError> {
    let policies = authz::policies(&rt.pools, &token.caller, topic).await.map_err(|err| {
        tracing::warn!(error = %err, "realtime: could not authorize a private broadcast");
        RealtimeError::Internal
    })?;
    Ok(policies.write_broadcast)
}

fn send(rt: &Realtime, key: &TopicKey, event: &str, body: &BroadcastBody) {
    rt.deliver_broadcast(key, None, event, body, None);
    rt.relay.broadcast(key, event, body, None);
}

/// `POST /api/broadcast` with `{"messages": [{"topic", "event", "payload", "private"?}]}`.
pub async fn broadcast(
    req: HttpRequest,
    body: web::Bytes,
    rt: web::Data<Realtime>,
) -> Result<HttpResponse, RealtimeError> {
    let token = caller(&req, &rt)?;
    let parsed: Value =
        serde_json::from_slice(&body).map_err(|e| RealtimeError::Invalid(format!("the body is not JSON: {e}")))?;
    let messages = parsed
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| RealtimeError::Invalid("`messages` must be a list".into()))?;
    let mut checked = Vec::with_capacity(messages.len());
    for message in messages {
        let topic = message.get("topic").and_then(Value::as_str).filter(|t| !t.is_empty());
        let event = message.get("event").and_then(Value::as_str).filter(|e| !e.is_empty());
        let payload = message.get("payload").filter(|p| p.is_object());
        let (Some(topic), Some(event), Some(payload)) = (topic, event, payload) else {
            return Err(RealtimeError::Invalid(
                "each message needs a `topic`, an `event` and a `payload` object".into(),
            ));
        };
        // The limit is per message, as Supabase applies it.
        if payload.to_string().len() > rt.config.max_payload_bytes() + 500 {
            return Err(RealtimeError::PayloadTooLarge);
        }
        let private = matches!(message.get("private"), Some(Value::Bool(true)));
        let topic = topic.strip_prefix("realtime:").unwrap_or(topic);
        checked.push((TopicKey { private, name: topic.to_string() }, event, payload.clone()));
    }
    // Each private topic is authorized once, however many messages name it.
    let mut writable: std::collections::HashMap<String, bool> = std::collections::HashMap::new();
    for (key, event, payload) in checked {
        // As Supabase does, a private message the caller may not send is skipped, not refused.
        if key.private {
            let allowed = match writable.get(&key.name) {
                Some(allowed) => *allowed,
                None => *writable.entry(key.name.clone()).or_insert(may_write(&rt, &token, &key.name).await?),
            };
            if !allowed {
                continue;
            }
        }
        send(&rt, &key, event, &BroadcastBody::Json(payload));
    }
    Ok(HttpResponse::Accepted().finish())
}

/// `POST /api/broadcast/{topic}/events/{event}[?private=true]` with a JSON or binary body.
pub async fn broadcast_one(
    req: HttpRequest,
    path: web::Path<(String, String)>,
    body: web::Bytes,
    rt: web::Data<Realtime>,
) -> Result<HttpResponse, RealtimeError> {
    let token = caller(&req, &rt)?;
    let (topic, event) = path.into_inner();
    let content_type = req.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("application/json");
    let mime = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    let body = match mime.as_str() {
        "application/json" | "" => {
            let value: Value = serde_json::from_slice(&body)
                .map_err(|e| RealtimeError::Invalid(format!("the body is not JSON: {e}")))?;
            BroadcastBody::Json(if value.is_object() { value } else { serde_json::json!({"_json": value}) })
        }
        "application/octet-stream" => BroadcastBody::Binary(body.clone()),
        _ => return Err(RealtimeError::MediaType),
    };
    if body_len(&body) > rt.config.max_payload_bytes() + 500 {
        return Err(RealtimeError::PayloadTooLarge);
    }
    let private =
        url::form_urlencoded::parse(req.query_string().as_bytes()).any(|(k, v)| k == "private" && v == "true");
    let key = TopicKey { private, name: topic.strip_prefix("realtime:").unwrap_or(&topic).to_string() };
    if key.private && !may_write(&rt, &token, &key.name).await? {
        return Err(RealtimeError::Forbidden);
    }
    send(&rt, &key, &event, &body);
    Ok(HttpResponse::Accepted().finish())
}

fn body_len(body: &BroadcastBody) -> usize {
    match body {
        BroadcastBody::Json(v) => v.to_string().len(),
        BroadcastBody::Binary(b) => b.len(),
    }
}
