//! A database migrated by the rental app's old history, started by this server: the baseline of
//! `web/supabase/migrations` squashes that history (`-- squashes: …`), so the baseline is
//! recorded as applied in its place, nothing runs again and every row and policy stays; a
//! history holding only part of it stops the start with what is missing.
//!
//! The old files are gone (git keeps them), so the old state is built as
//! `scripts/compare_migrations.sh` shows it equal: the template's schema (the platform and the
//! baseline), with the history the old files wrote instead of the baseline's rows.

use std::collections::BTreeSet;

use secrecy::SecretString;
use server::keys::Keys;
use server::project::{migrations, split::split, squash};
use tokio_postgres::Client;

use crate::helpers::{base_config, fresh_database, json_of, rental_project, spawn_app_on};

async fn connect(url: &str) -> Client {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.expect("connect");
    tokio::spawn(conn);
    client
}

/// The rental project's baseline files and the old versions they squash.
fn rental_baseline() -> (Vec<migrations::Migration>, Vec<String>) {
    let files = migrations::local(&rental_project()).expect("the rental project's migrations");
    let baselines = squash::baselines(&files).expect("baselines");
    // the re-cut's files come first and are all baselines; later migrations (written after the
    // re-cut) run as usual
    let recut = files.iter().take_while(|f| baselines.iter().any(|b| b.migration.version == f.version)).count();
    assert_eq!(baselines.len(), recut, "every file of the re-cut is a baseline");
    let squashed: BTreeSet<String> = baselines.iter().flat_map(|b| b.squashes.iter().cloned()).collect();
    assert_eq!(squashed.len(), 30, "the baseline squashes the 30 old versions");
    (files, squashed.into_iter().collect())
}

async fn history(client: &Client) -> Vec<(String, String, Vec<String>)> {
    client
        .query(
            "select version, coalesce(name, ''), coalesce(statements, '{}') from supabase_migrations.schema_migrations order by version",
            &[],
        )
        .await
        .expect("history")
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}

async fn count(client: &Client, sql: &str) -> i64 {
    client.query_one(sql, &[]).await.expect(sql).get(0)
}

const POLICIES: &str = "select count(*) from pg_policies where schemaname in ('public', 'storage')";

/// A database in the state the old history left: its schema, its history rows (`old` of the
/// squashed versions, in the CLI's table), app rows changed since, and no baseline row.
async fn old_database(old: &[String]) -> String {
    let url = fresh_database().await;
    let client = connect(&url).await;
    client.batch_execute("delete from supabase_migrations.schema_migrations").await.expect("clear history");
    for version in old {
        client
            .execute(
                "insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, 'old', '{}')",
                &[version],
            )
            .await
            .expect("old history row");
    }
    // rows a run of the baseline would refuse (it inserts the catalogues) or reset
    client
        .batch_execute(
            "update public.airport_services set name = 'Kept?' where code = 'vip';
             insert into public.vehicles (name, make, model, year) values ('Kept vehicle', 'Make', 'Model', 2020);",
        )
        .await
        .expect("app rows");
    url
}

#[tokio::test]
async fn a_database_with_the_old_history_is_recognised_its_rows_and_policies_kept_and_nothing_run_again() {
    // Arrange
    let (files, squashed) = rental_baseline();
    let url = old_database(&squashed).await;
    let client = connect(&url).await;
    let policies = count(&client, POLICIES).await;
    assert!(policies > 40, "{policies} policies");

    // Act: the server starts on it
    let app = spawn_app_on(url, |_| {}).await;

    // Assert: the history lists the baseline, with its statements as the CLI records them
    let after = history(&client).await;
    let expected: Vec<(String, String, Vec<String>)> = files
        .iter()
        .map(|m| (m.version.clone(), m.name.clone(), split(&std::fs::read_to_string(&m.path).unwrap())))
        .collect();
    assert_eq!(after.len(), expected.len(), "{after:?}");
    assert_eq!(after, expected);
    // nothing ran again: the rows are as they were, the policies too
    assert_eq!(count(&client, POLICIES).await, policies);
    assert_eq!(count(&client, "select count(*) from public.vehicles where name = 'Kept vehicle'").await, 1);
    assert_eq!(count(&client, "select count(*) from public.airport_services").await, 3);
    let res = app
        .http
        .get(format!("{}/rest/v1/airport_services?code=eq.vip&select=name", app.address))
        .header("apikey", &app.anon_key)
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(res).await;
    assert_eq!((status, body), (200, serde_json::json!([{ "name": "Kept?" }])));
}

#[tokio::test]
async fn a_database_migrated_before_the_project_existed_ends_at_the_baseline() {
    // Arrange: the app's history in the platform's refinery table (V30…V69, the version as
    // hours and minutes of 2025-01-01), the later one in the CLI's table
    let (files, squashed) = rental_baseline();
    let url = fresh_database().await;
    let client = connect(&url).await;
    client.batch_execute("delete from supabase_migrations.schema_migrations").await.unwrap();
    for version in &squashed {
        match version.strip_prefix("20250101") {
            Some(hhmm) => {
                let old: i32 = hhmm[..2].parse::<i32>().unwrap() * 60 + hhmm[2..4].parse::<i32>().unwrap();
                client
                    .execute(
                        "insert into supabase_migrations.refinery_history (version, name, applied_on, checksum) \
                         values ($1, 'old', now()::text, '0')",
                        &[&old],
                    )
                    .await
                    .unwrap();
            }
            None => {
                client
                    .execute("insert into supabase_migrations.schema_migrations (version) values ($1)", &[version])
                    .await
                    .unwrap();
            }
        }
    }
    client.batch_execute("update public.airport_services set name = 'Kept?' where code = 'vip'").await.unwrap();

    // Act
    let _app = spawn_app_on(url, |_| {}).await;

    // Assert
    let versions: Vec<String> = history(&client).await.into_iter().map(|(v, _, _)| v).collect();
    assert_eq!(versions, files.iter().map(|m| m.version.clone()).collect::<Vec<_>>());
    let left = count(&client, "select count(*) from supabase_migrations.refinery_history where version between 30 and 69 and version not in (49, 52, 54, 55, 57, 58, 59, 60, 61, 62)").await;
    assert_eq!(left, 0);
    assert_eq!(count(&client, "select count(*) from public.airport_services where name = 'Kept?'").await, 1);
}

#[tokio::test]
async fn a_history_holding_only_part_of_the_squashed_versions_stops_the_start_naming_what_is_missing() {
    // Arrange: the last old migration never applied
    let (_, squashed) = rental_baseline();
    let (applied, missing) = squashed.split_at(squashed.len() - 1);
    let url = old_database(applied).await;
    let mut config = base_config();
    config.database_url = Some(SecretString::from(url.clone()));
    let keys = Keys::load_or_generate(&config).expect("keys");
    let pools = server::db::Pools::new(&SecretString::from(url.clone()), &keys.derived_password("authenticator"), 2)
        .expect("pools");

    // Act
    let err = server::startup::apply_project(&config, &pools).await.expect_err("the start is refused");

    // Assert: what is missing and what to do; the history as it was
    let message = err.to_string();
    assert!(message.contains("holds 29 of the 30 versions"), "{message}");
    assert!(message.contains(&format!("missing: {}", missing[0])), "{message}");
    assert!(message.contains("migration repair"), "{message}");
    let versions: Vec<String> = history(&connect(&url).await).await.into_iter().map(|(v, _, _)| v).collect();
    assert_eq!(versions, applied.to_vec());
}

#[tokio::test]
async fn a_server_without_a_project_leaves_public_empty() {
    // Arrange: a database of the cluster with nothing in it
    let cluster = crate::helpers::cluster();
    let name = format!("bare_{}", &server::keys::random_secret()[..12]);
    connect(&cluster.admin_url).await.batch_execute(&format!("create database {name}")).await.unwrap();
    let url = crate::helpers::with_param(&cluster.admin_url, "dbname", &name);

    // Act: the server, told of no project (an empty folder name is none)
    let _app = spawn_app_on(url.clone(), |config| config.project = Some("".into())).await;

    // Assert
    let client = connect(&url).await;
    let in_public = "select (select count(*) from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public') \
                     + (select count(*) from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public') \
                     + (select count(*) from pg_type t join pg_namespace n on n.oid = t.typnamespace where n.nspname = 'public')";
    assert_eq!(count(&client, in_public).await, 0);
    assert_eq!(
        count(&client, "select count(*) from pg_publication_tables where pubname = 'supabase_realtime'").await,
        0
    );
}
