//! The custom-access-token hook (`[auth.hook.custom_access_token]`) against the real server:
//! a Postgres function that adds a claim a row-level-security policy then reads through
//! `/rest/v1`, GoTrue's input, a refusal, an answer missing a required claim, and the same hook
//! as a signed HTTP endpoint (a standard webhook); and the password- and MFA-verification-attempt
//! hooks locking a user out.

use std::sync::{Arc, Mutex};

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use reqwest::StatusCode;
use serde_json::{json, Value};
use sha2::Sha256;

use crate::helpers::{spawn_app_with, TestApp};

/// Notes only a `user_role = boss` token may read.
async fn boss_notes(app: &TestApp) {
    app.ddl(
        "create table public.boss_notes (id int primary key, body text);
         insert into public.boss_notes values (1, 'secret plan');
         alter table public.boss_notes enable row level security;
         grant select on public.boss_notes to authenticated;
         create policy bosses_read on public.boss_notes for select to authenticated
           using (auth.jwt() ->> 'user_role' = 'boss');",
    )
    .await;
}

async fn notes_seen_with(app: &TestApp, token: &str) -> Value {
    let res = app.rest_req(reqwest::Method::GET, "/boss_notes?select=body", Some(token)).send().await.expect("rest");
    assert_eq!(res.status(), StatusCode::OK);
    res.json().await.expect("json")
}

/// Sign up (confirmed at once, so the sign-up issues a token too) and sign in with the password.
async fn sign_up_and_in(app: &TestApp, email: &str) -> (StatusCode, Value) {
    let (status, body) = app.auth_post("/signup", json!({"email": email, "password": "secret-1"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    app.auth_post("/token?grant_type=password", json!({"email": email, "password": "secret-1"})).await
}

/// A sign-up that is confirmed at once, so it issues a token: its status and answer.
async fn sign_up(app: &TestApp, email: &str) -> (StatusCode, Value) {
    app.auth_post("/signup", json!({"email": email, "password": "secret-1"})).await
}

fn payload(token: &str) -> Value {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let part = token.split('.').nth(1).expect("payload");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).expect("base64")).expect("claims")
}

#[tokio::test]
async fn a_pg_function_hook_adds_a_claim_that_a_rest_policy_reads() {
    let app = spawn_app_with(|c| {
        c.auth.mailer_autoconfirm = true;
        c.auth.hook_custom_access_token_enabled = true;
        c.auth.hook_custom_access_token_uri = Some("pg-functions://postgres/public/access_token_hook".into());
    })
    .await;
    boss_notes(&app).await;
    app.admin_sql(
        "create table public.hook_inputs (event jsonb);
         create function public.access_token_hook(event jsonb) returns jsonb language plpgsql as $$
         begin
           insert into public.hook_inputs values (event);
           if event -> 'claims' ->> 'email' = 'refused@example.test' then
             return jsonb_build_object('error', jsonb_build_object('http_code', 403, 'message', 'Not today'));
           end if;
           if event -> 'claims' ->> 'email' = 'broken@example.test' then
             return jsonb_build_object('claims', (event -> 'claims') - 'role');
           end if;
           return jsonb_build_object('claims', jsonb_set(event -> 'claims', '{user_role}', '\"boss\"'));
         end $$;",
    )
    .await;

    let (status, session) = sign_up_and_in(&app, "boss@example.test").await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let token = session["access_token"].as_str().expect("token");
    assert_eq!(payload(token)["user_role"], "boss");
    assert_eq!(notes_seen_with(&app, token).await, json!([{"body": "secret plan"}]));

    let row = app
        .admin_query_one(
            "select event from public.hook_inputs where event ->> 'authentication_method' = 'password' limit 1",
        )
        .await;
    let event: Value = row.get(0);
    assert_eq!(event["user_id"], session["user"]["id"]);
    assert_eq!(event["claims"]["sub"], session["user"]["id"]);
    assert_eq!(event["claims"]["role"], "authenticated");
    assert_eq!(event["metadata"]["name"], "customize-access-token");

    let (status, refreshed) =
        app.auth_post("/token?grant_type=refresh_token", json!({"refresh_token": session["refresh_token"]})).await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");
    assert_eq!(payload(refreshed["access_token"].as_str().expect("token"))["user_role"], "boss");

    let (status, body) = sign_up(&app, "refused@example.test").await;
    assert_eq!(
        (status, &body["code"], &body["message"]),
        (StatusCode::FORBIDDEN, &json!("unknown"), &json!("Not today"))
    );

    let (status, body) = sign_up(&app, "broken@example.test").await;
    assert_eq!((status, &body["code"]), (StatusCode::INTERNAL_SERVER_ERROR, &json!("unexpected_failure")), "{body}");
    assert_eq!(body["message"], "output claims do not conform to the expected schema: \n- (root): role is required\n");
}

#[tokio::test]
async fn an_http_hook_gets_a_signed_standard_webhook_and_its_claims_are_used() {
    use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
    let key = b"hook signing key".to_vec();
    let secret = format!("v1,whsec_{}", STANDARD.encode(&key));
    let received: Arc<Mutex<Vec<Value>>> = Arc::default();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (seen, signing_key) = (received.clone(), key.clone());
    let server = HttpServer::new(move || {
        let (seen, signing_key) = (seen.clone(), signing_key.clone());
        App::new().default_service(web::to(move |req: HttpRequest, body: web::Bytes| {
            let (seen, signing_key) = (seen.clone(), signing_key.clone());
            async move {
                let header =
                    |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
                let mut mac = Hmac::<Sha256>::new_from_slice(&signing_key).expect("key");
                mac.update(format!("{}.{}.", header("webhook-id"), header("webhook-timestamp")).as_bytes());
                mac.update(&body);
                let expected = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
                if header("webhook-signature") != expected {
                    return HttpResponse::Unauthorized().finish();
                }
                let event: Value = serde_json::from_slice(&body).expect("json input");
                seen.lock().expect("lock").push(event.clone());
                let mut claims = event["claims"].clone();
                claims["user_role"] = json!("boss");
                HttpResponse::Ok().json(json!({ "claims": claims }))
            }
        }))
    })
    .workers(1)
    .listen(listener)
    .expect("listen");
    tokio::spawn(server.run());

    let app = spawn_app_with(|c| {
        c.auth.mailer_autoconfirm = true;
        c.auth.hook_custom_access_token_enabled = true;
        c.auth.hook_custom_access_token_uri = Some(format!("http://127.0.0.1:{port}/hook"));
        c.auth.hook_custom_access_token_secrets = Some(secrecy::SecretString::from(secret));
    })
    .await;
    boss_notes(&app).await;
    let (status, session) = sign_up_and_in(&app, "webhook@example.test").await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let token = session["access_token"].as_str().expect("token");
    assert_eq!(notes_seen_with(&app, token).await, json!([{"body": "secret plan"}]));
    let events = received.lock().expect("lock").clone();
    assert!(events.iter().any(|e| e["authentication_method"] == "password" && e["user_id"] == session["user"]["id"]));
}

#[tokio::test]
async fn an_unreachable_http_hook_fails_the_token_with_gotrues_error() {
    let app = spawn_app_with(|c| {
        c.auth.mailer_autoconfirm = true;
        c.auth.hook_custom_access_token_enabled = true;
        // Nothing listens on port 9 of this host: the hook cannot be reached.
        c.auth.hook_custom_access_token_uri = Some("http://127.0.0.1:9/hook".into());
        c.auth.hook_custom_access_token_secrets = Some(secrecy::SecretString::from("v1,whsec_YWJj"));
    })
    .await;
    let (status, body) = sign_up(&app, "unreachable@example.test").await;
    assert_eq!(
        (status, &body["code"]),
        (StatusCode::UNPROCESSABLE_ENTITY, &json!("hook_timeout_after_retry")),
        "{body}"
    );
}

#[tokio::test]
async fn a_password_verification_attempt_hook_locks_out_a_user_after_failed_attempts() {
    let app = spawn_app_with(|c| {
        c.auth.mailer_autoconfirm = true;
        c.auth.hook_password_verification_attempt_enabled = true;
        c.auth.hook_password_verification_attempt_uri =
            Some("pg-functions://postgres/public/password_attempt_hook".into());
    })
    .await;
    app.admin_sql(
        "create table public.failed_attempts (user_id uuid);
         create function public.password_attempt_hook(event jsonb) returns jsonb language plpgsql as $$
         begin
           if not (event ->> 'valid')::boolean then
             insert into public.failed_attempts values ((event ->> 'user_id')::uuid);
           end if;
           if (select count(*) from public.failed_attempts where user_id = (event ->> 'user_id')::uuid) >= 2 then
             return jsonb_build_object('decision', 'reject', 'message', 'Too many attempts', 'should_logout_user', true);
           end if;
           return jsonb_build_object('decision', 'continue');
         end $$;",
    )
    .await;
    let (status, session) = sign_up_and_in(&app, "locked@example.test").await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let wrong = json!({"email": "locked@example.test", "password": "wrong-one"});
    let (status, body) = app.auth_post("/token?grant_type=password", wrong.clone()).await;
    assert_eq!(
        (status, &body["code"], &body["message"]),
        (StatusCode::BAD_REQUEST, &json!("invalid_credentials"), &json!("Invalid login credentials"))
    );
    let (status, body) = app.auth_post("/token?grant_type=password", wrong).await;
    assert_eq!(
        (status, &body["code"], &body["message"]),
        (StatusCode::BAD_REQUEST, &json!("invalid_credentials"), &json!("Too many attempts"))
    );

    let right = json!({"email": "locked@example.test", "password": "secret-1"});
    let (status, body) = app.auth_post("/token?grant_type=password", right).await;
    assert_eq!(
        (status, &body["message"]),
        (StatusCode::BAD_REQUEST, &json!("Too many attempts")),
        "the right password is refused too"
    );
    let row = app.admin_query_one("select count(*) from auth.sessions s join auth.users u on u.id = s.user_id where u.email = 'locked@example.test'").await;
    assert_eq!(row.get::<_, i64>(0), 0, "the user was logged out everywhere");
}

#[tokio::test]
async fn an_mfa_verification_attempt_hook_rejecting_a_wrong_code_logs_the_user_out() {
    let app = spawn_app_with(|c| {
        c.auth.mailer_autoconfirm = true;
        c.auth.hook_mfa_verification_attempt_enabled = true;
        c.auth.hook_mfa_verification_attempt_uri = Some("pg-functions://postgres/public/mfa_attempt_hook".into());
    })
    .await;
    app.admin_sql(
        "create table public.mfa_inputs (event jsonb);
         create function public.mfa_attempt_hook(event jsonb) returns jsonb language plpgsql as $$
         begin
           insert into public.mfa_inputs values (event);
           if not (event ->> 'valid')::boolean then
             return jsonb_build_object('decision', 'reject', 'message', 'No more guesses');
           end if;
           return jsonb_build_object('decision', 'continue');
         end $$;",
    )
    .await;
    let (status, session) = sign_up_and_in(&app, "mfa-hook@example.test").await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let token = session["access_token"].as_str().expect("token");
    let (status, factor) = app.auth_post_as(token, "/factors", json!({"factor_type": "totp"})).await;
    assert_eq!(status, StatusCode::OK, "{factor}");
    let id = factor["id"].as_str().expect("id");
    let (status, challenge) = app.auth_post_as(token, format!("/factors/{id}/challenge"), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{challenge}");
    let (status, body) = app
        .auth_post_as(
            token,
            format!("/factors/{id}/verify"),
            json!({"challenge_id": challenge["id"], "code": "000000"}),
        )
        .await;
    assert_eq!(
        (status, &body["code"], &body["message"]),
        (StatusCode::FORBIDDEN, &json!("mfa_verification_rejected"), &json!("No more guesses")),
        "{body}"
    );
    let row = app.admin_query_one("select event from public.mfa_inputs limit 1").await;
    let event: Value = row.get(0);
    assert_eq!(
        (&event["factor_id"], &event["factor_type"], &event["valid"]),
        (&json!(id), &json!("totp"), &json!(false))
    );
    let row = app
        .admin_query_one(
            "select count(*) from auth.sessions s join auth.users u on u.id = s.user_id where u.email = 'mfa-hook@example.test'",
        )
        .await;
    assert_eq!(row.get::<_, i64>(0), 0, "the user was logged out everywhere");
}
