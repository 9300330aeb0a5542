//! `signInWithIdToken` over HTTP against a stand-in OpenID Connect provider started by the test
//! on 127.0.0.1 (discovery document and keys): the token's signature, issuer, audience and
//! nonce are checked, the user is made once and found again by its identity, and a verified
//! address links the identity to the account that has it.

use reqwest::StatusCode;
use serde_json::{json, Value};
use sha2::Digest;

use crate::helpers::{spawn_app_with, TestApp};

/// The provider: its issuer URL and the key it signs with.
struct Provider {
    issuer: String,
    key: server::signing_keys::NewKey,
}

async fn provider() -> Provider {
    use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
    let key = server::signing_keys::generate_es256().expect("key");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let issuer = format!("http://127.0.0.1:{}/realms/kinshasa", listener.local_addr().expect("addr").port());
    let token_for_code = {
        let issuer = issuer.clone();
        let pem = key.pem.clone();
        let kid = key.id.to_string();
        move |code: &str| {
            let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
            header.kid = Some(kid.clone());
            let claims = json!({"iss": issuer, "aud": "site-client", "sub": format!("kc-{code}"),
                "email": format!("{code}@example.test"), "email_verified": true, "name": "Via Redirect",
                "exp": chrono::Utc::now().timestamp() + 300});
            jsonwebtoken::encode(
                &header,
                &claims,
                &jsonwebtoken::EncodingKey::from_ec_pem(pem.as_bytes()).expect("pem"),
            )
            .expect("sign")
        }
    };
    let (jwk, base) = (key.public_jwk.clone(), issuer.clone());
    let server = HttpServer::new(move || {
        let (jwk, base, token_for_code) = (jwk.clone(), base.clone(), token_for_code.clone());
        App::new()
            .route(
                "/realms/kinshasa/.well-known/openid-configuration",
                web::get().to(move || {
                    let base = base.clone();
                    async move {
                        HttpResponse::Ok().json(json!({"issuer": base, "jwks_uri": format!("{base}/certs"),
                            "authorization_endpoint": format!("{base}/auth"), "token_endpoint": format!("{base}/token")}))
                    }
                }),
            )
            .route(
                "/realms/kinshasa/certs",
                web::get().to(move || {
                    let jwk = jwk.clone();
                    async move { HttpResponse::Ok().json(json!({"keys": [jwk]})) }
                }),
            )
            // The user consents at once: back to redirect_uri with a code named after `login_hint`.
            .route(
                "/realms/kinshasa/auth",
                web::get().to(|req: HttpRequest| async move {
                    let q: std::collections::HashMap<String, String> =
                        url::form_urlencoded::parse(req.query_string().as_bytes()).into_owned().collect();
                    let mut back = url::Url::parse(&q["redirect_uri"]).expect("redirect_uri");
                    if q.get("client_id").map(String::as_str) != Some("site-client") || q["response_type"] != "code" {
                        back.query_pairs_mut().append_pair("error", "invalid_request");
                    } else {
                        back.query_pairs_mut().append_pair("code", "mwamba").append_pair("state", &q["state"]);
                    }
                    HttpResponse::Found().insert_header(("location", back.to_string())).finish()
                }),
            )
            .route(
                "/realms/kinshasa/token",
                web::post().to(move |form: web::Form<std::collections::HashMap<String, String>>| {
                    let token_for_code = token_for_code.clone();
                    async move {
                        if form.get("client_secret").map(String::as_str) != Some("kc-secret") {
                            return HttpResponse::Unauthorized().json(json!({"error": "unauthorized_client"}));
                        }
                        let code = form.get("code").cloned().unwrap_or_default();
                        HttpResponse::Ok().json(json!({"access_token": "provider-at", "token_type": "Bearer",
                            "id_token": token_for_code(&code)}))
                    }
                }),
            )
    })
    .workers(1)
    .listen(listener)
    .expect("listen");
    tokio::spawn(server.run());
    Provider { issuer, key }
}

impl Provider {
    fn id_token(&self, claims: Value) -> String {
        self.id_token_with(&self.key, claims)
    }

    fn id_token_with(&self, key: &server::signing_keys::NewKey, claims: Value) -> String {
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.kid = Some(self.key.id.to_string());
        let mut all = json!({"iss": self.issuer, "aud": "site-client", "exp": chrono::Utc::now().timestamp() + 300,
            "iat": chrono::Utc::now().timestamp()});
        for (k, v) in claims.as_object().expect("object") {
            all[k] = v.clone();
        }
        jsonwebtoken::encode(&header, &all, &jsonwebtoken::EncodingKey::from_ec_pem(key.pem.as_bytes()).expect("pem"))
            .expect("sign")
    }
}

fn hashed(nonce: &str) -> String {
    hex::encode(sha2::Sha256::digest(nonce.as_bytes()))
}

async fn grant(app: &TestApp, body: Value) -> (StatusCode, Value) {
    app.auth_post("/token?grant_type=id_token", body).await
}

async fn app_for(provider: &Provider) -> TestApp {
    let issuer = provider.issuer.clone();
    spawn_app_with(move |c| {
        c.auth.manual_linking_enabled = true;
        c.auth.keycloak_enabled = true;
        c.auth.keycloak_url = Some(issuer);
        c.auth.keycloak_client_id = vec!["site-client".into()];
        c.auth.keycloak_secret = Some(secrecy::SecretString::from("kc-secret"));
        c.auth.mailer_autoconfirm = true;
    })
    .await
}

/// A server with the OpenID Connect side of `name` (`gitlab`, `azure` or `apple`) pointed at the
/// stand-in provider.
async fn app_with_oidc(provider: &Provider, name: &'static str) -> TestApp {
    let issuer = provider.issuer.clone();
    spawn_app_with(move |c| {
        let a = &mut c.auth;
        let (enabled, client_id, secret, url) = match name {
            "gitlab" => (&mut a.gitlab_enabled, &mut a.gitlab_client_id, &mut a.gitlab_secret, &mut a.gitlab_url),
            "azure" => (&mut a.azure_enabled, &mut a.azure_client_id, &mut a.azure_secret, &mut a.azure_url),
            _ => (&mut a.apple_enabled, &mut a.apple_client_id, &mut a.apple_secret, &mut a.apple_url),
        };
        *enabled = true;
        *client_id = vec!["site-client".into()];
        *secret = Some(secrecy::SecretString::from("kc-secret"));
        *url = issuer;
    })
    .await
}

#[tokio::test]
async fn an_id_token_of_an_enabled_provider_signs_in_and_finds_the_same_user_again() {
    let provider = provider().await;
    let app = app_for(&provider).await;
    let claims = json!({"sub": "kc-1", "email": "Mbuyi@Example.test", "email_verified": true, "name": "Mbuyi",
        "nonce": hashed("n-1")});
    let (status, session) =
        grant(&app, json!({"provider": "keycloak", "id_token": provider.id_token(claims.clone()), "nonce": "n-1"}))
            .await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let user = &session["user"];
    assert_eq!(user["email"], "mbuyi@example.test");
    assert!(user["email_confirmed_at"].is_string(), "the provider vouched for the address");
    assert_eq!(user["app_metadata"]["provider"], "keycloak");
    assert_eq!(user["user_metadata"]["full_name"], "Mbuyi");
    assert_eq!(user["identities"][0]["provider"], "keycloak");
    assert_eq!(user["identities"][0]["id"], "kc-1");

    let (status, again) =
        grant(&app, json!({"provider": "keycloak", "id_token": provider.id_token(claims), "nonce": "n-1"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(again["user"]["id"], user["id"], "found by its identity");
    let settings = app.auth_settings().await;
    assert_eq!(settings["external"]["keycloak"], true);
}

#[tokio::test]
async fn a_bad_signature_issuer_audience_or_nonce_is_refused() {
    let provider = provider().await;
    let app = app_for(&provider).await;
    let base = json!({"sub": "kc-2", "email": "a2@example.test", "email_verified": true, "nonce": hashed("n-2")});
    let with = |extra: Value| {
        let mut claims = base.clone();
        for (k, v) in extra.as_object().expect("object") {
            claims[k] = v.clone();
        }
        claims
    };
    let stranger = server::signing_keys::generate_es256().expect("key");
    let cases = [
        (provider.id_token_with(&stranger, base.clone()), Some("n-2"), "Bad ID token"),
        (provider.id_token(with(json!({"iss": "http://127.0.0.1:1/realms/other"}))), Some("n-2"), "Bad ID token"),
        (provider.id_token(with(json!({"exp": 1000}))), Some("n-2"), "Bad ID token"),
        (
            provider.id_token(with(json!({"aud": "another-app"}))),
            Some("n-2"),
            "Unacceptable audience in id_token: [\"another-app\"]",
        ),
        (provider.id_token(base.clone()), Some("n-3"), "Nonces mismatch"),
        (provider.id_token(base.clone()), None, "Passed nonce and nonce in id_token should either both exist or not."),
    ];
    for (token, nonce, message) in cases {
        let (status, body) = grant(&app, json!({"provider": "keycloak", "id_token": token, "nonce": nonce})).await;
        assert_eq!((status, body["message"].as_str()), (StatusCode::BAD_REQUEST, Some(message)));
    }
    let count: Value = app
        .http
        .get(format!("{}/auth/v1/admin/users", app.address))
        .bearer_auth(&app.service_key)
        .send()
        .await
        .expect("users")
        .json()
        .await
        .expect("json");
    assert_eq!(count["users"], json!([]), "no refused token made a user");
}

#[tokio::test]
async fn a_verified_address_links_the_identity_to_the_account_that_has_it() {
    let provider = provider().await;
    let app = app_for(&provider).await;
    let signup = signed_up(&app, "kabila@example.test").await;
    let id = signup["user"]["id"].clone();
    let token = provider.id_token(json!({"sub": "kc-3", "email": "kabila@example.test", "email_verified": true}));
    let (status, session) = grant(&app, json!({"provider": "keycloak", "id_token": token})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    assert_eq!(session["user"]["id"], id);
    let providers = session["user"]["app_metadata"]["providers"].as_array().expect("providers").clone();
    assert!(providers.contains(&json!("email")) && providers.contains(&json!("keycloak")), "{providers:?}");

    // An unverified address is not linked: it cannot take over the account.
    let token = provider.id_token(json!({"sub": "kc-4", "email": "kabila@example.test", "email_verified": false}));
    let (status, body) = grant(&app, json!({"provider": "keycloak", "id_token": token})).await;
    assert_ne!(status, StatusCode::OK, "{body}");
}

/// Follow one redirect by hand; the `Location`.
async fn location_of(http: &reqwest::Client, url: &str) -> String {
    let res = http.get(url).send().await.expect("follow");
    assert_eq!(res.status(), StatusCode::FOUND, "{url}");
    res.headers()["location"].to_str().expect("location").to_string()
}

#[tokio::test]
async fn sign_in_with_oauth_goes_through_the_provider_and_back_with_a_session_or_a_pkce_code() {
    let provider = provider().await;
    let app = app_for(&provider).await;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let site = "http://127.0.0.1:54321/espace";

    // Implicit flow: the session comes back in the fragment.
    let authorize = format!("{}/auth/v1/authorize?provider=keycloak&redirect_to={}", app.address, urlencoding(site));
    let at_provider = location_of(&http, &authorize).await;
    assert!(at_provider.starts_with(&format!("{}/auth?", provider.issuer)), "{at_provider}");
    assert!(at_provider.contains("scope=openid+email+profile"), "{at_provider}");
    let callback = location_of(&http, &at_provider).await;
    assert!(callback.starts_with(&format!("{}/auth/v1/callback?", app.address)), "{callback}");
    let back = location_of(&http, &callback).await;
    assert!(back.starts_with(&format!("{site}#access_token=")), "{back}");
    let fragment = fragment_of(&back);
    assert_eq!(fragment["provider_token"], "provider-at");
    let user = app.auth_user(&fragment["access_token"]).await;
    assert_eq!(user["email"], "mwamba@example.test");
    assert_eq!(user["app_metadata"]["provider"], "keycloak");

    // PKCE: a code comes back, which the verifier exchanges for a session of the same user.
    let verifier = "a-verifier-of-at-least-forty-three-characters-long-0123456789";
    let challenge = {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()))
    };
    let authorize = format!("{authorize}&code_challenge={challenge}&code_challenge_method=s256");
    let at_provider = location_of(&http, &authorize).await;
    let callback = location_of(&http, &at_provider).await;
    let back = location_of(&http, &callback).await;
    let code = back.strip_prefix(&format!("{site}?code=")).expect("a code").to_string();
    let session: Value = app
        .http
        .post(format!("{}/auth/v1/token?grant_type=pkce", app.address))
        .header("apikey", &app.anon_key)
        .json(&json!({"auth_code": code, "code_verifier": verifier}))
        .send()
        .await
        .expect("pkce")
        .json()
        .await
        .expect("json");
    assert_eq!(session["user"]["id"], user["id"]);

    // A forged or missing state is refused.
    let forged =
        http.get(format!("{}/auth/v1/callback?code=x&state=not-a-state", app.address)).send().await.expect("x");
    assert_eq!(forged.status(), StatusCode::BAD_REQUEST);
    // The provider's own refusal goes back to the site.
    let state = url::Url::parse(&callback)
        .expect("url")
        .query_pairs()
        .find(|(k, _)| k == "state")
        .expect("state")
        .1
        .to_string();
    let denied = location_of(
        &http,
        &format!(
            "{}/auth/v1/callback?error=access_denied&error_description=No&state={}",
            app.address,
            urlencoding(&state)
        ),
    )
    .await;
    assert!(denied.starts_with(&format!("{site}#error=access_denied&error_code=access_denied")), "{denied}");
}

/// The pairs of a redirect's fragment.
/// Follows `/authorize?provider={name}` through the stand-in provider and back to the site, as a
/// browser would: where the server sent it first, and the fragment it came back with.
async fn sign_in_by_redirect(app: &TestApp, name: &str) -> (String, std::collections::HashMap<String, String>) {
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let at_provider = location_of(&http, &format!("{}/auth/v1/authorize?provider={name}", app.address)).await;
    let callback = location_of(&http, &at_provider).await;
    (at_provider, fragment_of(&location_of(&http, &callback).await))
}

fn fragment_of(location: &str) -> std::collections::HashMap<String, String> {
    url::form_urlencoded::parse(location.split_once('#').expect("fragment").1.as_bytes()).into_owned().collect()
}

/// A new user signed up with `email` by password: the answer (user and session).
async fn signed_up(app: &TestApp, email: &str) -> Value {
    let (status, body) = app.auth_post("/signup", json!({"email": email, "password": "secret-1"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// Starts linking a Keycloak identity to the user of `token`: the answer with the provider's URL.
async fn link_start(app: &TestApp, token: &str) -> Value {
    app.http
        .get(format!("{}/auth/v1/user/identities/authorize?provider=keycloak&skip_http_redirect=true", app.address))
        .bearer_auth(token)
        .send()
        .await
        .expect("link")
        .json()
        .await
        .expect("json")
}

fn urlencoding(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

#[tokio::test]
async fn a_signed_in_user_links_an_identity_through_the_provider_and_unlinks_it_again() {
    let provider = provider().await;
    let app = app_for(&provider).await;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let signup = signed_up(&app, "lukaku@example.test").await;
    let token = signup["access_token"].as_str().expect("token").to_string();
    let link = link_start(&app, &token).await;
    let at_provider = link["url"].as_str().expect("a url").to_string();
    let callback = location_of(&http, &at_provider).await;
    let back = location_of(&http, &callback).await;
    assert!(back.contains("#access_token="), "{back}");
    let linked = app.auth_user(&token).await;
    assert_eq!(linked["id"], signup["user"]["id"]);
    let identities = linked["identities"].as_array().expect("identities").clone();
    let keycloak = identities.iter().find(|i| i["provider"] == "keycloak").expect("the linked identity");
    assert_eq!(keycloak["id"], "kc-mwamba");

    // The same provider account cannot be linked to a second user.
    let other = signed_up(&app, "other@example.test").await;
    let other_link = link_start(&app, other["access_token"].as_str().expect("token")).await;
    let callback = location_of(&http, other_link["url"].as_str().expect("url")).await;
    let refused = location_of(&http, &callback).await;
    assert!(refused.contains("error_code=identity_already_exists"), "{refused}");

    let delete = |id: String| {
        let (app, token) = (&app, token.clone());
        async move {
            app.http
                .delete(format!("{}/auth/v1/user/identities/{id}", app.address))
                .bearer_auth(token)
                .send()
                .await
                .expect("delete")
        }
    };
    let unlinked = delete(keycloak["identity_id"].as_str().expect("identity id").to_string()).await;
    assert_eq!(unlinked.status(), StatusCode::OK);
    let after = app.auth_user(&token).await;
    assert_eq!(after["identities"].as_array().map(Vec::len), Some(1));
    assert_eq!(after["app_metadata"]["providers"], json!(["email"]));
    let email_identity = after["identities"][0]["identity_id"].as_str().expect("id").to_string();
    let last = delete(email_identity).await;
    assert_eq!(last.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(last.json::<Value>().await.expect("json")["error_code"], "single_identity_not_deletable");
}

/// A stand-in for GitHub (OAuth app endpoints and the REST API under `/api/v3`, as GitHub
/// Enterprise serves it); its base URL.
async fn github() -> String {
    use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://127.0.0.1:{}", listener.local_addr().expect("addr").port());
    let server = HttpServer::new(|| {
        App::new()
            .route(
                "/login/oauth/authorize",
                web::get().to(|req: HttpRequest| async move {
                    let q: std::collections::HashMap<String, String> =
                        url::form_urlencoded::parse(req.query_string().as_bytes()).into_owned().collect();
                    let mut back = url::Url::parse(&q["redirect_uri"]).expect("redirect_uri");
                    assert_eq!(q["scope"], "user:email");
                    back.query_pairs_mut().append_pair("code", "gh-code").append_pair("state", &q["state"]);
                    HttpResponse::Found().insert_header(("location", back.to_string())).finish()
                }),
            )
            .route(
                "/login/oauth/access_token",
                web::post().to(|form: web::Form<std::collections::HashMap<String, String>>| async move {
                    if form.get("client_secret").map(String::as_str) != Some("gh-secret") || form["code"] != "gh-code" {
                        return HttpResponse::Ok().json(json!({"error": "bad_verification_code"}));
                    }
                    HttpResponse::Ok()
                        .json(json!({"access_token": "gho_token", "token_type": "bearer", "scope": "user:email"}))
                }),
            )
            .route(
                "/api/v3/user",
                web::get().to(|req: HttpRequest| async move {
                    if req.headers().get("authorization").and_then(|v| v.to_str().ok()) != Some("Bearer gho_token") {
                        return HttpResponse::Unauthorized().finish();
                    }
                    HttpResponse::Ok().json(json!({"id": 4242, "login": "kabasele", "name": "Kabasele Tshamala",
                        "avatar_url": "https://avatars.example.test/4242"}))
                }),
            )
            .route(
                "/api/v3/user/emails",
                web::get().to(|| async {
                    HttpResponse::Ok().json(json!([
                        {"email": "old@example.test", "primary": false, "verified": true},
                        {"email": "Kabasele@Example.test", "primary": true, "verified": true}
                    ]))
                }),
            )
    })
    .workers(1)
    .listen(listener)
    .expect("listen");
    tokio::spawn(server.run());
    base
}

#[tokio::test]
async fn sign_in_with_github_reads_the_user_and_its_primary_address_from_the_api() {
    let base = github().await;
    let app = spawn_app_with(move |c| {
        c.auth.github_enabled = true;
        c.auth.github_client_id = vec!["gh-client".into()];
        c.auth.github_secret = Some(secrecy::SecretString::from("gh-secret"));
        c.auth.github_url = base;
    })
    .await;
    let (at_github, fragment) = sign_in_by_redirect(&app, "github").await;
    assert!(at_github.contains("/login/oauth/authorize?client_id=gh-client"), "{at_github}");
    assert_eq!(fragment["provider_token"], "gho_token");
    let user = app.auth_user(&fragment["access_token"]).await;
    assert_eq!(user["email"], "kabasele@example.test", "the primary address");
    assert!(user["email_confirmed_at"].is_string());
    assert_eq!(user["app_metadata"]["provider"], "github");
    assert_eq!(user["identities"][0]["id"], "4242");
    assert_eq!(user["user_metadata"]["user_name"], "kabasele");
    assert_eq!(user["user_metadata"]["full_name"], "Kabasele Tshamala");
}

#[tokio::test]
async fn garbage_at_the_oauth_endpoints_gets_gotrue_errors_never_a_500() {
    let provider = provider().await;
    let app = app_for(&provider).await;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let cases: Vec<reqwest::RequestBuilder> = vec![
        http.get(format!("{}/auth/v1/callback", app.address)),
        http.get(format!("{}/auth/v1/callback?state=%00%ff&code=x", app.address)),
        http.post(format!("{}/auth/v1/callback", app.address)).body(vec![0xff, 0x00, b'=', b'&']),
        http.post(format!("{}/auth/v1/callback", app.address)).header("content-type", "application/json").body("{"),
        http.get(format!("{}/auth/v1/authorize?provider=%00", app.address)),
        http.get(format!(
            "{}/auth/v1/authorize?provider=keycloak&code_challenge=x&code_challenge_method=nope",
            app.address
        )),
        http.delete(format!("{}/auth/v1/user/identities/not-a-uuid", app.address)).bearer_auth(&app.anon_key),
        http.post(format!("{}/auth/v1/token?grant_type=id_token", app.address))
            .json(&json!({"provider": "keycloak", "id_token": "a.b.c", "nonce": 7})),
        http.post(format!("{}/auth/v1/token?grant_type=id_token", app.address))
            .json(&json!({"provider": "keycloak", "id_token": "%%%"})),
    ];
    for request in cases {
        let res = request.send().await.expect("request");
        let status = res.status();
        let body = res.text().await.unwrap_or_default();
        assert!(status.is_client_error(), "{status}: {body}");
        assert!(body.contains("\"code\"") || body.contains("error_code"), "GoTrue error shape: {body}");
    }
}

#[tokio::test]
async fn sign_in_with_gitlab_goes_through_its_openid_connect_side() {
    let provider = provider().await;
    let app = app_with_oidc(&provider, "gitlab").await;
    let (_, fragment) = sign_in_by_redirect(&app, "gitlab").await;
    let user = app.auth_user(&fragment["access_token"]).await;
    assert_eq!(user["app_metadata"]["provider"], "gitlab");
    assert_eq!(user["identities"][0]["provider"], "gitlab");
    // GoTrue takes no GitLab ID tokens in signInWithIdToken.
    let (status, body) = grant(&app, json!({"provider": "gitlab", "id_token": "a.b.c"})).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (StatusCode::BAD_REQUEST, Some("Custom OIDC provider \"gitlab\" not allowed"))
    );
}

#[tokio::test]
async fn azure_signs_in_by_redirect_and_by_id_token() {
    let provider = provider().await;
    let app = app_with_oidc(&provider, "azure").await;
    let (at_azure, fragment) = sign_in_by_redirect(&app, "azure").await;
    assert!(at_azure.starts_with(&format!("{}/auth?", provider.issuer)), "{at_azure}");
    let user = app.auth_user(&fragment["access_token"]).await;
    assert_eq!(user["app_metadata"]["provider"], "azure");
    // signInWithIdToken({provider: 'azure'}) too, found again by the identity
    let token = provider.id_token(json!({"sub": "kc-mwamba", "email": "mwamba@example.test", "email_verified": true}));
    let (status, session) = grant(&app, json!({"provider": "azure", "id_token": token})).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    assert_eq!(session["user"]["id"], user["id"]);
    let settings = app.auth_settings().await;
    assert_eq!(settings["external"]["azure"], true);
}

#[tokio::test]
async fn sign_in_with_apple_asks_for_name_and_email_and_takes_the_form_post_answer() {
    let provider = provider().await;
    let app = app_with_oidc(&provider, "apple").await;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let at_apple = location_of(&http, &format!("{}/auth/v1/authorize?provider=apple", app.address)).await;
    let url = url::Url::parse(&at_apple).expect("url");
    let q: std::collections::HashMap<String, String> = url.query_pairs().into_owned().collect();
    assert_eq!((q["scope"].as_str(), q["response_mode"].as_str()), ("name email", "form_post"), "{at_apple}");
    // Apple posts the code and the state back to the callback
    let res = http
        .post(format!("{}/auth/v1/callback", app.address))
        .form(&[("code", "apple-user"), ("state", q["state"].as_str())])
        .send()
        .await
        .expect("form_post");
    assert_eq!(res.status(), StatusCode::FOUND);
    let fragment = fragment_of(res.headers()["location"].to_str().expect("location"));
    let user = app.auth_user(&fragment["access_token"]).await;
    assert_eq!(user["email"], "apple-user@example.test");
    assert_eq!(user["app_metadata"]["provider"], "apple");
}

/// A stand-in for Discord (OAuth 2.0 endpoints and `/api/users/@me`) and Facebook (dialog,
/// token and Graph `/me` on one base URL, as `EXTERNAL_FACEBOOK_URL` makes it); its base URL.
async fn discord_and_facebook() -> String {
    use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://127.0.0.1:{}", listener.local_addr().expect("addr").port());
    let consent = |scope: &'static str, code: &'static str| {
        move |req: HttpRequest| async move {
            let q: std::collections::HashMap<String, String> =
                url::form_urlencoded::parse(req.query_string().as_bytes()).into_owned().collect();
            assert_eq!(q["scope"], scope);
            let mut back = url::Url::parse(&q["redirect_uri"]).expect("redirect_uri");
            back.query_pairs_mut().append_pair("code", code).append_pair("state", &q["state"]);
            HttpResponse::Found().insert_header(("location", back.to_string())).finish()
        }
    };
    let token = |secret: &'static str, code: &'static str, access: &'static str, grant: bool| {
        move |form: web::Form<std::collections::HashMap<String, String>>| async move {
            let grant_ok = !grant || form.get("grant_type").map(String::as_str) == Some("authorization_code");
            if form.get("client_secret").map(String::as_str) != Some(secret) || form["code"] != code || !grant_ok {
                return HttpResponse::BadRequest().json(json!({"error": "invalid_grant"}));
            }
            HttpResponse::Ok().json(json!({"access_token": access, "token_type": "Bearer"}))
        }
    };
    let server = HttpServer::new(move || {
        App::new()
            .route("/api/oauth2/authorize", web::get().to(consent("email identify", "dc-code")))
            .route("/api/oauth2/token", web::post().to(token("dc-secret", "dc-code", "dc-token", true)))
            .route(
                "/api/users/@me",
                web::get().to(|req: HttpRequest| async move {
                    if req.headers().get("authorization").and_then(|v| v.to_str().ok()) != Some("Bearer dc-token") {
                        return HttpResponse::Unauthorized().finish();
                    }
                    HttpResponse::Ok().json(json!({"id": "80351110224678912", "username": "ilunga", "global_name": "Ilunga Mbuyi",
                        "avatar": "8342729096ea3675442027381ff50dfe", "email": "ilunga@example.test", "verified": true}))
                }),
            )
            .route("/dialog/oauth", web::get().to(consent("email", "fb-code")))
            .route("/oauth/access_token", web::post().to(token("fb-secret", "fb-code", "fb-token", false)))
            .route(
                "/me",
                web::get().to(|req: HttpRequest| async move {
                    use hmac::Mac;
                    let q: std::collections::HashMap<String, String> =
                        url::form_urlencoded::parse(req.query_string().as_bytes()).into_owned().collect();
                    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(b"fb-secret").expect("key");
                    mac.update(b"fb-token");
                    let proof = hex::encode(mac.finalize().into_bytes());
                    let bearer = req.headers().get("authorization").and_then(|v| v.to_str().ok()) == Some("Bearer fb-token");
                    if !bearer || q.get("appsecret_proof") != Some(&proof) {
                        return HttpResponse::BadRequest().json(json!({"error": {"message": "Invalid appsecret_proof"}}));
                    }
                    HttpResponse::Ok().json(json!({"id": "10158", "name": "Nzuzi Lukusa", "email": "nzuzi@example.test",
                        "picture": {"data": {"url": "https://graph.example.test/10158.jpg"}}}))
                }),
            )
    })
    .workers(1)
    .listen(listener)
    .expect("listen");
    tokio::spawn(server.run());
    base
}

#[tokio::test]
async fn sign_in_with_discord_and_facebook_reads_the_user_from_their_apis() {
    let base = discord_and_facebook().await;
    let url = base.clone();
    let app = spawn_app_with(move |c| {
        c.auth.discord_enabled = true;
        c.auth.discord_client_id = vec!["dc-client".into()];
        c.auth.discord_secret = Some(secrecy::SecretString::from("dc-secret"));
        c.auth.discord_url = url.clone();
        c.auth.facebook_enabled = true;
        c.auth.facebook_client_id = vec!["fb-client".into()];
        c.auth.facebook_secret = Some(secrecy::SecretString::from("fb-secret"));
        c.auth.facebook_url = Some(url);
    })
    .await;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let sign_in = |provider: &'static str| {
        let (http, app) = (&http, &app);
        async move {
            let at_provider =
                location_of(http, &format!("{}/auth/v1/authorize?provider={provider}", app.address)).await;
            let callback = location_of(http, &at_provider).await;
            let fragment = fragment_of(&location_of(http, &callback).await);
            (app.auth_user(&fragment["access_token"]).await, fragment["provider_token"].clone())
        }
    };
    let (user, token) = sign_in("discord").await;
    assert_eq!(token, "dc-token");
    assert_eq!(user["email"], "ilunga@example.test");
    assert!(user["email_confirmed_at"].is_string(), "Discord verified the address");
    assert_eq!(user["app_metadata"]["provider"], "discord");
    assert_eq!(user["identities"][0]["id"], "80351110224678912");
    assert_eq!(user["user_metadata"]["full_name"], "Ilunga Mbuyi");
    assert_eq!(user["user_metadata"]["user_name"], "ilunga");
    assert_eq!(
        user["user_metadata"]["avatar_url"],
        "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png"
    );
    let (user, token) = sign_in("facebook").await;
    assert_eq!(token, "fb-token");
    assert_eq!(user["email"], "nzuzi@example.test");
    assert_eq!(user["app_metadata"]["provider"], "facebook");
    assert_eq!(user["user_metadata"]["avatar_url"], "https://graph.example.test/10158.jpg");
}
