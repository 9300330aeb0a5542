//! Refresh tokens of algorithm 2, in GoTrue's format: a session's id and a counter, signed with
//! the session's own HMAC-SHA-256 key (`auth.sessions.refresh_token_hmac_key`), so that a refresh
//! checks and advances one session row instead of looking up, revoking and inserting token rows.
//!
//! The token is the unpadded base64url of: a version byte (0), the session id's 16 bytes, the
//! counter as an unsigned LEB128 varint, the first 16 bytes of the HMAC of everything before
//! them, and the first 4 bytes of the SHA-256 of everything before those (a checksum, so that a
//! damaged string is told apart without the session's key; the grant then looks it up as an
//! algorithm-1 token and finds nothing). Algorithm-1 tokens are 32 alphanumeric characters, too
//! short to parse as one of these. Nothing here touches the database.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::{Digest, Sha256};
use uuid::Uuid;

const SIGNATURE_LEN: usize = 16;
const CHECKSUM_LEN: usize = 4;
const MIN_LEN: usize = 1 + 16 + 1 + SIGNATURE_LEN + CHECKSUM_LEN;
const MAX_LEN: usize = MIN_LEN + 9;

/// A parsed token whose checksum holds; its signature is checked against the session's key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub session_id: Uuid,
    pub counter: i64,
    /// The bytes the signature covers.
    pub signed: Vec<u8>,
    pub signature: Vec<u8>,
}

/// A new session key: 32 random bytes, and their base64 as the column stores them.
pub fn new_key() -> ([u8; 32], String) {
    let mut key = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut key);
    (key, STANDARD.encode(key))
}

/// The bytes of a key as the column stores it (base64), `None` if it is not base64.
pub fn stored_key(text: &str) -> Option<Vec<u8>> {
    STANDARD.decode(text).ok()
}

/// The token for `counter` of `session_id`, signed with `key`.
pub fn encode(session_id: Uuid, counter: i64, key: &[u8]) -> String {
    let mut bytes = Vec::with_capacity(MAX_LEN);
    bytes.push(0);
    bytes.extend_from_slice(session_id.as_bytes());
    let mut n = counter.max(0) as u64;
    loop {
        let low = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            bytes.push(low);
            break;
        }
        bytes.push(low | 0x80);
    }
    let signature = sign(key, &bytes);
    bytes.extend_from_slice(&signature);
    let checksum = Sha256::digest(&bytes);
    bytes.extend_from_slice(&checksum[..CHECKSUM_LEN]);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The token's parts, or `None` for anything that is not an algorithm-2 token (an algorithm-1
/// token, a damaged string).
pub fn parse(token: &str) -> Option<Parsed> {
    if token.len() > MAX_LEN.div_ceil(3) * 4 {
        return None;
    }
    let bytes = URL_SAFE_NO_PAD.decode(token).ok()?;
    if !(MIN_LEN..=MAX_LEN).contains(&bytes.len()) || bytes[0] != 0 {
        return None;
    }
    let (body, checksum) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
    if Sha256::digest(body)[..CHECKSUM_LEN] != *checksum {
        return None;
    }
    let session_id = Uuid::from_slice(&body[1..17]).ok()?;
    let mut counter: u64 = 0;
    let mut at = 17;
    for shift in (0..64).step_by(7) {
        let byte = *body.get(at)?;
        at += 1;
        counter |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            break;
        }
        if shift >= 63 {
            return None;
        }
    }
    let counter = i64::try_from(counter).ok()?;
    if body.len() - at != SIGNATURE_LEN {
        return None;
    }
    Some(Parsed { session_id, counter, signed: body[..at].to_vec(), signature: body[at..].to_vec() })
}

/// The first 16 bytes of the HMAC-SHA-256 of `bytes` under `key`.
fn sign(key: &[u8], bytes: &[u8]) -> [u8; SIGNATURE_LEN] {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(bytes);
    let mut out = [0u8; SIGNATURE_LEN];
    out.copy_from_slice(&mac.finalize().into_bytes()[..SIGNATURE_LEN]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_parses_back_to_its_session_and_counter_with_a_signature_of_its_key() {
        let (key, stored) = new_key();
        assert_eq!(stored_key(&stored).as_deref(), Some(&key[..]));
        let session = Uuid::new_v4();
        for counter in [0, 1, 127, 128, 300, 1 << 40, i64::MAX] {
            let token = encode(session, counter, &key);
            let parsed = parse(&token).expect("parse");
            assert_eq!((parsed.session_id, parsed.counter), (session, counter));
            assert_eq!(parsed.signature, sign(&key, &parsed.signed).to_vec());
            assert_ne!(parsed.signature, sign(b"another key", &parsed.signed).to_vec());
        }
    }

    #[test]
    fn algorithm_one_tokens_and_damaged_strings_do_not_parse() {
        let token = encode(Uuid::new_v4(), 5, &new_key().0);
        assert!(parse("abcdefghijklmnopqrstuvwxyz012345").is_none(), "an algorithm-1 token");
        assert!(parse("").is_none());
        assert!(parse(&token[..token.len() - 1]).is_none(), "cut short");
        assert!(parse(&format!("{token}AA")).is_none(), "too long");
        // One character changed anywhere breaks the checksum (or the base64).
        for at in 0..token.len() {
            let mut chars: Vec<char> = token.chars().collect();
            chars[at] = if chars[at] == 'A' { 'B' } else { 'A' };
            let changed: String = chars.into_iter().collect();
            assert!(parse(&changed).is_none(), "changed at {at}: {changed}");
        }
    }

    #[test]
    fn a_stored_key_that_is_not_base64_is_refused() {
        assert!(stored_key("not base64!").is_none());
    }
}
