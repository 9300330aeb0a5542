//! Database webhooks and schedules on the outbox: Supabase's `supabase_functions.http_request`
//! triggers and pg_net's `net.http_post`, delivered by the server's worker at least once to an
//! HTTP receiver of the test (or a function of the server), across a `kill -9`; a function called
//! by pg_cron from `[functions.<name>] schedule`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, HttpResponse};
use serde_json::{json, Value};

use crate::helpers::{connect, spawn_app_with, TestApp};

/// What the receiver saw, by the `record.id` (or `old_record.id`) of each payload.
#[derive(Default)]
struct Seen {
    attempts: HashMap<i64, u32>,
    delivered: HashMap<i64, u32>,
    bodies: Vec<Value>,
}

type Shared = Arc<Mutex<Seen>>;

fn lock(seen: &Shared) -> std::sync::MutexGuard<'_, Seen> {
    seen.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An HTTP receiver on loopback; with `flaky`, it answers 500 to the first two attempts of
/// every tenth id; with `always_fail`, to every attempt. Returns its base URL.
async fn receiver(flaky: bool, always_fail: bool) -> (String, Shared) {
    let seen: Shared = Arc::default();
    let state = seen.clone();
    let server = actix_web::HttpServer::new(move || {
        let state = state.clone();
        actix_web::App::new().default_service(web::to(move |body: web::Bytes| {
            let state = state.clone();
            async move {
                let payload: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let id =
                    payload["record"]["id"].as_i64().or_else(|| payload["old_record"]["id"].as_i64()).unwrap_or(-1);
                let mut seen = lock(&state);
                let attempts = {
                    let n = seen.attempts.entry(id).or_default();
                    *n += 1;
                    *n
                };
                if always_fail || (flaky && id % 10 == 0 && attempts <= 2) {
                    return HttpResponse::InternalServerError().body("not now");
                }
                *seen.delivered.entry(id).or_default() += 1;
                seen.bodies.push(payload);
                HttpResponse::Ok().json(json!({"received": id}))
            }
        }))
    })
    .workers(1)
    .disable_signals()
    .bind(("127.0.0.1", 0))
    .expect("bind the receiver");
    let port = server.addrs()[0].port();
    tokio::spawn(server.run());
    (format!("http://127.0.0.1:{port}"), seen)
}

/// Poll `check` every 200 ms for at most `secs`.
async fn within<T>(secs: u64, mut check: impl AsyncFnMut() -> Option<T>) -> Option<T> {
    for _ in 0..secs * 5 {
        if let Some(found) = check().await {
            return Some(found);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    None
}

async fn quick_outbox(customize: impl FnOnce(&mut server::config::Config)) -> TestApp {
    spawn_app_with(|c| {
        c.outbox.poll = Duration::from_secs(1);
        c.outbox.retry_base = Duration::from_secs(1);
        customize(c);
    })
    .await
}

/// A table with a Supabase webhook on insert, update and delete, as a migration written for
/// Supabase declares it.
fn webhook_table(url: &str) -> String {
    format!(
        "create table public.things (id bigint primary key, name text);
         create trigger things_hook after insert or update or delete on public.things
         for each row execute function supabase_functions.http_request(
           '{url}', 'POST', '{{\"Content-Type\":\"application/json\"}}', '{{}}', '1000');"
    )
}

#[tokio::test]
async fn a_webhook_posts_supabase_s_payload_for_an_insert_an_update_and_a_delete() {
    // Arrange
    let (url, seen) = receiver(false, false).await;
    let app = quick_outbox(|_| {}).await;
    app.admin_sql(&webhook_table(&format!("{url}/hook"))).await;

    // Act
    app.admin_sql("insert into public.things values (1, 'a')").await;
    app.admin_sql("update public.things set name = 'b' where id = 1").await;
    app.admin_sql("delete from public.things where id = 1").await;

    // Assert: the three payloads, in Supabase's shape.
    let bodies = within(15, async || Some(lock(&seen).bodies.clone()).filter(|b| b.len() >= 3)).await.expect("3 posts");
    let of = |kind: &str| bodies.iter().find(|b| b["type"] == kind).cloned().unwrap_or(Value::Null);
    assert_eq!(
        of("INSERT"),
        json!({"type": "INSERT", "table": "things", "schema": "public", "record": {"id": 1, "name": "a"}, "old_record": null})
    );
    assert_eq!(
        of("UPDATE"),
        json!({"type": "UPDATE", "table": "things", "schema": "public", "record": {"id": 1, "name": "b"}, "old_record": {"id": 1, "name": "a"}})
    );
    assert_eq!(
        of("DELETE"),
        json!({"type": "DELETE", "table": "things", "schema": "public", "record": null, "old_record": {"id": 1, "name": "b"}})
    );
    let client = connect(&app.db_url).await;
    let hooks = client
        .query(
            "select h.hook_name, d.state from supabase_functions.hooks h join outbox.http_deliveries d on d.id = h.request_id \
             where h.hook_table_id = 'public.things'::regclass",
            &[],
        )
        .await
        .expect("hooks");
    assert_eq!(hooks.len(), 3);
    assert!(hooks.iter().all(|r| r.get::<_, String>(0) == "things_hook"));
    let states = within(5, async || {
        let rows = client.query("select state from outbox.http_deliveries", &[]).await.ok()?;
        rows.iter().all(|r| r.get::<_, String>(0) == "delivered").then_some(rows.len())
    })
    .await;
    assert_eq!(states, Some(3));
}

#[tokio::test]
async fn net_http_post_returns_a_request_id_whose_answer_net_http_response_shows() {
    // Arrange
    let (url, seen) = receiver(false, false).await;
    let app = quick_outbox(|_| {}).await;
    let client = connect(&app.db_url).await;

    // Act: as a cron job of a Supabase project calls it.
    let id: i64 = client
        .query_one(
            "select net.http_post(url := $1, body := '{\"record\": {\"id\": 7}}'::jsonb)",
            &[&format!("{url}/x")],
        )
        .await
        .expect("net.http_post")
        .get(0);

    // Assert
    let answer = within(15, async || {
        client
            .query_opt("select status_code, content::jsonb from net._http_response where id = $1", &[&id])
            .await
            .ok()
            .flatten()
            .map(|r| (r.get::<_, Option<i32>>(0), r.get::<_, Option<Value>>(1)))
    })
    .await
    .expect("an answer");
    assert_eq!(answer, (Some(200), Some(json!({"received": 7}))));
    assert_eq!(lock(&seen).delivered.get(&7), Some(&1));
}

#[tokio::test]
async fn a_request_that_keeps_failing_is_given_up_after_its_attempts_and_shown_failed() {
    // Arrange: a receiver that always answers 500, two attempts allowed.
    let (url, seen) = receiver(false, true).await;
    let app = quick_outbox(|c| c.outbox.max_attempts = 2).await;
    app.admin_sql(&webhook_table(&format!("{url}/hook"))).await;

    // Act
    app.admin_sql("insert into public.things values (5, 'never')").await;

    // Assert: failed, kept, with its last answer; tried twice.
    let client = connect(&app.db_url).await;
    let failed = within(20, async || {
        client
            .query_opt(
                "select attempts, last_status, last_error from outbox.http_deliveries where state = 'failed'",
                &[],
            )
            .await
            .ok()
            .flatten()
            .map(|r| (r.get::<_, i32>(0), r.get::<_, Option<i32>>(1), r.get::<_, Option<String>>(2)))
    })
    .await
    .expect("the request is marked failed");
    assert_eq!(failed, (2, Some(500), Some("answered 500 Internal Server Error".into())));
    assert_eq!(lock(&seen).attempts.get(&5), Some(&2));
}

#[tokio::test]
async fn a_webhook_to_this_server_s_function_written_for_the_supabase_cli_is_served_over_loopback() {
    // Arrange: a function, and a migration's URL naming the CLI's API (localhost:54321).
    let function = "Deno.serve(async (req) => Response.json({ got: (await req.json()).record }));";
    let app = crate::functions::serve(
        "[functions.on-thing]\nverify_jwt = false\n",
        &[("functions/on-thing/index.ts", function)],
        |c| {
            c.outbox.poll = Duration::from_secs(1);
            c.outbox.retry_base = Duration::from_secs(1);
        },
    )
    .await;
    app.admin_sql(&webhook_table("http://localhost:54321/functions/v1/on-thing")).await;

    // Act
    app.admin_sql("insert into public.things values (3, 'c')").await;

    // Assert: the function answered the delivery.
    let client = connect(&app.db_url).await;
    let answer = within(30, async || {
        client
            .query_opt("select last_response::jsonb from outbox.http_requests where delivered_at is not null", &[])
            .await
            .ok()
            .flatten()
            .map(|r| r.get::<_, Value>(0))
    })
    .await
    .expect("delivered to the function");
    assert_eq!(answer, json!({"got": {"id": 3, "name": "c"}}));
}

/// Rows `from..=to`, one insert each.
async fn insert_things(client: &tokio_postgres::Client, from: i64, to: i64) {
    for id in from..=to {
        client.execute("insert into public.things values ($1, 'row')", &[&id]).await.expect("insert");
    }
}

#[tokio::test]
async fn a_thousand_inserts_reach_a_flaky_receiver_exactly_once_each_across_a_kill_9_of_the_server() {
    // Arrange: a receiver failing the first two attempts of every tenth row, the webhook, and the
    // server binary on the database.
    let (url, seen) = receiver(true, false).await;
    let db_url = crate::helpers::fresh_database().await;
    let client = connect(&db_url).await;
    client.batch_execute(&webhook_table(&format!("{url}/hook"))).await.expect("the webhook");
    let data_dir = std::env::temp_dir().join(format!("webhooks-{}", &server::keys::random_secret()[..12]));
    let (dir, secret) = (data_dir.to_string_lossy().to_string(), server::keys::random_secret());
    let env = [
        ("DATABASE_URL", db_url.as_str()),
        ("JWT_SECRET", secret.as_str()),
        ("DATA_DIR", dir.as_str()),
        ("OUTBOX_POLL_SECONDS", "1"),
        ("OUTBOX_RETRY_BASE_SECONDS", "1"),
    ];
    let (mut first, _, _) = crate::helpers::spawn_binary(&env).await;

    // Act: 600 inserts while it delivers, a SIGKILL in the middle of the deliveries, 400 more
    // inserts while it is down, then the server started again.
    insert_things(&client, 1, 600).await;
    let midway = within(30, async || Some(()).filter(|_| lock(&seen).delivered.len() >= 100)).await;
    assert!(midway.is_some(), "deliveries began");
    first.kill().await.expect("SIGKILL the server");
    let at_kill = lock(&seen).delivered.len();
    insert_things(&client, 601, 1000).await;
    let (_second, _, _) = crate::helpers::spawn_binary(&env).await;

    // Assert: every row reached the receiver (deduplicated by id: each exactly once), every
    // tenth after its two refusals, and every request is marked delivered.
    let all = within(120, async || Some(()).filter(|_| lock(&seen).delivered.len() == 1000)).await;
    let duplicates = {
        let seen_now = lock(&seen);
        assert!(all.is_some(), "{} of 1000 rows delivered ({at_kill} before the kill)", seen_now.delivered.len());
        assert!(at_kill < 1000, "the kill came after every delivery: it proves nothing");
        assert!((1..=1000).all(|id| seen_now.delivered.contains_key(&id)));
        assert!((1..=100).all(|n| seen_now.attempts[&(n * 10)] >= 3), "every tenth was refused twice first");
        seen_now.delivered.values().filter(|n| **n > 1).count()
    };
    let pending = within(30, async || {
        let row = client
            .query_one("select count(*) filter (where state <> 'delivered'), count(*) from outbox.http_deliveries", &[])
            .await
            .ok()?;
        Some((row.get::<_, i64>(0), row.get::<_, i64>(1))).filter(|(left, _)| *left == 0)
    })
    .await;
    assert_eq!(pending, Some((0, 1000)));
    // At least once: only requests in flight at the kill may come twice.
    assert!(duplicates <= 60, "{duplicates} rows delivered more than once");
    let _ = std::fs::remove_dir_all(&data_dir);
}

/// The embedded cluster of a server binary, stopped (and its folder removed) when the test ends,
/// passed or not, after the binary (declared later) is killed.
struct StopsCluster(server::db::embedded::EmbeddedPostgres);

impl Drop for StopsCluster {
    fn drop(&mut self) {
        let _ = self.0.stop();
        if let Some(dir) = self.0.pgdata().parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

#[tokio::test]
async fn a_function_schedule_in_config_toml_has_pg_cron_call_the_function() {
    // Arrange: the server binary with its own embedded cluster (pg_cron runs in its `postgres`
    // database) and a function scheduled every minute.
    let function = "Deno.serve(async (req) => Response.json({ tick: (await req.json()).type, \
                    authorized: req.headers.get('authorization') !== null }));";
    let project = crate::functions::project(
        "[functions.tick]\nschedule = \"* * * * *\"\n",
        &[("functions/tick/index.ts", function)],
    );
    let data_dir = std::env::temp_dir().join(format!("schedules-{}", &server::keys::random_secret()[..12]));
    let cluster = StopsCluster(server::db::embedded::EmbeddedPostgres::new(&data_dir, 0, None).expect("the cluster"));
    let (dir, project, deno) = (
        data_dir.to_string_lossy().to_string(),
        project.to_string_lossy().to_string(),
        crate::functions::deno().to_string_lossy().to_string(),
    );
    let (_server, _, _) = crate::helpers::spawn_binary(&[
        ("DATA_DIR", &dir),
        ("DB_PORT", "0"),
        ("SUPABASE_PROJECT_DIR", &project),
        ("FUNCTIONS_DENO_BIN", &deno),
        ("OUTBOX_POLL_SECONDS", "1"),
    ])
    .await;
    let client = connect(&cluster.0.socket_url()).await;

    // Assert: the job exists, and within its minute the function answered the outbox's call
    // (with the service key: the function checks JWTs).
    let job: String = client
        .query_one("select schedule from cron.job where jobname = 'function:tick'", &[])
        .await
        .expect("the job")
        .get(0);
    assert_eq!(job, "* * * * *");
    let answer = within(90, async || {
        client
            .query_opt(
                "select last_response::jsonb from outbox.http_requests where source = 'schedule' and delivered_at is not null",
                &[],
            )
            .await
            .ok()
            .flatten()
            .map(|r| r.get::<_, Value>(0))
    })
    .await
    .expect("the schedule ran the function");
    assert_eq!(answer, json!({"tick": "SCHEDULE", "authorized": true}));
}
