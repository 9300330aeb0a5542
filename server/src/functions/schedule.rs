//! Function schedules: `[functions.<name>] schedule = "<cron expression>"` in `config.toml` (a
//! key of this server; the Supabase CLI has none) becomes a pg_cron job named
//! `function:<name>` whose command enqueues a POST to the function on the outbox
//! (`supabase_functions.invoke_scheduled`, V80), so a run is delivered at least once even when
//! the function is down at that minute.
//!
//! Run at each start, by every instance (idempotent): jobs are created or updated, and the
//! `function:*` jobs of schedules no longer in the file are removed. pg_cron runs in one database
//! of a cluster (`cron.database_name`); when this server's database is not that one, or pg_cron
//! is not loaded or installed, the schedules are not applied and the start says why. This module
//! never touches jobs it did not name.

use deadpool_postgres::Pool;

use crate::db::cached::CachedQueries;

/// Prefix of the jobs this module owns.
pub const JOB_PREFIX: &str = "function:";

/// Why pg_cron cannot run the schedules.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Unavailable {
    #[error("pg_cron is not installed on the database server (Debian: postgresql-<major>-cron; `make setup-system` installs it)")]
    NotInstalled,
    #[error("pg_cron is installed but not loaded (shared_preload_libraries must include pg_cron; the embedded cluster does)")]
    NotLoaded,
    #[error("pg_cron runs in database {cron} (cron.database_name), and this server's database is {this}")]
    OtherDatabase { cron: String, this: String },
}

/// What the database says about pg_cron.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CronState {
    pub this_database: String,
    /// `cron.database_name`, when pg_cron is loaded.
    pub cron_database: Option<String>,
    pub installed: bool,
    pub available: bool,
}

impl CronState {
    /// Whether the extension is usable here, or may be created here.
    pub fn check(&self) -> Result<(), Unavailable> {
        if self.installed {
            return Ok(());
        }
        if !self.available {
            return Err(Unavailable::NotInstalled);
        }
        match &self.cron_database {
            None => Err(Unavailable::NotLoaded),
            Some(cron) if *cron != self.this_database => {
                Err(Unavailable::OtherDatabase { cron: cron.clone(), this: self.this_database.clone() })
            }
            Some(_) => Ok(()),
        }
    }
}

/// Why the schedules could not be applied.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
    #[error("database: {0}")]
    Database(String),
}

impl From<tokio_postgres::Error> for ScheduleError {
    fn from(err: tokio_postgres::Error) -> Self {
        ScheduleError::Database(describe(&err))
    }
}

impl From<deadpool_postgres::PoolError> for ScheduleError {
    fn from(err: deadpool_postgres::PoolError) -> Self {
        ScheduleError::Database(err.to_string())
    }
}

/// The schedules of the project's `[functions.*]` sections, by function name.
pub fn of_project(
    settings: &std::collections::HashMap<String, crate::project::config::FunctionSettings>,
) -> Vec<(String, String)> {
    let mut schedules: Vec<(String, String)> = settings
        .iter()
        .filter(|(_, s)| s.enabled)
        .filter_map(|(name, s)| s.schedule.clone().map(|cron| (name.clone(), cron)))
        .collect();
    schedules.sort();
    schedules
}

/// Make the `function:*` jobs of the database those of `schedules` (name, cron expression).
/// Without schedules and without pg_cron there is nothing to do and nothing is said.
pub async fn sync(pool: &Pool, schedules: &[(String, String)]) -> Result<(), ScheduleError> {
    let client = pool.get().await?;
    let row = client
        .cached_query_one(
            "select current_database()::text, current_setting('cron.database_name', true), \
             exists(select 1 from pg_extension where extname = 'pg_cron'), \
             exists(select 1 from pg_available_extensions where name = 'pg_cron')",
            &[],
        )
        .await?;
    let state = CronState {
        this_database: row.get(0),
        cron_database: row.get(1),
        installed: row.get(2),
        available: row.get(3),
    };
    if schedules.is_empty() && !state.installed {
        return Ok(());
    }
    state.check()?;
    if !state.installed {
        client.batch_execute("create extension if not exists pg_cron").await?;
    }
    let mut names = Vec::with_capacity(schedules.len());
    for (function, cron) in schedules {
        let job = format!("{JOB_PREFIX}{function}");
        let command = format!("select supabase_functions.invoke_scheduled({})", crate::db::quote_literal(function));
        match client.cached_query_one("select cron.schedule($1, $2, $3)", &[&job, cron, &command]).await {
            Ok(_) => tracing::info!(function = %function, schedule = %cron, "functions: schedule applied (pg_cron)"),
            Err(err) => tracing::warn!(
                function = %function,
                schedule = %cron,
                error = %describe(&err),
                "functions: schedule refused by pg_cron"
            ),
        }
        names.push(job);
    }
    let removed = client
        .cached_query(
            "select cron.unschedule(jobid) from cron.job where starts_with(jobname, $1) and not (jobname = any($2))",
            &[&JOB_PREFIX, &names],
        )
        .await?;
    if !removed.is_empty() {
        tracing::info!(removed = removed.len(), "functions: schedules no longer in config.toml removed");
    }
    Ok(())
}

/// The server's message of a database error (its text alone says "db error").
fn describe(err: &tokio_postgres::Error) -> String {
    err.as_db_error().map(|db| db.message().to_string()).unwrap_or_else(|| err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(cron: Option<&str>, installed: bool, available: bool) -> CronState {
        CronState { this_database: "postgres".into(), cron_database: cron.map(str::to_string), installed, available }
    }

    #[test]
    fn pg_cron_is_usable_when_installed_or_loaded_for_this_database() {
        assert_eq!(state(Some("postgres"), true, true).check(), Ok(()));
        assert_eq!(state(Some("postgres"), false, true).check(), Ok(()));
    }

    #[test]
    fn each_reason_pg_cron_cannot_serve_is_named() {
        assert_eq!(state(None, false, false).check(), Err(Unavailable::NotInstalled));
        assert_eq!(state(None, false, true).check(), Err(Unavailable::NotLoaded));
        assert_eq!(
            state(Some("other"), false, true).check(),
            Err(Unavailable::OtherDatabase { cron: "other".into(), this: "postgres".into() })
        );
        assert_eq!(
            Unavailable::OtherDatabase { cron: "other".into(), this: "postgres".into() }.to_string(),
            "pg_cron runs in database other (cron.database_name), and this server's database is postgres"
        );
    }
}
