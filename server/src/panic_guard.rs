//! The last line of defence: a panic inside a request's handler becomes a 500 in the error shape
//! of the surface that was asked (PostgREST, GoTrue, Storage, Realtime), so the client still gets
//! an answer on its connection and the worker keeps serving. The panic itself is logged; nothing
//! of it reaches the client. Panics are bugs: this does not make them acceptable, only contained.

use std::panic::AssertUnwindSafe;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use futures_util::FutureExt;

/// The 500 of the surface serving `path`, as an error actix answers with its response.
fn internal_error(path: &str) -> actix_web::Error {
    let cause = "a request handler panicked";
    if path.starts_with("/auth/") {
        crate::auth::error::AuthError::Internal(cause.into()).into()
    } else if path.starts_with("/storage/") {
        crate::storage::error::StorageError::Internal(cause.into()).into()
    } else if path.starts_with("/realtime/") {
        crate::realtime::error::RealtimeError::Unexpected.into()
    } else {
        crate::rest::error::RestError::internal(cause).into()
    }
}

/// Middleware: answer a panicking handler with the surface's 500.
pub async fn middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    // Only the path is kept: a clone of the request would stop the router from matching it.
    let path = req.path().to_string();
    match AssertUnwindSafe(next.call(req)).catch_unwind().await {
        Ok(result) => result.map(ServiceResponse::map_into_boxed_body),
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".into());
            tracing::error!(path = %path, panic = %message, "a request handler panicked");
            Err(internal_error(&path))
        }
    }
}

#[cfg(test)]
mod tests {
    use actix_web::middleware::from_fn;
    use actix_web::{test, web, App, HttpResponse};
    use serde_json::Value;

    use super::*;

    async fn boom(req: actix_web::HttpRequest) -> HttpResponse {
        // A bug: an index from the request, unchecked.
        let parts: Vec<&str> = req.path().split('/').collect();
        HttpResponse::Ok().body(parts[parts.len() + 1].to_string())
    }

    #[actix_web::test]
    async fn a_panicking_handler_is_answered_with_the_surfaces_500_and_the_next_request_is_served() {
        let app = test::init_service(
            App::new()
                .wrap(from_fn(middleware))
                .route("/rest/v1/boom", web::get().to(boom))
                .route("/auth/v1/boom", web::get().to(boom))
                .route("/storage/v1/boom", web::get().to(boom))
                .route("/realtime/v1/boom", web::get().to(boom))
                .route("/rest/v1/fine", web::get().to(|| async { HttpResponse::Ok().body("fine") })),
        )
        .await;
        let cases = [
            ("/rest/v1/boom", "code", "PGRSTX00"),
            ("/auth/v1/boom", "code", "unexpected_failure"),
            ("/storage/v1/boom", "error", "InternalError"),
            ("/realtime/v1/boom", "message", "Internal server error"),
        ];
        for (path, field, expected) in cases {
            // The server's dispatcher answers an error with its response; so does this test.
            let err = match test::try_call_service(&app, test::TestRequest::get().uri(path).to_request()).await {
                Ok(_) => panic!("{path}: the panic should have become an error"),
                Err(err) => err,
            };
            let res = err.error_response();
            assert_eq!(res.status().as_u16(), 500, "{path}");
            let bytes = actix_web::body::to_bytes(res.into_body()).await.expect("body");
            let body: Value = serde_json::from_slice(&bytes).expect("a JSON body");
            assert!(body.to_string().contains(expected), "{path}: {field} in {body}");
            assert!(!body.to_string().contains("index out of bounds"), "the panic message never reaches the client");
        }
        let res = test::call_service(&app, test::TestRequest::get().uri("/rest/v1/fine").to_request()).await;
        assert_eq!(test::read_body(res).await, "fine");
    }
}
