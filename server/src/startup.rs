//! Building and running the application: database, migrations, keys, HTTP server.
//!
//! `Application::build` binds the listener first (port 0 picks a free one; a refused bind
//! stops the start before any embedded cluster runs), then prepares everything (starting the
//! embedded cluster when no `DATABASE_URL` is given) and exposes the bound port; `run_until_stopped` serves until SIGINT/SIGTERM, lets in-flight requests finish, then
//! stops the embedded cluster. Route handlers live in the surface modules, not here.

use std::sync::Arc;

use actix_cors::Cors;
use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};
use secrecy::{ExposeSecret, SecretString};

use crate::auth::AuthState;
use crate::config::Config;
use crate::db::embedded::{EmbeddedError, EmbeddedPostgres};
use crate::db::{migrate, PoolError, Pools, AUTHENTICATOR};
use crate::gate::{Gate, GateConfig};
use crate::jwt::JwtVerifier;
use crate::keys::{Keys, KeysError};
use crate::realtime::Realtime;
use crate::rest::RestState;
use crate::state::AppState;
use crate::{health, telemetry};

/// How long an idle keep-alive connection stays open (nginx's default). actix's own 5 s raced
/// clients that pool sockets for about as long (Node's fetch: 4 s): a request sent on a socket the
/// server was closing failed with "other side closed".
const KEEP_ALIVE_SECS: u64 = 75;
/// The same, told to clients in a `Keep-Alive` header (Node's clients read it).
const KEEP_ALIVE_HINT: &str = "timeout=75";

/// Headers browsers may read (Supabase's list).
pub const CORS_EXPOSE_HEADERS: &[&str] = &[
    "content-range",
    "content-profile",
    "x-total-count",
    "link",
    "x-supabase-api-version",
    "preference-applied",
    "location",
    "tus-resumable",
    "tus-version",
    "tus-extension",
    "tus-max-size",
    "upload-offset",
    "upload-length",
    "upload-expires",
];

/// Why the application could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error(transparent)]
    Keys(#[from] KeysError),
    #[error(transparent)]
    Embedded(#[from] EmbeddedError),
    #[error(transparent)]
    Pool(#[from] PoolError),
    #[error(transparent)]
    Migrate(#[from] migrate::MigrateError),
    #[error("database set-up failed: {0}")]
    Setup(String),
    #[error("storage: {0}")]
    Storage(String),
    #[error(transparent)]
    Project(#[from] crate::project::ProjectError),
    #[error(transparent)]
    Listener(#[from] crate::listener::ListenerError),
    #[error("server error: {0}")]
    Serve(#[from] std::io::Error),
}

/// Where the database is, and the embedded cluster when the server runs one.
pub struct Database {
    pub url: SecretString,
    /// The direct URL (`DATABASE_DIRECT_URL`, else `url`): migrations, LISTEN, replication.
    pub direct: SecretString,
    pub embedded: Option<EmbeddedPostgres>,
    /// Whether `prepare_database` started the embedded cluster (false when it found it running).
    pub started_embedded: bool,
    /// The embedded cluster's backups, when it archives its WAL.
    pub backups: Option<crate::backup::Backups>,
}

impl Database {
    /// The pools on `url`, with the direct pool on `direct` when it differs.
    pub fn pools(&self, authenticator_password: &str, size: usize) -> Result<Pools, crate::db::PoolError> {
        let pools = Pools::new(&self.url, authenticator_password, size)?;
        if self.direct.expose_secret() == self.url.expose_secret() {
            Ok(pools)
        } else {
            pools.with_direct(&self.direct)
        }
    }
}

/// Use DATABASE_URL, or start the embedded cluster (blocking; call from a blocking context),
/// for a command other than `serve` (it archives only once backups are set up).
pub fn prepare_database(config: &Config) -> Result<Database, EmbeddedError> {
    prepare_database_for(config, false)
}

/// [`prepare_database`]; `serving`: for `serve`, whose cluster archives its WAL by default.
pub fn prepare_database_for(config: &Config, serving: bool) -> Result<Database, EmbeddedError> {
    match &config.database_url {
        Some(url) => Ok(Database {
            url: url.clone(),
            direct: config.database_direct_url.clone().unwrap_or_else(|| url.clone()),
            embedded: None,
            started_embedded: false,
            backups: None,
        }),
        None => {
            let cluster = EmbeddedPostgres::new(&config.data_dir, config.db_port, config.pg_bin_dir.as_deref())?;
            let (cluster, backups) = crate::backup::archive::prepare(config, cluster, serving);
            let started_embedded = !cluster.is_running();
            cluster.start()?;
            let url = SecretString::from(cluster.socket_url());
            Ok(Database { direct: url.clone(), url, embedded: Some(cluster), started_embedded, backups })
        }
    }
}

/// Apply migrations and give the `authenticator` role its login password.
pub async fn migrate_and_prepare(pools: &Pools, keys: &Keys) -> Result<Vec<String>, StartupError> {
    crate::project::legacy::carry_over(&pools.direct).await?;
    let applied = migrate::run(&pools.direct).await?;
    let client = pools.admin.get().await.map_err(|e| StartupError::Setup(e.to_string()))?;
    crate::signing_keys::ensure_initial(&client)
        .await
        .map_err(|e| StartupError::Setup(format!("cannot create the first signing key: {e}")))?;
    let password = keys.derived_password(AUTHENTICATOR);
    let sql = format!("alter role {AUTHENTICATOR} with login password {}", crate::db::quote_literal(&password));
    if let Err(err) = client.batch_execute(&sql).await {
        tracing::warn!(error = %err, "could not set the authenticator password; requests may fail to connect");
    }
    // Tell schema caches (ours and any PostgREST listening) that the schema may have changed.
    let _ = client.batch_execute("notify pgrst, 'reload schema'").await;
    Ok(applied)
}

/// Install the signing keys of `SIGNING_KEYS_PATH` (a project's `[auth] signing_keys_path`), when set.
pub async fn install_signing_keys(config: &Config, pools: &Pools) -> Result<(), StartupError> {
    let Some(path) = config.signing_keys_path.as_deref() else { return Ok(()) };
    let failed = |why: String| StartupError::Setup(format!("signing keys of {}: {why}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| failed(e.to_string()))?;
    let keys = crate::signing_keys::new_keys_from_jwks(&text).map_err(|e| failed(e.to_string()))?;
    let mut client = pools.admin.get().await.map_err(|e| failed(e.to_string()))?;
    crate::signing_keys::install(&mut client, &keys).await.map_err(|e| failed(e.to_string()))?;
    tracing::info!(keys = keys.len(), path = %path.display(), "signing keys installed from the file; the first signs");
    Ok(())
}

/// Apply the project folder of the settings, if there is one (after the platform's migrations).
pub async fn apply_project(config: &Config, pools: &Pools) -> Result<Vec<String>, StartupError> {
    let Some(dir) = crate::project::locate(config.project.as_deref()) else { return Ok(Vec::new()) };
    let project = crate::project::Project::open(&dir)?;
    project.report();
    Ok(project.apply(pools).await?)
}

/// Store the files of the project's buckets' `objects_path` (as the CLI does at start) when
/// `[db.seed] enabled`: they are seed data. What fails is a warning, as a refused file is: the
/// server starts without it.
async fn upload_project_objects(config: &Config, pools: &Pools, store: &Arc<dyn object_store::ObjectStore>) {
    let Some(dir) = crate::project::locate(config.project.as_deref()) else { return };
    let Ok(project) = crate::project::Project::open(&dir) else { return };
    if !project.config.seed_enabled || project.config.buckets.iter().all(|b| b.objects_path.is_none()) {
        return;
    }
    let client = match pools.admin.get().await {
        Ok(client) => client,
        Err(err) => return tracing::warn!(error = %err, "project: cannot store the buckets' objects"),
    };
    match crate::seed::objects::upload(&project, &client, store).await {
        Ok(done) => {
            for refused in &done.refused {
                tracing::warn!(object = %refused, "project: object not stored");
            }
            if !done.stored.is_empty() {
                tracing::info!(stored = done.stored.len(), "project: buckets' objects stored");
            }
        }
        Err(err) => tracing::warn!(error = %err, "project: cannot store the buckets' objects"),
    }
}

/// Make large allocations (an argon2 hash's 19 MiB, a storage part's 5 MiB; anything from 2 MiB)
/// go straight to the operating system and back when freed. glibc otherwise raises its mmap
/// threshold after the first such free and keeps later ones in per-thread arenas, so the
/// server's memory grew to 0.5–0.9 GB after sign-ins and never came down. The threshold is
/// 2 MiB rather than glibc's starting 128 KiB so that a download's 1 MiB reads, and actix's
/// copy of each, come from the heap instead of being mapped and faulted in for every chunk. Free
/// memory at the top of a heap is handed back once it passes 8 MiB: at 1 MiB, a large upload's
/// received chunks (about 6 MiB in flight) were handed back after every `writev` batch and
/// faulted in again for the next, 3,000–8,000 page faults and a fifth of the server's CPU per
/// 100 MB upload; at 8 MiB none, for about 1 MB more RSS after REST load and 13 MB more after
/// large uploads (docs/storage.md). Process-wide and idempotent. The `server` binary allocates
/// through mimalloc (`main.rs`), so there this governs only what C code allocates with
/// `malloc`; the library's users (the tests among them) keep glibc's allocator.
pub fn return_large_allocations() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator tuning; any value is valid for these parameters.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 2 * 1024 * 1024);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 8 * 1024 * 1024);
    }
}

/// The embedded cluster of a start under way. Dropped before the start has finished (an error
/// returned by `Application::build`), it stops the cluster when this start started it, so that no
/// postmaster outlives the failed start; one that was already running is left as it was.
struct StartingCluster {
    cluster: Option<EmbeddedPostgres>,
    stop: bool,
}

impl StartingCluster {
    /// The cluster, for the server that now runs (and stops it when it stops).
    fn into_running(mut self) -> Option<EmbeddedPostgres> {
        self.cluster.take()
    }
}

impl Drop for StartingCluster {
    fn drop(&mut self) {
        if let Some(cluster) = self.cluster.take().filter(|_| self.stop) {
            tracing::warn!("the start failed: stopping the embedded PostgreSQL it started");
            if let Err(err) = cluster.stop() {
                tracing::error!(error = %err, "could not stop the embedded PostgreSQL");
            }
        }
    }
}

/// A built application, listening but not yet serving.
pub struct Application {
    port: u16,
    server: Server,
    embedded: Option<(Arc<EmbeddedPostgres>, crate::db::supervise::Supervisor)>,
    state: web::Data<AppState>,
    backups: Option<(crate::backup::schedule::Schedule, String)>,
}

impl Application {
    /// Bind the listener, prepare the database, migrate.
    pub async fn build(config: Config) -> Result<Application, StartupError> {
        return_large_allocations();
        check_origins(&config.cors_allowed_origins)?;
        if config.metrics_token.is_some() {
            crate::metrics::enable();
            crate::backup::status::describe();
        }
        let keys = Keys::load_or_generate(&config)?;
        // Bound before the database starts: a taken port or a refused TCP_CONGESTION stops the
        // start before an embedded cluster is running (it would outlive the failed start). A
        // client that connects meanwhile waits in the backlog until the server runs.
        let addr = format!("{}:{}", config.host, config.port);
        let (listener, port) = crate::listener::bind(&addr, config.tcp_congestion.as_deref())?;
        let cfg = config.clone();
        let mut database = tokio::task::spawn_blocking(move || prepare_database_for(&cfg, true))
            .await
            .map_err(|e| StartupError::Setup(e.to_string()))??;
        // From here on, a failed start stops the cluster it started (one it found running is left).
        let cluster = StartingCluster { cluster: database.embedded.take(), stop: database.started_embedded };
        if !config.db_prepared_statements {
            if config.database_direct_url.is_none() && config.database_url.is_some() {
                tracing::warn!(
                    "DB_PREPARED_STATEMENTS=false without DATABASE_DIRECT_URL: behind a transaction-mode pooler, \
                     migrations, LISTEN and realtime's replication need a direct connection"
                );
            }
            crate::db::cached::use_unnamed_statements(database.direct.clone());
        }
        let pools = database
            .pools(&keys.derived_password(AUTHENTICATOR), config.db_pool_size)?
            .with_lanes(config.db_shared_connections, config.db_shared_read_depth);
        migrate_and_prepare(&pools, &keys).await?;
        install_signing_keys(&config, &pools).await?;
        apply_project(&config, &pools).await?;
        let signing_keys = Arc::new(
            crate::signing_keys::SigningKeys::load(&pools.admin)
                .await
                .map_err(|e| StartupError::Setup(format!("cannot read the signing keys: {e}")))?,
        );
        signing_keys.spawn_reloader(pools.admin.clone(), config.auth.signing_keys_reload);

        let external_url = config.external_url(port);

        let rest_config = &config.rest;
        let configured = match &rest_config.jwt_secret {
            Some(secret) => crate::jwt::configured_keys(secret.expose_secret())
                .map_err(|e| StartupError::Setup(format!("PGRST_JWT_SECRET is JSON but {e}")))?,
            None => None,
        };
        let verifier = match &rest_config.jwt_secret {
            // A JWK / JWKS: its keys, beside the server's own secret (which signs the legacy API keys).
            Some(_) if configured.is_some() => JwtVerifier::new(&keys.jwt_secret, rest_config.jwt_aud.as_deref()),
            Some(secret) if rest_config.jwt_secret_is_base64 => {
                JwtVerifier::with_key(&decode_base64_secret(secret)?, rest_config.jwt_aud.as_deref())
            }
            Some(secret) => JwtVerifier::new(secret, rest_config.jwt_aud.as_deref()),
            None => JwtVerifier::new(&keys.jwt_secret, rest_config.jwt_aud.as_deref()),
        }
        .with_signing_keys(signing_keys.clone())
        .with_api_keys(keys.api_keys.clone())
        .with_configured_keys(configured.unwrap_or_default());
        let gate = Gate {
            verifier: Arc::new(verifier),
            config: GateConfig {
                anon_role: rest_config.anon().map(str::to_string),
                rest_without_apikey: rest_config.allow_no_apikey,
                role_claim: rest_config.role_claim_path(),
                server_timing: rest_config.server_timing,
            },
        };
        let database_name = std::str::FromStr::from_str(database.direct.expose_secret())
            .ok()
            .and_then(|c: tokio_postgres::Config| c.get_dbname().map(str::to_string))
            .unwrap_or_else(|| "postgres".into());
        let realtime = Realtime::start(
            config.realtime.clone(),
            gate.clone(),
            pools.clone(),
            database.direct.clone(),
            database_name,
            port,
        )
        .await;
        let gate = web::Data::new(gate);
        let replicas = crate::db::replicas::Replicas::new(
            &config.database_read_urls,
            &keys.derived_password(AUTHENTICATOR),
            config.db_pool_size,
            config.database_read_max_lag,
        )?;
        let rest = RestState::new(rest_config.clone(), pools.admin.clone(), pools.request.clone())
            .await
            .map_err(|e| StartupError::Setup(e.to_string()))?
            .with_replicas(Arc::new(replicas))
            .with_lanes(pools.lanes.clone());
        crate::rest::spawn_listener(rest.clone(), database.direct.clone());
        let rest = web::Data::new(rest);
        let built = crate::storage::backend::build(&config.storage, &config.data_dir).map_err(StartupError::Storage)?;
        upload_project_objects(&config, &pools, &built.store).await;
        let storage = web::Data::new(crate::storage::StorageState {
            store: built.store,
            local: built.local,
            request: pools.request.clone(),
            admin: pools.admin.clone(),
            secret: keys.jwt_secret.clone(),
            anon_key: keys.anon_key.clone(),
            config: config.storage.clone(),
            roles: rest.cache.clone(),
            downloads: Default::default(),
        });
        crate::storage::sweep::spawn(
            storage.clone().into_inner(),
            crate::storage::backend::local_dir(&config.storage, &config.data_dir),
        );
        let auth = web::Data::new(
            AuthState::new(
                config.auth.clone(),
                pools.admin.clone(),
                &keys,
                signing_keys.clone(),
                &external_url,
                &config.site_url,
            )
            .map_err(StartupError::Setup)?,
        );
        // Studio's auth overrides over the start-up settings, then kept current by NOTIFY.
        if let Err(err) = auth.reload_settings().await {
            tracing::warn!(error = %err, "auth settings: Studio's overrides are not applied");
        }
        crate::auth::live::spawn_listener(auth.clone().into_inner(), database.direct.clone());
        crate::outbox::spawn(
            config.outbox.clone(),
            pools.admin.clone(),
            database.direct.clone(),
            auth.clone().into_inner(),
            outbox_target(&config, &keys, port, &external_url),
        );
        apply_function_schedules(&config, &pools.admin).await;
        let functions = web::Data::from(start_functions(
            &config,
            &keys,
            gate.verifier.clone(),
            port,
            (pools.admin.clone(), database.direct.clone()),
        ));
        let state = web::Data::new(AppState {
            config: config.clone(),
            keys,
            pools,
            external_url,
            rest: rest.clone(),
            auth: auth.clone(),
            realtime: realtime.clone(),
            storage: storage.clone(),
            functions: functions.clone(),
            embedded_pgdata: cluster.cluster.as_ref().map(|e| e.pgdata().to_path_buf()),
            backups: database.backups.clone(),
        });
        // The reports' history of the database, storage and realtime figures, sampled here.
        crate::studio::samples::spawn(config.studio.reports_sample_secs, state.pools.admin.clone(), realtime.clone());
        let realtime_data = web::Data::from(realtime);
        // The request log's writer: requests are offered to it by the telemetry middleware.
        let request_log =
            crate::request_log::writer::spawn(&config.request_log, state.pools.admin.clone()).map(web::Data::new);
        let shutdown_timeout = config.shutdown_timeout;
        let app_state = state.clone();
        let web_dir = config.web_dir.clone();
        let cors_origins = config.cors_allowed_origins.clone();
        let server = HttpServer::new(move || {
            let mut app = App::new();
            if let Some(log) = &request_log {
                app = app.app_data(log.clone());
            }
            app.app_data(app_state.clone())
                .app_data(gate.clone())
                .app_data(rest.clone())
                .app_data(auth.clone())
                .app_data(storage.clone())
                .app_data(realtime_data.clone())
                .app_data(functions.clone())
                .wrap(from_fn(crate::panic_guard::middleware))
                .wrap(crate::cors::except_functions(cors(&cors_origins)))
                .wrap(from_fn(telemetry::middleware))
                .wrap(actix_web::middleware::DefaultHeaders::new().add(("Keep-Alive", KEEP_ALIVE_HINT)))
                .route("/health", web::get().to(health::health))
                .route("/health/ready", web::get().to(health::ready))
                .route("/metrics", web::get().to(crate::scrape::metrics))
                .configure(|cfg| crate::routes::configure(cfg, &web_dir))
        })
        // Nagle's algorithm would hold a streamed body's first write until the client acknowledges
        // the headers, which it delays (40 ms on Linux): small downloads stalled on keep-alive.
        .on_connect(|conn, _| {
            if let Some(tcp) = conn.downcast_ref::<actix_web::rt::net::TcpStream>() {
                let _ = tcp.set_nodelay(true);
            }
        })
        .shutdown_timeout(shutdown_timeout)
        .keep_alive(std::time::Duration::from_secs(KEEP_ALIVE_SECS))
        .disable_signals()
        .workers(
            config.http_workers.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2)),
        )
        .listen(listener)?
        .run();
        // The embedded cluster is watched and started again if it dies.
        let embedded = cluster.into_running().map(|cluster| {
            let cluster = Arc::new(cluster);
            let supervisor = crate::db::supervise::Supervisor::spawn(cluster.clone());
            (cluster, supervisor)
        });
        // Backups run beside the server: the first full backup does not hold up the start.
        let backups = database.backups.take().map(|backups| {
            let line = crate::backup::archive::announce(&backups);
            tracing::info!("{line}");
            (crate::backup::schedule::Schedule::spawn(backups, state.pools.admin.clone()), line)
        });
        Ok(Application { port, server, embedded, state, backups })
    }

    /// The port the API listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// A handle to stop the server programmatically (tests, embedding).
    pub fn handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }

    /// What the server says of its backups at start (where they go, how to move them).
    pub fn backups_announcement(&self) -> Option<&str> {
        self.backups.as_ref().map(|(_, line)| line.as_str())
    }

    /// Shared state (keys, pools, config).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Serve until a shutdown signal (SIGINT/SIGTERM: realtime sockets close at once so clients
    /// reconnect elsewhere, in-flight requests finish), then stop the embedded cluster.
    pub async fn run_until_stopped(self) -> Result<(), StartupError> {
        let handle = self.server.handle();
        let realtime = self.state.realtime.clone();
        tokio::spawn(async move {
            shutdown_signal().await;
            tracing::info!("shutdown signal received; stopping");
            realtime.stop();
            handle.stop(true).await;
        });
        let served = self.server.await;
        self.state.functions.stop();
        if let Some((schedule, _)) = &self.backups {
            schedule.stop();
        }
        if let Some((cluster, supervisor)) = self.embedded {
            crate::telemetry::stopping();
            supervisor.stop();
            drop(self.state);
            tokio::task::spawn_blocking(move || cluster.stop())
                .await
                .map_err(|e| StartupError::Setup(e.to_string()))??;
        }
        Ok(served?)
    }
}

/// The functions surface: the project's functions folder served by a Deno child that calls this
/// server back over loopback with the project's keys.
fn start_functions(
    config: &Config,
    keys: &Keys,
    verifier: Arc<JwtVerifier>,
    port: u16,
    (pool, database_url): (deadpool_postgres::Pool, SecretString),
) -> Arc<crate::functions::FunctionsState> {
    let project =
        crate::project::locate(config.project.as_deref()).and_then(|dir| crate::project::Project::open(&dir).ok());
    let secret = |value: &SecretString| SecretString::from(value.expose_secret().to_string());
    let platform_env = vec![
        ("SUPABASE_URL".to_string(), SecretString::from(loopback_url(config, port))),
        ("SUPABASE_ANON_KEY".to_string(), secret(&keys.anon_key)),
        ("SUPABASE_SERVICE_ROLE_KEY".to_string(), secret(&keys.service_role_key)),
        ("SUPABASE_PUBLISHABLE_KEY".to_string(), secret(&keys.api_keys.publishable)),
        ("SUPABASE_SECRET_KEY".to_string(), secret(&keys.api_keys.secret)),
        // The database's owner, as Supabase gives its functions the `postgres` role's URL.
        ("SUPABASE_DB_URL".to_string(), secret(&database_url)),
    ];
    crate::functions::FunctionsState::start(crate::functions::Start {
        config: config.functions.clone(),
        project,
        data_dir: config.data_dir.clone(),
        verifier,
        platform_env,
        database: Some((pool, database_url)),
        jwt_secret: keys.jwt_secret.clone(),
    })
}

/// This instance's API as its own children and workers reach it: `http://<host>:<port>`, on
/// loopback when it listens everywhere.
fn loopback_url(config: &Config, port: u16) -> String {
    let host = match config.host.as_str() {
        "0.0.0.0" | "::" | "[::]" | "" => "127.0.0.1",
        host => host,
    };
    format!("http://{host}:{port}")
}

/// Where the outbox sends the HTTP requests meant for this server's functions, and the key of the
/// schedules' calls.
fn outbox_target(config: &Config, keys: &Keys, port: u16, external_url: &str) -> crate::outbox::http::Target {
    crate::outbox::http::Target {
        loopback: loopback_url(config, port),
        port,
        external: url::Url::parse(external_url).ok(),
        service_key: SecretString::from(keys.service_role_key.expose_secret().to_string()),
        client: reqwest::Client::new(),
    }
}

/// The project's `[functions.<name>] schedule`s as pg_cron jobs; a database without pg_cron
/// leaves them unapplied, said once at start (the server runs on without them).
async fn apply_function_schedules(config: &Config, admin: &deadpool_postgres::Pool) {
    let project =
        crate::project::locate(config.project.as_deref()).and_then(|dir| crate::project::Project::open(&dir).ok());
    let schedules = project.map(|p| crate::functions::schedule::of_project(&p.config.functions)).unwrap_or_default();
    if let Err(err) = crate::functions::schedule::sync(admin, &schedules).await {
        let names: Vec<&str> = schedules.iter().map(|(name, _)| name.as_str()).collect();
        tracing::warn!(error = %err, functions = ?names, "functions: schedules not applied");
    }
}

/// SIGINT or SIGTERM.
async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(term) => term,
            Err(_) => {
                let _ = interrupt.await;
                return;
            }
        };
        tokio::select! {
            _ = interrupt => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}

/// `PGRST_JWT_SECRET` decoded from base64 (`PGRST_JWT_SECRET_IS_BASE64`), standard or URL-safe.
fn decode_base64_secret(secret: &SecretString) -> Result<Vec<u8>, StartupError> {
    use base64::Engine;
    let text = secret.expose_secret().trim();
    let engines = [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::URL_SAFE,
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    engines.iter().find_map(|engine| engine.decode(text).ok()).filter(|bytes| !bytes.is_empty()).ok_or_else(|| {
        StartupError::Setup("PGRST_JWT_SECRET_IS_BASE64 is set but PGRST_JWT_SECRET is not base64".into())
    })
}

/// Each listed CORS origin must be `scheme://host[:port]`, or the server would refuse to start
/// its workers later.
fn check_origins(origins: &[String]) -> Result<(), StartupError> {
    for origin in origins.iter().map(|o| o.trim()).filter(|o| !o.is_empty()) {
        let uri: Result<actix_web::http::Uri, _> = origin.parse();
        if origin == "*" || !uri.is_ok_and(|u| u.scheme().is_some() && u.host().is_some()) {
            return Err(StartupError::Setup(format!(
                "CORS_ALLOWED_ORIGINS: {origin:?} is not an origin like https://example.com (leave the setting unset to allow any)"
            )));
        }
    }
    Ok(())
}

/// CORS for every surface but `/functions/v1` (a function answers its own: `crate::cors`): any origin (answered `*`) unless `CORS_ALLOWED_ORIGINS` lists them;
/// then a listed origin is echoed back and another gets no CORS headers (the browser refuses
/// the response; clients outside a browser are not affected).
fn cors(allowed_origins: &[String]) -> Cors {
    let origins: Vec<&str> = allowed_origins.iter().map(|o| o.trim()).filter(|o| !o.is_empty()).collect();
    let cors = if origins.is_empty() {
        Cors::default().allow_any_origin().send_wildcard()
    } else {
        origins.into_iter().fold(Cors::default(), |cors, origin| cors.allowed_origin(origin))
    };
    cors.block_on_origin_mismatch(false)
        .allowed_methods(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
        // Any header a preflight names is allowed (echoed back), as PostgREST answers: a client
        // adding a header (supabase-js's v2.93.0 incident, a function's own CORS list) is not
        // refused with 400 by the server in front of the surface.
        .allow_any_header()
        .expose_headers(CORS_EXPOSE_HEADERS.iter().copied())
        .max_age(86_400)
}
