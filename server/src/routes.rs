//! The URL map: which surface answers under which prefix, and which gate guards it.
//!
//! Only wiring lives here; each surface's handlers live in its own module.

use actix_web::middleware::from_fn;
use actix_web::web;

use crate::gate;

/// Mount every surface.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::scope("/rest/v1").wrap(from_fn(gate::middleware)).configure(crate::rest::configure));
    // Storage gates its own scope: public and signed-URL routes need no key.
    crate::storage::configure(cfg);
}
