//! Short-lived access tokens the dashboard mints to act as an app user or as anon: the realtime
//! inspector hands one to the page (to join channels as that caller), the functions screen
//! sends one with an invocation it makes itself. A user's token carries the claims the auth
//! surface gives at sign-in (`User::access_claims`, no session id) and is signed with the
//! current signing key; anon's carries the `anon` role only. Never a `service_role` token: the
//! dashboard does not let the browser hold anything that bypasses row-level security.

use serde::Deserialize;
use uuid::Uuid;

use super::error::StudioError;
use crate::state::AppState;

/// How long a minted token lives, in seconds (the inspector asks again when it reconnects).
pub const LIFETIME_SECS: i64 = 600;

/// Who a minted token speaks for: `"anon"` or `{"user": "<uuid>"}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Caller {
    Anon,
    User(Uuid),
}

/// A minted token and what the screen shows of it.
pub struct Minted {
    pub token: String,
    pub role: String,
    pub sub: Option<Uuid>,
    /// Unix seconds.
    pub expires_at: i64,
}

impl Minted {
    /// The audit row's target: `user:<id>` or `anon`.
    pub fn subject(&self) -> String {
        match self.sub {
            Some(id) => format!("user:{id}"),
            None => "anon".into(),
        }
    }
}

/// The claims of anon's token.
pub fn anon_claims(issuer: &str, now: i64) -> serde_json::Value {
    serde_json::json!({ "iss": issuer, "role": "anon", "iat": now, "exp": now + LIFETIME_SECS })
}

/// Mint a token for `caller` (a user who does not exist, or was deleted, is `NotFound`).
pub async fn mint(state: &AppState, caller: &Caller) -> Result<Minted, StudioError> {
    let now = chrono::Utc::now().timestamp();
    let exp = now + LIFETIME_SECS;
    let auth = &state.auth;
    let (claims, role, sub) = match caller {
        Caller::Anon => (anon_claims(&auth.issuer, now), "anon".to_string(), None),
        Caller::User(id) => {
            let client = state.pools.admin.get().await?;
            let user = crate::auth::users::by_id(&client, *id)
                .await
                .map_err(StudioError::internal)?
                .filter(|u| u.deleted_at.is_none())
                .ok_or_else(|| StudioError::NotFound("No such user".into()))?;
            let claims = user.access_claims(&auth.issuer, now, exp, "aal1".into(), Vec::new(), String::new());
            let claims = serde_json::to_value(claims).map_err(StudioError::internal)?;
            let role = claims.get("role").and_then(|r| r.as_str()).unwrap_or("authenticated").to_string();
            (claims, role, Some(*id))
        }
    };
    let token = auth.signing_keys.sign(&claims, &auth.encoding_key).map_err(StudioError::internal)?;
    Ok(Minted { token, role, sub, expires_at: exp })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callers_read_as_the_screens_send_them() {
        assert_eq!(serde_json::from_str::<Caller>(r#""anon""#).ok(), Some(Caller::Anon));
        let id = Uuid::nil();
        assert_eq!(serde_json::from_str::<Caller>(&format!(r#"{{"user":"{id}"}}"#)).ok(), Some(Caller::User(id)));
        assert!(serde_json::from_str::<Caller>(r#""service_role""#).is_err());
        assert!(serde_json::from_str::<Caller>(r#"{"user":"not-a-uuid"}"#).is_err());
    }

    #[test]
    fn anon_tokens_are_short_lived_and_only_anon() {
        let claims = anon_claims("http://x/auth/v1", 1000);
        assert_eq!(claims["role"], "anon");
        assert_eq!(claims["exp"], 1000 + LIFETIME_SECS);
        assert!(claims.get("sub").is_none());
    }
}
