//! `POST /logout?scope=global|local|others`: end the caller's sessions (204).

use actix_web::{web, HttpRequest, HttpResponse};
use serde_json::json;

use crate::auth::error::AuthError;
use crate::auth::request::{client_ip, query, require_user};
use crate::auth::sessions::{self, Scope};
use crate::auth::{audit, AuthState};

pub async fn logout(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    let scope = Scope::parse(query(&req).get("scope").map(String::as_str))?;
    let client = state.pool.get().await?;
    let authed = require_user(&state, &req, &client).await?;
    let ended = sessions::logout(&client, authed.user.id, authed.session_id, scope).await?;
    let ip = client_ip(&state, &req);
    audit::log(&client, Some(authed.user.id), authed.user.email_str(), "logout", json!({"sessions": ended}), &ip).await;
    Ok(HttpResponse::NoContent().finish())
}
