//! Auth → Signing keys: the asymmetric keys that sign access tokens (`auth.signing_keys`, the
//! room of `signing_keys`): listed with their status (current, standby, previous, revoked), the
//! JWKS this instance publishes, a rotation (a new ES256 key is made when no standby key waits;
//! it becomes current and the current one previous, still verifying), and revoking a key that is
//! not current (tokens it signed stop verifying). The same operations as `server keys`; each
//! write has its audit row, and this instance reloads its keys at once (the others within their
//! reload interval, or at the first token naming a key they lack). Private halves never leave
//! the database.

use actix_web::{web, HttpResponse};
use serde_json::json;
use uuid::Uuid;

use super::audit;
use super::error::StudioError;
use super::session::OperatorSession;
use crate::signing_keys::{self, SigningKeyError};
use crate::state::AppState;

impl From<SigningKeyError> for StudioError {
    fn from(err: SigningKeyError) -> StudioError {
        match err {
            SigningKeyError::Refused(message) | SigningKeyError::BadKey(message) => StudioError::BadRequest(message),
            SigningKeyError::Db(cause) => StudioError::internal(cause),
        }
    }
}

/// The screen's name of a stored status.
pub fn status_label(status: &str) -> &str {
    match status {
        "in_use" => "current",
        "previously_used" => "previous",
        other => other,
    }
}

/// `GET /studio/api/auth/signing-keys`: `{keys: [{id, algorithm, status, created_at}], jwks}`.
pub async fn list(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let keys: Vec<_> = signing_keys::list(&client)
        .await?
        .into_iter()
        .rev()
        .map(|k| json!({"id": k.id, "algorithm": k.algorithm, "status": status_label(&k.status), "created_at": k.created_at}))
        .collect();
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(json!({"keys": keys, "jwks": state.auth.signing_keys.jwks()})))
}

async fn reloaded(state: &AppState) -> Result<(), StudioError> {
    state.auth.signing_keys.reload(&state.pools.admin).await.map_err(StudioError::from)
}

/// `POST /studio/api/auth/signing-keys/rotate`: the oldest standby key (a new ES256 one when
/// none waits) becomes current; `{id}` of the key now signing.
pub async fn rotate(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
) -> Result<HttpResponse, StudioError> {
    let mut client = state.pools.admin.get().await?;
    let waiting: bool =
        client.query_one("select exists (select 1 from auth.signing_keys where status = 'standby')", &[]).await?.get(0);
    let made = if waiting {
        None
    } else {
        let key = signing_keys::generate_es256()?;
        signing_keys::add_standby(&client, &key).await?;
        Some(key.id)
    };
    let id = signing_keys::rotate(&mut client).await?;
    audit::record(
        &client,
        &op,
        "auth.signing_keys.rotate",
        Some(&format!("auth.signing_keys:{id}")),
        json!({"generated": made.is_some()}),
    )
    .await?;
    drop(client);
    reloaded(&state).await?;
    Ok(HttpResponse::Ok().json(json!({ "id": id })))
}

/// `POST /studio/api/auth/signing-keys/{id}/revoke`: a standby or previous key is revoked (the
/// current one is refused: rotate first). 204.
pub async fn revoke(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    path: web::Path<String>,
) -> Result<HttpResponse, StudioError> {
    let id = Uuid::parse_str(&path).map_err(|_| StudioError::NotFound("No such signing key".into()))?;
    let mut client = state.pools.admin.get().await?;
    let tx = client.transaction().await?;
    signing_keys::revoke(&tx, id).await?;
    audit::record(&tx, &op, "auth.signing_keys.revoke", Some(&format!("auth.signing_keys:{id}")), json!({})).await?;
    tx.commit().await?;
    drop(client);
    reloaded(&state).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[cfg(test)]
mod tests {
    #[test]
    fn statuses_read_as_the_screen_names_them() {
        assert_eq!(super::status_label("in_use"), "current");
        assert_eq!(super::status_label("previously_used"), "previous");
        assert_eq!(super::status_label("standby"), "standby");
        assert_eq!(super::status_label("revoked"), "revoked");
    }
}
