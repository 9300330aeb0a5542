//! `/studio/api/database/*` and the SQL editor's plan and snippets, over HTTP against the real
//! server and database: roles with memberships, an extension enabled (SQL shown first, nothing
//! run) and disabled with audit rows, the platform's and the project's migrations, table sizes
//! that grow with the rows, an unused index and an unindexed foreign key with their suggested
//! SQL (not run), an `EXPLAIN ANALYZE` tree as a user (rolled back even for a write), snippets
//! each operator's own.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::studio::{add_operator, signed_in, studio_app, Studio};

async fn get(studio: &Studio, app: &TestApp, path: &str) -> Value {
    let (status, out) = studio.call(app, Method::GET, path, None).await;
    assert_eq!(status, 200, "{path}: {out}");
    out
}

async fn audited(app: &TestApp, action: &str) -> Vec<String> {
    let row = app
        .admin_query_one(&format!(
            "select coalesce(array_agg(coalesce(target, '') order by id), '{{}}') from _studio.audit_log where action = '{action}'"
        ))
        .await;
    row.get(0)
}

#[tokio::test]
async fn roles_are_listed_with_their_attributes_and_memberships() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let out = get(&studio, &app, "/studio/api/database/roles").await;
    let roles = out["roles"].as_array().expect("roles");
    let role =
        |name: &str| roles.iter().find(|r| r["name"] == name).cloned().unwrap_or_else(|| panic!("{name} listed"));
    assert_eq!(role("anon")["can_login"], false);
    assert_eq!(role("service_role")["bypass_rls"], true);
    assert_eq!(role("pg_monitor")["system"], true);
    assert_eq!(role("anon")["system"], false);
    let authenticator = role("authenticator");
    assert_eq!(authenticator["can_login"], true, "{authenticator}");
    let member_of: Vec<&str> =
        authenticator["member_of"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(member_of.contains(&"anon") && member_of.contains(&"authenticated"), "{authenticator}");
}

#[tokio::test]
async fn an_extension_is_shown_as_sql_then_enabled_and_disabled_with_audit_rows() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let path = "/studio/api/database/extensions";
    let citext = |out: &Value| out["extensions"].as_array().unwrap().iter().find(|e| e["name"] == "citext").cloned();
    let before = get(&studio, &app, path).await;
    assert!(citext(&before).expect("available")["installed_version"].is_null());

    // Shown first: nothing runs.
    let body = json!({"name": "citext", "enabled": true, "dry_run": true});
    let (status, shown) = studio.call(&app, Method::POST, path, Some(body)).await;
    assert_eq!(status, 200, "{shown}");
    assert_eq!(
        shown,
        json!({"sql": "create extension if not exists \"citext\" schema \"extensions\";", "applied": false})
    );
    assert!(citext(&get(&studio, &app, path).await).unwrap()["installed_version"].is_null());

    // Enabled into `extensions`, usable.
    let (status, done) = studio.call(&app, Method::POST, path, Some(json!({"name": "citext", "enabled": true}))).await;
    assert_eq!((status, done["applied"].clone()), (200, json!(true)), "{done}");
    let now = citext(&get(&studio, &app, path).await).unwrap();
    assert_eq!(now["schema"], "extensions");
    assert!(now["installed_version"].is_string());
    let same: bool = app.admin_query_one("select extensions.citext_eq('ABC', 'abc')").await.get(0);
    assert!(same);

    // A name that is not available is refused before any SQL is built.
    let (status, err) = studio
        .call(&app, Method::POST, path, Some(json!({"name": "x\"; drop table notes; --", "enabled": true})))
        .await;
    assert_eq!((status, err["error"]["code"].clone()), (400, json!("bad_request")), "{err}");

    // Disabling while a column uses it is refused by Postgres, and said so.
    app.admin_sql("create table public.tagged (name extensions.citext)").await;
    let (status, err) = studio.call(&app, Method::POST, path, Some(json!({"name": "citext", "enabled": false}))).await;
    assert_eq!((status, err["error"]["code"].clone()), (400, json!("database")), "{err}");
    app.admin_sql("drop table public.tagged").await;
    let (status, done) = studio.call(&app, Method::POST, path, Some(json!({"name": "citext", "enabled": false}))).await;
    assert_eq!(status, 200, "{done}");
    assert!(citext(&get(&studio, &app, path).await).unwrap()["installed_version"].is_null());
    assert_eq!(audited(&app, "extension.enable").await, vec!["citext"]);
    assert_eq!(audited(&app, "extension.disable").await, vec!["citext"]);
}

#[tokio::test]
async fn the_platforms_and_the_projects_migrations_are_listed() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    app.admin_sql(
        "create table if not exists supabase_migrations.schema_migrations (version text primary key, statements text[], name text);
         insert into supabase_migrations.schema_migrations (version, statements, name) values ('20240101000000', '{\"create table a ()\"}', 'first')
         on conflict do nothing",
    )
    .await;
    let out = get(&studio, &app, "/studio/api/database/migrations").await;
    let platform = out["platform"].as_array().expect("platform");
    assert!(platform.iter().any(|m| m["name"] == "studio_snippets" && m["version"] == "98"), "{platform:?}");
    let project = out["project"].as_array().expect("project");
    assert!(
        project.iter().any(|m| m == &json!({"version": "20240101000000", "name": "first", "statements": 1})),
        "{project:?}"
    );
}

#[tokio::test]
async fn table_sizes_and_index_hints_come_from_the_statistics() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    app.admin_sql(
        "create table public.parents (id int primary key);
         create table public.kids (id int primary key, parent int references public.parents, body text);
         insert into public.parents select generate_series(1, 10);
         insert into public.kids select i, 1 + i % 10, repeat('x', 3000) || i from generate_series(1, 2000) i;
         create index kids_body_idx on public.kids (body);
         analyze public.kids;",
    )
    .await;
    let sizes = get(&studio, &app, "/studio/api/database/table-sizes").await;
    let kids = sizes["tables"].as_array().unwrap().iter().find(|t| t["name"] == "kids").cloned().expect("kids");
    assert_eq!(kids["schema"], "public");
    assert_eq!(kids["estimated_rows"], 2000);
    let n = |k: &str| kids[k].as_i64().unwrap();
    assert!(n("table_bytes") > 0 && n("index_bytes") > 0, "{kids}");
    assert_eq!(n("total_bytes"), n("table_bytes") + n("index_bytes") + n("toast_bytes"), "{kids}");
    assert!(sizes["tables"].as_array().unwrap().iter().all(|t| t["schema"] != "_studio"));

    // Sequential scans on a table of 2,000 rows make it a candidate for an index.
    for _ in 0..3 {
        app.admin_sql("select count(*) from public.kids where length(body) > 0").await;
    }
    let found = crate::helpers::eventually(async || {
        let out = get(&studio, &app, "/studio/api/database/indexes").await;
        let seen = out["seq_scanned"].as_array()?.iter().any(|t| t["name"] == "kids");
        seen.then_some(out)
    })
    .await
    .expect("the statistics count the scans");
    let unused = found["unused"].as_array().unwrap();
    let body_idx = unused.iter().find(|i| i["name"] == "kids_body_idx").expect("the unused index");
    assert_eq!(body_idx["drop_sql"], "drop index concurrently if exists \"public\".\"kids_body_idx\";");
    assert!(unused.iter().all(|i| i["name"] != "kids_pkey"), "a primary key is never offered");
    let fk = found["unindexed_foreign_keys"].as_array().unwrap().iter().find(|f| f["table"] == "kids").expect("the fk");
    assert_eq!(fk["columns"], json!(["parent"]));
    assert_eq!(
        fk["create_sql"],
        "create index concurrently if not exists \"kids_parent_idx\" on \"public\".\"kids\" (\"parent\");"
    );
    // Suggestions are not run.
    let idx: i64 = app.admin_query_one("select count(*) from pg_indexes where tablename = 'kids'").await.get(0);
    assert_eq!(idx, 2);
}

#[tokio::test]
async fn explain_draws_the_plan_as_the_chosen_caller_and_always_rolls_back() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let (status, out) = studio
        .call(
            &app,
            Method::POST,
            "/studio/api/sql/explain",
            Some(json!({"sql": "select * from public.notes where id < 5 order by body;"})),
        )
        .await;
    assert_eq!(status, 200, "{out}");
    let top = &out["plan"][0];
    assert!(top["Execution Time"].is_number(), "{out}");
    assert_eq!(top["Plan"]["Node Type"], "Sort");
    assert!(top["Plan"]["Plans"][0]["Relation Name"] == "notes", "{out}");
    assert!(top["Plan"]["Shared Hit Blocks"].is_number(), "buffers are counted");

    // A write is really run by ANALYZE, then rolled back.
    let (status, out) = studio
        .call(&app, Method::POST, "/studio/api/sql/explain", Some(json!({"sql": "delete from public.notes"})))
        .await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["plan"][0]["Plan"]["Node Type"], "ModifyTable");
    let left: i64 = app.admin_query_one("select count(*) from public.notes").await.get(0);
    assert_eq!(left, 25);

    // As anon, row-level security hides every note: the scan returns none.
    let body = json!({"sql": "select * from public.notes", "run_as": {"kind": "anon"}});
    app.admin_sql("grant select on public.notes to anon").await;
    let (_, out) = studio.call(&app, Method::POST, "/studio/api/sql/explain", Some(body)).await;
    assert_eq!(out["plan"][0]["Plan"]["Actual Rows"], 0, "{out}");

    // An error is placed in the operator's text, not in the prefixed statement.
    let (_, out) = studio
        .call(&app, Method::POST, "/studio/api/sql/explain", Some(json!({"sql": "select nope from public.notes"})))
        .await;
    assert_eq!(out["error"]["position"], 8, "{out}");
    let (status, _) =
        studio.call(&app, Method::POST, "/studio/api/sql/explain", Some(json!({"sql": "select 1; select 2"}))).await;
    assert_eq!(status, 400);
    let explains: i64 =
        app.admin_query_one("select count(*) from _studio.audit_log where action = 'sql.explain'").await.get(0);
    assert_eq!(explains, 4);
}

#[tokio::test]
async fn snippets_are_saved_renamed_updated_and_deleted_by_their_operator_only() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let (status, made) = studio
        .call(&app, Method::POST, "/studio/api/snippets", Some(json!({"name": " Open notes ", "sql": "select 1"})))
        .await;
    assert_eq!(status, 201, "{made}");
    let id = made["snippet"]["id"].as_str().unwrap().to_string();
    assert_eq!(made["snippet"]["name"], "Open notes");
    let (status, clash) = studio
        .call(&app, Method::POST, "/studio/api/snippets", Some(json!({"name": "open NOTES", "sql": "select 2"})))
        .await;
    assert_eq!(status, 400, "{clash}");
    assert!(clash["error"]["message"].as_str().unwrap().contains("already have a snippet"));

    let path = format!("/studio/api/snippets/{id}");
    let (status, renamed) = studio.call(&app, Method::PATCH, &path, Some(json!({"name": "Done notes"}))).await;
    assert_eq!((status, renamed["snippet"]["sql"].clone()), (200, json!("select 1")), "{renamed}");
    let (_, saved) =
        studio.call(&app, Method::PATCH, &path, Some(json!({"sql": "select * from notes where done"}))).await;
    assert_eq!(saved["snippet"]["name"], "Done notes");
    let list = get(&studio, &app, "/studio/api/snippets").await;
    assert_eq!(list["snippets"][0]["sql"], "select * from notes where done");

    // Another operator neither sees nor touches it.
    add_operator(&app, "other@studio.test", "another long password").await;
    let other = Studio::sign_in(&app.http, &app.address, "other@studio.test", "another long password").await;
    assert_eq!(get(&other, &app, "/studio/api/snippets").await["snippets"], json!([]));
    assert_eq!(other.call(&app, Method::PATCH, &path, Some(json!({"name": "mine"}))).await.0, 404);
    assert_eq!(other.call(&app, Method::DELETE, &path, None).await.0, 404);

    let (status, _) = studio.call(&app, Method::DELETE, &path, None).await;
    assert_eq!(status, 204);
    assert_eq!(get(&studio, &app, "/studio/api/snippets").await["snippets"], json!([]));
    assert_eq!(audited(&app, "snippet.create").await, vec![id.clone()]);
    assert_eq!(audited(&app, "snippet.update").await, vec![id.clone(), id.clone()]);
    assert_eq!(audited(&app, "snippet.delete").await, vec![id]);
}
