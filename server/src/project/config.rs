//! A Supabase project's `config.toml`, read as the Supabase CLI reads it, turned into what this
//! server runs on: settings (the server's own environment names, so a flag or a variable that is
//! already set still wins over the file), and what the project applies itself (buckets, seeds,
//! migrations, the database's major version).
//!
//! A string `env(NAME)` is replaced by the variable `NAME`, as the CLI does (left as it is, with
//! a warning, when `NAME` is unset). Every key is looked up in `RULES`: a key the CLI knows that
//! means nothing on one server (ports, Studio, the mail catcher) is skipped silently; one this
//! server does not apply yet is listed in a notice; a key the CLI does not know is a warning that
//! names it; a value of the wrong type is an error that names the key and the type it needs.

use std::path::{Path, PathBuf};

use toml::Value;

use super::ProjectError;

/// What a `config.toml` gives.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ProjectConfig {
    /// Settings as `(environment name, value)`.
    pub env: Vec<(String, String)>,
    pub buckets: Vec<Bucket>,
    /// `[db] major_version`.
    pub major_version: Option<i64>,
    /// `[db.migrations] enabled` (default true).
    pub migrations_enabled: bool,
    /// `[db.seed] enabled` (default true).
    pub seed_enabled: bool,
    /// `[db.seed] sql_paths`, relative to the project folder (default `./seed.sql`).
    pub seed_paths: Vec<String>,
    /// `[functions.<name>]`: whether each function is served, checked for a JWT, and its entry.
    pub functions: std::collections::HashMap<String, FunctionSettings>,
    /// `[edge_runtime]`: whether functions are served at all, the request policy, secrets.
    pub edge_runtime: EdgeRuntimeSettings,
    /// Keys the CLI knows that this server does not apply yet.
    pub not_applied: Vec<String>,
    /// Keys the CLI does not know, and `env(NAME)` references to unset variables.
    pub warnings: Vec<String>,
}

/// `[storage.buckets.<name>]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bucket {
    pub name: String,
    pub public: Option<bool>,
    pub file_size_limit: Option<i64>,
    pub allowed_mime_types: Option<Vec<String>>,
    /// `objects_path`, relative to the project folder: files uploaded to the bucket (`seed::objects`).
    pub objects_path: Option<String>,
}

/// `[functions.<name>]` of `config.toml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionSettings {
    /// Served at all (default true).
    pub enabled: bool,
    /// Requests need a valid JWT in `Authorization` (default true).
    pub verify_jwt: bool,
    /// The entry file, relative to the project folder (default `functions/<name>/index.ts`).
    pub entrypoint: Option<String>,
    /// `import_map`: the function's import map or `deno.json`, relative to the project folder
    /// (default: the function's own `deno.json`, `deno.jsonc` or `import_map.json`, else
    /// `functions/import_map.json`).
    pub import_map: Option<String>,
    /// `static_files`: glob patterns, relative to the project folder, of files the function
    /// reads (`Deno.readFile`), besides its own folder.
    pub static_files: Vec<String>,
    /// `request_idle_timeout_secs`, a key of this server (not the CLI's): the request idle timeout
    /// of this function, over `FUNCTIONS_REQUEST_IDLE_SECS`.
    pub request_idle_timeout_secs: Option<u64>,
    /// `memory_limit_mb`, a key of this server: the function's heap limit in MiB, over
    /// `FUNCTIONS_MEMORY_LIMIT_MB`.
    pub memory_limit_mb: Option<u64>,
    /// `cpu_time_limit_ms`, a key of this server: the function's CPU time per request in ms, over
    /// `FUNCTIONS_CPU_TIME_LIMIT_MS` (0: none).
    pub cpu_time_limit_ms: Option<u64>,
    /// `schedule`, a key of this server (not the CLI's): a cron expression (`*/5 * * * *`) at
    /// which pg_cron has the function called (`functions::schedule`).
    pub schedule: Option<String>,
}

impl Default for FunctionSettings {
    fn default() -> Self {
        FunctionSettings {
            enabled: true,
            verify_jwt: true,
            entrypoint: None,
            import_map: None,
            static_files: Vec::new(),
            request_idle_timeout_secs: None,
            memory_limit_mb: None,
            cpu_time_limit_ms: None,
            schedule: None,
        }
    }
}

/// `[edge_runtime]` of `config.toml` (`inspector_port` means nothing here: no inspector is
/// opened; `deno_version` is checked, functions run on the pinned Deno 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeRuntimeSettings {
    /// `enabled` (default true): false serves no function (every one is not found).
    pub enabled: bool,
    /// `policy`: `per_worker` (default) or `oneshot`.
    pub policy: RequestPolicy,
    /// `[edge_runtime.secrets]`: variables every function gets (`functions/.env` wins over them).
    pub secrets: Vec<(String, String)>,
}

impl Default for EdgeRuntimeSettings {
    fn default() -> Self {
        EdgeRuntimeSettings { enabled: true, policy: RequestPolicy::PerWorker, secrets: Vec::new() }
    }
}

/// `[edge_runtime] policy`: how long a function's worker serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestPolicy {
    /// One worker serves a function's requests until it is idle, replaced or stopped (default).
    PerWorker,
    /// Each request gets a fresh worker, which ends with it.
    Oneshot,
}

/// How a value becomes a setting.
#[derive(Debug, Clone, Copy)]
enum Conv {
    Str,
    Bool,
    /// A boolean the server's setting states the other way round (`enable_signup` → `DISABLE_SIGNUP`).
    NotBool,
    Int,
    /// An array of strings, comma-joined.
    List,
    /// `"50MiB"`, `"5MB"`, a number of bytes: bytes (1024-based units, as the CLI reads them).
    Size,
    /// `"1s"`, `"5m"`, `"1h30m"`: seconds.
    Seconds,
    /// `password_requirements` (`""`, `"letters_digits"`, …): GoTrue's `:`-separated character sets.
    PasswordRequirements,
}

#[derive(Debug, Clone, Copy)]
enum Rule {
    /// The value is this setting.
    Env(&'static str, Conv),
    /// `auth.external.<provider>.<field>`: `EXTERNAL_<PROVIDER>_<FIELD>` where the server has it.
    External(Conv),
    /// `auth.email.template.<kind>.subject`: `MAILER_SUBJECTS_<KIND>`.
    Subject,
    /// `auth.email.template.<kind>.content_path`: `MAILER_TEMPLATES_<KIND>`, made relative to the
    /// project folder's parent by `load`.
    Template,
    /// `auth.sms.test_otp.<number> = "<code>"`: one entry of `SMS_TEST_OTP`.
    TestOtp,
    /// `auth.sms.<provider>.<field>`: applied by `sms_providers` once every key is read.
    SmsProvider,
    /// `[auth.email.smtp]` values, applied only when the section is enabled.
    Smtp(&'static str, Conv),
    /// Read by the project itself (buckets, seeds, migrations, major version).
    Project,
    /// Means nothing on this server (ports, Studio, the mail catcher, the pooler…).
    Skip,
    /// Known to the CLI and not applied here yet.
    NotYet,
}

/// Key patterns (`*` is one segment) and their rules; the first match wins.
const RULES: &[(&str, Rule)] = &[
    ("project_id", Rule::Skip),
    ("api.enabled", Rule::Skip),
    ("api.port", Rule::Skip),
    ("api.tls.*", Rule::Skip),
    ("api.schemas", Rule::Env("PGRST_DB_SCHEMAS", Conv::List)),
    ("api.extra_search_path", Rule::Env("PGRST_DB_EXTRA_SEARCH_PATH", Conv::List)),
    ("api.max_rows", Rule::Env("PGRST_DB_MAX_ROWS", Conv::Int)),
    ("db.major_version", Rule::Project),
    ("db.migrations.enabled", Rule::Project),
    ("db.migrations.schema_paths", Rule::NotYet),
    ("db.seed.enabled", Rule::Project),
    ("db.seed.sql_paths", Rule::Project),
    ("db.port", Rule::Skip),
    ("db.shadow_port", Rule::Skip),
    ("db.health_timeout", Rule::Skip),
    ("db.pooler.*", Rule::Skip),
    ("db.network_restrictions.*", Rule::Skip),
    ("db.vault.*", Rule::NotYet),
    ("db.settings.*", Rule::NotYet),
    ("db.root_key", Rule::NotYet),
    ("realtime.*", Rule::Skip),
    ("studio.*", Rule::Skip),
    ("inbucket.*", Rule::Skip),
    ("analytics.*", Rule::Skip),
    ("experimental.*", Rule::Skip),
    ("remotes.*", Rule::NotYet),
    ("edge_runtime.enabled", Rule::Project),
    ("edge_runtime.policy", Rule::Project),
    ("edge_runtime.deno_version", Rule::Project),
    ("edge_runtime.secrets.*", Rule::Project),
    ("edge_runtime.inspector_port", Rule::Skip),
    ("edge_runtime.*", Rule::NotYet),
    ("functions.*.enabled", Rule::Project),
    ("functions.*.verify_jwt", Rule::Project),
    ("functions.*.entrypoint", Rule::Project),
    ("functions.*.import_map", Rule::Project),
    ("functions.*.static_files", Rule::Project),
    ("functions.*.request_idle_timeout_secs", Rule::Project),
    ("functions.*.memory_limit_mb", Rule::Project),
    ("functions.*.cpu_time_limit_ms", Rule::Project),
    ("functions.*.schedule", Rule::Project),
    ("functions.*", Rule::NotYet),
    ("storage.enabled", Rule::Skip),
    ("storage.file_size_limit", Rule::Env("FILE_SIZE_LIMIT", Conv::Size)),
    ("storage.image_transformation.*", Rule::Skip),
    ("storage.s3_protocol.*", Rule::Skip),
    ("storage.analytics.*", Rule::NotYet),
    ("storage.vector.*", Rule::NotYet),
    ("storage.buckets.*.public", Rule::Project),
    ("storage.buckets.*.file_size_limit", Rule::Project),
    ("storage.buckets.*.allowed_mime_types", Rule::Project),
    ("storage.buckets.*.objects_path", Rule::Project),
    ("auth.enabled", Rule::Skip),
    ("auth.site_url", Rule::Env("SITE_URL", Conv::Str)),
    ("auth.additional_redirect_urls", Rule::Env("URI_ALLOW_LIST", Conv::List)),
    ("auth.jwt_expiry", Rule::Env("JWT_EXP", Conv::Int)),
    ("auth.refresh_token_reuse_interval", Rule::Env("REFRESH_TOKEN_REUSE_INTERVAL", Conv::Int)),
    ("auth.enable_signup", Rule::Env("DISABLE_SIGNUP", Conv::NotBool)),
    ("auth.enable_anonymous_sign_ins", Rule::Env("EXTERNAL_ANONYMOUS_USERS_ENABLED", Conv::Bool)),
    ("auth.enable_manual_linking", Rule::Env("SECURITY_MANUAL_LINKING_ENABLED", Conv::Bool)),
    ("auth.minimum_password_length", Rule::Env("PASSWORD_MIN_LENGTH", Conv::Int)),
    ("auth.enable_refresh_token_rotation", Rule::NotYet),
    ("auth.password_requirements", Rule::Env("PASSWORD_REQUIRED_CHARACTERS", Conv::PasswordRequirements)),
    ("auth.signing_keys_path", Rule::Env(SIGNING_KEYS, Conv::Str)),
    ("auth.jwt_secret", Rule::Env("JWT_SECRET", Conv::Str)),
    ("auth.passkey.enabled", Rule::Env("PASSKEY_ENABLED", Conv::Bool)),
    ("auth.passkey.*", Rule::NotYet),
    ("auth.webauthn.rp_display_name", Rule::Env("WEBAUTHN_RP_DISPLAY_NAME", Conv::Str)),
    ("auth.webauthn.rp_id", Rule::Env("WEBAUTHN_RP_ID", Conv::Str)),
    ("auth.webauthn.rp_origins", Rule::Env("WEBAUTHN_RP_ORIGINS", Conv::List)),
    ("auth.webauthn.*", Rule::NotYet),
    ("auth.jwt_issuer", Rule::NotYet),
    ("auth.rate_limit.email_sent", Rule::Env("RATE_LIMIT_EMAIL_SENT", Conv::Int)),
    ("auth.rate_limit.sms_sent", Rule::Env("RATE_LIMIT_SMS_SENT", Conv::Int)),
    ("auth.rate_limit.anonymous_users", Rule::Env("RATE_LIMIT_ANONYMOUS_USERS", Conv::Int)),
    ("auth.rate_limit.token_refresh", Rule::Env("RATE_LIMIT_TOKEN_REFRESH", Conv::Int)),
    ("auth.rate_limit.token_verifications", Rule::Env("RATE_LIMIT_VERIFY", Conv::Int)),
    ("auth.rate_limit.sign_in_sign_ups", Rule::Env("RATE_LIMIT_OTP", Conv::Int)),
    ("auth.rate_limit.*", Rule::NotYet),
    ("auth.captcha.*", Rule::NotYet),
    ("auth.email.enable_signup", Rule::Env("EXTERNAL_EMAIL_ENABLED", Conv::Bool)),
    ("auth.email.double_confirm_changes", Rule::Env("MAILER_SECURE_EMAIL_CHANGE_ENABLED", Conv::Bool)),
    ("auth.email.enable_confirmations", Rule::Env("MAILER_AUTOCONFIRM", Conv::NotBool)),
    ("auth.email.secure_password_change", Rule::Env("SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", Conv::Bool)),
    ("auth.email.max_frequency", Rule::Env("SMTP_MAX_FREQUENCY", Conv::Seconds)),
    ("auth.email.otp_expiry", Rule::Env("MAILER_OTP_EXP", Conv::Int)),
    ("auth.email.otp_length", Rule::Env("MAILER_OTP_LENGTH", Conv::Int)),
    ("auth.email.smtp.enabled", Rule::Project),
    ("auth.email.smtp.host", Rule::Smtp("SMTP_HOST", Conv::Str)),
    ("auth.email.smtp.port", Rule::Smtp("SMTP_PORT", Conv::Int)),
    ("auth.email.smtp.user", Rule::Smtp("SMTP_USER", Conv::Str)),
    ("auth.email.smtp.pass", Rule::Smtp("SMTP_PASS", Conv::Str)),
    ("auth.email.smtp.admin_email", Rule::Smtp("SMTP_ADMIN_EMAIL", Conv::Str)),
    ("auth.email.smtp.sender_name", Rule::Smtp("SMTP_SENDER_NAME", Conv::Str)),
    ("auth.email.template.*.subject", Rule::Subject),
    ("auth.email.template.*.content_path", Rule::Template),
    ("auth.email.notification.*", Rule::NotYet),
    ("auth.sms.enable_signup", Rule::Env("EXTERNAL_PHONE_ENABLED", Conv::Bool)),
    ("auth.sms.enable_confirmations", Rule::Env("SMS_AUTOCONFIRM", Conv::NotBool)),
    ("auth.sms.template", Rule::Env("SMS_TEMPLATE", Conv::Str)),
    ("auth.sms.max_frequency", Rule::Env("SMS_MAX_FREQUENCY", Conv::Seconds)),
    ("auth.sms.test_otp.*", Rule::TestOtp),
    ("auth.sms.*.*", Rule::SmsProvider),
    ("auth.sms.*", Rule::NotYet),
    ("auth.sessions.*", Rule::NotYet),
    ("auth.hook.before_user_created.enabled", Rule::Env("HOOK_BEFORE_USER_CREATED_ENABLED", Conv::Bool)),
    ("auth.hook.before_user_created.uri", Rule::Env("HOOK_BEFORE_USER_CREATED_URI", Conv::Str)),
    ("auth.hook.custom_access_token.enabled", Rule::Env("HOOK_CUSTOM_ACCESS_TOKEN_ENABLED", Conv::Bool)),
    ("auth.hook.custom_access_token.uri", Rule::Env("HOOK_CUSTOM_ACCESS_TOKEN_URI", Conv::Str)),
    ("auth.hook.custom_access_token.secrets", Rule::Env("HOOK_CUSTOM_ACCESS_TOKEN_SECRETS", Conv::Str)),
    (
        "auth.hook.password_verification_attempt.enabled",
        Rule::Env("HOOK_PASSWORD_VERIFICATION_ATTEMPT_ENABLED", Conv::Bool),
    ),
    ("auth.hook.password_verification_attempt.uri", Rule::Env("HOOK_PASSWORD_VERIFICATION_ATTEMPT_URI", Conv::Str)),
    (
        "auth.hook.password_verification_attempt.secrets",
        Rule::Env("HOOK_PASSWORD_VERIFICATION_ATTEMPT_SECRETS", Conv::Str),
    ),
    ("auth.hook.mfa_verification_attempt.enabled", Rule::Env("HOOK_MFA_VERIFICATION_ATTEMPT_ENABLED", Conv::Bool)),
    ("auth.hook.mfa_verification_attempt.uri", Rule::Env("HOOK_MFA_VERIFICATION_ATTEMPT_URI", Conv::Str)),
    ("auth.hook.mfa_verification_attempt.secrets", Rule::Env("HOOK_MFA_VERIFICATION_ATTEMPT_SECRETS", Conv::Str)),
    ("auth.hook.*", Rule::NotYet),
    ("auth.mfa.phone.enroll_enabled", Rule::Env("MFA_PHONE_ENROLL_ENABLED", Conv::Bool)),
    ("auth.mfa.phone.verify_enabled", Rule::Env("MFA_PHONE_VERIFY_ENABLED", Conv::Bool)),
    ("auth.mfa.web_authn.enroll_enabled", Rule::Env("MFA_WEB_AUTHN_ENROLL_ENABLED", Conv::Bool)),
    ("auth.mfa.web_authn.verify_enabled", Rule::Env("MFA_WEB_AUTHN_VERIFY_ENABLED", Conv::Bool)),
    ("auth.mfa.max_enrolled_factors", Rule::Env("MFA_MAX_ENROLLED_FACTORS", Conv::Int)),
    ("auth.mfa.totp.enroll_enabled", Rule::Env("MFA_TOTP_ENROLL_ENABLED", Conv::Bool)),
    ("auth.mfa.totp.verify_enabled", Rule::Env("MFA_TOTP_VERIFY_ENABLED", Conv::Bool)),
    ("auth.mfa.*", Rule::NotYet),
    ("auth.external.*.enabled", Rule::External(Conv::Bool)),
    ("auth.external.*.client_id", Rule::External(Conv::Str)),
    ("auth.external.*.secret", Rule::External(Conv::Str)),
    ("auth.external.*.url", Rule::External(Conv::Str)),
    ("auth.external.*.skip_nonce_check", Rule::External(Conv::Bool)),
    ("auth.external.*.*", Rule::NotYet),
    ("auth.web3.*", Rule::NotYet),
    ("auth.third_party.*", Rule::NotYet),
    ("auth.oauth_server.enabled", Rule::Env("OAUTH_SERVER_ENABLED", Conv::Bool)),
    ("auth.oauth_server.allow_dynamic_registration", Rule::Env("OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION", Conv::Bool)),
    ("auth.oauth_server.authorization_url_path", Rule::Env("OAUTH_SERVER_AUTHORIZATION_PATH", Conv::Str)),
    ("auth.oauth_server.*", Rule::NotYet),
];

/// The `EXTERNAL_*` settings the server has (providers and fields).
const EXTERNAL: &[&str] = &[
    "APPLE_ENABLED",
    "APPLE_CLIENT_ID",
    "APPLE_SECRET",
    "APPLE_URL",
    "APPLE_SKIP_NONCE_CHECK",
    "AZURE_ENABLED",
    "AZURE_CLIENT_ID",
    "AZURE_SECRET",
    "AZURE_URL",
    "DISCORD_ENABLED",
    "DISCORD_CLIENT_ID",
    "DISCORD_SECRET",
    "DISCORD_URL",
    "FACEBOOK_ENABLED",
    "FACEBOOK_CLIENT_ID",
    "FACEBOOK_SECRET",
    "FACEBOOK_URL",
    "GITHUB_ENABLED",
    "GITHUB_CLIENT_ID",
    "GITHUB_SECRET",
    "GITHUB_URL",
    "GITLAB_ENABLED",
    "GITLAB_CLIENT_ID",
    "GITLAB_SECRET",
    "GITLAB_URL",
    "GOOGLE_ENABLED",
    "GOOGLE_CLIENT_ID",
    "GOOGLE_SECRET",
    "GOOGLE_SKIP_NONCE_CHECK",
    "KEYCLOAK_ENABLED",
    "KEYCLOAK_CLIENT_ID",
    "KEYCLOAK_SECRET",
    "KEYCLOAK_URL",
    "KEYCLOAK_SKIP_NONCE_CHECK",
];

/// The mail kinds whose subject the server takes (`MAILER_SUBJECTS_<KIND>`).
const SUBJECTS: &[&str] = &["confirmation", "recovery", "magic_link", "invite", "email_change", "reauthentication"];

/// Read `config.toml` of the project folder `dir` (a folder without one has the defaults).
pub fn load(dir: &Path, lookup: &dyn Fn(&str) -> Option<String>) -> Result<ProjectConfig, ProjectError> {
    let path = dir.join("config.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(err) => return Err(ProjectError::Io(path, err)),
    };
    let mut config = parse(&text, lookup).map_err(|message| ProjectError::Config(path, message))?;
    // Template paths are relative to the folder the CLI runs in: the project folder's parent; the
    // signing keys' to the project folder itself.
    let base = dir.parent().unwrap_or(Path::new(""));
    for (name, value) in &mut config.env {
        if name.starts_with(TEMPLATE_PREFIX) && Path::new(value.as_str()).is_relative() {
            *value = base.join(value.as_str()).to_string_lossy().into_owned();
        }
        if name == SIGNING_KEYS && Path::new(value.as_str()).is_relative() {
            *value = dir.join(value.as_str()).to_string_lossy().into_owned();
        }
    }
    Ok(config)
}

/// `[auth.email.template.<kind>] content_path` becomes `MAILER_TEMPLATES_<KIND>`.
const TEMPLATE_PREFIX: &str = "MAILER_TEMPLATES_";
/// `[auth] signing_keys_path`, relative to the project folder (`./signing_keys.json` beside `config.toml`).
const SIGNING_KEYS: &str = "SIGNING_KEYS_PATH";

/// Parse a `config.toml`'s text; `lookup` reads the environment for `env(NAME)`.
pub fn parse(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<ProjectConfig, String> {
    let root: toml::Table = text.parse().map_err(|e: toml::de::Error| e.message().to_string())?;
    let mut out = ProjectConfig {
        migrations_enabled: true,
        seed_enabled: true,
        seed_paths: vec!["./seed.sql".into()],
        ..Default::default()
    };
    let mut leaves = Vec::new();
    flatten(&mut Vec::new(), &Value::Table(root), &mut leaves);
    let smtp_enabled = leaves
        .iter()
        .find(|(k, _)| k == "auth.email.smtp.enabled")
        .map(|(_, v)| v.as_bool().ok_or_else(|| wrong("auth.email.smtp.enabled", "a boolean")))
        .transpose()?
        .unwrap_or(true);
    let mut test_otp = Vec::new();
    let mut sms = Vec::new();
    for (key, value) in leaves {
        let value = substitute(&key, value, lookup, &mut out.warnings);
        let segments: Vec<&str> = key.split('.').collect();
        let Some(rule) = RULES.iter().find(|(pattern, _)| matches(pattern, &segments)).map(|(_, r)| *r) else {
            out.warnings.push(format!("unknown key {key} in config.toml"));
            continue;
        };
        match rule {
            Rule::Env(name, conv) => out.env.push((name.into(), convert(&key, &value, conv)?)),
            Rule::Smtp(name, conv) => {
                if smtp_enabled {
                    out.env.push((name.into(), convert(&key, &value, conv)?));
                }
            }
            Rule::External(conv) => {
                let name = format!("{}_{}", segments[2], segments[3]).to_ascii_uppercase();
                if EXTERNAL.contains(&name.as_str()) {
                    out.env.push((format!("EXTERNAL_{name}"), convert(&key, &value, conv)?));
                } else {
                    out.not_applied.push(key);
                }
            }
            Rule::Subject => {
                if SUBJECTS.contains(&segments[3]) {
                    out.env.push((
                        format!("MAILER_SUBJECTS_{}", segments[3].to_ascii_uppercase()),
                        convert(&key, &value, Conv::Str)?,
                    ));
                } else {
                    out.not_applied.push(key);
                }
            }
            Rule::Template => {
                if SUBJECTS.contains(&segments[3]) {
                    out.env.push((
                        format!("{TEMPLATE_PREFIX}{}", segments[3].to_ascii_uppercase()),
                        convert(&key, &value, Conv::Str)?,
                    ));
                } else {
                    out.not_applied.push(key);
                }
            }
            Rule::TestOtp => test_otp.push(format!("{}:{}", segments[3], convert(&key, &value, Conv::Str)?)),
            Rule::SmsProvider => sms.push((segments[2].to_string(), segments[3].to_string(), key.clone(), value)),
            Rule::Project => project_key(&mut out, &key, &segments, &value)?,
            Rule::Skip => {}
            Rule::NotYet => out.not_applied.push(key),
        }
    }
    if !test_otp.is_empty() {
        out.env.push(("SMS_TEST_OTP".into(), test_otp.join(",")));
    }
    sms_providers(&mut out, sms)?;
    // The CLI's defaults where they differ from the server's own, for keys the file leaves out.
    for (name, value) in CLI_DEFAULTS {
        if !out.env.iter().any(|(n, _)| n == name) {
            out.env.push(((*name).into(), (*value).into()));
        }
    }
    Ok(out)
}

/// The SMS providers of `[auth.sms.<provider>]`, in the order the CLI picks the first enabled.
const SMS_PROVIDERS: &[&str] = &["twilio", "twilio_verify", "messagebird", "textlocal", "vonage"];

/// `[auth.sms.<provider>]` sections as the CLI applies them: the first enabled provider becomes
/// `SMS_PROVIDER` with its fields as `SMS_<PROVIDER>_<FIELD>` (a disabled section's fields are not
/// applied). A file that has provider sections, enables none and turns phone sign-up on gets
/// phone sign-in turned off, with the CLI's own warning: GoTrue would have no way to text a code.
/// A file without any provider section keeps this server's development inbox.
fn sms_providers(out: &mut ProjectConfig, sms: Vec<(String, String, String, Value)>) -> Result<(), String> {
    let mut enabled = None;
    for name in SMS_PROVIDERS {
        for (_, _, key, value) in sms.iter().filter(|(p, f, _, _)| p == name && f == "enabled") {
            if value.as_bool().ok_or_else(|| wrong(key, "a boolean"))? && enabled.is_none() {
                enabled = Some(*name);
            }
        }
    }
    for (provider, field, key, value) in &sms {
        if !SMS_PROVIDERS.contains(&provider.as_str()) {
            out.not_applied.push(key.clone());
        } else if Some(provider.as_str()) == enabled && field != "enabled" {
            let name = format!("SMS_{provider}_{field}").to_ascii_uppercase();
            out.env.push((name, convert(key, value, Conv::Str)?));
        }
    }
    match enabled {
        Some(name) => out.env.push(("SMS_PROVIDER".into(), name.into())),
        None if !sms.is_empty() => {
            if let Some(phone) = out.env.iter_mut().find(|(n, v)| n == "EXTERNAL_PHONE_ENABLED" && v == "true") {
                phone.1 = "false".into();
                out.warnings.push("no SMS provider is enabled. Disabling phone login".into());
            }
        }
        None => {}
    }
    Ok(())
}

/// Settings whose default in a CLI project differs from the server's: `[auth.email]
/// enable_confirmations` is false unless the file says so (GoTrue's own default, and this
/// server's, is to ask for a confirmation).
const CLI_DEFAULTS: &[(&str, &str)] = &[("MAILER_AUTOCONFIRM", "true")];

fn project_key(out: &mut ProjectConfig, key: &str, segments: &[&str], value: &Value) -> Result<(), String> {
    match key {
        "db.major_version" => out.major_version = Some(value.as_integer().ok_or_else(|| wrong(key, "an integer"))?),
        "db.migrations.enabled" => out.migrations_enabled = value.as_bool().ok_or_else(|| wrong(key, "a boolean"))?,
        "db.seed.enabled" => out.seed_enabled = value.as_bool().ok_or_else(|| wrong(key, "a boolean"))?,
        "db.seed.sql_paths" => out.seed_paths = strings(key, value)?,
        "auth.email.smtp.enabled" => {}
        "edge_runtime.enabled" => out.edge_runtime.enabled = value.as_bool().ok_or_else(|| wrong(key, "a boolean"))?,
        "edge_runtime.policy" => {
            out.edge_runtime.policy = match value.as_str() {
                Some("per_worker") => RequestPolicy::PerWorker,
                Some("oneshot") => RequestPolicy::Oneshot,
                _ => return Err(wrong(key, "\"per_worker\" or \"oneshot\"")),
            }
        }
        "edge_runtime.deno_version" => match value.as_integer() {
            Some(2) => {}
            Some(1) => out.warnings.push(
                "edge_runtime.deno_version = 1: functions run on Deno 2 here (the pinned one), as with deno_version = 2".into(),
            ),
            _ => return Err(wrong(key, "1 or 2")),
        },
        _ if segments[0] == "edge_runtime" => {
            let secret = value.as_str().ok_or_else(|| wrong(key, "a string"))?;
            out.edge_runtime.secrets.push((segments[2].to_string(), secret.to_string()));
        }
        _ if segments[0] == "functions" => {
            let function = out.functions.entry(segments[1].to_string()).or_default();
            match segments[2] {
                "enabled" => function.enabled = value.as_bool().ok_or_else(|| wrong(key, "a boolean"))?,
                "verify_jwt" => function.verify_jwt = value.as_bool().ok_or_else(|| wrong(key, "a boolean"))?,
                "request_idle_timeout_secs" => {
                    let secs = value.as_integer().and_then(|v| u64::try_from(v).ok());
                    function.request_idle_timeout_secs =
                        Some(secs.ok_or_else(|| wrong(key, "a non-negative integer"))?);
                }
                "memory_limit_mb" => {
                    let mb = value.as_integer().and_then(|v| u64::try_from(v).ok()).filter(|mb| *mb >= 16);
                    function.memory_limit_mb = Some(mb.ok_or_else(|| wrong(key, "an integer of at least 16"))?);
                }
                "cpu_time_limit_ms" => {
                    let ms = value.as_integer().and_then(|v| u64::try_from(v).ok());
                    function.cpu_time_limit_ms = Some(ms.ok_or_else(|| wrong(key, "a non-negative integer"))?);
                }
                "schedule" => {
                    let cron = value.as_str().map(str::trim).filter(|c| !c.is_empty());
                    function.schedule = Some(cron.ok_or_else(|| wrong(key, "a cron expression"))?.to_string());
                }
                "import_map" => function.import_map = Some(value.as_str().ok_or_else(|| wrong(key, "a string"))?.to_string()),
                "static_files" => function.static_files = strings(key, value)?,
                _ => function.entrypoint = Some(value.as_str().ok_or_else(|| wrong(key, "a string"))?.to_string()),
            }
        }
        _ => {
            let name = segments[2].to_string();
            let index = match out.buckets.iter().position(|b| b.name == name) {
                Some(i) => i,
                None => {
                    out.buckets.push(Bucket {
                        name,
                        public: None,
                        file_size_limit: None,
                        allowed_mime_types: None,
                        objects_path: None,
                    });
                    out.buckets.len() - 1
                }
            };
            let bucket = &mut out.buckets[index];
            match segments[3] {
                "public" => bucket.public = Some(value.as_bool().ok_or_else(|| wrong(key, "a boolean"))?),
                "file_size_limit" => bucket.file_size_limit = Some(size(key, value)?),
                "objects_path" => {
                    bucket.objects_path = Some(value.as_str().ok_or_else(|| wrong(key, "a string"))?.to_string())
                }
                _ => bucket.allowed_mime_types = Some(strings(key, value)?),
            }
        }
    }
    Ok(())
}

fn flatten(path: &mut Vec<String>, value: &Value, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Table(table) => {
            for (k, v) in table {
                path.push(k.clone());
                flatten(path, v, out);
                path.pop();
            }
        }
        leaf => out.push((path.join("."), leaf.clone())),
    }
}

fn matches(pattern: &str, segments: &[&str]) -> bool {
    let parts: Vec<&str> = pattern.split('.').collect();
    // A trailing `*` takes the rest of the key; another `*` takes one segment.
    if parts.last() == Some(&"*") && parts.len() <= segments.len() {
        let head = &parts[..parts.len() - 1];
        return head.iter().zip(segments).all(|(p, s)| *p == "*" || p == s) && segments.len() >= parts.len();
    }
    parts.len() == segments.len() && parts.iter().zip(segments).all(|(p, s)| *p == "*" || p == s)
}

/// `env(NAME)` strings (also inside arrays) replaced by the variable.
fn substitute(key: &str, value: Value, lookup: &dyn Fn(&str) -> Option<String>, warnings: &mut Vec<String>) -> Value {
    match value {
        Value::String(s) => {
            let name = s.strip_prefix("env(").and_then(|r| r.strip_suffix(')')).map(str::trim);
            match name {
                Some(name) => match lookup(name) {
                    Some(v) => Value::String(v),
                    None => {
                        warnings.push(format!("{key}: the variable {name} of env({name}) is not set"));
                        Value::String(s)
                    }
                },
                None => Value::String(s),
            }
        }
        Value::Array(items) => Value::Array(items.into_iter().map(|v| substitute(key, v, lookup, warnings)).collect()),
        other => other,
    }
}

fn wrong(key: &str, expected: &str) -> String {
    format!("{key} must be {expected}")
}

fn strings(key: &str, value: &Value) -> Result<Vec<String>, String> {
    value
        .as_array()
        .and_then(|items| items.iter().map(|v| v.as_str().map(str::to_string)).collect::<Option<Vec<_>>>())
        .ok_or_else(|| wrong(key, "an array of strings"))
}

const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS: &str = "0123456789";
/// The symbols of `lower_upper_letters_digits_symbols`, as the CLI sends them to GoTrue (the
/// colon escaped, so it stays in this set).
const SYMBOLS: &str = "!@#$%^&*()_+-=[]{};'\\\\:\"|<>?,./`~";

fn convert(key: &str, value: &Value, conv: Conv) -> Result<String, String> {
    Ok(match conv {
        Conv::Str => value.as_str().ok_or_else(|| wrong(key, "a string"))?.to_string(),
        Conv::Bool => value.as_bool().ok_or_else(|| wrong(key, "a boolean"))?.to_string(),
        Conv::NotBool => (!value.as_bool().ok_or_else(|| wrong(key, "a boolean"))?).to_string(),
        Conv::Int => value.as_integer().ok_or_else(|| wrong(key, "an integer"))?.to_string(),
        Conv::List => strings(key, value)?.join(","),
        Conv::Size => size(key, value)?.to_string(),
        Conv::Seconds => match value {
            Value::Integer(n) => n.to_string(),
            Value::String(s) => {
                seconds(s).ok_or_else(|| wrong(key, "a duration such as \"60s\" or \"5m\""))?.to_string()
            }
            _ => return Err(wrong(key, "a duration such as \"60s\" or \"5m\"")),
        },
        Conv::PasswordRequirements => {
            let wanted = "one of \"\", \"letters_digits\", \"lower_upper_letters_digits\", \"lower_upper_letters_digits_symbols\"";
            match value.as_str().ok_or_else(|| wrong(key, wanted))? {
                "" => String::new(),
                "letters_digits" => format!("{LOWER}{UPPER}:{DIGITS}"),
                "lower_upper_letters_digits" => format!("{LOWER}:{UPPER}:{DIGITS}"),
                "lower_upper_letters_digits_symbols" => format!("{LOWER}:{UPPER}:{DIGITS}:{SYMBOLS}"),
                _ => return Err(wrong(key, wanted)),
            }
        }
    })
}

/// A size as the CLI reads it: bytes, or a number with `k`/`kb`/`kib`, `m`…, `g`…, `t`…
/// (any case), all 1024-based.
fn size(key: &str, value: &Value) -> Result<i64, String> {
    let invalid = || wrong(key, "a size such as \"50MiB\" or a number of bytes");
    match value {
        Value::Integer(n) if *n >= 0 => Ok(*n),
        Value::String(s) => {
            let s = s.trim().to_ascii_lowercase();
            let end = s.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(s.len());
            let number: f64 = s[..end].parse().map_err(|_| invalid())?;
            let unit = s[end..].trim();
            let unit = unit.strip_suffix("ib").or_else(|| unit.strip_suffix('b')).unwrap_or(unit);
            let factor = match unit {
                "" => 1.0,
                "k" => 1024.0,
                "m" => 1024f64.powi(2),
                "g" => 1024f64.powi(3),
                "t" => 1024f64.powi(4),
                _ => return Err(invalid()),
            };
            Ok((number * factor) as i64)
        }
        _ => Err(invalid()),
    }
}

/// Go's duration text (`"1s"`, `"5m"`, `"1h30m"`, `"500ms"`) in whole seconds.
fn seconds(text: &str) -> Option<u64> {
    let mut total = 0f64;
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let end = rest.find(|c: char| !c.is_ascii_digit() && c != '.')?;
        let number: f64 = rest[..end].parse().ok()?;
        rest = &rest[end..];
        let unit_end = rest.find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len());
        let factor = match &rest[..unit_end] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            _ => return None,
        };
        total += number * factor;
        rest = &rest[unit_end..];
    }
    Some(total.round() as u64)
}

/// Seed files: each of `patterns` (relative to `dir`, globs allowed) in order, the matches of a
/// glob sorted, each file once; a pattern that matches nothing is returned in the second list.
pub fn seed_files(dir: &Path, patterns: &[String]) -> (Vec<PathBuf>, Vec<String>) {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut unmatched = Vec::new();
    for pattern in patterns {
        let full = dir.join(pattern.trim_start_matches("./"));
        let mut found: Vec<PathBuf> = glob::glob(&full.to_string_lossy())
            .map(|paths| paths.filter_map(Result::ok).filter(|p| p.is_file()).collect())
            .unwrap_or_default();
        found.sort();
        if found.is_empty() {
            unmatched.push(pattern.clone());
        }
        for file in found {
            if !files.contains(&file) {
                files.push(file);
            }
        }
    }
    (files, unmatched)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn env_of(config: &ProjectConfig, name: &str) -> Option<String> {
        config.env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn each_group_becomes_the_servers_settings() {
        let text = r#"
            project_id = "demo"
            [api]
            port = 54321
            schemas = ["public", "graphql_public"]
            extra_search_path = ["public", "extensions"]
            max_rows = 100
            [db]
            major_version = 15
            [db.pooler]
            enabled = false
            [db.seed]
            sql_paths = ["./seed.sql", "./seeds/*.sql"]
            [storage]
            file_size_limit = "50MiB"
            [storage.buckets.avatars]
            public = true
            file_size_limit = "1MB"
            allowed_mime_types = ["image/png", "image/jpeg"]
            objects_path = "./images"
            [auth]
            site_url = "http://localhost:3000"
            additional_redirect_urls = ["http://localhost:3000/a", "http://localhost:3000/b"]
            jwt_expiry = 1800
            enable_signup = false
            enable_anonymous_sign_ins = true
            minimum_password_length = 8
            [auth.email]
            enable_confirmations = true
            max_frequency = "1m30s"
            [auth.email.template.invite]
            subject = "Bienvenue"
            [auth.sms.test_otp]
            243810000000 = "123456"
            [auth.external.github]
            enabled = true
            client_id = "id"
            secret = "env(GITHUB_SECRET)"
            redirect_uri = ""
        "#;
        let lookup = |name: &str| (name == "GITHUB_SECRET").then(|| "s3cret".to_string());
        let config = parse(text, &lookup).unwrap();
        let expect = [
            ("PGRST_DB_SCHEMAS", "public,graphql_public"),
            ("PGRST_DB_EXTRA_SEARCH_PATH", "public,extensions"),
            ("PGRST_DB_MAX_ROWS", "100"),
            ("FILE_SIZE_LIMIT", "52428800"),
            ("SITE_URL", "http://localhost:3000"),
            ("URI_ALLOW_LIST", "http://localhost:3000/a,http://localhost:3000/b"),
            ("JWT_EXP", "1800"),
            ("DISABLE_SIGNUP", "true"),
            ("EXTERNAL_ANONYMOUS_USERS_ENABLED", "true"),
            ("PASSWORD_MIN_LENGTH", "8"),
            ("MAILER_AUTOCONFIRM", "false"),
            ("SMTP_MAX_FREQUENCY", "90"),
            ("MAILER_SUBJECTS_INVITE", "Bienvenue"),
            ("SMS_TEST_OTP", "243810000000:123456"),
            ("EXTERNAL_GITHUB_ENABLED", "true"),
            ("EXTERNAL_GITHUB_CLIENT_ID", "id"),
            ("EXTERNAL_GITHUB_SECRET", "s3cret"),
        ];
        for (name, value) in expect {
            assert_eq!(env_of(&config, name).as_deref(), Some(value), "{name}");
        }
        assert_eq!(config.major_version, Some(15));
        assert_eq!(config.seed_paths, vec!["./seed.sql", "./seeds/*.sql"]);
        assert_eq!(
            config.buckets,
            vec![Bucket {
                name: "avatars".into(),
                public: Some(true),
                file_size_limit: Some(1_048_576),
                allowed_mime_types: Some(vec!["image/png".into(), "image/jpeg".into()]),
                objects_path: Some("./images".into()),
            }]
        );
        assert_eq!(config.not_applied, vec!["auth.external.github.redirect_uri"]);
        assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    }

    #[test]
    fn the_oauth_server_section_becomes_its_settings() {
        let text = "[auth.oauth_server]\nenabled = true\nauthorization_url_path = \"/oauth/consent\"\nallow_dynamic_registration = true";
        let config = parse(text, &no_env).unwrap();
        assert_eq!(env_of(&config, "OAUTH_SERVER_ENABLED").as_deref(), Some("true"));
        assert_eq!(env_of(&config, "OAUTH_SERVER_AUTHORIZATION_PATH").as_deref(), Some("/oauth/consent"));
        assert_eq!(env_of(&config, "OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION").as_deref(), Some("true"));
        assert!(config.not_applied.is_empty(), "{:?}", config.not_applied);
    }

    #[test]
    fn password_email_mfa_and_access_token_hook_keys_become_gotrues_settings() {
        let text = r#"
            [auth]
            password_requirements = "lower_upper_letters_digits_symbols"
            [auth.email]
            enable_signup = false
            otp_length = 8
            [auth.mfa]
            max_enrolled_factors = 3
            [auth.mfa.totp]
            enroll_enabled = false
            verify_enabled = false
            [auth.hook.mfa_verification_attempt]
            enabled = true
            uri = "https://hooks.example/mfa"
            secrets = "v1,whsec_ZGVm"
            [auth.hook.password_verification_attempt]
            enabled = true
            uri = "pg-functions://postgres/public/attempts"
            [auth.hook.custom_access_token]
            enabled = true
            uri = "pg-functions://postgres/public/claims"
            secrets = "env(HOOK_SECRET)"
        "#;
        let config = parse(text, &|n: &str| (n == "HOOK_SECRET").then(|| "v1,whsec_YWJj".into())).unwrap();
        assert_eq!(
            env_of(&config, "PASSWORD_REQUIRED_CHARACTERS").as_deref(),
            Some(
                "abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789:!@#$%^&*()_+-=[]{};'\\\\:\"|<>?,./`~"
            )
        );
        assert_eq!(env_of(&config, "EXTERNAL_EMAIL_ENABLED").as_deref(), Some("false"));
        assert_eq!(env_of(&config, "MAILER_OTP_LENGTH").as_deref(), Some("8"));
        assert_eq!(env_of(&config, "MFA_MAX_ENROLLED_FACTORS").as_deref(), Some("3"));
        assert_eq!(env_of(&config, "MFA_TOTP_ENROLL_ENABLED").as_deref(), Some("false"));
        assert_eq!(env_of(&config, "MFA_TOTP_VERIFY_ENABLED").as_deref(), Some("false"));
        assert_eq!(env_of(&config, "HOOK_CUSTOM_ACCESS_TOKEN_ENABLED").as_deref(), Some("true"));
        assert_eq!(
            env_of(&config, "HOOK_CUSTOM_ACCESS_TOKEN_URI").as_deref(),
            Some("pg-functions://postgres/public/claims")
        );
        assert_eq!(env_of(&config, "HOOK_CUSTOM_ACCESS_TOKEN_SECRETS").as_deref(), Some("v1,whsec_YWJj"));
        assert_eq!(env_of(&config, "HOOK_PASSWORD_VERIFICATION_ATTEMPT_ENABLED").as_deref(), Some("true"));
        assert_eq!(env_of(&config, "HOOK_MFA_VERIFICATION_ATTEMPT_URI").as_deref(), Some("https://hooks.example/mfa"));
        assert_eq!(env_of(&config, "HOOK_MFA_VERIFICATION_ATTEMPT_SECRETS").as_deref(), Some("v1,whsec_ZGVm"));
        assert_eq!(
            env_of(&config, "HOOK_PASSWORD_VERIFICATION_ATTEMPT_URI").as_deref(),
            Some("pg-functions://postgres/public/attempts")
        );
        assert!(config.not_applied.is_empty(), "{:?}", config.not_applied);
        let letters = parse("[auth]\npassword_requirements = \"letters_digits\"", &no_env).unwrap();
        assert_eq!(
            env_of(&letters, "PASSWORD_REQUIRED_CHARACTERS").as_deref(),
            Some("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789")
        );
        let err = parse("[auth]\npassword_requirements = \"strong\"", &no_env).unwrap_err();
        assert!(err.contains("auth.password_requirements must be one of"), "{err}");
    }

    #[test]
    fn an_unknown_key_warns_with_its_name_and_a_wrong_type_fails_with_its_name() {
        let config = parse("[api]\nmax_rowz = 5\n[auth]\nsite_url = \"env(NOPE)\"", &no_env).unwrap();
        assert_eq!(config.warnings[0], "unknown key api.max_rowz in config.toml");
        assert_eq!(config.warnings[1], "auth.site_url: the variable NOPE of env(NOPE) is not set");
        assert_eq!(parse("[api]\nmax_rows = \"many\"", &no_env).unwrap_err(), "api.max_rows must be an integer");
        assert_eq!(
            parse("[storage.buckets.b]\npublic = 1", &no_env).unwrap_err(),
            "storage.buckets.b.public must be a boolean"
        );
        assert!(parse("[api\n", &no_env).is_err());
    }

    #[test]
    fn an_empty_file_has_the_clis_defaults() {
        let config = parse("", &no_env).unwrap();
        assert!(config.migrations_enabled && config.seed_enabled);
        assert_eq!(config.seed_paths, vec!["./seed.sql"]);
        // addresses are not confirmed unless the file asks for it, as in a CLI project
        assert_eq!(config.env, vec![("MAILER_AUTOCONFIRM".to_string(), "true".to_string())]);
        let asks = parse("[auth.email]\nenable_confirmations = true", &no_env).unwrap();
        assert_eq!(asks.env, vec![("MAILER_AUTOCONFIRM".to_string(), "false".to_string())]);
    }

    #[test]
    fn the_clis_newer_auth_keys_are_read() {
        let text = "[auth]\njwt_secret = \"env(SECRET)\"\n[auth.passkey]\nenabled = true\n[auth.webauthn]\nrp_id = \"localhost\"\nrp_origins = [\"http://localhost:3000\"]\n[auth.rate_limit]\nsign_in_sign_ups = 100";
        let config = parse(text, &|n: &str| (n == "SECRET").then(|| "s".repeat(40))).unwrap();
        assert_eq!(env_of(&config, "JWT_SECRET"), Some("s".repeat(40)));
        assert_eq!(env_of(&config, "PASSKEY_ENABLED").as_deref(), Some("true"));
        assert_eq!(env_of(&config, "WEBAUTHN_RP_ID").as_deref(), Some("localhost"));
        assert_eq!(env_of(&config, "WEBAUTHN_RP_ORIGINS").as_deref(), Some("http://localhost:3000"));
        assert_eq!(env_of(&config, "RATE_LIMIT_OTP").as_deref(), Some("100"));
        assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    }

    #[test]
    fn the_edge_runtime_section_turns_functions_off_picks_the_policy_and_gives_secrets() {
        let text = "[edge_runtime]\nenabled = false\npolicy = \"oneshot\"\ninspector_port = 8083\ndeno_version = 2\n[edge_runtime.secrets]\nAPI_KEY = \"env(MY_KEY)\"";
        let config = parse(text, &|n: &str| (n == "MY_KEY").then(|| "k-1".to_string())).unwrap();
        let expected = EdgeRuntimeSettings {
            enabled: false,
            policy: RequestPolicy::Oneshot,
            secrets: vec![("API_KEY".into(), "k-1".into())],
        };
        assert_eq!(config.edge_runtime, expected);
        assert!(config.not_applied.is_empty() && config.warnings.is_empty(), "{config:?}");
        assert_eq!(parse("", &no_env).unwrap().edge_runtime, EdgeRuntimeSettings::default());
        assert_eq!(
            parse("[edge_runtime]\npolicy = \"per_request\"", &no_env).unwrap_err(),
            "edge_runtime.policy must be \"per_worker\" or \"oneshot\""
        );
        assert_eq!(
            parse("[edge_runtime]\ndeno_version = 3", &no_env).unwrap_err(),
            "edge_runtime.deno_version must be 1 or 2"
        );
        assert_eq!(parse("[edge_runtime]\ndeno_version = 1", &no_env).unwrap().warnings.len(), 1);
    }

    #[test]
    fn functions_sections_say_which_are_served_checked_and_where_their_entry_is() {
        let text = "[functions.hook]\nverify_jwt = false\n[functions.old]\nenabled = false\n[functions.moved]\nentrypoint = \"./elsewhere/main.ts\"\nimport_map = \"./map.json\"\nstatic_files = [\"./functions/moved/*.html\"]";
        let config = parse(text, &no_env).unwrap();
        let hook = FunctionSettings { verify_jwt: false, ..Default::default() };
        let old = FunctionSettings { enabled: false, ..Default::default() };
        let moved = FunctionSettings {
            entrypoint: Some("./elsewhere/main.ts".into()),
            import_map: Some("./map.json".into()),
            static_files: vec!["./functions/moved/*.html".into()],
            ..Default::default()
        };
        assert_eq!(config.functions.get("hook"), Some(&hook));
        assert_eq!(config.functions.get("old"), Some(&old));
        assert_eq!(config.functions.get("moved"), Some(&moved));
        assert!(config.not_applied.is_empty(), "{:?}", config.not_applied);
        assert_eq!(
            parse("[functions.f]\nstatic_files = \"*.html\"", &no_env).unwrap_err(),
            "functions.f.static_files must be an array of strings"
        );
        let tick = parse("[functions.tick]\nschedule = \"*/5 * * * *\"", &no_env).unwrap();
        assert_eq!(tick.functions.get("tick").and_then(|f| f.schedule.as_deref()), Some("*/5 * * * *"));
        assert_eq!(
            parse("[functions.f]\nschedule = 5", &no_env).unwrap_err(),
            "functions.f.schedule must be a cron expression"
        );
        let limited = parse("[functions.big]\nmemory_limit_mb = 512\ncpu_time_limit_ms = 0", &no_env).unwrap();
        let big = limited.functions.get("big").map(|f| (f.memory_limit_mb, f.cpu_time_limit_ms));
        assert_eq!(big, Some((Some(512), Some(0))));
        assert_eq!(
            parse("[functions.f]\nmemory_limit_mb = 8", &no_env).unwrap_err(),
            "functions.f.memory_limit_mb must be an integer of at least 16"
        );
        let slow = parse("[functions.slow]\nrequest_idle_timeout_secs = 5", &no_env).unwrap();
        assert_eq!(slow.functions.get("slow").and_then(|f| f.request_idle_timeout_secs), Some(5));
        assert_eq!(
            parse("[functions.f]\nrequest_idle_timeout_secs = -1", &no_env).unwrap_err(),
            "functions.f.request_idle_timeout_secs must be a non-negative integer"
        );
        assert_eq!(
            parse("[functions.f]\nverify_jwt = \"no\"", &no_env).unwrap_err(),
            "functions.f.verify_jwt must be a boolean"
        );
    }

    #[test]
    fn sizes_and_durations_read_as_the_cli_reads_them() {
        let v = |s: &str| Value::String(s.into());
        assert_eq!(size("k", &v("5MB")), Ok(5 * 1024 * 1024));
        assert_eq!(size("k", &v("500KB")), Ok(500 * 1024));
        assert_eq!(size("k", &v("1GiB")), Ok(1 << 30));
        assert_eq!(size("k", &Value::Integer(42)), Ok(42));
        assert!(size("k", &v("5XB")).is_err());
        assert_eq!(seconds("5s"), Some(5));
        assert_eq!(seconds("1h30m"), Some(5400));
        assert_eq!(seconds("soon"), None);
    }

    #[test]
    fn a_templates_content_path_is_read_from_the_folder_the_cli_runs_in() {
        let dir = std::env::temp_dir().join(format!("template-project-{}", std::process::id()));
        let project = dir.join("supabase");
        std::fs::create_dir_all(&project).expect("mkdir");
        std::fs::write(
            project.join("config.toml"),
            "[auth.email.template.recovery]\nsubject = \"Mot de passe\"\ncontent_path = \"./mail/recovery.html\"\n\
             [auth.email.template.invite]\ncontent_path = \"/abs/invite.html\"\n\
             [auth.email.template.unknown_kind]\ncontent_path = \"./x.html\"\n",
        )
        .expect("config");
        let config = load(&project, &|_| None).expect("load");
        assert_eq!(
            env_of(&config, "MAILER_TEMPLATES_RECOVERY"),
            Some(dir.join("./mail/recovery.html").to_string_lossy().into_owned())
        );
        assert_eq!(env_of(&config, "MAILER_TEMPLATES_INVITE").as_deref(), Some("/abs/invite.html"));
        assert_eq!(env_of(&config, "MAILER_SUBJECTS_RECOVERY").as_deref(), Some("Mot de passe"));
        assert!(config.not_applied.contains(&"auth.email.template.unknown_kind.content_path".to_string()));
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn the_signing_keys_path_is_read_beside_config_toml() {
        let dir = std::env::temp_dir().join(format!("signing-keys-project-{}", std::process::id()));
        let project = dir.join("supabase");
        std::fs::create_dir_all(&project).expect("mkdir");
        std::fs::write(project.join("config.toml"), "[auth]\nsigning_keys_path = \"./signing_keys.json\"\n")
            .expect("config");
        let config = load(&project, &|_| None).expect("load");
        let path = config.env.iter().find(|(n, _)| n == "SIGNING_KEYS_PATH").map(|(_, v)| v.clone());
        assert_eq!(path, Some(project.join("./signing_keys.json").to_string_lossy().into_owned()));
        assert!(!config.not_applied.iter().any(|k| k.contains("signing_keys")));
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn an_enabled_sms_provider_section_becomes_the_provider_and_its_settings() {
        let text = "[auth.sms]\nenable_signup = true\n[auth.sms.twilio]\nenabled = false\naccount_sid = \"AC0\"\n\
                    [auth.sms.vonage]\nenabled = true\nfrom = \"Kinshasa\"\napi_key = \"k\"\napi_secret = \"env(VONAGE)\"";
        let config = parse(text, &|name| (name == "VONAGE").then(|| "s3cret".to_string())).expect("parse");
        assert_eq!(env_of(&config, "SMS_PROVIDER").as_deref(), Some("vonage"));
        assert_eq!(env_of(&config, "SMS_VONAGE_FROM").as_deref(), Some("Kinshasa"));
        assert_eq!(env_of(&config, "SMS_VONAGE_API_SECRET").as_deref(), Some("s3cret"));
        assert_eq!(env_of(&config, "SMS_TWILIO_ACCOUNT_SID"), None);
        assert_eq!(env_of(&config, "EXTERNAL_PHONE_ENABLED").as_deref(), Some("true"));
        assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    }

    #[test]
    fn phone_sign_up_with_provider_sections_none_enabled_is_turned_off_as_the_cli_does() {
        let text = "[auth.sms]\nenable_signup = true\n[auth.sms.twilio]\nenabled = false\nauth_token = \"x\"";
        let config = parse(text, &no_env).expect("parse");
        assert_eq!(env_of(&config, "EXTERNAL_PHONE_ENABLED").as_deref(), Some("false"));
        assert_eq!(env_of(&config, "SMS_PROVIDER"), None);
        assert_eq!(config.warnings, vec!["no SMS provider is enabled. Disabling phone login".to_string()]);
    }

    #[test]
    fn phone_sign_up_without_any_provider_section_keeps_the_development_inbox() {
        let config = parse("[auth.sms]\nenable_signup = true", &no_env).expect("parse");
        assert_eq!(env_of(&config, "EXTERNAL_PHONE_ENABLED").as_deref(), Some("true"));
        assert_eq!(env_of(&config, "SMS_PROVIDER"), None);
        assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    }
}
