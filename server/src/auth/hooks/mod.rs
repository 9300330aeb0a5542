//! Auth hooks, as GoTrue runs them: a Postgres function (`pg-functions://<database>/<schema>/<fn>`)
//! or an HTTP endpoint (`http(s)://…`, the request signed as a standard webhook with the hook's
//! `v1,whsec_…` secrets). This module knows where a hook is and how to call it, and turns a hook's
//! `{"error": {"http_code", "message"}}` answer into GoTrue's refusal; what each hook sends and
//! does with the answer lives in its own module.

mod before_user_created;
mod custom_access_token;
mod mfa_verification_attempt;
mod password_verification_attempt;
mod webhook;

pub use before_user_created::before_user_created;
pub use custom_access_token::custom_access_token;
pub use mfa_verification_attempt::mfa_verification_attempt;
pub use password_verification_attempt::password_verification_attempt;

use actix_web::http::StatusCode;
use serde_json::Value;

use secrecy::ExposeSecret;

use super::error::AuthError;
use super::AuthState;
use crate::config::AuthConfig;
use crate::db::cached::CachedQueries;

/// The hooks in force, built from the configuration (start-up values with Studio's overrides)
/// and swapped whole by the live settings (`auth::live`).
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    /// The before-user-created hook's function, quoted, when the hook is on.
    pub before_user_created: Option<String>,
    pub custom_access_token: Option<Target>,
    pub password_verification_attempt: Option<Target>,
    pub mfa_verification_attempt: Option<Target>,
}

impl Hooks {
    /// The hooks `config` turns on; an error names the setting that is missing or malformed.
    pub fn new(config: &AuthConfig) -> Result<Hooks, String> {
        let before_user_created =
            match (&config.hook_before_user_created_enabled, config.hook_before_user_created_uri.as_deref()) {
                (false, _) => None,
                (true, Some(uri)) if !uri.trim().is_empty() => {
                    Some(function_of_uri(uri).map_err(|e| format!("HOOK_BEFORE_USER_CREATED_URI: {e}"))?)
                }
                (true, _) => return Err("HOOK_BEFORE_USER_CREATED_ENABLED needs HOOK_BEFORE_USER_CREATED_URI".into()),
            };
        let secret = |s: &Option<secrecy::SecretString>| s.as_ref().map(|s| s.expose_secret().to_string());
        Ok(Hooks {
            before_user_created,
            custom_access_token: Target::configured(
                "HOOK_CUSTOM_ACCESS_TOKEN",
                config.hook_custom_access_token_enabled,
                config.hook_custom_access_token_uri.as_deref(),
                secret(&config.hook_custom_access_token_secrets).as_deref(),
            )?,
            password_verification_attempt: Target::configured(
                "HOOK_PASSWORD_VERIFICATION_ATTEMPT",
                config.hook_password_verification_attempt_enabled,
                config.hook_password_verification_attempt_uri.as_deref(),
                secret(&config.hook_password_verification_attempt_secrets).as_deref(),
            )?,
            mfa_verification_attempt: Target::configured(
                "HOOK_MFA_VERIFICATION_ATTEMPT",
                config.hook_mfa_verification_attempt_enabled,
                config.hook_mfa_verification_attempt_uri.as_deref(),
                secret(&config.hook_mfa_verification_attempt_secrets).as_deref(),
            )?,
        })
    }
}

/// Where a hook is.
#[derive(Debug, Clone)]
pub enum Target {
    /// A Postgres function, quoted for SQL.
    Function(String),
    /// An HTTP endpoint and the secrets that sign its requests (decoded keys, the first signs first).
    Http { url: String, secrets: Vec<Vec<u8>> },
}

impl Target {
    /// The hook of `<name>_ENABLED`, `_URI`, `_SECRETS`, when it is on.
    pub fn configured(
        name: &str,
        enabled: bool,
        uri: Option<&str>,
        secrets: Option<&str>,
    ) -> Result<Option<Target>, String> {
        match (enabled, uri.map(str::trim).filter(|u| !u.is_empty())) {
            (false, _) => Ok(None),
            (true, Some(uri)) => Target::parse(name, uri, secrets).map(Some),
            (true, None) => Err(format!("{name}_ENABLED needs {name}_URI")),
        }
    }

    /// The hook a `*_URI` and `*_SECRETS` pair names; `name` (`HOOK_CUSTOM_ACCESS_TOKEN`) words
    /// the errors.
    pub fn parse(name: &str, uri: &str, secrets: Option<&str>) -> Result<Target, String> {
        if uri.starts_with("pg-functions://") {
            return function_of_uri(uri).map(Target::Function).map_err(|e| format!("{name}_URI: {e}"));
        }
        let url = url::Url::parse(uri).map_err(|e| format!("{name}_URI: {uri}: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("{name}_URI: {uri}: expected pg-functions://, http:// or https://"));
        }
        let secrets = webhook::secrets(secrets.unwrap_or_default()).map_err(|e| format!("{name}_SECRETS: {e}"))?;
        if secrets.is_empty() {
            return Err(format!("{name}_SECRETS: an HTTP hook needs a v1,whsec_… secret"));
        }
        Ok(Target::Http { url: uri.to_string(), secrets })
    }
}

/// The function a `pg-functions://<database>/<schema>/<function>` URI names, quoted for SQL.
pub fn function_of_uri(uri: &str) -> Result<String, String> {
    let rest = uri
        .strip_prefix("pg-functions://")
        .ok_or_else(|| format!("{uri}: expected pg-functions://<database>/<schema>/<function>"))?;
    let parts: Vec<&str> = rest.split('/').collect();
    let valid = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    match parts.as_slice() {
        [_, schema, function] if valid(schema) && valid(function) => {
            Ok(format!("{}.{}", crate::db::quote_ident(schema), crate::db::quote_ident(function)))
        }
        _ => Err(format!("{uri}: expected pg-functions://<database>/<schema>/<function>")),
    }
}

/// Call the hook with `input`; its answer (`None`: an HTTP 204), or GoTrue's refusal when it
/// answered an error. A function runs on a connection of the auth pool.
pub async fn call(state: &AuthState, target: &Target, input: &Value) -> Result<Option<Value>, AuthError> {
    let answer = match target {
        Target::Function(function) => {
            let client = state.pool.get().await?;
            let row = client
                .cached_query_one(&format!("select {function}($1::jsonb)::jsonb"), &[input])
                .await
                .map_err(|e| AuthError::internal(format!("hook {function}: {e}")))?;
            row.get::<_, Option<Value>>(0)
        }
        Target::Http { url, secrets } => webhook::post(&state.hook_http, url, secrets, input).await?,
    };
    match answer.as_ref().and_then(refusal) {
        Some(err) => Err(err),
        None => Ok(answer),
    }
}

/// The refusal an answer's `error` asks for, as GoTrue's `hookserrors.Check`: a message is
/// needed; the status is `http_code` (500 when absent or not an error status), the code
/// `unexpected_failure` for a 500 and `unknown` otherwise.
pub(crate) fn refusal(answer: &Value) -> Option<AuthError> {
    let error = answer.get("error")?;
    let message = error.get("message").and_then(Value::as_str).filter(|m| !m.is_empty())?;
    let status = error
        .get("http_code")
        .and_then(Value::as_u64)
        .and_then(|c| u16::try_from(c).ok())
        .and_then(|c| StatusCode::from_u16(c).ok())
        .filter(|s| s.is_client_error() || s.is_server_error())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let code = if status == StatusCode::INTERNAL_SERVER_ERROR { "unexpected_failure" } else { "unknown" };
    Some(AuthError::Coded(status, code, message.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_uri_names_a_schema_qualified_function() {
        assert_eq!(function_of_uri("pg-functions://postgres/public/hook").unwrap(), "\"public\".\"hook\"");
        for bad in
            ["https://x/y", "pg-functions://postgres/hook", "pg-functions://postgres/a;b/c", "pg-functions://p/s/f/g"]
        {
            assert!(function_of_uri(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_target_is_a_function_or_a_signed_http_endpoint() {
        assert!(matches!(
            Target::parse("HOOK_X", "pg-functions://postgres/public/f", None),
            Ok(Target::Function(f)) if f == "\"public\".\"f\""
        ));
        let http = Target::parse("HOOK_X", "https://hooks.example/x", Some("v1,whsec_c2VjcmV0")).unwrap();
        assert!(matches!(http, Target::Http { ref secrets, .. } if secrets == &vec![b"secret".to_vec()]));
        let unsigned = Target::parse("HOOK_X", "https://hooks.example/x", None).unwrap_err();
        assert!(unsigned.starts_with("HOOK_X_SECRETS:"), "{unsigned}");
        assert!(Target::parse("HOOK_X", "ftp://x/y", None).unwrap_err().starts_with("HOOK_X_URI:"));
    }

    #[test]
    fn an_answer_without_an_error_message_is_no_refusal() {
        assert!(refusal(&json!({})).is_none());
        assert!(refusal(&json!({"error": {"http_code": 400}})).is_none());
    }

    #[test]
    fn an_error_refuses_with_its_status_and_gotrues_code() {
        let err = refusal(&json!({"error": {"http_code": 403, "message": "Non"}})).unwrap();
        assert_eq!(err.legacy_body(), json!({"code": 403, "error_code": "unknown", "msg": "Non"}));
        let err = refusal(&json!({"error": {"message": "Non"}})).unwrap();
        assert_eq!(err.parts(), (StatusCode::INTERNAL_SERVER_ERROR, "unexpected_failure"));
    }
}
