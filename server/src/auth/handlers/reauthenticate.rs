//! `GET /reauthenticate` (`auth.reauthenticate()`): a nonce (`MAILER_OTP_LENGTH` digits) mailed to the signed-in
//! user's address (texted when it has only a number), which `PUT /user` asks for with a new
//! password when `SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION` is on and the session is
//! older than 24 hours, as GoTrue does.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::{Duration, Utc};
use serde_json::json;

use crate::auth::error::AuthError;
use crate::auth::mail::{Kind, Vars};
use crate::auth::one_time::{self, TokenColumn};
use crate::auth::request::{client_ip, require_user};
use crate::auth::users::User;
use crate::auth::{audit, tokens, AuthState};

pub async fn reauthenticate(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    let client = state.pool.get().await?;
    let authed = require_user(&state, &req, &client).await?;
    let user = &authed.user;
    let (target, spacing) = match (user.email_str(), user.phone.as_deref().unwrap_or_default()) {
        ("", "") => {
            return Err(AuthError::Validation(
                "Reauthentication requires the user to have an email or a phone number".into(),
            ))
        }
        ("", phone) => (phone.to_string(), state.config().sms_max_frequency),
        (email, _) => (email.to_string(), state.config().smtp_max_frequency),
    };
    if let Some(sent) = one_time::sent_at(user, TokenColumn::Reauthentication) {
        let wait = spacing as i64 - (Utc::now() - sent).num_seconds();
        if wait > 0 {
            return Err(AuthError::OverEmailSendRateLimit(format!(
                "For security purposes, you can only request this after {wait} seconds."
            )));
        }
    }
    let code = match user.email_str() {
        "" => state.sms().test_code(&target).map(str::to_string).unwrap_or_else(|| tokens::otp(6)),
        _ => tokens::otp(state.mailer_otp_length()),
    };
    one_time::set_token(&client, user.id, TokenColumn::Reauthentication, &tokens::token_hash(&target, &code), &target)
        .await?;
    if user.email_str().is_empty() {
        state.sms().send(&target, "reauthentication", &code).await?;
    } else {
        let vars = Vars { token: code, email: target.clone(), site_url: state.site_url.clone(), ..Vars::default() };
        state.mailer.send(&target, Kind::Reauthentication, &vars).await?;
    }
    audit::log(&client, Some(user.id), user.email_str(), "user_reauthenticate", json!({}), &client_ip(&state, &req))
        .await;
    Ok(HttpResponse::Ok().json(json!({})))
}

/// Before a password change: when the setting is on and the session is older than 24 hours, the
/// nonce must match the last one sent (it is then used up).
pub async fn check_nonce(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    user: &User,
    session_id: Option<uuid::Uuid>,
    nonce: Option<&str>,
) -> Result<(), AuthError> {
    if !state.config().update_password_require_reauthentication {
        return Ok(());
    }
    let recent = match session_id {
        Some(id) => db
            .cached_query_opt(
                "select coalesce(refreshed_at, created_at) > (now() at time zone 'utc') - interval '24 hours' \
                 from auth.sessions where id = $1",
                &[&id],
            )
            .await?
            .and_then(|row| row.get::<_, Option<bool>>(0))
            .unwrap_or(false),
        None => false,
    };
    if recent {
        return Ok(());
    }
    let Some(nonce) = nonce.map(str::trim).filter(|n| !n.is_empty()) else {
        return Err(AuthError::Coded(
            StatusCode::BAD_REQUEST,
            "reauthentication_needed",
            "Password update requires reauthentication".into(),
        ));
    };
    verify(state, db, user, nonce).await
}

async fn verify(state: &AuthState, db: &impl crate::db::cached::Db, user: &User, nonce: &str) -> Result<(), AuthError> {
    let not_valid = |status, message: &str| AuthError::Coded(status, "reauthentication_not_valid", message.into());
    let pending: bool = db
        .cached_query_one(
            "select coalesce(reauthentication_token, '') <> '' from auth.users where id = $1",
            &[&user.id],
        )
        .await?
        .get(0);
    let sent = one_time::sent_at(user, TokenColumn::Reauthentication).filter(|_| pending);
    let Some(sent) = sent else {
        return Err(not_valid(StatusCode::UNPROCESSABLE_ENTITY, "Requires reauthentication"));
    };
    let (target, lifetime) = match user.email_str() {
        "" => (user.phone.clone().unwrap_or_default(), state.config().sms_otp_exp),
        email => (email.to_string(), state.config().mailer_otp_exp),
    };
    let matches = if user.email_str().is_empty() && state.sms().makes_codes(&target) {
        state.sms().check(&target, nonce).await?
    } else {
        let hash = tokens::token_hash(&target, nonce);
        one_time::by_token(db, TokenColumn::Reauthentication, &hash).await?.is_some_and(|u| u.id == user.id)
    };
    let fresh = sent + Duration::seconds(lifetime as i64) > Utc::now();
    if !fresh || !matches {
        return Err(not_valid(StatusCode::BAD_REQUEST, "Invalid nonce"));
    }
    one_time::clear_token(db, user.id, TokenColumn::Reauthentication).await
}
