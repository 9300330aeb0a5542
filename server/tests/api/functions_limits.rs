//! `/functions/v1` limits and isolation: a function held past one of its limits (memory, CPU
//! time, request idle timeout) gets Supabase's answer for it while the other functions keep
//! answering; a function reads its own folder and the shared code, not another function's folder
//! or the server's data folder; bodies stream in; the caller's `traceparent` reaches the function.

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::functions::{serve, ECHO, HANGS_WHEN_ASKED};

/// `?small` answers at once; otherwise it keeps about 1 GB of strings and arrays on V8's heap.
const HOG: &str = r#"
Deno.serve((req) => {
  if (new URL(req.url).searchParams.has("small")) return new Response("fine");
  const kept = [];
  for (let i = 0; i < 1_000_000; i++) kept.push(new Array(128).fill(String(i) + "x".repeat(64)));
  return new Response(String(kept.length));
});
"#;

/// About 160 MB on the heap, kept until it answers.
const MEDIUM: &str = r#"
Deno.serve(() => {
  const kept = [];
  for (let i = 0; i < 20; i++) kept.push(new Array(1_000_000).fill(i + 0.5));
  return new Response(String(kept.length));
});
"#;

/// `?spin` loops for ever; otherwise it answers at once.
const SPIN: &str = r#"
Deno.serve((req) => {
  if (new URL(req.url).searchParams.has("spin")) while (true) { /* endless */ }
  return new Response("idle");
});
"#;

/// Spends 800 ms of CPU time (the process's own clock, whatever the machine's load), then answers.
const BUSY: &str = r#"
import process from "node:process";
Deno.serve(() => {
  const start = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(start);
    if (used.user + used.system >= 800_000) break;
  }
  return new Response("done");
});
"#;

async fn status_and_code(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or_default();
    (status, body["code"].clone())
}

#[tokio::test]
async fn a_function_silent_past_its_request_idle_timeout_answers_504_while_others_answer() {
    let config = "[functions.stalls]\nrequest_idle_timeout_secs = 1\n";
    let app =
        serve(config, &[("functions/stalls/index.ts", HANGS_WHEN_ASKED), ("functions/echo/index.ts", ECHO)], |c| {
            c.functions.wall_clock_secs = 120;
        })
        .await;

    let hanging = app.function(Method::GET, "stalls?hang").send();
    let (hung, other) = tokio::join!(hanging, app.function(Method::GET, "echo").send());

    let other = other.expect("request");
    assert_eq!(other.status().as_u16(), 201, "another function answers meanwhile");
    let hung = hung.expect("request");
    assert_eq!(hung.status().as_u16(), 504);
    assert_eq!(hung.json::<Value>().await.expect("json")["code"], "REQUEST_IDLE_TIMEOUT");
    // Only the request was given up: the function's worker and its module state live on.
    let next: Value = app.function(Method::GET, "stalls").send().await.expect("request").json().await.expect("json");
    assert_eq!(next["calls"], 2);
}

#[tokio::test]
async fn a_function_allocating_1_gb_answers_546_while_another_answers_during_and_after() {
    // Arrange: no CPU limit for the hog, so its memory limit (the default 256 MB) is what stops it.
    let config = "[functions.hog]\ncpu_time_limit_ms = 0\n";
    let app = serve(config, &[("functions/hog/index.ts", HOG), ("functions/echo/index.ts", ECHO)], |_| {}).await;
    let warm = app.function(Method::GET, "hog?small").send().await.expect("request");
    assert_eq!(warm.status(), StatusCode::OK);

    // Act
    let (hog, during) = tokio::join!(app.function(Method::GET, "hog").send(), async {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        app.function(Method::GET, "echo").send().await
    });

    // Assert
    assert_eq!(during.expect("request").status().as_u16(), 201, "another function answers during");
    assert_eq!(status_and_code(hog.expect("request")).await, (546, "WORKER_LIMIT".into()));
    let after = app.function(Method::GET, "echo").send().await.expect("request");
    assert_eq!(after.status().as_u16(), 201, "another function answers after");
    let again = app.function(Method::GET, "hog?small").send().await.expect("request");
    assert_eq!(again.text().await.expect("text"), "fine", "the hog itself starts afresh");
}

#[tokio::test]
async fn an_endless_loop_answers_546_at_the_cpu_time_limit_while_another_answers() {
    let app = serve("", &[("functions/spin/index.ts", SPIN), ("functions/echo/index.ts", ECHO)], |_| {}).await;
    let warm = app.function(Method::GET, "spin").send().await.expect("request");
    assert_eq!(warm.status(), StatusCode::OK);

    let (spin, during) = tokio::join!(app.function(Method::GET, "spin?spin").send(), async {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        app.function(Method::GET, "echo").send().await
    });

    assert_eq!(during.expect("request").status().as_u16(), 201, "another function answers during");
    assert_eq!(status_and_code(spin.expect("request")).await, (546, "WORKER_LIMIT".into()));
    let again = app.function(Method::GET, "spin").send().await.expect("request");
    assert_eq!(again.text().await.expect("text"), "idle");
}

#[tokio::test]
async fn a_function_s_own_memory_and_cpu_limits_take_over_from_the_server_s() {
    // Arrange: the server's limits are 64 MB and 2 s; `roomy` has 512 MB, `hasty` 300 ms.
    let config = "[functions.roomy]\nmemory_limit_mb = 512\n[functions.hasty]\ncpu_time_limit_ms = 300\n";
    let files = [
        ("functions/roomy/index.ts", MEDIUM),
        ("functions/tight/index.ts", MEDIUM),
        ("functions/hasty/index.ts", BUSY),
        ("functions/patient/index.ts", BUSY),
    ];
    let app = serve(config, &files, |c| c.functions.memory_limit_mb = 64).await;

    // Act
    let roomy = app.function(Method::GET, "roomy").send().await.expect("request");
    let tight = app.function(Method::GET, "tight").send().await.expect("request");
    let patient = app.function(Method::GET, "patient").send().await.expect("request");
    let hasty = app.function(Method::GET, "hasty").send().await.expect("request");

    // Assert
    assert_eq!((roomy.status().as_u16(), roomy.text().await.expect("text")), (200, "20".to_string()));
    assert_eq!(status_and_code(tight).await, (546, "WORKER_LIMIT".into()));
    assert_eq!((patient.status().as_u16(), patient.text().await.expect("text")), (200, "done".to_string()));
    assert_eq!(status_and_code(hasty).await, (546, "WORKER_LIMIT".into()));
}

#[tokio::test]
async fn a_function_reads_its_folders_not_another_function_s_or_the_data_folder_and_writes_only_tmp() {
    // Arrange: the project and the data folder both lie under /tmp, which every function may read
    // and write.
    let data_dir = std::env::temp_dir().join(format!("functions-isolation-{}", &server::keys::random_secret()[..12]));
    std::fs::create_dir_all(&data_dir).expect("data folder");
    std::fs::write(data_dir.join("private.txt"), "the server's").expect("write");
    let data_file = std::fs::canonicalize(data_dir.join("private.txt")).expect("canonical");
    let scratch =
        std::env::temp_dir().join(format!("functions-isolation-scratch-{}", &server::keys::random_secret()[..12]));
    let snoop = format!(
        r#"
const tryIt = async (f) => {{ try {{ await f(); return "ok"; }} catch (e) {{ return e.name; }} }};
const here = new URL(".", import.meta.url).pathname;
Deno.serve(async () => Response.json({{
  own: await tryIt(() => Deno.readTextFile(here + "index.ts")),
  shared: await tryIt(() => Deno.readTextFile(here + "../_shared/cors.ts")),
  other: await tryIt(() => Deno.readTextFile(here + "../echo/index.ts")),
  secrets: await tryIt(() => Deno.readTextFile(here + "../.env")),
  data: await tryIt(() => Deno.readTextFile({data:?})),
  etc: await tryIt(() => Deno.readTextFile("/etc/hostname")),
  run: await tryIt(() => new Deno.Command("/bin/true").output()),
  tmpWrite: await tryIt(() => Deno.writeTextFile({scratch:?}, "x")),
  dataWrite: await tryIt(() => Deno.writeTextFile({data:?}, "x")),
  runtimeWrite: await tryIt(() => Deno.writeTextFile({runtime:?}, "x")),
  envWrite: await tryIt(() => Deno.writeTextFile(here + "../.env", "X=1")),
  otherWrite: await tryIt(() => Deno.writeTextFile(here + "../echo/index.ts", "x")),
}}));
"#,
        data = data_file.to_string_lossy(),
        runtime = data_file.with_file_name("functions-runtime").join("host.ts").to_string_lossy(),
        scratch = scratch.to_string_lossy(),
    );
    let files = [
        ("functions/snoop/index.ts", snoop.as_str()),
        ("functions/echo/index.ts", ECHO),
        ("functions/_shared/cors.ts", "export const cors = {};"),
        ("functions/.env", "STRIPE_KEY=sk_test_1\n"),
    ];
    let dir = data_dir.clone();
    let app = serve("", &files, move |c| c.data_dir = dir).await;

    // Act
    let answer: Value = app.function(Method::GET, "snoop").send().await.expect("request").json().await.expect("json");

    // Assert
    assert_eq!(
        answer,
        serde_json::json!({
            "own": "ok", "shared": "ok", "other": "NotCapable", "secrets": "NotCapable",
            "data": "NotCapable", "etc": "NotCapable", "run": "NotCapable",
            "tmpWrite": "ok", "dataWrite": "NotCapable", "runtimeWrite": "NotCapable",
            "envWrite": "NotCapable", "otherWrite": "NotCapable",
        })
    );
    assert_eq!(std::fs::read_to_string(&data_file).expect("read"), "the server's", "the data folder's file unchanged");
    let _ = std::fs::remove_file(scratch);
}

#[tokio::test]
async fn with_its_folders_outside_tmp_a_function_served_by_the_spare_process_reads_only_its_own_and_stops_at_its_memory_limit(
) {
    // Arrange: the project and the data folder outside /tmp, as on a server: the runtime keeps a
    // spare process there, which the first function called takes.
    let root =
        std::path::Path::new("/var/tmp").join(format!("functions-spare-{}", &server::keys::random_secret()[..12]));
    let (project, data_dir) = (root.join("project"), root.join("data"));
    std::fs::create_dir_all(&data_dir).expect("data folder");
    std::fs::write(data_dir.join("private.txt"), "the server's").expect("write");
    let snoop = format!(
        r#"
const tryIt = async (f) => {{ try {{ await f(); return "ok"; }} catch (e) {{ return e.name; }} }};
const here = new URL(".", import.meta.url).pathname;
Deno.serve(async () => Response.json({{
  own: await tryIt(() => Deno.readTextFile(here + "index.ts")),
  shared: await tryIt(() => Deno.readTextFile(here + "../_shared/cors.ts")),
  other: await tryIt(() => Deno.readTextFile(here + "../echo/index.ts")),
  secrets: await tryIt(() => Deno.readTextFile(here + "../.env")),
  data: await tryIt(() => Deno.readTextFile({data:?})),
  tmp: await tryIt(async () => {{ await Deno.writeTextFile("/tmp/functions-spare-test.txt", "x"); await Deno.readTextFile("/tmp/functions-spare-test.txt"); }}),
  run: await tryIt(() => new Deno.Command("/bin/true").output()),
}}));
"#,
        data = data_dir.join("private.txt").to_string_lossy()
    );
    for (path, text) in [
        ("config.toml", "[db.migrations]\nenabled = false\n[db.seed]\nenabled = false\n"),
        ("functions/snoop/index.ts", snoop.as_str()),
        ("functions/echo/index.ts", ECHO),
        ("functions/hog/index.ts", HOG),
        ("functions/_shared/cors.ts", "export const cors = {};"),
        ("functions/.env", "STRIPE_KEY=sk_test_1\n"),
    ] {
        let path = project.join(path);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("create the folder");
        std::fs::write(path, text).expect("write the file");
    }
    let (dir, data) = (project.clone(), data_dir.clone());
    let app = crate::helpers::spawn_app_with(move |c| {
        c.project = Some(dir);
        c.data_dir = data;
        c.functions.deno_bin = crate::functions::deno();
        c.functions.memory_limit_mb = 64;
    })
    .await;

    // Act
    let answer: Value = app.function(Method::GET, "snoop").send().await.expect("request").json().await.expect("json");
    let fine = app.function(Method::GET, "hog?small").send().await.expect("request");
    let (fine_status, fine_text) = (fine.status(), fine.text().await.expect("text"));
    let allocating = app.function(Method::GET, "hog").send().await.expect("request");
    let echo = app.function(Method::GET, "echo").send().await.expect("request");

    // Assert
    assert_eq!(
        answer,
        serde_json::json!({
            "own": "ok", "shared": "ok", "other": "NotCapable", "secrets": "NotCapable",
            "data": "NotCapable", "tmp": "ok", "run": "NotCapable",
        })
    );
    assert_eq!((fine_status, fine_text.as_str()), (StatusCode::OK, "fine"));
    assert_eq!(status_and_code(allocating).await, (546, "WORKER_LIMIT".into()));
    assert!(echo.status().is_success(), "another function answers after: {}", echo.status());
    drop(app);
    let _ = std::fs::remove_dir_all(&root);
}

/// Counts the bytes and chunks of its request's body as they come.
const COUNTER: &str = r#"
Deno.serve(async (req) => {
  let bytes = 0, chunks = 0;
  for await (const chunk of req.body) { bytes += chunk.length; chunks += 1; }
  return Response.json({ bytes, chunks });
});
"#;

#[tokio::test]
async fn a_50_mb_upload_reaches_the_function_as_a_stream_it_counts() {
    let app = serve("", &[("functions/counter/index.ts", COUNTER)], |c| {
        c.functions.max_request_bytes = 64 * 1024 * 1024;
    })
    .await;
    let size = 50 * 1024 * 1024;

    let answer: Value = app
        .function(Method::POST, "counter")
        .body(vec![7u8; size])
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");

    assert_eq!(answer["bytes"], size);
    assert!(answer["chunks"].as_u64().is_some_and(|chunks| chunks > 1), "in chunks: {answer}");
}

#[tokio::test]
async fn a_chunked_upload_past_the_body_limit_is_cut_off_with_413() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = serve("", &[("functions/counter/index.ts", COUNTER)], |c| c.functions.max_request_bytes = 100_000).await;
    let address = app.address.trim_start_matches("http://").to_string();

    // A body without a length, sent in 10 KB chunks, 200 KB in all.
    let mut stream = tokio::net::TcpStream::connect(&address).await.expect("connect");
    let head = format!(
        "POST /functions/v1/counter HTTP/1.1\r\nhost: {address}\r\napikey: {key}\r\nauthorization: Bearer {key}\r\n\
         transfer-encoding: chunked\r\nconnection: close\r\n\r\n",
        key = app.anon_key
    );
    stream.write_all(head.as_bytes()).await.expect("head");
    let chunk = format!("2800\r\n{}\r\n", "x".repeat(10_240));
    for _ in 0..20 {
        // The server may answer and close before the whole body is sent.
        if stream.write_all(chunk.as_bytes()).await.is_err() {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;

    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("PAYLOAD_TOO_LARGE"), "{answer}");
}

#[tokio::test]
async fn the_caller_s_traceparent_reaches_the_function() {
    let source = r#"Deno.serve((req) => Response.json({ traceparent: req.headers.get("traceparent") }));"#;
    let app = serve("", &[("functions/trace/index.ts", source)], |_| {}).await;
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    let answer: Value = app
        .function(Method::GET, "trace")
        .header("traceparent", traceparent)
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");

    assert_eq!(answer["traceparent"], traceparent);
}
