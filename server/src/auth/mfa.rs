//! TOTP for multi-factor authentication (RFC 6238: HMAC-SHA1, 30-second steps, 6 digits), the
//! base32 secrets authenticator apps read, the `otpauth://` URI and its QR code (SVG).
//!
//! Codes are accepted one step either side of now, for clock drift. Nothing here touches the
//! database or HTTP; `handlers/factors.rs` does the enrolment, challenge and verification.

use hmac::{Hmac, Mac};
use rand::RngCore;
use sha1::Sha1;

const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/// Seconds per TOTP step.
pub const STEP_SECS: i64 = 30;

/// RFC 4648 base32, upper case, no padding.
pub fn base32_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for &b in bytes {
        buffer = (buffer << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            out.push(char::from(ALPHABET[((buffer >> (bits - 5)) & 31) as usize]));
            bits -= 5;
        }
    }
    if bits > 0 {
        out.push(char::from(ALPHABET[((buffer << (5 - bits)) & 31) as usize]));
    }
    out
}

/// Decode base32 (case and padding ignored); `None` on a foreign character.
pub fn base32_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 5 / 8);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for c in text.chars().filter(|c| *c != '=') {
        let value = ALPHABET.iter().position(|a| char::from(*a) == c.to_ascii_uppercase())? as u32;
        buffer = (buffer << 5) | value;
        bits += 5;
        if bits >= 8 {
            out.push(((buffer >> (bits - 8)) & 0xff) as u8);
            bits -= 8;
        }
    }
    Some(out)
}

/// A fresh 160-bit secret, base32.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 20];
    rand::thread_rng().fill_bytes(&mut bytes);
    base32_encode(&bytes)
}

/// The code for `secret` at step `counter`, with `digits` digits.
pub fn code_at(secret: &[u8], counter: u64, digits: u32) -> String {
    let Ok(mut mac) = Hmac::<Sha1>::new_from_slice(secret) else { return String::new() };
    mac.update(&counter.to_be_bytes());
    let hash = mac.finalize().into_bytes();
    let offset = usize::from(hash[hash.len() - 1] & 0x0f);
    let binary = (u32::from(hash[offset]) & 0x7f) << 24
        | u32::from(hash[offset + 1]) << 16
        | u32::from(hash[offset + 2]) << 8
        | u32::from(hash[offset + 3]);
    format!("{:0width$}", binary % 10u32.pow(digits), width = digits as usize)
}

/// Whether `code` is valid for the base32 `secret` at unix time `now` (one step of drift allowed).
pub fn verify(secret_b32: &str, code: &str, now: i64) -> bool {
    let Some(secret) = base32_decode(secret_b32) else { return false };
    let code = code.trim();
    if code.len() != 6 || !code.chars().all(|c| c.is_ascii_digit()) {
        return false;
    }
    let step = now / STEP_SECS;
    (step - 1..=step + 1).filter(|s| *s >= 0).any(|s| constant_eq(&code_at(&secret, s as u64, 6), code))
}

fn constant_eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The `otpauth://` URI authenticator apps import.
pub fn uri(issuer: &str, account: &str, secret: &str) -> String {
    let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>().replace('+', "%20");
    format!(
        "otpauth://totp/{}:{}?algorithm=SHA1&digits=6&issuer={}&period=30&secret={secret}",
        enc(issuer),
        enc(account),
        enc(issuer)
    )
}

/// The URI as an SVG QR code (empty if it cannot be encoded).
pub fn qr_svg(uri: &str) -> String {
    match qrcode::QrCode::new(uri.as_bytes()) {
        // named colours, not `#000`: supabase-js puts this SVG unencoded after
        // `data:image/svg+xml;utf-8,`, where a `#` would end the image (it starts the fragment).
        Ok(code) => code
            .render::<qrcode::render::svg::Color>()
            .min_dimensions(200, 200)
            .dark_color(qrcode::render::svg::Color("black"))
            .light_color(qrcode::render::svg::Color("white"))
            .build(),
        Err(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6238_sha1_vectors() {
        let secret = b"12345678901234567890";
        assert_eq!(code_at(secret, 59 / 30, 8), "94287082");
        assert_eq!(code_at(secret, 1_111_111_109 / 30, 8), "07081804");
        assert_eq!(code_at(secret, 1_234_567_890 / 30, 8), "89005924");
        assert_eq!(code_at(secret, 59 / 30, 6), "287082");
    }

    #[test]
    fn base32_round_trips_and_matches_rfc4648() {
        assert_eq!(base32_encode(b"foobar"), "MZXW6YTBOI");
        assert_eq!(base32_decode("MZXW6YTBOI======").unwrap(), b"foobar");
        assert_eq!(base32_decode("mzxw6ytboi").unwrap(), b"foobar");
        assert!(base32_decode("1!").is_none());
        assert_eq!(new_secret().len(), 32);
    }

    #[test]
    fn verification_allows_one_step_of_drift_only() {
        let secret = base32_encode(b"12345678901234567890");
        let now = 1_111_111_109;
        assert!(verify(&secret, "081804", now));
        assert!(verify(&secret, "081804", now + 30));
        assert!(!verify(&secret, "081804", now + 90));
        assert!(!verify(&secret, "abcdef", now));
        assert!(!verify(&secret, "81804", now));
    }

    #[test]
    fn uri_and_qr_code() {
        let uri = uri("My Site", "a@b.test", "ABC");
        assert_eq!(
            uri,
            "otpauth://totp/My%20Site:a%40b.test?algorithm=SHA1&digits=6&issuer=My%20Site&period=30&secret=ABC"
        );
        let svg = qr_svg(&uri);
        assert!(svg.contains("<svg"));
        assert!(!svg.contains('#'), "usable as an unencoded data: URL");
    }
}
