//! The `Prefer` request header (RFC 7240 as PostgREST reads it): recognised preferences,
//! the canonical `Preference-Applied` list, and `handling=strict` rejection (PGRST122).
//!
//! Like PostgREST, every `Prefer` header value is split on commas and trimmed, matching is
//! exact and case-sensitive, and the first occurrence of each preference wins. This module
//! must not look at other headers, and it cannot know server settings: the caller must
//! drop `tx` unless the database allows overriding the transaction end (and then remove
//! `tx=...` from `applied`), and should validate time zones through
//! [`parse_prefer_with_timezones`].

use super::error::ParseError;

/// `return=`
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnPref {
    /// `return=minimal`: no body.
    Minimal,
    /// `return=representation`: the affected rows.
    Representation,
    /// `return=headers-only`: only a `Location` header.
    HeadersOnly,
}

/// `count=`
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountPref {
    /// `count=exact`
    Exact,
    /// `count=planned`
    Planned,
    /// `count=estimated`
    Estimated,
}

/// `resolution=` (upsert conflict handling).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// `resolution=merge-duplicates`
    MergeDuplicates,
    /// `resolution=ignore-duplicates`
    IgnoreDuplicates,
}

/// `missing=` (columns absent from the payload).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// `missing=default`: use column defaults.
    Default,
    /// `missing=null`: use NULL.
    Null,
}

/// `handling=`
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// `handling=strict`: invalid preferences are an error.
    Strict,
    /// `handling=lenient`: invalid preferences are ignored (the default).
    Lenient,
}

/// `tx=`
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxPref {
    /// `tx=commit`
    Commit,
    /// `tx=rollback`
    Rollback,
}

/// Everything recognised in the `Prefer` headers of one request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Preferences {
    /// `return=`
    pub return_: Option<ReturnPref>,
    /// `count=`
    pub count: Option<CountPref>,
    /// `resolution=`
    pub resolution: Option<Resolution>,
    /// `missing=`
    pub missing: Option<Missing>,
    /// `handling=`; `None` behaves as lenient.
    pub handling: Option<Handling>,
    /// `tx=` (the caller must ignore it unless overriding is allowed).
    pub tx: Option<TxPref>,
    /// `max-affected=N` (0 ..= `i64::MAX`).
    pub max_affected: Option<u64>,
    /// `timezone=...` when accepted by the time-zone check.
    pub timezone: Option<String>,
    /// Legacy `params=single-object` (PostgREST 12; removed in 13). Never echoed.
    pub single_object: bool,
    /// Canonical values to echo in `Preference-Applied`, in PostgREST's order:
    /// resolution, missing, return, count, tx, handling, timezone, and max-affected only
    /// under `handling=strict`.
    pub applied: Vec<String>,
    /// Unrecognised or invalid preferences, as sent (after trimming).
    pub invalid: Vec<String>,
}

enum Pref {
    Return(ReturnPref),
    Count(CountPref),
    Resolution(Resolution),
    Missing(Missing),
    Handling(Handling),
    Tx(TxPref),
    SingleObject,
}

fn recognise(token: &str) -> Option<Pref> {
    Some(match token {
        "return=minimal" => Pref::Return(ReturnPref::Minimal),
        "return=representation" => Pref::Return(ReturnPref::Representation),
        "return=headers-only" => Pref::Return(ReturnPref::HeadersOnly),
        "count=exact" => Pref::Count(CountPref::Exact),
        "count=planned" => Pref::Count(CountPref::Planned),
        "count=estimated" => Pref::Count(CountPref::Estimated),
        "resolution=merge-duplicates" => Pref::Resolution(Resolution::MergeDuplicates),
        "resolution=ignore-duplicates" => Pref::Resolution(Resolution::IgnoreDuplicates),
        "missing=default" => Pref::Missing(Missing::Default),
        "missing=null" => Pref::Missing(Missing::Null),
        "handling=strict" => Pref::Handling(Handling::Strict),
        "handling=lenient" => Pref::Handling(Handling::Lenient),
        "tx=commit" => Pref::Tx(TxPref::Commit),
        "tx=rollback" => Pref::Tx(TxPref::Rollback),
        "params=single-object" => Pref::SingleObject,
        _ => return None,
    })
}

fn first<T>(slot: &mut Option<T>, value: T) {
    if slot.is_none() {
        *slot = Some(value);
    }
}

/// Default time-zone check used by [`super::parse_prefer`]: a plausible IANA/POSIX name
/// (`America/Los_Angeles`, `UTC`, `Etc/GMT+5`). The server should prefer
/// [`parse_prefer_with_timezones`] with the names from `pg_timezone_names`.
pub fn plausible_timezone(tz: &str) -> bool {
    !tz.is_empty() && tz.len() <= 64 && tz.chars().all(|c| c.is_ascii_alphanumeric() || "_+-/:.".contains(c))
}

/// Like [`super::parse_prefer`], with the server's own check of `timezone=` values. As in
/// PostgREST, the first `timezone=` decides; if it is rejected, every `timezone=` entry is
/// reported as invalid.
pub fn parse_prefer_with_timezones<'a>(
    headers: impl IntoIterator<Item = &'a str>,
    timezone_ok: &dyn Fn(&str) -> bool,
) -> Result<Preferences, ParseError> {
    let tokens: Vec<&str> =
        headers.into_iter().flat_map(|h| h.split(',')).map(str::trim).filter(|t| !t.is_empty()).collect();
    let mut p = Preferences::default();
    let first_tz = tokens.iter().find_map(|t| t.strip_prefix("timezone="));
    let tz_accepted = first_tz.is_some_and(timezone_ok);
    if tz_accepted {
        p.timezone = first_tz.map(str::to_string);
    }
    let mut max_affected_seen = false;
    for token in &tokens {
        if let Some(pref) = recognise(token) {
            match pref {
                Pref::Return(v) => first(&mut p.return_, v),
                Pref::Count(v) => first(&mut p.count, v),
                Pref::Resolution(v) => first(&mut p.resolution, v),
                Pref::Missing(v) => first(&mut p.missing, v),
                Pref::Handling(v) => first(&mut p.handling, v),
                Pref::Tx(v) => first(&mut p.tx, v),
                Pref::SingleObject => p.single_object = true,
            }
        } else if token.starts_with("timezone=") {
            if !tz_accepted {
                p.invalid.push((*token).to_string());
            }
        } else if let Some(n) = token.strip_prefix("max-affected=") {
            let parsed = n.parse::<u64>().ok().filter(|v| i64::try_from(*v).is_ok());
            if !max_affected_seen {
                p.max_affected = parsed;
                max_affected_seen = true;
            }
            if parsed.is_none() {
                p.invalid.push((*token).to_string());
            }
        } else {
            p.invalid.push((*token).to_string());
        }
    }
    if p.handling == Some(Handling::Strict) && !p.invalid.is_empty() {
        return Err(ParseError::InvalidPreferences(p.invalid));
    }
    p.applied = applied(&p);
    Ok(p)
}

fn applied(p: &Preferences) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: Option<&str>| {
        if let Some(s) = s {
            out.push(s.to_string());
        }
    };
    push(p.resolution.map(|r| match r {
        Resolution::MergeDuplicates => "resolution=merge-duplicates",
        Resolution::IgnoreDuplicates => "resolution=ignore-duplicates",
    }));
    push(p.missing.map(|m| match m {
        Missing::Default => "missing=default",
        Missing::Null => "missing=null",
    }));
    push(p.return_.map(|r| match r {
        ReturnPref::Minimal => "return=minimal",
        ReturnPref::Representation => "return=representation",
        ReturnPref::HeadersOnly => "return=headers-only",
    }));
    push(p.count.map(|c| match c {
        CountPref::Exact => "count=exact",
        CountPref::Planned => "count=planned",
        CountPref::Estimated => "count=estimated",
    }));
    push(p.tx.map(|t| match t {
        TxPref::Commit => "tx=commit",
        TxPref::Rollback => "tx=rollback",
    }));
    push(p.handling.map(|h| match h {
        Handling::Strict => "handling=strict",
        Handling::Lenient => "handling=lenient",
    }));
    if let Some(tz) = &p.timezone {
        out.push(format!("timezone={tz}"));
    }
    if let (Some(Handling::Strict), Some(n)) = (p.handling, p.max_affected) {
        out.push(format!("max-affected={n}"));
    }
    out
}
