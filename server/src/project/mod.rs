//! A Supabase project folder (`supabase/`, as `supabase init` makes it) run by this server:
//! `config.toml` (read before the settings are parsed, `config`), `migrations/` applied in
//! timestamp order with the CLI's history, the seeds on a fresh database, and the buckets the
//! file declares (`migrations`).
//!
//! The folder is `--project DIR` / `SUPABASE_PROJECT_DIR`, else `./supabase` when it exists. The
//! platform's own schema (roles, `auth`, `storage`, `realtime`) is migrated before the project's
//! migrations run, as Supabase's services have created theirs before the CLI applies a project.

pub mod config;
pub mod legacy;
pub mod migrations;
pub mod reset;
pub mod split;
pub mod squash;
pub mod typegen;

use std::path::{Path, PathBuf};

use crate::db::Pools;

pub use config::ProjectConfig;

/// The schemas the platform owns (its own migrations make them), which a project's dump leaves out.
pub const PLATFORM_SCHEMAS: &[&str] = &[
    "auth",
    "storage",
    "realtime",
    "outbox",
    "edge_functions",
    "extensions",
    "supabase_migrations",
    "graphql",
    "graphql_public",
    "pgbouncer",
    "vault",
    "cron",
    "net",
    "supabase_functions",
    "_studio",
];

/// Why a project could not be read or applied.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("{0}: {1}")]
    Config(PathBuf, String),
    #[error("migration {file} failed at statement {index}: {message}\n{statement}")]
    Migration { file: String, index: usize, statement: String, message: String },
    #[error("project: {0}")]
    Db(String),
    #[error("{0}")]
    Invalid(String),
}

/// A project folder and its `config.toml`.
#[derive(Debug, Clone)]
pub struct Project {
    pub dir: PathBuf,
    pub config: ProjectConfig,
}

/// The project folder: the one given (an empty one is none), else `./supabase` when it exists.
pub fn locate(given: Option<&Path>) -> Option<PathBuf> {
    match given.filter(|dir| !dir.as_os_str().is_empty()) {
        Some(dir) => Some(dir.to_path_buf()),
        None => {
            let default = Path::new("supabase");
            default.is_dir().then(|| default.to_path_buf())
        }
    }
}

impl Project {
    /// Read the folder (it must exist) and its `config.toml`.
    pub fn open(dir: &Path) -> Result<Project, ProjectError> {
        if !dir.is_dir() {
            return Err(ProjectError::Invalid(format!("the project folder {} does not exist", dir.display())));
        }
        let config = config::load(dir, &|name| std::env::var(name).ok())?;
        Ok(Project { dir: dir.to_path_buf(), config })
    }

    /// Say what the file holds that this server skipped.
    pub fn report(&self) {
        for warning in &self.config.warnings {
            tracing::warn!(project = %self.dir.display(), "{warning}");
        }
        if !self.config.not_applied.is_empty() {
            tracing::info!(
                project = %self.dir.display(),
                keys = %self.config.not_applied.join(", "),
                "project: config.toml keys not applied by this server (docs/projects.md)"
            );
        }
    }

    /// Apply the project to the database: check the major version, run pending migrations, seed
    /// a fresh database, create or update the declared buckets. Returns the migrations applied.
    pub async fn apply(&self, pools: &Pools) -> Result<Vec<String>, ProjectError> {
        let db = |e: deadpool_postgres::PoolError| ProjectError::Db(e.to_string());
        let mut client = pools.direct.get().await.map_err(db)?;
        if let Some(major) = self.config.major_version {
            let server: i64 = client
                .query_one("select current_setting('server_version_num')::int / 10000", &[])
                .await
                .map_err(|e| ProjectError::Db(e.to_string()))?
                .get::<_, i32>(0)
                .into();
            if server != major {
                tracing::warn!(
                    config = major, database = server,
                    "project: [db] major_version differs from the database's; the migrations run on the database's version"
                );
            }
        }
        let mut applied = migrations::Applied::default();
        if self.config.migrations_enabled {
            let local = migrations::local(&self.dir)?;
            applied = migrations::apply(&mut client, &local).await?;
        }
        if applied.fresh && self.config.seed_enabled {
            self.seed(&mut client).await?;
        }
        self.buckets(&client).await?;
        if !applied.migrations.is_empty() {
            // The project's schema changed: schema caches reload (a start that applied nothing
            // does not ask for a second reload beside the platform's).
            let _ = client.batch_execute("notify pgrst, 'reload schema'").await;
        }
        Ok(applied.migrations)
    }

    /// Run the seed files not run yet.
    pub async fn seed(&self, client: &mut tokio_postgres::Client) -> Result<Vec<String>, ProjectError> {
        self.run_seeds(client, false).await
    }

    /// Run every seed file again (`server seed`, after its accounts exist).
    pub async fn seed_again(&self, client: &mut tokio_postgres::Client) -> Result<Vec<String>, ProjectError> {
        self.run_seeds(client, true).await
    }

    async fn run_seeds(&self, client: &mut tokio_postgres::Client, again: bool) -> Result<Vec<String>, ProjectError> {
        let (files, unmatched) = config::seed_files(&self.dir, &self.config.seed_paths);
        for pattern in unmatched {
            tracing::warn!(project = %self.dir.display(), pattern, "project: no seed file matches");
        }
        let base = self.dir.parent().unwrap_or(Path::new(""));
        let ran = migrations::seed(client, base, &files, again).await?;
        for file in &ran {
            tracing::info!(file, "project: seeded");
        }
        Ok(ran)
    }

    /// Create the buckets `config.toml` declares, or bring their settings to what it says.
    async fn buckets(&self, client: &tokio_postgres::Client) -> Result<(), ProjectError> {
        for bucket in &self.config.buckets {
            client
                .execute(
                    "insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types) \
                     values ($1, $1, coalesce($2, false), $3, $4) on conflict (id) do update set \
                     public = coalesce($2, storage.buckets.public), file_size_limit = $3, \
                     allowed_mime_types = $4, updated_at = now()",
                    &[&bucket.name, &bucket.public, &bucket.file_size_limit, &bucket.allowed_mime_types],
                )
                .await
                .map_err(|e| ProjectError::Db(format!("bucket {}: {e}", bucket.name)))?;
        }
        Ok(())
    }
}

/// Settings as `(environment name, value)`.
pub type Settings = Vec<(String, String)>;

/// Before the settings are parsed: the variables `config.toml` gives that are not set already
/// (a flag or a variable wins over the file). The project folder is read from the arguments
/// (`--project DIR`, `--project=DIR`), `SUPABASE_PROJECT_DIR`, or `./supabase`.
pub fn settings_from_args(args: &[String]) -> Result<Option<(PathBuf, Settings)>, ProjectError> {
    let given = args
        .windows(2)
        .find(|w| w[0] == "--project")
        .map(|w| PathBuf::from(&w[1]))
        .or_else(|| args.iter().find_map(|a| a.strip_prefix("--project=").map(PathBuf::from)))
        .or_else(|| std::env::var_os("SUPABASE_PROJECT_DIR").filter(|v| !v.is_empty()).map(PathBuf::from));
    let Some(dir) = locate(given.as_deref()) else { return Ok(None) };
    let project = Project::open(&dir)?;
    let unset = project.config.env.into_iter().filter(|(name, _)| std::env::var_os(name).is_none()).collect();
    Ok(Some((dir, unset)))
}
