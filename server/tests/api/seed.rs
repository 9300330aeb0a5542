//! `server seed` on the rental project: the demo data loads from the project folder (accounts of
//! `seed-users.json`, `seed.sql`, the pictures of its bucket's `objects_path`), prices come from
//! the database, and a second run changes nothing (no new account, no duplicate row or object).
//! Then `objects_path` on a project of its own: files stored once, again only when changed,
//! within the bucket's limits, and served by `/storage/v1`.

use std::sync::Arc;

use object_store::ObjectStore;
use secrecy::SecretString;
use server::db::Pools;
use server::project::Project;
use server::seed;

use crate::helpers::{base_config, rental_project, spawn_app, spawn_app_with};

fn store_of(config: &server::config::Config) -> Arc<dyn ObjectStore> {
    server::storage::backend::build(&config.storage, &config.data_dir).expect("store").store
}

#[tokio::test]
async fn seeding_twice_loads_the_demo_data_once() {
    let app = spawn_app().await;
    let pools = Pools::new(&SecretString::from(app.db_url.clone()), "x", 2).expect("pools");
    let store = store_of(&base_config());
    let project = Project::open(&rental_project()).expect("project");
    let env = |name: &str| (name == "SEED_ADMIN_PASSWORD").then(|| "Admin-Secret-123".to_string());

    let first = seed::run(&project, &pools.direct, &store, &env).await.expect("first seed");
    assert_eq!(first.created.len(), 2);
    assert_eq!(first.created[0].label, "admin");
    assert_eq!(first.created[0].password, "Admin-Secret-123", "a configured password is used as given");
    assert_ne!(first.created[1].password, "", "the demo password is generated");
    assert_eq!(first.files, vec!["supabase/seed.sql"]);
    assert_eq!(first.objects.stored.len(), 16, "one picture per vehicle");

    let second = seed::run(&project, &pools.direct, &store, &env).await.expect("second seed");
    assert!(second.created.is_empty(), "no account is created twice");
    assert!(second.objects.stored.is_empty(), "no picture is stored twice");
    assert_eq!(second.objects.unchanged, 16);

    let client = pools.admin.get().await.expect("conn");
    let row = client
        .query_one(
            "select (select count(*) from public.all_bookings), (select count(distinct kind) from public.all_bookings),
                    (select count(distinct booking_status) from public.all_bookings),
                    (select role from public.profiles where email = 'admin@kinshasa-auto.test'),
                    (select count(*) from public.blog_posts where published),
                    (select count(distinct category) from public.vehicles),
                    (select count(*) from public.vehicle_records where vin ~ '^[A-Z0-9]{17}$'),
                    (select count(*) from public.vehicles v join storage.objects o
                       on o.bucket_id = 'vehicles' and '/storage/v1/object/public/vehicles/' || o.name = v.primary_image)",
            &[],
        )
        .await
        .expect("query");
    assert_eq!(row.get::<_, i64>(0), 9);
    assert_eq!(row.get::<_, i64>(1), 4, "bookings of each kind");
    assert_eq!(row.get::<_, i64>(6), 16, "each vehicle's VIN is in its private record, once");
    assert_eq!(row.get::<_, i64>(2), 5, "in every status");
    assert_eq!(row.get::<_, String>(3), "admin");
    assert_eq!(row.get::<_, i64>(4), 1);
    assert_eq!(row.get::<_, i64>(5), 4, "vehicles in the four categories");
    assert_eq!(row.get::<_, i64>(7), 16, "each vehicle's primary image is a stored object");
    let total: String = client
        .query_one(
            "select total_amount::text from public.bookings where id = '5eedb002-0000-4000-8000-000000000000'",
            &[],
        )
        .await
        .expect("query")
        .get(0);
    assert_eq!(total, "405.00", "10 days of the Corolla at 45 with the weekly discount");
    let references: i64 = client
        .query_one("select count(distinct upper(left(id::text, 8))) from public.all_bookings", &[])
        .await
        .expect("query")
        .get(0);
    assert_eq!(references, 9, "each seeded booking has its own reference (the first 8 characters of its id)");
    let messages: i64 = client.query_one("select count(*) from outbox.messages", &[]).await.expect("query").get(0);
    assert_eq!(messages, 0, "the demo bookings send no mail");
}

/// A project folder with one bucket (1 KiB, images and text) whose `objects_path` holds a small
/// picture, a text file in a sub-folder, a picture too large and a PDF.
fn objects_project() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("objects-project-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(dir.join("files/notes")).expect("mkdir");
    std::fs::write(
        dir.join("config.toml"),
        "[storage.buckets.docs]\npublic = true\nfile_size_limit = \"1KiB\"\n\
         allowed_mime_types = [\"image/*\", \"text/plain\"]\nobjects_path = \"./files\"\n",
    )
    .expect("config");
    std::fs::write(dir.join("files/logo.png"), [0x89, b'P', b'N', b'G']).expect("file");
    std::fs::write(dir.join("files/notes/hello.txt"), "bonjour").expect("file");
    std::fs::write(dir.join("files/big.png"), vec![0u8; 2048]).expect("file");
    std::fs::write(dir.join("files/doc.pdf"), "%PDF").expect("file");
    dir
}

#[tokio::test]
async fn objects_path_files_are_stored_once_within_the_buckets_limits_and_served() {
    // Arrange: a server running the project (its bucket created, its files stored at start).
    let dir = objects_project();
    let project_dir = dir.clone();
    let app = spawn_app_with(move |c| c.project = Some(project_dir)).await;
    let http = reqwest::Client::new();

    // Act + Assert: the files were stored at start, under their relative names, typed by extension.
    let res = http
        .get(format!("{}/storage/v1/object/public/docs/notes/hello.txt", app.address))
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"].to_str().expect("header").starts_with("text/plain"));
    assert_eq!(res.text().await.expect("body"), "bonjour");
    let logo = http.get(format!("{}/storage/v1/object/public/docs/logo.png", app.address)).send().await.expect("req");
    assert_eq!(logo.status(), 200);
    assert_eq!(logo.headers()["content-type"], "image/png");
    for refused in ["big.png", "doc.pdf"] {
        let res =
            http.get(format!("{}/storage/v1/object/public/docs/{refused}", app.address)).send().await.expect("request");
        assert_eq!(res.status(), 400, "{refused} is beyond the bucket's limits: not stored");
    }

    // A second pass stores nothing; a file whose size changed is replaced.
    let pools = Pools::new(&SecretString::from(app.db_url.clone()), "x", 2).expect("pools");
    let project = Project::open(&dir).expect("project");
    let client = pools.admin.get().await.expect("conn");
    let store = app.storage.store.clone();
    let again = seed::objects::upload(&project, &client, &store).await.expect("upload");
    assert!(again.stored.is_empty(), "nothing stored again: {:?}", again.stored);
    assert_eq!(again.unchanged, 2);
    assert_eq!(again.refused.len(), 2, "{:?}", again.refused);
    assert!(again.refused.iter().any(|r| r.starts_with("docs/big.png: ") && r.contains("size")), "{:?}", again.refused);
    assert!(again.refused.iter().any(|r| r.starts_with("docs/doc.pdf: ") && r.contains("mime")), "{:?}", again.refused);

    std::fs::write(dir.join("files/notes/hello.txt"), "bonjour à tous").expect("file");
    let changed = seed::objects::upload(&project, &client, &store).await.expect("upload");
    assert_eq!(changed.stored, vec!["docs/notes/hello.txt"]);
    let body = http
        .get(format!("{}/storage/v1/object/public/docs/notes/hello.txt", app.address))
        .send()
        .await
        .expect("request")
        .text()
        .await
        .expect("body");
    assert_eq!(body, "bonjour à tous");
    std::fs::remove_dir_all(&dir).expect("cleanup");
}
