//! The API-key / JWT gate in front of `/rest/v1`, `/storage/v1` and `/realtime/v1`.
//!
//! A request needs an `apikey` header (or `apikey` query parameter, for websockets) holding a
//! valid API key or user JWT; `Authorization: Bearer <jwt>` overrides whose role the request
//! runs as; `sb_publishable_…` / `sb_secret_…` keys stand for the anon / service_role claims, and a
//! secret key from a browser's User-Agent is refused. The verified caller is put in the request's extensions as a `db::context::Caller`.
//! Refusals are 401 with the body shape of the surface asked, which the surface gives through its
//! `Guard` (a storage request with no key and no token gets storage-api's own 400 `Invalid
//! Compact JWS`): a shared part, the gate imports no surface. It verifies tokens only: it never
//! touches the database.

use std::sync::Arc;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpResponse};
use serde_json::{json, Value};

use crate::db::context::Caller;
use crate::jwt::{JwtError, JwtVerifier};

/// Settings of the gate.
#[derive(Debug, Clone)]
pub struct GateConfig {
    /// Role for requests without a user token; `None` refuses them (PostgREST without an anon role).
    pub anon_role: Option<String>,
    /// Whether `/rest/v1` may be called without an `apikey` (plain PostgREST behaviour).
    pub rest_without_apikey: bool,
    /// Claim holding the role (PostgREST's `jwt-role-claim-key`, without the leading dot).
    pub role_claim: Vec<String>,
    /// Measure the gate's time for `Server-Timing` (`PGRST_SERVER_TIMING_ENABLED`).
    pub server_timing: bool,
}

/// Shared state of the gate.
#[derive(Debug, Clone)]
pub struct Gate {
    pub verifier: Arc<JwtVerifier>,
    pub config: GateConfig,
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GateError {
    #[error("No API key found in request")]
    MissingApiKey,
    #[error("{0}")]
    Jwt(JwtError),
    #[error("JWT has no role claim and no anonymous role is configured")]
    NoRole,
    /// An `sb_secret_…` key sent by a browser (Supabase refuses it whatever the key's validity).
    #[error("Forbidden use of secret API key in browser")]
    SecretKeyInBrowser,
    /// `Authorization: Bearer` with nothing after it (PostgREST's PGRST301).
    #[error("Empty JWT is sent in Authorization header")]
    EmptyBearer,
}

/// How a surface behind the gate answers a refusal. The gate imports no surface: each surface
/// hands its own shape in (`rest::gate`, `storage::gate`), falling back on `gateway_refusal`.
pub struct Guard {
    /// The 401 (or the surface's own answer) for a refused request.
    pub refuse: fn(&GateError) -> HttpResponse,
    /// Whether `GateConfig::rest_without_apikey` lets requests without any key through.
    pub apikey_optional_when_configured: bool,
}

/// How long the gate took, in the request's extensions when `server_timing` is on.
#[derive(Debug, Clone, Copy)]
pub struct GateTime(pub std::time::Duration);

impl GateError {
    /// The gateway's own 401 (Supabase's API gateway answers these, not the service behind it).
    pub fn gateway_refusal(&self) -> HttpResponse {
        let message = self.to_string();
        let body: Value = match self {
            GateError::MissingApiKey => {
                json!({"message": message, "hint": "No `apikey` request header or url param was found."})
            }
            GateError::SecretKeyInBrowser => json!({
                "message": message,
                "hint": "Secret API keys belong on servers only; a browser must use the publishable key."
            }),
            GateError::Jwt(JwtError::UnknownApiKey) => json!({
                "message": message,
                "hint": "Double check the publishable or secret API key."
            }),
            _ => json!({"message": message}),
        };
        HttpResponse::build(StatusCode::UNAUTHORIZED).json(body)
    }

    /// Whether the gateway answers this refusal itself whatever the surface (a missing or
    /// unknown key, a secret key from a browser).
    pub fn is_gateway_refusal(&self) -> bool {
        matches!(
            self,
            GateError::MissingApiKey | GateError::SecretKeyInBrowser | GateError::Jwt(JwtError::UnknownApiKey)
        )
    }
}

impl Gate {
    /// Establish the caller from the `apikey` and `Authorization` values.
    pub fn authenticate(
        &self,
        apikey: Option<&str>,
        bearer: Option<&str>,
        require_apikey: bool,
    ) -> Result<Caller, GateError> {
        let apikey = apikey.map(str::trim).filter(|k| !k.is_empty());
        let bearer = bearer.map(str::trim);
        if bearer == Some("") {
            return Err(GateError::EmptyBearer);
        }
        if require_apikey && apikey.is_none() && bearer.is_none() {
            return Err(GateError::MissingApiKey);
        }
        if let Some(key) = apikey {
            let claims = self.verifier.verify(key).map_err(GateError::Jwt)?;
            if bearer.is_none() {
                return self.caller(claims);
            }
        }
        match bearer {
            Some(token) => self.caller(self.verifier.verify(token).map_err(GateError::Jwt)?),
            None => match &self.config.anon_role {
                Some(role) => Ok(Caller::anonymous(role)),
                None => Err(GateError::NoRole),
            },
        }
    }

    /// The caller of verified `claims`: the role from the role claim (the anonymous role when
    /// there is none), set under `role` in the claims SQL sees.
    pub fn caller(&self, claims: Arc<Value>) -> Result<Caller, GateError> {
        let mut value: &Value = &claims;
        for key in &self.config.role_claim {
            value = value.get(key).unwrap_or(&Value::Null);
        }
        let role = match value.as_str() {
            Some(role) if !role.is_empty() => role.to_string(),
            _ => self.config.anon_role.clone().ok_or(GateError::NoRole)?,
        };
        // SQL sees the role the request runs as under `role` in its claims, as PostgREST sets
        // them (a token without a role claim, or with it elsewhere, runs as that role too).
        if claims.get("role").and_then(Value::as_str) != Some(role.as_str()) {
            if let Value::Object(mut map) = (*claims).clone() {
                map.insert("role".into(), Value::String(role.clone()));
                return Ok(Caller { role, claims: Arc::new(Value::Object(map)) });
            }
        }
        Ok(Caller { role, claims })
    }
}

/// `apikey` header, else the `apikey` query parameter.
pub fn apikey_of(req: &actix_web::HttpRequest) -> Option<String> {
    if let Some(value) = req.headers().get("apikey").and_then(|v| v.to_str().ok()) {
        return Some(value.to_string());
    }
    url::form_urlencoded::parse(req.query_string().as_bytes()).find(|(k, _)| k == "apikey").map(|(_, v)| v.into_owned())
}

/// The token of an `Authorization: Bearer` header (empty for a bare `Bearer`, whose trailing
/// space the HTTP parser drops).
pub fn bearer_of(req: &actix_web::HttpRequest) -> Option<String> {
    let value = req.headers().get("authorization")?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_string())
}

/// Middleware body: verify the request and store its `Caller`, or answer with `guard`'s refusal.
/// Each gated surface wraps its scope with a three-line middleware that calls this.
pub async fn check(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
    guard: &Guard,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if req.method() == actix_web::http::Method::OPTIONS {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    let Some(gate) = req.app_data::<web::Data<Gate>>().cloned() else {
        return Err(actix_web::error::ErrorInternalServerError("gate not configured"));
    };
    let require_apikey = !(guard.apikey_optional_when_configured && gate.config.rest_without_apikey);
    let apikey = apikey_of(req.request());
    let bearer = bearer_of(req.request());
    let user_agent = req.headers().get("user-agent").and_then(|v| v.to_str().ok());
    if crate::keys::secret_key_from_browser(apikey.as_deref(), bearer.as_deref(), user_agent) {
        return Ok(req.into_response((guard.refuse)(&GateError::SecretKeyInBrowser)));
    }
    let started = std::time::Instant::now();
    match gate.authenticate(apikey.as_deref(), bearer.as_deref(), require_apikey) {
        Ok(caller) => {
            if gate.config.server_timing {
                req.extensions_mut().insert(GateTime(started.elapsed()));
            }
            req.extensions_mut().insert(caller);
            Ok(next.call(req).await?.map_into_boxed_body())
        }
        Err(err) => {
            tracing::debug!(error = %err, "request refused by the gate");
            Ok(req.into_response((guard.refuse)(&err)))
        }
    }
}
