//! The `order=` / `rel.order=` parameter: `col[->json][.asc|.desc][.nullsfirst|.nullslast]`
//! terms, including `rel(col)` terms that order by a column of a to-one embedding
//! (PostgREST's `pOrder`).
//!
//! It must not check that the columns or relations exist, nor that a related order term
//! refers to a to-one relationship; that is for the planner.

use nom::branch::alt;

use super::ast::{Direction, EmbedPath, Field, NullsOrder, OrderTerm};
use super::error::{ParamKind, ParseError};
use super::filter::parse_key_segments;
use super::lex::{ch, end_of_input, fail, lexeme, lit, peek_end, run, sep_list1, ws, PResult};
use super::names::{field, field_name};

/// Parses an order pair such as `("films.order", "year.desc.nullslast,title")`.
pub(crate) fn parse_order(key: &str, value: &str) -> Result<(EmbedPath, Vec<OrderTerm>), ParseError> {
    let mut path = parse_key_segments(key)?;
    path.pop();
    let terms = run(ParamKind::Order, value, value, |i| {
        let (i, terms) = sep_list1(lexeme(|x| alt((relation_term, plain_term))(x)), ch(','))(i)?;
        let (i, _) = end_of_input("\",\" or end of input")(i)?;
        Ok((i, terms))
    })?;
    Ok((path, terms))
}

fn plain_term(i: &str) -> PResult<'_, OrderTerm> {
    let (i, field) = field(i)?;
    modifiers(i, None, field)
}

/// `rel(col->path)` followed by the usual modifiers.
fn relation_term(i: &str) -> PResult<'_, OrderTerm> {
    let (i, relation) = field_name(i)?;
    let (i, _) = ch('(')(i)?;
    let (i, field) = field(i)?;
    let (i, _) = ch(')')(i)?;
    modifiers(i, Some(relation), field)
}

fn modifiers(i: &str, relation: Option<String>, field: Field) -> PResult<'_, OrderTerm> {
    let (i, direction) = match i.strip_prefix('.').map(|r| alt((lit("asc"), lit("desc")))(r)) {
        Some(Ok((rest, "asc"))) => (rest, Some(Direction::Asc)),
        Some(Ok((rest, _))) => (rest, Some(Direction::Desc)),
        _ => (i, None),
    };
    let (i, nulls) = match i.strip_prefix('.').map(|r| alt((lit("nullsfirst"), lit("nullslast")))(r)) {
        Some(Ok((rest, "nullsfirst"))) => (rest, Some(NullsOrder::First)),
        Some(Ok((rest, _))) => (rest, Some(NullsOrder::Last)),
        _ => (i, None),
    };
    let (i, _) = ws(i)?;
    if let Some(after_dot) = i.strip_prefix('.') {
        match (direction, nulls) {
            (None, None) => return fail(after_dot, "\"asc\", \"desc\", \"nullsfirst\" or \"nullslast\""),
            (Some(_), None) => return fail(after_dot, "\"nullsfirst\" or \"nullslast\""),
            (_, Some(_)) => {}
        }
    }
    let label = if direction.is_none() && nulls.is_none() {
        "\"->\", \"->>\", delimiter (.), \",\" or end of input"
    } else {
        "\",\" or end of input"
    };
    let (i, _) = peek_end(&[','], label)(i)?;
    Ok((i, OrderTerm { relation, field, direction, nulls }))
}
