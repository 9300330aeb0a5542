//! The MFA-verification-attempt hook (`HOOK_MFA_VERIFICATION_ATTEMPT_*`): at each TOTP or phone
//! factor verification, after the code was checked, the hook gets GoTrue's `{metadata, user_id,
//! factor_id, factor_type, valid}` and answers `{"decision": "continue" | "reject", "message"}`.
//! A rejection ends every session of the user (as GoTrue always does then) and is GoTrue's 403
//! `mfa_verification_rejected` with the hook's message or GoTrue's default.

use actix_web::http::StatusCode;
use serde_json::json;
use uuid::Uuid;

use super::password_verification_attempt::rejection;
use crate::auth::error::AuthError;
use crate::auth::AuthState;
use crate::db::cached::CachedQueries;

/// GoTrue's message when a rejection has none.
const DEFAULT_MESSAGE: &str = "Further MFA verification attempts will be rejected.";

/// Run the hook, when on, for an attempt on the factor `factor_id` that was `valid` or not.
pub async fn mfa_verification_attempt(
    state: &AuthState,
    user_id: Uuid,
    factor_id: Uuid,
    factor_type: &str,
    valid: bool,
    ip: &str,
) -> Result<(), AuthError> {
    let Some(target) = state.hooks().mfa_verification_attempt.clone() else {
        return Ok(());
    };
    let input = json!({
        "metadata": {
            "uuid": Uuid::new_v4(),
            "time": chrono::Utc::now().to_rfc3339(),
            "name": "mfa-verification",
            "ip_address": ip,
        },
        "user_id": user_id,
        "factor_id": factor_id,
        "factor_type": factor_type,
        "valid": valid,
    });
    let Some((message, _)) = rejection(super::call(state, &target, &input).await?, DEFAULT_MESSAGE)? else {
        return Ok(());
    };
    state.pool.get().await?.cached_execute("delete from auth.sessions where user_id = $1", &[&user_id]).await?;
    Err(AuthError::Coded(StatusCode::FORBIDDEN, "mfa_verification_rejected", message))
}
