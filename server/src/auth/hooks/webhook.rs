//! HTTP hooks: the JSON input POSTed to the hook's URL as a standard webhook (`webhook-id`,
//! `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one
//! signature per secret), and the answer read as GoTrue reads it: 204 is no answer, 200/202 must
//! be JSON (at most 200 KiB), anything else a 500 with GoTrue's message. One try, five seconds.
//! Secrets are never logged.

use std::time::Duration;

use actix_web::http::StatusCode;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use crate::auth::error::AuthError;

/// GoTrue's HTTP hook timeout.
const TIMEOUT: Duration = Duration::from_secs(5);
/// GoTrue's limit on a hook's answer.
const ANSWER_LIMIT: usize = 200 * 1024;

/// The keys of `v1,whsec_<base64>` secrets, `|`-separated as GoTrue's `HTTPHookSecrets`.
pub fn secrets(value: &str) -> Result<Vec<Vec<u8>>, String> {
    value
        .split('|')
        .filter(|s| !s.trim().is_empty())
        .map(|secret| {
            let key = secret.trim().strip_prefix("v1,").ok_or("a secret must start with v1,whsec_")?;
            let key = key.strip_prefix("whsec_").unwrap_or(key);
            STANDARD.decode(key).map_err(|_| "a secret must be v1,whsec_ followed by base64".to_string())
        })
        .collect()
}

/// The `webhook-signature` header of `body` sent as message `id` at `timestamp`.
pub fn signature(secrets: &[Vec<u8>], id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets
        .iter()
        .map(|key| {
            let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC takes any key"));
            mac.update(format!("{id}.{timestamp}.").as_bytes());
            mac.update(body);
            format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn failure(message: impl Into<String>) -> AuthError {
    AuthError::Coded(StatusCode::INTERNAL_SERVER_ERROR, "unexpected_failure", message.into())
}

/// POST `input` to the hook; its JSON answer, `None` for a 204.
pub async fn post(
    http: &reqwest::Client,
    url: &str,
    secrets: &[Vec<u8>],
    input: &Value,
) -> Result<Option<Value>, AuthError> {
    let body = serde_json::to_vec(input).map_err(AuthError::internal)?;
    let id = uuid::Uuid::new_v4().to_string();
    let timestamp = chrono::Utc::now().timestamp();
    let sent = http
        .post(url)
        .timeout(TIMEOUT)
        .header("content-type", "application/json")
        .header("webhook-id", &id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature(secrets, &id, timestamp, &body))
        .header("accept-encoding", "identity")
        .body(body)
        .send()
        .await;
    let response = match sent {
        Ok(response) => response,
        Err(e) if e.is_timeout() => {
            return Err(AuthError::Coded(
                StatusCode::UNPROCESSABLE_ENTITY,
                "hook_timeout",
                format!("Failed to reach hook within maximum time of {:.6} seconds", TIMEOUT.as_secs_f64()),
            ))
        }
        Err(e) => {
            tracing::warn!(error = %e, "auth hook unreachable");
            return Err(AuthError::Coded(
                StatusCode::UNPROCESSABLE_ENTITY,
                "hook_timeout_after_retry",
                "Failed to reach hook after maximum retries".into(),
            ));
        }
    };
    match response.status().as_u16() {
        204 => Ok(None),
        200 | 202 => {
            let content_type =
                response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
            let media = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
            if media != "application/json" {
                let message = match content_type.as_str() {
                    "" => "Invalid Content-Type: Missing Content-Type header".to_string(),
                    other => format!("Invalid JSON response. Received content-type: {other}"),
                };
                return Err(AuthError::Coded(StatusCode::BAD_REQUEST, "hook_payload_invalid_content_type", message));
            }
            let bytes = response.bytes().await.map_err(AuthError::internal)?;
            if bytes.len() > ANSWER_LIMIT {
                return Err(AuthError::Coded(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "hook_payload_over_size_limit",
                    format!("Payload size exceeded size limit of {ANSWER_LIMIT} bytes"),
                ));
            }
            serde_json::from_slice(&bytes).map(Some).map_err(|_| failure("Error unmarshaling JSON output."))
        }
        429 | 503 => Err(failure("Service currently unavailable due to hook")),
        400 => Err(failure("Invalid payload sent to hook")),
        401 => Err(failure("Hook requires authorization token")),
        other => Err(failure(format!("Unexpected status code returned from hook: {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_v1_whsec_base64_keys_separated_by_bars() {
        assert_eq!(secrets("v1,whsec_YWJj|v1,whsec_ZGVm").unwrap(), vec![b"abc".to_vec(), b"def".to_vec()]);
        assert_eq!(secrets("").unwrap(), Vec::<Vec<u8>>::new());
        assert!(secrets("whsec_YWJj").is_err());
        assert!(secrets("v1,whsec_%%%").is_err());
    }

    #[test]
    fn the_signature_is_the_standard_webhooks_hmac_of_id_timestamp_and_body() {
        // The standard-webhooks specification's own example.
        let key = secrets("v1,whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            signature(&key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }
}
