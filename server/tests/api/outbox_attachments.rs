//! Outbox mail with attachments (V90), against the real server, the real Deno running the rental
//! project's `booking-receipt` function, the development inbox and a real (TCP) SMTP sink:
//! confirming a booking mails the customer its receipt as a PDF; a receipt the function cannot
//! make yet fails the attempt, which is tried again and then sent; bytes kept in the row are
//! attached as they are; a malformed description is refused by the database.

use std::time::Duration;

use base64::Engine;
use serde_json::Value;

use crate::helpers::{spawn_app_with, TestApp};
use crate::smtp_sink::SmtpSink;

const VEHICLE: &str = "22222222-0000-4000-8000-00000000000b";

/// Poll `check` every 250 ms for at most 3 minutes (the first call of a function waits for
/// Deno's start and for its npm imports): its first answer, or `None`.
async fn within_minutes<T>(mut check: impl AsyncFnMut() -> Option<T>) -> Option<T> {
    for _ in 0..720 {
        if let Some(found) = check().await {
            return Some(found);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    None
}

/// The rental project's server with its functions on the pinned Deno, the outbox looking every second.
async fn app_with_functions(customize: impl FnOnce(&mut server::config::Config)) -> TestApp {
    spawn_app_with(|c| {
        c.functions.deno_bin = crate::functions::deno();
        c.outbox.poll = Duration::from_secs(1);
        c.outbox.retry_base = Duration::from_secs(1);
        customize(c);
    })
    .await
}

/// A vehicle, and a visitor's pending rental `id` of it, written without messages.
async fn pending_booking(app: &TestApp, id: &str, email: &str) {
    let start = (chrono::Utc::now() + chrono::Duration::days(12)).date_naive();
    let end = start + chrono::Duration::days(3);
    app.admin_sql(&format!(
        "insert into public.vehicles (id, name, make, model, year, category, daily_rate) \
         values ('{VEHICLE}', 'Toyota Prado', 'Toyota', 'Prado', 2023, 'utility', 100) on conflict do nothing;
         begin;
         set local app.notify = 'off';
         insert into public.bookings (id, vehicle_id, start_date, end_date, customer_name, customer_email, \
                                      customer_phone, driver_license_number) \
         values ('{id}', '{VEHICLE}', '{start}', '{end}', 'Awa Client', '{email}', '+243815550002', 'KIN-888');
         commit;"
    ))
    .await;
}

/// The text a PDF shows, enough to find words in it: every deflated stream inflated and the
/// strings of its text operators (`Tj`, `TJ`) read as Latin-1 (the receipts' standard fonts
/// use WinAnsi, equal to Latin-1 for the letters looked for). Not a general PDF reader.
fn pdf_text(pdf: &[u8]) -> String {
    use std::io::Read;
    let mut text = String::new();
    let mut rest = pdf;
    while let Some(at) = find(rest, b"stream") {
        let mut from = at + b"stream".len();
        while rest.get(from).is_some_and(|b| *b == b'\r' || *b == b'\n') {
            from += 1;
        }
        let Some(len) = find(&rest[from..], b"endstream") else { break };
        let mut inflated = Vec::new();
        if flate2::read::ZlibDecoder::new(&rest[from..from + len]).read_to_end(&mut inflated).is_ok() {
            text.push_str(&shown_strings(&inflated));
        }
        rest = &rest[from + len + b"endstream".len()..];
    }
    text
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The strings (`<hex>` and `(literal)`) of a content stream, one line per text operator.
fn shown_strings(content: &[u8]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < content.len() {
        match content[i] {
            b'<' if content.get(i + 1) == Some(&b'<') => i += 2,
            b'<' => {
                let end = content[i..].iter().position(|b| *b == b'>').map_or(content.len(), |p| i + p);
                let hex: Vec<u8> = content[i + 1..end].iter().copied().filter(u8::is_ascii_hexdigit).collect();
                out.extend(
                    hex.chunks(2).filter_map(|pair| {
                        u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok().map(char::from)
                    }),
                );
                i = end + 1;
            }
            b'(' => {
                let mut depth = 1;
                i += 1;
                while i < content.len() && depth > 0 {
                    match content[i] {
                        b'\\' => {
                            i += 1;
                            if let Some(b) = content.get(i) {
                                out.push(char::from(*b));
                            }
                        }
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                            out.push(')');
                        }
                        b => out.push(char::from(b)),
                    }
                    i += 1;
                }
                i += 1;
            }
            b'T' if matches!(content.get(i + 1), Some(b'j' | b'J')) => {
                out.push('\n');
                i += 2;
            }
            _ => i += 1,
        }
    }
    out
}

#[tokio::test]
async fn confirming_a_booking_mails_the_customer_its_receipt_as_a_pdf() {
    // Arrange: a visitor's pending rental
    let app = app_with_functions(|_| {}).await;
    let id = "a1c2e3f4-0000-4000-8000-000000000001";
    let reference = "A1C2E3F4";
    pending_booking(&app, id, "awa@example.cd").await;

    // Act: the back office confirms it
    app.admin_sql(&format!("update public.bookings set booking_status = 'confirmed' where id = '{id}'")).await;

    // Assert: the mail reaches the inbox with the receipt attached, made by booking-receipt
    let mail: Value = within_minutes(async || {
        app.inbox("awa@example.cd")
            .await
            .into_iter()
            .find(|m| m["subject"] == format!("Réservation confirmée #{reference}"))
    })
    .await
    .expect("the confirmation reaches the inbox");
    assert!(
        mail["text"].as_str().unwrap_or_default().contains("Votre bon de réservation est joint à ce message (PDF)."),
        "{mail}"
    );
    let files = mail["attachments"].as_array().cloned().unwrap_or_default();
    assert_eq!(files.len(), 1, "{mail}");
    assert_eq!(files[0]["filename"], format!("recu-{reference}.pdf"));
    assert_eq!(files[0]["content_type"], "application/pdf");
    let url = format!("{}{}", app.address, files[0]["url"].as_str().expect("a url"));
    let res = app.http.get(url).send().await.expect("the attachment");
    assert_eq!(res.status(), reqwest::StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "application/pdf");
    let pdf = res.bytes().await.expect("bytes");
    assert!(pdf.starts_with(b"%PDF-"), "a PDF");
    assert_eq!(files[0]["size"], pdf.len());
    let text = pdf_text(&pdf);
    assert!(text.contains(&format!("#{reference}")), "the receipt shows its reference: {text}");
    assert!(text.contains("Awa Client"), "the receipt names the customer: {text}");
    let row = app
        .admin_query_one("select sent_at is not null, attempts from outbox.messages where topic = 'booking.confirmed'")
        .await;
    assert_eq!((row.get::<_, bool>(0), row.get::<_, i32>(1)), (true, 1));
}

#[tokio::test]
async fn a_receipt_the_function_cannot_make_yet_fails_the_attempt_which_is_tried_again_then_sent() {
    // Arrange: mail goes to a real SMTP server; a mail names the receipt of a booking that does
    // not exist yet (booking-receipt answers 404)
    let sink = SmtpSink::start(0).await;
    let app = app_with_functions(|c| {
        c.auth.smtp_host = Some("localhost".into());
        c.auth.smtp_port = sink.port;
    })
    .await;
    let id = "b1c2e3f4-0000-4000-8000-000000000002";
    app.admin_sql(&format!(
        "select outbox.enqueue('email', 'binta@example.cd', 'Réservation confirmée #B1C2E3F4', 'Bonjour', \
         'booking.confirmed', attachments => '[{{\"function\": \"booking-receipt\", \"body\": {{\"id\": \"{id}\", \"kind\": \"vehicle\"}}}}]')"
    ))
    .await;

    // Act / Assert: the attempts fail with the function's answer, nothing is sent
    let error: String = within_minutes(async || {
        let row = app.admin_query_one("select last_error from outbox.messages").await;
        row.get::<_, Option<String>>(0)
    })
    .await
    .expect("an attempt fails");
    assert!(error.contains("attachment 1 (function booking-receipt): answered 404"), "{error}");
    assert!(sink.received().is_empty(), "nothing was sent without its attachment");

    // Act: the booking appears; the next attempt makes the receipt and sends the mail
    pending_booking(&app, id, "binta@example.cd").await;
    let raw = within_minutes(async || sink.received().into_iter().next()).await.expect("the mail is sent");

    // Assert: a multipart/mixed mail with the PDF, whose text shows the reference
    assert!(raw.contains("Content-Type: multipart/mixed"), "{raw}");
    assert!(raw.contains("Content-Disposition: attachment; filename=\"recu-B1C2E3F4.pdf\""), "{raw}");
    let pdf = attached_base64(&raw, "application/pdf").expect("the PDF part");
    assert!(pdf.starts_with(b"%PDF-"));
    assert!(pdf_text(&pdf).contains("#B1C2E3F4"));
    let row = app.admin_query_one("select sent_at is not null, attempts, last_error from outbox.messages").await;
    assert!(row.get::<_, bool>(0), "marked sent");
    assert!(row.get::<_, i32>(1) >= 2, "after a failed attempt");
    assert_eq!(row.get::<_, Option<String>>(2), None);
}

/// The decoded body of the base64 part of `content_type` in a raw MIME message.
fn attached_base64(raw: &str, content_type: &str) -> Option<Vec<u8>> {
    let at = raw.find(&format!("Content-Type: {content_type}"))?;
    let part = &raw[at..];
    let body_start = part.find("\n\n")? + 2;
    let body: String = part[body_start..].lines().take_while(|l| !l.starts_with("--") && !l.is_empty()).collect();
    base64::engine::general_purpose::STANDARD.decode(body.trim()).ok()
}

#[tokio::test]
async fn bytes_kept_in_the_row_are_attached_as_they_are() {
    let app = spawn_app_with(|c| c.outbox.poll = Duration::from_secs(1)).await;
    app.admin_sql(
        "select outbox.enqueue('email', 'chef@example.cd', 'Conditions', 'Ci-joint nos conditions.', 'terms', \
         attachments => '[{\"filename\": \"conditions.txt\", \"content_type\": \"text/plain; charset=utf-8\", \
                           \"content_base64\": \"Q29uZGl0aW9ucyBnw6luw6lyYWxlcw==\"}]')",
    )
    .await;

    let mail: Value = crate::helpers::eventually(async || app.inbox("chef@example.cd").await.into_iter().next())
        .await
        .expect("the mail reaches the inbox");
    let files = mail["attachments"].as_array().cloned().unwrap_or_default();
    assert_eq!(files.len(), 1, "{mail}");
    assert_eq!(files[0]["filename"], "conditions.txt");
    let res = app
        .http
        .get(format!("{}{}", app.address, files[0]["url"].as_str().expect("a url")))
        .send()
        .await
        .expect("the attachment");
    assert_eq!(res.headers()["content-disposition"], "attachment; filename=\"conditions.txt\"");
    assert_eq!(res.text().await.expect("text"), "Conditions générales");
}

#[tokio::test]
async fn a_malformed_attachment_description_is_refused_by_the_database() {
    let app = spawn_app_with(|c| c.outbox.enabled = false).await;
    let client = crate::helpers::connect(&app.db_url).await;
    for bad in [
        r#"{"function": "booking-receipt"}"#,
        r#"[{"function": "../../rest/v1/x"}]"#,
        r#"[{"content_base64": "aGk="}]"#,
        r#"[{"function": "f", "content_base64": "aGk=", "filename": "a"}]"#,
        r#"[{"function": "f", "filename": ""}]"#,
    ] {
        let err = client
            .execute(
                "select outbox.enqueue('email', 'a@example.cd', 's', 't', 'x', attachments => $1::text::jsonb)",
                &[&bad],
            )
            .await
            .expect_err(bad);
        let message = err.as_db_error().map(|e| e.message().to_string()).unwrap_or_default();
        assert!(message.contains("outbox_attachments_described"), "{bad}: {message}");
    }
    let err = client
        .execute(
            "select outbox.enqueue('sms', '+243815550003', null, 't', 'x', attachments => '[{\"function\": \"f\"}]')",
            &[],
        )
        .await
        .expect_err("a text message carries no file");
    let message = err.as_db_error().map(|e| e.message().to_string()).unwrap_or_default();
    assert!(message.contains("outbox_attachments_by_mail"), "{message}");
}
