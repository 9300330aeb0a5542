//! Sessions and refresh tokens: creation at sign-in, rotation at refresh, ending at logout, and
//! the `Session` object (access token response) GoTrue returns.
//!
//! A refresh token is used once: using it revokes it and issues a child. Presenting a revoked
//! token again inside the reuse interval answers with the session's current token (a client
//! that lost a response can recover); outside it, every token of the session is revoked and the
//! request fails with `refresh_token_already_used`. This module does not check passwords.

use crate::db::cached::CachedQueries;
use chrono::Utc;
use deadpool_postgres::GenericClient;
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
    db: &impl GenericClient,
    user_id: Uuid,
    method: &str,
    client: &ClientInfo,
) -> Result<Issued, AuthError> {
    let session_id = Uuid::new_v4();
    db.cached_execute(
        "insert into auth.sessions (id, user_id, created_at, updated_at, aal, refreshed_at, user_agent, ip) \
         values ($1, $2, now(), now(), 'aal1', now() at time zone 'utc', $3, $4::text::inet)",
        &[&session_id, &user_id, &client.user_agent, &client.ip],
    )
    .await?;
    db.cached_execute(
        "insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id) \
         values ($1, now(), now(), $2, $3)",
        &[&session_id, &method, &Uuid::new_v4()],
    )
    .await?;
    let refresh_token = insert_refresh_token(db, user_id, session_id, None).await?;
    Ok(Issued { session_id, refresh_token })
}

async fn insert_refresh_token(
    db: &impl GenericClient,
    user_id: Uuid,
    session_id: Uuid,
    parent: Option<&str>,
) -> Result<String, AuthError> {
    let token = tokens::random_token(REFRESH_TOKEN_LEN);
    db.cached_execute(
        "insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id) \
         values ('00000000-0000-0000-0000-000000000000', $1, $2, false, now(), now(), $3, $4)",
        &[&token, &user_id.to_string(), &parent, &session_id],
    )
    .await?;
    Ok(token)
}

/// The `Session` object: access token, refresh token, expiry and user.
pub async fn response(
    state: &AuthState,
    db: &impl GenericClient,
    user: &User,
    issued: &Issued,
) -> Result<Value, AuthError> {
    let rows = db
        .cached_query(
            "select s.aal::text, c.authentication_method, extract(epoch from c.updated_at)::bigint \
             from auth.sessions s left join auth.mfa_amr_claims c on c.session_id = s.id \
             where s.id = $1 order by c.updated_at desc",
            &[&issued.session_id],
        )
        .await?;
    let aal = rows.first().and_then(|r| r.get::<_, Option<String>>(0)).unwrap_or_else(|| "aal1".into());
    let amr = rows
        .iter()
        .filter_map(|r| {
            let method: Option<String> = r.get(1);
            method.map(|method| Amr { method, timestamp: r.get::<_, Option<i64>>(2).unwrap_or_default() })
        })
        .collect();
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
    let access_token = tokens::sign(&claims, &state.encoding_key)?;
    Ok(json!({
        "access_token": access_token,
        "token_type": "bearer",
        "expires_in": state.config.jwt_exp,
        "expires_at": exp,
        "refresh_token": issued.refresh_token,
        "user": user.to_json(),
    }))
}

/// Outcome of presenting a refresh token.
pub async fn refresh(
    state: &AuthState,
    db: &impl GenericClient,
    token: &str,
) -> Result<(User, Issued, &'static str), AuthError> {
    let row = db
        .cached_query_opt(
            "select t.id, t.user_id, t.revoked, t.session_id, extract(epoch from (now() - t.updated_at))::float8 \
             from auth.refresh_tokens t where t.token = $1 for update",
            &[&token],
        )
        .await?
        .ok_or(AuthError::RefreshTokenNotFound)?;
    let token_id: i64 = row.get(0);
    let user_id: Option<String> = row.get(1);
    let revoked: Option<bool> = row.get(2);
    let session_id: Option<Uuid> = row.get(3);
    let age: f64 = row.get::<_, Option<f64>>(4).unwrap_or_default();
    let session_id = session_id.ok_or(AuthError::RefreshTokenNotFound)?;
    let session = db
        .cached_query_opt(
            "select 1 from auth.sessions where id = $1 and (not_after is null or not_after > now())",
            &[&session_id],
        )
        .await?;
    if session.is_none() {
        return Err(AuthError::RefreshTokenNotFound);
    }
    let user_id = user_id.and_then(|u| Uuid::parse_str(&u).ok()).ok_or(AuthError::RefreshTokenNotFound)?;
    let user = users::by_id(db, user_id).await?.ok_or(AuthError::RefreshTokenNotFound)?;
    if user.is_banned() {
        return Err(AuthError::UserBanned);
    }
    if revoked.unwrap_or(false) {
        if age <= state.config.refresh_token_reuse_interval as f64 {
            // A retry shortly after rotation: hand out the session's current token again.
            let current = db
                .cached_query_opt(
                    "select token from auth.refresh_tokens where session_id = $1 and not revoked order by id desc limit 1",
                    &[&session_id],
                )
                .await?;
            if let Some(current) = current {
                return Ok((user, Issued { session_id, refresh_token: current.get(0) }, "token_refreshed"));
            }
        }
        db.cached_execute(
            "update auth.refresh_tokens set revoked = true, updated_at = now() where session_id = $1 and not revoked",
            &[&session_id],
        )
        .await?;
        return Err(AuthError::RefreshTokenAlreadyUsed);
    }
    db.cached_execute("update auth.refresh_tokens set revoked = true, updated_at = now() where id = $1", &[&token_id])
        .await?;
    let refresh_token = insert_refresh_token(db, user.id, session_id, Some(token)).await?;
    db.cached_execute(
        "update auth.sessions set refreshed_at = now() at time zone 'utc', updated_at = now() where id = $1",
        &[&session_id],
    )
    .await?;
    Ok((user, Issued { session_id, refresh_token }, "token_refreshed"))
}

/// Whether a session still exists.
pub async fn exists(db: &impl GenericClient, session_id: Uuid) -> Result<bool, AuthError> {
    Ok(db.cached_query_opt("select 1 from auth.sessions where id = $1", &[&session_id]).await?.is_some())
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
    db: &impl GenericClient,
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
