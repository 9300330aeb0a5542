//! Sessions and refresh tokens: creation at sign-in, rotation at refresh, ending at logout, and
//! the `Session` object (access token response) GoTrue returns.
//!
//! A refresh token is used once: using it revokes it and issues a child. Presenting a revoked
//! token again inside the reuse interval answers with the session's current token (a client
//! that lost a response can recover); outside it, every token of the session is revoked and the
//! request fails with `refresh_token_already_used`. This module does not check passwords.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use uuid::Uuid;

use super::error::AuthError;
use super::tokens::{self, AccessClaims, Amr};
use super::users::{self, User};
use super::AuthState;

/// Length of refresh tokens (alphanumeric, ~190 bits).
const REFRESH_TOKEN_LEN: usize = 32;

/// A session and the refresh token to hand out for it.
#[derive(Debug, Clone)]
pub struct Issued {
    pub session_id: Uuid,
    pub refresh_token: String,
}

/// Client facts stored on a session.
#[derive(Debug, Clone, Default)]
pub struct ClientInfo {
    pub ip: Option<String>,
    pub user_agent: Option<String>,
}

/// Start a session for `user` signed in by `method` (`password`, `otp`, `pkce`...).
pub async fn create(
    db: &impl crate::db::cached::Db,
    user_id: Uuid,
    method: &str,
    client: &ClientInfo,
) -> Result<Issued, AuthError> {
    let session_id = Uuid::new_v4();
    let refresh_token = tokens::random_token(REFRESH_TOKEN_LEN);
    db.cached_execute(
        "select auth.start_session($1, $2, $3, $4, $5, $6)",
        &[&user_id, &session_id, &method, &refresh_token, &client.user_agent, &client.ip],
    )
    .await?;
    Ok(Issued { session_id, refresh_token })
}

/// A sign-in whose credentials were checked, in one round trip: the session, the user's sign-in
/// time and the `login` audit row (with `traits`), then the `Session` object.
pub async fn sign_in(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    mut user: User,
    method: &str,
    client: &ClientInfo,
    ip: &str,
    traits: Value,
) -> Result<Value, AuthError> {
    let issued = Issued { session_id: Uuid::new_v4(), refresh_token: tokens::random_token(REFRESH_TOKEN_LEN) };
    let row = db
        .cached_query_one(
            "select o_aal, o_amr, o_signed_in_at from auth.grant_session($1, $2, $3, $4, $5, $6, $7, $8)",
            &[
                &user.id,
                &issued.session_id,
                &method,
                &issued.refresh_token,
                &client.user_agent,
                &client.ip,
                &ip,
                &traits,
            ],
        )
        .await?;
    // What the grant wrote on the user, without reading the user again.
    let signed_in_at: DateTime<Utc> = row.get(2);
    user.last_sign_in_at = Some(signed_in_at);
    user.updated_at = signed_in_at;
    response_with(state, &user, &issued, row.get(0), amr_of(row.get(1)))
}

/// The `Session` object: access token, refresh token, expiry and user.
pub async fn response(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    user: &User,
    issued: &Issued,
) -> Result<Value, AuthError> {
    let row = db.cached_query_one("select o_aal, o_amr from auth.session_aal_amr($1)", &[&issued.session_id]).await?;
    response_with(state, user, issued, row.get(0), amr_of(row.get(1)))
}

/// The methods of `auth.session_aal_amr`'s JSON.
fn amr_of(json: Value) -> Vec<Amr> {
    serde_json::from_value(json).unwrap_or_default()
}

/// The `Session` object for a session whose AAL and methods are known.
fn response_with(
    state: &AuthState,
    user: &User,
    issued: &Issued,
    aal: String,
    amr: Vec<Amr>,
) -> Result<Value, AuthError> {
    let now = Utc::now().timestamp();
    let exp = now + state.config.jwt_exp as i64;
    let claims = AccessClaims {
        iss: state.issuer.clone(),
        sub: user.id.to_string(),
        aud: user.aud.clone(),
        exp,
        iat: now,
        email: user.email_str().to_string(),
        phone: user.phone.clone().unwrap_or_default(),
        app_metadata: user.app_metadata.clone(),
        user_metadata: user.user_metadata.clone(),
        role: user.role.clone(),
        aal,
        amr,
        session_id: issued.session_id.to_string(),
        is_anonymous: user.is_anonymous,
    };
    let access_token = state.signing_keys.sign(&claims, &state.encoding_key).map_err(AuthError::internal)?;
    Ok(json!({
        "access_token": access_token,
        "token_type": "bearer",
        "expires_in": state.config.jwt_exp,
        "expires_at": exp,
        "refresh_token": issued.refresh_token,
        "user": user.to_json(),
    }))
}

/// The refresh-token grant as one statement (`auth.grant_refresh`, rate limit and audit row
/// included) joined to the user it signs in.
static REFRESH: LazyLock<String> = LazyLock::new(|| {
    format!(
        "select g.o_outcome, g.o_session, g.o_token, g.o_aal, g.o_amr, {} \
         from auth.grant_refresh($1, $2, $3, $4, $5, $6, $7) g left join auth.users u on u.id = g.o_user",
        users::COLUMNS
    )
});

/// Present a refresh token (rate-limited under `limit_key`) in one round trip: the `Session`
/// object, or why not.
pub async fn refresh(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    token: &str,
    ip: &str,
    limit_key: &str,
) -> Result<Value, AuthError> {
    let new_token = tokens::random_token(REFRESH_TOKEN_LEN);
    let reuse_interval = state.config.refresh_token_reuse_interval as f64;
    let limit = i32::try_from(state.config.rate_limit_token_refresh).unwrap_or(i32::MAX);
    let window = super::rate_limit::IP_WINDOW_SECS as f64;
    let row = db
        .cached_query_one(REFRESH.as_str(), &[&token, &new_token, &reuse_interval, &ip, &limit_key, &limit, &window])
        .await?;
    let outcome: String = row.get(0);
    match outcome.as_str() {
        "refreshed" | "reused" => {}
        "rate_limited" => return Err(AuthError::OverRequestRateLimit),
        "banned" => return Err(AuthError::UserBanned),
        "already_used" => return Err(AuthError::RefreshTokenAlreadyUsed),
        _ => return Err(AuthError::RefreshTokenNotFound),
    }
    let user = User::from_row(&row);
    let issued = Issued { session_id: row.get(1), refresh_token: row.get(2) };
    response_with(state, &user, &issued, row.get(3), amr_of(row.get(4)))
}

/// Which sessions a logout ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Local,
    Others,
}

impl Scope {
    /// Parse `?scope=`; GoTrue defaults to `global`.
    pub fn parse(value: Option<&str>) -> Result<Scope, AuthError> {
        match value.unwrap_or("global") {
            "global" => Ok(Scope::Global),
            "local" => Ok(Scope::Local),
            "others" => Ok(Scope::Others),
            other => Err(AuthError::Validation(format!("Unsupported logout scope {other:?}"))),
        }
    }
}

/// End sessions (their refresh tokens go with them).
pub async fn logout(
    db: &impl crate::db::cached::Db,
    user_id: Uuid,
    session_id: Option<Uuid>,
    scope: Scope,
) -> Result<u64, AuthError> {
    let count = match (scope, session_id) {
        (Scope::Local, Some(id)) => db.cached_execute("delete from auth.sessions where id = $1", &[&id]).await?,
        (Scope::Others, Some(id)) => {
            db.cached_execute("delete from auth.sessions where user_id = $1 and id <> $2", &[&user_id, &id]).await?
        }
        (Scope::Others, None) => 0,
        _ => db.cached_execute("delete from auth.sessions where user_id = $1", &[&user_id]).await?,
    };
    Ok(count)
}

/// `url` with `session` in its fragment, as GoTrue hands a session back in a redirect (implicit
/// flow), followed by `extra` pairs (`type`, `provider_token`); any fragment of `url` is replaced.
pub fn redirect_with_session(url: &str, session: &Value, extra: &[(&str, &str)]) -> String {
    let mut fragment = url::form_urlencoded::Serializer::new(String::new());
    fragment
        .append_pair("access_token", session["access_token"].as_str().unwrap_or_default())
        .append_pair("expires_at", &session["expires_at"].to_string())
        .append_pair("expires_in", &session["expires_in"].to_string())
        .append_pair("refresh_token", session["refresh_token"].as_str().unwrap_or_default())
        .append_pair("token_type", "bearer");
    for (key, value) in extra {
        fragment.append_pair(key, value);
    }
    format!("{}#{}", url.split('#').next().unwrap_or_default(), fragment.finish())
}

/// `url` with a refusal in its fragment (`#error=…&error_code=…&error_description=…`).
pub fn redirect_with_error(url: &str, error: &str, code: &str, description: &str) -> String {
    let fragment = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("error", error)
        .append_pair("error_code", code)
        .append_pair("error_description", description)
        .finish();
    format!("{}#{fragment}", url.split('#').next().unwrap_or_default())
}
