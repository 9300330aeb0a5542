//! `/rest/v1`: the PostgREST-compatible API that supabase-js's query builder talks to.
//!
//! A request is parsed (`parse`), resolved against the schema cache (`schema`, `plan`), turned
//! into one SQL statement (`sql`) and run inside the caller's per-request transaction
//! (`execute`); Postgres builds the JSON body and row-level security decides what is seen.
//! Errors are `error::RestError`, shaped like PostgREST's.

pub mod db_config;
pub mod error;
mod execute;
mod handlers;
pub mod limits;
pub mod openapi;
pub mod parse;
mod payload;
pub mod plan;
mod reload;
mod request;
mod response;
mod rpc;
pub mod schema;
pub mod sql;
pub mod timing;

use std::sync::Arc;

use actix_web::web;
use deadpool_postgres::Pool;

use crate::config::RestConfig;
pub use reload::spawn_listener;
use schema::SchemaCacheHandle;

/// Shared state of the REST surface.
#[derive(Clone)]
pub struct RestState {
    pub config: Arc<RestConfig>,
    pub cache: SchemaCacheHandle,
    /// Owner pool, used to read the catalog.
    pub admin: Pool,
    /// Pool logged in as `authenticator`, where requests run.
    pub request: Pool,
    /// Read replicas (none unless `DATABASE_READ_URL` is set).
    pub replicas: Arc<crate::db::replicas::Replicas>,
    /// Connections shared among one-trip pipelines ([`crate::db::lanes`]), when configured.
    pub lanes: Option<Arc<crate::db::lanes::SharedConnections>>,
    /// Serialises reloads so a slow, older catalog read never replaces a newer one.
    reload_lock: Arc<tokio::sync::Mutex<()>>,
    /// The settings in force: the server's, with the database's `pgrst.*` ones where the server
    /// was given none ([`db_config`]).
    tunables: Arc<std::sync::RwLock<Arc<db_config::Tunables>>>,
    given: db_config::Given,
}

impl RestState {
    /// Load the schema cache once and build the state.
    pub async fn new(config: RestConfig, admin: Pool, request: Pool) -> Result<RestState, error::RestError> {
        let given = db_config::Given::of(&config, &|name| std::env::var_os(name).is_some());
        let tunables = Arc::new(std::sync::RwLock::new(Arc::new(db_config::Tunables::of(&config))));
        let state = RestState {
            tunables,
            given,
            config: Arc::new(config),
            cache: SchemaCacheHandle::default(),
            admin,
            request,
            replicas: Arc::new(crate::db::replicas::Replicas::none()),
            lanes: None,
            reload_lock: Arc::new(tokio::sync::Mutex::new(())),
        };
        state.reload_config().await;
        state.reload().await?;
        Ok(state)
    }

    /// The settings in force for a request (max rows, plans, aggregates, how transactions end).
    pub fn tunables(&self) -> Arc<db_config::Tunables> {
        match self.tunables.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Re-read the `pgrst.*` settings of the `authenticator` role (`reload config`); a failed
    /// read keeps the settings in force.
    pub async fn reload_config(&self) {
        let client = match self.admin.get().await {
            Ok(client) => client,
            Err(err) => return tracing::warn!(error = %err, "rest: cannot read the in-database configuration"),
        };
        let settings = match db_config::read(&client, crate::db::AUTHENTICATOR).await {
            Ok(settings) => settings,
            Err(err) => return tracing::warn!(error = %err, "rest: cannot read the in-database configuration"),
        };
        let (tunables, warnings) = db_config::merge(&db_config::Tunables::of(&self.config), self.given, &settings);
        for warning in warnings {
            tracing::warn!("rest: {warning}");
        }
        let tunables = Arc::new(tunables);
        if *self.tunables() != *tunables {
            tracing::info!(settings = ?tunables, "rest: in-database configuration applied");
        }
        match self.tunables.write() {
            Ok(mut guard) => *guard = tunables,
            Err(poisoned) => *poisoned.into_inner() = tunables,
        }
    }

    /// Send read-only requests to these replicas.
    pub fn with_replicas(mut self, replicas: Arc<crate::db::replicas::Replicas>) -> RestState {
        replicas.spawn_checks();
        self.replicas = replicas;
        self
    }

    /// Share these connections among one-trip pipelines.
    pub fn with_lanes(mut self, lanes: Option<Arc<crate::db::lanes::SharedConnections>>) -> RestState {
        self.lanes = lanes;
        self
    }

    /// The bounds on one request's size and complexity.
    pub fn limits(&self) -> limits::Limits {
        limits::Limits::from_config(&self.config)
    }

    /// Re-read the catalog and swap the cache in; requests in flight keep the old one.
    pub async fn reload(&self) -> Result<(), error::RestError> {
        let _serialised = self.reload_lock.lock().await;
        let client = self.admin.get().await.map_err(|e| error::RestError::internal(format!("schema cache: {e}")))?;
        let cache = schema::load(&client, &self.config.schemas)
            .await
            .map_err(|e| error::RestError::internal(format!("schema cache: {e}")))?;
        tracing::info!(tables = cache.tables.len(), functions = cache.functions.len(), "schema cache loaded");
        self.cache.replace(cache);
        Ok(())
    }
}

/// How the gate's refusals read on `/rest/v1`: PostgREST's errors, the gateway's own for keys.
static GUARD: crate::gate::Guard = crate::gate::Guard { refuse: gate_refusal, apikey_optional_when_configured: true };

fn gate_refusal(err: &crate::gate::GateError) -> actix_web::HttpResponse {
    match error::from_gate(err) {
        Some(rest) => actix_web::ResponseError::error_response(&rest),
        None => err.gateway_refusal(),
    }
}

/// Middleware: the gate, answering in PostgREST's shape.
pub async fn gate(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    crate::gate::check(req, next, &GUARD).await
}

/// Mount the REST routes (the gate is applied by the caller).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(openapi::root))
        .route("/", web::head().to(openapi::root))
        .route("/rpc/{name}", web::route().to(rpc::call))
        .route("/{table}", web::route().to(handlers::table))
        .default_service(web::to(|| async {
            Err::<actix_web::HttpResponse, _>(error::RestError::InvalidResourcePath)
        }));
}

/// Middleware: a successful write through `/rest/v1`, with replicas configured, sets the
/// read-your-writes cookie for the lag window, so the client's next reads go to the primary
/// whichever instance serves them.
pub async fn mark_writes(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    use actix_web::http::Method;
    let write = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let window = req
        .app_data::<web::Data<RestState>>()
        .filter(|state| !state.replicas.is_empty())
        .map(|state| state.replicas.max_lag);
    let mut res = next.call(req).await?;
    if let (true, Some(window)) = (write, window) {
        if res.status().is_success() {
            let cookie = actix_web::cookie::Cookie::build(crate::db::replicas::WROTE_COOKIE, "1")
                .path("/rest/v1")
                .http_only(true)
                .same_site(actix_web::cookie::SameSite::Lax)
                .max_age(actix_web::cookie::time::Duration::seconds(window.as_secs().max(1) as i64))
                .finish();
            let _ = res.response_mut().add_cookie(&cookie);
        }
    }
    Ok(res)
}
