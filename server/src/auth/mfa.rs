//! TOTP for multi-factor authentication (RFC 6238: HMAC-SHA1, 30-second steps, 6 digits), the
//! base32 secrets authenticator apps read, the `otpauth://` URI and its QR code (SVG).
//!
//! Codes are accepted one step either side of now, for clock drift. Nothing here touches the
//! database or HTTP; `handlers/factors.rs` does the enrolment, challenge and verification.

use data_encoding::BASE32_NOPAD;
use rand::RngCore;
use totp_rs::{Algorithm, Builder, Totp};

/// Seconds per TOTP step.
pub const STEP_SECS: i64 = 30;

/// RFC 4648 base32, upper case, no padding.
pub fn base32_encode(bytes: &[u8]) -> String {
    BASE32_NOPAD.encode(bytes)
}

/// Decode base32 (case and padding ignored); `None` on a foreign character.
pub fn base32_decode(text: &str) -> Option<Vec<u8>> {
    let cleaned: String = text.chars().filter(|c| *c != '=').map(|c| c.to_ascii_uppercase()).collect();
    BASE32_NOPAD.decode(cleaned.as_bytes()).ok()
}

/// A fresh 160-bit secret, base32.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 20];
    rand::thread_rng().fill_bytes(&mut bytes);
    base32_encode(&bytes)
}

/// TOTP over `secret` (HMAC-SHA1, 30-second steps) with `digits` digits and one step of drift.
/// Secrets shorter than RFC 4226's 128 bits are accepted: authenticators imported with 80-bit
/// secrets exist.
fn totp(secret: &[u8], digits: u8) -> Totp {
    Builder::new()
        .with_algorithm(Algorithm::SHA1)
        .with_digits(digits)
        .with_skew(1)
        .with_step_duration(STEP_SECS as u64)
        .with_secret(secret.to_vec())
        .build_noncompliant()
}

/// The code for `secret` at step `counter`, with `digits` digits (6 to 8).
pub fn code_at(secret: &[u8], counter: u64, digits: u8) -> String {
    totp(secret, digits).generate(counter * STEP_SECS as u64).to_string()
}

/// Whether `code` is valid for the base32 `secret` at unix time `now` (one step of drift allowed,
/// compared in constant time by `totp-rs`).
pub fn verify(secret_b32: &str, code: &str, now: i64) -> bool {
    let Some(secret) = base32_decode(secret_b32) else { return false };
    let code = code.trim();
    if code.len() != 6 || !code.chars().all(|c| c.is_ascii_digit()) || now < 0 {
        return false;
    }
    totp(&secret, 6).check(code, now as u64).is_some()
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
