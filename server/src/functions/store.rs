//! The deployed functions, their secrets and their logs in Postgres (`edge_functions`, migration
//! V81): what the management API, the CLI and every instance's catalog read and write. Values are
//! bound parameters; secrets go in and come out through a [`Sealer`] and are never logged.
//!
//! It validates what it stores (names, file paths, sizes) and decides nothing about serving.

use chrono::{DateTime, Utc};
use secrecy::SecretString;
use tokio_postgres::Client;

use super::registry::valid_name;
use super::seal::{digest, Sealer};

/// Largest deployed bundle (all files together), in bytes.
pub const MAX_BUNDLE_BYTES: usize = 20 * 1024 * 1024;
/// Most files a function may have.
pub const MAX_FILES: usize = 2000;
/// Log lines kept per function (older ones pruned).
pub const LOGS_KEPT: i64 = 1000;
/// Log lines older than this are pruned whatever their number.
pub const LOGS_MAX_AGE_DAYS: i32 = 7;

/// Why something was not stored.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// What was given is not acceptable (the message says why; it holds no secret).
    #[error("{0}")]
    Invalid(String),
    #[error("database: {0}")]
    Db(#[from] tokio_postgres::Error),
}

/// A function to deploy.
#[derive(Debug, Clone, Default)]
pub struct Deploy {
    pub slug: String,
    pub name: Option<String>,
    pub entrypoint_path: String,
    pub import_map_path: Option<String>,
    pub verify_jwt: bool,
    /// Relative paths and contents.
    pub files: Vec<(String, Vec<u8>)>,
}

/// A deployed function's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deployed {
    pub id: uuid::Uuid,
    pub slug: String,
    pub name: String,
    pub version: i32,
    pub entrypoint_path: String,
    pub import_map_path: Option<String>,
    pub verify_jwt: bool,
    pub sha256: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A secret as listed: its name and the digest of its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedSecret {
    pub name: String,
    pub digest: String,
    pub updated_at: DateTime<Utc>,
}

/// One line a function printed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LogLine {
    pub function: String,
    pub level: String,
    pub message: String,
    pub request_id: Option<String>,
    pub execution_id: Option<String>,
    #[serde(default)]
    pub timestamp: Option<DateTime<Utc>>,
}

/// A relative, `/`-separated path without `.` or `..` parts (a leading `/` or `file://` is
/// dropped, as the Supabase CLI may send absolute names); `None` when it cannot be one.
pub fn relative_path(path: &str) -> Option<String> {
    let path = path.strip_prefix("file://").unwrap_or(path).replace('\\', "/");
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
    if parts.is_empty() || parts.iter().any(|p| *p == ".." || p.contains('\0')) {
        return None;
    }
    let joined = parts.join("/");
    (joined.len() <= 1024).then_some(joined)
}

/// Whether `name` may be a secret's name: a variable name, not starting with `SUPABASE_`.
pub fn valid_secret_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !name.to_ascii_uppercase().starts_with("SUPABASE_")
}

/// The SHA-256 of a bundle: paths and contents, sorted by path.
pub fn bundle_sha256(files: &[(String, Vec<u8>)]) -> String {
    use sha2::Digest;
    let mut sorted: Vec<&(String, Vec<u8>)> = files.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut hasher = sha2::Sha256::new();
    for (path, content) in sorted {
        hasher.update((path.len() as u64).to_be_bytes());
        hasher.update(path.as_bytes());
        hasher.update((content.len() as u64).to_be_bytes());
        hasher.update(content);
    }
    hex::encode(hasher.finalize())
}

/// Check a deploy and normalize its paths.
fn checked(mut deploy: Deploy) -> Result<Deploy, StoreError> {
    let invalid = |m: String| Err(StoreError::Invalid(m));
    if !valid_name(&deploy.slug) {
        return invalid(format!("{:?} is not a function name: letters, digits, - and _ only", deploy.slug));
    }
    if deploy.files.is_empty() {
        return invalid("a function needs at least one file".into());
    }
    if deploy.files.len() > MAX_FILES {
        return invalid(format!("a function has at most {MAX_FILES} files"));
    }
    if deploy.files.iter().map(|(_, c)| c.len()).sum::<usize>() > MAX_BUNDLE_BYTES {
        return invalid(format!("a function's files are at most {MAX_BUNDLE_BYTES} bytes together"));
    }
    let mut files = Vec::with_capacity(deploy.files.len());
    for (path, content) in std::mem::take(&mut deploy.files) {
        let Some(path) = relative_path(&path) else { return invalid(format!("{path:?} is not a relative file path")) };
        if files.iter().any(|(p, _): &(String, Vec<u8>)| *p == path) {
            return invalid(format!("{path} is given twice"));
        }
        files.push((path, content));
    }
    deploy.files = files;
    let Some(entry) = relative_path(&deploy.entrypoint_path) else {
        return invalid(format!("{:?} is not a relative file path", deploy.entrypoint_path));
    };
    if !deploy.files.iter().any(|(p, _)| *p == entry) {
        return invalid(format!("the entrypoint {entry} is not among the files"));
    }
    deploy.entrypoint_path = entry;
    deploy.import_map_path = deploy.import_map_path.as_deref().and_then(relative_path);
    Ok(deploy)
}

const COLUMNS: &str =
    "id, slug, name, version, entrypoint_path, import_map_path, verify_jwt, sha256, created_at, updated_at";

fn row_of(row: &tokio_postgres::Row) -> Deployed {
    Deployed {
        id: row.get(0),
        slug: row.get(1),
        name: row.get(2),
        version: row.get(3),
        entrypoint_path: row.get(4),
        import_map_path: row.get(5),
        verify_jwt: row.get(6),
        sha256: row.get(7),
        created_at: row.get(8),
        updated_at: row.get(9),
    }
}

/// Create or replace a function and its files, in one transaction; its new metadata.
pub async fn deploy(client: &mut Client, deploy: Deploy) -> Result<Deployed, StoreError> {
    let deploy = checked(deploy)?;
    let sha = bundle_sha256(&deploy.files);
    let name = deploy.name.clone().filter(|n| !n.trim().is_empty()).unwrap_or_else(|| deploy.slug.clone());
    let import_map = match &deploy.import_map_path {
        Some(path) => deploy
            .files
            .iter()
            .find(|(p, _)| p == path)
            .and_then(|(_, c)| serde_json::from_slice::<serde_json::Value>(c).ok()),
        None => None,
    };
    let tx = client.transaction().await?;
    let row = tx
        .query_one(
            &format!(
                "insert into edge_functions.functions as f
                   (slug, name, entrypoint_path, import_map_path, import_map, verify_jwt, sha256)
                 values ($1, $2, $3, $4, $5, $6, $7)
                 on conflict (slug) do update set name = excluded.name, version = f.version + 1,
                   entrypoint_path = excluded.entrypoint_path, import_map_path = excluded.import_map_path,
                   import_map = excluded.import_map, verify_jwt = excluded.verify_jwt,
                   sha256 = excluded.sha256, updated_at = now()
                 returning {COLUMNS}"
            ),
            &[
                &deploy.slug,
                &name,
                &deploy.entrypoint_path,
                &deploy.import_map_path,
                &import_map,
                &deploy.verify_jwt,
                &sha,
            ],
        )
        .await?;
    let deployed = row_of(&row);
    tx.execute("delete from edge_functions.files where function_id = $1", &[&deployed.id]).await?;
    let insert =
        tx.prepare("insert into edge_functions.files (function_id, path, content) values ($1, $2, $3)").await?;
    for (path, content) in &deploy.files {
        tx.execute(&insert, &[&deployed.id, path, content]).await?;
    }
    tx.commit().await?;
    Ok(deployed)
}

/// Change a deployed function's settings (`verify_jwt`, its display name); `None` if unknown.
pub async fn update(
    client: &Client,
    slug: &str,
    name: Option<&str>,
    verify_jwt: Option<bool>,
) -> Result<Option<Deployed>, StoreError> {
    let row = client
        .query_opt(
            &format!(
                "update edge_functions.functions set name = coalesce($2, name),
                   verify_jwt = coalesce($3, verify_jwt), updated_at = now()
                 where slug = $1 returning {COLUMNS}"
            ),
            &[&slug, &name, &verify_jwt],
        )
        .await?;
    Ok(row.as_ref().map(row_of))
}

/// Every deployed function, by slug.
pub async fn list(client: &Client) -> Result<Vec<Deployed>, StoreError> {
    let rows = client.query(&format!("select {COLUMNS} from edge_functions.functions order by slug"), &[]).await?;
    Ok(rows.iter().map(row_of).collect())
}

/// One deployed function.
pub async fn get(client: &Client, slug: &str) -> Result<Option<Deployed>, StoreError> {
    let row =
        client.query_opt(&format!("select {COLUMNS} from edge_functions.functions where slug = $1"), &[&slug]).await?;
    Ok(row.as_ref().map(row_of))
}

/// The files of a deployed function.
pub async fn files(client: &Client, id: uuid::Uuid) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
    let rows = client
        .query("select path, content from edge_functions.files where function_id = $1 order by path", &[&id])
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Remove a deployed function; whether there was one.
pub async fn delete(client: &Client, slug: &str) -> Result<bool, StoreError> {
    Ok(client.execute("delete from edge_functions.functions where slug = $1", &[&slug]).await? > 0)
}

/// The secrets' names and digests.
pub async fn list_secrets(client: &Client) -> Result<Vec<ListedSecret>, StoreError> {
    let rows = client.query("select name, digest, updated_at from edge_functions.secrets order by name", &[]).await?;
    Ok(rows.iter().map(|r| ListedSecret { name: r.get(0), digest: r.get(1), updated_at: r.get(2) }).collect())
}

/// Set secrets (sealed), in one transaction.
pub async fn set_secrets(
    client: &mut Client,
    sealer: &Sealer,
    secrets: &[(String, SecretString)],
) -> Result<(), StoreError> {
    if let Some((name, _)) = secrets.iter().find(|(name, _)| !valid_secret_name(name)) {
        return Err(StoreError::Invalid(format!(
            "{name:?} is not a secret name: letters, digits and _, not starting with a digit or SUPABASE_"
        )));
    }
    let tx = client.transaction().await?;
    let upsert = tx
        .prepare(
            "insert into edge_functions.secrets (name, sealed, digest) values ($1, $2, $3)
             on conflict (name) do update set sealed = excluded.sealed, digest = excluded.digest, updated_at = now()",
        )
        .await?;
    for (name, value) in secrets {
        tx.execute(&upsert, &[name, &sealer.seal(name, value), &digest(value)]).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Remove secrets; how many there were.
pub async fn unset_secrets(client: &Client, names: &[String]) -> Result<u64, StoreError> {
    Ok(client.execute("delete from edge_functions.secrets where name = any($1)", &[&names]).await?)
}

/// Every secret, opened, with the digest of them all (the version the workers' environment has).
/// A secret that does not open (sealed under another JWT secret) is left out and named in the log.
pub async fn open_secrets(
    client: &Client,
    sealer: &Sealer,
) -> Result<(Vec<(String, SecretString)>, String), StoreError> {
    use sha2::Digest;
    let rows = client.query("select name, sealed, digest from edge_functions.secrets order by name", &[]).await?;
    let mut version = sha2::Sha256::new();
    let mut secrets = Vec::with_capacity(rows.len());
    for row in &rows {
        let name: String = row.get(0);
        let sealed: Vec<u8> = row.get(1);
        let digest: String = row.get(2);
        match sealer.open(&name, &sealed) {
            Ok(value) => {
                version.update(name.as_bytes());
                version.update(b"=");
                version.update(digest.as_bytes());
                version.update(b"\n");
                secrets.push((name, value));
            }
            Err(err) => tracing::error!(secret = %name, "functions: {err}; set it again"),
        }
    }
    Ok((secrets, hex::encode(&version.finalize()[..8])))
}

/// Keep log lines.
pub async fn insert_logs(client: &Client, lines: &[LogLine]) -> Result<(), StoreError> {
    let functions: Vec<&str> = lines.iter().map(|l| l.function.as_str()).collect();
    let levels: Vec<&str> = lines.iter().map(|l| l.level.as_str()).collect();
    let messages: Vec<&str> = lines.iter().map(|l| l.message.as_str()).collect();
    let requests: Vec<Option<&str>> = lines.iter().map(|l| l.request_id.as_deref()).collect();
    let executions: Vec<Option<&str>> = lines.iter().map(|l| l.execution_id.as_deref()).collect();
    let times: Vec<DateTime<Utc>> = lines.iter().map(|l| l.timestamp.unwrap_or_else(Utc::now)).collect();
    client
        .execute(
            "insert into edge_functions.logs (function_slug, level, message, request_id, execution_id, created_at)
             select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])",
            &[&functions, &levels, &messages, &requests, &executions, &times],
        )
        .await?;
    Ok(())
}

/// Drop the log lines past the per-function count and the age limit.
pub async fn prune_logs(client: &Client) -> Result<u64, StoreError> {
    let aged = client
        .execute(
            "delete from edge_functions.logs where created_at < now() - make_interval(days => $1)",
            &[&LOGS_MAX_AGE_DAYS],
        )
        .await?;
    let over = client
        .execute(
            "delete from edge_functions.logs l using (
               select function_slug, id from (
                 select function_slug, id, row_number() over (partition by function_slug order by id desc) as n
                 from edge_functions.logs) ranked
               where n > $1) old
             where l.id = old.id",
            &[&LOGS_KEPT],
        )
        .await?;
    Ok(aged + over)
}

/// The latest `limit` log lines of a function, oldest first.
pub async fn logs(client: &Client, slug: &str, limit: i64) -> Result<Vec<LogLine>, StoreError> {
    let rows = client
        .query(
            "select function_slug, level, message, request_id, execution_id, created_at from (
               select * from edge_functions.logs where function_slug = $1 order by id desc limit $2) last
             order by id",
            &[&slug, &limit],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| LogLine {
            function: r.get(0),
            level: r.get(1),
            message: r.get(2),
            request_id: r.get(3),
            execution_id: r.get(4),
            timestamp: Some(r.get(5)),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_made_relative_and_parent_parts_refused() {
        assert_eq!(relative_path("hello/index.ts").as_deref(), Some("hello/index.ts"));
        assert_eq!(
            relative_path("/supabase/functions/./hello/index.ts").as_deref(),
            Some("supabase/functions/hello/index.ts")
        );
        assert_eq!(relative_path("file:///p/index.ts").as_deref(), Some("p/index.ts"));
        for bad in ["", "/", "../x", "a/../../b", "a/..", "a\0b"] {
            assert_eq!(relative_path(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn secret_names_are_variable_names_outside_supabase_s() {
        for good in ["STRIPE_KEY", "_x", "a1"] {
            assert!(valid_secret_name(good), "{good}");
        }
        for bad in ["", "1A", "A-B", "SUPABASE_URL", "supabase_x", "A B"] {
            assert!(!valid_secret_name(bad), "{bad}");
        }
    }

    #[test]
    fn a_deploy_needs_its_entrypoint_among_files_with_sane_paths() {
        let base = Deploy {
            slug: "hello".into(),
            entrypoint_path: "hello/index.ts".into(),
            files: vec![("hello/index.ts".into(), b"x".to_vec())],
            ..Default::default()
        };
        assert!(checked(base.clone()).is_ok());
        let cases = [
            Deploy { slug: "_shared".into(), ..base.clone() },
            Deploy { entrypoint_path: "other.ts".into(), ..base.clone() },
            Deploy { files: vec![], ..base.clone() },
            Deploy { files: vec![("../x".into(), vec![])], ..base.clone() },
            Deploy {
                files: vec![("hello/index.ts".into(), vec![]), ("/hello/index.ts".into(), vec![])],
                ..base.clone()
            },
        ];
        for case in cases {
            assert!(matches!(checked(case.clone()), Err(StoreError::Invalid(_))), "{case:?}");
        }
    }

    #[test]
    fn the_bundle_digest_ignores_order_and_sees_contents_and_paths() {
        let a = vec![("a".to_string(), b"1".to_vec()), ("b".to_string(), b"2".to_vec())];
        let reversed: Vec<_> = a.iter().rev().cloned().collect();
        assert_eq!(bundle_sha256(&a), bundle_sha256(&reversed));
        assert_ne!(bundle_sha256(&a), bundle_sha256(&[("a".to_string(), b"12".to_vec())]));
        assert_ne!(
            bundle_sha256(&a),
            bundle_sha256(&[("a".to_string(), b"1".to_vec()), ("c".to_string(), b"2".to_vec())])
        );
    }
}
