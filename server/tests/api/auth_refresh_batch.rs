//! Refresh grants that arrive together, granted in one statement: each grant as it would be
//! alone (its own new token, its audit row, its rate-limit hit in order), for both refresh-token
//! algorithms.
//!
//! To make grants arrive "together" without depending on timing, the test holds the rows the
//! grants would update locked in a transaction of its own: the first statements block on them,
//! every later grant queues behind them, and once the lock is released the queue is granted in
//! one more statement (or very few).

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::auth::{ran_between, refresh_with, session_of, statements_run};
use crate::helpers::{connect_with_statements, every_connection, TestApp};

const GRANTS: usize = 12;

/// `count` more sessions of the signed-in user of `session`, each with its first refresh token,
/// made in SQL: rows of `auth.refresh_tokens` (algorithm 1) or a key and counter 0 (algorithm 2).
async fn more_sessions(db: &tokio_postgres::Client, session: &Value, algorithm: u8, count: usize) -> Vec<String> {
    let user: Uuid = session["user"]["id"].as_str().and_then(|s| s.parse().ok()).expect("user id");
    let mut tokens = vec![];
    for n in 0..count {
        let id = Uuid::new_v4();
        let (key, stored) = server::auth::refresh_token::new_key();
        let hmac = (algorithm == 2).then_some(stored);
        db.execute(
            "insert into auth.sessions (id, user_id, created_at, updated_at, aal, refreshed_at, \
               refresh_token_hmac_key, refresh_token_counter) \
             values ($1, $2, now(), now(), 'aal1', now() at time zone 'utc', $3::text, case when $3::text is not null then 0 end)",
            &[&id, &user, &hmac],
        )
        .await
        .expect("session");
        db.execute(
            "insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id) \
             values ($1, now(), now(), 'password', gen_random_uuid())",
            &[&id],
        )
        .await
        .expect("amr");
        if algorithm == 2 {
            tokens.push(server::auth::refresh_token::encode(id, 0, &key));
        } else {
            let token = format!("batchtoken{n:022}");
            db.execute(
                "insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id) \
                 values ('00000000-0000-0000-0000-000000000000', $1, $2, false, now(), now(), $3)",
                &[&token, &user.to_string(), &id],
            )
            .await
            .expect("token");
            tokens.push(token);
        }
    }
    tokens
}

/// Present every token at once while a transaction holds `lock` (a `select … for update` of the
/// rows the grants update), release it once every grant has reached the server's queue (the first
/// batches blocked on the lock, the rest waiting behind them) and `meanwhile` has run, and give
/// each answer with the statements that ran meanwhile (the test's own lock and transaction left
/// out).
async fn together(
    app: &TestApp,
    db: &mut tokio_postgres::Client,
    lock: &str,
    tokens: &[String],
    meanwhile: impl std::future::Future<Output = ()>,
) -> (Vec<(StatusCode, Value)>, Vec<(String, i64)>) {
    let before = statements_run(db).await;
    let tx = db.transaction().await.expect("begin");
    tx.execute(lock, &[]).await.expect("lock");
    let bodies: Vec<Value> = tokens.iter().map(|t| json!(t)).collect();
    let grants = futures_util::future::join_all(bodies.iter().map(|t| refresh_with(app, t)));
    let release = async {
        // Polled, up to 60 s: how long the requests take to arrive depends on the machine.
        let batch = &app.auth.refresh_batch;
        for _ in 0..600 {
            if batch.pending() >= tokens.len() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(batch.pending(), tokens.len(), "every grant queued or blocked on the lock");
        meanwhile.await;
        tx.commit().await.expect("release");
    };
    let (answers, ()) = tokio::join!(grants, release);
    let ran = ran_between(&before, &statements_run(db).await)
        .into_iter()
        .filter(|(q, _)| {
            let q = q.trim_start().to_lowercase();
            !(q.contains("for update") || ["begin", "start transaction", "commit"].iter().any(|s| q.starts_with(s)))
        })
        .collect();
    (answers, ran)
}

/// The statement that locks what the grants of `algorithm` update.
fn lock_of(algorithm: u8) -> &'static str {
    if algorithm == 1 {
        "select 1 from auth.refresh_tokens where not revoked for update"
    } else {
        "select 1 from auth.sessions where refresh_token_hmac_key is not null for update"
    }
}

#[tokio::test]
async fn refreshes_that_arrive_together_are_granted_in_one_statement_each_as_if_alone() {
    // With the default rate limit, and with none (the batch statement then counts nothing).
    for (algorithm, limit) in [(1u8, None), (2, None), (1, Some(0)), (2, Some(0))] {
        let (app, session) = session_of(algorithm, "together@example.test", |c| {
            if let Some(limit) = limit {
                c.auth.rate_limit_token_refresh = limit;
            }
        })
        .await;
        let mut db = connect_with_statements(&app.db_url).await;
        let tokens = more_sessions(&db, &session, algorithm, GRANTS).await;

        let (answers, ran) = together(&app, &mut db, lock_of(algorithm), &tokens, async {}).await;

        let mut issued = std::collections::HashSet::new();
        for (n, (status, body)) in answers.iter().enumerate() {
            assert_eq!(*status, StatusCode::OK, "algorithm {algorithm}, grant {n}: {body}");
            assert_eq!(body["user"]["email"], "together@example.test");
            assert_eq!(body["token_type"], "bearer");
            let token = body["refresh_token"].as_str().expect("refresh token").to_string();
            assert_ne!(token, tokens[n], "algorithm {algorithm}: a new token");
            assert!(issued.insert(token), "algorithm {algorithm}: each grant its own token");
        }
        let batches: i64 = ran.iter().filter(|(q, _)| q.contains("with ordinality")).map(|(_, n)| n).sum();
        // (`together` leaves the test's own lock and transaction out of `ran`.)
        let others: Vec<_> = ran.iter().filter(|(q, _)| !q.contains("with ordinality")).collect();
        assert!(
            batches >= 1 && batches <= (GRANTS / 3) as i64,
            "algorithm {algorithm}: {GRANTS} grants in {batches} statements: {ran:?}"
        );
        assert!(others.is_empty(), "algorithm {algorithm}: no grant alone: {others:?}");
        // What each grant did, as alone: one audit row each, each presented token spent, each new
        // one current.
        let row = db
            .query_one(
                "select (select count(*) from auth.audit_log_entries where payload->>'action' = 'token_refreshed'), \
                        (select count(*) from auth.refresh_tokens where token = any($1) and revoked), \
                        (select count(*) from auth.refresh_tokens where not revoked and parent = any($1)), \
                        (select count(*) from auth.sessions where refresh_token_counter = 1)",
                &[&tokens],
            )
            .await
            .expect("state");
        assert_eq!(row.get::<_, i64>(0), GRANTS as i64, "algorithm {algorithm}: audit rows");
        let counted: i64 = db
            .query_one("select coalesce(sum(count), 0)::int8 from auth.rate_limits where key like 'token:%'", &[])
            .await
            .expect("rate limits")
            .get(0);
        // Without a limit the batch statement holds no counting at all (a data-modifying CTE
        // would open and lock the counters' table even with a false condition).
        let counts =
            ran.iter().filter(|(q, _)| q.contains("with ordinality")).any(|(q, _)| q.contains("auth.rate_limits"));
        assert_eq!(counts, limit != Some(0), "algorithm {algorithm}, limit {limit:?}: the batch statement counts hits");
        if limit == Some(0) {
            assert_eq!(counted, 0, "algorithm {algorithm}: no limit, no hit counted");
        } else {
            assert!(counted >= GRANTS as i64, "algorithm {algorithm}: each grant's hit counted ({counted})");
        }
        if algorithm == 1 {
            assert_eq!(row.get::<_, i64>(1), GRANTS as i64, "every presented token revoked");
            assert_eq!(row.get::<_, i64>(2), GRANTS as i64, "every new token the child of the one presented");
        } else {
            assert_eq!(row.get::<_, i64>(3), GRANTS as i64, "every session's counter advanced once");
        }
        // The new tokens are the sessions' current ones.
        let (status, next) = refresh_with(&app, &answers[0].1["refresh_token"]).await;
        assert_eq!(status, StatusCode::OK, "algorithm {algorithm}: {next}");
    }
}

#[tokio::test]
async fn a_batch_counts_the_rate_limit_of_each_grant_in_turn() {
    const LIMIT: usize = 4;
    for algorithm in [1u8, 2] {
        let (app, session) = session_of(algorithm, "counted@example.test", |c| {
            c.auth.rate_limit_token_refresh = LIMIT as u64;
        })
        .await;
        let mut db = connect_with_statements(&app.db_url).await;
        let tokens = more_sessions(&db, &session, algorithm, 2 * LIMIT).await;
        // The sign-in counted a hit under the same key: start the window afresh.
        db.execute("delete from auth.rate_limits", &[]).await.expect("reset");

        let (answers, ran) = together(&app, &mut db, lock_of(algorithm), &tokens, async {}).await;

        let granted = answers.iter().filter(|(s, _)| *s == StatusCode::OK).count();
        let limited: Vec<_> = answers.iter().filter(|(s, _)| *s == StatusCode::TOO_MANY_REQUESTS).collect();
        assert_eq!(granted, LIMIT, "algorithm {algorithm}: {answers:?}");
        assert_eq!(limited.len(), LIMIT, "algorithm {algorithm}: {answers:?}");
        assert!(limited.iter().all(|(_, b)| b["code"] == "over_request_rate_limit"), "{limited:?}");
        assert!(ran.iter().any(|(q, _)| q.contains("with ordinality")), "algorithm {algorithm}: batched: {ran:?}");
        let row = db
            .query_one(
                "select (select sum(count) from auth.rate_limits)::int8, \
                        (select count(*) from auth.audit_log_entries where payload->>'action' = 'token_refreshed')",
                &[],
            )
            .await
            .expect("state");
        assert_eq!(row.get::<_, i64>(0), (2 * LIMIT) as i64, "algorithm {algorithm}: one hit per grant");
        assert_eq!(row.get::<_, i64>(1), LIMIT as i64, "algorithm {algorithm}: only the granted audited");
    }
}

#[tokio::test]
async fn the_batch_statement_is_planned_once_per_connection_not_on_every_call() {
    // Two admin connections, so that each runs the statement often enough for Postgres to
    // settle on a plan (it plans a prepared statement for its values five times first).
    let (app, session) = session_of(1, "generic@example.test", |c| c.db_pool_size = 2).await;
    let mut token = session["refresh_token"].clone();
    for n in 0..16 {
        let (status, next) = refresh_with(&app, &token).await;
        assert_eq!(status, StatusCode::OK, "refresh {n}: {next}");
        token = next["refresh_token"].clone();
    }
    let pool = &app.rest.admin;
    let connections = every_connection(pool).await;
    let mut plans = vec![];
    for client in &connections {
        let row = client
            .query_opt(
                "select generic_plans, custom_plans from pg_prepared_statements \
                 where statement like '%with ordinality as i(token, new_token%' \
                   and statement not like '%pg_prepared_statements%'",
                &[],
            )
            .await
            .expect("pg_prepared_statements");
        if let Some(row) = row {
            plans.push((row.get::<_, i64>(0), row.get::<_, i64>(1)));
        }
    }
    let runs: i64 = plans.iter().map(|(g, c)| g + c).sum();
    assert_eq!(runs, 16, "every grant ran the batch statement: {plans:?}");
    assert!(plans.iter().any(|(generic, _)| *generic > 0), "the generic plan is kept: {plans:?}");
    assert!(plans.iter().all(|(_, custom)| *custom <= 5), "planned for its values five times at most: {plans:?}");
}

#[tokio::test]
async fn a_batch_that_fails_as_a_whole_grants_each_refresh_alone() {
    for algorithm in [1u8, 2] {
        let (app, session) = session_of(algorithm, "alone@example.test", |_| {}).await;
        let mut db = connect_with_statements(&app.db_url).await;
        let tokens = more_sessions(&db, &session, algorithm, GRANTS).await;
        // A statement that writes more than one audit row fails: every batch of several grants
        // does, a grant alone does not.
        db.batch_execute(
            "create function public.one_audit_row() returns trigger language plpgsql as $$ \
             begin if (select count(*) from written) > 1 then raise exception 'one row at a time'; end if; \
             return null; end $$; \
             create trigger one_audit_row after insert on auth.audit_log_entries \
             referencing new table as written for each statement execute function public.one_audit_row();",
        )
        .await
        .expect("trigger");

        let (answers, ran) = together(&app, &mut db, lock_of(algorithm), &tokens, async {}).await;

        for (n, (status, body)) in answers.iter().enumerate() {
            assert_eq!(*status, StatusCode::OK, "algorithm {algorithm}, grant {n}: {body}");
        }
        let alone: i64 = ran.iter().filter(|(q, _)| !q.contains("with ordinality")).map(|(_, n)| n).sum();
        assert!(alone >= (GRANTS - 2) as i64, "algorithm {algorithm}: granted one by one: {ran:?}");
        let audited: i64 = db
            .query_one("select count(*) from auth.audit_log_entries where payload->>'action' = 'token_refreshed'", &[])
            .await
            .expect("audit")
            .get(0);
        assert_eq!(audited, GRANTS as i64, "algorithm {algorithm}: each grant once, nothing of the failed batch kept");
    }
}

#[tokio::test]
async fn a_token_with_a_nul_byte_is_refused_and_spoils_no_batch() {
    let (app, session) = session_of(1, "nul@example.test", |_| {}).await;
    let mut db = connect_with_statements(&app.db_url).await;
    let (status, body) = refresh_with(&app, &json!("abc\u{0}def")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["code"], "validation_failed", "{body}");

    let tokens = more_sessions(&db, &session, 1, GRANTS).await;
    // Sent while the others wait for the lock: refused at once, it joins none of their batches.
    let nul_token = json!("\u{0}");
    let mut nul = (StatusCode::OK, Value::Null);
    let answers = together(&app, &mut db, lock_of(1), &tokens, async {
        // Queued instead, it would wait for the lock this test holds until it gives up.
        nul = tokio::time::timeout(Duration::from_secs(30), refresh_with(&app, &nul_token))
            .await
            .expect("answered while the lock is held, not queued behind it");
    })
    .await;

    assert_eq!(nul.0, StatusCode::BAD_REQUEST, "{:?}", nul.1);
    let (answers, ran) = answers;
    assert!(answers.iter().all(|(s, _)| *s == StatusCode::OK), "{answers:?}");
    assert!(ran.iter().all(|(q, _)| q.contains("with ordinality")), "no grant fell back: {ran:?}");
}
