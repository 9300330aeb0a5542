//! `/verify`: checking mailed tokens. `POST` (supabase-js `verifyOtp`) takes `token_hash` +
//! `type`, or the e-mailed `token` (`MAILER_OTP_LENGTH` digits) + `email`, and answers with a session. `GET` is the link in
//! the mail: it answers 303 to `redirect_to` (when allowed, else SITE_URL) with the session in
//! the URL fragment, `?code=` for a PKCE flow, or `#error=access_denied&error_code=otp_expired...`.

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::json;

use crate::auth::error::AuthError;
use crate::auth::flows::{self, LinkType, Verified, SINGLE_CONFIRMATION};
use crate::auth::phone::PhoneOtp;
use crate::auth::request::{client_info, client_ip, json_body, query};
use crate::auth::{audit, rate_limit, sessions, tokens, AuthState};

#[derive(Debug, Deserialize)]
struct Body {
    #[serde(rename = "type")]
    kind: Option<String>,
    token: Option<String>,
    token_hash: Option<String>,
    email: Option<String>,
    phone: Option<String>,
}

async fn limit(state: &AuthState, ip: &str) -> Result<(), AuthError> {
    rate_limit::hit(
        &state.pool,
        &format!("verify:{ip}"),
        state.config().rate_limit_verify,
        rate_limit::IP_WINDOW_SECS,
        AuthError::OverRequestRateLimit,
    )
    .await
}

fn types(kind: Option<&str>) -> Result<Vec<LinkType>, AuthError> {
    let kind = kind.unwrap_or_default();
    LinkType::parse(kind).ok_or_else(|| AuthError::Validation(format!("Unsupported verification type: {kind:?}")))
}

pub async fn post(state: web::Data<AuthState>, req: HttpRequest, body: web::Bytes) -> Result<HttpResponse, AuthError> {
    let ip = client_ip(&state, &req);
    limit(&state, &ip).await?;
    let p: Body = json_body(&body)?;
    if let Some(otp) = p.kind.as_deref().and_then(PhoneOtp::parse) {
        return phone_verify(&state, &req, otp, p, &ip).await;
    }
    let types = types(p.kind.as_deref())?;
    let hash = match (p.token_hash.filter(|h| !h.is_empty()), p.token.filter(|t| !t.is_empty()), p.email) {
        (Some(hash), _, _) => hash,
        (None, Some(token), Some(email)) if !email.trim().is_empty() => {
            tokens::token_hash(&email.trim().to_lowercase(), token.trim())
        }
        _ => return Err(AuthError::Validation("Verify requires either a token_hash, or a token and an email".into())),
    };
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    let (user, link_type) = match flows::verify(&state, db, &types, &hash).await? {
        Verified::Done(user, link_type) => (*user, link_type),
        Verified::OtherAddressPending => {
            tx.commit().await?;
            return Ok(HttpResponse::Ok().json(json!({ "msg": SINGLE_CONFIRMATION, "code": 200 })));
        }
    };
    let traits = json!({"provider": "email", "type": link_type.name()});
    let session = sessions::sign_in(&state, db, user, link_type.amr(), &client_info(&state, &req), &ip, traits).await?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(session))
}

/// `verifyOtp({phone, token, type: 'sms' | 'phone_change'})`: the code texted to the number.
async fn phone_verify(
    state: &AuthState,
    req: &HttpRequest,
    otp: PhoneOtp,
    p: Body,
    ip: &str,
) -> Result<HttpResponse, AuthError> {
    let number = crate::auth::sms::normalize_phone(p.phone.as_deref().unwrap_or_default())?;
    let code = p
        .token
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| AuthError::Validation("Verify requires a token and a phone number".into()))?;
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    let user = crate::auth::phone::verify(state, db, otp, &number, &code).await?;
    let kind = if otp == PhoneOtp::Sms { "sms" } else { "phone_change" };
    let traits = json!({"provider": "phone", "type": kind});
    let session = sessions::sign_in(state, db, user, "otp", &client_info(state, req), ip, traits).await?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(session))
}

pub async fn get(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    let ip = client_ip(&state, &req);
    limit(&state, &ip).await?;
    let q = query(&req);
    let redirect = state.redirect_target(q.get("redirect_to").map(String::as_str));
    let token = q.get("token").cloned().unwrap_or_default();
    let outcome = async {
        let types = types(q.get("type").map(String::as_str))?;
        if token.is_empty() {
            return Err(AuthError::OtpExpired);
        }
        let mut client = state.pool.get().await?;
        let tx = client.transaction().await?;
        let db = &tx;
        let (user, link_type) = match flows::verify(&state, db, &types, &token).await? {
            Verified::Done(user, link_type) => (*user, link_type),
            Verified::OtherAddressPending => {
                tx.commit().await?;
                let message = url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("message", SINGLE_CONFIRMATION)
                    .finish();
                return Ok(format!("{}#{message}", redirect.split('#').next().unwrap_or_default()));
            }
        };
        if token.starts_with("pkce_") {
            if let Some(code) = flows::issue_auth_code(db, user.id, link_type).await? {
                audit::log(
                    db,
                    Some(user.id),
                    user.email_str(),
                    "user_confirmation_requested",
                    json!({"pkce": true}),
                    &ip,
                )
                .await;
                tx.commit().await?;
                let sep = if redirect.contains('?') { '&' } else { '?' };
                let code = url::form_urlencoded::byte_serialize(code.as_bytes()).collect::<String>();
                return Ok(format!("{redirect}{sep}code={code}"));
            }
        }
        let traits = json!({"provider": "email", "type": link_type.name()});
        let session =
            sessions::sign_in(&state, db, user, link_type.amr(), &client_info(&state, &req), &ip, traits).await?;
        tx.commit().await?;
        Ok(sessions::redirect_with_session(&redirect, &session, &[("type", link_type.name())]))
    }
    .await;
    let location = match outcome {
        Ok(location) => location,
        Err(AuthError::Internal(cause)) => return Err(AuthError::Internal(cause)),
        Err(err) => {
            let (code, description) = match &err {
                AuthError::OtpExpired => ("otp_expired", "Email link is invalid or has expired".to_string()),
                other => (other.parts().1, other.to_string()),
            };
            sessions::redirect_with_error(&redirect, "access_denied", code, &description)
        }
    };
    Ok(HttpResponse::SeeOther().insert_header((LOCATION, location)).finish())
}
