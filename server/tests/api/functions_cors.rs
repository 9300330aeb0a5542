//! CORS belongs to the function, as on Supabase's edge-runtime: a browser's preflight to
//! `/functions/v1/<name>` reaches the function (no JWT asked), which answers it with its own
//! status and `Access-Control-*` headers, untouched by the server's CORS layer; a function that
//! does not answer `OPTIONS` specially gives its usual answer. Other surfaces keep the server's.

use reqwest::Method;
use serde_json::Value;

use crate::functions::serve;

/// Answers a preflight with its own list, age and status; anything else with JSON and its origin.
const OWN_CORS: &str = r#"
const cors = { "Access-Control-Allow-Origin": "https://shop.example", "Access-Control-Allow-Headers": "x-custom" };
Deno.serve((req) => {
  if (req.method === "OPTIONS") {
    return new Response(null, { status: 204, headers: { ...cors, "Access-Control-Max-Age": "7" } });
  }
  return Response.json({ method: req.method }, { headers: cors });
});
"#;

/// Knows nothing of CORS: every method gets the same answer, without any `Access-Control-*`.
const NO_CORS: &str = r#"
Deno.serve((req) => Response.json({ method: req.method }, { status: 202, headers: { "x-plain": "yes" } }));
"#;

async fn preflight(app: &crate::helpers::TestApp, path: &str) -> reqwest::Response {
    app.http
        .request(Method::OPTIONS, format!("{}{path}", app.address))
        .header("Origin", "https://elsewhere.example")
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "authorization, x-client-info, apikey, content-type")
        .send()
        .await
        .expect("preflight")
}

fn access_control(response: &reqwest::Response) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .filter(|(name, _)| name.as_str().starts_with("access-control-"))
        .map(|(name, value)| (name.to_string(), value.to_str().unwrap_or_default().to_string()))
        .collect();
    headers.sort();
    headers
}

#[tokio::test]
async fn a_preflight_to_a_function_gets_exactly_the_functions_own_answer() {
    let app = serve("", &[("functions/own-cors/index.ts", OWN_CORS)], |_| {}).await;

    let response = preflight(&app, "/functions/v1/own-cors").await;

    assert_eq!(response.status().as_u16(), 204);
    assert_eq!(
        access_control(&response),
        vec![
            ("access-control-allow-headers".to_string(), "x-custom".to_string()),
            ("access-control-allow-origin".to_string(), "https://shop.example".to_string()),
            ("access-control-max-age".to_string(), "7".to_string()),
        ]
    );
}

#[tokio::test]
async fn a_functions_cors_headers_on_other_answers_are_neither_doubled_nor_overridden() {
    let app = serve("", &[("functions/own-cors/index.ts", OWN_CORS)], |_| {}).await;

    let response = app
        .function(Method::POST, "own-cors/sub/path")
        .header("Origin", "https://elsewhere.example")
        .send()
        .await
        .expect("request");

    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(
        access_control(&response),
        vec![
            ("access-control-allow-headers".to_string(), "x-custom".to_string()),
            ("access-control-allow-origin".to_string(), "https://shop.example".to_string()),
        ]
    );
}

#[tokio::test]
async fn a_function_that_does_not_answer_options_gives_its_own_answer_to_a_preflight() {
    let app = serve("", &[("functions/no-cors/index.ts", NO_CORS)], |_| {}).await;

    let response = preflight(&app, "/functions/v1/no-cors").await;

    assert_eq!(response.status().as_u16(), 202);
    assert_eq!(response.headers().get("x-plain").and_then(|v| v.to_str().ok()), Some("yes"));
    assert_eq!(access_control(&response), vec![]);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["method"], "OPTIONS");
}

#[tokio::test]
async fn other_surfaces_keep_the_servers_cors_while_functions_answer_their_own() {
    let app = serve("", &[("functions/no-cors/index.ts", NO_CORS)], |_| {}).await;

    let rest = preflight(&app, "/rest/v1/").await;
    let unknown = preflight(&app, "/functions/v1/no-such-function").await;

    assert!(rest.status().is_success(), "{}", rest.status());
    assert_eq!(rest.headers().get("access-control-allow-origin").and_then(|v| v.to_str().ok()), Some("*"));
    let allowed = rest.headers()["access-control-allow-headers"].to_str().unwrap_or_default().to_lowercase();
    assert!(allowed.contains("x-client-info"), "{allowed}");
    // No function answers there, and nothing in front of functions answers for one.
    assert_eq!(unknown.status().as_u16(), 404);
    assert_eq!(access_control(&unknown), vec![]);
}
