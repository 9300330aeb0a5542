//! The JWT secret and the API keys derived from it.
//!
//! When no `JWT_SECRET` is configured, a random one is generated once and kept in
//! `DATA_DIR/secrets/jwt_secret` (mode 0600). The `anon` and `service_role` keys are HS256 JWTs
//! derived deterministically from the secret, so every server instance sharing the secret prints
//! the same keys. The new opaque keys (`sb_publishable_…` for the anon role, `sb_secret_…` for
//! service_role) are derived from the secret the same way. Nothing here logs a secret; callers
//! print keys only on explicit request.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use jsonwebtoken::{encode, EncodingKey, Header};
use rand::RngCore;
use secrecy::{ExposeSecret, SecretString};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::config::Config;

/// Issue date written into derived API keys (2025-01-01), fixed so keys are stable.
const KEY_IAT: i64 = 1_735_689_600;
/// Expiry of derived API keys (2035-01-01), the long lifetime Supabase gives its keys.
const KEY_EXP: i64 = 2_051_222_400;

/// Why the secrets could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum KeysError {
    #[error("cannot read or write secret file {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("cannot sign an API key: {0}")]
    Sign(#[from] jsonwebtoken::errors::Error),
    #[error("JWT_SECRET must be at least 32 characters long")]
    WeakSecret,
}

/// The secret and the API keys.
#[derive(Clone)]
pub struct Keys {
    pub jwt_secret: SecretString,
    pub anon_key: SecretString,
    pub service_role_key: SecretString,
    /// `sb_publishable_…` and `sb_secret_…`.
    pub api_keys: Arc<ApiKeys>,
}

/// The opaque API keys, each standing for the claims of its role.
pub struct ApiKeys {
    pub publishable: SecretString,
    pub secret: SecretString,
    anon_claims: Arc<Value>,
    service_claims: Arc<Value>,
}

impl std::fmt::Debug for ApiKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKeys([REDACTED])")
    }
}

/// Prefix of a publishable key (the anon role; safe in a browser).
pub const PUBLISHABLE_PREFIX: &str = "sb_publishable_";
/// Prefix of a secret key (the service_role; refused from a browser).
pub const SECRET_PREFIX: &str = "sb_secret_";

impl ApiKeys {
    /// The two keys derived from `secret`.
    pub fn derive(secret: &SecretString) -> ApiKeys {
        let claims = |role: &str| Arc::new(json!({ "iss": "supabase", "role": role, "iat": KEY_IAT, "exp": KEY_EXP }));
        ApiKeys {
            publishable: SecretString::from(derive_opaque_key(secret, PUBLISHABLE_PREFIX)),
            secret: SecretString::from(derive_opaque_key(secret, SECRET_PREFIX)),
            anon_claims: claims("anon"),
            service_claims: claims("service_role"),
        }
    }

    /// Whether `token` has the shape of an opaque key rather than a JWT.
    pub fn is_opaque(token: &str) -> bool {
        token.starts_with(PUBLISHABLE_PREFIX) || token.starts_with(SECRET_PREFIX)
    }

    /// The claims `key` stands for, if it is one of ours (compared by digest, in constant time
    /// with respect to the key).
    pub fn claims_of(&self, key: &str) -> Option<Arc<Value>> {
        let digest = Sha256::digest(key.as_bytes());
        if digest == Sha256::digest(self.publishable.expose_secret().as_bytes()) {
            Some(self.anon_claims.clone())
        } else if digest == Sha256::digest(self.secret.expose_secret().as_bytes()) {
            Some(self.service_claims.clone())
        } else {
            None
        }
    }
}

/// Whether a request uses a secret key from a browser, which Supabase refuses: the key is in
/// `apikey` or the Bearer, and the User-Agent is a browser's.
pub fn secret_key_from_browser(apikey: Option<&str>, bearer: Option<&str>, user_agent: Option<&str>) -> bool {
    let secret = [apikey, bearer].into_iter().flatten().any(|k| k.trim().starts_with(SECRET_PREFIX));
    secret && user_agent.is_some_and(|ua| ua.trim_start().starts_with("Mozilla/"))
}

/// `<prefix><22 characters>_<8-character checksum>`, the shape of Supabase's opaque keys; the
/// random part is an HMAC of the prefix under the secret, so every instance derives the same key.
pub fn derive_opaque_key(secret: &SecretString, prefix: &str) -> String {
    let body = URL_SAFE_NO_PAD.encode(&hex::decode(derive_password(secret, prefix)).unwrap_or_default()[..16]);
    let checksum = URL_SAFE_NO_PAD.encode(&Sha256::digest(format!("{prefix}{body}").as_bytes())[..6]);
    format!("{prefix}{body}_{checksum}")
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys([REDACTED])")
    }
}

impl Keys {
    /// Use the configured secret and keys, generating and storing the secret when it is missing.
    pub fn load_or_generate(config: &Config) -> Result<Keys, KeysError> {
        let jwt_secret = match &config.jwt_secret {
            Some(secret) => {
                if secret.expose_secret().len() < 32 {
                    return Err(KeysError::WeakSecret);
                }
                secret.clone()
            }
            None => SecretString::from(read_or_create_secret(&config.data_dir, "jwt_secret")?),
        };
        let anon_key = match &config.anon_key {
            Some(key) => key.clone(),
            None => SecretString::from(derive_api_key(&jwt_secret, "anon")?),
        };
        let service_role_key = match &config.service_role_key {
            Some(key) => key.clone(),
            None => SecretString::from(derive_api_key(&jwt_secret, "service_role")?),
        };
        let api_keys = Arc::new(ApiKeys::derive(&jwt_secret));
        Ok(Keys { jwt_secret, anon_key, service_role_key, api_keys })
    }

    /// A password for an internal purpose (e.g. the `authenticator` role), derived from the
    /// JWT secret so that every instance sharing the secret agrees on it.
    pub fn derived_password(&self, purpose: &str) -> String {
        derive_password(&self.jwt_secret, purpose)
    }
}

/// Sign the API key of `role` the way Supabase shapes its keys.
pub fn derive_api_key(secret: &SecretString, role: &str) -> Result<String, KeysError> {
    let claims = json!({ "iss": "supabase", "ref": "local", "role": role, "iat": KEY_IAT, "exp": KEY_EXP });
    let key = EncodingKey::from_secret(secret.expose_secret().as_bytes());
    Ok(encode(&Header::default(), &claims, &key)?)
}

/// HMAC-SHA256 of `purpose` under the secret, as lower-case hex.
pub fn derive_password(secret: &SecretString, purpose: &str) -> String {
    // An HMAC accepts keys of any length, so this cannot fail.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.expose_secret().as_bytes()) else {
        return String::new();
    };
    mac.update(purpose.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// 32 random bytes as 64 hex characters.
pub fn random_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// Directory of generated secrets, created with mode 0700.
pub fn secrets_dir(data_dir: &Path) -> Result<PathBuf, KeysError> {
    let dir = data_dir.join("secrets");
    let io = |source| KeysError::Io { path: dir.clone(), source };
    fs::create_dir_all(&dir).map_err(io)?;
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).map_err(io)?;
    Ok(dir)
}

/// Read `DATA_DIR/secrets/<name>`, creating it with a fresh random value (mode 0600) if absent.
pub fn read_or_create_secret(data_dir: &Path, name: &str) -> Result<String, KeysError> {
    let path = secrets_dir(data_dir)?.join(name);
    let io = |source| KeysError::Io { path: path.clone(), source };
    match fs::read_to_string(&path) {
        Ok(value) if !value.trim().is_empty() => return Ok(value.trim().to_string()),
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(io(err)),
    }
    let value = random_secret();
    let mut file =
        fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&path).map_err(io)?;
    file.write_all(value.as_bytes()).map_err(io)?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_keys_are_stable_and_carry_the_role() {
        let secret = SecretString::from("a".repeat(40));
        let a = derive_api_key(&secret, "anon").unwrap();
        assert_eq!(a, derive_api_key(&secret, "anon").unwrap());
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::HS256);
        validation.validate_exp = true;
        let data = jsonwebtoken::decode::<serde_json::Value>(
            &a,
            &jsonwebtoken::DecodingKey::from_secret(&[b'a'; 40]),
            &validation,
        )
        .unwrap();
        assert_eq!(data.claims["role"], "anon");
    }

    #[test]
    fn generated_secret_is_kept_with_private_mode() {
        let dir = std::env::temp_dir().join(format!("keys-test-{}", random_secret()));
        let first = read_or_create_secret(&dir, "jwt_secret").unwrap();
        let second = read_or_create_secret(&dir, "jwt_secret").unwrap();
        assert_eq!(first, second);
        assert_eq!(first.len(), 64);
        let mode = fs::metadata(dir.join("secrets/jwt_secret")).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn debug_output_hides_secrets() {
        let secret = SecretString::from("s".repeat(40));
        let api_keys = Arc::new(ApiKeys::derive(&secret));
        let keys = Keys { anon_key: secret.clone(), service_role_key: secret.clone(), jwt_secret: secret, api_keys };
        assert!(!format!("{keys:?}").contains("sss"));
        assert!(!format!("{:?}", keys.api_keys).contains("sb_"));
    }

    #[test]
    fn opaque_keys_have_supabase_s_shape_and_stand_for_their_role() {
        let keys = ApiKeys::derive(&SecretString::from("a".repeat(40)));
        let publishable = keys.publishable.expose_secret().to_string();
        let secret = keys.secret.expose_secret().to_string();
        assert!(publishable.starts_with("sb_publishable_") && publishable.len() == 15 + 22 + 1 + 8, "{publishable}");
        assert!(secret.starts_with("sb_secret_") && secret.len() == 10 + 22 + 1 + 8, "{secret}");
        assert_eq!(ApiKeys::derive(&SecretString::from("a".repeat(40))).publishable.expose_secret(), publishable);
        assert_ne!(ApiKeys::derive(&SecretString::from("b".repeat(40))).publishable.expose_secret(), publishable);
        assert_eq!(keys.claims_of(&publishable).unwrap()["role"], "anon");
        assert_eq!(keys.claims_of(&secret).unwrap()["role"], "service_role");
        assert!(keys.claims_of("sb_secret_nope").is_none());
        assert!(keys.claims_of(&publishable[..publishable.len() - 1]).is_none());
    }

    #[test]
    fn a_secret_key_is_refused_only_from_a_browser() {
        let browser = Some("Mozilla/5.0 (X11; Linux x86_64) Chrome/120");
        assert!(secret_key_from_browser(Some("sb_secret_x"), None, browser));
        assert!(secret_key_from_browser(None, Some("sb_secret_x"), browser));
        assert!(!secret_key_from_browser(Some("sb_secret_x"), None, Some("node")));
        assert!(!secret_key_from_browser(Some("sb_secret_x"), None, None));
        assert!(!secret_key_from_browser(Some("sb_publishable_x"), None, browser));
    }
}
