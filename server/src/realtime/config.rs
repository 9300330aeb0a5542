//! Settings of `/realtime/v1`, under Supabase Realtime's environment names where one exists
//! (`TENANT_MAX_*`, `SLOT_NAME`, `POLL_INTERVAL_MS`). Limits apply per connection here, where
//! Supabase applies some per tenant: this server has one tenant.

use clap::Args;

/// Settings of the realtime surface.
#[derive(Debug, Clone, Args)]
pub struct RealtimeConfig {
    /// Largest number of WebSocket connections the server holds at once.
    #[arg(long = "realtime-max-concurrent-users", env = "TENANT_MAX_CONCURRENT_USERS", default_value_t = 10_000)]
    pub max_concurrent_users: usize,

    /// Largest number of channels one connection may join.
    #[arg(long = "realtime-max-channels-per-client", env = "TENANT_MAX_CHANNELS_PER_CLIENT", default_value_t = 100)]
    pub max_channels_per_client: usize,

    /// Joins per second one connection may make (over a one-second window).
    #[arg(long = "realtime-max-joins-per-second", env = "TENANT_MAX_JOINS_PER_SECOND", default_value_t = 100)]
    pub max_joins_per_second: u32,

    /// Messages per second one connection may send (broadcast, presence, access tokens).
    #[arg(long = "realtime-max-events-per-second", env = "TENANT_MAX_EVENTS_PER_SECOND", default_value_t = 100)]
    pub max_events_per_second: u32,

    /// Largest payload of one message, in kilobytes (1000 bytes).
    #[arg(long = "realtime-max-payload-size-in-kb", env = "TENANT_MAX_PAYLOAD_SIZE_IN_KB", default_value_t = 3000)]
    pub max_payload_size_in_kb: usize,

    /// Name of this instance's logical replication slot (default: derived from the database name
    /// and the HTTP port, so a restarted instance finds its slot again; give each instance of a
    /// deployment its own).
    #[arg(long = "realtime-slot-name", env = "SLOT_NAME")]
    pub slot_name: Option<String>,

    /// Accepted for Supabase Realtime's environment and not used: the slot is streamed, so
    /// changes arrive as they commit and nothing is polled.
    #[arg(long = "realtime-poll-interval-ms", env = "POLL_INTERVAL_MS", default_value_t = 25, hide = true)]
    pub poll_interval_ms: u64,

    /// Memory Postgres may use to decode the slot's transactions before it spills them to disk,
    /// in megabytes (`logical_decoding_work_mem` of the replication connection).
    #[arg(long = "realtime-decoding-work-mem-mb", env = "REALTIME_DECODING_WORK_MEM_MB", default_value_t = 64)]
    pub decoding_work_mem_mb: u64,

    /// Seconds another instance's replication slot may stay inactive before this instance drops
    /// it (an instance that died and never came back; its slot holds WAL). 0 keeps them.
    #[arg(long = "realtime-stale-slot-secs", env = "REALTIME_STALE_SLOT_SECS", default_value_t = 600)]
    pub stale_slot_secs: u64,

    /// Seconds after start during which changes read from the slot are kept, so subscribers
    /// that reconnect after a restart receive what was committed while the server was down.
    #[arg(long = "realtime-resume-window-secs", env = "REALTIME_RESUME_WINDOW_SECS", default_value_t = 30)]
    pub resume_window_secs: u64,

    /// Largest presence state of one topic, in kilobytes (1000 bytes): what a channel that joins
    /// receives at once. A track that would pass it is refused.
    #[arg(long = "realtime-max-presence-state-kb", env = "REALTIME_MAX_PRESENCE_STATE_KB", default_value_t = 1000)]
    pub max_presence_state_kb: usize,

    /// Seconds without any message (heartbeats included) after which a socket is closed.
    #[arg(long = "realtime-idle-timeout-secs", env = "REALTIME_IDLE_TIMEOUT_SECS", default_value_t = 90)]
    pub idle_timeout_secs: u64,
}

impl RealtimeConfig {
    /// The payload limit in bytes.
    pub fn max_payload_bytes(&self) -> usize {
        self.max_payload_size_in_kb.saturating_mul(1000)
    }
}
