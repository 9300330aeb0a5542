//! How a client proves who it is at `/oauth/token`, as GoTrue checks it: HTTP Basic
//! (`client_secret_basic`), `client_id` and `client_secret` in the body (`client_secret_post`),
//! or `client_id` alone for a public client (`none`); the method used must be the one the client
//! registered. Every refusal is 400 `invalid_credentials`.

use actix_web::http::StatusCode;
use actix_web::HttpRequest;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use uuid::Uuid;

use super::clients::{self, Client};
use crate::auth::error::AuthError;

fn refused(why: &str) -> AuthError {
    AuthError::Coded(StatusCode::BAD_REQUEST, "invalid_credentials", why.to_string())
}

/// The credentials a request presents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    pub client_id: String,
    pub secret: String,
    pub method: &'static str,
}

/// The credentials of the `Authorization: Basic` header, else of the body's fields.
pub fn extract(
    req: &HttpRequest,
    body_client_id: Option<&str>,
    body_secret: Option<&str>,
) -> Result<Credentials, AuthError> {
    let header = req.headers().get("authorization").and_then(|v| v.to_str().ok()).unwrap_or_default();
    if let Some(encoded) = header.strip_prefix("Basic ") {
        let decoded = STANDARD
            .decode(encoded.trim())
            .ok()
            .and_then(|d| String::from_utf8(d).ok())
            .ok_or_else(|| refused("Invalid client credentials: invalid basic auth encoding"))?;
        let (id, secret) =
            decoded.split_once(':').ok_or_else(|| refused("Invalid client credentials: invalid basic auth format"))?;
        return Ok(Credentials { client_id: id.into(), secret: secret.into(), method: "client_secret_basic" });
    }
    let client_id = body_client_id.unwrap_or_default();
    if client_id.is_empty() {
        return Err(refused("Invalid client credentials: client_id is required"));
    }
    let secret = body_secret.unwrap_or_default();
    let method = if secret.is_empty() { "none" } else { "client_secret_post" };
    Ok(Credentials { client_id: client_id.into(), secret: secret.into(), method })
}

/// The client these credentials authenticate.
pub async fn authenticate(db: &impl crate::db::cached::Db, creds: &Credentials) -> Result<Client, AuthError> {
    let id = Uuid::parse_str(&creds.client_id).map_err(|_| refused("Invalid client_id format"))?;
    let client = clients::find(db, id).await?.ok_or_else(|| refused("Invalid client credentials"))?;
    if client.auth_method != creds.method {
        return Err(refused(&format!(
            "invalid authentication method: client is registered for '{}' but '{}' was used",
            client.auth_method, creds.method
        )));
    }
    if client.is_public() {
        if !creds.secret.is_empty() {
            return Err(refused("public clients must not provide client_secret"));
        }
    } else if creds.secret.is_empty() {
        return Err(refused("confidential clients must provide client_secret"));
    } else if !client.secret_matches(&creds.secret) {
        return Err(refused("invalid client credentials"));
    }
    Ok(client)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn basic_auth_wins_over_the_body_and_the_body_says_post_or_none() {
        let basic = TestRequest::default()
            .insert_header(("Authorization", format!("Basic {}", STANDARD.encode("id:s3cret"))))
            .to_http_request();
        let creds = extract(&basic, Some("other"), None).unwrap();
        assert_eq!(
            (creds.client_id.as_str(), creds.secret.as_str(), creds.method),
            ("id", "s3cret", "client_secret_basic")
        );
        let plain = TestRequest::default().to_http_request();
        assert_eq!(extract(&plain, Some("id"), Some("s")).unwrap().method, "client_secret_post");
        assert_eq!(extract(&plain, Some("id"), None).unwrap().method, "none");
        let missing = extract(&plain, None, None).unwrap_err();
        assert_eq!(missing.parts(), (StatusCode::BAD_REQUEST, "invalid_credentials"));
        let garbled = TestRequest::default().insert_header(("Authorization", "Basic !!")).to_http_request();
        assert!(extract(&garbled, None, None).is_err());
    }
}
