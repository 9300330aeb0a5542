//! `/functions/v1` settings beyond the limits: the SMTP ports a function may not reach (25 and
//! 587, as Supabase refuses them), `config.toml`'s `[functions.<name>]` `import_map` and
//! `static_files`, a function's own `deno.json`, and the `[edge_runtime]` section.

use reqwest::Method;
use serde_json::Value;

use crate::functions::serve;

/// Tries ports 25 and 587 with `Deno.connect`, `node:net` and `fetch`, and the port in `?port=`
/// (this server's); answers how each went.
const MAILER: &str = r#"
import net from "node:net";
const how = async (attempt) => {
  try {
    const value = await attempt();
    if (value instanceof Response) await value.body?.cancel();
    else value?.close?.();
    return "connected";
  } catch (err) {
    return `${err?.name}: ${err?.message}`;
  }
};
const nodeConnect = (port, host) => new Promise((resolve, reject) => {
  const socket = net.connect(port, host);
  socket.on("connect", () => resolve({ close: () => socket.destroy() }));
  socket.on("error", reject);
});
Deno.serve(async (req) => {
  const open = Number(new URL(req.url).searchParams.get("port"));
  return Response.json({
    connect25: await how(() => Deno.connect({ hostname: "127.0.0.1", port: 25 })),
    tls587: await how(() => Deno.connectTls({ hostname: "localhost", port: 587 })),
    node587: await how(() => nodeConnect(587, "127.0.0.1")),
    fetch25: await how(() => fetch("http://127.0.0.1:25/")),
    connectOpen: await how(() => Deno.connect({ hostname: "127.0.0.1", port: open })),
    fetchOpen: await how(() => fetch(`http://127.0.0.1:${open}/health`)),
  });
});
"#;

#[tokio::test]
async fn a_function_cannot_connect_to_the_smtp_ports_25_and_587_but_reaches_other_ports() {
    let app = serve("[functions.mailer]\nverify_jwt = false\n", &[("functions/mailer/index.ts", MAILER)], |_| {}).await;
    let port = app.address.rsplit(':').next().expect("a port").to_string();

    let response = app.function(Method::GET, &format!("mailer?port={port}")).send().await.expect("request");

    assert_eq!(response.status().as_u16(), 200);
    let how: Value = response.json().await.expect("json");
    for attempt in ["connect25", "tls587", "node587"] {
        let outcome = how[attempt].as_str().unwrap_or_default();
        assert!(outcome.starts_with("NotCapable: "), "{attempt}: {outcome}");
    }
    assert!(how["connect25"].as_str().unwrap_or_default().contains("port 25 are not allowed"), "{how}");
    assert!(how["fetch25"].as_str().unwrap_or_default().contains("port 25 are blocked"), "{how}");
    assert_eq!((&how["connectOpen"], &how["fetchOpen"]), (&Value::from("connected"), &Value::from("connected")));
}

/// Imports `greet/greeting.ts` (a bare specifier its import map resolves) and reads a file beside
/// it and one its `static_files` name, by paths relative to its folder.
const MAPPED: &str = r#"
import { greeting } from "greet/greeting.ts";
Deno.serve(async () => Response.json({
  greeting,
  beside: (await Deno.readTextFile("./page.html")).trim(),
  template: (await Deno.readTextFile("../../templates/mail.html")).trim(),
}));
"#;

/// Imports `greet/greeting.ts` only.
const GREETS: &str = r#"
import { greeting } from "greet/greeting.ts";
Deno.serve(() => new Response(greeting));
"#;

#[tokio::test]
async fn a_function_s_deno_json_config_import_map_or_the_folder_s_import_map_resolves_its_imports() {
    let config = "[functions.own]\nverify_jwt = false\nstatic_files = [\"./templates/*.html\"]\n\
                  [functions.configured]\nverify_jwt = false\nimport_map = \"./import_map.json\"\n\
                  [functions.fallback]\nverify_jwt = false\n";
    let files = [
        ("functions/_shared/greeting.ts", "export const greeting = 'from _shared';"),
        ("functions/own/index.ts", MAPPED),
        ("functions/own/deno.json", r#"{ "imports": { "greet/": "../_shared/" } }"#),
        ("functions/own/page.html", "<p>beside</p>"),
        ("templates/mail.html", "<p>template</p>"),
        ("functions/configured/index.ts", GREETS),
        ("import_map.json", r#"{ "imports": { "greet/": "./functions/_shared/" } }"#),
        ("functions/fallback/index.ts", GREETS),
        ("functions/import_map.json", r#"{ "imports": { "greet/": "./_shared/" } }"#),
    ];
    let app = serve(config, &files, |_| {}).await;

    let own = app.function(Method::GET, "own").send().await.expect("request");
    let configured = app.function(Method::GET, "configured").send().await.expect("request");
    let fallback = app.function(Method::GET, "fallback").send().await.expect("request");

    assert_eq!(own.status().as_u16(), 200);
    let own: Value = own.json().await.expect("json");
    assert_eq!(
        own,
        serde_json::json!({ "greeting": "from _shared", "beside": "<p>beside</p>", "template": "<p>template</p>" })
    );
    assert_eq!((configured.status().as_u16(), configured.text().await.expect("text")), (200, "from _shared".into()));
    assert_eq!((fallback.status().as_u16(), fallback.text().await.expect("text")), (200, "from _shared".into()));
}

#[tokio::test]
async fn a_function_cannot_read_a_file_outside_its_folders_that_static_files_does_not_name() {
    // Outside /tmp, which every function may read: the project folder is guarded.
    let config = "[functions.reader]\nverify_jwt = false\nstatic_files = [\"./templates/mail.html\"]\n";
    let reader = r#"
const read = async (path) => { try { return (await Deno.readTextFile(path)).trim(); } catch (err) { return err.name; } };
Deno.serve(async () => Response.json({
  named: await read("../../templates/mail.html"),
  unnamed: await read("../../templates/other.html"),
}));
"#;
    let files = [
        ("functions/reader/index.ts", reader),
        ("templates/mail.html", "<p>named</p>"),
        ("templates/other.html", "<p>not named</p>"),
    ];
    let root =
        std::path::Path::new("/var/tmp").join(format!("functions-static-{}", &server::keys::random_secret()[..12]));
    std::fs::create_dir_all(&root).expect("a folder");
    let (project, data) = (root.join("project"), root.join("data"));
    std::fs::rename(crate::functions::project(config, &files), &project).expect("move the project out of /tmp");
    let dir = project.clone();
    let app = crate::helpers::spawn_app_with(move |c| {
        c.project = Some(dir);
        c.data_dir = data;
        c.functions.deno_bin = crate::functions::deno();
    })
    .await;

    let how: Value = app.function(Method::GET, "reader").send().await.expect("request").json().await.expect("json");

    assert_eq!(how, serde_json::json!({ "named": "<p>named</p>", "unnamed": "NotCapable" }));
    let _ = std::fs::remove_dir_all(&root);
}

/// Counts its calls (module state) and tells one variable.
const COUNTER: &str = r#"
let calls = 0;
Deno.serve(() => Response.json({ calls: ++calls, secret: Deno.env.get("API_KEY") ?? null }));
"#;

#[tokio::test]
async fn under_the_oneshot_policy_each_request_gets_a_fresh_worker_and_edge_runtime_secrets_reach_functions() {
    let config = "[edge_runtime]\npolicy = \"oneshot\"\n[edge_runtime.secrets]\nAPI_KEY = \"from-config\"\n\
                  [functions.counter]\nverify_jwt = false\n";
    let app = serve(config, &[("functions/counter/index.ts", COUNTER)], |_| {}).await;

    let mut seen = Vec::new();
    for _ in 0..3 {
        let answer: Value =
            app.function(Method::GET, "counter").send().await.expect("request").json().await.expect("json");
        seen.push(answer);
    }

    let once = serde_json::json!({ "calls": 1, "secret": "from-config" });
    assert_eq!(seen, vec![once.clone(), once.clone(), once]);
}

#[tokio::test]
async fn with_edge_runtime_disabled_no_function_is_served_and_no_deno_starts() {
    let config = "[edge_runtime]\nenabled = false\n[functions.counter]\nverify_jwt = false\n";
    let app = serve(config, &[("functions/counter/index.ts", COUNTER)], |_| {}).await;

    let response = app.function(Method::GET, "counter").send().await.expect("request");

    assert_eq!(response.status().as_u16(), 404);
    assert_eq!(response.text().await.expect("text"), "Function not found");
    let health: Value =
        app.http.get(format!("{}/health", app.address)).send().await.expect("health").json().await.expect("json");
    assert_eq!(health["functions"], Value::Null, "{health}");
}

#[tokio::test]
async fn a_refused_token_is_a_relay_error() {
    let app = serve("", &[("functions/counter/index.ts", COUNTER)], |_| {}).await;

    let refused = app
        .http
        .post(format!("{}/functions/v1/counter", app.address))
        .bearer_auth("not-a-jwt")
        .send()
        .await
        .expect("request");

    assert_eq!(refused.status().as_u16(), 401);
    assert_eq!(refused.headers().get("x-relay-error").and_then(|v| v.to_str().ok()), Some("true"));
}
