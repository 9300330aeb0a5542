//! The dashboard's single-page app at `/studio`, embedded in the binary from `studio/dist` when
//! it was built (else a page saying to run `make studio`; see `build.rs`). Hashed files under
//! `/studio/assets/` are cached for a year; every other path under `/studio` that is not a file
//! is the app's `index.html` (a client route), never cached. Nothing here is shared with the
//! customer site at `/`: the dashboard's scripts are only ever sent under `/studio`.

use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use actix_web::middleware::Compress;
use actix_web::{web, HttpRequest, HttpResponse};
use include_dir::{include_dir, Dir};

static DIST: Dir<'static> = include_dir!("$STUDIO_DIST");

/// Which build is embedded (changes with every build of the app, so the crate is rebuilt).
pub const BUILD_STAMP: &str = env!("STUDIO_DIST_STAMP");

const IMMUTABLE: &str = "public, max-age=31536000, immutable";
const REVALIDATE: &str = "no-cache";

/// Mount `/studio` and everything under it (after `/studio/api`).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/studio")
            .wrap(Compress::default())
            .route("", web::get().to(serve))
            .route("/{tail:.*}", web::get().to(serve)),
    );
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" => "application/json",
        "woff2" => "font/woff2",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The answer for a path under `/studio` (without the prefix).
pub fn lookup(tail: &str) -> (u16, &'static str, &'static str, &'static [u8]) {
    let tail = tail.trim_start_matches('/');
    if !tail.is_empty() && !tail.split('/').any(|s| s == "..") {
        if let Some(file) = DIST.get_file(tail) {
            let cache = if tail.starts_with("assets/") { IMMUTABLE } else { REVALIDATE };
            return (200, content_type(tail), cache, file.contents());
        }
    }
    // A missing file is a 404; anything else is a route of the app.
    let last = tail.rsplit('/').next().unwrap_or("");
    if last.contains('.') {
        return (404, "text/plain; charset=utf-8", REVALIDATE, b"Not found");
    }
    let index = DIST.get_file("index.html").map(|f| f.contents()).unwrap_or(b"Studio is not built");
    (200, "text/html; charset=utf-8", REVALIDATE, index)
}

async fn serve(req: HttpRequest) -> HttpResponse {
    let tail = req.match_info().get("tail").unwrap_or("");
    let (status, kind, cache, body) = lookup(tail);
    let status = actix_web::http::StatusCode::from_u16(status).unwrap_or(actix_web::http::StatusCode::NOT_FOUND);
    HttpResponse::build(status)
        .insert_header((CONTENT_TYPE, kind))
        .insert_header((CACHE_CONTROL, cache))
        .insert_header(("X-Frame-Options", "DENY"))
        .insert_header(("Referrer-Policy", "same-origin"))
        .body(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_routes_get_the_page_and_missing_files_a_404() {
        let (status, kind, cache, body) = lookup("tables/public/vehicles");
        assert_eq!((status, kind, cache), (200, "text/html; charset=utf-8", REVALIDATE));
        assert!(!body.is_empty());
        assert_eq!(lookup("").0, 200);
        assert_eq!(lookup("assets/missing-abc.js").0, 404);
        assert_eq!(lookup("../Cargo.toml").0, 404);
    }
}
