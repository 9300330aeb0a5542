//! `/auth/v1` over HTTP against a real database: sign-up and confirmation through the
//! development inbox, sign-in errors, refresh-token reuse, the admin guard, rate limits shared
//! by two instances, and the user token accepted by `/rest/v1`.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::{every_connection, spawn_app, spawn_app_with, TestApp};

const V2024: (&str, &str) = ("x-supabase-api-version", "2024-01-01");

async fn inbox_token(app: &TestApp, email: &str) -> String {
    let messages = app.inbox(email).await;
    let link = messages.first().and_then(|m| m["link"].as_str()).expect("a mail with a link");
    let url = url::Url::parse(link).expect("link url");
    url.query_pairs().find(|(k, _)| k == "token").map(|(_, v)| v.into_owned()).expect("token in link")
}

/// Sign up and confirm; returns the session of the confirmation.
pub(crate) async fn confirmed(app: &TestApp, email: &str, password: &str) -> Value {
    let (status, _) = app.auth_post("/signup", json!({"email": email, "password": password})).await;
    assert_eq!(status, StatusCode::OK);
    let token_hash = inbox_token(app, email).await;
    let (status, session) = app.auth_post("/verify", json!({"type": "signup", "token_hash": token_hash})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    session
}

#[tokio::test]
async fn sign_up_sends_a_confirmation_whose_token_hash_signs_the_user_in() {
    let app = spawn_app().await;
    let (status, user) =
        app.auth_post("/signup", json!({"email": "Ann@Example.test", "password": "secret-1", "data": {"n": 1}})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(user["email"], "ann@example.test");
    assert!(user.get("email_confirmed_at").is_none());
    assert_eq!(user["user_metadata"]["n"], 1);

    let token_hash = inbox_token(&app, "ann@example.test").await;
    let (status, session) = app.auth_post("/verify", json!({"type": "signup", "token_hash": token_hash})).await;

    assert_eq!(status, StatusCode::OK);
    assert_eq!(session["token_type"], "bearer");
    assert!(session["user"]["email_confirmed_at"].is_string());
    let (status, signed_in) =
        app.auth_post("/token?grant_type=password", json!({"email": "ann@example.test", "password": "secret-1"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(signed_in["user"]["id"], user["id"]);
}

#[tokio::test]
async fn wrong_password_and_unknown_user_get_the_same_answer() {
    let app = spawn_app().await;
    confirmed(&app, "bob@example.test", "secret-1").await;

    let wrong =
        app.auth_post("/token?grant_type=password", json!({"email": "bob@example.test", "password": "nope-1"})).await;
    let unknown = app
        .auth_post("/token?grant_type=password", json!({"email": "nobody@example.test", "password": "nope-1"}))
        .await;

    assert_eq!(wrong, unknown);
    assert_eq!(wrong.0, StatusCode::BAD_REQUEST);
    assert_eq!(wrong.1, json!({"code": "invalid_credentials", "message": "Invalid login credentials"}));
}

#[tokio::test]
async fn email_not_confirmed_is_only_said_after_the_right_password() {
    let app = spawn_app().await;
    app.auth_post("/signup", json!({"email": "cy@example.test", "password": "secret-1"})).await;

    let right =
        app.auth_post("/token?grant_type=password", json!({"email": "cy@example.test", "password": "secret-1"})).await;
    let wrong =
        app.auth_post("/token?grant_type=password", json!({"email": "cy@example.test", "password": "secret-2"})).await;

    assert_eq!(right.1["code"], "email_not_confirmed");
    assert_eq!(wrong.1["code"], "invalid_credentials");
}

#[tokio::test]
async fn a_refresh_token_reused_outside_the_interval_revokes_the_session() {
    let app = spawn_app_with(|c| c.auth.refresh_token_reuse_interval = 0).await;
    let session = confirmed(&app, "dee@example.test", "secret-1").await;
    let first = session["refresh_token"].clone();
    let (status, rotated) = app.auth_post("/token?grant_type=refresh_token", json!({"refresh_token": first})).await;
    assert_eq!(status, StatusCode::OK);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;

    let (status, reused) = app.auth_post("/token?grant_type=refresh_token", json!({"refresh_token": first})).await;
    let (_, current) =
        app.auth_post("/token?grant_type=refresh_token", json!({"refresh_token": rotated["refresh_token"]})).await;

    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(reused["code"], "refresh_token_already_used");
    assert_eq!(current["code"], "refresh_token_already_used");
}

#[tokio::test]
async fn the_admin_api_wants_the_service_role() {
    let app = spawn_app().await;
    let url = format!("{}/auth/v1/admin/users", app.address);

    let anon = app.http.get(&url).bearer_auth(&app.anon_key).header(V2024.0, V2024.1).send().await.expect("anon");
    let none = app.http.get(&url).send().await.expect("no token");
    let service = app.http.get(&url).bearer_auth(&app.service_key).send().await.expect("service");

    assert_eq!(anon.status(), StatusCode::FORBIDDEN);
    assert_eq!(anon.json::<Value>().await.expect("json")["code"], "not_admin");
    assert_eq!(none.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(none.json::<Value>().await.expect("json")["error_code"], "no_authorization");
    assert_eq!(service.status(), StatusCode::OK);
    assert_eq!(service.headers()["x-total-count"], "0");
}

#[tokio::test]
async fn rate_limits_are_counted_in_the_database_across_instances() {
    let first = spawn_app_with(|c| c.auth.rate_limit_token_refresh = 2).await;
    let db_url = first.db_url.clone();
    let second = spawn_app_with(move |c| {
        c.database_url = Some(secrecy::SecretString::from(db_url));
        c.auth.rate_limit_token_refresh = 2;
    })
    .await;
    let body = json!({"email": "eve@example.test", "password": "secret-1"});

    let a = first.auth_post("/token?grant_type=password", body.clone()).await;
    let b = first.auth_post("/token?grant_type=password", body.clone()).await;
    let c = second.auth_post("/token?grant_type=password", body).await;

    assert_eq!(a.1["code"], "invalid_credentials");
    assert_eq!(b.1["code"], "invalid_credentials");
    assert_eq!(c.0, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(c.1["code"], "over_request_rate_limit");
}

#[tokio::test]
async fn the_user_access_token_passes_the_rest_gate_and_logins_are_audited() {
    let app = spawn_app().await;
    let session = confirmed(&app, "fay@example.test", "secret-1").await;
    let token = session["access_token"].as_str().expect("access token");

    let rest = app
        .http
        .get(format!("{}/rest/v1/", app.address))
        .header("apikey", &app.anon_key)
        .bearer_auth(token)
        .send()
        .await
        .expect("rest");

    assert_eq!(rest.status(), StatusCode::OK);
    let client = crate::helpers::connect(&app.db_url).await;
    let row = client
        .query_one("select count(*) from auth.audit_log_entries where payload->>'action' = 'login'", &[])
        .await
        .expect("audit");
    assert!(row.get::<_, i64>(0) >= 1);
}

#[tokio::test]
async fn without_secure_email_change_the_new_address_alone_confirms_the_change() {
    let app = spawn_app_with(|c| c.auth.secure_email_change = false).await;
    let session = confirmed(&app, "gus@example.test", "secret-1").await;
    let token = session["access_token"].as_str().expect("access token").to_string();

    let res = app
        .http
        .put(format!("{}/auth/v1/user", app.address))
        .bearer_auth(&token)
        .json(&json!({"email": "gus.new@example.test"}))
        .send()
        .await
        .expect("update user");
    assert_eq!(res.status(), StatusCode::OK);
    let token_hash = inbox_token(&app, "gus.new@example.test").await;
    let (status, verified) = app.auth_post("/verify", json!({"type": "email_change", "token_hash": token_hash})).await;

    assert_eq!(status, StatusCode::OK, "{verified}");
    assert_eq!(verified["user"]["email"], "gus.new@example.test");
    let old_inbox: Value = app
        .http
        .get(format!("{}/inbox/api/messages?to=gus@example.test", app.address))
        .send()
        .await
        .expect("inbox")
        .json()
        .await
        .expect("json");
    let kinds: Vec<&str> =
        old_inbox["messages"].as_array().expect("list").iter().filter_map(|m| m["kind"].as_str()).collect();
    assert!(!kinds.contains(&"email_change"), "no mail to the old address: {kinds:?}");
}

#[tokio::test]
async fn the_development_inbox_is_not_served_through_a_proxy() {
    let app = spawn_app().await;
    let url = format!("{}/inbox/api/messages", app.address);

    let direct = app.http.get(&url).send().await.expect("direct");
    let proxied = app.http.get(&url).header("x-forwarded-for", "203.0.113.9").send().await.expect("proxied");
    let page = app.http.get(format!("{}/inbox", app.address)).send().await.expect("page");

    assert_eq!(direct.status(), StatusCode::OK);
    assert_eq!(proxied.status(), StatusCode::NOT_FOUND);
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page.text().await.expect("html").contains("Development inbox"));
}

#[tokio::test]
async fn nul_bytes_in_credentials_are_a_client_error() {
    let app = spawn_app().await;
    for (path, body) in [
        ("/token?grant_type=password", json!({"email": "\u{0}", "password": "\u{0}"})),
        ("/token?grant_type=refresh_token", json!({"refresh_token": "\u{0}"})),
    ] {
        let (status, body) = app.auth_post(path, body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {body}");
        assert_eq!(body["code"], "validation_failed", "{path}");
    }
}

#[tokio::test]
async fn a_ban_duration_too_large_for_a_date_is_a_validation_error_and_the_server_still_answers() {
    let app = spawn_app().await;
    let url = format!("{}/auth/v1/admin/users", app.address);
    let created: Value = app
        .http
        .post(&url)
        .bearer_auth(&app.service_key)
        .header(V2024.0, V2024.1)
        .json(&json!({"email": "banned@example.test", "password": "secret-123"}))
        .send()
        .await
        .expect("create")
        .json()
        .await
        .expect("user json");
    let id = created["id"].as_str().expect("user id");

    for duration in ["99999999999h", "9223372036854775807s"] {
        let res = app
            .http
            .put(format!("{url}/{id}"))
            .bearer_auth(&app.service_key)
            .header(V2024.0, V2024.1)
            .json(&json!({"ban_duration": duration}))
            .send()
            .await
            .expect("the connection is answered");
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{duration}");
        assert_eq!(res.json::<Value>().await.expect("json")["code"], "validation_failed");
    }
    let res = app
        .http
        .put(format!("{url}/{id}"))
        .bearer_auth(&app.service_key)
        .json(&json!({"ban_duration": "1h"}))
        .send()
        .await;
    assert_eq!(res.expect("ban").status(), StatusCode::OK);
}

#[tokio::test]
async fn auth_statements_are_prepared_once_per_connection_and_reused() {
    let app = spawn_app().await;
    let session = confirmed(&app, "eve@example.test", "secret-1").await;
    let mut refresh = session["refresh_token"].clone();
    for _ in 0..3 {
        let (status, rotated) =
            app.auth_post("/token?grant_type=refresh_token", json!({"refresh_token": refresh})).await;
        assert_eq!(status, StatusCode::OK, "{rotated}");
        refresh = rotated["refresh_token"].clone();
    }
    // Every connection of the pool /auth/v1 uses, held at once, tells what it has prepared: a
    // statement run through the cache stays prepared there (a one-off query's statement is
    // closed when it is done), and three refreshes on at most four connections prepared the grant (the
    // batch statement) once on each connection that ran it, not once per refresh.
    let pool = &app.rest.admin;
    let connections = every_connection(pool).await;
    let mut prepared = 0;
    for client in &connections {
        let row = client
            .query_one(
                "select count(*) from pg_prepared_statements \
                 where statement like '%with ordinality as i(token, new_token, ip, limit_key, ord)%' \
                   and statement not like '%pg_prepared_statements%'",
                &[],
            )
            .await
            .expect("pg_prepared_statements");
        let n: i64 = row.get(0);
        assert!(n <= 1, "the grant is prepared once per connection, not per call ({n})");
        prepared += n;
    }
    assert!(prepared >= 1, "the refresh grant stays prepared on the connection that ran it");
}

/// The top-level statements Postgres ran in the app's database for `/auth/v1` and how often,
/// from pg_stat_statements: those that name the `auth` schema, and transaction control and
/// settings, which an auth request would need around them. The server's background work in the
/// same database (the realtime reader polls its slot every second) names neither, nor do the
/// statements that read pg_stat_statements.
pub(crate) async fn statements_run(db: &tokio_postgres::Client) -> std::collections::HashMap<String, i64> {
    db.query(
        "select s.query, s.calls from pg_stat_statements s join pg_database d on d.oid = s.dbid \
         where d.datname = current_database() and s.toplevel and s.query not like '%pg_stat_statements%' \
           and s.query ~* '(\\mauth\\.|^\\s*(begin|commit|rollback|start|set|savepoint|release)\\M)'",
        &[],
    )
    .await
    .expect("pg_stat_statements")
    .iter()
    .map(|r| (r.get(0), r.get(1)))
    .collect()
}

/// What ran between two readings of [`statements_run`].
pub(crate) fn ran_between(
    before: &std::collections::HashMap<String, i64>,
    after: &std::collections::HashMap<String, i64>,
) -> Vec<(String, i64)> {
    let mut ran: Vec<(String, i64)> = after
        .iter()
        .map(|(q, n)| (q.clone(), n - before.get(q).copied().unwrap_or(0)))
        .filter(|(_, n)| *n > 0)
        .collect();
    ran.sort();
    ran
}

#[tokio::test]
async fn a_refresh_a_user_look_up_and_a_sign_in_after_the_hash_are_one_statement_each() {
    let app = spawn_app().await;
    let session = confirmed(&app, "rtt@example.test", "secret-1").await;
    let db = crate::helpers::connect_with_statements(&app.db_url).await;

    // A refresh: one statement, rate limit, rotation and audit row included.
    let before = statements_run(&db).await;
    let (status, rotated) =
        app.auth_post("/token?grant_type=refresh_token", json!({"refresh_token": session["refresh_token"]})).await;
    assert_eq!(status, StatusCode::OK, "{rotated}");
    let ran = ran_between(&before, &statements_run(&db).await);
    assert_eq!(ran.len(), 1, "a refresh is one statement: {ran:?}");
    assert!(ran[0].0.contains("update auth.refresh_tokens rt set revoked"), "the batch's statement: {ran:?}");
    assert_eq!(ran[0].1, 1, "{ran:?}");
    // What the single statement did: the old token revoked, the new one its child, an audit row.
    let row = db
        .query_one(
            "select (select revoked from auth.refresh_tokens where token = $1), \
                    (select parent from auth.refresh_tokens where token = $2), \
                    (select count(*) from auth.audit_log_entries where payload->>'action' = 'token_refreshed')",
            &[&session["refresh_token"].as_str(), &rotated["refresh_token"].as_str()],
        )
        .await
        .expect("rotation");
    assert_eq!(row.get::<_, Option<bool>>(0), Some(true));
    assert_eq!(row.get::<_, Option<String>>(1).as_deref(), session["refresh_token"].as_str());
    assert_eq!(row.get::<_, i64>(2), 1);

    // `GET /user`: the user and its session in one statement.
    let before = statements_run(&db).await;
    let res = app
        .http
        .get(format!("{}/auth/v1/user", app.address))
        .header("apikey", &app.anon_key)
        .bearer_auth(rotated["access_token"].as_str().expect("access token"))
        .send()
        .await
        .expect("user");
    assert_eq!(res.status(), StatusCode::OK);
    let ran = ran_between(&before, &statements_run(&db).await);
    assert_eq!(ran.len(), 1, "GET /user is one statement: {ran:?}");
    assert!(ran[0].0.contains("session_exists"), "{ran:?}");

    // A password sign-in: the rate limit, the look-up before the hash, then one grant.
    let before = statements_run(&db).await;
    let (status, signed_in) =
        app.auth_post("/token?grant_type=password", json!({"email": "rtt@example.test", "password": "secret-1"})).await;
    assert_eq!(status, StatusCode::OK, "{signed_in}");
    let ran = ran_between(&before, &statements_run(&db).await);
    assert_eq!(ran.len(), 3, "sign-in is three statements: {ran:?}");
    assert!(ran.iter().any(|(q, n)| q.contains("auth.count_hit(") && *n == 1), "{ran:?}");
    assert!(ran.iter().any(|(q, n)| q.contains("auth.grant_session(") && *n == 1), "{ran:?}");
    assert!(signed_in["user"]["last_sign_in_at"].is_string(), "{signed_in}");
}

async fn put_user(app: &TestApp, token: &str, body: Value) -> (StatusCode, Value) {
    let res = app
        .http
        .put(format!("{}/auth/v1/user", app.address))
        .header("apikey", &app.anon_key)
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .expect("put user");
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

fn claims_of(token: &str) -> Value {
    use base64::Engine;
    let payload = token.split('.').nth(1).expect("payload");
    serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).expect("base64"))
        .expect("claims")
}

#[tokio::test]
async fn anonymous_sign_ins_are_refused_unless_enabled() {
    let app = spawn_app().await;
    let (status, body) = app.auth_post("/signup", json!({"data": {}})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["code"], "anonymous_provider_disabled");
    let settings = app.auth_settings().await;
    assert_eq!(settings["external"]["anonymous_users"], false);
}

#[tokio::test]
async fn an_anonymous_user_signs_in_then_becomes_permanent_by_confirming_an_address() {
    let app = spawn_app_with(|c| c.auth.anonymous_users_enabled = true).await;
    app.ddl(
        "create table public.carts (id serial primary key, owner uuid default auth.uid(), guest boolean
             default coalesce((auth.jwt()->>'is_anonymous')::boolean, false));
         alter table public.carts enable row level security;
         create policy own on public.carts for all using (owner = auth.uid()) with check (owner = auth.uid());
         grant usage on sequence public.carts_id_seq to authenticated;",
    )
    .await;
    let (status, session) = app.auth_post("/signup", json!({"data": {"nickname": "visitor"}})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let token = session["access_token"].as_str().expect("token").to_string();
    let claims = claims_of(&token);
    assert_eq!(claims["is_anonymous"], true);
    assert_eq!(claims["role"], "authenticated");
    assert_eq!(claims["amr"][0]["method"], "anonymous");
    let user = &session["user"];
    assert_eq!(user["is_anonymous"], true);
    assert_eq!(user["email"], "");
    assert_eq!(user["app_metadata"]["provider"], "anonymous");
    assert_eq!(user["user_metadata"]["nickname"], "visitor");
    let id = user["id"].as_str().expect("id").to_string();

    // RLS sees the claim: the row is the guest's own and marked as a guest's.
    let made = app
        .rest_req(reqwest::Method::POST, "/carts", Some(&token))
        .header("prefer", "return=representation")
        .json(&json!({}))
        .send()
        .await
        .expect("insert");
    assert_eq!(made.status(), StatusCode::CREATED);
    let made: Value = made.json().await.expect("json");
    assert_eq!(made[0]["owner"], id.as_str());
    assert_eq!(made[0]["guest"], true);

    // A password alone cannot be set on an anonymous user.
    let (status, body) = put_user(&app, &token, json!({"password": "secret-9"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["msg"], "Updating password of an anonymous user without an email or phone is not allowed");

    // With an address in the same request, the password is set and the address waits for its link.
    let (status, pending) =
        put_user(&app, &token, json!({"email": "guest@example.test", "password": "secret-9"})).await;
    assert_eq!(status, StatusCode::OK, "{pending}");
    assert_eq!(pending["is_anonymous"], true);
    assert_eq!(pending["new_email"], "guest@example.test");
    let token_hash = inbox_token(&app, "guest@example.test").await;
    let (status, _) = app.auth_post("/verify", json!({"type": "email_change", "token_hash": token_hash})).await;
    assert_eq!(status, StatusCode::OK);

    let (status, session) = app
        .auth_post("/token?grant_type=password", json!({"email": "guest@example.test", "password": "secret-9"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let user = &session["user"];
    assert_eq!(user["id"], id.as_str(), "the same user, now permanent");
    assert_eq!(user["is_anonymous"], false);
    assert_eq!(user["app_metadata"]["provider"], "email");
    assert_eq!(user["identities"][0]["provider"], "email");
    assert_eq!(claims_of(session["access_token"].as_str().expect("token"))["is_anonymous"], false);
    let rows: Value = app
        .rest_req(reqwest::Method::GET, "/carts", session["access_token"].as_str())
        .send()
        .await
        .expect("read")
        .json()
        .await
        .expect("json");
    assert_eq!(rows.as_array().map(Vec::len), Some(1), "the guest's rows are still theirs: {rows}");
}

#[tokio::test]
async fn anonymous_sign_ins_are_rate_limited_per_address() {
    let app = spawn_app_with(|c| {
        c.auth.anonymous_users_enabled = true;
        c.auth.rate_limit_anonymous_users = 2;
    })
    .await;
    for _ in 0..2 {
        assert_eq!(app.auth_post("/signup", json!({})).await.0, StatusCode::OK);
    }
    let (status, body) = app.auth_post("/signup", json!({})).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(body["code"], "over_request_rate_limit");
}

#[tokio::test]
async fn switched_off_features_answer_with_gotrue_s_own_errors_not_a_bare_404() {
    let app = spawn_app().await;
    let call = |method: reqwest::Method, path: &str| {
        app.http
            .request(method, format!("{}/auth/v1{path}", app.address))
            .header("apikey", &app.anon_key)
            .header(V2024.0, V2024.1)
            .bearer_auth(&app.service_key)
            .json(&json!({}))
    };
    use reqwest::Method as M;
    let (disabled, unsupported) = ("feature_disabled", "Unsupported provider: provider is not enabled");
    let cases = [
        (M::POST, "/sso", 404, "saml_provider_disabled", "SAML 2.0 is disabled"),
        (M::GET, "/sso/saml/metadata", 404, "saml_provider_disabled", "SAML 2.0 is disabled"),
        (M::GET, "/admin/sso/providers", 404, "saml_provider_disabled", "SAML 2.0 is disabled"),
        (M::GET, "/admin/oauth/clients", 404, disabled, "OAuth server is disabled"),
        (M::POST, "/passkeys/authentication/options", 404, "passkey_disabled", "Passkeys are disabled"),
        (M::GET, "/user/identities/authorize", 404, "manual_linking_disabled", "Manual linking is disabled"),
        (M::GET, "/authorize?provider=google", 400, "validation_failed", unsupported),
        (M::POST, "/token?grant_type=web3", 422, "web3_provider_disabled", "Web3 provider is disabled"),
        (M::GET, "/.well-known/oauth-authorization-server", 404, disabled, "OAuth server is disabled"),
        (M::GET, "/user/oauth/grants", 404, disabled, "OAuth server is disabled"),
        (M::GET, "/admin/custom-providers", 404, disabled, "Custom OAuth providers are disabled"),
        (M::GET, "/scim/v2/Users", 404, disabled, "SCIM server is disabled"),
    ];
    for (method, path, status, code, message) in cases {
        let res = call(method, path).send().await.expect("request");
        assert_eq!(res.status().as_u16(), status, "{path}");
        let body: Value = res.json().await.expect("json");
        assert_eq!((body["code"].as_str(), body["message"].as_str()), (Some(code), Some(message)), "{path}: {body}");
    }
    let res = call(reqwest::Method::POST, "/token?grant_type=id_token")
        .json(&json!({"provider": "google", "id_token": "x.y.z"}))
        .send()
        .await
        .expect("id_token");
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["code"], "provider_disabled");
    assert_eq!(body["message"], "Provider (issuer \"https://accounts.google.com\") is not enabled");
    let (status, body) = app.auth_post("/signup", json!({"email": "xx:;x@x.x", "password": "secret-1"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["message"], "Unable to validate email address: invalid format");
    // GoTrue serves its discovery document whatever its OAuth server's state
    let discovery: Value = call(reqwest::Method::GET, "/.well-known/openid-configuration")
        .send()
        .await
        .expect("discovery")
        .json()
        .await
        .expect("json");
    assert_eq!(discovery["issuer"], format!("{}/auth/v1", app.address));
    assert_eq!(discovery["jwks_uri"], format!("{}/auth/v1/.well-known/jwks.json", app.address));
    // the custom providers' admin API is the service role's: anyone else is refused first
    let res = app
        .http
        .get(format!("{}/auth/v1/admin/custom-providers", app.address))
        .header(V2024.0, V2024.1)
        .bearer_auth(&app.anon_key)
        .send()
        .await
        .expect("anon");
    assert_eq!(res.json::<Value>().await.expect("json")["code"], "not_admin");
    let bad_page = call(reqwest::Method::GET, "/admin/users?page=x").send().await.expect("page");
    assert_eq!(bad_page.status(), StatusCode::BAD_REQUEST);
    assert_eq!(bad_page.json::<Value>().await.expect("json")["code"], "validation_failed");
}

#[tokio::test]
async fn the_admin_api_lists_renames_and_deletes_a_user_s_factors() {
    let app = spawn_app().await;
    let session = confirmed(&app, "mfa-admin@example.test", "secret-1").await;
    let token = session["access_token"].as_str().expect("token");
    let user_id = session["user"]["id"].as_str().expect("id").to_string();
    let enrolled: Value = app
        .http
        .post(format!("{}/auth/v1/factors", app.address))
        .header("apikey", &app.anon_key)
        .bearer_auth(token)
        .json(&json!({"factor_type": "totp", "friendly_name": "phone"}))
        .send()
        .await
        .expect("enroll")
        .json()
        .await
        .expect("json");
    let factor = enrolled["id"].as_str().expect("factor id").to_string();
    let admin = |method: reqwest::Method, path: String| {
        app.http.request(method, format!("{}/auth/v1{path}", app.address)).bearer_auth(&app.service_key)
    };
    let listed: Value = admin(reqwest::Method::GET, format!("/admin/users/{user_id}/factors"))
        .send()
        .await
        .expect("list")
        .json()
        .await
        .expect("json");
    assert_eq!(listed[0]["id"], factor.as_str());
    assert_eq!(listed[0]["friendly_name"], "phone");
    let renamed: Value = admin(reqwest::Method::PUT, format!("/admin/users/{user_id}/factors/{factor}"))
        .json(&json!({"friendly_name": "work phone"}))
        .send()
        .await
        .expect("rename")
        .json()
        .await
        .expect("json");
    assert_eq!(renamed["friendly_name"], "work phone");
    let anon = app
        .http
        .get(format!("{}/auth/v1/admin/users/{user_id}/factors", app.address))
        .bearer_auth(&app.anon_key)
        .send()
        .await
        .expect("anon");
    assert_eq!(anon.status(), StatusCode::FORBIDDEN);
    let deleted = admin(reqwest::Method::DELETE, format!("/admin/users/{user_id}/factors/{factor}"))
        .send()
        .await
        .expect("delete");
    assert_eq!(deleted.status(), StatusCode::OK);
    let again =
        admin(reqwest::Method::DELETE, format!("/admin/users/{user_id}/factors/{factor}")).send().await.expect("again");
    assert_eq!(again.status(), StatusCode::NOT_FOUND);
    let listed: Value = admin(reqwest::Method::GET, format!("/admin/users/{user_id}/factors"))
        .send()
        .await
        .expect("list")
        .json()
        .await
        .expect("json");
    assert_eq!(listed, json!([]));
}

#[tokio::test]
async fn an_old_session_changes_its_password_only_with_the_mailed_reauthentication_nonce() {
    let app = spawn_app_with(|c| c.auth.update_password_require_reauthentication = true).await;
    let session = confirmed(&app, "reauth@example.test", "secret-1").await;
    let token = session["access_token"].as_str().expect("token").to_string();
    // A fresh session changes its password without a nonce.
    let (status, body) = put_user(&app, &token, json!({"password": "secret-2"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // A day later, it needs one.
    app.admin_sql("update auth.sessions set created_at = now() - interval '2 days', refreshed_at = null").await;
    let (status, body) = put_user(&app, &token, json!({"password": "secret-3"})).await;
    assert_eq!((status, body["error_code"].as_str()), (StatusCode::BAD_REQUEST, Some("reauthentication_needed")));
    let (status, body) = put_user(&app, &token, json!({"password": "secret-3", "nonce": "123456"})).await;
    assert_eq!(
        (status, body["error_code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("reauthentication_not_valid"))
    );

    let sent = app
        .http
        .get(format!("{}/auth/v1/reauthenticate", app.address))
        .header("apikey", &app.anon_key)
        .bearer_auth(&token)
        .send()
        .await
        .expect("reauthenticate");
    assert_eq!(sent.status(), StatusCode::OK);
    let inbox = app.inbox("reauth@example.test").await;
    let mail = inbox.iter().find(|m| m["kind"] == "reauthentication").expect("mail");
    let nonce = mail["text"].as_str().expect("text").trim().rsplit(' ').next().expect("code").to_string();
    let wrong = if nonce == "000000" { "111111" } else { "000000" };
    let (status, body) = put_user(&app, &token, json!({"password": "secret-3", "nonce": wrong})).await;
    assert_eq!((status, body["error_code"].as_str()), (StatusCode::BAD_REQUEST, Some("reauthentication_not_valid")));
    let (status, body) = put_user(&app, &token, json!({"password": "secret-3", "nonce": nonce})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _) = put_user(&app, &token, json!({"password": "secret-4", "nonce": nonce})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "a nonce is used once");
    let (status, _) = app
        .auth_post("/token?grant_type=password", json!({"email": "reauth@example.test", "password": "secret-3"}))
        .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn the_admin_audit_log_pages_newest_first_and_filters_by_query() {
    let app = spawn_app().await;
    confirmed(&app, "audited@example.test", "secret-1").await;
    let get = |path: &str| app.http.get(format!("{}/auth/v1{path}", app.address)).bearer_auth(&app.service_key).send();
    let all = get("/admin/audit?per_page=2").await.expect("audit");
    assert_eq!(all.status(), StatusCode::OK);
    let total: i64 = all.headers()["x-total-count"].to_str().expect("count").parse().expect("number");
    assert!(total >= 3, "sign-up, confirmation request and login at least: {total}");
    assert!(all.headers()["link"].to_str().expect("link").contains("rel=\"next\""));
    let entries: Value = all.json().await.expect("json");
    assert_eq!(entries.as_array().map(Vec::len), Some(2));
    assert!(entries[0]["created_at"].as_str() >= entries[1]["created_at"].as_str(), "newest first");
    let logins: Value = get("/admin/audit?query=LOGIN").await.expect("query").json().await.expect("json");
    let logins = logins.as_array().expect("array");
    assert!(!logins.is_empty() && logins.iter().all(|e| e["payload"]["action"] == "login"), "{logins:?}");
    let anon = app
        .http
        .get(format!("{}/auth/v1/admin/audit", app.address))
        .bearer_auth(&app.anon_key)
        .send()
        .await
        .expect("anon");
    assert_eq!(anon.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn factor_endpoints_check_the_token_before_the_factor_id() {
    let app = spawn_app().await;
    for path in ["/factors/test-factor-id/challenge", "/factors/test-factor-id/verify"] {
        let (status, body) = app.auth_post(path, json!({})).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(body["code"], "no_authorization", "{path}: {body}");
        assert_eq!(body["message"], "This endpoint requires a valid Bearer token");
    }
}

/// A confirmed user's session on a server that starts sessions under refresh-token algorithm 2.
async fn v2_app(reuse_interval: u64) -> (TestApp, Value) {
    session_of(2, "v2@example.test", move |c| c.auth.refresh_token_reuse_interval = reuse_interval).await
}

pub(crate) async fn refresh_with(app: &TestApp, token: &Value) -> (StatusCode, Value) {
    app.auth_post("/token?grant_type=refresh_token", json!({"refresh_token": token})).await
}

#[tokio::test]
async fn algorithm_2_sessions_sign_a_counter_and_write_no_token_rows() {
    let (app, session) = v2_app(10).await;
    let db = crate::helpers::connect(&app.db_url).await;
    let first = session["refresh_token"].as_str().expect("refresh token").to_string();
    let parsed = server::auth::refresh_token::parse(&first).expect("an algorithm-2 token");
    assert_eq!(parsed.counter, 0);
    let claims = claims_of(session["access_token"].as_str().expect("access token"));
    assert_eq!(claims["session_id"], parsed.session_id.to_string());

    let (status, second) = refresh_with(&app, &session["refresh_token"]).await;
    assert_eq!(status, StatusCode::OK, "{second}");
    let (status, third) = refresh_with(&app, &second["refresh_token"]).await;
    assert_eq!(status, StatusCode::OK, "{third}");

    let counters: Vec<i64> = [&second, &third]
        .iter()
        .map(|s| {
            let token = s["refresh_token"].as_str().unwrap_or_default();
            server::auth::refresh_token::parse(token).expect("parse").counter
        })
        .collect();
    assert_eq!(counters, vec![1, 2]);
    let row = db
        .query_one(
            "select (select count(*) from auth.refresh_tokens), \
                    (select refresh_token_counter from auth.sessions where id = $1), \
                    (select count(*) from auth.audit_log_entries where payload->>'action' = 'token_refreshed' \
                       and payload->>'log_type' = 'token' and payload->>'actor_id' = $2 \
                       and payload->>'actor_username' = 'v2@example.test')",
            &[&parsed.session_id, &session["user"]["id"].as_str()],
        )
        .await
        .expect("state");
    assert_eq!(row.get::<_, i64>(0), 0, "no token rows");
    assert_eq!(row.get::<_, Option<i64>>(1), Some(2));
    assert_eq!(row.get::<_, i64>(2), 2);
    // The access token still names the session.
    let claims = claims_of(third["access_token"].as_str().expect("access token"));
    assert_eq!(claims["session_id"], parsed.session_id.to_string());
}

#[tokio::test]
async fn algorithm_2_hands_the_current_token_back_for_the_previous_one_and_ends_the_session_for_older() {
    let (app, session) = v2_app(0).await;
    let (_, second) = refresh_with(&app, &session["refresh_token"]).await;
    let (_, third) = refresh_with(&app, &second["refresh_token"]).await;

    // The previous token again (a client that lost the answer): the current token, no new one.
    let (status, again) = refresh_with(&app, &second["refresh_token"]).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["refresh_token"], third["refresh_token"]);

    // Two behind, outside the reuse interval: refused, and the whole session is gone.
    let (status, reused) = refresh_with(&app, &session["refresh_token"]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(reused["code"], "refresh_token_already_used");
    let (status, current) = refresh_with(&app, &third["refresh_token"]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(current["code"], "refresh_token_not_found", "{current}");
}

#[tokio::test]
async fn algorithm_2_lets_any_older_token_back_within_the_reuse_interval() {
    let (app, session) = v2_app(30).await;
    let (_, second) = refresh_with(&app, &session["refresh_token"]).await;
    let (_, third) = refresh_with(&app, &second["refresh_token"]).await;

    let (status, again) = refresh_with(&app, &session["refresh_token"]).await;

    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["refresh_token"], third["refresh_token"]);
}

#[tokio::test]
async fn algorithm_2_refuses_forged_and_unknown_tokens_and_keeps_the_session() {
    use server::auth::refresh_token::{encode, new_key, parse};
    let (app, session) = v2_app(10).await;
    let token = session["refresh_token"].as_str().expect("token").to_string();
    let parsed = parse(&token).expect("parse");

    // The right session and counter, signed with another key.
    let forged = encode(parsed.session_id, parsed.counter, &new_key().0);
    let (status, body) = refresh_with(&app, &json!(forged)).await;
    assert_eq!((status, body["code"].clone()), (StatusCode::BAD_REQUEST, json!("refresh_token_not_found")));
    // A session that does not exist.
    let unknown = encode(uuid::Uuid::new_v4(), 0, &new_key().0);
    let (status, body) = refresh_with(&app, &json!(unknown)).await;
    assert_eq!((status, body["code"].clone()), (StatusCode::BAD_REQUEST, json!("refresh_token_not_found")));
    // A damaged token: not parsed as algorithm 2, and no such algorithm-1 row either.
    let (status, body) = refresh_with(&app, &json!(format!("{}x", &token[..token.len() - 1]))).await;
    assert_eq!((status, body["code"].clone()), (StatusCode::BAD_REQUEST, json!("refresh_token_not_found")));

    // None of that touched the session: its token still refreshes.
    let (status, body) = refresh_with(&app, &session["refresh_token"]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn a_counter_ahead_of_the_session_was_not_issued_by_this_server() {
    use server::auth::refresh_token::{encode, parse, stored_key};
    let (app, session) = v2_app(10).await;
    let parsed = parse(session["refresh_token"].as_str().expect("token")).expect("parse");
    let db = crate::helpers::connect(&app.db_url).await;
    let key: String = db
        .query_one("select refresh_token_hmac_key from auth.sessions where id = $1", &[&parsed.session_id])
        .await
        .expect("key")
        .get(0);
    let ahead = encode(parsed.session_id, 5, &stored_key(&key).expect("base64 key"));

    let (status, body) = refresh_with(&app, &json!(ahead)).await;

    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], "validation_failed");
    assert_eq!(body["message"], "Invalid Refresh Token: Not Issued By This Server");
}

#[tokio::test]
async fn algorithm_2_refresh_is_one_statement_and_algorithm_1_tokens_still_refresh() {
    let app = spawn_app().await;
    let old = confirmed(&app, "both@example.test", "secret-1").await;
    // The same database, now served with algorithm 2: the old session keeps its kind.
    let db_url = app.db_url.clone();
    let on_same = db_url.clone();
    let v2 = spawn_app_with(move |c| {
        c.database_url = Some(secrecy::SecretString::from(on_same));
        c.auth.refresh_token_algorithm_version = 2;
    })
    .await;
    let (status, rotated) = refresh_with(&v2, &old["refresh_token"]).await;
    assert_eq!(status, StatusCode::OK, "{rotated}");
    assert!(server::auth::refresh_token::parse(rotated["refresh_token"].as_str().unwrap_or_default()).is_none());

    let (status, fresh) =
        v2.auth_post("/token?grant_type=password", json!({"email": "both@example.test", "password": "secret-1"})).await;
    assert_eq!(status, StatusCode::OK, "{fresh}");
    let db = crate::helpers::connect_with_statements(&db_url).await;
    let before = statements_run(&db).await;
    let (status, next) = refresh_with(&v2, &fresh["refresh_token"]).await;
    assert_eq!(status, StatusCode::OK, "{next}");
    let ran = ran_between(&before, &statements_run(&db).await);
    assert_eq!(ran.len(), 1, "a refresh is one statement: {ran:?}");
    assert!(ran[0].0.contains("update auth.sessions ss"), "plain SQL, not the function: {ran:?}");
}

/// A session of `algorithm` on a server with that algorithm and `change` applied.
pub(crate) async fn session_of(
    algorithm: u8,
    email: &str,
    change: impl FnOnce(&mut server::config::Config),
) -> (TestApp, Value) {
    let app = spawn_app_with(move |c| {
        c.auth.refresh_token_algorithm_version = algorithm;
        change(c);
    })
    .await;
    let session = confirmed(&app, email, "secret-1").await;
    (app, session)
}

#[tokio::test]
async fn a_rate_limited_refresh_rotates_nothing_under_either_algorithm() {
    for algorithm in [1, 2] {
        let (app, session) =
            session_of(algorithm, "limited@example.test", |c| c.auth.rate_limit_token_refresh = 2).await;
        let (status, second) = refresh_with(&app, &session["refresh_token"]).await;
        assert_eq!(status, StatusCode::OK, "algorithm {algorithm}: {second}");
        let (status, third) = refresh_with(&app, &second["refresh_token"]).await;
        assert_eq!(status, StatusCode::OK, "algorithm {algorithm}: {third}");

        let (status, limited) = refresh_with(&app, &third["refresh_token"]).await;

        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "algorithm {algorithm}: {limited}");
        assert_eq!(limited["code"], "over_request_rate_limit");
        let db = crate::helpers::connect(&app.db_url).await;
        let row = db
            .query_one(
                "select (select count(*) from auth.audit_log_entries where payload->>'action' = 'token_refreshed'), \
                        (select count(*) from auth.refresh_tokens where not revoked), \
                        (select max(refresh_token_counter) from auth.sessions)",
                &[],
            )
            .await
            .expect("state");
        assert_eq!(row.get::<_, i64>(0), 2, "algorithm {algorithm}: two grants audited");
        if algorithm == 1 {
            assert_eq!(row.get::<_, i64>(1), 1, "the third token stays the one unrevoked");
        } else {
            assert_eq!(row.get::<_, Option<i64>>(2), Some(2), "the counter did not move");
        }
    }
}

#[tokio::test]
async fn a_banned_users_current_refresh_token_is_refused_under_either_algorithm() {
    for algorithm in [1, 2] {
        let (app, session) = session_of(algorithm, "banned-later@example.test", |_| {}).await;
        let db = crate::helpers::connect(&app.db_url).await;
        db.execute("update auth.users set banned_until = now() + interval '1 hour'", &[]).await.expect("ban");

        let (status, body) = refresh_with(&app, &session["refresh_token"]).await;

        assert_eq!(status, StatusCode::BAD_REQUEST, "algorithm {algorithm}: {body}");
        assert_eq!(body["code"], "user_banned", "algorithm {algorithm}");
        let audited: i64 = db
            .query_one("select count(*) from auth.audit_log_entries where payload->>'action' = 'token_refreshed'", &[])
            .await
            .expect("audit")
            .get(0);
        assert_eq!(audited, 0, "algorithm {algorithm}: nothing granted");
    }
}

#[tokio::test]
async fn two_tabs_refreshing_the_same_token_at_once_both_get_the_one_new_token() {
    for algorithm in [1, 2] {
        let (app, session) =
            session_of(algorithm, "tabs@example.test", |c| c.auth.refresh_token_reuse_interval = 10).await;

        let ((a_status, a), (b_status, b)) =
            tokio::join!(refresh_with(&app, &session["refresh_token"]), refresh_with(&app, &session["refresh_token"]));

        assert_eq!((a_status, b_status), (StatusCode::OK, StatusCode::OK), "algorithm {algorithm}: {a} {b}");
        assert_eq!(a["refresh_token"], b["refresh_token"], "algorithm {algorithm}");
        assert_ne!(a["refresh_token"], session["refresh_token"], "algorithm {algorithm}");
        let (status, next) = refresh_with(&app, &a["refresh_token"]).await;
        assert_eq!(
            status,
            StatusCode::OK,
            "algorithm {algorithm}: the shared token is the session's current one: {next}"
        );
    }
}
