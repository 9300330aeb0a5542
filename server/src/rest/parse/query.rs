//! Turns the ordered query-string pairs of one request into [`QueryParams`]: classifies
//! each key the way PostgREST does (`select`, `columns`, `on_conflict`; keys whose last
//! dot-separated word is `order`, `limit`, `offset`, `and` or `or`; everything else is a
//! filter, or an RPC argument when the caller says so) and hands the value to the right
//! parser.
//!
//! Errors are reported in PostgREST's order of checks (order, logic trees, columns,
//! select, filters, on_conflict), then limit/offset. This module must not percent-decode,
//! look at headers, or know the schema.

use super::ast::{EmbedPath, QueryParams};
use super::error::{ParamKind, ParseError};
use super::filter::{parse_filter, parse_key_segments};
use super::lex::{ch, end_of_input, lexeme, run, sep_list1};
use super::logic::parse_logic;
use super::names::field_name;
use super::order::parse_order;
use super::select::parse_select;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Select,
    Columns,
    OnConflict,
    Order,
    Limit,
    Offset,
    Logic,
    Filter,
}

fn classify(key: &str) -> Kind {
    match key {
        "select" => return Kind::Select,
        "columns" => return Kind::Columns,
        "on_conflict" => return Kind::OnConflict,
        _ => {}
    }
    match key.rsplit('.').next().unwrap_or(key) {
        "order" => Kind::Order,
        "limit" => Kind::Limit,
        "offset" => Kind::Offset,
        "and" | "or" => Kind::Logic,
        _ => Kind::Filter,
    }
}

/// Implementation of [`super::parse_query`] / [`super::parse_rpc_query`].
pub(crate) fn parse_pairs(pairs: &[(String, String)], rpc: bool) -> Result<QueryParams, ParseError> {
    let pairs: Vec<(Kind, &str, &str)> = pairs
        .iter()
        .filter(|(k, v)| !(k.is_empty() && v.is_empty()))
        .map(|(k, v)| (classify(k), k.as_str(), v.as_str()))
        .collect();
    let of = |kind: Kind| pairs.iter().filter(move |(k, _, _)| *k == kind).map(|(_, k, v)| (*k, *v));
    let first = |kind: Kind| of(kind).next().map(|(_, v)| v);

    let mut q = QueryParams::default();
    for (k, v) in of(Kind::Order) {
        q.order.push(parse_order(k, v)?);
    }
    for (k, v) in of(Kind::Logic) {
        q.logic.push(parse_logic(k, v)?);
    }
    q.columns = first(Kind::Columns).map(|v| parse_columns(ParamKind::Columns, v)).transpose()?;
    if let Some(v) = first(Kind::Select) {
        q.select = parse_select(v)?;
    }
    for (k, v) in of(Kind::Filter) {
        if rpc && !super::filter::starts_with_operator(v) {
            q.rpc_args.push((k.to_string(), v.to_string()));
        } else {
            q.filters.push(parse_filter(k, v)?);
        }
    }
    q.on_conflict = first(Kind::OnConflict).map(|v| parse_columns(ParamKind::OnConflict, v)).transpose()?;
    for (kind, k, v) in &pairs {
        let is_limit = match kind {
            Kind::Limit => true,
            Kind::Offset => false,
            _ => continue,
        };
        let mut path = parse_key_segments(k)?;
        path.pop();
        let n = parse_count(if is_limit { ParamKind::Limit } else { ParamKind::Offset }, v)?;
        set_limit(&mut q.limits, path, is_limit, n);
    }
    Ok(q)
}

fn set_limit(limits: &mut Vec<(EmbedPath, Option<u64>, Option<u64>)>, path: EmbedPath, is_limit: bool, n: u64) {
    let idx = match limits.iter().position(|(p, _, _)| *p == path) {
        Some(idx) => idx,
        None => {
            limits.push((path, None, None));
            limits.len().saturating_sub(1)
        }
    };
    if let Some(entry) = limits.get_mut(idx) {
        if is_limit {
            entry.1 = Some(n);
        } else {
            entry.2 = Some(n);
        }
    }
}

/// `columns=` / `on_conflict=`: comma-separated field names (PostgREST's `pColumns`).
fn parse_columns(param: ParamKind, value: &str) -> Result<Vec<String>, ParseError> {
    run(param, value, value, |i| {
        let (i, names) = sep_list1(field_name, lexeme(ch(',')))(i)?;
        let (i, _) = end_of_input("\",\" or end of input")(i)?;
        Ok((i, names))
    })
}

/// A non-negative integer of at most `i64::MAX`, surrounding whitespace allowed.
fn parse_count(param: ParamKind, value: &str) -> Result<u64, ParseError> {
    let lead = value.chars().take_while(|c| c.is_whitespace()).count();
    let body = value.trim();
    // PostgREST reads a signed integer: a negative limit cannot be satisfied, a negative offset
    // is no offset.
    if let Some(digits) = body.strip_prefix('-').filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())) {
        if digits.parse::<u64>().is_ok_and(|n| i64::try_from(n).is_ok()) {
            return match param {
                ParamKind::Limit => Err(ParseError::InvalidRange(super::error::RangeError::NegativeLimit)),
                _ => Ok(0),
            };
        }
    }
    let expecting = "expecting a non-negative integer";
    let (column, details) = match body.chars().enumerate().find(|(_, c)| !c.is_ascii_digit()) {
        Some((pos, c)) => (lead.saturating_add(pos), format!("unexpected {:?} {expecting}", c.to_string())),
        None if body.is_empty() => (lead, format!("unexpected end of input {expecting}")),
        None => match body.parse::<u64>().ok().filter(|n| i64::try_from(*n).is_ok()) {
            Some(n) => return Ok(n),
            None => (lead, "integer out of range (0 .. 9223372036854775807)".to_string()),
        },
    };
    let column = column.saturating_add(1);
    Err(ParseError::Syntax { param, input: value.to_string(), line: 1, column, details })
}
