//! Auth settings that used to be read once at start, changed in Studio and in force without a
//! restart, against the real server, database and (TCP) SMTP servers: the next recovery mail
//! goes through the SMTP server just saved, with the password sealed at rest and never shown;
//! a custom-access-token hook turned on changes the next token's claims; a WebAuthn relying party
//! changed is the one the next registration names.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{eventually, spawn_app_with, TestApp};
use crate::smtp_sink::SmtpSink;
use crate::studio::{add_operator, signed_in, Studio};

const PASSWORD: &str = "Str0ng-pass-2026";

async fn put_settings(app: &TestApp, studio: &Studio, body: Value) -> (u16, Value) {
    studio.call(app, Method::PUT, "/studio/api/auth/settings", Some(body)).await
}

fn setting<'a>(all: &'a Value, name: &str) -> &'a Value {
    all["settings"].as_array().expect("settings").iter().find(|s| s["name"] == name).expect("a setting")
}

fn secret<'a>(all: &'a Value, name: &str) -> &'a Value {
    all["secrets"].as_array().expect("secrets").iter().find(|s| s["name"] == name).expect("a secret")
}

async fn create_user(app: &TestApp, studio: &Studio, email: &str) {
    let body = json!({"email": email, "password": PASSWORD, "auto_confirm": true});
    let (status, created) = studio.call(app, Method::POST, "/studio/api/auth/users", Some(body)).await;
    assert_eq!(status, 201, "{created}");
}

/// `/recover` for `email`, then the message the sink received for it.
async fn recovery_at(app: &TestApp, sink: &SmtpSink, email: &str) -> Option<String> {
    let (status, body) = app.auth_post("/recover", json!({"email": email})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    eventually(async || sink.received().into_iter().find(|m| m.contains(email))).await
}

#[tokio::test]
async fn smtp_changed_in_studio_carries_the_next_recovery_mail_without_a_restart_and_its_password_stays_hidden() {
    // Arrange: the environment's SMTP server is `first`
    let first = SmtpSink::start(0).await;
    let second = SmtpSink::start(0).await;
    let app = spawn_app_with(|c| {
        c.auth.smtp_host = Some("localhost".into());
        c.auth.smtp_port = first.port;
    })
    .await;
    add_operator(&app, "ops@studio.test", "correct horse battery").await;
    let studio = signed_in(&app).await;
    for who in ["one", "two", "three"] {
        create_user(&app, &studio, &format!("{who}@smtp.test")).await;
    }
    assert!(recovery_at(&app, &first, "one@smtp.test").await.is_some(), "the environment's server carries it");

    // Act: the second server, with a user, password and sender
    let change = json!({
        "settings": {
            "SMTP_PORT": second.port, "SMTP_USER": "mailer", "SMTP_TLS": "none",
            "SMTP_ADMIN_EMAIL": "desk@rental.test", "SMTP_SENDER_NAME": "Rental desk",
        },
        "secrets": {"SMTP_PASS": "smtp-pass-value-7"},
    });
    let (status, after) = put_settings(&app, &studio, change).await;

    // Assert: the next mail goes through the second server, signed in and from the new sender
    assert_eq!(status, 200, "{after}");
    assert_eq!(setting(&after, "SMTP_PORT")["value"], second.port);
    assert_eq!(setting(&after, "SMTP_PORT")["default"], first.port);
    assert_eq!(setting(&after, "SMTP_PORT")["overridden"], true);
    assert_eq!(setting(&after, "SMTP_HOST")["overridden"], false, "the host still comes from the environment");
    let mail = recovery_at(&app, &second, "two@smtp.test").await.expect("the second server carries the next mail");
    assert!(mail.contains("From: \"Rental desk\" <desk@rental.test>"), "{mail}");
    assert_eq!(second.logins(), ["mailer:smtp-pass-value-7"], "the sealed password opens and is used");
    assert!(!first.received().iter().any(|m| m.contains("two@smtp.test")));

    // Assert: the password is write-only, sealed at rest, and not in the audit log
    assert_eq!(secret(&after, "SMTP_PASS")["set"], true);
    let (_, listed) = studio.call(&app, Method::GET, "/studio/api/auth/settings", None).await;
    assert!(!listed.to_string().contains("smtp-pass-value-7"), "GET never returns the password");
    let stored: Vec<u8> =
        app.admin_query_one("select sealed from _studio.auth_secrets where name = 'SMTP_PASS'").await.get(0);
    assert!(!stored.windows(9).any(|w| w == b"smtp-pass"));
    let audit: Value = app.admin_query_one("select json_agg(detail)::jsonb from _studio.audit_log").await.get(0);
    assert!(!audit.to_string().contains("smtp-pass-value-7"), "{audit}");
    assert!(audit.to_string().contains("SMTP_PASS"), "the audit names the secret changed: {audit}");

    // Act / Assert: back to the environment's server
    let reset = json!({
        "settings": {"SMTP_PORT": null, "SMTP_USER": null, "SMTP_TLS": null, "SMTP_ADMIN_EMAIL": null, "SMTP_SENDER_NAME": null},
        "secrets": {"SMTP_PASS": null},
    });
    let (status, _) = put_settings(&app, &studio, reset).await;
    assert_eq!(status, 200);
    assert!(recovery_at(&app, &first, "three@smtp.test").await.is_some(), "reset goes back to the environment");
}

#[tokio::test]
async fn bad_smtp_and_hook_settings_are_refused_with_the_setting_named() {
    // Arrange
    let app = spawn_app_with(|_| {}).await;
    add_operator(&app, "ops@studio.test", "correct horse battery").await;
    let studio = signed_in(&app).await;

    // Act / Assert
    for (body, starts) in [
        (json!({"settings": {"SMTP_TLS": "ssl"}}), "SMTP_TLS: expected auto, starttls, tls or none"),
        (json!({"settings": {"SMTP_ADMIN_EMAIL": "nobody"}}), "SMTP_ADMIN_EMAIL: not an e-mail address"),
        (json!({"settings": {"SMTP_PORT": 70000}}), "SMTP_PORT: too large"),
        (
            json!({"settings": {"HOOK_CUSTOM_ACCESS_TOKEN_ENABLED": true}}),
            "HOOK_CUSTOM_ACCESS_TOKEN_ENABLED needs HOOK_CUSTOM_ACCESS_TOKEN_URI",
        ),
        (
            json!({"settings": {"HOOK_CUSTOM_ACCESS_TOKEN_ENABLED": true, "HOOK_CUSTOM_ACCESS_TOKEN_URI": "pg-functions://postgres/a;b/c"}}),
            "HOOK_CUSTOM_ACCESS_TOKEN_URI:",
        ),
        (
            json!({"settings": {"HOOK_MFA_VERIFICATION_ATTEMPT_ENABLED": true, "HOOK_MFA_VERIFICATION_ATTEMPT_URI": "https://hooks.test/mfa"}}),
            "HOOK_MFA_VERIFICATION_ATTEMPT_SECRETS:",
        ),
        (json!({"settings": {"WEBAUTHN_RP_ORIGINS": ["not a url"]}}), "WEBAUTHN_RP_ORIGINS:"),
    ] {
        let (status, refused) = put_settings(&app, &studio, body.clone()).await;
        assert_eq!(status, 400, "{body} → {refused}");
        let message = refused["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with(starts), "{body} → {message}");
    }
    let rows: i64 = app.admin_query_one("select count(*) from _studio.auth_settings").await.get(0);
    assert_eq!(rows, 0, "nothing refused is stored");
}

fn claims_of(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("a JWT");
    let bytes = base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, payload).expect("base64");
    serde_json::from_slice(&bytes).expect("claims")
}

async fn sign_in(app: &TestApp, email: &str) -> Value {
    let (status, session) =
        app.auth_post("/token?grant_type=password", json!({"email": email, "password": PASSWORD})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    claims_of(session["access_token"].as_str().expect("an access token"))
}

#[tokio::test]
async fn a_custom_access_token_hook_turned_on_in_studio_changes_the_next_tokens_claims() {
    // Arrange: a hook function, not yet on
    let app = spawn_app_with(|_| {}).await;
    add_operator(&app, "ops@studio.test", "correct horse battery").await;
    let studio = signed_in(&app).await;
    app.admin_sql(
        "create function public.gold_plan(event jsonb) returns jsonb language sql as $$
           select jsonb_build_object('claims', jsonb_set(event->'claims', '{plan}', '\"gold\"'))
         $$;",
    )
    .await;
    create_user(&app, &studio, "hooked@hook.test").await;
    assert_eq!(sign_in(&app, "hooked@hook.test").await.get("plan"), None);

    // Act
    let on = json!({"settings": {
        "HOOK_CUSTOM_ACCESS_TOKEN_ENABLED": true,
        "HOOK_CUSTOM_ACCESS_TOKEN_URI": "pg-functions://postgres/public/gold_plan",
    }});
    let (status, after) = put_settings(&app, &studio, on).await;

    // Assert: the next token carries the hook's claim; off again, it does not
    assert_eq!(status, 200, "{after}");
    assert_eq!(setting(&after, "HOOK_CUSTOM_ACCESS_TOKEN_ENABLED")["default"], false);
    let claims = sign_in(&app, "hooked@hook.test").await;
    assert_eq!(claims["plan"], "gold", "{claims}");
    assert_eq!(claims["email"], "hooked@hook.test");
    let (status, _) =
        put_settings(&app, &studio, json!({"settings": {"HOOK_CUSTOM_ACCESS_TOKEN_ENABLED": null}})).await;
    assert_eq!(status, 200);
    assert_eq!(sign_in(&app, "hooked@hook.test").await.get("plan"), None);
}

#[tokio::test]
async fn an_sms_provider_chosen_in_studio_texts_the_next_code_with_its_sealed_token() {
    // Arrange: phone sign-in with the development inbox; a stand-in for Twilio's API
    let received: crate::phone::Received = Default::default();
    let twilio = crate::phone::twilio(201, received.clone()).await;
    let app = spawn_app_with(|c| {
        c.auth.phone_enabled = true;
        c.auth.sms_twilio_api_url = twilio;
    })
    .await;
    add_operator(&app, "ops@studio.test", "correct horse battery").await;
    let studio = signed_in(&app).await;
    assert_eq!(app.auth_post("/otp", json!({"phone": "+243 811 000 001"})).await.0, StatusCode::OK);
    assert_eq!(app.inbox("+243811000001").await.len(), 1, "the first code goes to the inbox");

    // Act: Twilio, with its token
    let change = json!({
        "settings": {"SMS_PROVIDER": "twilio", "SMS_TWILIO_ACCOUNT_SID": "AC0123", "SMS_TWILIO_MESSAGE_SERVICE_SID": "MG0456"},
        "secrets": {"SMS_TWILIO_AUTH_TOKEN": "tw-token-value-9"},
    });
    let (status, after) = put_settings(&app, &studio, change).await;

    // Assert: the next code goes through Twilio with the token, which is never shown
    assert_eq!(status, 200, "{after}");
    assert_eq!(app.auth_post("/otp", json!({"phone": "+243 811 000 002"})).await.0, StatusCode::OK);
    let sent = received.lock().expect("lock").clone();
    assert_eq!(sent.len(), 1, "{sent:?}");
    let (path, authorization, form) = &sent[0];
    assert_eq!(path, "/2010-04-01/Accounts/AC0123/Messages.json");
    let basic = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, "AC0123:tw-token-value-9");
    assert_eq!(authorization, &format!("Basic {basic}"));
    assert!(form.contains(&("To".to_string(), "+243811000002".to_string())), "{form:?}");
    assert!(app.inbox("+243811000002").await.is_empty());
    assert_eq!(secret(&after, "SMS_TWILIO_AUTH_TOKEN")["set"], true);
    let (_, listed) = studio.call(&app, Method::GET, "/studio/api/auth/settings", None).await;
    assert!(!listed.to_string().contains("tw-token-value-9"));

    // Act / Assert: a provider without what it needs is refused, naming it
    let (status, refused) = put_settings(&app, &studio, json!({"settings": {"SMS_PROVIDER": "vonage"}})).await;
    assert_eq!(status, 400);
    assert!(refused["error"]["message"].as_str().unwrap_or_default().contains("SMS_VONAGE_API_KEY"), "{refused}");
}

#[tokio::test]
async fn a_webauthn_relying_party_changed_in_studio_is_the_one_the_next_registration_names() {
    // Arrange: passkeys on, the relying party from SITE_URL
    let app = spawn_app_with(|c| c.auth.passkey_enabled = true).await;
    add_operator(&app, "ops@studio.test", "correct horse battery").await;
    let studio = signed_in(&app).await;
    create_user(&app, &studio, "keys@webauthn.test").await;
    let (status, session) =
        app.auth_post("/token?grant_type=password", json!({"email": "keys@webauthn.test", "password": PASSWORD})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let token = session["access_token"].as_str().expect("a token").to_string();
    let rp = async || {
        let (status, body) = app.auth_post_as(&token, "/passkeys/registration/options", json!({})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["options"]["rp"].clone()
    };
    let before = rp().await;
    assert!(before["id"].as_str().is_some_and(|id| id != "rental.test"), "{before}");

    // Act
    let change = json!({"settings": {
        "WEBAUTHN_RP_ID": "rental.test", "WEBAUTHN_RP_DISPLAY_NAME": "Rental",
        "WEBAUTHN_RP_ORIGINS": ["https://rental.test"],
    }});
    let (status, after) = put_settings(&app, &studio, change).await;

    // Assert
    assert_eq!(status, 200, "{after}");
    assert_eq!(setting(&after, "WEBAUTHN_RP_ORIGINS")["value"], json!(["https://rental.test"]));
    let next = rp().await;
    assert_eq!((next["id"].as_str(), next["name"].as_str()), (Some("rental.test"), Some("Rental")), "{next}");
}

#[tokio::test]
async fn the_oauth_server_switched_on_in_studio_answers_at_once_and_off_again_after_a_reset() {
    // Arrange
    let app = spawn_app_with(|_| {}).await;
    add_operator(&app, "ops@studio.test", "correct horse battery").await;
    let studio = signed_in(&app).await;
    let discovery = async || {
        let url = format!("{}/auth/v1/.well-known/oauth-authorization-server", app.address);
        let res = app.http.get(url).send().await.expect("discovery");
        (res.status(), res.json::<Value>().await.unwrap_or(Value::Null))
    };
    let (status, off) = discovery().await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{off}");
    assert!(off.to_string().contains("feature_disabled"), "{off}");

    // Act
    let on = json!({"settings": {"OAUTH_SERVER_ENABLED": true, "OAUTH_SERVER_DEFAULT_SCOPE": "email profile"}});
    let (status, after) = put_settings(&app, &studio, on).await;

    // Assert
    assert_eq!(status, 200, "{after}");
    let (status, doc) = discovery().await;
    assert_eq!(status, StatusCode::OK, "{doc}");
    assert!(doc["authorization_endpoint"].as_str().unwrap_or_default().ends_with("/auth/v1/oauth/authorize"), "{doc}");
    let (status, _) = put_settings(&app, &studio, json!({"settings": {"OAUTH_SERVER_ENABLED": null}})).await;
    assert_eq!(status, 200);
    assert_eq!(discovery().await.0, StatusCode::NOT_FOUND);
}
