//! The public error of the PostgREST request parsers, with PostgREST's codes and wording.
//!
//! It maps one-to-one onto PostgREST's JSON error body `{code, message, details, hint}`
//! and HTTP status. It must not depend on nom or on the HTTP framework, and it must not
//! decide anything about the request beyond describing what was wrong with it.

use std::fmt::Write as _;

/// Which query-string parameter (or part of one) failed; names the thing in PGRST100
/// messages exactly as PostgREST does (`failed to parse <label> (<input>)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// `select=`
    Select,
    /// the value of a filter `col=<value>`
    Filter,
    /// the key of a filter, `order`, `limit` or `offset` (`rel.col`, `rel.order`)
    TreePath,
    /// `order=`
    Order,
    /// the value of `and=` / `or=`
    LogicTree,
    /// the key of a logic tree (`rel.not.or`)
    LogicPath,
    /// `columns=`
    Columns,
    /// `on_conflict=`
    OnConflict,
    /// `limit=` (PostgREST ignores a bad one; we reject it)
    Limit,
    /// `offset=` (PostgREST ignores a bad one; we reject it)
    Offset,
}

impl ParamKind {
    /// The words PostgREST puts after "failed to parse".
    pub fn label(self) -> &'static str {
        match self {
            Self::Select => "select parameter",
            Self::Filter => "filter",
            Self::TreePath => "tree path",
            Self::Order => "order",
            Self::LogicTree => "logic tree",
            Self::LogicPath => "logic path",
            Self::Columns => "columns parameter",
            Self::OnConflict => "on_conflict parameter",
            Self::Limit => "limit parameter",
            Self::Offset => "offset parameter",
        }
    }
}

/// Why a `Range` header cannot be satisfied (PGRST103).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeError {
    /// `10-5`
    LowerGreaterThanUpper,
    /// A bound larger than `i64::MAX` (PostgREST has unbounded integers; we do not).
    TooLarge,
    /// `limit=-1`
    NegativeLimit,
}

/// A request the parsers reject. See [`ParseError::code`], [`ParseError::message`],
/// [`ParseError::details`] and [`ParseError::status`] for the JSON error body.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// PGRST100: a query-string parameter does not follow the grammar.
    #[error("{}: {}", position_message(*.param, .input, *.line, *.column), .details)]
    Syntax {
        /// Which parameter.
        param: ParamKind,
        /// The text that was parsed (the value, or the key for tree/logic paths).
        input: String,
        /// 1-based line of the failure (inputs may contain newlines).
        line: usize,
        /// 1-based column of the failure (tabs advance to the next multiple of 8, as Parsec).
        column: usize,
        /// `unexpected "x" expecting ...`.
        details: String,
    },
    /// PGRST100: embeddings or logic trees nested deeper than [`super::MAX_DEPTH`].
    #[error("{}: nesting deeper than {max} levels", position_message(*.param, .input, *.line, *.column))]
    TooDeep {
        /// Which parameter.
        param: ParamKind,
        /// The text that was parsed.
        input: String,
        /// 1-based line where the limit was exceeded.
        line: usize,
        /// 1-based column where the limit was exceeded.
        column: usize,
        /// The limit.
        max: usize,
    },
    /// PGRST103 (HTTP 416): the `Range` header cannot be satisfied.
    #[error("Requested range not satisfiable: {}", range_details(*.0))]
    InvalidRange(RangeError),
    /// PGRST122: `Prefer: handling=strict` with unknown or invalid preferences (listed).
    #[error("Invalid preferences given with handling=strict: {}", .0.join(", "))]
    InvalidPreferences(Vec<String>),
}

impl ParseError {
    /// PostgREST's error code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Syntax { .. } | Self::TooDeep { .. } => "PGRST100",
            Self::InvalidRange(_) => "PGRST103",
            Self::InvalidPreferences(_) => "PGRST122",
        }
    }

    /// HTTP status PostgREST answers with.
    pub fn status(&self) -> u16 {
        match self {
            Self::InvalidRange(_) => 416,
            _ => 400,
        }
    }

    /// The JSON `message`, e.g. `"failed to parse filter (foo.1)" (line 1, column 1)`.
    pub fn message(&self) -> String {
        match self {
            Self::Syntax { param, input, line, column, .. } | Self::TooDeep { param, input, line, column, .. } => {
                position_message(*param, input, *line, *column)
            }
            Self::InvalidRange(_) => "Requested range not satisfiable".to_string(),
            Self::InvalidPreferences(_) => "Invalid preferences given with handling=strict".to_string(),
        }
    }

    /// The JSON `details` (always present for these errors).
    pub fn details(&self) -> Option<String> {
        Some(match self {
            Self::Syntax { details, .. } => details.clone(),
            Self::TooDeep { max, .. } => {
                format!("nesting deeper than {max} levels of parentheses is not allowed")
            }
            Self::InvalidRange(e) => range_details(*e).to_string(),
            Self::InvalidPreferences(prefs) => format!("Invalid preferences: {}", prefs.join(", ")),
        })
    }

    /// The JSON `hint` (PostgREST gives none for these errors).
    pub fn hint(&self) -> Option<String> {
        None
    }
}

/// PostgREST's `show (errorPos e)`: the Parsec source name in Haskell string quotes.
fn position_message(param: ParamKind, input: &str, line: usize, column: usize) -> String {
    let mut out = String::from("\"failed to parse ");
    out.push_str(param.label());
    out.push_str(" (");
    for c in input.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\{}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    let _ = write!(out, ")\" (line {line}, column {column})");
    out
}

fn range_details(e: RangeError) -> &'static str {
    match e {
        RangeError::LowerGreaterThanUpper => {
            "The lower boundary must be lower than or equal to the upper boundary in the Range header."
        }
        RangeError::TooLarge => "Range boundaries must not exceed 9223372036854775807.",
        RangeError::NegativeLimit => "Limit should be greater than or equal to zero.",
    }
}
