//! The storage screen's backend: the storage surface's own gated routes (`storage::gated`),
//! mounted again under `/studio/api/storage/` for signed-in operators, and the S3 access keys.
//!
//! Nothing is re-implemented: buckets, listing, uploads (one request or resumable TUS), downloads,
//! image transformations, move, copy, delete and signed URLs are storage's handlers, called with
//! the service role as their caller, which [`as_service_role`] sets after the operator's session
//! and CSRF check (`session::require_operator`) passed. No key is involved: the browser holds its
//! session cookie only, and the signed URLs it asks for are storage's short-lived object tokens.
//! Those routes answer in the storage surface's own shape (`{statusCode, error, message}`),
//! as storage-js would see them; the S3 key routes answer in the studio's.
//!
//! Every write is audited: the storage routes after storage answered (storage commits its own
//! transactions), with the method, the path under the mount and the status; a resumable upload's
//! chunks (`PATCH`) are not, its creation is. The S3 keys are written with their audit row in
//! one transaction; a new key's secret is in the creation's answer only.

use std::sync::Arc;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};

use super::audit;
use super::error::StudioError;
use super::session::OperatorSession;
use crate::db::context::Caller;
use crate::state::AppState;

/// Where the storage routes are mounted for the dashboard (one of `storage::key::MOUNTS`).
pub const MOUNT: &str = "/studio/api/storage";

/// The audit action of a storage write, or `None` for a read or a resumable upload's chunk.
pub fn action_of(method: &Method, tail: &str) -> Option<String> {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return None;
    }
    if *method == Method::PATCH && tail.starts_with("/upload/resumable/") {
        return None;
    }
    Some(format!("storage.{}", method.as_str().to_lowercase()))
}

/// Middleware behind `require_operator`: the request goes to storage's handler as the service
/// role (claims `{"role": "service_role"}`, no subject), and a write is audited once answered.
pub async fn as_service_role(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let op = req.extensions().get::<OperatorSession>().cloned().ok_or(StudioError::Unauthenticated)?;
    let state = req.app_data::<web::Data<AppState>>().cloned().ok_or_else(|| StudioError::internal("no app state"))?;
    let caller = Caller { role: "service_role".into(), claims: Arc::new(json!({"role": "service_role"})) };
    req.extensions_mut().insert(caller);
    let tail = req.path().strip_prefix(MOUNT).unwrap_or_default().to_string();
    let action = action_of(req.method(), &tail);
    let res = next.call(req).await?;
    if let Some(action) = action {
        let status = res.status().as_u16();
        let client = state.pools.admin.get().await.map_err(StudioError::from)?;
        let detail = json!({"status": status, "ok": status < 400});
        audit::record(&client, &op, &action, Some(&tail), detail).await.map_err(StudioError::from)?;
    }
    Ok(res)
}

/// The service's routes for `configure`: storage's gated routes, as the service role.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/storage").wrap(actix_web::middleware::from_fn(as_service_role)).configure(crate::storage::gated),
    );
}

/// `GET /studio/api/s3-keys`: `{keys: [{id, description, created_at}]}` (never a secret).
pub async fn list_keys(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let keys = crate::storage::s3::list_credentials(&client).await.map_err(StudioError::internal)?;
    let keys: Vec<Value> = keys
        .into_iter()
        .map(|(id, description, at)| json!({"id": id, "description": description, "created_at": at}))
        .collect();
    Ok(HttpResponse::Ok().insert_header(("Cache-Control", "no-store")).json(json!({ "keys": keys })))
}

#[derive(Deserialize)]
pub struct NewKey {
    #[serde(default)]
    description: String,
}

/// `POST /studio/api/s3-keys` `{description}`: `{id, secret}`; the secret is shown this once.
pub async fn create_key(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<NewKey>,
) -> Result<HttpResponse, StudioError> {
    let description = body.description.trim();
    if description.chars().count() > 200 {
        return Err(StudioError::BadRequest("A description has at most 200 characters".into()));
    }
    let mut client = state.pools.admin.get().await?;
    let tx = client.transaction().await?;
    let (id, secret) = crate::storage::s3::new_credentials(&tx, description).await.map_err(StudioError::internal)?;
    audit::record(&tx, &op, "s3_key.create", Some(&id), json!({"description": description})).await?;
    tx.commit().await?;
    Ok(HttpResponse::Created().insert_header(("Cache-Control", "no-store")).json(json!({"id": id, "secret": secret})))
}

/// `DELETE /studio/api/s3-keys/{id}`: 204, or 404 when no such key.
pub async fn revoke_key(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    id: web::Path<String>,
) -> Result<HttpResponse, StudioError> {
    let mut client = state.pools.admin.get().await?;
    let tx = client.transaction().await?;
    if !crate::storage::s3::revoke_credentials(&tx, &id).await.map_err(StudioError::internal)? {
        return Err(StudioError::NotFound("No such S3 access key".into()));
    }
    audit::record(&tx, &op, "s3_key.revoke", Some(&id), json!({})).await?;
    tx.commit().await?;
    Ok(HttpResponse::NoContent().finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_audited_but_reads_and_upload_chunks_are_not() {
        assert_eq!(action_of(&Method::POST, "/bucket"), Some("storage.post".into()));
        assert_eq!(action_of(&Method::DELETE, "/object/b/a.png"), Some("storage.delete".into()));
        assert_eq!(action_of(&Method::PUT, "/bucket/b"), Some("storage.put".into()));
        assert_eq!(action_of(&Method::GET, "/bucket"), None);
        assert_eq!(action_of(&Method::HEAD, "/upload/resumable/x"), None);
        assert_eq!(action_of(&Method::PATCH, "/upload/resumable/x"), None);
    }

    #[test]
    fn the_mount_is_one_storage_knows() {
        assert!(crate::storage::key::MOUNTS.contains(&MOUNT));
    }
}
