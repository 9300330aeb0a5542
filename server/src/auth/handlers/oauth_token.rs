//! The endpoints a third-party app calls, as GoTrue serves them: `GET /oauth/userinfo` (OpenID
//! Connect's UserInfo, what the session's scopes allow) and `POST /oauth/token`, the token
//! endpoint of the OAuth 2.1 server: the client
//! authenticates (`oauth_server::client_auth`), then exchanges an authorization code with its
//! PKCE verifier (`authorization_code`) or refreshes its session (`refresh_token`). Bodies are
//! form-encoded (RFC 6749) or JSON. Refusals are RFC 6749's `{"error", "error_description"}`.
//!
//! A code is exchanged once: the exchange deletes its request in the transaction that starts the
//! session, under a row lock, so a second exchange finds nothing. The answer carries no user
//! (only `access_token`, `token_type`, `expires_in`, `refresh_token`), as GoTrue's.

use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::error::AuthError;
use crate::auth::oauth_server::authorizations as authz;
use crate::auth::oauth_server::client_auth;
use crate::auth::oauth_server::clients::Client;
use crate::auth::oauth_server::require_enabled;
use crate::auth::request::{client_info, client_ip, require_user};
use crate::auth::sessions::{self, OAuthGrant, OAUTH_TOKEN_PREFIX};
use crate::auth::{tokens, users, AuthState};

#[derive(Debug, Default, Deserialize)]
struct Params {
    grant_type: Option<String>,
    code: Option<String>,
    refresh_token: Option<String>,
    redirect_uri: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    code_verifier: Option<String>,
    resource: Option<String>,
}

fn oauth(error: &'static str, description: impl Into<String>) -> AuthError {
    AuthError::OAuth(error, description.into())
}

fn text(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or_default()
}

/// The body, JSON when the request says so, else a form.
fn params(req: &HttpRequest, body: &[u8]) -> Result<Params, AuthError> {
    let json =
        req.headers().get("content-type").and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("application/json"));
    if json {
        return serde_json::from_slice(body).map_err(|_| {
            AuthError::Coded(
                actix_web::http::StatusCode::BAD_REQUEST,
                "invalid_credentials",
                "Invalid client credentials: failed to parse JSON body".into(),
            )
        });
    }
    let mut p = Params::default();
    for (key, value) in url::form_urlencoded::parse(body) {
        let slot = match key.as_ref() {
            "grant_type" => &mut p.grant_type,
            "code" => &mut p.code,
            "refresh_token" => &mut p.refresh_token,
            "redirect_uri" => &mut p.redirect_uri,
            "client_id" => &mut p.client_id,
            "client_secret" => &mut p.client_secret,
            "code_verifier" => &mut p.code_verifier,
            "resource" => &mut p.resource,
            _ => continue,
        };
        slot.get_or_insert_with(|| value.into_owned());
    }
    Ok(p)
}

/// Only what RFC 6749 5.1 names: GoTrue leaves the user out for OAuth clients.
fn token_response(session: &Value) -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "access_token": session["access_token"],
        "token_type": session["token_type"],
        "expires_in": session["expires_in"],
        "refresh_token": session["refresh_token"],
    }))
}

pub async fn token(state: web::Data<AuthState>, req: HttpRequest, body: web::Bytes) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let p = params(&req, &body)?;
    let creds = client_auth::extract(&req, p.client_id.as_deref(), p.client_secret.as_deref())?;
    let client = client_auth::authenticate(&state.pool.get().await?, &creds).await?;
    let grant_type = text(&p.grant_type);
    if grant_type.is_empty() {
        return Err(oauth("invalid_request", "grant_type is required"));
    }
    if !client.allows_grant(grant_type) {
        return Err(oauth("unsupported_grant_type", format!("Client is not allowed to use grant type: {grant_type}")));
    }
    match grant_type {
        "authorization_code" => code_grant(&state, &req, &client, &p).await,
        "refresh_token" => refresh_grant(&state, &req, &client, &p).await,
        other => Err(oauth("unsupported_grant_type", format!("Unsupported grant type: {other}"))),
    }
}

async fn code_grant(
    state: &AuthState,
    req: &HttpRequest,
    client: &Client,
    p: &Params,
) -> Result<HttpResponse, AuthError> {
    let code = text(&p.code);
    if code.is_empty() {
        return Err(oauth("invalid_request", "code is required for authorization_code grant"));
    }
    let mut db = state.pool.get().await?;
    let tx = db.transaction().await?;
    let auth =
        authz::lock_by_code(&tx, code).await?.ok_or_else(|| oauth("invalid_grant", "Invalid authorization code"))?;
    if auth.expired {
        return Err(oauth("invalid_grant", "Authorization code has expired"));
    }
    if auth.client_id != client.id {
        return Err(oauth("invalid_grant", "Authorization code was not issued for this client"));
    }
    let resource = text(&p.resource);
    if !resource.is_empty() && resource != auth.resource.as_deref().unwrap_or_default() {
        return Err(oauth("invalid_grant", "Authorization code resource does not match the resource parameter"));
    }
    let redirect_uri = text(&p.redirect_uri);
    if !redirect_uri.is_empty() && redirect_uri != auth.redirect_uri {
        return Err(oauth("invalid_grant", "Invalid redirect_uri"));
    }
    if let Some(challenge) = auth.code_challenge.as_deref().filter(|c| !c.is_empty()) {
        let verifier = text(&p.code_verifier);
        if verifier.is_empty() {
            return Err(oauth(
                "invalid_grant",
                "PKCE verification failed: code_verifier is required when PKCE challenge is present",
            ));
        }
        let method = auth.code_challenge_method.as_deref().unwrap_or_default();
        if !tokens::pkce_matches(method, challenge, verifier) {
            return Err(oauth(
                "invalid_grant",
                "PKCE verification failed: code challenge does not match previously saved code verifier",
            ));
        }
    }
    let user_id = auth.user_id.ok_or_else(|| oauth("invalid_grant", "Authorization code has no associated user"))?;
    let user = users::by_id(&tx, user_id)
        .await?
        .ok_or_else(|| oauth("invalid_grant", "User not found for authorization code"))?;
    if user.is_banned() {
        return Err(oauth("access_denied", "User is banned"));
    }
    let ip = client_ip(state, req);
    let traits = json!({"provider_type": "oauth_provider_authorization_code", "client_id": client.id});
    let grant = OAuthGrant { client_id: client.id, scope: auth.scope.clone() };
    let method = "oauth_provider/authorization_code";
    let session =
        sessions::sign_in_for_client(state, &tx, user, method, &client_info(state, req), &ip, traits, &grant).await?;
    authz::consume(&tx, auth.id).await?;
    tx.commit().await?;
    Ok(token_response(&session))
}

async fn refresh_grant(
    state: &AuthState,
    req: &HttpRequest,
    client: &Client,
    p: &Params,
) -> Result<HttpResponse, AuthError> {
    let token = text(&p.refresh_token);
    if token.is_empty() {
        return Err(oauth("invalid_request", "refresh_token is required for refresh_token grant"));
    }
    if !token.starts_with(OAUTH_TOKEN_PREFIX) {
        return Err(oauth("invalid_client", "Client authentication not allowed for non-OAuth session"));
    }
    let grant =
        sessions::oauth_grant_of(&state.pool.get().await?, token).await?.ok_or(AuthError::RefreshTokenNotFound)?;
    if grant.client_id != client.id {
        return Err(oauth("invalid_client", "Client does not match the session's OAuth client"));
    }
    let ip = client_ip(state, req);
    let session = sessions::refresh_for_client(state, token, &ip, &format!("token:{ip}"), &grant).await?;
    Ok(token_response(&session))
}

/// `GET /oauth/userinfo` with an access token: `sub`, then what the session's scopes open
/// (`email`: the address and whether it is confirmed; `profile`: name, picture, username,
/// `updated_at`, `user_metadata`; `phone`: the number and whether it is confirmed). A session not
/// granted to a client gets `sub` alone, as from GoTrue.
pub async fn userinfo(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let db = state.pool.get().await?;
    let authed = require_user(&state, &req, &db).await?;
    let user = authed.user;
    let mut info = json!({ "sub": user.id });
    let scopes = match authed.session_id {
        Some(id) => sessions::oauth_scopes_of(&db, id).await?.unwrap_or_default(),
        None => String::new(),
    };
    let scopes = authz::scopes(&scopes);
    let meta = |key: &str| user.user_metadata.get(key).and_then(Value::as_str).filter(|v| !v.is_empty());
    if scopes.contains(&"email") {
        if !user.email_str().is_empty() {
            info["email"] = json!(user.email_str());
        }
        if user.email_confirmed_at.is_some() {
            info["email_verified"] = json!(true);
        }
    }
    if scopes.contains(&"profile") {
        if let Some(name) = meta("name").or(Some(user.email_str()).filter(|e| !e.is_empty())) {
            info["name"] = json!(name);
        }
        if let Some(picture) = meta("picture").or_else(|| meta("avatar_url")) {
            info["picture"] = json!(picture);
        }
        if let Some(username) = meta("preferred_username").or_else(|| meta("username")) {
            info["preferred_username"] = json!(username);
        }
        info["updated_at"] = json!(user.updated_at.timestamp());
        info["user_metadata"] = user.user_metadata.clone();
    }
    if scopes.contains(&"phone") {
        if let Some(phone) = user.phone.as_deref().filter(|p| !p.is_empty()) {
            info["phone"] = json!(phone);
        }
        if user.phone_confirmed_at.is_some() {
            info["phone_verified"] = json!(true);
        }
    }
    Ok(HttpResponse::Ok().json(info))
}
