//! `/storage/v1`: a Supabase-Storage-compatible object store for the unchanged storage-js client.
//!
//! Object and bucket rows live in the `storage` schema and are read and written as the caller's
//! role (RLS decides); bytes live in an `object_store` (local directory or S3) under per-version
//! keys. Routes: public downloads and signed-URL downloads and uploads need no key and are
//! registered before the gated ones; everything else sits behind `gate::middleware`. This
//! module only wires; the handlers live in the sub-modules named for what they do.

pub mod backend;
pub mod buckets;
pub mod config;
pub mod db;
pub mod download;
pub mod error;
pub mod key;
pub mod limits;
pub mod list_v2;
pub mod md5_hash;
pub mod object_body;
pub mod objects;
pub mod render;
pub mod s3;
pub mod sweep;
pub mod token;
pub mod tus;
pub mod upload;

use std::sync::Arc;

use actix_web::middleware::from_fn;
use actix_web::{guard, web};
use deadpool_postgres::Pool;
use object_store::ObjectStore;
use secrecy::SecretString;

use self::config::StorageConfig;

/// Shared state of the storage handlers.
pub struct StorageState {
    pub store: Arc<dyn ObjectStore>,
    /// The same store where it is a local directory (the `file` backend): uploads write its files.
    pub local: Option<Arc<object_store::local::LocalFileSystem>>,
    /// Pool of the caller's transactions (logged in as `authenticator`).
    pub request: Pool,
    /// Owner pool: bucket settings, public and signed reads.
    pub admin: Pool,
    /// Secret signing URL tokens (the JWT secret).
    pub secret: SecretString,
    /// The anon key: the secret of S3 requests signed with a session token (as Supabase has it).
    pub anon_key: SecretString,
    pub config: StorageConfig,
    /// REST's catalog snapshot, for the settings each role gets in its requests.
    pub roles: crate::rest::schema::SchemaCacheHandle,
    /// Bytes downloaded, by the way they were sent (`/metrics`).
    pub downloads: Arc<object_body::DownloadBytes>,
}

/// Mount `/storage/v1` (called by `routes::configure`).
pub fn configure(cfg: &mut web::ServiceConfig) {
    let read = || guard::Any(guard::Get()).or(guard::Head());
    cfg.service(
        web::scope("/storage/v1")
            // No key: an <img src> sends neither apikey nor Authorization.
            .service(web::resource("/object/public/{tail:.*}").guard(read()).route(web::route().to(download::public)))
            .service(web::resource("/object/sign/{tail:.*}").guard(read()).route(web::route().to(download::signed)))
            // S3 clients sign their requests (SigV4) instead of sending an apikey.
            .service(web::resource("/s3").route(web::route().to(s3::dispatch)))
            .service(web::resource("/s3/{tail:.*}").route(web::route().to(s3::dispatch)))
            .service(
                web::resource("/render/image/public/{tail:.*}").guard(read()).route(web::route().to(render::public)),
            )
            .service(web::resource("/render/image/sign/{tail:.*}").guard(read()).route(web::route().to(render::signed)))
            .service(
                web::resource("/object/upload/sign/{tail:.*}")
                    .guard(guard::Put())
                    .route(web::route().to(upload::signed_put)),
            )
            .service(web::scope("").wrap(from_fn(gate)).configure(gated)),
    );
}

/// How the gate's refusals read on `/storage/v1`.
static GUARD: crate::gate::Guard =
    crate::gate::Guard { refuse: error::gate_refusal, apikey_optional_when_configured: false };

/// Middleware: the gate, answering in storage-api's shape.
async fn gate(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    crate::gate::check(req, next, &GUARD).await
}

/// A method or path no route serves: storage-api's (Fastify's) 404 in the storage shape.
async fn route_not_found(req: actix_web::HttpRequest) -> Result<actix_web::HttpResponse, error::StorageError> {
    Err(error::StorageError::RouteNotFound(format!("{}:{}", req.method(), req.path())))
}

/// A resource whose other methods get [`route_not_found`] rather than an empty 405.
fn resource(path: &str) -> actix_web::Resource {
    web::resource(path).default_service(web::to(route_not_found))
}

/// The routes behind the gate. Public so the dashboard can mount the same handlers for its
/// operators (`studio::storage`, under `key::MOUNTS`), with the service role set by its own check.
pub fn gated(cfg: &mut web::ServiceConfig) {
    cfg.service(resource("/bucket").route(web::get().to(buckets::list)).route(web::post().to(buckets::create)))
        .service(resource("/bucket/{id}/empty").route(web::post().to(buckets::empty)))
        .service(
            resource("/bucket/{id}")
                .route(web::get().to(buckets::get))
                .route(web::put().to(buckets::update))
                .route(web::delete().to(buckets::delete)),
        )
        .service(resource("/object/list/{bucket}").route(web::post().to(objects::list)))
        .service(resource("/object/list-v2/{bucket}").route(web::post().to(list_v2::list_v2)))
        .service(resource("/render/image/authenticated/{tail:.*}").route(web::get().to(render::authenticated)))
        .service(
            resource("/upload/resumable")
                .route(web::post().to(tus::create))
                .route(web::method(actix_web::http::Method::OPTIONS).to(tus::options)),
        )
        .service(
            resource("/upload/resumable/{id}")
                .route(web::head().to(tus::head))
                .route(web::patch().to(tus::patch))
                .route(web::delete().to(tus::delete))
                .route(web::method(actix_web::http::Method::OPTIONS).to(tus::options)),
        )
        .service(resource("/object/move").route(web::post().to(objects::move_object)))
        .service(resource("/object/copy").route(web::post().to(objects::copy_object)))
        .service(resource("/object/sign/{tail:.*}").route(web::post().to(objects::sign)))
        .service(resource("/object/upload/sign/{tail:.*}").route(web::post().to(upload::sign)))
        .service(resource("/object/info/{tail:.*}").route(web::get().to(download::info)))
        .service(
            resource("/object/authenticated/{tail:.*}")
                .route(web::get().to(download::authenticated))
                .route(web::head().to(download::authenticated)),
        )
        .service(
            resource("/object/{tail:.*}")
                .route(web::get().to(download::object))
                .route(web::head().to(download::object))
                .route(web::post().to(upload::create))
                .route(web::put().to(upload::update))
                .route(web::delete().to(objects::remove)),
        )
        .default_service(web::to(route_not_found));
}
