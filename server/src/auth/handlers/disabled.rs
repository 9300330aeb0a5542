//! Features this server does not offer (yet), answered as GoTrue answers when they are switched
//! off: the same status, error code and message, never a bare 404. SAML SSO, manual identity
//! linking, OAuth / OIDC sign-in with external providers, the `id_token` and `web3` grants. (The
//! OAuth 2.1 server answers its own `feature_disabled` when `OAUTH_SERVER_ENABLED` is off.)

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};

use crate::auth::error::AuthError;
use crate::auth::request::query;

fn off(status: StatusCode, code: &'static str, message: &str) -> Result<HttpResponse, AuthError> {
    Err(AuthError::Coded(status, code, message.to_string()))
}

/// `/sso`, `/sso/saml/*`, `/admin/sso/providers*`.
pub async fn saml() -> Result<HttpResponse, AuthError> {
    off(StatusCode::NOT_FOUND, "saml_provider_disabled", "SAML 2.0 is disabled")
}

/// `/admin/custom-providers*` (after the admin check).
pub async fn custom_providers(_: crate::auth::request::Admin) -> Result<HttpResponse, AuthError> {
    off(StatusCode::NOT_FOUND, "feature_disabled", "Custom OAuth providers are disabled")
}

/// `/scim/v2/*`.
pub async fn scim() -> Result<HttpResponse, AuthError> {
    off(StatusCode::NOT_FOUND, "feature_disabled", "SCIM server is disabled")
}

/// `GET /user/identities/authorize` (`linkIdentity`).
pub async fn manual_linking() -> Result<HttpResponse, AuthError> {
    off(StatusCode::NOT_FOUND, "manual_linking_disabled", "Manual linking is disabled")
}

/// Providers GoTrue knows by name (`/authorize?provider=`, the `id_token` grant).
pub(super) const PROVIDERS: &[&str] = &[
    "apple",
    "azure",
    "bitbucket",
    "discord",
    "facebook",
    "figma",
    "fly",
    "github",
    "gitlab",
    "google",
    "kakao",
    "keycloak",
    "linkedin",
    "linkedin_oidc",
    "notion",
    "slack",
    "slack_oidc",
    "spotify",
    "twitch",
    "twitter",
    "workos",
    "x",
    "zoom",
    "snapchat",
];

/// `GET /authorize?provider=…` and `GET /callback`: no external provider is enabled.
pub async fn authorize(req: HttpRequest) -> Result<HttpResponse, AuthError> {
    let provider = query(&req).get("provider").cloned().unwrap_or_default();
    let message = if PROVIDERS.contains(&provider.to_ascii_lowercase().as_str()) {
        "Unsupported provider: provider is not enabled".to_string()
    } else {
        format!("Unsupported provider: Provider {provider} could not be found")
    };
    off(StatusCode::BAD_REQUEST, "validation_failed", &message)
}

/// The issuer GoTrue names for a provider of the `id_token` grant.
fn issuer_of(provider: &str) -> Option<&'static str> {
    match provider {
        "apple" => Some("https://appleid.apple.com"),
        "google" => Some("https://accounts.google.com"),
        "facebook" => Some("https://www.facebook.com"),
        "kakao" => Some("https://kauth.kakao.com"),
        "azure" | "keycloak" => Some(""),
        _ => None,
    }
}

/// `POST /token?grant_type=id_token` (`signInWithIdToken`): no provider is enabled.
pub fn id_token_grant(body: &serde_json::Value) -> Result<HttpResponse, AuthError> {
    let text = |k: &str| body.get(k).and_then(serde_json::Value::as_str).unwrap_or_default().to_string();
    if text("id_token").is_empty() {
        return off(StatusCode::BAD_REQUEST, "validation_failed", "id_token required");
    }
    let provider = text("provider");
    if provider.is_empty() && (text("client_id").is_empty() || text("issuer").is_empty()) {
        return off(StatusCode::BAD_REQUEST, "validation_failed", "provider or client_id and issuer required");
    }
    if provider.starts_with("custom:") {
        return off(StatusCode::BAD_REQUEST, "validation_failed", "Custom OAuth providers are disabled");
    }
    match issuer_of(&provider) {
        Some(issuer) => {
            off(StatusCode::BAD_REQUEST, "provider_disabled", &format!("Provider (issuer {issuer:?}) is not enabled"))
        }
        None => {
            off(StatusCode::BAD_REQUEST, "validation_failed", &format!("Custom OIDC provider {provider:?} not allowed"))
        }
    }
}

/// `POST /token?grant_type=web3` (`signInWithWeb3`).
pub fn web3_grant() -> Result<HttpResponse, AuthError> {
    off(StatusCode::UNPROCESSABLE_ENTITY, "web3_provider_disabled", "Web3 provider is disabled")
}
