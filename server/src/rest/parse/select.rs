//! The `select=` parameter (vertical filtering and resource embedding): columns, aliases,
//! casts, JSON paths, aggregates, `count()`, embeddings with hints and join types, and
//! spreads. Mirrors PostgREST's `pFieldForest`, `pFieldSelect`, `pRelationSelect` and
//! `pSpreadRelationSelect`.
//!
//! It must not resolve relations or columns, and must not decide defaults (an empty root
//! list meaning `*` is for the caller). Nesting is capped at [`super::MAX_DEPTH`].

use nom::branch::alt;
use nom::combinator::opt;

use super::ast::{Aggregate, JoinType, SelectItem};
use super::error::{ParamKind, ParseError};
use super::lex::{
    cast_type, ch, check_depth, end_of_input, fail, field, field_name, field_name_q, lexeme, lit,
    peek_end, run, sep_list0, ws, PResult,
};

/// Parses a whole `select=` value.
pub(crate) fn parse_select(input: &str) -> Result<Vec<SelectItem>, ParseError> {
    run(ParamKind::Select, input, input, |i| {
        let (i, items) = forest(0, i)?;
        let (i, _) = end_of_input("\",\" or end of input")(i)?;
        Ok((i, items))
    })
}

/// Zero or more items separated by commas, with optional surrounding whitespace.
fn forest(depth: usize, i: &str) -> PResult<'_, Vec<SelectItem>> {
    let (i, _) = check_depth(i, depth)?;
    let (i, _) = ws(i)?;
    let (i, items) = sep_list0(|x| item(depth, x), lexeme(ch(',')))(i)?;
    let (i, _) = ws(i)?;
    Ok((i, items))
}

fn item(depth: usize, i: &str) -> PResult<'_, SelectItem> {
    lexeme(|x| alt((|y| embed(depth, true, y), |y| embed(depth, false, y), field_item))(x))(i)
}

/// `alias:` (a single `:`, not the start of `::`).
fn alias(i: &str) -> PResult<'_, String> {
    let (rest, name) = field_name(i)?;
    match rest.strip_prefix(':') {
        Some(after) if !after.starts_with(':') => Ok((after, name)),
        _ => fail(rest, "\":\""),
    }
}

/// `[alias:]rel[!p][!p](...)` or `...rel[!p][!p](...)`.
fn embed(depth: usize, spread: bool, i: &str) -> PResult<'_, SelectItem> {
    let (i, alias) = if spread {
        let (i, _) = lit("...")(i)?;
        (i, None)
    } else {
        opt(alias)(i)?
    };
    let name_start = i;
    let (i, relation) = field_name(i)?;
    if !spread && relation == "count" {
        return fail(name_start, "relation name other than count");
    }
    let (i, (hint, join)) = embed_params(i)?;
    let (i, _) = ch('(')(i)?;
    let (i, select) = forest(depth.saturating_add(1), i)?;
    let (i, _) = match ch(')')(i) {
        Ok(ok) => ok,
        Err(_) => return fail(i, "\",\" or \")\""),
    };
    Ok((i, SelectItem::Embed { relation, alias, hint, join, spread, select }))
}

/// Up to two `!param`s: `!inner` / `!left` set the join type, anything else is the hint.
/// Unlike PostgREST (which keeps the first of each), two hints or two join types are an
/// error instead of being silently dropped.
fn embed_params(mut i: &str) -> PResult<'_, (Option<String>, Option<JoinType>)> {
    let (mut hint, mut join) = (None, None);
    for _ in 0..2 {
        let Some(after) = i.strip_prefix('!') else { break };
        let (rest, (name, was_quoted)) = field_name_q(after)?;
        let jt = match name.as_str() {
            "inner" if !was_quoted => Some(JoinType::Inner),
            "left" if !was_quoted => Some(JoinType::Left),
            _ => None,
        };
        match jt {
            Some(_) if join.is_some() => return fail(after, "a single join type"),
            Some(_) => join = jt,
            None if hint.is_some() => return fail(after, "a single hint"),
            None => hint = Some(name),
        }
        i = rest;
    }
    Ok((i, (hint, join)))
}

const ITEM_END: &[char] = &[',', ')'];
const ITEM_END_LABEL: &str = "\",\", \")\" or end of input";

fn field_item(i: &str) -> PResult<'_, SelectItem> {
    alt((star_item, count_all_item, column_item))(i)
}

fn star_item(i: &str) -> PResult<'_, SelectItem> {
    let (i, _) = ch('*')(i)?;
    let (i, _) = ws(i)?;
    let (i, _) = peek_end(ITEM_END, ITEM_END_LABEL)(i)?;
    Ok((i, SelectItem::Star))
}

fn cast_suffix(i: &str) -> PResult<'_, Option<String>> {
    match i.strip_prefix("::") {
        Some(after) => {
            let (after, _) = ws(after)?;
            let (rest, c) = cast_type(after)?;
            Ok((rest, Some(c)))
        }
        None => Ok((i, None)),
    }
}

/// `[alias:]count()[::cast]`
fn count_all_item(i: &str) -> PResult<'_, SelectItem> {
    let (i, alias) = opt(alias)(i)?;
    let (i, _) = lit("count()")(i)?;
    let (i, cast) = cast_suffix(i)?;
    let (i, _) = ws(i)?;
    let (i, _) = peek_end(ITEM_END, ITEM_END_LABEL)(i)?;
    Ok((i, SelectItem::CountAll { alias, cast }))
}

fn aggregate(i: &str) -> PResult<'_, Option<Aggregate>> {
    let Some(after) = i.strip_prefix('.') else { return Ok((i, None)) };
    let (rest, agg) = match alt((lit("sum()"), lit("avg()"), lit("count()"), lit("max()"), lit("min()")))(after) {
        Ok(ok) => ok,
        Err(_) => return fail(after, "aggregate (sum(), avg(), count(), max(), min())"),
    };
    let agg = match agg {
        "sum()" => Aggregate::Sum,
        "avg()" => Aggregate::Avg,
        "count()" => Aggregate::Count,
        "max()" => Aggregate::Max,
        _ => Aggregate::Min,
    };
    Ok((rest, Some(agg)))
}

/// `[alias:]field[::cast][.agg()][::cast]`
fn column_item(i: &str) -> PResult<'_, SelectItem> {
    let (i, alias) = opt(alias)(i)?;
    let (i, field) = field(i)?;
    let (i, cast) = cast_suffix(i)?;
    let (i, aggregate) = aggregate(i)?;
    let (i, aggregate_cast) = if aggregate.is_some() { cast_suffix(i)? } else { (i, None) };
    let (i, _) = ws(i)?;
    let label = if aggregate.is_some() || cast.is_some() {
        ITEM_END_LABEL
    } else {
        "\"->\", \"->>\", \"::\", \".\", \",\", \")\" or end of input"
    };
    let (i, _) = peek_end(ITEM_END, label)(i)?;
    Ok((i, SelectItem::Column { field, alias, cast, aggregate, aggregate_cast }))
}
