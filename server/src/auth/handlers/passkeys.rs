//! Passkeys, as GoTrue serves them (`PASSKEY_ENABLED`): a signed-in user registers passkeys
//! (`POST /passkeys/registration/options|verify`), anyone signs in with one
//! (`POST /passkeys/authentication/options|verify`, discoverable: the passkey names its user),
//! and a user lists, renames and deletes theirs (`GET /passkeys`, `PATCH|DELETE /passkeys/{id}`);
//! `GET|DELETE /admin/users/{id}/passkeys[/{id}]` for the service role. Each ceremony's
//! challenge is stored in `auth.webauthn_challenges` and consumed by its first answer.
//!
//! When the user has a verified MFA factor, registering or deleting a passkey needs an `aal2`
//! session. The ceremony checks themselves are in `auth::webauthn`.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::auth::error::AuthError;
use crate::auth::request::{client_info, client_ip, json_body, require_user, Admin, Authed};
use crate::auth::webauthn::{self, verification_failed};
use crate::auth::{audit, rate_limit, sessions, users, AuthState};
use crate::db::cached::CachedQueries;

/// A passkey as GoTrue lists it.
const PASSKEY_JSON: &str =
    "json_strip_nulls(json_build_object('id', c.id, 'friendly_name', nullif(c.friendly_name, ''), \
     'created_at', c.created_at, 'last_used_at', c.last_used_at))";

fn coded(status: StatusCode, code: &'static str, message: &str) -> AuthError {
    AuthError::Coded(status, code, message.to_string())
}

fn require_enabled(state: &AuthState) -> Result<(), AuthError> {
    if state.config().passkey_enabled {
        Ok(())
    } else {
        Err(coded(StatusCode::NOT_FOUND, "passkey_disabled", "Passkeys are disabled"))
    }
}

fn not_found() -> AuthError {
    coded(StatusCode::NOT_FOUND, "validation_failed", "Passkey not found")
}

/// The signed-in, non-anonymous caller.
async fn require_member(
    state: &AuthState,
    req: &HttpRequest,
    db: &impl crate::db::cached::Db,
) -> Result<Authed, AuthError> {
    let authed = require_user(state, req, db).await?;
    if authed.user.is_anonymous {
        return Err(coded(
            StatusCode::FORBIDDEN,
            "no_authorization",
            "Anonymous user not allowed to perform these actions",
        ));
    }
    Ok(authed)
}

/// A user with a verified factor manages passkeys only from an `aal2` session.
async fn require_management_aal(db: &impl crate::db::cached::Db, authed: &Authed) -> Result<(), AuthError> {
    let has_mfa: bool = db
        .cached_query_one(
            "select exists (select 1 from auth.mfa_factors where user_id = $1 and status = 'verified')",
            &[&authed.user.id],
        )
        .await?
        .get(0);
    let aal = authed.claims.get("aal").and_then(Value::as_str).unwrap_or("aal1");
    if has_mfa && aal != "aal2" {
        return Err(coded(
            StatusCode::FORBIDDEN,
            "insufficient_aal",
            "AAL2 session is required to manage passkeys when MFA is enabled",
        ));
    }
    Ok(())
}

/// The user's credentials, as the WebAuthn library knows them.
async fn credentials_of(
    db: &impl crate::db::cached::Db,
    user_id: Uuid,
) -> Result<Vec<webauthn_rs_core::proto::Credential>, AuthError> {
    let rows = db
        .cached_query(
            "select credential from auth.webauthn_credentials where user_id = $1 order by created_at",
            &[&user_id],
        )
        .await?;
    rows.into_iter().map(|r| webauthn::stored(r.get(0))).collect()
}

#[derive(Debug, Deserialize)]
struct VerifyBody {
    challenge_id: Option<String>,
    credential: Option<Value>,
}

impl VerifyBody {
    fn parse(body: &[u8]) -> Result<(Uuid, Value), AuthError> {
        let p: VerifyBody = json_body(body)?;
        let id = p
            .challenge_id
            .filter(|c| !c.is_empty())
            .ok_or_else(|| AuthError::Validation("challenge_id is required".into()))?;
        let credential = p
            .credential
            .filter(|c| !c.is_null())
            .ok_or_else(|| AuthError::Validation("credential is required".into()))?;
        let id = Uuid::parse_str(&id).map_err(|_| AuthError::Validation("challenge_id must be a valid UUID".into()))?;
        Ok((id, credential))
    }
}

/// Take the challenge `id` of `kind` (bound to `user`, or unbound); it is gone afterwards,
/// whatever the answer.
async fn consume_challenge(
    db: &impl crate::db::cached::Db,
    id: Uuid,
    kind: &str,
    user: Option<Uuid>,
) -> Result<Value, AuthError> {
    let row = db
        .cached_query_opt(
            "delete from auth.webauthn_challenges where id = $1 and challenge_type = $2 \
             and user_id is not distinct from $3 returning session_data, expires_at < now()",
            &[&id, &kind, &user],
        )
        .await?
        .ok_or_else(|| {
            coded(StatusCode::BAD_REQUEST, "webauthn_challenge_not_found", "Challenge not found or already used")
        })?;
    if row.get::<_, bool>(1) {
        return Err(coded(StatusCode::BAD_REQUEST, "webauthn_challenge_expired", "Challenge has expired"));
    }
    Ok(row.get(0))
}

/// Store a new challenge; answers its id and expiry (UNIX seconds).
async fn store_challenge(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    kind: &str,
    user: Option<Uuid>,
    session_data: &Value,
) -> Result<(Uuid, i64), AuthError> {
    let id = Uuid::new_v4();
    let expires: i64 = db
        .cached_query_one(
            "insert into auth.webauthn_challenges (id, user_id, challenge_type, session_data, expires_at) \
             values ($1, $2, $3, $4, now() + make_interval(secs => $5)) \
             returning extract(epoch from expires_at)::int8",
            &[&id, &user, &kind, session_data, &(state.webauthn().challenge_expiry_secs as f64)],
        )
        .await?
        .get(0);
    Ok((id, expires))
}

/// `POST /passkeys/registration/options`.
pub async fn registration_options(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let client = state.pool.get().await?;
    let authed = require_member(&state, &req, &client).await?;
    require_management_aal(&client, &authed).await?;
    let existing = credentials_of(&client, authed.user.id).await?;
    if existing.len() as i64 >= state.config().passkey_max_per_user {
        return Err(coded(StatusCode::UNPROCESSABLE_ENTITY, "too_many_passkeys", "Maximum number of passkeys reached"));
    }
    let user = &authed.user;
    let name =
        if user.email_str().is_empty() { user.phone.clone().unwrap_or_default() } else { user.email_str().to_string() };
    let display = user.user_metadata.get("name").and_then(Value::as_str).filter(|n| !n.is_empty()).unwrap_or(&name);
    let exclude = existing.into_iter().map(|c| c.cred_id).collect();
    let (options, session_data) = state.webauthn().start_registration(user.id, &name, display, exclude, true)?;
    let (id, expires_at) = store_challenge(&state, &client, "registration", Some(user.id), &session_data).await?;
    Ok(HttpResponse::Ok().json(json!({ "challenge_id": id, "options": options, "expires_at": expires_at })))
}

/// `POST /passkeys/registration/verify`: the new passkey's metadata.
pub async fn registration_verify(
    state: web::Data<AuthState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let mut client = state.pool.get().await?;
    let authed = require_member(&state, &req, &client).await?;
    require_management_aal(&client, &authed).await?;
    let (challenge_id, response) = VerifyBody::parse(&body)?;
    let session_data = consume_challenge(&client, challenge_id, "registration", Some(authed.user.id)).await?;
    let credential = state.webauthn().finish_registration(&response, &session_data)?;
    let tx = client.transaction().await?;
    let count: i64 = tx
        .cached_query_one(
            "select count(*) from auth.webauthn_credentials where user_id = $1 \
             and pg_advisory_xact_lock(hashtext('passkeys:' || $1::text)) is not null",
            &[&authed.user.id],
        )
        .await?
        .get(0);
    if count >= state.config().passkey_max_per_user {
        return Err(coded(StatusCode::UNPROCESSABLE_ENTITY, "too_many_passkeys", "Maximum number of passkeys reached"));
    }
    let stored = serde_json::to_value(&credential).map_err(AuthError::internal)?;
    let inserted = tx
        .cached_query_opt(
            "insert into auth.webauthn_credentials (user_id, credential_id, credential, aaguid, sign_count, transports, \
             backup_eligible, backed_up, friendly_name) values ($1, $2, $3, $4, $5, $6, $7, $8, 'Passkey') \
             on conflict (credential_id) do nothing \
             returning id, friendly_name, created_at",
            &[
                &authed.user.id,
                &credential.cred_id.as_slice(),
                &stored,
                &webauthn::aaguid(&credential),
                &i64::from(credential.counter),
                &webauthn::transports(&credential),
                &credential.backup_eligible,
                &credential.backup_state,
            ],
        )
        .await?
        .ok_or_else(|| {
            coded(StatusCode::UNPROCESSABLE_ENTITY, "webauthn_credential_exists", "This credential is already registered")
        })?;
    let id: Uuid = inserted.get(0);
    audit::log(
        &tx,
        Some(authed.user.id),
        authed.user.email_str(),
        "passkey_created",
        json!({"passkey_id": id}),
        &client_ip(&state, &req),
    )
    .await;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(json!({
        "id": id,
        "friendly_name": inserted.get::<_, String>(1),
        "created_at": users::time(inserted.get(2)),
    })))
}

/// `POST /passkeys/authentication/options`: a discoverable ceremony, limited per IP.
pub async fn authentication_options(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    rate_limit::hit(
        &state.pool,
        &format!("passkey:{}", client_ip(&state, &req)),
        state.config().rate_limit_passkey,
        rate_limit::IP_WINDOW_SECS,
        AuthError::OverRequestRateLimit,
    )
    .await?;
    let client = state.pool.get().await?;
    // unanswered sign-in ceremonies do not pile up
    client
        .cached_execute(
            "delete from auth.webauthn_challenges where expires_at < now() - interval '1 hour' \
             and challenge_type = 'authentication' and random() < 0.05",
            &[],
        )
        .await?;
    let (options, session_data) = state.webauthn().start_authentication(vec![])?;
    let (id, expires_at) = store_challenge(&state, &client, "authentication", None, &session_data).await?;
    Ok(HttpResponse::Ok().json(json!({ "challenge_id": id, "options": options, "expires_at": expires_at })))
}

/// `POST /passkeys/authentication/verify`: a session for the passkey's user.
pub async fn authentication_verify(
    state: web::Data<AuthState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let (challenge_id, response) = VerifyBody::parse(&body)?;
    let mut client = state.pool.get().await?;
    let session_data = consume_challenge(&client, challenge_id, "authentication", None).await?;
    let assertion = webauthn::parse_assertion(&response)?;
    let user_id =
        webauthn::assertion_user(&assertion).ok_or_else(|| verification_failed("Credential verification failed"))?;
    let credentials = credentials_of(&client, user_id).await?;
    if credentials.is_empty() {
        return Err(verification_failed("Credential verification failed"));
    }
    let result = state.webauthn().finish_authentication(&assertion, &session_data, credentials.clone())?;
    let user =
        users::by_id(&client, user_id).await?.ok_or_else(|| verification_failed("Credential verification failed"))?;
    if !user.email_str().is_empty() && !user.is_confirmed() {
        return Err(AuthError::EmailNotConfirmed);
    }
    if user.phone.as_deref().is_some_and(|p| !p.is_empty()) && user.phone_confirmed_at.is_none() {
        return Err(coded(StatusCode::FORBIDDEN, "phone_not_confirmed", "Phone not confirmed"));
    }
    if user.is_banned() {
        return Err(AuthError::UserBanned);
    }
    let mut used = credentials
        .into_iter()
        .find(|c| c.cred_id == *result.cred_id())
        .ok_or_else(|| verification_failed("Credential verification failed"))?;
    if result.counter() > used.counter {
        used.counter = result.counter();
    }
    used.backup_state = result.backup_state();
    used.backup_eligible = result.backup_eligible();
    let stored = serde_json::to_value(&used).map_err(AuthError::internal)?;
    let tx = client.transaction().await?;
    let passkey_id: Uuid = tx
        .cached_query_one(
            "update auth.webauthn_credentials set credential = $2, sign_count = $3, backup_eligible = $4, backed_up = $5, \
             last_used_at = now(), updated_at = now() where credential_id = $1 returning id",
            &[&used.cred_id.as_slice(), &stored, &i64::from(used.counter), &used.backup_eligible, &used.backup_state],
        )
        .await?
        .get(0);
    let info = client_info(&state, &req);
    let ip = client_ip(&state, &req);
    let session =
        sessions::sign_in(&state, &tx, user, "passkey", &info, &ip, json!({"passkey_id": passkey_id})).await?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(session))
}

/// `GET /passkeys`: the caller's passkeys, oldest first.
pub async fn list(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let client = state.pool.get().await?;
    let authed = require_user(&state, &req, &client).await?;
    Ok(HttpResponse::Ok().json(list_of(&client, authed.user.id).await?))
}

async fn list_of(db: &impl crate::db::cached::Db, user_id: Uuid) -> Result<Value, AuthError> {
    let sql = format!(
        "select coalesce(json_agg({PASSKEY_JSON} order by c.created_at), '[]') from auth.webauthn_credentials c where c.user_id = $1"
    );
    Ok(db.cached_query_one(&sql, &[&user_id]).await?.get(0))
}

#[derive(Debug, Deserialize)]
struct RenameBody {
    friendly_name: Option<String>,
}

/// `PATCH /passkeys/{id}`: rename (at most 120 characters).
pub async fn rename(
    state: web::Data<AuthState>,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let client = state.pool.get().await?;
    let authed = require_user(&state, &req, &client).await?;
    let id = Uuid::parse_str(&path).map_err(|_| not_found())?;
    let p: RenameBody = json_body(&body)?;
    let name = p.friendly_name.unwrap_or_default();
    if name.is_empty() {
        return Err(AuthError::Validation("friendly_name is required".into()));
    }
    if name.chars().count() > 120 {
        return Err(AuthError::Validation("friendly_name must be 120 characters or less".into()));
    }
    let sql = format!(
        "update auth.webauthn_credentials c set friendly_name = $3, updated_at = now() \
         where c.id = $1 and c.user_id = $2 returning {PASSKEY_JSON}"
    );
    let renamed: Value =
        client.cached_query_opt(&sql, &[&id, &authed.user.id, &name]).await?.ok_or_else(not_found)?.get(0);
    audit::log(
        &client,
        Some(authed.user.id),
        authed.user.email_str(),
        "passkey_updated",
        json!({"passkey_id": id}),
        &client_ip(&state, &req),
    )
    .await;
    Ok(HttpResponse::Ok().json(renamed))
}

/// `DELETE /passkeys/{id}`: 204.
pub async fn delete(
    state: web::Data<AuthState>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    let client = state.pool.get().await?;
    let authed = require_user(&state, &req, &client).await?;
    require_management_aal(&client, &authed).await?;
    let id = Uuid::parse_str(&path).map_err(|_| not_found())?;
    let deleted = client
        .cached_execute("delete from auth.webauthn_credentials where id = $1 and user_id = $2", &[&id, &authed.user.id])
        .await?;
    if deleted == 0 {
        return Err(not_found());
    }
    audit::log(
        &client,
        Some(authed.user.id),
        authed.user.email_str(),
        "passkey_deleted",
        json!({"passkey_id": id}),
        &client_ip(&state, &req),
    )
    .await;
    Ok(HttpResponse::NoContent().finish())
}

/// `/passkeys/*` paths that are not an endpoint.
pub async fn unknown(state: web::Data<AuthState>) -> Result<HttpResponse, AuthError> {
    require_enabled(&state)?;
    Err(AuthError::NotFound("Not Found".into()))
}

fn admin_user_id(raw: &str) -> Result<Uuid, AuthError> {
    Uuid::parse_str(raw).map_err(|_| AuthError::NotFoundUser)
}

/// `GET /admin/users/{id}/passkeys`.
pub async fn admin_list(
    _: Admin,
    state: web::Data<AuthState>,
    path: web::Path<String>,
) -> Result<HttpResponse, AuthError> {
    let client = state.pool.get().await?;
    let user = users::by_id(&client, admin_user_id(&path)?).await?.ok_or(AuthError::NotFoundUser)?;
    Ok(HttpResponse::Ok().json(list_of(&client, user.id).await?))
}

/// `DELETE /admin/users/{id}/passkeys/{passkey}`: 204.
pub async fn admin_delete(
    _: Admin,
    state: web::Data<AuthState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, AuthError> {
    let client = state.pool.get().await?;
    let user = users::by_id(&client, admin_user_id(&path.0)?).await?.ok_or(AuthError::NotFoundUser)?;
    let id = Uuid::parse_str(&path.1).map_err(|_| not_found())?;
    let deleted = client
        .cached_execute("delete from auth.webauthn_credentials where id = $1 and user_id = $2", &[&id, &user.id])
        .await?;
    if deleted == 0 {
        return Err(not_found());
    }
    audit::log(
        &client,
        None,
        "service_role",
        "passkey_deleted",
        json!({"user_id": user.id, "passkey_id": id}),
        &client_ip(&state, &req),
    )
    .await;
    Ok(HttpResponse::NoContent().finish())
}
