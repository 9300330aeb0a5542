//! Unit tests of the PostgREST grammar parser: one test per grammar form and operator,
//! malformed and hostile inputs, and a generated-garbage loop proving no input panics.
//! They use only the public API of `super` and must not touch the network, files or
//! shared state.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod errors;
mod filter;
mod fuzz;
mod headers;
mod logic;
mod order;
mod select;

use super::*;

/// Owned pairs from string literals.
pub(super) fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// Parses pairs that must be valid.
pub(super) fn parse(list: &[(&str, &str)]) -> QueryParams {
    match parse_query(&pairs(list)) {
        Ok(q) => q,
        Err(e) => panic!("unexpected error for {list:?}: {e}"),
    }
}

/// Parses pairs that must be rejected.
pub(super) fn parse_err(list: &[(&str, &str)]) -> ParseError {
    match parse_query(&pairs(list)) {
        Ok(q) => panic!("expected an error for {list:?}, got {q:?}"),
        Err(e) => e,
    }
}

/// `select=<s>` items.
pub(super) fn select(s: &str) -> Vec<SelectItem> {
    parse(&[("select", s)]).select
}

/// The single filter of `key=value`.
pub(super) fn filter(key: &str, value: &str) -> (EmbedPath, Filter) {
    let q = parse(&[(key, value)]);
    assert_eq!(q.filters.len(), 1, "{q:?}");
    q.filters.into_iter().next().unwrap()
}

/// The operation of `c=value` at the root.
pub(super) fn op(value: &str) -> (bool, Operation) {
    let (path, f) = filter("c", value);
    assert!(path.is_empty());
    assert_eq!(f.field, col("c"));
    (f.negated, f.op)
}

/// A plain field.
pub(super) fn col(name: &str) -> Field {
    Field { column: name.to_string(), json_path: vec![] }
}

/// A field with a JSON path.
pub(super) fn json(name: &str, path: Vec<JsonOperation>) -> Field {
    Field { column: name.to_string(), json_path: path }
}

/// `->key`
pub(super) fn arrow(k: &str) -> JsonOperation {
    JsonOperation::Arrow(JsonKey::Key(k.to_string()))
}

/// `->>key`
pub(super) fn darrow(k: &str) -> JsonOperation {
    JsonOperation::DoubleArrow(JsonKey::Key(k.to_string()))
}

/// A plain column select item.
pub(super) fn column(name: &str) -> SelectItem {
    SelectItem::Column { field: col(name), alias: None, cast: None, aggregate: None, aggregate_cast: None }
}

/// `Compare { op, value }`
pub(super) fn cmp(op: CompareOp, value: &str) -> Operation {
    Operation::Compare { op, value: value.to_string() }
}

/// Asserts a PGRST100 syntax error about `param` and returns its details.
pub(super) fn syntax(e: &ParseError, param: ParamKind) -> String {
    match e {
        ParseError::Syntax { param: p, details, .. } => {
            assert_eq!(*p, param, "{e:?}");
            assert_eq!(e.code(), "PGRST100");
            assert_eq!(e.status(), 400);
            details.clone()
        }
        other => panic!("expected a syntax error about {param:?}, got {other:?}"),
    }
}

/// Strings as owned.
pub(super) fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}
