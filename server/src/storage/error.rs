//! Every error `/storage/v1` can answer, mapped in one place to Supabase Storage's wire shape.
//!
//! The body is `{statusCode, code, error, message}` with the status as a string, as storage-api
//! renders its `StorageBackendError`s. Like current storage-api (`userStatusCode`), the HTTP
//! status is 400 for every client error and 500 for server errors: the real status is only in
//! `statusCode`. Internal causes (database, object store) are logged here and never sent.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::json;

/// Why a storage request failed.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("Object not found")]
    NoSuchKey,
    #[error("Bucket not found")]
    NoSuchBucket,
    #[error("The resource already exists")]
    Duplicate,
    #[error("The resource already exists")]
    BucketAlreadyExists,
    #[error("The bucket you tried to delete is not empty")]
    BucketNotEmpty,
    #[error("The object exceeded the maximum allowed size")]
    EntityTooLarge,
    #[error("mime type {0} is not supported")]
    InvalidMimeType(String),
    #[error("Invalid key: {0}")]
    InvalidKey(String),
    #[error("Bucket name invalid")]
    InvalidBucketName,
    #[error("{0}")]
    InvalidRequest(String),
    #[error("invalid range provided")]
    InvalidRange,
    #[error("{0}")]
    InvalidSignature(String),
    #[error("{0}")]
    InvalidJwt(String),
    /// A row-level-security refusal, with Postgres' message.
    #[error("new row violates row-level security policy")]
    AccessDenied,
    /// No route for this method and path (`METHOD:/path`), as Fastify answers it.
    #[error("Route {0} not found")]
    RouteNotFound(String),
    #[error("Internal server error")]
    Internal(String),
    /// The database cannot be reached (503, with `Retry-After`).
    #[error("The database is unavailable, please retry in a moment")]
    DatabaseUnavailable,
    /// No database connection came in time (504, with `Retry-After`).
    #[error("Timed out waiting for a database connection, please retry in a moment")]
    DatabaseTimeout,
}

impl StorageError {
    /// The status Supabase puts in `statusCode`.
    pub fn status(&self) -> u16 {
        match self {
            StorageError::NoSuchKey | StorageError::NoSuchBucket | StorageError::RouteNotFound(_) => 404,
            StorageError::Duplicate | StorageError::BucketAlreadyExists | StorageError::BucketNotEmpty => 409,
            StorageError::EntityTooLarge => 413,
            StorageError::InvalidMimeType(_) => 415,
            StorageError::AccessDenied => 403,
            StorageError::Internal(_) => 500,
            StorageError::DatabaseUnavailable => 503,
            StorageError::DatabaseTimeout => 504,
            StorageError::InvalidKey(_)
            | StorageError::InvalidBucketName
            | StorageError::InvalidRequest(_)
            | StorageError::InvalidRange
            | StorageError::InvalidSignature(_)
            | StorageError::InvalidJwt(_) => 400,
        }
    }

    /// storage-api's `ErrorCode`.
    pub fn code(&self) -> &'static str {
        match self {
            StorageError::NoSuchKey => "NoSuchKey",
            StorageError::NoSuchBucket => "NoSuchBucket",
            StorageError::Duplicate => "KeyAlreadyExists",
            StorageError::BucketAlreadyExists => "BucketAlreadyExists",
            StorageError::BucketNotEmpty | StorageError::InvalidRequest(_) => "InvalidRequest",
            StorageError::EntityTooLarge => "EntityTooLarge",
            StorageError::InvalidMimeType(_) => "InvalidMimeType",
            StorageError::InvalidKey(_) => "InvalidKey",
            StorageError::InvalidBucketName => "InvalidBucketName",
            StorageError::InvalidRange => "InvalidRange",
            StorageError::InvalidSignature(_) => "InvalidSignature",
            StorageError::InvalidJwt(_) => "InvalidJWT",
            StorageError::AccessDenied => "AccessDenied",
            StorageError::RouteNotFound(_) => "NotFound",
            StorageError::Internal(_) => "InternalError",
            StorageError::DatabaseUnavailable => "DatabaseUnavailable",
            StorageError::DatabaseTimeout => "DatabaseTimeout",
        }
    }

    /// storage-api's legacy `error` string (falls back to the code, as storage-api does).
    pub fn legacy_error(&self) -> &'static str {
        match self {
            StorageError::NoSuchKey => "not_found",
            StorageError::NoSuchBucket => "Bucket not found",
            StorageError::Duplicate | StorageError::BucketAlreadyExists => "Duplicate",
            StorageError::EntityTooLarge => "Payload too large",
            StorageError::InvalidMimeType(_) => "invalid_mime_type",
            StorageError::InvalidRange => "invalid_range",
            StorageError::InvalidBucketName => "Invalid Input",
            StorageError::AccessDenied => "Unauthorized",
            StorageError::RouteNotFound(_) => "Not Found",
            other => other.code(),
        }
    }

    /// The JSON body.
    pub fn body(&self) -> serde_json::Value {
        json!({
            "statusCode": self.status().to_string(),
            "code": self.code(),
            "error": self.legacy_error(),
            "message": self.to_string(),
        })
    }

    /// Map a database error: RLS refusals, duplicates, missing buckets; anything else is logged.
    pub fn from_db(err: &tokio_postgres::Error, context: &str) -> StorageError {
        match err.code().map(|c| c.code()) {
            Some("42501") => StorageError::AccessDenied,
            Some("23505") => StorageError::Duplicate,
            Some("23503") => StorageError::NoSuchBucket,
            Some("57014") => StorageError::Internal("statement timeout".into()),
            _ if crate::db::is_data_exception(err) => StorageError::InvalidRequest("Invalid input".into()),
            _ if crate::db::is_unavailable(err) => {
                tracing::error!(error = %err, "storage: {context}: the database is unavailable");
                StorageError::DatabaseUnavailable
            }
            _ => StorageError::internal(context, err),
        }
    }

    /// Log an internal cause and hide it from the client.
    pub fn internal(context: &str, err: impl std::fmt::Display) -> StorageError {
        tracing::error!(error = %err, "storage: {context}");
        StorageError::Internal(format!("{context}: {err}"))
    }
}

/// The gate's refusal on `/storage/v1`: with no key and no token, storage-api's own refusal of
/// the empty JWT (Supabase's gateway lets such requests through: public objects need none);
/// the gateway's answer for a bad key; storage-api's `InvalidJWT` for a bad token.
pub fn gate_refusal(err: &crate::gate::GateError) -> HttpResponse {
    use crate::gate::GateError;
    match err {
        GateError::MissingApiKey | GateError::EmptyBearer => HttpResponse::BadRequest().json(json!({
            "statusCode": "403",
            "code": "AccessDenied",
            "error": "Unauthorized",
            "message": "Invalid Compact JWS",
        })),
        _ if err.is_gateway_refusal() => err.gateway_refusal(),
        _ => HttpResponse::Unauthorized()
            .json(json!({"statusCode": "401", "error": "InvalidJWT", "message": err.to_string()})),
    }
}

impl ResponseError for StorageError {
    fn status_code(&self) -> StatusCode {
        if matches!(
            self,
            StorageError::DatabaseUnavailable | StorageError::DatabaseTimeout | StorageError::RouteNotFound(_)
        ) {
            // An outage keeps its own status, so clients and proxies see it is worth a retry.
            StatusCode::from_u16(self.status()).unwrap_or(StatusCode::SERVICE_UNAVAILABLE)
        } else if self.status() >= 500 {
            StatusCode::INTERNAL_SERVER_ERROR
        } else {
            StatusCode::BAD_REQUEST
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut builder = HttpResponse::build(self.status_code());
        if matches!(self, StorageError::DatabaseUnavailable | StorageError::DatabaseTimeout) {
            builder.insert_header(("Retry-After", crate::db::RETRY_AFTER_SECS));
        }
        builder.json(self.body())
    }
}

impl From<object_store::Error> for StorageError {
    fn from(err: object_store::Error) -> StorageError {
        match err {
            object_store::Error::NotFound { .. } => StorageError::NoSuchKey,
            other => StorageError::internal("object store", other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_object_is_a_404_in_the_body_and_a_400_on_the_wire() {
        let err = StorageError::NoSuchKey;
        assert_eq!(
            err.body(),
            json!({"statusCode": "404", "code": "NoSuchKey", "error": "not_found", "message": "Object not found"})
        );
        assert_eq!(err.status_code(), StatusCode::BAD_REQUEST);
    }

    #[test]
    fn a_missing_bucket_says_bucket_not_found() {
        assert_eq!(
            StorageError::NoSuchBucket.body(),
            json!({"statusCode": "404", "code": "NoSuchBucket", "error": "Bucket not found", "message": "Bucket not found"})
        );
    }

    #[test]
    fn a_duplicate_is_a_409_duplicate() {
        assert_eq!(
            StorageError::Duplicate.body(),
            json!({"statusCode": "409", "code": "KeyAlreadyExists", "error": "Duplicate", "message": "The resource already exists"})
        );
    }

    #[test]
    fn limits_are_413_and_415() {
        assert_eq!(
            StorageError::EntityTooLarge.body(),
            json!({"statusCode": "413", "code": "EntityTooLarge", "error": "Payload too large", "message": "The object exceeded the maximum allowed size"})
        );
        assert_eq!(
            StorageError::InvalidMimeType("text/html".into()).body(),
            json!({"statusCode": "415", "code": "InvalidMimeType", "error": "invalid_mime_type", "message": "mime type text/html is not supported"})
        );
    }

    #[test]
    fn an_rls_refusal_is_a_403_with_the_postgres_message() {
        assert_eq!(
            StorageError::AccessDenied.body(),
            json!({"statusCode": "403", "code": "AccessDenied", "error": "Unauthorized", "message": "new row violates row-level security policy"})
        );
    }

    #[test]
    fn an_invalid_key_names_the_key() {
        assert_eq!(
            StorageError::InvalidKey("a/../b".into()).body(),
            json!({"statusCode": "400", "code": "InvalidKey", "error": "InvalidKey", "message": "Invalid key: a/../b"})
        );
    }

    #[test]
    fn internal_errors_hide_their_cause() {
        let err = StorageError::Internal("secret detail".into());
        assert_eq!(
            err.body(),
            json!({"statusCode": "500", "code": "InternalError", "error": "InternalError", "message": "Internal server error"})
        );
        assert_eq!(err.status_code(), StatusCode::INTERNAL_SERVER_ERROR);
    }
}
