//! Request bodies `/rest/v1` reads as PostgREST does: CSV and form bodies, arrays on every write
//! (PATCH takes the first object, PUT exactly one), upserts on a table without a primary key,
//! and arrays of argument objects calling a function once per object.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{json_of, spawn_app, TestApp};

async fn app() -> TestApp {
    let app = spawn_app().await;
    app.ddl(
        "create table public.cars (id int primary key, model text, seats int, note text);
         create table public.readings (sensor text, value int);
         grant select, insert, update, delete on public.cars, public.readings to anon;
         insert into public.cars values (1, 'Prado', 7, null), (2, 'Hilux', 5, null);
         create function public.double(n int) returns int language sql immutable as 'select n * 2';
         create function public.seats_over(n int) returns setof public.cars language sql stable
           as 'select * from public.cars where seats > n order by id';
         create function public.log_reading(sensor text, value int) returns void language sql
           as 'insert into public.readings values (sensor, value)';
         create function public.upto(n int) returns setof int language sql immutable as 'select generate_series(1, n)';",
    )
    .await;
    app
}

async fn rows(app: &TestApp, path: &str) -> Value {
    json_of(app.rest_req(Method::GET, path, None).send().await.expect("read back")).await.1
}

#[tokio::test]
async fn csv_and_form_bodies_insert_rows() {
    let app = app().await;
    let res = app
        .rest_req(Method::POST, "/cars", None)
        .header("Content-Type", "text/csv")
        .body("id,model,seats,note\n10,\"Land Cruiser, V8\",8,NULL\n11,Corolla,5,\n")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201, "{:?}", res.text().await);
    assert_eq!(
        rows(&app, "/cars?id=gte.10&order=id").await,
        json!([
            {"id": 10, "model": "Land Cruiser, V8", "seats": 8, "note": null},
            {"id": 11, "model": "Corolla", "seats": 5, "note": ""}
        ])
    );
    let (status, body) = json_of(
        app.rest_req(Method::POST, "/cars", None)
            .header("Content-Type", "text/csv")
            .body("id,model\n12\n")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, body["message"].as_str()), (400, Some("All lines must have same number of fields")));

    let res = app
        .rest_req(Method::POST, "/cars", None)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("id=20&model=Land+Rover&seats=5")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    assert_eq!(rows(&app, "/cars?id=eq.20&select=model").await, json!([{"model": "Land Rover"}]));

    let (status, body) = json_of(
        app.rest_req(Method::POST, "/cars", None)
            .header("Content-Type", "application/xml")
            .body("<car/>")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, body["message"].as_str()), (400, Some("Content-Type not acceptable: application/xml")));
}

#[tokio::test]
async fn patch_takes_an_array_bodys_first_object_and_put_exactly_one() {
    let app = app().await;
    let res = app
        .rest_req(Method::PATCH, "/cars?id=eq.1", None)
        .json(&json!([{"seats": 6}, {"seats": 9}]))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    assert_eq!(rows(&app, "/cars?id=eq.1&select=seats").await, json!([{"seats": 6}]));

    let put = |body: Value| app.rest_req(Method::PUT, "/cars?id=eq.2", None).json(&body).send();
    let res = put(json!([{"id": 2, "model": "Hilux GR", "seats": 5, "note": null}])).await.unwrap();
    assert_eq!(res.status(), 204);
    assert_eq!(rows(&app, "/cars?id=eq.2&select=model").await, json!([{"model": "Hilux GR"}]));
    let (status, body) = json_of(
        put(json!([{"id": 2, "model": "a", "seats": 1, "note": null}, {"id": 2, "model": "b", "seats": 1, "note": null}]))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (400, Some("PGRST115")));
}

#[tokio::test]
async fn merge_duplicates_on_a_table_without_a_primary_key_is_a_plain_insert() {
    let app = app().await;
    let res = app
        .rest_req(Method::POST, "/readings", None)
        .header("Prefer", "resolution=merge-duplicates")
        .json(&json!([{"sensor": "a", "value": 1}, {"sensor": "a", "value": 1}]))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201, "{:?}", res.text().await);
    assert_eq!(rows(&app, "/readings?select=value").await, json!([{"value": 1}, {"value": 1}]));
}

#[tokio::test]
async fn an_array_of_argument_objects_calls_the_function_once_per_object() {
    let app = app().await;
    let call = |name: &str, body: Value| app.rest_req(Method::POST, &format!("/rpc/{name}"), None).json(&body).send();

    // Rows: every call's rows together.
    let (status, body) = json_of(call("seats_over", json!([{"n": 6}, {"n": 4}])).await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    let ids: Vec<i64> = body.as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [1, 1, 2]);
    let (_, body) = json_of(call("upto", json!([{"n": 2}, {"n": 3}])).await.unwrap()).await;
    assert_eq!(body, json!([1, 2, 1, 2, 3]));

    // A single value: each call runs, the first result answers.
    let (_, body) = json_of(call("double", json!([{"n": 21}, {"n": 5}])).await.unwrap()).await;
    assert_eq!(body, json!(42));

    // A void function: each call runs.
    let res = call("log_reading", json!([{"sensor": "x", "value": 1}, {"sensor": "y", "value": 2}])).await.unwrap();
    assert_eq!(res.status(), 204);
    assert_eq!(rows(&app, "/readings?select=sensor&order=sensor").await, json!([{"sensor": "x"}, {"sensor": "y"}]));

    // Objects must share their keys.
    let (status, body) = json_of(call("double", json!([{"n": 1}, {"m": 2}])).await.unwrap()).await;
    assert_eq!((status, body["message"].as_str()), (400, Some("All object keys must match")));

    // A form body is one object of arguments.
    let res = app
        .rest_req(Method::POST, "/rpc/double", None)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("n=4")
        .send()
        .await
        .unwrap();
    assert_eq!(res.json::<Value>().await.unwrap(), json!(8));
}

#[tokio::test]
async fn raw_bodies_reach_a_single_unnamed_parameter_and_media_type_domains_are_answered_raw() {
    let app = spawn_app().await;
    app.ddl(
        r#"create domain "application/octet-stream" as bytea;
           create domain "text/html" as text;
           create domain "*/*" as bytea;
           create function public.echo_bytes(bytea) returns "application/octet-stream" language sql immutable as 'select $1';
           create function public.shout(text) returns text language sql immutable as 'select upper($1)';
           create function public.root_of(xml) returns text language sql immutable as $$ select (xpath('name(/*)', $1))[1]::text $$;
           create function public.page(title text) returns "text/html" language sql immutable
             as $$ select '<h1>' || title || '</h1>' $$;
           create function public.anything() returns "*/*" language sql immutable as $$ select '\x00ff'::bytea $$;"#,
    )
    .await;
    // A binary round trip, bytes unchanged (a zero byte and invalid UTF-8 included).
    let bytes: Vec<u8> = vec![0, 1, 2, 0xff, 0xfe, b'\n', 0x80];
    let res = app
        .rest_req(Method::POST, "/rpc/echo_bytes", None)
        .header("Content-Type", "application/octet-stream")
        .header("Accept", "application/octet-stream")
        .body(bytes.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/octet-stream");
    assert_eq!(res.bytes().await.unwrap().to_vec(), bytes);

    // Text and XML bodies.
    let res = app
        .rest_req(Method::POST, "/rpc/shout", None)
        .header("Content-Type", "text/plain")
        .body("jambo")
        .send()
        .await
        .unwrap();
    assert_eq!(res.json::<Value>().await.unwrap(), json!("JAMBO"));
    let res = app
        .rest_req(Method::POST, "/rpc/root_of", None)
        .header("Content-Type", "text/xml")
        .body("<booking><id>1</id></booking>")
        .send()
        .await
        .unwrap();
    assert_eq!(res.json::<Value>().await.unwrap(), json!("booking"));

    // A media-type domain answers in its media type when asked for it, JSON otherwise.
    let page =
        |accept: &'static str| app.rest_req(Method::GET, "/rpc/page?title=Fleet", None).header("Accept", accept).send();
    let res = page("text/html").await.unwrap();
    assert_eq!(res.headers()["content-type"], "text/html");
    assert_eq!(res.text().await.unwrap(), "<h1>Fleet</h1>");
    let res = page("application/json").await.unwrap();
    assert_eq!(res.json::<Value>().await.unwrap(), json!("<h1>Fleet</h1>"));
    let (status, body) = json_of(page("image/png").await.unwrap()).await;
    assert_eq!((status, body["code"].as_str()), (406, Some("PGRST107")));

    // A `*/*` domain answers whatever is accepted.
    let res = app.rest_req(Method::GET, "/rpc/anything", None).header("Accept", "image/png").send().await.unwrap();
    assert_eq!(res.headers()["content-type"], "image/png");
    assert_eq!(res.bytes().await.unwrap().to_vec(), vec![0, 0xff]);
}
