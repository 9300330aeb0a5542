//! MFA with TOTP: `POST /factors` (enrol), `POST /factors/{id}/challenge`,
//! `POST /factors/{id}/verify` (the session becomes `aal2` and new tokens are issued) and
//! `DELETE /factors/{id}` (a verified factor needs an `aal2` session to be removed).

use crate::db::cached::CachedQueries;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::auth::error::AuthError;
use crate::auth::request::{client_info, client_ip, json_body, require_user, Authed};
use crate::auth::sessions::{self, Issued};
use crate::auth::{audit, mfa, tokens, users, AuthState};

/// Seconds a challenge stays answerable (GoTrue's default).
const CHALLENGE_EXPIRY_SECS: i64 = 300;

#[derive(Debug, Deserialize)]
struct EnrollBody {
    factor_type: Option<String>,
    friendly_name: Option<String>,
    issuer: Option<String>,
}

fn factor_id(path: &str) -> Result<Uuid, AuthError> {
    Uuid::parse_str(path).map_err(|_| AuthError::MfaFactorNotFound)
}

/// The factor `id` of the caller: (status, secret).
async fn own_factor(
    db: &impl deadpool_postgres::GenericClient,
    authed: &Authed,
    id: Uuid,
) -> Result<(String, String), AuthError> {
    let row = db
        .cached_query_opt(
            "select status::text, coalesce(secret, '') from auth.mfa_factors where id = $1 and user_id = $2",
            &[&id, &authed.user.id],
        )
        .await?
        .ok_or(AuthError::MfaFactorNotFound)?;
    Ok((row.get(0), row.get(1)))
}

pub async fn enroll(
    state: web::Data<AuthState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let p: EnrollBody = json_body(&body)?;
    if p.factor_type.as_deref() != Some("totp") {
        return Err(AuthError::Validation("factor_type needs to be totp".into()));
    }
    let client = state.pool.get().await?;
    let authed = require_user(&state, &req, &client).await?;
    let friendly = p.friendly_name.unwrap_or_default();
    if !friendly.trim().is_empty() {
        let taken = client
            .cached_query_opt(
                "select 1 from auth.mfa_factors where user_id = $1 and friendly_name = $2",
                &[&authed.user.id, &friendly],
            )
            .await?;
        if taken.is_some() {
            return Err(AuthError::MfaNameConflict(friendly));
        }
    }
    let issuer = p.issuer.filter(|i| !i.is_empty()).unwrap_or_else(|| {
        url::Url::parse(&state.site_url).ok().and_then(|u| u.host_str().map(str::to_string)).unwrap_or_default()
    });
    let secret = mfa::new_secret();
    let id = Uuid::new_v4();
    client
        .cached_execute(
            "insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret) \
             values ($1, $2, $3, 'totp', 'unverified', now(), now(), $4)",
            &[&id, &authed.user.id, &friendly, &secret],
        )
        .await?;
    audit::log(
        &client,
        Some(authed.user.id),
        authed.user.email_str(),
        "factor_in_progress",
        json!({"factor_id": id}),
        &client_ip(&state, &req),
    )
    .await;
    let uri = mfa::uri(&issuer, authed.user.email_str(), &secret);
    Ok(HttpResponse::Ok().json(json!({
        "id": id,
        "type": "totp",
        "friendly_name": friendly,
        "totp": { "qr_code": mfa::qr_svg(&uri), "secret": secret, "uri": uri },
    })))
}

pub async fn challenge(
    state: web::Data<AuthState>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, AuthError> {
    let id = factor_id(&path)?;
    let client = state.pool.get().await?;
    let authed = require_user(&state, &req, &client).await?;
    own_factor(&client, &authed, id).await?;
    let challenge_id = Uuid::new_v4();
    let ip = client_info(&state, &req).ip.unwrap_or_else(|| "0.0.0.0".into());
    client
        .cached_execute(
            "insert into auth.mfa_challenges (id, factor_id, created_at, ip_address) values ($1, $2, now(), $3::text::inet)",
            &[&challenge_id, &id, &ip],
        )
        .await?;
    client
        .cached_execute("update auth.mfa_factors set last_challenged_at = clock_timestamp() where id = $1", &[&id])
        .await?;
    Ok(HttpResponse::Ok().json(json!({
        "id": challenge_id,
        "type": "totp",
        "expires_at": Utc::now().timestamp() + CHALLENGE_EXPIRY_SECS,
    })))
}

#[derive(Debug, Deserialize)]
struct VerifyBody {
    challenge_id: Option<String>,
    code: Option<String>,
}

pub async fn verify(
    state: web::Data<AuthState>,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let id = factor_id(&path)?;
    let p: VerifyBody = json_body(&body)?;
    let challenge_id =
        p.challenge_id.as_deref().and_then(|c| Uuid::parse_str(c).ok()).ok_or(AuthError::MfaChallengeNotFound)?;
    let mut client = state.pool.get().await?;
    let authed = require_user(&state, &req, &client).await?;
    let session_id = authed.session_id.ok_or(AuthError::SessionNotFound)?;
    let (_, secret) = own_factor(&client, &authed, id).await?;
    let ip = client_ip(&state, &req);
    let tx = client.transaction().await?;
    let db = &tx;
    let row = db
        .cached_query_opt(
            "select extract(epoch from now() - created_at)::float8, verified_at is not null from auth.mfa_challenges \
             where id = $1 and factor_id = $2 for update",
            &[&challenge_id, &id],
        )
        .await?
        .ok_or(AuthError::MfaChallengeNotFound)?;
    if row.get::<_, bool>(1) {
        return Err(AuthError::MfaChallengeNotFound);
    }
    if row.get::<_, Option<f64>>(0).unwrap_or_default() > CHALLENGE_EXPIRY_SECS as f64 {
        return Err(AuthError::MfaChallengeExpired(challenge_id.to_string()));
    }
    if !mfa::verify(&secret, p.code.as_deref().unwrap_or_default(), Utc::now().timestamp()) {
        audit::log(
            &client_log(&state).await?,
            Some(authed.user.id),
            authed.user.email_str(),
            "verification_attempted",
            json!({"factor_id": id, "ok": false}),
            &ip,
        )
        .await;
        return Err(AuthError::MfaVerificationFailed);
    }
    db.cached_execute("update auth.mfa_challenges set verified_at = now() where id = $1", &[&challenge_id]).await?;
    db.cached_execute("update auth.mfa_factors set status = 'verified', updated_at = now() where id = $1", &[&id])
        .await?;
    db.cached_execute(
        "update auth.sessions set aal = 'aal2', factor_id = $2, updated_at = now() where id = $1",
        &[&session_id, &id],
    )
    .await?;
    db.cached_execute(
        "insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id) \
         values ($1, now(), now(), 'totp', $2) \
         on conflict (session_id, authentication_method) do update set updated_at = now()",
        &[&session_id, &Uuid::new_v4()],
    )
    .await?;
    db.cached_execute(
        "update auth.refresh_tokens set revoked = true, updated_at = now() where session_id = $1 and not revoked",
        &[&session_id],
    )
    .await?;
    let refresh_token = tokens::random_token(32);
    db.cached_execute(
        "insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id) \
         values ('00000000-0000-0000-0000-000000000000', $1, $2, false, now(), now(), $3)",
        &[&refresh_token, &authed.user.id.to_string(), &session_id],
    )
    .await?;
    let user = users::by_id(db, authed.user.id).await?.ok_or(AuthError::UserFromJwtMissing)?;
    let session = sessions::response(&state, db, &user, &Issued { session_id, refresh_token }).await?;
    audit::log(
        db,
        Some(user.id),
        user.email_str(),
        "verification_attempted",
        json!({"factor_id": id, "ok": true}),
        &ip,
    )
    .await;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(session))
}

/// A second connection, for writing the audit log of a failed attempt outside the rolled-back
/// transaction.
async fn client_log(state: &AuthState) -> Result<deadpool_postgres::Object, AuthError> {
    Ok(state.pool.get().await?)
}

pub async fn unenroll(
    state: web::Data<AuthState>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, AuthError> {
    let id = factor_id(&path)?;
    let client = state.pool.get().await?;
    let authed = require_user(&state, &req, &client).await?;
    let (status, _) = own_factor(&client, &authed, id).await?;
    let aal = authed.claims.get("aal").and_then(Value::as_str).unwrap_or("aal1");
    if status == "verified" && aal != "aal2" {
        return Err(AuthError::InsufficientAal);
    }
    client.cached_execute("delete from auth.mfa_factors where id = $1", &[&id]).await?;
    client
        .cached_execute(
            "update auth.sessions set aal = 'aal1', factor_id = null, updated_at = now() where user_id = $1 and factor_id = $2",
            &[&authed.user.id, &id],
        )
        .await?;
    audit::log(
        &client,
        Some(authed.user.id),
        authed.user.email_str(),
        "factor_unenrolled",
        json!({"factor_id": id}),
        &client_ip(&state, &req),
    )
    .await;
    Ok(HttpResponse::Ok().json(json!({ "id": id })))
}
