//! Verification of JWTs (API keys and user access tokens) with a small cache.
//!
//! Only HS256 tokens signed with the configured secret are accepted; `alg: none` and every
//! other algorithm are refused by construction. Verified claims are cached by token text
//! (as PostgREST does) so that verification does not dominate a request's cost; a cached
//! entry is re-checked against its `exp` on every hit. This module knows nothing of HTTP.

use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::{decode, errors::ErrorKind, Algorithm, DecodingKey, Validation};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

/// Leeway, in seconds, for clock skew between issuer and verifier (PostgREST allows 30 s).
const LEEWAY_SECS: u64 = 30;

/// Why a token was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JwtError {
    #[error("JWT expired")]
    Expired,
    #[error("invalid JWT: {0}")]
    Invalid(String),
    #[error("JWT has an invalid audience")]
    Audience,
}

/// Verifies tokens against one HS256 secret.
pub struct JwtVerifier {
    key: DecodingKey,
    validation: Validation,
    cache: moka::sync::Cache<String, Arc<Value>>,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JwtVerifier")
    }
}

impl JwtVerifier {
    /// A verifier for `secret`; `audience`, when set, must appear in the token's `aud`.
    pub fn new(secret: &SecretString, audience: Option<&str>) -> JwtVerifier {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = LEEWAY_SECS;
        validation.required_spec_claims.clear();
        validation.validate_exp = true;
        match audience {
            Some(aud) => validation.set_audience(&[aud]),
            None => validation.validate_aud = false,
        }
        JwtVerifier {
            key: DecodingKey::from_secret(secret.expose_secret().as_bytes()),
            validation,
            cache: moka::sync::Cache::builder().max_capacity(10_000).time_to_live(Duration::from_secs(300)).build(),
        }
    }

    /// The claims of a valid token.
    pub fn verify(&self, token: &str) -> Result<Arc<Value>, JwtError> {
        if let Some(claims) = self.cache.get(token) {
            check_exp(&claims)?;
            return Ok(claims);
        }
        let data = decode::<Value>(token, &self.key, &self.validation).map_err(|err| match err.kind() {
            ErrorKind::ExpiredSignature => JwtError::Expired,
            ErrorKind::InvalidAudience => JwtError::Audience,
            other => JwtError::Invalid(describe(other)),
        })?;
        if !data.claims.is_object() {
            return Err(JwtError::Invalid("claims are not a JSON object".into()));
        }
        let claims = Arc::new(data.claims);
        self.cache.insert(token.to_string(), claims.clone());
        Ok(claims)
    }
}

/// A cached token expires like a fresh one would.
fn check_exp(claims: &Value) -> Result<(), JwtError> {
    if let Some(exp) = claims.get("exp").and_then(Value::as_i64) {
        let now = chrono::Utc::now().timestamp();
        if exp + LEEWAY_SECS as i64 <= now {
            return Err(JwtError::Expired);
        }
    }
    Ok(())
}

fn describe(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::InvalidSignature => "invalid signature".into(),
        ErrorKind::InvalidAlgorithm => "signing method (alg) is unavailable".into(),
        ErrorKind::InvalidToken => "token is malformed".into(),
        ErrorKind::Base64(_) | ErrorKind::Json(_) | ErrorKind::Utf8(_) => "token is malformed".into(),
        ErrorKind::ImmatureSignature => "token is not valid yet".into(),
        _ => "token is invalid".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{encode, EncodingKey, Header};
    use serde_json::json;

    fn secret() -> SecretString {
        SecretString::from("k".repeat(40))
    }

    fn sign(claims: Value, key: &str) -> String {
        encode(&Header::default(), &claims, &EncodingKey::from_secret(key.as_bytes())).unwrap()
    }

    #[test]
    fn valid_token_is_accepted_and_cached() {
        let verifier = JwtVerifier::new(&secret(), None);
        let token = sign(json!({"role": "authenticated", "sub": "u1"}), &"k".repeat(40));
        assert_eq!(verifier.verify(&token).unwrap()["sub"], "u1");
        assert_eq!(verifier.verify(&token).unwrap()["sub"], "u1");
    }

    #[test]
    fn wrong_signature_is_refused() {
        let verifier = JwtVerifier::new(&secret(), None);
        let token = sign(json!({"role": "service_role"}), &"x".repeat(40));
        assert_eq!(verifier.verify(&token), Err(JwtError::Invalid("invalid signature".into())));
    }

    #[test]
    fn expired_token_is_refused() {
        let verifier = JwtVerifier::new(&secret(), None);
        let token = sign(json!({"role": "anon", "exp": 1000}), &"k".repeat(40));
        assert_eq!(verifier.verify(&token), Err(JwtError::Expired));
    }

    #[test]
    fn alg_none_is_refused() {
        let verifier = JwtVerifier::new(&secret(), None);
        // {"alg":"none","typ":"JWT"} . {"role":"service_role"} . (empty signature)
        let token = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.";
        assert!(matches!(verifier.verify(token), Err(JwtError::Invalid(_))));
    }

    #[test]
    fn audience_is_checked_when_configured() {
        let verifier = JwtVerifier::new(&secret(), Some("authenticated"));
        let token = sign(json!({"role": "anon", "aud": "other"}), &"k".repeat(40));
        assert_eq!(verifier.verify(&token), Err(JwtError::Audience));
    }
}
