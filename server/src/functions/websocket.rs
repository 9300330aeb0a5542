//! WebSocket upgrades inside a function (`Deno.upgradeWebSocket(req)`, as Supabase documents it):
//! the client's handshake goes to the router as a request of its own (`proxy`), and when the
//! function accepts (101), the client gets that 101 and the two connections are spliced byte for
//! byte, both ways, until either side closes. The WebSocket protocol itself (handshake answer,
//! frames, close codes) is spoken by the runtime (`server/functions-runtime/tunnel.ts`); a
//! function's refusal is an ordinary answer and never reaches this module.
//!
//! It decides nothing (JWT checks, limits: `proxy` and the runtime) and never reads the frames.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;

use super::error::FunctionsError;

/// Whether `req` is a WebSocket handshake (`GET` with `Connection: upgrade`, `Upgrade: websocket`).
pub fn is_handshake(req: &HttpRequest) -> bool {
    let has = |name: &str, token: &str| {
        req.headers()
            .get_all(name)
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case(token))
    };
    req.method() == actix_web::http::Method::GET && has("connection", "upgrade") && has("upgrade", "websocket")
}

/// The token of a handshake that carries no `Authorization` (a browser's `WebSocket` cannot set
/// one): its `?apikey=` query parameter, as Supabase's Realtime socket takes it.
pub fn query_token(req: &HttpRequest) -> Option<String> {
    let query = req.uri().query()?;
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == "apikey")
        .map(|(_, value)| value.into_owned())
}

/// Answer the client's handshake with the function's 101 (its `Sec-WebSocket-Accept`, chosen
/// protocol) and splice the client's connection with the runtime's until either closes.
pub async fn splice(answer: reqwest::Response, payload: web::Payload) -> Result<HttpResponse, FunctionsError> {
    let headers = answer.headers().clone();
    let upgraded = answer.upgrade().await.map_err(|err| {
        tracing::error!(error = %err, "functions: the runtime's WebSocket upgrade failed");
        FunctionsError::Boot
    })?;
    let (from_function, mut to_function) = tokio::io::split(upgraded);
    // Client to function, on the request's thread (actix's payload stays on it).
    actix_web::rt::spawn(async move {
        let mut payload = payload;
        while let Some(Ok(chunk)) = payload.next().await {
            if to_function.write_all(&chunk).await.is_err() {
                break;
            }
        }
        let _ = to_function.shutdown().await;
    });
    let mut response = HttpResponse::build(StatusCode::SWITCHING_PROTOCOLS);
    response.upgrade("websocket");
    for name in ["sec-websocket-accept", "sec-websocket-protocol", "sec-websocket-extensions"] {
        if let Some(value) =
            headers.get(name).and_then(|v| actix_web::http::header::HeaderValue::from_bytes(v.as_bytes()).ok())
        {
            response.insert_header((name, value));
        }
    }
    let frames = tokio_util::io::ReaderStream::new(from_function);
    Ok(response.streaming(frames.map(|chunk| chunk.map_err(actix_web::error::ErrorBadGateway))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn a_handshake_is_a_get_with_connection_upgrade_and_upgrade_websocket() {
        let handshake = |req: TestRequest| is_handshake(&req.to_http_request());
        assert!(handshake(
            TestRequest::get()
                .insert_header(("connection", "keep-alive, Upgrade"))
                .insert_header(("upgrade", "WebSocket"))
        ));
        assert!(!handshake(TestRequest::get().insert_header(("upgrade", "websocket"))));
        assert!(!handshake(
            TestRequest::get().insert_header(("connection", "upgrade")).insert_header(("upgrade", "h2c"))
        ));
        assert!(!handshake(
            TestRequest::post().insert_header(("connection", "upgrade")).insert_header(("upgrade", "websocket"))
        ));
    }

    #[test]
    fn the_query_token_is_the_apikey_parameter_decoded() {
        let token = |uri: &str| query_token(&TestRequest::get().uri(uri).to_http_request());
        assert_eq!(token("/functions/v1/echo?room=1&apikey=a.b%2Bc").as_deref(), Some("a.b+c"));
        assert_eq!(token("/functions/v1/echo?room=1"), None);
        assert_eq!(token("/functions/v1/echo"), None);
    }
}
