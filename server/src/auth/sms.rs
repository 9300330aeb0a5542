//! Text messages carrying the one-time codes of phone sign-up, sign-in and phone change.
//!
//! With no provider configured (`SMS_PROVIDER` unset or `inbox`) they land in the development
//! inbox beside the mails (`/inbox`, `GET /inbox/api/messages?to=+243…`), so the phone flows
//! work on a laptop. `SMS_PROVIDER=twilio` sends them with Twilio's Messages API under GoTrue's
//! setting names (`SMS_TWILIO_ACCOUNT_SID`, `SMS_TWILIO_AUTH_TOKEN`,
//! `SMS_TWILIO_MESSAGE_SERVICE_SID`: a Messaging Service `MG…` or a sender number),
//! `SMS_PROVIDER=messagebird` with MessageBird's Messages API (`SMS_MESSAGEBIRD_ACCESS_KEY`,
//! `SMS_MESSAGEBIRD_ORIGINATOR`), `SMS_PROVIDER=vonage` with Vonage's SMS API
//! (`SMS_VONAGE_API_KEY`, `SMS_VONAGE_API_SECRET`, `SMS_VONAGE_FROM`), `SMS_PROVIDER=textlocal`
//! with Textlocal's send API (`SMS_TEXTLOCAL_API_KEY`, `SMS_TEXTLOCAL_SENDER`). The text is
//! `SMS_TEMPLATE` with `{{ .Code }}` replaced.
//!
//! `SMS_PROVIDER=twilio_verify` hands the codes to Twilio Verify (`SMS_TWILIO_VERIFY_ACCOUNT_SID`,
//! `SMS_TWILIO_VERIFY_AUTH_TOKEN`, `SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID`): Twilio makes the code,
//! texts it and later says whether a code is right ([`Sms::check`]); the server's own code is
//! then never sent, and the flows ask Twilio instead of comparing hashes ([`Sms::makes_codes`]). Numbers are handled as GoTrue handles them: E.164
//! digits without the `+` (stored so in `auth.users.phone`).

use actix_web::http::StatusCode;
use deadpool_postgres::Pool;
use secrecy::ExposeSecret;

use super::error::AuthError;
use crate::config::AuthConfig;
use crate::db::cached::CachedQueries;

/// A phone number as GoTrue normalises it: spaces and a leading `+` removed, then E.164 digits
/// (1 to 15, not starting with 0), else `validation_failed`.
pub fn normalize_phone(raw: &str) -> Result<String, AuthError> {
    let digits: String = raw.trim().trim_start_matches('+').chars().filter(|c| *c != ' ').collect();
    let valid =
        (2..=15).contains(&digits.len()) && !digits.starts_with('0') && digits.chars().all(|c| c.is_ascii_digit());
    if valid {
        Ok(digits)
    } else {
        Err(AuthError::Validation("Invalid phone number format (E.164 required)".into()))
    }
}

enum Provider {
    Inbox,
    Twilio { account_sid: String, auth_token: secrecy::SecretString, sender: String, api_url: String },
    MessageBird { access_key: secrecy::SecretString, originator: String, api_url: String },
    Vonage { api_key: String, api_secret: secrecy::SecretString, from: String, api_url: String },
    TwilioVerify { account_sid: String, auth_token: secrecy::SecretString, service_sid: String, api_url: String },
    Textlocal { api_key: secrecy::SecretString, sender: String, api_url: String },
}

/// The configured way out for text messages.
pub struct Sms {
    provider: Provider,
    /// Test numbers (E.164 digits) and their fixed codes (`SMS_TEST_OTP`).
    test_otp: std::collections::HashMap<String, String>,
    test_otp_valid_until: Option<chrono::DateTime<chrono::Utc>>,
    template: String,
    pool: Pool,
    http: reqwest::Client,
}

impl std::fmt::Debug for Sms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.provider {
            Provider::Inbox => "inbox",
            Provider::Twilio { .. } => "twilio",
            Provider::MessageBird { .. } => "messagebird",
            Provider::Vonage { .. } => "vonage",
            Provider::TwilioVerify { .. } => "twilio_verify",
            Provider::Textlocal { .. } => "textlocal",
        };
        f.debug_struct("Sms").field("provider", &kind).finish()
    }
}

/// Whether `config`'s SMS settings describe a sender (what Studio checks before it saves).
pub fn check(config: &AuthConfig) -> Result<(), String> {
    provider(config).map(drop)?;
    test_otp(config).map(drop)
}

fn provider(config: &AuthConfig) -> Result<Provider, String> {
    let provider = match config.sms_provider.as_deref().unwrap_or("inbox") {
        "" | "inbox" => Provider::Inbox,
        "twilio" => Provider::Twilio {
            account_sid: config
                .sms_twilio_account_sid
                .clone()
                .ok_or("SMS_PROVIDER=twilio needs SMS_TWILIO_ACCOUNT_SID")?,
            auth_token: config
                .sms_twilio_auth_token
                .clone()
                .ok_or("SMS_PROVIDER=twilio needs SMS_TWILIO_AUTH_TOKEN")?,
            sender: config
                .sms_twilio_message_service_sid
                .clone()
                .ok_or("SMS_PROVIDER=twilio needs SMS_TWILIO_MESSAGE_SERVICE_SID")?,
            api_url: config.sms_twilio_api_url.trim_end_matches('/').to_string(),
        },
        "messagebird" => Provider::MessageBird {
            access_key: config
                .sms_messagebird_access_key
                .clone()
                .ok_or("SMS_PROVIDER=messagebird needs SMS_MESSAGEBIRD_ACCESS_KEY")?,
            originator: config
                .sms_messagebird_originator
                .clone()
                .ok_or("SMS_PROVIDER=messagebird needs SMS_MESSAGEBIRD_ORIGINATOR")?,
            api_url: config.sms_messagebird_api_url.trim_end_matches('/').to_string(),
        },
        "vonage" => Provider::Vonage {
            api_key: config.sms_vonage_api_key.clone().ok_or("SMS_PROVIDER=vonage needs SMS_VONAGE_API_KEY")?,
            api_secret: config
                .sms_vonage_api_secret
                .clone()
                .ok_or("SMS_PROVIDER=vonage needs SMS_VONAGE_API_SECRET")?,
            from: config.sms_vonage_from.clone().ok_or("SMS_PROVIDER=vonage needs SMS_VONAGE_FROM")?,
            api_url: config.sms_vonage_api_url.trim_end_matches('/').to_string(),
        },
        "twilio_verify" => Provider::TwilioVerify {
            account_sid: config
                .sms_twilio_verify_account_sid
                .clone()
                .ok_or("SMS_PROVIDER=twilio_verify needs SMS_TWILIO_VERIFY_ACCOUNT_SID")?,
            auth_token: config
                .sms_twilio_verify_auth_token
                .clone()
                .ok_or("SMS_PROVIDER=twilio_verify needs SMS_TWILIO_VERIFY_AUTH_TOKEN")?,
            service_sid: config
                .sms_twilio_verify_message_service_sid
                .clone()
                .ok_or("SMS_PROVIDER=twilio_verify needs SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID")?,
            api_url: config.sms_twilio_verify_api_url.trim_end_matches('/').to_string(),
        },
        "textlocal" => Provider::Textlocal {
            api_key: config
                .sms_textlocal_api_key
                .clone()
                .ok_or("SMS_PROVIDER=textlocal needs SMS_TEXTLOCAL_API_KEY")?,
            sender: config.sms_textlocal_sender.clone().ok_or("SMS_PROVIDER=textlocal needs SMS_TEXTLOCAL_SENDER")?,
            api_url: config.sms_textlocal_api_url.trim_end_matches('/').to_string(),
        },
        other => {
            return Err(format!(
            "SMS_PROVIDER {other:?} is not supported (inbox, twilio, twilio_verify, messagebird, textlocal or vonage)"
        ))
        }
    };
    Ok(provider)
}

fn test_otp(config: &AuthConfig) -> Result<std::collections::HashMap<String, String>, String> {
    let mut test_otp = std::collections::HashMap::new();
    for pair in config.sms_test_otp.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let (number, code) =
            pair.split_once(':').ok_or_else(|| format!("SMS_TEST_OTP: {pair:?} is not number:code"))?;
        let number = normalize_phone(number).map_err(|_| format!("SMS_TEST_OTP: {number:?} is not a phone number"))?;
        test_otp.insert(number, code.trim().to_string());
    }
    Ok(test_otp)
}

impl Sms {
    /// Build the sender from the configuration (the live settings build it again on each
    /// reload; a text being sent keeps the sender it started with).
    pub fn new(config: &AuthConfig, pool: Pool) -> Result<Sms, String> {
        let provider = provider(config)?;
        let test_otp = test_otp(config)?;
        let http = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(10))
            .build()
            .map_err(|e| format!("SMS HTTP client: {e}"))?;
        Ok(Sms {
            provider,
            test_otp,
            test_otp_valid_until: config.sms_test_otp_valid_until,
            template: config.sms_template.clone(),
            pool,
            http,
        })
    }

    /// Whether messages go to the development inbox.
    pub fn uses_inbox(&self) -> bool {
        matches!(self.provider, Provider::Inbox)
    }

    /// The fixed code of a test number (`SMS_TEST_OTP`, while `SMS_TEST_OTP_VALID_UNTIL` has not
    /// passed): nothing is texted to it.
    pub fn test_code(&self, phone: &str) -> Option<&str> {
        if self.test_otp_valid_until.is_some_and(|until| chrono::Utc::now() > until) {
            return None;
        }
        self.test_otp.get(phone).map(String::as_str)
    }

    /// Whether the provider makes and checks the codes of `phone` itself (Twilio Verify, but not
    /// for a test number): the server's code is not what the user receives, and a typed code is
    /// checked with [`Sms::check`].
    pub fn makes_codes(&self, phone: &str) -> bool {
        matches!(self.provider, Provider::TwilioVerify { .. }) && self.test_code(phone).is_none()
    }

    /// Ask Twilio Verify whether `code` is the pending code of `phone` (E.164 digits). Other
    /// providers never make codes: false.
    pub async fn check(&self, phone: &str, code: &str) -> Result<bool, AuthError> {
        let Provider::TwilioVerify { account_sid, auth_token, service_sid, api_url } = &self.provider else {
            return Ok(false);
        };
        let to = format!("+{phone}");
        let res = self
            .http
            .post(format!("{api_url}/v2/Services/{service_sid}/VerificationCheck"))
            .basic_auth(account_sid, Some(auth_token.expose_secret()))
            .form(&[("To", to.as_str()), ("Code", code.trim())])
            .send()
            .await;
        match res {
            // 404: no pending verification for the number (expired, used, or never sent)
            Ok(res) if res.status() == reqwest::StatusCode::NOT_FOUND => Ok(false),
            Ok(res) if res.status().is_success() => {
                let answer: serde_json::Value = res.json().await.unwrap_or_default();
                Ok(answer["status"].as_str() == Some("approved"))
            }
            other => {
                let why = match other {
                    Ok(res) => format!("twilio_verify error: {}", res.status().as_u16()),
                    Err(err) => format!("twilio_verify unreachable: {}", err.without_url()),
                };
                tracing::warn!(error = %why, "could not check a code with Twilio Verify");
                Err(AuthError::Coded(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "sms_send_failed",
                    format!("Error verifying OTP with provider: {why}"),
                ))
            }
        }
    }

    /// Send `code` to `phone` (E.164 digits); `kind` names the flow in the inbox (`sms`, `phone_change`).
    pub async fn send(&self, phone: &str, kind: &str, code: &str) -> Result<(), AuthError> {
        let body = self.template.replace("{{ .Code }}", code).replace("{{.Code}}", code);
        self.send_text(phone, kind, &body).await
    }

    /// Text a free message (the outbox's) to `phone` (E.164 digits). Twilio Verify sends only
    /// its own verification codes, so with it this is an error.
    pub async fn send_message(&self, phone: &str, kind: &str, body: &str) -> Result<(), AuthError> {
        if matches!(self.provider, Provider::TwilioVerify { .. }) {
            return Err(AuthError::internal("twilio_verify sends verification codes only, not messages"));
        }
        self.send_text(phone, kind, body).await
    }

    /// Text `body` to `phone` (E.164 digits); `kind` names the message in the inbox.
    async fn send_text(&self, phone: &str, kind: &str, body: &str) -> Result<(), AuthError> {
        if self.test_code(phone).is_some() {
            tracing::info!(kind, "a test number (SMS_TEST_OTP): nothing texted");
            return Ok(());
        }
        let body = body.to_string();
        let to = format!("+{phone}");
        match &self.provider {
            Provider::Inbox => {
                let client = self.pool.get().await?;
                client
                    .cached_execute(
                        "insert into auth.dev_inbox (recipient, subject, kind, html, body_text, link) \
                         values ($1, 'SMS', $2, $3, $4, null)",
                        &[&to, &kind, &super::mail::templates::html_escape(&body), &body],
                    )
                    .await?;
                tracing::info!(to, kind, "text message stored in the development inbox (/inbox)");
                Ok(())
            }
            Provider::Twilio { account_sid, auth_token, sender, api_url } => {
                let sender_field = if sender.starts_with("MG") { "MessagingServiceSid" } else { "From" };
                let form =
                    [("To", to.as_str()), ("Body", body.as_str()), (sender_field, sender.as_str()), ("Channel", "sms")];
                let sent = self
                    .http
                    .post(format!("{api_url}/2010-04-01/Accounts/{account_sid}/Messages.json"))
                    .basic_auth(account_sid, Some(auth_token.expose_secret()))
                    .form(&form)
                    .send()
                    .await;
                self.outcome("twilio", sent, |answer| match answer["status"].as_str() {
                    Some(status @ ("failed" | "undelivered" | "canceled")) => Some(format!("message {status}")),
                    _ => None,
                })
                .await
            }
            Provider::MessageBird { access_key, originator, api_url } => {
                let form = [("originator", originator.as_str()), ("body", body.as_str()), ("recipients", phone)];
                let sent = self
                    .http
                    .post(format!("{api_url}/messages"))
                    .header("Authorization", format!("AccessKey {}", access_key.expose_secret()))
                    .form(&form)
                    .send()
                    .await;
                self.outcome("messagebird", sent, |_| None).await
            }
            Provider::Vonage { api_key, api_secret, from, api_url } => {
                let form = [
                    ("api_key", api_key.as_str()),
                    ("api_secret", api_secret.expose_secret()),
                    ("from", from.as_str()),
                    ("to", phone),
                    ("text", body.as_str()),
                ];
                let sent = self.http.post(format!("{api_url}/sms/json")).form(&form).send().await;
                self.outcome("vonage", sent, |answer| {
                    let first = &answer["messages"][0];
                    match first["status"].as_str() {
                        Some("0") => None,
                        _ => Some(first["error-text"].as_str().unwrap_or("message refused").to_string()),
                    }
                })
                .await
            }
            Provider::TwilioVerify { account_sid, auth_token, service_sid, api_url } => {
                let sent = self
                    .http
                    .post(format!("{api_url}/v2/Services/{service_sid}/Verifications"))
                    .basic_auth(account_sid, Some(auth_token.expose_secret()))
                    .form(&[("To", to.as_str()), ("Channel", "sms")])
                    .send()
                    .await;
                self.outcome("twilio_verify", sent, |answer| match answer["status"].as_str() {
                    Some(status @ ("canceled" | "failed")) => Some(format!("verification {status}")),
                    _ => None,
                })
                .await
            }
            Provider::Textlocal { api_key, sender, api_url } => {
                let form = [
                    ("apikey", api_key.expose_secret()),
                    ("sender", sender.as_str()),
                    ("numbers", phone),
                    ("message", body.as_str()),
                ];
                let sent = self.http.post(format!("{api_url}/send/")).form(&form).send().await;
                self.outcome("textlocal", sent, |answer| match answer["status"].as_str() {
                    Some("success") => None,
                    _ => Some(answer["errors"][0]["message"].as_str().unwrap_or("message refused").to_string()),
                })
                .await
            }
        }
    }

    /// A provider's answer: an HTTP failure, or a refusal `refused` reads in a successful answer,
    /// is GoTrue's `sms_send_failed` (the provider's words are logged, never a credential).
    async fn outcome(
        &self,
        provider: &str,
        sent: Result<reqwest::Response, reqwest::Error>,
        refused: impl Fn(&serde_json::Value) -> Option<String>,
    ) -> Result<(), AuthError> {
        let failure = match sent {
            Ok(res) if res.status().is_success() => {
                let answer: serde_json::Value = res.json().await.unwrap_or_default();
                refused(&answer).map(|why| format!("{provider} error: {why}"))
            }
            Ok(res) => {
                let status = res.status();
                let answer: serde_json::Value = res.json().await.unwrap_or_default();
                let words = answer["message"]
                    .as_str()
                    .or_else(|| answer["errors"][0]["description"].as_str())
                    .or_else(|| answer["error-text"].as_str())
                    .unwrap_or("");
                Some(format!("{provider} error: {} {words}", status.as_u16()))
            }
            Err(err) => Some(format!("{provider} unreachable: {}", err.without_url())),
        };
        match failure {
            None => Ok(()),
            Some(why) => {
                tracing::warn!(error = %why, "could not send a text message");
                Err(AuthError::Coded(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "sms_send_failed",
                    format!("Error sending confirmation OTP to provider: {why}"),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_e164_digits_without_the_plus() {
        assert_eq!(normalize_phone("+243 812 345 678").unwrap(), "243812345678");
        assert_eq!(normalize_phone("243812345678").unwrap(), "243812345678");
        for bad in ["", "+", "0812345678", "+243-812", "12345678901234567", "phone"] {
            assert!(normalize_phone(bad).is_err(), "{bad}");
        }
    }
}
