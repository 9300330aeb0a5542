//! `/v1/projects/{ref}/secrets`: list (names and the SHA-256 of each value, never the value, as
//! the Supabase CLI's `secrets list` shows a digest), set (`[{name, value}]`, sealed before they
//! are stored), unset (`["NAME", …]`). The functions see the new values on their next worker.

use actix_web::{web, HttpRequest, HttpResponse};
use secrecy::SecretString;
use serde::Deserialize;
use serde_json::json;

use super::{authorize, client, read_body, refresh, ManageError, MAX_JSON_BYTES};
use crate::functions::store;
use crate::functions::FunctionsState;

/// `GET /secrets`: `[{name, value}]` where `value` is the digest.
pub async fn list(req: HttpRequest, state: web::Data<FunctionsState>) -> Result<HttpResponse, ManageError> {
    authorize(&req, &state)?;
    let secrets = store::list_secrets(&*client(&state).await?).await?;
    let listed: Vec<_> = secrets
        .iter()
        .map(|s| json!({ "name": s.name, "value": s.digest, "updated_at": s.updated_at.to_rfc3339() }))
        .collect();
    Ok(HttpResponse::Ok().json(listed))
}

#[derive(Deserialize)]
struct NewSecret {
    name: String,
    value: String,
}

/// `POST /secrets` with `[{name, value}, …]`: 201.
pub async fn set(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<FunctionsState>,
) -> Result<HttpResponse, ManageError> {
    authorize(&req, &state)?;
    let catalog = state.catalog.as_ref().ok_or(ManageError::Internal)?;
    let body = read_body(payload, MAX_JSON_BYTES).await?;
    // The error names the position only: serde's message could quote a value.
    let given: Vec<NewSecret> = serde_json::from_slice(&body).map_err(|e| {
        ManageError::BadRequest(format!(
            "expected [{{\"name\", \"value\"}}] (line {}, column {})",
            e.line(),
            e.column()
        ))
    })?;
    let secrets: Vec<(String, SecretString)> =
        given.into_iter().map(|s| (s.name, SecretString::from(s.value))).collect();
    let mut client = client(&state).await?;
    store::set_secrets(&mut client, catalog.sealer(), &secrets).await?;
    drop(client);
    tracing::info!(names = ?secrets.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), "functions: secrets set");
    refresh(&state).await?;
    Ok(HttpResponse::Created().finish())
}

/// `DELETE /secrets` with `["NAME", …]`: 200.
pub async fn unset(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<FunctionsState>,
) -> Result<HttpResponse, ManageError> {
    authorize(&req, &state)?;
    let body = read_body(payload, MAX_JSON_BYTES).await?;
    let names: Vec<String> =
        serde_json::from_slice(&body).map_err(|_| ManageError::BadRequest("expected [\"NAME\", …]".into()))?;
    let removed = store::unset_secrets(&*client(&state).await?, &names).await?;
    refresh(&state).await?;
    Ok(HttpResponse::Ok().json(json!({ "message": format!("Removed {removed} secret(s)") })))
}
