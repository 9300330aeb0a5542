//! The `select=` parameter (vertical filtering and resource embedding): columns, aliases,
//! casts, JSON paths, aggregates, `count()`, embeddings with hints and join types, and
//! spreads. Mirrors PostgREST's `pFieldForest`, `pFieldSelect`, `pRelationSelect` and
//! `pSpreadRelationSelect`.
//!
//! It must not resolve relations or columns, and must not decide defaults (an empty root
//! list meaning `*` is for the caller). Nesting is capped at [`super::MAX_DEPTH`] and
//! handled without recursion.

use nom::branch::alt;
use nom::combinator::opt;
use nom::error::ParseError as _;

use super::ast::{Aggregate, JoinType, SelectItem};
use super::error::{ParamKind, ParseError};
use super::lex::{ch, end_of_input, fail, lit, peek_end, run, too_deep, ws, PErr, PResult};
use super::names::{cast_type, field, field_name, field_name_q};
use super::MAX_DEPTH;

/// Parses a whole `select=` value.
pub(crate) fn parse_select(input: &str) -> Result<Vec<SelectItem>, ParseError> {
    run(ParamKind::Select, input, input, |i| {
        let (i, items) = forest(i)?;
        let (i, _) = end_of_input("\",\" or end of input")(i)?;
        Ok((i, items))
    })
}

/// An embedding whose `(` has been read but not yet its `)`.
struct Open {
    relation: String,
    alias: Option<String>,
    hint: Option<String>,
    join: Option<JoinType>,
    spread: bool,
    items: Vec<SelectItem>,
}

/// What one step at an item position found.
enum Step<'a> {
    Item(SelectItem),
    Open(Open),
    /// Nothing: an empty list, unless what follows is not `)` / the end; then this error
    /// (what an item would have needed) is reported along with that.
    Empty(PErr<'a>),
}

/// The root list: items separated by commas, where an item may open an embedding with its
/// own (possibly empty) list. Iterative, with an explicit stack of open embeddings, so
/// nesting never grows the call stack; more than [`MAX_DEPTH`] open embeddings is an error.
fn forest(input: &str) -> PResult<'_, Vec<SelectItem>> {
    let mut root: Vec<SelectItem> = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let (mut i, _) = ws(input)?;
    let mut may_be_empty = true;
    loop {
        let (rest, step) = step(i, may_be_empty)?;
        i = rest;
        let mut empty = None;
        match step {
            Step::Open(o) => {
                if open.len() >= MAX_DEPTH {
                    return too_deep(i);
                }
                open.push(o);
                may_be_empty = true;
                continue;
            }
            Step::Item(item) => open.last_mut().map_or(&mut root, |o| &mut o.items).push(item),
            Step::Empty(e) => empty = Some(e),
        }
        // After an item (or an empty list): a comma, closing parentheses, or the end.
        loop {
            let (rest, _) = ws(i)?;
            i = rest;
            if empty.is_none() {
                if let Some(after) = i.strip_prefix(',') {
                    (i, _) = ws(after)?;
                    may_be_empty = false;
                    break;
                }
            }
            let Some(o) = open.pop() else {
                return match empty {
                    Some(e) if !i.is_empty() => Err(nom::Err::Error(e.or(PErr::new(i, "end of input")))),
                    _ => Ok((i, root)),
                };
            };
            i = match (i.strip_prefix(')'), empty.take()) {
                (Some(after), _) => after,
                (None, Some(e)) => return Err(nom::Err::Error(e.or(PErr::new(i, "\")\"")))),
                (None, None) => return fail(i, "\",\" or \")\""),
            };
            let Open { relation, alias, hint, join, spread, items } = o;
            let embed = SelectItem::Embed { relation, alias, hint, join, spread, select: items };
            open.last_mut().map_or(&mut root, |o| &mut o.items).push(embed);
        }
    }
}

/// One item, or the head of an embedding up to and including its `(`. At the start of a
/// list (`may_be_empty`), nothing recognisable there means the list is empty.
fn step(i: &str, may_be_empty: bool) -> PResult<'_, Step<'_>> {
    let attempt = if i.starts_with("...") {
        embed_head(true, i).map(|(r, o)| (r, Step::Open(o)))
    } else {
        match embed_head(false, i) {
            Ok((r, o)) => Ok((r, Step::Open(o))),
            Err(nom::Err::Error(e1)) => match field_item(i) {
                Ok((r, item)) => Ok((r, Step::Item(item))),
                Err(nom::Err::Error(e2)) => Err(nom::Err::Error(e1.or(e2))),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        }
    };
    match attempt {
        Err(nom::Err::Error(e)) if may_be_empty && e.input.len() == i.len() => Ok((i, Step::Empty(e))),
        other => other,
    }
}

/// `alias:` (a single `:`, not the start of `::`).
fn alias(i: &str) -> PResult<'_, String> {
    let (rest, name) = field_name(i)?;
    match rest.strip_prefix(':') {
        Some(after) if !after.starts_with(':') => Ok((after, name)),
        _ => fail(rest, "\":\""),
    }
}

/// `[alias:]rel[!p][!p](` or `...rel[!p][!p](`, followed by optional whitespace.
fn embed_head(spread: bool, i: &str) -> PResult<'_, Open> {
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
    let (i, _) = ws(i)?;
    Ok((i, Open { relation, alias, hint, join, spread, items: Vec::new() }))
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
