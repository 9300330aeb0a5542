//! `GET /metrics`: the Prometheus text format, for a scraper holding `METRICS_TOKEN`
//! (Prometheus' `authorization` scrape setting), 404 while metrics are off. What is read when
//! scraped (pool usage, replicas, realtime sockets and channels, the outbox's depth, download
//! bytes, the embedded cluster's state) comes from each surface's state, which is why this sits
//! on top of the surfaces rather than in the shared `metrics` module.

use std::sync::atomic::Ordering;

use actix_web::{web, HttpRequest, HttpResponse};
use secrecy::ExposeSecret;
use serde_json::json;

use crate::db::cached::CachedQueries;
use crate::metrics::pool_gauges;
use crate::state::AppState;

/// The outbox's unsent messages: (waiting to be sent, given up), none when the database does not answer.
async fn outbox_depth(pool: &deadpool_postgres::Pool) -> Option<(i64, i64)> {
    let client = pool.get().await.ok()?;
    let row = client
        .cached_query_one(
            "select count(*) filter (where failed_at is null), count(*) filter (where failed_at is not null) \
             from outbox.messages where sent_at is null",
            &[],
        )
        .await
        .ok()?;
    Some((row.get(0), row.get(1)))
}

/// `GET /metrics`: the Prometheus text format, for a scraper holding the token.
pub async fn metrics(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let not_found = || HttpResponse::NotFound().json(json!({"message": "Not found"}));
    let Some(token) = state.config.metrics_token.as_ref() else { return not_found() };
    let presented = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if !constant_time_eq(presented.as_bytes(), token.expose_secret().as_bytes()) {
        return HttpResponse::Unauthorized()
            .insert_header(("WWW-Authenticate", "Bearer"))
            .json(json!({"message": "Invalid metrics token"}));
    }
    pool_gauges("admin", &state.pools.admin);
    pool_gauges("request", &state.pools.request);
    for (label, in_rotation, pool) in state.rest.replicas.members() {
        pool_gauges(format!("replica {label}"), pool);
        metrics::gauge!("db_replica_in_rotation", "replica" => label.to_string()).set(if in_rotation {
            1.0
        } else {
            0.0
        });
    }
    metrics::gauge!("realtime_connections").set(state.realtime.connections.load(Ordering::Relaxed) as f64);
    metrics::gauge!("realtime_channels").set(state.realtime.hub.channel_count() as f64);
    if let Some((pending, failed)) = outbox_depth(&state.pools.admin).await {
        metrics::gauge!("outbox_messages", "status" => "pending").set(pending as f64);
        metrics::gauge!("outbox_messages", "status" => "failed").set(failed as f64);
    }
    let downloads = &state.storage.downloads;
    metrics::counter!("storage_download_bytes_total", "via" => "sendfile")
        .absolute(downloads.sendfile.load(Ordering::Relaxed));
    metrics::counter!("storage_download_bytes_total", "via" => "streamed")
        .absolute(downloads.streamed.load(Ordering::Relaxed));
    if let Some(workers) = state.functions.workers_alive().await {
        metrics::gauge!("functions_workers").set(workers as f64);
    }
    if let Some(up) = state.embedded_running() {
        metrics::gauge!("embedded_postgres_up").set(if up { 1.0 } else { 0.0 });
    }
    crate::backup::status::publish();
    let Some(text) = crate::metrics::render() else { return not_found() };
    HttpResponse::Ok().content_type("text/plain; version=0.0.4; charset=utf-8").body(text)
}

/// Compare two secrets in time that does not depend on where they differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    bool::from(a.ct_eq(b))
}
