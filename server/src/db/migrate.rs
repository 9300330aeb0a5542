//! Applies the ordered SQL files of `sql/migrations/` (embedded in the binary at build time).
//!
//! Each file runs once, in its own transaction, and is recorded with a checksum in
//! `supabase_migrations.refinery_history` (refinery does the bookkeeping). A failing file
//! stops start-up with the file name, line and Postgres message; a file changed after being
//! applied is reported as divergent, never silently re-run. This module does not seed data.

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

/// Apply pending migrations; returns the names of those applied now.
pub async fn run(pool: &Pool) -> Result<Vec<String>, MigrateError> {
    let mut client = pool.get().await.map_err(|e| MigrateError::Connect(e.to_string()))?;
    client
        .batch_execute("create schema if not exists supabase_migrations")
        .await
        .map_err(|e| MigrateError::Connect(e.to_string()))?;
    let mut runner = embedded::migrations::runner().set_abort_divergent(true).set_abort_missing(true);
    runner.set_migration_table_name(HISTORY_TABLE);
    let client: &mut tokio_postgres::Client = &mut client;
    match runner.run_async(client).await {
        Ok(report) => {
            let applied: Vec<String> = report.applied_migrations().iter().map(|m| m.to_string()).collect();
            for name in &applied {
                tracing::info!(migration = %name, "applied migration");
            }
            Ok(applied)
        }
        Err(err) => Err(describe(&err)),
    }
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
