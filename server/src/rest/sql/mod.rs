//! SQL generation for `/rest/v1`: one statement per request, every value a bind parameter
//! sent in text format (Postgres infers its type from the context, as with PostgREST), every
//! identifier taken from the request, checked by the planner or by Postgres, and quoted by
//! `db::quote_ident`. The JSON body is built by Postgres (`json_agg`, `row_to_json`).

pub mod filter;
pub mod mutate;
pub mod read;
pub mod rpc;

use bytes::BytesMut;
use tokio_postgres::types::{to_sql_checked, Format, IsNull, ToSql, Type};

pub use crate::db::quote_ident as ident;

/// The two columns every statement ends with: what SQL asked of the response through the
/// `response.headers` and `response.status` settings (PostgREST's "response GUCs"). They are
/// read in the statement's last projection, after everything it called has run.
pub const RESPONSE_SETTINGS: &str = "nullif(current_setting('response.headers', true), '') AS response_headers, \
     nullif(current_setting('response.status', true), '') AS response_status";

/// A parameter sent as text; the server parses it with the type it inferred for `$n`.
#[derive(Debug, Clone)]
pub struct TextParam(pub Option<String>);

impl ToSql for TextParam {
    fn to_sql(&self, _ty: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match &self.0 {
            Some(text) => {
                out.extend_from_slice(text.as_bytes());
                Ok(IsNull::No)
            }
            None => Ok(IsNull::Yes),
        }
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }

    fn encode_format(&self, _ty: &Type) -> Format {
        Format::Text
    }

    to_sql_checked!();
}

/// A statement under construction with its parameters.
#[derive(Debug, Default, Clone)]
pub struct Sql {
    pub params: Vec<TextParam>,
    /// Values go into the text as literals instead of parameters.
    inline: bool,
}

impl Sql {
    /// A statement whose values are written into its text as escaped literals, for `EXPLAIN`:
    /// Postgres reports no parameters for it, so nothing can be bound. An untyped literal takes
    /// the type Postgres infers at its place, as a text parameter does.
    pub fn inlined() -> Sql {
        Sql { params: Vec::new(), inline: true }
    }

    /// Add a parameter and return its placeholder (`$n`), or the value as a literal when inlined.
    pub fn bind(&mut self, value: impl Into<String>) -> String {
        let value = value.into();
        if self.inline {
            return crate::db::escaped_literal(&value);
        }
        self.params.push(TextParam(Some(value)));
        format!("${}", self.params.len())
    }

    /// The parameters as `ToSql` references for tokio-postgres.
    pub fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
    }
}

/// A string literal for places that cannot take parameters (JSON keys in select lists).
pub fn literal(value: &str) -> String {
    crate::db::quote_literal(value)
}
