//! The phone flows: a six-digit code texted for a sign-up confirmation or an SMS sign-in
//! (`confirmation_token`, as GoTrue keeps both) or for a phone change (`phone_change_token`),
//! stored as GoTrue's hash of number and code, spaced by `SMS_MAX_FREQUENCY` per user, capped by
//! `RATE_LIMIT_SMS_PER_NUMBER` per number and `RATE_LIMIT_SMS_SENT` per hour for the server,
//! valid `SMS_OTP_EXP` seconds and void after `SMS_MAX_FAILED_VERIFICATIONS` wrong guesses from
//! any address. Handlers decide which flow to start; `sms` delivers.

use actix_web::http::StatusCode;
use chrono::{Duration, Utc};

use super::error::AuthError;
use super::one_time::{self, TokenColumn};
use super::rate_limit;
use super::tokens;
use super::users::{self, User};
use super::AuthState;

/// What a texted code is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhoneOtp {
    /// Confirm the number of a sign-up, or sign in with a code (`type: 'sms'`).
    Sms,
    /// Confirm the new number of a phone change (`type: 'phone_change'`).
    PhoneChange,
}

impl PhoneOtp {
    /// Parse a `type` of `/verify` or `/resend`.
    pub fn parse(value: &str) -> Option<PhoneOtp> {
        match value {
            "sms" => Some(PhoneOtp::Sms),
            "phone_change" => Some(PhoneOtp::PhoneChange),
            _ => None,
        }
    }

    fn column(self) -> TokenColumn {
        match self {
            PhoneOtp::Sms => TokenColumn::Confirmation,
            PhoneOtp::PhoneChange => TokenColumn::PhoneChange,
        }
    }

    fn name(self) -> &'static str {
        match self {
            PhoneOtp::Sms => "sms",
            PhoneOtp::PhoneChange => "phone_change",
        }
    }
}

/// GoTrue's refusal when phone sign-in is off, in the status and words of the endpoint asking:
/// `/signup` 400 « Phone signups are disabled », `/otp` 400 « Unsupported phone provider », the
/// password grant 422 « Phone logins are disabled » (`/verify` is not refused: with no code sent
/// there is nothing to verify, and GoTrue answers with the code's own error).
pub fn disabled(status: StatusCode, message: &str) -> AuthError {
    AuthError::Coded(status, "phone_provider_disabled", message.into())
}

fn over_limit(message: String) -> AuthError {
    AuthError::Coded(StatusCode::TOO_MANY_REQUESTS, "over_sms_send_rate_limit", message)
}

/// Text a fresh code of `otp` to `phone` for `user`, after the per-user spacing and the
/// server-wide hourly cap.
pub async fn send_code(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    user: &User,
    phone: &str,
    otp: PhoneOtp,
) -> Result<(), AuthError> {
    if let Some(sent) = one_time::sent_at(user, otp.column()) {
        let wait = state.config().sms_max_frequency as i64 - (Utc::now() - sent).num_seconds();
        if wait > 0 {
            return Err(over_limit(format!("For security purposes, you can only request this after {wait} seconds.")));
        }
    }
    limit_texts(state, phone).await?;
    let code = state.sms().test_code(phone).map(str::to_string).unwrap_or_else(|| tokens::otp(6));
    one_time::set_token(db, user.id, otp.column(), &tokens::token_hash(phone, &code), phone).await?;
    // A new code gets its own count of wrong guesses.
    rate_limit::clear(&state.pool, &failed_key(otp, phone)).await?;
    state.sms().send(phone, otp.name(), &code).await
}

/// The hourly caps on texts: `RATE_LIMIT_SMS_PER_NUMBER` for `phone`, then
/// `RATE_LIMIT_SMS_SENT` for the server (a number over its own cap uses none of the server's).
pub async fn limit_texts(state: &AuthState, phone: &str) -> Result<(), AuthError> {
    rate_limit::hit(
        &state.pool,
        &format!("sms:{phone}"),
        state.config().rate_limit_sms_per_number,
        rate_limit::EMAIL_WINDOW_SECS,
        over_limit("SMS rate limit exceeded for this phone number".into()),
    )
    .await?;
    rate_limit::hit(
        &state.pool,
        "sms:all",
        state.config().rate_limit_sms_sent,
        rate_limit::EMAIL_WINDOW_SECS,
        over_limit("SMS rate limit exceeded".into()),
    )
    .await
}

/// Where wrong codes of `otp` for `phone` are counted.
fn failed_key(otp: PhoneOtp, phone: &str) -> String {
    format!("failed-code:{}:{phone}", otp.name())
}

/// Whether the code counted under `key` already had `SMS_MAX_FAILED_VERIFICATIONS` wrong
/// guesses, from any address: it is then void until a new one is texted. A void code is refused
/// as an invalid one is, so the lockout tells an attacker nothing more.
pub async fn code_is_void(state: &AuthState, key: &str) -> Result<bool, AuthError> {
    let max = state.config().sms_max_failed_verifications;
    Ok(max > 0 && rate_limit::count(&state.pool, key, rate_limit::FAILED_CODE_WINDOW_SECS).await? >= max)
}

/// Count one wrong guess of the code counted under `key`.
pub async fn count_wrong_code(state: &AuthState, key: &str) -> Result<(), AuthError> {
    if state.config().sms_max_failed_verifications == 0 {
        return Ok(());
    }
    rate_limit::hit(&state.pool, key, u64::MAX, rate_limit::FAILED_CODE_WINDOW_SECS, AuthError::OtpExpired).await
}

/// Check `code` texted to `phone` and apply it: confirm the number (`sms`) or move the user to
/// the new number (`phone_change`). The user as it is now.
pub async fn verify(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    otp: PhoneOtp,
    phone: &str,
    code: &str,
) -> Result<User, AuthError> {
    let key = failed_key(otp, phone);
    if code_is_void(state, &key).await? {
        return Err(AuthError::OtpExpired);
    }
    let outcome = check_code(state, db, otp, phone, code).await;
    if matches!(outcome, Err(AuthError::OtpExpired)) {
        count_wrong_code(state, &key).await?;
    }
    outcome
}

async fn check_code(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    otp: PhoneOtp,
    phone: &str,
    code: &str,
) -> Result<User, AuthError> {
    let user = if state.sms().makes_codes(phone) {
        let user = one_time::by_pending_number(db, otp.column(), phone).await?.ok_or(AuthError::OtpExpired)?;
        if !state.sms().check(phone, code).await? {
            return Err(AuthError::OtpExpired);
        }
        user
    } else {
        let hash = tokens::token_hash(phone, code.trim());
        one_time::by_token(db, otp.column(), &hash).await?.ok_or(AuthError::OtpExpired)?
    };
    let number = match otp {
        PhoneOtp::Sms => user.phone.clone(),
        PhoneOtp::PhoneChange => user.phone_change.clone(),
    };
    if number.as_deref() != Some(phone) {
        return Err(AuthError::OtpExpired);
    }
    let fresh = one_time::sent_at(&user, otp.column())
        .is_some_and(|sent| sent + Duration::seconds(state.config().sms_otp_exp as i64) > Utc::now());
    if !fresh {
        return Err(AuthError::OtpExpired);
    }
    one_time::clear_token(db, user.id, otp.column()).await?;
    match otp {
        PhoneOtp::Sms => users::confirm_phone(db, user.id).await?,
        PhoneOtp::PhoneChange => {
            if !users::apply_phone_change(db, user.id, phone).await? {
                return Err(phone_exists());
            }
        }
    }
    users::by_id(db, user.id).await?.ok_or(AuthError::OtpExpired)
}

/// GoTrue's refusal of a number another user has.
pub fn phone_exists() -> AuthError {
    AuthError::Coded(
        StatusCode::UNPROCESSABLE_ENTITY,
        "phone_exists",
        "A user with this phone number has already been registered".into(),
    )
}

/// Start a phone change to `phone` (already normalised): applied at once with `SMS_AUTOCONFIRM`,
/// else texted and pending until `verify`.
pub async fn change(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    user: &User,
    phone: &str,
) -> Result<(), AuthError> {
    if users::by_phone(db, phone).await?.is_some_and(|other| other.id != user.id) {
        return Err(phone_exists());
    }
    if state.config().sms_autoconfirm {
        if !users::apply_phone_change(db, user.id, phone).await? {
            return Err(phone_exists());
        }
        return Ok(());
    }
    db.cached_execute("update auth.users set phone_change = $2, updated_at = now() where id = $1", &[&user.id, &phone])
        .await?;
    let pending = users::by_id(db, user.id).await?.ok_or(AuthError::UserFromJwtMissing)?;
    send_code(state, db, &pending, phone, PhoneOtp::PhoneChange).await
}
