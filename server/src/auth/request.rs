//! Reading auth requests: JSON bodies (`bad_json` on malformed input), query strings, the
//! client's IP and user agent, and the Bearer token (user or admin).
//!
//! Authentication follows GoTrue: no Bearer is 401 `no_authorization`; a token that does not
//! verify is 403 `bad_jwt`; a token whose user or session is gone is 403 `user_not_found` /
//! `session_not_found`; the admin API wants the `service_role` (or `supabase_admin`) role. A token
//! that verifies sets the request's caller, which the request log reads for its user and role.

use std::collections::HashMap;
use std::sync::Arc;

use actix_web::{HttpMessage, HttpRequest};
use serde::de::DeserializeOwned;
use serde_json::Value;
use uuid::Uuid;

use super::error::AuthError;
use super::sessions::ClientInfo;
use super::users::{self, User};
use super::AuthState;

/// Parse a JSON body; an empty body reads as `{}`.
pub fn json_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, AuthError> {
    let body = if body.iter().all(u8::is_ascii_whitespace) { b"{}".as_slice() } else { body };
    serde_json::from_slice(body).map_err(|e| AuthError::BadJson(e.to_string()))
}

/// The query string as a map (last value wins).
pub fn query(req: &HttpRequest) -> HashMap<String, String> {
    url::form_urlencoded::parse(req.query_string().as_bytes()).into_owned().collect()
}

/// The client's IP: the configured header's first address, else the peer address.
pub fn client_ip(state: &AuthState, req: &HttpRequest) -> String {
    if let Some(header) = &state.config().rate_limit_header {
        if let Some(value) = req.headers().get(header.as_str()).and_then(|v| v.to_str().ok()) {
            if let Some(first) = value.split(',').map(str::trim).find(|v| !v.is_empty()) {
                return first.to_string();
            }
        }
    }
    req.peer_addr().map(|a| a.ip().to_string()).unwrap_or_default()
}

/// IP and user agent, stored on sessions.
pub fn client_info(state: &AuthState, req: &HttpRequest) -> ClientInfo {
    let ip = client_ip(state, req);
    ClientInfo {
        ip: ip.parse::<std::net::IpAddr>().ok().map(|ip| ip.to_string()),
        user_agent: req.headers().get("user-agent").and_then(|v| v.to_str().ok()).map(str::to_string),
    }
}

fn bearer(req: &HttpRequest) -> Result<String, AuthError> {
    crate::gate::bearer_of(req).filter(|t| !t.is_empty()).ok_or(AuthError::NoAuthorization)
}

/// The claims of `token` when it verifies. The caller (its `sub` and role) is then set on the
/// request, as the gate does for the other surfaces, so that the request log records who made
/// an auth request.
fn verify(state: &AuthState, req: &HttpRequest, token: &str) -> Result<Arc<Value>, AuthError> {
    let claims = verify_token(state, token)?;
    let role = claims.get("role").and_then(Value::as_str).unwrap_or_default().to_string();
    req.extensions_mut().insert(crate::db::context::Caller { role, claims: claims.clone() });
    Ok(claims)
}

fn verify_token(state: &AuthState, token: &str) -> Result<Arc<Value>, AuthError> {
    state.verifier.verify(token).map_err(|err| {
        let why = match err {
            crate::jwt::JwtError::Expired => "token has invalid claims: token is expired".to_string(),
            crate::jwt::JwtError::Invalid(why) => why,
            crate::jwt::JwtError::Audience => "token has invalid audience".to_string(),
            crate::jwt::JwtError::Claims(claim) => format!("token has invalid claims: {claim}"),
            crate::jwt::JwtError::UnknownApiKey => "invalid API key".to_string(),
        };
        AuthError::BadJwt(format!("invalid JWT: unable to parse or verify signature, {why}"))
    })
}

/// A signed-in caller: the token's claims, the user and the session.
#[derive(Debug, Clone)]
pub struct Authed {
    pub claims: Arc<Value>,
    pub user: User,
    pub session_id: Option<Uuid>,
}

/// The user of the Bearer token, whose user and session must still exist.
pub async fn require_user(
    state: &AuthState,
    req: &HttpRequest,
    db: &impl crate::db::cached::Db,
) -> Result<Authed, AuthError> {
    let claims = verify(state, req, &bearer(req)?)?;
    let sub = claims
        .get("sub")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| AuthError::BadJwt("invalid claim: missing sub claim".into()))?;
    let id = Uuid::parse_str(sub).map_err(|_| AuthError::BadJwt("invalid claim: sub claim must be a UUID".into()))?;
    let session_id = match claims.get("session_id").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        Some(raw) => {
            let sid = Uuid::parse_str(raw)
                .map_err(|_| AuthError::BadJwt("invalid claim: session_id claim must be a UUID".into()))?;
            Some(sid).filter(|sid| !sid.is_nil())
        }
        None => None,
    };
    let (user, session_exists) =
        users::by_id_with_session(db, id, session_id).await?.ok_or(AuthError::UserFromJwtMissing)?;
    if !session_exists {
        return Err(AuthError::SessionNotFound);
    }
    Ok(Authed { claims, user, session_id })
}

/// An admin caller, as an extractor: a handler taking `_: Admin` first runs only for an admin
/// token, and any other caller gets the error of `require_admin` before the body is read.
pub struct Admin;

impl actix_web::FromRequest for Admin {
    type Error = AuthError;
    type Future = std::future::Ready<Result<Self, AuthError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let admin = match req.app_data::<actix_web::web::Data<AuthState>>() {
            Some(state) => require_admin(state, req).map(|_| Admin),
            None => Err(AuthError::Internal("the auth state is not registered".into())),
        };
        std::future::ready(admin)
    }
}

/// The claims of an admin token (`service_role` or `supabase_admin`), else 403 `not_admin`.
fn require_admin(state: &AuthState, req: &HttpRequest) -> Result<Arc<Value>, AuthError> {
    let token = bearer(req)?;
    let user_agent = req.headers().get("user-agent").and_then(|v| v.to_str().ok());
    if crate::keys::secret_key_from_browser(None, Some(&token), user_agent) {
        return Err(AuthError::SecretKeyInBrowser);
    }
    let claims = verify(state, req, &token)?;
    match claims.get("role").and_then(Value::as_str) {
        Some("service_role" | "supabase_admin") => Ok(claims),
        _ => Err(AuthError::NotAdmin),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_bodies_read_as_empty_objects_and_garbage_is_bad_json() {
        let v: Value = json_body(b"").unwrap();
        assert_eq!(v, serde_json::json!({}));
        assert!(matches!(json_body::<Value>(b"{nope"), Err(AuthError::BadJson(_))));
    }
}
