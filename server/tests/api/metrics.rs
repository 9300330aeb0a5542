//! `/metrics` (Prometheus) and the request id handed to Postgres.

use reqwest::{Method, StatusCode};
use secrecy::SecretString;

use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn metrics_answer_404_when_no_token_is_configured() {
    let app = spawn_app().await;
    let res = app.http.get(format!("{}/metrics", app.address)).bearer_auth("anything").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn metrics_want_the_token_and_count_requests_by_surface_route_and_status() {
    let token = "metrics-token-for-this-test";
    let app = spawn_app_with(|c| c.metrics_token = Some(SecretString::from(token))).await;
    app.ddl("create table public.metered (id int primary key); grant select on public.metered to anon;").await;
    for _ in 0..3 {
        let res = app.rest_req(Method::GET, "/metered", None).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK);
    }
    let res = app.rest_req(Method::GET, "/no_such_table", None).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);

    let url = format!("{}/metrics", app.address);
    assert_eq!(app.http.get(&url).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    assert_eq!(app.http.get(&url).bearer_auth("wrong").send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    let res = app.http.get(&url).bearer_auth(token).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/plain"));
    let text = res.text().await.unwrap();

    // The recorder is process-wide and other tests run beside this one: counts are at least ours.
    let count = |status: &str| -> u64 {
        text.lines()
            .filter(|l| l.starts_with("http_requests_total{"))
            .filter(|l| {
                l.contains(r#"surface="rest""#)
                    && l.contains(r#"route="/rest/v1/{table}""#)
                    && l.contains(r#"method="GET""#)
                    && l.contains(&format!(r#"status="{status}""#))
            })
            .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap() as u64)
            .sum()
    };
    assert!(count("200") >= 3, "three 200s counted:\n{text}");
    assert!(count("404") >= 1, "the 404 counted apart");
    let shared = text
        .lines()
        .find(|l| l.starts_with(r#"db_shared_connection_transactions_total{outcome="shared"}"#))
        .and_then(|l| l.rsplit(' ').next()?.parse::<f64>().ok());
    assert!(shared.is_some_and(|n| n >= 3.0), "the reads ran on a shared connection:\n{text}");
    assert!(text.contains("http_request_duration_seconds_bucket{"), "latency histogram");
    assert!(text.contains(r#"le="0.005""#), "with millisecond buckets");
    for gauge in [
        r#"db_pool_max_connections{pool="request"} 4"#,
        r#"db_pool_connections{pool="admin",state="idle"}"#,
        r#"outbox_messages{status="pending"} 0"#,
        "realtime_connections 0",
        "realtime_channels 0",
    ] {
        assert!(text.contains(gauge), "{gauge} in:\n{text}");
    }
    assert!(!text.contains(token), "the token is never shown");
}

#[tokio::test]
async fn a_request_id_names_the_connection_in_postgres_while_its_transaction_runs() {
    let app = spawn_app().await;
    app.ddl(
        "create function public.my_connection_name() returns text language sql stable
           as $$ select current_setting('application_name') $$;
         grant execute on function public.my_connection_name() to anon;",
    )
    .await;
    let res = app
        .rest_req(Method::POST, "/rpc/my_connection_name", None)
        .header("x-request-id", "checkout-42-abc")
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["x-request-id"], "checkout-42-abc");
    assert_eq!(res.json::<String>().await.unwrap(), "checkout-42-abc");

    // Without one, the generated id is used, and nothing stays from the previous request.
    let res = app.rest_req(Method::GET, "/rpc/my_connection_name", None).send().await.unwrap();
    let generated = res.headers()["x-request-id"].to_str().unwrap().to_string();
    assert_eq!(res.json::<String>().await.unwrap(), generated);
    assert_ne!(generated, "checkout-42-abc");
    let id = uuid::Uuid::parse_str(&generated).expect("a generated id is a UUID");
    assert_eq!(id.get_version_num(), 4, "a random (v4) UUID: {generated}");
    let next = app.rest_req(Method::GET, "/rpc/my_connection_name", None).send().await.unwrap();
    assert_ne!(next.headers()["x-request-id"].to_str().unwrap(), generated, "each request its own id");

    // Between requests the pool's connections and the shared ones keep their own names.
    let names = app
        .admin_query_one(
            "select array_agg(distinct application_name order by application_name) from pg_stat_activity
              where datname = current_database() and usename = 'authenticator'",
        )
        .await;
    let names: Vec<String> = names.get(0);
    assert!(!names.is_empty() && names.iter().all(|n| n == "server-request" || n == "server-shared"), "{names:?}");
}
