//! The outbox worker's settings: a leaf that `config` imports without importing the worker.

use std::time::Duration;

use clap::Args;

/// Settings of the outbox worker.
#[derive(Debug, Clone, Args)]
pub struct OutboxConfig {
    /// Run the worker in this instance (at least one instance of a deployment must).
    #[arg(long = "outbox-enabled", env = "OUTBOX_ENABLED", default_value_t = true, action = clap::ArgAction::Set)]
    pub enabled: bool,

    /// Seconds between two looks at the outbox besides the wake-ups of new messages (NOTIFY), and
    /// between two runs of the due schedules.
    #[arg(long = "outbox-poll-seconds", env = "OUTBOX_POLL_SECONDS", default_value = "5", value_parser = crate::config::seconds)]
    pub poll: Duration,

    /// Attempts at sending one message or HTTP request before it is marked failed.
    #[arg(long = "outbox-max-attempts", env = "OUTBOX_MAX_ATTEMPTS", default_value_t = 10)]
    pub max_attempts: i32,

    /// Delay before the second attempt, in seconds; it doubles with each failure (at most 6 hours).
    #[arg(long = "outbox-retry-base-seconds", env = "OUTBOX_RETRY_BASE_SECONDS", default_value = "30", value_parser = crate::config::seconds)]
    pub retry_base: Duration,
}
