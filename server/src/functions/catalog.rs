//! This instance's copy of the deployed functions and the secrets: loaded from Postgres at
//! start, then again whenever the `edge_functions` channel says a deploy, a delete or a secret
//! changed (on any instance, or from the CLI), and when its listening connection comes back.
//!
//! A deployed version's files are written once under `<data>/functions-deployed/<slug>/<sha256>/`
//! before the catalog points at it, so a request never sees half a version; the folder of the
//! version before stays while its worker finishes, and is removed at a later reload. A request
//! asks [`Catalog::find`], which only reads memory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use deadpool_postgres::Pool;
use secrecy::SecretString;

use super::registry::Function;
use super::seal::Sealer;
use super::store::{self, StoreError};

/// The NOTIFY channel of the `edge_functions` tables.
pub const CHANNEL: &str = "edge_functions";
/// A version folder no longer served is removed after this long (its worker has finished).
const OLD_VERSION_KEPT: Duration = Duration::from_secs(15 * 60);

/// The secrets every function's worker gets in its `Deno.env`, and their version.
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    pub version: String,
    pub env: Vec<(String, SecretString)>,
}

/// The deployed functions and the secrets, as last loaded.
pub struct Catalog {
    dir: PathBuf,
    functions: RwLock<HashMap<String, Function>>,
    secrets: RwLock<Arc<Secrets>>,
    sealer: Sealer,
}

impl Catalog {
    /// An empty catalog whose versions are written under `dir`.
    pub fn new(dir: PathBuf, sealer: Sealer) -> Catalog {
        Catalog { dir, functions: RwLock::default(), secrets: RwLock::default(), sealer }
    }

    /// Where the deployed versions are written (readable by the functions).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The deployed function `slug`.
    pub fn find(&self, slug: &str) -> Option<Function> {
        self.functions.read().ok()?.get(slug).cloned()
    }

    /// How many functions are deployed.
    pub fn len(&self) -> usize {
        self.functions.read().map(|f| f.len()).unwrap_or(0)
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The secrets now.
    pub fn secrets(&self) -> Arc<Secrets> {
        self.secrets.read().map(|s| s.clone()).unwrap_or_default()
    }

    /// The sealer of this server's secrets.
    pub fn sealer(&self) -> &Sealer {
        &self.sealer
    }

    /// Load the functions and secrets from the database, writing new versions' files first.
    pub async fn reload(&self, pool: &Pool) -> Result<(), StoreError> {
        let client = pool.get().await.map_err(|e| StoreError::Invalid(format!("no database connection: {e}")))?;
        let (env, version) = store::open_secrets(&client, &self.sealer).await?;
        let mut functions = HashMap::new();
        for deployed in store::list(&client).await? {
            // Checked when stored; checked again, as it becomes a path on this disk.
            let Some(entrypoint) = store::relative_path(&deployed.entrypoint_path) else {
                tracing::error!(function = %deployed.slug, "functions: the deployed entrypoint is not a relative path; skipped");
                continue;
            };
            let folder = self.dir.join(&deployed.slug).join(&deployed.sha256);
            if !folder.is_dir() {
                let files = store::files(&client, deployed.id).await?;
                write_version(&folder, &files)
                    .map_err(|e| StoreError::Invalid(format!("cannot write {}: {e}", folder.display())))?;
            }
            let function = Function {
                name: deployed.slug.clone(),
                entrypoint: folder.join(entrypoint),
                verify_jwt: deployed.verify_jwt,
                request_idle_secs: None,
                memory_limit_mb: None,
                cpu_time_limit_ms: None,
                read: vec![folder.clone()],
                // The deploy's import map (or deno.json), when it is one of the version's files.
                import_map: deployed
                    .import_map_path
                    .as_deref()
                    .and_then(store::relative_path)
                    .map(|path| folder.join(path))
                    .filter(|path| path.is_file()),
                version: format!("deployed-{}", &deployed.sha256[..16.min(deployed.sha256.len())]),
            };
            functions.insert(deployed.slug, function);
        }
        remove_old_versions(&self.dir, &functions);
        if let Ok(mut current) = self.functions.write() {
            *current = functions;
        }
        if let Ok(mut current) = self.secrets.write() {
            *current = Arc::new(Secrets { version, env });
        }
        Ok(())
    }
}

/// Write a version's files into `folder` through a temporary sibling renamed at the end.
fn write_version(folder: &Path, files: &[(String, Vec<u8>)]) -> std::io::Result<()> {
    let parent = folder.parent().unwrap_or(folder);
    std::fs::create_dir_all(parent)?;
    let staging = parent.join(format!(".staging-{}", &crate::keys::random_secret()[..12]));
    for (path, content) in files {
        // Paths were checked when stored; checked again, as this writes to the disk.
        let Some(path) = store::relative_path(path) else { continue };
        let target = staging.join(path);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(target, content)?;
    }
    match std::fs::rename(&staging, folder) {
        // Another reload of this instance wrote it meanwhile.
        Err(_) if folder.is_dir() => std::fs::remove_dir_all(&staging),
        other => other,
    }
}

/// Remove the version folders no longer served (after `OLD_VERSION_KEPT`) and the folders of
/// functions no longer deployed.
fn remove_old_versions(dir: &Path, served: &HashMap<String, Function>) {
    let Ok(slugs) = std::fs::read_dir(dir) else { return };
    for slug in slugs.flatten() {
        let name = slug.file_name().to_string_lossy().into_owned();
        let Ok(versions) = std::fs::read_dir(slug.path()) else { continue };
        for version in versions.flatten() {
            let current = served.get(&name).is_some_and(|f| f.entrypoint.starts_with(version.path()));
            let old = version
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|m| SystemTime::now().duration_since(m).ok())
                .is_some_and(|age| age > OLD_VERSION_KEPT);
            if !current && old {
                let _ = std::fs::remove_dir_all(version.path());
            }
        }
    }
}

/// Keep `catalog` current: LISTEN on [`CHANNEL`], reload on each notification and on each
/// (re)connection, with a growing delay between failed connections. Runs as long as the runtime;
/// `on_change` is called after each reload (it starts the Deno child when functions appear).
pub fn spawn_listener(
    catalog: Arc<Catalog>,
    pool: Pool,
    database_url: SecretString,
    on_change: impl Fn() + Send + Sync + 'static,
) {
    tokio::spawn(async move {
        let mut backoff = Duration::from_millis(500);
        loop {
            match crate::db::listen::listen(&database_url, CHANNEL).await {
                Ok(crate::db::listen::Listener { client, payloads: mut rx, driver }) => {
                    backoff = Duration::from_millis(500);
                    loop {
                        match catalog.reload(&pool).await {
                            Ok(()) => on_change(),
                            Err(err) => tracing::warn!(error = %err, "functions: cannot load the deployed functions"),
                        }
                        if rx.recv().await.is_none() {
                            break;
                        }
                        // Several changes in a row (a deploy and its files): one reload.
                        while rx.try_recv().is_ok() {}
                    }
                    driver.abort();
                    drop(client);
                    tracing::warn!("functions: the deploy listener lost its connection; retrying");
                }
                Err(err) => tracing::warn!(error = %err, "functions: cannot listen for deploys; retrying"),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(30));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_written_whole_and_old_ones_are_kept_a_while() {
        let dir = std::env::temp_dir().join(format!("functions-catalog-{}", crate::keys::random_secret()));
        let folder = dir.join("hello/abc");
        let files = vec![("hello/index.ts".to_string(), b"x".to_vec()), ("../escape".to_string(), b"y".to_vec())];
        write_version(&folder, &files).unwrap();
        assert_eq!(std::fs::read(folder.join("hello/index.ts")).unwrap(), b"x");
        assert!(!dir.join("hello/escape").exists() && !dir.join("escape").exists());
        // Written again (another reload): no error, the first stays.
        write_version(&folder, &files).unwrap();
        // Not served any more but young: kept for the worker finishing its requests.
        remove_old_versions(&dir, &HashMap::new());
        assert!(folder.is_dir());
    }
}
