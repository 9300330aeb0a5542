//! Sessions and refresh tokens: creation at sign-in, rotation at refresh, ending at logout, and
//! the `Session` object (access token response) GoTrue returns.
//!
//! A refresh token is used once: using it revokes it and issues a child. Presenting a revoked
//! token again inside the reuse interval answers with the session's current token (a client
//! that lost a response can recover); outside it, every token of the session is revoked and the
//! request fails with `refresh_token_already_used`. Sessions started under algorithm 2
//! (`REFRESH_TOKEN_ALGORITHM_VERSION=2`, [`super::refresh_token`]) keep a counter instead of
//! token rows, with GoTrue's rules for it: the previous counter may always be presented again
//! (the current token is handed back), an older one only within the reuse interval since the
//! last refresh; otherwise the session ends. This module does not check passwords.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use serde_json::Value;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use super::error::AuthError;
use super::refresh_batch::{Grant, Outcome};
use super::refresh_token;
use super::tokens::{self, Amr};
use super::users::{self, User};
use super::AuthState;
use crate::db::cached::CachedQueries;

/// Length of refresh tokens (alphanumeric, ~190 bits).
const REFRESH_TOKEN_LEN: usize = 32;

/// What starts the refresh tokens of a session granted to an OAuth client (`auth::oauth_server`):
/// never in another token (`_` is neither alphanumeric nor the first character of an
/// algorithm-2 token), so `/token` refuses them without reading the database, and each child
/// keeps it.
pub const OAUTH_TOKEN_PREFIX: &str = "oa_";

/// The client and scopes of a session of the OAuth 2.1 server, carried in its access tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthGrant {
    pub client_id: Uuid,
    pub scope: String,
}

/// A new algorithm-1 refresh token, of an OAuth client's session or not.
fn v1_token(oauth: bool) -> String {
    let token = tokens::random_token(REFRESH_TOKEN_LEN);
    if oauth {
        format!("{OAUTH_TOKEN_PREFIX}{token}")
    } else {
        token
    }
}

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

/// A new session's id and first refresh token, with the key (as stored) that signs it under
/// algorithm 2.
fn new_session(state: &AuthState) -> (Issued, Option<String>) {
    let session_id = Uuid::new_v4();
    if state.config().refresh_token_algorithm_version >= 2 {
        let (key, stored) = refresh_token::new_key();
        let refresh_token = refresh_token::encode(session_id, 0, &key);
        (Issued { session_id, refresh_token }, Some(stored))
    } else {
        (Issued { session_id, refresh_token: tokens::random_token(REFRESH_TOKEN_LEN) }, None)
    }
}

/// Start a session for `user` signed in by `method` (`password`, `otp`, `pkce`...).
pub async fn create(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    user_id: Uuid,
    method: &str,
    client: &ClientInfo,
) -> Result<Issued, AuthError> {
    let (issued, key) = new_session(state);
    db.cached_execute(
        "select auth.start_session($1, $2, $3, $4, $5, $6, $7)",
        &[&user_id, &issued.session_id, &method, &issued.refresh_token, &client.user_agent, &client.ip, &key],
    )
    .await?;
    Ok(issued)
}

/// A sign-in whose credentials were checked, in one round trip: the session, the user's sign-in
/// time and the `login` audit row (with `traits`), then the `Session` object.
pub async fn sign_in(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    user: User,
    method: &str,
    client: &ClientInfo,
    ip: &str,
    traits: Value,
) -> Result<Value, AuthError> {
    let (issued, key) = new_session(state);
    grant(state, db, user, method, client, ip, traits, (issued, key), None).await
}

/// A sign-in of `user` by an OAuth client's code exchange: a session of algorithm 1 whose refresh
/// tokens carry [`OAUTH_TOKEN_PREFIX`], tied to the client and its scopes, with the `login` audit
/// row; its access token names the client (`client_id`, `scope`).
#[allow(clippy::too_many_arguments)]
pub async fn sign_in_for_client(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    user: User,
    method: &str,
    client: &ClientInfo,
    ip: &str,
    traits: Value,
    oauth: &OAuthGrant,
) -> Result<Value, AuthError> {
    let issued = Issued { session_id: Uuid::new_v4(), refresh_token: v1_token(true) };
    grant(state, db, user, method, client, ip, traits, (issued, None), Some(oauth)).await
}

/// The session of a sign-in, its audit row and its `Session` object.
#[allow(clippy::too_many_arguments)]
async fn grant(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    mut user: User,
    method: &str,
    client: &ClientInfo,
    ip: &str,
    traits: Value,
    (issued, key): (Issued, Option<String>),
    oauth: Option<&OAuthGrant>,
) -> Result<Value, AuthError> {
    let row = db
        .cached_query_one(
            "select o_aal, o_amr, o_signed_in_at from auth.grant_session($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[
                &user.id,
                &issued.session_id,
                &method,
                &issued.refresh_token,
                &client.user_agent,
                &client.ip,
                &ip,
                &traits,
                &key,
            ],
        )
        .await?;
    // What the grant wrote on the user, without reading the user again.
    let signed_in_at: DateTime<Utc> = row.get(2);
    user.last_sign_in_at = Some(signed_in_at);
    user.updated_at = signed_in_at;
    if let Some(oauth) = oauth {
        db.cached_execute(
            "update auth.sessions set oauth_client_id = $2, scopes = $3 where id = $1",
            &[&issued.session_id, &oauth.client_id, &oauth.scope],
        )
        .await?;
    }
    response_with(state, &user, &issued, row.get(0), amr_of(row.get(1)), oauth, method).await
}

/// The `Session` object: access token, refresh token, expiry and user.
pub async fn response(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    user: &User,
    issued: &Issued,
) -> Result<Value, AuthError> {
    let row = db.cached_query_one("select o_aal, o_amr from auth.session_aal_amr($1)", &[&issued.session_id]).await?;
    let amr = amr_of(row.get(1));
    // The session's latest method (`auth.session_aal_amr` orders them newest first).
    let method = amr.first().map(|a| a.method.clone()).unwrap_or_else(|| "password".into());
    response_with(state, user, issued, row.get(0), amr, None, &method).await
}

/// The methods of `auth.session_aal_amr`'s JSON.
fn amr_of(json: Value) -> Vec<Amr> {
    serde_json::from_value(json).unwrap_or_default()
}

/// The `Session` object for a session whose AAL and methods are known; `method` is how this
/// token was earned (`password`, `otp`, `token_refresh`…), for the custom-access-token hook.
async fn response_with(
    state: &AuthState,
    user: &User,
    issued: &Issued,
    aal: String,
    amr: Vec<Amr>,
    oauth: Option<&OAuthGrant>,
    method: &str,
) -> Result<Value, AuthError> {
    let now = Utc::now().timestamp();
    let exp = now + state.config().jwt_exp as i64;
    let mut claims = user.access_claims(&state.issuer, now, exp, aal, amr, issued.session_id.to_string());
    claims.client_id = oauth.map(|o| o.client_id.to_string());
    claims.scope = oauth.map(|o| o.scope.clone());
    let access_token = if state.hooks().custom_access_token.is_some() {
        let claims = serde_json::to_value(&claims).map_err(AuthError::internal)?;
        let claims = super::hooks::custom_access_token(state, user.id, claims, method).await?;
        state.signing_keys.sign(&claims, &state.encoding_key).map_err(AuthError::internal)?
    } else {
        state.signing_keys.sign(&claims, &state.encoding_key).map_err(AuthError::internal)?
    };
    // Built field by field: `json!` would copy the user's JSON (it serializes what it is given
    // by reference), a deep copy of its metadata and identities on every grant.
    let mut session = serde_json::Map::with_capacity(6);
    session.insert("access_token".into(), Value::String(access_token));
    session.insert("token_type".into(), Value::from("bearer"));
    session.insert("expires_in".into(), Value::from(state.config().jwt_exp));
    session.insert("expires_at".into(), Value::from(exp));
    session.insert("refresh_token".into(), Value::String(issued.refresh_token.clone()));
    session.insert("user".into(), user.to_json());
    Ok(Value::Object(session))
}

/// The refresh-token grant of algorithm 1 as one statement (`auth.grant_refresh`, rate limit and
/// audit row included) joined to the user it signs in. (Its common case written as plain SQL,
/// as for algorithm 2, measured no cheaper: its cost is its two token writes with six indexes
/// each, not PL/pgSQL.)
static REFRESH: LazyLock<String> = LazyLock::new(|| {
    format!(
        "select g.o_outcome, g.o_session, g.o_token, g.o_aal, g.o_amr, {} \
         from auth.grant_refresh($1, $2, $3, $4, $5, $6, $7) g left join auth.users u on u.id = g.o_user",
        users::COLUMNS
    )
});

/// The whole grant of an algorithm-2 token as one statement, joined to the user it signs in:
/// every case, where [`REFRESH_V2_CURRENT`] takes only the common one.
static REFRESH_V2: LazyLock<String> = LazyLock::new(|| {
    format!(
        "select g.o_outcome, g.o_counter, g.o_key, g.o_aal, g.o_amr, {} \
         from auth.grant_refresh_v2($1, $2, $3, $4, $5, $6, $7, $8, $9) g left join auth.users u on u.id = g.o_user",
        users::COLUMNS
    )
});

/// The common grant of an algorithm-2 token, the session's current one, as one plain statement
/// (no PL/pgSQL, which starts an executor for each statement it runs): count the rate-limit hit
/// when there is a limit ($7 > 0); advance the counter only if it is the presented one, the
/// signature is the session's, the session is not over, the user not banned and the limit not
/// exceeded; write the audit row; answer the hits, the new counter and key, the AAL/AMR and the
/// user. Nothing granted (`counter` null) means one of the rarer cases (a retry, a reuse, a
/// forgery, a ban, a race with another tab), which `auth.grant_refresh_v2` then sorts out.
/// Parameters: session, counter, signed bytes, signature, IP, limit key, limit, window.
static REFRESH_V2_CURRENT: LazyLock<String> = LazyLock::new(|| {
    format!(
        "with hit as (select case when $7 > 0 then auth.count_hit($6, $8) else 0 end as n), \
         granted as ( \
           update auth.sessions ss \
              set refresh_token_counter = ss.refresh_token_counter + 1, \
                  refreshed_at = now() at time zone 'utc', updated_at = now() \
             from auth.users uu, hit \
            where ss.id = $1 and ss.refresh_token_counter = $2 and ss.refresh_token_hmac_key is not null \
              and (ss.not_after is null or ss.not_after > now()) \
              and uu.id = ss.user_id and (uu.banned_until is null or uu.banned_until <= now()) \
              and ($7 <= 0 or hit.n <= $7) \
              and substr(extensions.hmac($3, decode(ss.refresh_token_hmac_key, 'base64'), 'sha256'), 1, 16) = $4 \
           returning ss.user_id, uu.email, ss.aal, ss.refresh_token_counter, ss.refresh_token_hmac_key), \
         audit as ( \
           insert into auth.audit_log_entries (instance_id, id, payload, created_at, ip_address) \
           select '00000000-0000-0000-0000-000000000000', gen_random_uuid(), \
             jsonb_build_object('actor_id', g.user_id::text, 'actor_username', coalesce(g.email, ''), \
               'actor_via_sso', false, 'action', 'token_refreshed', 'log_type', 'token', 'traits', '{{}}'::jsonb)::json, \
             now(), coalesce($5, '') from granted g) \
         select hit.n as hits, g.refresh_token_counter as counter, g.refresh_token_hmac_key as key, \
           coalesce(g.aal::text, 'aal1') as aal, \
           (select coalesce(json_agg(json_build_object('method', c.authentication_method, \
              'timestamp', coalesce(extract(epoch from c.updated_at)::bigint, 0)) order by c.updated_at desc), '[]') \
              from auth.mfa_amr_claims c where c.session_id = $1 and c.authentication_method is not null) as amr, \
           {} \
         from hit left join granted g on true left join auth.users u on u.id = g.user_id",
        users::COLUMNS
    )
});

/// Present a refresh token (rate-limited under `limit_key`): the `Session` object, or why not.
/// The common case, the current token, is granted with whatever other refreshes are queued at
/// the same time ([`super::refresh_batch`]): one statement and one commit for all of them. When
/// that grants nothing, the grant function of the token's algorithm decides in a second round
/// trip, with the rate-limit hit already counted; when the batch failed as a whole, this grant
/// runs alone: [`REFRESH_V2_CURRENT`] for algorithm 2, `auth.grant_refresh` for algorithm 1.
///
/// The refresh token of an OAuth client's session is refused here, as GoTrue refuses it at
/// `/token`: only its client may present it, at `/oauth/token` ([`refresh_for_client`]).
pub async fn refresh(state: &AuthState, token: &str, ip: &str, limit_key: &str) -> Result<Value, AuthError> {
    if token.starts_with(OAUTH_TOKEN_PREFIX) {
        return Err(AuthError::OAuth("invalid_client", "Client authentication required for OAuth session".into()));
    }
    refresh_as(state, token, ip, limit_key, None).await
}

/// The refresh grant of `/oauth/token`: the token of a session granted to the client that
/// authenticated (its caller checked that), whose access token names the client again.
pub async fn refresh_for_client(
    state: &AuthState,
    token: &str,
    ip: &str,
    limit_key: &str,
    oauth: &OAuthGrant,
) -> Result<Value, AuthError> {
    refresh_as(state, token, ip, limit_key, Some(oauth)).await
}

/// The client and scopes of the session a refresh token of an OAuth client belongs to (the
/// token may be spent: its grant decides that); `None` for a token no session knows.
pub async fn oauth_grant_of(db: &impl crate::db::cached::Db, token: &str) -> Result<Option<OAuthGrant>, AuthError> {
    let row = db
        .cached_query_opt(
            "select s.oauth_client_id, s.scopes from auth.refresh_tokens t join auth.sessions s on s.id = t.session_id \
             where t.token = $1 and s.oauth_client_id is not null",
            &[&token],
        )
        .await?;
    Ok(row.map(|row| OAuthGrant { client_id: row.get(0), scope: row.get::<_, Option<String>>(1).unwrap_or_default() }))
}

/// The scopes of a session granted to an OAuth client; `None` for any other session.
pub async fn oauth_scopes_of(db: &impl crate::db::cached::Db, session_id: Uuid) -> Result<Option<String>, AuthError> {
    let row = db
        .cached_query_opt(
            "select scopes from auth.sessions where id = $1 and oauth_client_id is not null",
            &[&session_id],
        )
        .await?;
    Ok(row.and_then(|row| row.get(0)))
}

async fn refresh_as(
    state: &AuthState,
    token: &str,
    ip: &str,
    limit_key: &str,
    oauth: Option<&OAuthGrant>,
) -> Result<Value, AuthError> {
    let reuse_interval = state.config().refresh_token_reuse_interval as f64;
    let limit = i32::try_from(state.config().rate_limit_token_refresh).unwrap_or(i32::MAX);
    let window = super::rate_limit::IP_WINDOW_SECS as f64;
    if token.contains('\0') {
        // Postgres refuses it in text (the answer it gave as a data exception, without the trip):
        // in a batch it would fail every grant with it.
        return Err(AuthError::Validation("Invalid input: the request holds a value the database cannot store".into()));
    }
    if let Some(parsed) = refresh_token::parse(token) {
        let grant = Grant::V2 {
            session: parsed.session_id,
            counter: parsed.counter,
            signed: parsed.signed.clone(),
            signature: parsed.signature.clone(),
        };
        let current = match state.refresh_batch.grant(grant, ip, limit_key).await {
            Outcome::Row(row) => row,
            Outcome::Failed => {
                let params: [&(dyn ToSql + Sync); 8] = [
                    &parsed.session_id,
                    &parsed.counter,
                    &parsed.signed,
                    &parsed.signature,
                    &ip,
                    &limit_key,
                    &limit,
                    &window,
                ];
                state.pool.get().await?.cached_query_one(REFRESH_V2_CURRENT.as_str(), &params).await?
            }
        };
        if limit > 0 && current.get::<_, i32>("hits") > limit {
            return Err(AuthError::OverRequestRateLimit);
        }
        if let Some(counter) = current.get::<_, Option<i64>>("counter") {
            let refresh_token = sign_stored(parsed.session_id, counter, current.get("key"))?;
            let user = User::from_row(&current);
            let issued = Issued { session_id: parsed.session_id, refresh_token };
            return response_with(
                state,
                &user,
                &issued,
                current.get("aal"),
                amr_of(current.get("amr")),
                oauth,
                "token_refresh",
            )
            .await;
        }
        // Not the current token, or not granted for another reason: the function decides, the
        // hit already counted.
        let row = state
            .pool
            .get()
            .await?
            .cached_query_one(
                REFRESH_V2.as_str(),
                &[
                    &parsed.session_id,
                    &parsed.counter,
                    &parsed.signed,
                    &parsed.signature,
                    &reuse_interval,
                    &ip,
                    &limit_key,
                    &0i32,
                    &window,
                ],
            )
            .await?;
        check_outcome(row.get(0))?;
        let refresh_token = sign_stored(parsed.session_id, row.get(1), row.get(2))?;
        let user = User::from_row(&row);
        let issued = Issued { session_id: parsed.session_id, refresh_token };
        return response_with(state, &user, &issued, row.get(3), amr_of(row.get(4)), oauth, "token_refresh").await;
    }
    let grant = Grant::V1 { token: token.to_string(), new_token: v1_token(oauth.is_some()) };
    // Counted already when the batch answered; counted by the function when it did not.
    let limit = match state.refresh_batch.grant(grant, ip, limit_key).await {
        Outcome::Row(row) => {
            if limit > 0 && row.get::<_, i32>("hits") > limit {
                return Err(AuthError::OverRequestRateLimit);
            }
            if let Some(session_id) = row.get::<_, Option<Uuid>>("session") {
                let user = User::from_row(&row);
                let issued = Issued { session_id, refresh_token: row.get("token") };
                return response_with(
                    state,
                    &user,
                    &issued,
                    row.get("aal"),
                    amr_of(row.get("amr")),
                    oauth,
                    "token_refresh",
                )
                .await;
            }
            0
        }
        Outcome::Failed => limit,
    };
    let new_token = v1_token(oauth.is_some());
    let row = state
        .pool
        .get()
        .await?
        .cached_query_one(REFRESH.as_str(), &[&token, &new_token, &reuse_interval, &ip, &limit_key, &limit, &window])
        .await?;
    check_outcome(row.get(0))?;
    let user = User::from_row(&row);
    let issued = Issued { session_id: row.get(1), refresh_token: row.get(2) };
    response_with(state, &user, &issued, row.get(3), amr_of(row.get(4)), oauth, "token_refresh").await
}

/// The algorithm-2 token for `counter` of `session_id`, signed with the session's stored key.
fn sign_stored(session_id: Uuid, counter: i64, key: &str) -> Result<String, AuthError> {
    let key = refresh_token::stored_key(key)
        .ok_or_else(|| AuthError::internal(format!("session {session_id} has a key that is not base64")))?;
    Ok(refresh_token::encode(session_id, counter, &key))
}

/// The error a grant's outcome stands for, if any.
fn check_outcome(outcome: &str) -> Result<(), AuthError> {
    match outcome {
        "refreshed" | "reused" => Ok(()),
        "rate_limited" => Err(AuthError::OverRequestRateLimit),
        "banned" => Err(AuthError::UserBanned),
        "already_used" => Err(AuthError::RefreshTokenAlreadyUsed),
        "not_issued" => Err(AuthError::Validation("Invalid Refresh Token: Not Issued By This Server".into())),
        _ => Err(AuthError::RefreshTokenNotFound),
    }
}

/// A new refresh token for a session whose assurance level just rose: the next counter of an
/// algorithm-2 session, or, for one of algorithm 1, a new token row with the others revoked.
pub async fn reissue(db: &impl crate::db::cached::Db, user_id: Uuid, session_id: Uuid) -> Result<String, AuthError> {
    let bumped = db
        .cached_query_opt(
            "update auth.sessions set refresh_token_counter = refresh_token_counter + 1, updated_at = now() \
             where id = $1 and refresh_token_hmac_key is not null and refresh_token_counter is not null \
             returning refresh_token_counter, refresh_token_hmac_key",
            &[&session_id],
        )
        .await?;
    if let Some(row) = bumped {
        return sign_stored(session_id, row.get(0), row.get(1));
    }
    // A session of an OAuth client keeps tokens that only its client may present.
    let oauth = db
        .cached_query(
            "update auth.refresh_tokens set revoked = true, updated_at = now() where session_id = $1 and not revoked \
             returning (select oauth_client_id is not null from auth.sessions where id = $1)",
            &[&session_id],
        )
        .await?
        .first()
        .and_then(|row| row.get::<_, Option<bool>>(0))
        .unwrap_or(false);
    let refresh_token = v1_token(oauth);
    db.cached_execute(
        "insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id) \
         values ('00000000-0000-0000-0000-000000000000', $1, $2, false, now(), now(), $3)",
        &[&refresh_token, &user_id.to_string(), &session_id],
    )
    .await?;
    Ok(refresh_token)
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
