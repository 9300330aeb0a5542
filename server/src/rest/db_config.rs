//! PostgREST's in-database configuration: the `pgrst.*` settings of the `authenticator` role
//! (`alter role authenticator set pgrst.db_max_rows = '100'`, or `… in database d set …`, which
//! wins over the role-wide one), read at start and on `NOTIFY pgrst, 'reload config'`, as
//! PostgREST reads them. Read here: `pgrst.db_max_rows`, `pgrst.db_plan_enabled`,
//! `pgrst.db_aggregates_enabled`, `pgrst.db_tx_end`. A setting given to the server (its
//! environment variable or flag, or a value other than the default) wins over the database's.
//! A value that does not parse is a warning that names it, and is left out.
//!
//! It only reads the catalog; the settings in force live in [`Tunables`].

use crate::config::RestConfig;

/// The settings of `/rest/v1` that the database may give, as they apply to requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tunables {
    pub max_rows: Option<u64>,
    pub plan_enabled: bool,
    pub aggregates_enabled: bool,
    pub tx_end: String,
}

impl Tunables {
    /// The server's own settings.
    pub fn of(config: &RestConfig) -> Tunables {
        Tunables {
            max_rows: config.max_rows,
            plan_enabled: config.plan_enabled,
            aggregates_enabled: config.aggregates_enabled,
            tx_end: config.tx_end.clone(),
        }
    }
}

/// Which settings the server was given, so the database's cannot replace them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Given {
    pub max_rows: bool,
    pub plan_enabled: bool,
    pub aggregates_enabled: bool,
    pub tx_end: bool,
}

impl Given {
    /// Given: set in the environment (a project's `config.toml` sets it there too), or set to
    /// something else than the default.
    pub fn of(config: &RestConfig, env: &dyn Fn(&str) -> bool) -> Given {
        Given {
            max_rows: config.max_rows.is_some() || env("PGRST_DB_MAX_ROWS"),
            plan_enabled: config.plan_enabled || env("PGRST_DB_PLAN_ENABLED"),
            aggregates_enabled: config.aggregates_enabled || env("PGRST_DB_AGGREGATES_ENABLED"),
            tx_end: config.tx_end != "commit" || env("PGRST_DB_TX_END"),
        }
    }
}

const TX_ENDS: &[&str] = &["commit", "commit-allow-override", "rollback", "rollback-allow-override"];

/// `server` with the database's `settings` (name without `pgrst.`, value) applied where the
/// server was not given its own; returns the warnings about values that do not parse.
pub fn merge(server: &Tunables, given: Given, settings: &[(String, String)]) -> (Tunables, Vec<String>) {
    let mut out = server.clone();
    let mut warnings = Vec::new();
    let boolean = |v: &str| match v.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "yes" | "1" => Some(true),
        "false" | "off" | "no" | "0" => Some(false),
        _ => None,
    };
    for (name, value) in settings {
        let bad = |what: &str| format!("pgrst.{name} = {value:?} of the authenticator role is not {what}: left out");
        match name.as_str() {
            "db_max_rows" if !given.max_rows => match value.trim().parse::<u64>() {
                Ok(n) => out.max_rows = Some(n),
                Err(_) => warnings.push(bad("a number of rows")),
            },
            "db_plan_enabled" if !given.plan_enabled => match boolean(value) {
                Some(b) => out.plan_enabled = b,
                None => warnings.push(bad("a boolean")),
            },
            "db_aggregates_enabled" if !given.aggregates_enabled => match boolean(value) {
                Some(b) => out.aggregates_enabled = b,
                None => warnings.push(bad("a boolean")),
            },
            "db_tx_end" if !given.tx_end => match TX_ENDS.iter().find(|t| **t == value.trim()) {
                Some(t) => out.tx_end = t.to_string(),
                None => warnings.push(bad("one of commit, commit-allow-override, rollback, rollback-allow-override")),
            },
            _ => {}
        }
    }
    (out, warnings)
}

/// The `pgrst.*` settings of `role` in the current database: the role-wide ones first, then
/// those of this database (which therefore win), names without `pgrst.`.
pub async fn read(client: &tokio_postgres::Client, role: &str) -> Result<Vec<(String, String)>, tokio_postgres::Error> {
    let rows = client
        .query(
            "select substr(split_part(kv, '=', 1), 7), substr(kv, strpos(kv, '=') + 1) \
             from pg_catalog.pg_db_role_setting s \
             join pg_catalog.pg_roles r on r.oid = s.setrole, \
             lateral unnest(s.setconfig) kv \
             where r.rolname = $1 and kv like 'pgrst.%' \
               and s.setdatabase in (0, (select oid from pg_catalog.pg_database where datname = current_database())) \
             order by s.setdatabase <> 0",
            &[&role],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> Tunables {
        Tunables { max_rows: None, plan_enabled: false, aggregates_enabled: false, tx_end: "commit".into() }
    }

    fn settings(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn the_databases_settings_apply_where_the_server_was_given_none() {
        let db = settings(&[
            ("db_max_rows", "100"),
            ("db_plan_enabled", "true"),
            ("db_aggregates_enabled", "on"),
            ("db_tx_end", "rollback-allow-override"),
            ("db_schemas", "api"),
        ]);
        let (out, warnings) = merge(&server(), Given::default(), &db);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            out,
            Tunables {
                max_rows: Some(100),
                plan_enabled: true,
                aggregates_enabled: true,
                tx_end: "rollback-allow-override".into()
            }
        );
    }

    #[test]
    fn a_setting_given_to_the_server_wins() {
        let mine = Tunables { max_rows: Some(5), ..server() };
        let given = Given { max_rows: true, plan_enabled: true, ..Given::default() };
        let (out, _) = merge(&mine, given, &settings(&[("db_max_rows", "100"), ("db_plan_enabled", "true")]));
        assert_eq!(out, mine);
    }

    #[test]
    fn the_environment_or_a_value_other_than_the_default_counts_as_given() {
        use clap::Parser;
        let mut config = crate::config::Cli::parse_from(["server"]).config;
        assert_eq!(Given::of(&config.rest, &|_| false), Given::default());
        assert!(Given::of(&config.rest, &|name| name == "PGRST_DB_PLAN_ENABLED").plan_enabled);
        config.rest.tx_end = "rollback".into();
        config.rest.max_rows = Some(3);
        let given = Given::of(&config.rest, &|_| false);
        assert!(given.tx_end && given.max_rows && !given.aggregates_enabled);
    }

    #[test]
    fn a_value_that_does_not_parse_is_a_warning_naming_it() {
        let (out, warnings) =
            merge(&server(), Given::default(), &settings(&[("db_max_rows", "many"), ("db_tx_end", "maybe")]));
        assert_eq!(out, server());
        assert_eq!(warnings.len(), 2);
        assert!(warnings[0].contains("pgrst.db_max_rows = \"many\""), "{warnings:?}");
    }
}
