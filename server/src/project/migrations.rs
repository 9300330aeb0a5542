//! A project's migrations and seeds, kept as the Supabase CLI keeps them, so a database migrated
//! by the CLI is recognised here and the other way round.
//!
//! - Files `migrations/<version>_<name>.sql` (the version is digits), applied in version order.
//!   Each runs in one transaction with its history row: `supabase_migrations.schema_migrations
//!   (version, name, statements)`, the statements split as the CLI splits them (`split`).
//! - Seeds (`[db.seed] sql_paths`) run on a database whose history was empty, and are recorded
//!   in `supabase_migrations.seed_files (path, hash)`: a file already recorded is not run again;
//!   one whose content changed only has its hash updated, as the CLI does.
//! - Baselines (`-- squashes: …`) stand for the history they replace (`squash`), recognised
//!   before anything is applied.
//! - Several servers starting at once take turns (an advisory lock of their own).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use sha2::Digest;
use tokio_postgres::Client;

use super::split::split;
use super::ProjectError;

/// The CLI's history table, created as it creates it.
const HISTORY_DDL: &[&str] = &[
    "set lock_timeout = '4s'",
    "create schema if not exists supabase_migrations",
    "create table if not exists supabase_migrations.schema_migrations (version text not null primary key)",
    "alter table supabase_migrations.schema_migrations add column if not exists statements text[]",
    "alter table supabase_migrations.schema_migrations add column if not exists name text",
    "create table if not exists supabase_migrations.seed_files (path text not null primary key, hash text not null)",
    "reset lock_timeout",
];

/// The `search_path` migrations and seeds run with: the one Supabase's image gives the
/// `postgres` role (so `gen_salt()`, `uuid_generate_v4()` and the other functions of extensions
/// installed in `extensions` resolve as they do under the CLI). A file may set its own.
const SEARCH_PATH: &str = "set local search_path = \"$user\", public, extensions";

/// Advisory lock held while a project is migrated ("supa-prj").
const LOCK_KEY: i64 = 0x7375_7061_2d70_726a;

/// One migration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migration {
    pub version: String,
    pub name: String,
    pub path: PathBuf,
}

/// The migration files of the project folder `dir`, in version order; files whose names do not
/// have the CLI's form are skipped with a warning.
pub fn local(dir: &Path) -> Result<Vec<Migration>, ProjectError> {
    let folder = dir.join("migrations");
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(ProjectError::Io(folder, err)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| ProjectError::Io(folder.clone(), e))?;
        let file = entry.file_name().to_string_lossy().into_owned();
        if !entry.path().is_file() {
            continue;
        }
        match parse_name(&file) {
            Some((version, name)) => out.push(Migration { version, name, path: entry.path() }),
            None => tracing::warn!(
                file = %entry.path().display(),
                "project: skipping a migration whose name is not <timestamp>_<name>.sql"
            ),
        }
    }
    out.sort_by(|a, b| a.version.cmp(&b.version).then_with(|| a.name.cmp(&b.name)));
    Ok(out)
}

/// `supabase migration new NAME`: an empty `migrations/<UTC timestamp>_<name>.sql` in `dir`.
pub fn create(dir: &Path, name: &str) -> Result<PathBuf, ProjectError> {
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        return Err(ProjectError::Invalid(format!("{name:?} is not a migration name")));
    }
    let folder = dir.join("migrations");
    std::fs::create_dir_all(&folder).map_err(|e| ProjectError::Io(folder.clone(), e))?;
    let path = folder.join(format!("{}_{name}.sql", chrono::Utc::now().format("%Y%m%d%H%M%S")));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| ProjectError::Io(path.clone(), e))?;
    Ok(path)
}

/// `supabase migration list`: local and applied versions side by side, oldest first, with the
/// time each version names (UTC).
pub fn list_table(local: &[String], remote: &[String]) -> String {
    let mut rows: Vec<(String, String, String)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    let number = |v: &str| v.parse::<u128>().ok();
    while i < remote.len() || j < local.len() {
        let r = remote.get(i).map(|v| number(v));
        let l = local.get(j).map(|v| number(v));
        if r == Some(None) {
            i += 1;
            continue;
        }
        if l == Some(None) {
            j += 1;
            continue;
        }
        let (r, l) = (r.flatten().unwrap_or(u128::MAX), l.flatten().unwrap_or(u128::MAX));
        if l < r {
            rows.push((local[j].clone(), String::new(), when(&local[j])));
            j += 1;
        } else if r < l {
            rows.push((String::new(), remote[i].clone(), when(&remote[i])));
            i += 1;
        } else {
            rows.push((local[j].clone(), remote[i].clone(), when(&remote[i])));
            i += 1;
            j += 1;
        }
    }
    let width = |f: fn(&(String, String, String)) -> &String, title: &str| {
        rows.iter().map(|r| f(r).len()).chain([title.len()]).max().unwrap_or(0)
    };
    let (a, b, c) = (width(|r| &r.0, "Local"), width(|r| &r.1, "Remote"), width(|r| &r.2, "Time (UTC)"));
    let mut out = format!("\n   {:<a$} | {:<b$} | {:<c$} \n", "Local", "Remote", "Time (UTC)");
    out.push_str(&format!("  {}|{}|{}\n", "-".repeat(a + 2), "-".repeat(b + 2), "-".repeat(c + 2)));
    for (l, r, t) in rows {
        out.push_str(&format!("   {l:<a$} | {r:<b$} | {t:<c$} \n"));
    }
    out.push('\n');
    out
}

/// `20240101120000` as `2024-01-01 12:00:00`; another version as it is.
fn when(version: &str) -> String {
    chrono::NaiveDateTime::parse_from_str(version, "%Y%m%d%H%M%S")
        .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_else(|_| version.to_string())
}

/// `<digits>_<name>.sql` as (version, name).
fn parse_name(file: &str) -> Option<(String, String)> {
    let stem = file.strip_suffix(".sql")?;
    let (version, name) = stem.split_once('_')?;
    (!version.is_empty() && version.bytes().all(|b| b.is_ascii_digit())).then(|| (version.into(), name.into()))
}

/// Create the CLI's history tables if missing.
pub async fn ensure_history(client: &impl tokio_postgres::GenericClient) -> Result<(), ProjectError> {
    for statement in HISTORY_DDL {
        client.batch_execute(statement).await.map_err(|e| ProjectError::Db(format!("migration history: {e}")))?;
    }
    Ok(())
}

/// Applied versions with their names, in version order (none when the table is missing).
pub async fn applied(client: &Client) -> Result<Vec<(String, String)>, ProjectError> {
    let exists: bool = client
        .query_one("select to_regclass('supabase_migrations.schema_migrations') is not null", &[])
        .await
        .map_err(|e| ProjectError::Db(e.to_string()))?
        .get(0);
    if !exists {
        return Ok(Vec::new());
    }
    let rows = client
        .query("select version, coalesce(name, '') from supabase_migrations.schema_migrations order by version", &[])
        .await
        .map_err(|e| ProjectError::Db(e.to_string()))?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// What one run did.
#[derive(Debug, Default)]
pub struct Applied {
    /// `<version>_<name>` of each migration applied now.
    pub migrations: Vec<String>,
    /// Whether the history was empty before this run (a fresh database: seeds run).
    pub fresh: bool,
}

/// Apply the pending migrations of `migrations`, under the project's advisory lock.
pub async fn apply(client: &mut Client, migrations: &[Migration]) -> Result<Applied, ProjectError> {
    let db = |e: tokio_postgres::Error| ProjectError::Db(e.to_string());
    client.execute("select pg_advisory_lock($1)", &[&LOCK_KEY]).await.map_err(db)?;
    let result = apply_locked(client, migrations).await;
    client.execute("select pg_advisory_unlock($1)", &[&LOCK_KEY]).await.map_err(db)?;
    result
}

async fn apply_locked(client: &mut Client, migrations: &[Migration]) -> Result<Applied, ProjectError> {
    ensure_history(client).await?;
    // A history that a baseline of the folder squashes is recorded as that baseline first.
    super::squash::recognise(client, migrations).await?;
    let before = applied(client).await?;
    let done: HashSet<&str> = before.iter().map(|(v, _)| v.as_str()).collect();
    let local: HashSet<&str> = migrations.iter().map(|m| m.version.as_str()).collect();
    for (version, name) in &before {
        if !local.contains(version.as_str()) {
            tracing::warn!(version, name, "project: a migration applied to the database is not in the project folder");
        }
    }
    let mut out = Applied { migrations: Vec::new(), fresh: before.is_empty() };
    for migration in migrations.iter().filter(|m| !done.contains(m.version.as_str())) {
        run_one(client, migration).await?;
        tracing::info!(version = %migration.version, name = %migration.name, "project: migration applied");
        out.migrations.push(format!("{}_{}", migration.version, migration.name));
    }
    Ok(out)
}

/// One file's statements and its history row, in one transaction.
async fn run_one(client: &mut Client, migration: &Migration) -> Result<(), ProjectError> {
    let text = std::fs::read_to_string(&migration.path).map_err(|e| ProjectError::Io(migration.path.clone(), e))?;
    let statements = split(&text);
    let tx = client.transaction().await.map_err(|e| ProjectError::Db(e.to_string()))?;
    tx.batch_execute(SEARCH_PATH).await.map_err(|e| ProjectError::Db(e.to_string()))?;
    for (index, statement) in statements.iter().enumerate() {
        if let Err(err) = tx.batch_execute(statement).await {
            return Err(ProjectError::Migration {
                file: migration.path.display().to_string(),
                index,
                statement: statement.clone(),
                message: describe(&err),
            });
        }
    }
    tx.execute(
        "insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)",
        &[&migration.version, &migration.name, &statements],
    )
    .await
    .map_err(|e| ProjectError::Db(format!("record migration {}: {e}", migration.version)))?;
    tx.commit().await.map_err(|e| ProjectError::Db(e.to_string()))
}

/// Postgres's message, its detail and hint when it has them.
fn describe(err: &tokio_postgres::Error) -> String {
    match err.as_db_error() {
        Some(db) => {
            let mut text = format!("{} (SQLSTATE {})", db.message(), db.code().code());
            if let Some(detail) = db.detail() {
                text.push_str(&format!("\n{detail}"));
            }
            if let Some(hint) = db.hint() {
                text.push_str(&format!("\nhint: {hint}"));
            }
            text
        }
        None => err.to_string(),
    }
}

/// Run the seed files not recorded yet (all of them when `again`: `server seed`); `base` is the
/// folder their recorded paths are relative to (the project folder's parent, as the CLI records
/// `supabase/seed.sql`). Returns the files run.
pub async fn seed(
    client: &mut Client,
    base: &Path,
    files: &[PathBuf],
    again: bool,
) -> Result<Vec<String>, ProjectError> {
    ensure_history(client).await?;
    let db = |e: tokio_postgres::Error| ProjectError::Db(e.to_string());
    let recorded: Vec<(String, String)> = client
        .query("select path, hash from supabase_migrations.seed_files", &[])
        .await
        .map_err(db)?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let mut ran = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| ProjectError::Io(file.clone(), e))?;
        let hash = hex::encode(sha2::Sha256::digest(text.as_bytes()));
        let path = file.strip_prefix(base).unwrap_or(file).to_string_lossy().into_owned();
        let known = recorded.iter().find(|(p, _)| *p == path);
        if !again && known.is_some_and(|(_, h)| *h == hash) {
            continue;
        }
        let tx = client.transaction().await.map_err(db)?;
        tx.batch_execute(SEARCH_PATH).await.map_err(db)?;
        if again || known.is_none() {
            for (index, statement) in split(&text).iter().enumerate() {
                if let Err(err) = tx.batch_execute(statement).await {
                    return Err(ProjectError::Migration {
                        file: file.display().to_string(),
                        index,
                        statement: statement.clone(),
                        message: describe(&err),
                    });
                }
            }
            ran.push(path.clone());
        }
        tx.execute(
            "insert into supabase_migrations.seed_files (path, hash) values ($1, $2) \
             on conflict (path) do update set hash = excluded.hash",
            &[&path, &hash],
        )
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
    }
    Ok(ran)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migration_names_are_digits_underscore_name_dot_sql() {
        assert_eq!(
            parse_name("20240101120000_create_todos.sql"),
            Some(("20240101120000".into(), "create_todos".into()))
        );
        assert_eq!(parse_name("0_init.sql"), Some(("0".into(), "init".into())));
        assert_eq!(parse_name("create_todos.sql"), None);
        assert_eq!(parse_name("2024_x.txt"), None);
        assert_eq!(parse_name("v1_x.sql"), None);
    }

    #[test]
    fn the_list_puts_local_and_applied_versions_side_by_side_in_time_order() {
        let local = vec!["20240101000000".to_string(), "20240301000000".to_string()];
        let remote = vec!["20240101000000".to_string(), "20240201000000".to_string()];
        let table = list_table(&local, &remote);
        let lines: Vec<&str> = table.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines[0].split('|').map(str::trim).collect::<Vec<_>>(), vec!["Local", "Remote", "Time (UTC)"]);
        let rows: Vec<Vec<&str>> = lines[2..].iter().map(|l| l.split('|').map(str::trim).collect()).collect();
        assert_eq!(
            rows,
            vec![
                vec!["20240101000000", "20240101000000", "2024-01-01 00:00:00"],
                vec!["", "20240201000000", "2024-02-01 00:00:00"],
                vec!["20240301000000", "", "2024-03-01 00:00:00"],
            ]
        );
    }

    #[test]
    fn a_new_migration_is_an_empty_timestamped_file() {
        let dir = std::env::temp_dir().join(format!("project-new-{}", std::process::id()));
        let path = create(&dir, "create_todos").unwrap();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let (version, name) = parse_name(&file).unwrap();
        assert_eq!((version.len(), name.as_str()), (14, "create_todos"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
        assert!(create(&dir, "../escape").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn local_migrations_come_in_version_order_and_odd_names_are_skipped() {
        let dir = std::env::temp_dir().join(format!("project-migrations-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("migrations")).unwrap();
        for name in ["20240102000000_second.sql", "20240101000000_first.sql", "notes.md", "x.sql"] {
            std::fs::write(dir.join("migrations").join(name), "select 1;").unwrap();
        }
        let found: Vec<String> =
            local(&dir).unwrap().into_iter().map(|m| format!("{}_{}", m.version, m.name)).collect();
        assert_eq!(found, vec!["20240101000000_first", "20240102000000_second"]);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(local(&dir).unwrap().is_empty(), "no folder, no migrations");
    }
}
