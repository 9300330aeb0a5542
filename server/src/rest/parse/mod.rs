//! Parser for PostgREST's (v12–v14) request grammar: the query string (`select`, filters,
//! `and`/`or` trees, `order`, `limit`/`offset`, `on_conflict`, `columns`) and the `Prefer`
//! and `Range` headers, built with `nom` and producing the typed AST in [`ast`].
//!
//! This module only parses. It must not percent-decode (callers pass decoded pairs),
//! resolve names against the schema, build SQL, or talk to the database. Errors carry
//! PostgREST's codes and messages ([`ParseError`]). No input can make it panic or loop:
//! nesting of embeddings and logic trees is capped at [`MAX_DEPTH`].
//!
//! Where it knowingly differs from PostgREST (all stricter or safer, none affecting valid
//! requests as PostgREST documents them):
//! - trailing input after a complete `select`, filter value, logic tree, `columns` or
//!   `on_conflict` is an error (PostgREST silently ignores it), and so is a logic-tree
//!   value that is not a parenthesised list (`or=a.eq.1`);
//! - casts accept only type-name shapes (PostgREST: letters, digits, `_`, `$`, spaces) but
//!   also allow `(n)`, `(n,m)` modifiers and `[]` suffixes;
//! - a quantified operand is kept as the raw array literal, as PostgREST passes it on;
//! - `in.()` is the empty list, while `in.("")` is a list holding the empty string;
//! - a JSON array index may also be followed by `)` or whitespace;
//! - invalid `limit`/`offset` values are PGRST100 errors (PostgREST ignores them);
//! - two hints or two join types on one embedding are an error (PostgREST drops one),
//!   while hints merely starting with `left`/`inner` (`!leftovers`) work;
//! - empty names (`""`, or only spaces) are rejected;
//! - numbers (`limit`, `offset`, `Range` bounds, `max-affected`) above `i64::MAX` are
//!   rejected, and a `max-affected` that is not such a number is an invalid preference;
//! - `Prefer: params=single-object` (PostgREST 12 only) is still recognised.

pub mod ast;
pub mod error;
mod filter;
mod lex;
mod logic;
mod names;
mod order;
mod prefer;
mod query;
mod range;
mod select;

#[cfg(test)]
mod tests;

pub use ast::*;
pub use error::{ParamKind, ParseError, RangeError};
pub use prefer::{
    parse_prefer_with_timezones, plausible_timezone, CountPref, Handling, Missing, Preferences, Resolution, ReturnPref,
    TxPref,
};

/// Maximum nesting of embeddings in `select` and of `and(...)`/`or(...)` in logic trees.
pub const MAX_DEPTH: usize = 64;

/// Parse all query-string pairs (already percent-decoded, in order) of a table/view request.
///
/// A pair with an empty key and value is skipped. PostgREST also ignores a key written
/// without `=` (`?id`); callers that can tell should drop such keys, since here `("id", "")`
/// is the filter `id=` and fails like PostgREST's `?id=` does.
pub fn parse_query(pairs: &[(String, String)]) -> Result<QueryParams, ParseError> {
    query::parse_pairs(pairs, false)
}

/// Same, for a GET to `/rpc`: as in PostgREST, a value that starts with an operator (`eq.1`,
/// `not.is.null`, `fts(english).cat`) is a filter on the result, any other value an argument,
/// returned in [`QueryParams::rpc_args`] (raw key, raw value) in order. Reserved keys
/// (`select`, `order`, `limit`, `and`, ...) are never arguments.
pub fn parse_rpc_query(pairs: &[(String, String)]) -> Result<QueryParams, ParseError> {
    query::parse_pairs(pairs, true)
}

/// Parse the values of every `Prefer` header of a request, in order. Unknown or invalid
/// preferences are listed in [`Preferences::invalid`], or are a PGRST122 error under
/// `handling=strict`. Time zones are checked with [`plausible_timezone`]; use
/// [`parse_prefer_with_timezones`] to check them against the database.
pub fn parse_prefer<'a>(headers: impl IntoIterator<Item = &'a str>) -> Result<Preferences, ParseError> {
    parse_prefer_with_timezones(headers, &plausible_timezone)
}

/// Parse a `Range` header value into `(offset, limit)`; see `range.rs` for the rules.
/// A lower bound above the upper one is [`ParseError::InvalidRange`] (PGRST103, HTTP 416).
pub fn parse_range_header(value: &str) -> Result<(u64 /*offset*/, Option<u64> /*limit*/), ParseError> {
    range::parse_range(value)
}
