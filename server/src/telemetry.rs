//! Structured logs: the subscriber set-up and a per-request span with a request id.
//!
//! Each request gets an id (`x-request-id` from the client when it is a sane token, else a new
//! UUID), echoed in the response, and one log line on completion with method, path (never the
//! query string, which may carry an API key), status and latency. Headers and bodies are never
//! logged.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use tracing::Instrument;
use tracing_subscriber::{fmt, EnvFilter};

/// Install the global subscriber (`RUST_LOG` filters, default `info`); safe to call twice.
pub fn init(format: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let result = if format == "json" {
        fmt().with_env_filter(filter).with_writer(std::io::stderr).json().with_current_span(true).try_init()
    } else {
        fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false).try_init()
    };
    drop(result);
}

fn request_id(req: &ServiceRequest) -> String {
    req.headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            !v.is_empty() && v.len() <= 64 && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
        .map(str::to_string)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string())
}

/// The request's id, kept in the request's extensions for the surfaces to hand to Postgres.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// The setting that names a request in Postgres: while its transaction runs, the connection's
/// `application_name` (seen in `pg_stat_activity` and in logs with `%a`) is the request's id.
pub fn postgres_setting(req: &actix_web::HttpRequest) -> Option<(String, String)> {
    use actix_web::HttpMessage;
    req.extensions().get::<RequestId>().map(|id| ("application_name".to_string(), id.0.clone()))
}

/// Middleware: run the request inside a span carrying its id, and log its outcome.
pub async fn middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let id = request_id(&req);
    {
        use actix_web::HttpMessage;
        req.extensions_mut().insert(RequestId(id.clone()));
    }
    let span = tracing::info_span!("request", request_id = %id, method = %req.method(), path = %req.path());
    let started = Instant::now();
    let result = next.call(req).instrument(span.clone()).await;
    let _entered = span.enter();
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    match result {
        Ok(mut response) => {
            let status = response.status().as_u16();
            if crate::metrics::enabled() {
                let request = response.request();
                crate::metrics::record_request(
                    request.path(),
                    request.match_pattern().as_deref(),
                    request.method().as_str(),
                    status,
                    started.elapsed(),
                );
            }
            if let Ok(value) = HeaderValue::from_str(&id) {
                response.headers_mut().insert(HeaderName::from_static("x-request-id"), value);
            }
            if status >= 500 {
                tracing::warn!(status, elapsed_ms, "request failed");
            } else {
                tracing::info!(status, elapsed_ms, "request");
            }
            Ok(response)
        }
        Err(err) => {
            tracing::warn!(error = %err, elapsed_ms, "request error");
            Err(err)
        }
    }
}
