//! `GET /health`: 200 when the database answers, 503 with a clear message when it does not.
//!
//! The check borrows a request-pool connection and runs `select 1`; it does nothing else.

use actix_web::{web, HttpResponse};
use serde_json::json;

use crate::startup::AppState;

/// Answer the health check.
pub async fn health(state: web::Data<AppState>) -> HttpResponse {
    let check = async {
        let client = state.pools.admin.get().await.map_err(|e| e.to_string())?;
        client.query_one("select 1", &[]).await.map_err(|e| e.to_string())?;
        Ok::<_, String>(())
    };
    match tokio::time::timeout(std::time::Duration::from_secs(5), check).await {
        Ok(Ok(())) => HttpResponse::Ok().json(json!({"status": "ok", "database": "reachable"})),
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "health check: database unreachable");
            HttpResponse::ServiceUnavailable().json(json!({"status": "unavailable", "database": "unreachable", "message": "The database cannot be reached"}))
        }
        Err(_) => HttpResponse::ServiceUnavailable().json(json!({"status": "unavailable", "database": "timeout", "message": "The database did not answer within 5 seconds"})),
    }
}
