//! `Prefer` (every preference, first-wins, comma-joined and repeated headers, strict and
//! lenient handling, `Preference-Applied`) and `Range`.
//! These tests go through the public API only and must not rely on parser internals.

use super::*;

fn prefer(headers: &[&str]) -> Preferences {
    parse_prefer(headers.iter().copied()).unwrap()
}

#[test]
fn no_prefer_header() {
    assert_eq!(prefer(&[]), Preferences::default());
}

#[test]
fn prefer_return() {
    assert_eq!(prefer(&["return=minimal"]).return_, Some(ReturnPref::Minimal));
    assert_eq!(prefer(&["return=representation"]).return_, Some(ReturnPref::Representation));
    assert_eq!(prefer(&["return=headers-only"]).return_, Some(ReturnPref::HeadersOnly));
}

#[test]
fn prefer_count() {
    assert_eq!(prefer(&["count=exact"]).count, Some(CountPref::Exact));
    assert_eq!(prefer(&["count=planned"]).count, Some(CountPref::Planned));
    assert_eq!(prefer(&["count=estimated"]).count, Some(CountPref::Estimated));
}

#[test]
fn prefer_resolution() {
    assert_eq!(prefer(&["resolution=merge-duplicates"]).resolution, Some(Resolution::MergeDuplicates));
    assert_eq!(prefer(&["resolution=ignore-duplicates"]).resolution, Some(Resolution::IgnoreDuplicates));
}

#[test]
fn prefer_missing() {
    assert_eq!(prefer(&["missing=default"]).missing, Some(Missing::Default));
    assert_eq!(prefer(&["missing=null"]).missing, Some(Missing::Null));
}

#[test]
fn prefer_handling() {
    assert_eq!(prefer(&["handling=strict"]).handling, Some(Handling::Strict));
    assert_eq!(prefer(&["handling=lenient"]).handling, Some(Handling::Lenient));
}

#[test]
fn prefer_tx() {
    assert_eq!(prefer(&["tx=commit"]).tx, Some(TxPref::Commit));
    assert_eq!(prefer(&["tx=rollback"]).tx, Some(TxPref::Rollback));
}

#[test]
fn prefer_max_affected() {
    let p = prefer(&["max-affected=100"]);
    assert_eq!(p.max_affected, Some(100));
    assert!(p.applied.is_empty(), "only echoed under handling=strict");
    let p = prefer(&["handling=strict, max-affected=5"]);
    assert_eq!(p.applied, strings(&["handling=strict", "max-affected=5"]));
    let p = prefer(&["max-affected=-1", "max-affected=3"]);
    assert_eq!(p.max_affected, None, "the first max-affected decides, as in PostgREST");
    assert_eq!(p.invalid, strings(&["max-affected=-1"]));
}

#[test]
fn prefer_timezone() {
    let p = prefer(&["timezone=America/Los_Angeles"]);
    assert_eq!(p.timezone.as_deref(), Some("America/Los_Angeles"));
    assert_eq!(p.applied, strings(&["timezone=America/Los_Angeles"]));
    let p = prefer(&["timezone=bad zone;"]);
    assert_eq!(p.timezone, None);
    assert_eq!(p.invalid, strings(&["timezone=bad zone;"]));
    let known = |tz: &str| tz == "UTC";
    let p = parse_prefer_with_timezones(["timezone=Mars/Olympus"], &known).unwrap();
    assert_eq!((p.timezone, p.invalid), (None, strings(&["timezone=Mars/Olympus"])));
    let p = parse_prefer_with_timezones(["timezone=UTC, timezone=Other"], &known).unwrap();
    assert_eq!((p.timezone.as_deref(), p.invalid.len()), (Some("UTC"), 0));
}

#[test]
fn prefer_legacy_single_object() {
    let p = prefer(&["params=single-object"]);
    assert!(p.single_object);
    assert!(p.invalid.is_empty() && p.applied.is_empty());
}

#[test]
fn prefer_comma_joined_with_spaces() {
    let p =
        prefer(&["count=exact,    tx=commit   ,return=representation , missing=default, handling=lenient, anything"]);
    assert_eq!(p.count, Some(CountPref::Exact));
    assert_eq!(p.tx, Some(TxPref::Commit));
    assert_eq!(p.return_, Some(ReturnPref::Representation));
    assert_eq!(p.missing, Some(Missing::Default));
    assert_eq!(p.invalid, strings(&["anything"]));
    assert_eq!(
        p.applied,
        strings(&["missing=default", "return=representation", "count=exact", "tx=commit", "handling=lenient"])
    );
}

#[test]
fn prefer_multiple_headers_first_wins() {
    let p = prefer(&["resolution=ignore-duplicates", "resolution=merge-duplicates, count=planned", "count=exact"]);
    assert_eq!(p.resolution, Some(Resolution::IgnoreDuplicates));
    assert_eq!(p.count, Some(CountPref::Planned));
    assert_eq!(p.applied, strings(&["resolution=ignore-duplicates", "count=planned"]));
}

#[test]
fn prefer_lenient_ignores_unknown_and_invalid() {
    let p = prefer(&["return=everything", "Count=exact", "count = exact", "foo"]);
    assert_eq!(p.return_, None);
    assert_eq!(p.count, None);
    assert_eq!(p.invalid, strings(&["return=everything", "Count=exact", "count = exact", "foo"]));
    assert_eq!(prefer(&["handling=lenient, anything"]).invalid, strings(&["anything"]));
}

#[test]
fn prefer_strict_rejects_invalid() {
    let e = parse_prefer(["handling=strict, anything"]).unwrap_err();
    assert_eq!(e, ParseError::InvalidPreferences(strings(&["anything"])));
    assert_eq!(e.code(), "PGRST122");
    assert_eq!(e.status(), 400);
    assert_eq!(e.message(), "Invalid preferences given with handling=strict");
    assert_eq!(e.details().as_deref(), Some("Invalid preferences: anything"));
    let e = parse_prefer(["handling=strict", "something, else"]).unwrap_err();
    assert_eq!(e.details().as_deref(), Some("Invalid preferences: something, else"));
}

#[test]
fn prefer_strict_with_only_valid_prefs() {
    let p = prefer(&["return=representation, handling=strict, timezone=UTC"]);
    assert_eq!(p.applied, strings(&["return=representation", "handling=strict", "timezone=UTC"]));
    assert!(parse_prefer(["handling=lenient, handling=strict, junk"]).is_ok(), "first handling wins");
}

#[test]
fn prefer_empty_entries_are_ignored() {
    assert_eq!(prefer(&["", " , ,count=exact,"]).count, Some(CountPref::Exact));
    assert!(prefer(&[" , "]).invalid.is_empty());
}

#[test]
fn range_with_both_bounds() {
    assert_eq!(parse_range_header("0-9").unwrap(), (0, Some(10)));
    assert_eq!(parse_range_header("10-10").unwrap(), (10, Some(1)));
    assert_eq!(parse_range_header("007-8").unwrap(), (7, Some(2)));
}

#[test]
fn range_offset_only() {
    assert_eq!(parse_range_header("5-").unwrap(), (5, None));
}

#[test]
fn range_unrecognised_values_are_ignored_like_postgrest() {
    for v in ["", "-5", "items=0-9", " 0-9", "0-9 ", "a-b", "0-9-1", "0..9", "+1-2"] {
        assert_eq!(parse_range_header(v).unwrap(), (0, None), "{v:?}");
    }
}

#[test]
fn range_lower_above_upper_is_pgrst103() {
    let e = parse_range_header("10-5").unwrap_err();
    assert_eq!(e, ParseError::InvalidRange(RangeError::LowerGreaterThanUpper));
    assert_eq!(e.code(), "PGRST103");
    assert_eq!(e.status(), 416);
    assert_eq!(e.message(), "Requested range not satisfiable");
    assert_eq!(
        e.details().as_deref(),
        Some("The lower boundary must be lower than or equal to the upper boundary in the Range header.")
    );
}

#[test]
fn range_too_large_is_pgrst103() {
    for v in ["9223372036854775808-", "0-99999999999999999999999"] {
        assert_eq!(parse_range_header(v).unwrap_err(), ParseError::InvalidRange(RangeError::TooLarge));
    }
    assert_eq!(
        parse_range_header("0-9223372036854775807").unwrap_err(),
        ParseError::InvalidRange(RangeError::TooLarge)
    );
    assert_eq!(parse_range_header("1-9223372036854775807").unwrap(), (1, Some(i64::MAX as u64)));
}
