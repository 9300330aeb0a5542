//! Signing in and out of the dashboard, and the current session.
//!
//! Sign-in is rate-limited per e-mail address and per client IP (`auth::rate_limit`'s counters
//! in Postgres, so the limit holds across instances), checked before any password is verified;
//! an unknown address costs the same argon2 verification as a known one (`auth::password`).
//! Both successful and failed sign-ins are written to the audit log.

use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::json;

use super::audit;
use super::error::StudioError;
use super::operators;
use super::session::{self, OperatorSession};
use crate::state::AppState;

/// The window of the sign-in limits, in seconds.
const WINDOW_SECS: i64 = 300;

#[derive(Deserialize)]
pub struct SignIn {
    email: String,
    password: String,
    /// The TOTP code, for an operator who has TOTP on.
    #[serde(default)]
    code: Option<String>,
}

/// The client's address as the socket gives it (headers are not trusted for a limit).
fn client_ip(req: &HttpRequest) -> String {
    req.peer_addr().map(|a| a.ip().to_string()).unwrap_or_default()
}

async fn limit(state: &AppState, key: String, max: u64) -> Result<(), StudioError> {
    use crate::auth::error::AuthError;
    crate::auth::rate_limit::hit(&state.pools.admin, &key, max, WINDOW_SECS, AuthError::OverRequestRateLimit)
        .await
        .map_err(|err| match err {
            AuthError::OverRequestRateLimit => StudioError::TooManyAttempts,
            other => StudioError::internal(other),
        })
}

/// `POST /studio/api/signin` `{email, password}`: sets the session cookie and answers the
/// operator and the session's CSRF token.
pub async fn sign_in(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<SignIn>,
) -> Result<HttpResponse, StudioError> {
    if !session::same_origin(&req) {
        return Err(StudioError::Forbidden("Cross-site request refused"));
    }
    let SignIn { email, password, code } = body.into_inner();
    let email = email.trim().to_lowercase();
    let ip = client_ip(&req);
    let cfg = &state.config.studio;
    limit(&state, format!("studio-signin-ip:{ip}"), cfg.signin_per_ip).await?;
    limit(&state, format!("studio-signin-email:{email}"), cfg.signin_per_email).await?;
    let client = state.pools.admin.get().await?;
    let found = operators::find_for_sign_in(&client, &email).await?;
    let hash = found.as_ref().map(|(_, _, h)| h.clone());
    if !crate::auth::password::verify(password, hash).await {
        audit::record_as(&client, None, &email, "signin.failed", None, json!({"ip": ip})).await?;
        return Err(StudioError::InvalidCredentials);
    }
    let Some((operator_id, email, _)) = found else { return Err(StudioError::InvalidCredentials) };
    if let Err(err) = super::operator_totp::check_at_sign_in(&state, &client, operator_id, code.as_deref()).await {
        if matches!(err, StudioError::InvalidTotp) {
            audit::record_as(
                &client,
                Some(operator_id),
                &email,
                "signin.failed",
                None,
                json!({"ip": ip, "totp": true}),
            )
            .await?;
        }
        return Err(err);
    }
    let agent = req.headers().get("user-agent").and_then(|v| v.to_str().ok()).unwrap_or("");
    session::prune(&client, cfg.session_idle_secs).await?;
    let token = session::create(&client, operator_id, &ip, agent).await?;
    client.execute("update _studio.operators set last_sign_in_at = now() where id = $1", &[&operator_id]).await?;
    audit::record_as(&client, Some(operator_id), &email, "signin", None, json!({"ip": ip})).await?;
    Ok(HttpResponse::Ok()
        .cookie(session::cookie(&token, session::secure(&state)))
        .insert_header(("Cache-Control", "no-store"))
        .json(json!({"operator": {"id": operator_id, "email": email}, "csrf_token": session::csrf_of(&token)})))
}

/// `GET /studio/api/session`: who is signed in, and the CSRF token the app sends on writes.
pub async fn current(op: web::ReqData<OperatorSession>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(json!({"operator": {"id": op.operator_id, "email": op.email}, "csrf_token": op.csrf}))
}

/// `POST /studio/api/signout`: ends the session and clears the cookie.
pub async fn sign_out(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    session::end(&client, op.session_id).await?;
    audit::record(&client, &op, "signout", None, json!({})).await?;
    Ok(HttpResponse::NoContent().cookie(session::removal(session::secure(&state))).finish())
}
