//! `GET /settings` (what this server allows), `GET /health`, `GET /.well-known/jwks.json` and
//! `GET /.well-known/openid-configuration`.

use crate::db::cached::CachedQueries;
use actix_web::{web, HttpResponse};
use serde_json::json;

use crate::auth::error::AuthError;
use crate::auth::AuthState;

pub async fn settings(state: web::Data<AuthState>) -> HttpResponse {
    // GoTrue's `external` keys: the providers it knows by name (but `x`, which its settings do
    // not list) and these.
    let providers =
        super::disabled::PROVIDERS.iter().filter(|p| **p != "x").chain(&["anonymous_users", "phone", "saml"]);
    let mut external = serde_json::Map::new();
    for p in providers {
        external.insert((*p).into(), json!(false));
    }
    let config = state.config();
    external.insert("email".into(), json!(config.external_email_enabled));
    external.insert("anonymous_users".into(), json!(config.anonymous_users_enabled));
    external.insert("phone".into(), json!(config.phone_enabled));
    let oidc = state.oidc();
    for provider in ["google", "apple", "azure", "keycloak", "github", "gitlab", "discord", "facebook"] {
        external.insert(provider.into(), json!(oidc.enabled(provider)));
    }
    HttpResponse::Ok().json(json!({
        "external": external,
        "disable_signup": config.disable_signup,
        "mailer_autoconfirm": config.mailer_autoconfirm,
        "phone_autoconfirm": config.sms_autoconfirm,
        "sms_provider": if config.phone_enabled { config.sms_provider.as_deref().unwrap_or("inbox") } else { "" },
        "saml_enabled": false,
    }))
}

pub async fn health(state: web::Data<AuthState>) -> Result<HttpResponse, AuthError> {
    let client = state.pool.get().await?;
    client.cached_query_one("select 1", &[]).await?;
    Ok(HttpResponse::Ok().json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "name": "GoTrue",
        "description": "GoTrue is a user registration and authentication API",
    })))
}

/// The public keys that verify access tokens: the key in use, standby keys (published before
/// they sign) and previously used ones; never a revoked key, never the HS256 secret. Clients
/// (auth-js `getClaims`) cache it for ten minutes, and so may any HTTP cache.
pub async fn jwks(state: web::Data<AuthState>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "public, max-age=600"))
        .json(state.signing_keys.jwks())
}

/// `GET /.well-known/openid-configuration`: GoTrue's discovery document, which it serves whether
/// or not its OAuth 2.1 server is on (off, those endpoints answer `feature_disabled`).
pub async fn openid_configuration(state: web::Data<AuthState>) -> HttpResponse {
    HttpResponse::Ok().insert_header(("Cache-Control", "public, max-age=600")).json(super::oauth::discovery(&state))
}
