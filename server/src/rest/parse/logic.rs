//! Logic trees: `and=(...)`, `or=(...)`, `not.or=(...)`, `rel.and=(...)` and their nested
//! `and(...)` / `or(...)` / `not.and(...)` children, mirroring PostgREST's `pLogicPath` and
//! `pLogicTree`.
//!
//! Like PostgREST, the key's operator is glued in front of the value (`or` + `(a.eq.1)`)
//! and the result is parsed as one tree, so error columns match PostgREST's. Unlike
//! PostgREST, the value must be a parenthesised list and nothing may follow it. This
//! module must not interpret the filters it contains; nesting is capped at
//! [`super::MAX_DEPTH`] and handled without recursion.

use super::ast::{EmbedPath, Filter, LogicOp, LogicTree};
use super::error::{ParamKind, ParseError};
use super::filter::{op_expr, ValueMode};
use super::lex::{ch, end_of_input, fail, fail_any, lexeme, run, sep_list1, too_deep, ws, PResult};
use super::names::{field, field_name};
use super::MAX_DEPTH;

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
        let (i, tree) = tree(i)?;
        let (i, _) = end_of_input("end of input")(i)?;
        Ok((i, tree))
    })?;
    Ok((path, tree))
}

/// `[not.](and|or)(` with optional whitespace around the parenthesis.
fn node_head(i: &str) -> PResult<'_, (bool, LogicOp)> {
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
        return fail_any(i, &["negation operator (not)", "logic operator (and, or)"]);
    };
    let (i, _) = lexeme(ch('('))(i)?;
    Ok((i, (negated, op)))
}

/// `col->path.[not.]op.value`
fn leaf(i: &str) -> PResult<'_, Filter> {
    let (i, field) = field(i)?;
    let (i, _) = ch('.')(i)?;
    let (i, (negated, op)) = op_expr(ValueMode::Logic, i)?;
    Ok((i, Filter { field, negated, op }))
}

/// A node whose `(` has been read but not yet its `)`.
struct Open {
    negated: bool,
    op: LogicOp,
    children: Vec<LogicTree>,
}

/// A whole tree whose root is a node. Iterative, with an explicit stack of open nodes, so
/// nesting never grows the call stack; more than [`MAX_DEPTH`] open nodes is an error.
/// A child is tried as a leaf filter first (so columns may be called `and`, `or`, `not`),
/// then as a nested node.
fn tree(i: &str) -> PResult<'_, LogicTree> {
    let (mut i, (negated, op)) = node_head(i)?;
    let mut open = vec![Open { negated, op, children: Vec::new() }];
    loop {
        let child = match leaf(i) {
            Ok((rest, f)) => {
                i = rest;
                LogicTree::Leaf(f)
            }
            Err(nom::Err::Error(e1)) => match node_head(i) {
                Ok((rest, (negated, op))) => {
                    if open.len() >= MAX_DEPTH {
                        return too_deep(i);
                    }
                    open.push(Open { negated, op, children: Vec::new() });
                    i = rest;
                    continue;
                }
                Err(nom::Err::Error(e2)) => return Err(nom::Err::Error(nom::error::ParseError::or(e1, e2))),
                Err(e) => return Err(e),
            },
            Err(e) => return Err(e),
        };
        let mut child = child;
        // After a child: a comma and the next child, or `)` closing one or more nodes.
        loop {
            let (rest, _) = ws(i)?;
            i = rest;
            let Some(top) = open.last_mut() else { return fail(i, "end of input") };
            top.children.push(child);
            if let Some(after) = i.strip_prefix(',') {
                (i, _) = ws(after)?;
                break;
            }
            let Some(after) = i.strip_prefix(')') else { return fail(i, "\",\" or \")\"") };
            i = after;
            let Some(Open { negated, op, children }) = open.pop() else { return fail(i, "end of input") };
            child = LogicTree::Node { negated, op, children };
            if open.is_empty() {
                let (rest, _) = ws(i)?;
                return Ok((rest, child));
            }
        }
    }
}
