//! Verification of JWTs and API keys (user access tokens, the legacy anon / service_role JWTs,
//! the `sb_publishable_…` / `sb_secret_…` keys) with a small cache.
//!
//! HS256 tokens verify with the configured secret; ES256 and RS256 tokens with the signing key
//! their `kid` names (`signing_keys`), when the verifier has the key set; `alg: none` and every
//! other algorithm are refused by construction. `PGRST_JWT_SECRET` may also be a JWK or a JWKS
//! (as PostgREST accepts it): its keys verify the tokens whose algorithm their type allows,
//! chosen by `kid` when both name one. An opaque API key stands for the claims of its
//! role. Verified claims are cached by token text (as PostgREST does) so that verification does
//! not dominate a request's cost; a cached entry is re-checked against its `exp` on every hit,
//! and the whole cache is dropped when a signing key is revoked. This module knows nothing of HTTP.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, JwkSet};
use jsonwebtoken::{decode, decode_header, errors::ErrorKind, Algorithm, DecodingKey, Validation};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use crate::keys::ApiKeys;
use crate::signing_keys::SigningKeys;

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
    /// An `sb_publishable_…` / `sb_secret_…` key this server did not issue.
    #[error("Invalid API key")]
    UnknownApiKey,
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

/// Verifies tokens against one HS256 secret, and optionally the signing keys and API keys.
pub struct JwtVerifier {
    key: DecodingKey,
    validation: Validation,
    /// The asymmetric keys, with the validations of ES256 and RS256.
    signing: Option<(Arc<SigningKeys>, Validation, Validation)>,
    api_keys: Option<Arc<ApiKeys>>,
    /// The keys of a JWK / JWKS given as `PGRST_JWT_SECRET`, tried before the others.
    configured: Vec<ConfiguredKey>,
    /// `SigningKeys::revocations` when the cache was last emptied.
    revocations_seen: AtomicU64,
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
        JwtVerifier {
            key: DecodingKey::from_secret(secret),
            validation: validation(Algorithm::HS256, audience),
            signing: None,
            api_keys: None,
            configured: Vec::new(),
            revocations_seen: AtomicU64::new(0),
            cache: moka::sync::Cache::builder().max_capacity(10_000).time_to_live(Duration::from_secs(300)).build(),
        }
    }

    /// Also accept ES256 / RS256 tokens signed by `keys` (the audience rule stays the same).
    pub fn with_signing_keys(mut self, keys: Arc<SigningKeys>) -> JwtVerifier {
        let audience = self.validation.aud.as_ref().and_then(|set| set.iter().next().cloned());
        let es = validation(Algorithm::ES256, audience.as_deref());
        let rs = validation(Algorithm::RS256, audience.as_deref());
        self.revocations_seen = AtomicU64::new(keys.revocations());
        self.signing = Some((keys, es, rs));
        self
    }

    /// Also accept the opaque API keys (`sb_publishable_…`, `sb_secret_…`).
    pub fn with_api_keys(mut self, keys: Arc<ApiKeys>) -> JwtVerifier {
        self.api_keys = Some(keys);
        self
    }

    /// Also accept tokens signed by the keys of a JWK or JWKS (`PGRST_JWT_SECRET` given as JSON).
    pub fn with_configured_keys(mut self, keys: Vec<ConfiguredKey>) -> JwtVerifier {
        self.configured = keys;
        self
    }

    /// The claims of a valid token.
    pub fn verify(&self, token: &str) -> Result<Arc<Value>, JwtError> {
        if let Some((keys, _, _)) = &self.signing {
            // A load on every request; the write only when a revocation happened since.
            let revocations = keys.revocations();
            if self.revocations_seen.load(Ordering::Acquire) != revocations
                && self.revocations_seen.swap(revocations, Ordering::AcqRel) != revocations
            {
                self.cache.invalidate_all();
            }
        }
        if let Some(claims) = self.cache.get(token) {
            check_times(&claims)?;
            return Ok(claims);
        }
        if ApiKeys::is_opaque(token) {
            let claims =
                self.api_keys.as_ref().and_then(|keys| keys.claims_of(token)).ok_or(JwtError::UnknownApiKey)?;
            self.cache.insert(token.to_string(), claims.clone());
            return Ok(claims);
        }
        let claims = self.decode(token)?;
        if !claims.is_object() {
            return Err(JwtError::Invalid("claims are not a JSON object".into()));
        }
        check_times(&claims)?;
        let claims = Arc::new(claims);
        self.cache.insert(token.to_string(), claims.clone());
        Ok(claims)
    }

    /// Check the signature and `exp` / `aud` with the key the header asks for.
    fn decode(&self, token: &str) -> Result<Value, JwtError> {
        let fail = |err: jsonwebtoken::errors::Error| match err.kind() {
            ErrorKind::ExpiredSignature => JwtError::Expired,
            ErrorKind::InvalidAudience => JwtError::Audience,
            other => JwtError::Invalid(describe(other)),
        };
        let header = decode_header(token).map_err(fail)?;
        let mut candidates = self
            .configured
            .iter()
            .filter(|k| k.allows(header.alg) && (k.kid.is_none() || header.kid.is_none() || k.kid == header.kid))
            .peekable();
        if candidates.peek().is_some() {
            let audience = self.validation.aud.as_ref().and_then(|set| set.iter().next().cloned());
            let validation = validation(header.alg, audience.as_deref());
            for key in candidates {
                match decode::<Value>(token, &key.key, &validation) {
                    Ok(data) => return Ok(data.claims),
                    // A good signature with a bad claim is that token's answer.
                    Err(err) if !matches!(err.kind(), ErrorKind::InvalidSignature) => return Err(fail(err)),
                    Err(_) => {}
                }
            }
            // No configured key signed it: the server's own secret and keys may have.
        }
        let data = match (header.alg, &self.signing) {
            (Algorithm::HS256, _) => decode::<Value>(token, &self.key, &self.validation),
            (alg @ (Algorithm::ES256 | Algorithm::RS256), Some((keys, es, rs))) => {
                let set = keys.current();
                let Some(key) = header.kid.as_deref().and_then(|kid| set.verifying(kid)) else {
                    keys.unknown_kid();
                    return Err(JwtError::Invalid("invalid kid".into()));
                };
                if key.algorithm != alg {
                    return Err(JwtError::Invalid("signing method (alg) is unavailable".into()));
                }
                decode::<Value>(token, &key.key, if alg == Algorithm::ES256 { es } else { rs })
            }
            _ => return Err(JwtError::Invalid("signing method (alg) is unavailable".into())),
        };
        Ok(data.map_err(fail)?.claims)
    }
}

/// One key of a JWK / JWKS given as `PGRST_JWT_SECRET`.
pub struct ConfiguredKey {
    kid: Option<String>,
    family: KeyFamily,
    key: DecodingKey,
}

/// Which algorithms a key's type can verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyFamily {
    Hmac,
    Rsa,
    Ec,
    Ed,
}

impl std::fmt::Debug for ConfiguredKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConfiguredKey").field("kid", &self.kid).field("family", &self.family).finish()
    }
}

impl ConfiguredKey {
    fn allows(&self, alg: Algorithm) -> bool {
        use Algorithm::*;
        match self.family {
            KeyFamily::Hmac => matches!(alg, HS256 | HS384 | HS512),
            KeyFamily::Rsa => matches!(alg, RS256 | RS384 | RS512 | PS256 | PS384 | PS512),
            KeyFamily::Ec => matches!(alg, ES256 | ES384),
            KeyFamily::Ed => alg == EdDSA,
        }
    }
}

/// The keys of `PGRST_JWT_SECRET` when it is a JWK (`{"kty": …}`) or a JWKS (`{"keys": […]}`);
/// `Ok(None)` when it is a plain secret. A JSON text that is neither is an error that says why.
pub fn configured_keys(secret: &str) -> Result<Option<Vec<ConfiguredKey>>, String> {
    let text = secret.trim();
    if !text.starts_with('{') {
        return Ok(None);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let jwks: Vec<Jwk> = if value.get("keys").is_some() {
        serde_json::from_value::<JwkSet>(value).map_err(|e| format!("not a JWKS: {e}"))?.keys
    } else {
        vec![serde_json::from_value::<Jwk>(value).map_err(|e| format!("not a JWK: {e}"))?]
    };
    if jwks.is_empty() {
        return Err("the JWKS has no key".into());
    }
    jwks.iter()
        .map(|jwk| {
            let family = match &jwk.algorithm {
                AlgorithmParameters::OctetKey(_) => KeyFamily::Hmac,
                AlgorithmParameters::RSA(_) => KeyFamily::Rsa,
                AlgorithmParameters::EllipticCurve(_) => KeyFamily::Ec,
                AlgorithmParameters::OctetKeyPair(_) => KeyFamily::Ed,
            };
            let key = DecodingKey::from_jwk(jwk).map_err(|e| format!("a key cannot be read: {e}"))?;
            Ok(ConfiguredKey { kid: jwk.common.key_id.clone(), family, key })
        })
        .collect::<Result<Vec<_>, String>>()
        .map(Some)
}

/// The checks of one algorithm: `exp` with leeway, the audience when configured.
fn validation(alg: Algorithm, audience: Option<&str>) -> Validation {
    let mut validation = Validation::new(alg);
    validation.leeway = LEEWAY_SECS;
    validation.required_spec_claims.clear();
    validation.validate_exp = true;
    // nbf and iat are checked by `check_times`, which names the claim as PostgREST does.
    validation.validate_nbf = false;
    match audience {
        Some(aud) => validation.set_audience(&[aud]),
        None => validation.validate_aud = false,
    }
    validation
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

    #[test]
    fn es256_tokens_verify_by_kid_and_stop_verifying_once_revoked() {
        use crate::signing_keys::{generate_es256, SigningKeys};
        let old = generate_es256().unwrap();
        let new = generate_es256().unwrap();
        let keys = Arc::new(SigningKeys::of(&[(&old, "in_use"), (&new, "standby")]));
        let verifier = JwtVerifier::new(&secret(), None).with_signing_keys(keys.clone());
        let legacy = EncodingKey::from_secret(b"unused");
        let claims = json!({"role": "authenticated", "sub": "u1", "exp": chrono::Utc::now().timestamp() + 60});
        let by_old = keys.sign(&claims, &legacy).unwrap();
        assert_eq!(verifier.verify(&by_old).unwrap()["sub"], "u1");
        // HS256 tokens with the secret still verify beside the asymmetric ones.
        assert!(verifier.verify(&sign(json!({"role": "anon"}), &"k".repeat(40))).is_ok());

        keys.reload_with(&[(&old, "previously_used"), (&new, "in_use")]);
        let by_new = keys.sign(&claims, &legacy).unwrap();
        assert_ne!(
            jsonwebtoken::decode_header(&by_new).unwrap().kid,
            jsonwebtoken::decode_header(&by_old).unwrap().kid
        );
        assert!(verifier.verify(&by_new).is_ok());
        assert!(verifier.verify(&by_old).is_ok(), "a previously used key still verifies");

        keys.reload_with(&[(&old, "revoked"), (&new, "in_use")]);
        assert_eq!(verifier.verify(&by_old), Err(JwtError::Invalid("invalid kid".into())), "even though it was cached");
        assert!(verifier.verify(&by_new).is_ok());
    }

    #[test]
    fn asymmetric_tokens_are_refused_without_keys_or_with_another_key_s_kid() {
        use crate::signing_keys::{generate_es256, SigningKeys};
        let key = generate_es256().unwrap();
        let other = generate_es256().unwrap();
        let keys = SigningKeys::of(&[(&key, "in_use")]);
        let token = keys.sign(&json!({"role": "anon"}), &EncodingKey::from_secret(b"x")).unwrap();
        let plain = JwtVerifier::new(&secret(), None);
        assert_eq!(plain.verify(&token), Err(JwtError::Invalid("signing method (alg) is unavailable".into())));
        let wrong =
            JwtVerifier::new(&secret(), None).with_signing_keys(Arc::new(SigningKeys::of(&[(&other, "in_use")])));
        assert_eq!(wrong.verify(&token), Err(JwtError::Invalid("invalid kid".into())));
        // The right kid with a forged signature: the other key signs, the header claims ours.
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(key.id.to_string());
        let forged =
            encode(&header, &json!({"role": "service_role"}), &EncodingKey::from_ec_pem(other.pem.as_bytes()).unwrap())
                .unwrap();
        let right = JwtVerifier::new(&secret(), None).with_signing_keys(Arc::new(keys));
        assert_eq!(right.verify(&forged), Err(JwtError::Invalid("invalid signature".into())));
    }

    #[test]
    fn opaque_api_keys_stand_for_their_role_and_unknown_ones_are_refused() {
        let api = Arc::new(ApiKeys::derive(&secret()));
        let verifier = JwtVerifier::new(&secret(), None).with_api_keys(api.clone());
        assert_eq!(verifier.verify(api.publishable.expose_secret()).unwrap()["role"], "anon");
        assert_eq!(verifier.verify(api.secret.expose_secret()).unwrap()["role"], "service_role");
        assert_eq!(verifier.verify("sb_secret_guess_123"), Err(JwtError::UnknownApiKey));
        let without = JwtVerifier::new(&secret(), None);
        assert_eq!(without.verify(api.publishable.expose_secret()), Err(JwtError::UnknownApiKey));
    }

    fn b64(bytes: &[u8]) -> String {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }

    #[test]
    fn a_jwks_secret_verifies_rsa_tokens_by_kid_and_an_oct_jwk_hmac_tokens() {
        let rsa = openssl::rsa::Rsa::generate(2048).unwrap();
        let jwks = json!({"keys": [
            {"kty": "RSA", "kid": "rest-1", "n": b64(&rsa.n().to_vec()), "e": b64(&rsa.e().to_vec())},
            {"kty": "oct", "kid": "hs-1", "k": b64(b"a-shared-secret-of-enough-length-123")},
        ]})
        .to_string();
        let keys = configured_keys(&jwks).unwrap().expect("a JWKS");
        let verifier = JwtVerifier::new(&secret(), None).with_configured_keys(keys);

        let private = EncodingKey::from_rsa_pem(&rsa.private_key_to_pem().unwrap()).unwrap();
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some("rest-1".into());
        let token = encode(&header, &json!({"role": "authenticated", "sub": "rsa"}), &private).unwrap();
        assert_eq!(verifier.verify(&token).unwrap()["sub"], "rsa");
        // RS384 with the same key, no kid: tried against every RSA key.
        let token = encode(&Header::new(Algorithm::RS384), &json!({"sub": "rs384"}), &private).unwrap();
        assert_eq!(verifier.verify(&token).unwrap()["sub"], "rs384");

        let mut header = Header::new(Algorithm::HS512);
        header.kid = Some("hs-1".into());
        let hs = EncodingKey::from_secret(b"a-shared-secret-of-enough-length-123");
        let token = encode(&header, &json!({"sub": "hmac"}), &hs).unwrap();
        assert_eq!(verifier.verify(&token).unwrap()["sub"], "hmac");

        // A token of another RSA key is refused.
        let other = openssl::rsa::Rsa::generate(2048).unwrap();
        let other = EncodingKey::from_rsa_pem(&other.private_key_to_pem().unwrap()).unwrap();
        let token = encode(&Header::new(Algorithm::RS256), &json!({"sub": "x"}), &other).unwrap();
        assert!(matches!(verifier.verify(&token), Err(JwtError::Invalid(_))));
        // The server's own secret still verifies (the legacy API keys are signed with it).
        assert_eq!(verifier.verify(&sign(json!({"sub": "own"}), &"k".repeat(40))).unwrap()["sub"], "own");
    }

    #[test]
    fn a_plain_secret_is_not_a_jwk_and_bad_json_says_why() {
        assert!(configured_keys("a-plain-secret-that-is-long-enough").unwrap().is_none());
        assert!(configured_keys("{not json").unwrap_err().starts_with("not valid JSON"));
        assert!(configured_keys(r#"{"keys": []}"#).unwrap_err().contains("no key"));
        assert!(configured_keys(r#"{"kty": "RSA"}"#).unwrap_err().starts_with("not a JWK"));
    }
}
