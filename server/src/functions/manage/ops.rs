//! The management operations for callers inside the server (the dashboard's functions screen):
//! the same store calls and the same reload of this instance's catalog as the HTTP handlers of
//! the management API, without its authorization (the caller has its own: an operator session).
//! Errors are the management API's (`ManageError`); the caller maps them to its own shape.

use secrecy::SecretString;

use super::{client, refresh, ManageError};
use crate::functions::store::{self, Deploy, Deployed, ListedSecret, LogLine};
use crate::functions::FunctionsState;

/// Create or replace a function (a new version), then serve it here at once.
pub async fn deploy(state: &FunctionsState, deploy: Deploy) -> Result<Deployed, ManageError> {
    let mut client = client(state).await?;
    let deployed = store::deploy(&mut client, deploy).await?;
    drop(client);
    tracing::info!(function = %deployed.slug, version = deployed.version, sha256 = %deployed.sha256, "functions: deployed");
    refresh(state).await?;
    Ok(deployed)
}

/// Every deployed function, by slug.
pub async fn list(state: &FunctionsState) -> Result<Vec<Deployed>, ManageError> {
    Ok(store::list(&*client(state).await?).await?)
}

/// A deployed function and its files (`None` when there is none of that slug).
pub async fn get_with_files(
    state: &FunctionsState,
    slug: &str,
) -> Result<Option<(Deployed, Vec<(String, Vec<u8>)>)>, ManageError> {
    let client = client(state).await?;
    let Some(function) = store::get(&client, slug).await? else { return Ok(None) };
    let files = store::files(&client, function.id).await?;
    Ok(Some((function, files)))
}

/// Remove a deployed function; whether there was one.
pub async fn delete(state: &FunctionsState, slug: &str) -> Result<bool, ManageError> {
    let removed = store::delete(&*client(state).await?, slug).await?;
    if removed {
        tracing::info!(function = %slug, "functions: deleted");
        refresh(state).await?;
    }
    Ok(removed)
}

/// The latest `limit` lines a function printed, oldest first.
pub async fn logs(state: &FunctionsState, slug: &str, limit: i64) -> Result<Vec<LogLine>, ManageError> {
    Ok(store::logs(&*client(state).await?, slug, limit.clamp(1, store::LOGS_KEPT)).await?)
}

/// The secrets' names and digests (never their values).
pub async fn list_secrets(state: &FunctionsState) -> Result<Vec<ListedSecret>, ManageError> {
    Ok(store::list_secrets(&*client(state).await?).await?)
}

/// Set secrets (sealed); the functions see them on their next worker.
pub async fn set_secrets(state: &FunctionsState, secrets: &[(String, SecretString)]) -> Result<(), ManageError> {
    let catalog = state.catalog.as_ref().ok_or(ManageError::Internal)?;
    let mut client = client(state).await?;
    store::set_secrets(&mut client, catalog.sealer(), secrets).await?;
    drop(client);
    tracing::info!(names = ?secrets.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), "functions: secrets set");
    refresh(state).await
}

/// Remove secrets; how many there were.
pub async fn unset_secrets(state: &FunctionsState, names: &[String]) -> Result<u64, ManageError> {
    let removed = store::unset_secrets(&*client(state).await?, names).await?;
    refresh(state).await?;
    Ok(removed)
}
