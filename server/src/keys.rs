//! The JWT secret and the API keys derived from it.
//!
//! When no `JWT_SECRET` is configured, a random one is generated once and kept in
//! `DATA_DIR/secrets/jwt_secret` (mode 0600). The `anon` and `service_role` keys are HS256 JWTs
//! derived deterministically from the secret, so every server instance sharing the secret prints
//! the same keys. Nothing here logs a secret; callers print keys only on explicit request.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
use jsonwebtoken::{encode, EncodingKey, Header};
use rand::RngCore;
use secrecy::{ExposeSecret, SecretString};
use serde_json::json;
use sha2::Sha256;

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

/// The secret and the two API keys.
#[derive(Clone)]
pub struct Keys {
    pub jwt_secret: SecretString,
    pub anon_key: SecretString,
    pub service_role_key: SecretString,
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
        Ok(Keys { jwt_secret, anon_key, service_role_key })
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
        let keys = Keys { anon_key: secret.clone(), service_role_key: secret.clone(), jwt_secret: secret };
        assert!(!format!("{keys:?}").contains("sss"));
    }
}
