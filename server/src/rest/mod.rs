//! `/rest/v1`: the PostgREST-compatible API.

use actix_web::{web, HttpResponse};

/// Mount the REST routes.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.default_service(web::to(|| async { HttpResponse::NotFound().json(serde_json::json!({"code": "PGRST125", "details": null, "hint": null, "message": "Invalid path specified in request URL"})) }));
}
