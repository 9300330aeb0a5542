//! The OAuth 2.1 server over HTTP against a real database: a client registered through the
//! admin API, a signed-in user sent through `/oauth/authorize` with PKCE S256, the consent page's
//! calls (details, approve, deny), the code exchange and the refresh at `/oauth/token`, and what
//! must be refused (a wrong verifier, a reused code, a replaced secret, a redirect URI that is
//! not registered, an unknown PKCE method, the switched-off server).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use reqwest::StatusCode;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::auth::confirmed;
use crate::helpers::{spawn_app, spawn_app_with, TestApp};

const V2024: (&str, &str) = ("x-supabase-api-version", "2024-01-01");
const REDIRECT: &str = "https://app.example.test/callback";
const VERIFIER: &str = "a-verifier-of-the-third-party-app-long-enough-0123456789";

async fn oauth_app() -> TestApp {
    spawn_app_with(|c| {
        c.auth.oauth_server_enabled = true;
        c.auth.oauth_server_authorization_path = Some("/oauth/consent".into());
    })
    .await
}

fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// An HTTP client that does not follow redirects (the answers of `/oauth/authorize` are 302s).
fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client")
}

fn admin(app: &TestApp, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
    app.http
        .request(method, format!("{}/auth/v1/admin/oauth/clients{path}", app.address))
        .header("apikey", &app.service_key)
        .header(V2024.0, V2024.1)
        .bearer_auth(&app.service_key)
}

async fn json_answer(req: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let res = req.send().await.expect("request");
    (res.status(), res.json().await.unwrap_or(Value::Null))
}

/// A confidential client registered by the admin: its answer (with the secret).
async fn register(app: &TestApp) -> Value {
    let (status, client) = json_answer(
        admin(app, reqwest::Method::POST, "")
            .json(&json!({"client_name": "Carnet de route", "redirect_uris": [REDIRECT, "myapp://cb"]})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{client}");
    client
}

/// `GET /oauth/authorize` for `client`: the `Location` it answers.
async fn authorize(app: &TestApp, client_id: &str, extra: &[(&str, &str)]) -> String {
    let challenge = challenge(VERIFIER);
    let mut query = vec![
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("response_type", "code"),
        ("scope", "openid email"),
        ("state", "xyz"),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ];
    for (key, value) in extra {
        query.retain(|(k, _)| k != key);
        query.push((key, value));
    }
    let res = no_redirects()
        .get(format!("{}/auth/v1/oauth/authorize", app.address))
        .query(&query)
        .send()
        .await
        .expect("authorize");
    assert_eq!(res.status(), StatusCode::FOUND);
    res.headers()["location"].to_str().expect("location").to_string()
}

fn param(url: &str, key: &str) -> Option<String> {
    let url = url::Url::parse(url).expect("url");
    url.query_pairs().find(|(k, _)| k == key).map(|(_, v)| v.into_owned())
}

/// A user signed in: their access token and id.
async fn user(app: &TestApp, email: &str) -> (String, String) {
    let session = confirmed(app, email, "secret-1").await;
    (session["access_token"].as_str().expect("token").into(), session["user"]["id"].as_str().expect("id").into())
}

async fn consent(app: &TestApp, token: &str, authorization_id: &str, action: &str) -> (StatusCode, Value) {
    json_answer(
        app.http
            .post(format!("{}/auth/v1/oauth/authorizations/{authorization_id}/consent", app.address))
            .bearer_auth(token)
            .header(V2024.0, V2024.1)
            .json(&json!({ "action": action })),
    )
    .await
}

/// `POST /oauth/token` with a form body, authenticated with HTTP Basic.
async fn token(app: &TestApp, client: &Value, secret: &str, form: &[(&str, &str)]) -> (StatusCode, Value) {
    json_answer(
        app.http
            .post(format!("{}/auth/v1/oauth/token", app.address))
            .basic_auth(client["client_id"].as_str().expect("id"), Some(secret))
            .form(form),
    )
    .await
}

/// The claims of an access token (its signature is checked by `GET /user` in the tests).
fn claims(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("a JWT");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64url")).expect("claims")
}

/// The consent page opens the request as the signed-in user (which makes it theirs).
async fn open(app: &TestApp, user_token: &str, authorization_id: &str) -> (StatusCode, Value) {
    json_answer(
        app.http
            .get(format!("{}/auth/v1/oauth/authorizations/{authorization_id}", app.address))
            .bearer_auth(user_token),
    )
    .await
}

/// Register, authorize and approve: the client, its secret and the code.
async fn approved_code(app: &TestApp, user_token: &str) -> (Value, String, String) {
    let client = register(app).await;
    let secret = client["client_secret"].as_str().expect("secret").to_string();
    let location = authorize(app, client["client_id"].as_str().expect("id"), &[]).await;
    let authorization_id = param(&location, "authorization_id").expect("authorization_id");
    assert_eq!(open(app, user_token, &authorization_id).await.0, StatusCode::OK);
    let (status, answer) = consent(app, user_token, &authorization_id, "approve").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let code = param(answer["redirect_url"].as_str().expect("redirect_url"), "code").expect("code");
    (client, secret, code)
}

#[tokio::test]
async fn a_registered_app_signs_a_user_in_with_pkce_and_refreshes_through_its_own_endpoint() {
    let app = oauth_app().await;
    let (user_token, user_id) = user(&app, "ada@example.test").await;
    let client = register(&app).await;
    let client_id = client["client_id"].as_str().expect("id");
    let secret = client["client_secret"].as_str().expect("secret");
    assert_eq!(client["client_type"], "confidential");
    assert_eq!(client["token_endpoint_auth_method"], "client_secret_basic");
    assert_eq!(client["grant_types"], json!(["authorization_code", "refresh_token"]));

    // the app sends the user to the authorization endpoint; the server sends them to the consent page
    let location = authorize(&app, client_id, &[]).await;
    assert!(location.starts_with(&format!("{}/oauth/consent?authorization_id=", app.auth.site_url)), "{location}");
    let authorization_id = param(&location, "authorization_id").expect("authorization_id");

    // the consent page shows the request to the signed-in user, then approves it
    let (status, details) = open(&app, &user_token, &authorization_id).await;
    assert_eq!(status, StatusCode::OK, "{details}");
    assert_eq!(details["client"]["name"], "Carnet de route");
    assert_eq!(details["user"], json!({"id": user_id, "email": "ada@example.test"}));
    assert_eq!(details["scope"], "openid email");
    assert_eq!(details["redirect_uri"], REDIRECT);
    let (status, answer) = consent(&app, &user_token, &authorization_id, "approve").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let redirect_url = answer["redirect_url"].as_str().expect("redirect_url");
    assert!(redirect_url.starts_with(REDIRECT));
    assert_eq!(param(redirect_url, "state").as_deref(), Some("xyz"));
    let code = param(redirect_url, "code").expect("code");

    // the app exchanges the code with its verifier
    let exchange = [("grant_type", "authorization_code"), ("code", &code), ("code_verifier", VERIFIER)];
    let (status, tokens) = token(&app, &client, secret, &[&exchange[..], &[("redirect_uri", REDIRECT)]].concat()).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    assert_eq!(tokens["token_type"], "bearer");
    assert!(tokens.get("user").is_none(), "no user for an OAuth client: {tokens}");
    let access = claims(tokens["access_token"].as_str().expect("access"));
    assert_eq!((access["sub"].as_str(), access["client_id"].as_str()), (Some(user_id.as_str()), Some(client_id)));
    assert_eq!(access["scope"], "openid email");
    assert_eq!(access["role"], "authenticated");
    assert_eq!(app.auth_user(tokens["access_token"].as_str().expect("access")).await["id"], json!(user_id));

    // the app reads what the scopes allow
    let (status, info) = json_answer(
        app.http
            .get(format!("{}/auth/v1/oauth/userinfo", app.address))
            .bearer_auth(tokens["access_token"].as_str().expect("access")),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(info, json!({"sub": user_id, "email": "ada@example.test", "email_verified": true}));

    // the same code a second time is refused
    let (status, again) = token(&app, &client, secret, &exchange).await;
    assert_eq!((status, again["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_grant")), "{again}");

    // the refresh token is the client's: refreshed at /oauth/token, refused at /token
    let refresh = tokens["refresh_token"].as_str().expect("refresh");
    let (status, refused) = app.auth_post("/token?grant_type=refresh_token", json!({"refresh_token": refresh})).await;
    assert_eq!((status, refused["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_client")), "{refused}");
    let (status, refreshed) =
        token(&app, &client, secret, &[("grant_type", "refresh_token"), ("refresh_token", refresh)]).await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");
    assert_ne!(refreshed["refresh_token"], tokens["refresh_token"]);
    let again = claims(refreshed["access_token"].as_str().expect("access"));
    assert_eq!((again["client_id"].as_str(), again["scope"].as_str()), (Some(client_id), Some("openid email")));

    // a new request within the granted scopes is approved without asking
    let location = authorize(&app, client_id, &[("scope", "email")]).await;
    let authorization_id = param(&location, "authorization_id").expect("authorization_id");
    let (status, auto) = open(&app, &user_token, &authorization_id).await;
    assert_eq!(status, StatusCode::OK);
    assert!(param(auto["redirect_url"].as_str().expect("auto-approved"), "code").is_some(), "{auto}");

    // the user sees the grant, revokes it, and the app's session ends with it
    let grants = |method: reqwest::Method, query: &str| {
        app.http.request(method, format!("{}/auth/v1/user/oauth/grants{query}", app.address)).bearer_auth(&user_token)
    };
    let (status, listed) = json_answer(grants(reqwest::Method::GET, "")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed[0]["client"]["id"], json!(client_id));
    assert_eq!(listed[0]["scopes"], json!(["openid", "email"]));
    let revoked = grants(reqwest::Method::DELETE, &format!("?client_id={client_id}")).send().await.expect("revoke");
    assert_eq!(revoked.status(), StatusCode::NO_CONTENT);
    let newest = refreshed["refresh_token"].as_str().expect("refresh");
    let (status, _) = token(&app, &client, secret, &[("grant_type", "refresh_token"), ("refresh_token", newest)]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (_, listed) = json_answer(grants(reqwest::Method::GET, "")).await;
    assert_eq!(listed, json!([]));
}

#[tokio::test]
async fn a_wrong_verifier_is_refused_and_the_code_stays_unexchanged() {
    let app = oauth_app().await;
    let (user_token, _) = user(&app, "bea@example.test").await;
    let (client, secret, code) = approved_code(&app, &user_token).await;

    let (status, wrong) = token(
        &app,
        &client,
        &secret,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("code_verifier", "not-the-verifier-at-all-of-this-app-0000000"),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(wrong["error"], "invalid_grant");
    assert!(wrong["error_description"].as_str().expect("description").starts_with("PKCE verification failed"));
    let (status, none) = token(&app, &client, &secret, &[("grant_type", "authorization_code"), ("code", &code)]).await;
    assert_eq!((status, none["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_grant")));
    let (status, ok) = token(
        &app,
        &client,
        &secret,
        &[("grant_type", "authorization_code"), ("code", &code), ("code_verifier", VERIFIER)],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{ok}");
}

#[tokio::test]
async fn denying_sends_the_user_back_to_the_app_with_access_denied_and_no_code() {
    let app = oauth_app().await;
    let (user_token, _) = user(&app, "cyd@example.test").await;
    let client = register(&app).await;
    let location = authorize(&app, client["client_id"].as_str().expect("id"), &[]).await;
    let authorization_id = param(&location, "authorization_id").expect("authorization_id");
    assert_eq!(open(&app, &user_token, &authorization_id).await.0, StatusCode::OK);

    let (status, answer) = consent(&app, &user_token, &authorization_id, "deny").await;

    assert_eq!(status, StatusCode::OK);
    let back = answer["redirect_url"].as_str().expect("redirect_url");
    assert_eq!(param(back, "error").as_deref(), Some("access_denied"));
    assert_eq!(param(back, "state").as_deref(), Some("xyz"));
    assert!(param(back, "code").is_none());
    let (status, again) = consent(&app, &user_token, &authorization_id, "approve").await;
    assert_eq!((status, again["code"].as_str()), (StatusCode::BAD_REQUEST, Some("validation_failed")));
    // another user cannot take over someone else's request
    let location = authorize(&app, client["client_id"].as_str().expect("id"), &[]).await;
    let authorization_id = param(&location, "authorization_id").expect("authorization_id");
    assert_eq!(open(&app, &user_token, &authorization_id).await.0, StatusCode::OK);
    let (other, _) = user(&app, "dan@example.test").await;
    let (status, stolen) = consent(&app, &other, &authorization_id, "approve").await;
    assert_eq!((status, stolen["code"].as_str()), (StatusCode::NOT_FOUND, Some("oauth_authorization_not_found")));
}

#[tokio::test]
async fn a_regenerated_secret_voids_the_old_one_and_secrets_are_shown_only_once() {
    let app = oauth_app().await;
    let (user_token, _) = user(&app, "eve@example.test").await;
    let (client, old_secret, code) = approved_code(&app, &user_token).await;
    let id = client["client_id"].as_str().expect("id");

    let (status, regenerated) =
        json_answer(admin(&app, reqwest::Method::POST, &format!("/{id}/regenerate_secret"))).await;

    assert_eq!(status, StatusCode::OK);
    let new_secret = regenerated["client_secret"].as_str().expect("new secret");
    assert_ne!(new_secret, old_secret);
    let exchange = [("grant_type", "authorization_code"), ("code", code.as_str()), ("code_verifier", VERIFIER)];
    let (status, refused) = token(&app, &client, &old_secret, &exchange).await;
    // (no API version header: GoTrue's legacy error shape)
    assert_eq!(
        (status, refused["error_code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_credentials")),
        "{refused}"
    );
    let (status, _) = token(&app, &client, new_secret, &exchange).await;
    assert_eq!(status, StatusCode::OK);
    // never shown again, and only its hash is stored
    let (_, fetched) = json_answer(admin(&app, reqwest::Method::GET, &format!("/{id}"))).await;
    assert!(fetched.get("client_secret").is_none(), "{fetched}");
    let (_, listed) = json_answer(admin(&app, reqwest::Method::GET, "")).await;
    assert!(listed["clients"].as_array().expect("clients").iter().all(|c| c.get("client_secret").is_none()));
    let stored = app
        .admin_query_one(&format!("select client_secret_hash from auth.oauth_clients where id = '{id}'"))
        .await
        .get::<_, String>(0);
    assert_ne!(stored, new_secret);
    assert_eq!(stored, URL_SAFE_NO_PAD.encode(Sha256::digest(new_secret.as_bytes())));
}

#[tokio::test]
async fn redirect_uris_are_matched_exactly_and_pkce_takes_s256_or_plain_as_gotrue_does() {
    let app = oauth_app().await;
    let client = register(&app).await;
    let id = client["client_id"].as_str().expect("id");
    for wrong in [format!("{REDIRECT}/"), format!("{REDIRECT}?x=1"), "https://app.example.test/".to_string()] {
        let res = no_redirects()
            .get(format!("{}/auth/v1/oauth/authorize", app.address))
            .header(V2024.0, V2024.1)
            .query(&[("client_id", id), ("redirect_uri", &wrong), ("code_challenge", &challenge(VERIFIER))])
            .send()
            .await
            .expect("authorize");
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{wrong}");
        let body: Value = res.json().await.expect("json");
        assert_eq!(body["message"], "invalid redirect_uri");
    }
    let plain = authorize(&app, id, &[("code_challenge", VERIFIER), ("code_challenge_method", "plain")]).await;
    assert_eq!(param(&plain, "error"), None, "GoTrue takes a plain challenge: {plain}");
    let unknown = authorize(&app, id, &[("code_challenge", VERIFIER), ("code_challenge_method", "S512")]).await;
    assert!(unknown.starts_with(REDIRECT), "{unknown}");
    assert_eq!(param(&unknown, "error").as_deref(), Some("invalid_request"));
    assert_eq!(param(&unknown, "state").as_deref(), Some("xyz"));
    let missing = authorize(&app, id, &[("code_challenge", "")]).await;
    assert_eq!(param(&missing, "error").as_deref(), Some("invalid_request"));
    // the discovery document of the server that is on
    let (status, doc) =
        json_answer(app.http.get(format!("{}/auth/v1/.well-known/oauth-authorization-server", app.address))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(doc["token_endpoint"], format!("{}/auth/v1/oauth/token", app.address));
    assert_eq!(doc["code_challenge_methods_supported"], json!(["S256", "plain"]));
}

#[tokio::test]
async fn the_switched_off_server_answers_feature_disabled_everywhere() {
    let app = spawn_app().await;
    for (method, path) in [
        (reqwest::Method::GET, "/oauth/authorize?client_id=x&redirect_uri=y"),
        (reqwest::Method::POST, "/oauth/token"),
        (reqwest::Method::POST, "/oauth/clients/register"),
        (reqwest::Method::GET, "/oauth/authorizations/abc"),
        (reqwest::Method::POST, "/admin/oauth/clients"),
        (reqwest::Method::DELETE, "/user/oauth/grants?client_id=x"),
    ] {
        let (status, body) = json_answer(
            no_redirects()
                .request(method, format!("{}/auth/v1{path}", app.address))
                .header(V2024.0, V2024.1)
                .bearer_auth(&app.service_key)
                .json(&json!({})),
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(
            (body["code"].as_str(), body["message"].as_str()),
            (Some("feature_disabled"), Some("OAuth server is disabled"))
        );
    }
}
