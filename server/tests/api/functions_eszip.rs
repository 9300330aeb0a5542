//! Eszip deploys, as `supabase functions deploy` sends them by default: genuine bundles built by
//! Deno's eszip crate (`server/tests/fixtures/eszip/build.mjs`, `@deno/eszip`), EZBR-compressed
//! as the CLI compresses them, posted to the Management API and then served from the files they
//! were unpacked into: the `_shared` import, the JSON module and the vendored remote module all
//! run from the bundle, with no network.

use reqwest::multipart::{Form, Part};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::functions::serve;
use crate::helpers::TestApp;

const ROOT: &str = "file:///home/dev/app/supabase/functions";
const ESZIP: &str = "application/vnd.denoland.eszip";

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/eszip/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e} (built by tests/fixtures/eszip/build.mjs)"))
}

fn manage(app: &TestApp, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
    app.http.request(method, format!("{}/v1/projects/any-ref/{path}", app.address)).bearer_auth(&app.service_key)
}

/// Send `bundle` as the CLI's create (`POST`) or update (`PATCH`) call: its status and JSON.
async fn send_bundle(app: &TestApp, method: reqwest::Method, slug: &str, bundle: Vec<u8>) -> (StatusCode, Value) {
    let path = match method {
        reqwest::Method::POST => format!("functions?slug={slug}&name={slug}"),
        _ => format!("functions/{slug}?"),
    };
    let query = format!("&verify_jwt=false&entrypoint_path={ROOT}/{slug}/index.ts&ezbr_sha256=ignored");
    let response = manage(app, method, &format!("{path}{query}"))
        .header("content-type", ESZIP)
        .body(bundle)
        .send()
        .await
        .expect("deploy");
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn call(app: &TestApp, path: &str) -> (StatusCode, String) {
    let response = app.function(reqwest::Method::GET, path).send().await.expect("call");
    (response.status(), response.text().await.expect("text"))
}

fn hello_answer(name: &str) -> Value {
    json!({ "message": format!("Hello, {}!", name.to_uppercase()), "answer": 42, "origin": "https://bundled.example" })
}

/// The deployed `hello` called with `?name=<name>`: its status and JSON answer.
async fn call_hello(app: &TestApp, name: &str) -> (StatusCode, Value) {
    let (status, text) = call(app, &format!("hello?name={name}")).await;
    (status, serde_json::from_str::<Value>(&text).unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_cli_eszip_bundle_is_deployed_and_runs_its_shared_json_and_vendored_remote_modules() {
    // Arrange: a project without functions; the bundle as the CLI sends it (EZBR-compressed).
    let app = serve("", &[], |_| {}).await;

    // Act
    let (status, deployed) = send_bundle(&app, reqwest::Method::POST, "hello", fixture("hello.ezbr")).await;
    let (called, text) = call(&app, "hello?name=deno").await;

    // Assert
    assert_eq!(status, StatusCode::CREATED, "{deployed}");
    assert_eq!(deployed["slug"], "hello");
    assert_eq!(deployed["entrypoint_path"], "hello/index.ts");
    assert_eq!(deployed["import_map_path"], "import_map.json", "the vendored module's map");
    assert_eq!(deployed["verify_jwt"], false);
    assert_eq!(called, StatusCode::OK, "{text}");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap_or(Value::Null), hello_answer("deno"));
}

#[tokio::test]
async fn the_clis_update_call_redeploys_from_a_bundle_and_an_uncompressed_eszip_is_read_too() {
    let app = serve("", &[], |_| {}).await;
    let (created, _) = send_bundle(&app, reqwest::Method::POST, "hello", fixture("hello.ezbr")).await;
    assert_eq!(created, StatusCode::CREATED);

    let (status, updated) = send_bundle(&app, reqwest::Method::PATCH, "hello", fixture("hello.eszip")).await;

    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["version"], 2);
    assert_eq!(call_hello(&app, "again").await, (StatusCode::OK, hello_answer("again")));
}

#[tokio::test]
async fn a_bundle_built_with_an_import_map_resolves_its_bare_names_to_the_bundled_copies() {
    let app = serve("", &[], |_| {}).await;

    let (status, deployed) = send_bundle(&app, reqwest::Method::POST, "mapped", fixture("mapped.ezbr")).await;

    assert_eq!(status, StatusCode::CREATED, "{deployed}");
    assert_eq!(call(&app, "mapped").await, (StatusCode::OK, "Hello, MAP! https://bundled.example".into()));
}

#[tokio::test]
async fn an_eszip_file_part_of_a_multipart_deploy_is_unpacked() {
    let app = serve("", &[], |_| {}).await;
    let metadata = json!({ "name": "hello", "entrypoint_path": format!("{ROOT}/hello/index.ts"), "verify_jwt": false });
    let form = Form::new()
        .text("metadata", metadata.to_string())
        .part("file", Part::bytes(fixture("hello.ezbr")).file_name("hello.eszip"));

    let response = manage(&app, reqwest::Method::POST, "functions/deploy?slug=hello")
        .multipart(form)
        .send()
        .await
        .expect("deploy");

    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(response.json::<Value>().await.expect("json")["entrypoint_path"], "hello/index.ts");
    assert_eq!(call_hello(&app, "part").await, (StatusCode::OK, hello_answer("part")));
}

#[tokio::test]
async fn bad_bundles_are_refused_with_400_in_the_management_apis_shape_and_deploy_nothing() {
    let app = serve("", &[], |_| {}).await;
    let raw = fixture("hello.eszip");
    let mut flipped_magic = raw.clone();
    flipped_magic[0] = b'X';
    let mut bad_brotli = b"EZBR".to_vec();
    bad_brotli.extend_from_slice(&raw[..64]);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated", raw[..raw.len() / 2].to_vec(), "truncated"),
        ("wrong magic", flipped_magic, "neither an eszip"),
        ("not brotli", bad_brotli, "not valid brotli"),
        ("empty", Vec::new(), "neither an eszip"),
    ];
    for (case, body, says) in cases {
        let (status, answer) = send_bundle(&app, reqwest::Method::POST, "bad", body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{case}: {answer}");
        let message = answer["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("eszip: ") && message.contains(says), "{case}: {message}");
        assert_eq!(answer.as_object().map(|o| o.len()), Some(1), "{case}: only a message");
    }
    // An entrypoint the bundle does not hold.
    let response =
        manage(&app, reqwest::Method::POST, &format!("functions?slug=bad&entrypoint_path={ROOT}/bye/index.ts"))
            .header("content-type", ESZIP)
            .body(fixture("hello.ezbr"))
            .send()
            .await
            .expect("deploy");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let message = response.json::<Value>().await.expect("json")["message"].as_str().unwrap_or_default().to_string();
    assert!(message.contains("bye/index.ts is not in the bundle"), "{message}");
    let listed = manage(&app, reqwest::Method::GET, "functions").send().await.expect("list");
    assert_eq!(listed.json::<Value>().await.expect("json"), json!([]));
}
