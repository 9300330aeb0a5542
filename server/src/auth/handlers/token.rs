//! `POST /token?grant_type=password|refresh_token|pkce`: sessions out of a password, a refresh
//! token or a PKCE auth code.
//!
//! A wrong password and an unknown address give the same `invalid_credentials` after the same
//! amount of hashing work; `email_not_confirmed` is only said once the password matched.

use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::json;

use crate::auth::error::AuthError;
use crate::auth::request::{client_info, client_ip, json_body, query};
use crate::auth::{audit, flows, password, rate_limit, sessions, users, AuthState};

#[derive(Debug, Default, Deserialize)]
struct Body {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    refresh_token: Option<String>,
    auth_code: Option<String>,
    code_verifier: Option<String>,
}

pub async fn token(state: web::Data<AuthState>, req: HttpRequest, body: web::Bytes) -> Result<HttpResponse, AuthError> {
    let ip = client_ip(&state, &req);
    rate_limit::hit(
        &state.pool,
        &format!("token:{ip}"),
        state.config.rate_limit_token_refresh,
        rate_limit::IP_WINDOW_SECS,
        AuthError::OverRequestRateLimit,
    )
    .await?;
    let p: Body = json_body(&body)?;
    match query(&req).get("grant_type").map(String::as_str) {
        Some("password") => password_grant(&state, &req, p, &ip).await,
        Some("refresh_token") => refresh_grant(&state, p, &ip).await,
        Some("pkce") => pkce_grant(&state, &req, p, &ip).await,
        Some(other) => Err(AuthError::Validation(format!("unsupported_grant_type: {other}"))),
        None => Err(AuthError::Validation("unsupported_grant_type".into())),
    }
}

async fn password_grant(state: &AuthState, req: &HttpRequest, p: Body, ip: &str) -> Result<HttpResponse, AuthError> {
    let email = p.email.as_deref().map(str::trim).unwrap_or_default().to_lowercase();
    let plain = p.password.unwrap_or_default();
    if email.is_empty() {
        if p.phone.as_deref().is_some_and(|ph| !ph.is_empty()) {
            return Err(AuthError::Validation("Phone logins are disabled".into()));
        }
        return Err(AuthError::Validation("missing email or phone".into()));
    }
    let mut client = state.pool.get().await?;
    let user = users::by_email(&client, &email).await?;
    let hash = user.as_ref().and_then(|u| u.encrypted_password.clone());
    let matches = password::verify(plain, hash).await;
    let Some(user) = user.filter(|_| matches) else {
        audit::log(&client, None, &email, "login_failed", json!({"provider": "email"}), ip).await;
        return Err(AuthError::InvalidCredentials);
    };
    if user.is_banned() {
        return Err(AuthError::UserBanned);
    }
    if !user.is_confirmed() && !state.config.mailer_autoconfirm {
        return Err(AuthError::EmailNotConfirmed);
    }
    let tx = client.transaction().await?;
    let db = &tx;
    let issued = sessions::create(db, user.id, "password", &client_info(state, req)).await?;
    users::touch_sign_in(db, user.id).await?;
    let user = users::by_id(db, user.id).await?.ok_or(AuthError::InvalidCredentials)?;
    let session = sessions::response(state, db, &user, &issued).await?;
    audit::log(db, Some(user.id), &email, "login", json!({"provider": "email"}), ip).await;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(session))
}

async fn refresh_grant(state: &AuthState, p: Body, ip: &str) -> Result<HttpResponse, AuthError> {
    let token = p.refresh_token.unwrap_or_default();
    if token.is_empty() {
        return Err(AuthError::RefreshTokenNotFound);
    }
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    match sessions::refresh(state, db, &token).await {
        Ok((user, issued, action)) => {
            let session = sessions::response(state, db, &user, &issued).await?;
            audit::log(db, Some(user.id), user.email_str(), action, json!({}), ip).await;
            tx.commit().await?;
            Ok(HttpResponse::Ok().json(session))
        }
        Err(AuthError::RefreshTokenAlreadyUsed) => {
            // The revocation of the session's tokens must stick even though the request fails.
            audit::log(db, None, "", "token_revoked", json!({"reason": "refresh_token_already_used"}), ip).await;
            tx.commit().await?;
            Err(AuthError::RefreshTokenAlreadyUsed)
        }
        Err(other) => Err(other),
    }
}

async fn pkce_grant(state: &AuthState, req: &HttpRequest, p: Body, ip: &str) -> Result<HttpResponse, AuthError> {
    let code = p.auth_code.unwrap_or_default();
    let verifier = p.code_verifier.unwrap_or_default();
    if code.is_empty() || verifier.is_empty() {
        return Err(AuthError::Validation(
            "invalid request: both auth code and code verifier should be non-empty".into(),
        ));
    }
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    let (user_id, method) = flows::exchange_code(db, &code, &verifier).await?;
    let user = users::by_id(db, user_id).await?.ok_or(AuthError::FlowStateNotFound)?;
    if user.is_banned() {
        return Err(AuthError::UserBanned);
    }
    let amr = if method == "recovery" { "recovery" } else { "otp" };
    let issued = sessions::create(db, user.id, amr, &client_info(state, req)).await?;
    users::touch_sign_in(db, user.id).await?;
    let user = users::by_id(db, user.id).await?.ok_or(AuthError::FlowStateNotFound)?;
    let session = sessions::response(state, db, &user, &issued).await?;
    audit::log(db, Some(user.id), user.email_str(), "login", json!({"provider": "email", "grant": "pkce"}), ip).await;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(session))
}
