//! Invoking a function from the dashboard: the studio backend itself sends the request to
//! `/functions/v1/<slug>` on this instance's own listener (so it takes the path any client's
//! request takes: JWT check, limits, metrics, logs), with the publishable key and, as the
//! operator chose, a short-lived token of an app user or of anon (`tokens`), or no token at all.
//! The browser never holds a key for it. The answer (status, headers, body up to
//! [`SHOWN_BYTES`]) is returned to the screen; the invocation is audited with its status. Also
//! here: the invocation counts read from the server's Prometheus metrics.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use actix_web::{web, HttpRequest, HttpResponse};
use secrecy::ExposeSecret;
use serde::Deserialize;
use serde_json::json;

use super::audit;
use super::error::StudioError;
use super::session::OperatorSession;
use super::tokens::{self, Caller};
use crate::state::AppState;

/// The largest answer body shown (the rest is cut, and said so).
pub const SHOWN_BYTES: usize = 256 * 1024;

/// Headers the operator may not set: the request's own framing and the credentials this
/// module sets.
const RESERVED: &[&str] = &["host", "content-length", "transfer-encoding", "connection", "authorization", "apikey"];

/// Who the invocation is made as.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum InvokeAs {
    /// `"none"`: the publishable key only, no token (a function with `verify_jwt` refuses it).
    Keyword(Keyword),
    Caller(Caller),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Keyword {
    None,
}

#[derive(Deserialize)]
pub struct InvokeBody {
    #[serde(default = "post")]
    method: String,
    /// After the function's name: `/sub/path?query` (empty by default).
    #[serde(default)]
    path: String,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    body: Option<String>,
    run_as: InvokeAs,
}

fn post() -> String {
    "POST".into()
}

/// The request's method, checked.
pub fn method_of(text: &str) -> Result<reqwest::Method, StudioError> {
    match text.to_ascii_uppercase().as_str() {
        m @ ("GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS" | "HEAD") => {
            reqwest::Method::from_bytes(m.as_bytes()).map_err(|_| StudioError::BadRequest("Unknown method".into()))
        }
        other => Err(StudioError::BadRequest(format!("Method {other} is not offered"))),
    }
}

/// The sub-path, checked: empty, or starting with `/` or `?`, without spaces or a fragment.
pub fn sub_path(path: &str) -> Result<&str, StudioError> {
    let ok = path.is_empty()
        || ((path.starts_with('/') || path.starts_with('?'))
            && !path.contains("..")
            && path.bytes().all(|b| b.is_ascii_graphic() && b != b'#'));
    ok.then_some(path)
        .ok_or_else(|| StudioError::BadRequest("The path must start with / or ? and hold no spaces".into()))
}

/// `POST /studio/api/functions/{slug}/invoke` `{method, path, headers, body, run_as}`:
/// `{status, headers, body, truncated, duration_ms}`.
pub async fn invoke(
    req: HttpRequest,
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    slug: web::Path<String>,
    body: web::Json<InvokeBody>,
) -> Result<HttpResponse, StudioError> {
    let body = body.into_inner();
    if !crate::functions::registry::valid_name(&slug) || state.functions.find(&slug).is_none() {
        return Err(StudioError::NotFound("No such function".into()));
    }
    let method = method_of(&body.method)?;
    let path = sub_path(&body.path)?;
    let mut addr = req.app_config().local_addr();
    if addr.ip().is_unspecified() {
        addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
    }
    let url = format!("http://{addr}/functions/v1/{slug}{path}");
    let mut request = state
        .functions
        .http
        .request(method.clone(), url)
        .timeout(Duration::from_secs(state.functions.config.wall_clock_secs + 10))
        .header("apikey", state.keys.api_keys.publishable.expose_secret());
    for (name, value) in &body.headers {
        let lower = name.trim().to_ascii_lowercase();
        if lower.is_empty() || RESERVED.contains(&lower.as_str()) {
            continue;
        }
        request = request.header(name.trim(), value);
    }
    let run_as = match &body.run_as {
        InvokeAs::Keyword(Keyword::None) => "none".to_string(),
        InvokeAs::Caller(caller) => {
            let minted = tokens::mint(&state, caller).await?;
            request = request.bearer_auth(&minted.token);
            minted.subject()
        }
    };
    if let Some(text) = body.body {
        request = request.body(text);
    }
    let started = Instant::now();
    let answer =
        request.send().await.map_err(|err| StudioError::BadRequest(format!("The function did not answer: {err}")))?;
    let status = answer.status().as_u16();
    let headers: BTreeMap<String, String> = answer
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect();
    let bytes = answer.bytes().await.map_err(|err| StudioError::BadRequest(format!("The answer broke off: {err}")))?;
    let duration_ms = started.elapsed().as_millis() as u64;
    let truncated = bytes.len() > SHOWN_BYTES;
    let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN_BYTES)]).into_owned();
    let client = state.pools.admin.get().await?;
    let detail = json!({"method": method.as_str(), "path": path, "as": run_as, "status": status});
    audit::record(&client, &op, "function.invoke", Some(&slug), detail).await?;
    Ok(HttpResponse::Ok().json(json!({
        "status": status, "headers": headers, "body": shown, "truncated": truncated,
        "bytes": bytes.len(), "duration_ms": duration_ms,
    })))
}

/// Per function, `(calls, calls answered 5xx)` from the Prometheus text of `functions_invocations_total`.
pub fn invocations(text: &str) -> HashMap<String, (u64, u64)> {
    let mut counts: HashMap<String, (u64, u64)> = HashMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("functions_invocations_total{") else { continue };
        let Some((labels, value)) = rest.rsplit_once('}') else { continue };
        let Ok(value) = value.trim().parse::<f64>() else { continue };
        let label = |name: &str| {
            labels.split(',').find_map(|pair| {
                let (k, v) = pair.split_once('=')?;
                (k.trim() == name).then(|| v.trim().trim_matches('"').to_string())
            })
        };
        let (Some(function), Some(status)) = (label("function"), label("status")) else { continue };
        let entry = counts.entry(function).or_default();
        entry.0 += value as u64;
        if status.starts_with('5') {
            entry.1 += value as u64;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invocation_counts_are_read_from_the_metrics_text() {
        let text = "# HELP functions_invocations_total Calls\n\
            functions_invocations_total{function=\"hello\",status=\"200\"} 3\n\
            functions_invocations_total{function=\"hello\",status=\"500\"} 1\n\
            functions_invocations_total{function=\"other\",status=\"401\"} 2\n\
            functions_invocation_duration_seconds_count{function=\"hello\"} 4\n";
        let counts = invocations(text);
        assert_eq!(counts.get("hello"), Some(&(4, 1)));
        assert_eq!(counts.get("other"), Some(&(2, 0)));
        assert_eq!(counts.len(), 2);
    }

    #[test]
    fn only_plain_methods_and_paths_are_sent() {
        assert_eq!(method_of("post").ok(), Some(reqwest::Method::POST));
        assert!(method_of("TRACE").is_err());
        assert!(method_of("GET\r\nX: y").is_err());
        assert!(sub_path("").is_ok());
        assert!(sub_path("/a/b?x=1").is_ok());
        assert!(sub_path("?x=1").is_ok());
        assert!(sub_path("a").is_err());
        assert!(sub_path("/a b").is_err());
        assert!(sub_path("/../admin").is_err());
    }

    #[test]
    fn run_as_reads_none_anon_or_a_user() {
        assert_eq!(serde_json::from_str::<InvokeAs>(r#""none""#).ok(), Some(InvokeAs::Keyword(Keyword::None)));
        assert_eq!(serde_json::from_str::<InvokeAs>(r#""anon""#).ok(), Some(InvokeAs::Caller(Caller::Anon)));
        assert!(serde_json::from_str::<InvokeAs>(r#""service_role""#).is_err());
    }
}
