//! Values sealed at rest for one purpose: AES-256-GCM (ring's AEAD) under a key derived from the
//! JWT secret and the purpose (`keys::derive_password`), shared by the functions' secrets
//! (`functions::seal`), the auth settings (OAuth client secrets) and the Studio (operators' TOTP
//! secrets). Every instance sharing the JWT secret opens
//! what another sealed; the database alone reveals nothing; the value's name is the associated
//! data, so a sealed value moved to another name does not open. Nothing here logs a value.

use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
use secrecy::{ExposeSecret, SecretString};

/// Seals and opens values of one purpose.
pub struct Sealer {
    key: LessSafeKey,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer([REDACTED])")
    }
}

/// A sealed value that does not open (another key, another name, or altered bytes).
#[derive(Debug, thiserror::Error)]
#[error("the value does not open with this server's key")]
pub struct Unsealable;

impl Sealer {
    /// The sealer of `purpose` (changing it makes every stored value unreadable) on the server
    /// whose JWT secret is `jwt_secret`.
    pub fn new(jwt_secret: &SecretString, purpose: &str) -> Sealer {
        let bytes = hex::decode(crate::keys::derive_password(jwt_secret, purpose)).unwrap_or_default();
        // 32 bytes from an HMAC-SHA256: AES-256's key length, so this cannot fail.
        let key = UnboundKey::new(&AES_256_GCM, &bytes).unwrap_or_else(|_| unreachable!("a 32-byte key"));
        Sealer { key: LessSafeKey::new(key) }
    }

    /// `nonce || ciphertext || tag` of `value`, bound to `name`.
    pub fn seal(&self, name: &str, value: &[u8]) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::RngCore::fill_bytes(&mut rand::thread_rng(), &mut nonce);
        let mut data = value.to_vec();
        let sealed = self.key.seal_in_place_append_tag(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(name.as_bytes()),
            &mut data,
        );
        if sealed.is_err() {
            // Only for inputs over AES-GCM's 64 GiB limit.
            return Vec::new();
        }
        let mut out = nonce.to_vec();
        out.extend_from_slice(&data);
        out
    }

    /// The text `value` sealed under `name`.
    pub fn seal_text(&self, name: &str, value: &SecretString) -> Vec<u8> {
        self.seal(name, value.expose_secret().as_bytes())
    }

    /// The bytes sealed under `name`.
    pub fn open(&self, name: &str, sealed: &[u8]) -> Result<Vec<u8>, Unsealable> {
        if sealed.len() < NONCE_LEN {
            return Err(Unsealable);
        }
        let (nonce, data) = sealed.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| Unsealable)?;
        let mut data = data.to_vec();
        let plain = self.key.open_in_place(nonce, Aad::from(name.as_bytes()), &mut data).map_err(|_| Unsealable)?;
        Ok(plain.to_vec())
    }

    /// The text sealed under `name`.
    pub fn open_text(&self, name: &str, sealed: &[u8]) -> Result<SecretString, Unsealable> {
        let bytes = self.open(name, sealed)?;
        String::from_utf8(bytes).map(SecretString::from).map_err(|_| Unsealable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer(secret: &str, purpose: &str) -> Sealer {
        Sealer::new(&SecretString::from(secret.to_string()), purpose)
    }

    #[test]
    fn a_sealed_value_opens_under_its_name_and_purpose_only() {
        let value = SecretString::from("client-secret-123".to_string());
        let sealed = sealer(&"a".repeat(40), "p1").seal_text("github", &value);
        assert!(!sealed.windows(8).any(|w| w == b"client-s"));
        let opened = sealer(&"a".repeat(40), "p1").open_text("github", &sealed).map(|v| v.expose_secret().to_string());
        assert_eq!(opened.ok().as_deref(), Some("client-secret-123"));
        assert!(sealer(&"a".repeat(40), "p2").open("github", &sealed).is_err());
        assert!(sealer(&"b".repeat(40), "p1").open("github", &sealed).is_err());
        assert!(sealer(&"a".repeat(40), "p1").open("google", &sealed).is_err());
        assert!(sealer(&"a".repeat(40), "p1").open("github", &sealed[..4]).is_err());
    }
}
