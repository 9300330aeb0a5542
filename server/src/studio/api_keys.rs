//! The API & keys screen's backend: the API's URL and its publishable keys (public by design:
//! every browser app of the project holds them), the secret keys revealed only on an explicit,
//! audited, CSRF-checked request, and the generated TypeScript types — the text
//! `server gen types typescript` prints for the same database (`project::typegen`), with the same
//! `schema` choice and default.

use actix_web::{web, HttpRequest, HttpResponse};
use secrecy::ExposeSecret;
use serde::Deserialize;
use serde_json::json;

use super::audit;
use super::error::StudioError;
use super::session::OperatorSession;
use crate::project::typegen;
use crate::state::AppState;

/// `GET /studio/api/project/api`: `{url, publishable_key, anon_key}`; no secret.
pub async fn settings(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    Ok(HttpResponse::Ok().insert_header(("Cache-Control", "no-store")).json(json!({
        "url": state.external_url.trim_end_matches('/'),
        "publishable_key": state.keys.api_keys.publishable.expose_secret(),
        "anon_key": state.keys.anon_key.expose_secret(),
    })))
}

/// Which secret key an operator asks to see.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SecretKey {
    /// `sb_secret_…`
    Secret,
    /// The legacy `service_role` JWT.
    ServiceRole,
}

#[derive(Deserialize)]
pub struct Reveal {
    key: SecretKey,
}

/// `POST /studio/api/project/api/reveal` `{key: secret|service_role}`: `{key}`, the one secret
/// the dashboard ever receives, and only this way; the reveal is audited (not the key).
pub async fn reveal(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<Reveal>,
) -> Result<HttpResponse, StudioError> {
    let (name, key) = match body.key {
        SecretKey::Secret => ("secret", state.keys.api_keys.secret.expose_secret()),
        SecretKey::ServiceRole => ("service_role", state.keys.service_role_key.expose_secret()),
    };
    let client = state.pools.admin.get().await?;
    audit::record(&client, &op, "keys.reveal", Some(name), json!({})).await?;
    Ok(HttpResponse::Ok().insert_header(("Cache-Control", "no-store")).json(json!({ "key": key })))
}

/// The schemas of a `?schema=a&schema=b,c` query, else the CLI's default (`public` and the API's
/// schemas).
pub fn schemas_of(query: &str, api_schemas: &[String]) -> Vec<String> {
    let given: Vec<String> = url::form_urlencoded::parse(query.as_bytes())
        .filter(|(k, _)| k == "schema")
        .map(|(_, v)| v.into_owned())
        .collect();
    match typegen::parse_schemas(&given) {
        schemas if schemas.is_empty() => typegen::default_schemas(api_schemas),
        schemas => schemas,
    }
}

/// `GET /studio/api/types?schema=…`: the TypeScript types, as `text/plain`.
pub async fn types(state: web::Data<AppState>, req: HttpRequest) -> Result<HttpResponse, StudioError> {
    let schemas = schemas_of(req.query_string(), &state.config.rest.schemas);
    let options = typegen::Options { detect_one_to_one: true, postgrest_version: None };
    let client = state.pools.admin.get().await?;
    let text = typegen::typescript(&client, &schemas, &options).await?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        .body(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_the_cli_default_unless_given() {
        let api = vec!["api".to_string(), "public".to_string()];
        assert_eq!(schemas_of("", &api), vec!["public", "api"]);
        assert_eq!(schemas_of("schema=a&schema=b,c&other=x", &api), vec!["a", "b", "c"]);
        assert_eq!(schemas_of("schema=", &api), vec!["public", "api"]);
    }
}
