//! Studio's settings: how long an idle session lasts, how many sign-ins are let through and how
//! often the reports' history is sampled.

use clap::Args;

/// Settings of `/studio`.
#[derive(Debug, Clone, Args)]
pub struct StudioConfig {
    /// Seconds an operator's dashboard session lasts without a request; the next one signs in again.
    #[arg(long = "studio-session-idle-seconds", env = "STUDIO_SESSION_IDLE_SECONDS", default_value_t = 3600)]
    pub session_idle_secs: u64,

    /// Sign-in attempts to the dashboard allowed per e-mail address in 5 minutes (0: no limit).
    #[arg(long = "studio-signin-per-email", env = "STUDIO_SIGNIN_PER_EMAIL", default_value_t = 5)]
    pub signin_per_email: u64,

    /// Sign-in attempts to the dashboard allowed per client IP address in 5 minutes (0: no limit).
    #[arg(long = "studio-signin-per-ip", env = "STUDIO_SIGNIN_PER_IP", default_value_t = 30)]
    pub signin_per_ip: u64,

    /// Seconds between two samples of the reports' history (database connections, cache hit
    /// ratio, storage per bucket, realtime sockets) written to `_studio.metric_samples` and kept
    /// 7 days (0: no sampling, the reports show those figures as they are now only).
    #[arg(long = "reports-sample-secs", env = "REPORTS_SAMPLE_SECS", default_value_t = 60)]
    pub reports_sample_secs: u64,
}

/// `server studio ...`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum StudioAction {
    /// The dashboard's operators (not app users: they sign in at /studio only).
    Operators {
        #[command(subcommand)]
        action: OperatorsAction,
    },
}

/// `server studio operators ...`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum OperatorsAction {
    /// Add an operator; without --password one is generated and printed once.
    Add {
        email: String,
        /// The password (at least 10 characters); prefer leaving it out and reading the generated one.
        #[arg(long, env = "STUDIO_OPERATOR_PASSWORD", hide_env_values = true)]
        password: Option<String>,
    },
    /// List the operators.
    List,
    /// Remove an operator (their sessions end at once).
    Remove { email: String },
    /// Turn an operator's TOTP off (a lost authenticator); they sign in with the password alone.
    ResetTotp { email: String },
    /// Set an operator's password (their sessions end); without --password one is generated and printed once.
    Passwd {
        email: String,
        #[arg(long, env = "STUDIO_OPERATOR_PASSWORD", hide_env_values = true)]
        password: Option<String>,
    },
}
