//! Domain representations over HTTP (PostgREST's "data representations"): a column of a domain
//! with implicit casts made by functions is shown through its cast to `json` (select, embeds,
//! `*`, written rows, CSV), its filter values are read through its cast from `text`, and its
//! body fields through its cast from `json`; a domain without casts stays its base type.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{json_of, spawn_app_with, TestApp};

/// Tariffs priced in cents, shown and written as decimal amounts (`"45.00"`), with a mileage of
/// a plain domain; quotes referring to a tariff, with a deposit in cents. Aggregates are on.
async fn tariffs_app() -> TestApp {
    let app = spawn_app_with(|c| c.rest.aggregates_enabled = true).await;
    app.ddl(
        "create domain public.cents as bigint;
         create function public.cents_shown(public.cents) returns json language sql immutable
           as $$ select to_json(to_char($1 / 100.0, 'FM999999990.00')) $$;
         create function public.cents_read(text) returns public.cents language sql immutable
           as $$ select round($1::numeric * 100)::bigint::public.cents $$;
         create function public.cents_read(json) returns public.cents language sql immutable
           as $$ select public.cents_read($1 #>> '{}') $$;
         create cast (public.cents as json) with function public.cents_shown(public.cents) as implicit;
         create cast (text as public.cents) with function public.cents_read(text) as implicit;
         create cast (json as public.cents) with function public.cents_read(json) as implicit;
         create domain public.km as int check (value >= 0);

         create table public.tariffs (
           id int primary key, label text, daily public.cents not null default 1000, mileage public.km);
         create table public.quotes (id int primary key, tariff_id int references public.tariffs, deposit public.cents);
         grant select, insert, update, delete on public.tariffs, public.quotes to anon;
         insert into public.tariffs values (1, 'city', 4500, 120), (2, 'safari', 12550, 300), (3, 'airport', 3000, null);
         insert into public.quotes values (10, 2, 50000), (11, 1, null);
         create function public.cheap_tariffs() returns setof public.tariffs language sql stable
           as 'select * from public.tariffs where daily < 5000 order by id';",
    )
    .await;
    app
}

async fn get(app: &TestApp, path: &str) -> (u16, Value) {
    json_of(app.rest_req(Method::GET, path, None).send().await.expect("request")).await
}

async fn send(app: &TestApp, method: Method, path: &str, prefer: &str, body: Value) -> (u16, Value) {
    let res = app.rest_req(method, path, None).header("Prefer", prefer).json(&body).send().await.expect("request");
    json_of(res).await
}

/// The stored value of a tariff's `daily`, in cents.
async fn stored_daily(app: &TestApp, id: i32) -> i64 {
    app.admin_query_one(&format!("select daily::bigint from public.tariffs where id = {id}")).await.get(0)
}

#[tokio::test]
async fn a_selected_domain_column_is_shown_through_its_json_cast() {
    let app = tariffs_app().await;

    let (status, body) = get(&app, "/tariffs?select=id,daily,mileage&order=id").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!([
            {"id": 1, "daily": "45.00", "mileage": 120},
            {"id": 2, "daily": "125.50", "mileage": 300},
            {"id": 3, "daily": "30.00", "mileage": null}
        ])
    );

    // Renamed, and cast on top of the formatted value.
    let (_, body) = get(&app, "/tariffs?select=price:daily,text:daily::text&id=eq.1").await;
    assert_eq!(body, json!([{"price": "45.00", "text": "\"45.00\""}]));

    // `*`, written or implied, shows every column through its cast.
    let expected = json!([{"id": 1, "label": "city", "daily": "45.00", "mileage": 120}]);
    assert_eq!(get(&app, "/tariffs?select=*&id=eq.1").await.1, expected);
    assert_eq!(get(&app, "/tariffs?id=eq.1").await.1, expected);

    // A function returning the table's rows too.
    let (status, body) = get(&app, "/rpc/cheap_tariffs?select=id,daily").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"id": 1, "daily": "45.00"}, {"id": 3, "daily": "30.00"}]));

    // Grouping by a formatted column groups by its value.
    let (status, body) = get(&app, "/tariffs?select=daily,count()&id=lt.3&order=daily").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"daily": "45.00", "count": 1}, {"daily": "125.50", "count": 1}]));
}

#[tokio::test]
async fn an_embedded_domain_column_is_shown_through_its_json_cast() {
    let app = tariffs_app().await;

    let (status, body) = get(&app, "/quotes?select=id,deposit,tariffs(label,daily)&order=id").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!([
            {"id": 10, "deposit": "500.00", "tariffs": {"label": "safari", "daily": "125.50"}},
            {"id": 11, "deposit": null, "tariffs": {"label": "city", "daily": "45.00"}}
        ])
    );

    let (status, body) = get(&app, "/tariffs?select=id,quotes(*)&id=eq.2").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"id": 2, "quotes": [{"id": 10, "tariff_id": 2, "deposit": "500.00"}]}]));

    let (status, body) = get(&app, "/quotes?select=id,...tariffs(daily)&order=id").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"id": 10, "daily": "125.50"}, {"id": 11, "daily": "45.00"}]));
}

#[tokio::test]
async fn csv_output_shows_the_formatted_value() {
    let app = tariffs_app().await;
    let res = app
        .rest_req(Method::GET, "/tariffs?select=id,daily&order=id", None)
        .header("Accept", "text/csv")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.text().await.unwrap(), "id,daily\n1,45.00\n2,125.50\n3,30.00");
}

#[tokio::test]
async fn filter_values_are_read_through_the_text_cast() {
    let app = tariffs_app().await;
    let ids = |body: Value| body.as_array().map(|rows| rows.iter().map(|r| r["id"].clone()).collect::<Vec<_>>());

    let (status, body) = get(&app, "/tariffs?select=id&daily=eq.45").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids(body), Some(vec![json!(1)]));

    let (status, body) = get(&app, "/tariffs?select=id&daily=in.(45,125.50)&order=id").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids(body), Some(vec![json!(1), json!(2)]));

    assert_eq!(ids(get(&app, "/tariffs?select=id&daily=not.in.(45,125.5)").await.1), Some(vec![json!(3)]));
    assert_eq!(ids(get(&app, "/tariffs?select=id&daily=gt.40&order=id").await.1), Some(vec![json!(1), json!(2)]));
    assert_eq!(
        ids(get(&app, "/tariffs?select=id&daily=eq(any).{30,45}&order=id").await.1),
        Some(vec![json!(1), json!(3)])
    );
    assert_eq!(
        ids(get(&app, "/tariffs?select=id&or=(daily.eq.30,daily.eq.125.5)&order=id").await.1),
        Some(vec![json!(2), json!(3)])
    );

    // On an embedded level too.
    let (status, body) = get(&app, "/quotes?select=id,tariffs!inner(id)&tariffs.daily=lte.45").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"id": 11, "tariffs": {"id": 1}}]));

    // A domain without casts is filtered as its base type.
    assert_eq!(ids(get(&app, "/tariffs?select=id&mileage=gt.200").await.1), Some(vec![json!(2)]));
    let (status, body) = get(&app, "/tariffs?select=id&mileage=eq.far").await;
    assert_eq!((status, body["code"].as_str()), (400, Some("22P02")), "{body}");
}

#[tokio::test]
async fn a_post_body_is_read_through_the_json_cast_and_returned_formatted() {
    let app = tariffs_app().await;

    let (status, body) = send(
        &app,
        Method::POST,
        "/tariffs",
        "return=representation",
        json!({"id": 4, "label": "night", "daily": "60.25", "mileage": 50}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body, json!([{"id": 4, "label": "night", "daily": "60.25", "mileage": 50}]));
    assert_eq!(stored_daily(&app, 4).await, 6025);

    // Several rows, a missing field taking the column's default, keys `columns=` leaves out
    // not read at all.
    let (status, body) = send(
        &app,
        Method::POST,
        "/tariffs?columns=id,label,daily&select=id,daily",
        "return=representation,missing=default",
        json!([{"id": 5, "label": "week", "daily": 350, "mileage": "unread"}, {"id": 6, "label": "default"}]),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body, json!([{"id": 5, "daily": "350.00"}, {"id": 6, "daily": "10.00"}]));
    assert_eq!((stored_daily(&app, 5).await, stored_daily(&app, 6).await), (35000, 1000));

    // A JSON null reaches the function as SQL's null.
    let (status, body) = send(
        &app,
        Method::POST,
        "/quotes",
        "return=representation",
        json!({"id": 12, "tariff_id": 1, "deposit": null}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body, json!([{"id": 12, "tariff_id": 1, "deposit": null}]));

    // An upsert with PUT, and a domain without casts written as its base type.
    let (status, body) = send(
        &app,
        Method::PUT,
        "/tariffs?id=eq.7",
        "return=representation",
        json!({"id": 7, "label": "month", "daily": "1200", "mileage": 9000}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body, json!([{"id": 7, "label": "month", "daily": "1200.00", "mileage": 9000}]));
    let (status, body) =
        send(&app, Method::POST, "/tariffs", "return=minimal", json!({"id": 8, "daily": "1", "mileage": -1})).await;
    assert_eq!((status, body["code"].as_str()), (400, Some("23514")), "{body}");
}

#[tokio::test]
async fn a_patch_body_is_read_through_the_json_cast() {
    let app = tariffs_app().await;

    let (status, body) =
        send(&app, Method::PATCH, "/tariffs?id=eq.3", "return=representation", json!({"daily": "33.30"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"id": 3, "label": "airport", "daily": "33.30", "mileage": null}]));
    assert_eq!(stored_daily(&app, 3).await, 3330);

    // Filtered through the text cast, and only what `columns=` names is read.
    let (status, body) = send(
        &app,
        Method::PATCH,
        "/tariffs?daily=eq.33.3&columns=label&select=id,label,daily",
        "return=representation",
        json!({"label": "terminal", "daily": "not read"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([{"id": 3, "label": "terminal", "daily": "33.30"}]));

    let res =
        app.rest_req(Method::PATCH, "/quotes?id=eq.11", None).json(&json!({"deposit": "75"})).send().await.unwrap();
    assert_eq!(res.status(), 204);
    let deposit: i64 = app.admin_query_one("select deposit::bigint from public.quotes where id = 11").await.get(0);
    assert_eq!(deposit, 7500);
}
