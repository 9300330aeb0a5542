//! Supabase Auth as an OAuth 2.1 authorization server (`OAUTH_SERVER_ENABLED`), with GoTrue's
//! tables, rules and answers: third-party apps (`clients`) registered through the admin API send
//! a user to `/oauth/authorize` with a PKCE S256 challenge; the site's consent page
//! (`OAUTH_SERVER_AUTHORIZATION_PATH`) shows the request and approves or denies it for the
//! signed-in user (`authorizations`); the app exchanges the single-use code at `/oauth/token`,
//! authenticated as itself (`client_auth`), for a session of that user whose access tokens carry
//! the client's id and the granted scopes, and refreshes it there through the ordinary refresh
//! machinery (`sessions::refresh_for_client`). The handlers are in `handlers::oauth*`; this
//! module holds the rules and the SQL, and reads no HTTP request beyond the client's credentials.

pub mod authorizations;
pub mod client_auth;
pub mod clients;
pub mod registration;

use actix_web::http::StatusCode;

use super::error::AuthError;
use super::AuthState;

/// GoTrue's answer when the feature is off.
pub fn disabled() -> AuthError {
    AuthError::Coded(StatusCode::NOT_FOUND, "feature_disabled", "OAuth server is disabled".into())
}

/// 404 `feature_disabled` unless the OAuth server is on.
pub fn require_enabled(state: &AuthState) -> Result<(), AuthError> {
    if state.config().oauth_server_enabled {
        Ok(())
    } else {
        Err(disabled())
    }
}
