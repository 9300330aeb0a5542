//! The one error type of `/studio/api/`, and its wire shape:
//! `{"error": {"code": "...", "message": "..."}}` with the status of [`StudioError::status`].
//! Database errors of the SQL editor and of row edits are the operator's to read (they are the
//! database owner), so their message, detail, hint and position are sent; any other internal
//! cause is logged and answered with a bare `internal`.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::{json, Value};

/// Why a studio request failed.
#[derive(Debug, thiserror::Error)]
pub enum StudioError {
    /// No session, an expired one, or one whose operator was removed.
    #[error("Sign in to the dashboard")]
    Unauthenticated,
    /// Wrong e-mail or password.
    #[error("Invalid e-mail or password")]
    InvalidCredentials,
    /// A write without the session's CSRF token, or from another site.
    #[error("{0}")]
    Forbidden(&'static str),
    /// The operator has TOTP on and sent no code.
    #[error("Enter the code of your authenticator app")]
    TotpRequired,
    /// A wrong, stale or already used TOTP code.
    #[error("Invalid or already used code")]
    InvalidTotp,
    #[error("Too many sign-in attempts: wait a few minutes")]
    TooManyAttempts,
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    NotFound(String),
    /// The database refused a statement (shown to the operator as Postgres said it).
    #[error("{message}")]
    Database { code: String, message: String, detail: Option<String>, hint: Option<String>, position: Option<u32> },
    #[error("The database is unavailable")]
    Unavailable,
    #[error("internal error")]
    Internal,
}

impl StudioError {
    /// Log an internal cause and answer `internal`.
    pub fn internal(cause: impl std::fmt::Display) -> StudioError {
        tracing::error!(error = %cause, "studio: internal error");
        StudioError::Internal
    }

    fn code(&self) -> &'static str {
        match self {
            StudioError::Unauthenticated => "unauthenticated",
            StudioError::InvalidCredentials => "invalid_credentials",
            StudioError::Forbidden(_) => "forbidden",
            StudioError::TotpRequired => "totp_required",
            StudioError::InvalidTotp => "invalid_totp",
            StudioError::TooManyAttempts => "too_many_attempts",
            StudioError::BadRequest(_) => "bad_request",
            StudioError::NotFound(_) => "not_found",
            StudioError::Database { .. } => "database",
            StudioError::Unavailable => "unavailable",
            StudioError::Internal => "internal",
        }
    }

    /// The JSON body.
    pub fn body(&self) -> Value {
        let mut error = json!({"code": self.code(), "message": self.to_string()});
        if let StudioError::Database { code, detail, hint, position, .. } = self {
            error["sqlstate"] = json!(code);
            error["detail"] = json!(detail);
            error["hint"] = json!(hint);
            error["position"] = json!(position);
        }
        json!({ "error": error })
    }
}

impl ResponseError for StudioError {
    fn status_code(&self) -> StatusCode {
        match self {
            StudioError::Unauthenticated
            | StudioError::InvalidCredentials
            | StudioError::TotpRequired
            | StudioError::InvalidTotp => StatusCode::UNAUTHORIZED,
            StudioError::Forbidden(_) => StatusCode::FORBIDDEN,
            StudioError::TooManyAttempts => StatusCode::TOO_MANY_REQUESTS,
            StudioError::BadRequest(_) | StudioError::Database { .. } => StatusCode::BAD_REQUEST,
            StudioError::NotFound(_) => StatusCode::NOT_FOUND,
            StudioError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            StudioError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut res = HttpResponse::build(self.status_code());
        res.insert_header(("Cache-Control", "no-store"));
        if matches!(self, StudioError::Unavailable) {
            res.insert_header(("Retry-After", crate::db::RETRY_AFTER_SECS));
        }
        res.json(self.body())
    }
}

impl From<tokio_postgres::Error> for StudioError {
    fn from(err: tokio_postgres::Error) -> StudioError {
        if crate::db::is_unavailable(&err) {
            return StudioError::Unavailable;
        }
        match err.as_db_error() {
            Some(db) => StudioError::Database {
                code: db.code().code().to_string(),
                message: db.message().to_string(),
                detail: db.detail().map(str::to_string),
                hint: db.hint().map(str::to_string),
                position: match db.position() {
                    Some(tokio_postgres::error::ErrorPosition::Original(p)) => Some(*p),
                    _ => None,
                },
            },
            None => StudioError::internal(err),
        }
    }
}

impl From<deadpool_postgres::PoolError> for StudioError {
    fn from(err: deadpool_postgres::PoolError) -> StudioError {
        tracing::warn!(error = %err, "studio: no database connection");
        StudioError::Unavailable
    }
}

/// The answer to a path under `/studio/api/` that names nothing.
pub async fn not_found() -> Result<HttpResponse, StudioError> {
    Err(StudioError::NotFound("No such studio API route".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_have_one_shape() {
        assert_eq!(
            StudioError::Unauthenticated.body(),
            json!({"error": {"code": "unauthenticated", "message": "Sign in to the dashboard"}})
        );
        assert_eq!(StudioError::TooManyAttempts.status_code(), StatusCode::TOO_MANY_REQUESTS);
        let db = StudioError::Database {
            code: "42601".into(),
            message: "syntax error at or near \"selec\"".into(),
            detail: None,
            hint: None,
            position: Some(1),
        };
        assert_eq!(db.body()["error"]["position"], 1);
        assert_eq!(db.body()["error"]["sqlstate"], "42601");
        assert_eq!(db.status_code(), StatusCode::BAD_REQUEST);
    }
}
