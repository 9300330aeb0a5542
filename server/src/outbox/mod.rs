//! The outbox worker: delivers the mail and text messages the database wrote to
//! `outbox.messages` (V62), through the auth mailer (SMTP or the development inbox) and the SMS
//! provider, with the files of its `attachments` (V90; `attachments`: made by this server's
//! functions over loopback, or kept in the row), the HTTP requests of `outbox.http_requests` (V80: database webhooks, `net.http_post`,
//! function schedules; `http`), and runs the periodic SQL of `outbox.schedules` (the day-before
//! reminders).
//!
//! Delivery is at least once: a message is claimed for a lease (so another instance's worker
//! leaves it alone), sent (up to `SENDING_AT_ONCE` of a batch side by side), then marked sent; a failed send is tried again after a growing delay
//! until `OUTBOX_MAX_ATTEMPTS`, then marked failed and kept. A worker that dies mid-send leaves
//! the message to be claimed again once the lease is over. Messages are never deleted here and
//! their texts and recipients are never logged (only ids, topics and errors).

mod attachments;
pub mod config;
pub mod http;
mod render;

pub use config::OutboxConfig;

use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::Pool;
use futures_util::StreamExt;
use secrecy::SecretString;

use crate::auth::mail::Rendered;
use crate::auth::AuthState;
use crate::db::cached::CachedQueries;

/// Messages claimed at once.
const BATCH: i64 = 20;
/// Messages of a batch being sent at the same time.
const SENDING_AT_ONCE: usize = 8;
/// The error of one pass of the worker (logged, then the next pass tries again).
type BoxError = Box<dyn std::error::Error + Send + Sync>;
/// How long a claimed message is left alone by other workers.
const LEASE_SECONDS: f64 = 300.0;
/// The longest delay between two attempts.
const MAX_DELAY_SECONDS: f64 = 6.0 * 3600.0;

/// A message taken from the outbox.
struct Claimed {
    id: i64,
    channel: String,
    recipient: String,
    subject: Option<String>,
    body_text: String,
    body_html: Option<String>,
    topic: String,
    attempts: i32,
    /// `outbox.messages.attachments`: descriptions of the files to make before sending.
    attachments: serde_json::Value,
}

/// Why a send failed, and whether trying again could help.
#[derive(Debug)]
struct Failure {
    permanent: bool,
    why: String,
}

/// Start the worker (when enabled); it runs for the life of the process.
pub fn spawn(config: OutboxConfig, pool: Pool, url: SecretString, auth: Arc<AuthState>, target: http::Target) {
    if !config.enabled {
        tracing::info!("outbox worker off (OUTBOX_ENABLED=false)");
        return;
    }
    tokio::spawn(async move { run(config, pool, url, auth, target).await });
}

async fn run(config: OutboxConfig, pool: Pool, url: SecretString, auth: Arc<AuthState>, target: http::Target) {
    let mut listener: Option<crate::db::listen::Listener> = None;
    loop {
        if listener.is_none() {
            listener = crate::db::listen::listen(&url, "outbox").await.ok();
        }
        if let Err(err) = run_schedules(&pool).await {
            tracing::warn!(error = %err, "outbox: running the schedules failed");
        }
        drain("messages", BATCH as usize, || deliver_batch(&config, &pool, &auth, &target)).await;
        drain("http requests", http::BATCH, || http::deliver_batch(&config, &pool, &target)).await;
        let lost = match listener.as_mut() {
            Some(l) => tokio::select! {
                _ = tokio::time::sleep(config.poll) => false,
                payload = l.payloads.recv() => payload.is_none(),
            },
            None => {
                tokio::time::sleep(config.poll).await;
                false
            }
        };
        if lost {
            if let Some(l) = listener.take() {
                l.driver.abort();
            }
        }
    }
}

/// Take batches while they come full.
async fn drain<F, Fut>(what: &str, batch: usize, mut step: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<usize, BoxError>>,
{
    loop {
        match step().await {
            Ok(n) if n == batch => continue,
            Ok(_) => break,
            Err(err) => {
                tracing::warn!(error = %err, "outbox: reading the {what} failed");
                break;
            }
        }
    }
}

async fn run_schedules(pool: &Pool) -> Result<(), BoxError> {
    let client = pool.get().await?;
    client.cached_query("select outbox.run_due_schedules()", &[]).await?;
    Ok(())
}

/// Claim up to `BATCH` due messages and try each; returns how many were claimed.
async fn deliver_batch(
    config: &OutboxConfig,
    pool: &Pool,
    auth: &AuthState,
    target: &http::Target,
) -> Result<usize, BoxError> {
    let client = pool.get().await?;
    let rows = client
        .cached_query(
            "update outbox.messages m set attempts = m.attempts + 1, next_attempt_at = now() + make_interval(secs => $1) \
             where m.id in (select id from outbox.messages where sent_at is null and failed_at is null \
                            and next_attempt_at <= now() order by next_attempt_at, id limit $2 for update skip locked) \
             returning m.id, m.channel, m.recipient, m.subject, m.body_text, m.body_html, m.topic, m.attempts, \
                       m.attachments",
            &[&LEASE_SECONDS, &BATCH],
        )
        .await?;
    let claimed: Vec<Claimed> = rows
        .iter()
        .map(|r| Claimed {
            id: r.get(0),
            channel: r.get(1),
            recipient: r.get(2),
            subject: r.get(3),
            body_text: r.get(4),
            body_html: r.get(5),
            topic: r.get(6),
            attempts: r.get(7),
            attachments: r.get(8),
        })
        .collect();
    drop(client);
    let count = claimed.len();
    // sent side by side, so a mail whose attachment takes a while to make holds no other back
    let mut sent = futures_util::stream::iter(claimed)
        .map(|message| async move {
            let outcome = send(auth, target, &message).await;
            (message, outcome)
        })
        .buffer_unordered(SENDING_AT_ONCE);
    while let Some((message, outcome)) = sent.next().await {
        let client = pool.get().await?;
        match outcome {
            Ok(()) => {
                client
                    .cached_execute(
                        "update outbox.messages set sent_at = now(), last_error = null where id = $1",
                        &[&message.id],
                    )
                    .await?;
                tracing::info!(id = message.id, topic = %message.topic, channel = %message.channel, "outbox: sent");
            }
            Err(failure) => {
                let give_up = failure.permanent || message.attempts >= config.max_attempts;
                let delay = retry_delay(config.retry_base, message.attempts);
                client
                    .cached_execute(
                        "update outbox.messages set last_error = $2, next_attempt_at = now() + make_interval(secs => $3), \
                         failed_at = case when $4 then now() end where id = $1",
                        &[&message.id, &failure.why, &delay, &give_up],
                    )
                    .await?;
                tracing::warn!(
                    id = message.id,
                    topic = %message.topic,
                    attempts = message.attempts,
                    gave_up = give_up,
                    error = %failure.why,
                    "outbox: sending failed"
                );
            }
        }
    }
    Ok(count)
}

/// Seconds before the next attempt after `attempts` of them: base, 2 x base, 4 x base, ...
fn retry_delay(base: Duration, attempts: i32) -> f64 {
    let doublings = attempts.clamp(1, 30) - 1;
    (base.as_secs_f64() * 2f64.powi(doublings)).min(MAX_DELAY_SECONDS)
}

async fn send(auth: &AuthState, target: &http::Target, message: &Claimed) -> Result<(), Failure> {
    match message.channel.as_str() {
        "email" => {
            if message.recipient.parse::<lettre::Address>().is_err() {
                return Err(Failure { permanent: true, why: "not an e-mail address".into() });
            }
            let described = attachments::parse(&message.attachments)?;
            let files = attachments::make(target, &described).await?;
            let rendered = Rendered {
                subject: message.subject.clone().unwrap_or_default(),
                html: message.body_html.clone().unwrap_or_else(|| render::text_to_html(&message.body_text)),
                text: message.body_text.clone(),
            };
            auth.mailer
                .deliver_with(&message.recipient, &message.topic, &rendered, None, &files)
                .await
                .map_err(|e| Failure { permanent: false, why: describe(&e) })
        }
        "sms" => {
            let phone = crate::auth::sms::normalize_phone(&message.recipient)
                .map_err(|_| Failure { permanent: true, why: "not a phone number".into() })?;
            auth.sms()
                .send_message(&phone, &message.topic, &message.body_text)
                .await
                .map_err(|e| Failure { permanent: false, why: describe(&e) })
        }
        other => Err(Failure { permanent: true, why: format!("unknown channel {other}") }),
    }
}

/// The cause of a failed send, for the row and the log (the client-facing words of an
/// internal error hide it).
fn describe(err: &crate::auth::error::AuthError) -> String {
    use crate::auth::error::AuthError;
    match err {
        AuthError::Internal(cause) | AuthError::Unavailable(cause) => cause.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_delay_doubles_from_the_base_and_stops_at_six_hours() {
        let base = Duration::from_secs(30);
        assert_eq!(retry_delay(base, 1), 30.0);
        assert_eq!(retry_delay(base, 2), 60.0);
        assert_eq!(retry_delay(base, 4), 240.0);
        assert_eq!(retry_delay(base, 20), MAX_DELAY_SECONDS);
        assert_eq!(retry_delay(base, 0), 30.0);
    }
}
