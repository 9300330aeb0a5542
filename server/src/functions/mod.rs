//! `/functions/v1`: Supabase Edge Functions, TypeScript run by a supervised Deno child.
//!
//! The server owns the decisions (which function a URL names, JWT checks, body and time limits,
//! supervision; `registry`, `proxy`, `runtime`); Deno owns running user code, each function in
//! its own worker (`server/functions-runtime/router.ts`). The two speak HTTP with a per-start
//! secret, over loopback, and a function's warm requests over its worker's Unix socket in the lane
//! folder (`lane_root`, `direct`): docs/functions.md. Functions come from the project's folder and from
//! deploys kept in Postgres (`store`, `catalog`; a deployed function wins over a folder's of the
//! same name), managed over HTTP (`manage`) and from the command line (`cli`). Deno is started
//! when first needed: at the first `/functions/v1` request, or once a function is deployed.
//!
//! This surface imports the shared parts only (`db`, `jwt`, `keys`, `project` for `config.toml`).

pub mod catalog;
pub mod cli;
pub mod config;
pub mod direct;
pub mod env;
pub mod error;
pub mod eszip;
pub mod lane_root;
pub mod logs;
pub mod manage;
pub mod permissions;
pub mod proxy;
pub mod registry;
pub mod runtime;
pub mod scaffold;
pub mod schedule;
pub mod seal;
pub mod stamps;
pub mod store;
pub mod upload;
pub mod websocket;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use actix_web::web;
use secrecy::SecretString;

pub use config::FunctionsConfig;
pub use error::FunctionsError;
use registry::Registry;
use runtime::Runtime;

/// State of the functions surface.
pub struct FunctionsState {
    pub registry: Registry,
    /// Started at the first request to a function, or at the first deployed function.
    runtime: OnceLock<Arc<Runtime>>,
    /// How the runtime is started.
    launch: runtime::Launch,
    /// The deployed functions and secrets (`None` without a database: unit tests).
    pub catalog: Option<Arc<catalog::Catalog>>,
    /// The database of the deploys, secrets and logs.
    pub pool: Option<deadpool_postgres::Pool>,
    pub verifier: Arc<crate::jwt::JwtVerifier>,
    pub config: FunctionsConfig,
    /// The lanes' sockets folder, removed when this state is dropped.
    _lane_root: Option<lane_root::LaneRoot>,
    /// A client to the runtime and to this server, on loopback only: no proxy from the
    /// environment applies (`HTTP_PROXY` would otherwise carry a function's requests away).
    pub http: reqwest::Client,
    /// The Management API access token (`manage::access_token`).
    pub access_token: SecretString,
    /// The folders beside a function's own that it may not read (`permissions`).
    pub guarded: permissions::Guarded,
    /// The router port and secrets version last sent to the router (`proxy::push_secrets`).
    pub(crate) secrets_sent: Mutex<Option<(u16, String)>>,
    /// `config.toml`'s `[edge_runtime]`: functions served at all, and the request policy.
    pub edge_runtime: crate::project::config::EdgeRuntimeSettings,
    /// Counts requests under the `oneshot` policy, each its own version (a fresh worker).
    pub(crate) oneshots: std::sync::atomic::AtomicU64,
    /// Where warm requests go without the supervisor (`direct`).
    pub(crate) direct: direct::Routes,
}

impl FunctionsState {
    /// The runtime, if started.
    pub fn runtime(&self) -> Option<&Arc<Runtime>> {
        self.runtime.get()
    }

    /// The runtime, started now if it was not (a function was called or deployed).
    pub fn ensure_runtime(&self) -> &Arc<Runtime> {
        self.runtime.get_or_init(|| {
            tracing::info!("functions: starting the runtime");
            Runtime::spawn(self.launch.clone())
        })
    }

    /// The runtime's state in `/health`'s words: `running`, `starting`, `down`, `stopped`;
    /// `idle` when there are functions but none has been called yet (Deno not started); `None`
    /// when there are none (no folder, nothing deployed).
    pub fn health_word(&self) -> Option<&'static str> {
        if !self.edge_runtime.enabled {
            return None;
        }
        let Some(runtime) = self.runtime() else {
            let deployed = self.catalog.as_ref().is_some_and(|c| !c.is_empty());
            return (self.registry.dir.is_some() || deployed).then_some("idle");
        };
        Some(match runtime.status() {
            runtime::Status::Ready { .. } => "running",
            runtime::Status::Starting => "starting",
            runtime::Status::Down => "down",
            runtime::Status::Stopped => "stopped",
        })
    }
}

/// What `start` needs from the rest of the server.
pub struct Start {
    pub config: FunctionsConfig,
    /// The project folder, when the server runs one.
    pub project: Option<crate::project::Project>,
    pub data_dir: PathBuf,
    pub verifier: Arc<crate::jwt::JwtVerifier>,
    /// Variables every function gets (`SUPABASE_URL`, keys).
    pub platform_env: Vec<(String, SecretString)>,
    /// The database (pool and direct URL, for LISTEN) where deploys, secrets and logs live.
    pub database: Option<(deadpool_postgres::Pool, SecretString)>,
    /// The JWT secret, which the secrets' key is derived from.
    pub jwt_secret: SecretString,
}

impl FunctionsState {
    /// Find the functions folder; load the deployed functions and keep them current. The runtime
    /// is not started here: at the first request to a function (`proxy`), or at the first
    /// deployed function.
    pub fn start(start: Start) -> Arc<FunctionsState> {
        let project_dir = start.project.as_ref().map(|p| p.dir.clone());
        let dir = start
            .config
            .dir
            .clone()
            .or_else(|| project_dir.as_ref().map(|p| p.join("functions")))
            .filter(|dir| dir.is_dir())
            .and_then(|dir| std::fs::canonicalize(dir).ok());
        let (settings, edge_runtime) =
            start.project.map(|p| (p.config.functions, p.config.edge_runtime)).unwrap_or_default();
        if !edge_runtime.enabled {
            tracing::info!("functions: [edge_runtime] enabled = false in config.toml: no function is served");
        }
        let deployed_dir = start.data_dir.join("functions-deployed");
        let _ = std::fs::create_dir_all(&deployed_dir);
        let deployed_dir = std::fs::canonicalize(&deployed_dir).unwrap_or(deployed_dir);
        let guarded = permissions::Guarded::new(project_dir.as_deref(), dir.as_deref(), &start.data_dir, &deployed_dir);
        let lane_root = if start.config.lanes { lane_root::LaneRoot::create() } else { None };
        let launch = runtime::Launch {
            deno_bin: start.config.deno_bin.clone(),
            functions_dir: dir.clone().unwrap_or_else(|| deployed_dir.clone()),
            work_dir: start.data_dir.join("functions-runtime"),
            env: env::function_env(dir.as_deref(), start.platform_env, &edge_runtime.secrets),
            worker_idle: std::time::Duration::from_secs(start.config.worker_idle_secs),
            extra_read: if dir.is_some() { vec![deployed_dir.clone()] } else { Vec::new() },
            memory_limit_mb: start.config.memory_limit_mb,
            spare: guarded.none_within(std::path::Path::new("/tmp")),
            deny_write: guarded.within(std::path::Path::new("/tmp")),
            lane_root: lane_root.as_ref().map(|root| root.path().to_path_buf()),
            logs: match &start.database {
                Some((pool, _)) => logs::LogSink::to_database(pool.clone()),
                None => logs::LogSink::log_only(),
            },
        };
        let catalog = start
            .database
            .as_ref()
            .map(|_| Arc::new(catalog::Catalog::new(deployed_dir, seal::Sealer::new(&start.jwt_secret))));
        let state = Arc::new(FunctionsState {
            guarded,
            registry: Registry {
                dir: dir.clone(),
                project_dir,
                settings,
                import_map: start.config.import_map.clone(),
                readings: Default::default(),
            },
            runtime: OnceLock::new(),
            launch,
            catalog: catalog.clone(),
            pool: start.database.as_ref().map(|(pool, _)| pool.clone()),
            verifier: start.verifier,
            config: start.config,
            // Loopback to the runtime only: no proxy from the environment applies.
            http: reqwest::Client::builder().no_proxy().build().unwrap_or_default(),
            secrets_sent: Mutex::new(None),
            edge_runtime,
            oneshots: std::sync::atomic::AtomicU64::new(0),
            direct: direct::Routes::new(lane_root.as_ref().map(|root| root.path().to_path_buf())),
            _lane_root: lane_root,
            access_token: manage::access_token(&start.jwt_secret),
        });
        if let Some(dir) = &dir {
            tracing::info!(dir = %dir.display(), "functions: serving the folder (Deno starts at the first request)");
        }
        if let (Some(catalog), Some((pool, url))) = (catalog, start.database) {
            // Held weakly: the listener must not keep a stopped server's state alive.
            let weak = Arc::downgrade(&state);
            catalog::spawn_listener(catalog.clone(), pool, url, move || {
                if let Some(state) = weak.upgrade() {
                    if !catalog.is_empty() && state.edge_runtime.enabled {
                        state.ensure_runtime();
                    }
                }
            });
        }
        state
    }

    /// How many function workers the Deno child holds (its health answer), if it runs.
    pub async fn workers_alive(&self) -> Option<u64> {
        use secrecy::ExposeSecret;
        let runtime = self.runtime()?;
        let port = runtime.endpoint(std::time::Duration::ZERO).await?;
        let answer = self
            .http
            .get(format!("http://127.0.0.1:{port}/_internal/health"))
            .header(proxy::SECRET_HEADER, runtime.secret.expose_secret())
            .timeout(std::time::Duration::from_secs(2))
            .send()
            .await
            .ok()?;
        answer.json::<serde_json::Value>().await.ok()?["workers"].as_u64()
    }

    /// Stop the runtime (the server is stopping).
    pub fn stop(&self) {
        if let Some(runtime) = self.runtime() {
            runtime.stop();
        }
    }
}

/// Mount `/functions/v1/<name>` and everything below it, every method, and the management API
/// (`/v1/projects/{ref}/functions`, `/v1/projects/{ref}/secrets`).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.configure(manage::configure);
    cfg.service(
        web::scope("/functions/v1")
            .route("/{name}", web::to(proxy::invoke))
            .route("/{name}/{tail:.*}", web::to(proxy::invoke)),
    );
}
