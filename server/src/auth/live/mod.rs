//! The auth configuration in force, changed while the server runs: the configuration the server
//! started with (environment and `config.toml`) is the default, and the overrides an operator
//! saves in Studio (`_studio.auth_settings`, `_studio.auth_secrets` sealed, and
//! `_studio.auth_mail_templates`, migration V104) are applied over it. The result is one shared
//! snapshot (`Effective`) swapped whole: handlers read `AuthState::config()` / `oidc()` and get a
//! consistent view for the request.
//!
//! Every write to those tables NOTIFYs `auth_settings`; each instance LISTENs (`spawn_listener`)
//! and reloads, and re-reads once each time its listening connection is (re)made, so an instance
//! that lost notifications catches up. The writer reloads at once too. A stored override that no
//! longer applies (a renamed setting, a secret sealed under another JWT secret) is skipped with a
//! warning, never fatal. This module does not write the tables: the Studio does.

pub mod catalog;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use deadpool_postgres::{GenericClient, Pool};
use secrecy::SecretString;
use serde_json::Value;

use super::hooks::Hooks;
use super::mail::{Delivery, Kind, Templates};
use super::oidc::Oidc;
use super::sms::Sms;
use super::webauthn::WebAuthn;
use crate::config::AuthConfig;
use crate::sealed::Sealer;

/// The sealing purpose of the auth secrets (changing it makes every stored secret unreadable).
pub const SECRETS_PURPOSE: &str = "studio-auth-secrets-v1";

/// What an operator saved: setting values, opened secrets, and template replacements
/// (`kind → (subject, html)`).
#[derive(Default)]
pub struct Overrides {
    pub settings: Vec<(String, Value)>,
    pub secrets: Vec<(String, SecretString)>,
    pub templates: HashMap<Kind, (Option<String>, Option<String>)>,
}

/// One consistent snapshot of what is in force.
pub struct Effective {
    pub config: Arc<AuthConfig>,
    pub oidc: Arc<Oidc>,
    pub templates: Arc<Templates>,
    pub password_required: Arc<Vec<String>>,
    /// The SMTP transport and sender (or the development inbox).
    pub delivery: Arc<Delivery>,
    pub hooks: Arc<Hooks>,
    /// The WebAuthn relying party (id, name, origins).
    pub webauthn: Arc<WebAuthn>,
    /// The SMS provider (or the development inbox).
    pub sms: Arc<Sms>,
}

/// The parts of `config` that must build for the server to run with it (OAuth providers, SMTP,
/// hooks, WebAuthn, SMS), or the first that does not, named by its setting.
fn parts(config: &AuthConfig, site_url: &str) -> Result<(Oidc, Delivery, Hooks, WebAuthn), String> {
    Ok((Oidc::new(config)?, Delivery::new(config)?, Hooks::new(config)?, WebAuthn::new(config, site_url)?))
}

/// Whether the server can run with `config` (what Studio checks before it saves).
pub fn runnable(config: &AuthConfig, site_url: &str) -> Result<(), String> {
    parts(config, site_url)?;
    super::sms::check(config)
}

/// `base` with `overrides` applied; an override that does not apply is logged and skipped.
/// Errors only when the result cannot run (an OAuth provider enabled without what it needs).
pub fn build(
    base: &AuthConfig,
    base_templates: &Templates,
    site_url: &str,
    pool: &Pool,
    overrides: &Overrides,
) -> Result<Effective, String> {
    let mut config = base.clone();
    for (name, value) in &overrides.settings {
        if let Err(err) = catalog::apply_one(&mut config, name, value) {
            tracing::warn!(error = %err, "auth settings: a stored override is skipped");
        }
    }
    for (name, value) in &overrides.secrets {
        if let Err(err) = catalog::apply_secret(&mut config, name, value.clone()) {
            tracing::warn!(error = %err, "auth settings: a stored secret is skipped");
        }
    }
    let mut templates = base_templates.clone();
    for (kind, (subject, html)) in &overrides.templates {
        templates = templates.with_subject(*kind, subject.as_deref());
        if let Some(html) = html.as_deref().filter(|h| !h.trim().is_empty()) {
            templates = templates.with_html(*kind, html);
        }
    }
    let (oidc, delivery, hooks, webauthn) = parts(&config, site_url)?;
    let sms = Sms::new(&config, pool.clone())?;
    let password_required = super::password::required_character_sets(&config.password_required_characters);
    Ok(Effective {
        config: Arc::new(config),
        oidc: Arc::new(oidc),
        templates: Arc::new(templates),
        password_required: Arc::new(password_required),
        delivery: Arc::new(delivery),
        hooks: Arc::new(hooks),
        webauthn: Arc::new(webauthn),
        sms: Arc::new(sms),
    })
}

/// Read what the operators saved (secrets opened with `sealer`; one that does not open is
/// skipped with a warning).
pub async fn read(db: &impl GenericClient, sealer: &Sealer) -> Result<Overrides, tokio_postgres::Error> {
    let mut out = Overrides::default();
    for row in db.query("select name, value from _studio.auth_settings order by name", &[]).await? {
        out.settings.push((row.get(0), row.get(1)));
    }
    for row in db.query("select name, sealed from _studio.auth_secrets order by name", &[]).await? {
        let name: String = row.get(0);
        let sealed: Vec<u8> = row.get(1);
        match sealer.open_text(&name, &sealed) {
            Ok(value) => out.secrets.push((name, value)),
            Err(_) => {
                tracing::warn!(name = %name, "auth settings: a stored secret does not open (was the JWT secret changed?)")
            }
        }
    }
    for row in db.query("select kind, subject, html from _studio.auth_mail_templates", &[]).await? {
        let kind: String = row.get(0);
        if let Some(kind) = Kind::ALL.into_iter().find(|k| k.name() == kind) {
            out.templates.insert(kind, (row.get(1), row.get(2)));
        }
    }
    Ok(out)
}

/// The base configuration and the snapshot in force.
pub struct Live {
    pub base: AuthConfig,
    pub base_templates: Templates,
    /// SITE_URL: the WebAuthn relying party's default origin.
    pub site_url: String,
    pub sealer: Sealer,
    /// The auth pool (the SMS sender's development inbox writes through it).
    pool: Pool,
    current: RwLock<Arc<Effective>>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Live")
    }
}

impl Live {
    /// The base in force until the first reload.
    pub fn new(
        base: AuthConfig,
        base_templates: Templates,
        site_url: &str,
        pool: Pool,
        jwt_secret: &SecretString,
    ) -> Result<Live, String> {
        let first = build(&base, &base_templates, site_url, &pool, &Overrides::default())?;
        Ok(Live {
            pool,
            base,
            base_templates,
            site_url: site_url.to_string(),
            sealer: Sealer::new(jwt_secret, SECRETS_PURPOSE),
            current: RwLock::new(Arc::new(first)),
        })
    }

    pub fn current(&self) -> Arc<Effective> {
        match self.current.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Re-read the overrides and swap the snapshot. When the stored overrides cannot run (which
    /// Studio refuses to save), the snapshot in force stays and the error is returned.
    pub async fn reload(&self, db: &impl GenericClient) -> Result<(), String> {
        let overrides = read(db, &self.sealer).await.map_err(|e| format!("reading auth settings: {e}"))?;
        let next = build(&self.base, &self.base_templates, &self.site_url, &self.pool, &overrides)?;
        match self.current.write() {
            Ok(mut guard) => *guard = Arc::new(next),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(next),
        }
        Ok(())
    }
}

/// LISTEN on `auth_settings` for the life of the process and reload on each notification (and
/// each time the connection is made again).
pub fn spawn_listener(state: Arc<super::AuthState>, url: SecretString) {
    tokio::spawn(async move {
        loop {
            let mut listener = match crate::db::listen::listen(&url, "auth_settings").await {
                Ok(l) => l,
                Err(err) => {
                    tracing::warn!(error = %err, "auth settings: cannot listen for changes; retrying");
                    tokio::time::sleep(std::time::Duration::from_secs(5)).await;
                    continue;
                }
            };
            reload_logged(&state).await;
            while listener.payloads.recv().await.is_some() {
                reload_logged(&state).await;
            }
            listener.driver.abort();
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        }
    });
}

async fn reload_logged(state: &super::AuthState) {
    if let Err(err) = state.reload_settings().await {
        tracing::warn!(error = %err, "auth settings: reload failed; the settings in force stay");
    }
}
