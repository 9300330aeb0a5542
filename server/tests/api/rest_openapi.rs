//! The OpenAPI document at `GET /rest/v1/`, as PostgREST builds it: what the caller's role may
//! use only, PostgREST's parameters, notes and types, and its `openapi-mode` settings.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};

async fn doc(app: &TestApp, bearer: Option<&str>) -> Value {
    let res = app.rest_req(Method::GET, "/", bearer).send().await.expect("GET /");
    assert_eq!(res.status(), 200);
    res.json().await.expect("a JSON document")
}

async fn fleet(customize: impl FnOnce(&mut server::config::Config)) -> TestApp {
    let app = spawn_app_with(customize).await;
    app.ddl(
        "create table public.agencies (id int primary key, city varchar(40) not null default 'Kinshasa'::character varying);
         create table public.cars (id bigint primary key, agency_id int references public.agencies,
           seats smallint default 5, specs jsonb, tags text[]);
         comment on column public.cars.agency_id is 'Where the car is parked';
         create table public.payroll (id int primary key, amount numeric);
         revoke all on public.payroll from anon, authenticated;
         create function public.available(from_day date, seats int default 2) returns setof public.cars
           language sql stable as 'select * from public.cars';
         create function public.book(car bigint) returns void language sql as 'select';
         create function public.pay() returns void language sql as 'select';
         revoke execute on function public.pay() from public, anon, authenticated;",
    )
    .await;
    app
}

#[tokio::test]
async fn the_document_shows_only_what_the_callers_role_may_use() {
    let app = fleet(|_| {}).await;
    let anon = doc(&app, None).await;
    let paths = anon["paths"].as_object().unwrap();
    assert!(paths.contains_key("/cars"));
    assert!(!paths.contains_key("/payroll"), "anon has no privilege on payroll");
    assert!(!paths.contains_key("/rpc/pay"), "nor on pay()");
    assert!(anon["definitions"].get("payroll").is_none());

    let service = doc(&app, Some(&app.service_key)).await;
    assert!(service["paths"].get("/payroll").is_some());
    assert!(service["paths"].get("/rpc/pay").is_some());
}

#[tokio::test]
async fn definitions_carry_postgrest_types_defaults_and_key_notes() {
    let app = fleet(|_| {}).await;
    let d = doc(&app, None).await;
    let cars = &d["definitions"]["cars"]["properties"];
    assert_eq!(cars["id"]["format"], "int64");
    assert_eq!(cars["id"]["description"], "Note:\nThis is a Primary Key.<pk/>");
    assert_eq!(
        cars["agency_id"]["description"],
        "Where the car is parked\n\nNote:\nThis is a Foreign Key to `agencies.id`.<fk table='agencies' column='id'/>"
    );
    assert_eq!(cars["seats"], json!({"default": 5, "format": "int32", "type": "integer"}));
    assert_eq!(cars["specs"], json!({"format": "jsonb"}), "json has no Swagger type");
    assert_eq!(cars["tags"]["items"], json!({"type": "string"}));
    let city = &d["definitions"]["agencies"]["properties"]["city"];
    assert_eq!((&city["default"], &city["maxLength"]), (&json!("Kinshasa"), &json!(40)));
    assert_eq!(d["definitions"]["agencies"]["required"], json!(["id", "city"]));
    assert_eq!(d["info"]["title"], "standard public schema");
    assert_eq!(d["externalDocs"]["description"], "PostgREST Documentation");
    assert_eq!(d["parameters"]["rowFilter.cars.agency_id"]["in"], "query");
    assert_eq!(d["paths"]["/cars"]["get"]["parameters"][1], json!({"$ref": "#/parameters/rowFilter.cars.agency_id"}));
}

#[tokio::test]
async fn stable_functions_are_described_for_get_and_post_volatile_ones_for_post() {
    let app = fleet(|_| {}).await;
    let d = doc(&app, None).await;
    let available = &d["paths"]["/rpc/available"];
    assert_eq!(
        available["get"]["parameters"],
        json!([
            {"name": "from_day", "required": true, "in": "query", "format": "date", "type": "string"},
            {"name": "seats", "required": false, "in": "query", "format": "int32", "type": "integer"}
        ])
    );
    assert_eq!(available["post"]["parameters"][0]["schema"]["required"], json!(["from_day"]));
    let book = d["paths"]["/rpc/book"].as_object().unwrap();
    assert_eq!(book.keys().collect::<Vec<_>>(), ["post"]);
}

#[tokio::test]
async fn openapi_mode_and_security_settings_apply() {
    let app = fleet(|c| {
        c.rest.openapi_mode = "ignore-privileges".into();
        c.rest.openapi_security_active = true;
    })
    .await;
    let d = doc(&app, None).await;
    assert!(d["paths"].get("/payroll").is_some(), "ignore-privileges shows everything");
    assert_eq!(d["security"], json!([{"JWT": []}]));
    assert_eq!(d["securityDefinitions"]["JWT"]["name"], "Authorization");

    let off = spawn_app_with(|c| c.rest.openapi_mode = "disabled".into()).await;
    let res = off.rest_req(Method::GET, "/", None).send().await.unwrap();
    assert_eq!(res.status(), 404);
    assert_eq!(res.json::<Value>().await.unwrap()["code"], "PGRST126");
}

#[tokio::test]
async fn head_of_the_root_answers_the_documents_type_without_a_body_or_its_length() {
    let app = fleet(|_| {}).await;
    let res = app
        .rest_req(Method::HEAD, "/", None)
        .header("Accept", "application/openapi+json")
        .send()
        .await
        .expect("HEAD /");
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/openapi+json; charset=utf-8");
    assert!(res.headers().get("content-length").is_none(), "{:?}", res.headers());
    assert!(res.bytes().await.expect("body").is_empty());
    // GET still sends the document, with its length.
    let res = app.rest_req(Method::GET, "/", None).send().await.expect("GET /");
    assert!(res.headers().get("content-length").is_some());
    assert_eq!(res.json::<Value>().await.expect("JSON")["swagger"], "2.0");
}
