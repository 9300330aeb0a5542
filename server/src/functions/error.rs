//! Every error `/functions/v1` answers itself, mapped in one place to the shapes the Supabase
//! CLI's edge runtime answers with: `Function not found` as text, JWT refusals as `{msg}`, and
//! the runtime's failures as `{code, message}` (`BOOT_ERROR` 503, `WORKER_ERROR` 500,
//! `WORKER_LIMIT` 546), and 504 when it sends nothing for the request idle timeout (Supabase
//! documents the status; the `{code, message}` body is ours). A function's own answers, errors included, pass through untouched.
//!
//! The JWT refusals also carry `x-relay-error: true`, which functions-js reads as a
//! `FunctionsRelayError` (as Supabase's relay answers).
//!
//! Causes (the runtime's message, a function's stack) are logged where they happen, never sent.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::json;

/// The header of an answer refused before the function (functions-js's `FunctionsRelayError`).
pub const RELAY_ERROR: &str = "x-relay-error";

/// Why a function was not run, or did not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FunctionsError {
    #[error("Function not found")]
    NotFound,
    #[error("Missing authorization header")]
    MissingAuthorization,
    #[error("Auth header is not 'Bearer {{token}}'")]
    NotBearer,
    #[error("Invalid JWT")]
    InvalidJwt,
    #[error("Request body is larger than {0} bytes")]
    PayloadTooLarge(usize),
    /// The runtime is not running (starting, restarting, or Deno could not be started), or the
    /// function failed to load.
    #[error("Worker failed to boot (please check logs)")]
    Boot,
    /// The function threw instead of answering.
    #[error("Function exited due to an error (please check logs)")]
    Worker,
    /// The function ran past the wall-clock limit.
    #[error("Worker failed to respond due to a resource limit (please check logs)")]
    Limit,
    /// The function sent no byte of its answer for the request idle timeout.
    #[error("Function did not respond within the request idle timeout (please check logs)")]
    RequestIdle,
}

impl FunctionsError {
    /// The runtime's failure named by the router's `x-functions-error`.
    pub fn from_router(kind: &str) -> FunctionsError {
        match kind {
            "boot" => FunctionsError::Boot,
            "limit" => FunctionsError::Limit,
            "idle" => FunctionsError::RequestIdle,
            _ => FunctionsError::Worker,
        }
    }
}

impl ResponseError for FunctionsError {
    fn status_code(&self) -> StatusCode {
        match self {
            FunctionsError::NotFound => StatusCode::NOT_FOUND,
            FunctionsError::MissingAuthorization | FunctionsError::NotBearer | FunctionsError::InvalidJwt => {
                StatusCode::UNAUTHORIZED
            }
            FunctionsError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            FunctionsError::Boot => StatusCode::SERVICE_UNAVAILABLE,
            FunctionsError::Worker => StatusCode::INTERNAL_SERVER_ERROR,
            FunctionsError::Limit => StatusCode::from_u16(546).unwrap_or(StatusCode::SERVICE_UNAVAILABLE),
            FunctionsError::RequestIdle => StatusCode::GATEWAY_TIMEOUT,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        if matches!(self, FunctionsError::MissingAuthorization | FunctionsError::NotBearer | FunctionsError::InvalidJwt)
        {
            // Refused in front of the function, as Supabase's relay refuses: functions-js turns
            // this into a `FunctionsRelayError` instead of the function's own `FunctionsHttpError`.
            response.insert_header((RELAY_ERROR, "true"));
        }
        match self {
            FunctionsError::NotFound => response.content_type("text/plain").body(self.to_string()),
            // The CLI's runtime prints the thrown `Error`, so its message starts with `Error: `.
            FunctionsError::MissingAuthorization | FunctionsError::NotBearer => {
                response.json(json!({ "msg": format!("Error: {self}") }))
            }
            FunctionsError::InvalidJwt => response.json(json!({ "msg": self.to_string() })),
            FunctionsError::PayloadTooLarge(_) => {
                response.json(json!({ "code": "PAYLOAD_TOO_LARGE", "message": self.to_string() }))
            }
            FunctionsError::Boot => response.json(json!({ "code": "BOOT_ERROR", "message": self.to_string() })),
            FunctionsError::Worker => response.json(json!({ "code": "WORKER_ERROR", "message": self.to_string() })),
            FunctionsError::Limit => response.json(json!({ "code": "WORKER_LIMIT", "message": self.to_string() })),
            FunctionsError::RequestIdle => {
                response.json(json!({ "code": "REQUEST_IDLE_TIMEOUT", "message": self.to_string() }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::MessageBody;

    fn wire(error: FunctionsError) -> (u16, String, String) {
        let response = error.error_response();
        let status = response.status().as_u16();
        let content_type =
            response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
        let bytes = response.into_body().try_into_bytes().unwrap_or_default();
        (status, content_type, String::from_utf8_lossy(&bytes).into_owned())
    }

    #[test]
    fn an_unknown_function_is_a_plain_text_404() {
        assert_eq!(wire(FunctionsError::NotFound), (404, "text/plain".into(), "Function not found".into()));
    }

    #[test]
    fn jwt_refusals_are_401_with_msg() {
        assert_eq!(wire(FunctionsError::MissingAuthorization).2, r#"{"msg":"Error: Missing authorization header"}"#);
        assert_eq!(wire(FunctionsError::NotBearer).2, r#"{"msg":"Error: Auth header is not 'Bearer {token}'"}"#);
        assert_eq!(
            wire(FunctionsError::InvalidJwt),
            (401, "application/json".into(), r#"{"msg":"Invalid JWT"}"#.into())
        );
        for refused in [FunctionsError::MissingAuthorization, FunctionsError::NotBearer, FunctionsError::InvalidJwt] {
            let response = refused.error_response();
            assert_eq!(response.headers().get(RELAY_ERROR).and_then(|v| v.to_str().ok()), Some("true"));
        }
        let failed = FunctionsError::Boot.error_response();
        assert!(failed.headers().get(RELAY_ERROR).is_none(), "only refusals in front of the function");
    }

    #[test]
    fn runtime_failures_carry_the_edge_runtime_codes() {
        assert_eq!(
            wire(FunctionsError::Boot),
            (
                503,
                "application/json".into(),
                r#"{"code":"BOOT_ERROR","message":"Worker failed to boot (please check logs)"}"#.into()
            )
        );
        assert_eq!(
            wire(FunctionsError::Worker).2,
            r#"{"code":"WORKER_ERROR","message":"Function exited due to an error (please check logs)"}"#
        );
        let (status, _, body) = wire(FunctionsError::Limit);
        assert_eq!(status, 546);
        assert_eq!(
            body,
            r#"{"code":"WORKER_LIMIT","message":"Worker failed to respond due to a resource limit (please check logs)"}"#
        );
    }

    #[test]
    fn the_request_idle_timeout_is_a_504() {
        assert_eq!(
            wire(FunctionsError::RequestIdle),
            (
                504,
                "application/json".into(),
                r#"{"code":"REQUEST_IDLE_TIMEOUT","message":"Function did not respond within the request idle timeout (please check logs)"}"#.into()
            )
        );
    }

    #[test]
    fn the_router_failure_kinds_map_to_their_errors() {
        assert_eq!(FunctionsError::from_router("boot"), FunctionsError::Boot);
        assert_eq!(FunctionsError::from_router("limit"), FunctionsError::Limit);
        assert_eq!(FunctionsError::from_router("worker"), FunctionsError::Worker);
        assert_eq!(FunctionsError::from_router("idle"), FunctionsError::RequestIdle);
        assert_eq!(FunctionsError::from_router("anything else"), FunctionsError::Worker);
    }
}
