//! Names and typed fragments shared by several parameters: identifiers, field names
//! (quoted or dash-joined), JSON paths (`->key`, `->>0`), fields, and cast type names in
//! the only shape allowed to reach SQL unquoted.
//!
//! It must not know which parameter it is parsing, and must not slice strings by byte
//! offset or panic; it builds only on the primitives of `lex.rs`.

use std::borrow::Cow;

use nom::bytes::complete::take_while;
use nom::character::complete::digit1;
use nom::combinator::{opt, recognize};
use nom::error::ParseError as _;
use nom::sequence::pair;

use super::ast::{Field, JsonKey, JsonOperation};
use super::lex::{ch, fail, fatal, lexeme, quoted, take1, ws, PErr, PResult};

fn is_ident_char(c: char) -> bool {
    c.is_alphabetic() || c.is_ascii_digit() || c == '_' || c == ' ' || c == '$'
}

const FIELD_NAME: &str = "field name (* or [a..z0..9_$])";

/// PostgREST's `pIdentifier`: letters, digits, `_`, `$` and spaces, trimmed. Unlike
/// PostgREST, an identifier made only of spaces is rejected.
pub(crate) fn identifier(i: &str) -> PResult<'_, String> {
    let (rest, raw) = take1(i, is_ident_char, FIELD_NAME)?;
    let trimmed = raw.trim_matches(' ');
    if trimmed.is_empty() {
        return fail(i, FIELD_NAME);
    }
    Ok((rest, trimmed.to_string()))
}

/// `p ('-' p)*` where the dash is not the start of `->`; the parts are joined with `-`.
fn sep_by_dash<'a>(p: impl Fn(&'a str) -> PResult<'a, String>) -> impl Fn(&'a str) -> PResult<'a, String> {
    move |i| {
        let (mut rest, mut out) = p(i)?;
        while let Some(after) = rest.strip_prefix('-') {
            if after.starts_with('>') {
                break;
            }
            let (r, next) = p(after)?;
            out.push('-');
            out.push_str(&next);
            rest = r;
        }
        Ok((rest, out))
    }
}

/// A field, relation, alias or hint name: `"quoted"` or dash-joined identifiers.
/// Returns the name and whether it was quoted. Empty names are rejected.
pub(crate) fn field_name_q(i: &str) -> PResult<'_, (String, bool)> {
    if i.starts_with('"') {
        let (rest, name) = quoted(i)?;
        if name.is_empty() {
            return fail(i, "non-empty quoted name");
        }
        return Ok((rest, (name, true)));
    }
    let (rest, name) = sep_by_dash(identifier)(i)?;
    Ok((rest, (name, false)))
}

/// [`field_name_q`] without the quoted flag.
pub(crate) fn field_name(i: &str) -> PResult<'_, String> {
    let (rest, (name, _)) = field_name_q(i)?;
    Ok((rest, name))
}

fn json_key_ident(i: &str) -> PResult<'_, String> {
    let (rest, raw) = take1(i, |c| !"(-:.,>)".contains(c), "json key (any character but .,:>()-)")?;
    Ok((rest, raw.trim().to_string()))
}

fn json_index(i: &str) -> PResult<'_, i64> {
    let (rest, digits) = recognize(pair(opt(ch('-')), |d| take1(d, |c| c.is_ascii_digit(), "digit")))(i)?;
    let (after_ws, _) = ws(rest)?;
    let ends = after_ws.is_empty() || ["->", "::", ".", ",", ")"].iter().any(|t| after_ws.starts_with(t));
    if !ends {
        return Err(nom::Err::Error(PErr {
            input: after_ws,
            expected: ["digit", "\"->\"", "\"::\"", "\".\"", "\",\"", "\")\"", "end of input"]
                .map(Cow::Borrowed)
                .to_vec(),
            too_deep: false,
        }));
    }
    match digits.parse::<i64>() {
        Ok(n) => Ok((after_ws, n)),
        Err(_) => fatal(i, "json array index within 64-bit range"),
    }
}

fn json_operand(i: &str) -> PResult<'_, JsonKey> {
    let index_err = match json_index(i) {
        Ok((rest, n)) => return Ok((rest, JsonKey::Index(n))),
        Err(nom::Err::Error(e)) => e,
        Err(e) => return Err(e),
    };
    let key = if i.starts_with('"') { quoted(i) } else { sep_by_dash(json_key_ident)(i) };
    match key {
        Ok((rest, key)) => Ok((rest, JsonKey::Key(key))),
        Err(nom::Err::Error(e)) => Err(nom::Err::Error(index_err.or(e))),
        Err(e) => Err(e),
    }
}

/// Zero or more `->key` / `->>key` / `->0` steps. After an arrow the operand is mandatory.
pub(crate) fn json_path(i: &str) -> PResult<'_, Vec<JsonOperation>> {
    let mut ops = Vec::new();
    let mut rest = i;
    loop {
        let (after, double) = if let Some(r) = rest.strip_prefix("->>") {
            (r, true)
        } else if let Some(r) = rest.strip_prefix("->") {
            (r, false)
        } else {
            return Ok((rest, ops));
        };
        let (r, key) = match json_operand(after) {
            Ok(ok) => ok,
            Err(nom::Err::Error(e)) => return Err(nom::Err::Failure(e)),
            Err(e) => return Err(e),
        };
        ops.push(if double { JsonOperation::DoubleArrow(key) } else { JsonOperation::Arrow(key) });
        rest = r;
    }
}

/// A column with optional JSON path, surrounded by optional whitespace (PostgREST's `pField`).
pub(crate) fn field(i: &str) -> PResult<'_, Field> {
    lexeme(|i| {
        let (i, column) = field_name(i)?;
        let (i, json_path) = json_path(i)?;
        Ok((i, Field { column, json_path }))
    })(i)
}

/// Words allowed after the first word of a cast type (`double precision`,
/// `timestamp(3) with time zone`, `character varying(10)`, `interval day to second`).
const TYPE_KEYWORDS: &[&str] = &[
    "precision",
    "varying",
    "with",
    "without",
    "time",
    "zone",
    "character",
    "char",
    "bit",
    "double",
    "national",
    "year",
    "month",
    "day",
    "hour",
    "minute",
    "second",
    "to",
];

fn type_word(i: &str) -> PResult<'_, &str> {
    let (rest, w) = take1(i, |c| c.is_ascii_alphanumeric() || c == '_', "type name")?;
    match w.chars().next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => Ok((rest, w)),
        _ => fail(i, "type name"),
    }
}

fn type_modifier(i: &str) -> PResult<'_, String> {
    let (i, _) = ch('(')(i)?;
    let (i, _) = ws(i)?;
    let (i, a) = digit1(i)?;
    let (i, _) = ws(i)?;
    let (i, b) = opt(|i| {
        let (i, _) = ch(',')(i)?;
        let (i, _) = ws(i)?;
        let (i, b) = digit1(i)?;
        let (i, _) = ws(i)?;
        Ok((i, b))
    })(i)?;
    let (i, _) = ch(')')(i)?;
    Ok((
        i,
        match b {
            Some(b) => format!("({a},{b})"),
            None => format!("({a})"),
        },
    ))
}

fn array_suffix(i: &str) -> PResult<'_, String> {
    let (i, _) = ch('[')(i)?;
    let (i, n) = take_while(|c: char| c.is_ascii_digit())(i)?;
    let (i, _) = ch(']')(i)?;
    Ok((i, format!("[{n}]")))
}

/// A cast target in type-name shape only (see `SelectItem::Column::cast`), normalised to
/// single spaces between words. Never accepts quotes, semicolons, dashes, dots or `$`.
pub(crate) fn cast_type(i: &str) -> PResult<'_, String> {
    let (mut rest, first) = type_word(i)?;
    let mut out = first.to_string();
    loop {
        if let Ok((r, m)) = type_modifier(rest) {
            out.push_str(&m);
            rest = r;
            continue;
        }
        if let Ok((r, a)) = array_suffix(rest) {
            out.push_str(&a);
            rest = r;
            continue;
        }
        let (after_ws, spaces) = take_while(|c| c == ' ')(rest)?;
        if spaces.is_empty() {
            return Ok((rest, out));
        }
        if after_ws.starts_with('(') || after_ws.starts_with('[') {
            rest = after_ws;
            continue;
        }
        match type_word(after_ws) {
            Ok((r, w)) if TYPE_KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(w)) => {
                out.push(' ');
                out.push_str(w);
                rest = r;
            }
            Ok(_) => return fatal(after_ws, "type keyword (precision, varying, with, time, zone, ...)"),
            Err(_) => return Ok((rest, out)),
        }
    }
}
