//! Signed-URL tokens, as Supabase Storage makes them: HS256 JWTs signed with the server's JWT
//! secret, carrying `url` (`bucket/key`), `iat` and `exp`; upload tokens add `owner` and `upsert`.
//!
//! Signing happens only after the caller proved (through RLS) that it may read or write the
//! object; verification here checks signature, expiry and that the token is for this very path.

use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::error::StorageError;

/// Claims of a signed download or upload URL.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct UrlClaims {
    pub url: String,
    pub iat: i64,
    pub exp: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upsert: Option<bool>,
    /// The image transformations of a signed render URL (storage-api's `transformations`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transformations: Option<String>,
}

impl UrlClaims {
    /// Claims for `url` issued now, valid `expires_in` seconds, nothing more.
    fn now(url: &str, expires_in: i64) -> UrlClaims {
        let iat = chrono::Utc::now().timestamp();
        UrlClaims {
            url: url.to_string(),
            iat,
            exp: iat.saturating_add(expires_in),
            owner: None,
            upsert: None,
            transformations: None,
        }
    }
}

/// Sign claims for `url` valid `expires_in` seconds.
pub fn sign(
    secret: &SecretString,
    url: &str,
    expires_in: i64,
    owner: Option<String>,
    upsert: Option<bool>,
) -> Result<String, StorageError> {
    encode_claims(secret, &UrlClaims { owner, upsert, ..UrlClaims::now(url, expires_in) })
}

/// Sign a render URL for `url` with its image `transformations`.
pub fn sign_render(
    secret: &SecretString,
    url: &str,
    expires_in: i64,
    transformations: String,
) -> Result<String, StorageError> {
    encode_claims(secret, &UrlClaims { transformations: Some(transformations), ..UrlClaims::now(url, expires_in) })
}

fn encode_claims(secret: &SecretString, claims: &UrlClaims) -> Result<String, StorageError> {
    encode(&Header::new(Algorithm::HS256), claims, &EncodingKey::from_secret(secret.expose_secret().as_bytes()))
        .map_err(|e| StorageError::internal("sign url", e))
}

/// Verify a token and that it was signed for `url`.
pub fn verify(secret: &SecretString, token: &str, url: &str) -> Result<UrlClaims, StorageError> {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.leeway = 0;
    validation.validate_aud = false;
    validation.required_spec_claims = ["exp"].into_iter().map(String::from).collect();
    let data = decode::<UrlClaims>(token, &DecodingKey::from_secret(secret.expose_secret().as_bytes()), &validation)
        .map_err(|e| match e.kind() {
            jsonwebtoken::errors::ErrorKind::ExpiredSignature => StorageError::InvalidJwt("jwt expired".into()),
            _ => StorageError::InvalidJwt("invalid signature".into()),
        })?;
    if data.claims.url != url {
        return Err(StorageError::InvalidSignature("Invalid signature".into()));
    }
    Ok(data.claims)
}

/// The `token` query parameter.
pub fn from_query(query: &str) -> Result<String, StorageError> {
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
        .ok_or_else(|| StorageError::InvalidRequest("Missing token".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret() -> SecretString {
        SecretString::from("a-test-secret-of-at-least-32-characters!!")
    }

    #[test]
    fn a_token_verifies_for_its_own_url_only() {
        let token = sign(&secret(), "b/a.png", 60, None, None).unwrap();
        assert_eq!(verify(&secret(), &token, "b/a.png").unwrap().url, "b/a.png");
        assert!(matches!(verify(&secret(), &token, "b/other.png"), Err(StorageError::InvalidSignature(_))));
    }

    #[test]
    fn expired_and_tampered_tokens_are_refused() {
        let expired = sign(&secret(), "b/a.png", -10, None, None).unwrap();
        assert!(
            matches!(verify(&secret(), &expired, "b/a.png"), Err(StorageError::InvalidJwt(m)) if m == "jwt expired")
        );
        let token = sign(&secret(), "b/a.png", 60, None, None).unwrap();
        let at = token.len() - 10;
        let swapped = if &token[at..at + 1] == "A" { "B" } else { "A" };
        let tampered = format!("{}{swapped}{}", &token[..at], &token[at + 1..]);
        assert!(verify(&secret(), &tampered, "b/a.png").is_err());
        let other = SecretString::from("another-secret-of-at-least-32-characters");
        assert!(verify(&other, &token, "b/a.png").is_err());
    }

    #[test]
    fn the_token_is_read_from_the_query() {
        assert_eq!(from_query("download=&token=abc.def").unwrap(), "abc.def");
        assert!(from_query("x=1").is_err());
    }
}
