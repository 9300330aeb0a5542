//! The request log's settings: on or off, how long rows are kept, how many at most, how often
//! the buffered entries are written and how many may wait.

use clap::Args;

/// Settings of the request log (`_studio.request_log`, read by the dashboard's logs and reports).
#[derive(Debug, Clone, Args)]
pub struct RequestLogConfig {
    /// Keep one row per answered request for the dashboard's log explorer and reports (off: nothing is recorded).
    #[arg(
        id = "request_log_enabled",
        long = "request-log-enabled",
        env = "REQUEST_LOG_ENABLED",
        default_value_t = true,
        action = clap::ArgAction::Set
    )]
    pub enabled: bool,

    /// Hours a request's row is kept; older rows are deleted every minute.
    #[arg(
        id = "request_log_retention_hours",
        long = "request-log-retention-hours",
        env = "REQUEST_LOG_RETENTION_HOURS",
        default_value_t = 72
    )]
    pub retention_hours: u32,

    /// Most rows kept; the oldest beyond it are deleted every minute (0: no limit but the age).
    #[arg(
        id = "request_log_max_rows",
        long = "request-log-max-rows",
        env = "REQUEST_LOG_MAX_ROWS",
        default_value_t = 1_000_000
    )]
    pub max_rows: u64,

    /// Milliseconds between two writes of the buffered entries (one multi-row insert each).
    #[arg(
        id = "request_log_flush_ms",
        long = "request-log-flush-ms",
        env = "REQUEST_LOG_FLUSH_MS",
        default_value_t = 1000
    )]
    pub flush_ms: u64,

    /// Entries that may wait for the next write; beyond it new ones are dropped (and counted in
    /// `/metrics` as `request_log_dropped_total`), never waited for.
    #[arg(
        id = "request_log_buffer",
        long = "request-log-buffer",
        env = "REQUEST_LOG_BUFFER",
        default_value_t = 20_000
    )]
    pub buffer: usize,
}
