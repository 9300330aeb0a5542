//! Phone sign-in over HTTP: sign-up with a number and a password confirmed by a texted code,
//! sign-in with a code (`signInWithOtp({phone})`), a phone change, the per-user spacing of
//! codes, codes read from the development inbox, and the Twilio, Twilio Verify and Textlocal
//! providers against stand-ins for their APIs started by the test on 127.0.0.1.

use std::sync::{Arc, Mutex};

use reqwest::StatusCode;
use serde_json::{json, Value};

use server::config::Config;

use crate::helpers::{spawn_app_with, TestApp};

/// A DRC mobile number, as customers type it.
const ANNE: &str = "+243 812 345 678";
const ANNE_DIGITS: &str = "243812345678";

async fn phone_app() -> TestApp {
    spawn_app_with(|c| c.auth.phone_enabled = true).await
}

/// The newest code texted to `digits` (E.164 without `+`), from the development inbox.
async fn texted_code(app: &TestApp, digits: &str) -> (String, String) {
    let messages = app.inbox(&format!("+{digits}")).await;
    let message = messages.first().expect("a text message");
    let text = message["text"].as_str().expect("a text message").to_string();
    let code = text.rsplit(' ').next().expect("code").to_string();
    assert_eq!(code.len(), 6, "{text}");
    (code, message["kind"].as_str().unwrap_or_default().to_string())
}

#[tokio::test]
async fn a_phone_sign_up_is_confirmed_by_a_texted_code_then_signs_in_with_its_password() {
    let app = phone_app().await;
    let (status, user) = app.auth_post("/signup", json!({"phone": ANNE, "password": "secret-1"})).await;
    assert_eq!(status, StatusCode::OK, "{user}");
    assert_eq!(user["phone"], ANNE_DIGITS);
    assert!(user["phone_confirmed_at"].is_null());

    let (status, body) =
        app.auth_post("/token?grant_type=password", json!({"phone": ANNE, "password": "secret-1"})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("phone_not_confirmed")));

    let (code, kind) = texted_code(&app, ANNE_DIGITS).await;
    assert_eq!(kind, "sms");
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let (status, body) = app.auth_post("/verify", json!({"type": "sms", "phone": ANNE, "token": wrong})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("otp_expired")));
    let (status, session) = app.auth_post("/verify", json!({"type": "sms", "phone": ANNE, "token": code})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    assert!(session["user"]["phone_confirmed_at"].is_string());
    assert_eq!(session["user"]["app_metadata"]["provider"], "phone");
    let (status, _) = app.auth_post("/verify", json!({"type": "sms", "phone": ANNE, "token": code})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a code is used once");

    let (status, session) =
        app.auth_post("/token?grant_type=password", json!({"phone": ANNE_DIGITS, "password": "secret-1"})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let (status, body) = app.auth_post("/signup", json!({"phone": ANNE, "password": "secret-2"})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("user_already_exists")));
}

#[tokio::test]
async fn a_code_by_sms_signs_in_and_codes_are_spaced_per_user() {
    let app = phone_app().await;
    let (status, body) = app.auth_post("/otp", json!({"phone": "+243 990 000 001"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = app.auth_post("/otp", json!({"phone": "+243 990 000 001"})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("over_sms_send_rate_limit")));
    let (code, _) = texted_code(&app, "243990000001").await;
    let (status, session) =
        app.auth_post("/verify", json!({"type": "sms", "phone": "+243990000001", "token": code})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let claims = {
        use base64::Engine;
        let payload = session["access_token"].as_str().expect("token").split('.').nth(1).expect("payload").to_string();
        serde_json::from_slice::<Value>(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).expect("b64"))
            .expect("claims")
    };
    assert_eq!(claims["phone"], "243990000001");
    assert_eq!(claims["amr"][0]["method"], "otp");

    let (status, body) = app.auth_post("/otp", json!({"phone": "+243 990 000 002", "create_user": false})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("otp_disabled")));
    let (status, body) = app.auth_post("/otp", json!({"phone": "0812"})).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (StatusCode::BAD_REQUEST, Some("Invalid phone number format (E.164 required)"))
    );
}

#[tokio::test]
async fn a_phone_change_is_applied_once_the_new_number_s_code_is_verified() {
    let app = spawn_app_with(|c| {
        c.auth.phone_enabled = true;
        c.auth.mailer_autoconfirm = true;
    })
    .await;
    let (_, session) = app.auth_post("/signup", json!({"email": "pc@example.test", "password": "secret-1"})).await;
    let token = session["access_token"].as_str().expect("token").to_string();
    app.auth_post("/signup", json!({"phone": "+243 970 000 009", "password": "secret-1"})).await;
    let put = |body: Value| {
        app.http
            .put(format!("{}/auth/v1/user", app.address))
            .header("apikey", &app.anon_key)
            .bearer_auth(&token)
            .json(&body)
    };
    let taken = put(json!({"phone": "+243970000009"})).send().await.expect("taken");
    assert_eq!(taken.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(taken.json::<Value>().await.expect("json")["error_code"], "phone_exists");

    let pending: Value =
        put(json!({"phone": "+243 970 000 010"})).send().await.expect("put").json().await.expect("json");
    assert_eq!(pending["new_phone"], "243970000010");
    assert_eq!(pending["phone"], "");
    let (code, kind) = texted_code(&app, "243970000010").await;
    assert_eq!(kind, "phone_change");
    let (status, session) =
        app.auth_post("/verify", json!({"type": "phone_change", "phone": "+243970000010", "token": code})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    assert_eq!(session["user"]["phone"], "243970000010");
    assert!(session["user"].get("new_phone").is_none());
    assert!(session["user"]["identities"].as_array().expect("identities").iter().any(|i| i["provider"] == "phone"));
}

#[tokio::test]
async fn phone_sign_in_is_refused_with_gotrue_s_error_when_off() {
    let app = spawn_app_with(|_| {}).await;
    for (path, body, status, message) in [
        ("/signup", json!({"phone": ANNE, "password": "secret-1"}), 400, "Phone signups are disabled"),
        ("/otp", json!({"phone": ANNE}), 400, "Unsupported phone provider"),
        (
            "/token?grant_type=password",
            json!({"phone": ANNE, "password": "secret-1"}),
            422,
            "Phone logins are disabled",
        ),
    ] {
        let (got, body) = app.auth_post(path, body).await;
        assert_eq!(
            (got.as_u16(), body["code"].as_str(), body["message"].as_str()),
            (status, Some("phone_provider_disabled"), Some(message)),
            "{path}: {body}"
        );
    }
    // As in GoTrue, /verify is not refused: with no code ever sent, the code is what is wrong.
    let (status, body) = app.auth_post("/verify", json!({"type": "sms", "phone": ANNE, "token": "123456"})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("otp_expired")), "{body}");
}

#[tokio::test]
async fn a_project_whose_sms_providers_are_all_disabled_refuses_phone_sign_in_as_the_cli_does() {
    // Arrange: auth-js's own test project shape: phone sign-up on, Twilio named but disabled.
    let project = std::env::temp_dir().join(format!("sms-project-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::write(
        project.join("config.toml"),
        "[auth.sms]\nenable_signup = true\n[auth.sms.test_otp]\n\"1234567890\" = \"123456\"\n\
         [auth.sms.twilio]\nenabled = false\naccount_sid = \"\"\n",
    )
    .expect("config");
    let db_url = crate::helpers::fresh_database().await;
    let data_dir = project.join("data");
    let (project_dir, data_dir) = (project.to_string_lossy().to_string(), data_dir.to_string_lossy().to_string());
    let secret = server::keys::random_secret();
    let (_child, url, anon) = crate::helpers::spawn_binary(&[
        ("DATABASE_URL", &db_url),
        ("JWT_SECRET", &secret),
        ("DATA_DIR", &data_dir),
        ("SUPABASE_PROJECT_DIR", &project_dir),
    ])
    .await;

    // Act: signInWithOtp({phone}) for a number that is not a test number.
    let res = reqwest::Client::new()
        .post(format!("{url}/auth/v1/otp"))
        .header("apikey", &anon)
        .json(&json!({"phone": "+15555550123"}))
        .send()
        .await
        .expect("request");

    // Assert: GoTrue's refusal (the CLI turned phone sign-in off), not a code in the inbox.
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["error_code"], "phone_provider_disabled", "{body}");
    let settings: Value = reqwest::Client::new()
        .get(format!("{url}/auth/v1/settings"))
        .header("apikey", &anon)
        .send()
        .await
        .expect("settings")
        .json()
        .await
        .expect("json");
    assert_eq!(settings["external"]["phone"], false);
    std::fs::remove_dir_all(&project).ok();
}

/// What the stand-in for Twilio received: the path, the Authorization header and the form.
pub type Received = Arc<Mutex<Vec<(String, String, Vec<(String, String)>)>>>;

/// A stand-in for Twilio's Messages API on 127.0.0.1 answering `status`; its base URL.
pub async fn twilio(status: u16, received: Received) -> String {
    let answer = if status == 201 {
        json!({"sid": "SM123", "status": "queued"})
    } else {
        json!({"code": 21211, "message": "Invalid 'To' Phone Number", "status": 400})
    };
    stand_in(status, answer, received).await
}

/// A stand-in for an SMS provider's API on 127.0.0.1 answering `status` with `answer`; its base URL.
async fn stand_in(status: u16, answer: Value, received: Received) -> String {
    use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let server = HttpServer::new(move || {
        let received = received.clone();
        let answer = answer.clone();
        App::new().default_service(web::to(move |req: HttpRequest, body: web::Bytes| {
            let (received, answer) = (received.clone(), answer.clone());
            async move {
                let auth = req.headers().get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
                let form: Vec<(String, String)> = url::form_urlencoded::parse(&body).into_owned().collect();
                received.lock().expect("lock").push((req.path().to_string(), auth, form));
                HttpResponse::build(actix_web::http::StatusCode::from_u16(status).expect("status")).json(answer)
            }
        }))
    })
    .workers(1)
    .listen(listener)
    .expect("listen");
    tokio::spawn(server.run());
    format!("http://127.0.0.1:{port}")
}

/// Phone sign-in through Twilio's Messages API at `url` (a stand-in), sent from `from`.
fn twilio_settings(c: &mut Config, url: String, from: &str) {
    c.auth.phone_enabled = true;
    c.auth.sms_provider = Some("twilio".into());
    c.auth.sms_twilio_account_sid = Some("AC0123".into());
    c.auth.sms_twilio_auth_token = Some(secrecy::SecretString::from("tw-secret"));
    c.auth.sms_twilio_message_service_sid = Some(from.into());
    c.auth.sms_twilio_api_url = url;
}

/// A code the provider refuses to text answers GoTrue's 500 `sms_send_failed`, which does not
/// name the provider's `secret`.
async fn a_refused_text_is_gotrue_s_error_without_the_secret(app: &TestApp, secret: &str) {
    let (status, body) = app.auth_post("/otp", json!({"phone": ANNE})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::INTERNAL_SERVER_ERROR, Some("sms_send_failed")), "{body}");
    assert!(!body.to_string().contains(secret));
}

#[tokio::test]
async fn codes_go_out_through_twilio_s_messages_api_with_gotrue_s_settings() {
    let received: Received = Arc::default();
    let url = twilio(201, received.clone()).await;
    let app = spawn_app_with(|c| {
        twilio_settings(c, url, "MG0456");
        c.auth.sms_template = "Kinshasa Auto : votre code est {{ .Code }}".into();
    })
    .await;
    let (status, body) = app.auth_post("/otp", json!({"phone": ANNE})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (path, auth, form) = received.lock().expect("lock")[0].clone();
    assert_eq!(path, "/2010-04-01/Accounts/AC0123/Messages.json");
    use base64::Engine;
    assert_eq!(auth, format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("AC0123:tw-secret")));
    let field = |name: &str| form.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()).unwrap_or_default();
    assert_eq!(field("To"), "+243812345678");
    assert_eq!(field("MessagingServiceSid"), "MG0456");
    let code = field("Body").rsplit(' ').next().expect("code").to_string();
    assert!(field("Body").starts_with("Kinshasa Auto : votre code est "), "{}", field("Body"));
    let (status, session) = app.auth_post("/verify", json!({"type": "sms", "phone": ANNE, "token": code})).await;
    assert_eq!(status, StatusCode::OK, "{session}");

    let failing = twilio(400, Arc::default()).await;
    let app = spawn_app_with(|c| {
        twilio_settings(c, failing, "+15005550006");
    })
    .await;
    a_refused_text_is_gotrue_s_error_without_the_secret(&app, "tw-secret").await;
}

#[tokio::test]
async fn a_phone_factor_texts_its_code_and_raises_the_session_to_aal2() {
    let app = spawn_app_with(|c| {
        c.auth.mailer_autoconfirm = true;
        c.auth.mfa_phone_enroll_enabled = true;
        c.auth.mfa_phone_verify_enabled = true;
    })
    .await;
    let (_, session) = app.auth_post("/signup", json!({"email": "mfa-sms@example.test", "password": "secret-1"})).await;
    let token = session["access_token"].as_str().expect("token").to_string();
    let call = |path: String, body: Value| app.auth_post_as(&token, path, body);
    let (status, factor) = call("/factors".into(), json!({"factor_type": "phone", "phone": "+243 850 000 001"})).await;
    assert_eq!(status, StatusCode::OK, "{factor}");
    assert_eq!((factor["type"].as_str(), factor["phone"].as_str()), (Some("phone"), Some("243850000001")));
    let id = factor["id"].as_str().expect("id").to_string();
    let (status, challenge) = call(format!("/factors/{id}/challenge"), json!({"channel": "sms"})).await;
    assert_eq!(status, StatusCode::OK, "{challenge}");
    assert_eq!(challenge["type"], "phone");
    let (status, body) = call(format!("/factors/{id}/challenge"), json!({"channel": "sms"})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("over_sms_send_rate_limit")));
    let (code, kind) = texted_code(&app, "243850000001").await;
    assert_eq!(kind, "mfa");
    let challenge_id = challenge["id"].as_str().expect("challenge").to_string();
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let (status, body) =
        call(format!("/factors/{id}/verify"), json!({"challenge_id": challenge_id, "code": wrong})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("mfa_verification_failed")));
    let (status, verified) =
        call(format!("/factors/{id}/verify"), json!({"challenge_id": challenge_id, "code": code})).await;
    assert_eq!(status, StatusCode::OK, "{verified}");
    let claims = {
        use base64::Engine;
        let payload = verified["access_token"].as_str().expect("token").split('.').nth(1).expect("payload").to_string();
        serde_json::from_slice::<Value>(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).expect("b64"))
            .expect("claims")
    };
    assert_eq!(claims["aal"], "aal2");
    assert!(claims["amr"].as_array().expect("amr").iter().any(|m| m["method"] == "phone"), "{claims}");

    let off = spawn_app_with(|c| c.auth.mailer_autoconfirm = true).await;
    let (_, session) = off.auth_post("/signup", json!({"email": "mfa-off@example.test", "password": "secret-1"})).await;
    let res = off
        .http
        .post(format!("{}/auth/v1/factors", off.address))
        .header("x-supabase-api-version", "2024-01-01")
        .bearer_auth(session["access_token"].as_str().expect("token"))
        .json(&json!({"factor_type": "phone", "phone": "+243850000002"}))
        .send()
        .await
        .expect("enroll");
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(res.json::<Value>().await.expect("json")["code"], "mfa_phone_enroll_not_enabled");
}

#[tokio::test]
async fn codes_go_out_through_messagebird_and_vonage_and_their_refusals_are_errors() {
    let field = |form: &[(String, String)], name: &str| {
        form.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()).unwrap_or_default()
    };

    let received: Received = Arc::default();
    let url = stand_in(201, json!({"id": "mb-1", "recipients": {"totalSentCount": 1}}), received.clone()).await;
    let app = spawn_app_with(|c| {
        c.auth.phone_enabled = true;
        c.auth.sms_provider = Some("messagebird".into());
        c.auth.sms_messagebird_access_key = Some(secrecy::SecretString::from("mb-key"));
        c.auth.sms_messagebird_originator = Some("KinAuto".into());
        c.auth.sms_messagebird_api_url = url;
    })
    .await;
    let (status, body) = app.auth_post("/otp", json!({"phone": ANNE})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (path, auth, form) = received.lock().expect("lock")[0].clone();
    assert_eq!((path.as_str(), auth.as_str()), ("/messages", "AccessKey mb-key"));
    assert_eq!((field(&form, "originator"), field(&form, "recipients")), ("KinAuto".into(), ANNE_DIGITS.into()));
    let code = field(&form, "body").rsplit(' ').next().expect("code").to_string();
    let (status, _) = app.auth_post("/verify", json!({"type": "sms", "phone": ANNE, "token": code})).await;
    assert_eq!(status, StatusCode::OK);

    let vonage = |answer: Value, received: Received| async move {
        let url = stand_in(200, answer, received).await;
        spawn_app_with(|c| {
            c.auth.phone_enabled = true;
            c.auth.sms_provider = Some("vonage".into());
            c.auth.sms_vonage_api_key = Some("vn-key".into());
            c.auth.sms_vonage_api_secret = Some(secrecy::SecretString::from("vn-secret"));
            c.auth.sms_vonage_from = Some("KinAuto".into());
            c.auth.sms_vonage_api_url = url;
        })
        .await
    };
    let received: Received = Arc::default();
    let app =
        vonage(json!({"message-count": "1", "messages": [{"status": "0", "to": ANNE_DIGITS}]}), received.clone()).await;
    let (status, body) = app.auth_post("/otp", json!({"phone": ANNE})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (path, _, form) = received.lock().expect("lock")[0].clone();
    assert_eq!(path, "/sms/json");
    assert_eq!(
        (field(&form, "api_key"), field(&form, "to"), field(&form, "from")),
        ("vn-key".into(), ANNE_DIGITS.into(), "KinAuto".into())
    );
    // Vonage answers 200 with a non-zero status when it refuses a message.
    let app = vonage(json!({"messages": [{"status": "2", "error-text": "Missing to param"}]}), Arc::default()).await;
    a_refused_text_is_gotrue_s_error_without_the_secret(&app, "vn-secret").await;
}

/// A stand-in for Twilio Verify on 127.0.0.1: `Verifications` starts a verification of the
/// number, `VerificationCheck` approves `code` for a number with one pending (once), and answers
/// 404 otherwise, as Twilio does. Its base URL.
async fn twilio_verify(code: &'static str, received: Received) -> String {
    use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
    let pending: Arc<Mutex<Vec<String>>> = Arc::default();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let server = HttpServer::new(move || {
        let (received, pending) = (received.clone(), pending.clone());
        App::new().default_service(web::to(move |req: HttpRequest, body: web::Bytes| {
            let (received, pending) = (received.clone(), pending.clone());
            async move {
                let auth = req.headers().get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
                let form: Vec<(String, String)> = url::form_urlencoded::parse(&body).into_owned().collect();
                let field =
                    |name: &str| form.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()).unwrap_or_default();
                let (to, typed) = (field("To"), field("Code"));
                received.lock().expect("lock").push((req.path().to_string(), auth, form.clone()));
                if req.path().ends_with("/Verifications") {
                    pending.lock().expect("lock").push(to.clone());
                    return HttpResponse::Created().json(json!({"sid": "VE1", "to": to, "status": "pending"}));
                }
                let mut pending = pending.lock().expect("lock");
                match pending.iter().position(|p| *p == to) {
                    Some(at) if typed == code => {
                        pending.remove(at);
                        HttpResponse::Ok().json(json!({"to": to, "status": "approved"}))
                    }
                    Some(_) => HttpResponse::Ok().json(json!({"to": to, "status": "pending"})),
                    None => HttpResponse::NotFound().json(json!({"code": 20404, "status": 404})),
                }
            }
        }))
    })
    .workers(1)
    .listen(listener)
    .expect("listen");
    tokio::spawn(server.run());
    format!("http://127.0.0.1:{port}")
}

#[tokio::test]
async fn with_twilio_verify_twilio_makes_and_checks_the_codes() {
    let received: Received = Arc::default();
    let url = twilio_verify("424242", received.clone()).await;
    let app = spawn_app_with(|c| {
        c.auth.phone_enabled = true;
        c.auth.sms_provider = Some("twilio_verify".into());
        c.auth.sms_twilio_verify_account_sid = Some("AC0789".into());
        c.auth.sms_twilio_verify_auth_token = Some(secrecy::SecretString::from("tv-secret"));
        c.auth.sms_twilio_verify_message_service_sid = Some("VA0123".into());
        c.auth.sms_twilio_verify_api_url = url;
    })
    .await;
    let (status, body) = app.auth_post("/otp", json!({"phone": ANNE})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    {
        let sent = received.lock().expect("lock");
        let (path, auth, form) = &sent[0];
        assert_eq!(path, "/v2/Services/VA0123/Verifications");
        use base64::Engine;
        assert_eq!(*auth, format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("AC0789:tv-secret")));
        assert!(
            form.contains(&("To".into(), "+243812345678".into())) && form.contains(&("Channel".into(), "sms".into()))
        );
        assert!(!form.iter().any(|(k, _)| k == "Body"), "Twilio writes the message, not the server");
    }
    // a wrong code: Twilio says pending, the server says expired or invalid
    let (status, body) = app.auth_post("/verify", json!({"type": "sms", "phone": ANNE, "token": "111111"})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("otp_expired")), "{body}");
    let (status, session) = app.auth_post("/verify", json!({"type": "sms", "phone": ANNE, "token": "424242"})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    assert_eq!(session["user"]["phone"], ANNE_DIGITS);
    let checks: Vec<_> =
        received.lock().expect("lock").iter().filter(|(p, _, _)| p.ends_with("/VerificationCheck")).cloned().collect();
    assert_eq!(checks.len(), 2);
    assert!(checks[1].2.contains(&("Code".into(), "424242".into())));
    // used: the same code again finds nothing pending
    let (status, _) = app.auth_post("/verify", json!({"type": "sms", "phone": ANNE, "token": "424242"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn codes_go_out_through_textlocal() {
    let received: Received = Arc::default();
    let url = stand_in(200, json!({"status": "success", "messages": [{"id": "1"}]}), received.clone()).await;
    let app = spawn_app_with(|c| {
        c.auth.phone_enabled = true;
        c.auth.sms_provider = Some("textlocal".into());
        c.auth.sms_textlocal_api_key = Some(secrecy::SecretString::from("tl-key"));
        c.auth.sms_textlocal_sender = Some("KinAuto".into());
        c.auth.sms_textlocal_api_url = url;
    })
    .await;
    let (status, body) = app.auth_post("/otp", json!({"phone": ANNE})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (path, _, form) = received.lock().expect("lock")[0].clone();
    assert_eq!(path, "/send/");
    let field = |name: &str| form.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()).unwrap_or_default();
    assert_eq!(
        (field("apikey").as_str(), field("sender").as_str(), field("numbers").as_str()),
        ("tl-key", "KinAuto", ANNE_DIGITS)
    );
    let code = field("message").rsplit(' ').next().expect("code").to_string();
    let (status, session) = app.auth_post("/verify", json!({"type": "sms", "phone": ANNE, "token": code})).await;
    assert_eq!(status, StatusCode::OK, "{session}");

    let refusing = stand_in(
        200,
        json!({"status": "failure", "errors": [{"code": 4, "message": "No recipients specified"}]}),
        Arc::default(),
    )
    .await;
    let app = spawn_app_with(|c| {
        c.auth.phone_enabled = true;
        c.auth.sms_provider = Some("textlocal".into());
        c.auth.sms_textlocal_api_key = Some(secrecy::SecretString::from("tl-key"));
        c.auth.sms_textlocal_sender = Some("KinAuto".into());
        c.auth.sms_textlocal_api_url = refusing;
    })
    .await;
    a_refused_text_is_gotrue_s_error_without_the_secret(&app, "tl-key").await;
}

#[tokio::test]
async fn a_test_number_of_sms_test_otp_gets_its_fixed_code_and_no_text() {
    let app = spawn_app_with(|c| {
        c.auth.phone_enabled = true;
        c.auth.sms_test_otp = vec!["+243 810 000 000:123456".into(), "243820000000:654321".into()];
    })
    .await;
    let (status, body) = app.auth_post("/otp", json!({"phone": "+243810000000"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(app.inbox("+243810000000").await.is_empty(), "nothing texted to a test number");
    let (status, body) =
        app.auth_post("/verify", json!({"type": "sms", "phone": "+243810000000", "token": "654321"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "another number's code: {body}");
    let (status, session) =
        app.auth_post("/verify", json!({"type": "sms", "phone": "+243810000000", "token": "123456"})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    // other numbers get real codes
    let (status, _) = app.auth_post("/otp", json!({"phone": ANNE})).await;
    assert_eq!(status, StatusCode::OK);
    let (code, _) = texted_code(&app, ANNE_DIGITS).await;
    assert_eq!(code.len(), 6);

    // past SMS_TEST_OTP_VALID_UNTIL the number is an ordinary one
    let expired = spawn_app_with(|c| {
        c.auth.phone_enabled = true;
        c.auth.sms_test_otp = vec!["243810000000:123456".into()];
        c.auth.sms_test_otp_valid_until = Some(chrono::Utc::now() - chrono::Duration::hours(1));
    })
    .await;
    let (status, _) = expired.auth_post("/otp", json!({"phone": "+243810000000"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(expired.inbox("+243810000000").await.len(), 1);
}

#[tokio::test]
async fn wrong_codes_from_many_addresses_void_the_number_s_code_until_a_new_one_is_texted() {
    let app = spawn_app_with(|c| {
        c.auth.phone_enabled = true;
        c.auth.rate_limit_header = Some("X-Forwarded-For".into());
        c.auth.sms_max_frequency = 0;
    })
    .await;
    let number = "+243 990 000 010";
    let (status, body) = app.auth_post_from("10.0.0.1", "/otp", json!({"phone": number})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (code, _) = texted_code(&app, "243990000010").await;
    let wrong = if code == "000000" { "111111" } else { "000000" };

    // Five wrong guesses, each from another address (no per-IP limit is reached).
    for i in 0..5 {
        let ip = format!("10.0.1.{i}");
        let (status, body) =
            app.auth_post_from(&ip, "/verify", json!({"type": "sms", "phone": number, "token": wrong})).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("otp_expired")), "guess {i}");
    }
    // The right code is now refused too, from yet another address.
    let (status, body) =
        app.auth_post_from("10.0.2.1", "/verify", json!({"type": "sms", "phone": number, "token": code})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("otp_expired")), "{body}");

    // A new code starts a new count and signs in.
    let (status, body) = app.auth_post_from("10.0.0.1", "/otp", json!({"phone": number})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (code, _) = texted_code(&app, "243990000010").await;
    let (status, session) =
        app.auth_post_from("10.0.2.2", "/verify", json!({"type": "sms", "phone": number, "token": code})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
}

#[tokio::test]
async fn one_number_receives_at_most_its_hourly_texts_and_others_still_get_theirs() {
    let app = spawn_app_with(|c| {
        c.auth.phone_enabled = true;
        c.auth.rate_limit_header = Some("X-Forwarded-For".into());
        c.auth.sms_max_frequency = 0;
        c.auth.rate_limit_sms_per_number = 3;
        c.auth.rate_limit_otp = 0;
    })
    .await;
    for i in 0..3 {
        let (status, body) =
            app.auth_post_from(&format!("10.0.3.{i}"), "/otp", json!({"phone": "+243 990 000 020"})).await;
        assert_eq!(status, StatusCode::OK, "text {i}: {body}");
    }
    let (status, body) = app.auth_post_from("10.0.3.9", "/otp", json!({"phone": "+243 990 000 020"})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("over_sms_send_rate_limit")));
    assert_eq!(app.inbox("+243990000020").await.len(), 3, "no fourth text");
    let (status, body) = app.auth_post_from("10.0.3.9", "/otp", json!({"phone": "+243 990 000 021"})).await;
    assert_eq!(status, StatusCode::OK, "another number: {body}");
}

#[tokio::test]
async fn a_phone_factor_s_code_is_void_after_five_wrong_guesses() {
    let app = spawn_app_with(|c| {
        c.auth.mailer_autoconfirm = true;
        c.auth.mfa_phone_enroll_enabled = true;
        c.auth.mfa_phone_verify_enabled = true;
    })
    .await;
    let (_, session) =
        app.auth_post("/signup", json!({"email": "mfa-guess@example.test", "password": "secret-1"})).await;
    let token = session["access_token"].as_str().expect("token").to_string();
    let call = |path: String, body: Value| app.auth_post_as(&token, path, body);
    let (_, factor) = call("/factors".into(), json!({"factor_type": "phone", "phone": "+243 850 000 011"})).await;
    let id = factor["id"].as_str().expect("id").to_string();
    let (status, challenge) = call(format!("/factors/{id}/challenge"), json!({"channel": "sms"})).await;
    assert_eq!(status, StatusCode::OK, "{challenge}");
    let challenge_id = challenge["id"].as_str().expect("challenge").to_string();
    let (code, _) = texted_code(&app, "243850000011").await;
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for i in 0..5 {
        let (status, body) =
            call(format!("/factors/{id}/verify"), json!({"challenge_id": challenge_id, "code": wrong})).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, Some("mfa_verification_failed")),
            "guess {i}"
        );
    }
    let (status, body) =
        call(format!("/factors/{id}/verify"), json!({"challenge_id": challenge_id, "code": code})).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("mfa_verification_failed")),
        "the right code after five wrong ones: {body}"
    );
}
