//! The table editor's structure forms, CSV import and export, the foreign-key picker and the
//! per-table switches, over HTTP against the real server and database: the SQL is shown first
//! and nothing runs, then it runs with its audit row; a bad CSV row is named and nothing is kept.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::studio::Studio;
use crate::studio_storage::studio_app;

async fn ddl(studio: &Studio, app: &TestApp, body: Value) -> (u16, Value) {
    studio.call(app, Method::POST, "/studio/api/ddl", Some(body)).await
}

async fn count(app: &TestApp, sql: &str) -> i64 {
    app.admin_query_one(sql).await.get(0)
}

fn cars() -> Value {
    json!({
        "op": "create_table", "schema": "public", "table": "cars",
        "columns": [
            {"name": "id", "type": "bigint", "identity": true, "primary_key": true},
            {"name": "model", "type": "text", "nullable": false},
            {"name": "price", "type": "numeric(10,2)", "default": {"kind": "value", "value": "0"}},
            {"name": "specs", "type": "jsonb"},
            {"name": "added", "type": "timestamptz", "nullable": false, "default": {"kind": "expression", "value": "now()"}}
        ]
    })
}

#[tokio::test]
async fn a_table_is_shown_as_sql_then_created_with_rls_on_and_audited() {
    let (app, studio) = studio_app().await;
    let mut preview = cars();
    preview["dry_run"] = json!(true);
    let (status, out) = ddl(&studio, &app, preview).await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["applied"], false);
    assert!(out["sql"].as_str().unwrap_or("").starts_with("create table \"public\".\"cars\" (\n"), "{out}");
    assert_eq!(out["expressions"], json!(["now()"]));
    assert_eq!(count(&app, "select count(*) from pg_class where relname = 'cars'").await, 0, "nothing ran");

    let (status, out) = ddl(&studio, &app, cars()).await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["applied"], true);
    let rls: bool =
        app.admin_query_one("select relrowsecurity from pg_class where oid = 'public.cars'::regclass").await.get(0);
    assert!(rls, "row-level security is on by default");
    assert_eq!(count(&app, "select count(*) from _studio.audit_log where action = 'ddl.create_table'").await, 1);

    let (status, out) = ddl(&studio, &app, cars()).await;
    assert_eq!(status, 400, "a second create is the database's error: {out}");
    assert_eq!(out["error"]["sqlstate"], "42P07");
    let (status, out) = ddl(
        &studio,
        &app,
        json!({"op": "add_check", "schema": "public", "table": "cars", "expression": "true); drop table public.cars; --"}),
    )
    .await;
    assert_eq!(status, 400, "{out}");
    assert_eq!(out["error"]["message"], "an expression must not contain a semicolon");
}

#[tokio::test]
async fn columns_constraints_indexes_and_foreign_keys_are_changed_and_listed() {
    let (app, studio) = studio_app().await;
    assert_eq!(ddl(&studio, &app, cars()).await.0, 200);
    let steps = [
        json!({"op": "create_table", "schema": "public", "table": "trips", "columns": [
            {"name": "id", "type": "int", "primary_key": true}, {"name": "km", "type": "int"}]}),
        json!({"op": "add_column", "schema": "public", "table": "trips", "column": {"name": "car_id", "type": "bigint",
            "references": {"schema": "public", "table": "cars", "columns": ["id"], "on_delete": "cascade"}}}),
        json!({"op": "alter_column", "schema": "public", "table": "trips", "column": "km", "rename_to": "distance",
            "type": "bigint", "default": {"kind": "value", "value": "0"}, "not_null": true}),
        json!({"op": "add_check", "schema": "public", "table": "trips", "name": "distance_positive", "expression": "distance >= 0"}),
        json!({"op": "add_unique", "schema": "public", "table": "cars", "name": "cars_model_key", "columns": ["model"]}),
        json!({"op": "create_index", "schema": "public", "table": "trips", "name": "trips_car", "columns": ["car_id"]}),
    ];
    for step in steps {
        let (status, out) = ddl(&studio, &app, step.clone()).await;
        assert_eq!(status, 200, "{step} -> {out}");
    }
    let (status, s) = studio.call(&app, Method::GET, "/studio/api/tables/public/trips/structure", None).await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["rls"], true);
    assert_eq!(s["realtime"], false);
    let fk = s["constraints"].as_array().unwrap().iter().find(|c| c["type"] == "f").cloned().unwrap_or_default();
    assert_eq!(fk["columns"], json!(["car_id"]));
    assert_eq!(fk["references"], json!({"schema": "public", "table": "cars", "columns": ["id"], "on_delete": "c"}));
    assert!(s["constraints"].as_array().unwrap().iter().any(|c| c["name"] == "distance_positive"));
    assert!(s["indexes"].as_array().unwrap().iter().any(|i| i["name"] == "trips_car" && i["method"] == "btree"));
    let (_, rel) = studio.call(&app, Method::GET, "/studio/api/tables/public/trips", None).await;
    let distance =
        rel["columns"].as_array().unwrap().iter().find(|c| c["name"] == "distance").cloned().unwrap_or_default();
    assert_eq!(distance["type_name"], "bigint");
    assert_eq!(distance["nullable"], false);

    for step in [
        json!({"op": "drop_index", "schema": "public", "table": "trips", "name": "trips_car"}),
        json!({"op": "drop_constraint", "schema": "public", "table": "trips", "name": "distance_positive"}),
        json!({"op": "drop_column", "schema": "public", "table": "trips", "column": "distance"}),
        json!({"op": "drop_table", "schema": "public", "table": "trips"}),
    ] {
        let (status, out) = ddl(&studio, &app, step.clone()).await;
        assert_eq!(status, 200, "{step} -> {out}");
    }
    assert_eq!(count(&app, "select count(*) from pg_class where relname = 'trips'").await, 0);
    assert_eq!(count(&app, "select count(*) from _studio.audit_log where action like 'ddl.%'").await, 11);
    let (status, _) =
        ddl(&studio, &app, json!({"op": "drop_table", "schema": "_studio", "table": "audit_log", "dry_run": true}))
            .await;
    assert_eq!(status, 400, "the dashboard's own schema is not a target");
}

#[tokio::test]
async fn the_realtime_and_rls_switches_are_flipped_and_audited() {
    let (app, studio) = studio_app().await;
    assert_eq!(ddl(&studio, &app, cars()).await.0, 200);
    let published =
        "select count(*) from pg_publication_tables where pubname = 'supabase_realtime' and tablename = 'cars'";
    let on = json!({"op": "set_realtime", "schema": "public", "table": "cars", "enabled": true});
    assert_eq!(ddl(&studio, &app, on).await.0, 200);
    assert_eq!(count(&app, published).await, 1);
    let (_, s) = studio.call(&app, Method::GET, "/studio/api/tables/public/cars/structure", None).await;
    assert_eq!(s["realtime"], true);
    let off = json!({"op": "set_realtime", "schema": "public", "table": "cars", "enabled": false});
    assert_eq!(ddl(&studio, &app, off).await.0, 200);
    assert_eq!(count(&app, published).await, 0);
    let rls_off = json!({"op": "set_rls", "schema": "public", "table": "cars", "enabled": false});
    assert_eq!(ddl(&studio, &app, rls_off).await.0, 200);
    let (_, s) = studio.call(&app, Method::GET, "/studio/api/tables/public/cars/structure", None).await;
    assert_eq!(s["rls"], false);
    assert_eq!(
        count(&app, "select count(*) from _studio.audit_log where action in ('ddl.set_realtime', 'ddl.set_rls')").await,
        3
    );
}

#[tokio::test]
async fn a_csv_is_imported_in_one_transaction_and_a_bad_row_is_named() {
    let (app, studio) = studio_app().await;
    assert_eq!(ddl(&studio, &app, cars()).await.0, 200);
    let path = "/studio/api/tables/public/cars/import";
    let bad = json!({"columns": ["model", "price"], "rows": [["Tesla", "10"], ["Kia", "cheap"], ["Fiat", "3"]]});
    let (status, out) = studio.call(&app, Method::POST, path, Some(bad)).await;
    assert_eq!(status, 400, "{out}");
    assert!(
        out["error"]["message"].as_str().unwrap_or("").starts_with("Row 2: invalid input syntax for type numeric"),
        "{out}"
    );
    assert_eq!(count(&app, "select count(*) from public.cars").await, 0, "nothing kept");

    let bad_json = json!({"columns": ["model", "specs"], "rows": [["Tesla", "{oops"]]});
    let (status, out) = studio.call(&app, Method::POST, path, Some(bad_json)).await;
    assert_eq!(status, 400);
    assert!(out["error"]["message"].as_str().unwrap_or("").starts_with("Row 1, column specs: invalid JSON"), "{out}");

    let good = json!({"columns": ["model", "price", "specs"], "rows": [
        ["Tesla, \"Model 3\"", "10.5", "{\"seats\": 5}"], ["Kia", null, null], ["", "2", "[1, 2]"]]});
    let (status, out) = studio.call(&app, Method::POST, path, Some(good)).await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["inserted"], 3);
    assert_eq!(count(&app, "select count(*) from public.cars where specs ->> 'seats' = '5' and price = 10.5").await, 1);
    assert_eq!(count(&app, "select count(*) from _studio.audit_log where action = 'rows.import'").await, 1);
}

#[tokio::test]
async fn the_export_streams_every_row_of_the_filtered_sorted_view() {
    let (app, studio) = studio_app().await;
    assert_eq!(ddl(&studio, &app, cars()).await.0, 200);
    app.admin_sql(
        "insert into public.cars (model, price, specs) select 'car ' || i, i, case when i = 1 then '{\"a\": \"x,y\"}'::jsonb end \
         from generate_series(1, 1500) i; insert into public.cars (model, price) values ('', null);",
    )
    .await;
    let q = json!({"filters": [{"column": "model", "op": "like", "value": "car 1%"}], "sort": [{"column": "price", "desc": true}], "limit": 5});
    let url = format!("/studio/api/tables/public/cars/export?q={}", urlencode(&q.to_string()));
    let res = studio.req(&app, Method::GET, &url).send().await.expect("export");
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "text/csv; charset=utf-8");
    let text = res.text().await.expect("csv");
    let lines: Vec<&str> = text.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines[0], "id,model,price,specs,added");
    assert_eq!(lines.len(), 1 + 612, "car 1, car 10-19, 100-199, 1000-1500: every row, not a page");
    assert!(lines[1].starts_with("1500,car 1500,1500.00,,"), "{}", lines[1]);
    assert!(lines.last().unwrap_or(&"").starts_with("1,car 1,1.00,\"{\"\"a\"\": \"\"x,y\"\"}\","), "{text:.200}");

    let all = studio.req(&app, Method::GET, "/studio/api/tables/public/cars/export").send().await.expect("export");
    let text = all.text().await.expect("csv");
    assert!(text.contains("\r\n1501,\"\",,,"), "an empty string is \"\" and NULL is empty");
    let (status, _) = studio
        .call(
            &app,
            Method::GET,
            "/studio/api/tables/public/cars/export?q=%7B%22sort%22%3A%5B%7B%22column%22%3A%22nope%22%7D%5D%7D",
            None,
        )
        .await;
    assert_eq!(status, 400, "an unknown column is refused before the answer starts");
}

#[tokio::test]
async fn the_foreign_key_picker_searches_the_referenced_table_a_page_at_a_time() {
    let (app, studio) = studio_app().await;
    assert_eq!(ddl(&studio, &app, cars()).await.0, 200);
    app.admin_sql(
        "insert into public.cars (model) select 'model ' || i from generate_series(1, 45) i;
         create table public.trips (id int primary key, car_id bigint references public.cars (id));",
    )
    .await;
    let base = "/studio/api/tables/public/trips/references?column=car_id";
    let (status, page) = studio.call(&app, Method::GET, base, None).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["table"], "cars");
    assert_eq!(page["column"], "id");
    assert_eq!(page["columns"], json!(["id", "model", "price", "added"]));
    assert_eq!(page["rows"].as_array().map(Vec::len), Some(20));
    let next = page["next"].as_str().expect("a next page").to_string();
    let (_, second) = studio.call(&app, Method::GET, &format!("{base}&after={next}"), None).await;
    assert_eq!(second["rows"].as_array().map(Vec::len), Some(20));
    assert_ne!(second["rows"][0]["id"], page["rows"][0]["id"]);

    let (_, found) = studio.call(&app, Method::GET, &format!("{base}&q=model%2042"), None).await;
    assert_eq!(found["rows"].as_array().map(Vec::len), Some(1), "{found}");
    assert_eq!(found["rows"][0]["model"], "model 42");
    assert_eq!(found["next"], Value::Null);
    let (_, none) = studio.call(&app, Method::GET, &format!("{base}&q=%25"), None).await;
    assert_eq!(none["rows"].as_array().map(Vec::len), Some(0), "a % is searched for, not a wildcard");
    let (status, _) =
        studio.call(&app, Method::GET, "/studio/api/tables/public/trips/references?column=id", None).await;
    assert_eq!(status, 404);
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
