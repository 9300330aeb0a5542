//! The auth settings an operator may change while the server runs, by their GoTrue environment
//! names: what kind of value each takes, where it sits in `AuthConfig`, and how an override is
//! applied over the configuration the server started with (environment and `config.toml`).
//!
//! SMTP (the next mail takes the new transport), the SMS provider, the auth hooks, the WebAuthn
//! relying party and the OAuth 2.1 server are here too. Settings read once at start (JWT
//! lifetime, refresh tokens, passkeys) are not: they keep needing a restart. Secrets (OAuth client secrets, the SMTP
//! password, SMS providers' tokens, hook signing secrets) are write-only: the catalogue says whether one is set, never
//! its value. Nothing here touches the database.

use secrecy::SecretString;
use serde_json::{json, Value};

use crate::config::AuthConfig;

/// The type of a setting's value (its JSON form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Bool,
    /// A non-negative integer.
    Int,
    Text,
    /// A list of text (a comma-separated environment value).
    List,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bool => "bool",
            Kind::Int => "int",
            Kind::Text => "text",
            Kind::List => "list",
        }
    }
}

type Get = fn(&AuthConfig) -> Value;
type Set = fn(&mut AuthConfig, &Value) -> Result<(), String>;

/// One changeable setting.
pub struct Setting {
    /// GoTrue's environment name (`DISABLE_SIGNUP`).
    pub name: &'static str,
    /// The screen's section: `general`, `urls`, `passwords`, `rate_limits`, `mfa` or a provider.
    pub group: &'static str,
    pub label: &'static str,
    pub kind: Kind,
    pub get: Get,
    pub set: Set,
}

/// One write-only secret (an OAuth client secret, the SMTP password, a hook's signing secrets).
pub struct Secret {
    pub name: &'static str,
    pub group: &'static str,
    pub label: &'static str,
    pub slot: fn(&mut AuthConfig) -> &mut Option<SecretString>,
    pub is_set: fn(&AuthConfig) -> bool,
}

fn as_bool(v: &Value) -> Result<bool, String> {
    v.as_bool().ok_or_else(|| "expected true or false".to_string())
}

fn as_u64(v: &Value) -> Result<u64, String> {
    v.as_u64().ok_or_else(|| "expected a whole number, 0 or more".to_string())
}

fn as_text(v: &Value) -> Result<String, String> {
    v.as_str().map(|s| s.trim().to_string()).ok_or_else(|| "expected text".to_string())
}

fn as_list(v: &Value) -> Result<Vec<String>, String> {
    let items = v.as_array().ok_or_else(|| "expected a list of text".to_string())?;
    items
        .iter()
        .map(|i| i.as_str().map(|s| s.trim().to_string()).ok_or_else(|| "expected a list of text".to_string()))
        .filter(|r| r.as_ref().map_or(true, |s| !s.is_empty()))
        .collect()
}

macro_rules! setting {
    ($name:literal, $group:literal, $label:literal, bool, $($f:ident).+) => {
        Setting { name: $name, group: $group, label: $label, kind: Kind::Bool,
            get: |c| json!(c.$($f).+), set: |c, v| { c.$($f).+ = as_bool(v)?; Ok(()) } }
    };
    ($name:literal, $group:literal, $label:literal, int, $($f:ident).+) => {
        Setting { name: $name, group: $group, label: $label, kind: Kind::Int,
            get: |c| json!(c.$($f).+),
            set: |c, v| { c.$($f).+ = as_u64(v)?.try_into().map_err(|_| "too large".to_string())?; Ok(()) } }
    };
    ($name:literal, $group:literal, $label:literal, text, $($f:ident).+) => {
        Setting { name: $name, group: $group, label: $label, kind: Kind::Text,
            get: |c| json!(c.$($f).+), set: |c, v| { c.$($f).+ = as_text(v)?; Ok(()) } }
    };
    ($name:literal, $group:literal, $label:literal, opt_text, $($f:ident).+) => {
        Setting { name: $name, group: $group, label: $label, kind: Kind::Text,
            get: |c| json!(c.$($f).+.clone().unwrap_or_default()),
            set: |c, v| { c.$($f).+ = Some(as_text(v)?).filter(|s| !s.is_empty()); Ok(()) } }
    };
    ($name:literal, $group:literal, $label:literal, list, $($f:ident).+) => {
        Setting { name: $name, group: $group, label: $label, kind: Kind::List,
            get: |c| json!(c.$($f).+), set: |c, v| { c.$($f).+ = as_list(v)?; Ok(()) } }
    };
}

macro_rules! secret {
    ($name:literal, $group:literal, $f:ident) => {
        secret!($name, $group, "Client secret", $f)
    };
    ($name:literal, $group:literal, $label:literal, $f:ident) => {
        Secret { name: $name, group: $group, label: $label, slot: |c| &mut c.$f, is_set: |c| c.$f.is_some() }
    };
}

/// The SMTP security modes (`SMTP_TLS`).
const SMTP_TLS_MODES: [&str; 4] = ["auto", "starttls", "tls", "none"];

fn smtp_tls(c: &mut AuthConfig, v: &Value) -> Result<(), String> {
    let mode = as_text(v)?.to_ascii_lowercase();
    if !SMTP_TLS_MODES.contains(&mode.as_str()) {
        return Err("expected auto, starttls, tls or none".to_string());
    }
    c.smtp_tls = mode;
    Ok(())
}

fn smtp_admin_email(c: &mut AuthConfig, v: &Value) -> Result<(), String> {
    let address = as_text(v)?;
    address.parse::<lettre::Address>().map_err(|e| format!("not an e-mail address: {e}"))?;
    c.smtp_admin_email = address;
    Ok(())
}

/// Every changeable setting, in the screen's order.
pub static SETTINGS: &[Setting] = &[
    setting!("DISABLE_SIGNUP", "general", "Disable new sign-ups", bool, disable_signup),
    setting!("EXTERNAL_EMAIL_ENABLED", "general", "E-mail provider", bool, external_email_enabled),
    setting!("MAILER_AUTOCONFIRM", "general", "Confirm e-mail addresses automatically", bool, mailer_autoconfirm),
    setting!(
        "MAILER_SECURE_EMAIL_CHANGE_ENABLED",
        "general",
        "Confirm an e-mail change on both addresses",
        bool,
        secure_email_change
    ),
    setting!("MAILER_OTP_EXP", "general", "E-mailed link and code lifetime (seconds)", int, mailer_otp_exp),
    setting!("EXTERNAL_PHONE_ENABLED", "general", "Phone provider", bool, phone_enabled),
    setting!("SMS_AUTOCONFIRM", "general", "Confirm phone numbers automatically", bool, sms_autoconfirm),
    setting!("EXTERNAL_ANONYMOUS_USERS_ENABLED", "general", "Anonymous sign-ins", bool, anonymous_users_enabled),
    setting!("SECURITY_MANUAL_LINKING_ENABLED", "general", "Manual identity linking", bool, manual_linking_enabled),
    setting!("URI_ALLOW_LIST", "urls", "Redirect URLs allowed besides the site URL", list, uri_allow_list),
    setting!("PASSWORD_MIN_LENGTH", "passwords", "Minimum password length", int, password_min_length),
    setting!(
        "PASSWORD_REQUIRED_CHARACTERS",
        "passwords",
        "Required character sets (colon-separated)",
        text,
        password_required_characters
    ),
    setting!(
        "SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION",
        "passwords",
        "Require reauthentication to change a password",
        bool,
        update_password_require_reauthentication
    ),
    setting!("RATE_LIMIT_EMAIL_SENT", "rate_limits", "E-mails sent per hour", int, rate_limit_email_sent),
    setting!("RATE_LIMIT_SMS_SENT", "rate_limits", "Text messages sent per hour", int, rate_limit_sms_sent),
    setting!("RATE_LIMIT_VERIFY", "rate_limits", "Verifications per 5 minutes per IP", int, rate_limit_verify),
    setting!(
        "RATE_LIMIT_TOKEN_REFRESH",
        "rate_limits",
        "Token refreshes per 5 minutes per IP",
        int,
        rate_limit_token_refresh
    ),
    setting!("RATE_LIMIT_OTP", "rate_limits", "Sign-ups and sign-ins per 5 minutes per IP", int, rate_limit_otp),
    setting!(
        "RATE_LIMIT_ANONYMOUS_USERS",
        "rate_limits",
        "Anonymous sign-ins per hour per IP",
        int,
        rate_limit_anonymous_users
    ),
    setting!("SMTP_MAX_FREQUENCY", "rate_limits", "Seconds between two mails to one address", int, smtp_max_frequency),
    setting!("MFA_MAX_ENROLLED_FACTORS", "mfa", "Factors per user", int, mfa_max_enrolled_factors),
    setting!("MFA_TOTP_ENROLL_ENABLED", "mfa", "TOTP: enrolment", bool, mfa_totp_enroll_enabled),
    setting!("MFA_TOTP_VERIFY_ENABLED", "mfa", "TOTP: verification", bool, mfa_totp_verify_enabled),
    setting!("MFA_PHONE_ENROLL_ENABLED", "mfa", "Phone: enrolment", bool, mfa_phone_enroll_enabled),
    setting!("MFA_PHONE_VERIFY_ENABLED", "mfa", "Phone: verification", bool, mfa_phone_verify_enabled),
    setting!("MFA_WEB_AUTHN_ENROLL_ENABLED", "mfa", "WebAuthn: enrolment", bool, mfa_webauthn_enroll_enabled),
    setting!("MFA_WEB_AUTHN_VERIFY_ENABLED", "mfa", "WebAuthn: verification", bool, mfa_webauthn_verify_enabled),
    setting!("SMTP_HOST", "smtp", "Host (empty: the development inbox)", opt_text, smtp_host),
    setting!("SMTP_PORT", "smtp", "Port", int, smtp_port),
    Setting {
        name: "SMTP_TLS",
        group: "smtp",
        label: "Security: auto, starttls, tls or none",
        kind: Kind::Text,
        get: |c| json!(c.smtp_tls),
        set: smtp_tls,
    },
    setting!("SMTP_USER", "smtp", "User name (empty: no authentication)", opt_text, smtp_user),
    Setting {
        name: "SMTP_ADMIN_EMAIL",
        group: "smtp",
        label: "Sender address",
        kind: Kind::Text,
        get: |c| json!(c.smtp_admin_email),
        set: smtp_admin_email,
    },
    setting!("SMTP_SENDER_NAME", "smtp", "Sender name", text, smtp_sender_name),
    setting!(
        "HOOK_CUSTOM_ACCESS_TOKEN_ENABLED",
        "hook_custom_access_token",
        "Enabled",
        bool,
        hook_custom_access_token_enabled
    ),
    setting!(
        "HOOK_CUSTOM_ACCESS_TOKEN_URI",
        "hook_custom_access_token",
        "pg-functions://postgres/<schema>/<function> or https://…",
        opt_text,
        hook_custom_access_token_uri
    ),
    setting!(
        "HOOK_PASSWORD_VERIFICATION_ATTEMPT_ENABLED",
        "hook_password_verification_attempt",
        "Enabled",
        bool,
        hook_password_verification_attempt_enabled
    ),
    setting!(
        "HOOK_PASSWORD_VERIFICATION_ATTEMPT_URI",
        "hook_password_verification_attempt",
        "pg-functions://postgres/<schema>/<function> or https://…",
        opt_text,
        hook_password_verification_attempt_uri
    ),
    setting!(
        "HOOK_MFA_VERIFICATION_ATTEMPT_ENABLED",
        "hook_mfa_verification_attempt",
        "Enabled",
        bool,
        hook_mfa_verification_attempt_enabled
    ),
    setting!(
        "HOOK_MFA_VERIFICATION_ATTEMPT_URI",
        "hook_mfa_verification_attempt",
        "pg-functions://postgres/<schema>/<function> or https://…",
        opt_text,
        hook_mfa_verification_attempt_uri
    ),
    setting!(
        "HOOK_BEFORE_USER_CREATED_ENABLED",
        "hook_before_user_created",
        "Enabled",
        bool,
        hook_before_user_created_enabled
    ),
    setting!(
        "HOOK_BEFORE_USER_CREATED_URI",
        "hook_before_user_created",
        "pg-functions://postgres/<schema>/<function>",
        opt_text,
        hook_before_user_created_uri
    ),
    setting!("WEBAUTHN_RP_ID", "webauthn", "Relying party id (empty: SITE_URL's host)", opt_text, webauthn_rp_id),
    setting!(
        "WEBAUTHN_RP_DISPLAY_NAME",
        "webauthn",
        "Relying party name (empty: its id)",
        opt_text,
        webauthn_rp_display_name
    ),
    setting!("WEBAUTHN_RP_ORIGINS", "webauthn", "Allowed origins (empty: SITE_URL)", list, webauthn_rp_origins),
    setting!(
        "SMS_PROVIDER",
        "sms",
        "Provider: inbox, twilio, twilio_verify, messagebird, textlocal or vonage",
        opt_text,
        sms_provider
    ),
    setting!("SMS_TEMPLATE", "sms", "Text of the message ({{ .Code }} is the code)", text, sms_template),
    setting!("SMS_TWILIO_ACCOUNT_SID", "sms", "Twilio: account SID", opt_text, sms_twilio_account_sid),
    setting!(
        "SMS_TWILIO_MESSAGE_SERVICE_SID",
        "sms",
        "Twilio: messaging service SID or sender number",
        opt_text,
        sms_twilio_message_service_sid
    ),
    setting!(
        "SMS_TWILIO_VERIFY_ACCOUNT_SID",
        "sms",
        "Twilio Verify: account SID",
        opt_text,
        sms_twilio_verify_account_sid
    ),
    setting!(
        "SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID",
        "sms",
        "Twilio Verify: service SID",
        opt_text,
        sms_twilio_verify_message_service_sid
    ),
    setting!("SMS_MESSAGEBIRD_ORIGINATOR", "sms", "MessageBird: originator", opt_text, sms_messagebird_originator),
    setting!("SMS_TEXTLOCAL_SENDER", "sms", "Textlocal: sender", opt_text, sms_textlocal_sender),
    setting!("SMS_VONAGE_API_KEY", "sms", "Vonage: API key", opt_text, sms_vonage_api_key),
    setting!("SMS_VONAGE_FROM", "sms", "Vonage: sender", opt_text, sms_vonage_from),
    setting!("OAUTH_SERVER_ENABLED", "oauth_server", "Enabled", bool, oauth_server_enabled),
    setting!(
        "OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION",
        "oauth_server",
        "Dynamic client registration",
        bool,
        oauth_server_allow_dynamic_registration
    ),
    setting!(
        "OAUTH_SERVER_AUTHORIZATION_PATH",
        "oauth_server",
        "Consent page path on the site",
        opt_text,
        oauth_server_authorization_path
    ),
    setting!(
        "OAUTH_SERVER_AUTHORIZATION_TTL",
        "oauth_server",
        "Authorization request and code lifetime (seconds)",
        int,
        oauth_server_authorization_ttl_secs
    ),
    setting!(
        "OAUTH_SERVER_DEFAULT_SCOPE",
        "oauth_server",
        "Scopes when none are asked (space-separated)",
        text,
        oauth_server_default_scope
    ),
    setting!("EXTERNAL_GOOGLE_ENABLED", "google", "Enabled", bool, google_enabled),
    setting!("EXTERNAL_GOOGLE_CLIENT_ID", "google", "Client IDs", list, google_client_id),
    setting!("EXTERNAL_APPLE_ENABLED", "apple", "Enabled", bool, apple_enabled),
    setting!("EXTERNAL_APPLE_CLIENT_ID", "apple", "Client IDs", list, apple_client_id),
    setting!("EXTERNAL_AZURE_ENABLED", "azure", "Enabled", bool, azure_enabled),
    setting!("EXTERNAL_AZURE_CLIENT_ID", "azure", "Client IDs", list, azure_client_id),
    setting!("EXTERNAL_AZURE_URL", "azure", "Tenant URL", text, azure_url),
    setting!("EXTERNAL_KEYCLOAK_ENABLED", "keycloak", "Enabled", bool, keycloak_enabled),
    setting!("EXTERNAL_KEYCLOAK_CLIENT_ID", "keycloak", "Client IDs", list, keycloak_client_id),
    setting!("EXTERNAL_KEYCLOAK_URL", "keycloak", "Realm URL", opt_text, keycloak_url),
    setting!("EXTERNAL_GITHUB_ENABLED", "github", "Enabled", bool, github_enabled),
    setting!("EXTERNAL_GITHUB_CLIENT_ID", "github", "Client ID", list, github_client_id),
    setting!("EXTERNAL_GITLAB_ENABLED", "gitlab", "Enabled", bool, gitlab_enabled),
    setting!("EXTERNAL_GITLAB_CLIENT_ID", "gitlab", "Client ID", list, gitlab_client_id),
    setting!("EXTERNAL_GITLAB_URL", "gitlab", "GitLab URL", text, gitlab_url),
    setting!("EXTERNAL_DISCORD_ENABLED", "discord", "Enabled", bool, discord_enabled),
    setting!("EXTERNAL_DISCORD_CLIENT_ID", "discord", "Client ID", list, discord_client_id),
    setting!("EXTERNAL_FACEBOOK_ENABLED", "facebook", "Enabled", bool, facebook_enabled),
    setting!("EXTERNAL_FACEBOOK_CLIENT_ID", "facebook", "Client ID", list, facebook_client_id),
];

/// Every write-only secret.
pub static SECRETS: &[Secret] = &[
    secret!("SMTP_PASS", "smtp", "Password", smtp_pass),
    secret!("SMS_TWILIO_AUTH_TOKEN", "sms", "Twilio: auth token", sms_twilio_auth_token),
    secret!("SMS_TWILIO_VERIFY_AUTH_TOKEN", "sms", "Twilio Verify: auth token", sms_twilio_verify_auth_token),
    secret!("SMS_MESSAGEBIRD_ACCESS_KEY", "sms", "MessageBird: access key", sms_messagebird_access_key),
    secret!("SMS_TEXTLOCAL_API_KEY", "sms", "Textlocal: API key", sms_textlocal_api_key),
    secret!("SMS_VONAGE_API_SECRET", "sms", "Vonage: API secret", sms_vonage_api_secret),
    secret!(
        "HOOK_CUSTOM_ACCESS_TOKEN_SECRETS",
        "hook_custom_access_token",
        "HTTP signing secrets (v1,whsec_…, |-separated)",
        hook_custom_access_token_secrets
    ),
    secret!(
        "HOOK_PASSWORD_VERIFICATION_ATTEMPT_SECRETS",
        "hook_password_verification_attempt",
        "HTTP signing secrets (v1,whsec_…, |-separated)",
        hook_password_verification_attempt_secrets
    ),
    secret!(
        "HOOK_MFA_VERIFICATION_ATTEMPT_SECRETS",
        "hook_mfa_verification_attempt",
        "HTTP signing secrets (v1,whsec_…, |-separated)",
        hook_mfa_verification_attempt_secrets
    ),
    secret!("EXTERNAL_GOOGLE_SECRET", "google", google_secret),
    secret!("EXTERNAL_APPLE_SECRET", "apple", apple_secret),
    secret!("EXTERNAL_AZURE_SECRET", "azure", azure_secret),
    secret!("EXTERNAL_KEYCLOAK_SECRET", "keycloak", keycloak_secret),
    secret!("EXTERNAL_GITHUB_SECRET", "github", github_secret),
    secret!("EXTERNAL_GITLAB_SECRET", "gitlab", gitlab_secret),
    secret!("EXTERNAL_DISCORD_SECRET", "discord", discord_secret),
    secret!("EXTERNAL_FACEBOOK_SECRET", "facebook", facebook_secret),
];

pub fn setting(name: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.name == name)
}

pub fn secret(name: &str) -> Option<&'static Secret> {
    SECRETS.iter().find(|s| s.name == name)
}

/// `base` with `overrides` (name, value) and `secrets` (name, value) applied. An unknown name or
/// a value of the wrong type is an error naming the setting (a stored row that no longer applies
/// is skipped by the caller, which logs it).
pub fn apply_one(config: &mut AuthConfig, name: &str, value: &Value) -> Result<(), String> {
    let s = setting(name).ok_or_else(|| format!("{name}: not a setting that can be changed here"))?;
    (s.set)(config, value).map_err(|e| format!("{name}: {e}"))
}

/// Put `value` in the secret `name`'s slot.
pub fn apply_secret(config: &mut AuthConfig, name: &str, value: SecretString) -> Result<(), String> {
    let s = secret(name).ok_or_else(|| format!("{name}: not a secret that can be set here"))?;
    *(s.slot)(config) = Some(value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn base() -> AuthConfig {
        crate::config::Cli::parse_from(["server"]).config.auth
    }

    #[test]
    fn each_kind_applies_and_reads_back() {
        let mut c = base();
        apply_one(&mut c, "DISABLE_SIGNUP", &json!(true)).unwrap();
        apply_one(&mut c, "PASSWORD_MIN_LENGTH", &json!(12)).unwrap();
        apply_one(&mut c, "URI_ALLOW_LIST", &json!(["http://a.test/*", " ", "http://b.test"])).unwrap();
        apply_one(&mut c, "EXTERNAL_KEYCLOAK_URL", &json!("")).unwrap();
        assert!(c.disable_signup);
        assert_eq!(c.password_min_length, 12);
        assert_eq!(c.uri_allow_list, vec!["http://a.test/*", "http://b.test"]);
        assert_eq!(c.keycloak_url, None);
        assert_eq!((setting("PASSWORD_MIN_LENGTH").unwrap().get)(&c), json!(12));
    }

    #[test]
    fn wrong_types_and_unknown_names_are_refused_with_the_name() {
        let mut c = base();
        assert_eq!(
            apply_one(&mut c, "DISABLE_SIGNUP", &json!("yes")).unwrap_err(),
            "DISABLE_SIGNUP: expected true or false"
        );
        assert_eq!(
            apply_one(&mut c, "RATE_LIMIT_OTP", &json!(-1)).unwrap_err(),
            "RATE_LIMIT_OTP: expected a whole number, 0 or more"
        );
        assert!(apply_one(&mut c, "SMTP_PASS", &json!("x")).unwrap_err().contains("not a setting"));
        assert!(apply_secret(&mut c, "JWT_SECRET", SecretString::from("x")).is_err());
        assert_eq!(
            apply_one(&mut c, "SMTP_TLS", &json!("ssl")).unwrap_err(),
            "SMTP_TLS: expected auto, starttls, tls or none"
        );
        assert!(apply_one(&mut c, "SMTP_ADMIN_EMAIL", &json!("not an address"))
            .unwrap_err()
            .starts_with("SMTP_ADMIN_EMAIL: not an e-mail address"));
        assert!(apply_one(&mut c, "SMTP_PORT", &json!(70000)).unwrap_err().contains("too large"));
    }

    #[test]
    fn names_are_unique_and_secrets_are_not_settings() {
        let mut names: Vec<_> = SETTINGS.iter().map(|s| s.name).chain(SECRETS.iter().map(|s| s.name)).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
