//! `/functions/v1`: Supabase Edge Functions, TypeScript run by a supervised Deno child.
//!
//! The server owns the decisions (which function a URL names, JWT checks, body and time limits,
//! supervision; `registry`, `proxy`, `runtime`); Deno owns running user code, each function in
//! its own worker (`server/functions-runtime/router.ts`). The two speak HTTP over loopback with
//! a per-start secret: docs/functions.md. Without a functions folder, no Deno is started.
//!
//! This surface imports the shared parts only (`jwt`, `keys`, `project` for `config.toml`).

pub mod config;
pub mod env;
pub mod error;
pub mod proxy;
pub mod registry;
pub mod runtime;
pub mod scaffold;
pub mod schedule;

use std::path::PathBuf;
use std::sync::Arc;

use actix_web::web;
use secrecy::SecretString;

pub use config::FunctionsConfig;
pub use error::FunctionsError;
use registry::Registry;
use runtime::Runtime;

/// State of the functions surface.
pub struct FunctionsState {
    pub registry: Registry,
    /// `None` without a functions folder.
    pub runtime: Option<Arc<Runtime>>,
    pub verifier: Arc<crate::jwt::JwtVerifier>,
    pub config: FunctionsConfig,
    pub http: reqwest::Client,
}

impl FunctionsState {
    /// The runtime's state in `/health`'s words: `running`, `starting`, `down`, `stopped`, or
    /// `None` when there is no functions folder.
    pub fn health_word(&self) -> Option<&'static str> {
        self.runtime.as_ref().map(|r| match r.status() {
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
}

impl FunctionsState {
    /// Find the functions folder and, when there is one, start the runtime that serves it.
    pub fn start(start: Start) -> FunctionsState {
        let project_dir = start.project.as_ref().map(|p| p.dir.clone());
        let dir = start
            .config
            .dir
            .clone()
            .or_else(|| project_dir.as_ref().map(|p| p.join("functions")))
            .filter(|dir| dir.is_dir())
            .and_then(|dir| std::fs::canonicalize(dir).ok());
        let settings = start.project.map(|p| p.config.functions).unwrap_or_default();
        let runtime = dir.as_ref().map(|dir| {
            tracing::info!(dir = %dir.display(), "functions: serving the folder");
            Runtime::spawn(runtime::Launch {
                deno_bin: start.config.deno_bin.clone(),
                functions_dir: dir.clone(),
                work_dir: start.data_dir.join("functions-runtime"),
                env: env::function_env(dir, start.platform_env),
                worker_idle: std::time::Duration::from_secs(start.config.worker_idle_secs),
            })
        });
        FunctionsState {
            registry: Registry { dir, project_dir, settings },
            runtime,
            verifier: start.verifier,
            config: start.config,
            http: reqwest::Client::new(),
        }
    }

    /// Stop the runtime (the server is stopping).
    pub fn stop(&self) {
        if let Some(runtime) = &self.runtime {
            runtime.stop();
        }
    }
}

/// Mount `/functions/v1/<name>` and everything below it, every method.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/functions/v1")
            .route("/{name}", web::to(proxy::invoke))
            .route("/{name}/{tail:.*}", web::to(proxy::invoke)),
    );
}
