//! Embedding edge cases PostgREST 13 defines: spreads of to-many relationships (each column
//! becomes an array) and the same relationship name embedded twice at one level.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};

async fn json_of(res: reqwest::Response) -> (u16, Value) {
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn fleet_app() -> TestApp {
    fleet_app_with(|_| {}).await
}

async fn fleet_app_with(customize: impl FnOnce(&mut server::config::Config)) -> TestApp {
    let app = spawn_app_with(customize).await;
    app.ddl(
        "create table public.agencies (id int primary key, city text);
         create table public.cars (id int primary key, agency_id int references public.agencies, model text, seats int);
         create table public.transfers (id int primary key, from_agency int references public.agencies, to_agency int references public.agencies);
         insert into public.agencies values (1, 'Kinshasa'), (2, 'Lubumbashi'), (3, 'Goma');
         insert into public.cars values (10, 1, 'Prado', 7), (11, 1, 'Hilux', 5), (12, 2, 'Corolla', 5);
         insert into public.transfers values (100, 1, 2);
         grant select on public.agencies, public.cars, public.transfers to anon;",
    )
    .await;
    app
}

#[tokio::test]
async fn a_to_many_spread_gives_one_array_per_column() {
    let app = fleet_app().await;
    let (status, body) = json_of(
        app.rest_req(
            Method::GET,
            "/agencies?select=city,...cars(model,places:seats)&cars.order=id.desc&order=id",
            None,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!([
            {"city": "Kinshasa", "model": ["Hilux", "Prado"], "places": [5, 7]},
            {"city": "Lubumbashi", "model": ["Corolla"], "places": [5]},
            {"city": "Goma", "model": [], "places": []}
        ])
    );
    // `!inner` leaves out the parents without children.
    let (_, body) = json_of(
        app.rest_req(Method::GET, "/agencies?select=city,...cars!inner(model)&order=id", None).send().await.unwrap(),
    )
    .await;
    assert_eq!(
        body,
        json!([{"city": "Kinshasa", "model": ["Prado", "Hilux"]}, {"city": "Lubumbashi", "model": ["Corolla"]}])
    );
}

#[tokio::test]
async fn aggregates_inside_a_to_many_spread_are_pgrst127() {
    let app = fleet_app_with(|c| c.rest.aggregates_enabled = true).await;
    let (status, body) =
        json_of(app.rest_req(Method::GET, "/agencies?select=city,...cars(seats.sum())", None).send().await.unwrap())
            .await;
    assert_eq!((status, body["code"].as_str()), (400, Some("PGRST127")), "{body}");
}

#[tokio::test]
async fn the_same_name_embedded_twice_at_one_level_is_refused_as_postgres_refuses_it() {
    let app = fleet_app().await;
    let (status, body) = json_of(
        app.rest_req(
            Method::GET,
            "/transfers?select=agencies!transfers_from_agency_fkey(city),agencies!transfers_to_agency_fkey(city)",
            None,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["code"], "42712");
    assert_eq!(body["message"], "table name \"transfers_agencies_1\" specified more than once");
    // Under two aliases, the two embeds are fine.
    let (status, body) = json_of(
        app.rest_req(
            Method::GET,
            "/transfers?select=from:agencies!transfers_from_agency_fkey(city),to:agencies!transfers_to_agency_fkey(city)",
            None,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!((status, body), (200, json!([{"from": {"city": "Kinshasa"}, "to": {"city": "Lubumbashi"}}])));
}
