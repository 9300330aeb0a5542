//! What `/rest/v1` puts around a body, as PostgREST does: the `response.headers` and
//! `response.status` settings SQL makes, each write's status, `Content-Range` and `Location`,
//! `Prefer: timezone`, `Server-Timing`, CORS origins, and which query-string values of a GET to
//! `/rpc` are arguments.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{json_of, spawn_app, spawn_app_with, TestApp};

fn header(res: &reqwest::Response, name: &str) -> Option<String> {
    res.headers().get(name).map(|v| v.to_str().expect("a text header").to_string())
}

async fn items_app() -> TestApp {
    let app = spawn_app().await;
    app.ddl(
        "create table public.items (id int primary key, name text);
         grant select, insert, update, delete on public.items to anon;
         insert into public.items values (1, 'one'), (2, 'two');
         create table public.logs (line text);
         grant select, insert on public.logs to anon;
         create function public.set_cookie() returns trigger language plpgsql as $$
         begin
           perform set_config('response.headers', '[{\"Set-Cookie\": \"a=1\"}, {\"Set-Cookie\": \"b=2\"}, {\"X-Item\": \"' || new.id || '\"}]', true);
           return new;
         end $$;
         create trigger items_cookie before insert on public.items for each row execute function public.set_cookie();
         create function public.teapot() returns int language plpgsql as $$
         begin
           perform set_config('response.status', '418', true);
           perform set_config('response.headers', '[{\"Cache-Control\": \"max-age=60\"}, {\"Content-Range\": \"mine\"}]', true);
           return 7;
         end $$;
         create function public.gone() returns void language plpgsql as $$
         begin perform set_config('response.status', '410', true); end $$;
         create function public.bad_status() returns int language plpgsql as $$
         begin perform set_config('response.status', 'teapot', true); return 1; end $$;
         create function public.bad_headers() returns int language plpgsql as $$
         begin perform set_config('response.headers', '{\"X-Not\": \"an array\"}', true); return 1; end $$;
         create function public.two_keys() returns int language plpgsql as $$
         begin perform set_config('response.headers', '[{\"A\": \"1\", \"B\": \"2\"}]', true); return 1; end $$;
         create function public.redirecting_rows() returns setof public.items language plpgsql as $$
         begin
           perform set_config('response.status', '202', true);
           perform set_config('response.headers', '[{\"X-Source\": \"function\"}]', true);
           return query select * from public.items order by id;
         end $$;",
    )
    .await;
    app
}

#[tokio::test]
async fn sql_sets_the_status_and_headers_of_rpc_answers_through_response_settings() {
    let app = items_app().await;
    let res = app.rest_req(Method::POST, "/rpc/teapot", None).json(&json!({})).send().await.unwrap();
    assert_eq!(res.status(), 418);
    assert_eq!(header(&res, "cache-control").as_deref(), Some("max-age=60"));
    assert_eq!(header(&res, "content-range").as_deref(), Some("mine"), "a setting replaces our header of that name");
    assert_eq!(res.json::<Value>().await.unwrap(), json!(7));

    let res = app.rest_req(Method::POST, "/rpc/gone", None).send().await.unwrap();
    assert_eq!(res.status(), 410, "a void function's status too");

    let res = app.rest_req(Method::GET, "/rpc/redirecting_rows?select=id", None).send().await.unwrap();
    let status = res.status();
    assert_eq!(status, 202);
    assert_eq!(header(&res, "x-source").as_deref(), Some("function"));
    assert_eq!(res.json::<Value>().await.unwrap(), json!([{"id": 1}, {"id": 2}]));
}

#[tokio::test]
async fn malformed_response_settings_are_pgrst111_and_pgrst112() {
    let app = items_app().await;
    for (function, code) in [("bad_status", "PGRST112"), ("bad_headers", "PGRST111"), ("two_keys", "PGRST111")] {
        let (status, body) =
            json_of(app.rest_req(Method::POST, &format!("/rpc/{function}"), None).send().await.unwrap()).await;
        assert_eq!((status, body["code"].as_str()), (500, Some(code)), "{function}: {body}");
    }
}

#[tokio::test]
async fn a_trigger_can_set_headers_of_a_write_and_repeated_names_are_all_sent() {
    let app = items_app().await;
    let res = app.rest_req(Method::POST, "/items", None).json(&json!({"id": 3, "name": "three"})).send().await.unwrap();
    assert_eq!(res.status(), 201);
    let cookies: Vec<&str> = res.headers().get_all("set-cookie").iter().map(|v| v.to_str().unwrap()).collect();
    assert_eq!(cookies, ["a=1", "b=2"]);
    assert_eq!(header(&res, "x-item").as_deref(), Some("3"));
}

#[tokio::test]
async fn writes_answer_postgrest_statuses_content_range_and_location() {
    let app = items_app().await;
    // An insert gives no range, only the count when asked.
    let res = app.rest_req(Method::POST, "/items", None).json(&json!([{"id": 10}, {"id": 11}])).send().await.unwrap();
    assert_eq!((res.status().as_u16(), header(&res, "content-range")), (201, Some("*/*".into())));
    assert_eq!(header(&res, "location"), None, "return=minimal sends no Location");
    let res = app
        .rest_req(Method::POST, "/items", None)
        .header("Prefer", "count=exact")
        .json(&json!([{"id": 12}, {"id": 13}]))
        .send()
        .await
        .unwrap();
    assert_eq!(header(&res, "content-range").as_deref(), Some("*/2"));

    // return=headers-only: the new row's primary key in Location.
    let res = app
        .rest_req(Method::POST, "/items", None)
        .header("Prefer", "return=headers-only")
        .json(&json!({"id": 20, "name": "a b"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    assert_eq!(header(&res, "location").as_deref(), Some("/items?id=eq.20"));
    assert_eq!(res.text().await.unwrap(), "");

    // An update gives the range of the rows it changed.
    let res =
        app.rest_req(Method::PATCH, "/items?id=in.(10,11,12)", None).json(&json!({"name": "x"})).send().await.unwrap();
    assert_eq!((res.status().as_u16(), header(&res, "content-range")), (204, Some("0-2/*".into())));
    let res = app
        .rest_req(Method::PATCH, "/items?id=eq.999", None)
        .header("Prefer", "count=exact")
        .json(&json!({"name": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(header(&res, "content-range").as_deref(), Some("*/0"));

    // A delete, like an insert, gives no range.
    let res = app
        .rest_req(Method::DELETE, "/items?id=in.(10,11)", None)
        .header("Prefer", "return=representation")
        .send()
        .await
        .unwrap();
    assert_eq!((res.status().as_u16(), header(&res, "content-range")), (200, Some("*/*".into())));

    // PUT: 201 when it created the row, 200 when it replaced it; no Content-Range.
    let put = |id: i32| {
        app.rest_req(Method::PUT, &format!("/items?id=eq.{id}"), None)
            .header("Prefer", "return=representation")
            .json(&json!({"id": id, "name": "put"}))
            .send()
    };
    let res = put(30).await.unwrap();
    assert_eq!((res.status().as_u16(), header(&res, "content-range")), (201, None));
    let res = put(30).await.unwrap();
    assert_eq!(res.status(), 200);
}

#[tokio::test]
async fn an_upsert_that_only_updated_answers_200_with_any_return_preference() {
    let app = items_app().await;
    for prefer in ["resolution=merge-duplicates", "resolution=merge-duplicates, return=representation"] {
        let upsert = |id: i32| {
            app.rest_req(Method::POST, "/items", None)
                .header("Prefer", prefer)
                .json(&json!({"id": id, "name": "u"}))
                .send()
        };
        assert_eq!(upsert(1).await.unwrap().status(), 200, "{prefer}: row 1 existed");
        let id = if prefer.contains("representation") { 41 } else { 40 };
        assert_eq!(upsert(id).await.unwrap().status(), 201, "{prefer}: row {id} is new");
    }
}

#[tokio::test]
async fn prefer_timezone_sets_the_sessions_time_zone_when_postgres_knows_it() {
    let app = spawn_app().await;
    app.ddl(
        "create table public.events (id int, at timestamptz);
         insert into public.events values (1, '2026-01-01 12:00:00+00');
         grant select on public.events to anon;",
    )
    .await;
    let get =
        |prefer: &'static str| app.rest_req(Method::GET, "/events?select=at", None).header("Prefer", prefer).send();
    let res = get("timezone=Africa/Kinshasa").await.unwrap();
    assert_eq!(header(&res, "preference-applied").as_deref(), Some("timezone=Africa/Kinshasa"));
    assert_eq!(res.json::<Value>().await.unwrap(), json!([{"at": "2026-01-01T13:00:00+01:00"}]));

    let res = get("timezone=Mars/Olympus_Mons").await.unwrap();
    assert_eq!(header(&res, "preference-applied"), None, "an unknown zone is ignored");
    assert_eq!(res.json::<Value>().await.unwrap(), json!([{"at": "2026-01-01T12:00:00+00:00"}]));

    let (status, body) = json_of(get("handling=strict, timezone=Mars/Olympus_Mons").await.unwrap()).await;
    assert_eq!((status, body["code"].as_str()), (400, Some("PGRST122")), "{body}");
}

#[tokio::test]
async fn server_timing_lists_each_phase_when_enabled() {
    let app = spawn_app_with(|c| c.rest.server_timing = true).await;
    app.ddl("create table public.t (id int); grant select, insert on public.t to anon;").await;
    let res = app.rest_req(Method::GET, "/t", None).send().await.unwrap();
    let timing = header(&res, "server-timing").expect("Server-Timing");
    let phases: Vec<&str> = timing.split(", ").map(|p| p.split(";dur=").next().unwrap()).collect();
    assert_eq!(phases, ["jwt", "parse", "plan", "transaction", "response"], "{timing}");
    for part in timing.split(", ") {
        let ms: f64 = part.split(";dur=").nth(1).unwrap().parse().unwrap();
        assert!(ms >= 0.0, "{timing}");
    }
    let res = app.rest_req(Method::POST, "/t", None).json(&json!({"id": 1})).send().await.unwrap();
    assert!(header(&res, "server-timing").is_some());

    let plain = spawn_app().await;
    plain.ddl("create table public.t (id int); grant select on public.t to anon;").await;
    let res = plain.rest_req(Method::GET, "/t", None).send().await.unwrap();
    assert_eq!(header(&res, "server-timing"), None, "off by default");
}

#[tokio::test]
async fn cors_allowed_origins_echo_a_listed_origin_and_leave_others_without_cors_headers() {
    let app = spawn_app_with(|c| c.cors_allowed_origins = vec!["https://location.example".into()]).await;
    app.ddl("create table public.t (id int); grant select on public.t to anon;").await;
    let res = app.rest_req(Method::GET, "/t", None).header("Origin", "https://location.example").send().await.unwrap();
    assert_eq!(header(&res, "access-control-allow-origin").as_deref(), Some("https://location.example"));
    let res = app.rest_req(Method::GET, "/t", None).header("Origin", "https://evil.example").send().await.unwrap();
    assert_eq!(res.status(), 200, "a client outside a browser is not refused");
    assert_eq!(header(&res, "access-control-allow-origin"), None);

    let open = spawn_app().await;
    let res = open.rest_req(Method::GET, "/", None).header("Origin", "https://any.example").send().await.unwrap();
    assert_eq!(header(&res, "access-control-allow-origin").as_deref(), Some("*"), "any origin by default");
}

#[tokio::test]
async fn on_a_get_to_rpc_values_with_an_operator_filter_the_result_and_the_others_are_arguments() {
    let app = items_app().await;
    app.ddl(
        "create function public.named(prefix text) returns setof public.items language sql stable as
           $$ select * from public.items where name like prefix || '%' $$;",
    )
    .await;
    let (status, body) =
        json_of(app.rest_req(Method::GET, "/rpc/named?prefix=t&select=id", None).send().await.unwrap()).await;
    assert_eq!((status, body), (200, json!([{"id": 2}])));
    let (_, body) =
        json_of(app.rest_req(Method::GET, "/rpc/named?prefix=&id=gt.1&select=id", None).send().await.unwrap()).await;
    assert_eq!(body, json!([{"id": 2}]), "id=gt.1 filters the rows the function returned");

    // An argument the function does not take: PGRST202, as PostgREST answers.
    let (status, body) =
        json_of(app.rest_req(Method::GET, "/rpc/named?prefix=t&colour=red", None).send().await.unwrap()).await;
    assert_eq!((status, body["code"].as_str()), (404, Some("PGRST202")), "{body}");
    assert!(body["message"].as_str().unwrap().contains("public.named(colour, prefix)"), "{body}");
}

#[tokio::test]
async fn the_root_answers_an_openapi_json_accept() {
    let app = spawn_app().await;
    let res = app.rest_req(Method::GET, "/", None).header("Accept", "application/openapi+json").send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert!(header(&res, "content-type").unwrap().starts_with("application/openapi+json"));
    let doc: Value = res.json().await.unwrap();
    assert_eq!(doc["swagger"], "2.0");
}

#[tokio::test]
async fn reads_carry_their_canonical_content_location() {
    let app = items_app().await;
    let res = app.rest_req(Method::GET, "/items?select=id,name&id=gt.0&order=id", None).send().await.unwrap();
    assert_eq!(header(&res, "content-location").as_deref(), Some("/items?id=gt.0&order=id&select=id%2Cname"));
    let res = app.rest_req(Method::GET, "/items", None).send().await.unwrap();
    assert_eq!(header(&res, "content-location").as_deref(), Some("/items"));
}

#[tokio::test]
async fn a_role_that_may_only_insert_still_inserts_with_return_minimal() {
    // The statement counts the rows it wrote with `RETURNING 1`, which needs no SELECT right or
    // policy: a contact form's drop box stays write-only.
    let app = spawn_app().await;
    app.ddl(
        "create table public.drop_box (id serial primary key, note text);
         alter table public.drop_box enable row level security;
         create policy drop_in on public.drop_box for insert to anon with check (true);
         revoke all on public.drop_box from anon;
         grant insert on public.drop_box to anon;
         grant usage on sequence public.drop_box_id_seq to anon;",
    )
    .await;
    let res = app.rest_req(Method::POST, "/drop_box", None).json(&json!({"note": "bonjour"})).send().await.unwrap();
    assert_eq!(res.status(), 201, "{:?}", res.text().await);
    let res = app
        .rest_req(Method::POST, "/drop_box", None)
        .header("Prefer", "return=representation")
        .json(&json!({"note": "lu ?"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401, "reading the row back needs SELECT: {:?}", res.text().await);
}
