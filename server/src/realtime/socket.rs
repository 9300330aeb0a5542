//! One WebSocket connection: the upgrade (API key, serializer version, connection limit) and
//! the task that serves it — a `select!` loop over the client's frames, a one-second tick (idle
//! timeout, token expiry) and the server's shutdown signal. What the server writes (the outbox,
//! pongs, the closing frame) is the response body's business (`wire.rs`); what a message means
//! is `channel.rs`'s.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::{web, HttpRequest, HttpResponse};
use actix_ws::{AggregatedMessage, CloseCode, CloseReason};
use tokio::sync::mpsc;

use super::authz::{self, Token};
use super::channel::Connection;
use super::error::{RealtimeError, TokenError};
use super::hub::Outbox;
use super::protocol::Vsn;
use super::wire::{Control, Wire};
use super::Realtime;

/// Frames a socket may have waiting before it is considered lagging.
const OUTBOX_CAPACITY: usize = 1024;

/// `GET /realtime/v1/websocket?apikey=...&vsn=...`.
pub async fn websocket(req: HttpRequest, body: web::Payload, rt: web::Data<Realtime>) -> HttpResponse {
    let query: HashMap<String, String> =
        url::form_urlencoded::parse(req.query_string().as_bytes()).into_owned().collect();
    let Some(vsn) = Vsn::parse(query.get("vsn").map(String::as_str)) else {
        return HttpResponse::Forbidden().finish();
    };
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let apikey = header("x-api-key").or_else(|| query.get("apikey").cloned()).or_else(|| header("apikey"));
    let token = match apikey.as_deref().map(|key| authz::verify(&rt.gate, key)) {
        None => return RealtimeError::Token(TokenError::Missing).connect_response(),
        Some(Err(err)) => return RealtimeError::Token(err).connect_response(),
        Some(Ok(token)) => token,
    };
    if *rt.shutdown.borrow() {
        return HttpResponse::ServiceUnavailable().json(serde_json::json!({"error": "Realtime is restarting"}));
    }
    // The place is taken here, before the upgrade, so simultaneous upgrades cannot all pass.
    let Some(seat) = Seat::take(&rt) else {
        return RealtimeError::TooManyUsers.connect_response();
    };
    let (response, _session, stream) = match actix_ws::handle(&req, body) {
        Ok(parts) => parts,
        Err(err) => return err.error_response(),
    };
    let worker = rt.hub.enlist_current_worker();
    let (outbox, outgoing) = Outbox::new(rt.next_socket_id(), vsn, OUTBOX_CAPACITY, worker);
    let (control, control_rx) = tokio::sync::mpsc::unbounded_channel();
    let response = Wire::attach(response, outgoing, control_rx);
    // Frames may be larger than the payload limit (the envelope), and a too-large payload is
    // answered on its channel rather than by dropping the socket.
    let frame_limit = rt.config.max_payload_bytes().saturating_mul(2).max(1 << 20);
    let stream = stream.max_frame_size(frame_limit).aggregate_continuations().max_continuation_size(frame_limit);
    actix_web::rt::spawn(serve(rt.into_inner(), outbox, control, stream, token, seat));
    response
}

/// One of the `TENANT_MAX_CONCURRENT_USERS` places, given back when dropped.
struct Seat(Arc<Realtime>);

impl Seat {
    fn take(rt: &web::Data<Realtime>) -> Option<Seat> {
        let rt = rt.clone().into_inner();
        let before = rt.connections.fetch_add(1, Ordering::AcqRel);
        if before >= rt.config.max_concurrent_users {
            rt.connections.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(Seat(rt))
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The close code RFC 6455 gives a protocol error: 1009 for a message over the size limit,
/// 1007 for a text message that is not UTF-8, 1002 for any other broken frame.
fn close_code(err: &actix_ws::ProtocolError) -> CloseCode {
    use actix_ws::ProtocolError;
    match err {
        ProtocolError::Overflow => CloseCode::Size,
        ProtocolError::Io(io) if io.kind() == std::io::ErrorKind::InvalidData => CloseCode::Invalid,
        // actix-ws words an aggregated message over the limit this way.
        ProtocolError::Io(io) if io.to_string().contains("maximum continuation size") => CloseCode::Size,
        _ => CloseCode::Protocol,
    }
}

async fn serve(
    rt: Arc<Realtime>,
    outbox: Outbox,
    control: mpsc::UnboundedSender<Control>,
    mut stream: actix_ws::AggregatedMessageStream,
    token: Token,
    _seat: Seat,
) {
    let mut conn = Connection::new(rt.clone(), outbox.clone(), token);
    let mut shutdown = rt.shutdown.subscribe();
    let idle = Duration::from_secs(rt.config.idle_timeout_secs.max(1));
    let mut last_seen = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let close: Option<CloseReason> = loop {
        tokio::select! {
            message = stream.recv() => {
                last_seen = Instant::now();
                match message {
                    Some(Ok(AggregatedMessage::Text(text))) => {
                        crate::metrics::realtime_frames("received", 1);
                        conn.on_text(&text).await
                    }
                    Some(Ok(AggregatedMessage::Binary(data))) => {
                        crate::metrics::realtime_frames("received", 1);
                        conn.on_binary(data).await
                    }
                    Some(Ok(AggregatedMessage::Ping(bytes))) => {
                        if control.send(Control::Pong(bytes)).is_err() {
                            break None;
                        }
                    }
                    Some(Ok(AggregatedMessage::Pong(_))) => {}
                    // The client's close code is echoed, as RFC 6455 says an endpoint typically does
                    // (Phoenix's client reconnects after a close that is not 1000 and not its own).
                    Some(Ok(AggregatedMessage::Close(reason))) => break reason,
                    // The connection ended (the client went away, or the body closed it: a lagging
                    // outbox).
                    None => break None,
                    Some(Err(err)) => {
                        tracing::debug!(error = %err, "realtime: websocket protocol error");
                        break Some(CloseReason { code: close_code(&err), description: Some(err.to_string()) });
                    }
                }
            }
            _ = tick.tick() => {
                if last_seen.elapsed() > idle {
                    break Some(CloseReason { code: CloseCode::Normal, description: Some("heartbeat timeout".into()) });
                }
                if control.is_closed() {
                    break None;
                }
                conn.expire_tokens();
                // The body closes a lagging socket after its queue; this leaves its channels now,
                // even if the client reads nothing more.
                if outbox.is_lagged() {
                    break Some(CloseReason { code: CloseCode::Again, description: Some("client too slow".into()) });
                }
            }
            _ = shutdown.wait_for(|stop| *stop) => {
                break Some(CloseReason { code: CloseCode::Away, description: Some("server shutting down".into()) });
            }
        }
    };
    conn.close_all();
    // The body writes what is already queued (e.g. a last error reply), then this closing frame.
    let _ = control.send(Control::Close(close));
}
