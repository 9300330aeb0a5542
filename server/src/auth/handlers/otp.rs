//! Endpoints that mail a link: `POST /recover` (password reset), `POST /resend` (signup or
//! e-mail change mail again) and `POST /otp` (magic link, creating the user unless told not to).
//!
//! They answer `{}` whether or not the address has an account, so they cannot be used to
//! learn which addresses exist; the per-user spacing and the hourly mail limit still apply.

use crate::db::cached::CachedQueries;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::error::AuthError;
use crate::auth::flows::{self, Challenge, LinkType};
use crate::auth::phone::{self, PhoneOtp};
use crate::auth::request::{client_ip, json_body, query};
use crate::auth::users::{self, checked_email, NewUser};
use crate::auth::{audit, rate_limit, sms, AuthState};

#[derive(Debug, Deserialize)]
struct Body {
    email: Option<String>,
    phone: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    create_user: Option<bool>,
    data: Option<Value>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

struct Prepared {
    ip: String,
    email: String,
    /// The normalised number when the request names a phone instead of an address.
    phone: Option<String>,
    redirect: String,
    challenge: Option<Challenge>,
    body: Body,
}

/// Whether `signInWithOtp` may create the user it did not find: not with `create_user: false`
/// (`otp_disabled`), nor with sign-ups off.
fn may_sign_up(state: &AuthState, p: &Prepared) -> Result<(), AuthError> {
    if !p.body.create_user.unwrap_or(true) {
        return Err(AuthError::OtpSignupDisabled);
    }
    if state.config().disable_signup {
        return Err(AuthError::SignupDisabled);
    }
    Ok(())
}

async fn prepare(state: &AuthState, req: &HttpRequest, body: &[u8]) -> Result<Prepared, AuthError> {
    let ip = client_ip(state, req);
    rate_limit::sign_in_sign_up(&state.pool, &ip, state.config().rate_limit_otp).await?;
    let body: Body = json_body(body)?;
    let by_phone = body.email.as_deref().is_none_or(|e| e.trim().is_empty())
        && body.phone.as_deref().is_some_and(|p| !p.trim().is_empty());
    let (email, phone) = if by_phone {
        if !state.config().phone_enabled {
            return Err(phone::disabled(actix_web::http::StatusCode::BAD_REQUEST, "Unsupported phone provider"));
        }
        (String::new(), Some(sms::normalize_phone(body.phone.as_deref().unwrap_or_default())?))
    } else {
        (checked_email(body.email.as_deref())?, None)
    };
    let challenge = flows::challenge(body.code_challenge.as_deref(), body.code_challenge_method.as_deref())?;
    let redirect = state.redirect_target(query(req).get("redirect_to").map(String::as_str));
    Ok(Prepared { ip, email, phone, redirect, challenge, body })
}

fn ok() -> HttpResponse {
    HttpResponse::Ok().json(json!({}))
}

pub async fn recover(
    state: web::Data<AuthState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    state.require_email_provider(400, "Email logins are disabled")?;
    let p = prepare(&state, &req, &body).await?;
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    let Some(user) = users::by_email(db, &p.email).await? else { return Ok(ok()) };
    if let Some(challenge) = &p.challenge {
        flows::save_flow_state(db, user.id, LinkType::Recovery, challenge).await?;
    }
    flows::send_link(&state, db, &user, LinkType::Recovery, None, &p.redirect, p.challenge.is_some()).await?;
    audit::log(db, Some(user.id), &p.email, "user_recovery_requested", json!({}), &p.ip).await;
    tx.commit().await?;
    Ok(ok())
}

pub async fn resend(
    state: web::Data<AuthState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let p = prepare(&state, &req, &body).await?;
    let kind = p.body.kind.as_deref().unwrap_or_default();
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    if let Some(number) = &p.phone {
        match PhoneOtp::parse(kind) {
            Some(PhoneOtp::Sms) => {
                if let Some(user) = users::by_phone(db, number).await?.filter(|u| u.phone_confirmed_at.is_none()) {
                    phone::send_code(&state, db, &user, number, PhoneOtp::Sms).await?;
                }
            }
            Some(PhoneOtp::PhoneChange) => {
                let row =
                    db.cached_query_opt("select id from auth.users where phone_change = $1 limit 1", &[number]).await?;
                if let Some(user) = match row {
                    Some(row) => users::by_id(db, row.get(0)).await?,
                    None => None,
                } {
                    phone::send_code(&state, db, &user, number, PhoneOtp::PhoneChange).await?;
                }
            }
            None => return Err(AuthError::Validation(format!("Unsupported resend type {kind:?}"))),
        }
        tx.commit().await?;
        return Ok(ok());
    }
    state.require_email_provider(400, "Email logins are disabled")?;
    match kind {
        "signup" => {
            let Some(user) = users::by_email(db, &p.email).await? else { return Ok(ok()) };
            if user.is_confirmed() {
                return Ok(ok());
            }
            flows::send_link(&state, db, &user, LinkType::Signup, None, &p.redirect, false).await?;
            audit::log(db, Some(user.id), &p.email, "user_confirmation_requested", json!({}), &p.ip).await;
        }
        "email_change" => {
            let user = match users::by_email(db, &p.email).await? {
                Some(user) => Some(user),
                None => {
                    let row = db
                        .cached_query_opt(
                            "select id from auth.users where email_change = lower($1) limit 1",
                            &[&p.email],
                        )
                        .await?;
                    match row {
                        Some(row) => users::by_id(db, row.get(0)).await?,
                        None => None,
                    }
                }
            };
            let Some(user) = user else { return Ok(ok()) };
            let Some(target) = user.email_change.clone().filter(|e| !e.is_empty()) else { return Ok(ok()) };
            flows::send_link(&state, db, &user, LinkType::EmailChange, Some(&target), &p.redirect, false).await?;
            if state.config().secure_email_change && !user.email_str().is_empty() {
                flows::deliver(&state, db, &user, LinkType::EmailChangeCurrent, None, &p.redirect, false).await?;
            }
        }
        other => return Err(AuthError::Validation(format!("Unsupported resend type {other:?}"))),
    }
    tx.commit().await?;
    Ok(ok())
}

pub async fn otp(state: web::Data<AuthState>, req: HttpRequest, body: web::Bytes) -> Result<HttpResponse, AuthError> {
    let p = prepare(&state, &req, &body).await?;
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    if let Some(number) = &p.phone {
        // signInWithOtp({phone}): a code by SMS, the user made first unless `create_user` is false.
        let user = match users::by_phone(db, number).await? {
            Some(user) => user,
            None => {
                may_sign_up(&state, &p)?;
                let data = p.body.data.clone().filter(Value::is_object).unwrap_or_else(|| json!({}));
                let user =
                    users::insert_phone(db, number, "", &data, false).await?.ok_or(AuthError::UserAlreadyExists)?;
                crate::auth::hooks::before_user_created(&state, db, &user, &p.ip).await?;
                audit::log(db, Some(user.id), "", "user_signedup", json!({"provider": "phone"}), &p.ip).await;
                user
            }
        };
        phone::send_code(&state, db, &user, number, PhoneOtp::Sms).await?;
        tx.commit().await?;
        return Ok(HttpResponse::Ok().json(json!({ "message_id": null })));
    }
    state.require_email_provider(422, "Email logins are disabled")?;
    let user = match users::by_email(db, &p.email).await? {
        Some(user) => user,
        None => {
            may_sign_up(&state, &p)?;
            let new = NewUser {
                email: p.email.clone(),
                encrypted_password: None,
                user_metadata: p.body.data.clone().filter(Value::is_object).unwrap_or_else(|| json!({})),
                app_metadata: json!({}),
                confirmed: false,
                role: "authenticated".into(),
                invited: false,
            };
            let user = users::insert(db, &new).await?.ok_or(AuthError::UserAlreadyExists)?;
            crate::auth::hooks::before_user_created(&state, db, &user, &p.ip).await?;
            audit::log(db, Some(user.id), &p.email, "user_signedup", json!({"provider": "email"}), &p.ip).await;
            user
        }
    };
    let link_type = if user.is_confirmed() { LinkType::MagicLink } else { LinkType::Signup };
    if let Some(challenge) = &p.challenge {
        flows::save_flow_state(db, user.id, link_type, challenge).await?;
    }
    flows::send_link(&state, db, &user, link_type, None, &p.redirect, p.challenge.is_some()).await?;
    audit::log(db, Some(user.id), &p.email, "user_recovery_requested", json!({"magiclink": true}), &p.ip).await;
    tx.commit().await?;
    Ok(ok())
}
