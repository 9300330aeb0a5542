//! The request log and the dashboard's logs and reports: requests land in
//! `_studio.request_log` with the right fields (no query string, the request id of the
//! response's header, the caller's user and role), the log explorer finds them by its filters,
//! retention deletes old rows and rows beyond the count, and the reports count them.

use reqwest::Method;
use serde_json::Value;

use crate::helpers::{connect, eventually, spawn_app_with, TestApp};
use crate::studio::{add_operator, signed_in, Studio};

const USER: &str = "22222222-2222-4222-8222-222222222222";

async fn logging_app() -> TestApp {
    let app = spawn_app_with(|c| {
        c.request_log.enabled = true;
        c.request_log.flush_ms = 50;
    })
    .await;
    add_operator(&app, "ops@studio.test", "correct horse battery").await;
    app.admin_sql(
        "create table public.notes (id int primary key, body text);
         grant select on public.notes to authenticated;
         insert into public.notes values (1, 'one');",
    )
    .await;
    app.rest.reload().await.expect("schema reload");
    app
}

/// The explorer's rows for `query`, once at least `n` are there (the writer flushes every 50 ms).
async fn logged_n(app: &TestApp, studio: &Studio, query: &str, n: usize) -> Vec<Value> {
    eventually(async || {
        let (status, body) = studio.call(app, Method::GET, &format!("/studio/api/logs/requests?{query}"), None).await;
        assert_eq!(status, 200, "{body}");
        let entries = body["entries"].as_array().cloned().unwrap_or_default();
        (entries.len() >= n).then_some(entries)
    })
    .await
    .unwrap_or_else(|| panic!("fewer than {n} logged requests for {query}"))
}

/// `GET /rest/v1{path}` as the user of `token`, under the request id `id`.
async fn get_as_request(app: &TestApp, path: &str, token: &str, id: &str) -> reqwest::Response {
    app.rest_req(Method::GET, path, Some(token)).header("x-request-id", id).send().await.expect("rest")
}

async fn logged(app: &TestApp, studio: &Studio, query: &str) -> Vec<Value> {
    logged_n(app, studio, query, 1).await
}

#[tokio::test]
async fn a_rest_request_lands_in_the_log_with_its_id_user_and_role_and_without_its_query_string() {
    // Arrange
    let app = logging_app().await;
    let studio = signed_in(&app).await;
    let token = app.user_token(USER);

    // Act
    let res = get_as_request(&app, "/notes?select=id&body=neq.hunter2", &token, "logs-test-0001").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["x-request-id"], "logs-test-0001");

    // Assert
    let rows = logged(&app, &studio, "request_id=logs-test-0001").await;
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row["surface"], "rest");
    assert_eq!(row["method"], "GET");
    assert_eq!(row["path"], "/rest/v1/notes");
    assert_eq!(row["route"], "/rest/v1/{table}");
    assert_eq!(row["status"], 200);
    assert_eq!(row["user_id"], USER);
    assert_eq!(row["role"], "authenticated");
    assert!(row["duration_ms"].as_f64().expect("latency") > 0.0);
    assert!(row["bytes"].as_i64().expect("size") > 0);
    let stored: i64 =
        app.admin_query_one("select count(*) from _studio.request_log where path like '%hunter2%'").await.get(0);
    assert_eq!(stored, 0, "the query string is never kept");

    // and the detail of the row, with the other answer given under the same request id
    let id = row["id"].as_i64().expect("id");
    let again = get_as_request(&app, "/notes?select=body", &token, "logs-test-0001").await;
    assert_eq!(again.status(), 200);
    let both = logged_n(&app, &studio, "request_id=logs-test-0001", 2).await;
    assert_eq!(both.len(), 2, "{both:?}");
    let (status, detail) = studio.call(&app, Method::GET, &format!("/studio/api/logs/requests/{id}"), None).await;
    assert_eq!(status, 200);
    assert_eq!(detail["entry"]["request_id"], "logs-test-0001");
    let same = detail["same_request_id"].as_array().expect("same_request_id");
    assert_eq!(same.len(), 1, "{detail}");
    assert_ne!(same[0]["id"], detail["entry"]["id"]);
    assert_eq!(same[0]["request_id"], "logs-test-0001");
}

#[tokio::test]
async fn an_auth_request_with_a_users_token_lands_in_the_log_with_that_user() {
    // Arrange: a user signed in (auth checks its tokens itself, not through the gate)
    let app = logging_app().await;
    let studio = signed_in(&app).await;
    let body = serde_json::json!({"email": "logged@logs.test", "password": "Str0ng-pass-2026", "auto_confirm": true});
    let (status, created) = studio.call(&app, Method::POST, "/studio/api/auth/users", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    let user = created["user"]["id"].as_str().expect("the user's id").to_string();
    let (status, session) = app
        .auth_post(
            "/token?grant_type=password",
            serde_json::json!({"email": "logged@logs.test", "password": "Str0ng-pass-2026"}),
        )
        .await;
    assert_eq!(status, 200, "{session}");
    let token = session["access_token"].as_str().expect("a token");

    // Act
    let res = app
        .http
        .get(format!("{}/auth/v1/user", app.address))
        .bearer_auth(token)
        .header("x-request-id", "logs-auth-0001")
        .send()
        .await
        .expect("user");
    assert_eq!(res.status(), 200);
    let refused = app
        .http
        .get(format!("{}/auth/v1/user", app.address))
        .bearer_auth("not-a-token")
        .header("x-request-id", "logs-auth-0002")
        .send()
        .await
        .expect("user");
    assert_eq!(refused.status(), 403);

    // Assert: the user and role of the verified token; none for a token that does not verify
    let rows = logged(&app, &studio, "request_id=logs-auth-0001").await;
    assert_eq!((rows[0]["surface"].as_str(), rows[0]["path"].as_str()), (Some("auth"), Some("/auth/v1/user")));
    assert_eq!(rows[0]["user_id"], user.as_str());
    assert_eq!(rows[0]["role"], "authenticated");
    let rows = logged(&app, &studio, "request_id=logs-auth-0002").await;
    assert_eq!(rows[0]["user_id"], Value::Null);
    let mine = logged(&app, &studio, &format!("user={user}&surface=auth")).await;
    assert!(mine.iter().any(|r| r["request_id"] == "logs-auth-0001"));
}

#[tokio::test]
async fn the_explorer_filters_by_surface_status_user_path_and_pages_newest_first() {
    let app = logging_app().await;
    let studio = signed_in(&app).await;
    let token = app.user_token(USER);
    for i in 0..3 {
        let res = app
            .rest_req(Method::GET, "/notes", Some(&token))
            .header("x-request-id", format!("page-{i}"))
            .send()
            .await
            .expect("rest");
        assert_eq!(res.status(), 200);
    }
    let missing = app.rest_req(Method::GET, "/no_such_table", None).send().await.expect("rest");
    assert_eq!(missing.status(), 404);

    let errors = logged(&app, &studio, "surface=rest&status=4xx").await;
    assert!(errors.iter().all(|r| r["status"].as_i64().is_some_and(|s| (400..500).contains(&s))));
    assert!(errors.iter().any(|r| r["path"] == "/rest/v1/no_such_table"));

    let mine = logged_n(&app, &studio, &format!("user={USER}&path=NOTES"), 3).await;
    assert_eq!(mine.len(), 3);
    let ids: Vec<i64> = mine.iter().map(|r| r["id"].as_i64().expect("id")).collect();
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "newest first: {ids:?}");

    // keyset pages: two, then the rest before the last id; the tail: rows after an id
    let (_, page) =
        studio.call(&app, Method::GET, &format!("/studio/api/logs/requests?user={USER}&limit=2"), None).await;
    assert_eq!(page["entries"].as_array().map(Vec::len), Some(2));
    let before = page["next_before"].as_i64().expect("a next page");
    let (_, next) =
        studio.call(&app, Method::GET, &format!("/studio/api/logs/requests?user={USER}&before={before}"), None).await;
    assert_eq!(next["entries"][0]["request_id"], "page-0");
    let (_, tail) =
        studio.call(&app, Method::GET, &format!("/studio/api/logs/requests?user={USER}&after={}", ids[1]), None).await;
    assert_eq!(tail["entries"].as_array().map(Vec::len), Some(1));
    assert_eq!(tail["entries"][0]["request_id"], "page-2");
}

#[tokio::test]
async fn bad_filters_are_refused_in_the_studios_shape() {
    let app = logging_app().await;
    let studio = signed_in(&app).await;
    for query in ["status=6xx", "user=bob", "surface=ftp", "from=yesterday"] {
        let (status, body) = studio.call(&app, Method::GET, &format!("/studio/api/logs/requests?{query}"), None).await;
        assert_eq!(status, 400, "{query}");
        assert_eq!(body["error"]["code"], "bad_request", "{query}");
    }
    let (status, body) = studio.call(&app, Method::GET, "/studio/api/reports?period=1y", None).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "bad_request");
    let (status, _) = studio.call(&app, Method::GET, "/studio/api/logs/postgres?level=loud", None).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn retention_deletes_rows_older_than_the_age_limit_then_the_oldest_beyond_the_count() {
    // Arrange: 5 rows of 3 days ago, 10 of now
    let app = logging_app().await;
    app.admin_sql(
        "insert into _studio.request_log (at, surface, method, path, status, duration_ms, request_id)
         select now() - interval '3 days', 'rest', 'GET', '/old', 200, 1, 'old-' || i from generate_series(1, 5) i;
         insert into _studio.request_log (at, surface, method, path, status, duration_ms, request_id)
         select now(), 'rest', 'GET', '/new', 200, 1, 'new-' || i from generate_series(1, 10) i;",
    )
    .await;
    let client = connect(&app.db_url).await;
    let count = |sql: &'static str| {
        let client = &client;
        async move { client.query_one(sql, &[]).await.expect("count").get::<_, i64>(0) }
    };

    // Act: keep 48 hours and 4 rows
    let limits = server::request_log::retention::Limits { max_age_hours: 48, max_rows: 4 };
    server::request_log::retention::prune(&client, limits).await.expect("prune");

    // Assert
    assert_eq!(count("select count(*) from _studio.request_log where path = '/old'").await, 0);
    assert_eq!(count("select count(*) from _studio.request_log where path = '/new'").await, 4);
    let newest: i64 =
        count("select count(*) from _studio.request_log where request_id in ('new-7','new-8','new-9','new-10')").await;
    assert_eq!(newest, 4, "the newest rows are the ones kept");
}

#[tokio::test]
async fn with_the_log_off_nothing_is_recorded_and_the_explorer_says_so() {
    let app = spawn_app_with(|c| c.request_log.enabled = false).await;
    add_operator(&app, "ops@studio.test", "correct horse battery").await;
    let studio = signed_in(&app).await;
    let res =
        app.http.get(format!("{}/health", app.address)).header("x-request-id", "off-1").send().await.expect("health");
    assert!(res.status().is_success());
    let (status, body) = studio.call(&app, Method::GET, "/studio/api/logs/requests", None).await;
    assert_eq!(status, 200);
    assert_eq!(body["enabled"], false);
    let rows: i64 = app.admin_query_one("select count(*) from _studio.request_log").await.get(0);
    assert_eq!(rows, 0);
}

#[tokio::test]
async fn reports_count_logged_requests_and_show_the_database_storage_and_realtime() {
    let app = logging_app().await;
    let studio = signed_in(&app).await;
    for _ in 0..5 {
        let res = app.rest_req(Method::GET, "/notes", Some(&app.user_token(USER))).send().await.expect("rest");
        assert_eq!(res.status(), 200);
    }
    let report = eventually(async || {
        let (status, body) = studio.call(&app, Method::GET, "/studio/api/reports?period=15m", None).await;
        assert_eq!(status, 200, "{body}");
        let rest: f64 = body["buckets"]
            .as_array()
            .map(|b| b.iter().filter_map(|x| x["by_surface"]["rest"].as_f64()).sum())
            .unwrap_or(0.0);
        (rest * 30.0 >= 5.0 - 1e-6).then_some(body)
    })
    .await
    .expect("five REST requests counted");
    assert!(report["totals"]["requests"].as_i64().expect("total") >= 5);
    assert_eq!(report["totals"]["active_users"], 1);
    assert!(report["totals"]["p95_ms"].as_f64().is_some());
    let buckets = report["buckets"].as_array().expect("buckets");
    assert!((30..=31).contains(&buckets.len()), "{} buckets of 30 s in 15 min", buckets.len());
    assert!(report["database"]["connections"].as_array().is_some_and(|c| !c.is_empty()));
    assert!(report["database"]["max_connections"].as_i64().is_some());
    assert!(report["statements"]["available"].is_boolean());
    assert!(report["storage"].is_array());
    assert_eq!(report["realtime"]["connections"], 0);
    // The sampler is off in this app: no history, the figures of now only.
    assert_eq!(report["sample_seconds"], 0);
    assert!(buckets.iter().all(|b| b["realtime_connections"].is_null() && b["storage_bytes"] == serde_json::json!({})));
}

#[tokio::test]
async fn the_sampler_records_the_database_storage_and_realtime_figures_and_reports_them_per_bucket() {
    // Arrange: a sample a second, a bucket holding one object of 1234 bytes, a sample too old to keep.
    let app = spawn_app_with(|c| c.studio.reports_sample_secs = 1).await;
    add_operator(&app, "ops@studio.test", "correct horse battery").await;
    app.admin_sql(
        "insert into storage.buckets (id, name) values ('history-test', 'history-test');
         insert into storage.objects (bucket_id, name, metadata)
           values ('history-test', 'a.bin', '{\"size\": 1234, \"mimetype\": \"application/octet-stream\"}');
         insert into _studio.metric_samples (at, instance, name, key, value)
           values (now() - interval '8 days', 'gone', 'realtime_connections', '', 9);",
    )
    .await;
    let studio = signed_in(&app).await;

    // Act: wait for a round with the bucket, then change its size and wait for the round that
    // records the change (a round with the same figures as the last written is not written).
    let rounds_with = |bytes: f64| {
        let app = &app;
        async move {
            let n: i64 = app
                .admin_query_one(&format!(
                    "select count(distinct at) from _studio.metric_samples \
                     where name = 'storage_bytes' and key = 'history-test' and value = {bytes}"
                ))
                .await
                .get(0);
            n
        }
    };
    eventually(async || (rounds_with(1234.0).await >= 1).then_some(())).await.expect("a round with the bucket");
    app.admin_sql(
        "insert into storage.objects (bucket_id, name, metadata)
           values ('history-test', 'b.bin', '{\"size\": 766, \"mimetype\": \"application/octet-stream\"}');",
    )
    .await;
    eventually(async || (rounds_with(2000.0).await >= 1).then_some(())).await.expect("a round with the new size");
    let (status, report) = studio.call(&app, Method::GET, "/studio/api/reports?period=15m", None).await;

    // Assert
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["sample_seconds"], 1);
    let old: i64 =
        app.admin_query_one("select count(*) from _studio.metric_samples where instance = 'gone'").await.get(0);
    assert_eq!(old, 0, "samples older than 7 days are pruned");
    let buckets = report["buckets"].as_array().expect("buckets");
    assert!((30..=31).contains(&buckets.len()), "{} buckets of 30 s in 15 min", buckets.len());
    let sampled: Vec<&Value> = buckets.iter().filter(|b| !b["realtime_connections"].is_null()).collect();
    assert!(!sampled.is_empty() && sampled.len() <= 2, "{} buckets with samples", sampled.len());
    let last = sampled.last().expect("a sampled bucket");
    let bytes = last["storage_bytes"]["history-test"].as_f64().expect("the bucket's bytes");
    assert!(bytes > 1234.0 && bytes <= 2000.0, "the mean of the bucket's rounds, the change included: {bytes}");
    let first = buckets.iter().position(|b| !b["realtime_connections"].is_null()).expect("a sampled bucket");
    assert!(
        buckets[first..].iter().all(|b| !b["realtime_connections"].is_null()),
        "no gap from the first sample on: rounds not written are carried forward"
    );
    assert_eq!(last["realtime_connections"], 0.0);
    let connections: f64 =
        last["db_connections"].as_object().expect("connections by state").values().filter_map(Value::as_f64).sum();
    assert!(connections >= 1.0, "at least the sampler's own connection: {last}");
    assert!(last["cache_hit_ratio"].as_f64().is_some_and(|r| (0.0..=1.0).contains(&r)), "{last}");
    // The figures of now stay.
    assert!(report["storage"]
        .as_array()
        .expect("storage")
        .iter()
        .any(|b| b["bucket"] == "history-test" && b["bytes"] == 2000));
    // Empty buckets carry no figure.
    let empty = buckets.iter().find(|b| b["realtime_connections"].is_null()).expect("a bucket before the app started");
    assert_eq!(empty["db_connections"], serde_json::json!({}));
    assert!(empty["cache_hit_ratio"].is_null());
}

#[tokio::test]
async fn the_postgres_log_is_not_available_with_an_external_database_and_the_auth_log_lists_entries() {
    let app = logging_app().await;
    let studio = signed_in(&app).await;
    let (status, body) = studio.call(&app, Method::GET, "/studio/api/logs/postgres", None).await;
    assert_eq!(status, 200);
    assert_eq!(body["available"], false);
    assert!(body["reason"].as_str().is_some_and(|r| r.contains("DATABASE_URL")));

    app.admin_sql(
        "insert into auth.audit_log_entries (id, payload, created_at, ip_address)
         values (gen_random_uuid(), '{\"action\":\"login\",\"actor_username\":\"ann@example.com\"}', now(), '10.0.0.1')",
    )
    .await;
    let (status, body) = studio.call(&app, Method::GET, "/studio/api/logs/auth?q=ann@", None).await;
    assert_eq!(status, 200);
    assert_eq!(body["entries"][0]["action"], "login");
    assert_eq!(body["entries"][0]["actor"], "ann@example.com");
    let (_, none) = studio.call(&app, Method::GET, "/studio/api/logs/auth?q=nobody%25", None).await;
    assert_eq!(none["entries"].as_array().map(Vec::len), Some(0));
}
