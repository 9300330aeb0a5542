//! `server gen types typescript` against the real generator: each fixture schema of
//! `tests/fixtures/typegen/` is applied to a new empty database, and the binary's output must equal,
//! byte for byte, what postgres-meta's generator (the Supabase CLI's) printed for it
//! (`<fixture>.ts`; docs/projects.md says how they were made).

use crate::helpers::{cluster, with_param};
use server::keys::random_secret;

fn fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/typegen")
}

/// A new database (from `template0`, nothing of the platform in it) with `sql` applied.
async fn database_with(sql: &str) -> String {
    let admin = &cluster().admin_url;
    let name = format!("typegen_{}", &random_secret()[..12].to_lowercase());
    let client = crate::helpers::connect(admin).await;
    client.batch_execute(&format!("create database {name} template template0")).await.expect("create database");
    let url = with_param(admin, "dbname", &name);
    let db = crate::helpers::connect(&url).await;
    db.batch_execute(sql).await.expect("apply the fixture");
    url
}

async fn gen_types(args: &[&str]) -> std::process::Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_server"))
        .args(["gen", "types"])
        .args(args)
        .env_remove("DATABASE_URL")
        .env_remove("SUPABASE_PROJECT_DIR")
        .env("RUST_LOG", "warn")
        .output()
        .await
        .expect("run the server binary")
}

async fn assert_matches_golden(fixture: &str) {
    assert_matches_golden_with(fixture, fixture, &[]).await;
}

/// The output for `fixture.sql`, with `extra` arguments, against `golden.ts`.
async fn assert_matches_golden_with(fixture: &str, golden: &str, extra: &[&str]) {
    // Arrange
    let sql = std::fs::read_to_string(fixtures().join(format!("{fixture}.sql"))).expect("fixture sql");
    let golden = std::fs::read_to_string(fixtures().join(format!("{golden}.ts"))).expect("golden output");
    let schemas = sql.lines().next().and_then(|l| l.strip_prefix("-- schemas: ")).expect("a `-- schemas:` first line");
    let url = database_with(&sql).await;

    // Act
    let mut args = vec!["typescript", "--db-url", &url, "--schema", schemas];
    args.extend_from_slice(extra);
    let out = gen_types(&args).await;

    // Assert
    assert!(out.status.success(), "gen types failed: {}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8(out.stdout).expect("utf-8");
    if printed != golden {
        let first = printed.lines().zip(golden.lines()).position(|(a, b)| a != b);
        let context =
            |text: &str, at: usize| text.lines().skip(at.saturating_sub(3)).take(7).collect::<Vec<_>>().join("\n");
        let at = first.unwrap_or(printed.lines().count().min(golden.lines().count()));
        panic!(
            "{fixture}: differs from the generator's output at line {}\n--- ours\n{}\n--- postgres-meta\n{}",
            at + 1,
            context(&printed, at),
            context(&golden, at)
        );
    }
}

#[tokio::test]
async fn gen_types_prints_what_the_cli_prints_for_a_catalogue_of_every_kind_of_object() {
    assert_matches_golden("catalogue").await;
}

#[tokio::test]
async fn gen_types_prints_what_the_cli_prints_for_several_schemas_referring_to_each_other() {
    assert_matches_golden("schemas").await;
}

#[tokio::test]
async fn gen_types_prints_what_the_cli_prints_for_an_empty_schema() {
    assert_matches_golden("empty").await;
}

#[tokio::test]
async fn gen_types_names_the_postgrest_version_as_postgres_meta_does_when_given_one() {
    assert_matches_golden_with("empty", "empty_postgrest_version", &["--postgrest-version", "13.0.5"]).await;
}

#[tokio::test]
async fn gen_types_leaves_is_one_to_one_out_for_postgrest_9_as_the_cli_does() {
    assert_matches_golden_with("schemas", "schemas_postgrest_v9", &["--postgrest-v9-compat"]).await;
}

#[tokio::test]
async fn gen_types_reads_public_and_the_projects_api_schemas_of_database_url_by_default() {
    // Arrange: a project whose API exposes the two other schemas of the fixture.
    let sql = std::fs::read_to_string(fixtures().join("schemas.sql")).expect("fixture sql");
    let golden = std::fs::read_to_string(fixtures().join("schemas.ts")).expect("golden output");
    let url = database_with(&sql).await;
    let project = std::env::temp_dir().join(format!("typegen-project-{}", &random_secret()[..12]));
    std::fs::create_dir_all(&project).expect("project folder");
    std::fs::write(project.join("config.toml"), "[api]\nschemas = [\"inventory\", \"empty_one\"]\n")
        .expect("config.toml");

    // Act
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_server"))
        .args(["gen", "types", "typescript"])
        .env("DATABASE_URL", &url)
        .env("SUPABASE_PROJECT_DIR", &project)
        .env_remove("PGRST_DB_SCHEMAS")
        .env("RUST_LOG", "warn")
        .output()
        .await
        .expect("run the server binary");

    // Assert
    let _ = std::fs::remove_dir_all(&project);
    assert!(out.status.success(), "gen types failed: {}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout) == golden, "the default schemas are not public, inventory, empty_one");
}

#[tokio::test]
async fn gen_types_refuses_a_language_other_than_typescript_with_a_clear_error() {
    let out = gen_types(&["swift", "--db-url", "postgresql:///nowhere"]).await;
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("only typescript"), "{stderr}");
}

#[tokio::test]
async fn gen_types_names_the_database_error_when_the_database_does_not_exist() {
    let url = with_param(&cluster().admin_url, "dbname", "typegen_no_such_database");
    let out = gen_types(&["typescript", "--db-url", &url]).await;
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("does not exist") && stderr.contains("3D000"), "{stderr}");
}

#[tokio::test]
async fn gen_types_reports_a_malformed_database_url_without_a_panic() {
    let out = gen_types(&["typescript", "--db-url", "postgresql://a:b@/x?port=notanumber"]).await;
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("error:") && !stderr.contains("panicked"), "{stderr}");
}
