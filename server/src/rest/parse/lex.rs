//! Shared nom building blocks of the query-string grammar: the internal error type,
//! whitespace, literals, quoted values, separated lists, and [`run`], which applies a
//! parser to a whole parameter and turns a failure into a [`ParseError`].
//!
//! Nothing here knows about a particular parameter (select, order, ...). Nothing here may
//! panic or index strings by byte offset: input is consumed only through `strip_prefix`,
//! `get` and nom, so every slice stays on a character boundary.

use std::borrow::Cow;

use nom::bytes::complete::take_while;
use nom::error::{ErrorKind, ParseError as NomParseError};
use nom::IResult;

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

/// A recoverable failure at `input`.
pub(crate) fn fail<'a, O>(input: &'a str, expected: impl Into<Cow<'static, str>>) -> PResult<'a, O> {
    Err(nom::Err::Error(PErr::new(input, expected)))
}

/// A recoverable failure at `input` listing several alternatives.
pub(crate) fn fail_any<'a, O>(input: &'a str, expected: &[&'static str]) -> PResult<'a, O> {
    let expected = expected.iter().map(|e| Cow::Borrowed(*e)).collect();
    Err(nom::Err::Error(PErr { input, expected, too_deep: false }))
}

/// A failure that stops all alternatives (nom's `cut`).
pub(crate) fn fatal<'a, O>(input: &'a str, expected: impl Into<Cow<'static, str>>) -> PResult<'a, O> {
    Err(nom::Err::Failure(PErr::new(input, expected)))
}

/// The fatal "nesting deeper than [`MAX_DEPTH`]" failure at `input`.
pub(crate) fn too_deep<O>(input: &str) -> PResult<'_, O> {
    Err(nom::Err::Failure(PErr { input, expected: Vec::new(), too_deep: true }))
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
pub(crate) fn lexeme<'a, O>(mut p: impl FnMut(&'a str) -> PResult<'a, O>) -> impl FnMut(&'a str) -> PResult<'a, O> {
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
