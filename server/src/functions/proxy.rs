//! `/functions/v1/<name>[/<path>]`: the function looked up, its JWT checked (unless
//! `verify_jwt = false`, and never for `OPTIONS`, so CORS preflights reach it), then the request
//! handed to the router with its limits (wall clock, request idle timeout, memory, CPU time: the
//! function's own, else the server's), the folders it may read and its entry file, the body
//! streamed in (cut at its limit: 413) and the answer streamed back as the function gave it.
//!
//! The function sees the URL the caller used without `/functions/v1`
//! (`<scheme>://<host>/<name>/<path>?<query>`, the host as the caller named it, the scheme and host
//! a proxy in front names in `Forwarded` / `X-Forwarded-*`), whichever hop carries the request
//! (`ORIGIN_HEADER`), and every header but the hop-by-hop ones and the router's own
//! `x-functions-*`; with telemetry on, its `traceparent` is the request's span (a child of the
//! caller's), else the caller's as sent.
//!
//! A WebSocket handshake goes to the router as one too (`Connection`/`Upgrade` kept, no body); a
//! 101 from the function is spliced to the client by `websocket`. Its token may come as
//! `?apikey=` when it has no `Authorization` (a browser's `WebSocket` cannot send one).

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use secrecy::ExposeSecret;

use super::direct::Lane;
use super::error::FunctionsError;
use super::FunctionsState;

pub const SECRET_HEADER: &str = "x-functions-secret";
const ENTRYPOINT_HEADER: &str = "x-functions-entrypoint";
const TIMEOUT_HEADER: &str = "x-functions-timeout-ms";
const IDLE_HEADER: &str = "x-functions-idle-timeout-ms";
const VERSION_HEADER: &str = "x-functions-version";
const NAME_HEADER: &str = "x-functions-name";
const REQUEST_ID_HEADER: &str = "x-functions-request-id";
const COLD_HEADER: &str = "x-functions-cold";
const ERROR_HEADER: &str = "x-functions-error";
const LIMIT_HEADER: &str = "x-functions-limit";
const MEMORY_HEADER: &str = "x-functions-memory-mb";
const CPU_HEADER: &str = "x-functions-cpu-ms";
const READ_HEADER: &str = "x-functions-read";
const DENY_HEADER: &str = "x-functions-deny";
const IMPORT_MAP_HEADER: &str = "x-functions-import-map";
const CPU_USED_HEADER: &str = "x-functions-cpu-used-ms";
/// The caller's origin (`<scheme>://<host>`), which the function's request URL is given.
const ORIGIN_HEADER: &str = "x-functions-origin";
/// Asks a lane for `CPU_USED_HEADER` (when the metrics are on).
const MEASURE_HEADER: &str = "x-functions-measure";
/// Answers of a known length up to this size are read whole and sent with their length.
const WHOLE_ANSWER_BYTES: u64 = 64 * 1024;
/// How long a request waits for a router that is restarting.
const ROUTER_WAIT: Duration = Duration::from_secs(10);
/// How long a request waits for the router's first start (Deno started at the first request,
/// compiling the router when its cache is empty): as long as that start is given.
const FIRST_START_WAIT: Duration = super::runtime::START_TIMEOUT;
/// Headers that belong to one connection, not to the request or answer.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "host",
    "content-length",
];

fn forwarded(name: &str) -> bool {
    !HOP_BY_HOP.contains(&name) && !name.starts_with("x-functions-")
}

/// Answer a request to a function.
pub async fn invoke(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<FunctionsState>,
) -> Result<HttpResponse, FunctionsError> {
    let name = req.match_info().get("name").unwrap_or_default();
    let Some(function) = state.find(name) else {
        return Err(refuse(&req, payload, FunctionsError::NotFound).await);
    };
    let started = std::time::Instant::now();
    let answer = match admit(&req, &state, &function) {
        Ok(()) => forward(&req, payload, &state, &function).await,
        Err(refused) => Err(refuse(&req, payload, refused).await),
    };
    if crate::metrics::enabled() {
        let (status, cold) = match &answer {
            Ok(response) => (response.status().as_u16(), response.headers().contains_key(COLD_HEADER)),
            Err(err) => (actix_web::ResponseError::status_code(err).as_u16(), false),
        };
        crate::metrics::function_invocation(&function.name, status, started.elapsed(), cold);
    }
    answer.map(|mut response| {
        response.headers_mut().remove(COLD_HEADER);
        response
    })
}

/// Whether the request may go to `function`: its caller's token (unless `verify_jwt` is off, and
/// never for a CORS preflight) and the body's declared length.
fn admit(
    req: &HttpRequest,
    state: &FunctionsState,
    function: &super::registry::Function,
) -> Result<(), FunctionsError> {
    if function.verify_jwt && req.method() != actix_web::http::Method::OPTIONS {
        check_jwt(req, state, super::websocket::is_handshake(req))?;
    }
    let limit = state.config.max_request_bytes;
    if content_length(req).is_some_and(|length| length > limit) {
        return Err(FunctionsError::PayloadTooLarge(limit));
    }
    Ok(())
}

/// Bodies up to this size are read and dropped when a request is refused before its function,
/// so that the client's connection stays open for its next request (a body left unread closes
/// it); a larger one, or one that does not arrive within [`DRAIN_WAIT`], closes it.
const DRAIN_BYTES: usize = 64 * 1024;
const DRAIN_WAIT: Duration = Duration::from_secs(2);

/// `error`, once the request's body is read (see [`DRAIN_BYTES`]).
async fn refuse(req: &HttpRequest, mut payload: web::Payload, error: FunctionsError) -> FunctionsError {
    let small = content_length(req).is_some_and(|length| length <= DRAIN_BYTES);
    if small && !matches!(error, FunctionsError::PayloadTooLarge(_)) {
        let _ = tokio::time::timeout(DRAIN_WAIT, read_body(&mut payload, DRAIN_BYTES)).await;
    }
    error
}

/// Read the body, hand the request to the router and stream its answer back
/// (the router's `x-functions-cold` kept for the metrics, removed by the caller).
async fn forward(
    req: &HttpRequest,
    payload: web::Payload,
    state: &FunctionsState,
    function: &super::registry::Function,
) -> Result<HttpResponse, FunctionsError> {
    let handshake = super::websocket::is_handshake(req);
    let limit = state.config.max_request_bytes;
    let declared = content_length(req);
    let has_body = declared.is_some_and(|length| length > 0) || req.headers().contains_key("transfer-encoding");
    // Deno starts at the first request that needs it; that request (and those meanwhile) wait.
    let runtime = state.ensure_runtime();
    let wait = if runtime.has_been_ready() { ROUTER_WAIT } else { FIRST_START_WAIT };
    let port = runtime.endpoint(wait).await.ok_or(FunctionsError::Boot)?;
    let secrets_version = push_secrets(state, port).await?;
    let request_id = {
        use actix_web::HttpMessage;
        req.extensions().get::<crate::telemetry::RequestId>().map(|id| id.0.clone()).unwrap_or_default()
    };

    let path = req.uri().path().strip_prefix("/functions/v1").unwrap_or("/");
    let query = req.uri().query().map(|q| format!("?{q}")).unwrap_or_default();
    let method = reqwest::Method::from_bytes(req.method().as_str().as_bytes()).map_err(|_| FunctionsError::Worker)?;
    let wall_clock = Duration::from_secs(state.config.wall_clock_secs);
    let idle = Duration::from_secs(function.request_idle_secs.unwrap_or(state.config.request_idle_secs));
    let version = format!("{}-{secrets_version}{}", function.version, oneshot(state));
    let entry = file_url(&function.entrypoint);
    let traceparent = crate::telemetry::current_traceparent();
    let origin = caller_origin(req);
    // The request through `client` to `base`: the supervisor, or straight to a function's
    // process, which was started with the function's permissions (only the supervisor reads
    // them), or into a worker's lane, which reads only its limits and the request id (its worker
    // is one function's one version).
    let request = |client: &reqwest::Client, base: &str, secret: &str, hop: Hop| {
        let mut forward = client
            .request(method.clone(), format!("{base}{path}{query}"))
            .header(SECRET_HEADER, secret)
            .header(TIMEOUT_HEADER, wall_clock.as_millis().to_string())
            .header(IDLE_HEADER, idle.as_millis().to_string())
            .header(REQUEST_ID_HEADER, &request_id)
            .header(ORIGIN_HEADER, origin.as_deref().unwrap_or(""))
            .header(CPU_HEADER, function.cpu_time_limit_ms.unwrap_or(state.config.cpu_time_limit_ms).to_string());
        if hop == Hop::Lane {
            if crate::metrics::enabled() {
                forward = forward.header(MEASURE_HEADER, "1");
            }
        } else {
            forward = forward
                .header(ENTRYPOINT_HEADER, &entry)
                .header(VERSION_HEADER, &version)
                .header(NAME_HEADER, &function.name);
        }
        if hop == Hop::Supervisor {
            forward = forward
                .header(MEMORY_HEADER, function.memory_limit_mb.unwrap_or(state.config.memory_limit_mb).to_string())
                .header(READ_HEADER, read_paths(&function.read))
                .header(DENY_HEADER, read_paths(&state.guarded.denied(&function.read)))
                .header(IMPORT_MAP_HEADER, read_paths(function.import_map.as_slice()));
        }
        for (header, value) in req.headers().iter().filter(|(h, _)| forwarded(h.as_str())) {
            if traceparent.is_some() && matches!(header.as_str(), "traceparent" | "tracestate") {
                continue;
            }
            forward = forward.header(header.as_str(), value.as_bytes());
        }
        if let Some(traceparent) = &traceparent {
            forward = forward.header("traceparent", traceparent);
        }
        if handshake {
            forward = forward
                .header("connection", "upgrade")
                .header("upgrade", "websocket")
                .version(reqwest::Version::HTTP_11);
        }
        forward
    };
    let mut exceeded = None;
    let mut payload = Some(payload);
    // A small body declared by its length is read whole first, so that a request sent straight
    // to the function's process can go through the supervisor after all when that process is gone.
    let kept = declared.filter(|&length| has_body && !handshake && length <= super::direct::MAX_BODY);
    let kept = match (kept, req.headers().contains_key("transfer-encoding")) {
        (Some(_), false) => {
            let Some(payload) = payload.take() else { return Err(FunctionsError::Worker) };
            Some(read_whole(payload, limit).await?)
        }
        _ => None,
    };
    let direct_key = super::direct::key(port, &version);
    let mut answer = None;
    if !handshake && (!has_body || kept.is_some()) {
        if let Some(route) = state.direct.get(&entry, &direct_key) {
            // A lane is Deno's own server: nothing between it and the function adds headers.
            let mut straight = match &route.lane {
                Some(Lane::Port(lane)) => request(&state.http, &loopback(*lane), &route.secret, Hop::Lane),
                Some(Lane::Socket(_, client)) => request(client, "http://localhost", &route.secret, Hop::Lane),
                None => added_as_the_supervisor_does(
                    req,
                    request(&state.http, &loopback(route.port), &route.secret, Hop::Process),
                ),
            };
            if let Some(body) = &kept {
                straight = straight.body(body.clone());
            }
            match tokio::time::timeout(wall_clock + Duration::from_secs(10), straight.send()).await {
                // Not taken (every slot of the lane held, or the process ending at a limit): the
                // function did not see it; through the supervisor, which has another process.
                Ok(Ok(straight)) if not_taken(&straight) => state.direct.forget(&entry, &route),
                Ok(Ok(straight)) => answer = Some(straight),
                // Its process or lane ended (a limit, an idle sweep, a new version): through the
                // supervisor, which starts another.
                Ok(Err(err)) if err.is_connect() => state.direct.forget(&entry, &route),
                Ok(Err(err)) => {
                    state.direct.forget(&entry, &route);
                    let said = match &route.lane {
                        Some(lane) => lane_ended_soon(state, port, &route, lane).await,
                        None => ended_soon(state, port, route.port).await,
                    };
                    match said {
                        Ended::AtLimit(kind) => {
                            limit_reached(&function.name, &kind);
                            return Err(FunctionsError::Limit);
                        }
                        // Ended otherwise (killed, crashed), mostly before this request reached it
                        // (a kept-alive connection to a process gone since): through the supervisor.
                        Ended::Otherwise => {}
                        Ended::No => {
                            tracing::warn!(function = %function.name, error = %err, "functions: the function's process broke off");
                            return Err(FunctionsError::Worker);
                        }
                    }
                }
                Err(_) => {
                    limit_reached(&function.name, "wall_clock");
                    return Err(FunctionsError::Limit);
                }
            }
        }
    }
    let answer = match answer {
        Some(answer) => answer,
        None => {
            let mut forward = request(&state.http, &loopback(port), runtime.secret.expose_secret(), Hop::Supervisor);
            if let Some(body) = &kept {
                forward = forward.body(body.clone());
            } else if has_body && !handshake {
                let Some(payload) = payload.take() else { return Err(FunctionsError::Worker) };
                let upload = super::upload::Upload::start(payload, limit);
                exceeded = Some(upload.exceeded());
                forward = forward.body(upload.body);
            }
            let over_limit = || exceeded.as_ref().is_some_and(|flag| flag.load(std::sync::atomic::Ordering::SeqCst));
            // The router holds the wall-clock limit; this only covers a router that stopped answering.
            match tokio::time::timeout(wall_clock + Duration::from_secs(10), forward.send()).await {
                Ok(Ok(answer)) => answer,
                Ok(Err(_)) if over_limit() => return Err(FunctionsError::PayloadTooLarge(limit)),
                Ok(Err(err)) => {
                    tracing::error!(function = %function.name, error = %err, "functions: the runtime did not answer");
                    return Err(FunctionsError::Boot);
                }
                Err(_) => {
                    limit_reached(&function.name, "wall_clock");
                    return Err(FunctionsError::Limit);
                }
            }
        }
    };
    if let Some(route) = answer.headers().get(super::direct::HEADER).and_then(|v| v.to_str().ok()) {
        let lane = answer.headers().get(super::direct::LANE_HEADER).and_then(|v| v.to_str().ok());
        let lane = lane.filter(|_| state.config.lanes);
        state.direct.learn(&entry, direct_key, route, lane);
    }
    let over_limit = || exceeded.as_ref().is_some_and(|flag| flag.load(std::sync::atomic::Ordering::SeqCst));
    let header = |name: &str| answer.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    if over_limit() {
        return Err(FunctionsError::PayloadTooLarge(limit));
    }
    if let Some(kind) = header(ERROR_HEADER) {
        let limit_kind = header(LIMIT_HEADER);
        let detail = answer.text().await.unwrap_or_default();
        tracing::warn!(function = %function.name, kind, limit = limit_kind.as_deref(), "functions: {detail}");
        if let Some(limit_kind) = limit_kind.filter(|_| kind == "limit") {
            limit_reached(&function.name, &limit_kind);
        }
        return Err(FunctionsError::from_router(&kind));
    }
    if let Some(cpu_ms) = header(CPU_USED_HEADER).and_then(|ms| ms.parse::<u64>().ok()) {
        if crate::metrics::enabled() {
            crate::metrics::function_cpu_time(&function.name, Duration::from_millis(cpu_ms));
        }
    }
    if handshake && answer.status() == reqwest::StatusCode::SWITCHING_PROTOCOLS {
        let Some(payload) = payload.take() else { return Err(FunctionsError::Worker) };
        return super::websocket::splice(answer, payload).await;
    }
    let status = StatusCode::from_u16(answer.status().as_u16()).map_err(|_| FunctionsError::Worker)?;
    let mut response = HttpResponse::build(status);
    if answer.headers().contains_key(COLD_HEADER) {
        response.insert_header((COLD_HEADER, "1"));
    }
    for (header, value) in answer.headers().iter().filter(|(h, _)| forwarded(h.as_str())) {
        if let Ok(value) = actix_web::http::header::HeaderValue::from_bytes(value.as_bytes()) {
            response.append_header((header.as_str(), value));
        }
    }
    if handshake {
        // A refused handshake: actix frames a streamed answer to an upgrade request as if it had
        // been upgraded (chunked announced, raw bytes sent), so the refusal goes out whole.
        let body = answer.bytes().await.map_err(|_| FunctionsError::Worker)?;
        return Ok(response.body(body));
    }
    // An answer of a small known length (a body the function gave whole) goes out whole, with
    // its length, in one write; any other is streamed as it comes.
    if req.method() != actix_web::http::Method::HEAD && answer.content_length().is_some_and(|n| n <= WHOLE_ANSWER_BYTES)
    {
        let body = answer.bytes().await.map_err(|err| {
            tracing::warn!(function = %function.name, error = %err, "functions: the answer's body broke off");
            FunctionsError::Worker
        })?;
        return Ok(response.body(body));
    }
    let function_name = function.name.clone();
    Ok(response.streaming(answer.bytes_stream().map(move |chunk| {
        chunk.map_err(|err| {
            tracing::warn!(function = %function_name, error = %err, "functions: the answer's body broke off");
            actix_web::error::ErrorBadGateway("the function's answer broke off")
        })
    })))
}

/// The runtime's address on loopback `port`, as a URL's start.
fn loopback(port: u16) -> String {
    format!("http://127.0.0.1:{port}")
}

/// The origin the caller reached the server at, as a URL's start (`http://localhost:54321`): the
/// scheme and host actix reads from `Forwarded`, `X-Forwarded-Proto` / `-Host` or `Host`. `None`
/// for a host that could not start a URL (the function then sees its runtime's loopback origin).
fn caller_origin(req: &HttpRequest) -> Option<String> {
    let info = req.connection_info();
    let scheme = match info.scheme() {
        "https" | "wss" => "https",
        _ => "http",
    };
    let host = info.host();
    let valid = !host.is_empty()
        && host.len() <= 255
        && host.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b':' | b'[' | b']'));
    valid.then(|| format!("{scheme}://{host}"))
}

/// What the supervisor's own fetch adds to a request and marks (`x-functions-added`), added the
/// same way to a request sent straight to a function's process: the function sees the same.
fn added_as_the_supervisor_does(req: &HttpRequest, mut straight: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    let mut added = Vec::new();
    if !req.headers().contains_key("user-agent") {
        added.push("user-agent");
    }
    if !req.headers().contains_key("accept-encoding") {
        straight = straight.header("accept-encoding", "identity");
        added.push("accept-encoding");
    }
    straight.header("x-functions-added", added.join(","))
}

/// A small body read whole, at most `limit` bytes (413 past it).
async fn read_whole(mut payload: web::Payload, limit: usize) -> Result<web::Bytes, FunctionsError> {
    read_body(&mut payload, limit).await.map_err(|err| match err {
        BodyError::Broken => FunctionsError::Worker,
        BodyError::TooLarge => FunctionsError::PayloadTooLarge(limit),
    })
}

/// Where a request to a function goes first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hop {
    /// The supervisor, which picks (or starts) the function's process.
    Supervisor,
    /// Straight to the function's process.
    Process,
    /// Straight into the function's worker (its lane).
    Lane,
}

/// Whether the function's process (or worker) that a straight request lost has ended, and how.
enum Ended {
    AtLimit(String),
    Otherwise,
    No,
}

impl Ended {
    /// What the supervisor's `/_internal/ended` or a process's `/_internal/lane` answered.
    fn said(said: &serde_json::Value) -> Ended {
        match (said["ended"].as_bool(), said["limit"].as_str()) {
            (Some(true), Some(kind)) => Ended::AtLimit(kind.to_string()),
            (Some(true), None) => Ended::Otherwise,
            _ => Ended::No,
        }
    }
}

/// A request sent straight to a function's process broke off: the supervisor on `supervisor` says
/// whether that process ended, at a limit or otherwise, as it knows for its own requests.
async fn ended(state: &FunctionsState, supervisor: u16, process: u16) -> Ended {
    let Some(runtime) = state.runtime() else { return Ended::No };
    let asked = state
        .http
        .get(format!("http://127.0.0.1:{supervisor}/_internal/ended?port={process}"))
        .header(SECRET_HEADER, runtime.secret.expose_secret())
        .timeout(Duration::from_secs(5))
        .send()
        .await;
    // A supervisor that does not answer is gone too (its processes end with it): through it
    // again, which waits for the runtime's restart as any request does.
    let Ok(answer) = asked else { return Ended::Otherwise };
    let Ok(said) = answer.json::<serde_json::Value>().await else { return Ended::No };
    Ended::said(&said)
}

/// `ended`, asked again for a moment while the supervisor says no: a process killed a moment ago
/// breaks the connection before its supervisor has seen it exit.
async fn ended_soon(state: &FunctionsState, supervisor: u16, process: u16) -> Ended {
    for _ in 0..10 {
        match ended(state, supervisor, process).await {
            Ended::No => tokio::time::sleep(Duration::from_millis(50)).await,
            said => return said,
        }
    }
    ended(state, supervisor, process).await
}

/// Whether a straight answer says the request was not taken: `x-functions-lane: full` (a lane
/// with every slot held) or `gone` (a process ending at a limit).
fn not_taken(answer: &reqwest::Response) -> bool {
    answer.headers().get(super::direct::LANE_HEADER).is_some_and(|v| matches!(v.as_bytes(), b"full" | b"gone"))
}

/// A request sent to a worker's lane broke off: its process says whether that worker stopped, at
/// a limit or otherwise; a process that does not answer has ended itself, which its supervisor on
/// `supervisor` explains. Asked again for a moment while the process says no: a worker that
/// failed on its own breaks its connections before the process has seen it stop.
async fn lane_ended_soon(state: &FunctionsState, supervisor: u16, route: &super::direct::Route, lane: &Lane) -> Ended {
    let lane = lane.key();
    for attempt in 0..=10 {
        let asked = state
            .http
            .get(format!("http://127.0.0.1:{}/_internal/lane", route.port))
            .query(&[("lane", &lane)])
            .header(SECRET_HEADER, &route.secret)
            .timeout(Duration::from_secs(5))
            .send()
            .await;
        let answer = match asked {
            Ok(answer) => answer,
            Err(_) => return ended_soon(state, supervisor, route.port).await,
        };
        let Ok(said) = answer.json::<serde_json::Value>().await else { return Ended::No };
        match Ended::said(&said) {
            Ended::No if attempt < 10 => tokio::time::sleep(Duration::from_millis(50)).await,
            said => return said,
        }
    }
    Ended::No
}

/// Under `[edge_runtime] policy = "oneshot"`, a version suffix of the request's own: the router
/// starts a fresh worker for it and retires the one before once its requests are answered.
fn oneshot(state: &FunctionsState) -> String {
    use crate::project::config::RequestPolicy;
    match state.edge_runtime.policy {
        RequestPolicy::PerWorker => String::new(),
        RequestPolicy::Oneshot => {
            format!("-once{}", state.oneshots.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
        }
    }
}

/// The request's `Content-Length`, if it sent one that reads as a number.
fn content_length(req: &HttpRequest) -> Option<usize> {
    req.headers().get("content-length")?.to_str().ok()?.trim().parse().ok()
}

/// Count a function stopped at a limit (`memory`, `cpu`, `wall_clock`).
fn limit_reached(function: &str, kind: &str) {
    if crate::metrics::enabled() {
        crate::metrics::function_limit_kill(function, kind);
    }
}

/// The folders a function may read, as the router reads them: a JSON array, in ASCII (a header
/// value), paths with a comma left out (Deno's `--allow-read` list is comma-separated).
fn read_paths(paths: &[std::path::PathBuf]) -> String {
    let paths: Vec<String> =
        paths.iter().map(|p| p.to_string_lossy().into_owned()).filter(|p| !p.contains(',')).collect();
    let json = serde_json::Value::from(paths).to_string();
    let mut ascii = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            ascii.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                ascii.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    ascii
}

/// Why a whole body was not read.
pub(super) enum BodyError {
    /// The client broke it off (or sent a malformed one).
    Broken,
    /// It went past the limit.
    TooLarge,
}

/// The whole body, up to `limit` bytes.
pub(super) async fn read_body(payload: &mut web::Payload, limit: usize) -> Result<web::Bytes, BodyError> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| BodyError::Broken)?;
        if body.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

impl FunctionsState {
    /// The function `name`: deployed (the database's), else the project folder's. Its request
    /// idle timeout is `config.toml`'s for that name either way.
    pub fn find(&self, name: &str) -> Option<super::registry::Function> {
        if !self.edge_runtime.enabled {
            return None;
        }
        let deployed = self.catalog.as_ref().and_then(|c| c.find(name)).map(|mut function| {
            if let Some(settings) = self.registry.settings.get(name) {
                function.request_idle_secs = settings.request_idle_timeout_secs;
                function.memory_limit_mb = settings.memory_limit_mb;
                function.cpu_time_limit_ms = settings.cpu_time_limit_ms;
            }
            function
        });
        deployed.or_else(|| self.registry.find(name))
    }
}

/// Send the secrets to the router when it has not got this version yet (a new router, or
/// secrets changed); the version, which goes into every function's, so workers booted with
/// other secrets are retired. Values travel over loopback to the router only, never logged.
async fn push_secrets(state: &FunctionsState, port: u16) -> Result<String, FunctionsError> {
    let Some(catalog) = &state.catalog else { return Ok(String::new()) };
    let secrets = catalog.secrets();
    let sent = state.secrets_sent.lock().map(|s| s.clone()).unwrap_or_default();
    if sent.as_ref() == Some(&(port, secrets.version.clone())) {
        return Ok(secrets.version.clone());
    }
    let Some(runtime) = state.runtime() else { return Err(FunctionsError::Boot) };
    let env: serde_json::Map<String, serde_json::Value> =
        secrets.env.iter().map(|(k, v)| (k.clone(), serde_json::Value::from(v.expose_secret()))).collect();
    let answer = state
        .http
        .put(format!("http://127.0.0.1:{port}/_internal/secrets"))
        .header(SECRET_HEADER, runtime.secret.expose_secret())
        .json(&env)
        .timeout(ROUTER_WAIT)
        .send()
        .await;
    match answer {
        Ok(answer) if answer.status().is_success() => {
            if let Ok(mut sent) = state.secrets_sent.lock() {
                *sent = Some((port, secrets.version.clone()));
            }
            Ok(secrets.version.clone())
        }
        Ok(answer) => {
            tracing::error!(status = %answer.status(), "functions: the runtime refused the secrets");
            Err(FunctionsError::Boot)
        }
        Err(err) => {
            tracing::error!(error = %err, "functions: cannot send the secrets to the runtime");
            Err(FunctionsError::Boot)
        }
    }
}

/// `Authorization: Bearer <JWT>` signed by the project's keys (HS256 secret or signing keys);
/// for a WebSocket handshake without that header, the JWT in `?apikey=`.
/// The opaque `sb_…` API keys are not JWTs and are refused, as the edge runtime refuses them.
fn check_jwt(req: &HttpRequest, state: &FunctionsState, handshake: bool) -> Result<(), FunctionsError> {
    let from_query = if handshake && !req.headers().contains_key("authorization") {
        super::websocket::query_token(req)
    } else {
        None
    };
    let token = match &from_query {
        Some(token) => token.trim(),
        None => {
            let header = req.headers().get("authorization").ok_or(FunctionsError::MissingAuthorization)?;
            let value = header.to_str().map_err(|_| FunctionsError::NotBearer)?;
            value.strip_prefix("Bearer ").ok_or(FunctionsError::NotBearer)?.trim()
        }
    };
    if crate::keys::ApiKeys::is_opaque(token) {
        return Err(FunctionsError::InvalidJwt);
    }
    state.verifier.verify(token).map(|_| ()).map_err(|_| FunctionsError::InvalidJwt)
}

fn file_url(path: &std::path::Path) -> String {
    url::Url::from_file_path(path).map(String::from).unwrap_or_else(|()| format!("file://{}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_headers_and_the_routers_own_are_not_forwarded() {
        for name in
            ["connection", "transfer-encoding", "host", "content-length", "x-functions-secret", "x-functions-error"]
        {
            assert!(!forwarded(name), "{name}");
        }
        for name in ["authorization", "apikey", "content-type", "x-client-info", "x-region", "cookie"] {
            assert!(forwarded(name), "{name}");
        }
    }

    #[test]
    fn read_paths_are_an_ascii_json_array_without_paths_holding_a_comma() {
        let paths = ["/p/functions/hello", "/p/functions/caf\u{e9}", "/p/a,b"].map(std::path::PathBuf::from);
        let header = read_paths(&paths);
        assert!(header.is_ascii());
        let parsed: Vec<String> = serde_json::from_str(&header).unwrap_or_default();
        assert_eq!(parsed, ["/p/functions/hello", "/p/functions/caf\u{e9}"]);
    }

    #[test]
    fn the_caller_s_origin_is_its_host_with_the_scheme_a_proxy_names_and_nothing_for_a_host_no_url_has() {
        use actix_web::test::TestRequest;
        let origin = |headers: &[(&str, &str)]| {
            let mut req = TestRequest::default();
            for (name, value) in headers {
                req = req.insert_header((*name, *value));
            }
            caller_origin(&req.to_http_request())
        };
        assert_eq!(origin(&[("host", "localhost:54321")]).as_deref(), Some("http://localhost:54321"));
        assert_eq!(
            origin(&[
                ("host", "10.0.0.2:54321"),
                ("x-forwarded-proto", "https"),
                ("x-forwarded-host", "api.example.cd")
            ])
            .as_deref(),
            Some("https://api.example.cd")
        );
        assert_eq!(origin(&[("host", "[::1]:8000")]).as_deref(), Some("http://[::1]:8000"));
        for bad in ["a b", "evil.com/path", "x@y", "h\\t", "a?b"] {
            assert_eq!(origin(&[("host", bad)]), None, "{bad:?}");
        }
    }

    #[test]
    fn entry_files_become_file_urls() {
        assert_eq!(
            file_url(std::path::Path::new("/p/functions/hello world/index.ts")),
            "file:///p/functions/hello%20world/index.ts"
        );
    }
}
