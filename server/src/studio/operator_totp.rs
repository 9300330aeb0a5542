//! An operator's second factor: TOTP (the auth surface's `auth::mfa`, RFC 6238 through
//! `totp-rs`). The operator enrols from Studio (a secret made here, shown once as text, an
//! `otpauth://` URI and a QR code; kept sealed in `_studio.operators.totp_secret`, pending until
//! a first code verifies), and from then on sign-in asks for a code after the password. A code
//! is accepted one step either side of now and only once (the step is remembered). The operator
//! removes it with a current code; `server studio operators reset-totp` clears it for an
//! operator who lost their device. Every change is audited; no secret is logged.

use actix_web::{web, HttpResponse};
use deadpool_postgres::GenericClient;
use serde::Deserialize;
use serde_json::json;
use subtle::ConstantTimeEq;
use uuid::Uuid;

use super::audit;
use super::error::StudioError;
use super::session::OperatorSession;
use crate::auth::mfa;
use crate::sealed::Sealer;
use crate::state::AppState;

/// The sealing purpose of operators' TOTP secrets.
const PURPOSE: &str = "studio-operator-totp-v1";

fn sealer(state: &AppState) -> Sealer {
    Sealer::new(&state.keys.jwt_secret, PURPOSE)
}

/// The step (`unix time / 30`) whose code `code` is, one step either side of `now`.
pub fn matching_step(secret_b32: &str, code: &str, now: i64) -> Option<i64> {
    let secret = mfa::base32_decode(secret_b32)?;
    let code = code.trim();
    if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) || now < mfa::STEP_SECS {
        return None;
    }
    let here = now / mfa::STEP_SECS;
    (here - 1..=here + 1).find(|step| {
        let expected = mfa::code_at(&secret, *step as u64, 6);
        bool::from(expected.as_bytes().ct_eq(code.as_bytes()))
    })
}

struct Stored {
    secret: String,
    enrolled: bool,
    last_step: Option<i64>,
}

async fn stored(db: &impl GenericClient, sealer: &Sealer, id: Uuid) -> Result<Option<Stored>, StudioError> {
    let row = db
        .query_opt(
            "select totp_secret, totp_enrolled_at is not null, totp_last_step from _studio.operators \
             where id = $1 and totp_secret is not null",
            &[&id],
        )
        .await?;
    let Some(row) = row else { return Ok(None) };
    let sealed: Vec<u8> = row.get(0);
    let opened = sealer.open(&id.to_string(), &sealed).map_err(StudioError::internal)?;
    let secret = String::from_utf8(opened).map_err(StudioError::internal)?;
    Ok(Some(Stored { secret, enrolled: row.get(1), last_step: row.get(2) }))
}

/// Check `code` against the stored secret and remember its step; `InvalidTotp` when it is wrong
/// or already used.
async fn accept(db: &impl GenericClient, id: Uuid, stored: &Stored, code: &str) -> Result<(), StudioError> {
    let step = matching_step(&stored.secret, code, chrono::Utc::now().timestamp()).ok_or(StudioError::InvalidTotp)?;
    if stored.last_step.is_some_and(|last| step <= last) {
        return Err(StudioError::InvalidTotp);
    }
    db.execute("update _studio.operators set totp_last_step = $2 where id = $1", &[&id, &step]).await?;
    Ok(())
}

/// At sign-in, after the password: nothing to do without an enrolled factor; else `code` must
/// be a fresh valid code (`TotpRequired` when absent).
pub async fn check_at_sign_in(
    state: &AppState,
    db: &impl GenericClient,
    id: Uuid,
    code: Option<&str>,
) -> Result<(), StudioError> {
    let Some(stored) = stored(db, &sealer(state), id).await? else { return Ok(()) };
    if !stored.enrolled {
        return Ok(());
    }
    let code = code.map(str::trim).filter(|c| !c.is_empty()).ok_or(StudioError::TotpRequired)?;
    accept(db, id, &stored, code).await
}

/// `GET /studio/api/operator/totp`: `{enrolled}`.
pub async fn status(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let enrolled = stored(&client, &sealer(&state), op.operator_id).await?.is_some_and(|s| s.enrolled);
    Ok(HttpResponse::Ok().json(json!({ "enrolled": enrolled })))
}

/// `POST /studio/api/operator/totp/enroll`: a new pending secret, answered once as
/// `{secret, uri, qr_code}` (an SVG). Refused while a verified one is in force.
pub async fn enroll(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let sealer = sealer(&state);
    if stored(&client, &sealer, op.operator_id).await?.is_some_and(|s| s.enrolled) {
        return Err(StudioError::BadRequest("TOTP is already on: remove it first".into()));
    }
    let secret = mfa::new_secret();
    let sealed = sealer.seal(&op.operator_id.to_string(), secret.as_bytes());
    client
        .execute(
            "update _studio.operators set totp_secret = $2, totp_enrolled_at = null, totp_last_step = null where id = $1",
            &[&op.operator_id, &sealed],
        )
        .await?;
    audit::record(&client, &op, "operator.totp.enroll", Some(&format!("operator:{}", op.email)), json!({})).await?;
    let uri = mfa::uri("Studio", &op.email, &secret);
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(json!({"secret": secret, "uri": uri, "qr_code": mfa::qr_svg(&uri)})))
}

#[derive(Deserialize)]
pub struct Code {
    code: String,
}

/// `POST /studio/api/operator/totp/verify` `{code}`: the pending secret is in force. 204.
pub async fn verify(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<Code>,
) -> Result<HttpResponse, StudioError> {
    let mut client = state.pools.admin.get().await?;
    let tx = client.transaction().await?;
    let stored = stored(&tx, &sealer(&state), op.operator_id)
        .await?
        .ok_or_else(|| StudioError::BadRequest("Start the enrolment first".into()))?;
    if stored.enrolled {
        return Err(StudioError::BadRequest("TOTP is already on".into()));
    }
    accept(&tx, op.operator_id, &stored, &body.code).await?;
    tx.execute("update _studio.operators set totp_enrolled_at = now() where id = $1", &[&op.operator_id]).await?;
    audit::record(&tx, &op, "operator.totp.verify", Some(&format!("operator:{}", op.email)), json!({})).await?;
    tx.commit().await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /studio/api/operator/totp/remove` `{code}`: with a current code, TOTP is off. 204.
pub async fn remove(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<Code>,
) -> Result<HttpResponse, StudioError> {
    let mut client = state.pools.admin.get().await?;
    let tx = client.transaction().await?;
    let stored = stored(&tx, &sealer(&state), op.operator_id).await?.filter(|s| s.enrolled);
    let Some(stored) = stored else { return Err(StudioError::BadRequest("TOTP is not on".into())) };
    accept(&tx, op.operator_id, &stored, &body.code).await?;
    clear(&tx, &op.email).await?;
    audit::record(&tx, &op, "operator.totp.remove", Some(&format!("operator:{}", op.email)), json!({})).await?;
    tx.commit().await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Clear an operator's TOTP (`server studio operators reset-totp`); whether they had one.
pub async fn clear(db: &impl GenericClient, email: &str) -> Result<bool, tokio_postgres::Error> {
    let n = db
        .execute(
            "update _studio.operators set totp_secret = null, totp_enrolled_at = null, totp_last_step = null \
             where lower(email) = lower($1) and totp_secret is not null",
            &[&email],
        )
        .await?;
    Ok(n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_matches_its_step_and_its_neighbours_only() {
        let secret = mfa::base32_encode(b"12345678901234567890");
        let now = 1_111_111_109;
        let step = now / 30;
        let code = mfa::code_at(b"12345678901234567890", step as u64, 6);
        assert_eq!(matching_step(&secret, &code, now), Some(step));
        assert_eq!(matching_step(&secret, &code, now + 30), Some(step));
        assert_eq!(matching_step(&secret, &code, now + 90), None);
        assert_eq!(matching_step(&secret, "12345", now), None);
        assert_eq!(matching_step(&secret, "abcdef", now), None);
    }
}
