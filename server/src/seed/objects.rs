//! `[storage.buckets.<name>] objects_path`: every file under the path (relative to the project
//! folder) stored in the bucket under its path relative to that folder, as the Supabase CLI seeds
//! buckets at start and on `supabase seed buckets`. The content type comes from the extension; a
//! file already stored under that name with the same size is skipped, one of another size is
//! replaced. The bucket's `file_size_limit` and `allowed_mime_types` apply as to an upload: a
//! file they refuse is reported and left out.
//!
//! Bytes are written before the row, so a failure never leaves a row without bytes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use object_store::{ObjectStore, PutPayload};

use crate::project::Project;
use crate::storage::backend;
use crate::storage::db::object_metadata;
use crate::storage::limits::mime_allowed;
use crate::storage::md5_hash::Md5;

use super::SeedError;

/// What one pass did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Uploaded {
    /// `bucket/name` of each file stored.
    pub stored: Vec<String>,
    /// Files already there with the same size.
    pub unchanged: usize,
    /// `bucket/name: why`, for each file the bucket's limits refused.
    pub refused: Vec<String>,
}

/// Upload the files of every bucket with an `objects_path` (the buckets exist: the project has
/// been applied).
pub async fn upload(
    project: &Project,
    client: &deadpool_postgres::Object,
    store: &Arc<dyn ObjectStore>,
) -> Result<Uploaded, SeedError> {
    let mut out = Uploaded::default();
    for bucket in &project.config.buckets {
        let Some(path) = &bucket.objects_path else { continue };
        let root = project.dir.join(path);
        let mut files = Vec::new();
        walk(&root, &mut files)?;
        files.sort();
        let row = client
            .query_opt("select file_size_limit, allowed_mime_types from storage.buckets where id = $1", &[&bucket.name])
            .await?
            .ok_or_else(|| SeedError::Objects(format!("bucket {} does not exist", bucket.name)))?;
        let (limit, allowed): (Option<i64>, Option<Vec<String>>) = (row.get(0), row.get(1));
        for file in files {
            let name = relative_name(&root, &file);
            let bytes = std::fs::read(&file).map_err(|e| SeedError::Objects(format!("{}: {e}", file.display())))?;
            let size = bytes.len() as i64;
            let mime = content_type(&name);
            let label = format!("{}/{name}", bucket.name);
            if limit.is_some_and(|limit| size > limit) {
                out.refused.push(format!("{label}: the object exceeded the maximum allowed size"));
                continue;
            }
            if !mime_allowed(allowed.as_deref(), mime) {
                out.refused.push(format!("{label}: mime type {mime} is not supported"));
                continue;
            }
            let existing = client
                .query_opt(
                    "select version, (metadata->>'size')::bigint from storage.objects where bucket_id = $1 and name = $2",
                    &[&bucket.name, &name],
                )
                .await?;
            if let Some(row) = &existing {
                if row.get::<_, Option<i64>>(1) == Some(size) {
                    out.unchanged += 1;
                    continue;
                }
            }
            let version = uuid::Uuid::new_v4().to_string();
            let digest = Md5::digest(&bytes).ok_or_else(|| SeedError::Objects("OpenSSL's MD5 failed".into()))?;
            let etag = format!("\"{}\"", hex::encode(digest));
            store
                .put(&backend::key_of(&version), PutPayload::from(bytes))
                .await
                .map_err(|e| SeedError::Objects(format!("{label}: {e}")))?;
            let metadata = object_metadata(size as u64, &etag, mime, "max-age=3600");
            client
                .execute(
                    "insert into storage.objects (bucket_id, name, metadata, version) values ($1, $2, $3, $4) \
                     on conflict (bucket_id, name) do update set metadata = excluded.metadata, \
                     version = excluded.version, updated_at = now()",
                    &[&bucket.name, &name, &metadata, &version],
                )
                .await?;
            if let Some(old) = existing.and_then(|row| row.get::<_, Option<String>>(0)) {
                backend::delete_versions(store.as_ref(), [old]).await;
            }
            out.stored.push(label);
        }
    }
    Ok(out)
}

/// The files under `dir`, recursively (a missing folder has none, as for the CLI).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), SeedError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            tracing::warn!(path = %dir.display(), "seed: objects_path does not exist");
            return Ok(());
        }
        Err(e) => return Err(SeedError::Objects(format!("{}: {e}", dir.display()))),
    };
    for entry in entries {
        let path = entry.map_err(|e| SeedError::Objects(format!("{}: {e}", dir.display())))?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// The object name of `file`: its path under `root`, `/`-separated.
fn relative_name(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap_or(file);
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// The content type of a file name, from its extension (`application/octet-stream` when unknown).
pub fn content_type(name: &str) -> &'static str {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        "ico" => "image/x-icon",
        "pdf" => "application/pdf",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "csv" => "text/csv; charset=utf-8",
        "xml" => "text/xml; charset=utf-8",
        "md" => "text/markdown; charset=utf-8",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_content_type_comes_from_the_extension() {
        assert_eq!(content_type("cars/a.SVG"), "image/svg+xml");
        assert_eq!(content_type("a.jpeg"), "image/jpeg");
        assert_eq!(content_type("notes.txt"), "text/plain; charset=utf-8");
        assert_eq!(content_type("Makefile"), "application/octet-stream");
    }

    #[test]
    fn names_are_paths_relative_to_the_folder() {
        assert_eq!(relative_name(Path::new("/p/seed"), Path::new("/p/seed/a/b.png")), "a/b.png");
    }
}
