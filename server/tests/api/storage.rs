//! `/storage/v1` over HTTP against the real server and database: buckets, uploads and downloads,
//! RLS policies written for Supabase, public and signed URLs, limits and error shapes.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{spawn_app, spawn_app_with, TestApp};

const ALICE: &str = "11111111-1111-4111-8111-111111111111";
const BOB: &str = "22222222-2222-4222-8222-222222222222";

fn url(app: &TestApp, path: &str) -> String {
    format!("{}/storage/v1{}", app.address, path)
}

/// A storage request with the anon key and the given bearer.
fn req(app: &TestApp, method: Method, path: &str, bearer: Option<&str>) -> reqwest::RequestBuilder {
    let mut r = app.http.request(method, url(app, path)).header("apikey", &app.anon_key);
    if let Some(token) = bearer {
        r = r.bearer_auth(token);
    }
    r
}

pub(crate) fn service(app: &TestApp, method: Method, path: &str) -> reqwest::RequestBuilder {
    let key = app.service_key.clone();
    req(app, method, path, Some(&key))
}

pub(crate) async fn create_bucket(app: &TestApp, body: Value) {
    let res = service(app, Method::POST, "/bucket").json(&body).send().await.expect("create bucket");
    assert_eq!(res.status(), StatusCode::OK, "{}", res.text().await.expect("body"));
}

async fn upload(
    app: &TestApp,
    path: &str,
    bytes: &'static [u8],
    mime: &str,
    bearer: Option<&str>,
) -> reqwest::Response {
    let token = bearer.map(str::to_string).unwrap_or_else(|| app.service_key.clone());
    req(app, Method::POST, &format!("/object/{path}"), Some(&token))
        .header("content-type", mime)
        .body(bytes)
        .send()
        .await
        .expect("upload")
}

/// `DELETE /object/{bucket}` with `{prefixes}` and the service key: the rows removed.
async fn remove(app: &TestApp, bucket: &str, prefixes: Value) -> Vec<Value> {
    let res = service(app, Method::DELETE, &format!("/object/{bucket}")).json(&json!({"prefixes": prefixes}));
    let removed: Value = res.send().await.expect("remove").json().await.expect("json");
    removed.as_array().expect("an array of rows").clone()
}

#[tokio::test]
async fn buckets_can_be_created_read_updated_and_deleted_with_the_service_key() {
    let app = spawn_app().await;
    create_bucket(&app, json!({"id": "photos", "name": "photos", "public": true, "file_size_limit": "1MB"})).await;

    let list: Value = service(&app, Method::GET, "/bucket").send().await.unwrap().json().await.unwrap();
    assert_eq!(list[0]["id"], "photos");
    assert_eq!(list[0]["public"], true);
    assert_eq!(list[0]["file_size_limit"], 1_000_000, "decimal units, as storage-api reads them");

    let res = service(&app, Method::PUT, "/bucket/photos")
        .json(&json!({"public": false, "allowed_mime_types": ["image/*"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let one: Value = service(&app, Method::GET, "/bucket/photos").send().await.unwrap().json().await.unwrap();
    assert_eq!(one["public"], false);
    assert_eq!(one["allowed_mime_types"], json!(["image/*"]));
    assert_eq!(one["file_size_limit"], 1_000_000, "absent keys keep their value");

    let dup = service(&app, Method::POST, "/bucket").json(&json!({"name": "photos"})).send().await.unwrap();
    assert_eq!(dup.status(), StatusCode::BAD_REQUEST);
    let body: Value = dup.json().await.unwrap();
    assert_eq!(body["statusCode"], "409");
    assert_eq!(body["error"], "Duplicate");

    let res = service(&app, Method::DELETE, "/bucket/photos").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let gone: Value = service(&app, Method::GET, "/bucket/photos").send().await.unwrap().json().await.unwrap();
    assert_eq!(
        gone,
        json!({"statusCode": "404", "code": "NoSuchBucket", "error": "Bucket not found", "message": "Bucket not found"})
    );
}

#[tokio::test]
async fn an_uploaded_object_downloads_with_its_headers_ranges_and_etag() {
    let app = spawn_app().await;
    create_bucket(&app, json!({"name": "docs"})).await;
    let res = req(&app, Method::POST, "/object/docs/dir/hello.txt", Some(&app.service_key.clone()))
        .header("content-type", "text/plain")
        .header("cache-control", "max-age=60")
        .body("hello world")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["Key"], "docs/dir/hello.txt");
    assert!(body["Id"].is_string());

    let res = service(&app, Method::GET, "/object/docs/dir/hello.txt").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "text/plain");
    assert_eq!(res.headers()["cache-control"], "max-age=60");
    let etag = res.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(etag, "\"5eb63bbbe01eeed093cb22bb8f5acdc3\"", "md5 of the bytes");
    assert_eq!(res.text().await.unwrap(), "hello world");

    let res =
        service(&app, Method::GET, "/object/docs/dir/hello.txt").header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);

    let res = service(&app, Method::GET, "/object/authenticated/docs/dir/hello.txt")
        .header("range", "bytes=6-")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::PARTIAL_CONTENT);
    assert_eq!(res.headers()["content-range"], "bytes 6-10/11");
    assert_eq!(res.text().await.unwrap(), "world");

    let res = service(&app, Method::HEAD, "/object/docs/dir/hello.txt").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-length"], "11");

    let res = service(&app, Method::GET, "/object/docs/dir/hello.txt?download=greeting.txt").send().await.unwrap();
    assert!(res.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .starts_with("attachment; filename=\"greeting.txt\""));

    let info: Value =
        service(&app, Method::GET, "/object/info/docs/dir/hello.txt").send().await.unwrap().json().await.unwrap();
    assert_eq!(info["size"], 11);
    assert_eq!(info["content_type"], "text/plain");
}

#[tokio::test]
async fn a_second_upload_is_a_duplicate_unless_upsert_is_asked() {
    let app = spawn_app().await;
    create_bucket(&app, json!({"name": "b"})).await;
    assert_eq!(upload(&app, "b/a.txt", b"one", "text/plain", None).await.status(), StatusCode::OK);
    let res = upload(&app, "b/a.txt", b"two", "text/plain", None).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["statusCode"], "409");
    assert_eq!(body["message"], "The resource already exists");

    let res =
        service(&app, Method::POST, "/object/b/a.txt").header("x-upsert", "true").body("three").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let got = service(&app, Method::GET, "/object/b/a.txt").send().await.unwrap().text().await.unwrap();
    assert_eq!(got, "three");
}

#[tokio::test]
async fn a_supabase_folder_policy_lets_each_user_write_only_their_folder() {
    let app = spawn_app().await;
    create_bucket(&app, json!({"name": "private"})).await;
    app.admin_sql(
        "create policy own_insert on storage.objects for insert to authenticated \
           with check (bucket_id = 'private' and (storage.foldername(name))[1] = auth.uid()::text); \
         create policy own_select on storage.objects for select to authenticated \
           using (bucket_id = 'private' and (storage.foldername(name))[1] = auth.uid()::text);",
    )
    .await;
    let alice = app.user_token(ALICE);
    let bob = app.user_token(BOB);

    let res = upload(&app, &format!("private/{ALICE}/a.txt"), b"alice", "text/plain", Some(&alice)).await;
    assert_eq!(res.status(), StatusCode::OK, "{}", res.text().await.unwrap());

    let res = upload(&app, &format!("private/{ALICE}/b.txt"), b"bob", "text/plain", Some(&bob)).await;
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["statusCode"], "403");
    assert_eq!(body["message"], "new row violates row-level security policy");

    let path = format!("/object/private/{ALICE}/a.txt");
    let res = req(&app, Method::GET, &path, Some(&bob)).send().await.unwrap();
    assert_eq!(res.json::<Value>().await.unwrap()["statusCode"], "404");
    let res = req(&app, Method::GET, &path, None).send().await.unwrap();
    assert_eq!(res.json::<Value>().await.unwrap()["statusCode"], "404");
    let res = req(&app, Method::GET, &path, Some(&alice)).send().await.unwrap();
    assert_eq!(res.text().await.unwrap(), "alice");
}

#[tokio::test]
async fn public_objects_need_no_key_and_private_ones_are_not_public() {
    let app = spawn_app().await;
    create_bucket(&app, json!({"name": "pub", "public": true})).await;
    create_bucket(&app, json!({"name": "priv"})).await;
    upload(&app, "pub/été/logo.svg", b"<svg/>", "image/svg+xml", None).await;
    upload(&app, "priv/x.txt", b"secret", "text/plain", None).await;

    let res = app.http.get(url(&app, "/object/public/pub/%C3%A9t%C3%A9/logo.svg")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "image/svg+xml");
    assert_eq!(res.text().await.unwrap(), "<svg/>");

    let res = app.http.get(url(&app, "/object/public/priv/x.txt")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert_eq!(res.json::<Value>().await.unwrap()["message"], "Bucket not found");

    // other routes need credentials: without any, storage-api's own refusal of the empty JWT
    let res = app.http.get(url(&app, "/object/priv/x.txt")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST, "other routes stay behind the gate");
    let body: Value = res.json().await.unwrap();
    assert_eq!((body["statusCode"].as_str(), body["message"].as_str()), (Some("403"), Some("Invalid Compact JWS")));
}

#[tokio::test]
async fn signed_urls_work_until_they_expire_and_refuse_tampering() {
    let app = spawn_app().await;
    create_bucket(&app, json!({"name": "s"})).await;
    upload(&app, "s/f.txt", b"signed bytes", "text/plain", None).await;
    let signed: Value = service(&app, Method::POST, "/object/sign/s/f.txt")
        .json(&json!({"expiresIn": 60}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let signed_url = signed["signedURL"].as_str().unwrap().to_string();
    assert!(signed_url.starts_with("/object/sign/s/f.txt?token="));
    let res = app.http.get(url(&app, &signed_url)).send().await.unwrap();
    assert_eq!(res.text().await.unwrap(), "signed bytes");

    let tampered = format!("{}x", signed_url);
    let res = app.http.get(url(&app, &tampered)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);

    let other = signed_url.replace("/s/f.txt", "/s/g.txt");
    let res = app.http.get(url(&app, &other)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);

    let expired = app.sign(json!({"url": "s/f.txt", "iat": 1, "exp": 2}));
    let res = app.http.get(url(&app, &format!("/object/sign/s/f.txt?token={expired}"))).send().await.unwrap();
    assert_eq!(res.json::<Value>().await.unwrap()["message"], "jwt expired");

    let many: Value = service(&app, Method::POST, "/object/sign/s")
        .json(&json!({"expiresIn": 60, "paths": ["f.txt", "missing.txt"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(many[0]["signedURL"].is_string());
    assert!(many[1]["signedURL"].is_null());
}

#[tokio::test]
async fn signed_upload_urls_upload_without_a_key() {
    let app = spawn_app().await;
    create_bucket(&app, json!({"name": "up"})).await;
    let signed: Value =
        service(&app, Method::POST, "/object/upload/sign/up/new.txt").send().await.unwrap().json().await.unwrap();
    let path = signed["url"].as_str().unwrap().to_string();
    let res =
        app.http.put(url(&app, &path)).header("content-type", "text/plain").body("via token").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "{}", res.text().await.unwrap());
    let got = service(&app, Method::GET, "/object/up/new.txt").send().await.unwrap().text().await.unwrap();
    assert_eq!(got, "via token");
}

#[tokio::test]
async fn bucket_size_and_mime_limits_refuse_uploads_and_leave_no_bytes() {
    let (app, dir) = app_with_files("limits").await;
    create_bucket(&app, json!({"name": "lim", "file_size_limit": 10, "allowed_mime_types": ["image/*"]})).await;

    let res = upload(&app, "lim/big.png", b"0123456789abcdef", "image/png", None).await;
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["statusCode"], "413");

    let res = upload(&app, "lim/page.html", b"<p>", "text/html", None).await;
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["statusCode"], "415");
    assert_eq!(body["error"], "invalid_mime_type");

    assert_eq!(upload(&app, "lim/ok.png", b"png", "image/png", None).await.status(), StatusCode::OK);
    let stored: Vec<_> = walk(&dir);
    assert_eq!(stored.len(), 1, "only the accepted upload has bytes: {stored:?}");
}

/// An app whose file backend keeps its objects in a new directory of its own (named after
/// `name`), so that a test can see every file an upload leaves; the app and the directory.
async fn app_with_files(name: &str) -> (TestApp, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("storage-{name}-{}", uuid::Uuid::new_v4()));
    let files = dir.clone();
    (spawn_app_with(move |c| c.storage.file_path = Some(files)).await, dir)
}

/// Every file under `dir`, recursively (none when it does not exist).
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[tokio::test]
async fn keys_with_dot_segments_or_control_characters_are_invalid() {
    let app = spawn_app().await;
    create_bucket(&app, json!({"name": "k"})).await;
    for path in ["/object/k/a/..%2Fb", "/object/k/a%00b", "/object/k/a//b"] {
        let res = service(&app, Method::POST, path).body("x").send().await.unwrap();
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["statusCode"], "400", "{path}");
        assert_eq!(body["code"], "InvalidKey", "{path}");
    }
}

#[tokio::test]
async fn a_bucket_name_with_a_nul_byte_is_a_client_error_everywhere() {
    let app = spawn_app().await;
    let attempts = [
        (Method::GET, "/bucket/a%00b"),
        (Method::DELETE, "/bucket/a%00b"),
        (Method::POST, "/bucket/a%00b/empty"),
        (Method::POST, "/object/list/a%00b"),
        (Method::GET, "/object/a%00b/x.txt"),
        (Method::GET, "/object/public/a%00b/x.txt"),
        (Method::POST, "/object/a%00b/x.txt"),
        (Method::POST, "/object/sign/a%00b/x.txt"),
    ];
    for (method, path) in attempts {
        let res = service(&app, method.clone(), path).json(&json!({"expiresIn": 60})).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{method} {path}");
        let body: Value = res.json().await.unwrap();
        assert!(["400", "404"].contains(&body["statusCode"].as_str().unwrap_or("")), "{method} {path}: {body}");
    }
}

#[tokio::test]
async fn list_shows_folders_then_move_copy_and_remove_change_it() {
    let app = spawn_app().await;
    create_bucket(&app, json!({"name": "l"})).await;
    for path in ["l/top.txt", "l/dir/a.txt", "l/dir/b.txt", "l/dir/sub/c.txt"] {
        upload(&app, path, b"x", "text/plain", None).await;
    }
    let list = |prefix: &'static str| {
        let app = &app;
        async move {
            service(app, Method::POST, "/object/list/l")
                .json(
                    &json!({"prefix": prefix, "limit": 100, "offset": 0, "sortBy": {"column": "name", "order": "asc"}}),
                )
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        }
    };
    let root = list("").await;
    let names: Vec<_> = root.as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap().to_string()).collect();
    assert_eq!(names, ["dir", "top.txt"]);
    assert!(root[0]["id"].is_null());
    assert!(root[1]["id"].is_string());
    assert_eq!(list("dir").await.as_array().unwrap().len(), 3);

    let res = service(&app, Method::POST, "/object/move")
        .json(&json!({"bucketId": "l", "sourceKey": "top.txt", "destinationKey": "dir/top.txt"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let res = service(&app, Method::POST, "/object/copy")
        .json(&json!({"bucketId": "l", "sourceKey": "dir/top.txt", "destinationKey": "copy.txt"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.json::<Value>().await.unwrap()["Key"], "l/copy.txt");
    assert_eq!(service(&app, Method::GET, "/object/l/copy.txt").send().await.unwrap().text().await.unwrap(), "x");

    assert_eq!(remove(&app, "l", json!(["copy.txt", "dir/a.txt", "nope"])).await.len(), 2);
    let res = service(&app, Method::DELETE, "/bucket/l").send().await.unwrap();
    assert_eq!(res.json::<Value>().await.unwrap()["statusCode"], "409");
    assert_eq!(service(&app, Method::POST, "/bucket/l/empty").send().await.unwrap().status(), StatusCode::OK);
    assert_eq!(service(&app, Method::DELETE, "/bucket/l").send().await.unwrap().status(), StatusCode::OK);
}

#[tokio::test]
async fn an_interrupted_upload_leaves_neither_bytes_nor_a_row() {
    use tokio::io::AsyncWriteExt;
    let (app, dir) = app_with_files("cut").await;
    create_bucket(&app, json!({"name": "cut"})).await;

    // A body announced as 20 MB, cut after 6 MB (past the first streamed part).
    let host = app.address.trim_start_matches("http://").to_string();
    let mut socket = tokio::net::TcpStream::connect(&host).await.unwrap();
    let head = format!(
        "POST /storage/v1/object/cut/big.bin HTTP/1.1\r\nHost: {host}\r\napikey: {key}\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/octet-stream\r\nContent-Length: {}\r\n\r\n",
        20 * 1024 * 1024,
        key = app.service_key
    );
    socket.write_all(head.as_bytes()).await.unwrap();
    let chunk = vec![7u8; 1024 * 1024];
    for _ in 0..6 {
        socket.write_all(&chunk).await.unwrap();
    }
    socket.shutdown().await.unwrap();
    drop(socket);
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;

    let res = service(&app, Method::GET, "/object/cut/big.bin").send().await.unwrap();
    assert_eq!(res.json::<Value>().await.unwrap()["statusCode"], "404");
    assert_eq!(walk(&dir), Vec::<std::path::PathBuf>::new());
}

#[tokio::test]
async fn a_row_refused_after_the_bytes_are_stored_deletes_the_bytes() {
    let (app, dir) = app_with_files("refused").await;
    create_bucket(&app, json!({"name": "tiny"})).await;
    // The trial write of a multipart upload does not know the size yet; the real write does.
    app.admin_sql(
        "create policy small_only on storage.objects for insert to authenticated \
           with check (bucket_id = 'tiny' and coalesce((metadata->>'size')::int, 0) < 5)",
    )
    .await;
    let token = app.user_token(ALICE);
    let form = reqwest::multipart::Form::new().text("cacheControl", "60").part(
        "",
        reqwest::multipart::Part::bytes(b"0123456789".to_vec()).file_name("f.txt").mime_str("text/plain").unwrap(),
    );
    let res = req(&app, Method::POST, "/object/tiny/f.txt", Some(&token)).multipart(form).send().await.unwrap();
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["statusCode"], "403", "{body}");
    assert_eq!(walk(&dir), Vec::<std::path::PathBuf>::new());
}

#[tokio::test]
async fn a_duplicate_refused_after_its_bytes_are_stored_deletes_them_and_keeps_the_first() {
    let (app, dir) = app_with_files("duplicate").await;
    create_bucket(&app, json!({"name": "dup"})).await;
    // A small body (declared length) is stored before its row is tried, in one round trip.
    assert_eq!(upload(&app, "dup/a.txt", b"one", "text/plain", None).await.status(), StatusCode::OK);
    let first = walk(&dir);
    assert_eq!(first.len(), 1, "{first:?}");

    let body: Value = upload(&app, "dup/a.txt", b"two", "text/plain", None).await.json().await.unwrap();
    assert_eq!((body["statusCode"].as_str(), body["error"].as_str()), (Some("409"), Some("Duplicate")), "{body}");
    assert_eq!(walk(&dir), first, "the refused upload's bytes are removed, the first object's kept");
    let got = service(&app, Method::GET, "/object/dup/a.txt").send().await.unwrap().text().await.unwrap();
    assert_eq!(got, "one");
    // The refusal rolled its transaction back: the pool's connections take the next uploads.
    for n in 0..4 {
        let res = upload(&app, &format!("dup/next-{n}.txt"), b"next", "text/plain", None).await;
        assert_eq!(res.status(), StatusCode::OK, "{}", res.text().await.unwrap());
    }
    assert_eq!(walk(&dir).len(), 5);
}

/// moto's S3 server on a free port; stopped when dropped.
struct Moto {
    _child: crate::helpers::KillOnDrop,
    endpoint: String,
}

async fn moto() -> Moto {
    let port = crate::helpers::free_port();
    let moto = Moto { _child: crate::helpers::moto_server(port), endpoint: format!("http://127.0.0.1:{port}") };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while reqwest::get(format!("{}/", moto.endpoint)).await.is_err() {
        assert!(std::time::Instant::now() < deadline, "moto_server did not start");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    moto
}

/// A PNG of `w` x `h`.
fn png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, 99]));
    let mut out = Vec::new();
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .expect("encode a png");
    out
}

/// The `s3` backend against moto (an S3-compatible server from PyPI): multipart uploads of a
/// large body, ranges, copies, deletes, resumable uploads (chunks as objects, listed and removed)
/// and image transformations (renders kept in the store).
#[tokio::test]
async fn the_s3_backend_streams_copies_resumes_renders_and_deletes() {
    let moto = moto().await;
    let endpoint = moto.endpoint.clone();
    let s3_bucket = format!("test-{}", uuid::Uuid::new_v4().simple());
    let res = reqwest::Client::new().put(format!("{endpoint}/{s3_bucket}")).send().await.unwrap();
    assert!(res.status().is_success(), "create the S3 bucket: {}", res.status());
    let (endpoint_cfg, bucket_cfg) = (endpoint.clone(), s3_bucket.clone());
    let app = spawn_app_with(move |c| {
        c.storage.backend = "s3".into();
        c.storage.s3_bucket = Some(bucket_cfg);
        c.storage.s3_endpoint = Some(endpoint_cfg);
        c.storage.s3_force_path_style = true;
        c.storage.access_key_id = Some("test".into());
        c.storage.secret_access_key = Some("test".to_string().into());
    })
    .await;
    create_bucket(&app, json!({"name": "s3"})).await;
    let big: Vec<u8> = (0..12 * 1024 * 1024u32).map(|i| (i % 253) as u8).collect();
    let res = service(&app, Method::POST, "/object/s3/big.bin").body(big.clone()).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "{}", res.text().await.unwrap());
    let got = service(&app, Method::GET, "/object/s3/big.bin").send().await.unwrap().bytes().await.unwrap();
    assert!(got == big, "12 MB round trip through multipart upload");
    let res = service(&app, Method::GET, "/object/s3/big.bin").header("range", "bytes=10-19").send().await.unwrap();
    assert_eq!(res.bytes().await.unwrap().as_ref(), &big[10..20]);
    let res = service(&app, Method::POST, "/object/copy")
        .json(&json!({"bucketId": "s3", "sourceKey": "big.bin", "destinationKey": "copy.bin"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);

    // a resumable upload in two chunks
    let tus = |method: Method, path: String| {
        app.http
            .request(method, path)
            .header("apikey", &app.service_key)
            .bearer_auth(&app.service_key)
            .header("Tus-Resumable", "1.0.0")
    };
    let res = tus(Method::POST, url(&app, "/upload/resumable"))
        .header("Upload-Length", (7 * 1024 * 1024).to_string())
        .header("Upload-Metadata", "bucketName czM=,objectName cmVwcmlzZS5iaW4=")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let location = res.headers()["location"].to_str().unwrap().to_string();
    for (offset, len) in [(0usize, 6 * 1024 * 1024usize), (6 * 1024 * 1024, 1024 * 1024)] {
        let res = tus(Method::PATCH, location.clone())
            .header("Upload-Offset", offset.to_string())
            .header("Content-Type", "application/offset+octet-stream")
            .body(big[offset..offset + len].to_vec())
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::NO_CONTENT, "PATCH at {offset}");
    }
    let got = service(&app, Method::GET, "/object/s3/reprise.bin").send().await.unwrap().bytes().await.unwrap();
    assert!(got.as_ref() == &big[..7 * 1024 * 1024], "the resumable upload is the object");

    // a render, kept in the store
    let res = service(&app, Method::POST, "/object/s3/photo.png")
        .header("content-type", "image/png")
        .body(png(300, 200))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let res =
        service(&app, Method::GET, "/render/image/authenticated/s3/photo.png?width=60&height=40").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let thumb = image::load_from_memory(&res.bytes().await.unwrap()).unwrap();
    assert_eq!((thumb.width(), thumb.height()), (60, 40));

    assert_eq!(remove(&app, "s3", json!(["big.bin", "copy.bin", "reprise.bin", "photo.png"])).await.len(), 4);
    let listing =
        reqwest::Client::new().get(format!("{endpoint}/{s3_bucket}")).send().await.unwrap().text().await.unwrap();
    assert!(!listing.contains("<Key>objects/") && !listing.contains("<Key>tus/"), "no bytes left in S3: {listing}");
    assert!(listing.contains("<Key>render/"), "the render was kept (the sweep removes it later): {listing}");
}

/// Write `bytes` at `path` (creating its folder) and date it two hours back.
fn leftover(path: &std::path::Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("create the folder");
    std::fs::write(path, bytes).expect("write the leftover");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    let file = std::fs::File::options().write(true).open(path).expect("open the leftover");
    file.set_modified(old).expect("date the leftover");
}

#[tokio::test]
async fn the_leftovers_of_uploads_killed_midway_are_swept_and_nothing_else() {
    use secrecy::SecretString;
    use server::storage::{backend, sweep, StorageState};

    let (app, dir) = app_with_files("sweep").await;
    create_bucket(&app, json!({"name": "kept"})).await;
    assert_eq!(upload(&app, "kept/a.txt", b"still here", "text/plain", None).await.status(), StatusCode::OK);
    // What kill -9 leaves: a staging file of a streamed upload, and the whole bytes of an upload
    // whose row was never committed; both old. A fresh staging file is an upload in progress.
    let staging = dir.join("objects/ab/ab3f0c2e-0000-4000-8000-000000000001#7");
    let orphan = dir.join("objects/cd/cd3f0c2e-0000-4000-8000-000000000002");
    leftover(&staging, &[1; 4096]);
    leftover(&orphan, &[2; 4096]);
    let in_progress = dir.join("objects/ef/ef3f0c2e-0000-4000-8000-000000000003#1");
    std::fs::create_dir_all(in_progress.parent().unwrap()).unwrap();
    std::fs::write(&in_progress, [3; 16]).unwrap();
    // A resumable upload left after its first bytes (expired below), and an old chunk of an
    // upload whose state is gone.
    let res = app
        .http
        .post(url(&app, "/upload/resumable"))
        .header("apikey", &app.service_key)
        .bearer_auth(&app.service_key)
        .header("Tus-Resumable", "1.0.0")
        .header("Upload-Length", "100")
        .header("Upload-Metadata", "bucketName a2VwdA==,objectName bGF0ZXIuYmlu")
        .header("Content-Type", "application/offset+octet-stream")
        .body(vec![9u8; 40])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(res.headers()["upload-offset"], "40");
    let orphan_chunk = dir.join("tus/0f3f0c2e-0000-4000-8000-000000000004/00000000000000000000");
    leftover(&orphan_chunk, &[4; 64]);
    // A kept render of a version no object has any more.
    let orphan_render = dir.join("render/0f3f0c2e-0000-4000-8000-000000000005/0123456789abcdef0123456789abcdef");
    leftover(&orphan_render, b"image/webp\nRIFF");

    let mut config = crate::helpers::base_config();
    config.storage.file_path = Some(dir.clone());
    let pools = server::db::Pools::new(&SecretString::from(app.db_url.clone()), "unused-on-socket-trust", 2).unwrap();
    let built = backend::build(&config.storage, &config.data_dir).unwrap();
    let state = StorageState {
        store: built.store,
        local: built.local,
        request: pools.request.clone(),
        admin: pools.admin.clone(),
        secret: SecretString::from("unused".to_string()),
        anon_key: SecretString::from("unused".to_string()),
        config: config.storage.clone(),
        roles: Default::default(),
        downloads: Default::default(),
    };
    {
        let admin = pools.admin.get().await.unwrap();
        admin.execute("update storage.tus_uploads set expires_at = now() - interval '1 minute'", &[]).await.unwrap();
    }
    let swept = sweep::sweep(&state, Some(&dir), sweep::GRACE).await.unwrap();

    assert_eq!(
        swept,
        sweep::Swept { staging_files: 1, orphan_versions: 1, expired_uploads: 1, orphan_chunks: 1, orphan_renders: 1 }
    );
    assert!(!orphan_chunk.exists() && !orphan_render.exists());
    let left: i64 = pools
        .admin
        .get()
        .await
        .unwrap()
        .query_one("select count(*) from storage.tus_uploads", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, 0);
    let chunks = walk(&dir.join("tus"));
    assert!(chunks.is_empty(), "the expired upload's chunk went with it: {chunks:?}");
    assert!(!staging.exists() && !orphan.exists());
    assert!(in_progress.exists(), "an upload in progress is left alone");
    let res = service(&app, Method::GET, "/object/kept/a.txt").send().await.unwrap();
    assert_eq!(res.bytes().await.unwrap().as_ref(), b"still here");
    // Even with no grace at all, the bytes of a committed row stay.
    let swept = sweep::sweep(&state, Some(&dir), std::time::Duration::ZERO).await.unwrap();
    assert_eq!(swept.orphan_versions, 0);
    let res = service(&app, Method::GET, "/object/kept/a.txt").send().await.unwrap();
    assert_eq!(res.bytes().await.unwrap().as_ref(), b"still here");
}
