//! Deployed functions: the management API (`/v1/projects/{ref}/functions`, `/secrets`) under the
//! service key, deploys kept in Postgres and served by every instance on the database, secrets
//! sealed at rest and seen only in the functions' `Deno.env`, logs kept per function, and the
//! `server functions` / `server secrets` commands of the built binary.

use std::time::{Duration, Instant};

use reqwest::multipart::{Form, Part};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::functions::serve;
use crate::helpers::{spawn_app_with, TestApp};

/// Answers its version's word, after `?wait=<ms>` if asked.
fn versioned(word: &str) -> String {
    format!(
        r#"
import {{ word }} from "../_shared/word.ts";
Deno.serve(async (req) => {{
  const wait = Number(new URL(req.url).searchParams.get("wait") ?? "0");
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  return new Response(word("{word}"));
}});
"#
    )
}

const SHARED_WORD: &str = "export const word = (w: string) => `word:${w}`;";

impl TestApp {
    fn manage(&self, method: reqwest::Method, path: &str, key: &str) -> reqwest::RequestBuilder {
        self.http.request(method, format!("{}/v1/projects/any-ref/{path}", self.address)).bearer_auth(key)
    }

    /// Deploy `slug` as the Supabase CLI does (multipart metadata and files), with `key`.
    async fn deploy_with(&self, key: &str, slug: &str, source: &str, verify_jwt: bool) -> reqwest::Response {
        let metadata = json!({ "name": slug, "entrypoint_path": format!("{slug}/index.ts"), "verify_jwt": verify_jwt });
        let form = Form::new()
            .text("metadata", metadata.to_string())
            .part("file", Part::bytes(source.as_bytes().to_vec()).file_name(format!("{slug}/index.ts")))
            .part("file", Part::bytes(SHARED_WORD.as_bytes().to_vec()).file_name("_shared/word.ts"));
        self.manage(reqwest::Method::POST, &format!("functions/deploy?slug={slug}"), key)
            .multipart(form)
            .send()
            .await
            .expect("deploy")
    }

    async fn deploy(&self, slug: &str, source: &str) -> Value {
        let response = self.deploy_with(&self.service_key, slug, source, false).await;
        assert_eq!(response.status(), StatusCode::CREATED);
        response.json().await.expect("json")
    }

    /// `GET` a management path with the service key: its JSON.
    async fn managed(&self, path: &str) -> Value {
        let response = self.manage(reqwest::Method::GET, path, &self.service_key).send().await.expect("get");
        response.json().await.expect("json")
    }

    /// `DELETE /functions/{slug}` with the service key: its status.
    async fn delete_function(&self, slug: &str) -> StatusCode {
        let path = format!("functions/{slug}");
        self.manage(reqwest::Method::DELETE, &path, &self.service_key).send().await.expect("delete").status()
    }

    async fn call(&self, path: &str) -> (StatusCode, String) {
        let response = self.function(reqwest::Method::GET, path).send().await.expect("call");
        (response.status(), response.text().await.expect("text"))
    }
}

/// Ask until `expected` or `within` passed; the last answer.
async fn eventually(app: &TestApp, path: &str, expected: &str, within: Duration) -> (StatusCode, String, Duration) {
    let started = Instant::now();
    loop {
        let (status, text) = app.call(path).await;
        if text == expected || started.elapsed() > within {
            return (status, text, started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_function_deployed_with_the_service_key_is_listed_and_served_without_a_functions_folder() {
    // Arrange: a project without a functions folder (no Deno started yet).
    let app = serve("", &[], |_| {}).await;

    // Act
    let deployed = app.deploy("hello", &versioned("one")).await;
    let by_secret_key = app.deploy_with(&app.secret_key, "hello", &versioned("two"), false).await;

    // Assert
    assert_eq!(deployed["slug"], "hello");
    assert_eq!(deployed["version"], 1);
    assert_eq!(deployed["status"], "ACTIVE");
    assert_eq!(deployed["entrypoint_path"], "hello/index.ts");
    assert_eq!(by_secret_key.status(), StatusCode::CREATED);
    assert_eq!(by_secret_key.json::<Value>().await.expect("json")["version"], 2);
    assert_eq!(app.call("hello").await, (StatusCode::OK, "word:two".into()));
    let listed = app.managed("functions").await;
    assert_eq!(listed.as_array().map(|a| a.len()), Some(1));
    assert_eq!(listed[0]["slug"], "hello");
    let one = app.manage(reqwest::Method::GET, "functions/hello", &app.service_key).send().await.expect("get");
    assert_eq!(one.json::<Value>().await.expect("json")["verify_jwt"], false);
}

#[tokio::test]
async fn the_management_api_refuses_the_anon_key_a_user_token_and_no_token() {
    let app = serve("", &[], |_| {}).await;
    let user = app.user_token("00000000-0000-0000-0000-000000000001");
    for (key, status) in [
        (app.anon_key.as_str(), StatusCode::FORBIDDEN),
        (user.as_str(), StatusCode::FORBIDDEN),
        (app.publishable_key.as_str(), StatusCode::FORBIDDEN),
        ("not-a-token", StatusCode::UNAUTHORIZED),
    ] {
        let response = app.deploy_with(key, "hello", &versioned("x"), false).await;
        assert_eq!(response.status(), status, "{key}");
        let listed = app.manage(reqwest::Method::GET, "secrets", key).send().await.expect("list");
        assert_eq!(listed.status(), status, "{key}");
    }
    let none = app.http.get(format!("{}/v1/projects/x/functions", app.address)).send().await.expect("list");
    assert_eq!(none.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(none.json::<Value>().await.expect("json"), json!({ "message": "Unauthorized" }));
    assert_eq!(app.call("hello").await.0, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_management_body_with_a_corrupt_chunk_is_a_400_not_too_large() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = serve("", &[], |_| {}).await;
    let address = app.address.trim_start_matches("http://").to_string();
    let mut stream = tokio::net::TcpStream::connect(&address).await.expect("connect");
    // A first chunk, then a chunk size that is not hexadecimal.
    let request = format!(
        "POST /v1/projects/x/secrets HTTP/1.1\r\nhost: {address}\r\nauthorization: Bearer {key}\r\n\
         content-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n\
         2\r\n[{{\r\nzz\r\n",
        key = app.service_key
    );
    stream.write_all(request.as_bytes()).await.expect("request");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("broken off"), "{answer}");
    assert_eq!(app.managed("secrets").await.as_array().map(Vec::len), Some(0), "nothing set");
}

#[tokio::test]
async fn a_deploy_on_one_instance_is_served_by_a_second_instance_on_the_same_database_within_seconds() {
    // Arrange: two servers on one database and one JWT secret.
    let first = serve("", &[], |_| {}).await;
    let (db_url, secret) = (first.db_url.clone(), first.jwt_secret.clone());
    let second = serve("", &[], move |c| {
        c.database_url = Some(db_url.into());
        c.jwt_secret = Some(secret.into());
    })
    .await;
    assert_eq!(second.call("hello").await.0, StatusCode::NOT_FOUND);

    // Act
    first.deploy("hello", &versioned("one")).await;
    // The first wait includes the second instance starting its Deno child (seconds under load).
    let (status, text, took) = eventually(&second, "hello", "word:one", Duration::from_secs(30)).await;

    // Assert
    assert_eq!((status, text.as_str()), (StatusCode::OK, "word:one"), "after {took:?}");
    first.deploy("hello", &versioned("two")).await;
    let (_, text, took) = eventually(&second, "hello", "word:two", Duration::from_secs(10)).await;
    assert_eq!(text, "word:two", "after {took:?}");
    assert_eq!(first.delete_function("hello").await, StatusCode::OK);
    let (status, _, took) = eventually(&second, "hello", "Function not found", Duration::from_secs(10)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "after {took:?}");
}

#[tokio::test]
async fn a_deployed_function_wins_over_the_folders_and_once_deleted_the_folders_is_served_again() {
    let app = serve(
        "[functions.hello]\nverify_jwt = false\n",
        &[("functions/hello/index.ts", r#"Deno.serve(() => new Response("folder"))"#)],
        |_| {},
    )
    .await;
    assert_eq!(app.call("hello").await, (StatusCode::OK, "folder".into()));

    app.deploy("hello", &versioned("deployed")).await;
    assert_eq!(app.call("hello").await, (StatusCode::OK, "word:deployed".into()));

    assert_eq!(app.delete_function("hello").await, StatusCode::OK);
    assert_eq!(app.call("hello").await, (StatusCode::OK, "folder".into()));
    assert_eq!(app.delete_function("hello").await, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_deleted_function_answers_404() {
    let app = serve("", &[], |_| {}).await;
    app.deploy("gone", &versioned("x")).await;
    assert_eq!(app.call("gone").await.0, StatusCode::OK);

    let deleted = app.delete_function("gone").await;

    assert_eq!(deleted, StatusCode::OK);
    assert_eq!(app.call("gone").await, (StatusCode::NOT_FOUND, "Function not found".into()));
    let get = app.manage(reqwest::Method::GET, "functions/gone", &app.service_key).send().await.expect("get");
    assert_eq!(get.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn secrets_set_through_the_api_are_in_the_functions_env_sealed_in_the_table_and_listed_as_digests() {
    // Arrange
    let app = serve("", &[], |_| {}).await;
    let source = r#"Deno.serve(() => Response.json({ secret: Deno.env.get("PAYMENT_KEY") ?? null }))"#;
    let value = "sk_live_a-value-nobody-else-sees";

    // Act
    let set = app
        .manage(reqwest::Method::POST, "secrets", &app.service_key)
        .json(&json!([{ "name": "PAYMENT_KEY", "value": value }]))
        .send()
        .await
        .expect("set");
    app.deploy("pay", source).await;

    // Assert: the function sees it.
    assert_eq!(set.status(), StatusCode::CREATED);
    let (status, text) = app.call("pay").await;
    assert_eq!((status, serde_json::from_str::<Value>(&text).ok()), (StatusCode::OK, Some(json!({ "secret": value }))));
    // The table holds it sealed; the list shows a digest.
    let row = app.admin_query_one("select sealed, digest from edge_functions.secrets where name = 'PAYMENT_KEY'").await;
    let sealed: Vec<u8> = row.get(0);
    assert!(!sealed.windows(value.len()).any(|w| w == value.as_bytes()));
    assert!(!sealed.windows(8).any(|w| w == b"sk_live_"));
    let listed = app.managed("secrets").await;
    use sha2::Digest;
    let digest = hex::encode(sha2::Sha256::digest(value.as_bytes()));
    assert_eq!(listed[0]["name"], "PAYMENT_KEY");
    assert_eq!(listed[0]["value"], digest.as_str());
    assert!(!listed.to_string().contains(value));
    // Not in the server's environment, nor in another surface.
    assert!(std::env::var("PAYMENT_KEY").is_err());
    // Unset: the next worker does not see it.
    let unset = app
        .manage(reqwest::Method::DELETE, "secrets", &app.service_key)
        .json(&json!(["PAYMENT_KEY"]))
        .send()
        .await
        .expect("unset");
    assert_eq!(unset.status(), StatusCode::OK);
    let (_, text) = app.call("pay").await;
    assert_eq!(serde_json::from_str::<Value>(&text).ok(), Some(json!({ "secret": null })));
}

#[tokio::test]
async fn a_secret_named_like_the_platforms_is_refused() {
    let app = serve("", &[], |_| {}).await;
    let set = app
        .manage(reqwest::Method::POST, "secrets", &app.service_key)
        .json(&json!([{ "name": "SUPABASE_URL", "value": "http://elsewhere" }]))
        .send()
        .await
        .expect("set");
    assert_eq!(set.status(), StatusCode::BAD_REQUEST);
    assert!(!set.text().await.expect("text").contains("elsewhere"));
}

#[tokio::test]
async fn requests_in_flight_during_a_deploy_are_all_answered_by_the_old_version_and_new_ones_by_the_new() {
    // Arrange
    let app = serve("", &[], |_| {}).await;
    app.deploy("slow", &versioned("old")).await;
    assert_eq!(app.call("slow").await.1, "word:old");

    // Act: eight requests that take a second, a deploy while they run.
    let in_flight: Vec<_> = (0..8)
        .map(|_| {
            let request = app.function(reqwest::Method::GET, "slow?wait=1000").send();
            tokio::spawn(async move {
                let response = request.await.expect("call");
                (response.status(), response.text().await.expect("text"))
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.deploy("slow", &versioned("new")).await;
    let after = app.call("slow").await;

    // Assert
    for request in in_flight {
        assert_eq!(request.await.expect("task"), (StatusCode::OK, "word:old".to_string()));
    }
    assert_eq!(after, (StatusCode::OK, "word:new".into()));
}

#[tokio::test]
async fn what_a_deployed_function_prints_is_kept_with_its_request_and_execution_ids() {
    let app = serve("", &[], |_| {}).await;
    app.deploy("talk", r#"Deno.serve(() => { console.log("hello from talk", { n: 1 }); console.error("oops"); return new Response("ok"); })"#).await;

    let response =
        app.function(reqwest::Method::GET, "talk").header("x-request-id", "req-talk-1").send().await.expect("call");
    assert_eq!(response.status(), StatusCode::OK);

    let started = Instant::now();
    let lines = loop {
        let lines = app.managed("functions/talk/logs").await;
        if lines.as_array().is_some_and(|l| l.len() >= 2) || started.elapsed() > Duration::from_secs(10) {
            break lines;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(lines[0]["message"], "hello from talk { n: 1 }");
    assert_eq!(lines[0]["level"], "info");
    assert_eq!(lines[0]["request_id"], "req-talk-1");
    assert_eq!(lines[1]["level"], "error");
    assert!(lines[0]["execution_id"].as_str().is_some_and(|id| id.len() == 36));
    let refused = app.manage(reqwest::Method::GET, "functions/talk/logs", &app.anon_key).send().await.expect("logs");
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
}

/// The built binary run as a command on the app's database and secret.
async fn command(app: &TestApp, project: &std::path::Path, args: &[&str]) -> (bool, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_server"))
        .args(args)
        .env("DATABASE_URL", &app.db_url)
        .env("JWT_SECRET", &app.jwt_secret)
        .env("SUPABASE_PROJECT_DIR", project)
        .env("API_EXTERNAL_URL", &app.address)
        .env("DATA_DIR", std::env::temp_dir().join(format!("fn-cli-{}", &server::keys::random_secret()[..8])))
        .env("RUST_LOG", "warn")
        .output()
        .await
        .expect("run the binary");
    let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

#[tokio::test]
async fn the_functions_and_secrets_commands_deploy_list_invoke_log_and_delete_through_the_database() {
    // Arrange: a project folder with a function, a server on the database without it.
    let project = std::env::temp_dir().join(format!("fn-cli-project-{}", &server::keys::random_secret()[..8]));
    let write = |path: &str, text: &str| {
        let path = project.join(path);
        std::fs::create_dir_all(path.parent().expect("folder")).expect("folder");
        std::fs::write(path, text).expect("write");
    };
    write(
        "config.toml",
        "[db.migrations]\nenabled = false\n[db.seed]\nenabled = false\n[functions.cli-fn]\nverify_jwt = false\n",
    );
    write(
        "functions/cli-fn/index.ts",
        r#"import { word } from "../_shared/word.ts";
Deno.serve(() => { console.log("cli-fn ran"); return new Response(word(Deno.env.get("GREETING") ?? "none")); });"#,
    );
    write("functions/_shared/word.ts", SHARED_WORD);
    let app = spawn_app_with(|c| c.functions.deno_bin = crate::functions::deno_bin()).await;

    // Act and assert, command by command.
    let (ok, text) = command(&app, &project, &["secrets", "set", "GREETING=hi-from-cli"]).await;
    assert!(ok, "{text}");
    let (ok, text) = command(&app, &project, &["secrets", "list"]).await;
    assert!(ok && text.contains("GREETING") && !text.contains("hi-from-cli"), "{text}");
    let (ok, text) = command(&app, &project, &["functions", "deploy", "cli-fn"]).await;
    assert!(ok && text.contains("Deployed Function cli-fn (version 1, 2 file(s)"), "{text}");
    let (ok, text) = command(&app, &project, &["functions", "list"]).await;
    assert!(ok && text.contains("cli-fn") && text.contains("false"), "{text}");
    let (status, body, _) = eventually(&app, "cli-fn", "word:hi-from-cli", Duration::from_secs(10)).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "word:hi-from-cli"));
    let (ok, text) = command(&app, &project, &["functions", "invoke", "cli-fn", "--body", r#"{"a":1}"#]).await;
    assert!(ok && text.contains("200") && text.contains("word:hi-from-cli"), "{text}");
    let started = Instant::now();
    let logs = loop {
        let (ok, text) = command(&app, &project, &["functions", "logs", "cli-fn"]).await;
        assert!(ok, "{text}");
        if text.contains("cli-fn ran") || started.elapsed() > Duration::from_secs(10) {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    assert!(logs.contains("cli-fn ran") && logs.contains("[request "), "{logs}");
    let (ok, text) = command(&app, &project, &["secrets", "unset", "GREETING"]).await;
    assert!(ok, "{text}");
    let (ok, text) = command(&app, &project, &["functions", "delete", "cli-fn"]).await;
    assert!(ok && text.contains("Deleted Function cli-fn"), "{text}");
    let (status, _, _) = eventually(&app, "cli-fn", "Function not found", Duration::from_secs(10)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (ok, _) = command(&app, &project, &["functions", "delete", "cli-fn"]).await;
    assert!(!ok);
}

#[tokio::test]
async fn metrics_count_invocations_by_function_and_status_cold_starts_and_workers_alive() {
    let token = "functions-metrics-token";
    let app = serve("", &[], |c| c.metrics_token = Some(token.into())).await;
    let name = format!("metered-{}", &server::keys::random_secret()[..6]);
    app.deploy(&name, &versioned("m")).await;
    for _ in 0..3 {
        assert_eq!(app.call(&name).await.0, StatusCode::OK);
    }

    let text = app.http.get(format!("{}/metrics", app.address)).bearer_auth(token).send().await.expect("scrape");
    let text = text.text().await.expect("text");

    // The recorder is process-wide; the function's name is this test's own.
    let value = |prefix: &str, labels: &[&str]| -> f64 {
        text.lines()
            .filter(|l| l.starts_with(prefix) && labels.iter().all(|label| l.contains(label)))
            .filter_map(|l| l.rsplit(' ').next().and_then(|v| v.parse::<f64>().ok()))
            .sum()
    };
    let function = format!(r#"function="{name}""#);
    assert_eq!(value("functions_invocations_total{", &[&function, r#"status="200""#]), 3.0, "{text}");
    assert_eq!(value("functions_cold_starts_total{", &[&function]), 1.0, "{text}");
    assert_eq!(value("functions_invocation_duration_seconds_count{", &[&function]), 3.0, "{text}");
    assert!(value("functions_workers", &[]) >= 1.0, "{text}");
}

#[tokio::test]
async fn the_api_roles_cannot_read_the_deployed_code_the_sealed_secrets_or_the_logs() {
    let app = serve("", &[], |_| {}).await;
    let client = crate::helpers::connect(&app.db_url).await;
    for role in ["anon", "authenticated", "authenticator"] {
        for table in ["functions", "files", "secrets", "logs"] {
            let sql = format!("begin; set local role {role}; select * from edge_functions.{table};");
            let refused = client.batch_execute(&sql).await;
            let _ = client.batch_execute("rollback").await;
            let code = refused.as_ref().err().and_then(|e| e.code().cloned());
            assert_eq!(code, Some(tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE), "{role} on {table}");
        }
    }
}
