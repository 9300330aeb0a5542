//! The OAuth 2.1 server's clients: `/admin/oauth/clients[/{id}[/regenerate_secret]]` for the
//! service role (supabase-js `auth.admin.oauth.*`) and `POST /oauth/clients/register`, the
//! dynamic registration anyone may use when `OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION` is on.
//! Answers and refusals are GoTrue's, its quirks included (a registration's refusal reads
//! `400: <why>`). A secret is in the answer of a creation or a regeneration only.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::de::DeserializeOwned;
use serde_json::json;
use uuid::Uuid;

use crate::auth::error::AuthError;
use crate::auth::oauth_server::clients::{self, Client};
use crate::auth::oauth_server::registration::{Registration, Update};
use crate::auth::oauth_server::require_enabled;
use crate::auth::request::{client_ip, Admin};
use crate::auth::{rate_limit, AuthState};

fn coded(status: StatusCode, code: &'static str, message: impl Into<String>) -> AuthError {
    AuthError::Coded(status, code, message.into())
}

fn invalid(message: impl Into<String>) -> AuthError {
    coded(StatusCode::BAD_REQUEST, "validation_failed", message)
}

fn body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, AuthError> {
    serde_json::from_slice(bytes).map_err(|_| coded(StatusCode::BAD_REQUEST, "bad_json", "Invalid JSON body"))
}

/// The client the path names (`{id}`), not deleted.
async fn load(state: &AuthState, id: &str) -> Result<Client, AuthError> {
    let id = Uuid::parse_str(id).map_err(|_| invalid("invalid client_id format"))?;
    clients::find(&state.pool.get().await?, id)
        .await?
        .ok_or_else(|| coded(StatusCode::NOT_FOUND, "oauth_client_not_found", "OAuth client not found"))
}

async fn register(state: &AuthState, bytes: &[u8], registration_type: &str) -> Result<HttpResponse, AuthError> {
    let reg: Registration = body(bytes)?;
    match clients::register(&state.pool.get().await?, &reg, registration_type).await? {
        Ok((client, secret)) => Ok(HttpResponse::Created().json(client.to_json(secret.as_deref()))),
        Err(why) => Err(invalid(format!("400: {why}"))),
    }
}

/// `POST /admin/oauth/clients`.
pub async fn create(_: Admin, state: web::Data<AuthState>, bytes: web::Bytes) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    register(&state, &bytes, "manual").await
}

/// `POST /oauth/clients/register` (RFC 7591), limited per IP address like sign-ups.
pub async fn register_dynamic(
    state: web::Data<AuthState>,
    req: HttpRequest,
    bytes: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    if !state.config().oauth_server_allow_dynamic_registration {
        return Err(coded(
            StatusCode::FORBIDDEN,
            "oauth_dynamic_client_registration_disabled",
            "Dynamic client registration is not enabled",
        ));
    }
    let key = format!("oauth_register:{}", client_ip(&state, &req));
    rate_limit::hit(
        &state.pool,
        &key,
        state.config().rate_limit_otp,
        rate_limit::IP_WINDOW_SECS,
        AuthError::OverRequestRateLimit,
    )
    .await?;
    register(&state, &bytes, "dynamic").await
}

/// `GET /admin/oauth/clients`: every client, newest first (GoTrue does not page them yet).
pub async fn list(_: Admin, state: web::Data<AuthState>) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let all = clients::list(&state.pool.get().await?).await?;
    let shown: Vec<_> = all.iter().map(|c| c.to_json(None)).collect();
    Ok(HttpResponse::Ok().json(json!({ "clients": shown })))
}

/// `GET /admin/oauth/clients/{id}`.
pub async fn get(_: Admin, state: web::Data<AuthState>, id: web::Path<String>) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    Ok(HttpResponse::Ok().json(load(&state, &id).await?.to_json(None)))
}

/// `PUT /admin/oauth/clients/{id}`: the fields given change, the others stay.
pub async fn update(
    _: Admin,
    state: web::Data<AuthState>,
    id: web::Path<String>,
    bytes: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let client = load(&state, &id).await?;
    let change: Update = body(&bytes)?;
    if change.is_empty() {
        return Err(invalid("No fields provided for update"));
    }
    match clients::update(&state.pool.get().await?, &client, &change).await? {
        Ok(updated) => Ok(HttpResponse::Ok().json(updated.to_json(None))),
        Err(why) => Err(invalid(why)),
    }
}

/// `DELETE /admin/oauth/clients/{id}`: 204; the client's sessions end with it.
pub async fn delete(_: Admin, state: web::Data<AuthState>, id: web::Path<String>) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let client = load(&state, &id).await?;
    let mut db = state.pool.get().await?;
    let tx = db.transaction().await?;
    clients::delete(&tx, client.id).await?;
    tx.commit().await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /admin/oauth/clients/{id}/regenerate_secret`: the new secret, once; the old one is void.
pub async fn regenerate_secret(
    _: Admin,
    state: web::Data<AuthState>,
    id: web::Path<String>,
) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let client = load(&state, &id).await?;
    if client.is_public() {
        return Err(invalid("Cannot regenerate secret for public client"));
    }
    let (client, secret) = clients::regenerate_secret(&state.pool.get().await?, client.id).await?;
    Ok(HttpResponse::Ok().json(client.to_json(Some(&secret))))
}
