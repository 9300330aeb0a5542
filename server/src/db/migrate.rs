//! Applies the ordered SQL files of `sql/migrations/` (embedded in the binary at build time).
//!
//! Each file runs once, in its own transaction, and is recorded with a checksum in
//! `supabase_migrations.refinery_history` (refinery does the bookkeeping). A failing file
//! stops start-up with the file name, line and Postgres message; a file changed after being
//! applied is reported as divergent, never silently re-run. This module does not seed data.
//!
//! Several servers may start at once. On one database they take turns (a session advisory
//! lock). Across databases of one cluster they share the catalogs of roles (`create role`,
//! `grant`, `alter role ... set`), where Postgres refuses the second of two concurrent changes
//! with "tuple concurrently updated" or a duplicate role; the migration that lost is rolled
//! back by its transaction and the run is retried after a short pause.

use deadpool_postgres::Pool;
use tokio_postgres::error::ErrorPosition;

mod embedded {
    refinery::embed_migrations!("../sql/migrations");
}

/// Table that records applied migrations (outside the exposed `public` schema).
const HISTORY_TABLE: &str = "supabase_migrations.refinery_history";

/// Why migrations could not be applied.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("cannot connect to the database: {0}")]
    Connect(String),
    #[error("migration {file} failed at line {line}: {message}")]
    Failed { file: String, line: usize, message: String },
    #[error("migration error: {0}")]
    Other(String),
}

/// Advisory lock key held while migrating one database ("supa-mig" in ASCII).
const LOCK_KEY: i64 = 0x7375_7061_2d6d_6967;

/// How many times a run that lost a race on the shared role catalogs is tried again.
const RACE_RETRIES: u32 = 8;

/// Apply pending migrations; returns the names of those applied now.
pub async fn run(pool: &Pool) -> Result<Vec<String>, MigrateError> {
    let mut client = pool.get().await.map_err(|e| MigrateError::Connect(e.to_string()))?;
    let connect = |e: tokio_postgres::Error| MigrateError::Connect(e.to_string());
    client.execute("select pg_advisory_lock($1)", &[&LOCK_KEY]).await.map_err(connect)?;
    let result = run_locked(&mut client).await;
    // Closing the session would release the lock too, but the pool keeps connections open.
    client.execute("select pg_advisory_unlock($1)", &[&LOCK_KEY]).await.map_err(connect)?;
    result
}

/// The migration run proper, under the advisory lock, retried when it lost a catalog race.
async fn run_locked(client: &mut tokio_postgres::Client) -> Result<Vec<String>, MigrateError> {
    client
        .batch_execute("create schema if not exists supabase_migrations")
        .await
        .map_err(|e| MigrateError::Connect(e.to_string()))?;
    let mut applied = Vec::new();
    let mut attempt = 0;
    loop {
        let mut runner = embedded::migrations::runner().set_abort_divergent(true).set_abort_missing(true);
        runner.set_migration_table_name(HISTORY_TABLE);
        match runner.run_async(client).await {
            Ok(report) => {
                applied.extend(report.applied_migrations().iter().map(|m| m.to_string()));
                for name in &applied {
                    tracing::info!(migration = %name, "applied migration");
                }
                return Ok(applied);
            }
            Err(err) if attempt < RACE_RETRIES && lost_catalog_race(&err) => {
                attempt += 1;
                if let Some(report) = err.report() {
                    applied.extend(report.applied_migrations().iter().map(|m| m.to_string()));
                }
                tracing::debug!(attempt, error = %err, "migration lost a race on the role catalogs; retrying");
                let pause = 20 * u64::from(attempt) + rand::random::<u64>() % 50;
                tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
            }
            Err(err) => return Err(describe(&err)),
        }
    }
}

/// Whether the error is another database's concurrent change of a cluster-wide catalog.
fn lost_catalog_race(err: &refinery::Error) -> bool {
    let refinery::error::Kind::Connection(_, source) = err.kind() else { return false };
    let Some(db) = source.downcast_ref::<tokio_postgres::Error>().and_then(|e| e.as_db_error()) else {
        return false;
    };
    let code = db.code();
    (*code == tokio_postgres::error::SqlState::INTERNAL_ERROR && db.message() == "tuple concurrently updated")
        || (*code == tokio_postgres::error::SqlState::UNIQUE_VIOLATION
            && db.constraint().is_some_and(|c| c.starts_with("pg_")))
}

/// Turn refinery's error into one naming the file, the line and Postgres' message.
fn describe(err: &refinery::Error) -> MigrateError {
    use refinery::error::Kind;
    match err.kind() {
        Kind::Connection(context, source) => {
            let file = context.trim_start_matches("error applying migration ").to_string();
            let Some(pg) = source.downcast_ref::<tokio_postgres::Error>() else {
                return MigrateError::Other(format!("{context}: {source}"));
            };
            let Some(db) = pg.as_db_error() else {
                return MigrateError::Other(format!("{context}: {pg}"));
            };
            let line = match db.position() {
                Some(ErrorPosition::Original(pos)) => line_of(&file, *pos as usize),
                _ => 0,
            };
            MigrateError::Failed { file, line, message: db.message().to_string() }
        }
        other => MigrateError::Other(other.to_string()),
    }
}

/// 1-based line of the character at `pos` (1-based) in the embedded migration named `file`.
fn line_of(file: &str, pos: usize) -> usize {
    let migrations = embedded::migrations::runner().get_migrations().clone();
    let Some(sql) = migrations.iter().find(|m| m.to_string() == file).and_then(|m| m.sql().map(str::to_string)) else {
        return 0;
    };
    sql.chars().take(pos.saturating_sub(1)).filter(|c| *c == '\n').count() + 1
}

/// Names of all embedded migrations, in order.
pub fn embedded_names() -> Vec<String> {
    embedded::migrations::runner().get_migrations().iter().map(|m| m.to_string()).collect()
}
