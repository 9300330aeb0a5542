//! Requests whose transaction is one message share a worker's connections ([`server::db::lanes`]):
//! each still gets its own answer and its own transaction, an error ends only its own, and a slow
//! statement does not hold up the requests that come after it.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{json_of, spawn_app_with, TestApp};

/// An app with one shared connection per worker (one worker): every request that may share a
/// connection is offered the same one (reads have no lane of their own).
async fn one_shared_connection() -> TestApp {
    shared_connections(0).await
}

/// An app with one shared connection per worker (one worker), and reads' own lane `read_depth`
/// deep unless that is 0.
async fn shared_connections(read_depth: usize) -> TestApp {
    let app = spawn_app_with(|c| {
        c.db_shared_connections = 1;
        c.db_shared_read_depth = read_depth;
    })
    .await;
    app.ddl(
        "create table public.items (id int primary key, name text not null);
         grant select, insert on public.items to anon;
         insert into public.items select g, 'item ' || g from generate_series(1, 40) g;
         create function public.slow() returns int language sql as
           'select pg_advisory_xact_lock(4343); select 1';",
    )
    .await;
    app
}

/// The backend of the shared connection, once it is open and idle.
async fn shared_backend(app: &TestApp) -> i32 {
    let row = app
        .admin_query_one(
            "select coalesce(array_agg(pid), '{}') from pg_stat_activity \
             where datname = current_database() and application_name = 'server-shared'",
        )
        .await;
    let pids: Vec<i32> = row.get(0);
    assert_eq!(pids.len(), 1, "one shared connection for one worker: {pids:?}");
    pids[0]
}

#[tokio::test]
async fn concurrent_requests_on_a_shared_connection_each_get_their_own_answer() {
    let app = one_shared_connection().await;
    concurrent_requests_each_get_their_own_answer(&app).await;
    // Nothing of the requests outlives them on the shared connection: its backend is idle, not
    // in a transaction, and the shared connection is still the one it was.
    let pid = shared_backend(&app).await;
    let state = app.admin_query_one(&format!("select state from pg_stat_activity where pid = {pid}")).await;
    assert_eq!(state.get::<_, String>(0), "idle");
}

/// With the readers' lane (the default), reads and writes share two connections, each its own:
/// the reads, up to 16 at once on one backend, still each get their own answer.
#[tokio::test]
async fn reads_and_writes_share_separate_connections_and_each_gets_its_own_answer() {
    let app = shared_connections(16).await;
    concurrent_requests_each_get_their_own_answer(&app).await;
    let rows = app
        .admin_query_one(
            "select coalesce(array_agg(state || ' ' || lower(query) order by pid), '{}') from pg_stat_activity \
             where datname = current_database() and application_name = 'server-shared'",
        )
        .await;
    let last: Vec<String> = rows.get(0);
    assert_eq!(last.len(), 2, "a lane for writes and one for reads: {last:?}");
    assert!(last.iter().all(|q| q.starts_with("idle ")), "both idle: {last:?}");
    let writers = last.iter().filter(|q| q.contains("insert into")).count();
    assert_eq!(writers, 1, "one lane ran writes last, the other never ran one: {last:?}");
}

/// Reads, writes and failures of both, all at once, each answered with its own result.
async fn concurrent_requests_each_get_their_own_answer(app: &TestApp) {
    let reads = (1..=40).map(|id| {
        let req = app.rest_req(Method::GET, &format!("/items?select=id,name&id=eq.{id}"), None);
        async move { (id, json_of(req.send().await.expect("an answer")).await) }
    });
    let writes = (41..=48).map(|id| {
        let req = app.rest_req(Method::POST, "/items", None).json(&json!({"id": id, "name": format!("new {id}")}));
        async move { (id, json_of(req.send().await.expect("an answer")).await) }
    });
    // Requests that fail in Postgres among them: a value the column cannot take, a duplicate key.
    let failures = (0..8).map(|i| {
        let req = if i % 2 == 0 {
            app.rest_req(Method::GET, "/items?id=eq.not-a-number", None)
        } else {
            app.rest_req(Method::POST, "/items", None).json(&json!({"id": 1, "name": "again"}))
        };
        async move { (i, json_of(req.send().await.expect("an answer")).await) }
    });
    let (reads, writes, failures) = futures_util::future::join3(
        futures_util::future::join_all(reads),
        futures_util::future::join_all(writes),
        futures_util::future::join_all(failures),
    )
    .await;
    for (id, answer) in reads {
        assert_eq!(answer, (200, json!([{"id": id, "name": format!("item {id}")}])), "read of {id}");
    }
    for (id, (status, _)) in writes {
        assert_eq!(status, 201, "insert of {id}");
    }
    for (i, (status, body)) in failures {
        let expected = if i % 2 == 0 { (400, "22P02") } else { (409, "23505") };
        assert_eq!((status, body["code"].as_str().unwrap_or_default()), expected, "{body}");
    }
    let count = app.admin_query_one("select count(*)::int from public.items where id > 40").await;
    assert_eq!(count.get::<_, i32>(0), 8, "every insert committed, each in its own transaction");
}

#[tokio::test]
async fn a_quick_request_is_not_queued_behind_a_slow_one_on_a_shared_connection() {
    let app = one_shared_connection().await;
    let slow = app.rest_req(Method::POST, "/rpc/slow", Some(&app.service_key)).json(&json!({}));
    a_quick_read_is_not_queued_behind(&app, slow).await;
}

/// The same on the readers' lane, behind a slow read (a `GET` call runs read-only).
#[tokio::test]
async fn a_quick_read_is_not_queued_behind_a_slow_one_on_the_readers_lane() {
    let app = shared_connections(16).await;
    let slow = app.rest_req(Method::GET, "/rpc/slow", Some(&app.service_key));
    a_quick_read_is_not_queued_behind(&app, slow).await;
}

/// Send `slow` (a call of `slow()`) once a read has opened the shared connection it will take,
/// and while it waits on that connection, a quick read.
async fn a_quick_read_is_not_queued_behind(app: &TestApp, slow: reqwest::RequestBuilder) {
    let (status, _) = json_of(app.rest_req(Method::GET, "/items?id=eq.1", None).send().await.expect("an answer")).await;
    assert_eq!(status, 200);
    let pid = shared_backend(app).await;
    // The slow call waits for a lock this test holds, so it runs until the test lets it go (as
    // `service_role`, which has no statement timeout).
    let holder = crate::helpers::connect(&app.db_url).await;
    holder.execute("select pg_advisory_lock(4343)", &[]).await.expect("take the lock");
    let slow = tokio::spawn(slow.send());
    // The call runs on the shared connection (it was idle, so it is the one offered).
    let running = format!(
        "select exists (select 1 from pg_stat_activity where pid = {pid} and state = 'active' \
         and wait_event_type = 'Lock')"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !app.admin_query_one(&running).await.get::<_, bool>(0) {
        assert!(!slow.is_finished(), "the slow call ended before it was seen on the shared connection");
        assert!(std::time::Instant::now() < deadline, "the slow call never ran on the shared connection");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // Queued behind the call, the read would wait for the lock: a bound so that the test fails
    // instead of hanging.
    let quick = app
        .rest_req(Method::GET, "/items?select=id&id=eq.2", None)
        .timeout(std::time::Duration::from_secs(30))
        .send()
        .await
        .expect("the quick read is answered while the call waits");
    let quick = json_of(quick).await;
    assert_eq!(quick, (200, json!([{"id": 2}])));
    assert!(!slow.is_finished(), "the quick read was answered while the slow call still ran");
    holder.execute("select pg_advisory_unlock(4343)", &[]).await.expect("release the lock");
    let (status, body) = json_of(slow.await.expect("the call's task").expect("the call's answer")).await;
    assert_eq!((status, body), (200, json!(1)));
}

/// A request that ends its transaction itself (`Prefer: tx=rollback`) opens it with `BEGIN`,
/// which a failure would leave open on a shared connection: it takes a connection of its own.
#[tokio::test]
async fn a_transaction_that_is_rolled_back_does_not_run_on_a_shared_connection() {
    let app = spawn_app_with(|c| {
        c.db_shared_connections = 1;
        c.rest.tx_end = "commit-allow-override".into();
    })
    .await;
    app.ddl("create table public.t (id int primary key); grant select, insert on public.t to anon;").await;
    let res = app.rest_req(Method::GET, "/t", None).send().await.expect("an answer");
    assert_eq!(res.status().as_u16(), 200);
    let pid = shared_backend(&app).await;
    let (status, body) = json_of(
        app.rest_req(Method::POST, "/t", None)
            .header("Prefer", "tx=rollback, return=representation")
            .json(&json!({"id": 1}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, body), (201, json!([{"id": 1}])));
    let kept = app.admin_query_one("select count(*)::int from public.t").await;
    assert_eq!(kept.get::<_, i32>(0), 0, "rolled back");
    // A backend's `query` is the last statement it ran: the read's on the shared connection, the
    // `ROLLBACK` on a pooled one.
    let last = app.admin_query_one(&format!("select query from pg_stat_activity where pid = {pid}")).await;
    assert!(
        last.get::<_, String>(0).contains("\"t\""),
        "the shared connection ran the read last: {:?}",
        last.get::<_, String>(0)
    );
    let pooled = app
        .admin_query_one(
            "select count(*)::int from pg_stat_activity where datname = current_database() \
             and application_name = 'server-request' and query = 'ROLLBACK'",
        )
        .await;
    assert_eq!(pooled.get::<_, i32>(0), 1, "the rolled-back transaction ran on a pooled connection");
}
