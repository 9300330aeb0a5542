//! `/v1/projects/{ref}/functions[...]`: deploy (multipart metadata and files, as the Supabase
//! CLI's `functions deploy --use-api` sends them, or JSON with the source in `body`), list, get,
//! update the settings of, delete a function, and read its kept logs (a route of ours: Supabase
//! reads logs through its analytics API). An eszip body (`supabase functions deploy` without
//! `--use-api`: `POST /functions` or `PATCH /functions/{slug}` with
//! `Content-Type: application/vnd.denoland.eszip`, or a file part of `/functions/deploy` that is
//! one) is unpacked into source files by `functions::eszip` and deployed as they are.

use actix_multipart::Multipart;
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{authorize, client, read_body, refresh, ManageError, MAX_JSON_BYTES};
use crate::functions::eszip::{self, EszipError};
use crate::functions::store::{self, Deployed, MAX_BUNDLE_BYTES};
use crate::functions::FunctionsState;

/// The content type of the Supabase CLI's bundles (`pkg/function/batch.go`).
const ESZIP_CONTENT_TYPE: &str = "application/vnd.denoland.eszip";

impl From<EszipError> for ManageError {
    fn from(err: EszipError) -> ManageError {
        ManageError::BadRequest(format!("eszip: {err}"))
    }
}

/// A function as the Management API describes it.
fn describe(f: &Deployed) -> Value {
    json!({
        "id": f.id,
        "slug": f.slug,
        "name": f.name,
        "status": "ACTIVE",
        "version": f.version,
        "created_at": f.created_at.timestamp_millis(),
        "updated_at": f.updated_at.timestamp_millis(),
        "verify_jwt": f.verify_jwt,
        "import_map": f.import_map_path.is_some(),
        "entrypoint_path": f.entrypoint_path,
        "import_map_path": f.import_map_path,
        "ezbr_sha256": f.sha256,
    })
}

#[derive(Debug, Deserialize, Default)]
pub struct SlugQuery {
    slug: Option<String>,
    name: Option<String>,
    verify_jwt: Option<bool>,
    entrypoint_path: Option<String>,
    import_map_path: Option<String>,
}

/// The `metadata` part of a multipart deploy.
#[derive(Debug, Deserialize, Default)]
struct Metadata {
    name: Option<String>,
    entrypoint_path: Option<String>,
    import_map_path: Option<String>,
    verify_jwt: Option<bool>,
}

/// `POST /functions/deploy?slug=…`: multipart `metadata` (JSON) and `file` parts (the file name
/// is the path). Creates or replaces the function: 201 with its description.
pub async fn deploy(
    req: HttpRequest,
    payload: web::Payload,
    query: web::Query<SlugQuery>,
    state: web::Data<FunctionsState>,
) -> Result<HttpResponse, ManageError> {
    authorize(&req, &state)?;
    let mut form = Multipart::new(req.headers(), payload);
    let mut metadata = Metadata::default();
    let mut files = Vec::new();
    let mut total = 0usize;
    while let Some(field) = form.next().await {
        let mut field = field.map_err(|e| ManageError::BadRequest(format!("multipart: {e}")))?;
        let name = field.name().unwrap_or_default().to_string();
        let filename = field.content_disposition().and_then(|d| d.get_filename()).map(str::to_string);
        let mut content = Vec::new();
        while let Some(chunk) = field.next().await {
            let chunk = chunk.map_err(|e| ManageError::BadRequest(format!("multipart: {e}")))?;
            total += chunk.len();
            if total > MAX_BUNDLE_BYTES {
                return Err(ManageError::TooLarge(MAX_BUNDLE_BYTES));
            }
            content.extend_from_slice(&chunk);
        }
        match (name.as_str(), filename) {
            ("metadata", _) => {
                metadata = serde_json::from_slice(&content)
                    .map_err(|e| ManageError::BadRequest(format!("metadata is not valid: {e}")))?;
            }
            (_, Some(path)) => files.push((path, content)),
            (other, None) => return Err(ManageError::BadRequest(format!("the part {other:?} has no file name"))),
        }
    }
    let slug = query.slug.clone().or_else(|| metadata.name.clone()).ok_or_else(|| missing("slug"))?;
    let mut entrypoint_path = metadata.entrypoint_path.ok_or_else(|| missing("metadata.entrypoint_path"))?;
    let mut import_map_path = metadata.import_map_path;
    // A part that is a bundle brings its files; the other parts (a `deno.json`) stay beside them.
    if let Some(at) = files.iter().position(|(_, content)| eszip::looks_like_eszip(content)) {
        let (_, bundle) = files.remove(at);
        if files.iter().any(|(_, content)| eszip::looks_like_eszip(content)) {
            return Err(ManageError::BadRequest("send one eszip bundle per function".into()));
        }
        let hints = eszip::Hints { entrypoint: Some(entrypoint_path.as_str()), import_map: import_map_path.as_deref() };
        let unpacked = unpack(bundle, hints).await?;
        files.retain(|(path, _)| {
            !unpacked.files.iter().any(|(p, _)| store::relative_path(path).as_deref() == Some(p.as_str()))
        });
        files.extend(unpacked.files);
        entrypoint_path = unpacked.entrypoint_path;
        import_map_path = unpacked.import_map_path.or(import_map_path.filter(|p| !p.starts_with("file:")));
    }
    let deploy = store::Deploy {
        slug,
        name: metadata.name,
        entrypoint_path,
        import_map_path,
        verify_jwt: metadata.verify_jwt.unwrap_or(true),
        files,
    };
    store_deploy(&state, deploy).await
}

/// Unpack a bundle off the request's thread (decompressing and parsing take a while).
async fn unpack(bundle: Vec<u8>, hints: eszip::Hints<'_>) -> Result<eszip::Unpacked, ManageError> {
    let (entrypoint, import_map) = (hints.entrypoint.map(str::to_string), hints.import_map.map(str::to_string));
    let unpacked = web::block(move || {
        let hints = eszip::Hints { entrypoint: entrypoint.as_deref(), import_map: import_map.as_deref() };
        eszip::unpack(&bundle, &hints)
    })
    .await
    .map_err(|err| {
        tracing::error!(error = %err, "functions: unpacking an eszip failed");
        ManageError::Internal
    })??;
    if unpacked.npm_files_dropped > 0 {
        tracing::info!(
            files = unpacked.npm_files_dropped,
            "functions: an eszip's npm package files were dropped (Deno fetches npm: packages itself)"
        );
    }
    Ok(unpacked)
}

fn is_eszip(req: &HttpRequest) -> bool {
    let content_type = req.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default();
    content_type.starts_with(ESZIP_CONTENT_TYPE)
}

/// A deploy of an eszip body with the settings in the query (the Supabase CLI's create and
/// update calls); `slug` names the function.
async fn deploy_eszip(
    payload: web::Payload,
    slug: String,
    query: SlugQuery,
    state: &FunctionsState,
) -> Result<Deployed, ManageError> {
    let body = read_body(payload, MAX_BUNDLE_BYTES).await?;
    let hints =
        eszip::Hints { entrypoint: query.entrypoint_path.as_deref(), import_map: query.import_map_path.as_deref() };
    let unpacked = unpack(body.to_vec(), hints).await?;
    let deploy = store::Deploy {
        slug,
        name: query.name,
        entrypoint_path: unpacked.entrypoint_path,
        import_map_path: unpacked.import_map_path,
        verify_jwt: query.verify_jwt.unwrap_or(true),
        files: unpacked.files,
    };
    super::ops::deploy(state, deploy).await
}

/// `POST /functions?slug=…`: an eszip body (`Content-Type: application/vnd.denoland.eszip`,
/// the settings in the query, as the Supabase CLI creates a function), or JSON
/// `{slug, name, body, verify_jwt, entrypoint_path?}`: one source file (`index.ts` unless
/// `entrypoint_path` names it).
pub async fn create(
    req: HttpRequest,
    payload: web::Payload,
    query: web::Query<SlugQuery>,
    state: web::Data<FunctionsState>,
) -> Result<HttpResponse, ManageError> {
    authorize(&req, &state)?;
    if is_eszip(&req) {
        let query = query.into_inner();
        let slug = query.slug.clone().or_else(|| query.name.clone()).ok_or_else(|| missing("slug"))?;
        let deployed = deploy_eszip(payload, slug, query, &state).await?;
        return Ok(HttpResponse::Created().json(describe(&deployed)));
    }
    let content_type = req.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default();
    if !content_type.starts_with("application/json") {
        return Err(ManageError::Unsupported(format!(
            "send the source as JSON {{slug, body}}, an eszip bundle as {ESZIP_CONTENT_TYPE}, or multipart to /functions/deploy"
        )));
    }
    let body = read_body(payload, MAX_JSON_BYTES).await?;
    #[derive(Deserialize)]
    struct Create {
        slug: Option<String>,
        name: Option<String>,
        body: String,
        verify_jwt: Option<bool>,
        entrypoint_path: Option<String>,
    }
    let create: Create = serde_json::from_slice(&body).map_err(|e| ManageError::BadRequest(format!("body: {e}")))?;
    let query = query.into_inner();
    let slug = create.slug.or(query.slug).ok_or_else(|| missing("slug"))?;
    let entrypoint_path = create.entrypoint_path.or(query.entrypoint_path).unwrap_or_else(|| "index.ts".into());
    let deploy = store::Deploy {
        slug,
        name: create.name.or(query.name),
        files: vec![(entrypoint_path.clone(), create.body.into_bytes())],
        entrypoint_path,
        import_map_path: query.import_map_path,
        verify_jwt: create.verify_jwt.or(query.verify_jwt).unwrap_or(true),
    };
    store_deploy(&state, deploy).await
}

fn missing(what: &str) -> ManageError {
    ManageError::BadRequest(format!("{what} is required"))
}

async fn store_deploy(state: &FunctionsState, deploy: store::Deploy) -> Result<HttpResponse, ManageError> {
    let deployed = super::ops::deploy(state, deploy).await?;
    Ok(HttpResponse::Created().json(describe(&deployed)))
}

/// `PUT /functions`: the bulk update the Supabase CLI sends after deploying several functions
/// with `bundleOnly` (which this server deploys at once): the functions as they are.
pub async fn bulk_update(req: HttpRequest, state: web::Data<FunctionsState>) -> Result<HttpResponse, ManageError> {
    authorize(&req, &state)?;
    let functions = store::list(&*client(&state).await?).await?;
    Ok(HttpResponse::Ok().json(json!({ "functions": functions.iter().map(describe).collect::<Vec<_>>() })))
}

/// `GET /functions`: every deployed function.
pub async fn list(req: HttpRequest, state: web::Data<FunctionsState>) -> Result<HttpResponse, ManageError> {
    authorize(&req, &state)?;
    let functions = store::list(&*client(&state).await?).await?;
    Ok(HttpResponse::Ok().json(functions.iter().map(describe).collect::<Vec<_>>()))
}

/// `GET /functions/{slug}`.
pub async fn get(
    req: HttpRequest,
    path: web::Path<(String, String)>,
    state: web::Data<FunctionsState>,
) -> Result<HttpResponse, ManageError> {
    authorize(&req, &state)?;
    let function = store::get(&*client(&state).await?, &path.1).await?.ok_or(ManageError::NotFound)?;
    Ok(HttpResponse::Ok().json(describe(&function)))
}

/// `PATCH /functions/{slug}` with JSON `{name?, verify_jwt?}`, or with an eszip body and the
/// settings in the query (the Supabase CLI redeploying a function): a new version, 200.
pub async fn update(
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
    query: web::Query<SlugQuery>,
    state: web::Data<FunctionsState>,
) -> Result<HttpResponse, ManageError> {
    authorize(&req, &state)?;
    if is_eszip(&req) {
        let slug = path.into_inner().1;
        let deployed = deploy_eszip(payload, slug, query.into_inner(), &state).await?;
        return Ok(HttpResponse::Ok().json(describe(&deployed)));
    }
    #[derive(Deserialize)]
    struct Update {
        name: Option<String>,
        verify_jwt: Option<bool>,
    }
    let body = read_body(payload, MAX_JSON_BYTES).await?;
    let change: Update = serde_json::from_slice(&body).map_err(|e| ManageError::BadRequest(format!("body: {e}")))?;
    let client = client(&state).await?;
    let function = store::update(&client, &path.1, change.name.as_deref(), change.verify_jwt)
        .await?
        .ok_or(ManageError::NotFound)?;
    drop(client);
    refresh(&state).await?;
    Ok(HttpResponse::Ok().json(describe(&function)))
}

/// `DELETE /functions/{slug}`: 200, then the function is not found (a function of the same name
/// in the project folder is served again).
pub async fn delete(
    req: HttpRequest,
    path: web::Path<(String, String)>,
    state: web::Data<FunctionsState>,
) -> Result<HttpResponse, ManageError> {
    authorize(&req, &state)?;
    let client = client(&state).await?;
    if !store::delete(&client, &path.1).await? {
        return Err(ManageError::NotFound);
    }
    drop(client);
    tracing::info!(function = %path.1, "functions: deleted");
    refresh(&state).await?;
    Ok(HttpResponse::Ok().json(json!({ "message": format!("Deleted function {}", path.1) })))
}

#[derive(Debug, Deserialize)]
pub struct LogsQuery {
    limit: Option<i64>,
}

/// `GET /functions/{slug}/logs?limit=N`: the latest lines it printed (100 by default, oldest first).
pub async fn logs(
    req: HttpRequest,
    path: web::Path<(String, String)>,
    query: web::Query<LogsQuery>,
    state: web::Data<FunctionsState>,
) -> Result<HttpResponse, ManageError> {
    authorize(&req, &state)?;
    let limit = query.limit.unwrap_or(100).clamp(1, store::LOGS_KEPT);
    let lines = store::logs(&*client(&state).await?, &path.1, limit).await?;
    Ok(HttpResponse::Ok().json(lines))
}
