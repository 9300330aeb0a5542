//! Operator sessions: a random token in an HttpOnly, SameSite=Strict cookie scoped to `/studio`,
//! stored as its SHA-256 in `_studio.sessions`, ended by idle time
//! (`STUDIO_SESSION_IDLE_SECONDS`), by signing out, by a password change or by the operator's
//! removal. Writes (every method but GET and HEAD) also need the session's CSRF token in the
//! `X-CSRF-Token` header (an HMAC of the session token, so it is bound to it and never stored)
//! and must come from the dashboard's own origin (`Origin`, `Sec-Fetch-Site`).
//!
//! [`require_operator`] is the middleware in front of every `/studio/api/` route but sign-in;
//! the handlers behind it read the [`OperatorSession`] it leaves in the request. API keys and
//! `Authorization` headers are never looked at: they open nothing here.

use actix_web::body::MessageBody;
use actix_web::cookie::{Cookie, SameSite};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpRequest};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

use super::error::StudioError;
use crate::state::AppState;

/// The session cookie's name.
pub const COOKIE: &str = "studio_session";
/// The header that carries the CSRF token on writes.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// Where the cookie is sent.
const COOKIE_PATH: &str = "/studio";

/// The signed-in operator of a request, left by [`require_operator`].
#[derive(Debug, Clone)]
pub struct OperatorSession {
    pub operator_id: Uuid,
    pub email: String,
    pub session_id: Uuid,
    /// The CSRF token of the session (sent to the app, which sends it back on writes).
    pub csrf: String,
}

/// A new random session token (32 bytes, URL-safe base64).
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// What the database keeps of a token.
pub fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// The CSRF token bound to a session token.
pub fn csrf_of(token: &str) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(token.as_bytes()).unwrap_or_else(|_| {
        // HMAC takes keys of any length; this branch is never taken.
        <Hmac<Sha256> as Mac>::new_from_slice(b"studio").expect("a fixed key")
    });
    mac.update(b"studio csrf");
    URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

/// The cookie that holds `token` (a session cookie: the server ends idle sessions).
pub fn cookie(token: &str, secure: bool) -> Cookie<'static> {
    Cookie::build(COOKIE, token.to_string())
        .path(COOKIE_PATH)
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(secure)
        .finish()
}

/// The cookie that tells the browser to forget the session.
pub fn removal(secure: bool) -> Cookie<'static> {
    let mut c = cookie("", secure);
    c.make_removal();
    c
}

/// Whether cookies must be `Secure` (the server is reached over HTTPS).
pub fn secure(state: &AppState) -> bool {
    state.external_url.starts_with("https://")
}

/// Whether a state-changing request comes from the page's own origin: a browser says so in
/// `Sec-Fetch-Site`, and an `Origin` it sends must name the host the request was sent to.
/// A request with neither (a command-line client) is let through: the CSRF token still decides.
pub fn same_origin(req: &HttpRequest) -> bool {
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok());
    if let Some(site) = header("sec-fetch-site") {
        if !matches!(site, "same-origin" | "none") {
            return false;
        }
    }
    // Every `Origin` sent (a request with two is refused unless both name this host).
    let host = header("host").unwrap_or("");
    req.headers().get_all("origin").all(|origin| {
        let origin = origin.to_str().unwrap_or("null");
        let authority = origin.split_once("://").map(|(_, rest)| rest).unwrap_or("null");
        !host.is_empty() && authority.eq_ignore_ascii_case(host)
    })
}

/// Whether the request's CSRF header matches the session token's.
fn csrf_matches(req: &HttpRequest, token: &str) -> bool {
    let Some(sent) = req.headers().get(CSRF_HEADER).and_then(|v| v.to_str().ok()) else { return false };
    sent.as_bytes().ct_eq(csrf_of(token).as_bytes()).into()
}

/// Start a session for an operator; returns its token.
pub async fn create(
    db: &impl deadpool_postgres::GenericClient,
    operator_id: Uuid,
    ip: &str,
    user_agent: &str,
) -> Result<String, tokio_postgres::Error> {
    let token = new_token();
    db.execute(
        "insert into _studio.sessions (operator_id, token_hash, ip, user_agent) values ($1, $2, $3, $4)",
        &[&operator_id, &token_hash(&token), &ip, &user_agent],
    )
    .await?;
    Ok(token)
}

/// The operator of a live session, whose idle time starts again; `None` for an unknown, idle or
/// orphaned one.
pub async fn touch(
    db: &impl deadpool_postgres::GenericClient,
    token: &str,
    idle_secs: u64,
) -> Result<Option<OperatorSession>, tokio_postgres::Error> {
    let idle = idle_secs as f64;
    let row = db
        .query_opt(
            "update _studio.sessions s set last_seen_at = now() from _studio.operators o \
             where s.token_hash = $1 and o.id = s.operator_id \
               and s.last_seen_at > now() - make_interval(secs => $2) \
             returning o.id, o.email, s.id",
            &[&token_hash(token), &idle],
        )
        .await?;
    Ok(row.map(|r| OperatorSession {
        operator_id: r.get(0),
        email: r.get(1),
        session_id: r.get(2),
        csrf: csrf_of(token),
    }))
}

/// End a session.
pub async fn end(db: &impl deadpool_postgres::GenericClient, session_id: Uuid) -> Result<(), tokio_postgres::Error> {
    db.execute("delete from _studio.sessions where id = $1", &[&session_id]).await.map(drop)
}

/// Forget sessions idle for longer than the limit.
pub async fn prune(db: &impl deadpool_postgres::GenericClient, idle_secs: u64) -> Result<(), tokio_postgres::Error> {
    let idle = idle_secs as f64;
    db.execute("delete from _studio.sessions where last_seen_at < now() - make_interval(secs => $1)", &[&idle])
        .await
        .map(drop)
}

/// The middleware of the signed-in API: a live session, and on writes its CSRF token and the
/// dashboard's origin; the [`OperatorSession`] is left in the request's extensions.
pub async fn require_operator(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let state = req.app_data::<web::Data<AppState>>().cloned().ok_or_else(|| StudioError::internal("no app state"))?;
    let token = req.cookie(COOKIE).map(|c| c.value().to_string()).filter(|t| !t.is_empty());
    let Some(token) = token else { return Err(StudioError::Unauthenticated.into()) };
    let client = state.pools.admin.get().await.map_err(StudioError::from)?;
    let session = touch(&client, &token, state.config.studio.session_idle_secs).await.map_err(StudioError::from)?;
    drop(client);
    let Some(session) = session else { return Err(StudioError::Unauthenticated.into()) };
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        if !same_origin(req.request()) {
            return Err(StudioError::Forbidden("Cross-site request refused").into());
        }
        if !csrf_matches(req.request(), &token) {
            return Err(StudioError::Forbidden("Missing or wrong CSRF token").into());
        }
    }
    req.extensions_mut().insert(session);
    next.call(req).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn tokens_are_random_and_csrf_is_bound_to_them() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), 43);
        assert_eq!(csrf_of(&a), csrf_of(&a));
        assert_ne!(csrf_of(&a), csrf_of(&b));
        assert_eq!(token_hash(&a).len(), 32);
    }

    #[test]
    fn the_cookie_is_http_only_strict_and_scoped() {
        let text = cookie("t", false).to_string();
        assert!(text.contains("HttpOnly") && text.contains("SameSite=Strict") && text.contains("Path=/studio"));
        assert!(!text.contains("Secure"));
        assert!(cookie("t", true).to_string().contains("Secure"));
    }

    #[test]
    fn only_the_same_origin_may_write() {
        let req = |headers: &[(&str, &str)]| {
            let mut r = TestRequest::post().insert_header(("host", "127.0.0.1:54321"));
            for h in headers {
                r = r.append_header(*h);
            }
            r.to_http_request()
        };
        assert!(same_origin(&req(&[])));
        assert!(same_origin(&req(&[("origin", "http://127.0.0.1:54321"), ("sec-fetch-site", "same-origin")])));
        assert!(!same_origin(&req(&[("origin", "https://evil.example")])));
        assert!(!same_origin(&req(&[("sec-fetch-site", "cross-site")])));
        assert!(!same_origin(&req(&[("sec-fetch-site", "same-site")])));
        assert!(!same_origin(&req(&[("origin", "null")])));
        assert!(!same_origin(&req(&[("origin", "http://127.0.0.1:54321"), ("origin", "https://evil.example")])));
    }
}
