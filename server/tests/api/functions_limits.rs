//! `/functions/v1` limits: a function held past one of them gets Supabase's answer for it, while
//! the other functions keep answering.

use serde_json::Value;

use crate::functions::{serve, ECHO, HANGS_WHEN_ASKED};

#[tokio::test]
async fn a_function_silent_past_its_request_idle_timeout_answers_504_while_others_answer() {
    let config = "[functions.stalls]\nrequest_idle_timeout_secs = 1\n";
    let app =
        serve(config, &[("functions/stalls/index.ts", HANGS_WHEN_ASKED), ("functions/echo/index.ts", ECHO)], |c| {
            c.functions.wall_clock_secs = 120;
        })
        .await;

    let hanging = app.function(reqwest::Method::GET, "stalls?hang").send();
    let (hung, other) = tokio::join!(hanging, app.function(reqwest::Method::GET, "echo").send());

    let other = other.expect("request");
    assert_eq!(other.status().as_u16(), 201, "another function answers meanwhile");
    let hung = hung.expect("request");
    assert_eq!(hung.status().as_u16(), 504);
    assert_eq!(hung.json::<Value>().await.expect("json")["code"], "REQUEST_IDLE_TIMEOUT");
    // Only the request was given up: the function's worker and its module state live on.
    let next: Value =
        app.function(reqwest::Method::GET, "stalls").send().await.expect("request").json().await.expect("json");
    assert_eq!(next["calls"], 2);
}
