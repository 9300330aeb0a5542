//! `/auth/v1`: a GoTrue-compatible auth server that the unchanged supabase-js auth client uses.
//!
//! Handlers (`handlers/`) parse requests and decide; `users`, `sessions` and `flows` hold the
//! SQL and the e-mail flows; `password` and `tokens` the cryptography; `mail` the templates,
//! SMTP and the development inbox; `rate_limit` the Postgres-backed limits; `error` the one
//! error enum and its GoTrue wire shapes. Auth work runs on the owner (admin) pool: it must not
//! depend on the caller's database role. Endpoints authenticate the Bearer token themselves; the
//! REST API-key gate is not in front of this surface.

pub mod audit;
pub mod error;
pub mod flows;
mod handlers;
pub mod hooks;
pub mod live;
pub mod mail;
pub mod mfa;
pub mod oauth_server;
pub mod oidc;
pub mod one_time;
pub mod password;
pub mod phone;
pub mod rate_limit;
pub mod refresh_batch;
pub mod refresh_token;
pub mod request;
pub mod sessions;
pub mod sms;
pub mod tokens;
pub mod user_admin;
pub mod users;
pub mod webauthn;

use std::sync::Arc;

use actix_web::web;
use deadpool_postgres::Pool;
use jsonwebtoken::EncodingKey;
use secrecy::ExposeSecret;

use crate::config::AuthConfig;
use crate::jwt::JwtVerifier;
use crate::keys::Keys;
use crate::signing_keys::SigningKeys;
use error::AuthError;
use mail::Mailer;

/// Shared state of the auth surface.
pub struct AuthState {
    /// The configuration in force: the start-up one with Studio's overrides (read it with
    /// [`config`](Self::config) and [`oidc`](Self::oidc)).
    live: live::Live,
    /// Owner pool: auth tables are not the caller's to touch.
    pub pool: Pool,
    /// The legacy HS256 secret: signs only when no asymmetric key is in use, and the `state` of
    /// the OAuth redirect flow (with `decoding_key`).
    pub encoding_key: EncodingKey,
    pub decoding_key: jsonwebtoken::DecodingKey,
    /// The asymmetric signing keys (shared with every verifier of this instance).
    pub signing_keys: Arc<SigningKeys>,
    pub verifier: Arc<JwtVerifier>,
    /// `iss` of access tokens: `API_EXTERNAL_URL/auth/v1`.
    pub issuer: String,
    pub site_url: String,
    pub mailer: Mailer,
    /// The client of HTTP hooks.
    pub hook_http: reqwest::Client,
    /// Refresh grants queued to be granted together.
    pub refresh_batch: Arc<refresh_batch::RefreshBatch>,
}

impl std::fmt::Debug for AuthState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthState").field("issuer", &self.issuer).field("mailer", &self.mailer).finish()
    }
}

impl AuthState {
    /// Build the state; `external_url` is the API's public URL (without `/auth/v1`).
    pub fn new(
        config: AuthConfig,
        pool: Pool,
        keys: &Keys,
        signing_keys: Arc<SigningKeys>,
        external_url: &str,
        site_url: &str,
    ) -> Result<AuthState, String> {
        let mailer = Mailer::new(&config, pool.clone())?;
        if mailer.uses_inbox() {
            tracing::warn!(
                "SMTP_HOST is unset: auth mail goes to the development inbox at /inbox (local requests only)"
            );
        }
        let refresh_batch = refresh_batch::RefreshBatch::new(
            pool.clone(),
            i32::try_from(config.rate_limit_token_refresh).unwrap_or(i32::MAX),
            rate_limit::IP_WINDOW_SECS as f64,
        );
        let live = live::Live::new(config, (*mailer.templates()).clone(), site_url, pool.clone(), &keys.jwt_secret)?;
        Ok(AuthState {
            live,
            pool,
            refresh_batch,
            encoding_key: EncodingKey::from_secret(keys.jwt_secret.expose_secret().as_bytes()),
            decoding_key: jsonwebtoken::DecodingKey::from_secret(keys.jwt_secret.expose_secret().as_bytes()),
            verifier: Arc::new(
                JwtVerifier::new(&keys.jwt_secret, None)
                    .with_signing_keys(signing_keys.clone())
                    .with_api_keys(keys.api_keys.clone()),
            ),
            signing_keys,
            issuer: format!("{}/auth/v1", external_url.trim_end_matches('/')),
            site_url: site_url.trim_end_matches('/').to_string(),
            mailer,
            hook_http: reqwest::Client::new(),
        })
    }

    /// The configuration in force for this request (start-up settings with Studio's overrides).
    pub fn config(&self) -> Arc<AuthConfig> {
        self.live.current().config.clone()
    }

    /// The OAuth/OIDC providers in force.
    pub fn oidc(&self) -> Arc<oidc::Oidc> {
        self.live.current().oidc.clone()
    }

    /// The hooks in force.
    pub fn hooks(&self) -> Arc<hooks::Hooks> {
        self.live.current().hooks.clone()
    }

    /// The SMS sender in force.
    pub fn sms(&self) -> Arc<sms::Sms> {
        self.live.current().sms.clone()
    }

    /// The WebAuthn relying party in force.
    pub fn webauthn(&self) -> Arc<webauthn::WebAuthn> {
        self.live.current().webauthn.clone()
    }

    /// The base configuration, the sealer of secrets and the snapshot in force (for Studio).
    pub fn live(&self) -> &live::Live {
        &self.live
    }

    /// Re-read Studio's overrides and put them in force (templates and SMTP included).
    pub async fn reload_settings(&self) -> Result<(), String> {
        let client = self.pool.get().await.map_err(|e| format!("auth settings: {e}"))?;
        self.live.reload(&client).await?;
        let effective = self.live.current();
        self.mailer.set_templates(effective.templates.clone());
        self.mailer.set_delivery(effective.delivery.clone());
        Ok(())
    }

    /// Refuse a password too short or missing a required character class (GoTrue's
    /// `weak_password`).
    pub fn check_password(&self, plain: &str) -> Result<(), AuthError> {
        let effective = self.live.current();
        password::check_strength(plain, effective.config.password_min_length, &effective.password_required)
    }

    /// Refuse an e-mail sign-up or sign-in when `EXTERNAL_EMAIL_ENABLED` is off, with GoTrue's
    /// `email_provider_disabled` (its status and wording differ from endpoint to endpoint).
    pub fn require_email_provider(&self, status: u16, message: &str) -> Result<(), AuthError> {
        if self.config().external_email_enabled {
            return Ok(());
        }
        let status = actix_web::http::StatusCode::from_u16(status).unwrap_or(actix_web::http::StatusCode::BAD_REQUEST);
        Err(AuthError::Coded(status, "email_provider_disabled", message.to_string()))
    }

    /// Digits of e-mailed one-time codes: `MAILER_OTP_LENGTH` when it is 6 to 10, else 6 (as GoTrue).
    pub fn mailer_otp_length(&self) -> usize {
        match self.config().mailer_otp_length {
            n @ 6..=10 => n,
            _ => 6,
        }
    }

    /// `redirect_to` when it is allowed (it starts with SITE_URL or matches URI_ALLOW_LIST),
    /// else SITE_URL.
    pub fn redirect_target(&self, requested: Option<&str>) -> String {
        match requested.map(str::trim).filter(|r| !r.is_empty()) {
            Some(url) if self.redirect_allowed(url) => url.to_string(),
            _ => self.site_url.clone(),
        }
    }

    pub fn redirect_allowed(&self, url: &str) -> bool {
        let Ok(parsed) = url::Url::parse(url) else { return false };
        let config = self.config();
        if !matches!(parsed.scheme(), "http" | "https") && !config.uri_allow_list.iter().any(|a| url.starts_with(a)) {
            return false;
        }
        if same_origin_prefix(url, &self.site_url) {
            return true;
        }
        config.uri_allow_list.iter().map(|a| a.trim()).filter(|a| !a.is_empty()).any(|allowed| {
            match allowed.strip_suffix("**").or_else(|| allowed.strip_suffix('*')) {
                Some(prefix) => url.starts_with(prefix),
                None => url == allowed || same_origin_prefix(url, allowed),
            }
        })
    }
}

/// Whether `url` is `base` or below it (not merely sharing a prefix of the host name).
fn same_origin_prefix(url: &str, base: &str) -> bool {
    let base = base.trim_end_matches('/');
    url == base || url.strip_prefix(base).is_some_and(|rest| rest.starts_with(['/', '?', '#']))
}

/// Mount the `/auth/v1` routes (the caller wraps them in the API-version middleware).
pub fn configure(cfg: &mut web::ServiceConfig) {
    handlers::configure(cfg);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(allow: &[&str]) -> AuthState {
        use clap::Parser;
        let mut cli = crate::config::Cli::parse_from(["server"]);
        cli.config.auth.uri_allow_list = allow.iter().map(|s| s.to_string()).collect();
        let pool = deadpool_postgres::Pool::builder(deadpool_postgres::Manager::new(
            tokio_postgres::Config::new(),
            tokio_postgres::NoTls,
        ))
        .build()
        .unwrap();
        let secret = secrecy::SecretString::from("s".repeat(40));
        let keys = Keys {
            jwt_secret: secret.clone(),
            anon_key: secret.clone(),
            service_role_key: secret.clone(),
            api_keys: Arc::new(crate::keys::ApiKeys::derive(&secret)),
        };
        AuthState::new(
            cli.config.auth,
            pool,
            &keys,
            Arc::new(SigningKeys::default()),
            "http://api.test",
            "http://site.test",
        )
        .unwrap()
    }

    #[test]
    fn redirects_are_honoured_only_below_the_site_or_in_the_allow_list() {
        let s = state(&["http://app.test/cb", "http://wild.test/*"]);
        assert_eq!(s.redirect_target(Some("http://site.test/welcome")), "http://site.test/welcome");
        assert_eq!(s.redirect_target(Some("http://site.test.evil.test/x")), "http://site.test");
        assert_eq!(s.redirect_target(Some("http://evil.test/")), "http://site.test");
        assert_eq!(s.redirect_target(Some("http://app.test/cb")), "http://app.test/cb");
        assert_eq!(s.redirect_target(Some("http://wild.test/any/path")), "http://wild.test/any/path");
        assert_eq!(s.redirect_target(None), "http://site.test");
        assert_eq!(s.issuer, "http://api.test/auth/v1");
    }
}
