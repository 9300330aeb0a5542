//! Secrets sealed at rest: AES-256-GCM (ring's AEAD) under a key derived from the JWT secret
//! (`keys::derive_password`, an HMAC of a fixed purpose), so every instance sharing the secret
//! opens what another sealed, and the database alone reveals nothing. The secret's name is the
//! associated data: a sealed value moved to another name does not open.
//!
//! Changing the JWT secret makes the sealed values unreadable (they must be set again).
//! Nothing here logs a value.

use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
use secrecy::{ExposeSecret, SecretString};

/// What the key is derived for (changing it makes every stored value unreadable).
const PURPOSE: &str = "edge-functions-secrets-v1";

/// Seals and opens the functions' secrets.
pub struct Sealer {
    key: LessSafeKey,
}

/// A sealed value that does not open (another key, another name, or altered bytes).
#[derive(Debug, thiserror::Error)]
#[error("the secret does not open with this server's key")]
pub struct Unsealable;

impl Sealer {
    /// The sealer of the server whose JWT secret is `jwt_secret`.
    pub fn new(jwt_secret: &SecretString) -> Sealer {
        let hex_key = crate::keys::derive_password(jwt_secret, PURPOSE);
        let bytes = hex::decode(hex_key).unwrap_or_default();
        // 32 bytes from an HMAC-SHA256: AES-256's key length, so this cannot fail.
        let key = UnboundKey::new(&AES_256_GCM, &bytes).unwrap_or_else(|_| unreachable!("a 32-byte key"));
        Sealer { key: LessSafeKey::new(key) }
    }

    /// `nonce || ciphertext || tag` of `value`, bound to `name`.
    pub fn seal(&self, name: &str, value: &SecretString) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        // 96 random bits per value: a repeat is negligible for the number of secrets a project sets.
        rand::RngCore::fill_bytes(&mut rand::thread_rng(), &mut nonce);
        let mut data = value.expose_secret().as_bytes().to_vec();
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

    /// The value sealed under `name`.
    pub fn open(&self, name: &str, sealed: &[u8]) -> Result<SecretString, Unsealable> {
        if sealed.len() < NONCE_LEN {
            return Err(Unsealable);
        }
        let (nonce, data) = sealed.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| Unsealable)?;
        let mut data = data.to_vec();
        let plain = self.key.open_in_place(nonce, Aad::from(name.as_bytes()), &mut data).map_err(|_| Unsealable)?;
        let text = String::from_utf8(plain.to_vec()).map_err(|_| Unsealable)?;
        Ok(SecretString::from(text))
    }
}

/// The SHA-256 of a value, hex: what the list shows instead of the value (the Supabase CLI's
/// `secrets list` prints such a digest).
pub fn digest(value: &SecretString) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(value.expose_secret().as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer(secret: &str) -> Sealer {
        Sealer::new(&SecretString::from(secret.to_string()))
    }

    #[test]
    fn a_sealed_value_opens_under_its_name_and_does_not_show_in_clear() {
        let value = SecretString::from("sk_live_very_secret".to_string());
        let sealed = sealer(&"a".repeat(40)).seal("STRIPE_KEY", &value);
        assert!(!sealed.windows(8).any(|w| w == b"sk_live_"));
        let opened = sealer(&"a".repeat(40)).open("STRIPE_KEY", &sealed).map(|v| v.expose_secret().to_string());
        assert_eq!(opened.ok().as_deref(), Some("sk_live_very_secret"));
    }

    #[test]
    fn another_key_another_name_or_altered_bytes_do_not_open() {
        let value = SecretString::from("v".to_string());
        let sealed = sealer(&"a".repeat(40)).seal("A", &value);
        assert!(sealer(&"b".repeat(40)).open("A", &sealed).is_err());
        assert!(sealer(&"a".repeat(40)).open("B", &sealed).is_err());
        let mut altered = sealed.clone();
        if let Some(last) = altered.last_mut() {
            *last ^= 1;
        }
        assert!(sealer(&"a".repeat(40)).open("A", &altered).is_err());
        assert!(sealer(&"a".repeat(40)).open("A", &sealed[..4]).is_err());
    }

    #[test]
    fn two_seals_of_one_value_differ() {
        let value = SecretString::from("same".to_string());
        let s = sealer(&"a".repeat(40));
        assert_ne!(s.seal("A", &value), s.seal("A", &value));
    }
}
