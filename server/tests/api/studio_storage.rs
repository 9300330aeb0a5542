//! `/studio/api/storage/` and `/studio/api/s3-keys`: the storage screen's backend, over HTTP
//! against the real server. Every route refused without an operator session (and with the
//! service key alone); buckets created, edited, emptied and deleted; an upload in one request
//! and a resumable (TUS) one; listing with folders, preview through the transformation
//! endpoint, move, copy, a signed URL fetched without any key, delete; S3 keys created (secret
//! once), listed, revoked; each write audited.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{json_of, spawn_app, TestApp};
use crate::studio::{add_operator, Studio};

const EMAIL: &str = "storage-ops@studio.test";
const PASSWORD: &str = "correct horse battery";

/// A server with one operator, signed in.
pub async fn studio_app() -> (TestApp, Studio) {
    let app = spawn_app().await;
    add_operator(&app, EMAIL, PASSWORD).await;
    let studio = Studio::sign_in(&app.http, &app.address, EMAIL, PASSWORD).await;
    (app, studio)
}

async fn audited(app: &TestApp, action: &str) -> i64 {
    app.admin_query_one(&format!("select count(*) from _studio.audit_log where action = '{action}'")).await.get(0)
}

/// A tiny PNG (4×4, red), made with the `image` crate the server uses.
fn png() -> Vec<u8> {
    let img = image::RgbImage::from_pixel(4, 4, image::Rgb([200, 0, 0]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).expect("png");
    out.into_inner()
}

#[tokio::test]
async fn storage_and_s3_key_routes_are_refused_without_an_operator_session() {
    let (app, _) = studio_app().await;
    app.admin_sql("insert into storage.buckets (id, name) values ('kept', 'kept')").await;
    let service = format!("Bearer {}", app.service_key);
    let routes: Vec<(Method, &str)> = vec![
        (Method::GET, "/studio/api/storage/bucket"),
        (Method::POST, "/studio/api/storage/bucket"),
        (Method::DELETE, "/studio/api/storage/bucket/kept"),
        (Method::POST, "/studio/api/storage/object/list/kept"),
        (Method::POST, "/studio/api/storage/object/kept/a.txt"),
        (Method::POST, "/studio/api/storage/upload/resumable"),
        (Method::POST, "/studio/api/storage/object/sign/kept/a.txt"),
        (Method::GET, "/studio/api/storage/object/authenticated/kept/a.txt"),
        (Method::GET, "/studio/api/s3-keys"),
        (Method::POST, "/studio/api/s3-keys"),
        (Method::DELETE, "/studio/api/s3-keys/AAAA"),
    ];
    for (method, path) in routes {
        for headers in [vec![], vec![("apikey", app.service_key.as_str()), ("authorization", service.as_str())]] {
            let mut req = app.http.request(method.clone(), format!("{}{path}", app.address));
            for (k, v) in &headers {
                req = req.header(*k, *v);
            }
            let res = req.json(&json!({"name": "x"})).send().await.expect("request");
            assert_eq!(res.status(), 401, "{method} {path} with {} headers", headers.len());
        }
    }
    let left: i64 = app.admin_query_one("select count(*) from storage.buckets where id in ('kept', 'x')").await.get(0);
    assert_eq!(left, 1, "nothing was created or deleted");
}

#[tokio::test]
async fn an_operator_creates_edits_empties_and_deletes_a_bucket() {
    let (app, studio) = studio_app().await;
    let body = json!({"name": "media", "public": false, "file_size_limit": 1000, "allowed_mime_types": ["image/png"]});
    let (status, out) = studio.call(&app, Method::POST, "/studio/api/storage/bucket", Some(body)).await;
    assert_eq!(status, 200, "{out}");
    let (_, list) = studio.call(&app, Method::GET, "/studio/api/storage/bucket", None).await;
    let media = list.as_array().expect("a list").iter().find(|b| b["id"] == "media").expect("the new bucket listed");
    assert_eq!(media["file_size_limit"], 1000);
    assert_eq!(media["allowed_mime_types"], json!(["image/png"]));

    // the limits hold for an operator's upload too
    let text = studio
        .req(&app, Method::POST, "/studio/api/storage/object/media/a.txt")
        .header("content-type", "text/plain")
        .body("hello")
        .send()
        .await
        .expect("upload");
    let (status, refused) = json_of(text).await;
    assert_eq!(
        (status, refused["statusCode"].as_str()),
        (400, Some("415")),
        "a MIME type the bucket refuses: {refused}"
    );
    let (status, out) = studio
        .call(
            &app,
            Method::PUT,
            "/studio/api/storage/bucket/media",
            Some(json!({"public": true, "allowed_mime_types": null})),
        )
        .await;
    assert_eq!(status, 200, "{out}");
    let ok = studio
        .req(&app, Method::POST, "/studio/api/storage/object/media/a.txt")
        .header("content-type", "text/plain")
        .body("hello")
        .send()
        .await
        .expect("upload");
    assert_eq!(ok.status(), 200);

    let (status, refused) = studio.call(&app, Method::DELETE, "/studio/api/storage/bucket/media", None).await;
    assert_eq!((status, refused["statusCode"].as_str()), (400, Some("409")), "a bucket with objects stays: {refused}");
    let (status, _) = studio.call(&app, Method::POST, "/studio/api/storage/bucket/media/empty", None).await;
    assert_eq!(status, 200);
    let (status, _) = studio.call(&app, Method::DELETE, "/studio/api/storage/bucket/media", None).await;
    assert_eq!(status, 200);
    let left: i64 = app.admin_query_one("select count(*) from storage.buckets where id = 'media'").await.get(0);
    assert_eq!(left, 0);
    assert_eq!(audited(&app, "storage.post").await, 4, "create, two uploads, empty");
    assert_eq!(audited(&app, "storage.delete").await, 2);
    assert_eq!(audited(&app, "storage.put").await, 1);
}

#[tokio::test]
async fn objects_are_browsed_previewed_moved_copied_signed_and_deleted() {
    let (app, studio) = studio_app().await;
    app.admin_sql("insert into storage.buckets (id, name) values ('docs', 'docs')").await;
    let up = studio
        .req(&app, Method::POST, "/studio/api/storage/object/docs/photos/red.png")
        .header("content-type", "image/png")
        .body(png())
        .send()
        .await
        .expect("upload");
    assert_eq!(up.status(), 200);

    let (_, root) =
        studio.call(&app, Method::POST, "/studio/api/storage/object/list/docs", Some(json!({"prefix": ""}))).await;
    assert_eq!(root[0]["name"], "photos");
    assert_eq!(root[0]["id"], Value::Null, "a folder");
    let (_, inside) = studio
        .call(&app, Method::POST, "/studio/api/storage/object/list/docs", Some(json!({"prefix": "photos/"})))
        .await;
    assert_eq!(inside[0]["name"], "red.png");

    // preview through the transformation endpoint, with the session cookie only
    let preview = studio
        .req(
            &app,
            Method::GET,
            "/studio/api/storage/render/image/authenticated/docs/photos/red.png?width=2&format=origin",
        )
        .send()
        .await
        .expect("preview");
    assert_eq!(preview.status(), 200);
    let bytes = preview.bytes().await.expect("bytes");
    let small = image::load_from_memory(&bytes).expect("an image");
    assert_eq!(small.width(), 2);

    // copied, then the copy moved
    for (action, from, to) in [("copy", "photos/red.png", "copy.png"), ("move", "copy.png", "moved/red.png")] {
        let body = json!({"bucketId": "docs", "sourceKey": from, "destinationKey": to});
        let (status, out) =
            studio.call(&app, Method::POST, &format!("/studio/api/storage/object/{action}"), Some(body)).await;
        assert_eq!(status, 200, "{action}: {out}");
    }

    // a signed URL with a chosen lifetime opens the object without any key or cookie
    let (status, signed) = studio
        .call(&app, Method::POST, "/studio/api/storage/object/sign/docs/moved/red.png", Some(json!({"expiresIn": 60})))
        .await;
    assert_eq!(status, 200, "{signed}");
    let url = format!("{}/storage/v1{}", app.address, signed["signedURL"].as_str().expect("a signed URL"));
    let fetched = app.http.get(&url).send().await.expect("signed download");
    assert_eq!(fetched.status(), 200);
    assert_eq!(fetched.bytes().await.expect("bytes").to_vec(), png());

    let (status, _) = studio
        .call(&app, Method::DELETE, "/studio/api/storage/object/docs", Some(json!({"prefixes": ["moved/red.png"]})))
        .await;
    assert_eq!(status, 200);
    let left: Vec<String> = app
        .admin_query_one("select array_agg(name order by name) from storage.objects where bucket_id = 'docs'")
        .await
        .get(0);
    assert_eq!(left, vec!["photos/red.png".to_string()]);
}

#[tokio::test]
async fn a_resumable_upload_goes_through_the_studio_mount_in_chunks() {
    let (app, studio) = studio_app().await;
    app.admin_sql("insert into storage.buckets (id, name) values ('big', 'big')").await;
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    let b64 = |s: &str| base64::Engine::encode(&base64::engine::general_purpose::STANDARD, s);
    let meta = format!(
        "bucketName {},objectName {},contentType {}",
        b64("big"),
        b64("dir/blob.bin"),
        b64("application/octet-stream")
    );
    let created = studio
        .req(&app, Method::POST, "/studio/api/storage/upload/resumable")
        .header("tus-resumable", "1.0.0")
        .header("upload-length", data.len().to_string())
        .header("upload-metadata", meta)
        .send()
        .await
        .expect("create");
    assert_eq!(created.status(), 201);
    let location = created.headers().get("location").expect("a location").to_str().expect("text").to_string();
    assert!(location.starts_with(&format!("{}/studio/api/storage/upload/resumable/", app.address)), "{location}");
    let path = location.strip_prefix(&app.address).expect("same server").to_string();
    for (i, chunk) in data.chunks(128 * 1024).enumerate() {
        let res = studio
            .req(&app, Method::PATCH, &path)
            .header("tus-resumable", "1.0.0")
            .header("upload-offset", (i * 128 * 1024).to_string())
            .header("content-type", "application/offset+octet-stream")
            .body(chunk.to_vec())
            .send()
            .await
            .expect("patch");
        assert_eq!(res.status(), 204, "chunk {i}");
    }
    let got = studio
        .req(&app, Method::GET, "/studio/api/storage/object/authenticated/big/dir/blob.bin")
        .send()
        .await
        .expect("download");
    assert_eq!(got.status(), 200);
    assert_eq!(got.bytes().await.expect("bytes").to_vec(), data);
    assert_eq!(audited(&app, "storage.post").await, 1, "the creation, not each chunk");
}

#[tokio::test]
async fn s3_keys_are_created_with_the_secret_once_listed_and_revoked() {
    let (app, studio) = studio_app().await;
    let (status, made) =
        studio.call(&app, Method::POST, "/studio/api/s3-keys", Some(json!({"description": "backups"}))).await;
    assert_eq!(status, 201, "{made}");
    let id = made["id"].as_str().expect("an id").to_string();
    assert_eq!(made["secret"].as_str().expect("a secret").len(), 40);
    let (status, list) = studio.call(&app, Method::GET, "/studio/api/s3-keys", None).await;
    assert_eq!(status, 200);
    assert_eq!(list["keys"][0]["id"], id.as_str());
    assert_eq!(list["keys"][0]["description"], "backups");
    assert!(!list.to_string().contains(made["secret"].as_str().unwrap()), "the list holds no secret");
    let (status, _) = studio.call(&app, Method::DELETE, &format!("/studio/api/s3-keys/{id}"), None).await;
    assert_eq!(status, 204);
    let (status, out) = studio.call(&app, Method::DELETE, &format!("/studio/api/s3-keys/{id}"), None).await;
    assert_eq!(status, 404, "{out}");
    assert_eq!(out["error"]["code"], "not_found");
    assert_eq!(audited(&app, "s3_key.create").await, 1);
    assert_eq!(audited(&app, "s3_key.revoke").await, 1);
}
