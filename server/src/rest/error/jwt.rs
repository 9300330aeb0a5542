//! JWT failures (PGRST301 / PGRST303) with PostgREST v13+ wording
//! (`JwtDecodeError` / `JwtClaimsError` in `src/PostgREST/Error.hs`).
//!
//! v12 sent a single PGRST301 whose message was the JOSE library's text
//! (e.g. "JWSError JWSInvalidSignature", "JWT expired"); v13 split decoding
//! (PGRST301) from claim validation (PGRST303) with the messages below.

/// The token could not be decoded or verified (PGRST301, 401).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JwtDecodeError {
    /// `Authorization: Bearer ` with nothing after it.
    EmptyAuthHeader,
    /// The token does not have exactly 3 dot-separated parts; carries the count.
    UnexpectedParts(usize),
    /// No key verifies the token; carries the `details` text. PostgREST's
    /// usual one is [`JwtDecodeError::NO_MATCHING_KEY`].
    KeyError(String),
    /// Algorithm wrong or unsupported; carries the `details` text.
    BadAlgorithm(String),
    /// A cryptographic operation failed.
    BadCrypto,
    /// A JWE or other non-JWS token.
    UnsupportedTokenType,
    /// Any other decoding failure.
    Undecodable,
}

impl JwtDecodeError {
    /// The `details` PostgREST (via jose-jwt) sends when the signature matches no key,
    /// e.g. a token signed with another project's secret.
    pub const NO_MATCHING_KEY: &'static str = "None of the keys was able to decode the JWT";

    pub(crate) fn message(&self) -> String {
        match self {
            JwtDecodeError::EmptyAuthHeader => "Empty JWT is sent in Authorization header".to_owned(),
            JwtDecodeError::UnexpectedParts(n) => format!("Expected 3 parts in JWT; got {n}"),
            JwtDecodeError::KeyError(_) => "No suitable key or wrong key type".to_owned(),
            JwtDecodeError::BadAlgorithm(_) => "Wrong or unsupported encoding algorithm".to_owned(),
            JwtDecodeError::BadCrypto => "JWT cryptographic operation failed".to_owned(),
            JwtDecodeError::UnsupportedTokenType => "Unsupported token type".to_owned(),
            JwtDecodeError::Undecodable => "JWT couldn't be decoded".to_owned(),
        }
    }

    pub(crate) fn details(&self) -> Option<&str> {
        match self {
            JwtDecodeError::KeyError(d) | JwtDecodeError::BadAlgorithm(d) => Some(d),
            _ => None,
        }
    }
}

/// The token decoded but its claims are unacceptable (PGRST303, 401).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JwtClaimsError {
    /// `exp` is in the past (PostgREST allows 30 s of clock skew).
    Expired,
    /// `nbf` is in the future.
    NotYetValid,
    /// `iat` is in the future.
    IssuedAtFuture,
    /// `aud` does not match the configured audience.
    NotInAudience,
    /// The payload is not a JSON object.
    ParsingClaimsFailed,
    /// `exp` is not a number.
    ExpNotNumber,
    /// `nbf` is not a number.
    NbfNotNumber,
    /// `iat` is not a number.
    IatNotNumber,
    /// `aud` is neither a string nor an array of strings.
    AudNotStringOrArray,
}

impl JwtClaimsError {
    pub(crate) fn message(self) -> &'static str {
        match self {
            JwtClaimsError::Expired => "JWT expired",
            JwtClaimsError::NotYetValid => "JWT not yet valid",
            JwtClaimsError::IssuedAtFuture => "JWT issued at future",
            JwtClaimsError::NotInAudience => "JWT not in audience",
            JwtClaimsError::ParsingClaimsFailed => "Parsing claims failed",
            JwtClaimsError::ExpNotNumber => "The JWT 'exp' claim must be a number",
            JwtClaimsError::NbfNotNumber => "The JWT 'nbf' claim must be a number",
            JwtClaimsError::IatNotNumber => "The JWT 'iat' claim must be a number",
            JwtClaimsError::AudNotStringOrArray => "The JWT 'aud' claim must be a string or an array of strings",
        }
    }
}

/// `WWW-Authenticate` for a rejected token: `invalidTokenHeader` builds
/// `Bearer error="invalid_token", error_description=<show message>`, where
/// Haskell's `show` quotes and escapes the text.
pub(crate) fn invalid_token_challenge(message: &str) -> String {
    format!("Bearer error=\"invalid_token\", error_description={}", haskell_show(message))
}

/// Haskell `show` of a `Text`: double quotes; `\"`, `\\`, `\n`, `\t`, `\r`;
/// other non-printable or non-ASCII characters as decimal escapes, with `\&`
/// separating an escape from a following digit. (Haskell names some control
/// characters, e.g. `\SOH`; PostgREST's JWT messages contain none.)
fn haskell_show(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut pending_numeric = false;
    for c in s.chars() {
        if pending_numeric && c.is_ascii_digit() {
            out.push_str("\\&");
        }
        pending_numeric = false;
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            ' '..='~' => out.push(c),
            _ => {
                out.push('\\');
                out.push_str(&u32::from(c).to_string());
                pending_numeric = true;
            }
        }
    }
    out.push('"');
    out
}

/// The PostgREST error for a refusal of the gate on `/rest/v1`; `None` for what the API gateway
/// answers itself in Supabase (a missing or unknown key, a secret key from a browser).
pub fn from_gate(err: &crate::gate::GateError) -> Option<super::RestError> {
    use super::RestError;
    use crate::gate::GateError;
    use crate::jwt::{ClaimError, JwtError};
    if err.is_gateway_refusal() {
        return None;
    }
    Some(match err {
        GateError::NoRole => RestError::AnonymousAccessDisabled,
        GateError::EmptyBearer => RestError::jwt_decode(JwtDecodeError::EmptyAuthHeader),
        GateError::Jwt(JwtError::Expired) => RestError::jwt_claims(JwtClaimsError::Expired),
        GateError::Jwt(JwtError::Audience) => RestError::jwt_claims(JwtClaimsError::NotInAudience),
        GateError::Jwt(JwtError::Claims(claim)) => RestError::jwt_claims(match claim {
            ClaimError::NotYetValid => JwtClaimsError::NotYetValid,
            ClaimError::IssuedAtFuture => JwtClaimsError::IssuedAtFuture,
            ClaimError::NotNumber("exp") => JwtClaimsError::ExpNotNumber,
            ClaimError::NotNumber("nbf") => JwtClaimsError::NbfNotNumber,
            ClaimError::NotNumber(_) => JwtClaimsError::IatNotNumber,
        }),
        GateError::Jwt(JwtError::Invalid(reason)) => RestError::jwt_decode(match reason.as_str() {
            "token is malformed" => JwtDecodeError::Undecodable,
            "signing method (alg) is unavailable" => JwtDecodeError::BadAlgorithm(reason.clone()),
            _ => JwtDecodeError::BadCrypto,
        }),
        // the gateway's refusals returned above
        GateError::MissingApiKey | GateError::SecretKeyInBrowser | GateError::Jwt(JwtError::UnknownApiKey) => {
            return None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::haskell_show;

    #[test]
    fn show_escapes_like_haskell() {
        assert_eq!(haskell_show("JWT expired"), "\"JWT expired\"");
        assert_eq!(haskell_show("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(haskell_show("é1"), "\"\\233\\&1\"");
    }
}
