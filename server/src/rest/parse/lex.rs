//! Shared nom building blocks of the query-string grammar: the internal error type,
//! whitespace, literals, quoted values, identifiers, field names, JSON paths, cast names,
//! separated lists, and [`run`], which applies a parser to a whole parameter and turns a
//! failure into a [`ParseError`].
//!
//! Nothing here knows about a particular parameter (select, order, ...). Nothing here may
//! panic or index strings by byte offset: input is consumed only through `strip_prefix`,
//! `get` and nom, so every slice stays on a character boundary.

use std::borrow::Cow;

use nom::bytes::complete::take_while;
use nom::character::complete::digit1;
use nom::combinator::{opt, recognize};
use nom::error::{ContextError, ErrorKind, ParseError as NomParseError};
use nom::sequence::pair;
use nom::IResult;

use super::ast::{Field, JsonKey, JsonOperation};
use super::error::{ParamKind, ParseError};
use super::MAX_DEPTH;

/// Result of every internal parser.
pub(crate) type PResult<'a, O> = IResult<&'a str, O, PErr<'a>>;

/// Internal parse error: where it happened, what would have been accepted there, and
/// whether the nesting limit was hit. Between alternatives the furthest error wins and
/// errors at the same place merge their expectations, which approximates Parsec's messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PErr<'a> {
    pub(crate) input: &'a str,
    pub(crate) expected: Vec<Cow<'static, str>>,
    pub(crate) too_deep: bool,
}

impl<'a> PErr<'a> {
    pub(crate) fn new(input: &'a str, expected: impl Into<Cow<'static, str>>) -> Self {
        Self { input, expected: vec![expected.into()], too_deep: false }
    }
}

impl<'a> NomParseError<&'a str> for PErr<'a> {
    fn from_error_kind(input: &'a str, _kind: ErrorKind) -> Self {
        Self { input, expected: Vec::new(), too_deep: false }
    }

    fn append(_input: &'a str, _kind: ErrorKind, other: Self) -> Self {
        other
    }

    fn or(mut self, other: Self) -> Self {
        if self.too_deep || other.too_deep {
            return if self.too_deep { self } else { other };
        }
        match self.input.len().cmp(&other.input.len()) {
            std::cmp::Ordering::Less => self,
            std::cmp::Ordering::Greater => other,
            std::cmp::Ordering::Equal => {
                for e in other.expected {
                    if !self.expected.contains(&e) {
                        self.expected.push(e);
                    }
                }
                self
            }
        }
    }
}

impl<'a> ContextError<&'a str> for PErr<'a> {
    /// Like Parsec's `<?>`: the label replaces the expectations only when the failure
    /// happened where the labelled parser started.
    fn add_context(input: &'a str, ctx: &'static str, mut other: Self) -> Self {
        if !other.too_deep && other.input.len() == input.len() {
            other.expected = vec![Cow::Borrowed(ctx)];
        }
        other
    }
}

/// A recoverable failure at `input`.
pub(crate) fn fail<'a, O>(input: &'a str, expected: impl Into<Cow<'static, str>>) -> PResult<'a, O> {
    Err(nom::Err::Error(PErr::new(input, expected)))
}

/// A failure that stops all alternatives (nom's `cut`).
pub(crate) fn fatal<'a, O>(input: &'a str, expected: impl Into<Cow<'static, str>>) -> PResult<'a, O> {
    Err(nom::Err::Failure(PErr::new(input, expected)))
}

/// Fails (fatally) when `depth` exceeds [`MAX_DEPTH`].
pub(crate) fn check_depth(input: &str, depth: usize) -> PResult<'_, ()> {
    if depth > MAX_DEPTH {
        Err(nom::Err::Failure(PErr { input, expected: Vec::new(), too_deep: true }))
    } else {
        Ok((input, ()))
    }
}

/// One or more characters satisfying `pred`, failing with `label`.
pub(crate) fn take1<'a>(i: &'a str, pred: impl Fn(char) -> bool, label: &'static str) -> PResult<'a, &'a str> {
    let end = i.char_indices().find(|(_, c)| !pred(*c)).map_or(i.len(), |(n, _)| n);
    match (i.get(..end), i.get(end..)) {
        (Some(taken), Some(rest)) if !taken.is_empty() => Ok((rest, taken)),
        _ => fail(i, label),
    }
}

/// Spaces and tabs (PostgREST's `ws`).
pub(crate) fn ws(i: &str) -> PResult<'_, &str> {
    take_while(|c| c == ' ' || c == '\t')(i)
}

/// `p` surrounded by optional whitespace.
pub(crate) fn lexeme<'a, O>(
    mut p: impl FnMut(&'a str) -> PResult<'a, O>,
) -> impl FnMut(&'a str) -> PResult<'a, O> {
    move |i| {
        let (i, _) = ws(i)?;
        let (i, o) = p(i)?;
        let (i, _) = ws(i)?;
        Ok((i, o))
    }
}

/// Exactly the character `c`.
pub(crate) fn ch<'a>(c: char) -> impl Fn(&'a str) -> PResult<'a, char> {
    move |i: &'a str| match i.strip_prefix(c) {
        Some(rest) => Ok((rest, c)),
        None => fail(i, format!("{:?}", c.to_string())),
    }
}

/// Exactly the string `s`.
pub(crate) fn lit<'a>(s: &'static str) -> impl Fn(&'a str) -> PResult<'a, &'a str> {
    move |i: &'a str| match (i.strip_prefix(s), i.get(..s.len())) {
        (Some(rest), Some(matched)) => Ok((rest, matched)),
        _ => fail(i, format!("{s:?}")),
    }
}

/// Succeeds without consuming at the end of input; `label` says what else was expected.
pub(crate) fn end_of_input<'a>(label: &'static str) -> impl Fn(&'a str) -> PResult<'a, ()> {
    move |i: &'a str| if i.is_empty() { Ok((i, ())) } else { fail(i, label) }
}

/// Succeeds without consuming when the next character is in `set` or at the end.
pub(crate) fn peek_end<'a>(set: &'static [char], label: &'static str) -> impl Fn(&'a str) -> PResult<'a, ()> {
    move |i: &'a str| match i.chars().next() {
        None => Ok((i, ())),
        Some(c) if set.contains(&c) => Ok((i, ())),
        Some(_) => fail(i, label),
    }
}

/// `"..."` with `\x` escaping any character; returns the unescaped content.
pub(crate) fn quoted(i: &str) -> PResult<'_, String> {
    let (mut rest, _) = ch('"')(i)?;
    let mut out = String::new();
    loop {
        let mut chars = rest.chars();
        match chars.next() {
            None => return fail(rest, "closing quote \"\\\"\""),
            Some('"') => return Ok((chars.as_str(), out)),
            Some('\\') => match chars.next() {
                None => return fail(chars.as_str(), "escaped character"),
                Some(c) => out.push(c),
            },
            Some(c) => out.push(c),
        }
        rest = chars.as_str();
    }
}

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
fn sep_by_dash<'a>(
    p: impl Fn(&'a str) -> PResult<'a, String>,
) -> impl Fn(&'a str) -> PResult<'a, String> {
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
    let (rest, digits) = recognize(pair(opt(ch('-')), digit1))(i)?;
    let (after_ws, _) = ws(rest)?;
    let ends = after_ws.is_empty() || ["->", "::", ".", ",", ")"].iter().any(|t| after_ws.starts_with(t));
    if !ends {
        return fail(rest, "json array index");
    }
    match digits.parse::<i64>() {
        Ok(n) => Ok((after_ws, n)),
        Err(_) => fatal(i, "json array index within 64-bit range"),
    }
}

fn json_operand(i: &str) -> PResult<'_, JsonKey> {
    match json_index(i) {
        Ok((rest, n)) => return Ok((rest, JsonKey::Index(n))),
        Err(nom::Err::Error(_)) => {}
        Err(e) => return Err(e),
    }
    if i.starts_with('"') {
        let (rest, key) = quoted(i)?;
        return Ok((rest, JsonKey::Key(key)));
    }
    let (rest, key) = sep_by_dash(json_key_ident)(i)?;
    Ok((rest, JsonKey::Key(key)))
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
    "precision", "varying", "with", "without", "time", "zone", "character", "char", "bit",
    "double", "national", "year", "month", "day", "hour", "minute", "second", "to",
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
    Ok((i, match b { Some(b) => format!("({a},{b})"), None => format!("({a})") }))
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

/// One or more `item`s separated by `sep`; once a separator matched, an item must follow.
pub(crate) fn sep_list1<'a, O, S>(
    mut item: impl FnMut(&'a str) -> PResult<'a, O>,
    mut sep: impl FnMut(&'a str) -> PResult<'a, S>,
) -> impl FnMut(&'a str) -> PResult<'a, Vec<O>> {
    move |i| {
        let (mut rest, first) = item(i)?;
        let mut out = vec![first];
        loop {
            match sep(rest) {
                Ok((r, _)) => {
                    let (r, o) = item(r)?;
                    out.push(o);
                    rest = r;
                }
                Err(nom::Err::Error(_)) => return Ok((rest, out)),
                Err(e) => return Err(e),
            }
        }
    }
}

/// Like [`sep_list1`] but also accepts no item at all, when the first item fails without
/// getting past its starting point.
pub(crate) fn sep_list0<'a, O, S>(
    item: impl FnMut(&'a str) -> PResult<'a, O>,
    sep: impl FnMut(&'a str) -> PResult<'a, S>,
) -> impl FnMut(&'a str) -> PResult<'a, Vec<O>> {
    let mut rest_items = sep_list1(item, sep);
    move |i| match rest_items(i) {
        Err(nom::Err::Error(e)) if e.input.len() == i.len() => Ok((i, Vec::new())),
        other => other,
    }
}

/// Applies `parser` to `input`, which must be consumed entirely, reporting failures as a
/// PGRST100 error about `display` (the text PostgREST names in its message; usually
/// `input` itself).
pub(crate) fn run<'a, O>(
    param: ParamKind,
    display: &str,
    input: &'a str,
    mut parser: impl FnMut(&'a str) -> PResult<'a, O>,
) -> Result<O, ParseError> {
    let err = match parser(input) {
        Ok(("", out)) => return Ok(out),
        Ok((rest, _)) => PErr::new(rest, "end of input"),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => e,
        Err(nom::Err::Incomplete(_)) => PErr::new("", "more input"),
    };
    let (line, column) = position(input, err.input);
    let display = display.to_string();
    if err.too_deep {
        return Err(ParseError::TooDeep { param, input: display, line, column, max: MAX_DEPTH });
    }
    Err(ParseError::Syntax { param, input: display, line, column, details: details(&err) })
}

/// Parsec-style 1-based line and column of `rest` within `full`.
fn position(full: &str, rest: &str) -> (usize, usize) {
    let consumed = full.len().saturating_sub(rest.len());
    let prefix = full.get(..consumed).unwrap_or(full);
    let (mut line, mut column) = (1usize, 1usize);
    for c in prefix.chars() {
        match c {
            '\n' => {
                line = line.saturating_add(1);
                column = 1;
            }
            '\t' => column = column.saturating_add(8 - (column.saturating_sub(1) % 8)),
            _ => column = column.saturating_add(1),
        }
    }
    (line, column)
}

fn details(err: &PErr<'_>) -> String {
    let mut out = match err.input.chars().next() {
        None => "unexpected end of input".to_string(),
        Some(c) => format!("unexpected {:?}", c.to_string()),
    };
    if let Some((last, init)) = err.expected.split_last() {
        out.push_str(" expecting ");
        if !init.is_empty() {
            out.push_str(&init.join(", "));
            out.push_str(" or ");
        }
        out.push_str(last);
    }
    out
}
