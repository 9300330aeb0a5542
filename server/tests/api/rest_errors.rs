//! `RestError::from_pg` on real Postgres errors: statuses, bodies and the 401 challenge.

use actix_web::ResponseError;
use serde_json::{json, Value};
use server::rest::error::RestError;

fn check(e: &RestError, status: u16, body: Value) {
    assert_eq!(e.status().as_u16(), status, "{e:?}");
    assert_eq!(e.body(), body);
}

fn header(res: &actix_web::HttpResponse, name: &str) -> Option<String> {
    res.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
}

#[tokio::test]
async fn postgres_errors_map_to_postgrest_statuses_and_bodies() {
    let dsn = crate::helpers::fresh_database().await;
    let (client, conn) = tokio_postgres::connect(&dsn, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let run = |sql: &'static str| {
        let client = &client;
        async move { client.batch_execute(sql).await.unwrap_err() }
    };
    let e = RestError::from_pg(&run("DO $$ BEGIN RAISE SQLSTATE 'PT402' USING MESSAGE = 'Payment Required', DETAIL = 'Quota exceeded', HINT = 'Upgrade your plan'; END $$").await, true);
    check(
        &e,
        402,
        json!({"code":"PT402","details":"Quota exceeded","hint":"Upgrade your plan","message":"Payment Required"}),
    );
    let e = RestError::from_pg(&run(r#"DO $$ BEGIN RAISE SQLSTATE 'PGRST' USING MESSAGE = '{"code":"123","message":"ABC","details":"DEF","hint":"XYZ"}', DETAIL = '{"status":332,"status_text":"My Custom Status","headers":{"X-Header":"str"}}'; END $$"#).await, true);
    check(&e, 332, json!({"code":"123","details":"DEF","hint":"XYZ","message":"ABC"}));
    let e = RestError::from_pg(&run("DO $$ BEGIN RAISE EXCEPTION 'I refuse!' USING DETAIL = 'Pretty simple', HINT = 'There is nothing you can do.'; END $$").await, false);
    check(
        &e,
        400,
        json!({"message":"I refuse!","details":"Pretty simple","hint":"There is nothing you can do.","code":"P0001"}),
    );
    let e = RestError::from_pg(&run("SELECT * FROM rest_error_no_such_table").await, false);
    check(
        &e,
        404,
        json!({"code":"42P01","details":null,"hint":null,"message":"relation \"rest_error_no_such_table\" does not exist"}),
    );
    let e = RestError::from_pg(
        &run("CREATE TEMP TABLE rest_error_t (id int PRIMARY KEY); INSERT INTO rest_error_t VALUES (1), (1)").await,
        false,
    );
    check(
        &e,
        409,
        json!({"code":"23505","details":"Key (id)=(1) already exists.","hint":null,"message":"duplicate key value violates unique constraint \"rest_error_t_pkey\""}),
    );
    let e = RestError::from_pg(&run("BEGIN READ ONLY; CREATE TEMP TABLE rest_error_ro (id int)").await, false);
    assert_eq!(e.code(), "25006");
    assert_eq!(e.status().as_u16(), 405);
    client.batch_execute("ROLLBACK").await.unwrap();
    let e = RestError::from_pg(&run("SET statement_timeout = '10ms'; SELECT pg_sleep(1)").await, false);
    assert_eq!((e.code().as_str(), e.status().as_u16()), ("57014", 500));
    client.batch_execute("RESET statement_timeout").await.unwrap();
    let e = RestError::from_pg(&run("SELECT 1/0").await, false);
    assert_eq!((e.code().as_str(), e.status().as_u16()), ("22012", 400));
    // 42501 as the anon role -> 401 with the challenge; authenticated -> 403.
    let denied = run("BEGIN; CREATE ROLE rest_error_anon NOLOGIN; CREATE TABLE rest_error_priv (id int); SET LOCAL ROLE rest_error_anon; SELECT * FROM rest_error_priv").await;
    client.batch_execute("ROLLBACK").await.unwrap();
    let e = RestError::from_pg(&denied, true);
    check(
        &e,
        401,
        json!({"code":"42501","details":null,"hint":null,"message":"permission denied for table rest_error_priv"}),
    );
    assert_eq!(header(&e.error_response(), "www-authenticate").as_deref(), Some("Bearer"));
    assert_eq!(RestError::from_pg(&denied, false).status().as_u16(), 403);
    // A JWT role that does not exist -> 401.
    let e = RestError::from_pg(&run("SET ROLE rest_error_no_such_role").await, false);
    check(
        &e,
        401,
        json!({"code":"22023","details":null,"hint":null,"message":"role \"rest_error_no_such_role\" does not exist"}),
    );
    // A refused connection is PGRST000.
    let refused = tokio_postgres::connect("host=127.0.0.1 port=1 user=x connect_timeout=2", tokio_postgres::NoTls)
        .await
        .err()
        .unwrap();
    assert_eq!(RestError::from_pg(&refused, true), RestError::ConnectionFailed);
    // A connection that went away is PGRST001.
    drop(client);
    let (client, conn) = tokio_postgres::connect(&dsn, tokio_postgres::NoTls).await.unwrap();
    let handle = tokio::spawn(async move {
        let _ = conn.await;
    });
    handle.abort();
    let _ = handle.await;
    let gone = client.batch_execute("SELECT 1").await.unwrap_err();
    assert_eq!(RestError::from_pg(&gone, false), RestError::ConnectionLost);
}

#[tokio::test]
async fn a_jwks_given_as_the_rest_secret_verifies_tokens_of_its_rsa_key() {
    use base64::Engine;
    let b64 = |bytes: Vec<u8>| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let rsa = openssl::rsa::Rsa::generate(2048).expect("RSA key");
    let jwks = serde_json::json!({"keys": [{"kty": "RSA", "kid": "outside-1", "n": b64(rsa.n().to_vec()), "e": b64(rsa.e().to_vec())}]});
    let app = crate::helpers::spawn_app_with(|c| {
        c.rest.jwt_secret = Some(secrecy::SecretString::from(jwks.to_string()));
    })
    .await;
    app.ddl(
        "create table public.notes (id int primary key, owner text default auth.jwt()->>'sub');
         alter table public.notes enable row level security;
         create policy mine on public.notes for all to authenticated using (owner = auth.jwt()->>'sub');
         grant all on public.notes to authenticated;
         insert into public.notes values (1, 'ext-user'), (2, 'someone-else');",
    )
    .await;
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
    header.kid = Some("outside-1".into());
    let claims =
        serde_json::json!({"role": "authenticated", "sub": "ext-user", "exp": chrono::Utc::now().timestamp() + 600});
    let key = jsonwebtoken::EncodingKey::from_rsa_pem(&rsa.private_key_to_pem().expect("pem")).expect("key");
    let token = jsonwebtoken::encode(&header, &claims, &key).expect("token");

    let res = app.rest_req(reqwest::Method::GET, "/notes?select=id", Some(&token)).send().await.expect("GET");
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<serde_json::Value>().await.expect("json"), serde_json::json!([{"id": 1}]));

    // Another key's token is refused as PostgREST refuses a bad signature.
    let other = openssl::rsa::Rsa::generate(2048).expect("RSA key");
    let other = jsonwebtoken::EncodingKey::from_rsa_pem(&other.private_key_to_pem().expect("pem")).expect("key");
    let forged = jsonwebtoken::encode(&header, &claims, &other).expect("token");
    let res = app.rest_req(reqwest::Method::GET, "/notes?select=id", Some(&forged)).send().await.expect("GET");
    assert_eq!(res.status(), 401);
    assert_eq!(res.json::<serde_json::Value>().await.expect("json")["code"], "PGRST301");
}
