//! Token material: access-token claims and signing, refresh tokens, e-mail OTPs and their
//! hashes, and PKCE challenge checks.
//!
//! Access tokens carry GoTrue's claims (`signing_keys` signs them). E-mailed links carry the token hash
//! (`sha224(email + otp)` in hex, as GoTrue computes it), so a link and the six-digit code in
//! the same mail verify the same stored value. Nothing here touches the database or HTTP.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::distributions::{Alphanumeric, Distribution, Uniform};
use rand::Rng;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha224, Sha256};

/// One authentication method of the session (`amr` claim).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Amr {
    pub method: String,
    pub timestamp: i64,
}

/// The claims of an access token, in GoTrue's order.
#[derive(Debug, Clone, Serialize)]
pub struct AccessClaims {
    pub iss: String,
    pub sub: String,
    pub aud: String,
    pub exp: i64,
    pub iat: i64,
    pub email: String,
    pub phone: String,
    pub app_metadata: Value,
    pub user_metadata: Value,
    pub role: String,
    pub aal: String,
    pub amr: Vec<Amr>,
    pub session_id: String,
    pub is_anonymous: bool,
    /// The OAuth client a session of the OAuth 2.1 server was granted to, as GoTrue names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// The scopes granted to that client (space-separated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// A random alphanumeric string (refresh tokens, PKCE auth codes).
pub fn random_token(len: usize) -> String {
    rand::thread_rng().sample_iter(&Alphanumeric).take(len).map(char::from).collect()
}

/// A one-time code of `len` digits.
pub fn otp(len: usize) -> String {
    let digits = Uniform::from(0..10u8);
    let mut rng = rand::thread_rng();
    (0..len).map(|_| char::from(b'0' + digits.sample(&mut rng))).collect()
}

/// GoTrue's token hash: hex of sha224 over the address followed by the code.
pub fn token_hash(email: &str, otp: &str) -> String {
    hex::encode(Sha224::digest(format!("{email}{otp}").as_bytes()))
}

/// Whether a PKCE verifier matches the stored challenge (`s256` or `plain`).
pub fn pkce_matches(method: &str, challenge: &str, verifier: &str) -> bool {
    match method {
        "s256" => URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())) == challenge,
        "plain" => verifier == challenge,
        _ => false,
    }
}

/// Normalise a requested challenge method (`S256`, `s256`, `plain`); `None` if unknown.
pub fn challenge_method(method: &str) -> Option<&'static str> {
    match method.to_ascii_lowercase().as_str() {
        "s256" => Some("s256"),
        "plain" => Some("plain"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{decode, DecodingKey, Validation};
    use serde_json::json;

    #[test]
    fn access_tokens_carry_gotrue_claims() {
        let claims = AccessClaims {
            iss: "http://localhost/auth/v1".into(),
            sub: "6f1b6c1e-0000-4000-8000-000000000001".into(),
            aud: "authenticated".into(),
            exp: 4_000_000_000,
            iat: 1_700_000_000,
            email: "a@b.test".into(),
            phone: String::new(),
            app_metadata: json!({"provider": "email", "providers": ["email"]}),
            user_metadata: json!({"name": "A"}),
            role: "authenticated".into(),
            aal: "aal1".into(),
            amr: vec![Amr { method: "password".into(), timestamp: 1_700_000_000 }],
            session_id: "6f1b6c1e-0000-4000-8000-000000000002".into(),
            is_anonymous: false,
            client_id: None,
            scope: None,
        };
        let legacy = jsonwebtoken::EncodingKey::from_secret(b"secret");
        let token = crate::signing_keys::SigningKeys::default().sign(&claims, &legacy).unwrap();
        let mut validation = Validation::default();
        validation.set_audience(&["authenticated"]);
        let data = decode::<Value>(&token, &DecodingKey::from_secret(b"secret"), &validation).unwrap();
        let c = data.claims;
        for key in [
            "iss",
            "sub",
            "aud",
            "exp",
            "iat",
            "email",
            "phone",
            "app_metadata",
            "user_metadata",
            "role",
            "aal",
            "amr",
            "session_id",
            "is_anonymous",
        ] {
            assert!(c.get(key).is_some(), "missing {key}");
        }
        assert_eq!(c["amr"][0]["method"], "password");
        assert_eq!(c["app_metadata"]["provider"], "email");
        assert!(c.get("client_id").is_none() && c.get("scope").is_none());
    }

    #[test]
    fn token_hash_matches_gotrue() {
        // sha224("a@b.test123456")
        assert_eq!(token_hash("a@b.test", "123456"), hex::encode(Sha224::digest(b"a@b.test123456")));
        assert_eq!(token_hash("a@b.test", "123456").len(), 56);
    }

    #[test]
    fn otps_have_the_asked_digits_and_tokens_are_alphanumeric() {
        let code = otp(6);
        assert_eq!(code.len(), 6);
        assert_eq!(otp(10).len(), 10);
        assert!(code.chars().all(|c| c.is_ascii_digit()));
        assert!(random_token(32).chars().all(|c| c.is_ascii_alphanumeric()));
    }

    #[test]
    fn pkce_s256_and_plain() {
        // RFC 7636 appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(pkce_matches("s256", challenge, verifier));
        assert!(!pkce_matches("s256", challenge, "other"));
        assert!(pkce_matches("plain", "abc", "abc"));
        assert_eq!(challenge_method("S256"), Some("s256"));
        assert_eq!(challenge_method("md5"), None);
    }
}
