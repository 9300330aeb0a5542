//! `/functions/v1`: real functions in a project folder, run by the real Deno child the server
//! supervises, called over HTTP.
//!
//! Deno is `FUNCTIONS_DENO_BIN`, else the pinned one `make setup` installs under
//! `server/functions-runtime/node_modules`.

use std::path::PathBuf;

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, TestApp};

pub(crate) fn deno_bin() -> PathBuf {
    deno()
}

pub(crate) fn deno() -> PathBuf {
    std::env::var_os("FUNCTIONS_DENO_BIN").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("functions-runtime/node_modules/@deno/linux-x64-glibc/deno")
    })
}

/// A project folder that applies nothing to the database and holds these functions.
pub(crate) fn project(config: &str, functions: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("functions-project-{}", &server::keys::random_secret()[..12]));
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("create the folder");
        std::fs::write(path, text).expect("write the file");
    };
    write("config.toml", &format!("[db.migrations]\nenabled = false\n[db.seed]\nenabled = false\n{config}"));
    for (path, text) in functions {
        write(path, text);
    }
    dir
}

pub(crate) async fn serve(
    config: &str,
    functions: &[(&str, &str)],
    customize: impl FnOnce(&mut server::config::Config),
) -> TestApp {
    let dir = project(config, functions);
    spawn_app_with(move |c| {
        c.project = Some(dir);
        c.functions.deno_bin = deno();
        customize(c);
    })
    .await
}

/// Counts its calls and never answers a request with `?hang`.
pub(crate) const HANGS_WHEN_ASKED: &str = r#"
let calls = 0;
Deno.serve(async (req) => {
  calls += 1;
  if (new URL(req.url).searchParams.has("hang")) await new Promise(() => {});
  return Response.json({ calls });
});
"#;

pub(crate) const ECHO: &str = r#"
Deno.serve(async (req) => {
  const url = new URL(req.url);
  return Response.json(
    { method: req.method, path: url.pathname, search: url.search, body: await req.text(), custom: req.headers.get("x-custom") },
    { status: 201, headers: { "x-from-function": "yes" } },
  );
});
"#;

impl TestApp {
    pub(crate) fn function(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}/functions/v1/{path}", self.address))
            .header("apikey", &self.anon_key)
            .bearer_auth(&self.anon_key)
    }

    /// A token signed with another secret.
    fn sign_forged(&self) -> String {
        crate::helpers::sign_with(
            "another-secret-another-secret-another",
            json!({ "sub": "x", "role": "authenticated", "exp": 4_000_000_000i64 }),
        )
    }

    /// A user made through the admin API, signed in: its access token and id.
    async fn signed_up_user(&self) -> (String, String) {
        let email = format!("fn-{}@example.com", &server::keys::random_secret()[..8]);
        let created: Value = self
            .http
            .post(format!("{}/auth/v1/admin/users", self.address))
            .header("apikey", &self.service_key)
            .bearer_auth(&self.service_key)
            .json(&json!({ "email": email, "password": "a-long-password-1", "email_confirm": true }))
            .send()
            .await
            .expect("create a user")
            .json()
            .await
            .expect("json");
        let session: Value = self
            .http
            .post(format!("{}/auth/v1/token?grant_type=password", self.address))
            .header("apikey", &self.anon_key)
            .json(&json!({ "email": email, "password": "a-long-password-1" }))
            .send()
            .await
            .expect("sign in")
            .json()
            .await
            .expect("json");
        let token = session["access_token"].as_str().expect("an access token").to_string();
        (token, created["id"].as_str().expect("an id").to_string())
    }
}

#[tokio::test]
async fn a_function_answers_with_the_path_query_body_and_headers_it_was_sent() {
    // Arrange
    let app = serve("", &[("functions/echo/index.ts", ECHO)], |_| {}).await;

    // Act
    let response = app
        .function(reqwest::Method::POST, "echo/deeper/path?x=1&y=two")
        .header("x-custom", "kept")
        .json(&json!({ "hello": "world" }))
        .send()
        .await
        .expect("request");

    // Assert
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(response.headers()["x-from-function"], "yes");
    let body: Value = response.json().await.expect("json");
    assert_eq!(
        body,
        json!({ "method": "POST", "path": "/echo/deeper/path", "search": "?x=1&y=two", "body": r#"{"hello":"world"}"#, "custom": "kept" })
    );
}

#[tokio::test]
async fn a_function_is_refused_without_a_valid_jwt_unless_its_config_says_verify_jwt_false() {
    let app = serve(
        "[functions.open]\nverify_jwt = false\n",
        &[("functions/echo/index.ts", ECHO), ("functions/open/index.ts", ECHO)],
        |_| {},
    )
    .await;
    let url = format!("{}/functions/v1/echo", app.address);

    let missing = app.http.post(&url).send().await.expect("request");
    assert_eq!(missing.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(missing.json::<Value>().await.expect("json"), json!({ "msg": "Error: Missing authorization header" }));

    let forged = app.sign_forged();
    for token in [forged.as_str(), "not-a-jwt", app.publishable_key.as_str()] {
        let refused = app.http.post(&url).bearer_auth(token).send().await.expect("request");
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED, "{token}");
        assert_eq!(refused.json::<Value>().await.expect("json"), json!({ "msg": "Invalid JWT" }));
    }

    let user = app.user_token("00000000-0000-0000-0000-000000000001");
    let signed_in = app.http.post(&url).bearer_auth(user).send().await.expect("request");
    assert_eq!(signed_in.status(), StatusCode::CREATED);

    let open = app.http.post(format!("{}/functions/v1/open", app.address)).send().await.expect("request");
    assert_eq!(open.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn an_unknown_function_a_shared_folder_and_a_disabled_function_are_not_found() {
    let app = serve(
        "[functions.off]\nenabled = false\n",
        &[("functions/_shared/index.ts", ECHO), ("functions/off/index.ts", ECHO), ("functions/echo/index.ts", ECHO)],
        |_| {},
    )
    .await;
    for name in ["missing", "_shared", "off", "..%2Fecho"] {
        let response = app.function(reqwest::Method::GET, name).send().await.expect("request");
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{name}");
        assert_eq!(response.text().await.expect("text"), "Function not found");
    }
}

/// Reads one HTTP/1.1 answer with a `content-length` from `stream`: its head, lowercased, and body.
async fn read_answer(stream: &mut tokio::io::BufReader<tokio::net::TcpStream>) -> (String, String) {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};
    let mut head = String::new();
    loop {
        let mut line = String::new();
        let read = stream.read_line(&mut line).await.expect("a line of the head");
        assert!(read > 0, "the connection closed after: {head}");
        if line == "\r\n" {
            break;
        }
        head.push_str(&line.to_ascii_lowercase());
    }
    let length = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map(|value| value.trim().parse::<usize>().expect("a length"))
        .expect("a content-length");
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.expect("the body");
    (head, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn a_request_refused_before_its_function_leaves_the_connection_open_for_the_next() {
    use tokio::io::AsyncWriteExt;
    let app = serve("", &[("functions/echo/index.ts", ECHO)], |_| {}).await;
    let address = app.address.trim_start_matches("http://").to_string();
    let mut stream = tokio::io::BufReader::new(tokio::net::TcpStream::connect(&address).await.expect("connect"));
    let body = "x".repeat(10_000);
    let post = |name: &str, token: &str| {
        format!(
            "POST /functions/v1/{name} HTTP/1.1\r\nhost: {address}\r\napikey: {key}\r\nauthorization: Bearer {token}\r\n\
             content-type: text/plain\r\ncontent-length: {}\r\n\r\n{body}",
            body.len(),
            key = app.anon_key
        )
    };

    // An unknown function, then a refused token, both with a body the server never needs.
    for (request, status, answer) in [
        (post("missing", &app.anon_key), "404", "Function not found"),
        (post("echo", "not-a-jwt"), "401", "Invalid JWT"),
    ] {
        stream.get_mut().write_all(request.as_bytes()).await.expect("send");
        let (head, body) = read_answer(&mut stream).await;
        assert!(head.starts_with(&format!("http/1.1 {status}")), "{head}");
        assert!(body.contains(answer), "{body}");
        assert!(!head.contains("connection: close"), "the connection stays open: {head}");
    }
    // The same connection then carries a call to the function, body and all.
    stream.get_mut().write_all(post("echo", &app.anon_key).as_bytes()).await.expect("send");
    let (head, answer) = read_answer(&mut stream).await;
    assert!(head.starts_with("http/1.1 201"), "{head}");
    let answer: Value = serde_json::from_str(&answer).expect("json");
    assert_eq!(answer["body"].as_str().map(str::len), Some(body.len()));
}

#[tokio::test]
async fn a_function_sees_the_platform_keys_and_the_project_secrets_and_nothing_else_of_the_servers_environment() {
    let source = r#"
Deno.serve(() => Response.json({
  names: Object.keys(Deno.env.toObject()).sort(),
  url: Deno.env.get("SUPABASE_URL"),
  anon: Deno.env.get("SUPABASE_ANON_KEY"),
  secret: Deno.env.get("STRIPE_KEY"),
  db: Deno.env.get("SUPABASE_DB_URL"),
}));
"#;
    let app = serve(
        "",
        &[
            ("functions/env/index.ts", source),
            ("functions/.env", "STRIPE_KEY=sk_test_1\nSUPABASE_URL=http://elsewhere\n"),
        ],
        |_| {},
    )
    .await;

    let body: Value =
        app.function(reqwest::Method::GET, "env").send().await.expect("request").json().await.expect("json");

    assert_eq!(body["url"], app.address.as_str());
    assert_eq!(body["anon"], app.anon_key.as_str());
    assert_eq!(body["secret"], "sk_test_1");
    assert_eq!(body["db"], app.db_url.as_str());
    let names: Vec<&str> = body["names"].as_array().expect("names").iter().filter_map(Value::as_str).collect();
    let given = [
        "DENO_DIR",
        "DENO_NO_UPDATE_CHECK",
        "NO_COLOR",
        "STRIPE_KEY",
        "SUPABASE_ANON_KEY",
        "SUPABASE_DB_URL",
        "SUPABASE_PUBLISHABLE_KEY",
        "SUPABASE_SECRET_KEY",
        "SUPABASE_SERVICE_ROLE_KEY",
        "SUPABASE_URL",
    ];
    // Deno sets the first two itself when they are missing; the TLS settings are Deno's own,
    // passed on to it when the server has them (`make` sets DENO_TLS_CA_STORE=system).
    let by_deno = ["PATH", "DENO_NODE_SHIM_ACTIVE", "DENO_TLS_CA_STORE", "DENO_CERT"];
    assert!(given.iter().all(|name| names.contains(name)), "{names:?}");
    let others: Vec<&&str> = names.iter().filter(|name| !given.contains(name) && !by_deno.contains(name)).collect();
    assert!(others.is_empty(), "the server's environment leaked: {others:?}");
}

#[tokio::test]
async fn a_function_calls_this_server_back_with_the_caller_s_token() {
    let source = r#"
Deno.serve(async (req) => {
  const answer = await fetch(Deno.env.get("SUPABASE_URL") + "/auth/v1/user", {
    headers: { apikey: Deno.env.get("SUPABASE_ANON_KEY"), authorization: req.headers.get("authorization") },
  });
  const user = await answer.json();
  return Response.json({ status: answer.status, id: user.id ?? null });
});
"#;
    let app = serve("", &[("functions/whoami/index.ts", source)], |_| {}).await;
    let (token, id) = app.signed_up_user().await;

    let body: Value = app
        .http
        .get(format!("{}/functions/v1/whoami", app.address))
        .header("apikey", &app.anon_key)
        .bearer_auth(token)
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");

    assert_eq!(body, json!({ "status": 200, "id": id }));
}

#[tokio::test]
async fn a_function_that_fails_to_load_or_throws_answers_in_the_edge_runtime_s_shape() {
    let app = serve(
        "",
        &[
            ("functions/broken/index.ts", "throw new Error('no start');"),
            ("functions/throws/index.ts", "Deno.serve(() => { throw new Error('no answer'); });"),
        ],
        |_| {},
    )
    .await;

    let boot = app.function(reqwest::Method::GET, "broken").send().await.expect("request");
    assert_eq!(boot.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        boot.json::<Value>().await.expect("json"),
        json!({ "code": "BOOT_ERROR", "message": "Worker failed to boot (please check logs)" })
    );
    let thrown = app.function(reqwest::Method::GET, "throws").send().await.expect("request");
    assert_eq!(thrown.status(), StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(
        thrown.json::<Value>().await.expect("json"),
        json!({ "code": "WORKER_ERROR", "message": "Function exited due to an error (please check logs)" })
    );
}

#[tokio::test]
async fn a_function_past_the_wall_clock_limit_answers_546_and_the_next_request_runs_afresh() {
    let app = serve("", &[("functions/slow/index.ts", HANGS_WHEN_ASKED)], |c| c.functions.wall_clock_secs = 1).await;

    let hung = app.function(reqwest::Method::GET, "slow?hang").send().await.expect("request");
    assert_eq!(hung.status().as_u16(), 546);
    assert_eq!(hung.json::<Value>().await.expect("json")["code"], "WORKER_LIMIT");
    let next: Value =
        app.function(reqwest::Method::GET, "slow").send().await.expect("request").json().await.expect("json");
    assert_eq!(next, json!({ "calls": 1 }));
}

#[tokio::test]
async fn a_body_over_the_limit_is_refused_with_413_before_the_function_runs() {
    let app = serve("", &[("functions/echo/index.ts", ECHO)], |c| c.functions.max_request_bytes = 1000).await;
    let response = app.function(reqwest::Method::POST, "echo").body(vec![b'x'; 1001]).send().await.expect("request");
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(response.json::<Value>().await.expect("json")["code"], "PAYLOAD_TOO_LARGE");
    let fits = app.function(reqwest::Method::POST, "echo").body(vec![b'x'; 1000]).send().await.expect("request");
    assert_eq!(fits.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn an_answer_given_whole_is_sent_with_its_length_and_a_stream_is_not() {
    let whole = r#"Deno.serve(() => Response.json({ hello: "whole" }));"#;
    let streamed = r#"
Deno.serve(() => new Response(new ReadableStream({
  start(controller) {
    controller.enqueue(new TextEncoder().encode("first "));
    setTimeout(() => (controller.enqueue(new TextEncoder().encode("then")), controller.close()), 20);
  },
})));
"#;
    let app =
        serve("", &[("functions/whole/index.ts", whole), ("functions/streamed/index.ts", streamed)], |_| {}).await;

    for _ in 0..2 {
        // The first request goes through the supervisor, the second straight to the function's process.
        let response = app.function(reqwest::Method::GET, "whole").send().await.expect("request");
        assert_eq!(response.headers().get("content-length").map(|v| v.as_bytes()), Some(&b"17"[..]));
        assert_eq!(response.text().await.expect("text"), r#"{"hello":"whole"}"#);
    }
    let response = app.function(reqwest::Method::GET, "streamed").send().await.expect("request");
    assert_eq!(response.headers().get("content-length"), None);
    assert_eq!(response.headers().get("transfer-encoding").map(|v| v.as_bytes()), Some(&b"chunked"[..]));
    assert_eq!(response.text().await.expect("text"), "first then");
}

#[tokio::test]
async fn a_streamed_answer_reaches_the_client_before_the_function_has_finished() {
    let source = r#"
let release = () => {};
Deno.serve((req) => {
  if (new URL(req.url).pathname.endsWith("/release")) { release(); return new Response("released"); }
  const body = new ReadableStream({
    async start(controller) {
      controller.enqueue(new TextEncoder().encode("data: first\n\n"));
      await new Promise((resolve) => (release = resolve));
      controller.enqueue(new TextEncoder().encode("data: second\n\n"));
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
});
"#;
    let app = serve("", &[("functions/events/index.ts", source)], |_| {}).await;

    let mut response = app.function(reqwest::Method::GET, "events").send().await.expect("request");
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let first = response.chunk().await.expect("a chunk").expect("not the end");
    assert_eq!(&first[..], b"data: first\n\n");
    let released = app.function(reqwest::Method::POST, "events/release").send().await.expect("request");
    assert_eq!(released.text().await.expect("text"), "released");
    let mut rest = Vec::new();
    while let Some(chunk) = response.chunk().await.expect("a chunk") {
        rest.extend_from_slice(&chunk);
    }
    assert_eq!(rest, b"data: second\n\n");
}

#[tokio::test]
async fn without_a_functions_folder_every_function_is_not_found() {
    let app = serve("", &[], |_| {}).await;
    let response = app.function(reqwest::Method::GET, "anything").send().await.expect("request");
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let health: Value =
        app.http.get(format!("{}/health", app.address)).send().await.expect("health").json().await.expect("json");
    assert_eq!(health["functions"], Value::Null, "no Deno runs without functions");
}

/// The pid of the Deno child (the supervisor) whose script lies under `data_dir`.
fn router_pid(data_dir: &std::path::Path) -> Option<i32> {
    script_pids(data_dir, "supervisor.ts").first().copied()
}

/// The pids of the Deno processes running `script` of the runtime under `data_dir` (`supervisor.ts`;
/// `host.ts`, one per function).
pub(crate) fn script_pids(data_dir: &std::path::Path, script: &str) -> Vec<i32> {
    let script = data_dir.join("functions-runtime").join(script);
    let script = script.to_string_lossy();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            String::from_utf8_lossy(&cmdline).split('\0').any(|arg| arg == script).then_some(pid)
        })
        .collect()
}

/// Whether process `pid` still runs (a zombie does not).
fn running(pid: i32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z "))
}

#[tokio::test]
async fn the_runtime_is_started_again_after_it_dies_and_serves_the_function_anew() {
    // Arrange: a running function, and the pid of the Deno child serving it.
    let data_dir = std::env::temp_dir().join(format!("functions-supervise-{}", &server::keys::random_secret()[..12]));
    let dir = data_dir.clone();
    let app = serve("", &[("functions/echo/index.ts", ECHO)], move |c| c.data_dir = dir).await;
    let first = app.function(reqwest::Method::GET, "echo").send().await.expect("request");
    assert_eq!(first.status(), StatusCode::CREATED);
    let pid = router_pid(&data_dir).expect("the Deno child runs");
    let health: Value =
        app.http.get(format!("{}/health", app.address)).send().await.expect("health").json().await.expect("json");
    assert_eq!(health["functions"], "running");

    // Act: the child dies.
    // SAFETY: kill(2) on the pid of the child this test's server started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);

    // Assert: a new child answers (requests meanwhile may get BOOT_ERROR, never a hang; the
    // function's own process, which ends when its supervisor is gone, may still answer one sent
    // straight to it).
    let mut statuses = Vec::new();
    for _ in 0..60 {
        let status = app.function(reqwest::Method::GET, "echo").send().await.expect("request").status();
        statuses.push(status.as_u16());
        if status == StatusCode::CREATED && router_pid(&data_dir).is_some_and(|new| new != pid) {
            break;
        }
        assert!([StatusCode::SERVICE_UNAVAILABLE, StatusCode::CREATED].contains(&status), "{statuses:?}");
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    assert_eq!(statuses.last(), Some(&201), "{statuses:?}");
    let new_pid = router_pid(&data_dir).expect("a new Deno child runs");
    assert_ne!(new_pid, pid);
}

#[tokio::test]
async fn a_warm_function_whose_process_was_killed_answers_its_next_requests_from_a_new_process() {
    // Arrange: a function answering its process's pid and how many requests it served, warm (its
    // requests go straight to its process once the supervisor named it).
    const COUNTER: &str =
        "let n = 0; Deno.serve(async (req) => Response.json({ pid: Deno.pid, n: ++n, body: await req.text() }));";
    let data_dir = std::env::temp_dir().join(format!("functions-direct-{}", &server::keys::random_secret()[..12]));
    let dir = data_dir.clone();
    let app = serve("", &[("functions/counter/index.ts", COUNTER)], move |c| c.data_dir = dir).await;
    let call = |body: Option<&'static str>| {
        let request = match body {
            Some(body) => app.function(reqwest::Method::POST, "counter").body(body),
            None => app.function(reqwest::Method::GET, "counter"),
        };
        async move {
            let answer = request.send().await.expect("request");
            assert_eq!(answer.status(), StatusCode::OK);
            answer.json::<Value>().await.expect("json")
        }
    };
    let first = call(None).await;
    assert_eq!(call(None).await["n"], 2);
    let posted = call(Some("small body")).await;
    assert_eq!((posted["n"].as_i64(), posted["body"].as_str()), (Some(3), Some("small body")));
    let pid = first["pid"].as_i64().expect("pid") as i32;
    assert!(script_pids(&data_dir, "host.ts").contains(&pid), "the function runs in a process of its own");

    // Act: its process dies.
    // SAFETY: kill(2) on a process of the runtime this test's server started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    for _ in 0..100 {
        if !running(pid) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }

    // Assert: the next requests, with and without a body, are answered by a new process.
    let after = call(Some("again")).await;
    assert_ne!(after["pid"].as_i64(), Some(pid as i64), "a new process");
    assert_eq!((after["n"].as_i64(), after["body"].as_str()), (Some(1), Some("again")));
    assert_eq!(call(None).await["n"], 2);
}

/// The URL ports a function saw over `calls` warm GETs, and whether one process served them all.
/// What a function saw of `calls` requests to `seen/sub?q=1` (its URL, and the connection that
/// brought it: `tcp:0` through its process's router, `unix:` on a lane's socket, `tcp:<port>` on a
/// lane's port) and whether one process served them all.
async fn seen(lanes: bool, calls: usize) -> (Vec<(String, String)>, String, bool) {
    const SEEN: &str = "Deno.serve((req, info) => Response.json({ url: req.url, \
        remote: `${info.remoteAddr.transport}:${info.remoteAddr.port ?? ''}`, pid: Deno.pid }));";
    let app = serve("", &[("functions/seen/index.ts", SEEN)], move |c| c.functions.lanes = lanes).await;
    let mut seen = Vec::new();
    let mut pids = std::collections::HashSet::new();
    for _ in 0..calls {
        let answer = app.function(reqwest::Method::GET, "seen/sub?q=1").send().await.expect("request");
        assert_eq!(answer.status(), StatusCode::OK);
        let json = answer.json::<Value>().await.expect("json");
        seen.push((
            json["url"].as_str().expect("url").to_string(),
            json["remote"].as_str().expect("remote").to_string(),
        ));
        pids.insert(json["pid"].as_i64().expect("pid"));
    }
    (seen, format!("{}/seen/sub?q=1", app.address), pids.len() == 1)
}

#[tokio::test]
async fn warm_requests_go_into_the_function_s_worker_on_its_socket_unless_lanes_are_off_and_every_one_sees_the_caller_s_url(
) {
    // The first request reaches the function through its process's router; warm ones sent into
    // the worker's lane arrive on the lane's own connection: its Unix socket in the lane folder
    // where `/var/tmp` exists. Whichever hop, the function sees the URL it was called at, without
    // `/functions/v1`.
    let (with_lanes, called, one_process) = seen(true, 10).await;
    assert!(one_process, "one process served them all");
    assert!(with_lanes.iter().all(|(url, _)| url == &called), "{with_lanes:?} all {called}");
    assert_eq!(with_lanes[0].1, "tcp:0", "the first through the router");
    let on_lane = if std::path::Path::new("/var/tmp").is_dir() { "unix:" } else { "tcp:" };
    assert!(
        with_lanes[1..].iter().any(|(_, remote)| remote.starts_with(on_lane) && remote != "tcp:0"),
        "a warm request on the lane ({on_lane}): {with_lanes:?}"
    );

    let (without, called, one_process) = seen(false, 10).await;
    assert!(one_process, "one process served them all");
    let through_router = (called.clone(), "tcp:0".to_string());
    assert!(without.iter().all(|seen| seen == &through_router), "every request through the process: {without:?}");
}

#[tokio::test]
async fn deno_starts_at_the_first_request_not_with_the_server() {
    // Arrange: a server with a functions folder, nothing called yet.
    let data_dir = std::env::temp_dir().join(format!("functions-lazy-{}", &server::keys::random_secret()[..12]));
    let dir = data_dir.clone();
    let app = serve("", &[("functions/echo/index.ts", ECHO)], move |c| c.data_dir = dir).await;
    let health = |app: &TestApp| {
        let request = app.http.get(format!("{}/health", app.address)).send();
        async move { request.await.expect("health").json::<Value>().await.expect("json") }
    };
    assert_eq!(health(&app).await["functions"], "idle", "functions found, Deno not started");
    assert_eq!(router_pid(&data_dir), None, "no Deno child before the first request");

    // Act: the first request, which starts Deno and waits for it.
    let first = app.function(reqwest::Method::GET, "echo").send().await.expect("request");

    // Assert: answered by the function, and the child now runs.
    assert_eq!(first.status(), StatusCode::CREATED);
    assert_eq!(first.json::<Value>().await.expect("json")["path"], "/echo");
    assert!(router_pid(&data_dir).is_some(), "the Deno child runs after the first request");
    assert_eq!(health(&app).await["functions"], "running");
}

#[tokio::test]
async fn an_edited_function_answers_with_its_new_code_without_a_restart() {
    let project = project("", &[("functions/greet/index.ts", "Deno.serve(() => new Response('hello'));")]);
    let dir = project.clone();
    let app = spawn_app_with(move |c| {
        c.project = Some(dir);
        c.functions.deno_bin = deno();
    })
    .await;
    let before = app.function(reqwest::Method::GET, "greet").send().await.expect("request");
    assert_eq!(before.text().await.expect("text"), "hello");

    std::fs::write(project.join("functions/greet/index.ts"), "Deno.serve(() => new Response('bonjour'));")
        .expect("edit the function");

    let after = app.function(reqwest::Method::GET, "greet").send().await.expect("request");
    assert_eq!(after.text().await.expect("text"), "bonjour");
}

#[tokio::test]
async fn the_deno_child_ends_when_the_server_is_killed() {
    // Arrange: the server binary serving a function, and its Deno child.
    let project = project("", &[("functions/echo/index.ts", ECHO)]);
    let data_dir = std::env::temp_dir().join(format!("functions-orphan-{}", &server::keys::random_secret()[..12]));
    let db_url = crate::helpers::fresh_database().await;
    let secret = server::keys::random_secret();
    let (project, dir, deno) = (
        project.to_string_lossy().to_string(),
        data_dir.to_string_lossy().to_string(),
        deno().to_string_lossy().to_string(),
    );
    let (mut child, url, anon) = crate::helpers::spawn_binary(&[
        ("DATABASE_URL", &db_url),
        ("JWT_SECRET", &secret),
        ("DATA_DIR", &dir),
        ("SUPABASE_PROJECT_DIR", &project),
        ("FUNCTIONS_DENO_BIN", &deno),
    ])
    .await;
    let answer = reqwest::Client::new()
        .get(format!("{url}/functions/v1/echo"))
        .bearer_auth(&anon)
        .send()
        .await
        .expect("request");
    assert_eq!(answer.status(), StatusCode::CREATED);
    let pid = router_pid(&data_dir).expect("the Deno child runs");
    let functions = script_pids(&data_dir, "host.ts");
    assert_eq!(functions.len(), 1, "the function's own process runs");

    // Act: the server dies without a chance to stop it.
    child.kill().await.expect("SIGKILL the server");

    // Assert: the child sees its standard input close and exits, and so does the function's process.
    let mut alive = vec![pid];
    for _ in 0..100 {
        alive = std::iter::once(pid).chain(functions.iter().copied()).filter(|pid| running(*pid)).collect();
        if alive.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(alive.is_empty(), "the Deno processes {alive:?} outlived the server");
}

#[tokio::test]
async fn a_function_made_by_functions_new_is_served_at_once() {
    let project = project("", &[("functions/echo/index.ts", ECHO)]);
    let dir = project.clone();
    let app = spawn_app_with(move |c| {
        c.project = Some(dir);
        c.functions.deno_bin = deno();
    })
    .await;

    server::functions::scaffold::create(&project, "greeter").expect("the new function");

    let body: Value = app
        .function(reqwest::Method::POST, "greeter")
        .json(&json!({ "name": "Functions" }))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(body, json!({ "message": "Hello Functions!" }));
}

#[tokio::test]
async fn without_a_deno_to_run_functions_answer_boot_error_and_health_says_so() {
    let app =
        serve("", &[("functions/echo/index.ts", ECHO)], |c| c.functions.deno_bin = "/nonexistent/deno".into()).await;

    let response = app.function(reqwest::Method::GET, "echo").send().await.expect("request");

    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(response.json::<Value>().await.expect("json")["code"], "BOOT_ERROR");
    let health = app.http.get(format!("{}/health", app.address)).send().await.expect("health");
    assert_eq!(health.status(), StatusCode::OK, "the other surfaces are up");
    let body: Value = health.json().await.expect("json");
    assert!(body["functions"] == "down" || body["functions"] == "starting", "{body}");
}
