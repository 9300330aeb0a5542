//! `POST /token?grant_type=password|refresh_token|pkce`: sessions out of a password, a refresh
//! token or a PKCE auth code.
//!
//! A wrong password and an unknown address give the same `invalid_credentials` after the same
//! amount of hashing work; `email_not_confirmed` is only said once the password matched.

use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::error::AuthError;
use crate::auth::request::{client_info, client_ip, json_body, query};
use crate::auth::{audit, flows, hooks, password, rate_limit, sessions, users, AuthState};

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
    let limit_key = format!("token:{ip}");
    let grant = query(&req).get("grant_type").cloned();
    let parsed: Result<Body, AuthError> = json_body(&body);
    if grant.as_deref() == Some("refresh_token") {
        if let Some(token) = parsed.as_ref().ok().and_then(|p| p.refresh_token.as_deref()).filter(|t| !t.is_empty()) {
            // The grant counts the rate limit itself: a refresh is one statement, shared with the
            // refreshes that arrive at the same time.
            let session = sessions::refresh(&state, token, &ip, &limit_key).await?;
            return Ok(HttpResponse::Ok().json(session));
        }
    }
    rate_limit::hit(
        &state.pool,
        &limit_key,
        state.config().rate_limit_token_refresh,
        rate_limit::IP_WINDOW_SECS,
        AuthError::OverRequestRateLimit,
    )
    .await?;
    let p = parsed?;
    match grant.as_deref() {
        Some("password") => password_grant(&state, &req, p, &ip).await,
        // A refresh grant without a token.
        Some("refresh_token") => Err(AuthError::RefreshTokenNotFound),
        Some("pkce") => pkce_grant(&state, &req, p, &ip).await,
        Some("id_token") => id_token_grant(&state, &req, &serde_json::from_slice(&body).unwrap_or_default(), &ip).await,
        Some("web3") => super::disabled::web3_grant(),
        Some(other) => Err(AuthError::Validation(format!("unsupported_grant_type: {other}"))),
        None => Err(AuthError::Validation("unsupported_grant_type".into())),
    }
}

async fn password_grant(state: &AuthState, req: &HttpRequest, p: Body, ip: &str) -> Result<HttpResponse, AuthError> {
    let email = p.email.as_deref().map(str::trim).unwrap_or_default().to_lowercase();
    let plain = p.password.unwrap_or_default();
    if email.is_empty() {
        if p.phone.as_deref().is_some_and(|ph| !ph.is_empty()) {
            return phone_password_grant(state, req, p.phone.as_deref().unwrap_or_default(), plain, ip).await;
        }
        return Err(AuthError::Validation("missing email or phone".into()));
    }
    state.require_email_provider(422, "Email logins are disabled")?;
    let client = state.pool.get().await?;
    let user = users::by_email(&client, &email).await?;
    let hash = user.as_ref().and_then(|u| u.encrypted_password.clone());
    let has_password = hash.as_deref().is_some_and(|h| !h.is_empty());
    let matches = password::verify(plain, hash).await;
    if let Some(u) = user.as_ref().filter(|u| has_password && !u.is_banned()) {
        hooks::password_verification_attempt(state, u.id, matches, ip).await?;
    }
    let Some(user) = user.filter(|_| matches) else {
        audit::log(&client, None, &email, "login_failed", json!({"provider": "email"}), ip).await;
        return Err(AuthError::InvalidCredentials);
    };
    if user.is_banned() {
        return Err(AuthError::UserBanned);
    }
    if !user.is_confirmed() && !state.config().mailer_autoconfirm {
        return Err(AuthError::EmailNotConfirmed);
    }
    let info = client_info(state, req);
    let session = sessions::sign_in(state, &client, user, "password", &info, ip, json!({"provider": "email"})).await?;
    Ok(HttpResponse::Ok().json(session))
}

/// `signInWithPassword({phone, password})`: as with an address; an unconfirmed number is
/// `phone_not_confirmed` once the password matched.
async fn phone_password_grant(
    state: &AuthState,
    req: &HttpRequest,
    phone: &str,
    plain: String,
    ip: &str,
) -> Result<HttpResponse, AuthError> {
    if !state.config().phone_enabled {
        return Err(crate::auth::phone::disabled(
            actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
            "Phone logins are disabled",
        ));
    }
    let number = crate::auth::sms::normalize_phone(phone)?;
    let client = state.pool.get().await?;
    let user = users::by_phone(&client, &number).await?;
    let hash = user.as_ref().and_then(|u| u.encrypted_password.clone()).filter(|h| !h.is_empty());
    let has_password = hash.is_some();
    let matches = password::verify(plain, hash).await;
    if let Some(u) = user.as_ref().filter(|u| has_password && !u.is_banned()) {
        hooks::password_verification_attempt(state, u.id, matches, ip).await?;
    }
    let Some(user) = user.filter(|_| matches) else {
        audit::log(&client, None, "", "login_failed", json!({"provider": "phone"}), ip).await;
        return Err(AuthError::InvalidCredentials);
    };
    if user.is_banned() {
        return Err(AuthError::UserBanned);
    }
    if user.phone_confirmed_at.is_none() && !state.config().sms_autoconfirm {
        return Err(AuthError::Coded(
            actix_web::http::StatusCode::BAD_REQUEST,
            "phone_not_confirmed",
            "Phone not confirmed".into(),
        ));
    }
    let info = client_info(state, req);
    let session = sessions::sign_in(state, &client, user, "password", &info, ip, json!({"provider": "phone"})).await?;
    Ok(HttpResponse::Ok().json(session))
}

/// `signInWithIdToken({provider, token, nonce})`: an ID token of an enabled OIDC provider, its
/// user found by identity, else by a verified address (linked), else created.
async fn id_token_grant(
    state: &AuthState,
    req: &HttpRequest,
    body: &Value,
    ip: &str,
) -> Result<HttpResponse, AuthError> {
    let text = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or_default();
    let Some(provider) = state.oidc().provider(text("provider"), text("issuer")).cloned() else {
        return super::disabled::id_token_grant(body);
    };
    let token = text("id_token");
    if token.is_empty() {
        return super::disabled::id_token_grant(body);
    }
    let nonce = body.get("nonce").and_then(Value::as_str);
    let claims = state.oidc().verify(&provider, token, nonce).await?;
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    let linking = body.get("link_identity").and_then(Value::as_bool).unwrap_or(false);
    let user = if linking {
        let user = crate::auth::request::require_user(state, req, db).await?.user;
        crate::auth::oidc::link_to(db, &user, &provider, &claims).await?;
        user
    } else {
        crate::auth::oidc::user_for(state, db, &provider, &claims, ip).await?
    };
    if user.is_banned() {
        return Err(AuthError::UserBanned);
    }
    let user = users::by_id(db, user.id).await?.ok_or(AuthError::UserFromJwtMissing)?;
    let info = client_info(state, req);
    let session = sessions::sign_in(state, db, user, "oauth", &info, ip, json!({"provider": provider.name})).await?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(session))
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
    let amr = match method.as_str() {
        "recovery" => "recovery",
        "oauth" => "oauth",
        _ => "otp",
    };
    let info = client_info(state, req);
    let traits = json!({"provider": "email", "grant": "pkce"});
    let session = sessions::sign_in(state, db, user, amr, &info, ip, traits).await?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(session))
}
