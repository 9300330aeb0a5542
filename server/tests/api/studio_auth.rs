//! `/studio/api/auth/*` and the API & keys routes against the real server: the users list
//! (search, filters, keyset pages), a user's page, the admin actions (create, invite, links,
//! ban, metadata, sign out everywhere, delete) doing what the auth surface does, each audited;
//! the keys (secrets only on an audited request) and the generated types equal to the CLI's.
//! (Their refusal without a session is in `studio.rs`'s route list.)

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{rental_project, TestApp};
use crate::studio::{signed_in, studio_app, Studio};

const PASSWORD: &str = "Str0ng-pass-2026";

async fn create_user(app: &TestApp, studio: &Studio, email: &str, confirm: bool) -> String {
    let body = json!({"email": email, "password": PASSWORD, "auto_confirm": confirm});
    let (status, out) = studio.call(app, Method::POST, "/studio/api/auth/users", Some(body)).await;
    assert_eq!(status, 201, "create {email}: {out}");
    out["user"]["id"].as_str().expect("an id").to_string()
}

async fn password_sign_in(app: &TestApp, email: &str) -> (u16, Value) {
    let (status, body) =
        app.auth_post("/token?grant_type=password", json!({"email": email, "password": PASSWORD})).await;
    (status.as_u16(), body)
}

async fn studio_actions(app: &TestApp) -> Vec<String> {
    let (client, conn) = tokio_postgres::connect(&app.db_url, tokio_postgres::NoTls).await.expect("connect");
    tokio::spawn(conn);
    let rows = client.query("select action from _studio.audit_log order by id", &[]).await.expect("audit");
    rows.iter().map(|r| r.get::<_, String>(0)).filter(|a| a != "signin").collect()
}

fn emails(list: &Value) -> Vec<String> {
    list["users"].as_array().expect("users").iter().map(|u| u["email"].as_str().unwrap_or("").to_string()).collect()
}

#[tokio::test]
async fn the_users_list_is_searched_filtered_and_paged_by_key() {
    // Arrange
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    app.admin_sql("delete from auth.users").await;
    for (i, confirm) in [true, true, false, true, true].iter().enumerate() {
        create_user(&app, &studio, &format!("person{i}@list.test"), *confirm).await;
    }
    app.admin_sql(
        "insert into auth.users (instance_id, id, aud, role, is_anonymous, created_at, updated_at) \
         values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', true, now(), now())",
    )
    .await;

    // Act: pages of two, following `next`
    let mut seen = Vec::new();
    let mut next: Option<String> = None;
    for _ in 0..10 {
        let after = next.as_deref().map(|n| format!("&after={}", urlencode(n))).unwrap_or_default();
        let (status, page) = studio
            .call(&app, Method::GET, &format!("/studio/api/auth/users?limit=2&anonymous=false{after}"), None)
            .await;
        assert_eq!(status, 200, "{page}");
        assert!(page["users"].as_array().unwrap().len() <= 2);
        seen.extend(emails(&page));
        next = page["next"].as_str().map(str::to_string);
        if next.is_none() {
            break;
        }
    }

    // Assert: newest first, every user once
    assert_eq!(seen, (0..5).rev().map(|i| format!("person{i}@list.test")).collect::<Vec<_>>());
    let get = |q: &'static str| studio.call(&app, Method::GET, q, None);
    assert_eq!(emails(&get("/studio/api/auth/users?q=PERSON3").await.1), ["person3@list.test"]);
    assert_eq!(emails(&get("/studio/api/auth/users?confirmed=false&anonymous=false").await.1), ["person2@list.test"]);
    assert_eq!(get("/studio/api/auth/users?anonymous=true").await.1["users"].as_array().unwrap().len(), 1);
    assert_eq!(get("/studio/api/auth/users?provider=email").await.1["users"].as_array().unwrap().len(), 5);
    assert_eq!(get("/studio/api/auth/users?mfa=true").await.1["users"], json!([]));
    assert_eq!(get("/studio/api/auth/users?after=garbage").await.0, 400);
}

#[tokio::test]
async fn a_banned_user_cannot_sign_in_loses_their_sessions_and_is_let_back_by_unbanning() {
    // Arrange
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let id = create_user(&app, &studio, "banned@ban.test", true).await;
    assert_eq!(password_sign_in(&app, "banned@ban.test").await.0, 200);
    let user = format!("/studio/api/auth/users/{id}");

    // Act
    let (status, out) = studio.call(&app, Method::POST, &format!("{user}/ban"), Some(json!({"duration": "24h"}))).await;

    // Assert
    assert_eq!(status, 200, "{out}");
    assert!(out["user"]["banned_until"].is_string());
    let (status, refused) = password_sign_in(&app, "banned@ban.test").await;
    assert_eq!((status, refused["code"].as_str()), (400, Some("user_banned")), "{refused}");
    let (_, page) = studio.call(&app, Method::GET, &user, None).await;
    assert_eq!(page["sessions"], json!([]), "the ban ended the session");
    let (_, list) = studio.call(&app, Method::GET, "/studio/api/auth/users?banned=true", None).await;
    assert_eq!(emails(&list), ["banned@ban.test"]);

    let bad = studio.call(&app, Method::POST, &format!("{user}/ban"), Some(json!({"duration": "forever"}))).await;
    assert_eq!((bad.0, bad.1["error"]["code"].as_str()), (400, Some("bad_request")));
    let (status, _) = studio.call(&app, Method::POST, &format!("{user}/ban"), Some(json!({"duration": "none"}))).await;
    assert_eq!(status, 200);
    assert_eq!(password_sign_in(&app, "banned@ban.test").await.0, 200);
    assert_eq!(studio_actions(&app).await, ["auth.users.create", "auth.users.ban", "auth.users.unban"]);
}

#[tokio::test]
async fn a_users_page_shows_identities_sessions_and_events_and_sign_out_ends_every_session() {
    // Arrange
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let id = create_user(&app, &studio, "page@user.test", true).await;
    password_sign_in(&app, "page@user.test").await;
    let (_, signed) = password_sign_in(&app, "page@user.test").await;
    let user = format!("/studio/api/auth/users/{id}");

    // Act
    let (status, page) = studio.call(&app, Method::GET, &user, None).await;

    // Assert
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["user"]["email"], "page@user.test");
    assert_eq!(page["identities"][0]["provider"], "email");
    assert_eq!(page["factors"], json!([]));
    assert_eq!(page["sessions"].as_array().unwrap().len(), 2);
    assert_eq!(page["sessions"][0]["aal"], "aal1");
    let actions: Vec<&str> = page["events"].as_array().unwrap().iter().filter_map(|e| e["action"].as_str()).collect();
    assert!(actions.contains(&"login") && actions.contains(&"user_signedup"), "{actions:?}");

    let (status, ended) = studio.call(&app, Method::POST, &format!("{user}/sign-out"), None).await;
    assert_eq!((status, ended), (200, json!({"ended": 2})));
    assert_eq!(studio.call(&app, Method::GET, &user, None).await.1["sessions"], json!([]));
    let refresh = signed["refresh_token"].as_str().expect("a refresh token");
    let (status, _) = app.auth_post("/token?grant_type=refresh_token", json!({"refresh_token": refresh})).await;
    assert_eq!(status.as_u16(), 400, "the refresh token died with its session");
    assert_eq!(studio.call(&app, Method::GET, "/studio/api/auth/users/not-a-uuid", None).await.0, 404);
}

#[tokio::test]
async fn metadata_is_replaced_as_edited_and_must_be_an_object() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let id = create_user(&app, &studio, "meta@user.test", true).await;
    let path = format!("/studio/api/auth/users/{id}/metadata");

    let body = json!({"user_metadata": {"name": "Ann"}, "app_metadata": {"plan": "pro", "provider": "email"}});
    let (status, out) = studio.call(&app, Method::PUT, &path, Some(body)).await;

    assert_eq!(status, 200, "{out}");
    assert_eq!(out["user"]["user_metadata"], json!({"name": "Ann"}));
    assert_eq!(out["user"]["app_metadata"], json!({"plan": "pro", "provider": "email"}));
    let (status, refused) = studio.call(&app, Method::PUT, &path, Some(json!({"user_metadata": [1, 2]}))).await;
    assert_eq!((status, refused["error"]["code"].as_str()), (400, Some("bad_request")));
    assert_eq!(studio_actions(&app).await, ["auth.users.create", "auth.users.metadata"]);
}

#[tokio::test]
async fn invites_and_links_are_mailed_through_the_auth_mailer() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;

    let (status, invited) =
        studio.call(&app, Method::POST, "/studio/api/auth/invite", Some(json!({"email": "Guest@Invite.test"}))).await;
    assert_eq!(status, 200, "{invited}");
    assert!(invited["user"]["invited_at"].is_string());
    assert_eq!(app.inbox("guest@invite.test").await.len(), 1, "the invite mail");
    let again = studio.call(&app, Method::POST, "/studio/api/auth/invite", Some(json!({"email": "nope"}))).await;
    assert_eq!(again.0, 400);

    let send = |id: String, kind: &'static str| {
        let path = format!("/studio/api/auth/users/{id}/send-link");
        let studio = &studio;
        let app = &app;
        async move { studio.call(app, Method::POST, &path, Some(json!({"kind": kind}))).await }
    };
    let recover = create_user(&app, &studio, "recover@user.test", true).await;
    assert_eq!(send(recover.clone(), "recovery").await.0, 200);
    assert_eq!(app.inbox("recover@user.test").await.len(), 1, "the recovery mail");
    let (status, spaced) = send(recover, "recovery").await;
    assert_eq!(status, 400, "GoTrue's per-user spacing is kept: {spaced}");
    assert!(spaced["error"]["message"].as_str().unwrap_or("").contains("seconds"), "{spaced}");
    let magic = create_user(&app, &studio, "magic@user.test", true).await;
    assert_eq!(send(magic, "magiclink").await.0, 200);
    assert_eq!(app.inbox("magic@user.test").await.len(), 1, "the magic link mail");
    assert_eq!(
        studio_actions(&app).await,
        ["auth.users.invite", "auth.users.create", "auth.users.send_link", "auth.users.create", "auth.users.send_link"]
    );
}

#[tokio::test]
async fn users_are_deleted_softly_or_for_good() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let soft = create_user(&app, &studio, "soft@delete.test", true).await;
    let hard = create_user(&app, &studio, "hard@delete.test", true).await;

    let res =
        studio.call(&app, Method::DELETE, &format!("/studio/api/auth/users/{soft}"), Some(json!({"soft": true}))).await;
    assert_eq!(res.0, 204, "{}", res.1);
    let res = studio
        .call(&app, Method::DELETE, &format!("/studio/api/auth/users/{hard}"), Some(json!({"soft": false})))
        .await;
    assert_eq!(res.0, 204, "{}", res.1);

    let row = app
        .admin_query_one(&format!(
            "select count(*) filter (where id = '{hard}'), \
                    count(*) filter (where id = '{soft}' and deleted_at is not null and email is null) from auth.users"
        ))
        .await;
    assert_eq!((row.get::<_, i64>(0), row.get::<_, i64>(1)), (0, 1));
    assert_eq!(password_sign_in(&app, "soft@delete.test").await.0, 400);
    let (_, list) = studio.call(&app, Method::GET, "/studio/api/auth/users?q=delete.test", None).await;
    assert_eq!(list["users"], json!([]));
    let gone = studio.call(&app, Method::DELETE, &format!("/studio/api/auth/users/{hard}"), None).await;
    assert_eq!(gone.0, 404);
}

#[tokio::test]
async fn the_api_page_shows_public_keys_and_reveals_a_secret_only_on_an_audited_request() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;

    let (status, settings) = studio.call(&app, Method::GET, "/studio/api/project/api", None).await;
    assert_eq!(status, 200);
    assert_eq!(settings["url"], app.address.as_str());
    assert_eq!(settings["publishable_key"], app.publishable_key.as_str());
    assert_eq!(settings["anon_key"], app.anon_key.as_str());
    let text = settings.to_string();
    assert!(!text.contains(&app.secret_key) && !text.contains(&app.service_key), "no secret on the page");

    let url = format!("{}/studio/api/project/api/reveal", app.address);
    let res =
        app.http.post(&url).header("cookie", &studio.cookie).json(&json!({"key": "secret"})).send().await.unwrap();
    assert_eq!(res.status(), 403, "not without the CSRF token");
    let (status, secret) =
        studio.call(&app, Method::POST, "/studio/api/project/api/reveal", Some(json!({"key": "secret"}))).await;
    assert_eq!((status, secret["key"].as_str()), (200, Some(app.secret_key.as_str())));
    let (_, service) =
        studio.call(&app, Method::POST, "/studio/api/project/api/reveal", Some(json!({"key": "service_role"}))).await;
    assert_eq!(service["key"], app.service_key.as_str());
    assert_eq!(studio_actions(&app).await, ["keys.reveal", "keys.reveal"]);
    let audit = app
        .admin_query_one("select string_agg(detail::text || coalesce(target, ''), ' ') from _studio.audit_log")
        .await;
    assert!(!audit.get::<_, String>(0).contains(&app.secret_key), "the key itself is not audited");
}

/// What `server gen types typescript` prints for the app's database with `args`.
async fn cli_types(app: &TestApp, args: &[&str]) -> String {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_server"))
        .args(["gen", "types", "typescript", "--db-url", &app.db_url])
        .args(args)
        .env_remove("DATABASE_URL")
        .env("SUPABASE_PROJECT_DIR", rental_project())
        .env("RUST_LOG", "warn")
        .output()
        .await
        .expect("run the server binary");
    assert!(out.status.success(), "gen types failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

async fn studio_types(app: &TestApp, studio: &Studio, query: &str) -> String {
    let res = studio.req(app, Method::GET, &format!("/studio/api/types{query}")).send().await.expect("types");
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"].to_str().expect("a content type").starts_with("text/plain"));
    res.text().await.expect("text")
}

#[tokio::test]
async fn the_types_endpoint_prints_what_the_cli_prints_for_the_same_database() {
    let app = studio_app().await;
    let studio = signed_in(&app).await;

    let served = studio_types(&app, &studio, "").await;
    let printed = cli_types(&app, &[]).await;
    assert!(served.contains("export type Database"), "{served}");
    assert!(served.contains("notes: {"), "the test's table is typed");
    assert_eq!(served, printed, "the default schemas");

    let served = studio_types(&app, &studio, "?schema=public&schema=storage").await;
    assert_eq!(served, cli_types(&app, &["--schema", "public", "--schema", "storage"]).await);
    assert!(served.contains("storage: {"));
}

fn urlencode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
