//! `server db reset`: the database made again from nothing, as `supabase db reset` makes the
//! local one again: dropped and created anew (its replication slots dropped first; one that is
//! in use means a server still runs on it, and the reset is refused), then the caller migrates
//! the platform, applies the project and seeds it.

use secrecy::{ExposeSecret, SecretString};

use super::ProjectError;

/// Drop the database `url` names and create it again, empty, owned by the same user.
pub async fn recreate(url: &SecretString) -> Result<String, ProjectError> {
    let db = |e: tokio_postgres::Error| ProjectError::Db(e.to_string());
    let target: tokio_postgres::Config =
        url.expose_secret().parse().map_err(|e| ProjectError::Invalid(format!("database URL: {e}")))?;
    let name =
        target.get_dbname().map(str::to_string).or_else(|| target.get_user().map(str::to_string)).unwrap_or_default();
    if name.is_empty() {
        return Err(ProjectError::Invalid("the database URL names no database".into()));
    }
    // Connected to another database of the cluster: one cannot drop the database one is in.
    let mut maintenance = target.clone();
    maintenance.dbname(if name == "postgres" { "template1" } else { "postgres" });
    let (client, connection) = maintenance.connect(tokio_postgres::NoTls).await.map_err(db)?;
    let driver = tokio::spawn(connection);
    let active: i64 = client
        .query_one("select count(*) from pg_replication_slots where database = $1 and active", &[&name])
        .await
        .map_err(db)?
        .get(0);
    if active > 0 {
        driver.abort();
        return Err(ProjectError::Invalid(format!(
            "a server is still streaming changes from {name} (an active replication slot): stop it first"
        )));
    }
    client
        .execute("select pg_drop_replication_slot(slot_name) from pg_replication_slots where database = $1", &[&name])
        .await
        .map_err(db)?;
    let quoted = crate::db::quote_ident(&name);
    client.batch_execute(&format!("drop database if exists {quoted} with (force)")).await.map_err(db)?;
    client.batch_execute(&format!("create database {quoted}")).await.map_err(db)?;
    driver.abort();
    Ok(name)
}
