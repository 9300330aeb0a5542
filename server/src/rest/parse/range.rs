//! The `Range` request header (`0-9`, `5-`), read exactly as PostgREST's `rangeParse`:
//! only a value matching `^[0-9]+-[0-9]*$` means anything; any other value is ignored
//! (the whole result set), and a lower bound above the upper one is PGRST103 (HTTP 416).
//!
//! `Range-Unit: items` is informational: PostgREST never reads it, so neither does this
//! module. It must not combine the header with `limit`/`offset` or apply it to methods
//! other than GET; those are the caller's decisions (PostgREST ignores `Range` on non-GET).

use super::error::{ParseError, RangeError};

/// Parses a `Range` value into `(offset, limit)`: `0-9` is `(0, Some(10))`, `5-` is
/// `(5, None)`, and an unrecognised value is `(0, None)`.
pub(crate) fn parse_range(value: &str) -> Result<(u64, Option<u64>), ParseError> {
    let Some((lower, upper)) = value.split_once('-') else { return Ok((0, None)) };
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if lower.is_empty() || !digits(lower) || !digits(upper) {
        return Ok((0, None));
    }
    let lower = bound(lower)?;
    if upper.is_empty() {
        return Ok((lower, None));
    }
    let upper = bound(upper)?;
    if lower > upper {
        return Err(ParseError::InvalidRange(RangeError::LowerGreaterThanUpper));
    }
    let limit = upper
        .checked_sub(lower)
        .and_then(|d| d.checked_add(1))
        .filter(|l| i64::try_from(*l).is_ok())
        .ok_or(ParseError::InvalidRange(RangeError::TooLarge))?;
    Ok((lower, Some(limit)))
}

/// A bound (and so also a limit) of at most `i64::MAX` (leading zeros allowed).
fn bound(s: &str) -> Result<u64, ParseError> {
    s.parse::<u64>().ok().filter(|v| i64::try_from(*v).is_ok()).ok_or(ParseError::InvalidRange(RangeError::TooLarge))
}
