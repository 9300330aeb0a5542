//! Database › Roles' writes and extension updates over HTTP against the real server and
//! database: a login role created (SQL shown first, nothing run; its password stored as a
//! SCRAM verifier and never in the audit log), altered, granted membership and table
//! privileges that Postgres then enforces, refused for the platform's roles, and dropped; an
//! extension installed at an older version updated to the newest, audited. Roles belong to the
//! cluster, not to the test's database: each test names its own and drops it.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::studio::{signed_in, studio_app, Studio};

async fn call(studio: &Studio, app: &TestApp, method: Method, path: &str, body: Option<Value>) -> Value {
    let (status, out) = studio.call(app, method, path, body).await;
    assert_eq!(status, 200, "{path}: {out}");
    out
}

async fn role_row(app: &TestApp, name: &str) -> Option<Value> {
    let row = app
        .admin_query_one(&format!(
            "select (select row_to_json(r)::text from (select rolcanlogin, rolinherit, rolcreatedb, rolconnlimit, \
               rolvaliduntil, rolpassword like 'SCRAM-SHA-256$4096:%' as scram from pg_authid where rolname = '{name}') r)"
        ))
        .await;
    row.get::<_, Option<String>>(0).map(|t| serde_json::from_str(&t).expect("json"))
}

#[tokio::test]
async fn a_login_role_is_created_altered_granted_and_dropped_with_its_password_kept_out_of_the_audit() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let name = format!("e2e_reporter_{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let password = "Sup3r-secret'pw";
    let create = json!({"name": name, "login": true, "inherit": true, "create_db": false, "create_role": false,
        "bypass_rls": false, "connection_limit": 3, "valid_until": "2030-01-01 00:00:00+00", "password": password});

    // Shown first: the password hidden, nothing created.
    let mut dry = create.clone();
    dry["dry_run"] = json!(true);
    let shown = call(&studio, &app, Method::POST, "/studio/api/database/roles", Some(dry)).await;
    assert_eq!(
        shown["sql"],
        format!("create role \"{name}\" with login inherit nocreatedb nocreaterole nobypassrls connection limit 3 valid until E'2030-01-01 00:00:00+00' password '********';")
    );
    assert_eq!(shown["applied"], false);
    assert!(role_row(&app, &name).await.is_none());

    let done = call(&studio, &app, Method::POST, "/studio/api/database/roles", Some(create.clone())).await;
    assert_eq!(done["applied"], true);
    let row = role_row(&app, &name).await.expect("created");
    assert_eq!((&row["rolcanlogin"], &row["rolconnlimit"], &row["scram"]), (&json!(true), &json!(3), &json!(true)));
    assert!(row["rolvaliduntil"].as_str().unwrap().starts_with("2030-01-01"), "{row}");

    // Listed, editable, with its attributes.
    let list = call(&studio, &app, Method::GET, "/studio/api/database/roles", None).await;
    let listed = list["roles"].as_array().unwrap().iter().find(|r| r["name"] == name.as_str()).expect("listed").clone();
    assert_eq!((&listed["can_login"], &listed["protected"]), (&json!(true), &Value::Null), "{listed}");
    let anon = list["roles"].as_array().unwrap().iter().find(|r| r["name"] == "anon").expect("anon").clone();
    assert_eq!(anon["protected"], "one of the platform's roles");

    // A second create of the same name is a clear 400.
    let (status, err) = studio.call(&app, Method::POST, "/studio/api/database/roles", Some(create)).await;
    assert_eq!((status, err["error"]["message"].clone()), (400, json!(format!("A role named {name} already exists"))));

    // Altered: no more login, no limit, no expiry, a new password.
    let path = format!("/studio/api/database/roles/{name}");
    let alter = json!({"login": false, "connection_limit": -1, "valid_until": "", "password": "an0ther-one"});
    let out = call(&studio, &app, Method::PATCH, &path, Some(alter)).await;
    assert_eq!(
        out["sql"],
        format!("alter role \"{name}\" with nologin connection limit -1 valid until E'infinity' password '********';")
    );
    let row = role_row(&app, &name).await.unwrap();
    assert_eq!((&row["rolcanlogin"], &row["rolconnlimit"]), (&json!(false), &json!(-1)), "{row}");

    // Membership in authenticated, then revoked.
    let membership = format!("{path}/membership");
    let out =
        call(&studio, &app, Method::POST, &membership, Some(json!({"role": "authenticated", "grant": true}))).await;
    assert_eq!(out["sql"], format!("grant \"authenticated\" to \"{name}\";"));
    let member: bool =
        app.admin_query_one(&format!("select pg_has_role('{name}', 'authenticated', 'member')")).await.get(0);
    assert!(member);
    // Membership in a superuser role is refused.
    let (status, err) =
        studio.call(&app, Method::POST, &membership, Some(json!({"role": "postgres", "grant": true}))).await;
    assert_eq!(status, 400, "{err}");
    call(&studio, &app, Method::POST, &membership, Some(json!({"role": "authenticated", "grant": false}))).await;
    let member: bool =
        app.admin_query_one(&format!("select pg_has_role('{name}', 'authenticated', 'member')")).await.get(0);
    assert!(!member);

    // Table privileges on one table, which Postgres then enforces.
    let privileges = format!("{path}/privileges");
    let out = call(
        &studio,
        &app,
        Method::POST,
        &privileges,
        Some(json!({"schema": "public", "table": "notes", "privileges": ["select"], "grant": true})),
    )
    .await;
    assert_eq!(
        out["sql"],
        format!("grant usage on schema \"public\" to \"{name}\";\ngrant select on table \"public\".\"notes\" to \"{name}\";")
    );
    let can: (bool, bool) = {
        let row = app
            .admin_query_one(&format!(
                "select has_table_privilege('{name}', 'public.notes', 'select'), has_table_privilege('{name}', 'public.notes', 'insert')"
            ))
            .await;
        (row.get(0), row.get(1))
    };
    assert_eq!(can, (true, false));
    let (status, err) = studio
        .call(
            &app,
            Method::POST,
            &privileges,
            Some(json!({"schema": "public", "table": "nope", "privileges": ["select"], "grant": true})),
        )
        .await;
    assert_eq!((status, err["error"]["code"].clone()), (404, json!("not_found")), "{err}");

    // A role with privileges is not dropped without `drop_owned`: Postgres says why.
    let (status, err) = studio.call(&app, Method::DELETE, &path, None).await;
    assert_eq!((status, err["error"]["code"].clone()), (400, json!("database")), "{err}");
    let shown = call(&studio, &app, Method::DELETE, &format!("{path}?drop_owned=true&dry_run=true"), None).await;
    assert_eq!(shown["sql"], format!("drop owned by \"{name}\";\ndrop role \"{name}\";"));
    assert!(role_row(&app, &name).await.is_some());
    call(&studio, &app, Method::DELETE, &format!("{path}?drop_owned=true"), None).await;
    assert!(role_row(&app, &name).await.is_none());

    // Every write audited; the password in none of the rows, "password set" where one was.
    let rows = app
        .admin_query_one(&format!(
            "select json_agg(json_build_object('action', action, 'detail', detail) order by id)::text \
             from _studio.audit_log where target = '{name}'"
        ))
        .await;
    let text: String = rows.get(0);
    assert!(!text.contains("Sup3r") && !text.contains("an0ther") && !text.contains("SCRAM"), "{text}");
    let audit: Value = serde_json::from_str(&text).unwrap();
    let actions: Vec<&str> = audit.as_array().unwrap().iter().filter_map(|r| r["action"].as_str()).collect();
    assert_eq!(
        actions,
        ["role.create", "role.alter", "role.grant", "role.revoke", "role.grant_privileges", "role.drop"]
    );
    assert_eq!(audit[0]["detail"]["password"], "set");
    assert!(audit[0]["detail"]["sql"].as_str().unwrap().contains("password '********'"));
}

#[tokio::test]
async fn the_platforms_roles_and_bad_forms_are_refused_clearly() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    for name in ["anon", "authenticated", "service_role", "authenticator", "postgres", "supabase_auth_admin"] {
        let (status, err) =
            studio.call(&app, Method::DELETE, &format!("/studio/api/database/roles/{name}"), None).await;
        assert_eq!(status, 400, "{name}: {err}");
        assert!(err["error"]["message"].as_str().unwrap().contains("platform's roles"), "{err}");
        let (status, _) = studio
            .call(&app, Method::PATCH, &format!("/studio/api/database/roles/{name}"), Some(json!({"login": true})))
            .await;
        assert_eq!(status, 400, "{name}");
    }
    let (status, err) = studio.call(&app, Method::DELETE, "/studio/api/database/roles/pg_monitor", None).await;
    assert_eq!((status, err["error"]["message"].clone()), (400, json!("pg_monitor is one of Postgres's own roles: it cannot be created, altered, dropped or granted roles here")));
    let (status, err) =
        studio.call(&app, Method::POST, "/studio/api/database/roles", Some(json!({"name": "supabase_evil"}))).await;
    assert_eq!(status, 400, "{err}");
    let (status, err) = studio.call(&app, Method::DELETE, "/studio/api/database/roles/no_such_role_here", None).await;
    assert_eq!((status, err["error"]["code"].clone()), (404, json!("not_found")), "{err}");
    let (status, err) = studio
        .call(
            &app,
            Method::POST,
            "/studio/api/database/roles",
            Some(json!({"name": "x", "connection_limit": -5, "dry_run": true})),
        )
        .await;
    assert_eq!((status, err["error"]["message"].clone()), (400, json!("The connection limit is -1 (none) or more")));
    let (status, err) =
        studio.call(&app, Method::POST, "/studio/api/database/roles", Some(json!({"name": "x", "login": "yes"}))).await;
    assert_eq!(status, 400, "{err}");
    let n: i64 = app.admin_query_one("select count(*) from _studio.audit_log where action like 'role.%'").await.get(0);
    assert_eq!(n, 0, "nothing refused is audited");
}

#[tokio::test]
async fn an_extension_installed_at_an_older_version_is_updated_with_its_sql_shown_and_audited() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    app.admin_sql("create extension pg_trgm with schema extensions version '1.5'").await;
    let path = "/studio/api/database/extensions";
    let list = call(&studio, &app, Method::GET, path, None).await;
    let trgm = list["extensions"].as_array().unwrap().iter().find(|e| e["name"] == "pg_trgm").unwrap().clone();
    assert_eq!(trgm["installed_version"], "1.5");
    let versions: Vec<&str> = trgm["versions"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(versions.contains(&"1.3") && versions.contains(&"1.6"), "{trgm}");
    assert_eq!(trgm["updates"], json!(["1.6"]), "{trgm}");
    let default = trgm["default_version"].as_str().unwrap();

    let update = format!("{path}/update");
    let shown = call(&studio, &app, Method::POST, &update, Some(json!({"name": "pg_trgm", "dry_run": true}))).await;
    assert_eq!(shown, json!({"sql": "alter extension \"pg_trgm\" update;", "applied": false}));
    let v: String = app.admin_query_one("select extversion from pg_extension where extname = 'pg_trgm'").await.get(0);
    assert_eq!(v, "1.5");

    // An older version, or one no script leads to, is refused.
    let (status, err) =
        studio.call(&app, Method::POST, &update, Some(json!({"name": "pg_trgm", "version": "1.3"}))).await;
    assert_eq!(status, 400, "{err}");
    let (status, err) = studio.call(&app, Method::POST, &update, Some(json!({"name": "citext"}))).await;
    assert_eq!((status, err["error"]["message"].clone()), (400, json!("The extension \"citext\" is not installed")));

    let done = call(&studio, &app, Method::POST, &update, Some(json!({"name": "pg_trgm", "version": default}))).await;
    assert_eq!(done["sql"], format!("alter extension \"pg_trgm\" update to E'{default}';"));
    let v: String = app.admin_query_one("select extversion from pg_extension where extname = 'pg_trgm'").await.get(0);
    assert_eq!(v, default);
    let list = call(&studio, &app, Method::GET, path, None).await;
    let trgm = list["extensions"].as_array().unwrap().iter().find(|e| e["name"] == "pg_trgm").unwrap().clone();
    assert_eq!(trgm["updates"], json!([]));
    let row = app
        .admin_query_one("select target, detail::text from _studio.audit_log where action = 'extension.update'")
        .await;
    assert_eq!(row.get::<_, String>(0), "pg_trgm");
    let detail: Value = serde_json::from_str(row.get::<_, &str>(1)).unwrap();
    assert_eq!((&detail["from"], &detail["to"]), (&json!("1.5"), &json!(default)));
}
