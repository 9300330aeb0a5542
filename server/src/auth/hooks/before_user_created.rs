//! The before-user-created hook (`HOOK_BEFORE_USER_CREATED_ENABLED`, `HOOK_BEFORE_USER_CREATED_URI`),
//! which may refuse a sign-up by any method (e-mail, phone, OTP, OAuth, anonymous). The admin
//! API does not run it, as in GoTrue.
//!
//! The function gets `{"metadata": {...}, "user": {...}}` and answers `{}` to let the sign-up
//! go on, or `{"error": {"http_code": 4xx, "message": "..."}}` to refuse it. Unlike GoTrue it
//! runs just after the user's row is written, in the same transaction, so a refusal rolls the
//! row back (the function can see it). An `error_code` in the error (ours, not GoTrue's) is sent
//! as the error code when it is one of the auth codes a sign-up can fail with.

use serde_json::{json, Value};

use crate::auth::error::AuthError;
use crate::auth::users::User;
use crate::auth::AuthState;

/// Run the before-user-created hook, when on, for `user` just written; an error refuses it.
pub async fn before_user_created(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    user: &User,
    ip: &str,
) -> Result<(), AuthError> {
    let Some(function) = state.hooks().before_user_created.clone() else {
        return Ok(());
    };
    let event = json!({
        "metadata": {
            "uuid": uuid::Uuid::new_v4(),
            "time": chrono::Utc::now().to_rfc3339(),
            "name": "before-user-created",
            "ip_address": ip,
        },
        "user": user.to_json(),
    });
    let row = db
        .cached_query_one(&format!("select {function}($1::jsonb)::jsonb"), &[&event])
        .await
        .map_err(|e| AuthError::internal(format!("before-user-created hook: {e}")))?;
    let answer: Option<Value> = row.get(0);
    refusal(answer.as_ref()).map_or(Ok(()), Err)
}

/// The error a hook's answer asks for, if any.
fn refusal(answer: Option<&Value>) -> Option<AuthError> {
    let error = answer?.get("error")?;
    let message = error.get("message").and_then(Value::as_str).filter(|m| !m.is_empty())?;
    let status = error
        .get("http_code")
        .and_then(Value::as_u64)
        .and_then(|c| u16::try_from(c).ok())
        .and_then(|c| actix_web::http::StatusCode::from_u16(c).ok())
        .filter(|s| s.is_client_error() || s.is_server_error())
        .unwrap_or(actix_web::http::StatusCode::INTERNAL_SERVER_ERROR);
    let code = match error.get("error_code").and_then(Value::as_str) {
        Some("signup_disabled") => "signup_disabled",
        Some("email_address_not_authorized") => "email_address_not_authorized",
        Some("over_request_rate_limit") => "over_request_rate_limit",
        Some("validation_failed") => "validation_failed",
        _ => "hook_rejected",
    };
    Some(AuthError::Coded(status, code, message.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_without_an_error_lets_the_sign_up_go_on() {
        assert!(refusal(None).is_none());
        assert!(refusal(Some(&json!({}))).is_none());
        assert!(refusal(Some(&json!({"error": {"http_code": 400}}))).is_none());
    }

    #[test]
    fn an_error_refuses_with_its_status_message_and_known_code() {
        let err =
            refusal(Some(&json!({"error": {"http_code": 422, "message": "Fermé", "error_code": "signup_disabled"}})))
                .unwrap();
        assert_eq!(err.legacy_body(), json!({"code": 422, "error_code": "signup_disabled", "msg": "Fermé"}));
        let err =
            refusal(Some(&json!({"error": {"http_code": 403, "message": "Non", "error_code": "whatever"}}))).unwrap();
        assert_eq!(err.parts().1, "hook_rejected");
        let err = refusal(Some(&json!({"error": {"http_code": 200, "message": "Non"}}))).unwrap();
        assert_eq!(err.parts().0.as_u16(), 500);
    }
}
