//! HTTP requests of the outbox: the database webhooks (`supabase_functions.http_request`), pg_net's
//! `net.http_post` / `net.http_get` and the function schedules, written to `outbox.http_requests`
//! (V80) in the transaction of the change, sent from here.
//!
//! Delivery is at least once, as for the mail: a request is claimed for its timeout plus a
//! margin (so a worker killed mid-send leaves it to be claimed again soon after), sent, then
//! marked delivered on a 2xx answer; anything else is tried again after a growing delay until
//! `OUTBOX_MAX_ATTEMPTS`, then marked failed and kept with its last answer. A request to this
//! server's own `/functions/v1` goes over loopback to the port this instance listens on,
//! whatever host the migration wrote (`localhost:54321`, `host.docker.internal`, Supabase's
//! `kong`): see [`Target::resolve`]. Bodies and headers are never logged (they hold rows and
//! keys); only ids, URLs' hosts, statuses and errors are.

use std::time::Duration;

use deadpool_postgres::Pool;
use futures_util::StreamExt;
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use super::{retry_delay, BoxError, OutboxConfig};
use crate::db::cached::CachedQueries;

/// Requests claimed and sent at once.
pub const BATCH: usize = 50;
/// Added to a request's own timeout for its lease.
const LEASE_MARGIN_SECONDS: f64 = 10.0;
/// How much of an answer's body is kept on the row.
const KEPT_RESPONSE_BYTES: usize = 16 * 1024;
/// Hosts that name this server's API in Supabase projects' migrations (the CLI's docker names).
const SUPABASE_SELF_HOSTS: &[&str] = &["host.docker.internal", "kong"];
const SUPABASE_SELF_PREFIXES: &[&str] = &["supabase_kong_", "supabase-kong"];
/// The Supabase CLI's API port on loopback.
const CLI_API_PORT: u16 = 54321;

/// Where this instance answers, to send its own functions' requests over loopback.
#[derive(Clone)]
pub struct Target {
    /// `http://<host>:<port>` of this instance's listener (loopback when it listens everywhere).
    pub loopback: String,
    /// The port of that listener.
    pub port: u16,
    /// The public URL of the API (`API_EXTERNAL_URL`), whose host also names this server.
    pub external: Option<url::Url>,
    /// Sent as the bearer of the requests marked `as_service` (the schedules).
    pub service_key: SecretString,
    pub client: reqwest::Client,
}

/// A request taken from the outbox.
struct Claimed {
    id: i64,
    method: String,
    url: String,
    headers: Value,
    params: Value,
    body: Option<Value>,
    timeout_ms: i32,
    as_service: bool,
    attempts: i32,
}

/// What one attempt gave.
struct Attempt {
    status: Option<i32>,
    content_type: Option<String>,
    response: Option<String>,
    /// `None`: delivered.
    error: Option<String>,
    /// Trying again cannot help (a malformed URL or header).
    permanent: bool,
}

impl Attempt {
    fn refused(why: String) -> Attempt {
        Attempt { status: None, content_type: None, response: None, error: Some(why), permanent: true }
    }
}

impl Target {
    /// The URL a request goes to: this server's loopback address for `/functions/v1/...` that
    /// names this server (a relative URL, a loopback host on this port or the CLI's 54321, the
    /// external URL's host, or the CLI's docker names), else the URL as written.
    pub fn resolve(&self, url: &str) -> Result<url::Url, String> {
        let here = |path_and_query: &str| {
            url::Url::parse(&format!("{}{path_and_query}", self.loopback)).map_err(|e| format!("bad url: {e}"))
        };
        if url.starts_with("/functions/v1/") {
            return here(url);
        }
        let parsed = url::Url::parse(url).map_err(|e| format!("bad url: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!("bad url: scheme {} is not http(s)", parsed.scheme()));
        }
        if parsed.path().starts_with("/functions/v1/") && self.names_this_server(&parsed) {
            let query = parsed.query().map(|q| format!("?{q}")).unwrap_or_default();
            return here(&format!("{}{query}", parsed.path()));
        }
        Ok(parsed)
    }

    fn names_this_server(&self, url: &url::Url) -> bool {
        let host = url.host_str().unwrap_or_default().trim_start_matches('[').trim_end_matches(']');
        let port = url.port_or_known_default();
        let loopback = matches!(host, "localhost" | "127.0.0.1" | "::1");
        let own_port = port == Some(self.port) || port == Some(CLI_API_PORT);
        let external =
            self.external.as_ref().is_some_and(|e| e.host_str() == url.host_str() && e.port_or_known_default() == port);
        (loopback && own_port)
            || external
            || SUPABASE_SELF_HOSTS.contains(&host)
            || SUPABASE_SELF_PREFIXES.iter().any(|p| host.starts_with(p))
    }
}

/// Claim up to `BATCH` due requests, send them together; returns how many were claimed.
pub async fn deliver_batch(config: &OutboxConfig, pool: &Pool, target: &Target) -> Result<usize, BoxError> {
    let client = pool.get().await?;
    let rows = client
        .cached_query(
            "update outbox.http_requests r set attempts = r.attempts + 1, \
             next_attempt_at = now() + make_interval(secs => r.timeout_ms / 1000.0 + $1::float8) \
             where r.id in (select id from outbox.http_requests where delivered_at is null and failed_at is null \
                            and next_attempt_at <= now() order by next_attempt_at, id limit $2 for update skip locked) \
             returning r.id, r.method, r.url, r.headers, r.params, r.body, r.timeout_ms, r.as_service, r.attempts",
            &[&LEASE_MARGIN_SECONDS, &(BATCH as i64)],
        )
        .await?;
    drop(client);
    let claimed: Vec<Claimed> = rows
        .iter()
        .map(|r| Claimed {
            id: r.get(0),
            method: r.get(1),
            url: r.get(2),
            headers: r.get(3),
            params: r.get(4),
            body: r.get(5),
            timeout_ms: r.get(6),
            as_service: r.get(7),
            attempts: r.get(8),
        })
        .collect();
    let count = claimed.len();
    let mut sent = futures_util::stream::iter(claimed)
        .map(|request| async move {
            let attempt = send(target, &request).await;
            (request, attempt)
        })
        .buffer_unordered(BATCH);
    while let Some((request, attempt)) = sent.next().await {
        record(config, pool, target, &request, attempt).await?;
    }
    Ok(count)
}

/// Note an attempt on its row (delivered, to be tried again, or failed for good).
async fn record(
    config: &OutboxConfig,
    pool: &Pool,
    target: &Target,
    request: &Claimed,
    attempt: Attempt,
) -> Result<(), BoxError> {
    let client = pool.get().await?;
    let host = target.resolve(&request.url).ok().and_then(|u| u.host_str().map(str::to_string)).unwrap_or_default();
    match &attempt.error {
        None => {
            client
                .cached_execute(
                    "update outbox.http_requests set delivered_at = now(), last_status = $2, last_content_type = $3, \
                     last_response = $4, last_error = null where id = $1",
                    &[&request.id, &attempt.status, &attempt.content_type, &attempt.response],
                )
                .await?;
            tracing::debug!(id = request.id, host = %host, status = ?attempt.status, "outbox: http request delivered");
        }
        Some(why) => {
            let give_up = attempt.permanent || request.attempts >= config.max_attempts;
            let delay = retry_delay(config.retry_base, request.attempts);
            client
                .cached_execute(
                    "update outbox.http_requests set last_status = $2, last_content_type = $3, last_response = $4, \
                     last_error = $5, next_attempt_at = now() + make_interval(secs => $6), \
                     failed_at = case when $7 then now() end where id = $1",
                    &[&request.id, &attempt.status, &attempt.content_type, &attempt.response, why, &delay, &give_up],
                )
                .await?;
            tracing::warn!(
                id = request.id,
                host = %host,
                attempts = request.attempts,
                gave_up = give_up,
                error = %why,
                "outbox: http request failed"
            );
        }
    }
    Ok(())
}

/// One attempt at a request.
async fn send(target: &Target, request: &Claimed) -> Attempt {
    let mut url = match target.resolve(&request.url) {
        Ok(url) => url,
        Err(why) => return Attempt::refused(why),
    };
    if let Some(params) = request.params.as_object().filter(|p| !p.is_empty()) {
        let mut pairs = url.query_pairs_mut();
        for (key, value) in params {
            pairs.append_pair(key, &text_of(value));
        }
    }
    let Ok(method) = reqwest::Method::from_bytes(request.method.as_bytes()) else {
        return Attempt::refused(format!("bad method {}", request.method));
    };
    let timeout = Duration::from_millis(u64::try_from(request.timeout_ms).unwrap_or(1000).max(1));
    let mut builder = target.client.request(method, url).timeout(timeout);
    let mut has_authorization = false;
    for (name, value) in request.headers.as_object().into_iter().flatten() {
        let Ok(header) = reqwest::header::HeaderName::from_bytes(name.as_bytes()) else {
            return Attempt::refused(format!("bad header name {name:?}"));
        };
        let Ok(value) = reqwest::header::HeaderValue::from_str(&text_of(value)) else {
            return Attempt::refused(format!("bad value of header {name}"));
        };
        has_authorization |= header == reqwest::header::AUTHORIZATION;
        builder = builder.header(header, value);
    }
    if request.as_service && !has_authorization {
        builder = builder
            .bearer_auth(target.service_key.expose_secret())
            .header("apikey", target.service_key.expose_secret());
    }
    if let Some(body) = &request.body {
        builder = builder.body(body.to_string());
        if !request.headers.as_object().is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case("content-type"))) {
            builder = builder.header(reqwest::header::CONTENT_TYPE, "application/json");
        }
    }
    let response = match builder.send().await {
        Ok(response) => response,
        Err(err) if err.is_timeout() => {
            return transient(None, None, None, format!("timed out after {} ms", request.timeout_ms))
        }
        Err(err) => return transient(None, None, None, format!("request failed: {}", without_url(err))),
    };
    let status = response.status();
    let content_type =
        response.headers().get(reqwest::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_string);
    let response = match read_kept(response).await {
        Ok(text) => text,
        Err(err) if err.is_timeout() => {
            return transient(Some(status), content_type, None, format!("timed out after {} ms", request.timeout_ms))
        }
        Err(err) => return transient(Some(status), content_type, None, format!("answer cut: {}", without_url(err))),
    };
    if status.is_success() {
        Attempt {
            status: Some(i32::from(status.as_u16())),
            content_type,
            response: Some(response),
            error: None,
            permanent: false,
        }
    } else {
        transient(Some(status), content_type, Some(response), format!("answered {status}"))
    }
}

fn transient(
    status: Option<reqwest::StatusCode>,
    content_type: Option<String>,
    response: Option<String>,
    why: String,
) -> Attempt {
    Attempt {
        status: status.map(|s| i32::from(s.as_u16())),
        content_type,
        response,
        error: Some(why),
        permanent: false,
    }
}

/// The first `KEPT_RESPONSE_BYTES` of the answer's body, as text; the rest is read and dropped.
async fn read_kept(response: reqwest::Response) -> Result<String, reqwest::Error> {
    let mut kept = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        let room = KEPT_RESPONSE_BYTES.saturating_sub(kept.len());
        kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
    }
    Ok(String::from_utf8_lossy(&kept).into_owned())
}

/// A header or query value as text: strings as they are, other JSON as JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// reqwest's error without its URL (a query string may hold a key).
fn without_url(err: reqwest::Error) -> String {
    err.without_url().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        Target {
            loopback: "http://127.0.0.1:4000".into(),
            port: 4000,
            external: Some(url::Url::parse("https://api.example.com").expect("url")),
            service_key: SecretString::from("key".to_string()),
            client: reqwest::Client::new(),
        }
    }

    #[test]
    fn functions_of_this_server_go_over_loopback_whatever_host_the_migration_wrote() {
        let t = target();
        for url in [
            "/functions/v1/hook",
            "http://localhost:54321/functions/v1/hook",
            "http://127.0.0.1:4000/functions/v1/hook",
            "http://host.docker.internal:54321/functions/v1/hook",
            "http://kong:8000/functions/v1/hook",
            "http://supabase_kong_rental:8000/functions/v1/hook",
            "https://api.example.com/functions/v1/hook",
        ] {
            assert_eq!(t.resolve(url).expect(url).as_str(), "http://127.0.0.1:4000/functions/v1/hook", "{url}");
        }
        assert_eq!(
            t.resolve("http://kong:8000/functions/v1/hook/sub?a=1").expect("url").as_str(),
            "http://127.0.0.1:4000/functions/v1/hook/sub?a=1"
        );
    }

    #[test]
    fn other_urls_are_sent_as_written() {
        let t = target();
        for url in [
            "https://hooks.example.org/functions/v1/hook",
            "http://127.0.0.1:9999/functions/v1/hook",
            "http://localhost:54321/rest/v1/things",
            "https://api.example.com:8443/functions/v1/hook",
        ] {
            assert_eq!(t.resolve(url).expect(url).as_str(), url);
        }
        assert!(t.resolve("ftp://example.org/x").is_err());
        assert!(t.resolve("not a url").is_err());
    }

    #[test]
    fn header_and_query_values_are_text() {
        assert_eq!(text_of(&Value::String("a b".into())), "a b");
        assert_eq!(text_of(&serde_json::json!(5)), "5");
        assert_eq!(text_of(&serde_json::json!({"a": 1})), "{\"a\":1}");
    }
}
