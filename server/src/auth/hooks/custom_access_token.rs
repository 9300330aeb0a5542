//! The custom-access-token hook (`HOOK_CUSTOM_ACCESS_TOKEN_ENABLED`, `_URI`, `_SECRETS`): before
//! an access token is signed, the hook gets GoTrue's input `{metadata, user_id, claims,
//! authentication_method}` and answers `{"claims": {...}}`, the claims signed instead, or
//! `{"error": {...}}` to refuse the sign-in or refresh. The answer's claims are checked against
//! GoTrue's minimum token schema (the required claims and the types of the known ones) and
//! refused with GoTrue's 500 and message when they do not conform. It runs at every token
//! issued: sign-in, sign-up, verification, MFA step-up and refresh.

use actix_web::http::StatusCode;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::auth::error::AuthError;
use crate::auth::AuthState;

/// The claims every hook answer must carry (GoTrue's `MinimumViableTokenSchema`).
const REQUIRED: [&str; 10] =
    ["aud", "exp", "iat", "sub", "email", "phone", "role", "aal", "session_id", "is_anonymous"];

/// The claims to sign for `user_id`: `claims` when the hook is off, else the hook's.
pub async fn custom_access_token(
    state: &AuthState,
    user_id: Uuid,
    claims: Value,
    authentication_method: &str,
) -> Result<Value, AuthError> {
    let Some(target) = state.hooks().custom_access_token.clone() else {
        return Ok(claims);
    };
    let input = json!({
        "metadata": {
            "uuid": Uuid::new_v4(),
            "time": chrono::Utc::now().to_rfc3339(),
            "name": "customize-access-token",
        },
        "user_id": user_id,
        "claims": claims,
        "authentication_method": authentication_method,
    });
    claims_of(super::call(state, &target, &input).await?)
}

fn failure(message: impl Into<String>) -> AuthError {
    AuthError::Coded(StatusCode::INTERNAL_SERVER_ERROR, "unexpected_failure", message.into())
}

/// The hook's claims, checked as GoTrue checks them.
fn claims_of(answer: Option<Value>) -> Result<Value, AuthError> {
    let claims = match answer {
        None => Value::Null,
        Some(Value::Object(mut answer)) => match answer.remove("claims") {
            None => return Err(failure("output claims field is missing")),
            Some(claims @ (Value::Object(_) | Value::Null)) => claims,
            Some(_) => return Err(failure("Error unmarshaling JSON output.")),
        },
        Some(_) => return Err(failure("Error unmarshaling JSON output.")),
    };
    let problems = schema_problems(&claims);
    if problems.is_empty() {
        return Ok(claims);
    }
    let list: String = problems.iter().map(|p| format!("- {p}\n")).collect();
    Err(failure(format!("output claims do not conform to the expected schema: \n{list}")))
}

/// What GoTrue's JSON-schema check would say of `claims`, worded as gojsonschema words it.
fn schema_problems(claims: &Value) -> Vec<String> {
    let Some(object) = claims.as_object() else {
        return vec![format!("(root): Invalid type. Expected: object, given: {}", kind(claims))];
    };
    let mut problems: Vec<String> =
        REQUIRED.iter().filter(|k| !object.contains_key(**k)).map(|k| format!("(root): {k} is required")).collect();
    for (key, value) in object {
        let expected: &[&str] = match key.as_str() {
            "aud" => &["string", "array"],
            "exp" | "iat" | "nbf" => &["integer"],
            "jti" | "iss" | "sub" | "email" | "phone" | "role" | "aal" | "session_id" | "client_id" => &["string"],
            "app_metadata" | "user_metadata" => &["object"],
            "amr" => &["array"],
            _ => continue,
        };
        if !expected.contains(&kind(value)) {
            problems.push(format!("{key}: Invalid type. Expected: {}, given: {}", expected.join("/"), kind(value)));
        }
    }
    problems
}

/// A JSON value's type as JSON schema names it.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims() -> Value {
        json!({"aud": "authenticated", "exp": 2, "iat": 1, "sub": "u", "email": "", "phone": "", "role": "authenticated",
               "aal": "aal1", "session_id": "s", "is_anonymous": false})
    }

    #[test]
    fn the_hooks_claims_are_signed_with_what_it_added() {
        let mut out = claims();
        out["user_role"] = json!("admin");
        assert_eq!(claims_of(Some(json!({"claims": out.clone()}))).unwrap(), out);
    }

    #[test]
    fn an_answer_without_claims_or_missing_a_required_claim_is_refused_as_gotrue() {
        let err = claims_of(Some(json!({}))).unwrap_err();
        assert_eq!(err.to_string(), "output claims field is missing");
        let mut out = claims();
        out.as_object_mut().unwrap().remove("role");
        out["exp"] = json!("soon");
        let err = claims_of(Some(json!({ "claims": out }))).unwrap_err();
        assert_eq!(err.parts(), (StatusCode::INTERNAL_SERVER_ERROR, "unexpected_failure"));
        assert_eq!(
            err.to_string(),
            "output claims do not conform to the expected schema: \n- (root): role is required\n- exp: Invalid type. \
             Expected: integer, given: string\n"
        );
        assert!(claims_of(Some(json!({"claims": 3}))).is_err());
        assert!(claims_of(None).is_err());
    }
}
