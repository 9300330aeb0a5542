//! Who a realtime client is, and what a private channel lets it do.
//!
//! Tokens are verified by the same verifier as the other surfaces and must carry `role` and
//! `exp`, as Supabase Realtime requires. A private channel's rights come from the
//! row-level-security policies of `realtime.messages`, evaluated as the caller with
//! `realtime.topic()` set: probe messages (one per extension) are inserted as `authenticator`,
//! then selected as the caller (read rights) and inserted again as the caller inside savepoints
//! (write rights); the transaction is always rolled back, so nothing is kept or announced.

use crate::db::cached::CachedQueries;
use serde_json::Value;

use super::error::TokenError;
use crate::db::context::{Caller, ContextValues, RequestInfo, SET_CONTEXT};
use crate::db::Pools;
use crate::gate::Gate;

/// A verified token: who calls, and until when.
#[derive(Debug, Clone)]
pub struct Token {
    pub caller: Caller,
    /// `exp`, seconds since the epoch.
    pub exp: i64,
}

/// Seconds since the epoch.
pub fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Verify a token (an API key or a user's access token).
pub fn verify(gate: &Gate, token: &str) -> Result<Token, TokenError> {
    let token = token.trim();
    if token.is_empty() {
        return Err(TokenError::Missing);
    }
    let claims = gate.verifier.verify(token).map_err(|err| match err {
        crate::jwt::JwtError::Expired => TokenError::Expired(expired_for(token)),
        jwt => TokenError::from_jwt(&jwt),
    })?;
    // `role` is required as given in the token (the other surfaces fall back to the anonymous
    // role), and must be one a client may run as, not the login role the server connects with.
    if claims.get("role").and_then(Value::as_str).is_none_or(str::is_empty) {
        return Err(TokenError::MissingClaims);
    }
    let caller = gate.caller(claims).map_err(|_| TokenError::MissingClaims)?;
    if caller.role == "authenticator" {
        return Err(TokenError::UnusableRole(caller.role));
    }
    let exp = caller.claims.get("exp").and_then(Value::as_f64).ok_or(TokenError::MissingClaims)? as i64;
    let now = now();
    if exp <= now {
        return Err(TokenError::Expired(now.saturating_sub(exp)));
    }
    Ok(Token { caller, exp })
}

/// Seconds since an expired token's `exp`, read from its payload (the signature was checked
/// before it was found expired; this only words the refusal).
fn expired_for(token: &str) -> i64 {
    use base64::Engine;
    let exp = token
        .split('.')
        .nth(1)
        .and_then(|payload| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok())
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .and_then(|claims| claims.get("exp").and_then(Value::as_f64));
    // `exp` is any JSON number here (-1e300 included): saturate rather than overflow.
    exp.map_or(0, |exp| now().saturating_sub(exp as i64).max(0))
}

/// What a private channel allows its caller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Policies {
    pub read_broadcast: bool,
    pub read_presence: bool,
    pub write_broadcast: bool,
    pub write_presence: bool,
}

impl Policies {
    /// Everything (public channels).
    pub fn all() -> Policies {
        Policies { read_broadcast: true, read_presence: true, write_broadcast: true, write_presence: true }
    }

    /// Whether the channel may be joined at all.
    pub fn can_join(&self) -> bool {
        self.read_broadcast || self.read_presence
    }
}

/// The rights `caller` has on the private topic `topic` (without its `realtime:` prefix).
pub async fn policies(pools: &Pools, caller: &Caller, topic: &str) -> Result<Policies, tokio_postgres::Error> {
    let mut client = match pools.request.get().await {
        Ok(client) => client,
        Err(err) => {
            tracing::warn!(error = %err, "realtime: no database connection to authorize a private channel");
            return Ok(Policies::default());
        }
    };
    let tx = client.transaction().await?;
    let probes: Vec<uuid::Uuid> = tx.cached_query_one("select realtime.probe($1)", &[&topic]).await?.get(0);
    let request = RequestInfo {
        method: "GET".into(),
        path: "/realtime/v1/websocket".into(),
        headers: serde_json::json!({}),
        settings: vec![("realtime.topic".into(), topic.to_string())],
    };
    let values = ContextValues::of(caller, &request);
    tx.cached_query_one(SET_CONTEXT, &values.params()).await?;
    let mut rights = Policies::default();
    for row in tx.cached_query("select extension from realtime.messages where id = any($1)", &[&probes]).await? {
        match row.get::<_, &str>(0) {
            "broadcast" => rights.read_broadcast = true,
            "presence" => rights.read_presence = true,
            _ => {}
        }
    }
    for (extension, right) in [("broadcast", &mut rights.write_broadcast), ("presence", &mut rights.write_presence)] {
        tx.batch_execute("savepoint write_check").await?;
        let inserted = tx
            .cached_execute(
                "insert into realtime.messages (topic, extension, event, private) values ($1, $2, 'probe', true)",
                &[&topic, &extension],
            )
            .await;
        match inserted {
            Ok(_) => *right = true,
            Err(err) if err.code().is_some_and(|c| c.code().starts_with("42")) => {}
            Err(err) => return Err(err),
        }
        tx.batch_execute("rollback to savepoint write_check").await?;
    }
    tx.rollback().await?;
    Ok(rights)
}
