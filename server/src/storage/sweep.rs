//! Removing bytes no object row points at: what an interrupted upload left behind.
//!
//! A process killed mid-upload leaves, in the `file` backend, the staging file of the upload
//! (`objects/xx/<version>#<n>`, or `#direct` when the server wrote it itself), and a process killed between writing the bytes and committing
//! the row leaves a whole version nobody references. Both are removed once they are older than
//! `GRACE` (an upload in progress keeps writing, so its files stay fresh), at start-up and then
//! every hour. Rows are never touched: bytes follow rows, not the other way round. On S3,
//! unfinished multipart uploads are left to the bucket's `AbortIncompleteMultipartUpload`
//! lifecycle rule; orphaned whole versions are removed here as on disk. Resumable uploads past
//! their expiry, chunks whose upload is gone, and kept image renders of versions no object
//! points at go the same way.

use crate::db::cached::CachedQueries;
use std::path::Path as FsPath;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use futures_util::StreamExt;
use object_store::path::Path;

use super::StorageState;

/// How old leftovers must be before they are removed.
pub const GRACE: Duration = Duration::from_secs(3600);
const EVERY: Duration = Duration::from_secs(3600);

/// What a sweep removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    pub staging_files: usize,
    pub orphan_versions: usize,
    /// Resumable uploads past their expiry, and chunks of uploads that no longer exist.
    pub expired_uploads: usize,
    pub orphan_chunks: usize,
    /// Kept image transformations of versions no object points at.
    pub orphan_renders: usize,
}

/// Sweep now, then every hour, in the background.
pub fn spawn(state: Arc<StorageState>, local_dir: Option<std::path::PathBuf>) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(EVERY);
        loop {
            tick.tick().await;
            match sweep(&state, local_dir.as_deref(), GRACE).await {
                Ok(s) if s != Swept::default() => tracing::info!(
                    staging_files = s.staging_files,
                    orphan_versions = s.orphan_versions,
                    expired_uploads = s.expired_uploads,
                    orphan_chunks = s.orphan_chunks,
                    orphan_renders = s.orphan_renders,
                    "storage: removed the leftovers of interrupted uploads"
                ),
                Ok(_) => {}
                Err(err) => tracing::warn!(error = %err, "storage: sweeping interrupted uploads failed"),
            }
        }
    });
}

/// Remove staging files (local backend, `local_dir`) and unreferenced versions older than `grace`.
pub async fn sweep(state: &StorageState, local_dir: Option<&FsPath>, grace: Duration) -> Result<Swept, String> {
    let cutoff = SystemTime::now().checked_sub(grace).unwrap_or(SystemTime::UNIX_EPOCH);
    let mut swept = Swept::default();
    if let Some(dir) = local_dir {
        swept.staging_files = remove_staging_files(&dir.join("objects"), cutoff);
    }
    let client = state.admin.get().await.map_err(|e| e.to_string())?;
    const REFERENCED: &str = "select version from storage.objects where version = any($1)";
    // Whole versions: listed by the store (which hides staging files), checked against the rows.
    let version_of = |p: &Path| p.filename().map(str::to_string);
    swept.orphan_versions = remove_unowned(state, &client, "objects", cutoff, version_of, REFERENCED).await?;
    // Kept image renders of versions no row points at (an object deleted or overwritten).
    let second = |p: &Path| p.parts().nth(1).map(|part| part.as_ref().to_string());
    swept.orphan_renders = remove_unowned(state, &client, "render", cutoff, second, REFERENCED).await?;
    swept.expired_uploads = super::tus::expire(state).await? + super::s3::multipart::expire(state).await?;
    // Chunks of resumable uploads whose state is gone (a deleted bucket, a crash mid-finish).
    let upload_of = |p: &Path| second(p).filter(|id| uuid::Uuid::parse_str(id).is_ok());
    let alive = "select id::text from storage.tus_uploads where id = any($1::text[]::uuid[])";
    swept.orphan_chunks = remove_unowned(state, &client, "tus", cutoff, upload_of, alive).await?;
    Ok(swept)
}

/// Delete the objects under `prefix` last written before `cutoff` whose owner (the text `owner`
/// reads from the path) `owned` does not return; how many went. `owned` takes a text array.
async fn remove_unowned(
    state: &StorageState,
    db: &deadpool_postgres::Object,
    prefix: &str,
    cutoff: SystemTime,
    owner: impl Fn(&Path) -> Option<String>,
    owned: &str,
) -> Result<usize, String> {
    let mut old: Vec<(Path, String)> = Vec::new();
    let mut listing = state.store.list(Some(&Path::from(prefix)));
    while let Some(meta) = listing.next().await {
        let meta = meta.map_err(|e| e.to_string())?;
        let modified: SystemTime = meta.last_modified.into();
        if let (true, Some(id)) = (modified < cutoff, owner(&meta.location)) {
            old.push((meta.location, id));
        }
    }
    let mut removed = 0;
    for batch in old.chunks(1000) {
        let ids: Vec<&str> = batch.iter().map(|(_, id)| id.as_str()).collect();
        let kept: Vec<String> =
            db.cached_query(owned, &[&ids]).await.map_err(|e| e.to_string())?.iter().map(|r| r.get(0)).collect();
        for (location, id) in batch {
            if !kept.contains(id) && state.store.delete(location).await.is_ok() {
                removed += 1;
            }
        }
    }
    Ok(removed)
}

/// Delete `<version>#<n>` (and `<version>#direct`) files under `objects/<shard>/` last written before `cutoff`.
fn remove_staging_files(objects: &FsPath, cutoff: SystemTime) -> usize {
    let mut removed = 0;
    let Ok(shards) = std::fs::read_dir(objects) else { return 0 };
    for shard in shards.flatten() {
        let Ok(files) = std::fs::read_dir(shard.path()) else { continue };
        for file in files.flatten() {
            let staging = file.file_name().to_string_lossy().contains('#');
            let old = file.metadata().and_then(|m| m.modified()).is_ok_and(|t| t < cutoff);
            if staging && old && std::fs::remove_file(file.path()).is_ok() {
                removed += 1;
            }
        }
    }
    removed
}
