//! `server seed`: a project's demo data, from the project folder alone (nothing here knows what
//! the data is). In order: the accounts of `seed-users.json` (`users`: hashed passwords, generated
//! ones printed once), the project's seed files run again on the same session (they must be
//! idempotent; they find the accounts by the `seed.<label>_email` settings), whether or not
//! `[db.seed] enabled` seeds a fresh database at start, and the files of the buckets'
//! `objects_path` (`objects`, also stored at each start when `[db.seed] enabled`). Running it again changes
//! nothing. It never prints or logs a password it did not just create.

pub mod objects;
pub mod users;

use std::sync::Arc;

use deadpool_postgres::Pool;
use object_store::ObjectStore;

use crate::project::{Project, ProjectError};

pub use users::CreatedAccount;

/// Why seeding failed.
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    #[error("database error while seeding: {0}")]
    Db(#[from] tokio_postgres::Error),
    #[error("cannot get a connection: {0}")]
    Pool(String),
    #[error("cannot create account {email}: {reason}")]
    Account { email: String, reason: String },
    #[error("{0}")]
    Users(String),
    #[error("cannot store the buckets' objects: {0}")]
    Objects(String),
    #[error(transparent)]
    Project(#[from] ProjectError),
}

/// What the seed did.
pub struct SeedReport {
    pub created: Vec<CreatedAccount>,
    /// The seed files run (paths as the CLI records them).
    pub files: Vec<String>,
    pub objects: objects::Uploaded,
}

/// Seed the applied `project` through `direct` (one session keeps the settings between the
/// accounts and the seed files); objects go to `store`; `env` reads a variable of the file.
pub async fn run(
    project: &Project,
    direct: &Pool,
    store: &Arc<dyn ObjectStore>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<SeedReport, SeedError> {
    let mut client = direct.get().await.map_err(|e| SeedError::Pool(e.to_string()))?;
    let created = match users::read(&project.dir)? {
        Some(file) => users::create(&client, &file, env).await?,
        None => Vec::new(),
    };
    // Run whatever `[db.seed] enabled` says: that key is about seeding a fresh database at start.
    let files = project.seed_again(&mut client).await?;
    let objects = objects::upload(project, &client, store).await?;
    Ok(SeedReport { created, files, objects })
}
