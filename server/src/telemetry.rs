//! Structured logs: the subscriber set-up and a per-request span with a request id; with
//! `OTEL_EXPORTER_OTLP_ENDPOINT` set, the spans are also exported as OpenTelemetry traces over
//! OTLP/HTTP (protobuf), batched on a thread of their own (off by default).
//!
//! Each request gets an id (`x-request-id` from the client when it is a sane token, else a new
//! UUID), echoed in the response, and one log line on completion with method, path (never the
//! query string, which may carry an API key), status and latency. Headers and bodies are never
//! logged. The same outcome is offered to the request log (`request_log`) when it is on.
//!
//! Once the server has stopped serving and stops its embedded PostgreSQL (`stopping`), warnings
//! are no longer printed: every background connection (listeners, pools, the outbox) then loses
//! its database, as expected, and would say so. Errors still are.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Instrument;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer as _;
use tracing_subscriber::{fmt, EnvFilter};

/// Whether spans are exported (then a request's `traceparent` is followed).
static TRACING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Set once the server stops its embedded database: warnings are not printed from then on.
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The server has stopped serving and stops its embedded PostgreSQL: the lost connections that
/// follow are expected, so warnings are not printed from now on (errors are).
pub fn stopping() {
    STOPPING.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether a line of `level` is printed, given the stop (`stopping`).
fn printed_while_stopping(level: &tracing::Level) -> bool {
    *level != tracing::Level::WARN || !STOPPING.load(std::sync::atomic::Ordering::Relaxed)
}

/// Make `span` a child of the W3C `traceparent` (and `tracestate`) the client sent, so the
/// request's span joins the caller's trace.
fn continue_trace(span: &tracing::Span, headers: &actix_web::http::header::HeaderMap) {
    use opentelemetry::propagation::TextMapPropagator as _;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;
    struct Headers<'a>(&'a actix_web::http::header::HeaderMap);
    impl opentelemetry::propagation::Extractor for Headers<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            self.0.get(key).and_then(|v| v.to_str().ok())
        }
        fn keys(&self) -> Vec<&str> {
            self.0.keys().map(|k| k.as_str()).collect()
        }
    }
    if headers.contains_key("traceparent") {
        let parent = opentelemetry_sdk::propagation::TraceContextPropagator::new().extract(&Headers(headers));
        let _ = span.set_parent(parent);
    }
}

/// The W3C `traceparent` of the current span when spans are exported (so what a request calls
/// joins its trace); `None` when they are not.
pub fn current_traceparent() -> Option<String> {
    use opentelemetry::propagation::TextMapPropagator as _;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;
    if !TRACING.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    let mut carrier = std::collections::HashMap::new();
    opentelemetry_sdk::propagation::TraceContextPropagator::new()
        .inject_context(&tracing::Span::current().context(), &mut carrier);
    carrier.remove("traceparent")
}

/// Flushes the traces still batched and the log lines still buffered when dropped (keep it until
/// the process ends).
pub struct TelemetryGuard(Option<SdkTracerProvider>, Option<crate::log_writer::FlushGuard>);

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        if let Some(provider) = self.0.take() {
            let _ = provider.shutdown();
        }
        drop(self.1.take());
    }
}

/// Install the global subscriber (`RUST_LOG` filters, default `info`), exporting traces when
/// `OTEL_EXPORTER_OTLP_ENDPOINT` is set; safe to call twice.
pub fn init(format: &str) -> TelemetryGuard {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let filter = tracing_subscriber::filter::FilterExt::and(
        filter,
        // The hint keeps `RUST_LOG`'s own maximum level as the subscriber's.
        tracing_subscriber::filter::filter_fn(|meta| printed_while_stopping(meta.level()))
            .with_max_level_hint(tracing_subscriber::filter::LevelFilter::TRACE),
    );
    let provider = std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT").ok().filter(|v| !v.trim().is_empty()).and_then(|_| {
        match tracer_provider() {
            Ok(provider) => Some(provider),
            Err(err) => {
                eprintln!("warning: OpenTelemetry traces are off: {err}");
                None
            }
        }
    });
    let traces = provider
        .as_ref()
        .map(|p| tracing_opentelemetry::layer().with_tracer(p.tracer("supabase-rs")).with_filter(trace_filter()));
    let registry = tracing_subscriber::registry().with(traces);
    // Lines are formatted where they happen and written to stderr by a thread of their own, in
    // batches (`log_writer`): a request's worker thread never waits on the terminal or the log
    // file (a write system call and stderr's lock per line were 13 % of a single-row read's CPU)
    // and wakes no thread per line. When the writer falls behind, callers wait rather than lose
    // lines.
    let (writer, flush) = match crate::log_writer::spawn(std::io::stderr()) {
        Ok(pair) => pair,
        Err(err) => {
            eprintln!("warning: no log writer thread ({err}); log lines are off");
            return TelemetryGuard(provider, None);
        }
    };
    let result = if format == "json" {
        // A JSON line carries its request's span (id, method, path) once, as `span`: the list of
        // enclosing spans (`spans`) only repeated it.
        registry
            .with(
                fmt::layer()
                    .with_writer(writer)
                    .json()
                    .with_current_span(true)
                    .with_span_list(false)
                    .with_filter(filter),
            )
            .try_init()
    } else {
        registry.with(fmt::layer().with_writer(writer).with_target(false).with_filter(filter)).try_init()
    };
    // A second call keeps the first subscriber; its writer thread ends with this guard.
    let flush = result.is_ok().then_some(flush);
    TRACING.store(provider.is_some(), std::sync::atomic::Ordering::Relaxed);
    TelemetryGuard(provider, flush)
}

/// Traces keep the request spans and what happens inside them at `info` and above, whatever
/// `RUST_LOG` says of the logs.
fn trace_filter() -> EnvFilter {
    EnvFilter::new("info")
}

/// The OTLP/HTTP exporter, configured by the standard `OTEL_*` variables (endpoint, headers,
/// timeout; `OTEL_SERVICE_NAME`, default `supabase-rs`; `OTEL_BSP_*` for batching).
fn tracer_provider() -> Result<SdkTracerProvider, String> {
    use opentelemetry_otlp::WithExportConfig as _;
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
        .build()
        .map_err(|e| e.to_string())?;
    let service = std::env::var("OTEL_SERVICE_NAME").unwrap_or_else(|_| "supabase-rs".into());
    let resource = opentelemetry_sdk::Resource::builder().with_service_name(service).build();
    Ok(SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource).build())
}

fn request_id(req: &ServiceRequest) -> String {
    req.headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            !v.is_empty() && v.len() <= 64 && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
        .map(str::to_string)
        // A v4 id from the thread's generator: `Uuid::new_v4` asks the kernel for every id (a
        // `getrandom` system call per request).
        .unwrap_or_else(|| uuid::Builder::from_random_bytes(rand::random()).into_uuid().to_string())
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
    if TRACING.load(std::sync::atomic::Ordering::Relaxed) {
        continue_trace(&span, req.headers());
    }
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
            if let Some(log) = response.request().app_data::<actix_web::web::Data<crate::request_log::RequestLog>>() {
                log.record(&response, id, started);
            }
            Ok(response)
        }
        Err(err) => {
            tracing::warn!(error = %err, elapsed_ms, "request error");
            Err(err)
        }
    }
}
