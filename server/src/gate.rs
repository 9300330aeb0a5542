//! The API-key / JWT gate in front of `/rest/v1`, `/storage/v1` and `/realtime/v1`.
//!
//! A request needs an `apikey` header (or `apikey` query parameter, for websockets) holding a
//! valid API key or user JWT; `Authorization: Bearer <jwt>` overrides whose role the request
//! runs as; `sb_publishable_…` / `sb_secret_…` keys stand for the anon / service_role claims, and a
//! secret key from a browser's User-Agent is refused. The verified caller is put in the request's extensions as a `db::context::Caller`.
//! Refusals are 401 with the body shape of the surface asked (a storage request with no key and no
//! token gets storage-api's own 400 `Invalid Compact JWS`). The gate verifies tokens only:
//! it never touches the database.

use std::sync::Arc;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpResponse};
use serde_json::{json, Value};

use crate::db::context::Caller;
use crate::jwt::{ClaimError, JwtError, JwtVerifier};
use crate::rest::error::{JwtClaimsError, JwtDecodeError, RestError};

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

/// The API surface a request is for, which decides the error body shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    Rest,
    Storage,
    Realtime,
}

impl Surface {
    fn of(path: &str) -> Surface {
        if path.starts_with("/storage/") {
            Surface::Storage
        } else if path.starts_with("/realtime/") {
            Surface::Realtime
        } else {
            Surface::Rest
        }
    }
}

impl GateError {
    /// The 401 response in the shape of `surface`.
    pub fn response(&self, surface: Surface) -> HttpResponse {
        let message = self.to_string();
        if surface == Surface::Rest {
            if let Some(rest) = self.rest_error() {
                return actix_web::ResponseError::error_response(&rest);
            }
        }
        if let (Surface::Storage, GateError::MissingApiKey | GateError::EmptyBearer) = (surface, self) {
            // No key and no token: Supabase's gateway lets storage requests through (public
            // objects need none), and storage-api refuses the empty JWT in its own words.
            return HttpResponse::BadRequest().json(json!({
                "statusCode": "403",
                "code": "AccessDenied",
                "error": "Unauthorized",
                "message": "Invalid Compact JWS",
            }));
        }
        let body: Value = match (surface, self) {
            (_, GateError::MissingApiKey) => {
                json!({"message": message, "hint": "No `apikey` request header or url param was found."})
            }
            (_, GateError::SecretKeyInBrowser) => json!({
                "message": message,
                "hint": "Secret API keys belong on servers only; a browser must use the publishable key."
            }),
            (_, GateError::Jwt(JwtError::UnknownApiKey)) => json!({
                "message": message,
                "hint": "Double check the publishable or secret API key."
            }),
            (Surface::Storage, _) => json!({"statusCode": "401", "error": "InvalidJWT", "message": message}),
            (_, _) => json!({"message": message}),
        };
        HttpResponse::build(StatusCode::UNAUTHORIZED).json(body)
    }

    /// The PostgREST error for a refusal on `/rest/v1` (none for a missing key, which the
    /// gateway answers in Supabase, not PostgREST).
    fn rest_error(&self) -> Option<RestError> {
        Some(match self {
            GateError::MissingApiKey | GateError::SecretKeyInBrowser | GateError::Jwt(JwtError::UnknownApiKey) => {
                return None
            }
            GateError::NoRole => RestError::AnonymousAccessDisabled,
            GateError::EmptyBearer => RestError::jwt_decode(JwtDecodeError::EmptyAuthHeader),
            GateError::Jwt(JwtError::Expired) => RestError::jwt_claims(JwtClaimsError::Expired),
            GateError::Jwt(JwtError::Audience) => RestError::jwt_claims(JwtClaimsError::NotInAudience),
            GateError::Jwt(JwtError::Claims(claim)) => RestError::jwt_claims(match claim {
                ClaimError::NotYetValid => JwtClaimsError::NotYetValid,
                ClaimError::IssuedAtFuture => JwtClaimsError::IssuedAtFuture,
                ClaimError::NotNumber("exp") => JwtClaimsError::ExpNotNumber,
                ClaimError::NotNumber("nbf") => JwtClaimsError::NbfNotNumber,
                ClaimError::NotNumber(_) => JwtClaimsError::IatNotNumber,
            }),
            GateError::Jwt(JwtError::Invalid(reason)) => RestError::jwt_decode(match reason.as_str() {
                "token is malformed" => JwtDecodeError::Undecodable,
                "signing method (alg) is unavailable" => JwtDecodeError::BadAlgorithm(reason.clone()),
                _ => JwtDecodeError::BadCrypto,
            }),
        })
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

/// Middleware: verify the request and store its `Caller`, or answer 401.
pub async fn middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if req.method() == actix_web::http::Method::OPTIONS {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    let Some(gate) = req.app_data::<web::Data<Gate>>().cloned() else {
        return Err(actix_web::error::ErrorInternalServerError("gate not configured"));
    };
    let surface = Surface::of(req.path());
    let require_apikey = !(surface == Surface::Rest && gate.config.rest_without_apikey);
    let apikey = apikey_of(req.request());
    let bearer = bearer_of(req.request());
    let user_agent = req.headers().get("user-agent").and_then(|v| v.to_str().ok());
    if crate::keys::secret_key_from_browser(apikey.as_deref(), bearer.as_deref(), user_agent) {
        return Ok(req.into_response(GateError::SecretKeyInBrowser.response(surface)));
    }
    let started = std::time::Instant::now();
    match gate.authenticate(apikey.as_deref(), bearer.as_deref(), require_apikey) {
        Ok(caller) => {
            if gate.config.server_timing {
                req.extensions_mut().insert(crate::rest::timing::GateTime(started.elapsed()));
            }
            req.extensions_mut().insert(caller);
            Ok(next.call(req).await?.map_into_boxed_body())
        }
        Err(err) => {
            tracing::debug!(error = %err, "request refused by the gate");
            Ok(req.into_response(err.response(surface)))
        }
    }
}
