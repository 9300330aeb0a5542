//! `/rest/v1` through HTTP: role switching and RLS with real tokens, errors, limits,
//! PostgREST settings, and hostile input that must be rejected or bound, never executed.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{every_connection, json_of, spawn_app, spawn_app_with, TestApp};

const ALICE: &str = "11111111-1111-4111-8111-111111111111";
const BOB: &str = "22222222-2222-4222-8222-222222222222";

async fn notes_app() -> TestApp {
    notes_app_with(|_| {}).await
}

async fn notes_app_with(customize: impl FnOnce(&mut server::config::Config)) -> TestApp {
    let app = spawn_app_with(customize).await;
    app.ddl(&format!(
        "create table public.notes (id int primary key, owner uuid not null default auth.uid(), body text);
         alter table public.notes enable row level security;
         create policy read_own on public.notes for select to authenticated using (owner = auth.uid());
         create policy write_own on public.notes for insert to authenticated with check (owner = auth.uid());
         insert into public.notes values (1, '{ALICE}', 'alice'), (2, '{BOB}', 'bob');
         create function public.whoami() returns text language sql stable as 'select current_user::text';"
    ))
    .await;
    app
}

#[tokio::test]
async fn rls_with_auth_uid_shows_each_user_only_their_rows_over_http() {
    let app = notes_app().await;
    let alice = app.user_token(ALICE);
    let (status, body) =
        json_of(app.rest_req(Method::GET, "/notes?select=body", Some(&alice)).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(body, json!([{"body": "alice"}]));

    let (_, body) = json_of(app.rest_req(Method::GET, "/notes?select=body", None).send().await.unwrap()).await;
    assert_eq!(body, json!([]), "anon sees nothing");

    let (_, body) =
        json_of(app.rest_req(Method::GET, "/notes?select=body&order=id", Some(&app.service_key)).send().await.unwrap())
            .await;
    assert_eq!(body, json!([{"body": "alice"}, {"body": "bob"}]), "service_role bypasses RLS");
}

#[tokio::test]
async fn a_policy_refusal_on_insert_is_a_403_for_users_and_401_for_anon() {
    let app = notes_app().await;
    let alice = app.user_token(ALICE);
    let res = app
        .rest_req(Method::POST, "/notes", Some(&alice))
        .json(&json!({"id": 3, "owner": BOB, "body": "forged"}))
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(res).await;
    assert_eq!(status, 403);
    assert_eq!(body["code"], "42501");
    let res = app.rest_req(Method::POST, "/notes", None).json(&json!({"id": 4, "owner": BOB})).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 401);
    // Alice's own row is accepted and the default picks her id.
    let res = app
        .rest_req(Method::POST, "/notes", Some(&alice))
        .json(&json!({"id": 5, "body": "mine"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 201);
}

#[tokio::test]
async fn each_key_runs_as_its_role() {
    let app = notes_app().await;
    for (token, role) in [
        (None, "anon"),
        (Some(app.user_token(ALICE)), "authenticated"),
        (Some(app.service_key.clone()), "service_role"),
    ] {
        let (status, body) =
            json_of(app.rest_req(Method::POST, "/rpc/whoami", token.as_deref()).json(&json!({})).send().await.unwrap())
                .await;
        assert_eq!(status, 200);
        assert_eq!(body, json!(role));
    }
}

#[tokio::test]
async fn a_token_with_an_unknown_role_cannot_become_it() {
    let app = notes_app().await;
    let token = app.sign(json!({"role": "postgres", "exp": 4_000_000_000i64}));
    let res = app.rest_req(Method::GET, "/notes", Some(&token)).send().await.unwrap();
    assert!(matches!(res.status().as_u16(), 400 | 401 | 403), "got {}", res.status());
}

#[tokio::test]
async fn the_schema_cache_reloads_on_notify() {
    let app = spawn_app().await;
    app.admin_sql("create table public.late (id int); notify pgrst, 'reload schema';").await;
    let mut found = false;
    for _ in 0..50 {
        if app.rest_req(Method::GET, "/late", None).send().await.unwrap().status().as_u16() == 200 {
            found = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(found, "table created after start never became visible");
}

#[tokio::test]
async fn hostile_identifiers_values_and_casts_are_never_executed() {
    let app = spawn_app().await;
    app.ddl("create table public.victim (id int primary key, name text, data jsonb); insert into public.victim values (1, 'a', '{\"k\": 1}');").await;
    let attacks = [
        "/victim?select=id;drop table victim;--",
        "/victim?select=\"id\"\"; drop table victim; --\"",
        "/victim?select=id::int);drop table victim;--",
        "/victim?select=id,name::text%20union%20select%201",
        "/victim?order=id;drop table victim",
        "/victim?order=id.desc,(select 1)",
        "/victim?name=eq.a');drop table victim;--",
        "/victim?id=in.(1);drop table victim",
        "/victim?select=data->>k');drop table victim;--",
        "/victim?data->>'k=eq.1",
        "/victim?or=(id.eq.1,id.eq.1);drop table victim",
    ];
    for path in attacks {
        let res = app.rest_req(Method::GET, path, None).send().await.unwrap();
        assert_ne!(res.status().as_u16(), 500, "{path} gave a 500");
    }
    let (status, body) = json_of(app.rest_req(Method::GET, "/victim?select=id", None).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(body, json!([{"id": 1}]), "the table and its row survived");
    // A value with quotes is bound and compared, not spliced.
    let (_, body) =
        json_of(app.rest_req(Method::GET, "/victim?name=eq.a'%20or%20'1'='1", None).send().await.unwrap()).await;
    assert_eq!(body, json!([]));
}

#[tokio::test]
async fn oversized_bodies_get_413_and_store_nothing() {
    let app = spawn_app_with(|c| c.rest.max_body_bytes = 1024).await;
    app.ddl("create table public.blobs (id int, data text);").await;
    let big = "x".repeat(4096);
    let res = app.rest_req(Method::POST, "/blobs", None).json(&json!({"id": 1, "data": big})).send().await.unwrap();
    let (status, body) = json_of(res).await;
    assert_eq!(status, 413);
    assert_eq!(body["code"], "PGRST413");
    let (_, body) = json_of(app.rest_req(Method::GET, "/blobs", None).send().await.unwrap()).await;
    assert_eq!(body, json!([]));
}

#[tokio::test]
async fn max_rows_caps_every_read() {
    let app = spawn_app_with(|c| c.rest.max_rows = Some(2)).await;
    app.ddl("create table public.many as select g as id from generate_series(1, 10) g;").await;
    let res = app.rest_req(Method::GET, "/many?order=id", None).header("Prefer", "count=exact").send().await.unwrap();
    assert_eq!(res.status().as_u16(), 206);
    assert_eq!(res.headers()["content-range"], "0-1/10");
    let (_, body) = json_of(res).await;
    assert_eq!(body, json!([{"id": 1}, {"id": 2}]));
}

#[tokio::test]
async fn tx_rollback_is_honoured_only_when_allowed() {
    let app = spawn_app_with(|c| c.rest.tx_end = "commit-allow-override".into()).await;
    app.ddl("create table public.t (id int);").await;
    let res = app
        .rest_req(Method::POST, "/t", None)
        .header("Prefer", "tx=rollback, return=representation")
        .json(&json!({"id": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 201);
    assert!(res.headers()["preference-applied"].to_str().unwrap().contains("tx=rollback"));
    let (_, body) = json_of(app.rest_req(Method::GET, "/t", None).send().await.unwrap()).await;
    assert_eq!(body, json!([]), "rolled back");

    let strict = spawn_app().await;
    strict.ddl("create table public.t (id int);").await;
    let res = strict
        .rest_req(Method::POST, "/t", None)
        .header("Prefer", "tx=rollback")
        .json(&json!({"id": 1}))
        .send()
        .await
        .unwrap();
    assert!(res.headers().get("preference-applied").is_none_or(|v| !v.to_str().unwrap().contains("tx=")));
    let (_, body) = json_of(strict.rest_req(Method::GET, "/t", None).send().await.unwrap()).await;
    assert_eq!(body, json!([{"id": 1}]), "committed: override not allowed by default");
}

#[tokio::test]
async fn the_pre_request_function_runs_in_each_request() {
    let app = spawn_app_with(|c| c.rest.pre_request = Some("public.check_header".into())).await;
    app.ddl(
        "create table public.t (id int); insert into public.t values (1);
         create function public.check_header() returns void language plpgsql as $$
         begin
           if current_setting('request.headers', true)::json->>'x-blocked' = 'yes' then
             raise sqlstate 'PT403' using message = 'blocked by pre-request';
           end if;
         end $$;",
    )
    .await;
    let ok = app.rest_req(Method::GET, "/t", None).send().await.unwrap();
    assert_eq!(ok.status().as_u16(), 200);
    let (status, body) =
        json_of(app.rest_req(Method::GET, "/t", None).header("x-blocked", "yes").send().await.unwrap()).await;
    assert_eq!(status, 403);
    assert_eq!(body["message"], "blocked by pre-request");
}

#[tokio::test]
async fn the_anon_roles_statement_timeout_is_honoured() {
    let app = spawn_app().await;
    app.ddl(
        "create function public.slow() returns int language sql as 'select 1 from pg_sleep(5)';
         do $$ begin execute format('alter role anon in database %I set statement_timeout = ''200ms''', current_database()); end $$;",
    )
    .await;
    let (status, body) =
        json_of(app.rest_req(Method::POST, "/rpc/slow", None).json(&json!({})).send().await.unwrap()).await;
    assert_eq!(body["code"], "57014", "statement timeout expected, got {status} {body}");
}

#[tokio::test]
async fn without_an_anon_role_anonymous_requests_are_refused() {
    let app = spawn_app_with(|c| {
        c.rest.anon_role = String::new();
        c.rest.allow_no_apikey = true;
    })
    .await;
    let (status, body) = json_of(app.http.get(format!("{}/rest/v1/anything", app.address)).send().await.unwrap()).await;
    assert_eq!(status, 401);
    assert_eq!(body["code"], "PGRST302");
}

#[tokio::test]
async fn plain_postgrest_mode_accepts_requests_without_an_apikey() {
    let app = spawn_app_with(|c| c.rest.allow_no_apikey = true).await;
    app.ddl("create table public.t (id int); insert into public.t values (7);").await;
    let res = app.http.get(format!("{}/rest/v1/t", app.address)).send().await.unwrap();
    let (status, body) = json_of(res).await;
    assert_eq!(status, 200);
    assert_eq!(body, json!([{"id": 7}]));
}

#[tokio::test]
async fn the_root_describes_the_schema_in_openapi() {
    let app = spawn_app().await;
    app.ddl("create table public.cars (id int primary key, make text not null); comment on table public.cars is 'The fleet';").await;
    let (status, body) = json_of(app.rest_req(Method::GET, "/", None).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(body["swagger"], "2.0");
    assert!(body["paths"]["/cars"]["get"].is_object());
    assert_eq!(body["definitions"]["cars"]["required"], json!(["id", "make"]));
}

#[tokio::test]
async fn the_plan_is_returned_when_enabled() {
    let app = spawn_app_with(|c| c.rest.plan_enabled = true).await;
    app.ddl("create table public.t (id int);").await;
    let res =
        app.rest_req(Method::GET, "/t", None).header("Accept", "application/vnd.pgrst.plan+json").send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let body: Value = res.json().await.unwrap();
    assert!(body[0]["Plan"].is_object());
}

#[tokio::test]
async fn role_claim_key_reads_a_nested_role() {
    let app = spawn_app_with(|c| c.rest.role_claim_key = ".app_metadata.role".into()).await;
    app.ddl("create function public.whoami() returns text language sql stable as 'select current_user::text';").await;
    let token = app.sign(json!({"app_metadata": {"role": "service_role"}, "exp": 4_000_000_000i64}));
    let (_, body) = json_of(app.rest_req(Method::GET, "/rpc/whoami", Some(&token)).send().await.unwrap()).await;
    assert_eq!(body, json!("service_role"));
}

#[tokio::test]
async fn an_anonymous_request_with_1600_aliased_embeds_is_refused_before_any_sql() {
    let app = spawn_app().await;
    // The request of issue #12: it took 0.8 GB of one Postgres backend.
    let select: Vec<String> = (0..1600).map(|i| format!("b{i}:bookings(id)")).collect();
    let url = format!("/vehicles?select={}", select.join(","));
    let (status, body) = json_of(app.rest_req(Method::GET, &url, None).send().await.unwrap()).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["code"], "PGRST100");
    assert!(body["details"].as_str().unwrap().contains("REST_MAX_URL_BYTES"), "{body}");

    // Within the URL bound, the embed count still refuses it.
    let select: Vec<String> = (0..60).map(|i| format!("b{i}:bookings(id)")).collect();
    let url = format!("/vehicles?select={}", select.join(","));
    let (status, body) = json_of(app.rest_req(Method::GET, &url, None).send().await.unwrap()).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("embedded resources: 60, at most 50"), "{body}");

    // A request within every bound is served.
    let (status, _) =
        json_of(app.rest_req(Method::GET, "/vehicles?select=id,b:bookings(id)", None).send().await.unwrap()).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn complexity_bounds_are_configurable() {
    let app = spawn_app_with(|c| {
        c.rest.max_in_values = 3;
        c.rest.max_embeds = 0;
    })
    .await;
    let (status, body) =
        json_of(app.rest_req(Method::GET, "/vehicles?make=in.(a,b,c,d)", None).send().await.unwrap()).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["details"].as_str().unwrap().contains("REST_MAX_IN_VALUES"));
    let (status, _) =
        json_of(app.rest_req(Method::GET, "/vehicles?select=id,bookings(id)", None).send().await.unwrap()).await;
    assert_eq!(status, 400);
    let (status, _) =
        json_of(app.rest_req(Method::GET, "/vehicles?make=in.(a,b,c)&select=id", None).send().await.unwrap()).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn writes_that_lose_a_deadlock_are_run_again_and_both_succeed() {
    let app = spawn_app().await;
    // Two calls that take the same two row locks in opposite orders: Postgres ends one of them
    // with 40P01. Its transaction rolled back whole, so the server runs it again.
    app.ddl(
        "create table public.pair (id int primary key, n int not null);
         insert into public.pair values (1, 0), (2, 0);
         grant select, update on public.pair to anon;
         create function public.bump(first int, second int) returns void language plpgsql as $$
         begin
           update public.pair set n = n + 1 where id = first;
           perform pg_sleep(0.3);
           update public.pair set n = n + 1 where id = second;
         end $$;
         grant execute on function public.bump(int, int) to anon;",
    )
    .await;
    let call = |first: i32, second: i32| {
        app.rest_req(Method::POST, "/rpc/bump", None).json(&json!({"first": first, "second": second})).send()
    };
    let (a, b) = tokio::join!(call(1, 2), call(2, 1));
    let (a, b) = (a.unwrap(), b.unwrap());
    let statuses = (a.status().as_u16(), b.status().as_u16());
    let bodies = (a.text().await.unwrap(), b.text().await.unwrap());
    assert_eq!(statuses, (204, 204), "{bodies:?}");
    let (_, rows) = json_of(app.rest_req(Method::GET, "/pair?order=id", None).send().await.unwrap()).await;
    assert_eq!(rows, json!([{"id": 1, "n": 2}, {"id": 2, "n": 2}]));
}

#[tokio::test]
async fn each_roles_work_mem_bounds_its_requests() {
    let app = spawn_app().await;
    app.ddl(
        "create function public.work_mem() returns text language sql stable as $$ select current_setting('work_mem') $$;
         grant execute on function public.work_mem() to anon, authenticated;",
    )
    .await;
    let (_, anon) = json_of(app.rest_req(Method::GET, "/rpc/work_mem", None).send().await.unwrap()).await;
    assert_eq!(anon, json!("2MB"));
    let token = app.user_token("00000000-0000-0000-0000-000000000001");
    let (_, user) = json_of(app.rest_req(Method::GET, "/rpc/work_mem", Some(&token)).send().await.unwrap()).await;
    assert_eq!(user, json!("4MB"));
}

#[tokio::test]
async fn the_statement_timeout_bounds_parsing_and_planning_too() {
    // With the complexity bounds lifted, the request of issue #12 (1,600 embeds) reaches
    // Postgres: its parse analysis and planning must stop at the anon role's timeout.
    let app = spawn_app_with(|c| {
        c.rest.max_url_bytes = 1 << 20;
        c.rest.max_embeds = 100_000;
        c.rest.max_select_items = 100_000;
    })
    .await;
    app.ddl(
        "do $$ begin execute format('alter role anon in database %I set statement_timeout = ''100ms''', current_database()); end $$;",
    )
    .await;
    let select: Vec<String> = (0..1600).map(|i| format!("b{i}:bookings(id)")).collect();
    let url = format!("/vehicles?select={}", select.join(","));
    let started = std::time::Instant::now();
    let (status, body) = json_of(app.rest_req(Method::GET, &url, None).send().await.unwrap()).await;
    eprintln!("took {:?}", started.elapsed());
    assert_eq!(body["code"], "57014", "statement timeout expected, got {status} {body}");
}

#[tokio::test]
async fn planned_and_estimated_counts_and_plans_work_with_filters() {
    let app = spawn_app_with(|c| c.rest.plan_enabled = true).await;
    app.ddl(
        "create table public.nums (n int, label text);
         insert into public.nums select i, 'it''s \\ ' || i from generate_series(1, 100) i;
         grant select on public.nums to anon; analyze public.nums;",
    )
    .await;
    // The filter's value travels as a parameter everywhere but in EXPLAIN, which takes none.
    let url = "/nums?n=gt.10&label=like.it's*&select=n&limit=2";
    for pref in ["count=planned", "count=estimated"] {
        for method in [Method::GET, Method::HEAD] {
            let res = app.rest_req(method.clone(), url, None).header("Prefer", pref).send().await.unwrap();
            assert_eq!(res.status(), 206, "{pref} {method}");
            let range = res.headers()["content-range"].to_str().unwrap().to_string();
            let total: i64 = range.strip_prefix("0-1/").and_then(|t| t.parse().ok()).unwrap_or(-1);
            assert!(total > 0, "{pref} {method}: Content-Range {range}");
        }
    }
    let res =
        app.rest_req(Method::GET, url, None).header("Accept", "application/vnd.pgrst.plan+json").send().await.unwrap();
    assert_eq!(res.status(), 200);
    let plan: Value = res.json().await.unwrap();
    assert!(plan.to_string().contains("it''s"), "the filter's value is in the plan: {plan}");
}

#[tokio::test]
async fn options_lists_what_can_be_done_to_a_table_a_view_or_a_function() {
    let app = spawn_app().await;
    app.ddl(
        "create table public.items (id int primary key, name text);
         create table public.logs (line text);
         create view public.item_names as select distinct name from public.items;
         create function public.pure(x int) returns int language sql immutable as 'select x';
         create function public.bump() returns int language sql volatile as 'select 1';",
    )
    .await;
    let allow = |path: &'static str| {
        let req = app.rest_req(Method::OPTIONS, path, None);
        async move {
            let res = req.send().await.unwrap();
            let status = res.status();
            let allow = res.headers().get("allow").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
            assert_eq!(status, 200, "{path}: {}", res.text().await.unwrap());
            allow
        }
    };
    assert_eq!(allow("/items").await, "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE");
    assert_eq!(allow("/logs").await, "OPTIONS,GET,HEAD,POST,PATCH,DELETE");
    assert_eq!(allow("/item_names").await, "OPTIONS,GET,HEAD");
    assert_eq!(allow("/rpc/pure").await, "OPTIONS,GET,HEAD,POST");
    assert_eq!(allow("/rpc/bump").await, "OPTIONS,POST");
}

#[tokio::test]
async fn request_path_is_the_path_postgrest_sees() {
    let app = spawn_app().await;
    app.ddl("create function public.path() returns text language sql stable as $$ select current_setting('request.path') $$;")
        .await;
    let (_, body) = json_of(app.rest_req(Method::GET, "/rpc/path", None).send().await.unwrap()).await;
    assert_eq!(body, json!("/rpc/path"));
}

#[tokio::test]
async fn rpc_unnamed_parameters_overloads_max_affected_and_counts_follow_postgrest() {
    let app = spawn_app().await;
    app.ddl(
        "create function public.echo_text(text) returns text language sql as $$ select 'got ' || $1 $$;
         create function public.by_position(int) returns int language sql as 'select $1';
         create function public.maybe() returns int language sql as 'select 1';
         create function public.maybe(text default 'x') returns text language sql as 'select $1';
         create table public.flags (id int primary key, on_line bool not null default true);
         insert into public.flags select i from generate_series(1, 3) i;
         grant select, update on public.flags to anon;
         create function public.all_off() returns setof public.flags language sql as
           'update public.flags set on_line = false returning *';
         create function public.one() returns int language sql stable as 'select 1';",
    )
    .await;
    let post = |path: &str, body: Value| app.rest_req(Method::POST, path, None).json(&body).send();

    // A single unnamed text parameter takes the value of the key "".
    let (status, body) = json_of(post("/rpc/echo_text", json!({"": "hello"})).await.unwrap()).await;
    assert_eq!((status, body), (200, json!("got hello")));
    // Unnamed parameters of other types cannot be called, as in PostgREST's schema cache.
    let (status, body) = json_of(post("/rpc/by_position", json!({"": 1})).await.unwrap()).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["code"], "PGRST202");
    // Two overloads that both fit are ambiguous, the fewest parameters listed first.
    let (status, body) = json_of(post("/rpc/maybe", json!({})).await.unwrap()).await;
    assert_eq!(status, 300, "{body}");
    assert_eq!(
        body["message"],
        "Could not choose the best candidate function between: public.maybe(), public.maybe( => text)"
    );

    // max-affected on a set-returning function: past it, nothing is kept.
    let res = app
        .rest_req(Method::POST, "/rpc/all_off", None)
        .header("Prefer", "handling=strict, max-affected=1")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(res).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["code"], "PGRST124");
    let (_, rows) = json_of(app.rest_req(Method::GET, "/flags?on_line=is.false", None).send().await.unwrap()).await;
    assert_eq!(rows, json!([]), "the update was rolled back");

    // A scalar result is one row, counted when asked.
    let res = app.rest_req(Method::GET, "/rpc/one", None).header("Prefer", "count=exact").send().await.unwrap();
    assert_eq!(res.headers()["content-range"], "0-0/1");
}

#[tokio::test]
async fn csv_fields_are_quoted_as_postgrest_quotes_them_and_nulls_can_be_stripped() {
    let app = spawn_app().await;
    app.ddl(
        "create table public.notes (id int primary key, words tsvector, doc jsonb, note text);
         insert into public.notes values (1, 'fat cat', '{\"b\": [1, 2], \"a\": {\"x\": \"y z\"}}', null), (2, null, null, '');
         grant select on public.notes to anon;",
    )
    .await;
    let res = app.rest_req(Method::GET, "/notes?order=id", None).header("Accept", "text/csv").send().await.unwrap();
    assert_eq!(
        res.text().await.unwrap(),
        "id,words,doc,note\n1,\"'cat' 'fat'\",\"{\"\"a\"\": {\"\"x\"\": \"\"y z\"\"}, \"\"b\"\": [1, 2]}\",\n2,,,\"\""
    );

    let res = app
        .rest_req(Method::GET, "/notes?order=id&select=id,note", None)
        .header("Accept", "application/vnd.pgrst.array+json;nulls=stripped")
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.headers().get("content-type").and_then(|v| v.to_str().ok()),
        Some("application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8"),
        "the media type asked, with its parameter"
    );
    assert_eq!(res.json::<Value>().await.unwrap(), json!([{"id": 1}, {"id": 2, "note": ""}]));
    let res = app
        .rest_req(Method::GET, "/notes?id=eq.1&select=id,note", None)
        .header("Accept", "application/vnd.pgrst.object+json;nulls=stripped")
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.headers().get("content-type").and_then(|v| v.to_str().ok()),
        Some("application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8")
    );
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"id": 1}));
}

#[tokio::test]
async fn missing_default_fills_identity_columns_and_domain_defaults() {
    let app = spawn_app().await;
    app.ddl(
        "create domain public.label as text default 'untitled';
         create table public.things (id int generated by default as identity primary key, name public.label, slug text);
         grant select, insert on public.things to anon;",
    )
    .await;
    let res = app
        .rest_req(Method::POST, "/things?columns=id,name,slug&select=id,name,slug&order=slug", None)
        .header("Prefer", "missing=default, return=representation")
        .json(&json!([{"id": 100, "slug": "a"}, {"slug": "b"}]))
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(res).await;
    assert_eq!(status, 201, "{body}");
    // As in PostgREST, every row draws its default, the row that gave its own id too.
    assert_eq!(body, json!([{"id": 100, "name": "untitled", "slug": "a"}, {"id": 2, "name": "untitled", "slug": "b"}]));
}

#[tokio::test]
async fn an_anonymous_role_with_another_name_is_refused_with_401() {
    let app = spawn_app_with(|c| {
        c.rest.anon_role = "web_anon".into();
        c.rest.allow_no_apikey = true;
    })
    .await;
    app.ddl(
        "do $$ begin if not exists (select from pg_roles where rolname = 'web_anon') then create role web_anon nologin; end if; end $$;
         grant web_anon to authenticator;
         create table public.secrets (id int);",
    )
    .await;
    // No key at all: the request runs as the configured anonymous role.
    let res = app.http.get(format!("{}/rest/v1/secrets", app.address)).send().await.unwrap();
    let challenge = res.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_string());
    let (status, body) = json_of(res).await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["code"], "42501");
    assert_eq!(challenge.as_deref(), Some("Bearer"));
}

#[tokio::test]
async fn a_negative_limit_is_416_and_a_negative_offset_is_none() {
    let app = spawn_app().await;
    app.ddl("create table public.nums2 (n int); insert into public.nums2 values (1), (2); grant select on public.nums2 to anon;")
        .await;
    let (status, body) = json_of(app.rest_req(Method::GET, "/nums2?limit=-1", None).send().await.unwrap()).await;
    assert_eq!(status, 416, "{body}");
    assert_eq!(body["code"], "PGRST103");
    assert_eq!(body["details"], "Limit should be greater than or equal to zero.");
    let (status, body) =
        json_of(app.rest_req(Method::GET, "/nums2?offset=-3&order=n", None).send().await.unwrap()).await;
    assert_eq!((status, body), (200, json!([{"n": 1}, {"n": 2}])));
}

#[tokio::test]
async fn an_upsert_that_only_updates_answers_200_and_one_that_inserts_201() {
    let app = spawn_app().await;
    app.ddl(
        "create table public.handles (name text primary key, bio text);
         insert into public.handles values ('ada', 'first');
         grant select, insert, update on public.handles to anon;",
    )
    .await;
    let upsert = |body: Value| {
        app.rest_req(Method::POST, "/handles?select=name,bio", None)
            .header("Prefer", "resolution=merge-duplicates, return=representation")
            .json(&body)
            .send()
    };
    let (status, body) = json_of(upsert(json!({"name": "ada", "bio": "changed"})).await.unwrap()).await;
    assert_eq!((status, body), (200, json!([{"name": "ada", "bio": "changed"}])));
    let (status, body) =
        json_of(upsert(json!([{"name": "ada", "bio": "again"}, {"name": "bob", "bio": "new"}])).await.unwrap()).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body, json!([{"name": "ada", "bio": "again"}, {"name": "bob", "bio": "new"}]));
}

#[tokio::test]
async fn sql_errors_name_tables_as_postgrest_does() {
    let app = spawn_app().await;
    app.ddl(
        "create table public.authors (id int primary key, name text);
         create table public.books (id int primary key, author_id int references public.authors, title text);
         grant select on public.authors, public.books to anon;",
    )
    .await;
    let (_, body) = json_of(app.rest_req(Method::GET, "/authors?select=nope", None).send().await.unwrap()).await;
    assert_eq!(body["code"], "42703", "{body}");
    assert_eq!(body["message"], "column authors.nope does not exist");
    let (_, body) =
        json_of(app.rest_req(Method::GET, "/authors?select=id,books(nope)", None).send().await.unwrap()).await;
    assert_eq!(body["message"], "column books_1.nope does not exist");
}

#[tokio::test]
async fn a_self_embed_gives_children_and_a_key_column_embed_prefers_the_table_over_its_views() {
    let app = spawn_app().await;
    app.ddl(
        "create table public.folders (id int primary key, parent_id int references public.folders, name text);
         insert into public.folders values (1, null, 'root'), (2, 1, 'a'), (3, 1, 'b');
         create table public.people (name text primary key, city text);
         create view public.people_view as select * from public.people;
         create table public.badges (id int primary key, name text references public.people);
         insert into public.people values ('ada', 'Kinshasa'); insert into public.badges values (1, 'ada');
         grant select on public.folders, public.people, public.people_view, public.badges to anon;",
    )
    .await;
    let get = |path: &'static str| app.rest_req(Method::GET, path, None).send();
    let (status, body) =
        json_of(get("/folders?id=eq.1&select=name,folders(name)&folders.order=id").await.unwrap()).await;
    assert_eq!((status, body), (200, json!([{"name": "root", "folders": [{"name": "a"}, {"name": "b"}]}])));
    let (_, body) =
        json_of(get("/folders?id=eq.1&select=name,folders!parent_id(name)&folders.order=id").await.unwrap()).await;
    assert_eq!(body, json!([{"name": "root", "folders": [{"name": "a"}, {"name": "b"}]}]));
    // The parent, by the key's column.
    let (_, body) = json_of(get("/folders?id=eq.2&select=name,parent_id(name)").await.unwrap()).await;
    assert_eq!(body, json!([{"name": "a", "parent_id": {"name": "root"}}]));
    // `name` references people; people_view inherits that relationship; the table is meant.
    let (status, body) = json_of(get("/badges?select=id,name(city)").await.unwrap()).await;
    assert_eq!((status, body), (200, json!([{"id": 1, "name": {"city": "Kinshasa"}}])));
}

#[tokio::test]
async fn aggregates_group_by_the_columns_of_a_to_one_spread() {
    let app = spawn_app_with(|c| c.rest.aggregates_enabled = true).await;
    app.ddl(
        "create table public.kinds (id int primary key, label text);
         create table public.cars (id int primary key, kind_id int references public.kinds, price int);
         insert into public.kinds values (1, 'suv'), (2, 'van');
         insert into public.cars values (1, 1, 10), (2, 1, 20), (3, 2, 5);
         grant select on public.kinds, public.cars to anon;",
    )
    .await;
    let url = "/cars?select=price.sum(),...kinds(label)&order=kinds(label)";
    let (status, body) = json_of(app.rest_req(Method::GET, url, None).send().await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    let mut rows = body.as_array().cloned().unwrap_or_default();
    rows.sort_by_key(|r| r["label"].as_str().unwrap_or_default().to_string());
    assert_eq!(Value::Array(rows), json!([{"sum": 30, "label": "suv"}, {"sum": 5, "label": "van"}]));
    let (status, body) =
        json_of(app.rest_req(Method::GET, "/cars?select=count(),...kinds(*)", None).send().await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body.as_array().map(Vec::len), Some(2), "{body}");
}

#[tokio::test]
async fn the_plan_comes_as_text_or_json_with_explain_options() {
    let app = spawn_app_with(|c| c.rest.plan_enabled = true).await;
    app.ddl("create table public.p (id int); grant select on public.p to anon;").await;
    let plan = |accept: &'static str| app.rest_req(Method::GET, "/p", None).header("Accept", accept).send();
    let res = plan(r#"application/vnd.pgrst.plan+text; for="application/json""#).await.unwrap();
    assert_eq!(
        res.headers()["content-type"],
        r#"application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8"#
    );
    let text = res.text().await.unwrap();
    assert!(text.starts_with("Aggregate  (cost="), "{text}");
    let res = plan("application/vnd.pgrst.plan+json; options=verbose|settings").await.unwrap();
    let body: Value = res.json().await.unwrap();
    assert!(body[0]["Plan"]["Output"].is_array(), "VERBOSE lists each node's output: {body}");
    // The embedded cluster computes query identifiers, as Supabase's Postgres does.
    assert!(body[0]["Query Identifier"].is_i64(), "VERBOSE gives the query identifier: {body}");
}

#[tokio::test]
async fn geo_json_answers_a_feature_collection_of_the_rows() {
    let app = spawn_app().await;
    // Without PostGIS the media type is not offered, as in PostgREST.
    let (status, body) = json_of(
        app.rest_req(Method::GET, "/shops", None).header("Accept", "application/geo+json").send().await.unwrap(),
    )
    .await;
    assert_eq!((status, body["code"].clone()), (406, json!("PGRST107")));
    // PostGIS is not installed here: a stand-in `ST_AsGeoJSON(row)` shows what the server asks
    // of it (one feature per row) and how it wraps them.
    app.ddl(
        "create function public.st_asgeojson(anyelement) returns text language sql immutable as
           $$ select json_build_object('type', 'Feature', 'properties', to_json($1))::text $$;
         create table public.shops (id int primary key, address text);
         insert into public.shops values (1, '1 Avenue du Commerce');
         grant select on public.shops to anon;",
    )
    .await;
    let res = app
        .rest_req(Method::GET, "/shops?select=id,address", None)
        .header("Accept", "application/geo+json")
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["content-type"], "application/geo+json; charset=utf-8");
    let body: Value = res.json().await.unwrap();
    assert_eq!(
        body,
        json!({"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": {"id": 1, "address": "1 Avenue du Commerce"}}
        ]})
    );
}

#[tokio::test]
async fn a_variadic_parameter_takes_every_value_of_its_repeated_query_key() {
    let app = spawn_app().await;
    app.ddl("create function public.total(variadic n int[]) returns int language sql immutable as 'select sum(x)::int from unnest(n) x';")
        .await;
    let (status, body) = json_of(app.rest_req(Method::GET, "/rpc/total?n=1&n=2&n=3", None).send().await.unwrap()).await;
    assert_eq!((status, body), (200, json!(6)));
    let (_, body) = json_of(app.rest_req(Method::GET, "/rpc/total?n=4", None).send().await.unwrap()).await;
    assert_eq!(body, json!(4));
    let (_, body) =
        json_of(app.rest_req(Method::POST, "/rpc/total", None).json(&json!({"n": [5, 6]})).send().await.unwrap()).await;
    assert_eq!(body, json!(11));
}

#[tokio::test]
async fn an_offset_past_the_end_is_416_with_the_row_count_in_content_range() {
    let app = spawn_app().await;
    app.ddl(
        "create table public.few (n int); insert into public.few values (1), (2); grant select on public.few to anon;",
    )
    .await;
    let res = app.rest_req(Method::GET, "/few?offset=5", None).header("Prefer", "count=exact").send().await.unwrap();
    assert_eq!(res.status(), 416);
    assert_eq!(res.headers()["content-range"], "*/2");
}

#[tokio::test]
async fn request_cookies_are_given_to_sql_as_json() {
    let app = spawn_app().await;
    app.ddl("create function public.cookie_theme() returns text language sql stable as $$ select current_setting('request.cookies')::json->>'theme' $$;")
        .await;
    let res = app
        .rest_req(Method::GET, "/rpc/cookie_theme", None)
        .header("Cookie", "session=abc; theme=dark")
        .send()
        .await
        .unwrap();
    let (_, body) = json_of(res).await;
    assert_eq!(body, json!("dark"));
}

#[tokio::test]
async fn a_base64_jwt_secret_signs_with_its_decoded_bytes() {
    const RAW: &str = "a secret of at least thirty-two characters";
    let encoded = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(RAW)
    };
    let app = spawn_app_with(|c| {
        c.rest.jwt_secret = Some(secrecy::SecretString::from(encoded.clone()));
        c.rest.jwt_secret_is_base64 = true;
        c.rest.allow_no_apikey = true;
    })
    .await;
    let claims = json!({"role": "authenticated", "sub": ALICE, "exp": 4_000_000_000u64});
    let call = |token: String| app.http.get(format!("{}/rest/v1/rpc/whoami", app.address)).bearer_auth(token).send();
    app.ddl("create function public.whoami() returns text language sql stable as 'select current_user::text';").await;
    let res = call(crate::helpers::sign_with(RAW, claims.clone())).await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap(), json!("authenticated"));
    let res = call(crate::helpers::sign_with(&encoded, claims)).await.unwrap();
    assert_eq!(res.status(), 401, "the base64 text itself is not the key");
}

#[tokio::test]
async fn sql_sees_the_role_in_the_claims_even_without_a_token_or_a_role_claim() {
    let app = spawn_app_with(|c| c.rest.allow_no_apikey = true).await;
    app.ddl("create function public.claims() returns json language sql stable as $$ select current_setting('request.jwt.claims')::json $$;")
        .await;
    let res = app.http.get(format!("{}/rest/v1/rpc/claims", app.address)).send().await.unwrap();
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"role": "anon"}), "no token at all");
    let token = app.sign(json!({"sub": ALICE, "exp": 4_000_000_000u64}));
    let res = app.http.get(format!("{}/rest/v1/rpc/claims", app.address)).bearer_auth(token).send().await.unwrap();
    let claims: Value = res.json().await.unwrap();
    assert_eq!((claims["role"].as_str(), claims["sub"].as_str()), (Some("anon"), Some(ALICE)), "{claims}");
}

/// The names of the statements the request pool's connections prepared for `/rest/v1`
/// (`r<n>`, tokio-postgres names its own `s<n>`) whose text mentions `table`, per connection: every connection is held at
/// once, so each is asked.
async fn rest_statements_prepared(app: &TestApp, table: &str) -> Vec<Vec<String>> {
    let pool = &app.rest.request;
    let connections = every_connection(pool).await;
    let mut prepared = Vec::new();
    for client in &connections {
        let rows = client
            .query(
                "select name from pg_prepared_statements where name ~ '^r[0-9]+$' and statement like $1",
                &[&format!("%{table}%")],
            )
            .await
            .expect("pg_prepared_statements");
        prepared.push(rows.iter().map(|r| r.get(0)).collect());
    }
    prepared
}

#[tokio::test]
async fn a_read_is_prepared_once_per_connection_and_again_when_the_database_lost_it() {
    // Every read on the pool's connections, which the test then looks at.
    let app = notes_app_with(|c| c.db_shared_connections = 0).await;
    let alice = app.user_token(ALICE);
    let read = || async {
        json_of(app.rest_req(Method::GET, "/notes?select=body&id=eq.1", Some(&alice)).send().await.unwrap()).await
    };
    for _ in 0..5 {
        assert_eq!(read().await, (200, json!([{"body": "alice"}])));
    }
    let prepared = rest_statements_prepared(&app, "notes").await;
    assert!(prepared.iter().all(|names| names.len() <= 1), "prepared once per connection: {prepared:?}");
    assert!(prepared.iter().any(|names| names.len() == 1), "the read stays prepared: {prepared:?}");

    // Gone behind the server's back (a pooler moved the session, someone ran DEALLOCATE): the
    // next reads on those connections prepare it again instead of failing.
    {
        let pool = &app.rest.request;
        let connections = every_connection(pool).await;
        for client in &connections {
            let names = client
                .query("select name from pg_prepared_statements where name ~ '^r[0-9]+$'", &[])
                .await
                .expect("pg_prepared_statements");
            for name in names {
                client.batch_execute(&format!("DEALLOCATE {}", name.get::<_, String>(0))).await.expect("deallocate");
            }
        }
    }
    assert!(rest_statements_prepared(&app, "notes").await.iter().all(Vec::is_empty));
    for _ in 0..5 {
        assert_eq!(read().await, (200, json!([{"body": "alice"}])));
    }
    let again = rest_statements_prepared(&app, "notes").await;
    assert!(again.iter().any(|names| names.len() == 1), "prepared again: {again:?}");
    assert!(again.iter().all(|names| names.len() <= 1), "{again:?}");
}

/// A read reaches Postgres as one pipeline of statements prepared through the protocol (not SQL
/// `PREPARE`): the context as one `set_config` statement and the read, each prepared once on the
/// connection that ran it, with no `BEGIN` or `COMMIT` (the pipeline is its own transaction).
#[tokio::test]
async fn a_read_and_its_context_are_statements_prepared_on_the_connection() {
    let app = notes_app_with(one_pooled_connection).await;
    let alice = app.user_token(ALICE);
    for _ in 0..3 {
        let res = app.rest_req(Method::GET, "/notes?select=body&id=eq.1", Some(&alice)).send().await.unwrap();
        assert_eq!(res.status().as_u16(), 200);
    }
    let client = app.rest.request.get().await.expect("the pool's connection");
    let rows = client
        .query(
            "select statement, from_sql from pg_prepared_statements where name ~ '^r[0-9]+$' order by statement",
            &[],
        )
        .await
        .expect("pg_prepared_statements");
    let statements: Vec<(String, bool)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert!(statements.iter().all(|(_, from_sql)| !from_sql), "{statements:?}");
    let has = |start: &str| statements.iter().filter(|(text, _)| text.starts_with(start)).count();
    assert_eq!(has("BEGIN"), 0, "{statements:?}");
    assert_eq!(has("COMMIT"), 0, "{statements:?}");
    assert_eq!(has("select set_config('role',$1,true)"), 1, "{statements:?}");
    assert_eq!(statements.iter().filter(|(text, _)| text.contains("\"notes\"")).count(), 1, "{statements:?}");
    assert_eq!(statements.len(), 2, "{statements:?}");
}

/// Without `BEGIN` and `COMMIT`, a request's statements are still one transaction: a read cannot
/// write, what the pre-request call wrote is rolled back with a statement that fails and kept with
/// one that succeeds, and nothing of a request (role, claims, read-only) outlives it on its
/// connection.
#[tokio::test]
async fn a_requests_pipeline_is_one_transaction_that_ends_with_it() {
    let app = spawn_app_with(|c| {
        one_pooled_connection(c);
        c.rest.pre_request = Some("public.log_request".into());
    })
    .await;
    app.ddl(
        "create table public.t (id int primary key);
         create table public.request_log (method text, role text);
         grant insert on public.request_log to anon;
         create function public.log_request() returns void language plpgsql as $$
         begin
           if current_setting('request.method') <> 'GET' then
             insert into public.request_log values (current_setting('request.method'), current_user);
           end if;
         end $$;
         create function public.bump() returns int language sql volatile as
           'insert into public.t values (100) returning id';",
    )
    .await;
    let logged =
        || async { app.admin_query_one("select count(*)::int from public.request_log").await.get::<_, i32>(0) };

    let (status, body) = json_of(app.rest_req(Method::GET, "/rpc/bump", None).send().await.unwrap()).await;
    assert_eq!(body["code"], "25006", "a GET runs read-only: {status} {body}");

    let res = app.rest_req(Method::POST, "/t", None).json(&json!({"id": 1})).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 201);
    assert_eq!(logged().await, 1, "the pre-request's write commits with the statement");

    let (status, body) =
        json_of(app.rest_req(Method::POST, "/t", None).json(&json!({"id": 1})).send().await.unwrap()).await;
    assert_eq!((status, body["code"].clone()), (409, json!("23505")), "{body}");
    assert_eq!(logged().await, 1, "the pre-request's write is rolled back with the failed insert");

    let (status, body) = json_of(app.rest_req(Method::GET, "/t", None).send().await.unwrap()).await;
    assert_eq!((status, body), (200, json!([{"id": 1}])), "the connection is usable after the error");

    let alice = app.user_token(ALICE);
    let res = app.rest_req(Method::POST, "/t", Some(&alice)).json(&json!({"id": 2})).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 201);
    let last = app.admin_query_one("select string_agg(role, ',') from public.request_log").await;
    assert_eq!(last.get::<_, String>(0), "anon,authenticated", "each write ran as its caller");
    let client = app.rest.request.get().await.expect("the pool's only connection");
    let row = client
        .query_one(
            "select current_user::text, coalesce(current_setting('request.jwt.claims', true), ''), \
             current_setting('transaction_read_only')",
            &[],
        )
        .await
        .expect("the connection after the requests is not in a failed transaction");
    let facts: (String, String, String) = (row.get(0), row.get(1), row.get(2));
    assert!(!["anon", "authenticated"].contains(&facts.0.as_str()), "the role is the request's only: {facts:?}");
    assert_eq!((facts.1.as_str(), facts.2.as_str()), ("", "off"), "{facts:?}");
}

/// One connection in the request pool and none shared ([`server::db::lanes`]), so that every
/// request runs on the connection a test looks at.
fn one_pooled_connection(c: &mut server::config::Config) {
    c.db_pool_size = 1;
    c.db_shared_connections = 0;
}

/// An app whose request pool has one connection, where `Prefer: tx=rollback` is honoured.
async fn one_connection_allowing_tx_rollback() -> TestApp {
    spawn_app_with(|c| {
        one_pooled_connection(c);
        c.rest.tx_end = "commit-allow-override".into();
    })
    .await
}

/// A connection left in a failed transaction block (a `Prefer: tx=rollback` request whose future
/// is dropped before Postgres answers it with an error cannot roll back) is rolled back by the
/// next request that gets it, which then runs as if nothing had happened: a read, a write, and a
/// request that opens its own transaction.
#[tokio::test]
async fn a_connection_left_in_a_failed_transaction_is_rolled_back_by_the_next_request() {
    let app = one_connection_allowing_tx_rollback().await;
    app.ddl("create table public.t (id int primary key);").await;
    let requests = [
        (Method::GET, None, None, 200, json!([])),
        (Method::POST, Some(json!({"id": 1})), None, 201, json!([{"id": 1}])),
        (Method::POST, Some(json!({"id": 2})), Some("tx=rollback, return=representation"), 201, json!([{"id": 2}])),
    ];
    for (method, body, prefer, status, answer) in requests {
        let client = app.rest.request.get().await.expect("the pool's only connection");
        client.batch_execute("BEGIN; SELECT 1/0").await.expect_err("division by zero");
        let stuck = client.simple_query("select 1").await.expect_err("the transaction is failed");
        assert_eq!(stuck.code().map(|c| c.code()), Some("25P02"));
        drop(client);
        let mut req = app.rest_req(method.clone(), "/t", None);
        if let Some(body) = body {
            req = req.json(&body);
        }
        let prefer = prefer.unwrap_or("return=representation");
        let (got_status, got) = json_of(req.header("Prefer", prefer).send().await.unwrap()).await;
        assert_eq!((got_status, got), (status, answer), "{method} with {prefer}");
    }
    let (_, rows) = json_of(app.rest_req(Method::GET, "/t", None).send().await.unwrap()).await;
    assert_eq!(rows, json!([{"id": 1}]), "the insert committed, the rolled-back one did not");
    let client = app.rest.request.get().await.expect("connection");
    client.simple_query("select 1").await.expect("the connection is out of the failed transaction");
}

/// A `Prefer: tx=rollback` request whose client gives up while Postgres is still working, and
/// whose statement then fails, leaves nothing behind for the next user of its connection, even
/// one that opens its own transaction (storage, realtime): actix runs the handler to its end
/// although the client has gone, so the request rolls back its own failed transaction.
#[tokio::test]
async fn a_client_that_gives_up_leaves_no_failed_transaction_on_the_connection() {
    use server::db::context::{self, Access, Caller, RequestInfo};
    let app = one_connection_allowing_tx_rollback().await;
    app.ddl(
        "create function public.slow_fail() returns int language plpgsql as $$
         begin perform pg_sleep(0.6); raise exception 'too late'; end $$;",
    )
    .await;
    let gave_up = app
        .rest_req(Method::POST, "/rpc/slow_fail", None)
        .header("Prefer", "tx=rollback")
        .json(&json!({}))
        .timeout(std::time::Duration::from_millis(200))
        .send()
        .await;
    assert!(gave_up.is_err_and(|e| e.is_timeout()), "the client gives up first");
    // Once Postgres has seen the call (running, or rolled back after it), the handler holds the
    // pool's only connection or has given it back: taking it then waits for the handler's end.
    let seen = "select exists (select 1 from pg_stat_activity where datname = current_database() \
                and usename = 'authenticator' and (query like '%slow_fail%' or query = 'ROLLBACK'))";
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !app.admin_query_one(seen).await.get::<_, bool>(0) {
        assert!(std::time::Instant::now() < deadline, "the call never reached Postgres");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let mut client = app.rest.request.get().await.expect("the pool's only connection");
    let caller = Caller { role: "anon".into(), claims: std::sync::Arc::new(json!({"role": "anon"})) };
    let info = RequestInfo { method: "GET".into(), path: "/t".into(), headers: json!({}), settings: vec![] };
    let tx = context::begin(&mut client, &caller, &info, Access::ReadOnly)
        .await
        .expect("a transaction begins on the connection the dropped request used");
    let row = tx.query_one("select current_user::text", &[]).await.expect("query");
    assert_eq!(row.get::<_, String>(0), "anon");
    tx.commit().await.expect("commit");
}

/// A NUL byte cannot travel in a Postgres message as text: in a filter's value or a column's name
/// it is refused with a client error, and the connection it would have gone on keeps working.
#[tokio::test]
async fn a_nul_byte_in_a_request_is_refused_and_the_connection_stays_usable() {
    let app = notes_app_with(one_pooled_connection).await;
    let alice = app.user_token(ALICE);
    for path in ["/notes?select=body&id=eq.1%00", "/notes?select=bo%00dy&id=eq.1", "/notes?select=body&body=eq.a%00b"] {
        let res = app.rest_req(Method::GET, path, Some(&alice)).send().await.unwrap();
        let status = res.status().as_u16();
        let body: Value = res.json().await.unwrap();
        assert!((400..500).contains(&status), "{path}: {status} {body}");
        assert!(body["code"].is_string() && body["message"].is_string(), "{path}: {body}");
        let again =
            json_of(app.rest_req(Method::GET, "/notes?select=body&id=eq.1", Some(&alice)).send().await.unwrap()).await;
        assert_eq!(again, (200, json!([{"body": "alice"}])), "after {path}");
    }
}

/// PGRST201 lists the candidate relationships in the order their constraints were made, as
/// PostgREST does (postgrest-js's suite expects it), not in the order the catalog happens to
/// store them: here the last foreign key is stored first, in space a dropped table left.
#[tokio::test]
async fn an_ambiguous_embedding_lists_its_relationships_in_the_order_they_were_made() {
    let app = notes_app().await;
    app.admin_sql(
        "create table public.filler (x int);
         do $$ begin for i in 1..200 loop
           execute format('alter table public.filler add constraint filler_%s check (x > %s)', i, -i);
         end loop; end $$;
         create table public.people (id int primary key);
         create table public.trio (id int primary key,
           first_id int constraint trio_first_fkey references public.people,
           second_id int constraint trio_second_fkey references public.people,
           third_id int);
         drop table public.filler;",
    )
    .await;
    app.admin_sql("vacuum pg_catalog.pg_constraint").await;
    app.ddl("alter table public.trio add constraint trio_third_fkey foreign key (third_id) references public.people")
        .await;
    let stored = app
        .admin_query_one(
            "select array_agg(conname::text order by ctid) from pg_constraint \
             where conrelid = 'public.trio'::regclass and contype = 'f'",
        )
        .await
        .get::<_, Vec<String>>(0);
    assert_eq!(stored[0], "trio_third_fkey", "the catalog stores the last key first: {stored:?}");

    let (status, body) =
        json_of(app.rest_req(Method::GET, "/trio?select=people(id)", Some(&app.service_key)).send().await.unwrap())
            .await;
    assert_eq!((status, body["code"].as_str()), (300, Some("PGRST201")), "{body}");
    let names: Vec<&str> = body["details"]
        .as_array()
        .expect("details")
        .iter()
        .map(|d| d["relationship"].as_str().unwrap().split(' ').next().unwrap())
        .collect();
    assert_eq!(names, ["trio_first_fkey", "trio_second_fkey", "trio_third_fkey"], "{body}");
}

/// pg_stat_statements keys a utility statement by its text, so context statements with the
/// request's values as literals (claims, headers, request id) would add new entries: a write to
/// its text file each and, every few hundred requests, an eviction pass over all of them. The
/// context is one statement with parameters, counted under one entry like the read.
#[tokio::test]
async fn a_request_adds_no_statistics_entry_of_its_own_while_its_statement_is_counted() {
    let app = notes_app().await;
    let db = crate::helpers::connect_with_statements(&app.db_url).await;
    for token in [app.user_token(ALICE), app.user_token(BOB)] {
        for _ in 0..3 {
            let res = app.rest_req(Method::GET, "/notes?select=body&id=eq.1", Some(&token)).send().await.unwrap();
            assert_eq!(res.status().as_u16(), 200);
        }
    }
    let counted = |pattern: &'static str| {
        let db = &db;
        async move {
            db.query_one(
                "select count(*), coalesce(sum(calls), 0)::bigint from pg_stat_statements s \
                 join pg_database d on d.oid = s.dbid \
                 where d.datname = current_database() and s.query like $1 \
                   and s.userid in (select oid from pg_roles where rolname in ('authenticator', 'authenticated'))",
                &[&pattern],
            )
            .await
            .map(|row| (row.get::<_, i64>(0), row.get::<_, i64>(1)))
            .expect("pg_stat_statements")
        }
    };
    assert_eq!(counted("SET LOCAL%").await, (0, 0), "no context statement with literals");
    assert_eq!(counted("BEGIN%").await.0, 0, "nor is the transaction control");
    let (entries, calls) = counted("select set_config('role'%").await;
    assert_eq!(entries, 1, "one entry for the context, whoever asked");
    assert!(calls >= 6, "every request's context is counted under it: {calls}");
    let (entries, calls) = counted("%\"notes\"%").await;
    assert_eq!(entries, 1, "one entry for the read, whoever asked");
    assert!(calls >= 6, "every execution is counted under it: {calls}");
}

#[tokio::test]
async fn a_connection_keeps_a_bounded_number_of_rest_statements_prepared() {
    // One request connection, so that every statement lands on it.
    let app = notes_app_with(one_pooled_connection).await;
    let alice = app.user_token(ALICE);
    // Every alias makes another statement text.
    for i in 0..260 {
        let path = format!("/notes?select=a{i}:body&id=eq.1");
        let (status, body) = json_of(app.rest_req(Method::GET, &path, Some(&alice)).send().await.unwrap()).await;
        assert_eq!((status, body), (200, json!([{ format!("a{i}"): "alice" }])));
    }
    let prepared = rest_statements_prepared(&app, "notes").await;
    let total: usize = prepared.iter().map(Vec::len).sum();
    assert!(prepared.iter().all(|names| names.len() < 200), "{:?}", prepared.iter().map(Vec::len).collect::<Vec<_>>());
    assert!(total > 0, "statements stay prepared below the bound");
}

#[tokio::test]
async fn an_empty_bearer_token_is_401_pgrst301_with_the_challenge_on_rest_and_refused_on_storage() {
    let app = spawn_app().await;
    app.ddl("create table public.hidden_rows (id int); revoke all on public.hidden_rows from anon;").await;
    // `Bearer ` with the trailing space, and a bare `Bearer`: both carry an empty token
    for value in ["Bearer ", "Bearer", "bearer    "] {
        let res = app
            .http
            .get(format!("{}/rest/v1/hidden_rows", app.address))
            .header("apikey", &app.anon_key)
            .header("authorization", value)
            .send()
            .await
            .unwrap();
        let challenge = res.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_string());
        let (status, body) = json_of(res).await;
        assert_eq!(status, 401, "{value:?}: {body}");
        assert_eq!(body["code"], "PGRST301", "{value:?}: {body}");
        assert_eq!(body["message"], "Empty JWT is sent in Authorization header");
        assert_eq!(
            challenge.as_deref(),
            Some("Bearer error=\"invalid_token\", error_description=\"Empty JWT is sent in Authorization header\"")
        );
    }
    let res = app
        .http
        .get(format!("{}/storage/v1/bucket", app.address))
        .header("apikey", &app.anon_key)
        .header("authorization", "Bearer ")
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(res).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["message"], "Invalid Compact JWS");
}

#[tokio::test]
async fn missing_default_gives_a_typed_null_to_a_column_without_a_default() {
    let app = spawn_app().await;
    app.ddl(
        "create table public.counts (id int generated by default as identity primary key, n bigint, at timestamptz, tag text);
         grant select, insert on public.counts to anon;",
    )
    .await;
    let res = app
        .rest_req(Method::POST, "/counts?columns=n,at,tag&select=n,at,tag&order=tag", None)
        .header("Prefer", "missing=default, return=representation")
        .json(&json!([{"n": 5, "tag": "a"}, {"tag": "b"}]))
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(res).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body, json!([{"n": 5, "at": null, "tag": "a"}, {"n": null, "at": null, "tag": "b"}]));
}

#[tokio::test]
async fn put_with_limit_or_offset_is_pgrst114() {
    let app = spawn_app().await;
    app.ddl("create table public.singles (id int primary key, v text); grant all on public.singles to anon;").await;
    for query in ["/singles?id=eq.1&limit=1", "/singles?id=eq.1&offset=0", "/singles?limit=1"] {
        let res = app.rest_req(Method::PUT, query, None).json(&json!({"id": 1, "v": "a"})).send().await.unwrap();
        let (status, body) = json_of(res).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(body["code"], "PGRST114", "{query}: {body}");
        assert_eq!(body["message"], "limit/offset querystring parameters are not allowed for PUT");
    }
    let res =
        app.rest_req(Method::PUT, "/singles?id=eq.1", None).json(&json!({"id": 1, "v": "a"})).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 204, "without them the PUT is done");
}
