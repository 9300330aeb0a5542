//! Signing keys and API keys over HTTP: access tokens signed with the ES256 key in use and
//! published in the JWKS, accepted by every surface; a standby key, a rotation and a revocation
//! made with `server keys` reaching a running server; an RSA key imported from PEM; the
//! `sb_publishable_…` / `sb_secret_…` keys standing for the anon and service roles; a project's
//! `signing_keys.json` (`SIGNING_KEYS_PATH`) installed at start.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};

async fn keys_app() -> TestApp {
    let app = spawn_app_with(|c| c.auth.signing_keys_reload = Duration::from_secs(1)).await;
    app.ddl(
        "create table public.notes (id int primary key, owner uuid, body text);
         alter table public.notes enable row level security;
         create policy mine on public.notes for select using (owner = auth.uid());
         insert into public.notes values (1, '00000000-0000-4000-8000-000000000001', 'not yours');",
    )
    .await;
    app
}

/// A confirmed user made with the admin API, signed in with the password grant; the session.
async fn signed_in(app: &TestApp, email: &str) -> Value {
    let created = app
        .http
        .post(format!("{}/auth/v1/admin/users", app.address))
        .bearer_auth(&app.service_key)
        .json(&json!({"email": email, "password": "secret-1", "email_confirm": true}))
        .send()
        .await
        .expect("create user");
    assert_eq!(created.status(), StatusCode::OK);
    sign_in(app, email).await
}

async fn sign_in(app: &TestApp, email: &str) -> Value {
    let res = app
        .http
        .post(format!("{}/auth/v1/token?grant_type=password", app.address))
        .header("apikey", &app.anon_key)
        .json(&json!({"email": email, "password": "secret-1"}))
        .send()
        .await
        .expect("sign in");
    assert_eq!(res.status(), StatusCode::OK);
    res.json().await.expect("session")
}

async fn jwks(app: &TestApp) -> Vec<Value> {
    let res = app.http.get(format!("{}/auth/v1/.well-known/jwks.json", app.address)).send().await.expect("jwks");
    assert_eq!(res.status(), StatusCode::OK);
    res.json::<Value>().await.expect("jwks json")["keys"].as_array().expect("keys").clone()
}

fn kid_of(token: &str) -> String {
    jsonwebtoken::decode_header(token).expect("header").kid.expect("a kid")
}

/// `GET /rest/v1/notes` with the anon key and `token`: the status.
async fn rest_status(app: &TestApp, token: &str) -> StatusCode {
    app.rest_req(reqwest::Method::GET, "/notes", Some(token)).send().await.expect("rest").status()
}

/// `server keys <args>` on the app's database; its exit status and output.
async fn cli(app: &TestApp, args: &[&str]) -> (bool, String) {
    let data_dir = std::env::temp_dir().join(format!("keys-cli-{}", uuid::Uuid::new_v4()));
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_server"))
        .arg("keys")
        .args(args)
        .env("DATABASE_URL", &app.db_url)
        .env("JWT_SECRET", &app.jwt_secret)
        .env("DATA_DIR", &data_dir)
        .env("RUST_LOG", "error")
        .output()
        .await
        .expect("run server keys");
    let _ = std::fs::remove_dir_all(&data_dir);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// Poll (every 100 ms, at most 15 s: the reload interval is 1 s) until `done` holds.
async fn eventually<F, Fut>(what: &str, mut done: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let happened = crate::helpers::eventually(async || done().await.then_some(())).await;
    assert!(happened.is_some(), "never happened: {what}");
}

#[tokio::test]
async fn access_tokens_are_es256_with_a_published_kid_and_every_surface_accepts_them() {
    let app = keys_app().await;
    let session = signed_in(&app, "es@example.test").await;
    let token = session["access_token"].as_str().expect("access token");
    let header = jsonwebtoken::decode_header(token).expect("header");
    assert_eq!(header.alg, jsonwebtoken::Algorithm::ES256);

    let published = jwks(&app).await;
    let jwk = published.iter().find(|k| k["kid"] == header.kid.clone().unwrap()).expect("the kid is published");
    assert_eq!(jwk["kty"], "EC");
    assert_eq!(jwk["key_ops"], json!(["verify"]));
    assert!(jwk.get("d").is_none(), "no private part is published: {jwk}");
    // A client verifies the token with the published key alone, as auth-js getClaims() does.
    let key = jsonwebtoken::DecodingKey::from_jwk(&serde_json::from_value(jwk.clone()).expect("jwk")).expect("key");
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
    validation.set_audience(&["authenticated"]);
    let claims = jsonwebtoken::decode::<Value>(token, &key, &validation).expect("verifies").claims;
    assert_eq!(claims["email"], "es@example.test");

    assert_eq!(rest_status(&app, token).await, StatusCode::OK);
    let user = app.http.get(format!("{}/auth/v1/user", app.address)).bearer_auth(token).send().await.expect("user");
    assert_eq!(user.status(), StatusCode::OK);
    let buckets = app
        .http
        .get(format!("{}/storage/v1/bucket", app.address))
        .header("apikey", &app.anon_key)
        .bearer_auth(token)
        .send()
        .await
        .expect("storage");
    assert_eq!(buckets.status(), StatusCode::OK);
    // The refreshed session is signed by the same key.
    let refreshed: Value = app
        .http
        .post(format!("{}/auth/v1/token?grant_type=refresh_token", app.address))
        .header("apikey", &app.anon_key)
        .json(&json!({"refresh_token": session["refresh_token"]}))
        .send()
        .await
        .expect("refresh")
        .json()
        .await
        .expect("refresh json");
    assert_eq!(kid_of(refreshed["access_token"].as_str().expect("token")), header.kid.unwrap());
    // A token signed by a key nobody published is refused.
    let stranger = server::signing_keys::generate_es256().expect("key");
    let mut forged_header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
    forged_header.kid = Some(stranger.id.to_string());
    let forged = jsonwebtoken::encode(
        &forged_header,
        &json!({"sub": claims["sub"], "role": "authenticated", "exp": 4_000_000_000i64}),
        &jsonwebtoken::EncodingKey::from_ec_pem(stranger.pem.as_bytes()).expect("pem"),
    )
    .expect("sign");
    assert_eq!(rest_status(&app, &forged).await, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_standby_key_a_rotation_and_a_revocation_reach_a_running_server_without_a_restart() {
    let app = keys_app().await;
    signed_in(&app, "rot@example.test").await;
    let before = sign_in(&app, "rot@example.test").await["access_token"].as_str().expect("token").to_string();
    let first = kid_of(&before);

    let (ok, out) = cli(&app, &["new"]).await;
    assert!(ok, "{out}");
    let second = out.split_whitespace().last().expect("the new key's id").to_string();
    eventually("the standby key is published", || async { jwks(&app).await.iter().any(|k| k["kid"] == second) }).await;
    let still = sign_in(&app, "rot@example.test").await["access_token"].as_str().expect("token").to_string();
    assert_eq!(kid_of(&still), first, "a standby key does not sign");

    let (ok, out) = cli(&app, &["rotate"]).await;
    assert!(ok, "{out}");
    eventually("new tokens are signed by the rotated-in key", || async {
        kid_of(sign_in(&app, "rot@example.test").await["access_token"].as_str().expect("token")) == second
    })
    .await;
    let after = sign_in(&app, "rot@example.test").await["access_token"].as_str().expect("token").to_string();
    assert_eq!(rest_status(&app, &before).await, StatusCode::OK, "the previously used key still verifies");

    let (ok, out) = cli(&app, &["revoke", &second]).await;
    assert!(!ok, "the key in use cannot be revoked: {out}");
    let (ok, out) = cli(&app, &["revoke", &first]).await;
    assert!(ok, "{out}");
    eventually("tokens of the revoked key are refused", || async {
        rest_status(&app, &before).await == StatusCode::UNAUTHORIZED
    })
    .await;
    assert_eq!(rest_status(&app, &after).await, StatusCode::OK);
    assert!(jwks(&app).await.iter().all(|k| k["kid"] != first), "a revoked key is not published");
    let (ok, listing) = cli(&app, &["signing"]).await;
    assert!(ok, "{listing}");
    assert!(listing.lines().any(|l| l.starts_with(&first) && l.contains("revoked")), "{listing}");
    assert!(listing.lines().any(|l| l.starts_with(&second) && l.contains("in_use")), "{listing}");
}

#[tokio::test]
async fn an_rsa_key_imported_from_pem_signs_rs256_tokens() {
    let app = keys_app().await;
    signed_in(&app, "rsa@example.test").await;
    let pem = std::env::temp_dir().join(format!("rsa-{}.pem", uuid::Uuid::new_v4()));
    let made = std::process::Command::new("openssl")
        .args(["genrsa", "-out"])
        .arg(&pem)
        .arg("2048")
        .output()
        .expect("openssl (Debian package openssl) makes the test key");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let (ok, out) = cli(&app, &["new", "--pem", pem.to_str().expect("path")]).await;
    let _ = std::fs::remove_file(&pem);
    assert!(ok, "{out}");
    assert!(out.contains("RS256"), "{out}");
    let (ok, out) = cli(&app, &["rotate"]).await;
    assert!(ok, "{out}");
    eventually("new tokens are RS256", || async {
        let token = sign_in(&app, "rsa@example.test").await["access_token"].as_str().expect("token").to_string();
        jsonwebtoken::decode_header(&token).expect("header").alg == jsonwebtoken::Algorithm::RS256
    })
    .await;
    let token = sign_in(&app, "rsa@example.test").await["access_token"].as_str().expect("token").to_string();
    let jwk = jwks(&app).await.into_iter().find(|k| k["kid"] == kid_of(&token)).expect("published");
    assert_eq!(jwk["kty"], "RSA");
    assert!(jwk.get("d").is_none() && jwk.get("p").is_none(), "no private part is published: {jwk}");
    assert_eq!(rest_status(&app, &token).await, StatusCode::OK);
    let (ok, out) = cli(&app, &["new", "--pem", "/dev/null"]).await;
    assert!(!ok, "an empty file is not a key: {out}");
}

#[tokio::test]
async fn publishable_and_secret_keys_stand_for_the_anon_and_service_roles() {
    let app = keys_app().await;
    let get = |key: &str| {
        app.http.get(format!("{}/rest/v1/notes", app.address)).header("apikey", key.to_string()).bearer_auth(key)
    };
    // supabase-js sends the key both as `apikey` and as the Bearer.
    let anon: Value = get(&app.publishable_key).send().await.expect("anon").json().await.expect("json");
    assert_eq!(anon, json!([]), "RLS hides the row from the anon role");
    let service: Value = get(&app.secret_key).send().await.expect("service").json().await.expect("json");
    assert_eq!(service.as_array().map(Vec::len), Some(1), "the service role bypasses RLS: {service}");
    let header_only = app
        .http
        .get(format!("{}/rest/v1/notes", app.address))
        .header("apikey", &app.publishable_key)
        .send()
        .await
        .expect("header only");
    assert_eq!(header_only.status(), StatusCode::OK);

    let unknown = get("sb_secret_AAAAAAAAAAAAAAAAAAAAAA_AAAAAAAA").send().await.expect("unknown");
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(unknown.json::<Value>().await.expect("json")["message"], "Invalid API key");
    let browser = get(&app.secret_key)
        .header("user-agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36")
        .send()
        .await
        .expect("browser");
    assert_eq!(browser.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(browser.json::<Value>().await.expect("json")["message"], "Forbidden use of secret API key in browser");

    let admin = |key: &str| app.http.get(format!("{}/auth/v1/admin/users", app.address)).bearer_auth(key.to_string());
    assert_eq!(admin(&app.secret_key).send().await.expect("secret").status(), StatusCode::OK);
    assert_eq!(admin(&app.publishable_key).send().await.expect("publishable").status(), StatusCode::FORBIDDEN);
    let from_browser =
        admin(&app.secret_key).header("user-agent", "Mozilla/5.0 Firefox/121.0").send().await.expect("x");
    assert_eq!(from_browser.status(), StatusCode::UNAUTHORIZED);

    let storage = app
        .http
        .get(format!("{}/storage/v1/bucket", app.address))
        .header("apikey", &app.secret_key)
        .bearer_auth(&app.secret_key)
        .send()
        .await
        .expect("storage");
    assert_eq!(storage.status(), StatusCode::OK);
}

/// A private P-256 JWK as `supabase gen signing-key` writes it, and its PKCS#8 (to sign with).
fn p256_jwk() -> (Value, Vec<u8>) {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 = ring::signature::EcdsaKeyPair::generate_pkcs8(&ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
        .expect("generate")
        .as_ref()
        .to_vec();
    // ring's PKCS#8 of a P-256 key: a 36-byte header, the 32-byte scalar, 5 bytes, 0x04, x, y.
    let (d, point) = (&pkcs8[36..68], &pkcs8[74..138]);
    let jwk = json!({
        "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "key_ops": ["sign", "verify"],
        "kid": uuid::Uuid::new_v4().to_string(),
        "d": URL_SAFE_NO_PAD.encode(d), "x": URL_SAFE_NO_PAD.encode(&point[..32]), "y": URL_SAFE_NO_PAD.encode(&point[32..]),
    });
    (jwk, pkcs8)
}

#[tokio::test]
async fn a_projects_signing_keys_file_signs_with_its_first_key_and_verifies_with_every_one() {
    let (first, _) = p256_jwk();
    let (second, second_pkcs8) = p256_jwk();
    let file = std::env::temp_dir().join(format!("signing_keys-{}.json", uuid::Uuid::new_v4()));
    std::fs::write(&file, json!([first, second]).to_string()).expect("write keys");
    let path = file.clone();
    let app = spawn_app_with(move |c| c.signing_keys_path = Some(path)).await;
    app.ddl("create table public.notes (id int primary key)").await;
    let session = signed_in(&app, "filekeys@example.test").await;
    let token = session["access_token"].as_str().expect("token");
    assert_eq!(kid_of(token), first["kid"].as_str().expect("kid"), "the first key of the file signs");
    assert_eq!(jsonwebtoken::decode_header(token).expect("header").alg, jsonwebtoken::Algorithm::ES256);
    let published: Vec<Value> = jwks(&app).await;
    for key in [&first, &second] {
        let jwk = published.iter().find(|k| k["kid"] == key["kid"]).expect("every key of the file is published");
        assert!(jwk.get("d").is_none(), "no private part is published: {jwk}");
    }
    // A token made elsewhere with the second key (as auth-js's tests sign theirs) is accepted.
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
    header.kid = Some(second["kid"].as_str().expect("kid").to_string());
    let claims = jsonwebtoken::decode::<Value>(token, &jsonwebtoken::DecodingKey::from_secret(b""), &{
        let mut v = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
        v.insecure_disable_signature_validation();
        v.validate_aud = false;
        v
    })
    .expect("claims")
    .claims;
    let outside =
        jsonwebtoken::encode(&header, &claims, &jsonwebtoken::EncodingKey::from_ec_der(&second_pkcs8)).expect("sign");
    assert_eq!(rest_status(&app, &outside).await, StatusCode::OK);
    assert_eq!(app.auth_user(&outside).await["email"], "filekeys@example.test");
    // The file is the source at every start: the same file again changes nothing.
    let count = app.admin_query_one("select count(*) from auth.signing_keys where status = 'in_use'").await;
    assert_eq!(count.get::<_, i64>(0), 1);
    let _ = std::fs::remove_file(&file);
}

#[tokio::test]
async fn a_signing_keys_file_whose_kid_is_not_a_uuid_stops_the_start_with_the_reason() {
    let (mut key, _) = p256_jwk();
    key["kid"] = json!("my-key");
    let file = std::env::temp_dir().join(format!("signing_keys-{}.json", uuid::Uuid::new_v4()));
    std::fs::write(&file, json!([key]).to_string()).expect("write keys");
    let mut config = crate::helpers::base_config();
    config.database_url = Some(secrecy::SecretString::from(crate::helpers::fresh_database().await));
    config.signing_keys_path = Some(file.clone());
    let err = server::startup::Application::build(config).await.err().expect("refused");
    let _ = std::fs::remove_file(&file);
    let text = err.to_string();
    assert!(text.contains("UUID") && text.contains("my-key"), "{text}");
}
