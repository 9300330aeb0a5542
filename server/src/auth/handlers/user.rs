//! `GET /user` (the signed-in user) and `PUT /user` (password, metadata, e-mail change).
//!
//! A new password ends the user's other sessions; a new address is only taken once the link
//! mailed to it is verified, and with `MAILER_SECURE_EMAIL_CHANGE_ENABLED` (the default) the
//! link mailed to the current address too (immediately with `MAILER_AUTOCONFIRM`).

use crate::db::cached::CachedQueries;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::error::AuthError;
use crate::auth::flows::{self, LinkType};
use crate::auth::request::{client_ip, json_body, query, require_user};
use crate::auth::sessions::{self, Scope};
use crate::auth::{audit, password, users, AuthState};

pub async fn get(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    let client = state.pool.get().await?;
    let authed = require_user(&state, &req, &client).await?;
    Ok(HttpResponse::Ok().json(authed.user.to_json()))
}

#[derive(Debug, Deserialize)]
struct Body {
    email: Option<String>,
    password: Option<String>,
    data: Option<Value>,
    phone: Option<String>,
    nonce: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

pub async fn update(
    state: web::Data<AuthState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let p: Body = json_body(&body)?;
    let ip = client_ip(&state, &req);
    let new_phone = match p.phone.as_deref().filter(|ph| !ph.trim().is_empty()) {
        Some(_) if !state.config().phone_enabled => {
            return Err(crate::auth::phone::disabled(
                actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
                "Phone signups are disabled",
            ))
        }
        Some(ph) => Some(crate::auth::sms::normalize_phone(ph)?),
        None => None,
    };
    let new_hash = match p.password.as_deref() {
        Some(plain) => {
            state.check_password(plain)?;
            Some(plain.to_string())
        }
        None => None,
    };
    let challenge = flows::challenge(p.code_challenge.as_deref(), p.code_challenge_method.as_deref())?;
    let mut client = state.pool.get().await?;
    let authed = require_user(&state, &req, &client).await?;
    let user = authed.user;
    if user.is_anonymous
        && new_hash.is_some()
        && p.email.as_deref().is_none_or(|e| e.trim().is_empty())
        && new_phone.is_none()
    {
        return Err(AuthError::Unprocessable(
            "Updating password of an anonymous user without an email or phone is not allowed".into(),
        ));
    }
    if new_hash.is_some() {
        super::reauthenticate::check_nonce(&state, &client, &user, authed.session_id, p.nonce.as_deref()).await?;
    }
    let new_hash = match new_hash {
        Some(plain) => {
            if password::verify(plain.clone(), user.encrypted_password.clone().filter(|h| !h.is_empty())).await {
                return Err(AuthError::SamePassword);
            }
            Some(password::hash(plain).await?)
        }
        None => None,
    };
    let tx = client.transaction().await?;
    let db = &tx;
    if let Some(hash) = &new_hash {
        users::set_password(db, user.id, hash).await?;
        sessions::logout(db, user.id, authed.session_id, Scope::Others).await?;
        audit::log(db, Some(user.id), user.email_str(), "user_updated_password", json!({}), &ip).await;
    }
    if let Some(data) = p.data.as_ref().filter(|d| d.is_object()) {
        users::merge_metadata(db, user.id, false, data).await?;
        audit::log(db, Some(user.id), user.email_str(), "user_modified", json!({}), &ip).await;
    }
    let new_email = p.email.as_deref().map(str::trim).filter(|e| !e.is_empty()).map(str::to_lowercase);
    if let Some(email) = new_email.filter(|e| e != user.email_str()) {
        if !users::valid_email(&email) {
            return Err(AuthError::Validation("Unable to validate email address: invalid format".into()));
        }
        if users::by_email(db, &email).await?.is_some() {
            return Err(AuthError::EmailExists);
        }
        if state.config().mailer_autoconfirm {
            users::set_email(db, user.id, &email).await?;
        } else {
            flows::check_spacing(&state, &user, LinkType::EmailChange)?;
            db.cached_execute(
                "update auth.users set email_change = $2, email_change_confirm_status = 0, updated_at = now() \
                 where id = $1",
                &[&user.id, &email],
            )
            .await?;
            let pending = users::by_id(db, user.id).await?.ok_or(AuthError::UserFromJwtMissing)?;
            let redirect = state.redirect_target(query(&req).get("redirect_to").map(String::as_str));
            if let Some(challenge) = &challenge {
                flows::save_flow_state(db, user.id, LinkType::EmailChange, challenge).await?;
            }
            let pkce = challenge.is_some();
            flows::deliver(&state, db, &pending, LinkType::EmailChange, Some(&email), &redirect, pkce).await?;
            if state.config().secure_email_change && !pending.email_str().is_empty() {
                flows::deliver(&state, db, &pending, LinkType::EmailChangeCurrent, None, &redirect, pkce).await?;
            }
        }
        audit::log(db, Some(user.id), user.email_str(), "user_modified", json!({"new_email": email}), &ip).await;
    }
    if let Some(number) = new_phone.filter(|n| Some(n) != user.phone.as_ref()) {
        crate::auth::phone::change(&state, db, &user, &number).await?;
        audit::log(db, Some(user.id), user.email_str(), "user_modified", json!({"new_phone": number}), &ip).await;
    }
    let user = users::by_id(db, user.id).await?.ok_or(AuthError::UserFromJwtMissing)?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(user.to_json()))
}
