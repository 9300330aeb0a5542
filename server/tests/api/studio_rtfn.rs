//! The dashboard's realtime inspector and functions screens (`/studio/api/realtime/…`,
//! `/studio/api/functions…`, `/studio/api/functions-secrets…`): the inspector's token is a
//! short-lived one of anon or of a user (never the service role) with the publishable key, the
//! publication and this instance's sockets are listed; an operator deploys a function through the
//! management API's path, invokes it as a user (the studio backend making the call), reads its
//! log line, sets a secret the function reads and deletes it; every write is audited, and no
//! secret value comes back.

use std::time::{Duration, Instant};

use base64::Engine;
use reqwest::Method;
use serde_json::{json, Value};

use crate::functions::serve;
use crate::helpers::TestApp;
use crate::studio::{add_operator, Studio};

const EMAIL: &str = "rtfn@studio.test";
const PASSWORD: &str = "correct horse battery";

async fn operator(app: &TestApp) -> Studio {
    add_operator(app, EMAIL, PASSWORD).await;
    Studio::sign_in(&app.http, &app.address, EMAIL, PASSWORD).await
}

async fn call(app: &TestApp, studio: &Studio, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    studio.call_at(&app.http, &app.address, method, &format!("/studio/api{path}"), body).await
}

/// The claims of a JWT (not verified: the server's realtime surface verifies it below).
fn claims_of(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("a payload");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).expect("base64");
    serde_json::from_slice(&bytes).expect("json")
}

async fn audited(app: &TestApp, action: &str) -> i64 {
    app.admin_query_one(&format!("select count(*) from _studio.audit_log where action = '{action}'")).await.get(0)
}

#[tokio::test]
async fn the_inspector_token_is_short_lived_anon_or_a_users_and_never_the_service_role() {
    // Arrange
    let app = serve("", &[], |_| {}).await;
    let studio = operator(&app).await;
    let user = "22222222-2222-4222-8222-222222222222";
    app.admin_sql(&format!(
        "insert into auth.users (id, aud, role, email, created_at, updated_at) \
         values ('{user}', 'authenticated', 'authenticated', 'watcher@example.com', now(), now())"
    ))
    .await;

    // Act
    let (anon_status, anon) =
        call(&app, &studio, Method::POST, "/realtime/token", Some(json!({"run_as": "anon"}))).await;
    let (user_status, as_user) =
        call(&app, &studio, Method::POST, "/realtime/token", Some(json!({"run_as": {"user": user}}))).await;
    let (service_status, _) =
        call(&app, &studio, Method::POST, "/realtime/token", Some(json!({"run_as": "service_role"}))).await;
    let (unknown_status, _) = call(
        &app,
        &studio,
        Method::POST,
        "/realtime/token",
        Some(json!({"run_as": {"user": "33333333-3333-4333-8333-333333333333"}})),
    )
    .await;

    // Assert
    assert_eq!(anon_status, 200, "{anon}");
    assert_eq!(anon["apikey"], app.publishable_key.as_str(), "the publishable key, not a secret one");
    let claims = claims_of(anon["access_token"].as_str().expect("a token"));
    assert_eq!(claims["role"], "anon");
    assert!(claims["exp"].as_i64().unwrap_or(0) - claims["iat"].as_i64().unwrap_or(0) <= 600, "{claims}");
    assert_eq!(user_status, 200, "{as_user}");
    let claims = claims_of(as_user["access_token"].as_str().expect("a token"));
    assert_eq!((claims["sub"].as_str(), claims["role"].as_str()), (Some(user), Some("authenticated")));
    assert_eq!(claims["email"], "watcher@example.com");
    assert_eq!(service_status, 400, "no service role token is minted");
    assert_eq!(unknown_status, 404);
    let text = format!("{anon}{as_user}");
    assert!(!text.contains(&app.service_key) && !text.contains(&app.secret_key), "no secret key sent");
    assert_eq!(audited(&app, "realtime.token").await, 2);
    // The user's token opens the REST surface as that user (the realtime surface verifies the same way).
    let token = as_user["access_token"].as_str().unwrap_or_default();
    let me = app
        .http
        .get(format!("{}/auth/v1/user", app.address))
        .header("apikey", &app.anon_key)
        .bearer_auth(token)
        .send()
        .await
        .expect("user");
    assert_eq!(me.status(), 200);
}

#[tokio::test]
async fn the_publication_tables_and_this_instances_sockets_are_listed() {
    let app = serve("", &[], |_| {}).await;
    let studio = operator(&app).await;
    app.admin_sql(
        "create table public.watched (id int primary key); alter table public.watched replica identity full; \
         alter publication supabase_realtime add table public.watched;",
    )
    .await;

    let (status, publication) = call(&app, &studio, Method::GET, "/realtime/publication", None).await;
    let (instances_status, instances) = call(&app, &studio, Method::GET, "/realtime/instances", None).await;

    assert_eq!(status, 200, "{publication}");
    assert_eq!(publication["exists"], true);
    let tables = publication["tables"].as_array().cloned().unwrap_or_default();
    assert!(
        tables.contains(&json!({"schema": "public", "table": "watched", "replica_identity": "full"})),
        "{publication}"
    );
    assert_eq!(instances_status, 200, "{instances}");
    assert_eq!(instances["this"]["connections"], 0);
    assert_eq!(instances["this"]["channels"], 0);
    assert!(instances["this"]["instance"].as_str().is_some_and(|i| !i.is_empty()));
    assert!(instances["peers"].is_array());
}

const READS_A_SECRET: &str = r#"
Deno.serve(async (req) => {
  const body = await req.text();
  const auth = req.headers.get("authorization") ?? "";
  const claims = auth ? JSON.parse(atob(auth.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))) : null;
  console.log(`studio-fn called with ${body}`);
  return Response.json({ body, sub: claims?.sub ?? null, role: claims?.role ?? null, secret: Deno.env.get("STUDIO_TEST_SECRET") ?? null, custom: req.headers.get("x-custom") });
});
"#;

#[tokio::test]
async fn an_operator_deploys_invokes_reads_logs_sets_a_secret_and_deletes_a_function() {
    // Arrange
    let app = serve("", &[], |_| {}).await;
    let studio = operator(&app).await;
    let user = "44444444-4444-4444-8444-444444444444";
    app.admin_sql(&format!(
        "insert into auth.users (id, aud, role, email, created_at, updated_at) \
         values ('{user}', 'authenticated', 'authenticated', 'caller@example.com', now(), now())"
    ))
    .await;
    let files = json!([{"path": "index.ts", "content": READS_A_SECRET}]);

    // Act: deploy, then a bad deploy (the entry file is missing)
    let (deployed_status, deployed) = call(
        &app,
        &studio,
        Method::POST,
        "/functions/studio-fn/deploy",
        Some(json!({"verify_jwt": true, "entrypoint_path": "index.ts", "files": files})),
    )
    .await;
    let (bad_status, bad) = call(
        &app,
        &studio,
        Method::POST,
        "/functions/studio-fn/deploy",
        Some(json!({"entrypoint_path": "main.ts", "files": files})),
    )
    .await;

    // Assert: deployed through the management API's path (the management API lists it)
    assert_eq!(deployed_status, 200, "{deployed}");
    assert_eq!(deployed["function"]["version"], 1);
    assert_eq!(bad_status, 400, "{bad}");
    let listed = app
        .http
        .get(format!("{}/v1/projects/x/functions", app.address))
        .bearer_auth(&app.service_key)
        .send()
        .await
        .expect("list")
        .json::<Value>()
        .await
        .expect("json");
    assert_eq!(listed[0]["slug"], "studio-fn");
    let (_, list) = call(&app, &studio, Method::GET, "/functions", None).await;
    assert_eq!(list["functions"][0]["slug"], "studio-fn", "{list}");
    assert_eq!(list["functions"][0]["source"], "deployed");
    let (_, source) = call(&app, &studio, Method::GET, "/functions/studio-fn", None).await;
    assert_eq!(source["files"][0]["content"], READS_A_SECRET);

    // Act: a secret, then an invocation as the user and one without a token
    let (set_status, _) = call(
        &app,
        &studio,
        Method::POST,
        "/functions-secrets",
        Some(json!({"name": "STUDIO_TEST_SECRET", "value": "s3cret-value"})),
    )
    .await;
    let (reserved_status, _) =
        call(&app, &studio, Method::POST, "/functions-secrets", Some(json!({"name": "SUPABASE_X", "value": "v"})))
            .await;
    let invoke =
        json!({"method": "POST", "body": "{\"hi\":1}", "headers": {"x-custom": "yes"}, "run_as": {"user": user}});
    let (invoked_status, invoked) =
        call(&app, &studio, Method::POST, "/functions/studio-fn/invoke", Some(invoke)).await;
    let (_, without) =
        call(&app, &studio, Method::POST, "/functions/studio-fn/invoke", Some(json!({"run_as": "none"}))).await;

    // Assert
    assert_eq!(set_status, 204);
    assert_eq!(reserved_status, 400);
    assert_eq!(invoked_status, 200, "{invoked}");
    assert_eq!(invoked["status"], 200, "{invoked}");
    let answer: Value = serde_json::from_str(invoked["body"].as_str().unwrap_or("null")).expect("the function's json");
    assert_eq!(answer["sub"], user);
    assert_eq!(answer["role"], "authenticated");
    assert_eq!(answer["body"], "{\"hi\":1}");
    assert_eq!(answer["custom"], "yes");
    assert_eq!(answer["secret"], "s3cret-value", "the function reads the secret set from the dashboard");
    assert_eq!(without["status"], 401, "verify_jwt refuses a call without a token: {without}");
    let (_, secrets) = call(&app, &studio, Method::GET, "/functions-secrets", None).await;
    assert_eq!(secrets["secrets"][0]["name"], "STUDIO_TEST_SECRET");
    assert!(!secrets.to_string().contains("s3cret-value"), "values are write-only: {secrets}");

    // Assert: the log line arrives (written in batches)
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, logs) = call(&app, &studio, Method::GET, "/functions/studio-fn/logs", None).await;
        let lines = logs["lines"].as_array().cloned().unwrap_or_default();
        if lines.iter().any(|l| l["message"].as_str().is_some_and(|m| m.contains("studio-fn called with {\"hi\":1}"))) {
            break;
        }
        assert!(Instant::now() < deadline, "no log line: {logs}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Act: remove the secret and the function
    let (unset_status, _) = call(&app, &studio, Method::DELETE, "/functions-secrets/STUDIO_TEST_SECRET", None).await;
    let (deleted_status, _) = call(&app, &studio, Method::DELETE, "/functions/studio-fn", None).await;
    let (again_status, _) = call(&app, &studio, Method::DELETE, "/functions/studio-fn", None).await;

    // Assert
    assert_eq!(unset_status, 204);
    assert_eq!(deleted_status, 204);
    assert_eq!(again_status, 404);
    let gone = app.http.post(format!("{}/functions/v1/studio-fn", app.address)).send().await.expect("call");
    assert_eq!(gone.status(), 404);
    for action in
        ["function.deploy", "function.invoke", "function_secret.set", "function_secret.unset", "function.delete"]
    {
        assert!(audited(&app, action).await >= 1, "{action} audited");
    }
    let detail: Value =
        app.admin_query_one("select coalesce(json_agg(detail), '[]')::text::jsonb from _studio.audit_log").await.get(0);
    assert!(!detail.to_string().contains("s3cret-value"), "no secret value in the audit log");
}
