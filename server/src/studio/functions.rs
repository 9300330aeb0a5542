//! The functions screen's backend: the functions (deployed ones, from the database, and the
//! project folder's, read-only here), a deployed function's files, deploy and delete through the
//! functions room's management operations (`functions::manage::ops`, the code path of the
//! management API), the lines a function printed (`server functions logs`' source), and the
//! secrets (names listed, values write-only). Invocation is `function_invoke`. Every write is
//! audited after it succeeds; a secret's value is never logged, audited or sent back.

use actix_web::{web, HttpResponse};
use secrecy::SecretString;
use serde::Deserialize;
use serde_json::{json, Value};

use super::audit;
use super::error::StudioError;
use super::function_invoke::invocations;
use super::session::OperatorSession;
use crate::functions::manage::{ops, ManageError};
use crate::functions::store::{Deploy, Deployed};
use crate::state::AppState;

impl From<ManageError> for StudioError {
    fn from(err: ManageError) -> StudioError {
        match err {
            ManageError::NotFound => StudioError::NotFound("No such function".into()),
            ManageError::Internal => StudioError::Internal,
            other => StudioError::BadRequest(other.to_string()),
        }
    }
}

fn describe(f: &Deployed) -> Value {
    json!({
        "slug": f.slug, "name": f.name, "source": "deployed", "version": f.version,
        "verify_jwt": f.verify_jwt, "entrypoint_path": f.entrypoint_path, "sha256": f.sha256,
        "created_at": f.created_at, "updated_at": f.updated_at,
    })
}

/// The names of the project folder's functions (folders with an entry file, enabled).
fn folder_functions(state: &AppState) -> Vec<(String, bool)> {
    let registry = &state.functions.registry;
    let Some(dir) = registry.dir.as_deref() else { return Vec::new() };
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut names: Vec<(String, bool)> = entries
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter_map(|name| registry.find(&name).map(|f| (name, f.verify_jwt)))
        .collect();
    names.sort();
    names
}

/// `GET /studio/api/functions`: `{runtime, metrics, functions: [{slug, name, source, version,
/// verify_jwt, updated_at, overrides_folder, invocations: {total, errors} | null}]}`.
pub async fn list(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let deployed = ops::list(&state.functions).await?;
    let folder = folder_functions(&state);
    let counts = crate::metrics::render().map(|text| invocations(&text));
    let count_of = |slug: &str| match &counts {
        Some(counts) => json!(counts
            .get(slug)
            .map(|(t, e)| json!({"total": t, "errors": e}))
            .unwrap_or(json!({"total": 0, "errors": 0}))),
        None => Value::Null,
    };
    let mut functions: Vec<Value> = deployed
        .iter()
        .map(|f| {
            let mut d = describe(f);
            d["overrides_folder"] = json!(folder.iter().any(|(n, _)| n == &f.slug));
            d["invocations"] = count_of(&f.slug);
            d
        })
        .collect();
    for (name, verify_jwt) in folder.iter().filter(|(n, _)| !deployed.iter().any(|f| &f.slug == n)) {
        functions.push(json!({
            "slug": name, "name": name, "source": "folder", "version": null, "verify_jwt": verify_jwt,
            "updated_at": null, "overrides_folder": false, "invocations": count_of(name),
        }));
    }
    functions.sort_by(|a, b| a["slug"].as_str().cmp(&b["slug"].as_str()));
    Ok(HttpResponse::Ok().json(json!({
        "runtime": state.functions.health_word(),
        "metrics": counts.is_some(),
        "functions": functions,
    })))
}

/// `GET /studio/api/functions/{slug}`: `{function, files: [{path, content}]}` (text files; a
/// file that is not UTF-8 comes with `binary: true` and no content).
pub async fn get(state: web::Data<AppState>, slug: web::Path<String>) -> Result<HttpResponse, StudioError> {
    let (function, files) = ops::get_with_files(&state.functions, &slug)
        .await?
        .ok_or_else(|| StudioError::NotFound("No such function".into()))?;
    let files: Vec<Value> = files
        .into_iter()
        .map(|(path, content)| match String::from_utf8(content) {
            Ok(text) => json!({"path": path, "content": text}),
            Err(_) => json!({"path": path, "content": null, "binary": true}),
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "function": describe(&function), "files": files })))
}

#[derive(Deserialize)]
pub struct File {
    path: String,
    content: String,
}

#[derive(Deserialize)]
pub struct DeployBody {
    name: Option<String>,
    #[serde(default = "yes")]
    verify_jwt: bool,
    entrypoint_path: String,
    files: Vec<File>,
}

fn yes() -> bool {
    true
}

/// `POST /studio/api/functions/{slug}/deploy` `{name?, verify_jwt, entrypoint_path, files}`:
/// `{function}` (a new version; the store checks names, paths and sizes).
pub async fn deploy(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    slug: web::Path<String>,
    body: web::Json<DeployBody>,
) -> Result<HttpResponse, StudioError> {
    let body = body.into_inner();
    if !body.files.iter().any(|f| f.path == body.entrypoint_path) {
        return Err(StudioError::BadRequest(format!("The entry file {} is not among the files", body.entrypoint_path)));
    }
    let deploy = Deploy {
        slug: slug.into_inner(),
        name: body.name,
        entrypoint_path: body.entrypoint_path,
        import_map_path: None,
        verify_jwt: body.verify_jwt,
        files: body.files.into_iter().map(|f| (f.path, f.content.into_bytes())).collect(),
    };
    let files = deploy.files.len();
    let deployed = ops::deploy(&state.functions, deploy).await?;
    let detail = json!({"version": deployed.version, "sha256": deployed.sha256, "files": files, "verify_jwt": deployed.verify_jwt});
    let client = state.pools.admin.get().await?;
    audit::record(&client, &op, "function.deploy", Some(&deployed.slug), detail).await?;
    Ok(HttpResponse::Ok().json(json!({ "function": describe(&deployed) })))
}

/// `DELETE /studio/api/functions/{slug}`: 204 (404 when none is deployed under that name).
pub async fn delete(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    slug: web::Path<String>,
) -> Result<HttpResponse, StudioError> {
    if !ops::delete(&state.functions, &slug).await? {
        return Err(StudioError::NotFound("No such deployed function".into()));
    }
    let client = state.pools.admin.get().await?;
    audit::record(&client, &op, "function.delete", Some(&slug), json!({})).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Deserialize)]
pub struct LogsQuery {
    limit: Option<i64>,
}

/// `GET /studio/api/functions/{slug}/logs?limit=`: `{lines: [{level, message, request_id,
/// execution_id, timestamp}]}`, the latest (200 by default), oldest first.
pub async fn logs(
    state: web::Data<AppState>,
    slug: web::Path<String>,
    q: web::Query<LogsQuery>,
) -> Result<HttpResponse, StudioError> {
    let lines = ops::logs(&state.functions, &slug, q.limit.unwrap_or(200)).await?;
    Ok(HttpResponse::Ok().json(json!({ "lines": lines })))
}

/// `GET /studio/api/functions-secrets`: `{secrets: [{name, updated_at}]}` (no value, no digest).
pub async fn list_secrets(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let secrets = ops::list_secrets(&state.functions).await?;
    let secrets: Vec<Value> = secrets.iter().map(|s| json!({"name": s.name, "updated_at": s.updated_at})).collect();
    Ok(HttpResponse::Ok().json(json!({ "secrets": secrets })))
}

#[derive(Deserialize)]
pub struct SecretBody {
    name: String,
    value: String,
}

/// `POST /studio/api/functions-secrets` `{name, value}`: 204; the functions read it from their
/// next worker.
pub async fn set_secret(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<SecretBody>,
) -> Result<HttpResponse, StudioError> {
    let SecretBody { name, value } = body.into_inner();
    let name = name.trim().to_string();
    ops::set_secrets(&state.functions, &[(name.clone(), SecretString::from(value))]).await?;
    let client = state.pools.admin.get().await?;
    audit::record(&client, &op, "function_secret.set", Some(&name), json!({})).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `DELETE /studio/api/functions-secrets/{name}`: 204 (404 when there is none of that name).
pub async fn unset_secret(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    name: web::Path<String>,
) -> Result<HttpResponse, StudioError> {
    if ops::unset_secrets(&state.functions, std::slice::from_ref(&name)).await? == 0 {
        return Err(StudioError::NotFound("No such secret".into()));
    }
    let client = state.pools.admin.get().await?;
    audit::record(&client, &op, "function_secret.unset", Some(&name), json!({})).await?;
    Ok(HttpResponse::NoContent().finish())
}
