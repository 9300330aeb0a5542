//! The built web app at `/`: static files from `WEB_DIR` with a fallback to `index.html` for
//! client-side routes, and `/config.json` telling the app where the API is and its anon key
//! (a public key). Mounted last, so it never shadows an API route.

use std::path::PathBuf;

use actix_files::{Files, NamedFile};
use actix_web::dev::{fn_service, ServiceRequest, ServiceResponse};
use actix_web::{web, HttpResponse};
use secrecy::ExposeSecret;
use serde_json::json;

use crate::startup::AppState;

/// `GET /config.json`.
async fn config(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-cache"))
        .json(json!({"supabaseUrl": state.external_url, "anonKey": state.keys.anon_key.expose_secret()}))
}

/// Mount the site when `web_dir` holds a build (an `index.html`).
pub fn configure(cfg: &mut web::ServiceConfig, web_dir: &std::path::Path) {
    cfg.route("/config.json", web::get().to(config));
    let index: PathBuf = web_dir.join("index.html");
    if !index.exists() {
        return;
    }
    let fallback = index.clone();
    cfg.service(Files::new("/", web_dir).index_file("index.html").prefer_utf8(true).default_handler(fn_service(
        move |req: ServiceRequest| {
            let index = fallback.clone();
            async move {
                let (req, _) = req.into_parts();
                // Unknown paths that look like files are real 404s; others are client routes.
                let last = req.path().rsplit('/').next().unwrap_or("");
                if last.contains('.') {
                    return Ok(ServiceResponse::new(req, HttpResponse::NotFound().finish()));
                }
                let file = NamedFile::open_async(&index).await?;
                let res = file.into_response(&req);
                Ok(ServiceResponse::new(req, res))
            }
        },
    )));
}
