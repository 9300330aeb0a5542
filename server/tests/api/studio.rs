//! `/studio`: the operator's dashboard API. Its security list (every route refused without an
//! operator session, with an app user's token, with the service key, cross-site, after idle
//! expiry and after the operator's removal; sign-in brute force slowed; writes audited), the
//! table editor's rows and the SQL editor's "run as", over HTTP against the real server.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{json_of, spawn_app, TestApp};

const EMAIL: &str = "ops@studio.test";
const PASSWORD: &str = "correct horse battery";

/// Every route of the signed-in API, with a body where it takes one.
fn routes() -> Vec<(Method, &'static str, Option<Value>)> {
    vec![
        (Method::GET, "/studio/api/session", None),
        (Method::POST, "/studio/api/signout", None),
        (Method::GET, "/studio/api/audit", None),
        (Method::GET, "/studio/api/schemas", None),
        (Method::GET, "/studio/api/tables?schema=public", None),
        (Method::GET, "/studio/api/tables/public/notes", None),
        (Method::GET, "/studio/api/tables/public/notes/rows", None),
        (Method::POST, "/studio/api/tables/public/notes/rows", Some(json!({"values": {"id": 9}}))),
        (
            Method::PATCH,
            "/studio/api/tables/public/notes/rows",
            Some(json!({"key": {"id": 1}, "values": {"body": "x"}})),
        ),
        (Method::DELETE, "/studio/api/tables/public/notes/rows", Some(json!({"keys": [{"id": 1}]}))),
        // Table editor › structure, CSV and the foreign-key picker (studio_ddl.rs)
        (Method::GET, "/studio/api/tables/public/notes/structure", None),
        (Method::GET, "/studio/api/tables/public/notes/export", None),
        (Method::POST, "/studio/api/tables/public/notes/import", Some(json!({"columns": ["id"], "rows": [["9"]]}))),
        (Method::GET, "/studio/api/tables/public/notes/references?column=id", None),
        (Method::POST, "/studio/api/ddl", Some(json!({"op": "drop_table", "schema": "public", "table": "notes"}))),
        // Table editor › bytea cells and renaming a table (studio_table_more.rs)
        (
            Method::PUT,
            "/studio/api/tables/public/notes/bytes",
            Some(json!({"key": {"id": 1}, "column": "body", "hex": "\\x01"})),
        ),
        (Method::GET, "/studio/api/tables/public/notes/bytes?column=body&key=%7B%22id%22%3A1%7D", None),
        (
            Method::POST,
            "/studio/api/ddl",
            Some(json!({"op": "rename_table", "schema": "public", "table": "notes", "rename_to": "gone"})),
        ),
        (Method::POST, "/studio/api/sql", Some(json!({"sql": "delete from public.notes"}))),
        (Method::GET, "/studio/api/sql/history", None),
        (Method::GET, "/studio/api/users?q=a", None),
        // Storage and policies screens (more in studio_storage.rs and studio_policies.rs)
        (Method::GET, "/studio/api/storage/bucket", None),
        (Method::POST, "/studio/api/storage/bucket", Some(json!({"name": "x"}))),
        (Method::POST, "/studio/api/storage/upload/resumable", None),
        (Method::GET, "/studio/api/s3-keys", None),
        (Method::POST, "/studio/api/s3-keys", Some(json!({"description": "x"}))),
        (Method::GET, "/studio/api/policies?schema=public", None),
        (
            Method::POST,
            "/studio/api/policies/rls",
            Some(json!({"schema": "public", "table": "notes", "enabled": false})),
        ),
        (
            Method::POST,
            "/studio/api/policies/test",
            Some(
                json!({"schema": "public", "table": "notes", "run_as": {"kind": "anon"}, "operation": {"kind": "select"}}),
            ),
        ),
        // Database › Backups
        (Method::GET, "/studio/api/backups", None),
        (Method::POST, "/studio/api/backups", Some(json!({"kind": "full"}))),
        (Method::POST, "/studio/api/backups/verify", None),
        (Method::POST, "/studio/api/backups/restore", Some(json!({"target_dir": "/tmp/x", "confirm": true}))),
        // Auth → Users, API & keys (studio_auth.rs)
        (Method::GET, "/studio/api/auth/users", None),
        (Method::POST, "/studio/api/auth/users", Some(json!({"email": "x@example.com", "password": "secret123"}))),
        (Method::POST, "/studio/api/auth/invite", Some(json!({"email": "y@example.com"}))),
        (Method::GET, "/studio/api/auth/users/11111111-1111-4111-8111-111111111111", None),
        (Method::DELETE, "/studio/api/auth/users/11111111-1111-4111-8111-111111111111", Some(json!({"soft": false}))),
        (Method::PUT, "/studio/api/auth/users/11111111-1111-4111-8111-111111111111/metadata", Some(json!({}))),
        (
            Method::POST,
            "/studio/api/auth/users/11111111-1111-4111-8111-111111111111/ban",
            Some(json!({"duration": "1h"})),
        ),
        (
            Method::POST,
            "/studio/api/auth/users/11111111-1111-4111-8111-111111111111/send-link",
            Some(json!({"kind": "recovery"})),
        ),
        (Method::POST, "/studio/api/auth/users/11111111-1111-4111-8111-111111111111/sign-out", None),
        (
            Method::DELETE,
            "/studio/api/auth/users/11111111-1111-4111-8111-111111111111/factors/22222222-2222-4222-8222-222222222222",
            None,
        ),
        // Auth → Settings, Mail templates, Signing keys; operator TOTP (studio_auth_config.rs)
        (Method::GET, "/studio/api/auth/settings", None),
        (Method::PUT, "/studio/api/auth/settings", Some(json!({"settings": {"DISABLE_SIGNUP": true}}))),
        (Method::GET, "/studio/api/auth/templates", None),
        (Method::PUT, "/studio/api/auth/templates/confirmation", Some(json!({"subject": "x", "html": "x"}))),
        (Method::POST, "/studio/api/auth/templates/confirmation/preview", Some(json!({"html": "x"}))),
        (Method::POST, "/studio/api/auth/templates/confirmation/test", Some(json!({"to": "z@example.com"}))),
        (Method::GET, "/studio/api/auth/signing-keys", None),
        (Method::POST, "/studio/api/auth/signing-keys/rotate", None),
        (Method::POST, "/studio/api/auth/signing-keys/11111111-1111-4111-8111-111111111111/revoke", None),
        (Method::GET, "/studio/api/operator/totp", None),
        (Method::POST, "/studio/api/operator/totp/enroll", None),
        (Method::POST, "/studio/api/operator/totp/verify", Some(json!({"code": "123456"}))),
        (Method::POST, "/studio/api/operator/totp/remove", Some(json!({"code": "123456"}))),
        (Method::GET, "/studio/api/project/api", None),
        (Method::POST, "/studio/api/project/api/reveal", Some(json!({"key": "secret"}))),
        (Method::GET, "/studio/api/types", None),
        // Logs and reports (studio_logs.rs)
        (Method::GET, "/studio/api/logs/requests", None),
        (Method::GET, "/studio/api/logs/requests/1", None),
        (Method::GET, "/studio/api/logs/postgres", None),
        (Method::GET, "/studio/api/logs/auth", None),
        (Method::GET, "/studio/api/reports", None),
        // Database section and the SQL editor's plan and snippets
        (Method::GET, "/studio/api/database/roles", None),
        (Method::POST, "/studio/api/database/roles", Some(json!({"name": "x", "login": true}))),
        (Method::PATCH, "/studio/api/database/roles/x", Some(json!({"login": true}))),
        (Method::DELETE, "/studio/api/database/roles/x", None),
        (
            Method::POST,
            "/studio/api/database/roles/x/membership",
            Some(json!({"role": "authenticated", "grant": true})),
        ),
        (
            Method::POST,
            "/studio/api/database/roles/x/privileges",
            Some(json!({"schema": "public", "privileges": ["select"], "grant": true})),
        ),
        (Method::GET, "/studio/api/database/extensions", None),
        (Method::POST, "/studio/api/database/extensions", Some(json!({"name": "citext", "enabled": true}))),
        (Method::POST, "/studio/api/database/extensions/update", Some(json!({"name": "pg_trgm"}))),
        (Method::GET, "/studio/api/database/migrations", None),
        (Method::GET, "/studio/api/database/table-sizes", None),
        (Method::GET, "/studio/api/database/indexes", None),
        (Method::POST, "/studio/api/sql/explain", Some(json!({"sql": "delete from public.notes"}))),
        (Method::GET, "/studio/api/snippets", None),
        (Method::POST, "/studio/api/snippets", Some(json!({"name": "x", "sql": "select 1"}))),
        (Method::PATCH, "/studio/api/snippets/11111111-1111-4111-8111-111111111111", Some(json!({"name": "y"}))),
        (Method::DELETE, "/studio/api/snippets/11111111-1111-4111-8111-111111111111", None),
        // Realtime inspector and Edge Functions (studio_rtfn.rs)
        (Method::POST, "/studio/api/realtime/token", Some(json!({"run_as": "anon"}))),
        (Method::GET, "/studio/api/realtime/publication", None),
        (Method::GET, "/studio/api/realtime/instances", None),
        (Method::GET, "/studio/api/functions", None),
        (Method::GET, "/studio/api/functions/hello", None),
        (Method::DELETE, "/studio/api/functions/hello", None),
        (
            Method::POST,
            "/studio/api/functions/hello/deploy",
            Some(json!({"entrypoint_path": "index.ts", "files": [{"path": "index.ts", "content": "x"}]})),
        ),
        (Method::POST, "/studio/api/functions/hello/invoke", Some(json!({"run_as": "anon"}))),
        (Method::GET, "/studio/api/functions/hello/logs", None),
        (Method::GET, "/studio/api/functions-secrets", None),
        (Method::POST, "/studio/api/functions-secrets", Some(json!({"name": "A", "value": "b"}))),
        (Method::DELETE, "/studio/api/functions-secrets/A", None),
        (Method::GET, "/studio/api/no-such-route", None),
    ]
}

/// A signed-in dashboard: the cookie and CSRF token of a session.
pub struct Studio {
    pub cookie: String,
    pub csrf: String,
}

/// Adds an operator who may sign in to the dashboard with `email` and `password`.
pub async fn add_operator(app: &TestApp, email: &str, password: &str) {
    let hash = server::auth::password::hash_blocking(password).expect("hash");
    app.admin_sql(&format!("insert into _studio.operators (email, password_hash) values ('{email}', '{hash}')")).await;
}

pub async fn studio_app() -> TestApp {
    let app = spawn_app().await;
    add_operator(&app, EMAIL, PASSWORD).await;
    app.admin_sql(
        "create table public.notes (id int primary key, owner uuid, body text, done boolean not null default false, \
           meta jsonb, at date);
         alter table public.notes enable row level security;
         create policy read_own on public.notes for select to authenticated using (owner = auth.uid());
         insert into public.notes (id, body) select i, 'note ' || i from generate_series(1, 25) i;",
    )
    .await;
    app
}

/// Posts a sign-in to the dashboard of the server at `url`.
pub async fn sign_in_at(http: &reqwest::Client, url: &str, email: &str, password: &str) -> reqwest::Response {
    http.post(format!("{url}/studio/api/signin"))
        .json(&json!({"email": email, "password": password}))
        .send()
        .await
        .expect("sign-in")
}

async fn sign_in(app: &TestApp, email: &str, password: &str) -> reqwest::Response {
    sign_in_at(&app.http, &app.address, email, password).await
}

pub async fn signed_in(app: &TestApp) -> Studio {
    Studio::sign_in(&app.http, &app.address, EMAIL, PASSWORD).await
}

impl Studio {
    /// Signs in to the dashboard of the server at `url` (which must accept) and keeps the
    /// session's cookie and CSRF token.
    pub async fn sign_in(http: &reqwest::Client, url: &str, email: &str, password: &str) -> Studio {
        let res = sign_in_at(http, url, email, password).await;
        assert_eq!(res.status(), StatusCode::OK);
        let set_cookie = res.headers().get("set-cookie").expect("a cookie").to_str().expect("text").to_string();
        let cookie = set_cookie.split(';').next().expect("a name and value").to_string();
        let body: Value = res.json().await.expect("json");
        Studio { cookie, csrf: body["csrf_token"].as_str().expect("a csrf token").to_string() }
    }

    /// A request to `path` of the server at `url` with this session's cookie, CSRF token and origin.
    pub fn request(&self, http: &reqwest::Client, url: &str, method: Method, path: &str) -> reqwest::RequestBuilder {
        http.request(method, format!("{url}{path}"))
            .header("cookie", &self.cookie)
            .header("x-csrf-token", &self.csrf)
            .header("origin", url)
    }

    /// Sends `body` (if any) to `path` of the server at `url`; the status and the JSON answer.
    pub async fn call_at(
        &self,
        http: &reqwest::Client,
        url: &str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut req = self.request(http, url, method, path);
        if let Some(body) = body {
            req = req.json(&body);
        }
        json_of(req.send().await.expect("studio request")).await
    }

    pub fn req(&self, app: &TestApp, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.request(&app.http, &app.address, method, path)
    }

    pub async fn call(&self, app: &TestApp, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        self.call_at(&app.http, &app.address, method, path, body).await
    }
}

async fn send(app: &TestApp, method: &Method, path: &str, body: &Option<Value>, extra: &[(&str, &str)]) -> u16 {
    let mut req = app.http.request(method.clone(), format!("{}{path}", app.address));
    for (k, v) in extra {
        req = req.header(*k, *v);
    }
    if let Some(body) = body {
        req = req.json(body);
    }
    req.send().await.expect("request").status().as_u16()
}

async fn notes_left(app: &TestApp) -> i64 {
    app.admin_query_one("select count(*) from public.notes").await.get(0)
}

#[tokio::test]
async fn every_route_is_refused_without_a_session_with_an_app_token_or_with_the_service_key() {
    let app = studio_app().await;
    let user = app.user_token("11111111-1111-4111-8111-111111111111");
    let service = format!("Bearer {}", app.service_key);
    let user_bearer = format!("Bearer {user}");
    let callers: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("nothing", vec![]),
        ("an app user's token", vec![("apikey", &app.anon_key), ("authorization", &user_bearer)]),
        ("the anon key", vec![("apikey", &app.anon_key), ("authorization", &app.anon_key)]),
        ("the service key", vec![("apikey", &app.service_key), ("authorization", &service)]),
        ("the secret key", vec![("apikey", &app.secret_key)]),
        ("a made-up cookie", vec![("cookie", "studio_session=forged")]),
    ];
    for (who, headers) in &callers {
        for (method, path, body) in routes() {
            assert_eq!(send(&app, &method, path, &body, headers).await, 401, "{method} {path} with {who}");
        }
    }
    assert_eq!(notes_left(&app).await, 25, "nothing was written");
}

#[tokio::test]
async fn signing_in_sets_a_strict_http_only_cookie_and_sends_no_key() {
    let app = studio_app().await;
    let res = sign_in(&app, EMAIL, PASSWORD).await;
    assert_eq!(res.status(), StatusCode::OK);
    let cookie = res.headers().get("set-cookie").unwrap().to_str().unwrap().to_string();
    for attribute in ["studio_session=", "HttpOnly", "SameSite=Strict", "Path=/studio"] {
        assert!(cookie.contains(attribute), "{attribute} in {cookie}");
    }
    let body = res.text().await.unwrap();
    for secret in [&app.anon_key, &app.service_key, &app.secret_key, &app.publishable_key, &app.jwt_secret] {
        assert!(!body.contains(secret.as_str()), "a key in the sign-in answer");
    }
    let studio = signed_in(&app).await;
    let (status, session) = studio.call(&app, Method::GET, "/studio/api/session", None).await;
    assert_eq!(status, 200);
    assert_eq!(session["operator"]["email"], EMAIL);
    assert_eq!(session["csrf_token"], studio.csrf);
}

#[tokio::test]
async fn a_wrong_password_and_an_unknown_operator_are_refused_alike() {
    let app = studio_app().await;
    let (status, wrong) = json_of(sign_in(&app, EMAIL, "not the password").await).await;
    assert_eq!(status, 401);
    let (status, unknown) = json_of(sign_in(&app, "nobody@studio.test", PASSWORD).await).await;
    assert_eq!(status, 401);
    assert_eq!(wrong, unknown);
    assert_eq!(wrong["error"]["code"], "invalid_credentials");
}

#[tokio::test]
async fn writes_need_the_sessions_csrf_token_and_the_dashboards_origin() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let url = format!("{}/studio/api/tables/public/notes/rows", app.address);
    let body = json!({"keys": [{"id": 1}]});
    // A cross-site form post: the cookie without the token.
    let res = app.http.delete(&url).header("cookie", &studio.cookie).json(&body).send().await.unwrap();
    assert_eq!(res.status(), 403);
    // The token of another session.
    let other = signed_in(&app).await;
    let res = app.http.delete(&url).header("cookie", &studio.cookie).header("x-csrf-token", &other.csrf).json(&body);
    assert_eq!(res.send().await.unwrap().status(), 403);
    // The right token from another site.
    let res =
        studio.req(&app, Method::DELETE, "/studio/api/tables/public/notes/rows").header("origin", "https://evil.test");
    assert_eq!(res.json(&body).send().await.unwrap().status(), 403);
    let res =
        studio.req(&app, Method::DELETE, "/studio/api/tables/public/notes/rows").header("sec-fetch-site", "cross-site");
    assert_eq!(res.json(&body).send().await.unwrap().status(), 403);
    let res = app.http.post(format!("{}/studio/api/signin", app.address)).header("origin", "https://evil.test");
    assert_eq!(res.json(&json!({"email": EMAIL, "password": PASSWORD})).send().await.unwrap().status(), 403);
    assert_eq!(notes_left(&app).await, 25);
    // The same write from the dashboard goes through.
    let (status, done) = studio.call(&app, Method::DELETE, "/studio/api/tables/public/notes/rows", Some(body)).await;
    assert_eq!((status, done), (200, json!({"deleted": 1})));
    assert_eq!(notes_left(&app).await, 24);
}

#[tokio::test]
async fn an_idle_session_ends_and_a_removed_operator_is_out_at_once() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    assert_eq!(studio.call(&app, Method::GET, "/studio/api/schemas", None).await.0, 200);
    app.admin_sql("update _studio.sessions set last_seen_at = now() - interval '2 hours'").await;
    assert_eq!(
        studio.call(&app, Method::GET, "/studio/api/schemas", None).await.0,
        401,
        "idle for longer than an hour"
    );

    let studio = signed_in(&app).await;
    assert_eq!(studio.call(&app, Method::GET, "/studio/api/schemas", None).await.0, 200);
    app.admin_sql(&format!("delete from _studio.operators where email = '{EMAIL}'")).await;
    for (method, path, body) in routes() {
        assert_eq!(studio.call(&app, method.clone(), path, body).await.0, 401, "{method} {path} after removal");
    }
}

#[tokio::test]
async fn signing_out_ends_the_session() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let res = studio.req(&app, Method::POST, "/studio/api/signout").send().await.unwrap();
    assert_eq!(res.status(), 204);
    assert!(res.headers().get("set-cookie").unwrap().to_str().unwrap().contains("Max-Age=0"));
    assert_eq!(studio.call(&app, Method::GET, "/studio/api/session", None).await.0, 401);
}

#[tokio::test]
async fn sign_in_brute_force_is_stopped_per_address() {
    let app = studio_app().await;
    for attempt in 0..5 {
        assert_eq!(sign_in(&app, EMAIL, &format!("guess {attempt}")).await.status(), 401);
    }
    let (status, body) = json_of(sign_in(&app, EMAIL, PASSWORD).await).await;
    assert_eq!(status, 429, "even the right password waits: {body}");
    assert_eq!(body["error"]["code"], "too_many_attempts");
    let failed: i64 =
        app.admin_query_one("select count(*) from _studio.audit_log where action = 'signin.failed'").await.get(0);
    assert_eq!(failed, 5);
}

#[tokio::test]
async fn every_write_lands_in_the_audit_log_with_who_what_and_when() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let rows = "/studio/api/tables/public/notes/rows";
    assert_eq!(studio.call(&app, Method::POST, rows, Some(json!({"values": {"id": 100, "body": "new"}}))).await.0, 201);
    let patch = json!({"key": {"id": 100}, "values": {"body": "changed"}});
    assert_eq!(studio.call(&app, Method::PATCH, rows, Some(patch)).await.0, 200);
    assert_eq!(studio.call(&app, Method::DELETE, rows, Some(json!({"keys": [{"id": 100}]}))).await.0, 200);
    assert_eq!(studio.call(&app, Method::POST, "/studio/api/sql", Some(json!({"sql": "select 1"}))).await.0, 200);
    let (status, audit) = studio.call(&app, Method::GET, "/studio/api/audit", None).await;
    assert_eq!(status, 200);
    let actions: Vec<&str> =
        audit["entries"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["sql.run", "rows.delete", "rows.update", "rows.insert", "signin"]);
    let update = &audit["entries"][2];
    assert_eq!(update["operator"], EMAIL);
    assert_eq!(update["target"], "public.notes");
    assert_eq!(update["detail"], json!({"key": {"id": 100}, "values": {"body": "changed"}}));
    assert!(update["at"].as_str().is_some());
}

#[tokio::test]
async fn the_platform_schema_is_neither_listed_nor_reachable_through_rest() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let (_, schemas) = studio.call(&app, Method::GET, "/studio/api/schemas", None).await;
    assert!(!schemas["schemas"].as_array().unwrap().contains(&json!("_studio")));
    assert_eq!(studio.call(&app, Method::GET, "/studio/api/tables/_studio/operators/rows", None).await.0, 404);
    for key in [&app.anon_key, &app.service_key] {
        let res = app
            .http
            .get(format!("{}/rest/v1/operators", app.address))
            .header("apikey", key.as_str())
            .header("authorization", format!("Bearer {key}"))
            .header("accept-profile", "_studio")
            .send()
            .await
            .unwrap();
        assert!(res.status().is_client_error(), "{}", res.status());
        assert!(!res.text().await.unwrap().contains("password_hash"));
    }
}

#[tokio::test]
async fn rows_are_filtered_sorted_and_paged_by_key_on_the_server() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let page = |q: Value| format!("/studio/api/tables/public/notes/rows?q={}", urlencode(&q.to_string()));
    let (status, first) = studio.call(&app, Method::GET, &page(json!({"limit": 10})), None).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["paging"], "keyset");
    assert_eq!(first["rows"].as_array().unwrap().len(), 10);
    assert_eq!(first["next"], json!({"after": {"id": 10}}));
    let (_, second) = studio.call(&app, Method::GET, &page(json!({"limit": 10, "after": {"id": 10}})), None).await;
    assert_eq!(second["rows"][0]["id"], 11);
    let (_, last) = studio.call(&app, Method::GET, &page(json!({"limit": 10, "after": {"id": 20}})), None).await;
    assert_eq!(last["rows"].as_array().unwrap().len(), 5);
    assert_eq!(last["next"], Value::Null);

    let q = json!({"filters": [{"column": "id", "op": "gte", "value": "20"}, {"column": "body", "op": "ilike", "value": "%2%"}],
                   "sort": [{"column": "id", "desc": true}]});
    let (_, filtered) = studio.call(&app, Method::GET, &page(q), None).await;
    let ids: Vec<i64> = filtered["rows"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [25, 24, 23, 22, 21, 20]);

    let (_, by_body) =
        studio.call(&app, Method::GET, &page(json!({"sort": [{"column": "body"}], "limit": 3})), None).await;
    assert_eq!(by_body["paging"], "offset", "body is nullable");
    assert_eq!(by_body["next"], json!({"offset": 3}));

    let hostile = json!({"filters": [{"column": "id\"; drop table public.notes; --", "op": "eq", "value": 1}]});
    assert_eq!(studio.call(&app, Method::GET, &page(hostile), None).await.0, 400);
    let (status, _) = studio
        .call(
            &app,
            Method::GET,
            &page(json!({"filters": [{"column": "body", "op": "eq", "value": "x'); drop table public.notes; --"}]})),
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(notes_left(&app).await, 25);
}

fn urlencode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[tokio::test]
async fn cells_are_written_in_their_columns_types_and_bad_values_are_refused() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let rows = "/studio/api/tables/public/notes/rows";
    let (status, inserted) = studio
        .call(
            &app,
            Method::POST,
            rows,
            Some(json!({"values": {"id": "200", "done": true, "meta": {"a": [1]}, "at": "2026-03-01"}})),
        )
        .await;
    assert_eq!(status, 201, "{inserted}");
    assert_eq!(
        inserted["row"],
        json!({"id": 200, "owner": null, "body": null, "done": true, "meta": {"a": [1]}, "at": "2026-03-01"})
    );
    let (status, bad) =
        studio.call(&app, Method::PATCH, rows, Some(json!({"key": {"id": 200}, "values": {"at": "soon"}}))).await;
    assert_eq!(status, 400);
    assert_eq!(bad["error"]["code"], "database");
    let (status, _) =
        studio.call(&app, Method::PATCH, rows, Some(json!({"key": {"id": 999}, "values": {"body": "x"}}))).await;
    assert_eq!(status, 404);
    let (status, _) =
        studio.call(&app, Method::PATCH, rows, Some(json!({"key": {"body": "x"}, "values": {"body": "x"}}))).await;
    assert_eq!(status, 400, "a key must be the primary key");
}

#[tokio::test]
async fn sql_runs_as_a_chosen_user_sees_only_what_row_level_security_lets_them() {
    let app = studio_app().await;
    let (status, user) =
        app.auth_post("/signup", json!({"email": "carol@example.test", "password": "carol-password-1"})).await;
    assert_eq!(status, 200, "{user}");
    let carol = user["user"]["id"].as_str().or(user["id"].as_str()).unwrap().to_string();
    app.admin_sql(&format!("update public.notes set owner = '{carol}' where id in (3, 4)")).await;
    let studio = signed_in(&app).await;
    let run = |run_as: Value| json!({"sql": "select id from public.notes order by id; select auth.uid()::text, current_user::text", "run_as": run_as});
    let (status, out) =
        studio.call(&app, Method::POST, "/studio/api/sql", Some(run(json!({"kind": "user", "id": carol})))).await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["error"], Value::Null);
    assert_eq!(out["results"][0]["rows"], json!([["3"], ["4"]]));
    assert_eq!(out["results"][1]["rows"], json!([[carol, "authenticated"]]));
    let (_, anon) = studio.call(&app, Method::POST, "/studio/api/sql", Some(run(json!({"kind": "anon"})))).await;
    assert_eq!(anon["results"][0]["rows"], json!([]));
    let (_, owner) = studio.call(&app, Method::POST, "/studio/api/sql", Some(run(json!({"kind": "owner"})))).await;
    assert_eq!(owner["results"][0]["rows"].as_array().unwrap().len(), 25);
}

#[tokio::test]
async fn sql_errors_say_where_and_roll_the_whole_run_back() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let sql = "delete from public.notes where id = 1;\nselect * from public.nowhere";
    let (status, out) = studio.call(&app, Method::POST, "/studio/api/sql", Some(json!({"sql": sql}))).await;
    assert_eq!(status, 200);
    assert_eq!(out["results"].as_array().unwrap().len(), 1);
    assert_eq!(out["error"]["statement"], 1);
    assert_eq!(out["error"]["sqlstate"], "42P01");
    let at = sql.find("public.nowhere").unwrap() as u64 + 1;
    assert_eq!(out["error"]["position"], at, "the position counts from the script's start");
    assert_eq!(out["committed"], false);
    assert_eq!(notes_left(&app).await, 25);
}

#[tokio::test]
async fn large_results_come_in_capped_pages() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let sql = "select g from generate_series(1, 2500) g";
    let (_, first) = studio.call(&app, Method::POST, "/studio/api/sql", Some(json!({"sql": sql}))).await;
    let result = &first["results"][0];
    assert_eq!(result["rows"].as_array().unwrap().len(), 1000);
    assert_eq!(result["more"], true);
    assert_eq!(result["columns"], json!([{"name": "g", "type": "int4"}]));
    let (_, third) =
        studio.call(&app, Method::POST, "/studio/api/sql", Some(json!({"sql": sql, "offset": 2000}))).await;
    let result = &third["results"][0];
    assert_eq!(result["rows"][0], json!(["2001"]));
    assert_eq!(result["rows"].as_array().unwrap().len(), 500);
    assert_eq!(result["more"], false);
    let (_, write) = studio
        .call(&app, Method::POST, "/studio/api/sql", Some(json!({"sql": "update public.notes set done = true"})))
        .await;
    assert_eq!(write["results"][0]["rows_affected"], 25);
}

#[tokio::test]
async fn the_app_is_served_at_studio_with_its_cache_rules() {
    let app = spawn_app().await;
    for path in ["/studio", "/studio/", "/studio/tables/public/notes"] {
        let res = app.http.get(format!("{}{path}", app.address)).send().await.unwrap();
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(res.headers()["cache-control"], "no-cache");
        assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
        assert!(res.text().await.unwrap().contains("Studio"));
    }
    let res = app.http.get(format!("{}/studio/assets/missing-0000.js", app.address)).send().await.unwrap();
    assert_eq!(res.status(), 404);
    let site = app.http.get(format!("{}/", app.address)).send().await.unwrap().text().await.unwrap();
    assert!(!site.contains("/studio/assets/"), "the customer site loads nothing of the dashboard");
}

#[tokio::test]
async fn the_sql_history_is_the_operators_own_runs_newest_first() {
    let app = studio_app().await;
    add_operator(&app, "other@studio.test", PASSWORD).await;
    let studio = signed_in(&app).await;
    for sql in ["select 1", "select nothing_at_all"] {
        assert_eq!(studio.call(&app, Method::POST, "/studio/api/sql", Some(json!({"sql": sql}))).await.0, 200);
    }
    let other = sign_in(&app, "other@studio.test", PASSWORD).await;
    let cookie = other.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
    let csrf = other.json::<Value>().await.unwrap()["csrf_token"].as_str().unwrap().to_string();
    let other = Studio { cookie, csrf };
    let theirs = json!({"sql": "select 'theirs'"});
    assert_eq!(other.call(&app, Method::POST, "/studio/api/sql", Some(theirs)).await.0, 200);
    let (status, history) = studio.call(&app, Method::GET, "/studio/api/sql/history", None).await;
    assert_eq!(status, 200);
    let runs = history["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["sql"], "select nothing_at_all");
    assert_eq!(runs[0]["failed"], true);
    assert_eq!(runs[1]["sql"], "select 1");
    assert_eq!(runs[1]["committed"], true);
    assert_eq!(runs[1]["run_as"], "owner");
}
