//! MFA with TOTP or a phone: `POST /factors` (enrol), `POST /factors/{id}/challenge` (a phone
//! factor gets its code by SMS), `POST /factors/{id}/verify` (the session becomes `aal2` and new
//! tokens are issued) and `DELETE /factors/{id}` (a verified factor needs an `aal2` session to be
//! removed). A user has at most `MFA_MAX_ENROLLED_FACTORS` factors. TOTP factors follow
//! `MFA_TOTP_ENROLL_ENABLED` / `MFA_TOTP_VERIFY_ENABLED` (both on by default), phone factors
//! `MFA_PHONE_ENROLL_ENABLED` / `MFA_PHONE_VERIFY_ENABLED`,
//! WebAuthn factors `MFA_WEB_AUTHN_ENROLL_ENABLED` / `MFA_WEB_AUTHN_VERIFY_ENABLED`: the first
//! challenge of a WebAuthn factor is a registration ceremony (`webauthn.type = 'create'`), the
//! later ones assertions (`'request'`) signed by the key registered then.

use crate::db::cached::CachedQueries;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::auth::error::AuthError;
use crate::auth::request::{client_info, client_ip, json_body, require_user, Authed};
use crate::auth::sessions::{self, Issued};
use crate::auth::{audit, mfa, rate_limit, tokens, users, webauthn, AuthState};

/// Seconds a challenge stays answerable (GoTrue's default).
const CHALLENGE_EXPIRY_SECS: i64 = 300;

/// The user of the Bearer token, refused as GoTrue refuses it on every `/factors` route when the
/// session is anonymous (403 `no_authorization`).
async fn require_permanent_user(
    state: &AuthState,
    req: &HttpRequest,
    db: &impl crate::db::cached::Db,
) -> Result<Authed, AuthError> {
    let authed = require_user(state, req, db).await?;
    if authed.claims.get("is_anonymous").and_then(serde_json::Value::as_bool) == Some(true) {
        return Err(AuthError::Coded(
            actix_web::http::StatusCode::FORBIDDEN,
            "no_authorization",
            "Anonymous user not allowed to perform these actions".into(),
        ));
    }
    Ok(authed)
}

#[derive(Debug, Deserialize)]
struct EnrollBody {
    factor_type: Option<String>,
    friendly_name: Option<String>,
    issuer: Option<String>,
    phone: Option<String>,
}

/// Seconds between two codes texted for one phone factor (GoTrue's `MFA_PHONE_MAX_FREQUENCY`).
const PHONE_CHALLENGE_SPACING_SECS: f64 = 5.0;

/// One of the caller's factors.
struct Factor {
    status: String,
    secret: String,
    kind: String,
    phone: String,
    /// The key of a verified WebAuthn factor.
    webauthn: Option<Value>,
}

fn sha256_hex(text: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(text.as_bytes()))
}

fn factor_id(path: &str) -> Result<Uuid, AuthError> {
    Uuid::parse_str(path).map_err(|_| AuthError::MfaFactorNotFound)
}

/// The factor `id` of the caller.
async fn own_factor(db: &impl crate::db::cached::Db, authed: &Authed, id: Uuid) -> Result<Factor, AuthError> {
    let row = db
        .cached_query_opt(
            "select status::text, coalesce(secret, ''), factor_type::text, coalesce(phone, ''), web_authn_credential \
             from auth.mfa_factors where id = $1 and user_id = $2",
            &[&id, &authed.user.id],
        )
        .await?
        .ok_or(AuthError::MfaFactorNotFound)?;
    Ok(Factor { status: row.get(0), secret: row.get(1), kind: row.get(2), phone: row.get(3), webauthn: row.get(4) })
}

fn phone_disabled(what: &str, code: &'static str) -> AuthError {
    AuthError::Coded(
        actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
        code,
        format!("MFA {what} is disabled for Phone"),
    )
}

fn totp_disabled(what: &str, code: &'static str) -> AuthError {
    AuthError::Coded(
        actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
        code,
        format!("MFA {what} is disabled for TOTP"),
    )
}

fn webauthn_disabled(what: &str, code: &'static str) -> AuthError {
    AuthError::Coded(
        actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
        code,
        format!("MFA {what} is disabled for WebAuthn"),
    )
}

/// A friendly name no other factor of the user has (an empty name never conflicts).
async fn check_name_free(db: &impl crate::db::cached::Db, user_id: Uuid, friendly: &str) -> Result<(), AuthError> {
    if friendly.trim().is_empty() {
        return Ok(());
    }
    let taken = db
        .cached_query_opt(
            "select 1 from auth.mfa_factors where user_id = $1 and friendly_name = $2",
            &[&user_id, &friendly],
        )
        .await?;
    match taken {
        Some(_) => Err(AuthError::MfaNameConflict(friendly.to_string())),
        None => Ok(()),
    }
}

/// `mfa.enroll({factorType: 'webauthn'})`: an unverified factor, whose first challenge
/// registers the key.
/// A factor being enrolled, with what it keeps from the start.
enum NewFactor<'a> {
    WebAuthn,
    Phone(&'a str),
    Totp(&'a str),
}

/// Records an unverified factor of the user and audits it (`factor_in_progress`, as GoTrue);
/// returns its id.
async fn new_factor(
    db: &impl crate::db::cached::Db,
    state: &AuthState,
    req: &HttpRequest,
    authed: &Authed,
    friendly: &str,
    factor: NewFactor<'_>,
) -> Result<Uuid, AuthError> {
    let (kind, phone, secret) = match factor {
        NewFactor::WebAuthn => ("webauthn", None, None),
        NewFactor::Phone(phone) => ("phone", Some(phone), None),
        NewFactor::Totp(secret) => ("totp", None, Some(secret)),
    };
    // GoTrue first drops the user's unverified factors older than its factor expiry (300 s),
    // then counts what is left against `MFA_MAX_ENROLLED_FACTORS`.
    let count: i64 = db
        .cached_query_one(
            "with expired as (delete from auth.mfa_factors where user_id = $1 and status = 'unverified' \
               and created_at < now() - interval '300 seconds' returning id) \
             select count(*) from auth.mfa_factors where user_id = $1 and id not in (select id from expired)",
            &[&authed.user.id],
        )
        .await?
        .get(0);
    if count >= state.config().mfa_max_enrolled_factors {
        return Err(AuthError::Coded(
            actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
            "too_many_enrolled_mfa_factors",
            "Maximum number of verified factors reached, unenroll to continue".into(),
        ));
    }
    let id = Uuid::new_v4();
    db.cached_execute(
        "insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, phone, \
         secret) values ($1, $2, $3, $4::text::auth.factor_type, 'unverified', now(), now(), $5, $6)",
        &[&id, &authed.user.id, &friendly, &kind, &phone, &secret],
    )
    .await?;
    audit::log(
        db,
        Some(authed.user.id),
        authed.user.email_str(),
        "factor_in_progress",
        json!({"factor_id": id}),
        &client_ip(state, req),
    )
    .await;
    Ok(id)
}

async fn enroll_webauthn(state: &AuthState, req: &HttpRequest, p: EnrollBody) -> Result<HttpResponse, AuthError> {
    if !state.config().mfa_webauthn_enroll_enabled {
        return Err(webauthn_disabled("enroll", "mfa_webauthn_enroll_not_enabled"));
    }
    let client = state.pool.get().await?;
    let authed = require_permanent_user(state, req, &client).await?;
    let friendly = p.friendly_name.unwrap_or_default();
    check_name_free(&client, authed.user.id, &friendly).await?;
    let id = new_factor(&client, state, req, &authed, &friendly, NewFactor::WebAuthn).await?;
    Ok(HttpResponse::Ok().json(json!({ "id": id, "type": "webauthn", "friendly_name": friendly })))
}

/// The WebAuthn ceremony of a challenge: registration for an unverified factor (other verified
/// keys of the user excluded), an assertion by the factor's key otherwise. Answers the
/// `webauthn` member of the challenge and the state to keep.
async fn webauthn_ceremony(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    authed: &Authed,
    factor: &Factor,
) -> Result<(Value, Value), AuthError> {
    if !state.config().mfa_webauthn_verify_enabled {
        return Err(webauthn_disabled("verification", "mfa_webauthn_verify_not_enabled"));
    }
    match &factor.webauthn {
        Some(stored) if factor.status == "verified" => {
            let (options, session) = state.webauthn().start_authentication(vec![webauthn::stored(stored.clone())?])?;
            Ok((json!({"type": "request", "credential_options": {"publicKey": options}}), session))
        }
        _ => {
            let rows = db
                .cached_query(
                    "select web_authn_credential from auth.mfa_factors where user_id = $1 and factor_type = 'webauthn' \
                     and status = 'verified' and web_authn_credential is not null",
                    &[&authed.user.id],
                )
                .await?;
            let exclude = rows
                .into_iter()
                .map(|r| webauthn::stored(r.get(0)).map(|c| c.cred_id))
                .collect::<Result<Vec<_>, _>>()?;
            let user = &authed.user;
            let name = if user.email_str().is_empty() {
                user.phone.clone().unwrap_or_default()
            } else {
                user.email_str().to_string()
            };
            let (options, session) = state.webauthn().start_registration(user.id, &name, &name, exclude, false)?;
            Ok((json!({"type": "create", "credential_options": {"publicKey": options}}), session))
        }
    }
}

#[derive(Debug, Deserialize)]
struct WebAuthnAnswer {
    #[serde(rename = "type")]
    kind: Option<String>,
    credential_response: Option<Value>,
}

/// Check a WebAuthn answer against the challenge's ceremony; answers the factor's key to store
/// (the registered key, or the key with its counter moved on).
fn check_webauthn_answer(
    state: &AuthState,
    factor: &Factor,
    answer: Option<WebAuthnAnswer>,
    session: Option<Value>,
) -> Result<Value, AuthError> {
    let answer = answer.ok_or_else(|| AuthError::Validation("WebAuthn config required".into()))?;
    let kind = answer.kind.unwrap_or_default();
    if kind != "create" && kind != "request" {
        return Err(AuthError::Validation("WebAuthn type must be create or request".into()));
    }
    let response = answer
        .credential_response
        .filter(|r| !r.is_null())
        .ok_or_else(|| AuthError::Validation("credential_response required".into()))?;
    let session = session.ok_or(AuthError::MfaChallengeNotFound)?;
    let credential = match (&factor.webauthn, factor.status.as_str()) {
        (Some(stored), "verified") => {
            if kind != "request" {
                return Err(AuthError::Validation("WebAuthn type must be request for a verified factor".into()));
            }
            let mut key = webauthn::stored(stored.clone())?;
            let assertion = webauthn::parse_assertion(&response)?;
            let result = state.webauthn().finish_authentication(&assertion, &session, vec![key.clone()])?;
            if result.counter() > key.counter {
                key.counter = result.counter();
            }
            key.backup_state = result.backup_state();
            key
        }
        _ => {
            if kind != "create" {
                return Err(AuthError::Validation("WebAuthn type must be create for an unverified factor".into()));
            }
            state.webauthn().finish_registration(&response, &session)?
        }
    };
    serde_json::to_value(&credential).map_err(AuthError::internal)
}

/// `mfa.enroll({factorType: 'phone', phone})`.
async fn enroll_phone(state: &AuthState, req: &HttpRequest, p: EnrollBody) -> Result<HttpResponse, AuthError> {
    if !state.config().mfa_phone_enroll_enabled {
        return Err(phone_disabled("enroll", "mfa_phone_enroll_not_enabled"));
    }
    let phone = crate::auth::sms::normalize_phone(p.phone.as_deref().unwrap_or_default())?;
    let client = state.pool.get().await?;
    let authed = require_permanent_user(state, req, &client).await?;
    let friendly = p.friendly_name.unwrap_or_default();
    let taken = client
        .cached_query_opt(
            "select friendly_name = $2 and trim($2) <> '', phone = $3 from auth.mfa_factors \
             where user_id = $1 and ((friendly_name = $2 and trim($2) <> '') or (factor_type = 'phone' and phone = $3)) limit 1",
            &[&authed.user.id, &friendly, &phone],
        )
        .await?;
    if let Some(row) = taken {
        if row.get::<_, Option<bool>>(0).unwrap_or(false) {
            return Err(AuthError::MfaNameConflict(friendly));
        }
        return Err(AuthError::Coded(
            actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
            "phone_exists",
            "A factor with the provided phone number already exists".into(),
        ));
    }
    let id = new_factor(&client, state, req, &authed, &friendly, NewFactor::Phone(&phone)).await?;
    Ok(HttpResponse::Ok().json(json!({ "id": id, "type": "phone", "friendly_name": friendly, "phone": phone })))
}

pub async fn enroll(
    state: web::Data<AuthState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let p: EnrollBody = json_body(&body)?;
    match p.factor_type.as_deref() {
        Some("phone") => return enroll_phone(&state, &req, p).await,
        Some("webauthn") => return enroll_webauthn(&state, &req, p).await,
        Some("totp") if !state.config().mfa_totp_enroll_enabled => {
            return Err(totp_disabled("enroll", "mfa_totp_enroll_not_enabled"))
        }
        Some("totp") => {}
        _ => return Err(AuthError::Validation("factor_type needs to be totp, phone, or webauthn".into())),
    }
    let client = state.pool.get().await?;
    let authed = require_permanent_user(&state, &req, &client).await?;
    let friendly = p.friendly_name.unwrap_or_default();
    check_name_free(&client, authed.user.id, &friendly).await?;
    let issuer = p.issuer.filter(|i| !i.is_empty()).unwrap_or_else(|| {
        url::Url::parse(&state.site_url).ok().and_then(|u| u.host_str().map(str::to_string)).unwrap_or_default()
    });
    let secret = mfa::new_secret();
    let id = new_factor(&client, &state, &req, &authed, &friendly, NewFactor::Totp(&secret)).await?;
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
    let client = state.pool.get().await?;
    let authed = require_permanent_user(&state, &req, &client).await?;
    let id = factor_id(&path)?;
    let factor = own_factor(&client, &authed, id).await?;
    if factor.kind == "totp" && !state.config().mfa_totp_verify_enabled {
        return Err(totp_disabled("verification", "mfa_totp_verify_not_enabled"));
    }
    let challenge_id = Uuid::new_v4();
    let ip = client_info(&state, &req).ip.unwrap_or_else(|| "0.0.0.0".into());
    let code = if factor.kind == "phone" {
        if !state.config().mfa_phone_verify_enabled {
            return Err(phone_disabled("verification", "mfa_phone_verify_not_enabled"));
        }
        let since: Option<f64> = client
            .cached_query_one(
                "select extract(epoch from clock_timestamp() - last_challenged_at)::float8 from auth.mfa_factors where id = $1",
                &[&id],
            )
            .await?
            .get(0);
        if let Some(wait) = since.map(|s| PHONE_CHALLENGE_SPACING_SECS - s).filter(|w| *w > 0.0) {
            return Err(AuthError::Coded(
                actix_web::http::StatusCode::TOO_MANY_REQUESTS,
                "over_sms_send_rate_limit",
                format!("For security purposes, you can only request this after {} seconds.", wait.ceil() as i64),
            ));
        }
        crate::auth::phone::limit_texts(&state, &factor.phone).await?;
        // A new code gets its own count of wrong guesses.
        rate_limit::clear(&state.pool, &failed_factor_key(id)).await?;
        Some(state.sms().test_code(&factor.phone).map(str::to_string).unwrap_or_else(|| tokens::otp(6)))
    } else {
        None
    };
    let ceremony = if factor.kind == "webauthn" {
        Some(webauthn_ceremony(&state, &client, &authed, &factor).await?)
    } else {
        None
    };
    client
        .cached_execute(
            "insert into auth.mfa_challenges (id, factor_id, created_at, ip_address, otp_code, web_authn_session_data) \
             values ($1, $2, now(), $3::text::inet, $4, $5)",
            &[
                &challenge_id,
                &id,
                &ip,
                &code.as_deref().map(|c| sha256_hex(&format!("{challenge_id}{c}"))),
                &ceremony.as_ref().map(|(_, session)| session),
            ],
        )
        .await?;
    if let Some(code) = &code {
        state.sms().send(&factor.phone, "mfa", code).await?;
    }
    client
        .cached_execute("update auth.mfa_factors set last_challenged_at = clock_timestamp() where id = $1", &[&id])
        .await?;
    let mut answer = json!({
        "id": challenge_id,
        "type": factor.kind,
        "expires_at": Utc::now().timestamp() + CHALLENGE_EXPIRY_SECS,
    });
    if let Some((webauthn, _)) = ceremony {
        answer["webauthn"] = webauthn;
    }
    Ok(HttpResponse::Ok().json(answer))
}

#[derive(Debug, Deserialize)]
struct VerifyBody {
    challenge_id: Option<String>,
    code: Option<String>,
    webauthn: Option<WebAuthnAnswer>,
}

pub async fn verify(
    state: web::Data<AuthState>,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let mut client = state.pool.get().await?;
    let authed = require_permanent_user(&state, &req, &client).await?;
    let id = factor_id(&path)?;
    let p: VerifyBody = json_body(&body)?;
    let challenge_id =
        p.challenge_id.as_deref().and_then(|c| Uuid::parse_str(c).ok()).ok_or(AuthError::MfaChallengeNotFound)?;
    let session_id = authed.session_id.ok_or(AuthError::SessionNotFound)?;
    let factor = own_factor(&client, &authed, id).await?;
    if factor.kind == "phone" && !state.config().mfa_phone_verify_enabled {
        return Err(phone_disabled("verification", "mfa_phone_verify_not_enabled"));
    }
    if factor.kind == "webauthn" && !state.config().mfa_webauthn_verify_enabled {
        return Err(webauthn_disabled("verification", "mfa_webauthn_verify_not_enabled"));
    }
    if factor.kind == "totp" && !state.config().mfa_totp_verify_enabled {
        return Err(totp_disabled("verification", "mfa_totp_verify_not_enabled"));
    }
    let ip = client_ip(&state, &req);
    let tx = client.transaction().await?;
    let db = &tx;
    let row = db
        .cached_query_opt(
            "select extract(epoch from now() - created_at)::float8, verified_at is not null, coalesce(otp_code, ''), \
             web_authn_session_data from auth.mfa_challenges where id = $1 and factor_id = $2 for update",
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
    let code = p.code.as_deref().unwrap_or_default().trim();
    if factor.kind == "phone" && crate::auth::phone::code_is_void(&state, &failed_factor_key(id)).await? {
        // The challenge's code is void after too many wrong guesses: a new challenge texts another.
        return Err(AuthError::MfaVerificationFailed);
    }
    let mut webauthn_key = None;
    let matches = match factor.kind.as_str() {
        "webauthn" => match check_webauthn_answer(&state, &factor, p.webauthn, row.get(3)) {
            Ok(key) => {
                webauthn_key = Some(key);
                true
            }
            Err(err @ AuthError::Validation(_)) => return Err(err),
            Err(err) => {
                // the ceremony is spent: a second answer to it is refused
                db.cached_execute("update auth.mfa_challenges set verified_at = now() where id = $1", &[&challenge_id])
                    .await?;
                tx.commit().await?;
                return Err(err);
            }
        },
        "phone" if state.sms().makes_codes(&factor.phone) => state.sms().check(&factor.phone, code).await?,
        "phone" => {
            let stored: String = row.get(2);
            !stored.is_empty() && sha256_hex(&format!("{challenge_id}{code}")) == stored
        }
        _ => mfa::verify(&factor.secret, code, Utc::now().timestamp()),
    };
    if factor.kind != "webauthn" {
        crate::auth::hooks::mfa_verification_attempt(&state, authed.user.id, id, &factor.kind, matches, &ip).await?;
    }
    if !matches {
        if factor.kind == "phone" {
            crate::auth::phone::count_wrong_code(&state, &failed_factor_key(id)).await?;
        }
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
    db.cached_execute(
        "update auth.mfa_factors set status = 'verified', updated_at = now(), \
         web_authn_credential = coalesce($2, web_authn_credential) where id = $1",
        &[&id, &webauthn_key],
    )
    .await?;
    db.cached_execute(
        "update auth.sessions set aal = 'aal2', factor_id = $2, updated_at = now() where id = $1",
        &[&session_id, &id],
    )
    .await?;
    db.cached_execute(
        "insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id) \
         values ($1, now(), now(), $3, $2) \
         on conflict (session_id, authentication_method) do update set updated_at = now()",
        &[&session_id, &Uuid::new_v4(), &amr_method(&factor.kind)],
    )
    .await?;
    let refresh_token = sessions::reissue(db, authed.user.id, session_id).await?;
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

/// The `amr` method a verified factor adds to the session, as GoTrue names it.
fn amr_method(kind: &str) -> &str {
    match kind {
        "webauthn" => "mfa/webauthn",
        other => other,
    }
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
    let client = state.pool.get().await?;
    let authed = require_permanent_user(&state, &req, &client).await?;
    let id = factor_id(&path)?;
    let status = own_factor(&client, &authed, id).await?.status;
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

/// Where wrong codes of a phone factor's challenges are counted (`SMS_MAX_FAILED_VERIFICATIONS`).
fn failed_factor_key(factor: Uuid) -> String {
    format!("failed-code:mfa:{factor}")
}
