//! The foundation: migrations, per-request role and claims, the key/JWT gate, CORS, health,
//! and the embedded cluster keeping its data across restarts.

use std::sync::Arc;

use secrecy::SecretString;
use serde_json::{json, Value};
use server::db::context::{self, Access, Caller, RequestInfo};
use server::db::{migrate, Pools};

use crate::helpers::{base_config, spawn_app, spawn_app_with, TestApp};

fn request_pools(app: &TestApp) -> Pools {
    let url = SecretString::from(app.db_url.clone());
    Pools::new(&url, "unused-on-socket-trust", 2).expect("pools")
}

async fn query_as(app: &TestApp, caller: &Caller, sql: &str) -> Vec<tokio_postgres::Row> {
    let pools = request_pools(app);
    let mut client = pools.request.get().await.expect("request connection");
    let info =
        RequestInfo { method: "GET".into(), path: "/test".into(), headers: json!({"x-test": "1"}), settings: vec![] };
    let tx = context::begin(&mut client, caller, &info, Access::ReadOnly).await.expect("begin");
    let rows = tx.query(sql, &[]).await.expect("query");
    tx.commit().await.expect("commit");
    rows
}

#[tokio::test]
async fn migrations_apply_twice_without_error() {
    let app = spawn_app().await;
    let pools = Pools::new(&SecretString::from(app.db_url.clone()), "x", 2).expect("pools");
    let applied_again = migrate::run(&pools.admin).await.expect("second migration run");
    assert!(applied_again.is_empty(), "nothing should be re-applied, got {applied_again:?}");
    assert!(migrate::embedded_names().len() >= 3);
}

/// Empty databases (not cloned from the migrated template) in the test cluster.
async fn empty_databases(count: usize) -> Vec<String> {
    let admin = &crate::helpers::cluster().admin_url;
    let client = crate::helpers::connect(admin).await;
    let mut urls = Vec::new();
    for _ in 0..count {
        let name = format!("empty_{}", &server::keys::random_secret()[..16]);
        client.batch_execute(&format!("create database {name}")).await.expect("create database");
        urls.push(crate::helpers::with_param(admin, "dbname", &name));
    }
    urls
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn databases_of_one_cluster_migrate_at_the_same_time() {
    // Every database's V1 grants and alters the cluster-wide roles; run concurrently, these
    // changes collide in the shared catalogs unless the loser is retried.
    let urls = empty_databases(6).await;
    let runs = urls.into_iter().map(|url| {
        tokio::spawn(async move {
            let pools = Pools::new(&SecretString::from(url), "x", 2).expect("pools");
            migrate::run(&pools.admin).await
        })
    });
    let mut expected = migrate::embedded_names();
    expected.sort();
    for run in futures_util::future::join_all(runs).await {
        let mut applied = run.expect("task").expect("concurrent migration of a fresh database");
        applied.sort();
        assert_eq!(applied, expected);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn servers_starting_together_on_one_database_migrate_it_once() {
    let url = empty_databases(1).await.remove(0);
    let runs = (0..3).map(|_| {
        let url = url.clone();
        tokio::spawn(async move {
            let pools = Pools::new(&SecretString::from(url), "x", 2).expect("pools");
            migrate::run(&pools.admin).await
        })
    });
    let mut applied = Vec::new();
    for run in futures_util::future::join_all(runs).await {
        applied.extend(run.expect("task").expect("concurrent migration of one database"));
    }
    // Each migration was applied by exactly one of the three.
    assert_eq!(applied.len(), migrate::embedded_names().len());
    applied.sort();
    let mut expected = migrate::embedded_names();
    expected.sort();
    assert_eq!(applied, expected);
}

#[tokio::test]
async fn each_role_really_runs_as_that_role() {
    let app = spawn_app().await;
    for role in ["anon", "authenticated", "service_role"] {
        let caller = Caller { role: role.into(), claims: Arc::new(json!({"role": role})) };
        let rows = query_as(&app, &caller, "select current_user::text, session_user::text, auth.role()").await;
        assert_eq!(rows[0].get::<_, String>(0), role);
        assert_eq!(rows[0].get::<_, String>(1), "authenticator");
        assert_eq!(rows[0].get::<_, Option<String>>(2).as_deref(), Some(role));
    }
}

#[tokio::test]
async fn request_facts_are_visible_to_sql_and_do_not_leak_to_the_next_transaction() {
    let app = spawn_app().await;
    let caller = Caller {
        role: "authenticated".into(),
        claims: Arc::new(json!({"sub": "0b6f0a44-0000-4000-8000-000000000001", "email": "a@b.cd"})),
    };
    let rows = query_as(&app, &caller, "select auth.email(), current_setting('request.method'), current_setting('request.path'), current_setting('request.headers')::json->>'x-test'").await;
    assert_eq!(rows[0].get::<_, Option<String>>(0).as_deref(), Some("a@b.cd"));
    assert_eq!(rows[0].get::<_, String>(1), "GET");
    assert_eq!(rows[0].get::<_, String>(2), "/test");
    assert_eq!(rows[0].get::<_, String>(3), "1");

    // A plain transaction on a pooled connection sees none of it.
    let pools = request_pools(&app);
    let client = pools.request.get().await.expect("conn");
    let row = client
        .query_one("select current_user::text, coalesce(current_setting('request.jwt.claims', true), '')", &[])
        .await
        .expect("query");
    assert_eq!(row.get::<_, String>(0), "authenticator");
    assert_eq!(row.get::<_, String>(1), "");
}

#[tokio::test]
async fn an_rls_policy_using_auth_uid_sees_the_callers_sub() {
    let app = spawn_app().await;
    let alice = "11111111-1111-4111-8111-111111111111";
    let bob = "22222222-2222-4222-8222-222222222222";
    app.admin_sql(&format!(
        "create table public.notes (id int primary key, owner uuid not null, body text);
         alter table public.notes enable row level security;
         create policy own_notes on public.notes for select to authenticated using (owner = auth.uid());
         insert into public.notes values (1, '{alice}', 'alice note'), (2, '{bob}', 'bob note');"
    ))
    .await;

    let as_alice =
        Caller { role: "authenticated".into(), claims: Arc::new(json!({"sub": alice, "role": "authenticated"})) };
    let rows = query_as(&app, &as_alice, "select body from public.notes order by id").await;
    let bodies: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(bodies, vec!["alice note"]);

    let anon = Caller::anonymous("anon");
    assert!(query_as(&app, &anon, "select body from public.notes").await.is_empty());

    let service = Caller { role: "service_role".into(), claims: Arc::new(json!({"role": "service_role"})) };
    assert_eq!(query_as(&app, &service, "select body from public.notes").await.len(), 2);
}

#[tokio::test]
async fn a_read_only_context_refuses_writes() {
    let app = spawn_app().await;
    app.admin_sql("create table public.t (id int); grant all on public.t to service_role;").await;
    let pools = request_pools(&app);
    let mut client = pools.request.get().await.expect("conn");
    let caller = Caller { role: "service_role".into(), claims: Arc::new(json!({})) };
    let tx = context::begin(&mut client, &caller, &RequestInfo::default(), Access::ReadOnly).await.expect("begin");
    let err = tx.execute("insert into public.t values (1)", &[]).await.expect_err("write in read-only tx");
    assert_eq!(err.code(), Some(&tokio_postgres::error::SqlState::READ_ONLY_SQL_TRANSACTION));
}

async fn get_rest(app: &TestApp, apikey: Option<&str>, bearer: Option<&str>) -> (u16, Value) {
    let mut req = app.http.get(format!("{}/rest/v1/nothing_here", app.address));
    if let Some(key) = apikey {
        req = req.header("apikey", key);
    }
    if let Some(token) = bearer {
        req = req.bearer_auth(token);
    }
    let res = req.send().await.expect("request");
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_request_without_an_apikey_is_refused() {
    let app = spawn_app().await;
    let (status, body) = get_rest(&app, None, None).await;
    assert_eq!(status, 401);
    assert_eq!(body["message"], "No API key found in request");
}

#[tokio::test]
async fn a_forged_jwt_is_refused_with_401() {
    let app = spawn_app().await;
    let forged = crate::helpers::sign_with(&"f".repeat(64), json!({"role": "service_role"}));
    let (status, body) = get_rest(&app, Some(&app.anon_key), Some(&forged)).await;
    assert_eq!(status, 401);
    assert_eq!(body["code"], "PGRST301");
    let (status, _) = get_rest(&app, Some(&forged), None).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn an_expired_jwt_is_refused_with_401() {
    let app = spawn_app().await;
    let expired = app.sign(json!({"role": "authenticated", "sub": "x", "exp": 1_000_000}));
    let (status, body) = get_rest(&app, Some(&app.anon_key), Some(&expired)).await;
    assert_eq!(status, 401);
    assert_eq!(body["code"], "PGRST303");
    assert_eq!(body["message"], "JWT expired");
}

#[tokio::test]
async fn tokens_not_yet_valid_issued_in_the_future_or_with_text_times_are_refused_with_401() {
    let app = spawn_app().await;
    let later = chrono::Utc::now().timestamp() + 3600;
    let cases = [
        (json!({"role": "authenticated", "sub": "x", "nbf": later}), "JWT not yet valid"),
        (json!({"role": "authenticated", "sub": "x", "iat": later}), "JWT issued at future"),
        (json!({"role": "authenticated", "sub": "x", "iat": "1"}), "The JWT 'iat' claim must be a number"),
    ];
    for (claims, message) in cases {
        let token = app.sign(claims);
        let (status, body) = get_rest(&app, Some(&app.anon_key), Some(&token)).await;
        assert_eq!(status, 401, "{body}");
        assert_eq!(body["code"], "PGRST303");
        assert_eq!(body["message"], message);
    }
    let text_exp = app.sign(json!({"role": "authenticated", "sub": "x", "exp": "1"}));
    let (status, _) = get_rest(&app, Some(&app.anon_key), Some(&text_exp)).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn an_alg_none_token_is_refused() {
    let app = spawn_app().await;
    let none = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.";
    let (status, _) = get_rest(&app, Some(&app.anon_key), Some(none)).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn valid_keys_pass_the_gate() {
    let app = spawn_app().await;
    let (status, _) = get_rest(&app, Some(&app.anon_key), None).await;
    assert_ne!(status, 401);
    let (status, _) = get_rest(&app, Some(&app.anon_key), Some(&app.service_key)).await;
    assert_ne!(status, 401);
}

#[tokio::test]
async fn health_reports_the_database_reachable() {
    let app = spawn_app().await;
    let res = app.http.get(format!("{}/health", app.address)).send().await.expect("request");
    assert_eq!(res.status().as_u16(), 200);
    assert!(res.headers().contains_key("x-request-id"));
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["status"], "ok");
}

#[tokio::test]
async fn health_describes_each_pool_and_readiness_answers_separately() {
    let app = spawn_app().await;
    let body: Value = app.http.get(format!("{}/health", app.address)).send().await.unwrap().json().await.unwrap();
    assert_eq!(body["pools"]["admin"]["state"], "ok", "{body}");
    assert_eq!(body["pools"]["request"]["state"], "ok", "{body}");
    assert_eq!(body["embedded_cluster"], Value::Null, "the tests use DATABASE_URL");
    let res = app.http.get(format!("{}/health/ready", app.address)).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"status": "ready"}));
}

#[tokio::test]
async fn health_and_readiness_say_503_when_the_request_pool_is_exhausted() {
    // The request pool has 4 connections (base_config), and none is shared. Four requests wait on
    // a lock this test holds, so they keep every connection until the test lets them go.
    let app = spawn_app_with(|c| c.db_shared_connections = 0).await;
    app.ddl("create function public.wait_for_test() returns void language sql as 'select pg_advisory_xact_lock(4242)'")
        .await;
    let holder = crate::helpers::connect(&app.db_url).await;
    holder.execute("select pg_advisory_lock(4242)", &[]).await.expect("take the lock");
    let waiting: Vec<_> = (0..4)
        .map(|_| {
            let req =
                app.rest_req(reqwest::Method::POST, "/rpc/wait_for_test", Some(&app.service_key)).json(&json!({}));
            tokio::spawn(req.send())
        })
        .collect();
    // Until the four requests are waiting on the lock (no fixed delay).
    loop {
        let n: i64 = holder
            .query_one(
                "select count(*) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
                &[],
            )
            .await
            .expect("count waiters")
            .get(0);
        if n >= 4 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    let res = app.http.get(format!("{}/health", app.address)).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 503);
    assert_eq!(res.headers()["retry-after"], "5");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["pools"]["request"]["state"], "exhausted", "{body}");
    assert_eq!(body["pools"]["admin"]["state"], "ok", "{body}");
    let res = app.http.get(format!("{}/health/ready", app.address)).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 503);

    holder.execute("select pg_advisory_unlock(4242)", &[]).await.expect("release the lock");
    for request in waiting {
        assert_eq!(request.await.unwrap().unwrap().status().as_u16(), 204);
    }
    let res = app.http.get(format!("{}/health/ready", app.address)).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200, "ready again once the pool is free");
}

/// Forbid new connections to the app's database and end its sessions, waiting until every
/// backend has exited; returns the cluster connection and the database name (to restore it).
async fn cut_database(app: &TestApp) -> (tokio_postgres::Client, String) {
    let db = app.db_url.rsplit("dbname=").next().expect("db name").to_string();
    let cluster = crate::helpers::cluster();
    let client = crate::helpers::connect(&cluster.admin_url).await;
    client.batch_execute(&format!("alter database {db} allow_connections false")).await.expect("cut database");
    // A terminated backend exits on its own time: until none is left.
    loop {
        let left: i64 = client
            .query_one("select count(pg_terminate_backend(pid)) from pg_stat_activity where datname = $1", &[&db])
            .await
            .expect("end the sessions")
            .get(0);
        if left == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    (client, db)
}

#[tokio::test]
async fn health_reports_503_when_the_database_is_gone() {
    let app = spawn_app().await;
    let _cut = cut_database(&app).await;
    let res = app.http.get(format!("{}/health", app.address)).send().await.expect("request");
    assert_eq!(res.status().as_u16(), 503);
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["database"], "unreachable");
}

#[tokio::test]
async fn during_a_database_outage_every_surface_answers_503_with_retry_after_in_its_own_shape() {
    let app = spawn_app().await;
    app.ddl("create table public.things (id int primary key); grant select on public.things to anon;").await;
    // Connections open before the outage (pooled and shared ones) are among those it ends.
    let read = || app.rest_req(reqwest::Method::GET, "/things?select=id", None).send();
    assert_eq!(read().await.expect("rest").status().as_u16(), 200);
    let (client, db) = cut_database(&app).await;

    let rest = read().await.expect("rest");
    let auth = app
        .http
        .post(format!("{}/auth/v1/token?grant_type=password", app.address))
        .header("apikey", &app.anon_key)
        .json(&json!({"email": "someone@example.test", "password": "secret-123"}))
        .send()
        .await
        .expect("auth");
    let storage = app
        .http
        .get(format!("{}/storage/v1/bucket", app.address))
        .header("apikey", &app.anon_key)
        .bearer_auth(&app.service_key)
        .send()
        .await
        .expect("storage");
    for (surface, res) in [("rest", &rest), ("auth", &auth), ("storage", &storage)] {
        assert_eq!(res.status().as_u16(), 503, "{surface}");
        assert_eq!(res.headers()["retry-after"], "5", "{surface}");
    }
    let rest: Value = rest.json().await.expect("json");
    assert!(["PGRST000", "PGRST001"].contains(&rest["code"].as_str().unwrap_or_default()), "{rest}");
    let auth: Value = auth.json().await.expect("json");
    assert_eq!((auth["code"].as_u64(), auth["error_code"].as_str()), (Some(503), Some("unexpected_failure")), "{auth}");
    let storage: Value = storage.json().await.expect("json");
    assert_eq!((storage["statusCode"].as_str(), storage["code"].as_str()), (Some("503"), Some("DatabaseUnavailable")));

    client.batch_execute(&format!("alter database {db} allow_connections true")).await.expect("restore");
    assert_eq!(read().await.expect("rest").status().as_u16(), 200, "new connections once it is back");
}

#[tokio::test]
async fn cors_preflight_allows_supabase_headers_from_any_origin() {
    let app = spawn_app().await;
    let res = app
        .http
        .request(reqwest::Method::OPTIONS, format!("{}/rest/v1/things", app.address))
        .header("Origin", "http://example.test")
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "apikey, authorization, prefer, x-client-info, content-type")
        .send()
        .await
        .expect("preflight");
    assert!(res.status().is_success());
    assert_eq!(res.headers()["access-control-allow-origin"], "*");
    let allowed = res.headers()["access-control-allow-headers"].to_str().expect("header").to_lowercase();
    for h in ["apikey", "authorization", "prefer", "x-client-info"] {
        assert!(allowed.contains(h), "{h} missing from {allowed}");
    }
}

#[tokio::test]
async fn the_embedded_cluster_keeps_its_data_across_restarts() {
    let mut config = base_config();
    config.db_port = 0; // socket only: no port clash with anything else
    let data_dir = config.data_dir.clone();

    let app = server::startup::Application::build(config.clone()).await.expect("first start");
    let handle = app.handle();
    let url = app.state().pools.admin.get().await.expect("conn");
    url.batch_execute("create table public.kept (v text); insert into public.kept values ('still here')")
        .await
        .expect("write");
    drop(url);
    let running = tokio::spawn(app.run_until_stopped());
    handle.stop(true).await;
    running.await.expect("join").expect("clean stop");
    assert!(!data_dir.join("postgres/postmaster.pid").exists(), "cluster should be stopped");

    let app = server::startup::Application::build(config).await.expect("second start");
    let client = app.state().pools.admin.get().await.expect("conn");
    let row = client.query_one("select v from public.kept", &[]).await.expect("read back");
    assert_eq!(row.get::<_, String>(0), "still here");
    drop(client);
    let handle = app.handle();
    let running = tokio::spawn(app.run_until_stopped());
    handle.stop(true).await;
    running.await.expect("join").expect("clean stop");
    let _ = std::fs::remove_dir_all(data_dir);
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_still_served_after_six_seconds() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = crate::helpers::spawn_app().await;
    let addr = app.address.trim_start_matches("http://").to_string();
    let mut socket = tokio::net::TcpStream::connect(&addr).await.expect("connect");
    let request = format!("GET /health HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    let mut answers = Vec::new();
    for round in 0..2 {
        if round == 1 {
            // Longer than actix's default keep-alive (5 s), which clients pooling sockets raced.
            tokio::time::sleep(std::time::Duration::from_secs(6)).await;
        }
        socket.write_all(request.as_bytes()).await.expect("send");
        let mut buf = vec![0u8; 4096];
        let n = socket.read(&mut buf).await.expect("read");
        answers.push(String::from_utf8_lossy(&buf[..n]).to_string());
    }
    assert!(answers[0].starts_with("HTTP/1.1 200"), "{}", answers[0]);
    assert!(answers[0].to_ascii_lowercase().contains("keep-alive: timeout=75"), "{}", answers[0]);
    assert!(answers[1].starts_with("HTTP/1.1 200"), "the reused connection was closed: {:?}", answers[1]);
}
