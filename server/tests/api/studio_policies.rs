//! `/studio/api/policies`: the policies screen's backend and its policy tester, over HTTP
//! against the real server and database. Routes refused without a session; policies listed
//! readably; RLS switched and a policy written from a template (the SQL shown first, nothing
//! run), edited, dropped, each audited; the tester as a user, anon and the service role, whose
//! writes are always rolled back.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::studio::Studio;
use crate::studio_storage::studio_app;

async fn orders_app() -> (TestApp, Studio, String, String) {
    let (app, studio) = studio_app().await;
    let mut ids = Vec::new();
    for email in ["dana@example.test", "eli@example.test"] {
        let (status, user) = app.auth_post("/signup", json!({"email": email, "password": "a-long-password-1"})).await;
        assert_eq!(status, 200, "{user}");
        ids.push(user["user"]["id"].as_str().or(user["id"].as_str()).expect("an id").to_string());
    }
    app.admin_sql(&format!(
        "create table public.orders (id int primary key, customer uuid not null, total int not null default 0);
         grant select, insert, update, delete on public.orders to anon, authenticated, service_role;
         insert into public.orders values (1, '{dana}', 10), (2, '{dana}', 20), (3, '{eli}', 30);",
        dana = ids[0],
        eli = ids[1]
    ))
    .await;
    let (dana, eli) = (ids[0].clone(), ids[1].clone());
    (app, studio, dana, eli)
}

async fn table(studio: &Studio, app: &TestApp, name: &str) -> Value {
    let (status, out) = studio.call(app, Method::GET, "/studio/api/policies?schema=public", None).await;
    assert_eq!(status, 200, "{out}");
    out["tables"].as_array().expect("tables").iter().find(|t| t["name"] == name).cloned().expect("the table")
}

fn owner_only(name: &str) -> Value {
    json!({"schema": "public", "table": "orders", "name": name, "command": "all", "roles": ["authenticated"],
           "using": "(select auth.uid()) = customer", "with_check": "(select auth.uid()) = customer"})
}

async fn test_as(studio: &Studio, app: &TestApp, run_as: Value, operation: Value) -> Value {
    let body = json!({"schema": "public", "table": "orders", "run_as": run_as, "operation": operation});
    let (status, out) = studio.call(app, Method::POST, "/studio/api/policies/test", Some(body)).await;
    assert_eq!(status, 200, "{out}");
    out
}

#[tokio::test]
async fn policy_routes_are_refused_without_an_operator_session() {
    let (app, _, _, _) = orders_app().await;
    let service = format!("Bearer {}", app.service_key);
    for (method, path) in [
        (Method::GET, "/studio/api/policies?schema=public"),
        (Method::POST, "/studio/api/policies"),
        (Method::POST, "/studio/api/policies/drop"),
        (Method::POST, "/studio/api/policies/rls"),
        (Method::POST, "/studio/api/policies/test"),
    ] {
        for headers in [vec![], vec![("apikey", app.service_key.as_str()), ("authorization", service.as_str())]] {
            let mut req = app.http.request(method.clone(), format!("{}{path}", app.address));
            for (k, v) in &headers {
                req = req.header(*k, *v);
            }
            let body = json!({"schema": "public", "table": "orders", "enabled": true});
            assert_eq!(req.json(&body).send().await.expect("request").status(), 401, "{method} {path}");
        }
    }
    let rls: bool =
        app.admin_query_one("select relrowsecurity from pg_class where oid = 'public.orders'::regclass").await.get(0);
    assert!(!rls, "nothing was switched");
}

#[tokio::test]
async fn a_policy_from_a_template_is_shown_then_applied_edited_and_dropped() {
    let (app, studio, _, _) = orders_app().await;
    // RLS: the SQL first, nothing run
    let rls = json!({"schema": "public", "table": "orders", "enabled": true, "dry_run": true});
    let (status, out) = studio.call(&app, Method::POST, "/studio/api/policies/rls", Some(rls)).await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["sql"], "alter table \"public\".\"orders\" enable row level security;");
    assert_eq!(table(&studio, &app, "orders").await["rls"], false);
    let rls = json!({"schema": "public", "table": "orders", "enabled": true});
    studio.call(&app, Method::POST, "/studio/api/policies/rls", Some(rls)).await;
    assert_eq!(table(&studio, &app, "orders").await["rls"], true);

    let (status, shown) = studio
        .call(
            &app,
            Method::POST,
            "/studio/api/policies",
            Some(json!({"policy": owner_only("Own orders"), "dry_run": true})),
        )
        .await;
    assert_eq!(status, 200, "{shown}");
    assert!(shown["sql"].as_str().unwrap().starts_with("create policy \"Own orders\" on \"public\".\"orders\""));
    assert_eq!(table(&studio, &app, "orders").await["policies"], json!([]), "a dry run changes nothing");
    let (status, out) = studio
        .call(&app, Method::POST, "/studio/api/policies", Some(json!({"policy": owner_only("Own orders")})))
        .await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["sql"], shown["sql"], "what ran is what was shown");
    let policies = table(&studio, &app, "orders").await["policies"].clone();
    assert_eq!(policies[0]["name"], "Own orders");
    assert_eq!(policies[0]["command"], "all");
    assert_eq!(policies[0]["roles"], json!(["authenticated"]));
    assert_eq!(policies[0]["permissive"], true);
    assert_eq!(policies[0]["using"], "(( SELECT auth.uid() AS uid) = customer)");

    // edit: a read-only, restrictive one in its place
    let mut edited = owner_only("Read own");
    edited["command"] = json!("select");
    edited["with_check"] = Value::Null;
    edited["permissive"] = json!(false);
    let (status, out) = studio
        .call(&app, Method::POST, "/studio/api/policies", Some(json!({"policy": edited, "replaces": "Own orders"})))
        .await;
    assert_eq!(status, 200, "{out}");
    let policies = table(&studio, &app, "orders").await["policies"].clone();
    assert_eq!(policies.as_array().unwrap().len(), 1);
    assert_eq!((policies[0]["name"].as_str(), policies[0]["permissive"].as_bool()), (Some("Read own"), Some(false)));

    // a wrong expression is Postgres's error, and nothing changes
    let mut bad = owner_only("Bad");
    bad["using"] = json!("no_such_column = 1");
    let (status, out) = studio.call(&app, Method::POST, "/studio/api/policies", Some(json!({"policy": bad}))).await;
    assert_eq!((status, out["error"]["code"].as_str()), (400, Some("database")), "{out}");
    let mut smuggled = owner_only("Smuggled");
    smuggled["using"] = json!("true) ; drop table public.orders; --");
    let (status, _) = studio.call(&app, Method::POST, "/studio/api/policies", Some(json!({"policy": smuggled}))).await;
    assert_eq!(status, 400);

    let drop = json!({"schema": "public", "table": "orders", "name": "Read own"});
    let (status, out) = studio.call(&app, Method::POST, "/studio/api/policies/drop", Some(drop)).await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(table(&studio, &app, "orders").await["policies"], json!([]));
    let (status, _) = studio
        .call(
            &app,
            Method::POST,
            "/studio/api/policies/rls",
            Some(json!({"schema": "_studio", "table": "operators", "enabled": false})),
        )
        .await;
    assert_eq!(status, 404, "the platform's tables are not reachable");
    let audited: i64 = app
        .admin_query_one(
            "select count(*) from _studio.audit_log where action in ('rls.enable', 'policy.create', 'policy.replace', 'policy.drop')",
        )
        .await
        .get(0);
    assert_eq!(audited, 4);
}

#[tokio::test]
async fn the_tester_shows_what_each_caller_may_read_and_write_and_rolls_everything_back() {
    let (app, studio, dana, eli) = orders_app().await;
    app.admin_sql("alter table public.orders enable row level security").await;
    studio.call(&app, Method::POST, "/studio/api/policies", Some(json!({"policy": owner_only("Own orders")}))).await;

    let read = test_as(&studio, &app, json!({"kind": "user", "id": dana}), json!({"kind": "select"})).await;
    assert_eq!(read["allowed"], true);
    let ids: Vec<i64> = read["rows"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, vec![1, 2], "a customer sees only their rows");
    assert_eq!(read["total"], 3);
    let filtered = test_as(
        &studio,
        &app,
        json!({"kind": "user", "id": dana}),
        json!({"kind": "select", "filters": [{"column": "total", "op": "gt", "value": 15}]}),
    )
    .await;
    assert_eq!((filtered["rows"].as_array().unwrap().len(), filtered["total"].as_i64()), (1, Some(2)));
    let anon = test_as(&studio, &app, json!({"kind": "anon"}), json!({"kind": "select"})).await;
    assert_eq!(anon["rows"], json!([]));
    let service = test_as(&studio, &app, json!({"kind": "service_role"}), json!({"kind": "select"})).await;
    assert_eq!(service["rows"].as_array().unwrap().len(), 3);

    let theirs = json!({"kind": "insert", "row": {"id": 9, "customer": eli, "total": 1}});
    let refused = test_as(&studio, &app, json!({"kind": "user", "id": dana}), theirs).await;
    assert_eq!(refused["allowed"], false, "{refused}");
    assert_eq!(refused["error"]["sqlstate"], "42501");
    let own = json!({"kind": "insert", "row": {"id": 9, "customer": dana, "total": 1}});
    let allowed = test_as(&studio, &app, json!({"kind": "user", "id": dana}), own).await;
    assert_eq!((allowed["allowed"].as_bool(), allowed["affected"].as_i64()), (Some(true), Some(1)), "{allowed}");

    let update = json!({"kind": "update", "key": {"id": 3}, "values": {"total": 0}});
    let hidden = test_as(&studio, &app, json!({"kind": "user", "id": dana}), update).await;
    assert_eq!((hidden["allowed"].as_bool(), hidden["affected"].as_i64()), (Some(false), Some(0)));
    let delete =
        test_as(&studio, &app, json!({"kind": "user", "id": dana}), json!({"kind": "delete", "key": {"id": 1}})).await;
    assert_eq!(delete["allowed"], true);

    let left: i64 = app.admin_query_one("select count(*) from public.orders where total > 0").await.get(0);
    assert_eq!(left, 3, "every tested write was rolled back");
    let (status, out) = studio
        .call(
            &app,
            Method::POST,
            "/studio/api/policies/test",
            Some(json!({"schema": "public", "table": "orders", "run_as": {"kind": "anon"},
                        "operation": {"kind": "select", "filters": [{"column": "nope", "op": "eq", "value": 1}]}})),
        )
        .await;
    assert_eq!((status, out["error"]["code"].as_str()), (400, Some("bad_request")), "{out}");
}
