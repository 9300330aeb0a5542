//! Auth → Settings: the auth settings an operator changes while the server runs (sign-ups,
//! providers with their client ids and write-only secrets, redirect allow list, password rules,
//! rate limits, MFA switches, SMTP, the SMS provider, hooks, the WebAuthn relying party, the
//! OAuth 2.1 server). Each is shown with its start-up value (environment and
//! `config.toml`), the override if any, and the value in force; saving writes the overrides
//! (`_studio.auth_settings`, secrets sealed into `_studio.auth_secrets`) and its audit row in one
//! transaction, and the auth surface reloads (`auth::live`: here at once, on the other instances
//! by NOTIFY). A secret's value is never read back: only whether one is set.

use std::collections::BTreeMap;

use actix_web::{web, HttpResponse};
use secrecy::SecretString;
use serde::Deserialize;
use serde_json::{json, Value};

use super::audit;
use super::error::StudioError;
use super::session::OperatorSession;
use crate::auth::live::{self, catalog};
use crate::state::AppState;

/// `GET /studio/api/auth/settings`.
pub async fn get(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let overridden: BTreeMap<String, Value> = client
        .query("select name, value from _studio.auth_settings", &[])
        .await?
        .into_iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let sealed: Vec<String> =
        client.query("select name from _studio.auth_secrets", &[]).await?.into_iter().map(|r| r.get(0)).collect();
    let live = state.auth.live();
    let effective = live.current();
    let settings: Vec<Value> = catalog::SETTINGS
        .iter()
        .map(|s| {
            json!({
                "name": s.name, "group": s.group, "label": s.label, "kind": s.kind.name(),
                "default": (s.get)(&live.base), "value": (s.get)(&effective.config),
                "overridden": overridden.contains_key(s.name),
            })
        })
        .collect();
    let secrets: Vec<Value> = catalog::SECRETS
        .iter()
        .map(|s| {
            json!({
                "name": s.name, "group": s.group, "label": s.label,
                "set": (s.is_set)(&effective.config), "overridden": sealed.iter().any(|n| n == s.name),
            })
        })
        .collect();
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(json!({"settings": settings, "secrets": secrets})))
}

/// `PUT /studio/api/auth/settings` body: `null` removes an override (back to the start-up value).
#[derive(Deserialize)]
pub struct Change {
    #[serde(default)]
    settings: BTreeMap<String, Value>,
    #[serde(default)]
    secrets: BTreeMap<String, Option<String>>,
}

/// Check a change against the catalogue and the overrides in force: every name known, every value
/// of its type, and the result runnable (an enabled provider has what it needs).
pub fn check(
    base: &crate::config::AuthConfig,
    site_url: &str,
    current: &live::Overrides,
    change: &Change,
) -> Result<(), String> {
    let mut scratch = base.clone();
    for (name, value) in &change.settings {
        if !value.is_null() {
            catalog::apply_one(&mut scratch, name, value)?;
        } else if catalog::setting(name).is_none() {
            return Err(format!("{name}: not a setting that can be changed here"));
        }
    }
    for name in change.secrets.keys() {
        if catalog::secret(name).is_none() {
            return Err(format!("{name}: not a secret that can be set here"));
        }
    }
    let mut next = live::Overrides {
        settings: current.settings.iter().filter(|(n, _)| !change.settings.contains_key(n)).cloned().collect(),
        ..Default::default()
    };
    next.settings.extend(change.settings.iter().filter(|(_, v)| !v.is_null()).map(|(n, v)| (n.clone(), v.clone())));
    next.secrets = current.secrets.iter().filter(|(n, _)| !change.secrets.contains_key(n)).cloned().collect();
    next.secrets.extend(
        change.secrets.iter().filter_map(|(n, v)| v.as_ref().map(|v| (n.clone(), SecretString::from(v.clone())))),
    );
    let mut config = base.clone();
    for (name, value) in &next.settings {
        catalog::apply_one(&mut config, name, value)?;
    }
    for (name, value) in &next.secrets {
        catalog::apply_secret(&mut config, name, value.clone())?;
    }
    live::runnable(&config, site_url)
}

/// `PUT /studio/api/auth/settings` `{settings: {NAME: value|null}, secrets: {NAME: "…"|null}}`:
/// the settings as `get` answers them, now in force.
pub async fn put(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<Change>,
) -> Result<HttpResponse, StudioError> {
    let change = body.into_inner();
    let live = state.auth.live();
    let mut client = state.pools.admin.get().await?;
    let current = live::read(&client, &live.sealer).await?;
    check(&live.base, &live.site_url, &current, &change).map_err(StudioError::BadRequest)?;
    let tx = client.transaction().await?;
    for (name, value) in &change.settings {
        if value.is_null() {
            tx.execute("delete from _studio.auth_settings where name = $1", &[name]).await?;
        } else {
            tx.execute(
                "insert into _studio.auth_settings (name, value) values ($1, $2) \
                 on conflict (name) do update set value = excluded.value, updated_at = now()",
                &[name, value],
            )
            .await?;
        }
    }
    for (name, value) in &change.secrets {
        match value {
            None => tx.execute("delete from _studio.auth_secrets where name = $1", &[name]).await?,
            Some(value) => {
                let sealed = live.sealer.seal_text(name, &SecretString::from(value.clone()));
                tx.execute(
                    "insert into _studio.auth_secrets (name, sealed) values ($1, $2) \
                     on conflict (name) do update set sealed = excluded.sealed, updated_at = now()",
                    &[name, &sealed],
                )
                .await?
            }
        };
    }
    // The audit row names the secrets changed, never their values.
    let secrets: BTreeMap<&String, &str> =
        change.secrets.iter().map(|(n, v)| (n, if v.is_some() { "set" } else { "removed" })).collect();
    let detail = json!({"settings": change.settings, "secrets": secrets});
    audit::record(&tx, &op, "auth.settings.update", Some("auth.settings"), detail).await?;
    tx.commit().await?;
    drop(client);
    state.auth.reload_settings().await.map_err(StudioError::internal)?;
    get(state).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn base() -> crate::config::AuthConfig {
        crate::config::Cli::parse_from(["server"]).config.auth
    }

    const SITE: &str = "http://localhost:5173";

    fn change(settings: Value, secrets: Value) -> Change {
        serde_json::from_value(json!({"settings": settings, "secrets": secrets})).unwrap()
    }

    #[test]
    fn a_change_is_checked_against_the_catalogue_and_the_providers_needs() {
        let none = live::Overrides::default();
        assert!(check(&base(), SITE, &none, &change(json!({"DISABLE_SIGNUP": true}), json!({}))).is_ok());
        assert!(check(&base(), SITE, &none, &change(json!({"DISABLE_SIGNUP": null}), json!({}))).is_ok());
        assert_eq!(
            check(&base(), SITE, &none, &change(json!({"JWT_EXP": 1}), json!({}))).unwrap_err(),
            "JWT_EXP: not a setting that can be changed here"
        );
        assert!(check(&base(), SITE, &none, &change(json!({}), json!({"JWT_SECRET": "x"}))).is_err());
        // A hook turned on needs its URI; an HTTP hook needs its signing secret.
        let hook = json!({"HOOK_CUSTOM_ACCESS_TOKEN_ENABLED": true});
        assert_eq!(
            check(&base(), SITE, &none, &change(hook, json!({}))).unwrap_err(),
            "HOOK_CUSTOM_ACCESS_TOKEN_ENABLED needs HOOK_CUSTOM_ACCESS_TOKEN_URI"
        );
        let http =
            json!({"HOOK_CUSTOM_ACCESS_TOKEN_ENABLED": true, "HOOK_CUSTOM_ACCESS_TOKEN_URI": "https://h.test/x"});
        assert!(check(&base(), SITE, &none, &change(http.clone(), json!({})))
            .unwrap_err()
            .starts_with("HOOK_CUSTOM_ACCESS_TOKEN_SECRETS"));
        let signed = json!({"HOOK_CUSTOM_ACCESS_TOKEN_SECRETS": "v1,whsec_c2VjcmV0"});
        assert!(check(&base(), SITE, &none, &change(http, signed)).is_ok());
        // A WebAuthn origin must be a URL.
        let origins = json!({"WEBAUTHN_RP_ORIGINS": ["not a url"]});
        assert!(check(&base(), SITE, &none, &change(origins, json!({})))
            .unwrap_err()
            .starts_with("WEBAUTHN_RP_ORIGINS"));
        // GitHub needs its secret: refused without it, accepted with it.
        let github = json!({"EXTERNAL_GITHUB_ENABLED": true, "EXTERNAL_GITHUB_CLIENT_ID": ["abc"]});
        assert!(check(&base(), SITE, &none, &change(github.clone(), json!({})))
            .unwrap_err()
            .contains("EXTERNAL_GITHUB_SECRET"));
        assert!(check(&base(), SITE, &none, &change(github, json!({"EXTERNAL_GITHUB_SECRET": "s3cret"}))).is_ok());
    }
}
