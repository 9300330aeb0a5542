//! Typed configuration, read from command-line flags and environment variables.
//!
//! Names follow Supabase's (and PostgREST's) environment variables where one exists, so a
//! deployment can reuse its settings. This module only describes and parses settings: it opens
//! no file and no connection. Secrets are held in `SecretString` so they never print.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use secrecy::SecretString;

/// Command line of the `server` binary.
#[derive(Debug, Parser)]
#[command(
    name = "server",
    version,
    about = "A Supabase-compatible backend: /auth/v1, /rest/v1, /storage/v1, /realtime/v1 in one binary"
)]
pub struct Cli {
    #[command(flatten)]
    pub config: Config,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// What the binary does; without a subcommand it serves.
#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Start the database (embedded when DATABASE_URL is unset), migrate, and serve the API (default).
    Serve,
    /// Apply pending migrations and exit.
    Migrate,
    /// Print the API URL and the API keys (anon / service_role JWTs, publishable / secret keys),
    /// or manage the keys that sign access tokens.
    Keys {
        #[command(subcommand)]
        action: Option<KeysAction>,
    },
    /// Seed the project: the accounts of its `seed-users.json` (generated passwords printed once), its
    /// seed files again (idempotent), the files of its buckets' `objects_path`.
    Seed,
    /// The project's migrations, as `supabase migration` manages them.
    Migration {
        #[command(subcommand)]
        action: MigrationAction,
    },
    /// The project's Edge Functions, as `supabase functions` manages them.
    Functions {
        #[command(subcommand)]
        action: FunctionsAction,
    },
    /// The secrets of the Edge Functions (in their `Deno.env`), as `supabase secrets` manages them:
    /// sealed in the database, shared by every instance.
    Secrets {
        #[command(subcommand)]
        action: SecretsAction,
    },
    /// Manage the embedded PostgreSQL cluster on its own (ignored when DATABASE_URL is set).
    Db {
        #[command(subcommand)]
        action: DbAction,
    },
    /// Generate code from the database, as `supabase gen` does.
    Gen {
        #[command(subcommand)]
        action: GenAction,
    },
    /// Backups of the embedded cluster and its stored files, with pgBackRest (docs/operations.md).
    Backup {
        #[command(subcommand)]
        action: BackupAction,
    },
    /// Restore the database and its stored files from the backup repository: to the latest
    /// archived point, to a time, or to a backup; into a separate folder (a data directory of its
    /// own, started on a free port for inspection while the server keeps running) or, with the
    /// server stopped and --yes, into DATA_DIR itself.
    Restore {
        /// Restore to this time (`2026-12-06 08:15:00+00`, or RFC 3339): the last transaction
        /// committed at or before it is the last one kept.
        #[arg(long, conflicts_with = "to_backup")]
        to: Option<String>,
        /// Restore to the end of this backup (its label, from `server backup list`).
        #[arg(long)]
        to_backup: Option<String>,
        /// Restore into this folder (made a data directory: `postgres/`, `storage/`, `secrets/`)
        /// instead of DATA_DIR.
        #[arg(long)]
        target_dir: Option<PathBuf>,
        /// Confirm the restore of DATA_DIR itself (its database is replaced).
        #[arg(long)]
        yes: bool,
    },
    /// The operator's dashboard (/studio): its operators.
    Studio {
        #[command(subcommand)]
        action: crate::studio::config::StudioAction,
    },
}

/// Actions on backups.
#[derive(Debug, Clone, Subcommand)]
pub enum BackupAction {
    /// Take a backup now (full when the repository has none, else the kind asked) and copy the
    /// new stored files.
    Now {
        /// `full`, `diff` (changes since the last full) or `incr` (since the last backup).
        #[arg(long = "type", default_value = "full")]
        kind: String,
    },
    /// List the backups: label, kind, time, size.
    List,
    /// pgBackRest's status of the repository and of WAL archiving, as JSON.
    Info,
    /// Restore the latest backup into a scratch folder, start PostgreSQL on it, read every table
    /// and check every stored file against its checksum; exits non-zero when anything fails.
    Verify,
}

/// What `server gen` generates.
#[derive(Debug, Clone, Subcommand)]
pub enum GenAction {
    /// Print the TypeScript types of the database's schemas (the `Database` type, its helpers and
    /// `Constants`), as `supabase gen types typescript --local` prints them, to standard output.
    Types {
        /// The language: only `typescript`.
        #[arg(value_name = "LANG", default_value = "typescript")]
        lang: String,
        /// The same as the positional language (the CLI's `--lang`).
        #[arg(long = "lang")]
        lang_flag: Option<String>,
        /// The schemas (repeated or comma-separated); by default `public` and the project's
        /// `[api] schemas` (PGRST_DB_SCHEMAS).
        #[arg(long, short = 's')]
        schema: Vec<String>,
        /// Read this database instead of DATABASE_URL (or the embedded cluster).
        #[arg(long)]
        db_url: Option<String>,
        /// Accepted for the CLI's sake: the local database is the default.
        #[arg(long)]
        local: bool,
        /// Leave `isOneToOne` out of the relationships, for PostgREST 9 clients.
        #[arg(long)]
        postgrest_v9_compat: bool,
        /// Name this PostgREST version in `Database` (`__InternalSupabase`, which supabase-js
        /// reads), as postgres-meta does when given one; the CLI's `--local` names none.
        #[arg(long)]
        postgrest_version: Option<String>,
    },
}

/// Actions on the signing keys of access tokens (`auth.signing_keys`, shared by every instance).
#[derive(Debug, Clone, Subcommand)]
pub enum KeysAction {
    /// List the signing keys: id (the tokens' `kid`), algorithm, status, creation time.
    Signing,
    /// Add a standby key: published at /auth/v1/.well-known/jwks.json at once, signing only after
    /// `rotate`. A new P-256 key (ES256) unless --pem gives a private key (P-256 PKCS#8, or RSA
    /// for RS256, e.g. from `openssl genrsa 2048`) or --jwk a private JWK.
    New {
        #[arg(long, conflicts_with = "jwk")]
        pem: Option<PathBuf>,
        /// A private JWK (or Supabase CLI's `signing_keys.json`): its `kid` is kept, so tokens it
        /// signed elsewhere keep verifying here.
        #[arg(long)]
        jwk: Option<PathBuf>,
    },
    /// The oldest standby key starts signing; the key in use becomes previously used (its tokens
    /// still verify).
    Rotate,
    /// Revoke a standby or previously used key: tokens it signed stop verifying on every instance.
    Revoke { id: uuid::Uuid },
    /// Issue an access key for the S3 protocol (`/storage/v1/s3`): its requests run as
    /// service_role. The secret is printed once.
    S3New {
        #[arg(long, default_value = "")]
        description: String,
    },
    /// List the S3 access keys (ids and descriptions, never secrets).
    S3List,
    /// Revoke an S3 access key.
    S3Revoke { access_key_id: String },
}

/// Actions on the project's migrations.
#[derive(Debug, Clone, Subcommand)]
pub enum MigrationAction {
    /// Create an empty migration `migrations/<UTC timestamp>_<name>.sql` in the project folder
    /// (`./supabase` when none is given; created if missing).
    New { name: String },
    /// The migrations of the project folder and those applied to the database, side by side.
    List,
}

/// Actions on the project's Edge Functions.
#[derive(Debug, Clone, Subcommand)]
pub enum FunctionsAction {
    /// Create `functions/<name>/index.ts` in the project folder (`./supabase` when none is given),
    /// served at `/functions/v1/<name>` without a restart.
    New { name: String },
    /// List the deployed functions (slug, version, verify_jwt, update time).
    List,
    /// Deploy `functions/<name>/` (with `_shared/`) of the project folder to the database: every
    /// instance serves it within seconds, over the folder's function of the same name.
    Deploy {
        name: String,
        /// Serve it without checking a JWT (else `config.toml`'s `verify_jwt`, default on).
        #[arg(long)]
        no_verify_jwt: bool,
    },
    /// Remove a deployed function (the folder's function of that name, if any, is served again).
    Delete { name: String },
    /// Call a function of the running server (`API_EXTERNAL_URL`, else this host and `PORT`) with
    /// the anon key, and print its status and answer.
    Invoke {
        name: String,
        /// A JSON body, sent with POST (else a GET).
        #[arg(long)]
        body: Option<String>,
    },
    /// Print the latest lines a function printed (kept in the database by every instance).
    Logs {
        name: String,
        /// How many lines, at most.
        #[arg(long, default_value_t = 100)]
        limit: i64,
    },
}

/// Actions on the functions' secrets.
#[derive(Debug, Clone, Subcommand)]
pub enum SecretsAction {
    /// Set secrets: `NAME=VALUE` pairs, and/or the lines of a dotenv file.
    Set {
        pairs: Vec<String>,
        /// A dotenv file of `NAME=VALUE` lines.
        #[arg(long)]
        env_file: Option<std::path::PathBuf>,
    },
    /// List the secrets' names and the SHA-256 digest of each value.
    List,
    /// Remove secrets by name.
    Unset { names: Vec<String> },
}

/// Actions on the database.
#[derive(Debug, Clone, Subcommand)]
pub enum DbAction {
    /// Apply the platform's and the project's pending migrations to the database (DATABASE_URL,
    /// else the embedded cluster), as `supabase db push` does; a fresh database is seeded.
    Push,
    /// Make the database again from nothing, as `supabase db reset` does: drop it, create it,
    /// migrate the platform, apply the project's migrations and seed it. On a database named by
    /// DATABASE_URL (not the embedded cluster) only with --force.
    Reset {
        /// Reset the database DATABASE_URL names.
        #[arg(long)]
        force: bool,
    },
    /// Dump the schema (or, with --data-only, the data) of the database's own schemas with
    /// `pg_dump`, the platform's (`auth`, `storage`, `realtime`, …) left out, as `supabase db dump` does.
    Dump {
        /// The rows (as `INSERT` statements) instead of the schema.
        #[arg(long)]
        data_only: bool,
        /// Only these schemas (comma-separated).
        #[arg(long, short = 's', value_delimiter = ',')]
        schema: Vec<String>,
        /// Write to this file instead of standard output.
        #[arg(long, short = 'f')]
        file: Option<PathBuf>,
    },
    /// Initialise (first time) and start the cluster, then print its connection URL and exit, leaving it running.
    Start,
    /// Stop the cluster if it runs.
    Stop,
    /// Print the connection URL of the cluster.
    Url,
}

/// Every setting of the server.
#[derive(Debug, Clone, Args)]
pub struct Config {
    /// Address the HTTP API listens on.
    #[arg(long, env = "HOST", default_value = "127.0.0.1")]
    pub host: String,

    /// Port of the HTTP API (0 picks a free port).
    #[arg(long, env = "PORT", default_value_t = 54321)]
    pub port: u16,

    /// PostgreSQL connection URL. When unset, the server runs its own private cluster under DATA_DIR.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true, value_parser = secret)]
    pub database_url: Option<SecretString>,

    /// A direct PostgreSQL URL (no transaction-mode pooler) for what needs a session of its own:
    /// migrations (an advisory lock), LISTEN (schema reloads, the outbox, realtime) and logical
    /// replication. Unset: DATABASE_URL is direct.
    #[arg(long, env = "DATABASE_DIRECT_URL", hide_env_values = true, value_parser = secret)]
    pub database_direct_url: Option<SecretString>,

    /// Whether statements are prepared once per connection and reused (PostgREST's
    /// `db-prepared-statements`). `false` behind a transaction-mode pooler (PgBouncer,
    /// Supavisor): every statement is then sent unnamed, in one message, and `/rest/v1` prepares
    /// its SQL `PREPARE`d statement again on a server connection that lacks it.
    #[arg(long, env = "DB_PREPARED_STATEMENTS", default_value_t = true, action = clap::ArgAction::Set)]
    pub db_prepared_statements: bool,

    /// Read replicas (comma-separated PostgreSQL URLs, owner credentials as DATABASE_URL): GET and
    /// HEAD on /rest/v1 and read-only RPC run there, unless the client wrote recently.
    #[arg(long, env = "DATABASE_READ_URL", hide_env_values = true, value_delimiter = ',', value_parser = secret)]
    pub database_read_urls: Vec<SecretString>,

    /// Longest replay lag (seconds) of a replica kept in rotation; also how long a caller that
    /// wrote reads from the primary.
    #[arg(long, env = "DATABASE_READ_MAX_LAG_SECONDS", default_value = "5", value_parser = seconds)]
    pub database_read_max_lag: std::time::Duration,

    /// Bearer token that `GET /metrics` (Prometheus) wants; unset, /metrics answers 404.
    #[arg(long, env = "METRICS_TOKEN", hide_env_values = true, value_parser = secret)]
    pub metrics_token: Option<SecretString>,

    /// Directory for the embedded database, generated secrets and local files.
    #[arg(long, env = "DATA_DIR", default_value = ".data")]
    pub data_dir: PathBuf,

    /// A Supabase project folder (`config.toml`, `migrations/`, `seed.sql`) to run: its
    /// settings, migrations, seeds and buckets (docs/projects.md). Default: `./supabase` when it exists.
    #[arg(long = "project", env = "SUPABASE_PROJECT_DIR")]
    pub project: Option<PathBuf>,

    /// Port of the embedded PostgreSQL cluster on 127.0.0.1 (0: socket only, no TCP).
    #[arg(long, env = "DB_PORT", default_value_t = 54322)]
    pub db_port: u16,

    /// Directory holding initdb, pg_ctl and postgres (default: the newest /usr/lib/postgresql/*/bin, then PATH).
    #[arg(long, env = "PG_BIN_DIR")]
    pub pg_bin_dir: Option<PathBuf>,

    /// Secret that signs JWTs (HS256). When unset, one is generated and kept in DATA_DIR/secrets (mode 0600).
    #[arg(long, env = "JWT_SECRET", hide_env_values = true, value_parser = secret)]
    pub jwt_secret: Option<SecretString>,

    /// A JSON file of private JWKs (P-256 for ES256, RSA for RS256, each `kid` a UUID), as `supabase gen
    /// signing-key` writes them and a project's `[auth] signing_keys_path` names: installed in
    /// `auth.signing_keys` at start, the first signing access tokens, every one verifying.
    #[arg(long, env = "SIGNING_KEYS_PATH")]
    pub signing_keys_path: Option<PathBuf>,

    /// The anon API key. Default: derived from JWT_SECRET.
    #[arg(long, env = "ANON_KEY", hide_env_values = true, value_parser = secret)]
    pub anon_key: Option<SecretString>,

    /// The service_role API key. Default: derived from JWT_SECRET.
    #[arg(long, env = "SERVICE_ROLE_KEY", hide_env_values = true, value_parser = secret)]
    pub service_role_key: Option<SecretString>,

    /// Public URL of the web site (redirect target of e-mail links).
    #[arg(long, env = "SITE_URL", default_value = "http://127.0.0.1:54321")]
    pub site_url: String,

    /// Public URL of this API as clients reach it (default: http://HOST:PORT).
    #[arg(long, env = "API_EXTERNAL_URL")]
    pub api_external_url: Option<String>,

    /// Largest number of connections in each database pool.
    #[arg(long, env = "DB_POOL_SIZE", default_value_t = 32)]
    pub db_pool_size: usize,

    /// Connections each HTTP worker shares among requests whose transaction is one message
    /// (most REST reads and writes), so that those arriving together reach Postgres in one write;
    /// on top of `DB_POOL_SIZE`. 0: every request takes a pooled connection of its own.
    #[arg(long, env = "DB_SHARED_CONNECTIONS", default_value_t = 4)]
    pub db_shared_connections: usize,

    /// Read-only transactions (REST reads) share one more connection per HTTP worker, which
    /// carries up to this many at once, answered in turn; when it is full, or its oldest
    /// transaction is slow, a read takes a pooled connection. 0: reads share the same
    /// connections as writes.
    #[arg(long, env = "DB_SHARED_READ_DEPTH", default_value_t = 16)]
    pub db_shared_read_depth: usize,

    /// Origins browsers may call the API from, comma-separated (`https://example.com`); unset,
    /// any origin. PostgREST's `server-cors-allowed-origins`, for every surface but `/functions/v1`
    /// (a function answers its own CORS, as on Supabase).
    #[arg(long, env = "CORS_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub cors_allowed_origins: Vec<String>,

    /// Number of HTTP worker threads (default: one per core).
    #[arg(long, env = "HTTP_WORKERS")]
    pub http_workers: Option<usize>,

    /// TCP congestion control of the HTTP API's connections (Linux `TCP_CONGESTION`: `cubic`,
    /// `bbr`, `reno`, whichever the kernel allows). Unset keeps the host's default.
    #[arg(long, env = "TCP_CONGESTION")]
    pub tcp_congestion: Option<String>,

    /// Log format: `pretty` for people, `json` for machines.
    #[arg(long, env = "LOG_FORMAT", default_value = "pretty")]
    pub log_format: String,

    /// Seconds in-flight requests get to finish on SIGINT/SIGTERM.
    #[arg(long, env = "SHUTDOWN_TIMEOUT", default_value_t = 30)]
    pub shutdown_timeout: u64,

    /// Directory of the built web app served at `/` (skipped when it does not exist).
    #[arg(long, env = "WEB_DIR", default_value = "web/dist")]
    pub web_dir: PathBuf,

    #[command(flatten, next_help_heading = "REST")]
    pub rest: RestConfig,

    #[command(flatten, next_help_heading = "Auth")]
    pub auth: AuthConfig,

    #[command(flatten, next_help_heading = "Storage")]
    pub storage: crate::storage::config::StorageConfig,

    #[command(flatten, next_help_heading = "Realtime")]
    pub realtime: crate::realtime::config::RealtimeConfig,

    #[command(flatten, next_help_heading = "Functions")]
    pub functions: crate::functions::config::FunctionsConfig,

    #[command(flatten, next_help_heading = "Outbox")]
    pub outbox: crate::outbox::config::OutboxConfig,

    #[command(flatten, next_help_heading = "Backups")]
    pub backup: crate::backup::config::BackupConfig,

    #[command(flatten, next_help_heading = "Studio")]
    pub studio: crate::studio::config::StudioConfig,

    #[command(flatten, next_help_heading = "Request log")]
    pub request_log: crate::request_log::RequestLogConfig,
}

/// Settings of `/auth/v1`, under the names the Supabase CLI and GoTrue use.
#[derive(Debug, Clone, Args)]
pub struct AuthConfig {
    /// Lifetime of access tokens, in seconds.
    #[arg(long = "jwt-exp", env = "JWT_EXP", default_value_t = 3600)]
    pub jwt_exp: u64,

    /// Seconds between two reads of the signing keys (`auth.signing_keys`): how long a rotation
    /// or revocation made elsewhere takes to reach this instance (a token naming an unknown key
    /// makes it read them at once).
    #[arg(long = "signing-keys-reload-seconds", env = "SIGNING_KEYS_RELOAD_SECONDS", default_value = "10", value_parser = seconds)]
    pub signing_keys_reload: std::time::Duration,

    /// Seconds during which a just-rotated refresh token may be reused (answering with the current token).
    #[arg(long = "refresh-token-reuse-interval", env = "REFRESH_TOKEN_REUSE_INTERVAL", default_value_t = 10)]
    pub refresh_token_reuse_interval: u64,

    /// The refresh tokens new sessions get: 1, a row per token in `auth.refresh_tokens`; 2, a
    /// session id and counter signed with the session's key (GoTrue's
    /// `SECURITY_REFRESH_TOKEN_ALGORITHM_VERSION`), one row update per refresh. Tokens of both
    /// kinds are accepted whatever this says.
    #[arg(long = "refresh-token-algorithm-version", env = "REFRESH_TOKEN_ALGORITHM_VERSION", default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub refresh_token_algorithm_version: u8,

    /// Refuse new sign-ups (existing users can still sign in; the admin API can still create users).
    #[arg(long = "disable-signup", env = "DISABLE_SIGNUP", default_value_t = false, action = clap::ArgAction::Set)]
    pub disable_signup: bool,

    /// Run the before-user-created hook (`HOOK_BEFORE_USER_CREATED_URI`) at every sign-up.
    #[arg(long = "hook-before-user-created-enabled", env = "HOOK_BEFORE_USER_CREATED_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub hook_before_user_created_enabled: bool,

    /// The before-user-created hook, `pg-functions://<database>/<schema>/<function>`.
    #[arg(long = "hook-before-user-created-uri", env = "HOOK_BEFORE_USER_CREATED_URI")]
    pub hook_before_user_created_uri: Option<String>,

    /// Confirm e-mail addresses at sign-up without sending a confirmation mail.
    #[arg(long = "mailer-autoconfirm", env = "MAILER_AUTOCONFIRM", default_value_t = false, action = clap::ArgAction::Set)]
    pub mailer_autoconfirm: bool,

    /// Extra redirect targets allowed besides SITE_URL, comma-separated (a trailing `*` matches any suffix).
    #[arg(long = "uri-allow-list", env = "URI_ALLOW_LIST", value_delimiter = ',')]
    pub uri_allow_list: Vec<String>,

    /// Confirm an e-mail change through both the current and the new address (GoTrue's default).
    #[arg(long = "mailer-secure-email-change-enabled", env = "MAILER_SECURE_EMAIL_CHANGE_ENABLED", default_value_t = true, action = clap::ArgAction::Set)]
    pub secure_email_change: bool,

    /// Shortest accepted password.
    #[arg(long = "password-min-length", env = "PASSWORD_MIN_LENGTH", default_value_t = 6)]
    pub password_min_length: usize,

    /// Character sets a password must each draw from, `:`-separated (`\:` for a colon), as
    /// GoTrue's `PASSWORD_REQUIRED_CHARACTERS` (`abcdefghijklmnopqrstuvwxyz:0123456789`).
    #[arg(long = "password-required-characters", env = "PASSWORD_REQUIRED_CHARACTERS", default_value = "")]
    pub password_required_characters: String,

    /// E-mail sign-up and sign-in (password, magic link, OTP, recovery); off, they are refused.
    #[arg(long = "external-email-enabled", env = "EXTERNAL_EMAIL_ENABLED", default_value_t = true, action = clap::ArgAction::Set)]
    pub external_email_enabled: bool,

    /// Digits of e-mailed one-time codes, 6 to 10 (another value is taken as 6, as GoTrue does).
    #[arg(long = "mailer-otp-length", env = "MAILER_OTP_LENGTH", default_value_t = 6)]
    pub mailer_otp_length: usize,

    /// Factors (verified or not) one user may have at once.
    #[arg(long = "mfa-max-enrolled-factors", env = "MFA_MAX_ENROLLED_FACTORS", default_value_t = 10)]
    pub mfa_max_enrolled_factors: i64,

    /// Let users enrol a TOTP app as a second factor.
    #[arg(long = "mfa-totp-enroll-enabled", env = "MFA_TOTP_ENROLL_ENABLED", default_value_t = true, action = clap::ArgAction::Set)]
    pub mfa_totp_enroll_enabled: bool,

    /// Let TOTP factors be challenged and verified.
    #[arg(long = "mfa-totp-verify-enabled", env = "MFA_TOTP_VERIFY_ENABLED", default_value_t = true, action = clap::ArgAction::Set)]
    pub mfa_totp_verify_enabled: bool,

    /// Run the custom-access-token hook (`HOOK_CUSTOM_ACCESS_TOKEN_URI`) at every token issued.
    #[arg(long = "hook-custom-access-token-enabled", env = "HOOK_CUSTOM_ACCESS_TOKEN_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub hook_custom_access_token_enabled: bool,

    /// The custom-access-token hook: `pg-functions://<database>/<schema>/<function>` or an
    /// `http(s)://` endpoint.
    #[arg(long = "hook-custom-access-token-uri", env = "HOOK_CUSTOM_ACCESS_TOKEN_URI")]
    pub hook_custom_access_token_uri: Option<String>,

    /// Standard-webhooks secrets signing HTTP hook requests, `v1,whsec_<base64>`, `|`-separated
    /// (the first signs).
    #[arg(long = "hook-custom-access-token-secrets", env = "HOOK_CUSTOM_ACCESS_TOKEN_SECRETS", hide_env_values = true, value_parser = secret)]
    pub hook_custom_access_token_secrets: Option<SecretString>,

    /// Run the password-verification-attempt hook (`HOOK_PASSWORD_VERIFICATION_ATTEMPT_URI`) at
    /// every password sign-in of a user who has a password.
    #[arg(long = "hook-password-verification-attempt-enabled", env = "HOOK_PASSWORD_VERIFICATION_ATTEMPT_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub hook_password_verification_attempt_enabled: bool,

    /// The password-verification-attempt hook: `pg-functions://<database>/<schema>/<function>`
    /// or an `http(s)://` endpoint.
    #[arg(long = "hook-password-verification-attempt-uri", env = "HOOK_PASSWORD_VERIFICATION_ATTEMPT_URI")]
    pub hook_password_verification_attempt_uri: Option<String>,

    /// Standard-webhooks secrets of the password-verification-attempt hook, `v1,whsec_<base64>`,
    /// `|`-separated.
    #[arg(long = "hook-password-verification-attempt-secrets", env = "HOOK_PASSWORD_VERIFICATION_ATTEMPT_SECRETS", hide_env_values = true, value_parser = secret)]
    pub hook_password_verification_attempt_secrets: Option<SecretString>,

    /// Run the MFA-verification-attempt hook (`HOOK_MFA_VERIFICATION_ATTEMPT_URI`) at every
    /// TOTP or phone factor verification.
    #[arg(long = "hook-mfa-verification-attempt-enabled", env = "HOOK_MFA_VERIFICATION_ATTEMPT_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub hook_mfa_verification_attempt_enabled: bool,

    /// The MFA-verification-attempt hook: `pg-functions://<database>/<schema>/<function>` or an
    /// `http(s)://` endpoint.
    #[arg(long = "hook-mfa-verification-attempt-uri", env = "HOOK_MFA_VERIFICATION_ATTEMPT_URI")]
    pub hook_mfa_verification_attempt_uri: Option<String>,

    /// Standard-webhooks secrets of the MFA-verification-attempt hook, `v1,whsec_<base64>`,
    /// `|`-separated.
    #[arg(long = "hook-mfa-verification-attempt-secrets", env = "HOOK_MFA_VERIFICATION_ATTEMPT_SECRETS", hide_env_values = true, value_parser = secret)]
    pub hook_mfa_verification_attempt_secrets: Option<SecretString>,

    /// Seconds an e-mailed link or code stays valid.
    #[arg(long = "mailer-otp-exp", env = "MAILER_OTP_EXP", default_value_t = 86_400)]
    pub mailer_otp_exp: u64,

    /// Directory of templates replacing the built-in ones (`confirmation.html`, `confirmation.txt`, `recovery.html`, ...).
    #[arg(long = "mailer-templates-dir", env = "MAILER_TEMPLATES_DIR")]
    pub mailer_templates_dir: Option<PathBuf>,

    /// HTML template file of the sign-up confirmation mail, replacing `MAILER_TEMPLATES_DIR`'s; a `.txt` file
    /// beside it, when there is one, is the text part (`[auth.email.template.confirmation] content_path`).
    #[arg(long = "mailer-templates-confirmation", env = "MAILER_TEMPLATES_CONFIRMATION")]
    pub mailer_templates_confirmation: Option<PathBuf>,

    /// HTML template file of the password recovery mail, replacing `MAILER_TEMPLATES_DIR`'s; a `.txt` file
    /// beside it, when there is one, is the text part (`[auth.email.template.recovery] content_path`).
    #[arg(long = "mailer-templates-recovery", env = "MAILER_TEMPLATES_RECOVERY")]
    pub mailer_templates_recovery: Option<PathBuf>,

    /// HTML template file of the magic link mail, replacing `MAILER_TEMPLATES_DIR`'s; a `.txt` file
    /// beside it, when there is one, is the text part (`[auth.email.template.magic_link] content_path`).
    #[arg(long = "mailer-templates-magic-link", env = "MAILER_TEMPLATES_MAGIC_LINK")]
    pub mailer_templates_magic_link: Option<PathBuf>,

    /// HTML template file of the invitation mail, replacing `MAILER_TEMPLATES_DIR`'s; a `.txt` file
    /// beside it, when there is one, is the text part (`[auth.email.template.invite] content_path`).
    #[arg(long = "mailer-templates-invite", env = "MAILER_TEMPLATES_INVITE")]
    pub mailer_templates_invite: Option<PathBuf>,

    /// HTML template file of the e-mail change mail, replacing `MAILER_TEMPLATES_DIR`'s; a `.txt` file
    /// beside it, when there is one, is the text part (`[auth.email.template.email_change] content_path`).
    #[arg(long = "mailer-templates-email-change", env = "MAILER_TEMPLATES_EMAIL_CHANGE")]
    pub mailer_templates_email_change: Option<PathBuf>,

    /// HTML template file of the reauthentication mail, replacing `MAILER_TEMPLATES_DIR`'s; a `.txt` file
    /// beside it, when there is one, is the text part (`[auth.email.template.reauthentication] content_path`).
    #[arg(long = "mailer-templates-reauthentication", env = "MAILER_TEMPLATES_REAUTHENTICATION")]
    pub mailer_templates_reauthentication: Option<PathBuf>,

    /// Subject of the sign-up confirmation mail (default GoTrue's `Confirm Your Email`).
    #[arg(long = "mailer-subjects-confirmation", env = "MAILER_SUBJECTS_CONFIRMATION")]
    pub mailer_subjects_confirmation: Option<String>,

    /// Subject of the password recovery mail (default `Reset Your Password`).
    #[arg(long = "mailer-subjects-recovery", env = "MAILER_SUBJECTS_RECOVERY")]
    pub mailer_subjects_recovery: Option<String>,

    /// Subject of the magic link mail (default `Your Magic Link`).
    #[arg(long = "mailer-subjects-magic-link", env = "MAILER_SUBJECTS_MAGIC_LINK")]
    pub mailer_subjects_magic_link: Option<String>,

    /// Subject of the invitation mail (default `You have been invited`).
    #[arg(long = "mailer-subjects-invite", env = "MAILER_SUBJECTS_INVITE")]
    pub mailer_subjects_invite: Option<String>,

    /// Subject of the e-mail change mails (default `Confirm Email Change`).
    #[arg(long = "mailer-subjects-email-change", env = "MAILER_SUBJECTS_EMAIL_CHANGE")]
    pub mailer_subjects_email_change: Option<String>,

    /// Subject of the reauthentication mail (default `Confirm reauthentication`).
    #[arg(long = "mailer-subjects-reauthentication", env = "MAILER_SUBJECTS_REAUTHENTICATION")]
    pub mailer_subjects_reauthentication: Option<String>,

    /// SMTP server; when unset, mails go to the development inbox at `/inbox`.
    #[arg(long = "smtp-host", env = "SMTP_HOST")]
    pub smtp_host: Option<String>,

    /// SMTP port (465: implicit TLS; otherwise STARTTLS when the server offers it).
    #[arg(long = "smtp-port", env = "SMTP_PORT", default_value_t = 587)]
    pub smtp_port: u16,

    /// SMTP transport security: `auto` (implicit TLS on port 465, else STARTTLS when the server
    /// offers it), `starttls` (STARTTLS required), `tls` (implicit TLS) or `none` (plain text).
    #[arg(long = "smtp-tls", env = "SMTP_TLS", default_value = "auto", value_parser = ["auto", "starttls", "tls", "none"])]
    pub smtp_tls: String,

    /// SMTP user name (no authentication when unset).
    #[arg(long = "smtp-user", env = "SMTP_USER")]
    pub smtp_user: Option<String>,

    /// SMTP password.
    #[arg(long = "smtp-pass", env = "SMTP_PASS", hide_env_values = true, value_parser = secret)]
    pub smtp_pass: Option<SecretString>,

    /// Sender address of auth mails.
    #[arg(long = "smtp-admin-email", env = "SMTP_ADMIN_EMAIL", default_value = "noreply@localhost")]
    pub smtp_admin_email: String,

    /// Sender display name of auth mails.
    #[arg(long = "smtp-sender-name", env = "SMTP_SENDER_NAME", default_value = "Supabase Auth")]
    pub smtp_sender_name: String,

    /// Smallest spacing, in seconds, between two mails of the same kind to one user.
    #[arg(long = "smtp-max-frequency", env = "SMTP_MAX_FREQUENCY", default_value_t = 60)]
    pub smtp_max_frequency: u64,

    /// Mails the whole server may send per hour.
    #[arg(long = "rate-limit-email-sent", env = "RATE_LIMIT_EMAIL_SENT", default_value_t = 360)]
    pub rate_limit_email_sent: u64,

    /// `/token` requests (sign-in, refresh, PKCE) per IP address per 5 minutes.
    #[arg(long = "rate-limit-token-refresh", env = "RATE_LIMIT_TOKEN_REFRESH", default_value_t = 150)]
    pub rate_limit_token_refresh: u64,

    /// `/verify` requests per IP address per 5 minutes.
    #[arg(long = "rate-limit-verify", env = "RATE_LIMIT_VERIFY", default_value_t = 30)]
    pub rate_limit_verify: u64,

    /// Sign-up, `/otp`, `/recover` and `/resend` requests per IP address per 5 minutes.
    #[arg(long = "rate-limit-otp", env = "RATE_LIMIT_OTP", default_value_t = 30)]
    pub rate_limit_otp: u64,

    /// A password change from a session older than 24 hours needs the nonce of `/reauthenticate`.
    #[arg(long = "security-update-password-require-reauthentication", env = "SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", default_value_t = false, action = clap::ArgAction::Set)]
    pub update_password_require_reauthentication: bool,

    /// Let users enrol a phone number as a second factor (`mfa.enroll({factorType: 'phone'})`).
    #[arg(long = "mfa-phone-enroll-enabled", env = "MFA_PHONE_ENROLL_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub mfa_phone_enroll_enabled: bool,

    /// Let phone factors be challenged (a code by SMS) and verified.
    #[arg(long = "mfa-phone-verify-enabled", env = "MFA_PHONE_VERIFY_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub mfa_phone_verify_enabled: bool,

    /// Passkeys: `/passkeys/*` (register a passkey while signed in, sign in with it).
    #[arg(long = "passkey-enabled", env = "PASSKEY_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub passkey_enabled: bool,

    /// Passkeys one user may register.
    #[arg(long = "passkey-max-passkeys-per-user", env = "PASSKEY_MAX_PASSKEYS_PER_USER", default_value_t = 10)]
    pub passkey_max_per_user: i64,

    /// `/passkeys/authentication/options` requests per IP address per 5 minutes.
    #[arg(long = "rate-limit-passkey", env = "RATE_LIMIT_PASSKEY", default_value_t = 30)]
    pub rate_limit_passkey: u64,

    /// Let users enrol a WebAuthn security key or passkey as a second factor.
    #[arg(long = "mfa-web-authn-enroll-enabled", env = "MFA_WEB_AUTHN_ENROLL_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub mfa_webauthn_enroll_enabled: bool,

    /// Let WebAuthn factors be challenged and verified.
    #[arg(long = "mfa-web-authn-verify-enabled", env = "MFA_WEB_AUTHN_VERIFY_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub mfa_webauthn_verify_enabled: bool,

    /// WebAuthn relying party id: the domain passkeys are bound to (default: SITE_URL's host).
    #[arg(long = "webauthn-rp-id", env = "WEBAUTHN_RP_ID")]
    pub webauthn_rp_id: Option<String>,

    /// WebAuthn relying party name shown by authenticators (default: the RP id).
    #[arg(long = "webauthn-rp-display-name", env = "WEBAUTHN_RP_DISPLAY_NAME")]
    pub webauthn_rp_display_name: Option<String>,

    /// Origins a WebAuthn answer may come from, comma-separated (default: SITE_URL's origin).
    #[arg(long = "webauthn-rp-origins", env = "WEBAUTHN_RP_ORIGINS", value_delimiter = ',')]
    pub webauthn_rp_origins: Vec<String>,

    /// How long a WebAuthn challenge stays answerable: `300`, `300s` or `5m`.
    #[arg(long = "webauthn-challenge-expiry-duration", env = "WEBAUTHN_CHALLENGE_EXPIRY_DURATION", default_value = "5m", value_parser = duration_secs)]
    pub webauthn_challenge_expiry_secs: u64,

    /// The OAuth 2.1 server: third-party apps registered through `/admin/oauth/clients` sign
    /// users in with `/oauth/authorize` and `/oauth/token` (PKCE S256); off, those routes
    /// answer 404 `feature_disabled`.
    #[arg(long = "oauth-server-enabled", env = "OAUTH_SERVER_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub oauth_server_enabled: bool,

    /// Let anyone register an OAuth client with `POST /oauth/clients/register` (RFC 7591).
    #[arg(long = "oauth-server-allow-dynamic-registration", env = "OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION", default_value_t = false, action = clap::ArgAction::Set)]
    pub oauth_server_allow_dynamic_registration: bool,

    /// The site's consent page (a path under SITE_URL, such as `/oauth/consent`) that
    /// `/oauth/authorize` sends the user to with `?authorization_id=`.
    #[arg(long = "oauth-server-authorization-path", env = "OAUTH_SERVER_AUTHORIZATION_PATH")]
    pub oauth_server_authorization_path: Option<String>,

    /// How long an authorization request, and the code it gives, stays usable: `600`, `600s` or `10m`.
    #[arg(long = "oauth-server-authorization-ttl", env = "OAUTH_SERVER_AUTHORIZATION_TTL", default_value = "10m", value_parser = duration_secs)]
    pub oauth_server_authorization_ttl_secs: u64,

    /// The scopes asked for when `/oauth/authorize` names none (space-separated).
    #[arg(long = "oauth-server-default-scope", env = "OAUTH_SERVER_DEFAULT_SCOPE", default_value = "email")]
    pub oauth_server_default_scope: String,

    /// Let signed-in users link (`linkIdentity`) and unlink (`unlinkIdentity`) OAuth identities.
    #[arg(long = "security-manual-linking-enabled", env = "SECURITY_MANUAL_LINKING_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub manual_linking_enabled: bool,

    /// Google ID tokens (`signInWithIdToken({provider: 'google'})`).
    #[arg(long = "external-google-enabled", env = "EXTERNAL_GOOGLE_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub google_enabled: bool,

    /// Google OAuth client ids whose ID tokens are accepted (comma-separated).
    #[arg(long = "external-google-client-id", env = "EXTERNAL_GOOGLE_CLIENT_ID", value_delimiter = ',')]
    pub google_client_id: Vec<String>,

    /// Google OAuth client secret: enables the redirect flow (`signInWithOAuth`).
    #[arg(long = "external-google-secret", env = "EXTERNAL_GOOGLE_SECRET", hide_env_values = true, value_parser = secret)]
    pub google_secret: Option<SecretString>,

    /// Accept Google ID tokens without the nonce check.
    #[arg(long = "external-google-skip-nonce-check", env = "EXTERNAL_GOOGLE_SKIP_NONCE_CHECK", default_value_t = false, action = clap::ArgAction::Set)]
    pub google_skip_nonce_check: bool,

    /// Sign in with Apple ID tokens.
    #[arg(long = "external-apple-enabled", env = "EXTERNAL_APPLE_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub apple_enabled: bool,

    /// Apple service / bundle ids whose ID tokens are accepted (comma-separated).
    #[arg(long = "external-apple-client-id", env = "EXTERNAL_APPLE_CLIENT_ID", value_delimiter = ',')]
    pub apple_client_id: Vec<String>,

    /// Accept Apple ID tokens without the nonce check.
    #[arg(long = "external-apple-skip-nonce-check", env = "EXTERNAL_APPLE_SKIP_NONCE_CHECK", default_value_t = false, action = clap::ArgAction::Set)]
    pub apple_skip_nonce_check: bool,

    /// Sign in with GitLab (`signInWithOAuth({provider: 'gitlab'})`, through GitLab's OpenID Connect).
    #[arg(long = "external-gitlab-enabled", env = "EXTERNAL_GITLAB_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub gitlab_enabled: bool,

    /// The GitLab application's id.
    #[arg(long = "external-gitlab-client-id", env = "EXTERNAL_GITLAB_CLIENT_ID", value_delimiter = ',')]
    pub gitlab_client_id: Vec<String>,

    /// The GitLab application's secret.
    #[arg(long = "external-gitlab-secret", env = "EXTERNAL_GITLAB_SECRET", hide_env_values = true, value_parser = secret)]
    pub gitlab_secret: Option<SecretString>,

    /// GitLab's URL (a self-managed instance's), which is its OpenID Connect issuer.
    #[arg(long = "external-gitlab-url", env = "EXTERNAL_GITLAB_URL", default_value = "https://gitlab.com")]
    pub gitlab_url: String,

    /// Apple's client secret (the JWT signed with the team's key): enables the redirect flow.
    #[arg(long = "external-apple-secret", env = "EXTERNAL_APPLE_SECRET", hide_env_values = true, value_parser = secret)]
    pub apple_secret: Option<SecretString>,

    /// Apple's OpenID Connect issuer (another one only for a test double).
    #[arg(long = "external-apple-url", env = "EXTERNAL_APPLE_URL", default_value = "https://appleid.apple.com")]
    pub apple_url: String,

    /// Sign in with Microsoft Entra ID / Azure AD (ID tokens, and the redirect flow with a secret).
    #[arg(long = "external-azure-enabled", env = "EXTERNAL_AZURE_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub azure_enabled: bool,

    /// The Azure application (client) ids.
    #[arg(long = "external-azure-client-id", env = "EXTERNAL_AZURE_CLIENT_ID", value_delimiter = ',')]
    pub azure_client_id: Vec<String>,

    /// The Azure application's client secret.
    #[arg(long = "external-azure-secret", env = "EXTERNAL_AZURE_SECRET", hide_env_values = true, value_parser = secret)]
    pub azure_secret: Option<SecretString>,

    /// The Azure issuer: a tenant's (`https://login.microsoftonline.com/<tenant>/v2.0`) or the
    /// multi-tenant `common`, `organizations` or `consumers` one (any tenant's tokens then pass).
    #[arg(
        long = "external-azure-url",
        env = "EXTERNAL_AZURE_URL",
        default_value = "https://login.microsoftonline.com/common/v2.0"
    )]
    pub azure_url: String,

    /// Sign in with Discord (`signInWithOAuth({provider: 'discord'})`).
    #[arg(long = "external-discord-enabled", env = "EXTERNAL_DISCORD_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub discord_enabled: bool,

    /// The Discord application's client id.
    #[arg(long = "external-discord-client-id", env = "EXTERNAL_DISCORD_CLIENT_ID", value_delimiter = ',')]
    pub discord_client_id: Vec<String>,

    /// The Discord application's client secret.
    #[arg(long = "external-discord-secret", env = "EXTERNAL_DISCORD_SECRET", hide_env_values = true, value_parser = secret)]
    pub discord_secret: Option<SecretString>,

    /// Discord's base URL (another one only for a test double).
    #[arg(long = "external-discord-url", env = "EXTERNAL_DISCORD_URL", default_value = "https://discord.com")]
    pub discord_url: String,

    /// Sign in with Facebook (`signInWithOAuth({provider: 'facebook'})`).
    #[arg(long = "external-facebook-enabled", env = "EXTERNAL_FACEBOOK_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub facebook_enabled: bool,

    /// The Facebook app id.
    #[arg(long = "external-facebook-client-id", env = "EXTERNAL_FACEBOOK_CLIENT_ID", value_delimiter = ',')]
    pub facebook_client_id: Vec<String>,

    /// The Facebook app secret.
    #[arg(long = "external-facebook-secret", env = "EXTERNAL_FACEBOOK_SECRET", hide_env_values = true, value_parser = secret)]
    pub facebook_secret: Option<SecretString>,

    /// One base URL for Facebook's dialog, token and Graph endpoints (unset: www.facebook.com
    /// and graph.facebook.com).
    #[arg(long = "external-facebook-url", env = "EXTERNAL_FACEBOOK_URL")]
    pub facebook_url: Option<String>,

    /// Sign in with GitHub (`signInWithOAuth({provider: 'github'})`).
    #[arg(long = "external-github-enabled", env = "EXTERNAL_GITHUB_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub github_enabled: bool,

    /// The GitHub OAuth app's client id.
    #[arg(long = "external-github-client-id", env = "EXTERNAL_GITHUB_CLIENT_ID", value_delimiter = ',')]
    pub github_client_id: Vec<String>,

    /// The GitHub OAuth app's client secret.
    #[arg(long = "external-github-secret", env = "EXTERNAL_GITHUB_SECRET", hide_env_values = true, value_parser = secret)]
    pub github_secret: Option<SecretString>,

    /// GitHub's base URL (a GitHub Enterprise server's; its API is then `<url>/api/v3`).
    #[arg(long = "external-github-url", env = "EXTERNAL_GITHUB_URL", default_value = "https://github.com")]
    pub github_url: String,

    /// Keycloak (or any OpenID Connect provider) ID tokens.
    #[arg(long = "external-keycloak-enabled", env = "EXTERNAL_KEYCLOAK_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub keycloak_enabled: bool,

    /// The realm's issuer URL (`https://host/realms/<realm>`), whose discovery document is read.
    #[arg(long = "external-keycloak-url", env = "EXTERNAL_KEYCLOAK_URL")]
    pub keycloak_url: Option<String>,

    /// Keycloak client ids whose ID tokens are accepted (comma-separated).
    #[arg(long = "external-keycloak-client-id", env = "EXTERNAL_KEYCLOAK_CLIENT_ID", value_delimiter = ',')]
    pub keycloak_client_id: Vec<String>,

    /// Keycloak client secret: enables the redirect flow (`signInWithOAuth`).
    #[arg(long = "external-keycloak-secret", env = "EXTERNAL_KEYCLOAK_SECRET", hide_env_values = true, value_parser = secret)]
    pub keycloak_secret: Option<SecretString>,

    /// Accept Keycloak ID tokens without the nonce check.
    #[arg(long = "external-keycloak-skip-nonce-check", env = "EXTERNAL_KEYCLOAK_SKIP_NONCE_CHECK", default_value_t = false, action = clap::ArgAction::Set)]
    pub keycloak_skip_nonce_check: bool,

    /// Sign-up and sign-in with a phone number (password or SMS code) and phone changes.
    #[arg(long = "external-phone-enabled", env = "EXTERNAL_PHONE_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub phone_enabled: bool,

    /// Confirm phone numbers at sign-up without sending a code.
    #[arg(long = "sms-autoconfirm", env = "SMS_AUTOCONFIRM", default_value_t = false, action = clap::ArgAction::Set)]
    pub sms_autoconfirm: bool,

    /// Where text messages go: unset or `inbox` (the development inbox at /inbox), `twilio`,
    /// `twilio_verify`, `messagebird`, `textlocal` or `vonage`.
    #[arg(long = "sms-provider", env = "SMS_PROVIDER")]
    pub sms_provider: Option<String>,

    /// Twilio account SID (`SMS_PROVIDER=twilio`).
    #[arg(long = "sms-twilio-account-sid", env = "SMS_TWILIO_ACCOUNT_SID")]
    pub sms_twilio_account_sid: Option<String>,

    /// Twilio auth token.
    #[arg(long = "sms-twilio-auth-token", env = "SMS_TWILIO_AUTH_TOKEN", hide_env_values = true, value_parser = secret)]
    pub sms_twilio_auth_token: Option<SecretString>,

    /// Twilio Messaging Service SID (`MG…`) or sender number.
    #[arg(long = "sms-twilio-message-service-sid", env = "SMS_TWILIO_MESSAGE_SERVICE_SID")]
    pub sms_twilio_message_service_sid: Option<String>,

    /// Base URL of Twilio's REST API (a different one only for a regional edge or a test double).
    #[arg(long = "sms-twilio-api-url", env = "SMS_TWILIO_API_URL", default_value = "https://api.twilio.com")]
    pub sms_twilio_api_url: String,

    /// Twilio account SID (`SMS_PROVIDER=twilio_verify`: Twilio Verify makes and checks the codes).
    #[arg(long = "sms-twilio-verify-account-sid", env = "SMS_TWILIO_VERIFY_ACCOUNT_SID")]
    pub sms_twilio_verify_account_sid: Option<String>,

    /// Twilio auth token for Twilio Verify.
    #[arg(long = "sms-twilio-verify-auth-token", env = "SMS_TWILIO_VERIFY_AUTH_TOKEN", hide_env_values = true, value_parser = secret)]
    pub sms_twilio_verify_auth_token: Option<SecretString>,

    /// The Twilio Verify service SID (`VA…`).
    #[arg(long = "sms-twilio-verify-message-service-sid", env = "SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID")]
    pub sms_twilio_verify_message_service_sid: Option<String>,

    /// Base URL of Twilio Verify's API.
    #[arg(
        long = "sms-twilio-verify-api-url",
        env = "SMS_TWILIO_VERIFY_API_URL",
        default_value = "https://verify.twilio.com"
    )]
    pub sms_twilio_verify_api_url: String,

    /// Textlocal API key (`SMS_PROVIDER=textlocal`).
    #[arg(long = "sms-textlocal-api-key", env = "SMS_TEXTLOCAL_API_KEY", hide_env_values = true, value_parser = secret)]
    pub sms_textlocal_api_key: Option<SecretString>,

    /// Textlocal sender name.
    #[arg(long = "sms-textlocal-sender", env = "SMS_TEXTLOCAL_SENDER")]
    pub sms_textlocal_sender: Option<String>,

    /// Base URL of Textlocal's API.
    #[arg(long = "sms-textlocal-api-url", env = "SMS_TEXTLOCAL_API_URL", default_value = "https://api.txtlocal.com")]
    pub sms_textlocal_api_url: String,

    /// MessageBird access key (`SMS_PROVIDER=messagebird`).
    #[arg(long = "sms-messagebird-access-key", env = "SMS_MESSAGEBIRD_ACCESS_KEY", hide_env_values = true, value_parser = secret)]
    pub sms_messagebird_access_key: Option<SecretString>,

    /// MessageBird sender name or number.
    #[arg(long = "sms-messagebird-originator", env = "SMS_MESSAGEBIRD_ORIGINATOR")]
    pub sms_messagebird_originator: Option<String>,

    /// Base URL of MessageBird's REST API.
    #[arg(
        long = "sms-messagebird-api-url",
        env = "SMS_MESSAGEBIRD_API_URL",
        default_value = "https://rest.messagebird.com"
    )]
    pub sms_messagebird_api_url: String,

    /// Vonage API key (`SMS_PROVIDER=vonage`).
    #[arg(long = "sms-vonage-api-key", env = "SMS_VONAGE_API_KEY")]
    pub sms_vonage_api_key: Option<String>,

    /// Vonage API secret.
    #[arg(long = "sms-vonage-api-secret", env = "SMS_VONAGE_API_SECRET", hide_env_values = true, value_parser = secret)]
    pub sms_vonage_api_secret: Option<SecretString>,

    /// Vonage sender name or number.
    #[arg(long = "sms-vonage-from", env = "SMS_VONAGE_FROM")]
    pub sms_vonage_from: Option<String>,

    /// Base URL of Vonage's SMS API.
    #[arg(long = "sms-vonage-api-url", env = "SMS_VONAGE_API_URL", default_value = "https://rest.nexmo.com")]
    pub sms_vonage_api_url: String,

    /// The text of a code message; `{{ .Code }}` is replaced by the code.
    #[arg(long = "sms-template", env = "SMS_TEMPLATE", default_value = "Your code is {{ .Code }}")]
    pub sms_template: String,

    /// Fixed codes for test numbers, `number:code` comma-separated (`+243810000000:123456`):
    /// no text is sent to them and the code is always the same.
    #[arg(long = "sms-test-otp", env = "SMS_TEST_OTP", value_delimiter = ',')]
    pub sms_test_otp: Vec<String>,

    /// Until when (RFC 3339) the test codes of `SMS_TEST_OTP` are honoured; unset: always.
    #[arg(long = "sms-test-otp-valid-until", env = "SMS_TEST_OTP_VALID_UNTIL")]
    pub sms_test_otp_valid_until: Option<chrono::DateTime<chrono::Utc>>,

    /// Seconds an SMS code stays valid.
    #[arg(long = "sms-otp-exp", env = "SMS_OTP_EXP", default_value_t = 60)]
    pub sms_otp_exp: u64,

    /// Seconds between two codes sent to the same user.
    #[arg(long = "sms-max-frequency", env = "SMS_MAX_FREQUENCY", default_value_t = 60)]
    pub sms_max_frequency: u64,

    /// Text messages the whole server may send per hour.
    #[arg(long = "rate-limit-sms-sent", env = "RATE_LIMIT_SMS_SENT", default_value_t = 30)]
    pub rate_limit_sms_sent: u64,

    /// Text messages one phone number may receive per hour (codes of sign-in, sign-up, phone
    /// change and phone factors together), so that one number cannot use up the server's budget.
    #[arg(long = "rate-limit-sms-per-number", env = "RATE_LIMIT_SMS_PER_NUMBER", default_value_t = 10)]
    pub rate_limit_sms_per_number: u64,

    /// Wrong codes accepted for one texted code (per phone number for `/verify`, per factor for a
    /// phone factor's challenge) within an hour; past it the code is void and a new one must be
    /// asked for, whatever address the guesses come from.
    #[arg(long = "sms-max-failed-verifications", env = "SMS_MAX_FAILED_VERIFICATIONS", default_value_t = 5)]
    pub sms_max_failed_verifications: u64,

    /// Anonymous sign-ins (`signInAnonymously`) per IP address per hour.
    #[arg(long = "rate-limit-anonymous-users", env = "RATE_LIMIT_ANONYMOUS_USERS", default_value_t = 30)]
    pub rate_limit_anonymous_users: u64,

    /// Let visitors sign in anonymously (`signInAnonymously()`): a user with no address, the
    /// `is_anonymous` claim, made permanent by adding an e-mail address (GoTrue's setting).
    #[arg(long = "external-anonymous-users-enabled", env = "EXTERNAL_ANONYMOUS_USERS_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub anonymous_users_enabled: bool,

    /// Header holding the client IP (e.g. `X-Forwarded-For` behind a proxy); unset: the peer address.
    #[arg(long = "rate-limit-header", env = "RATE_LIMIT_HEADER")]
    pub rate_limit_header: Option<String>,
}

/// Settings of `/rest/v1`, under PostgREST's own environment names.
#[derive(Debug, Clone, Args)]
pub struct RestConfig {
    /// Exposed schemas, comma-separated; the first is the default.
    #[arg(long = "db-schemas", env = "PGRST_DB_SCHEMAS", default_value = "public", value_delimiter = ',')]
    pub schemas: Vec<String>,

    /// Role of requests without a user token. An empty value refuses anonymous requests.
    #[arg(long = "db-anon-role", env = "PGRST_DB_ANON_ROLE", default_value = "anon")]
    pub anon_role: String,

    /// Schemas appended to each request's search_path, comma-separated.
    #[arg(
        long = "db-extra-search-path",
        env = "PGRST_DB_EXTRA_SEARCH_PATH",
        default_value = "public,extensions",
        value_delimiter = ','
    )]
    pub extra_search_path: Vec<String>,

    /// Function (`schema.name` or `name`) called at the start of every request's transaction.
    #[arg(long = "db-pre-request", env = "PGRST_DB_PRE_REQUEST")]
    pub pre_request: Option<String>,

    /// Largest number of rows a read returns (unset: no cap).
    #[arg(long = "db-max-rows", env = "PGRST_DB_MAX_ROWS")]
    pub max_rows: Option<u64>,

    /// How transactions end: commit, commit-allow-override, rollback, rollback-allow-override.
    #[arg(long = "db-tx-end", env = "PGRST_DB_TX_END", default_value = "commit")]
    pub tx_end: String,

    /// Allow aggregate functions (`count()`, `col.sum()`, ...) in `select`.
    #[arg(long = "db-aggregates-enabled", env = "PGRST_DB_AGGREGATES_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub aggregates_enabled: bool,

    /// Answer `Accept: application/vnd.pgrst.plan+json` with the query plan.
    #[arg(long = "db-plan-enabled", env = "PGRST_DB_PLAN_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub plan_enabled: bool,

    /// Secret verifying JWTs on /rest/v1 (default: JWT_SECRET).
    #[arg(id = "rest_jwt_secret", long = "rest-jwt-secret", env = "PGRST_JWT_SECRET", hide_env_values = true, value_parser = secret)]
    pub jwt_secret: Option<SecretString>,

    /// `PGRST_JWT_SECRET` is base64 (standard or URL-safe alphabet): its decoded bytes sign.
    #[arg(long = "jwt-secret-is-base64", env = "PGRST_JWT_SECRET_IS_BASE64", default_value_t = false, action = clap::ArgAction::Set)]
    pub jwt_secret_is_base64: bool,

    /// Audience JWTs must carry (unset: not checked).
    #[arg(long = "jwt-aud", env = "PGRST_JWT_AUD")]
    pub jwt_aud: Option<String>,

    /// Path of the role claim in the JWT, PostgREST-style (`.role`, `.app_metadata.role`).
    #[arg(long = "jwt-role-claim-key", env = "PGRST_JWT_ROLE_CLAIM_KEY", default_value = ".role")]
    pub role_claim_key: String,

    /// Accept `/rest/v1` requests without an `apikey`, as plain PostgREST does.
    #[arg(long = "rest-allow-no-apikey", env = "REST_ALLOW_NO_APIKEY", default_value_t = false, action = clap::ArgAction::Set)]
    pub allow_no_apikey: bool,

    /// Largest request body accepted by /rest/v1, in bytes.
    #[arg(long = "rest-max-body", env = "REST_MAX_BODY_BYTES", default_value_t = 10 * 1024 * 1024)]
    pub max_body_bytes: usize,

    /// Longest query string accepted by /rest/v1, in bytes.
    #[arg(long = "rest-max-url-bytes", env = "REST_MAX_URL_BYTES", default_value_t = 16 * 1024)]
    pub max_url_bytes: usize,

    /// Most embedded resources in one `select`, all levels together.
    #[arg(long = "rest-max-embeds", env = "REST_MAX_EMBEDS", default_value_t = 50)]
    pub max_embeds: usize,

    /// Deepest embedding (`a(b(c(...)))`) in one `select`.
    #[arg(long = "rest-max-embed-depth", env = "REST_MAX_EMBED_DEPTH", default_value_t = 8)]
    pub max_embed_depth: usize,

    /// Most items (columns, `*`, embeds) in one `select`, all levels together.
    #[arg(long = "rest-max-select-items", env = "REST_MAX_SELECT_ITEMS", default_value_t = 500)]
    pub max_select_items: usize,

    /// What `GET /rest/v1/` describes: `follow-privileges` (the tables and functions the caller's
    /// role can use), `ignore-privileges` (all of the schema's) or `disabled` (PGRST126).
    #[arg(long = "openapi-mode", env = "PGRST_OPENAPI_MODE", default_value = "follow-privileges",
          value_parser = ["follow-privileges", "ignore-privileges", "disabled"])]
    pub openapi_mode: String,

    /// Describe the `Authorization: Bearer` JWT in the OpenAPI document.
    #[arg(long = "openapi-security-active", env = "PGRST_OPENAPI_SECURITY_ACTIVE", default_value_t = false, action = clap::ArgAction::Set)]
    pub openapi_security_active: bool,

    /// Send `Server-Timing` (jwt, parse, plan, transaction and response, in milliseconds) on
    /// every successful /rest/v1 answer.
    #[arg(long = "server-timing-enabled", env = "PGRST_SERVER_TIMING_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub server_timing: bool,

    /// Most values in one `in.(...)` filter.
    #[arg(long = "rest-max-in-values", env = "REST_MAX_IN_VALUES", default_value_t = 1000)]
    pub max_in_values: usize,

    /// Most filter conditions (horizontal filters plus `and`/`or` tree nodes) in one request.
    #[arg(long = "rest-max-filters", env = "REST_MAX_FILTERS", default_value_t = 200)]
    pub max_logic_nodes: usize,
}

impl RestConfig {
    /// The role claim path split into keys.
    pub fn role_claim_path(&self) -> Vec<String> {
        self.role_claim_key.split('.').filter(|s| !s.is_empty()).map(|s| s.trim_matches('"').to_string()).collect()
    }

    /// The anon role, unless anonymous access is disabled.
    pub fn anon(&self) -> Option<&str> {
        Some(self.anon_role.as_str()).filter(|r| !r.is_empty())
    }
}

impl Config {
    /// The URL clients use to reach this API.
    pub fn external_url(&self, bound_port: u16) -> String {
        match &self.api_external_url {
            Some(url) => url.trim_end_matches('/').to_string(),
            None => format!("http://{}:{}", self.host, bound_port),
        }
    }
}

/// Clap value parser for secrets: wraps the text at once so it never sits in a printable `String`.
/// A duration as GoTrue writes it (`90s`, `5m`, `1h`) or a number of seconds.
fn duration_secs(raw: &str) -> Result<u64, String> {
    let raw = raw.trim();
    let (number, unit) = match raw.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => raw.split_at(at),
        None => (raw, "s"),
    };
    let n: u64 = number.parse().map_err(|_| format!("{raw:?} is not a duration such as 300s or 5m"))?;
    match unit {
        "s" => Ok(n),
        "m" => Ok(n * 60),
        "h" => Ok(n * 3600),
        _ => Err(format!("{raw:?} is not a duration such as 300s or 5m")),
    }
}

pub(crate) fn secret(value: &str) -> Result<SecretString, std::convert::Infallible> {
    Ok(SecretString::from(value))
}

/// A whole number of seconds, at least one.
pub(crate) fn seconds(value: &str) -> Result<std::time::Duration, String> {
    match value.trim().parse::<u64>() {
        Ok(n) if n >= 1 => Ok(std::time::Duration::from_secs(n)),
        _ => Err(format!("expected a whole number of seconds (1 or more), got {value:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn rest_settings_follow_postgrest_names() {
        let cli =
            Cli::parse_from(["server", "--db-schemas", "api,public", "--jwt-role-claim-key", ".app_metadata.role"]);
        assert_eq!(cli.config.rest.schemas, vec!["api", "public"]);
        assert_eq!(cli.config.rest.role_claim_path(), vec!["app_metadata", "role"]);
        assert_eq!(cli.config.rest.anon(), Some("anon"));
    }

    #[test]
    fn auth_settings_have_gotrue_defaults() {
        let cli = Cli::parse_from(["server", "--uri-allow-list", "http://a.test/*,http://b.test"]);
        assert_eq!(cli.config.auth.jwt_exp, 3600);
        assert_eq!(cli.config.auth.password_min_length, 6);
        assert_eq!(cli.config.auth.refresh_token_reuse_interval, 10);
        assert_eq!(cli.config.auth.refresh_token_algorithm_version, 1);
        assert_eq!(cli.config.auth.uri_allow_list, vec!["http://a.test/*", "http://b.test"]);
    }
}
