//! The errors of `/auth/v1` and their wire shape, in one place, as GoTrue sends them.
//!
//! Every variant maps to an HTTP status, a GoTrue `error_code` and a message. Two body shapes
//! exist: the legacy `{"code": <status>, "error_code": "...", "msg": "..."}`, and, when the
//! request carries `X-Supabase-Api-Version: 2024-01-01` or later (supabase-js always does), the
//! `{"code": "...", "message": "..."}` shape with the header echoed. `error_response` renders
//! the legacy body and attaches the newer one; [`api_version_middleware`] picks per request.
//! Internal causes are logged here and never sent to the client.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError};
use serde_json::{json, Value};

/// The API version header, as supabase-js sends it.
pub const API_VERSION_HEADER: &str = "x-supabase-api-version";
/// The only dated API version GoTrue knows.
pub const API_VERSION_2024: &str = "2024-01-01";

/// Why an auth request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("Invalid login credentials")]
    InvalidCredentials,
    #[error("Email not confirmed")]
    EmailNotConfirmed,
    #[error("User already registered")]
    UserAlreadyExists,
    #[error("A user with this email address has already been registered")]
    EmailExists,
    #[error("{message}")]
    WeakPassword { message: String, reasons: Vec<String> },
    /// 400 `validation_failed`.
    #[error("{0}")]
    Validation(String),
    /// 422 `validation_failed` (GoTrue uses both statuses).
    #[error("{0}")]
    Unprocessable(String),
    #[error("Could not parse request body as JSON: {0}")]
    BadJson(String),
    #[error("Token has expired or is invalid")]
    OtpExpired,
    #[error("Invalid Refresh Token: Refresh Token Not Found")]
    RefreshTokenNotFound,
    #[error("Invalid Refresh Token: Already Used")]
    RefreshTokenAlreadyUsed,
    #[error("Session from session_id claim in JWT does not exist")]
    SessionNotFound,
    #[error("Request rate limit reached")]
    OverRequestRateLimit,
    #[error("{0}")]
    OverEmailSendRateLimit(String),
    #[error("Signups not allowed for this instance")]
    SignupDisabled,
    #[error("Signups not allowed for otp")]
    OtpSignupDisabled,
    #[error("Anonymous sign-ins are disabled")]
    AnonymousDisabled,
    #[error("User not allowed")]
    NotAdmin,
    #[error("{0}")]
    BadJwt(String),
    #[error("This endpoint requires a valid Bearer token")]
    NoAuthorization,
    #[error("Forbidden use of secret API key in browser")]
    SecretKeyInBrowser,
    /// An answer with GoTrue's own status, code and message (a switched-off feature, a failed SMS).
    #[error("{2}")]
    Coded(StatusCode, &'static str, String),
    #[error("User from sub claim in JWT does not exist")]
    UserFromJwtMissing,
    #[error("User not found")]
    NotFoundUser,
    #[error("Factor not found")]
    MfaFactorNotFound,
    #[error("MFA factor with the provided challenge ID not found")]
    MfaChallengeNotFound,
    #[error("MFA challenge {0} has expired, verify against another challenge or create a new challenge.")]
    MfaChallengeExpired(String),
    #[error("Invalid TOTP code entered")]
    MfaVerificationFailed,
    #[error("A factor with the friendly name \"{0}\" for this user already exists")]
    MfaNameConflict(String),
    #[error("AAL2 required to unenroll verified factor")]
    InsufficientAal,
    #[error("User is banned")]
    UserBanned,
    #[error("New password should be different from the old password.")]
    SamePassword,
    #[error("invalid flow state, no valid flow state found")]
    FlowStateNotFound,
    #[error("invalid flow state, flow state has expired")]
    FlowStateExpired,
    #[error("code challenge does not match previously saved code verifier")]
    BadCodeVerifier,
    #[error("{0}")]
    NotFound(String),
    /// A refusal of the OAuth 2.1 server's token endpoint (RFC 6749 section 5.2): 400 with
    /// `{"error", "error_description"}` whatever the API version, as GoTrue sends it.
    #[error("{1}")]
    OAuth(&'static str, String),
    /// A failure of ours: the cause is logged, the client gets a generic message.
    #[error("Unexpected failure, please check server logs for more information")]
    Internal(String),
    /// The database cannot be reached (503, with `Retry-After`).
    #[error("The database is unavailable, please retry in a moment")]
    Unavailable(String),
    /// No database connection came in time (504, with `Retry-After`).
    #[error("Timed out waiting for a database connection, please retry in a moment")]
    PoolTimeout,
}

impl AuthError {
    /// Log `cause` and return the generic internal error.
    pub fn internal(cause: impl std::fmt::Display) -> AuthError {
        AuthError::Internal(cause.to_string())
    }

    /// HTTP status and GoTrue error code.
    pub fn parts(&self) -> (StatusCode, &'static str) {
        use AuthError::*;
        match self {
            InvalidCredentials => (StatusCode::BAD_REQUEST, "invalid_credentials"),
            EmailNotConfirmed => (StatusCode::BAD_REQUEST, "email_not_confirmed"),
            UserAlreadyExists => (StatusCode::UNPROCESSABLE_ENTITY, "user_already_exists"),
            EmailExists => (StatusCode::UNPROCESSABLE_ENTITY, "email_exists"),
            WeakPassword { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "weak_password"),
            Validation(_) => (StatusCode::BAD_REQUEST, "validation_failed"),
            Unprocessable(_) => (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
            BadJson(_) => (StatusCode::BAD_REQUEST, "bad_json"),
            OtpExpired => (StatusCode::FORBIDDEN, "otp_expired"),
            RefreshTokenNotFound => (StatusCode::BAD_REQUEST, "refresh_token_not_found"),
            RefreshTokenAlreadyUsed => (StatusCode::BAD_REQUEST, "refresh_token_already_used"),
            SessionNotFound => (StatusCode::FORBIDDEN, "session_not_found"),
            OverRequestRateLimit => (StatusCode::TOO_MANY_REQUESTS, "over_request_rate_limit"),
            OverEmailSendRateLimit(_) => (StatusCode::TOO_MANY_REQUESTS, "over_email_send_rate_limit"),
            SignupDisabled => (StatusCode::UNPROCESSABLE_ENTITY, "signup_disabled"),
            OtpSignupDisabled => (StatusCode::UNPROCESSABLE_ENTITY, "otp_disabled"),
            AnonymousDisabled => (StatusCode::UNPROCESSABLE_ENTITY, "anonymous_provider_disabled"),
            NotAdmin => (StatusCode::FORBIDDEN, "not_admin"),
            BadJwt(_) => (StatusCode::FORBIDDEN, "bad_jwt"),
            NoAuthorization => (StatusCode::UNAUTHORIZED, "no_authorization"),
            SecretKeyInBrowser => (StatusCode::UNAUTHORIZED, "no_authorization"),
            Coded(status, code, _) => (*status, code),
            UserFromJwtMissing => (StatusCode::FORBIDDEN, "user_not_found"),
            NotFoundUser => (StatusCode::NOT_FOUND, "user_not_found"),
            MfaFactorNotFound => (StatusCode::NOT_FOUND, "mfa_factor_not_found"),
            MfaChallengeNotFound => (StatusCode::UNPROCESSABLE_ENTITY, "mfa_factor_not_found"),
            MfaChallengeExpired(_) => (StatusCode::UNPROCESSABLE_ENTITY, "mfa_challenge_expired"),
            MfaVerificationFailed => (StatusCode::UNPROCESSABLE_ENTITY, "mfa_verification_failed"),
            MfaNameConflict(_) => (StatusCode::UNPROCESSABLE_ENTITY, "mfa_factor_name_conflict"),
            InsufficientAal => (StatusCode::UNPROCESSABLE_ENTITY, "insufficient_aal"),
            UserBanned => (StatusCode::BAD_REQUEST, "user_banned"),
            SamePassword => (StatusCode::UNPROCESSABLE_ENTITY, "same_password"),
            FlowStateNotFound => (StatusCode::NOT_FOUND, "flow_state_not_found"),
            FlowStateExpired => (StatusCode::NOT_FOUND, "flow_state_expired"),
            BadCodeVerifier => (StatusCode::FORBIDDEN, "bad_code_verifier"),
            NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
            OAuth(error, _) => (StatusCode::BAD_REQUEST, error),
            Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "unexpected_failure"),
            Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "unexpected_failure"),
            PoolTimeout => (StatusCode::GATEWAY_TIMEOUT, "unexpected_failure"),
        }
    }

    fn weak_password_payload(&self) -> Option<Value> {
        match self {
            AuthError::WeakPassword { reasons, .. } => Some(json!({ "reasons": reasons })),
            _ => None,
        }
    }

    /// The legacy body (no or an unknown API version header).
    pub fn legacy_body(&self) -> Value {
        if let AuthError::OAuth(error, description) = self {
            return json!({ "error": error, "error_description": description });
        }
        let (status, code) = self.parts();
        let mut body = json!({ "code": status.as_u16(), "error_code": code, "msg": self.to_string() });
        if let Some(payload) = self.weak_password_payload() {
            body["weak_password"] = payload;
        }
        body
    }

    /// The body for API version 2024-01-01.
    pub fn body_2024(&self) -> Value {
        if let AuthError::OAuth(..) = self {
            return self.legacy_body();
        }
        let (_, code) = self.parts();
        let mut body = json!({ "code": code, "message": self.to_string() });
        if let Some(payload) = self.weak_password_payload() {
            body["weak_password"] = payload;
        }
        body
    }
}

/// The 2024-01-01 body, carried in the response extensions for the middleware.
#[derive(Debug, Clone)]
struct Body2024(Value);

impl ResponseError for AuthError {
    fn status_code(&self) -> StatusCode {
        self.parts().0
    }

    fn error_response(&self) -> HttpResponse<BoxBody> {
        match self {
            AuthError::Internal(cause) | AuthError::Unavailable(cause) => {
                tracing::error!(cause = %cause, "auth request failed")
            }
            other => tracing::debug!(error = %other, "auth request refused"),
        }
        let mut builder = HttpResponse::build(self.status_code());
        if matches!(self, AuthError::Unavailable(_) | AuthError::PoolTimeout) {
            builder.insert_header(("Retry-After", crate::db::RETRY_AFTER_SECS));
        }
        let mut response = builder.json(self.legacy_body());
        response.extensions_mut().insert(Body2024(self.body_2024()));
        response
    }
}

impl From<tokio_postgres::Error> for AuthError {
    fn from(err: tokio_postgres::Error) -> AuthError {
        if crate::db::is_data_exception(&err) {
            return AuthError::Validation("Invalid input: the request holds a value the database cannot store".into());
        }
        if crate::db::is_unavailable(&err) {
            return AuthError::Unavailable(format!("database: {err}"));
        }
        AuthError::internal(format!("database: {err}"))
    }
}

impl From<deadpool_postgres::PoolError> for AuthError {
    fn from(err: deadpool_postgres::PoolError) -> AuthError {
        match err {
            deadpool_postgres::PoolError::Timeout(_) => {
                crate::metrics::pool_timeout("admin");
                AuthError::PoolTimeout
            }
            // No new connection could be made: whatever PostgreSQL said, it is unavailable.
            other => AuthError::Unavailable(format!("database pool: {other}")),
        }
    }
}

/// Whether a request's API version header asks for the 2024-01-01 shapes.
pub fn wants_2024(header: Option<&str>) -> bool {
    let Some(value) = header.map(str::trim) else { return false };
    match chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d") {
        Ok(date) => date >= chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap_or(chrono::NaiveDate::MIN),
        Err(_) => false,
    }
}

/// Middleware of `/auth/v1`: echo the API version and give errors the body of that version.
pub async fn api_version_middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let v2024 = wants_2024(req.headers().get(API_VERSION_HEADER).and_then(|v| v.to_str().ok()));
    let response = next.call(req).await?.map_into_boxed_body();
    if !v2024 {
        return Ok(response);
    }
    let body = response.response().extensions().get::<Body2024>().cloned();
    let mut response = match body {
        Some(Body2024(body)) => {
            let status = response.status();
            let (req, _) = response.into_parts();
            ServiceResponse::new(req, HttpResponse::build(status).json(body))
        }
        None => response,
    };
    response
        .headers_mut()
        .insert(HeaderName::from_static(API_VERSION_HEADER), HeaderValue::from_static(API_VERSION_2024));
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_body_carries_status_number_error_code_and_msg() {
        assert_eq!(
            AuthError::InvalidCredentials.legacy_body(),
            json!({"code": 400, "error_code": "invalid_credentials", "msg": "Invalid login credentials"})
        );
    }

    #[test]
    fn body_2024_carries_the_string_code_and_message() {
        assert_eq!(
            AuthError::EmailNotConfirmed.body_2024(),
            json!({"code": "email_not_confirmed", "message": "Email not confirmed"})
        );
        assert_eq!(
            AuthError::RefreshTokenAlreadyUsed.body_2024(),
            json!({"code": "refresh_token_already_used", "message": "Invalid Refresh Token: Already Used"})
        );
    }

    #[test]
    fn weak_password_lists_its_reasons_in_both_shapes() {
        let err = AuthError::WeakPassword {
            message: "Password should be at least 6 characters.".into(),
            reasons: vec!["length".into()],
        };
        assert_eq!(
            err.body_2024(),
            json!({"code": "weak_password", "message": "Password should be at least 6 characters.", "weak_password": {"reasons": ["length"]}})
        );
        assert_eq!(err.legacy_body()["code"], 422);
        assert_eq!(err.legacy_body()["weak_password"]["reasons"][0], "length");
    }

    #[test]
    fn statuses_follow_gotrue() {
        assert_eq!(AuthError::NotAdmin.parts(), (StatusCode::FORBIDDEN, "not_admin"));
        assert_eq!(AuthError::NoAuthorization.parts().0, StatusCode::UNAUTHORIZED);
        assert_eq!(AuthError::BadJwt("x".into()).parts(), (StatusCode::FORBIDDEN, "bad_jwt"));
        assert_eq!(AuthError::OtpExpired.parts(), (StatusCode::FORBIDDEN, "otp_expired"));
        assert_eq!(AuthError::OverRequestRateLimit.parts().0, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(AuthError::SignupDisabled.parts(), (StatusCode::UNPROCESSABLE_ENTITY, "signup_disabled"));
        assert_eq!(AuthError::BadJson("eof".into()).parts().1, "bad_json");
    }

    #[test]
    fn oauth_refusals_have_the_rfc_shape_in_every_version() {
        let err = AuthError::OAuth("invalid_grant", "Invalid authorization code".into());
        let body = json!({"error": "invalid_grant", "error_description": "Invalid authorization code"});
        assert_eq!(err.legacy_body(), body);
        assert_eq!(err.body_2024(), body);
        assert_eq!(err.parts().0, StatusCode::BAD_REQUEST);
    }

    #[test]
    fn internal_causes_are_not_sent() {
        let body = AuthError::internal("password for db is hunter2").body_2024();
        assert_eq!(body["code"], "unexpected_failure");
        assert!(!body.to_string().contains("hunter2"));
    }

    #[test]
    fn api_version_header_is_parsed_as_a_date() {
        assert!(wants_2024(Some("2024-01-01")));
        assert!(wants_2024(Some("2025-06-30")));
        assert!(!wants_2024(Some("2023-12-31")));
        assert!(!wants_2024(Some("garbage")));
        assert!(!wants_2024(None));
    }
}
