//! Horizontal filters: the key (`rel.sub.col->a`, PostgREST's `pTreePath`) and the value
//! (`[not.]op[(any|all)|(config)].operand`, PostgREST's `pOpExpr`), including `in.(...)`
//! lists and the operand syntax used inside logic trees.
//!
//! It only recognises syntax: it must not decide whether a column exists or whether an
//! operator suits a column type, and it must not build SQL. The one rewrite it performs
//! is PostgREST's `*` to `%` in `like`/`ilike` operands.

use nom::bytes::complete::take_while;
use nom::combinator::recognize;
use nom::sequence::tuple;

use super::ast::{CompareOp, EmbedPath, Field, Filter, FtsKind, IsValue, Operation, Quantifier};
use super::error::{ParamKind, ParseError};
use super::lex::{ch, end_of_input, fail, lexeme, peek_end, quoted, run, sep_list1, PResult};
use super::names::{field_name, identifier, json_path};

/// How the operand after `op.` is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueMode {
    /// A filter parameter: the operand is the rest of the value, verbatim.
    Rest,
    /// Inside `and(...)`/`or(...)`: a `"quoted"` value, a `{...}` array literal, or text up
    /// to the next `,` or `)`.
    Logic,
}

/// Parses one filter pair, e.g. `("films.year", "gte.2000")`.
pub(crate) fn parse_filter(key: &str, value: &str) -> Result<(EmbedPath, Filter), ParseError> {
    let (path, field) = parse_tree_path(key)?;
    let (negated, op) = run(ParamKind::Filter, value, value, |i| {
        let (i, r) = op_expr(ValueMode::Rest, i)?;
        let (i, _) = end_of_input("end of input")(i)?;
        Ok((i, r))
    })?;
    Ok((path, Filter { field, negated, op }))
}

/// Parses a filter key into the embedding path and the field: `a.b.col->x`.
pub(crate) fn parse_tree_path(key: &str) -> Result<(EmbedPath, Field), ParseError> {
    run(ParamKind::TreePath, key, key, |i| {
        let (i, mut names) = sep_list1(field_name, ch('.'))(i)?;
        let (i, json_path) = json_path(i)?;
        let (i, _) = end_of_input("\".\", \"->\", \"->>\" or end of input")(i)?;
        match names.pop() {
            Some(column) => Ok((i, (names, Field { column, json_path }))),
            None => fail(i, FIELD),
        }
    })
}

/// Parses a reserved key such as `rel.sub.order` into all its dot-separated names.
pub(crate) fn parse_key_segments(key: &str) -> Result<Vec<String>, ParseError> {
    run(ParamKind::TreePath, key, key, |i| {
        let (i, names) = sep_list1(field_name, ch('.'))(i)?;
        let (i, _) = end_of_input("\".\" or end of input")(i)?;
        Ok((i, names))
    })
}

const FIELD: &str = "field name (* or [a..z0..9_$])";

fn quantifiable(word: &str) -> Option<CompareOp> {
    Some(match word {
        "eq" => CompareOp::Eq,
        "gt" => CompareOp::Gt,
        "gte" => CompareOp::Gte,
        "lt" => CompareOp::Lt,
        "lte" => CompareOp::Lte,
        "like" => CompareOp::Like,
        "ilike" => CompareOp::Ilike,
        "match" => CompareOp::Match,
        "imatch" => CompareOp::Imatch,
        _ => return None,
    })
}

fn simple(word: &str) -> Option<CompareOp> {
    Some(match word {
        "neq" => CompareOp::Neq,
        "isdistinct" => CompareOp::IsDistinct,
        "cs" => CompareOp::Cs,
        "cd" => CompareOp::Cd,
        "ov" => CompareOp::Ov,
        "sl" => CompareOp::Sl,
        "sr" => CompareOp::Sr,
        "nxl" => CompareOp::Nxl,
        "nxr" => CompareOp::Nxr,
        "adj" => CompareOp::Adj,
        _ => return None,
    })
}

fn fts_kind(word: &str) -> Option<FtsKind> {
    Some(match word {
        "fts" => FtsKind::Fts,
        "plfts" => FtsKind::Plfts,
        "phfts" => FtsKind::Phfts,
        "wfts" => FtsKind::Wfts,
        _ => return None,
    })
}

/// Whether a query-string value starts like a filter (`[not.]op.` or `op(...)`): on a GET to
/// `/rpc`, PostgREST takes such a value for a filter on the result and any other for an argument.
pub(crate) fn starts_with_operator(value: &str) -> bool {
    let rest = value.strip_prefix("not.").unwrap_or(value);
    let word: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
    let known = matches!(word.as_str(), "in" | "is")
        || quantifiable(&word).is_some()
        || simple(&word).is_some()
        || fts_kind(&word).is_some();
    known && matches!(rest[word.len()..].chars().next(), Some('.' | '('))
}

/// `like`/`ilike` operands get PostgREST's `*` to `%` rewrite.
fn operand(op: CompareOp, value: String) -> String {
    if matches!(op, CompareOp::Like | CompareOp::Ilike) {
        value.replace('*', "%")
    } else {
        value
    }
}

/// `[not.]op.operand`; returns `(negated, operation)`.
pub(crate) fn op_expr(mode: ValueMode, i: &str) -> PResult<'_, (bool, Operation)> {
    let (i, negated) = match i.strip_prefix("not.") {
        Some(rest) => (rest, true),
        None => (i, false),
    };
    let start = i;
    let (i, word) = take_while(|c: char| c.is_ascii_alphabetic())(i)?;
    if word == "in" {
        let (i, _) = ch('.')(i)?;
        let (i, list) = list_val(i)?;
        return Ok((i, (negated, Operation::In(list))));
    }
    if word == "is" {
        let (i, _) = ch('.')(i)?;
        let (i, v) = is_value(i)?;
        return Ok((i, (negated, Operation::Is(v))));
    }
    if let Some(kind) = fts_kind(word) {
        let (i, config) = if i.starts_with('(') {
            let (i, _) = ch('(')(i)?;
            let (i, config) = identifier(i)?;
            let (i, _) = ch(')')(i)?;
            (i, Some(config))
        } else {
            (i, None)
        };
        let (i, _) = delimiter(i, "\"(\" or \".\"")?;
        let (i, value) = value(mode, i)?;
        return Ok((i, (negated, Operation::Fts { kind, config, value })));
    }
    if let Some(op) = simple(word) {
        let (i, _) = delimiter(i, "delimiter (.)")?;
        let (i, value) = value(mode, i)?;
        return Ok((i, (negated, Operation::Compare { op, value: operand(op, value) })));
    }
    if let Some(op) = quantifiable(word) {
        let (i, quantifier) = if let Some(r) = i.strip_prefix("(any)") {
            (r, Some(Quantifier::Any))
        } else if let Some(r) = i.strip_prefix("(all)") {
            (r, Some(Quantifier::All))
        } else {
            (i, None)
        };
        let (i, _) = delimiter(i, "\"(any)\", \"(all)\" or delimiter (.)")?;
        let (i, value) = value(mode, i)?;
        let value = operand(op, value);
        let operation = match quantifier {
            Some(quantifier) => Operation::Quantified { op, quantifier, value },
            None => Operation::Compare { op, value },
        };
        return Ok((i, (negated, operation)));
    }
    if negated {
        fail(start, "operator (eq, gt, ...)")
    } else {
        fail(start, "\"not\" or operator (eq, gt, ...)")
    }
}

fn delimiter<'a>(i: &'a str, label: &'static str) -> PResult<'a, char> {
    match i.strip_prefix('.') {
        Some(rest) => Ok((rest, '.')),
        None => fail(i, label),
    }
}

fn is_value(i: &str) -> PResult<'_, IsValue> {
    let (rest, word) = take_while(|c: char| c.is_ascii_alphanumeric() || c == '_')(i)?;
    let v = match word.to_ascii_lowercase().as_str() {
        "null" => IsValue::Null,
        "not_null" => IsValue::NotNull,
        "true" => IsValue::True,
        "false" => IsValue::False,
        "unknown" => IsValue::Unknown,
        _ => return fail(i, "isVal: (null, not_null, true, false, unknown)"),
    };
    Ok((rest, v))
}

fn value(mode: ValueMode, i: &str) -> PResult<'_, String> {
    match mode {
        ValueMode::Rest => Ok(("", i.to_string())),
        ValueMode::Logic => logic_value(i),
    }
}

/// PostgREST's `pLogicSingleVal`.
fn logic_value(i: &str) -> PResult<'_, String> {
    if let Ok((rest, q)) = quoted(i) {
        if peek_end(&[',', ')'], "")(rest).is_ok() {
            return Ok((rest, q));
        }
    }
    let array = recognize(tuple((ch('{'), take_while(|c| c != '{' && c != '}'), ch('}'))));
    if let Ok((rest, a)) = { array }(i) {
        return Ok((rest, a.to_string()));
    }
    let (rest, raw) = take_while(|c| c != ',' && c != ')')(i)?;
    Ok((rest, raw.to_string()))
}

/// `(a,"b,c",d)`; `()` is the empty list.
fn list_val(i: &str) -> PResult<'_, Vec<String>> {
    let (i, _) = lexeme(ch('('))(i)?;
    let (i, items) = sep_list1(list_element, ch(','))(i)?;
    let (i, _) = lexeme(ch(')'))(i)?;
    let empty = matches!(items.as_slice(), [(s, false)] if s.is_empty());
    let list = if empty { Vec::new() } else { items.into_iter().map(|(s, _)| s).collect() };
    Ok((i, list))
}

/// A `"quoted"` element directly followed by `,` or `)`, else raw text up to `,` or `)`.
/// Returns the text and whether it was quoted.
fn list_element(i: &str) -> PResult<'_, (String, bool)> {
    if let Ok((rest, q)) = quoted(i) {
        if peek_end(&[',', ')'], "")(rest).is_ok() {
            return Ok((rest, (q, true)));
        }
    }
    let (rest, raw) = take_while(|c| c != ',' && c != ')')(i)?;
    Ok((rest, (raw.to_string(), false)))
}
