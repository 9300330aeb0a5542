//! Schema cache reloads: a dedicated connection LISTENs on the `pgrst` channel (as PostgREST
//! does) and reloads the cache on `reload schema` (or an empty payload) and the in-database
//! configuration on `reload config`, reconnecting with a back-off when the connection drops. Reloads swap the cache; requests never wait for them.

use std::time::Duration;

use secrecy::SecretString;

use crate::rest::RestState;

/// Start the listener task; it lives as long as the runtime.
pub fn spawn_listener(state: RestState, database_url: SecretString) {
    tokio::spawn(async move {
        let mut backoff = Duration::from_millis(500);
        loop {
            match listen_once(&state, &database_url).await {
                Ok(()) => backoff = Duration::from_millis(500),
                Err(err) => tracing::warn!(error = %err, "schema cache listener lost its connection; retrying"),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(30));
        }
    });
}

async fn listen_once(state: &RestState, url: &SecretString) -> Result<(), tokio_postgres::Error> {
    let crate::db::listen::Listener { client, payloads: mut rx, driver } =
        crate::db::listen::listen(url, "pgrst").await?;
    // Catch up on anything that changed while we were not listening.
    state.reload_config().await;
    if let Err(err) = state.reload().await {
        tracing::warn!(error = %err, "schema cache reload failed");
    }
    while let Some(payload) = rx.recv().await {
        if payload.is_empty() || payload == "reload schema" {
            if let Err(err) = state.reload().await {
                tracing::warn!(error = %err, "schema cache reload failed");
            }
        } else if payload == "reload config" {
            state.reload_config().await;
        }
    }
    driver.abort();
    drop(client);
    Ok(())
}
