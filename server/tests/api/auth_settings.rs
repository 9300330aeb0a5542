//! The `[auth]` settings of a project folder that GoTrue reads from its environment, each
//! against the real server: required password characters (`PASSWORD_REQUIRED_CHARACTERS`),
//! e-mail sign-up and sign-in switched off (`EXTERNAL_EMAIL_ENABLED`), the length of mailed codes
//! (`MAILER_OTP_LENGTH`), and the MFA limits (`MFA_MAX_ENROLLED_FACTORS`,
//! `MFA_TOTP_ENROLL_ENABLED`, `MFA_TOTP_VERIFY_ENABLED`).

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};

const LETTERS_DIGITS: &str = "abcdefghijklmnopqrstuvwxyz:0123456789";

fn assert_characters_missing(status: StatusCode, body: &Value) {
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["code"], "weak_password", "{body}");
    assert_eq!(body["weak_password"]["reasons"], json!(["characters"]), "{body}");
    assert_eq!(
        body["message"],
        "Password should contain at least one character of each: abcdefghijklmnopqrstuvwxyz, 0123456789."
    );
}

async fn signed_in(app: &TestApp, email: &str, password: &str) -> Value {
    let (status, _) = app.auth_post("/signup", json!({"email": email, "password": password})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, session) =
        app.auth_post("/token?grant_type=password", json!({"email": email, "password": password})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    session
}

#[tokio::test]
async fn a_password_without_a_required_character_class_is_refused_at_sign_up_update_and_admin_create() {
    let app = spawn_app_with(|c| {
        c.auth.password_required_characters = LETTERS_DIGITS.into();
        c.auth.mailer_autoconfirm = true;
    })
    .await;

    let (status, body) =
        app.auth_post("/signup", json!({"email": "nodigit@example.test", "password": "horsehorse"})).await;
    assert_characters_missing(status, &body);

    let session = signed_in(&app, "digit@example.test", "horsehorse9").await;
    let token = session["access_token"].as_str().expect("token");
    let res = app
        .http
        .put(format!("{}/auth/v1/user", app.address))
        .header("x-supabase-api-version", "2024-01-01")
        .bearer_auth(token)
        .json(&json!({"password": "1234567890"}))
        .send()
        .await
        .expect("update");
    let status = res.status();
    assert_characters_missing(status, &res.json().await.expect("json"));

    let res = app
        .http
        .post(format!("{}/auth/v1/admin/users", app.address))
        .header("x-supabase-api-version", "2024-01-01")
        .bearer_auth(&app.service_key)
        .json(&json!({"email": "admin-made@example.test", "password": "onlyletters"}))
        .send()
        .await
        .expect("admin create");
    let status = res.status();
    assert_characters_missing(status, &res.json().await.expect("json"));
}

#[tokio::test]
async fn with_e_mail_switched_off_settings_say_so_and_e_mail_sign_up_and_sign_in_are_refused_as_gotrue() {
    let app = spawn_app_with(|c| c.auth.external_email_enabled = false).await;
    assert_eq!(app.auth_settings().await["external"]["email"], false);

    let (status, body) = app.auth_post("/signup", json!({"email": "ann@example.test", "password": "secret-1"})).await;
    assert_eq!((status, &body["code"]), (StatusCode::BAD_REQUEST, &json!("email_provider_disabled")), "{body}");
    assert_eq!(body["message"], "Email signups are disabled");

    let (status, body) =
        app.auth_post("/token?grant_type=password", json!({"email": "ann@example.test", "password": "secret-1"})).await;
    assert_eq!(
        (status, &body["code"]),
        (StatusCode::UNPROCESSABLE_ENTITY, &json!("email_provider_disabled")),
        "{body}"
    );
    assert_eq!(body["message"], "Email logins are disabled");

    let (status, body) = app.auth_post("/otp", json!({"email": "ann@example.test"})).await;
    assert_eq!(
        (status, &body["code"]),
        (StatusCode::UNPROCESSABLE_ENTITY, &json!("email_provider_disabled")),
        "{body}"
    );

    let (status, body) = app.auth_post("/recover", json!({"email": "ann@example.test"})).await;
    assert_eq!((status, &body["code"]), (StatusCode::BAD_REQUEST, &json!("email_provider_disabled")), "{body}");
    assert!(app.inbox("ann@example.test").await.is_empty(), "nothing is mailed");
}

#[tokio::test]
async fn mailed_codes_have_mailer_otp_length_digits() {
    let app = spawn_app_with(|c| c.auth.mailer_otp_length = 8).await;
    let (status, body) = app.auth_post("/otp", json!({"email": "eight@example.test"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mail = app.inbox("eight@example.test").await;
    let text = mail.first().and_then(|m| m["text"].as_str()).expect("a mail").to_string();
    let code = text.rsplit("enter the code: ").next().expect("a code").trim().to_string();
    assert_eq!(code.len(), 8, "{text}");
    assert!(code.chars().all(|c| c.is_ascii_digit()), "{code}");

    let (status, session) =
        app.auth_post("/verify", json!({"type": "email", "email": "eight@example.test", "token": code})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    assert!(session["access_token"].is_string());
}

async fn enroll_totp(app: &TestApp, token: &str, name: &str) -> (StatusCode, Value) {
    app.auth_post_as(token, "/factors", json!({"factor_type": "totp", "friendly_name": name})).await
}

#[tokio::test]
async fn a_user_may_not_enroll_more_than_mfa_max_enrolled_factors() {
    let app = spawn_app_with(|c| {
        c.auth.mfa_max_enrolled_factors = 2;
        c.auth.mailer_autoconfirm = true;
    })
    .await;
    let session = signed_in(&app, "many@example.test", "secret-1").await;
    let token = session["access_token"].as_str().expect("token");
    for name in ["one", "two"] {
        let (status, body) = enroll_totp(&app, token, name).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let (status, body) = enroll_totp(&app, token, "three").await;
    assert_eq!((status, &body["code"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!("too_many_enrolled_mfa_factors")));
    assert_eq!(body["message"], "Maximum number of verified factors reached, unenroll to continue");
}

#[tokio::test]
async fn totp_enrolment_and_verification_switched_off_are_refused_with_gotrues_codes() {
    let no_enroll = spawn_app_with(|c| {
        c.auth.mfa_totp_enroll_enabled = false;
        c.auth.mailer_autoconfirm = true;
    })
    .await;
    let session = signed_in(&no_enroll, "noenroll@example.test", "secret-1").await;
    let (status, body) = enroll_totp(&no_enroll, session["access_token"].as_str().expect("token"), "app").await;
    assert_eq!((status, &body["code"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!("mfa_totp_enroll_not_enabled")));
    assert_eq!(body["message"], "MFA enroll is disabled for TOTP");

    let no_verify = spawn_app_with(|c| {
        c.auth.mfa_totp_verify_enabled = false;
        c.auth.mailer_autoconfirm = true;
    })
    .await;
    let session = signed_in(&no_verify, "noverify@example.test", "secret-1").await;
    let token = session["access_token"].as_str().expect("token");
    let (status, factor) = enroll_totp(&no_verify, token, "app").await;
    assert_eq!(status, StatusCode::OK, "{factor}");
    let id = factor["id"].as_str().expect("id");
    let (status, body) = no_verify.auth_post_as(token, format!("/factors/{id}/challenge"), json!({})).await;
    assert_eq!((status, &body["code"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!("mfa_totp_verify_not_enabled")));
    assert_eq!(body["message"], "MFA verification is disabled for TOTP");
}
