//! `GET /health` and `GET /health/ready`: whether each connection pool can get a connection and
//! run `select 1`, with the pools' sizes and waiters, and the embedded cluster's state.
//!
//! `/health` always describes (200 when everything answers, 503 otherwise); `/health/ready` is
//! the short answer a load balancer wants (200 `ready` or 503 `not ready`). A pool that cannot
//! hand out a connection within `WAIT` is reported `exhausted`: the requests waiting on it
//! would wait too. The checks borrow a connection each and do nothing else. The Edge Functions
//! runtime's state is told (`running`, `starting`, or null without functions) but does not make
//! the server unavailable: only its functions are. So are the backups (`backups`: the last
//! success's age, the archive's lag, the last verification; null when this process takes
//! none): a stale backup fails readiness only when `BACKUP_READY_MAX_AGE_SECONDS` is set.

use crate::db::cached::CachedQueries;
use std::time::Duration;

use actix_web::{web, HttpResponse};
use deadpool_postgres::Pool;
use serde_json::{json, Value};

use crate::state::AppState;

/// How long a check waits for a pooled connection, then for `select 1`.
const WAIT: Duration = Duration::from_secs(2);

/// The state of one pool.
async fn check(pool: &Pool) -> (bool, Value) {
    let status = pool.status();
    let state = match tokio::time::timeout(WAIT, pool.get()).await {
        Err(_) => "exhausted",
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "health check: no database connection");
            "unreachable"
        }
        Ok(Ok(client)) => match tokio::time::timeout(WAIT, client.cached_query_one("select 1", &[])).await {
            Ok(Ok(_)) => "ok",
            Ok(Err(_)) => "unreachable",
            Err(_) => "timeout",
        },
    };
    let body = json!({
        "state": state,
        "size": status.size,
        "max_size": status.max_size,
        "available": status.available,
        "waiting": status.waiting,
    });
    (state == "ok", body)
}

/// Both pools, checked at once.
async fn report(state: &AppState) -> (bool, Value) {
    let ((admin_ok, admin), (request_ok, request)) =
        tokio::join!(check(&state.pools.admin), check(&state.pools.request));
    let ok = admin_ok && request_ok;
    let database = if ok {
        "reachable"
    } else if [&admin, &request].iter().any(|p| p["state"] == "unreachable") {
        "unreachable"
    } else {
        "busy"
    };
    let embedded = match state.embedded_running() {
        Some(true) => json!("running"),
        Some(false) => json!("stopped"),
        None => Value::Null,
    };
    let functions = state.functions.health_word().map_or(Value::Null, |w| json!(w));
    let body = json!({
        "status": if ok { "ok" } else { "unavailable" },
        "database": database,
        "pools": {"admin": admin, "request": request},
        "embedded_cluster": embedded,
        "functions": functions,
        "backups": backups(state).0,
    });
    (ok, body)
}

/// The backups' state, and whether it is stale for readiness.
fn backups(state: &AppState) -> (Value, bool) {
    match crate::backup::status::summary(chrono::Utc::now().timestamp()) {
        Some(summary) => {
            let stale = crate::backup::status::stale(&summary, state.config.backup.ready_max_age_secs);
            let mut value = serde_json::to_value(&summary).unwrap_or(Value::Null);
            value["stale"] = json!(stale);
            (value, stale)
        }
        None => (Value::Null, false),
    }
}

/// `GET /health`: every check, 200 or 503.
pub async fn health(state: web::Data<AppState>) -> HttpResponse {
    let (ok, mut body) = report(&state).await;
    if ok {
        return HttpResponse::Ok().json(body);
    }
    body["message"] = json!(match body["database"].as_str() {
        Some("unreachable") => "The database cannot be reached",
        _ => "The database connections are all in use",
    });
    HttpResponse::ServiceUnavailable().insert_header(("Retry-After", "5")).json(body)
}

/// `GET /health/ready`: 200 `ready` when every pool answers (and the last backup is recent
/// enough, when a maximum age is set), else 503. The backups' state is told either way.
pub async fn ready(state: web::Data<AppState>) -> HttpResponse {
    let (ok, body) = report(&state).await;
    let (backups, stale) = backups(&state);
    let mut answer = if ok && !stale {
        json!({"status": "ready"})
    } else {
        json!({"status": "not ready", "database": body["database"]})
    };
    // Told only by a server that takes backups: the short answer stays as it was otherwise.
    if !backups.is_null() {
        answer["backups"] = backups;
    }
    if ok && !stale {
        return HttpResponse::Ok().json(answer);
    }
    if stale {
        answer["message"] = json!("The last backup is older than BACKUP_READY_MAX_AGE_SECONDS");
    }
    HttpResponse::ServiceUnavailable().insert_header(("Retry-After", "5")).json(answer)
}
