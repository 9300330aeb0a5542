//! Logic trees: `and=(...)`, `or=(...)`, `not.or=(...)`, `rel.and=(...)` and their nested
//! `and(...)` / `or(...)` / `not.and(...)` children, mirroring PostgREST's `pLogicPath` and
//! `pLogicTree`.
//!
//! Like PostgREST, the key's operator is glued in front of the value (`or` + `(a.eq.1)`)
//! and the result is parsed as one tree, so error columns match PostgREST's. Unlike
//! PostgREST, the value must be a parenthesised list and nothing may follow it. This
//! module must not interpret the filters it contains; nesting is capped at
//! [`super::MAX_DEPTH`].

use nom::branch::alt;

use super::ast::{EmbedPath, Filter, LogicOp, LogicTree};
use super::error::{ParamKind, ParseError};
use super::filter::{op_expr, ValueMode};
use super::lex::{ch, check_depth, end_of_input, fail, field, field_name, lexeme, run, sep_list1, PResult};

/// Parses a logic-tree pair such as `("rel.not.or", "(a.eq.1,b.gt.2)")`.
pub(crate) fn parse_logic(key: &str, value: &str) -> Result<(EmbedPath, LogicTree), ParseError> {
    let mut segments = run(ParamKind::LogicPath, key, key, |i| {
        let (i, names) = sep_list1(field_name, ch('.'))(i)?;
        let (i, _) = end_of_input("\".\" or end of input")(i)?;
        Ok((i, names))
    })?;
    let op = match segments.pop() {
        Some(op) if op == "and" || op == "or" => op,
        _ => {
            return Err(ParseError::Syntax {
                param: ParamKind::LogicPath,
                input: key.to_string(),
                line: 1,
                column: key.chars().count().saturating_add(1),
                details: "unexpected end of input expecting logic operator (and, or)".to_string(),
            })
        }
    };
    let negated = segments.iter().any(|s| s == "not");
    let path: EmbedPath = segments.into_iter().filter(|s| s != "not").collect();
    let full = if negated { format!("not.{op}{value}") } else { format!("{op}{value}") };
    let tree = run(ParamKind::LogicTree, value, &full, |i| {
        let (i, tree) = node(1, i)?;
        let (i, _) = end_of_input("end of input")(i)?;
        Ok((i, tree))
    })?;
    Ok((path, tree))
}

/// A leaf filter or a nested node.
fn tree(depth: usize, i: &str) -> PResult<'_, LogicTree> {
    alt((|x| leaf(x).map(|(r, f)| (r, LogicTree::Leaf(f))), |x| node(depth, x)))(i)
}

/// `col->path.[not.]op.value`
fn leaf(i: &str) -> PResult<'_, Filter> {
    let (i, field) = field(i)?;
    let (i, _) = ch('.')(i)?;
    let (i, (negated, op)) = op_expr(ValueMode::Logic, i)?;
    Ok((i, Filter { field, negated, op }))
}

/// `[not.](and|or)(tree, tree, ...)`
fn node(depth: usize, i: &str) -> PResult<'_, LogicTree> {
    let (i, _) = check_depth(i, depth)?;
    let (i, negated) = match i.strip_prefix("not.") {
        Some(rest) => (rest, true),
        None => (i, false),
    };
    let (i, op) = if let Some(rest) = i.strip_prefix("and") {
        (rest, LogicOp::And)
    } else if let Some(rest) = i.strip_prefix("or") {
        (rest, LogicOp::Or)
    } else if negated {
        return fail(i, "logic operator (and, or)");
    } else {
        return fail(i, "field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)");
    };
    let (i, _) = lexeme(ch('('))(i)?;
    let (i, children) = sep_list1(|x| tree(depth.saturating_add(1), x), lexeme(ch(',')))(i)?;
    let (i, _) = match lexeme(ch(')'))(i) {
        Ok(ok) => ok,
        Err(_) => return fail(i, "\",\" or \")\""),
    };
    Ok((i, LogicTree::Node { negated, op, children }))
}
