//! Secrets sealed at rest: AES-256-GCM (ring's AEAD) under a key derived from the JWT secret
//! (`keys::derive_password`, an HMAC of a fixed purpose), so every instance sharing the secret
//! opens what another sealed, and the database alone reveals nothing. The secret's name is the
//! associated data: a sealed value moved to another name does not open.
//!
//! Changing the JWT secret makes the sealed values unreadable (they must be set again).
//! Nothing here logs a value.

use secrecy::{ExposeSecret, SecretString};

pub use crate::sealed::Unsealable;

/// What the key is derived for (changing it makes every stored value unreadable).
const PURPOSE: &str = "edge-functions-secrets-v1";

/// Seals and opens the functions' secrets: the shared [`crate::sealed::Sealer`] under this
/// purpose, for text values.
pub struct Sealer(crate::sealed::Sealer);

impl Sealer {
    /// The sealer of the server whose JWT secret is `jwt_secret`.
    pub fn new(jwt_secret: &SecretString) -> Sealer {
        Sealer(crate::sealed::Sealer::new(jwt_secret, PURPOSE))
    }

    /// `nonce || ciphertext || tag` of `value`, bound to `name`.
    pub fn seal(&self, name: &str, value: &SecretString) -> Vec<u8> {
        self.0.seal_text(name, value)
    }

    /// The value sealed under `name`.
    pub fn open(&self, name: &str, sealed: &[u8]) -> Result<SecretString, Unsealable> {
        self.0.open_text(name, sealed)
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
