//! Constructors of [`RestError`] that take the data going into the texts and
//! build PostgREST's exact strings (sources: `src/PostgREST/Error.hs`,
//! `src/PostgREST/ApiRequest/Payload.hs`, `src/PostgREST/Response.hs`).

use std::fmt::Display;

use super::schema::{function_hint, relationship_hint, table_hint};
use super::{FunctionSignature, JwtClaimsError, JwtDecodeError, RaiseParseError, Relationship, RestError, RpcPayload};

impl RestError {
    /// PGRST100 from the query-string parser's message and details.
    pub fn query_param(message: impl Into<String>, details: impl Into<String>) -> Self {
        RestError::QueryParam { message: message.into(), details: details.into() }
    }

    /// PGRST101: e.g. `rpc_method_not_allowed("PUT")`.
    pub fn rpc_method_not_allowed(method: impl Into<String>) -> Self {
        RestError::RpcMethodNotAllowed { method: method.into() }
    }

    /// PGRST102 with a given message.
    pub fn invalid_body(message: impl Into<String>) -> Self {
        RestError::InvalidBody { message: message.into() }
    }

    /// PGRST102 "Empty or invalid json" (any JSON parse failure; PostgREST
    /// drops the parser's text on purpose, PostgREST#2344).
    pub fn invalid_json_body() -> Self {
        Self::invalid_body("Empty or invalid json")
    }

    /// PGRST102 "All object keys must match" (a JSON array whose objects
    /// have different key sets, or not all objects).
    pub fn body_keys_mismatch() -> Self {
        Self::invalid_body("All object keys must match")
    }

    /// PGRST102 "All lines must have same number of fields" (CSV body).
    pub fn csv_fields_mismatch() -> Self {
        Self::invalid_body("All lines must have same number of fields")
    }

    /// PGRST102 "Content-Type not acceptable: <mime>" (unsupported body type).
    pub fn content_type_not_acceptable(mime: &str) -> Self {
        Self::invalid_body(format!("Content-Type not acceptable: {mime}"))
    }

    /// PGRST103 with explicit texts (from the parser module).
    pub fn invalid_range(message: impl Into<String>, details: impl Into<String>) -> Self {
        RestError::InvalidRange { message: message.into(), details: details.into(), total: None }
    }

    /// PGRST103 for `limit=-1`.
    pub fn range_negative_limit() -> Self {
        Self::invalid_range(RANGE_NOT_SATISFIABLE, "Limit should be greater than or equal to zero.")
    }

    /// PGRST103 for a `Range: 5-2` header.
    pub fn range_lower_gt_upper() -> Self {
        Self::invalid_range(
            RANGE_NOT_SATISFIABLE,
            "The lower boundary must be lower than or equal to the upper boundary in the Range header.",
        )
    }

    /// PGRST103 for an offset past the end; `total` is the exact count if
    /// known (PostgREST prints 0 when it is not).
    pub fn range_out_of_bounds(offset: u64, total: Option<u64>) -> Self {
        RestError::InvalidRange {
            message: RANGE_NOT_SATISFIABLE.into(),
            details: format!("An offset of {offset} was requested, but there are only {} rows.", total.unwrap_or(0)),
            total,
        }
    }

    /// PGRST105.
    pub fn invalid_put_filters() -> Self {
        RestError::InvalidPutFilters
    }

    /// PGRST106: `schema` is not among `exposed` (`db-schemas`).
    pub fn schema_not_exposed<S: AsRef<str>>(schema: impl Into<String>, exposed: &[S]) -> Self {
        RestError::SchemaNotExposed {
            schema: schema.into(),
            exposed: exposed.iter().map(|s| s.as_ref().to_owned()).collect(),
        }
    }

    /// PGRST107: none of the `Accept`ed media types can be produced.
    pub fn media_type_unavailable<S: AsRef<str>>(media_types: &[S]) -> Self {
        RestError::MediaTypeUnavailable { media_types: media_types.iter().map(|s| s.as_ref().to_owned()).collect() }
    }

    /// PGRST108.
    pub fn not_embedded(resource: impl Into<String>) -> Self {
        RestError::NotEmbedded { resource: resource.into() }
    }

    /// PGRST116: singular response requested, `rows` rows produced.
    pub fn singular(rows: u64) -> Self {
        RestError::Singular { rows }
    }

    /// PGRST117.
    pub fn unsupported_method(method: impl Into<String>) -> Self {
        RestError::UnsupportedMethod { method: method.into() }
    }

    /// PGRST118.
    pub fn related_order_not_to_one(origin: impl Into<String>, target: impl Into<String>) -> Self {
        RestError::RelatedOrderNotToOne { origin: origin.into(), target: target.into() }
    }

    /// PGRST120.
    pub fn unacceptable_embed_filter(target: impl Into<String>) -> Self {
        RestError::UnacceptableEmbedFilter { target: target.into() }
    }

    /// PGRST121.
    pub fn raise_parse(error: RaiseParseError) -> Self {
        RestError::RaiseParse(error)
    }

    /// PGRST122 with explicit texts (from the parser module).
    pub fn invalid_preferences_text(message: impl Into<String>, details: impl Into<String>) -> Self {
        RestError::InvalidPreferences { message: message.into(), details: details.into() }
    }

    /// PGRST122 from the invalid `Prefer` items as sent (e.g. `["anything"]`).
    pub fn invalid_preferences<S: AsRef<str>>(invalid: &[S]) -> Self {
        let list: Vec<&str> = invalid.iter().map(AsRef::as_ref).collect();
        Self::invalid_preferences_text(
            "Invalid preferences given with handling=strict",
            format!("Invalid preferences: {}", list.join(", ")),
        )
    }

    /// PGRST124: `rows` affected, more than `max-affected`.
    pub fn max_affected_exceeded(rows: u64) -> Self {
        RestError::MaxAffectedExceeded { rows }
    }

    /// PGRST127, e.g. `not_implemented("Aggregates are not implemented for one-to-many or many-to-many spreads.")`.
    pub fn not_implemented(details: impl Into<String>) -> Self {
        RestError::NotImplemented { details: details.into() }
    }

    /// PGRST200 with its hint computed as PostgREST does ([`relationship_hint`]).
    ///
    /// `parent_targets`: `Some(names of the tables parent has relationships
    /// with)` when the parent is known to the relationship cache, `None`
    /// otherwise; `schema_parents`: the tables of `schema` that have
    /// relationships.
    pub fn relationship_not_found(
        parent: &str,
        child: &str,
        embed_hint: Option<&str>,
        schema: &str,
        parent_targets: Option<&[&str]>,
        schema_parents: &[&str],
    ) -> Self {
        RestError::RelationshipNotFound {
            parent: parent.to_owned(),
            child: child.to_owned(),
            embed_hint: embed_hint.map(str::to_owned),
            schema: schema.to_owned(),
            hint: relationship_hint(parent, child, parent_targets, schema_parents),
        }
    }

    /// PGRST201.
    pub fn ambiguous_relationship(parent: &str, child: &str, candidates: Vec<Relationship>) -> Self {
        RestError::AmbiguousRelationship { parent: parent.to_owned(), child: child.to_owned(), candidates }
    }

    /// PGRST202 with its hint computed as PostgREST does ([`function_hint`]).
    ///
    /// `args`: argument names in request order; `schema_functions`: names of
    /// all functions in `schema`; `overloads`: parameter names of each
    /// function called `name` (empty when there is none).
    pub fn function_not_found(
        schema: &str,
        name: &str,
        args: &[&str],
        payload: RpcPayload,
        post_invocation: bool,
        schema_functions: &[&str],
        overloads: &[Vec<&str>],
    ) -> Self {
        let hint = if payload.single_unnamed(post_invocation) {
            None
        } else {
            function_hint(schema, name, args, schema_functions, overloads)
        };
        RestError::FunctionNotFound {
            schema: schema.to_owned(),
            name: name.to_owned(),
            args: args.iter().map(|s| (*s).to_owned()).collect(),
            payload,
            post_invocation,
            hint,
        }
    }

    /// PGRST203.
    pub fn ambiguous_function(candidates: Vec<FunctionSignature>) -> Self {
        RestError::AmbiguousFunction { candidates }
    }

    /// PGRST204.
    pub fn column_not_found(relation: impl Into<String>, column: impl Into<String>) -> Self {
        RestError::ColumnNotFound { relation: relation.into(), column: column.into() }
    }

    /// PGRST205 with its hint computed as PostgREST does ([`table_hint`]);
    /// `schema_tables`: all tables and views of `schema`.
    pub fn table_not_found(schema: &str, table: &str, schema_tables: &[&str]) -> Self {
        RestError::TableNotFound {
            schema: schema.to_owned(),
            table: table.to_owned(),
            hint: table_hint(schema, table, schema_tables),
        }
    }

    /// PGRST301.
    pub fn jwt_decode(error: JwtDecodeError) -> Self {
        RestError::JwtDecode(error)
    }

    /// PGRST303.
    pub fn jwt_claims(error: JwtClaimsError) -> Self {
        RestError::JwtClaims(error)
    }

    /// A Postgres error from its fields.
    pub fn db(
        sqlstate: impl Into<String>,
        message: impl Into<String>,
        detail: Option<String>,
        hint: Option<String>,
        anonymous: bool,
    ) -> Self {
        RestError::Db { sqlstate: sqlstate.into(), message: message.into(), detail, hint, anonymous }
    }

    /// An internal error; `cause` is logged when the response is built, never sent.
    pub fn internal(cause: impl Display) -> Self {
        RestError::Internal(cause.to_string())
    }
}

const RANGE_NOT_SATISFIABLE: &str = "Requested range not satisfiable";

impl From<JwtDecodeError> for RestError {
    fn from(error: JwtDecodeError) -> Self {
        RestError::JwtDecode(error)
    }
}

impl From<JwtClaimsError> for RestError {
    fn from(error: JwtClaimsError) -> Self {
        RestError::JwtClaims(error)
    }
}

impl From<RaiseParseError> for RestError {
    fn from(error: RaiseParseError) -> Self {
        RestError::RaiseParse(error)
    }
}
