//! Generated requests against each HTTP surface (issue #12): REST, auth and storage each get a
//! bounded number of requests from a fixed seed. Each case takes a valid request of that surface
//! and spoils one to three of its parts (a path segment, a query value, a header, a body field,
//! the whole body) with odd values: wrong JSON types, huge numbers and durations, NUL bytes,
//! broken percent-encoding, deep nesting, forged tokens. Every answer must be below 500 and, when
//! it is an error, carry the surface's own error shape; afterwards the server still serves a
//! plain request. A failure prints the surface, the seed and the case, so it can be replayed.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use reqwest::Method;
use serde_json::{json, Map, Value};

use crate::helpers::{spawn_app_with, TestApp};

const SEED: u64 = 0x5eed_0012;
const CASES: usize = 300;

/// `FUZZ_SEED` and `FUZZ_CASES` explore further by hand; `make test` runs the fixed ones.
fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}
/// Requests in flight at once (the server is one process; this keeps the run short).
const PARALLEL: usize = 6;

const PIECES: &[&str] = &[
    "",
    "a",
    "é",
    "😀",
    "\u{0}",
    "%00",
    "%",
    "%zz",
    "..",
    "../",
    "/",
    "?",
    "&",
    "=",
    "'",
    "\"",
    ";",
    "--",
    "\\",
    "*",
    "-1",
    "0",
    "99999999999",
    "-99999999999999999999",
    "1e309",
    "NaN",
    "null",
    "true",
    " ",
    "\t",
    "\n",
    "eq.",
    "in.(",
    "(",
    ")",
    ",",
    ":",
    "::",
    "->",
    "->>",
    "not.",
    "or=(",
    "99999999999h",
    "-5m",
    "2999-01-01",
    "0000-00-00",
    "1970-01-01T00:00:00Z",
    "<script>",
    "bookings",
    "vehicles",
    "id",
    "public",
    "auth",
    "pg_catalog",
    "bytes=",
    "bytes=5-2",
    "bytes=-0",
    "bytes=0-99999999999999999999",
];

/// A string of one to six odd pieces, now and then very long.
fn odd_string(rng: &mut StdRng) -> String {
    if rng.gen_ratio(1, 25) {
        return "x".repeat(rng.gen_range(1_000..70_000));
    }
    (0..rng.gen_range(1..=6)).map(|_| PIECES[rng.gen_range(0..PIECES.len())]).collect()
}

/// A JSON value of any type, nested at most `depth` more levels (with a rare deep one).
fn odd_json(rng: &mut StdRng, depth: u32) -> Value {
    match rng.gen_range(0..12) {
        0 => Value::Null,
        1 => Value::Bool(rng.gen()),
        2 => json!(rng.gen::<i64>()),
        3 => [json!(0), json!(-1), json!(i64::MAX), json!(i64::MIN), json!(u64::MAX)][rng.gen_range(0..5)].clone(),
        4 => json!([0.5, -1e308, 1e308, 1e-308][rng.gen_range(0..4)]),
        5 if depth > 0 => Value::Array((0..rng.gen_range(0..4)).map(|_| odd_json(rng, depth - 1)).collect()),
        6 if depth > 0 => {
            let mut map = Map::new();
            for _ in 0..rng.gen_range(0..4) {
                map.insert(odd_string(rng), odd_json(rng, depth - 1));
            }
            Value::Object(map)
        }
        7 if rng.gen_ratio(1, 6) => {
            let levels = [100, 127, 200][rng.gen_range(0..3)];
            serde_json::from_str(&format!("{}1{}", "[".repeat(levels), "]".repeat(levels))).unwrap_or(Value::Null)
        }
        _ => Value::String(odd_string(rng)),
    }
}

/// Who makes a request.
#[derive(Clone, Copy, Debug)]
enum Who {
    Anon,
    User,
    Service,
}

/// A valid request of a surface, before it is spoiled.
#[derive(Clone, Debug)]
struct Template {
    method: Method,
    /// Path segments after the surface's prefix.
    path: Vec<String>,
    query: Vec<(String, String)>,
    body: Option<Value>,
    who: Who,
    headers: Vec<(String, String)>,
}

fn t(method: Method, path: &str, query: &[(&str, &str)], body: Option<Value>, who: Who) -> Template {
    Template {
        method,
        path: path.split('/').filter(|s| !s.is_empty()).map(str::to_string).collect(),
        query: query.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        body,
        who,
        headers: Vec::new(),
    }
}

fn with_headers(mut template: Template, headers: &[(&str, &str)]) -> Template {
    template.headers = headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    template
}

/// A request as sent: its body may be raw bytes that are not JSON at all.
struct Case {
    method: Method,
    path: Vec<String>,
    query: Vec<(String, String)>,
    body: Option<Vec<u8>>,
    bearer: Option<String>,
    apikey: Option<String>,
    headers: Vec<(String, String)>,
}

const ROLES: &[&str] = &["authenticated", "service_role", "postgres", "anon", "authenticator"];

const HEADER_NAMES: &[&str] =
    &["prefer", "range", "accept", "content-type", "accept-profile", "content-profile", "x-upsert", "cache-control"];

fn spoil(rng: &mut StdRng, template: &Template, app: &TestApp, user_token: &str) -> Case {
    let token = match template.who {
        Who::Anon => None,
        Who::User => Some(user_token.to_string()),
        Who::Service => Some(app.service_key.clone()),
    };
    let mut case = Case {
        method: template.method.clone(),
        path: template.path.clone(),
        query: template.query.clone(),
        body: template.body.as_ref().map(|b| b.to_string().into_bytes()),
        bearer: token,
        apikey: Some(app.anon_key.clone()),
        headers: template.headers.clone(),
    };
    let mut body = template.body.clone();
    for _ in 0..rng.gen_range(1..=3) {
        match rng.gen_range(0..10) {
            0 if !case.path.is_empty() => {
                let at = rng.gen_range(0..case.path.len());
                case.path[at] = odd_string(rng);
            }
            1 if !case.query.is_empty() => {
                let at = rng.gen_range(0..case.query.len());
                case.query[at].1 = odd_string(rng);
            }
            2 => case.query.push((odd_string(rng), odd_string(rng))),
            3 => {
                let name = HEADER_NAMES[rng.gen_range(0..HEADER_NAMES.len())];
                case.headers.push((name.to_string(), odd_string(rng)));
            }
            4 => {
                // A token that is not what it claims: garbage, unsigned, or signed with odd claims.
                case.bearer = Some(match rng.gen_range(0..3) {
                    0 => odd_string(rng),
                    1 => format!("{}.e30.", "eyJhbGciOiJub25lIn0"),
                    _ => app.sign(json!({
                        "role": ROLES[rng.gen_range(0..ROLES.len())],
                        "sub": odd_json(rng, 1),
                        "exp": odd_json(rng, 0),
                        "aal": odd_json(rng, 0),
                        "session_id": odd_json(rng, 0),
                        "email": odd_json(rng, 0),
                    })),
                });
            }
            5 => case.apikey = if rng.gen() { None } else { Some(odd_string(rng)) },
            6 | 7 => {
                if let Some(Value::Object(map)) = body.as_mut() {
                    let keys: Vec<String> = map.keys().cloned().collect();
                    if !keys.is_empty() && rng.gen() {
                        let key = &keys[rng.gen_range(0..keys.len())];
                        map.insert(key.clone(), odd_json(rng, 3));
                    } else {
                        map.insert(odd_string(rng), odd_json(rng, 3));
                    }
                } else {
                    body = Some(odd_json(rng, 3));
                }
                case.body = body.as_ref().map(|b| b.to_string().into_bytes());
            }
            8 => {
                case.body = Some(match rng.gen_range(0..3) {
                    0 => odd_string(rng).into_bytes(),
                    1 => (0..rng.gen_range(1..64)).map(|_| rng.gen::<u8>()).collect(),
                    _ => b"{\"a\": ".to_vec(),
                })
            }
            _ => {
                let methods = [Method::GET, Method::POST, Method::PUT, Method::PATCH, Method::DELETE, Method::HEAD];
                case.method = methods[rng.gen_range(0..methods.len())].clone();
            }
        }
    }
    case
}

fn encode(segment: &str) -> String {
    percent_encoding::utf8_percent_encode(segment, percent_encoding::NON_ALPHANUMERIC).to_string()
}

async fn send(http: &reqwest::Client, app: &TestApp, prefix: &str, case: &Case) -> Result<(u16, Vec<u8>), String> {
    let path: Vec<String> = case.path.iter().map(|s| encode(s)).collect();
    let query: Vec<String> = case.query.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect();
    let url = format!("{}{prefix}/{}?{}", app.address, path.join("/"), query.join("&"));
    let mut req = http.request(case.method.clone(), url);
    if let Some(key) = &case.apikey {
        req = req.header("apikey", key.as_str());
    }
    if let Some(token) = &case.bearer {
        req = req.header("authorization", format!("Bearer {token}"));
    }
    let mut typed = false;
    for (name, value) in &case.headers {
        typed |= name == "content-type";
        req = req.header(name.as_str(), value.as_str());
    }
    if let Some(body) = &case.body {
        if !typed {
            req = req.header("content-type", "application/json");
        }
        req = req.body(body.clone());
    }
    // A value the HTTP client itself refuses (e.g. a header with a newline) is not sent at all,
    // nor a path whose `..` segments lead out of the surface.
    let res = match req.build() {
        Ok(built) if built.url().path().starts_with(prefix) => http.execute(built).await,
        _ => return Ok((0, Vec::new())),
    };
    let res = match res {
        Err(e) if e.is_builder() => return Ok((0, Vec::new())),
        other => other.map_err(|e| format!("no answer: {e}"))?,
    };
    let status = res.status().as_u16();
    let bytes = res.bytes().await.map_err(|e| format!("body cut: {e}"))?;
    Ok((status, bytes.to_vec()))
}

/// At most 300 characters of a text, for assertion messages.
fn short(text: &str) -> String {
    text.chars().take(300).collect()
}

/// Whether an error body has the surface's own shape.
type Shape = fn(&Value) -> bool;

/// The API gateway's answer to a missing or unknown `apikey` (Kong's `{message}` on Supabase),
/// the same on every surface.
fn gateway_shape(status: u16, v: &Value) -> bool {
    status == 401 && v["message"].is_string() && v.get("code").is_none()
}

fn rest_shape(v: &Value) -> bool {
    v["code"].is_string() && v["message"].is_string() && v.get("details").is_some() && v.get("hint").is_some()
}

fn auth_shape(v: &Value) -> bool {
    // GoTrue's `{code, error_code, msg}`, or OAuth's `{error, error_description}` on /token.
    (v["code"].is_number() && v["msg"].is_string()) || (v["error"].is_string() && v["error_description"].is_string())
}

fn storage_shape(v: &Value) -> bool {
    v["statusCode"].is_string() && v["error"].is_string() && v["message"].is_string()
}

async fn fuzz(app: &TestApp, surface: &str, prefix: &str, templates: &[Template], shape: Shape, seed: u64) {
    // Redirects (e.g. /verify's) are answers to check, not to follow.
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("an HTTP client");
    let user = app.user_token(&uuid::Uuid::new_v4().to_string());
    let seed = setting("FUZZ_SEED", 0).wrapping_add(seed);
    let mut rng = StdRng::seed_from_u64(seed);
    let cases: Vec<Case> = (0..setting("FUZZ_CASES", CASES as u64))
        .map(|_| {
            let template = &templates[rng.gen_range(0..templates.len())];
            spoil(&mut rng, template, app, &user)
        })
        .collect();
    let mut successes = 0;
    for (batch_no, batch) in cases.chunks(PARALLEL).enumerate() {
        let answers = futures_util::future::join_all(batch.iter().map(|c| send(&http, app, prefix, c))).await;
        for (i, (case, answer)) in batch.iter().zip(answers).enumerate() {
            let n = batch_no * PARALLEL + i;
            let what = short(&format!(
                "{surface} case {n} (seed {seed:#x}): {} /{:?}?{:?}",
                case.method, case.path, case.query
            ));
            let (status, body) = answer.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(status < 500, "{what}: {status} {}", short(&String::from_utf8_lossy(&body)));
            if (200..300).contains(&status) {
                successes += 1;
            }
            // 431: the HTTP layer itself refuses a request line or headers that long, before any
            // surface sees them (a gateway in front of Supabase does the same).
            if status >= 400 && status != 431 && case.method != Method::HEAD {
                let value: Value = serde_json::from_slice(&body).unwrap_or_else(|_| {
                    panic!("{what}: {status} body is not JSON: {}", short(&String::from_utf8_lossy(&body)))
                });
                assert!(
                    shape(&value) || gateway_shape(status, &value),
                    "{what}: {status} body is not in the surface's error shape: {value}"
                );
            }
        }
    }
    // The valid requests must still succeed now and then, or the generator tests nothing.
    assert!(successes > 0, "{surface}: no case succeeded");
    let health = app.http.get(format!("{}/health", app.address)).send().await.expect("health after fuzzing");
    assert_eq!(health.status(), 200, "{surface}: the server is unhealthy after fuzzing");
}

#[tokio::test]
async fn generated_rest_requests_get_postgrest_answers_and_never_a_5xx() {
    let app = spawn_app_with(|_| {}).await;
    let templates = vec![
        t(
            Method::GET,
            "/vehicles",
            &[("select", "id,make,bookings(id,status)"), ("order", "id.desc"), ("limit", "3")],
            None,
            Who::Anon,
        ),
        t(
            Method::GET,
            "/vehicles",
            &[("daily_rate", "gte.10"), ("or", "(make.eq.Toyota,status.eq.available)")],
            None,
            Who::User,
        ),
        t(
            Method::GET,
            "/bookings",
            &[("select", "*,vehicles(*)"), ("status", "in.(pending,confirmed)")],
            None,
            Who::User,
        ),
        with_headers(
            t(Method::GET, "/blog_posts", &[("offset", "1")], None, Who::Anon),
            &[("range", "0-9"), ("prefer", "count=exact")],
        ),
        t(Method::HEAD, "/vehicles", &[("id", "eq.1")], None, Who::Anon),
        t(
            Method::POST,
            "/contact_messages",
            &[],
            Some(json!({"name": "A", "email": "a@example.test", "message": "Bonjour"})),
            Who::Anon,
        ),
        with_headers(
            t(
                Method::POST,
                "/bookings",
                &[("select", "id")],
                Some(json!({"vehicle_id": 1, "start_date": "2999-01-01", "end_date": "2999-01-03"})),
                Who::User,
            ),
            &[("prefer", "return=representation")],
        ),
        t(
            Method::PATCH,
            "/profiles",
            &[("id", "eq.00000000-0000-0000-0000-000000000000")],
            Some(json!({"full_name": "B"})),
            Who::User,
        ),
        t(Method::DELETE, "/bookings", &[("id", "eq.1")], None, Who::User),
        t(
            Method::POST,
            "/rpc/book_vehicle",
            &[],
            Some(json!({"p_vehicle_id": 1, "p_start": "2999-01-01", "p_end": "2999-01-02"})),
            Who::User,
        ),
        t(Method::GET, "/", &[], None, Who::Anon),
    ];
    fuzz(&app, "rest", "/rest/v1", &templates, rest_shape, SEED).await;
}

#[tokio::test]
async fn generated_auth_requests_get_gotrue_answers_and_never_a_5xx() {
    let app = spawn_app_with(|c| c.auth.mailer_autoconfirm = true).await;
    let credentials = json!({"email": "fuzz@example.test", "password": "secret-123"});
    let templates = vec![
        t(
            Method::POST,
            "/signup",
            &[],
            Some(json!({"email": "new@example.test", "password": "secret-123", "data": {"a": 1}})),
            Who::Anon,
        ),
        t(Method::POST, "/token", &[("grant_type", "password")], Some(credentials.clone()), Who::Anon),
        t(Method::POST, "/token", &[("grant_type", "refresh_token")], Some(json!({"refresh_token": "abc"})), Who::Anon),
        t(
            Method::POST,
            "/token",
            &[("grant_type", "pkce")],
            Some(json!({"auth_code": "x", "code_verifier": "y"})),
            Who::Anon,
        ),
        t(Method::GET, "/user", &[], None, Who::User),
        t(
            Method::PUT,
            "/user",
            &[],
            Some(json!({"data": {"full_name": "C"}, "email": "other@example.test"})),
            Who::User,
        ),
        t(Method::POST, "/logout", &[("scope", "global")], None, Who::User),
        t(Method::POST, "/recover", &[], Some(json!({"email": "fuzz@example.test"})), Who::Anon),
        t(Method::POST, "/otp", &[], Some(json!({"email": "fuzz@example.test", "create_user": false})), Who::Anon),
        t(Method::POST, "/resend", &[], Some(json!({"type": "signup", "email": "fuzz@example.test"})), Who::Anon),
        t(
            Method::GET,
            "/verify",
            &[("type", "signup"), ("token", "abc"), ("redirect_to", "http://localhost")],
            None,
            Who::Anon,
        ),
        t(Method::POST, "/verify", &[], Some(json!({"type": "email", "token_hash": "abc"})), Who::Anon),
        t(Method::POST, "/factors", &[], Some(json!({"factor_type": "totp", "friendly_name": "phone"})), Who::User),
        t(
            Method::POST,
            "/factors/00000000-0000-0000-0000-000000000000/verify",
            &[],
            Some(json!({"challenge_id": "x", "code": "123456"})),
            Who::User,
        ),
        t(Method::GET, "/admin/users", &[("page", "1"), ("per_page", "10")], None, Who::Service),
        t(
            Method::POST,
            "/admin/users",
            &[],
            Some(json!({"email": "made@example.test", "password": "secret-123", "ban_duration": "1h"})),
            Who::Service,
        ),
        t(
            Method::PUT,
            "/admin/users/00000000-0000-0000-0000-000000000000",
            &[],
            Some(json!({"ban_duration": "none", "app_metadata": {}})),
            Who::Service,
        ),
        t(
            Method::POST,
            "/admin/generate_link",
            &[],
            Some(json!({"type": "magiclink", "email": "fuzz@example.test"})),
            Who::Service,
        ),
        t(Method::POST, "/invite", &[], Some(json!({"email": "invited@example.test"})), Who::Service),
        t(Method::GET, "/settings", &[], None, Who::Anon),
    ];
    let res = app
        .http
        .post(format!("{}/auth/v1/signup", app.address))
        .header("apikey", &app.anon_key)
        .json(&credentials)
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success());
    fuzz(&app, "auth", "/auth/v1", &templates, auth_shape, SEED + 1).await;
}

#[tokio::test]
async fn generated_storage_requests_get_storage_answers_and_never_a_5xx() {
    let app = spawn_app_with(|_| {}).await;
    let bucket = json!({"id": "fuzz", "name": "fuzz", "public": true});
    let res = app
        .http
        .post(format!("{}/storage/v1/bucket", app.address))
        .header("apikey", &app.anon_key)
        .bearer_auth(&app.service_key)
        .json(&bucket)
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success());
    let templates = vec![
        t(Method::GET, "/bucket", &[], None, Who::Service),
        t(
            Method::POST,
            "/bucket",
            &[],
            Some(json!({"id": "b2", "name": "b2", "file_size_limit": 1000, "allowed_mime_types": ["image/png"]})),
            Who::Service,
        ),
        t(Method::PUT, "/bucket/fuzz", &[], Some(json!({"public": true, "file_size_limit": "10MB"})), Who::Service),
        t(Method::GET, "/bucket/fuzz", &[], None, Who::Service),
        t(Method::POST, "/bucket/fuzz/empty", &[], None, Who::Service),
        with_headers(
            t(Method::POST, "/object/fuzz/a/b.txt", &[], Some(json!("hello")), Who::Service),
            &[("content-type", "text/plain"), ("x-upsert", "true")],
        ),
        with_headers(
            t(Method::PUT, "/object/fuzz/a/b.txt", &[], Some(json!("again")), Who::Service),
            &[("content-type", "text/plain")],
        ),
        with_headers(t(Method::GET, "/object/fuzz/a/b.txt", &[], None, Who::Service), &[("range", "bytes=0-3")]),
        t(Method::GET, "/object/public/fuzz/a/b.txt", &[("download", "x.txt")], None, Who::Anon),
        t(Method::GET, "/object/authenticated/fuzz/a/b.txt", &[], None, Who::User),
        t(Method::GET, "/object/info/fuzz/a/b.txt", &[], None, Who::Service),
        t(
            Method::POST,
            "/object/list/fuzz",
            &[],
            Some(
                json!({"prefix": "a", "limit": 10, "offset": 0, "sortBy": {"column": "name", "order": "asc"}, "search": ""}),
            ),
            Who::Service,
        ),
        t(
            Method::POST,
            "/object/move",
            &[],
            Some(json!({"bucketId": "fuzz", "sourceKey": "a/b.txt", "destinationKey": "a/c.txt"})),
            Who::Service,
        ),
        t(
            Method::POST,
            "/object/copy",
            &[],
            Some(json!({"bucketId": "fuzz", "sourceKey": "a/c.txt", "destinationKey": "a/b.txt"})),
            Who::Service,
        ),
        t(Method::POST, "/object/sign/fuzz/a/b.txt", &[], Some(json!({"expiresIn": 60})), Who::Service),
        t(Method::POST, "/object/upload/sign/fuzz/up.txt", &[], None, Who::Service),
        t(Method::GET, "/object/sign/fuzz/a/b.txt", &[("token", "abc")], None, Who::Anon),
        t(Method::DELETE, "/object/fuzz", &[], Some(json!({"prefixes": ["a/b.txt"]})), Who::Service),
    ];
    fuzz(&app, "storage", "/storage/v1", &templates, storage_shape, SEED + 2).await;
}
