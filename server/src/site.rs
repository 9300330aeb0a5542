//! The built web app at `/`: static files from `WEB_DIR` (pages rendered at build time are
//! `<path>/index.html`) with a fallback to `shell.html` (else `index.html`) for other client-side
//! routes, and `/config.json` telling the app where the API is and its anon key
//! (a public key). Mounted last, so it never shadows an API route. When the build lists the
//! paths the app answers (`routes.json`: `/fleet/:id`, `/admin/*`, ...), any other path gets the
//! same page (the app shows « Page introuvable ») with the status 404.
//!
//! Files are compressed (gzip, brotli or zstd, as the browser accepts) and cached: the
//! content-hashed build output under `/assets/` for a year, everything else (`index.html`,
//! client routes) revalidated on each visit so a new deployment is picked up at once. The API
//! surfaces are not compressed here: they keep the byte-for-byte answers of the services they mimic.

use std::path::PathBuf;

use actix_files::{Files, NamedFile};
use actix_web::body::MessageBody;
use actix_web::dev::{fn_service, ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderValue, CACHE_CONTROL};
use actix_web::middleware::{from_fn, Compress, Next};
use actix_web::{web, HttpResponse};
use secrecy::ExposeSecret;
use serde_json::json;

use crate::state::AppState;

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
    // A build with pages rendered ahead keeps the empty page apart for the other client routes.
    let shell = web_dir.join("shell.html");
    let fallback = if shell.exists() { shell } else { index };
    let routes = std::sync::Arc::new(RoutePatterns::load(&web_dir.join("routes.json")));
    let root = web_dir.to_path_buf();
    let files = Files::new("/", web_dir).index_file("index.html").prefer_utf8(true).default_handler(fn_service(
        move |req: ServiceRequest| {
            let index = fallback.clone();
            let routes = routes.clone();
            let root = root.clone();
            async move {
                let (req, _) = req.into_parts();
                // Unknown paths that look like files are real 404s; others are client routes.
                let last = req.path().rsplit('/').next().unwrap_or("");
                if last.contains('.') {
                    return Ok(ServiceResponse::new(req, HttpResponse::NotFound().finish()));
                }
                let found = routes.find(req.path());
                // a page with a parameter rendered ahead in its loading state (`fleet/_id/index.html`)
                let page = match &found {
                    Some(Some(pattern)) => {
                        Some(root.join(pattern_dir(pattern)).join("index.html")).filter(|p| p.is_file())
                    }
                    _ => None,
                };
                let file = NamedFile::open_async(page.as_ref().unwrap_or(&index)).await?;
                let mut res = file.into_response(&req);
                if found.is_none() {
                    *res.status_mut() = actix_web::http::StatusCode::NOT_FOUND;
                }
                Ok(ServiceResponse::new(req, res))
            }
        },
    ));
    cfg.service(web::scope("").wrap(from_fn(cache_policy)).wrap(Compress::default()).service(files));
}

/// The paths the app answers, from the build's `routes.json`; without it, every path.
#[derive(Debug, Default)]
struct RoutePatterns(Option<Vec<(String, Vec<String>)>>);

impl RoutePatterns {
    fn load(file: &std::path::Path) -> RoutePatterns {
        let parsed = std::fs::read(file).ok().and_then(|bytes| serde_json::from_slice::<Vec<String>>(&bytes).ok());
        RoutePatterns(parsed.map(|list| {
            list.into_iter()
                .map(|p| {
                    let parts = segments(&p);
                    (p, parts)
                })
                .collect()
        }))
    }

    /// The pattern that answers `path` (`Some(None)` without a list), `None` when none does: a
    /// `:name` segment takes one segment, a final `*` the rest. Exact patterns win over those
    /// with parameters.
    fn find(&self, path: &str) -> Option<Option<&str>> {
        let Some(patterns) = &self.0 else {
            return Some(None);
        };
        let parts = segments(path);
        let matches = |pattern: &[String]| {
            let mut i = 0;
            for segment in pattern {
                if segment == "*" {
                    return true;
                }
                match parts.get(i) {
                    Some(part) if segment.starts_with(':') || part == segment => i += 1,
                    _ => return false,
                }
            }
            i == parts.len()
        };
        let mut found: Vec<&(String, Vec<String>)> = patterns.iter().filter(|(_, p)| matches(p)).collect();
        found.sort_by_key(|(p, _)| p.contains(':') || p.contains('*'));
        found.first().map(|(p, _)| Some(p.as_str()))
    }
}

fn segments(path: &str) -> Vec<String> {
    path.split('/').filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// Where the build writes a pattern's page: `/fleet/:id` in `fleet/_id`. Only names made of
/// letters, digits, `_` and `-` are used (a pattern is never a way out of the directory).
fn pattern_dir(pattern: &str) -> String {
    segments(pattern)
        .iter()
        .map(|s| s.strip_prefix(':').map(|name| format!("_{name}")).unwrap_or_else(|| s.clone()))
        .filter(|s| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .collect::<Vec<_>>()
        .join("/")
}

/// Vite names everything under `assets/` by its content hash: those never change.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Everything else is revalidated (ETag / Last-Modified) on each visit.
const REVALIDATE: &str = "no-cache";

/// Sets `Cache-Control` on successful site answers.
async fn cache_policy(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let immutable = req.path().starts_with("/assets/");
    let mut res = next.call(req).await?;
    if res.status().is_success() || res.status().as_u16() == 304 {
        let value = if immutable { IMMUTABLE } else { REVALIDATE };
        res.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static(value));
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patterns(list: &[&str]) -> RoutePatterns {
        RoutePatterns(Some(list.iter().map(|p| (p.to_string(), segments(p))).collect()))
    }

    #[test]
    fn known_paths_are_answered_and_others_are_not() {
        let routes = patterns(&["/", "/fleet", "/fleet/:id", "/admin/*", "/profile/receipts/:kind/:id"]);
        for ok in ["/", "/fleet", "/fleet/", "/fleet/5eed", "/admin", "/admin/x/y", "/profile/receipts/vehicle/abc"] {
            assert!(routes.find(ok).is_some(), "{ok}");
        }
        for missing in ["/page-inconnue", "/fleet/a/b", "/profile/receipts/vehicle", "/flee"] {
            assert!(routes.find(missing).is_none(), "{missing}");
        }
        assert_eq!(routes.find("/fleet"), Some(Some("/fleet")), "the exact pattern wins");
        assert_eq!(routes.find("/fleet/5eed"), Some(Some("/fleet/:id")));
    }

    #[test]
    fn without_a_list_every_path_is_answered() {
        assert_eq!(RoutePatterns::default().find("/anything"), Some(None));
        assert!(RoutePatterns::load(std::path::Path::new("/nonexistent/routes.json")).find("/x").is_some());
    }

    #[test]
    fn a_pattern_names_its_page_directory() {
        assert_eq!(pattern_dir("/fleet/:id"), "fleet/_id");
        assert_eq!(pattern_dir("/profile/receipts/:kind/:id"), "profile/receipts/_kind/_id");
        assert_eq!(pattern_dir("/../:x"), "_x");
    }
}
