//! The password-verification-attempt hook (`HOOK_PASSWORD_VERIFICATION_ATTEMPT_*`): at a
//! password sign-in of a user who has a password (and is not banned), after the password was
//! checked, the hook gets GoTrue's `{metadata, user_id, valid}` and answers
//! `{"decision": "continue" | "reject", "message", "should_logout_user"}`. A rejection is
//! GoTrue's 400 `invalid_credentials` with the hook's message (or GoTrue's default), after
//! ending every session of the user when the hook asks for it.

use actix_web::http::StatusCode;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::auth::error::AuthError;
use crate::auth::AuthState;
use crate::db::cached::CachedQueries;

/// GoTrue's message when a rejection has none.
const DEFAULT_MESSAGE: &str = "Further password verification attempts will be rejected.";

/// Run the hook, when on, for an attempt on `user_id` that was `valid` or not.
pub async fn password_verification_attempt(
    state: &AuthState,
    user_id: Uuid,
    valid: bool,
    ip: &str,
) -> Result<(), AuthError> {
    let Some(target) = state.hooks().password_verification_attempt.clone() else {
        return Ok(());
    };
    let input = json!({
        "metadata": {
            "uuid": Uuid::new_v4(),
            "time": chrono::Utc::now().to_rfc3339(),
            "name": "password-verification",
            "ip_address": ip,
        },
        "user_id": user_id,
        "valid": valid,
    });
    let Some(rejection) = rejection(super::call(state, &target, &input).await?, DEFAULT_MESSAGE)? else {
        return Ok(());
    };
    if rejection.1 {
        state.pool.get().await?.cached_execute("delete from auth.sessions where user_id = $1", &[&user_id]).await?;
    }
    Err(AuthError::Coded(StatusCode::BAD_REQUEST, "invalid_credentials", rejection.0))
}

/// The message (`default` when it has none) and the logout wish of a `reject` decision; `None`
/// to go on.
pub(super) fn rejection(answer: Option<Value>, default: &str) -> Result<Option<(String, bool)>, AuthError> {
    let answer = match answer {
        None => return Ok(None),
        Some(Value::Object(answer)) => answer,
        Some(_) => {
            return Err(AuthError::Coded(
                StatusCode::INTERNAL_SERVER_ERROR,
                "unexpected_failure",
                "Error unmarshaling JSON output.".into(),
            ))
        }
    };
    if answer.get("decision").and_then(Value::as_str) != Some("reject") {
        return Ok(None);
    }
    let message = answer.get("message").and_then(Value::as_str).filter(|m| !m.is_empty()).unwrap_or(default);
    let logout = answer.get("should_logout_user").and_then(Value::as_bool).unwrap_or(false);
    Ok(Some((message.to_string(), logout)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_reject_decision_refuses_with_its_message_or_gotrues() {
        assert_eq!(rejection(None, DEFAULT_MESSAGE).unwrap(), None);
        assert_eq!(rejection(Some(json!({"decision": "continue"})), DEFAULT_MESSAGE).unwrap(), None);
        assert_eq!(
            rejection(
                Some(json!({"decision": "reject", "message": "Locked", "should_logout_user": true})),
                DEFAULT_MESSAGE
            )
            .unwrap(),
            Some(("Locked".into(), true))
        );
        assert_eq!(
            rejection(Some(json!({"decision": "reject"})), DEFAULT_MESSAGE).unwrap(),
            Some((DEFAULT_MESSAGE.into(), false))
        );
        assert!(rejection(Some(json!([1])), DEFAULT_MESSAGE).is_err());
    }
}
