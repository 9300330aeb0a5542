//! The error type of the `/rest/v1` (PostgREST-compatible) surface: every
//! error PostgREST v12-v14 can answer, with its exact `code`, HTTP status,
//! `message`, `details` and `hint`, the SQLSTATE -> HTTP status mapping for
//! Postgres errors, and the response PostgREST sends for each (JSON body
//! `{"code","details","hint","message"}`, `Content-Type: application/json;
//! charset=utf-8`, `Proxy-Status: PostgREST; error=<code>`, `WWW-Authenticate`
//! on 401s, the headers/status of a custom `RAISE SQLSTATE 'PGRST'`).
//!
//! Wording follows PostgREST v13/v14 (`src/PostgREST/Error.hs`, identical in
//! both except where noted); where v12 differed the older text is noted on
//! the variant. Sources: PostgREST's `src/PostgREST/Error.hs` (v12.2.12,
//! v13.0.8, v14.17), its `docs/references/errors.rst`, and its test suite.
//!
//! What this module must not do: leak internal causes. Connection failures,
//! driver errors and [`RestError::Internal`] are logged with `tracing` and
//! answered with a fixed message (PostgREST would put the libpq text into
//! PGRST000's `details`; we do not). Only what PostgREST itself sends to
//! clients (Postgres' own message/detail/hint for SQL errors, request-derived
//! text) goes into a body.

mod ctor;
mod jwt;
pub mod pg;
mod schema;
pub mod suggest;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use actix_web::http::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::{Map, Value};

pub use jwt::{from_gate, JwtClaimsError, JwtDecodeError};
pub use pg::{parse_custom_raise, pg_error_status, CustomRaise, RaiseParseError};
pub use schema::{
    function_hint, relationship_hint, table_hint, Cardinality, FunctionSignature, Relationship, RpcPayload,
};
pub use suggest::{fuzzy_matches, suggest, suggest_with_min_score};

/// `Content-Type` of every error response (`MediaType.toContentType MTApplicationJSON`).
pub const ERROR_CONTENT_TYPE: &str = "application/json; charset=utf-8";

/// Every error the /rest/v1 surface returns. One variant per PGRST condition,
/// plus [`RestError::Db`] for Postgres errors and [`RestError::Internal`].
///
/// Build them with the constructors (`RestError::singular(3)`, ...) which take
/// the data that goes into the texts; render with [`RestError::body`],
/// [`RestError::status`], or as an actix [`ResponseError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestError {
    // ---- Group 0: connection -------------------------------------------
    /// PGRST000, 503: cannot connect to the database. v12/v13 message:
    /// "Database connection error. Retrying the connection."; PostgREST also
    /// puts the libpq error in `details` - never sent here (logged instead).
    ConnectionFailed,
    /// PGRST001, 503: the connection failed during the request.
    ConnectionLost,
    /// PGRST002, 503: the schema cache is not loaded.
    SchemaCacheNotReady,
    /// PGRST003, 504: timed out waiting for a pooled connection.
    PoolTimeout,
    /// 413 (our own code; PostgREST has no body limit): the request body exceeds the limit.
    PayloadTooLarge(usize),

    // ---- Group 1: API request ------------------------------------------
    /// PGRST100, 400: query-string parse error (message and details built by the parser).
    QueryParam {
        /// e.g. `"\"failed to parse filter (eqx.1)\" (line 1, column 4)"`.
        message: String,
        /// e.g. `"unexpected \"x\" expecting ..."`.
        details: String,
    },
    /// PGRST101, 405: only GET/HEAD/POST on `/rpc/...`.
    RpcMethodNotAllowed {
        /// The HTTP method used.
        method: String,
    },
    /// PGRST102, 400: invalid request body; see `RestError::invalid_json_body` and friends.
    InvalidBody {
        /// e.g. "Empty or invalid json".
        message: String,
    },
    /// PGRST103, 416: invalid range/limit/offset. PostgREST's message is
    /// always "Requested range not satisfiable" (see the `range_*` constructors).
    InvalidRange {
        /// The message.
        message: String,
        /// The details.
        details: String,
        /// The row count, when known: sent as `Content-Range: */N`.
        total: Option<u64>,
    },
    /// PGRST105, 405: PUT filters must be `eq` on exactly the primary key columns.
    InvalidPutFilters,
    /// PGRST106, 406: `Accept-Profile`/`Content-Profile` names a schema that
    /// is not exposed. v12: message "The schema must be one of the following:
    /// a, b" with hint null.
    SchemaNotExposed {
        /// The schema asked for.
        schema: String,
        /// The exposed schemas (`db-schemas`), in configuration order.
        exposed: Vec<String>,
    },
    /// PGRST107, 406 (the docs table says 415; the code and its tests say 406):
    /// no media type of `Accept` can be produced.
    MediaTypeUnavailable {
        /// The requested media types as in `Accept`.
        media_types: Vec<String>,
    },
    /// PGRST108, 400: a filter/order names a resource not embedded in `select`.
    NotEmbedded {
        /// The resource name.
        resource: String,
    },
    /// PGRST111, 500: `response.headers` GUC is not a JSON array of single-key objects.
    InvalidResponseHeadersGuc,
    /// PGRST112, 500: `response.status` GUC is not a valid status code.
    InvalidResponseStatusGuc,
    /// PGRST114, 400: `limit`/`offset` with PUT.
    PutLimitNotAllowed,
    /// PGRST115, 400: PUT body primary key differs from the URL filter.
    PutPrimaryKeyMismatch,
    /// PGRST116, 406: `Accept: application/vnd.pgrst.object+json` (supabase-js
    /// `.single()`) with a result of 0 or more than 1 rows. v12 message:
    /// "JSON object requested, multiple (or no) rows returned".
    Singular {
        /// The number of rows the query produced.
        rows: u64,
    },
    /// PGRST117, 405: an HTTP method PostgREST does not handle.
    UnsupportedMethod {
        /// The HTTP method used.
        method: String,
    },
    /// PGRST118, 400: ordering by an embedded resource that is not to-one.
    RelatedOrderNotToOne {
        /// The embedding table.
        origin: String,
        /// The embedded resource ordered by.
        target: String,
    },
    /// PGRST120, 400: only `is.null`/`not.is.null` filters on an embedded resource itself.
    UnacceptableEmbedFilter {
        /// The embedded resource.
        target: String,
    },
    /// PGRST121, 500: a `RAISE SQLSTATE 'PGRST'` with unusable MESSAGE/DETAIL JSON.
    RaiseParse(RaiseParseError),
    /// PGRST122, 400: invalid `Prefer` values with `handling=strict`.
    InvalidPreferences {
        /// "Invalid preferences given with handling=strict".
        message: String,
        /// "Invalid preferences: a, b".
        details: String,
    },
    /// PGRST123, 400: aggregate functions are disabled (`db-aggregates-enabled`).
    AggregatesDisabled,
    /// PGRST124, 400: `Prefer: max-affected=n` (strict) exceeded.
    MaxAffectedExceeded {
        /// The number of rows the query affected.
        rows: u64,
    },
    /// PGRST125, 404: the path is not `/`, `/table` or `/rpc/fn`.
    InvalidResourcePath,
    /// PGRST126, 404: OpenAPI root requested while disabled.
    OpenApiDisabled,
    /// PGRST127, 400: a feature PostgREST does not implement; `details` says which.
    NotImplemented {
        /// What is not implemented.
        details: String,
    },
    /// PGRST128, 400: `max-affected` with `handling=strict` on a function not returning SETOF/TABLE.
    MaxAffectedRpcNotSetof,

    // ---- Group 2: schema cache -----------------------------------------
    /// PGRST200, 400: no relationship for an embedding.
    RelationshipNotFound {
        /// The embedding table.
        parent: String,
        /// The embedded resource.
        child: String,
        /// The `!hint` of the embedding, if any.
        embed_hint: Option<String>,
        /// The schema searched.
        schema: String,
        /// "Perhaps you meant ..." (see [`relationship_hint`]).
        hint: Option<String>,
    },
    /// PGRST201, 300: more than one relationship fits an embedding.
    AmbiguousRelationship {
        /// The embedding table.
        parent: String,
        /// The embedded resource as written in `select`.
        child: String,
        /// The relationships found.
        candidates: Vec<Relationship>,
    },
    /// PGRST202, 404: no function with that name and argument names.
    FunctionNotFound {
        /// The schema searched.
        schema: String,
        /// The function name.
        name: String,
        /// Argument names given (query parameters or JSON keys), in request order.
        args: Vec<String>,
        /// The body type of the call.
        payload: RpcPayload,
        /// Whether this is a POST (invocation with a body).
        post_invocation: bool,
        /// "Perhaps you meant to call ..." (see [`function_hint`]).
        hint: Option<String>,
    },
    /// PGRST203, 300: overloaded functions cannot be told apart.
    AmbiguousFunction {
        /// The candidates.
        candidates: Vec<FunctionSignature>,
    },
    /// PGRST204, 400: a column named in `columns` (or the body) does not exist.
    ColumnNotFound {
        /// The table (unqualified).
        relation: String,
        /// The column.
        column: String,
    },
    /// PGRST205, 404 (v13+; v12 let Postgres answer 42P01): unknown table/view.
    TableNotFound {
        /// The schema searched.
        schema: String,
        /// The table asked for.
        table: String,
        /// "Perhaps you meant the table ..." (see [`table_hint`]).
        hint: Option<String>,
    },

    // ---- Group 3: JWT --------------------------------------------------
    /// PGRST300, 500: no JWT secret/keys configured.
    JwtSecretMissing,
    /// PGRST301, 401: the token cannot be decoded/verified.
    JwtDecode(JwtDecodeError),
    /// PGRST302, 401: no token and no anonymous role configured.
    AnonymousAccessDisabled,
    /// PGRST303, 401: the token's claims are invalid (expired, audience, ...).
    JwtClaims(JwtClaimsError),

    // ---- Postgres ------------------------------------------------------
    /// An error reported by Postgres, sent as `{code: sqlstate, message,
    /// details: detail, hint}` with the status of [`pg_error_status`]. `PTxyz`
    /// and `PGRST` SQLSTATEs get PostgREST's custom-raise handling.
    Db {
        /// The 5-character SQLSTATE.
        sqlstate: String,
        /// Primary message (`MESSAGE`).
        message: String,
        /// `DETAIL`, if any.
        detail: Option<String>,
        /// `HINT`, if any.
        hint: Option<String>,
        /// The request ran as the anonymous role (no JWT, or a JWT whose role
        /// is the configured anon role, e.g. Supabase's anon key): decides
        /// 401 vs 403 for 42501.
        anonymous: bool,
    },

    /// Anything else that went wrong on our side: the cause is logged and a
    /// generic PGRSTX00 500 ("Internal server error") is sent.
    Internal(String),
}

impl fmt::Display for RestError {
    /// `code: message` for logs. For `Internal` this includes the cause,
    /// which is never put in a response body.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RestError::Internal(cause) => write!(f, "PGRSTX00: internal error: {cause}"),
            _ => write!(f, "{}: {}", self.code(), self.message()),
        }
    }
}

impl RestError {
    /// The `code` field: "PGRST116", the SQLSTATE for `Db`, or the custom
    /// code of a `RAISE SQLSTATE 'PGRST'`.
    pub fn code(&self) -> String {
        let code = match self {
            RestError::ConnectionFailed => "PGRST000",
            RestError::ConnectionLost => "PGRST001",
            RestError::SchemaCacheNotReady => "PGRST002",
            RestError::PoolTimeout => "PGRST003",
            RestError::PayloadTooLarge(_) => "PGRST413",
            RestError::QueryParam { .. } => "PGRST100",
            RestError::RpcMethodNotAllowed { .. } => "PGRST101",
            RestError::InvalidBody { .. } => "PGRST102",
            RestError::InvalidRange { .. } => "PGRST103",
            RestError::InvalidPutFilters => "PGRST105",
            RestError::SchemaNotExposed { .. } => "PGRST106",
            RestError::MediaTypeUnavailable { .. } => "PGRST107",
            RestError::NotEmbedded { .. } => "PGRST108",
            RestError::InvalidResponseHeadersGuc => "PGRST111",
            RestError::InvalidResponseStatusGuc => "PGRST112",
            RestError::PutLimitNotAllowed => "PGRST114",
            RestError::PutPrimaryKeyMismatch => "PGRST115",
            RestError::Singular { .. } => "PGRST116",
            RestError::UnsupportedMethod { .. } => "PGRST117",
            RestError::RelatedOrderNotToOne { .. } => "PGRST118",
            RestError::UnacceptableEmbedFilter { .. } => "PGRST120",
            RestError::RaiseParse(_) => "PGRST121",
            RestError::InvalidPreferences { .. } => "PGRST122",
            RestError::AggregatesDisabled => "PGRST123",
            RestError::MaxAffectedExceeded { .. } => "PGRST124",
            RestError::InvalidResourcePath => "PGRST125",
            RestError::OpenApiDisabled => "PGRST126",
            RestError::NotImplemented { .. } => "PGRST127",
            RestError::MaxAffectedRpcNotSetof => "PGRST128",
            RestError::RelationshipNotFound { .. } => "PGRST200",
            RestError::AmbiguousRelationship { .. } => "PGRST201",
            RestError::FunctionNotFound { .. } => "PGRST202",
            RestError::AmbiguousFunction { .. } => "PGRST203",
            RestError::ColumnNotFound { .. } => "PGRST204",
            RestError::TableNotFound { .. } => "PGRST205",
            RestError::JwtSecretMissing => "PGRST300",
            RestError::JwtDecode(_) => "PGRST301",
            RestError::AnonymousAccessDisabled => "PGRST302",
            RestError::JwtClaims(_) => "PGRST303",
            RestError::Internal(_) => "PGRSTX00",
            RestError::Db { sqlstate, .. } => {
                return match self.custom_raise() {
                    Some(Ok(raise)) => raise.code,
                    Some(Err(_)) => "PGRST121".to_owned(),
                    None => sqlstate.clone(),
                };
            }
        };
        code.to_owned()
    }

    /// The HTTP status PostgREST answers with.
    pub fn status(&self) -> StatusCode {
        let code = match self {
            RestError::ConnectionFailed | RestError::ConnectionLost | RestError::SchemaCacheNotReady => 503,
            RestError::PoolTimeout => 504,
            RestError::PayloadTooLarge(_) => 413,
            RestError::QueryParam { .. }
            | RestError::InvalidBody { .. }
            | RestError::NotEmbedded { .. }
            | RestError::PutLimitNotAllowed
            | RestError::PutPrimaryKeyMismatch
            | RestError::RelatedOrderNotToOne { .. }
            | RestError::UnacceptableEmbedFilter { .. }
            | RestError::InvalidPreferences { .. }
            | RestError::AggregatesDisabled
            | RestError::MaxAffectedExceeded { .. }
            | RestError::NotImplemented { .. }
            | RestError::MaxAffectedRpcNotSetof
            | RestError::RelationshipNotFound { .. }
            | RestError::ColumnNotFound { .. } => 400,
            RestError::RpcMethodNotAllowed { .. }
            | RestError::InvalidPutFilters
            | RestError::UnsupportedMethod { .. } => 405,
            RestError::InvalidRange { .. } => 416,
            RestError::SchemaNotExposed { .. }
            | RestError::MediaTypeUnavailable { .. }
            | RestError::Singular { .. } => 406,
            RestError::InvalidResponseHeadersGuc
            | RestError::InvalidResponseStatusGuc
            | RestError::RaiseParse(_)
            | RestError::JwtSecretMissing
            | RestError::Internal(_) => 500,
            RestError::InvalidResourcePath
            | RestError::OpenApiDisabled
            | RestError::FunctionNotFound { .. }
            | RestError::TableNotFound { .. } => 404,
            RestError::AmbiguousRelationship { .. } | RestError::AmbiguousFunction { .. } => 300,
            RestError::JwtDecode(_) | RestError::AnonymousAccessDisabled | RestError::JwtClaims(_) => 401,
            RestError::Db { sqlstate, message, detail, anonymous, .. } => {
                return pg_error_status(sqlstate, message, detail.as_deref(), *anonymous)
            }
        };
        StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    /// The `message` field.
    pub fn message(&self) -> String {
        match self {
            RestError::ConnectionFailed => "Database connection error.".to_owned(),
            RestError::ConnectionLost => "Database client error. Retrying the connection.".to_owned(),
            RestError::SchemaCacheNotReady => "Could not query the database for the schema cache. Retrying.".to_owned(),
            RestError::PoolTimeout => "Timed out acquiring connection from connection pool.".to_owned(),
            RestError::PayloadTooLarge(_) => "Payload too large".to_owned(),
            RestError::QueryParam { message, .. }
            | RestError::InvalidBody { message }
            | RestError::InvalidRange { message, .. }
            | RestError::InvalidPreferences { message, .. } => message.clone(),
            RestError::RpcMethodNotAllowed { method } => format!("Cannot use the {method} method on RPC"),
            RestError::InvalidPutFilters => {
                "Filters must include all and only primary key columns with 'eq' operators".to_owned()
            }
            RestError::SchemaNotExposed { schema, .. } => format!("Invalid schema: {schema}"),
            RestError::MediaTypeUnavailable { media_types } => {
                format!("None of these media types are available: {}", media_types.join(", "))
            }
            RestError::NotEmbedded { resource } => {
                format!("'{resource}' is not an embedded resource in this request")
            }
            RestError::InvalidResponseHeadersGuc => {
                "response.headers guc must be a JSON array composed of objects with a single key and a string value"
                    .to_owned()
            }
            RestError::InvalidResponseStatusGuc => "response.status guc must be a valid status code".to_owned(),
            RestError::PutLimitNotAllowed => "limit/offset querystring parameters are not allowed for PUT".to_owned(),
            RestError::PutPrimaryKeyMismatch => "Payload values do not match URL in primary key column(s)".to_owned(),
            RestError::Singular { .. } => "Cannot coerce the result to a single JSON object".to_owned(),
            RestError::UnsupportedMethod { method } => format!("Unsupported HTTP method: {method}"),
            RestError::RelatedOrderNotToOne { target, .. } => {
                format!("A related order on '{target}' is not possible")
            }
            RestError::UnacceptableEmbedFilter { target } => {
                format!("Bad operator on the '{target}' embedded resource")
            }
            RestError::RaiseParse(_) => "Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error".to_owned(),
            RestError::AggregatesDisabled => "Use of aggregate functions is not allowed".to_owned(),
            RestError::MaxAffectedExceeded { .. } => {
                "Query result exceeds max-affected preference constraint".to_owned()
            }
            RestError::InvalidResourcePath => "Invalid path specified in request URL".to_owned(),
            RestError::OpenApiDisabled => "Root endpoint metadata is disabled".to_owned(),
            RestError::NotImplemented { .. } => "Feature not implemented".to_owned(),
            RestError::MaxAffectedRpcNotSetof => {
                "Function must return SETOF or TABLE when max-affected preference is used with handling=strict"
                    .to_owned()
            }
            RestError::RelationshipNotFound { parent, child, .. } => {
                format!("Could not find a relationship between '{parent}' and '{child}' in the schema cache")
            }
            RestError::AmbiguousRelationship { parent, child, .. } => {
                format!("Could not embed because more than one relationship was found for '{parent}' and '{child}'")
            }
            RestError::FunctionNotFound { schema, name, args, payload, post_invocation, .. } => {
                let params = if payload.single_unnamed(*post_invocation) {
                    String::new()
                } else if args.is_empty() {
                    " without parameters".to_owned()
                } else {
                    format!("({})", args.join(", "))
                };
                format!("Could not find the function {schema}.{name}{params} in the schema cache")
            }
            RestError::AmbiguousFunction { candidates } => {
                let list: Vec<String> = candidates.iter().map(FunctionSignature::render).collect();
                format!("Could not choose the best candidate function between: {}", list.join(", "))
            }
            RestError::ColumnNotFound { relation, column } => {
                format!("Could not find the '{column}' column of '{relation}' in the schema cache")
            }
            RestError::TableNotFound { schema, table, .. } => {
                format!("Could not find the table '{schema}.{table}' in the schema cache")
            }
            RestError::JwtSecretMissing => "Server lacks JWT secret".to_owned(),
            RestError::JwtDecode(e) => e.message(),
            RestError::AnonymousAccessDisabled => "Anonymous access is disabled".to_owned(),
            RestError::JwtClaims(e) => e.message().to_owned(),
            RestError::Db { message, .. } => match self.custom_raise() {
                Some(Ok(raise)) => raise.message,
                Some(Err(e)) => RestError::RaiseParse(e).message(),
                None => message.clone(),
            },
            RestError::Internal(_) => "Internal server error".to_owned(),
        }
    }

    /// The `details` field (`null` when PostgREST sends none; an array for PGRST201).
    pub fn details(&self) -> Value {
        let text = match self {
            RestError::QueryParam { details, .. }
            | RestError::InvalidRange { details, .. }
            | RestError::InvalidPreferences { details, .. }
            | RestError::NotImplemented { details } => details.clone(),
            RestError::Singular { rows } => format!("The result contains {rows} rows"),
            RestError::PayloadTooLarge(limit) => format!("The request body exceeds the limit of {limit} bytes"),
            RestError::RelatedOrderNotToOne { origin, target } => {
                format!("'{origin}' and '{target}' do not form a many-to-one or one-to-one relationship")
            }
            RestError::UnacceptableEmbedFilter { .. } => {
                "Only is null or not is null filters are allowed on embedded resources".to_owned()
            }
            RestError::RaiseParse(e) => e.details(),
            RestError::MaxAffectedExceeded { rows } => format!("The query affects {rows} rows"),
            RestError::RelationshipNotFound { parent, child, embed_hint, schema, .. } => {
                let using = embed_hint.as_deref().map(|h| format!("' using the hint '{h}")).unwrap_or_default();
                format!(
                    "Searched for a foreign key relationship between '{parent}' and '{child}{using}' in the schema '{schema}', but no matches were found."
                )
            }
            RestError::AmbiguousRelationship { candidates, .. } => {
                return Value::Array(candidates.iter().map(Relationship::details_json).collect());
            }
            RestError::FunctionNotFound { schema, name, args, payload, post_invocation, .. } => {
                let params = if args.is_empty() {
                    " without parameters".to_owned()
                } else {
                    let s = if args.len() > 1 { "s" } else { "" };
                    format!(" with parameter{s} {}", args.join(", "))
                };
                let searched = match (*post_invocation, payload) {
                    (true, RpcPayload::TextPlain) => " with a single unnamed text parameter".to_owned(),
                    (true, RpcPayload::TextXml) => " with a single unnamed xml parameter".to_owned(),
                    (true, RpcPayload::OctetStream) => " with a single unnamed bytea parameter".to_owned(),
                    (true, RpcPayload::Json) => {
                        format!("{params} or with a single unnamed json/jsonb parameter")
                    }
                    _ => params,
                };
                format!(
                    "Searched for the function {schema}.{name}{searched}, but no matches were found in the schema cache."
                )
            }
            RestError::JwtDecode(e) => match e.details() {
                Some(d) => d.to_owned(),
                None => return Value::Null,
            },
            RestError::Db { detail, .. } => {
                return match self.custom_raise() {
                    Some(Ok(raise)) => opt_string(raise.details),
                    Some(Err(e)) => Value::String(e.details()),
                    None => opt_string(detail.clone()),
                };
            }
            _ => return Value::Null,
        };
        Value::String(text)
    }

    /// The `hint` field (`null` when PostgREST sends none).
    pub fn hint(&self) -> Value {
        let text = match self {
            RestError::NotEmbedded { resource } => {
                format!("Verify that '{resource}' is included in the 'select' query parameter.")
            }
            RestError::RaiseParse(e) => e.hint().to_owned(),
            RestError::SchemaNotExposed { exposed, .. } => {
                format!("Only the following schemas are exposed: {}", exposed.join(", "))
            }
            RestError::RelationshipNotFound { hint, .. }
            | RestError::FunctionNotFound { hint, .. }
            | RestError::TableNotFound { hint, .. } => return opt_string(hint.clone()),
            RestError::AmbiguousRelationship { child, candidates, .. } => {
                let items: Vec<String> = candidates.iter().map(Relationship::hint_item).collect();
                format!(
                    "Try changing '{child}' to one of the following: {}. Find the desired relationship in the 'details' key.",
                    items.join(", ")
                )
            }
            RestError::AmbiguousFunction { .. } => "Try renaming the parameters or the function itself in the database so function overloading can be resolved".to_owned(),
            RestError::Db { hint, .. } => {
                return match self.custom_raise() {
                    Some(Ok(raise)) => opt_string(raise.hint),
                    Some(Err(e)) => Value::String(e.hint().to_owned()),
                    None => opt_string(hint.clone()),
                };
            }
            _ => return Value::Null,
        };
        Value::String(text)
    }

    /// The JSON body: `{"code","details","hint","message"}`, absent values as `null`.
    pub fn body(&self) -> Value {
        // Inserted in key order so the output matches aeson's whatever
        // serde_json's map ordering feature is.
        let mut obj = Map::new();
        obj.insert("code".into(), Value::String(self.code()));
        obj.insert("details".into(), self.details());
        obj.insert("hint".into(), self.hint());
        obj.insert("message".into(), Value::String(self.message()));
        Value::Object(obj)
    }

    /// Headers sent besides `Content-Type`: `Proxy-Status` always,
    /// `WWW-Authenticate` on 401s, and a custom raise's own headers.
    pub fn headers(&self) -> Vec<(String, String)> {
        let mut headers = vec![("Proxy-Status".to_owned(), format!("PostgREST; error={}", self.code()))];
        match self {
            RestError::JwtDecode(_) | RestError::JwtClaims(_) => {
                headers.push(("WWW-Authenticate".to_owned(), jwt::invalid_token_challenge(&self.message())))
            }
            RestError::AnonymousAccessDisabled => {
                headers.push(("WWW-Authenticate".to_owned(), "Bearer".to_owned()));
            }
            RestError::ConnectionFailed | RestError::ConnectionLost | RestError::PoolTimeout => {
                headers.push(("Retry-After".to_owned(), crate::db::RETRY_AFTER_SECS.to_owned()));
            }
            RestError::InvalidRange { total: Some(total), .. } => {
                headers.push(("Content-Range".to_owned(), format!("*/{total}")));
            }
            RestError::Db { .. } => match self.custom_raise() {
                Some(Ok(raise)) => headers.extend(raise.headers),
                Some(Err(_)) => {}
                None => {
                    if self.status() == StatusCode::UNAUTHORIZED {
                        headers.push(("WWW-Authenticate".to_owned(), "Bearer".to_owned()));
                    }
                }
            },
            _ => {}
        }
        headers
    }

    /// A non-standard reason phrase PostgREST would send: the message of a
    /// `PTxyz` raise, or a PGRST raise's `status_text` (an empty phrase for
    /// an unknown status without one).
    pub fn reason_phrase(&self) -> Option<String> {
        let RestError::Db { sqlstate, message, .. } = self else {
            return None;
        };
        if let Some(raise) = self.custom_raise() {
            let raise = raise.ok()?;
            return match raise.status_text {
                Some(text) => Some(text),
                None if raise.status_code().canonical_reason().is_none() => Some(String::new()),
                None => None,
            };
        }
        let digits = sqlstate.strip_prefix("PT")?;
        // Only when the digits made the status (`mkStatus n message`).
        let numeric = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        let valid = numeric && digits.parse::<u16>().ok().and_then(|n| StatusCode::from_u16(n).ok()).is_some();
        valid.then(|| message.clone())
    }

    /// The parsed custom raise, for `Db` errors with SQLSTATE `PGRST`.
    fn custom_raise(&self) -> Option<Result<CustomRaise, RaiseParseError>> {
        match self {
            RestError::Db { sqlstate, message, detail, .. } if sqlstate == "PGRST" => {
                Some(parse_custom_raise(message, detail.as_deref()))
            }
            _ => None,
        }
    }

    /// A deadlock (`40P01`) or serialization failure (`40001`): the transaction lost to a
    /// concurrent one and was rolled back whole, so it can run again.
    pub fn is_concurrency_conflict(&self) -> bool {
        matches!(self, RestError::Db { sqlstate, .. } if sqlstate == "40001" || sqlstate == "40P01")
    }

    /// The conflict answered once retries are spent: the same code (409), with details that say
    /// what happened instead of Postgres's process and transaction numbers.
    pub fn after_conflict_retries(self, retries: u32) -> RestError {
        match self {
            RestError::Db { sqlstate, message, anonymous, .. } => RestError::Db {
                sqlstate,
                message,
                detail: Some(format!(
                    "The request conflicted with concurrent requests {} times and changed nothing.",
                    retries + 1
                )),
                hint: Some("Retry the request.".to_owned()),
                anonymous,
            },
            other => other,
        }
    }

    /// Build from a `tokio_postgres::Error`. A server error becomes
    /// [`RestError::Db`]; a failure to connect becomes PGRST000 (503), a
    /// connection lost mid-request PGRST001 (503), and a driver-side
    /// conversion error an internal 500. The cause is logged, never sent.
    pub fn from_pg(err: &tokio_postgres::Error, anonymous: bool) -> RestError {
        // The server ended the session (shutdown, a terminated backend) or has no slot left:
        // the connection is lost, not the statement wrong.
        if crate::db::ends_the_session(err) {
            tracing::error!(error = %err, "rest: the database ended the connection");
            return RestError::ConnectionLost;
        }
        if let Some(db) = err.as_db_error() {
            return RestError::Db {
                sqlstate: db.code().code().to_owned(),
                message: db.message().to_owned(),
                detail: db.detail().map(str::to_owned),
                hint: db.hint().map(str::to_owned),
                anonymous,
            };
        }
        let kind = err.to_string();
        let source = std::error::Error::source(err).map(|s| s.to_string()).unwrap_or_default();
        // tokio-postgres exposes no error kind; its Display text is fixed per kind.
        const CONNECT: &[&str] = &[
            "error connecting to server",
            "timeout waiting for server",
            "authentication error",
            "invalid connection string",
            "invalid configuration",
            "error performing TLS handshake",
        ];
        const LOST: &[&str] = &[
            "error communicating with the server",
            "connection closed",
            "unexpected message from server",
            "error parsing response from server",
            "error encoding message to server",
        ];
        if CONNECT.contains(&kind.as_str()) {
            tracing::error!(error = %kind, source = %source, "rest: database connection failed");
            RestError::ConnectionFailed
        } else if err.is_closed() || LOST.contains(&kind.as_str()) {
            tracing::error!(error = %kind, source = %source, "rest: database connection lost");
            RestError::ConnectionLost
        } else {
            RestError::Internal(if source.is_empty() {
                format!("postgres client: {kind}")
            } else {
                format!("postgres client: {kind}: {source}")
            })
        }
    }

    fn log(&self) {
        let status = self.status();
        match self {
            RestError::Internal(cause) => {
                tracing::error!(code = "PGRSTX00", cause = %cause, "rest: internal error");
            }
            RestError::Db { sqlstate, message, detail, .. } if status.is_server_error() => {
                tracing::error!(
                    status = status.as_u16(),
                    sqlstate = %sqlstate,
                    message = %message,
                    detail = ?detail,
                    "rest: database error"
                );
            }
            _ if status.is_server_error() => {
                tracing::error!(status = status.as_u16(), code = %self.code(), message = %self.message(), "rest: server error");
            }
            _ => {
                tracing::debug!(status = status.as_u16(), code = %self.code(), "rest: request error");
            }
        }
    }
}

impl ResponseError for RestError {
    fn status_code(&self) -> StatusCode {
        self.status()
    }

    fn error_response(&self) -> HttpResponse {
        self.log();
        let mut builder = HttpResponse::build(self.status());
        builder.insert_header((CONTENT_TYPE, HeaderValue::from_static(ERROR_CONTENT_TYPE)));
        for (name, value) in self.headers() {
            match (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(&value)) {
                (Ok(n), Ok(v)) => {
                    builder.append_header((n, v));
                }
                _ => tracing::warn!(header = %name, "rest: dropping an invalid error response header"),
            }
        }
        if let Some(reason) = self.reason_phrase().and_then(|r| static_reason(&r)) {
            builder.reason(reason);
        }
        let body = serde_json::to_vec(&self.body()).unwrap_or_else(|_| b"{}".to_vec());
        builder.body(body)
    }
}

impl serde::Serialize for RestError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.body().serialize(serializer)
    }
}

fn opt_string(s: Option<String>) -> Value {
    s.map_or(Value::Null, Value::String)
}

const MAX_REASONS: usize = 128;
const MAX_REASON_LEN: usize = 128;

/// actix wants a `&'static str` reason phrase; custom ones (PT raises,
/// `status_text`) are interned, at most 128 distinct phrases of at most 128
/// visible ASCII bytes, so the leak is bounded. Others get the canonical phrase.
fn static_reason(reason: &str) -> Option<&'static str> {
    if reason.len() > MAX_REASON_LEN || !reason.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b)) {
        return None;
    }
    static REASONS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut set = REASONS.get_or_init(|| Mutex::new(HashSet::new())).lock().ok()?;
    if let Some(found) = set.get(reason) {
        return Some(found);
    }
    if set.len() >= MAX_REASONS {
        return None;
    }
    let leaked: &'static str = Box::leak(reason.to_owned().into_boxed_str());
    set.insert(leaked);
    Some(leaked)
}
