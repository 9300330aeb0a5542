//! The outbox worker against the real server: a booking's messages reach the development
//! inbox in french, a send that fails is tried again until the (real, TCP) SMTP server takes
//! it, a message that can never go is given up at once; and the sign-up hook closes sign-ups
//! when the back office says so.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::{eventually, spawn_app_with, TestApp};
use crate::smtp_sink::SmtpSink;

const VEHICLE: &str = "11111111-0000-4000-8000-00000000000a";

async fn with_vehicle(app: &TestApp) {
    app.admin_sql(&format!(
        "insert into public.vehicles (id, name, make, model, year, category, daily_rate) \
         values ('{VEHICLE}', 'Toyota Hilux', 'Toyota', 'Hilux', 2022, 'utility', 80)"
    ))
    .await;
}

#[tokio::test]
async fn a_visitor_booking_mails_the_visitor_and_the_company_in_french() {
    let app = spawn_app_with(|c| c.outbox.poll = Duration::from_secs(1)).await;
    with_vehicle(&app).await;
    let start = (chrono::Utc::now() + chrono::Duration::days(10)).date_naive();
    let end = start + chrono::Duration::days(2);

    let res = app
        .rest_req(reqwest::Method::POST, "/bookings", None)
        .json(&json!({
            "vehicle_id": VEHICLE, "start_date": start, "end_date": end,
            "customer_name": "Jean Visiteur", "customer_email": "jean@example.cd",
            "customer_phone": "+243815550001", "driver_license_number": "KIN-777"
        }))
        .send()
        .await
        .expect("book");
    assert_eq!(res.status(), StatusCode::CREATED);

    let mail: Value = eventually(async || app.inbox("jean@example.cd").await.into_iter().next())
        .await
        .expect("the visitor's mail reaches the inbox");
    let subject = mail["subject"].as_str().unwrap_or_default();
    assert!(subject.starts_with("Demande de réservation reçue #"), "{subject}");
    let text = mail["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("Bonjour Jean Visiteur,"), "{text}");
    assert!(text.contains("Location de véhicule : Toyota Hilux (Toyota Hilux)"), "{text}");
    assert!(text.contains("Montant : 160,00\u{a0}$"), "{text}");
    let html = mail["html"].as_str().unwrap_or_default();
    assert!(html.contains("<p style=\"margin:0 0 16px\">Bonjour Jean Visiteur,</p>"), "{html}");

    let notice: Value = eventually(async || app.inbox("admin@example.cd").await.into_iter().next())
        .await
        .expect("the company's notice reaches the inbox");
    assert!(notice["subject"].as_str().unwrap_or_default().starts_with("Nouvelle réservation #"));
    assert!(notice["text"].as_str().unwrap_or_default().contains("Permis : KIN-777"));

    let row =
        app.admin_query_one("select count(*) filter (where sent_at is not null), count(*) from outbox.messages").await;
    assert_eq!((row.get::<_, i64>(0), row.get::<_, i64>(1)), (2, 2), "both messages are marked sent");
}

#[tokio::test]
async fn a_send_the_mail_server_refuses_is_tried_again_until_it_goes() {
    let sink = SmtpSink::start(1).await;
    let app = spawn_app_with(|c| {
        c.outbox.poll = Duration::from_secs(1);
        c.outbox.retry_base = Duration::from_secs(1);
        c.auth.smtp_host = Some("localhost".into());
        c.auth.smtp_port = sink.port;
    })
    .await;
    app.admin_sql(
        "select outbox.enqueue('email', 'client@example.cd', 'Réservation confirmée #ABCDEF12', \
         'Bonjour,\n\nVotre réservation est confirmée.', 'booking.confirmed')",
    )
    .await;

    let received = eventually(async || sink.received().into_iter().next()).await.expect("the mail is delivered");
    assert!(received.contains("To: client@example.cd"), "{received}");
    let row = eventually(async || {
        let row = app.admin_query_one("select attempts, sent_at is not null, last_error from outbox.messages").await;
        row.get::<_, bool>(1).then_some(row)
    })
    .await
    .expect("the message is marked sent");
    assert_eq!(row.get::<_, i32>(0), 2, "the first attempt was refused, the second went");
    assert_eq!(row.get::<_, Option<String>>(2), None, "the error of the first attempt is cleared");
}

#[tokio::test]
async fn a_text_message_goes_through_the_sms_provider() {
    let app = spawn_app_with(|c| c.outbox.poll = Duration::from_secs(1)).await;
    app.admin_sql(
        "select outbox.enqueue('sms', '+243 81 222 3333', null, 'Kinshasa Prestige Auto : réservation confirmée #ABCDEF12.', 'booking.confirmed')",
    )
    .await;
    let text: Value = eventually(async || app.inbox("+243812223333").await.into_iter().next())
        .await
        .expect("the text reaches the development inbox (the SMS provider here)");
    assert_eq!(text["text"], "Kinshasa Prestige Auto : réservation confirmée #ABCDEF12.");
    assert_eq!(text["kind"], "booking.confirmed");
}

#[tokio::test]
async fn a_message_that_can_never_go_is_given_up_at_once_and_kept() {
    let app = spawn_app_with(|c| c.outbox.poll = Duration::from_secs(1)).await;
    app.admin_sql("select outbox.enqueue('sms', 'pas un numéro', null, 'Bonjour', 'booking.received')").await;
    let row = eventually(async || {
        let row = app
            .admin_query_one("select attempts, failed_at is not null, last_error, sent_at is null from outbox.messages")
            .await;
        row.get::<_, bool>(1).then_some(row)
    })
    .await
    .expect("the message is marked failed");
    assert_eq!(row.get::<_, i32>(0), 1);
    assert_eq!(row.get::<_, Option<String>>(2).as_deref(), Some("not a phone number"));
    assert!(row.get::<_, bool>(3), "never marked sent");
}

#[tokio::test]
async fn sign_ups_closed_in_the_back_office_are_refused_by_the_auth_server() {
    let app = spawn_app_with(|c| {
        c.auth.hook_before_user_created_enabled = true;
        c.auth.hook_before_user_created_uri = Some("pg-functions://postgres/public/before_user_created".into());
        c.auth.mailer_autoconfirm = true;
    })
    .await;
    let signup = |email: &'static str| {
        app.http
            .post(format!("{}/auth/v1/signup", app.address))
            .header("apikey", &app.anon_key)
            .json(&json!({"email": email, "password": "correct-horse-9"}))
            .send()
    };
    app.admin_sql(
        "update public.app_settings set value = value || '{\"allowRegistrations\": false}' where section = 'system'",
    )
    .await;
    let res = signup("closed@example.cd").await.expect("signup");
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["error_code"], "signup_disabled");
    assert_eq!(body["msg"], "Les inscriptions sont fermées pour le moment. Contactez-nous au +243 81 000 0000.");
    let row = app.admin_query_one("select count(*) from auth.users where email = 'closed@example.cd'").await;
    assert_eq!(row.get::<_, i64>(0), 0, "the refused user is not kept");

    app.admin_sql(
        "update public.app_settings set value = value || '{\"allowRegistrations\": true}' where section = 'system'",
    )
    .await;
    assert_eq!(signup("open@example.cd").await.expect("signup").status(), StatusCode::OK);
}
