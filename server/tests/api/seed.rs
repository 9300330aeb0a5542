//! `server seed`: the demo data loads, prices come from the database, and a second run changes
//! nothing (no new account, no duplicate row).

use secrecy::SecretString;
use server::db::Pools;
use server::seed::{self, ImageSink};

use crate::helpers::{base_config, spawn_app};

#[tokio::test]
async fn seeding_twice_loads_the_demo_data_once() {
    let app = spawn_app().await;
    let pools = Pools::new(&SecretString::from(app.db_url.clone()), "x", 2).expect("pools");
    let base = base_config();
    let mut config = base.seed.clone();
    config.admin_password = Some("Admin-Secret-123".into());
    let store = server::storage::backend::build(&base.storage, &base.data_dir).expect("store").store;
    let sink = ImageSink { store, bucket: "vehicles".into() };

    let first = seed::run(&pools.admin, &config, &sink).await.expect("first seed");
    assert_eq!(first.vehicles, 16);
    assert_eq!(first.created.len(), 2);
    assert_eq!(first.created[0].password, "Admin-Secret-123", "a configured password is used as given");
    assert_eq!(first.images, 16, "one illustration per vehicle");
    assert_ne!(first.created[1].password, "", "the demo password is generated");

    let second = seed::run(&pools.admin, &config, &sink).await.expect("second seed");
    assert!(second.created.is_empty(), "no account is created twice");
    assert_eq!(second.images, 0, "no image is stored twice");
    assert_eq!(second.vehicles, 16);

    let client = pools.admin.get().await.expect("conn");
    let row = client
        .query_one(
            "select (select count(*) from public.all_bookings), (select count(distinct kind) from public.all_bookings),
                    (select count(distinct booking_status) from public.all_bookings),
                    (select role from public.profiles where email = 'admin@kinshasa-auto.test'),
                    (select count(*) from public.blog_posts where published),
                    (select count(distinct category) from public.vehicles),
                    (select count(*) from public.vehicle_records where vin ~ '^[A-Z0-9]{17}$')",
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
