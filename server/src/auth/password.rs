//! Password hashing and verification.
//!
//! New passwords are hashed with argon2id at OWASP's parameters (19 MiB, 2 passes, 1 lane) on a
//! blocking thread, never on the async runtime, at most one per core at a time. Verification accepts argon2 (PHC strings) and
//! bcrypt (`$2a$`/`$2b$`/`$2y$`) hashes, so users migrated from Supabase keep their passwords.
//! An unknown user still costs one verification against a dummy hash, so timing does not tell
//! whether an account exists. This module knows nothing of users or HTTP.

use std::sync::LazyLock;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

use super::error::AuthError;

/// Memory cost in KiB (OWASP: 19 MiB).
pub const ARGON2_M_COST: u32 = 19_456;
/// Passes over memory.
pub const ARGON2_T_COST: u32 = 2;
/// Lanes.
pub const ARGON2_P_COST: u32 = 1;

fn argon2() -> Argon2<'static> {
    let params = Params::new(ARGON2_M_COST, ARGON2_T_COST, ARGON2_P_COST, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// At most one hash per core at a time: more only thrash caches (each uses 19 MiB) and delay
/// every request alike.
static HASH_PERMITS: LazyLock<tokio::sync::Semaphore> =
    LazyLock::new(|| tokio::sync::Semaphore::new(std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2)));

/// A hash that verifies nothing, used for unknown users.
static DUMMY_HASH: LazyLock<String> =
    LazyLock::new(|| hash_blocking("dummy password for timing equality").unwrap_or_default());

/// Hash a password (blocking: call through [`hash`]).
pub fn hash_blocking(password: &str) -> Result<String, AuthError> {
    let salt = SaltString::generate(&mut argon2::password_hash::rand_core::OsRng);
    argon2().hash_password(password.as_bytes(), &salt).map(|h| h.to_string()).map_err(AuthError::internal)
}

/// Whether `password` matches `hash` (argon2 or bcrypt); a malformed hash matches nothing.
pub fn verify_blocking(password: &str, hash: &str) -> bool {
    if is_bcrypt(hash) {
        return bcrypt::verify(password, hash).unwrap_or(false);
    }
    match PasswordHash::new(hash) {
        Ok(parsed) => Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok(),
        Err(_) => false,
    }
}

fn is_bcrypt(hash: &str) -> bool {
    ["$2a$", "$2b$", "$2y$"].iter().any(|p| hash.starts_with(p))
}

/// Whether an admin-supplied `password_hash` is one we can verify later.
pub fn is_supported_hash(hash: &str) -> bool {
    if is_bcrypt(hash) {
        return hash.len() == 60;
    }
    hash.starts_with("$argon2") && PasswordHash::new(hash).is_ok()
}

/// Hash on a blocking thread.
pub async fn hash(password: String) -> Result<String, AuthError> {
    let _permit = HASH_PERMITS.acquire().await.map_err(AuthError::internal)?;
    tokio::task::spawn_blocking(move || hash_blocking(&password)).await.map_err(AuthError::internal)?
}

/// Verify on a blocking thread; `None` (unknown user, no password) runs the dummy verification.
pub async fn verify(password: String, hash: Option<String>) -> bool {
    let Ok(_permit) = HASH_PERMITS.acquire().await else { return false };
    let outcome = tokio::task::spawn_blocking(move || match hash.filter(|h| !h.is_empty()) {
        Some(hash) => verify_blocking(&password, &hash),
        None => {
            let _ = verify_blocking(&password, &DUMMY_HASH);
            false
        }
    })
    .await;
    outcome.unwrap_or(false)
}

/// The character sets of GoTrue's `PASSWORD_REQUIRED_CHARACTERS`: `:`-separated, a `\\:` is a
/// colon inside a set, empty sets are dropped (GoTrue's `PasswordRequiredCharacters.Decode`).
pub fn required_character_sets(value: &str) -> Vec<String> {
    let mut parts: Vec<String> = value.split(':').map(str::to_string).collect();
    for i in 0..parts.len().saturating_sub(1) {
        if let Some(stripped) = parts[i].strip_suffix('\\') {
            let joined = format!("{stripped}:{}", parts[i + 1]);
            parts[i] = joined;
            parts[i + 1] = String::new();
        }
    }
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// Refuse a password shorter than `min_length` characters or missing a character of one of
/// `required` sets, as GoTrue words it (every reason in `reasons`, the messages joined).
pub fn check_strength(password: &str, min_length: usize, required: &[String]) -> Result<(), AuthError> {
    let mut messages = Vec::new();
    let mut reasons = Vec::new();
    if password.chars().count() < min_length {
        messages.push(format!("Password should be at least {min_length} characters."));
        reasons.push("length".to_string());
    }
    if required.iter().any(|set| !password.chars().any(|c| set.contains(c))) {
        messages.push(format!("Password should contain at least one character of each: {}.", required.join(", ")));
        reasons.push("characters".to_string());
    }
    if reasons.is_empty() {
        return Ok(());
    }
    Err(AuthError::WeakPassword { message: messages.join(" "), reasons })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argon2id_hashes_use_owasp_parameters_and_verify() {
        let hash = hash_blocking("correct horse").unwrap();
        assert!(hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{hash}");
        assert!(verify_blocking("correct horse", &hash));
        assert!(!verify_blocking("wrong horse", &hash));
    }

    #[test]
    fn bcrypt_hashes_from_supabase_verify() {
        let hash = bcrypt::hash("s3cret-pass", 4).unwrap();
        assert!(hash.starts_with("$2b$"));
        assert!(verify_blocking("s3cret-pass", &hash));
        assert!(!verify_blocking("other", &hash));
        let a_variant = hash.replacen("$2b$", "$2a$", 1);
        assert!(verify_blocking("s3cret-pass", &a_variant));
        assert!(is_supported_hash(&hash));
    }

    #[test]
    fn malformed_hashes_match_nothing_and_are_refused_for_import() {
        assert!(!verify_blocking("x", "not a hash"));
        assert!(!verify_blocking("x", ""));
        assert!(!is_supported_hash("plain"));
        assert!(is_supported_hash(&hash_blocking("abcdef").unwrap()));
    }

    #[test]
    fn short_passwords_are_weak_with_the_length_reason() {
        assert!(check_strength("123456", 6, &[]).is_ok());
        match check_strength("12345", 6, &[]) {
            Err(AuthError::WeakPassword { message, reasons }) => {
                assert_eq!(message, "Password should be at least 6 characters.");
                assert_eq!(reasons, vec!["length"]);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn required_character_sets_split_on_unescaped_colons_as_gotrue() {
        for (value, sets) in [
            ("a:b:c", vec!["a", "b", "c"]),
            ("a\\:b:c", vec!["a:b", "c"]),
            ("a:b\\:c", vec!["a", "b:c"]),
            ("\\:a:b:c", vec![":a", "b", "c"]),
            ("a:b:c\\:", vec!["a", "b", "c:"]),
            ("::\\::", vec![":"]),
            ("", vec![]),
            (" ", vec![" "]),
        ] {
            assert_eq!(required_character_sets(value), sets, "{value}");
        }
    }

    #[test]
    fn a_password_missing_a_required_set_is_weak_with_the_characters_reason() {
        let sets = required_character_sets("abcdefghijklmnopqrstuvwxyz:0123456789");
        assert!(check_strength("horse9", 6, &sets).is_ok());
        match check_strength("horse", 6, &sets) {
            Err(AuthError::WeakPassword { message, reasons }) => {
                assert_eq!(
                    message,
                    "Password should be at least 6 characters. Password should contain at least one character of \
                     each: abcdefghijklmnopqrstuvwxyz, 0123456789."
                );
                assert_eq!(reasons, vec!["length", "characters"]);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[tokio::test]
    async fn unknown_users_cost_a_verification_and_fail() {
        assert!(!verify("anything".into(), None).await);
    }
}
