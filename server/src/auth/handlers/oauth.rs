//! The user's side of the OAuth 2.1 server, as GoTrue serves it: `GET /oauth/authorize` (a
//! third-party app sends the user here), `GET /oauth/authorizations/{id}` and
//! `POST /oauth/authorizations/{id}/consent` (the site's consent page, for the signed-in user:
//! supabase-js `auth.oauth.getAuthorizationDetails` / `approveAuthorization` /
//! `denyAuthorization`), `GET|DELETE /user/oauth/grants` (`listGrants`, `revokeGrant`) and the
//! discovery document. Everything answers 404 `feature_disabled` while `OAUTH_SERVER_ENABLED`
//! is off. The code exchange is in `oauth_token`.
//!
//! Before the client and its redirect URI are known to be right, refusals are JSON; after, they
//! go back to the app as `?error=…&error_description=…&state=…` on its redirect URI. PKCE with
//! PKCE is required, `S256` or `plain`, as GoTrue takes them.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::auth::error::AuthError;
use crate::auth::oauth_server::authorizations::{self as authz, Authorization, Request, SUPPORTED_SCOPES};
use crate::auth::oauth_server::{clients, require_enabled};
use crate::auth::request::{query, require_user};
use crate::auth::AuthState;

fn coded(status: StatusCode, code: &'static str, message: impl Into<String>) -> AuthError {
    AuthError::Coded(status, code, message.into())
}

fn invalid(message: impl Into<String>) -> AuthError {
    coded(StatusCode::BAD_REQUEST, "validation_failed", message)
}

fn authorization_not_found() -> AuthError {
    coded(StatusCode::NOT_FOUND, "oauth_authorization_not_found", "authorization not found")
}

/// `uri` with `pairs` added to its query (any fragment dropped).
fn with_query(uri: &str, pairs: &[(&str, &str)]) -> String {
    let Ok(mut url) = url::Url::parse(uri) else { return uri.to_string() };
    url.set_fragment(None);
    {
        let mut query = url.query_pairs_mut();
        for (key, value) in pairs.iter().filter(|(_, v)| !v.is_empty()) {
            query.append_pair(key, value);
        }
    }
    url.to_string()
}

fn error_redirect(redirect_uri: &str, error: &str, description: &str, state: &str) -> String {
    with_query(redirect_uri, &[("error", error), ("error_description", description), ("state", state)])
}

fn success_redirect(auth: &Authorization, code: &str) -> String {
    with_query(&auth.redirect_uri, &[("code", code), ("state", auth.state.as_deref().unwrap_or_default())])
}

fn found(location: &str) -> HttpResponse {
    HttpResponse::Found().insert_header(("Location", location)).finish()
}

/// The parameters checked once the client and redirect URI are trusted (RFC 6749 4.1.2.1: their
/// refusals go back to the app).
fn check_request(state: &AuthState, params: &std::collections::HashMap<String, String>) -> Result<String, String> {
    let get = |k: &str| params.get(k).map(String::as_str).unwrap_or_default();
    let response_type = Some(get("response_type")).filter(|r| !r.is_empty()).unwrap_or("code");
    if response_type != "code" {
        return Err("only response_type=code is supported".into());
    }
    let config = state.config();
    let scope = Some(get("scope")).filter(|s| !s.is_empty()).unwrap_or(config.oauth_server_default_scope.as_str());
    let scopes = authz::scopes(scope);
    if scopes.is_empty() {
        return Err("scope parameter cannot be empty".into());
    }
    if let Some(unknown) = scopes.iter().find(|s| !SUPPORTED_SCOPES.contains(*s)) {
        return Err(format!("unsupported scope: {unknown}"));
    }
    let resource = get("resource");
    if !resource.is_empty() {
        let parsed = url::Url::parse(resource).map_err(|_| "resource must be an absolute URI".to_string())?;
        if parsed.fragment().is_some() {
            return Err("resource must not include a fragment component".into());
        }
        if parsed.query().is_some() {
            return Err("resource must not include a query component".into());
        }
    }
    let (challenge, method) = (get("code_challenge"), get("code_challenge_method"));
    if challenge.is_empty() || method.is_empty() {
        return Err("PKCE flow requires both code_challenge and code_challenge_method".into());
    }
    if !method.eq_ignore_ascii_case("s256") && !method.eq_ignore_ascii_case("plain") {
        return Err("code_challenge_method must be 'S256' or 'plain'".into());
    }
    if !(43..=128).contains(&challenge.len()) {
        return Err("code_challenge must be between 43 and 128 characters".into());
    }
    Ok(scopes.join(" "))
}

/// `GET /oauth/authorize`: store the request and send the user to the site's consent page.
pub async fn authorize(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let params = query(&req);
    let get = |k: &str| params.get(k).map(String::as_str).unwrap_or_default();
    let (client_id, redirect_uri, app_state) = (get("client_id"), get("redirect_uri"), get("state"));
    if client_id.is_empty() {
        return Err(invalid("client_id is required"));
    }
    if redirect_uri.is_empty() {
        return Err(invalid("redirect_uri is required"));
    }
    let not_found = |m: &str| coded(StatusCode::BAD_REQUEST, "oauth_client_not_found", m);
    let client_id = Uuid::parse_str(client_id).map_err(|_| not_found("invalid client_id format"))?;
    let db = state.pool.get().await?;
    let client = clients::find(&db, client_id).await?.ok_or_else(|| not_found("invalid client_id"))?;
    // exact string matching (RFC 6749 3.1.2.3); a wrong one is never redirected to
    if !client.redirect_uris.iter().any(|u| u == redirect_uri) {
        return Err(invalid("invalid redirect_uri"));
    }
    let scope = match check_request(&state, &params) {
        Ok(scope) => scope,
        Err(why) => return Ok(found(&error_redirect(redirect_uri, "invalid_request", &why, app_state))),
    };
    let request = Request {
        client_id,
        redirect_uri,
        scope: &scope,
        state: app_state,
        resource: get("resource"),
        code_challenge: get("code_challenge"),
        code_challenge_method: "s256",
        nonce: get("nonce"),
    };
    let authorization_id = match authz::create(&db, &request, state.config().oauth_server_authorization_ttl_secs).await
    {
        Ok(id) => id,
        Err(err) => {
            tracing::warn!(error = %err, "could not store an OAuth authorization request");
            let why = "error creating authorization";
            return Ok(found(&error_redirect(redirect_uri, "server_error", why, app_state)));
        }
    };
    let config = state.config();
    let Some(path) = config.oauth_server_authorization_path.as_deref().filter(|p| !p.is_empty()) else {
        let why = "oauth authorization path not configured";
        return Ok(found(&error_redirect(redirect_uri, "server_error", why, app_state)));
    };
    let page = format!("{}/{}", state.site_url.trim_end_matches('/'), path.trim_start_matches('/'));
    Ok(found(&format!("{page}?authorization_id={authorization_id}")))
}

/// A browser's request must come from an allowed origin (the site, the allow list).
fn check_origin(state: &AuthState, req: &HttpRequest) -> Result<(), AuthError> {
    match req.headers().get("origin").and_then(|v| v.to_str().ok()).filter(|o| !o.is_empty()) {
        Some(origin) if !state.redirect_allowed(origin) => Err(invalid("unauthorized request origin")),
        _ => Ok(()),
    }
}

/// The authorization request `id`, locked for the transaction, while it is pending: an expired one
/// is marked so (committed) and is not found; one in another state is refused with `not_pending`.
async fn lock_pending<'a>(
    tx: deadpool_postgres::Transaction<'a>,
    id: &str,
    not_pending: &str,
) -> Result<(deadpool_postgres::Transaction<'a>, Authorization), AuthError> {
    let auth = authz::lock(&tx, id).await?.ok_or_else(authorization_not_found)?;
    if auth.expired {
        authz::expire(&tx, auth.id).await?;
        tx.commit().await?;
        return Err(authorization_not_found());
    }
    if auth.status != "pending" {
        return Err(invalid(not_pending));
    }
    Ok((tx, auth))
}

/// `GET /oauth/authorizations/{id}`: what the consent page shows; the first signed-in user to
/// open a request owns it, and one whose earlier consent covers its scopes is approved at once
/// (`{"redirect_url"}` only).
pub async fn details(
    state: web::Data<AuthState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let mut db = state.pool.get().await?;
    let tx = db.transaction().await?;
    let user = require_user(&state, &req, &tx).await?.user;
    check_origin(&state, &req)?;
    let (tx, auth) = lock_pending(tx, &id, "authorization request cannot be processed").await?;
    let mut approved = None;
    match auth.user_id {
        None => {
            authz::set_user(&tx, auth.id, user.id).await?;
            if authz::consent_covers(&tx, user.id, auth.client_id, &auth.scope).await? {
                approved = Some(authz::approve(&tx, auth.id).await?);
            }
        }
        Some(owner) if owner != user.id => {
            tracing::warn!(authorization = %auth.authorization_id, "authorization opened by another user");
            return Err(authorization_not_found());
        }
        Some(_) => {}
    }
    tx.commit().await?;
    if let Some(code) = approved {
        return Ok(HttpResponse::Ok().json(json!({ "redirect_url": success_redirect(&auth, &code) })));
    }
    let client = clients::find(&db, auth.client_id).await?.ok_or_else(authorization_not_found)?;
    let mut user_json = json!({ "id": user.id });
    if !user.email_str().is_empty() {
        user_json["email"] = json!(user.email_str());
    }
    Ok(HttpResponse::Ok().json(json!({
        "authorization_id": auth.authorization_id,
        "redirect_uri": auth.redirect_uri,
        "client": client.details(),
        "user": user_json,
        "scope": auth.scope,
    })))
}

#[derive(Debug, Deserialize)]
struct Consent {
    action: Option<String>,
}

/// `POST /oauth/authorizations/{id}/consent` with `{"action": "approve" | "deny"}`: where the
/// consent page sends the user back to the app (`{"redirect_url"}`: with the code, or
/// `error=access_denied`). Approving records the consent for later requests.
pub async fn consent(
    state: web::Data<AuthState>,
    req: HttpRequest,
    id: web::Path<String>,
    bytes: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let mut db = state.pool.get().await?;
    let tx = db.transaction().await?;
    let user = require_user(&state, &req, &tx).await?.user;
    check_origin(&state, &req)?;
    let body: Consent =
        serde_json::from_slice(&bytes).map_err(|_| coded(StatusCode::BAD_REQUEST, "bad_json", "invalid JSON body"))?;
    let approve = match body.action.as_deref() {
        Some("approve") => true,
        Some("deny") => false,
        _ => return Err(invalid("action must be 'approve' or 'deny'")),
    };
    let (tx, auth) = lock_pending(tx, &id, "authorization request is no longer pending").await?;
    if auth.user_id != Some(user.id) {
        return Err(authorization_not_found());
    }
    let redirect_url = if approve {
        let code = authz::approve(&tx, auth.id).await?;
        authz::record_consent(&tx, user.id, auth.client_id, &auth.scope).await?;
        success_redirect(&auth, &code)
    } else {
        authz::deny(&tx, auth.id).await?;
        let app_state = auth.state.as_deref().unwrap_or_default();
        error_redirect(&auth.redirect_uri, "access_denied", "User denied the request", app_state)
    };
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(json!({ "redirect_url": redirect_url })))
}

/// `GET /user/oauth/grants`: the clients the user granted access to, and what.
pub async fn list_grants(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let db = state.pool.get().await?;
    let user = require_user(&state, &req, &db).await?.user;
    Ok(HttpResponse::Ok().json(authz::grants(&db, user.id).await?))
}

/// `DELETE /user/oauth/grants?client_id=`: revoke a grant; the sessions it gave end (204).
pub async fn revoke_grant(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let mut db = state.pool.get().await?;
    let tx = db.transaction().await?;
    let user = require_user(&state, &req, &tx).await?.user;
    let client_id = query(&req).get("client_id").cloned().unwrap_or_default();
    if client_id.is_empty() {
        return Err(invalid("client_id query parameter is required"));
    }
    let client_id = Uuid::parse_str(&client_id).map_err(|_| invalid("invalid client_id format"))?;
    if !authz::revoke(&tx, user.id, client_id).await? {
        return Err(coded(StatusCode::NOT_FOUND, "oauth_consent_not_found", "No active grant found for this client"));
    }
    tx.commit().await?;
    Ok(HttpResponse::NoContent().finish())
}

/// GoTrue's discovery document (RFC 8414 and OpenID Connect Discovery in one).
pub fn discovery(state: &AuthState) -> Value {
    let issuer = state.issuer.trim_end_matches('/');
    let mut doc = json!({
        "issuer": state.issuer,
        "authorization_endpoint": format!("{issuer}/oauth/authorize"),
        "token_endpoint": format!("{issuer}/oauth/token"),
        "jwks_uri": format!("{issuer}/.well-known/jwks.json"),
        "userinfo_endpoint": format!("{issuer}/oauth/userinfo"),
        "scopes_supported": SUPPORTED_SCOPES,
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256", "HS256", "ES256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "claims_supported": ["sub", "aud", "iss", "exp", "iat", "auth_time", "nonce", "email", "email_verified",
            "phone_number", "phone_number_verified", "name", "picture", "preferred_username", "updated_at"],
        "code_challenge_methods_supported": ["S256", "plain"],
    });
    if state.config().oauth_server_enabled && state.config().oauth_server_allow_dynamic_registration {
        doc["registration_endpoint"] = json!(format!("{issuer}/oauth/clients/register"));
    }
    doc
}

/// `GET /.well-known/oauth-authorization-server`: the discovery document, while the server is on.
pub async fn authorization_server_metadata(state: web::Data<AuthState>) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    Ok(HttpResponse::Ok().insert_header(("Cache-Control", "public, max-age=600")).json(discovery(&state)))
}

/// Any other path under `/oauth/` or `/admin/oauth/`.
pub async fn unknown(state: web::Data<AuthState>) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    Err(AuthError::NotFound("Not Found".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_keep_the_apps_query_and_add_ours() {
        assert_eq!(
            error_redirect("https://app.test/cb?x=1", "access_denied", "User denied the request", "s t"),
            "https://app.test/cb?x=1&error=access_denied&error_description=User+denied+the+request&state=s+t"
        );
        assert_eq!(
            error_redirect("myapp://cb", "invalid_request", "why", ""),
            "myapp://cb?error=invalid_request&error_description=why"
        );
    }
}
