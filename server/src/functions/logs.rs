//! What the functions print: each line the worker bootstrap writes as
//! `{"function_log": {function, level, message, request_id, execution_id}}` on the Deno child's
//! standard output goes to the server's log (target `functions`, with the function, request and
//! execution ids as fields) and, when the server has a database, to `edge_functions.logs`,
//! written in batches and pruned to the latest lines of each function (`store::LOGS_KEPT`, at
//! most `store::LOGS_MAX_AGE_DAYS` old) for `server functions logs NAME` and the management API.
//!
//! The channel to the writer is bounded: when the database lags, lines are dropped from the
//! table (never from the server's log) rather than held in memory.

use std::time::Duration;

use deadpool_postgres::Pool;
use tokio::sync::mpsc;

use super::store::{self, LogLine};

/// Lines waiting for the writer, at most.
const QUEUE: usize = 10_000;
/// Lines written in one statement, at most.
const BATCH: usize = 500;
const PRUNE_EVERY: Duration = Duration::from_secs(60);

/// Where the runtime hands the lines it recognizes.
#[derive(Debug, Clone)]
pub struct LogSink {
    tx: Option<mpsc::Sender<LogLine>>,
}

#[derive(serde::Deserialize)]
struct Envelope {
    function_log: LogLine,
}

impl LogSink {
    /// A sink that logs only (no database).
    pub fn log_only() -> LogSink {
        LogSink { tx: None }
    }

    /// A sink that also keeps the lines in `pool`'s `edge_functions.logs` (the writer task starts here).
    pub fn to_database(pool: Pool) -> LogSink {
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(write(pool, rx));
        LogSink { tx: Some(tx) }
    }

    /// Log `line` if it is a function's log line; whether it was.
    pub fn take(&self, line: &str) -> bool {
        if !line.starts_with("{\"function_log\"") {
            return false;
        }
        let Ok(Envelope { function_log: mut entry }) = serde_json::from_str::<Envelope>(line) else { return false };
        let request_id = entry.request_id.as_deref().unwrap_or("");
        let execution_id = entry.execution_id.as_deref().unwrap_or("");
        let function = entry.function.as_str();
        match entry.level.as_str() {
            "error" | "warn" => {
                tracing::warn!(target: "functions", function, request_id, execution_id, level = %entry.level, "{}", entry.message)
            }
            _ => {
                tracing::info!(target: "functions", function, request_id, execution_id, level = %entry.level, "{}", entry.message)
            }
        }
        if let Some(tx) = &self.tx {
            entry.timestamp = Some(chrono::Utc::now());
            let _ = tx.try_send(entry);
        }
        true
    }
}

async fn write(pool: Pool, mut rx: mpsc::Receiver<LogLine>) {
    let mut last_prune = tokio::time::Instant::now();
    let mut batch = Vec::with_capacity(BATCH);
    while rx.recv_many(&mut batch, BATCH).await > 0 {
        let written = match pool.get().await {
            Ok(client) => {
                let inserted = store::insert_logs(&client, &batch).await;
                if inserted.is_ok() && last_prune.elapsed() > PRUNE_EVERY {
                    last_prune = tokio::time::Instant::now();
                    let _ = store::prune_logs(&client).await;
                }
                inserted.map_err(|e| e.to_string())
            }
            Err(err) => Err(err.to_string()),
        };
        if let Err(err) = written {
            tracing::warn!(lines = batch.len(), error = %err, "functions: log lines not kept");
        }
        batch.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_log_lines_are_taken_and_others_left() {
        let sink = LogSink::log_only();
        let line = r#"{"function_log":{"function":"hello","level":"info","message":"hi","request_id":"r1","execution_id":"e1"}}"#;
        assert!(sink.take(line));
        assert!(!sink.take("plain text from the router"));
        assert!(!sink.take(r#"{"function_log": "not an object"}"#));
        assert!(!sink.take(r#"{"listening": 1234}"#));
    }
}
