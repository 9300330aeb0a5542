//! Auth → Settings, Mail templates and Signing keys, a user's factor removal and the operators'
//! TOTP, against the real server and database: settings changed in Studio are in force at once
//! on this instance and, by NOTIFY, on another one sharing the database, without a restart;
//! secrets are write-only and sealed; an edited template is the mail a sign-up receives; a
//! rotation publishes a new key; an operator with TOTP signs in with a code, once per code.
//! (Their refusal without a session is in `studio.rs`'s route list.)

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{eventually, json_of, spawn_app_on, TestApp};
use crate::studio::{add_operator, sign_in_at, signed_in, studio_app, Studio};

async fn sign_up(app: &TestApp, email: &str) -> (StatusCode, Value) {
    app.auth_post("/signup", json!({"email": email, "password": "Str0ng-pass-2026"})).await
}

async fn put_settings(app: &TestApp, studio: &Studio, body: Value) -> (u16, Value) {
    studio.call(app, Method::PUT, "/studio/api/auth/settings", Some(body)).await
}

fn setting<'a>(all: &'a Value, name: &str) -> &'a Value {
    all["settings"].as_array().expect("settings").iter().find(|s| s["name"] == name).expect("a setting")
}

async fn audit_actions(app: &TestApp) -> Vec<String> {
    let (client, conn) = tokio_postgres::connect(&app.db_url, tokio_postgres::NoTls).await.expect("connect");
    tokio::spawn(conn);
    let rows = client.query("select action from _studio.audit_log order by id", &[]).await.expect("audit");
    rows.iter().map(|r| r.get::<_, String>(0)).filter(|a| !a.starts_with("signin")).collect()
}

#[tokio::test]
async fn sign_ups_turned_off_in_studio_are_refused_at_once_and_work_again_when_turned_back_on() {
    // Arrange
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    assert_eq!(sign_up(&app, "before@cfg.test").await.0, StatusCode::OK);

    // Act: sign-ups off
    let (status, after) = put_settings(&app, &studio, json!({"settings": {"DISABLE_SIGNUP": true}})).await;

    // Assert: refused with GoTrue's error, and said so by /settings
    assert_eq!(status, 200, "{after}");
    assert_eq!(setting(&after, "DISABLE_SIGNUP")["value"], true);
    assert_eq!(setting(&after, "DISABLE_SIGNUP")["default"], false);
    assert_eq!(setting(&after, "DISABLE_SIGNUP")["overridden"], true);
    let (status, refused) = sign_up(&app, "during@cfg.test").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused["code"], "signup_disabled", "{refused}");
    assert_eq!(app.auth_settings().await["disable_signup"], true);

    // Act: back to the start-up value
    let (status, after) = put_settings(&app, &studio, json!({"settings": {"DISABLE_SIGNUP": null}})).await;

    // Assert
    assert_eq!(status, 200);
    assert_eq!(setting(&after, "DISABLE_SIGNUP")["overridden"], false);
    assert_eq!(sign_up(&app, "after@cfg.test").await.0, StatusCode::OK);
    assert_eq!(audit_actions(&app).await, ["auth.settings.update", "auth.settings.update"]);
}

#[tokio::test]
async fn another_instance_on_the_same_database_picks_a_change_up_by_notify() {
    // Arrange: two servers on one database
    let app = studio_app().await;
    let other = spawn_app_on(app.db_url.clone(), |_| {}).await;
    let studio = signed_in(&app).await;

    // Act
    let (status, _) = put_settings(&app, &studio, json!({"settings": {"PASSWORD_MIN_LENGTH": 20}})).await;
    assert_eq!(status, 200);

    // Assert: the other instance refuses a 16-character password once it has heard
    let refused = eventually(async || {
        let (status, body) = sign_up(&other, "weak@cfg.test").await;
        (status == StatusCode::UNPROCESSABLE_ENTITY).then_some(body)
    })
    .await
    .expect("the other instance applies the new minimum");
    assert_eq!(refused["code"], "weak_password", "{refused}");
}

#[tokio::test]
async fn bad_values_are_refused_and_a_providers_secret_is_write_only_and_sealed() {
    // Arrange
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let github = json!({"EXTERNAL_GITHUB_ENABLED": true, "EXTERNAL_GITHUB_CLIENT_ID": ["gh-client"]});

    // Act / Assert: wrong types, unknown names, a provider without its secret
    let (status, body) = put_settings(&app, &studio, json!({"settings": {"RATE_LIMIT_OTP": "many"}})).await;
    assert_eq!(
        (status, body["error"]["message"].as_str()),
        (400, Some("RATE_LIMIT_OTP: expected a whole number, 0 or more"))
    );
    assert_eq!(put_settings(&app, &studio, json!({"settings": {"JWT_SECRET": "x"}})).await.0, 400);
    let (status, body) = put_settings(&app, &studio, json!({"settings": github})).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("EXTERNAL_GITHUB_SECRET"));
    assert_eq!(app.auth_settings().await["external"]["github"], false);

    // Act: with its secret
    let (status, after) = put_settings(
        &app,
        &studio,
        json!({"settings": github, "secrets": {"EXTERNAL_GITHUB_SECRET": "gh-secret-value-1"}}),
    )
    .await;

    // Assert: enabled, the secret said set but never shown, stored sealed, not in the audit log
    assert_eq!(status, 200, "{after}");
    assert_eq!(app.auth_settings().await["external"]["github"], true);
    let secret = after["secrets"].as_array().unwrap().iter().find(|s| s["name"] == "EXTERNAL_GITHUB_SECRET").unwrap();
    assert_eq!((secret["set"].as_bool(), secret["overridden"].as_bool()), (Some(true), Some(true)));
    let (_, listed) = studio.call(&app, Method::GET, "/studio/api/auth/settings", None).await;
    assert!(!listed.to_string().contains("gh-secret-value-1"));
    let stored: Vec<u8> = app.admin_query_one("select sealed from _studio.auth_secrets").await.get(0);
    assert!(!stored.windows(9).any(|w| w == b"gh-secret"));
    let audit: Value = app.admin_query_one("select json_agg(detail)::jsonb from _studio.audit_log").await.get(0);
    assert!(!audit.to_string().contains("gh-secret-value-1"));
    let no_redirect = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let res = no_redirect.get(format!("{}/auth/v1/authorize?provider=github", app.address)).send().await.unwrap();
    assert_eq!(res.status(), 302, "GitHub sign-in starts");
    let location = res.headers()["location"].to_str().unwrap();
    assert!(
        location.starts_with("https://github.com/login/oauth/authorize?") && location.contains("client_id=gh-client"),
        "{location}"
    );
}

#[tokio::test]
async fn the_confirmation_template_edited_in_studio_is_the_mail_a_sign_up_receives() {
    // Arrange
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let draft = json!({
        "subject": "Welcome to the rental",
        "html": "<h2>Hello {{ .Email }}</h2><p><a href=\"{{ .ConfirmationURL }}\">Confirm your stay</a></p>",
    });

    // Act: preview, then save
    let (status, preview) =
        studio.call(&app, Method::POST, "/studio/api/auth/templates/confirmation/preview", Some(draft.clone())).await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["subject"], "Welcome to the rental");
    assert!(preview["html"].as_str().unwrap().contains("Hello ops@studio.test"), "{preview}");
    assert!(preview["text"].as_str().unwrap().contains("Confirm your stay (http"));
    let (status, saved) =
        studio.call(&app, Method::PUT, "/studio/api/auth/templates/confirmation", Some(draft.clone())).await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(saved["overridden"], true);
    assert_eq!(saved["default_subject"], "Confirm Your Email");

    // Assert: a sign-up receives it, with a working link
    assert_eq!(sign_up(&app, "guest@cfg.test").await.0, StatusCode::OK);
    let mail = app.inbox("guest@cfg.test").await.into_iter().next().expect("a mail");
    assert_eq!(mail["subject"], "Welcome to the rental");
    assert!(mail["html"].as_str().unwrap().contains("Hello guest@cfg.test"));
    assert!(mail["text"].as_str().unwrap().contains("Confirm your stay"));
    assert!(mail["link"].as_str().unwrap().contains("token="));

    // Act / Assert: a test send reaches the inbox; a reset brings GoTrue's default back
    let test = json!({"subject": "Draft", "html": "<p>Draft body</p>", "to": "checker@cfg.test"});
    let (status, _) = studio.call(&app, Method::POST, "/studio/api/auth/templates/confirmation/test", Some(test)).await;
    assert_eq!(status, 204);
    let sent = app.inbox("checker@cfg.test").await.into_iter().next().expect("the test mail");
    assert_eq!((sent["subject"].as_str(), sent["text"].as_str()), (Some("Draft"), Some("Draft body\n")));
    let (status, reset) = studio
        .call(&app, Method::PUT, "/studio/api/auth/templates/confirmation", Some(json!({"subject": "", "html": ""})))
        .await;
    assert_eq!((status, reset["subject"].as_str()), (200, Some("Confirm Your Email")));
    let nope = json!({"html": "x"});
    assert_eq!(studio.call(&app, Method::POST, "/studio/api/auth/templates/nope/preview", Some(nope)).await.0, 404);
    assert_eq!(
        audit_actions(&app).await,
        ["auth.templates.update", "auth.templates.test_send", "auth.templates.update"]
    );
}

#[tokio::test]
async fn a_rotation_publishes_a_new_current_key_and_the_previous_one_can_be_revoked() {
    // Arrange
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let (_, before) = studio.call(&app, Method::GET, "/studio/api/auth/signing-keys", None).await;
    let first = before["keys"][0]["id"].as_str().expect("the initial key").to_string();
    assert_eq!(before["keys"][0]["status"], "current");
    let published = before["jwks"]["keys"].as_array().unwrap().len();

    // Act
    let (status, rotated) = studio.call(&app, Method::POST, "/studio/api/auth/signing-keys/rotate", None).await;

    // Assert: a new current key, the old one previous and both published
    assert_eq!(status, 200, "{rotated}");
    let (_, after) = studio.call(&app, Method::GET, "/studio/api/auth/signing-keys", None).await;
    let status_of =
        |id: &str| after["keys"].as_array().unwrap().iter().find(|k| k["id"] == id).unwrap()["status"].clone();
    assert_eq!(status_of(rotated["id"].as_str().unwrap()), "current");
    assert_eq!(status_of(&first), "previous");
    let jwks: Value = app
        .http
        .get(format!("{}/auth/v1/.well-known/jwks.json", app.address))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(jwks["keys"].as_array().unwrap().len(), published + 1);
    assert!(jwks["keys"].as_array().unwrap().iter().any(|k| k["kid"] == rotated["id"]));

    // Act / Assert: the current key cannot be revoked, the previous one can
    let revoke = async |id: String| {
        studio.call(&app, Method::POST, &format!("/studio/api/auth/signing-keys/{id}/revoke"), None).await
    };
    assert_eq!(revoke(rotated["id"].as_str().unwrap().to_string()).await.0, 400);
    assert_eq!(revoke(first.clone()).await.0, 204);
    let jwks: Value = app
        .http
        .get(format!("{}/auth/v1/.well-known/jwks.json", app.address))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(!jwks["keys"].as_array().unwrap().iter().any(|k| k["kid"] == first.as_str()));
    assert_eq!(audit_actions(&app).await, ["auth.signing_keys.rotate", "auth.signing_keys.revoke"]);
}

#[tokio::test]
async fn a_users_factor_is_removed_from_studio_and_audited() {
    // Arrange
    let app = studio_app().await;
    let studio = signed_in(&app).await;
    let body = json!({"email": "mfa@cfg.test", "password": "Str0ng-pass-2026", "auto_confirm": true});
    let (_, created) = studio.call(&app, Method::POST, "/studio/api/auth/users", Some(body)).await;
    let user = created["user"]["id"].as_str().unwrap().to_string();
    app.admin_sql(&format!(
        "insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret) \
         values ('22222222-2222-4222-8222-222222222222', '{user}', 'phone app', 'totp', 'verified', now(), now(), 'JBSWY3DPEHPK3PXP')"
    ))
    .await;
    let path = format!("/studio/api/auth/users/{user}/factors/22222222-2222-4222-8222-222222222222");

    // Act
    let (status, deleted) = studio.call(&app, Method::DELETE, &path, None).await;

    // Assert
    assert_eq!(status, 200, "{deleted}");
    assert_eq!(deleted["factor"]["friendly_name"], "phone app");
    let left: i64 = app.admin_query_one("select count(*) from auth.mfa_factors").await.get(0);
    assert_eq!(left, 0);
    assert_eq!(studio.call(&app, Method::DELETE, &path, None).await.0, 404);
    assert_eq!(audit_actions(&app).await, ["auth.users.create", "auth.users.delete_factor"]);
}

fn code(secret: &str, step: i64) -> String {
    let bytes = server::auth::mfa::base32_decode(secret).expect("base32");
    server::auth::mfa::code_at(&bytes, step as u64, 6)
}

#[tokio::test]
async fn an_operator_with_totp_signs_in_with_a_fresh_code_and_a_reset_turns_it_off() {
    // Arrange
    let app = studio_app().await;
    let (email, password) = ("totp@studio.test", "totp operator password");
    add_operator(&app, email, password).await;
    let studio = Studio::sign_in(&app.http, &app.address, email, password).await;

    // Act: enrol and verify
    let (status, enrolled) = studio.call(&app, Method::POST, "/studio/api/operator/totp/enroll", None).await;
    assert_eq!(status, 200, "{enrolled}");
    let secret = enrolled["secret"].as_str().unwrap().to_string();
    assert!(enrolled["qr_code"].as_str().unwrap().contains("<svg"));
    assert!(enrolled["uri"].as_str().unwrap().starts_with("otpauth://totp/"));
    let step = chrono::Utc::now().timestamp() / 30;
    assert_eq!(
        studio.call(&app, Method::POST, "/studio/api/operator/totp/verify", Some(json!({"code": "000000"}))).await.0,
        401
    );
    let (status, _) = studio
        .call(&app, Method::POST, "/studio/api/operator/totp/verify", Some(json!({"code": code(&secret, step)})))
        .await;
    assert_eq!(status, 204);
    assert_eq!(studio.call(&app, Method::GET, "/studio/api/operator/totp", None).await.1["enrolled"], true);

    // Assert: the password alone is not enough, a fresh code is, and only once
    let signin = |code: Option<String>| {
        let body = json!({"email": email, "password": password, "code": code});
        let req = app.http.post(format!("{}/studio/api/signin", app.address)).json(&body);
        async move { json_of(req.send().await.unwrap()).await }
    };
    let (status, body) = json_of(sign_in_at(&app.http, &app.address, email, password).await).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("totp_required")));
    let next = code(&secret, step + 1);
    assert_eq!(signin(Some(next.clone())).await.0, 200);
    let (status, body) = signin(Some(next)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("invalid_totp")));

    // Act / Assert: `server studio operators reset-totp`
    let client = app.auth.pool.get().await.expect("a connection");
    let out =
        server::studio::cli::operators(&client, server::studio::OperatorsAction::ResetTotp { email: email.into() })
            .await
            .expect("reset");
    assert_eq!(out, [format!("TOTP of {email} removed; they sign in with their password")]);
    assert_eq!(sign_in_at(&app.http, &app.address, email, password).await.status(), 200);
}
