//! Prometheus metrics through the `metrics` facade and its Prometheus exporter: the recorders
//! every part calls (requests by surface, route and status with latency histograms, recorded by
//! the request middleware; pool time-outs, shared connections, realtime frames) and the pool
//! gauges. A shared part: it imports no surface. `GET /metrics` itself, which reads each
//! surface's state when scraped, is `scrape`.
//!
//! Off unless `METRICS_TOKEN` is set: nothing is recorded. Labels are bounded: a route is its
//! pattern (`/rest/v1/{table}`), never the path itself.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// Latency buckets, in seconds: 1 ms to 10 s.
const LATENCY_BUCKETS: &[f64] = &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Install the process-wide recorder (once; later calls reuse it) and start recording.
pub fn enable() {
    let handle = HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("duration_seconds".into()), LATENCY_BUCKETS)
            .ok()?
            .build_recorder();
        let handle = recorder.handle();
        metrics::set_global_recorder(recorder).ok()?;
        // Histogram samples wait in buffers until drained: drain them even when nobody scrapes.
        let upkeep = handle.clone();
        std::thread::Builder::new()
            .name("metrics-upkeep".into())
            .spawn(move || loop {
                std::thread::sleep(Duration::from_secs(5));
                upkeep.run_upkeep();
            })
            .ok()?;
        Some(handle)
    });
    if handle.is_some() {
        ENABLED.store(true, Ordering::Relaxed);
        describe();
    }
}

/// Whether requests are being recorded.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

fn describe() {
    metrics::describe_counter!("http_requests_total", "HTTP requests answered, by surface, route, method and status");
    metrics::describe_histogram!(
        "http_request_duration_seconds",
        metrics::Unit::Seconds,
        "Time from a request's arrival to its response's head, by surface and route"
    );
    metrics::describe_gauge!("db_pool_connections", "Open connections of a pool, by state (in_use, idle)");
    metrics::describe_gauge!("db_pool_max_connections", "Largest number of connections a pool opens");
    metrics::describe_gauge!("db_pool_waiting", "Requests waiting for a connection of a pool");
    metrics::describe_gauge!(
        "db_replica_in_rotation",
        "1 while a read replica takes reads, 0 while it is down or lagging"
    );
    metrics::describe_counter!("db_pool_timeouts_total", "Waits for a pool connection that timed out");
    metrics::describe_counter!(
        "db_shared_connection_transactions_total",
        "REST transactions that could share a worker's connection: shared, or overflow when none had room \
         (they took a pooled connection; DB_SHARED_CONNECTIONS may be too low)"
    );
    metrics::describe_gauge!("realtime_connections", "Open realtime sockets");
    metrics::describe_gauge!("realtime_channels", "Channels with at least one member on this instance");
    metrics::describe_counter!("realtime_messages_sent_total", "Frames queued to realtime sockets");
    metrics::describe_counter!("realtime_messages_received_total", "Frames received from realtime sockets");
    metrics::describe_gauge!(
        "outbox_messages",
        "Unsent mail and text messages of the outbox: pending (still tried) and failed (given up)"
    );
    metrics::describe_gauge!("embedded_postgres_up", "1 when the embedded cluster runs, 0 when it is down");
    metrics::describe_counter!(
        "storage_download_bytes_total",
        "Bytes of storage downloads, by how they were sent: sendfile (file to socket by the kernel) or streamed (read into memory)"
    );
    metrics::describe_counter!("functions_invocations_total", "Calls of Edge Functions, by function and status");
    metrics::describe_histogram!(
        "functions_invocation_duration_seconds",
        "Time from a function's call to its answer's head, by function"
    );
    metrics::describe_counter!("functions_cold_starts_total", "Calls that booted a new worker, by function");
    metrics::describe_gauge!("functions_workers", "Function processes alive under the Deno child");
    metrics::describe_histogram!(
        "functions_cpu_time_seconds",
        "CPU time of a function's process from a call to its answer's head, by function"
    );
    metrics::describe_counter!(
        "functions_limit_kills_total",
        "Calls stopped at a limit, by function and kind (memory, cpu, wall_clock)"
    );
}

/// The surface a path belongs to (a bounded label).
pub fn surface(path: &str) -> &'static str {
    let mut parts = path.trim_start_matches('/').splitn(3, '/');
    match (parts.next(), parts.next()) {
        (Some("auth"), Some("v1")) => "auth",
        (Some("rest"), Some("v1")) => "rest",
        (Some("storage"), Some("v1")) => "storage",
        (Some("realtime"), Some("v1")) => "realtime",
        (Some("health"), _) | (Some("metrics"), None) => "internal",
        _ => "site",
    }
}

/// A request's counter and histogram, for one route, method and status.
struct Handles {
    route: String,
    method: String,
    status: u16,
    counter: metrics::Counter,
    histogram: metrics::Histogram,
}

thread_local! {
    /// Each worker thread's handles, by a hash of route, method and status: a request then costs
    /// a hash and two atomic updates, not a registry look-up with its labels built anew.
    static HANDLES: std::cell::RefCell<std::collections::HashMap<u64, Vec<Handles>>> = Default::default();
}

/// Record one answered request (called by the request middleware when enabled).
pub fn record_request(path: &str, route: Option<&str>, method: &str, status: u16, elapsed: Duration) {
    use std::hash::{Hash, Hasher};
    let route = route.unwrap_or("unmatched");
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (route, method, status).hash(&mut hasher);
    HANDLES.with_borrow_mut(|handles| {
        let bucket = handles.entry(hasher.finish()).or_default();
        let index = match bucket.iter().position(|h| h.status == status && h.route == route && h.method == method) {
            Some(index) => index,
            None => {
                let surface = surface(path);
                bucket.push(Handles {
                    route: route.to_string(),
                    method: method.to_string(),
                    status,
                    counter: metrics::counter!(
                        "http_requests_total",
                        "surface" => surface,
                        "route" => route.to_string(),
                        "method" => method.to_string(),
                        "status" => status.to_string(),
                    ),
                    histogram: metrics::histogram!(
                        "http_request_duration_seconds", "surface" => surface, "route" => route.to_string()
                    ),
                });
                bucket.len() - 1
            }
        };
        bucket[index].counter.increment(1);
        bucket[index].histogram.record(elapsed.as_secs_f64());
    });
}

/// Record a call of an existing function (the name is a deployed or folder function's, so the
/// label stays bounded): its status, the time to its head, whether it booted a worker.
pub fn function_invocation(function: &str, status: u16, elapsed: Duration, cold: bool) {
    let function = function.to_string();
    metrics::counter!("functions_invocations_total", "function" => function.clone(), "status" => status.to_string())
        .increment(1);
    metrics::histogram!("functions_invocation_duration_seconds", "function" => function.clone())
        .record(elapsed.as_secs_f64());
    if cold {
        metrics::counter!("functions_cold_starts_total", "function" => function).increment(1);
    }
}

/// Record the CPU time a call of an existing function used until its answer's head.
pub fn function_cpu_time(function: &str, cpu: Duration) {
    metrics::histogram!("functions_cpu_time_seconds", "function" => function.to_string()).record(cpu.as_secs_f64());
}

/// Count a call of an existing function stopped at a limit (`kind` is one of the router's few).
pub fn function_limit_kill(function: &str, kind: &str) {
    let kind = match kind {
        "memory" => "memory",
        "cpu" => "cpu",
        _ => "wall_clock",
    };
    metrics::counter!("functions_limit_kills_total", "function" => function.to_string(), "kind" => kind).increment(1);
}

/// Count a pool wait that timed out.
pub fn pool_timeout(pool: &'static str) {
    if enabled() {
        metrics::counter!("db_pool_timeouts_total", "pool" => pool).increment(1);
    }
}

/// Count a transaction that could run on a shared connection: whether one had room.
pub fn shared_connection(shared: bool) {
    if enabled() {
        let outcome = if shared { "shared" } else { "overflow" };
        metrics::counter!("db_shared_connection_transactions_total", "outcome" => outcome).increment(1);
    }
}

/// Count frames to or from realtime sockets.
pub fn realtime_frames(direction: &'static str, n: u64) {
    if enabled() {
        let name =
            if direction == "sent" { "realtime_messages_sent_total" } else { "realtime_messages_received_total" };
        metrics::counter!(name).increment(n);
    }
}

/// The text a scrape answers, `None` while metrics are off (no `METRICS_TOKEN`).
pub fn render() -> Option<String> {
    HANDLE.get().and_then(Option::as_ref).map(PrometheusHandle::render)
}

/// The gauges of one connection pool, set when scraped.
pub fn pool_gauges(name: impl Into<metrics::SharedString>, pool: &deadpool_postgres::Pool) {
    let name: metrics::SharedString = name.into();
    let status = pool.status();
    let idle = status.available as f64;
    metrics::gauge!("db_pool_connections", "pool" => name.clone(), "state" => "idle").set(idle);
    metrics::gauge!("db_pool_connections", "pool" => name.clone(), "state" => "in_use").set(status.size as f64 - idle);
    metrics::gauge!("db_pool_max_connections", "pool" => name.clone()).set(status.max_size as f64);
    metrics::gauge!("db_pool_waiting", "pool" => name).set(status.waiting as f64);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_to_their_surface() {
        assert_eq!(surface("/auth/v1/token"), "auth");
        assert_eq!(surface("/rest/v1/vehicles"), "rest");
        assert_eq!(surface("/storage/v1/object/a/b"), "storage");
        assert_eq!(surface("/realtime/v1/websocket"), "realtime");
        assert_eq!(surface("/health/ready"), "internal");
        assert_eq!(surface("/metrics"), "internal");
        assert_eq!(surface("/fleet/3"), "site");
        assert_eq!(surface("/restv1"), "site");
    }
}
