//! Errors of `/realtime/v1`, in Supabase Realtime's shapes, mapped in one place:
//! a refused connection is an HTTP status with `{"error": message}`; a refused join is the reply
//! `{"reason": "Code: message"}`; a channel stopped by the server gets a `system` message; the
//! REST broadcast endpoint answers `{"message": ...}` (or `{"error": ...}` for a media type).

use actix_web::http::StatusCode;
use actix_web::HttpResponse;
use serde_json::json;

use crate::jwt::JwtError;

/// Why a token was refused, worded as Realtime words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("API key is missing")]
    Missing,
    #[error("Token has expired {0} seconds ago")]
    Expired(i64),
    #[error("The token provided is not a valid JWT")]
    Malformed,
    #[error("Failed to validate JWT signature")]
    Signature,
    #[error("Fields `role` and `exp` are required in JWT")]
    MissingClaims,
    /// A role no client may run as (the server's login role).
    #[error("The role `{0}` cannot be used to connect")]
    UnusableRole(String),
    /// A time claim refused (`nbf` or `iat` in the future, not a number).
    #[error("{0}")]
    Claims(String),
}

impl TokenError {
    /// From the verifier's refusal.
    pub fn from_jwt(err: &JwtError) -> TokenError {
        match err {
            JwtError::Expired => TokenError::Expired(0),
            JwtError::Invalid(reason) if reason == "token is malformed" => TokenError::Malformed,
            JwtError::Invalid(_) | JwtError::Audience | JwtError::UnknownApiKey => TokenError::Signature,
            JwtError::Claims(claim) => TokenError::Claims(claim.to_string()),
        }
    }

    /// The code Realtime puts before the message in a join refusal.
    fn code(&self) -> &'static str {
        match self {
            TokenError::Malformed => "MalformedJWT",
            TokenError::Signature => "JwtSignatureError",
            _ => "InvalidJWTToken",
        }
    }
}

/// Why a join was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JoinError {
    #[error("TopicNameRequired: You must provide a topic name")]
    TopicNameRequired,
    #[error("{code}: {0}", code = .0.code())]
    Token(TokenError),
    #[error("Unauthorized: You do not have permissions to read from this Channel topic: {0}")]
    Unauthorized(String),
    #[error("ChannelRateLimitReached: Too many channels")]
    TooManyChannels,
    #[error("ClientJoinRateLimitReached: Too many joins per second")]
    TooManyJoins,
    #[error("RealtimeDisabledForConfiguration: {0}")]
    Configuration(String),
    #[error("UnableToConnectToProject: Realtime was unable to connect to the project database")]
    Database,
    #[error("RealtimeRestarting: Realtime is restarting, please standby")]
    Restarting,
}

/// Why a connection or a REST call was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RealtimeError {
    #[error("{0}")]
    Token(TokenError),
    #[error("Too many connected users")]
    TooManyUsers,
    #[error("Unsupported serializer version")]
    Serializer,
    /// REST: the caller's key or token is not valid.
    #[error("Unauthorized")]
    Unauthorized,
    /// REST: a private message the caller may not send.
    #[error("Unauthorized")]
    Forbidden,
    #[error("Unsupported Media Type. Use application/json or application/octet-stream")]
    MediaType,
    /// REST: a body that does not have the expected fields.
    #[error("{0}")]
    Invalid(String),
    #[error("Payload size exceeds tenant limit")]
    PayloadTooLarge,
    #[error("Too many requests")]
    RateLimited,
    #[error("Unable to authorize broadcast")]
    Internal,
    /// A bug on this side (a handler that panicked).
    #[error("Internal server error")]
    Unexpected,
}

impl RealtimeError {
    fn status(&self) -> StatusCode {
        match self {
            RealtimeError::Token(_) | RealtimeError::Unauthorized => StatusCode::UNAUTHORIZED,
            RealtimeError::TooManyUsers | RealtimeError::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            RealtimeError::Serializer | RealtimeError::Forbidden => StatusCode::FORBIDDEN,
            RealtimeError::MediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            RealtimeError::Invalid(_) | RealtimeError::PayloadTooLarge => StatusCode::UNPROCESSABLE_ENTITY,
            RealtimeError::Internal | RealtimeError::Unexpected => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The answer to a refused WebSocket upgrade: `{"error": message}` (an expired key is only
    /// "Token has expired" there, as Realtime says it).
    pub fn connect_response(&self) -> HttpResponse {
        let message = match self {
            RealtimeError::Token(TokenError::Expired(_)) => "Token has expired".to_string(),
            other => other.to_string(),
        };
        HttpResponse::build(self.status()).json(json!({"error": message}))
    }
}

impl actix_web::ResponseError for RealtimeError {
    fn status_code(&self) -> StatusCode {
        self.status()
    }

    /// REST answers: `{"message": ...}`, except the media-type refusal (`{"error": ...}`) and a
    /// body refused field by field (`{"errors": {"messages": [...]}}`).
    fn error_response(&self) -> HttpResponse {
        let body = match self {
            RealtimeError::MediaType => json!({"error": self.to_string()}),
            RealtimeError::Invalid(detail) => json!({"errors": {"messages": [detail]}}),
            _ => json!({"message": self.to_string()}),
        };
        HttpResponse::build(self.status()).json(body)
    }
}

#[cfg(test)]
mod tests {
    use actix_web::body::to_bytes;
    use actix_web::ResponseError;

    use super::*;

    async fn body(resp: HttpResponse) -> serde_json::Value {
        serde_json::from_slice(&to_bytes(resp.into_body()).await.unwrap()).unwrap()
    }

    #[test]
    fn join_refusals_read_code_colon_message() {
        assert_eq!(
            JoinError::Token(TokenError::Expired(3)).to_string(),
            "InvalidJWTToken: Token has expired 3 seconds ago"
        );
        assert_eq!(
            JoinError::Token(TokenError::Malformed).to_string(),
            "MalformedJWT: The token provided is not a valid JWT"
        );
        assert_eq!(
            JoinError::Unauthorized("room".into()).to_string(),
            "Unauthorized: You do not have permissions to read from this Channel topic: room"
        );
        assert_eq!(JoinError::TooManyChannels.to_string(), "ChannelRateLimitReached: Too many channels");
    }

    #[actix_web::test]
    async fn a_refused_connection_answers_with_an_error_field() {
        let resp = RealtimeError::Token(TokenError::Missing).connect_response();
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(body(resp).await, json!({"error": "API key is missing"}));
        let resp = RealtimeError::Token(TokenError::Expired(12)).connect_response();
        assert_eq!(body(resp).await, json!({"error": "Token has expired"}));
        let resp = RealtimeError::TooManyUsers.connect_response();
        assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
    }

    #[actix_web::test]
    async fn rest_refusals_use_the_message_shape() {
        let resp = RealtimeError::Unauthorized.error_response();
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(body(resp).await, json!({"message": "Unauthorized"}));
        let resp = RealtimeError::MediaType.error_response();
        assert_eq!(resp.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert_eq!(
            body(resp).await,
            json!({"error": "Unsupported Media Type. Use application/json or application/octet-stream"})
        );
        let resp = RealtimeError::PayloadTooLarge.error_response();
        assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    }
}
