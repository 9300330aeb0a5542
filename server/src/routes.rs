//! The URL map: which surface answers under which prefix, and which gate guards it.
//!
//! Only wiring lives here; each surface's handlers live in its own module.

use actix_web::middleware::from_fn;
use actix_web::web;

/// Mount every surface, then the web app (`web_dir`) at `/`.
pub fn configure(cfg: &mut web::ServiceConfig, web_dir: &std::path::Path) {
    // GoTrue endpoints authenticate their Bearer token themselves: no API-key gate here.
    cfg.service(
        web::scope("/auth/v1")
            .wrap(from_fn(crate::auth::error::api_version_middleware))
            .configure(crate::auth::configure),
    );
    // The development inbox (answers 404 when SMTP is configured).
    cfg.configure(crate::auth::mail::inbox::configure);
    cfg.service(
        web::scope("/rest/v1")
            .wrap(from_fn(crate::rest::mark_writes))
            .wrap(from_fn(crate::rest::gate))
            .configure(crate::rest::configure),
    );
    // Storage gates its own scope: public and signed-URL routes need no key.
    crate::storage::configure(cfg);
    // Realtime checks its own keys: a refused upgrade answers in Realtime's shape.
    cfg.configure(crate::realtime::configure);
    // Functions check their own JWT (per function, `verify_jwt`), in the edge runtime's shape.
    cfg.configure(crate::functions::configure);
    // The operator's dashboard and its API: its own session cookie, no API key.
    cfg.configure(crate::studio::configure);
    crate::site::configure(cfg, web_dir);
}
