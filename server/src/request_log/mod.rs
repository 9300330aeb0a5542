//! The request log: one entry per HTTP request the server answers, kept in
//! `_studio.request_log` for the dashboard's log explorer and reports.
//!
//! The request middleware (`telemetry`) hands each answered request to [`RequestLog::record`],
//! which only builds a small entry and offers it to a bounded channel: it never waits, never
//! touches the database, and when the channel is full the entry is dropped and counted
//! (`request_log_dropped_total` in `/metrics`). A task of its own (`writer`) drains the channel
//! every `REQUEST_LOG_FLUSH_MS` into one multi-row insert, and prunes rows by age and count
//! (`retention`). What is kept: surface, method, path (never the query string, which may carry a
//! key), route pattern, status, latency, the request id of the `x-request-id` header, the
//! caller's user id and role when a gate verified a token, and the response's size when known.
//! Headers and bodies are never kept. A shared part: it imports no surface.

pub mod config;
pub mod retention;
pub mod writer;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

use actix_web::body::{BodySize, MessageBody};
use actix_web::dev::ServiceResponse;
use actix_web::HttpMessage;
use tokio::sync::mpsc;

pub use config::RequestLogConfig;

use crate::db::context::Caller;

/// One answered request, as the middleware saw it.
#[derive(Debug, Clone)]
pub struct Entry {
    pub at: SystemTime,
    pub surface: &'static str,
    pub method: actix_web::http::Method,
    pub path: String,
    pub route: Option<String>,
    pub status: u16,
    pub duration_ms: f64,
    pub request_id: String,
    /// The `sub` claim of the verified token (a user id for users' tokens).
    pub subject: Option<String>,
    pub role: Option<String>,
    pub bytes: Option<u64>,
}

/// The sending side, shared by every worker (`web::Data<RequestLog>` in the app's data).
#[derive(Clone)]
pub struct RequestLog {
    tx: mpsc::Sender<Entry>,
    dropped: Arc<AtomicU64>,
}

impl RequestLog {
    /// A log and the receiving side its writer drains (`buffer` entries may wait).
    pub fn channel(buffer: usize) -> (RequestLog, mpsc::Receiver<Entry>) {
        let (tx, rx) = mpsc::channel(buffer.max(1));
        (RequestLog { tx, dropped: Arc::new(AtomicU64::new(0)) }, rx)
    }

    /// Record an answered request (the response as it leaves the server, its id and when it
    /// arrived). Cheap and non-blocking: a full buffer drops the entry and counts it.
    pub fn record<B: MessageBody>(
        &self,
        response: &ServiceResponse<B>,
        request_id: String,
        started: std::time::Instant,
    ) {
        let request = response.request();
        let path = request.path();
        if skipped(request.method(), path) {
            return;
        }
        let (subject, role) = match request.extensions().get::<Caller>() {
            Some(caller) => (caller.subject().map(str::to_string), Some(caller.role.clone())),
            None => (None, None),
        };
        let bytes = match response.response().body().size() {
            BodySize::Sized(n) => Some(n),
            BodySize::None => Some(0),
            BodySize::Stream => None,
        };
        let entry = Entry {
            at: SystemTime::now() - started.elapsed(),
            surface: surface_of(path),
            method: request.method().clone(),
            path: path.to_string(),
            route: request.match_pattern(),
            status: response.status().as_u16(),
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
            request_id,
            subject,
            role,
            bytes,
        };
        self.offer(entry);
    }

    /// Queue an entry for the writer, or drop and count it when the buffer is full.
    pub fn offer(&self, entry: Entry) {
        if self.tx.try_send(entry).is_err() {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            if crate::metrics::enabled() {
                metrics::counter!("request_log_dropped_total").increment(1);
            }
        }
    }

    /// Entries dropped since the start (full buffer, or a write that failed).
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    pub(crate) fn count_dropped(&self, n: u64) {
        self.dropped.fetch_add(n, Ordering::Relaxed);
        if crate::metrics::enabled() {
            metrics::counter!("request_log_dropped_total").increment(n);
        }
    }
}

/// The surface a path belongs to, by its first segment.
pub fn surface_of(path: &str) -> &'static str {
    let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
    match first {
        "rest" => "rest",
        "auth" => "auth",
        "storage" => "storage",
        "realtime" => "realtime",
        "functions" => "functions",
        "studio" => "studio",
        "health" | "metrics" => "platform",
        _ => "site",
    }
}

/// The dashboard's own reads of this log (its live tail polls every 2 s) are not kept: they
/// would fill the log they show.
fn skipped(method: &actix_web::http::Method, path: &str) -> bool {
    method == actix_web::http::Method::GET
        && (path.starts_with("/studio/api/logs") || path.starts_with("/studio/api/reports"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_belongs_to_the_surface_of_its_first_segment() {
        assert_eq!(surface_of("/rest/v1/cars"), "rest");
        assert_eq!(surface_of("/auth/v1/token"), "auth");
        assert_eq!(surface_of("/storage/v1/object/public/a/b.png"), "storage");
        assert_eq!(surface_of("/realtime/v1/websocket"), "realtime");
        assert_eq!(surface_of("/functions/v1/hello"), "functions");
        assert_eq!(surface_of("/studio/api/audit"), "studio");
        assert_eq!(surface_of("/health"), "platform");
        assert_eq!(surface_of("/"), "site");
        assert_eq!(surface_of("/restaurants"), "site");
    }

    #[test]
    fn the_dashboards_own_log_reads_are_not_kept_but_its_writes_are() {
        use actix_web::http::Method;
        assert!(skipped(&Method::GET, "/studio/api/logs/requests"));
        assert!(skipped(&Method::GET, "/studio/api/reports"));
        assert!(!skipped(&Method::POST, "/studio/api/logs/requests"));
        assert!(!skipped(&Method::GET, "/studio/api/audit"));
    }

    #[test]
    fn a_full_buffer_drops_and_counts_instead_of_waiting() {
        let (log, _rx) = RequestLog::channel(1);
        let entry = Entry {
            at: SystemTime::now(),
            surface: "rest",
            method: actix_web::http::Method::GET,
            path: "/rest/v1/x".into(),
            route: None,
            status: 200,
            duration_ms: 1.0,
            request_id: "a".into(),
            subject: None,
            role: None,
            bytes: None,
        };
        log.offer(entry.clone());
        log.offer(entry.clone());
        log.offer(entry);
        assert_eq!(log.dropped(), 2);
    }
}
