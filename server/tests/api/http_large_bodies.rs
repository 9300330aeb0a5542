//! Large request and response bodies through the HTTP layer. actix-http is patched
//! (`server/vendor/README.md`): request bodies are read in 128 KiB steps, response chunks of
//! 32 KiB and more are written from their own memory instead of through the write buffer, and a
//! stored file's download goes from the file to the socket by `sendfile`. These tests hold those
//! paths to byte-exact results, with a reader slower than the server (so that a chunk or a file
//! region is left half written and resumed), `HEAD`, a range, and the kept-alive connection
//! reused after each response (a body one byte too long or too short would break the next one).

use std::sync::atomic::Ordering;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::spawn_app;
use crate::storage::{create_bucket, service};

/// Bytes without a short period, so that a chunk written twice, skipped or out of order shows.
fn pseudo_random_bytes(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// The whole body of `res`, read with a pause of 25 ms after each of the first 12 reads, so that
/// the server finds the socket full part-way through what it writes.
async fn read_slowly(mut res: reqwest::Response) -> Vec<u8> {
    let mut body = Vec::new();
    let mut reads = 0;
    while let Some(chunk) = res.chunk().await.expect("chunk") {
        body.extend_from_slice(&chunk);
        reads += 1;
        if reads <= 12 {
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
    body
}

#[tokio::test]
async fn a_large_object_goes_up_and_down_byte_for_byte_even_to_a_slow_reader() {
    // Arrange: 24 MiB, more than loopback's socket buffers hold, so a stalled reader makes the
    // server's writes wait part-way through a chunk.
    let app = spawn_app().await;
    create_bucket(&app, json!({"name": "big"})).await;
    let big = pseudo_random_bytes(24 * 1024 * 1024);

    // Act and assert: the upload streams through the larger read buffer.
    let res = service(&app, Method::POST, "/object/big/blob.bin")
        .header("content-type", "application/octet-stream")
        .body(big.clone())
        .send()
        .await
        .expect("upload");
    assert_eq!(res.status(), StatusCode::OK, "{}", res.text().await.expect("body"));

    let res = service(&app, Method::GET, "/object/big/blob.bin").send().await.expect("download");
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.content_length(), Some(big.len() as u64));
    let got = res.bytes().await.expect("body");
    assert!(got.as_ref() == big.as_slice(), "the download is the upload, byte for byte");

    let res = service(&app, Method::GET, "/object/big/blob.bin").send().await.expect("download");
    let slow = read_slowly(res).await;
    assert!(slow == big, "a reader slower than the server gets every byte once, in order");

    let res = service(&app, Method::HEAD, "/object/big/blob.bin").send().await.expect("head");
    assert_eq!(res.status(), StatusCode::OK);
    let announced = res.headers().get("content-length").and_then(|v| v.to_str().ok()).map(str::to_string);
    assert_eq!(announced, Some(big.len().to_string()), "HEAD announces the length");
    assert!(res.bytes().await.expect("body").is_empty(), "and sends no body");

    let res = service(&app, Method::GET, "/object/big/blob.bin")
        .header("range", "bytes=1000000-2999999")
        .send()
        .await
        .expect("range");
    assert_eq!(res.status(), StatusCode::PARTIAL_CONTENT);
    let part = res.bytes().await.expect("body");
    assert!(part.as_ref() == &big[1_000_000..3_000_000], "the range is those bytes");

    // Every downloaded byte left by sendfile: two whole downloads and the range, none read into memory.
    let downloads = &app.storage.downloads;
    assert_eq!(downloads.sendfile.load(Ordering::Relaxed), 2 * big.len() as u64 + 2_000_000, "sent by sendfile");
    assert_eq!(downloads.streamed.load(Ordering::Relaxed), 0, "nothing read into memory and written");

    // The same pooled connection serves a small request after all of that.
    let res = service(&app, Method::GET, "/bucket/big").send().await.expect("bucket");
    assert_eq!(res.status(), StatusCode::OK);
    let bucket: serde_json::Value = res.json().await.expect("json");
    assert_eq!(bucket["id"], "big");
}

#[tokio::test]
async fn a_large_rest_response_is_whole_and_the_connection_serves_the_next_one() {
    // Arrange: the OpenAPI document, one response body well past the 32 KiB from which a chunk
    // skips the write buffer.
    let app = spawn_app().await;
    let get = || app.http.get(format!("{}/rest/v1/", app.address)).header("apikey", &app.anon_key);

    // Act
    let first = get().send().await.expect("openapi");
    assert_eq!(first.status(), StatusCode::OK);
    let first = first.bytes().await.expect("body");
    let second = get().send().await.expect("openapi again").bytes().await.expect("body");

    // Assert
    assert!(first.len() > 64 * 1024, "the premise: a large body ({} bytes)", first.len());
    let doc: serde_json::Value = serde_json::from_slice(&first).expect("whole JSON");
    assert!(doc["paths"].as_object().is_some_and(|p| !p.is_empty()), "a document with paths");
    assert_eq!(first, second, "the kept-alive connection answers the next request whole");
}

#[tokio::test]
async fn a_large_rest_response_read_slowly_is_whole_and_the_connection_serves_the_next_one() {
    // Arrange: about 20 MB of JSON in one response, far more than loopback's socket buffers, so
    // that a reader that stalls leaves the server's large chunk half written.
    let app = spawn_app().await;
    app.ddl(
        "create function public.padded(n int) returns setof text language sql stable as
           $$ select lpad(i::text, 500, 'x') from generate_series(1, n) i $$;",
    )
    .await;
    let rows = 40_000;
    let call = || app.rest_req(Method::GET, &format!("/rpc/padded?n={rows}"), None);

    // Act: one read as fast as it comes, one with pauses, then a small request on the same connection.
    let fast = call().send().await.expect("rpc");
    assert_eq!(fast.status(), StatusCode::OK);
    let fast = fast.bytes().await.expect("body");
    let slow = read_slowly(call().send().await.expect("rpc again")).await;
    let next = app.rest_req(Method::GET, "/rpc/padded?n=1", None).send().await.expect("a small one");
    let next = next.bytes().await.expect("body");

    // Assert
    let values: Vec<String> = serde_json::from_slice(&fast).expect("whole JSON");
    assert_eq!(values.len(), rows, "every row");
    assert!(values.iter().enumerate().all(|(i, v)| *v == format!("{:x>500}", i + 1)), "each row in order, intact");
    assert!(slow == fast.as_ref(), "a reader slower than the server gets the same bytes");
    let first: Vec<String> = serde_json::from_slice(&next).expect("JSON");
    assert!(first == [format!("{:x>500}", 1)], "the kept-alive connection answers the next request whole");
}
