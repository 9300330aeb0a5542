//! A dedicated connection that LISTENs on one NOTIFY channel and hands the payloads over.
//!
//! Used by the REST schema cache (`pgrst`) and the realtime relay (`realtime_relay`). The
//! connection is not pooled: a pooled one would be returned with LISTEN still on, or lose its
//! notifications between two checkouts. This module reconnects nothing: its callers decide.

use futures_util::StreamExt;
use secrecy::{ExposeSecret, SecretString};
use tokio::sync::mpsc;
use tokio_postgres::AsyncMessage;

/// A listening connection: the client (for queries of its own), the payloads as they arrive,
/// and the task driving the connection (abort it to close it). The receiver ends when the
/// connection is lost.
pub struct Listener {
    pub client: tokio_postgres::Client,
    pub payloads: mpsc::UnboundedReceiver<String>,
    pub driver: tokio::task::JoinHandle<()>,
}

/// Connect to `url` and LISTEN on `channel` (an identifier, quoted here).
pub async fn listen(url: &SecretString, channel: &str) -> Result<Listener, tokio_postgres::Error> {
    let (client, mut connection) = tokio_postgres::connect(url.expose_secret(), tokio_postgres::NoTls).await?;
    let (tx, payloads) = mpsc::unbounded_channel::<String>();
    let name = channel.to_string();
    let driver = tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(n)) => {
                    if tx.send(n.payload().to_string()).is_err() {
                        break;
                    }
                }
                Ok(_) => {}
                Err(err) => {
                    tracing::warn!(error = %err, channel = %name, "listening connection error");
                    break;
                }
            }
        }
    });
    client.batch_execute(&format!("LISTEN {}", super::quote_ident(channel))).await?;
    Ok(Listener { client, payloads, driver })
}
