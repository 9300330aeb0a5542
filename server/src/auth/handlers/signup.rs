//! `POST /signup`: a new user with e-mail and password. With confirmations on, the answer is
//! the user (no session) and a confirmation mail is sent; with `MAILER_AUTOCONFIRM`, a session.
//! An address that already has a confirmed account answers like a new sign-up with a made-up
//! user (no account enumeration), as GoTrue does. A body with neither address nor password is
//! an anonymous sign-in (`signInAnonymously`), when `EXTERNAL_ANONYMOUS_USERS_ENABLED` allows it.

use actix_web::{web, HttpRequest, HttpResponse};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::error::AuthError;
use crate::auth::flows::{self, LinkType};
use crate::auth::phone::{self, PhoneOtp};
use crate::auth::request::{client_info, client_ip, json_body, query};
use crate::auth::users::{self, checked_email, time, NewUser};
use crate::auth::{audit, hooks, password, rate_limit, sessions, sms, AuthState};

#[derive(Debug, Deserialize)]
struct Body {
    email: Option<String>,
    password: Option<String>,
    phone: Option<String>,
    data: Option<Value>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
}

pub async fn signup(
    state: web::Data<AuthState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    if state.config().disable_signup {
        return Err(AuthError::SignupDisabled);
    }
    let ip = client_ip(&state, &req);
    rate_limit::sign_in_sign_up(&state.pool, &ip, state.config().rate_limit_otp).await?;
    let p: Body = json_body(&body)?;
    let blank = |v: &Option<String>| v.as_deref().is_none_or(str::is_empty);
    if blank(&p.email) && blank(&p.phone) && blank(&p.password) {
        return anonymous(&state, &req, p.data, &ip).await;
    }
    if p.email.as_deref().unwrap_or_default().is_empty() && p.phone.as_deref().is_some_and(|ph| !ph.is_empty()) {
        return phone_signup(&state, &req, p, &ip).await;
    }
    state.require_email_provider(400, "Email signups are disabled")?;
    let email = checked_email(p.email.as_deref())?;
    let plain = p.password.unwrap_or_default();
    if plain.is_empty() {
        return Err(AuthError::Unprocessable("Signup requires a valid password".into()));
    }
    state.check_password(&plain)?;
    let challenge = flows::challenge(p.code_challenge.as_deref(), p.code_challenge_method.as_deref())?;
    let redirect = state.redirect_target(query(&req).get("redirect_to").map(String::as_str));
    let data = match p.data {
        Some(Value::Object(map)) => Value::Object(map),
        _ => json!({}),
    };
    let hash = password::hash(plain).await?;

    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    let autoconfirm = state.config().mailer_autoconfirm;
    let existing = users::by_email(db, &email).await?;
    let user = match existing {
        Some(user) if user.is_confirmed() => {
            if autoconfirm {
                return Err(AuthError::UserAlreadyExists);
            }
            audit::log(db, Some(user.id), &email, "user_repeated_signup", json!({"provider": "email"}), &ip).await;
            tx.commit().await?;
            return Ok(HttpResponse::Ok().json(obfuscated_user(&email, &data)));
        }
        Some(user) => user,
        None => {
            let new = NewUser {
                email: email.clone(),
                encrypted_password: Some(hash),
                user_metadata: data.clone(),
                app_metadata: json!({}),
                confirmed: autoconfirm,
                role: "authenticated".into(),
                invited: false,
            };
            let user = users::insert(db, &new).await?.ok_or(AuthError::UserAlreadyExists)?;
            hooks::before_user_created(&state, db, &user, &ip).await?;
            audit::log(db, Some(user.id), &email, "user_signedup", json!({"provider": "email"}), &ip).await;
            user
        }
    };
    if autoconfirm {
        let issued = sessions::create(&state, db, user.id, "password", &client_info(&state, &req)).await?;
        users::touch_sign_in(db, user.id).await?;
        let user = users::by_id(db, user.id).await?.ok_or(AuthError::UserAlreadyExists)?;
        let session = sessions::response(&state, db, &user, &issued).await?;
        audit::log(db, Some(user.id), &email, "login", json!({"provider": "email"}), &ip).await;
        tx.commit().await?;
        return Ok(HttpResponse::Ok().json(session));
    }
    if let Some(challenge) = &challenge {
        flows::save_flow_state(db, user.id, LinkType::Signup, challenge).await?;
    }
    flows::send_link(&state, db, &user, LinkType::Signup, None, &redirect, challenge.is_some()).await?;
    audit::log(db, Some(user.id), &email, "user_confirmation_requested", json!({"provider": "email"}), &ip).await;
    let user = users::by_id(db, user.id).await?.ok_or(AuthError::UserAlreadyExists)?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(user.to_json()))
}

/// `signUp({phone, password})`: a user known by its number, confirmed by a texted code (or at
/// once with `SMS_AUTOCONFIRM`, which answers a session).
async fn phone_signup(state: &AuthState, req: &HttpRequest, p: Body, ip: &str) -> Result<HttpResponse, AuthError> {
    if !state.config().phone_enabled {
        return Err(phone::disabled(actix_web::http::StatusCode::BAD_REQUEST, "Phone signups are disabled"));
    }
    let number = sms::normalize_phone(p.phone.as_deref().unwrap_or_default())?;
    let plain = p.password.unwrap_or_default();
    if plain.is_empty() {
        return Err(AuthError::Unprocessable("Signup requires a valid password".into()));
    }
    state.check_password(&plain)?;
    let data = match p.data {
        Some(Value::Object(map)) => Value::Object(map),
        _ => json!({}),
    };
    let hash = password::hash(plain).await?;
    let autoconfirm = state.config().sms_autoconfirm;
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    let user = match users::by_phone(db, &number).await? {
        Some(user) if user.phone_confirmed_at.is_some() => return Err(AuthError::UserAlreadyExists),
        Some(user) => {
            users::set_password(db, user.id, &hash).await?;
            user
        }
        None => {
            let user = users::insert_phone(db, &number, &hash, &data, autoconfirm)
                .await?
                .ok_or(AuthError::UserAlreadyExists)?;
            hooks::before_user_created(state, db, &user, ip).await?;
            audit::log(db, Some(user.id), "", "user_signedup", json!({"provider": "phone"}), ip).await;
            user
        }
    };
    if autoconfirm {
        let issued = sessions::create(state, db, user.id, "password", &client_info(state, req)).await?;
        users::touch_sign_in(db, user.id).await?;
        let user = users::by_id(db, user.id).await?.ok_or(AuthError::UserAlreadyExists)?;
        let session = sessions::response(state, db, &user, &issued).await?;
        tx.commit().await?;
        return Ok(HttpResponse::Ok().json(session));
    }
    phone::send_code(state, db, &user, &number, PhoneOtp::Sms).await?;
    audit::log(db, Some(user.id), "", "user_confirmation_requested", json!({"provider": "phone"}), ip).await;
    let user = users::by_id(db, user.id).await?.ok_or(AuthError::UserAlreadyExists)?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(user.to_json()))
}

/// `signInAnonymously()`: a user without address or password (`is_anonymous`, provider
/// `anonymous`) and its session, whose `amr` method is `anonymous`.
async fn anonymous(
    state: &AuthState,
    req: &HttpRequest,
    data: Option<Value>,
    ip: &str,
) -> Result<HttpResponse, AuthError> {
    if !state.config().anonymous_users_enabled {
        return Err(AuthError::AnonymousDisabled);
    }
    rate_limit::hit(
        &state.pool,
        &format!("anonymous:{ip}"),
        state.config().rate_limit_anonymous_users,
        rate_limit::EMAIL_WINDOW_SECS,
        AuthError::OverRequestRateLimit,
    )
    .await?;
    let data = match data {
        Some(Value::Object(map)) => Value::Object(map),
        _ => json!({}),
    };
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    let user = users::insert_anonymous(db, &data).await?;
    hooks::before_user_created(state, db, &user, ip).await?;
    audit::log(db, Some(user.id), "", "user_signedup", json!({"provider": "anonymous"}), ip).await;
    let issued = sessions::create(state, db, user.id, "anonymous", &client_info(state, req)).await?;
    users::touch_sign_in(db, user.id).await?;
    let user = users::by_id(db, user.id).await?.ok_or(AuthError::UserFromJwtMissing)?;
    let session = sessions::response(state, db, &user, &issued).await?;
    audit::log(db, Some(user.id), "", "login", json!({"provider": "anonymous"}), ip).await;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(session))
}

/// What GoTrue answers for an address that already has a confirmed account: a user with a
/// fresh id, no identities and the submitted metadata.
fn obfuscated_user(email: &str, data: &Value) -> Value {
    let now = time(Utc::now());
    json!({
        "id": uuid::Uuid::new_v4(),
        "aud": "authenticated",
        "role": "",
        "email": email,
        "phone": "",
        "confirmation_sent_at": now,
        "app_metadata": {"provider": "email", "providers": ["email"]},
        "user_metadata": data,
        "identities": [],
        "created_at": now,
        "updated_at": now,
        "is_anonymous": false,
    })
}
