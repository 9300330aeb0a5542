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
    #[error("{0}")]
    Claims(ClaimError),
}

/// A time claim that is not acceptable (checked as strictly as PostgREST does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ClaimError {
    #[error("JWT not yet valid")]
    NotYetValid,
    #[error("JWT issued at future")]
    IssuedAtFuture,
    /// `exp`, `nbf` or `iat` is present but not a number.
    #[error("The JWT '{0}' claim must be a number")]
    NotNumber(&'static str),
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
        Self::with_key(secret.expose_secret().as_bytes(), audience)
    }

    /// A verifier for the secret's raw bytes (a base64 secret once decoded).
    pub fn with_key(secret: &[u8], audience: Option<&str>) -> JwtVerifier {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = LEEWAY_SECS;
        validation.required_spec_claims.clear();
        validation.validate_exp = true;
        // nbf and iat are checked by `check_times`, which names the claim as PostgREST does.
        validation.validate_nbf = false;
        match audience {
            Some(aud) => validation.set_audience(&[aud]),
            None => validation.validate_aud = false,
        }
        JwtVerifier {
            key: DecodingKey::from_secret(secret),
            validation,
            cache: moka::sync::Cache::builder().max_capacity(10_000).time_to_live(Duration::from_secs(300)).build(),
        }
    }

    /// The claims of a valid token.
    pub fn verify(&self, token: &str) -> Result<Arc<Value>, JwtError> {
        if let Some(claims) = self.cache.get(token) {
            check_times(&claims)?;
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
        check_times(&data.claims)?;
        let claims = Arc::new(data.claims);
        self.cache.insert(token.to_string(), claims.clone());
        Ok(claims)
    }
}

/// `exp`, `nbf` and `iat`, when present, must be numbers; the token must not be expired, not
/// yet valid, or issued in the future (each with `LEEWAY_SECS` of clock skew). Checked on every
/// use, cached or not.
fn check_times(claims: &Value) -> Result<(), JwtError> {
    let number = |name: &'static str| -> Result<Option<f64>, JwtError> {
        match claims.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(_) => Err(JwtError::Claims(ClaimError::NotNumber(name))),
        }
    };
    let now = chrono::Utc::now().timestamp() as f64;
    let skew = LEEWAY_SECS as f64;
    if number("exp")?.is_some_and(|exp| exp + skew <= now) {
        return Err(JwtError::Expired);
    }
    if number("nbf")?.is_some_and(|nbf| nbf - skew > now) {
        return Err(JwtError::Claims(ClaimError::NotYetValid));
    }
    if number("iat")?.is_some_and(|iat| iat - skew > now) {
        return Err(JwtError::Claims(ClaimError::IssuedAtFuture));
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
        ErrorKind::ExpiredSignature => "token is expired".into(),
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
    fn time_claims_must_be_numbers_and_not_in_the_future() {
        let verifier = JwtVerifier::new(&secret(), None);
        let key = "k".repeat(40);
        let later = chrono::Utc::now().timestamp() + 3600;
        let token = sign(json!({"role": "anon", "nbf": later}), &key);
        assert_eq!(verifier.verify(&token), Err(JwtError::Claims(ClaimError::NotYetValid)));
        let token = sign(json!({"role": "anon", "iat": later}), &key);
        assert_eq!(verifier.verify(&token), Err(JwtError::Claims(ClaimError::IssuedAtFuture)));
        let token = sign(json!({"role": "anon", "exp": "1"}), &key);
        assert!(verifier.verify(&token).is_err());
        let token = sign(json!({"role": "anon", "iat": "yesterday"}), &key);
        assert_eq!(verifier.verify(&token), Err(JwtError::Claims(ClaimError::NotNumber("iat"))));
        // Within the clock skew, a token issued "now" by a slightly fast clock is fine.
        let token = sign(json!({"role": "anon", "iat": chrono::Utc::now().timestamp() + 5}), &key);
        assert!(verifier.verify(&token).is_ok());
    }

    #[test]
    fn audience_is_checked_when_configured() {
        let verifier = JwtVerifier::new(&secret(), Some("authenticated"));
        let token = sign(json!({"role": "anon", "aud": "other"}), &"k".repeat(40));
        assert_eq!(verifier.verify(&token), Err(JwtError::Audience));
    }
}
