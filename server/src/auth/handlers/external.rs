//! The OAuth / OIDC redirect flow of `signInWithOAuth` for the providers that have a client
//! secret (`oidc`): `GET /authorize?provider=` sends the browser to the provider's authorization
//! endpoint with a signed `state`; `GET|POST /callback` exchanges the provider's code, finds or
//! makes the user, and sends the browser back to `redirect_to` with the session in the fragment
//! (implicit flow) or `?code=` for `exchangeCodeForSession` (PKCE), as GoTrue does. Errors after
//! the provider are sent back the same way (`#error=…&error_code=…&error_description=…`).

use actix_web::http::header::LOCATION;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::json;
use uuid::Uuid;

use crate::auth::error::AuthError;
use crate::auth::flows;
use crate::auth::request::{client_info, client_ip, query};
use crate::auth::{oidc, sessions, users, AuthState};

/// Minutes the browser has to come back from the provider.
const STATE_MINUTES: i64 = 5;

#[derive(Debug, Serialize, Deserialize)]
struct OAuthState {
    exp: i64,
    provider: String,
    referrer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flow_state_id: Option<Uuid>,
    /// The signed-in user an identity is being linked to (`linkIdentity`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    link_user: Option<Uuid>,
}

fn redirect(location: &str) -> HttpResponse {
    HttpResponse::Found().insert_header((LOCATION, location.to_string())).finish()
}

fn callback_url(state: &AuthState) -> String {
    format!("{}/callback", state.issuer)
}

pub async fn authorize(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    provider_redirect(&state, req, None).await
}

/// `GET /user/identities/authorize` (`linkIdentity`): the same trip to the provider, for the
/// signed-in user; with `skip_http_redirect=true` the URL is answered as `{"url": …}`.
pub async fn link_authorize(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    if !state.config().manual_linking_enabled {
        return super::disabled::manual_linking().await;
    }
    let client = state.pool.get().await?;
    let authed = crate::auth::request::require_user(&state, &req, &client).await?;
    drop(client);
    provider_redirect(&state, req, Some(authed.user.id)).await
}

/// `DELETE /user/identities/{id}` (`unlinkIdentity`): remove one of the user's identities, never
/// the last one.
pub async fn unlink(
    state: web::Data<AuthState>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, AuthError> {
    if !state.config().manual_linking_enabled {
        return super::disabled::manual_linking().await;
    }
    let not_found = || AuthError::Coded(StatusCode::NOT_FOUND, "identity_not_found", "Identity doesn't exist".into());
    let identity = Uuid::parse_str(&path).map_err(|_| not_found())?;
    let mut client = state.pool.get().await?;
    let authed = crate::auth::request::require_user(&state, &req, &client).await?;
    let tx = client.transaction().await?;
    let removed = users::unlink_identity(&tx, authed.user.id, identity).await?;
    match removed {
        users::Unlinked::Done => {}
        users::Unlinked::NotFound => return Err(not_found()),
        users::Unlinked::LastOne => {
            return Err(AuthError::Coded(
                StatusCode::UNPROCESSABLE_ENTITY,
                "single_identity_not_deletable",
                "User must have at least 1 identity after unlinking".into(),
            ))
        }
    }
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(json!({})))
}

async fn provider_redirect(
    state: &AuthState,
    req: HttpRequest,
    link_user: Option<Uuid>,
) -> Result<HttpResponse, AuthError> {
    let q = query(&req);
    let name = q.get("provider").cloned().unwrap_or_default().to_ascii_lowercase();
    let Some(provider) = state.oidc().redirect_provider(&name).cloned() else {
        return super::disabled::authorize(req).await;
    };
    let skip_redirect = q.get("skip_http_redirect").is_some_and(|v| v == "true");
    let referrer = state.redirect_target(q.get("redirect_to").map(String::as_str));
    let challenge = flows::challenge(
        q.get("code_challenge").map(String::as_str),
        q.get("code_challenge_method").map(String::as_str),
    )?;
    let flow_state_id = match &challenge {
        Some(challenge) => {
            let client = state.pool.get().await?;
            Some(flows::save_oauth_flow_state(&client, provider.name, challenge).await?)
        }
        None => None,
    };
    let claims = OAuthState {
        exp: Utc::now().timestamp() + STATE_MINUTES * 60,
        provider: provider.name.to_string(),
        referrer,
        flow_state_id,
        link_user,
    };
    let signed = jsonwebtoken::encode(&jsonwebtoken::Header::default(), &claims, &state.encoding_key)
        .map_err(AuthError::internal)?;
    let (endpoint, mut scopes, extra) = state.oidc().authorization_endpoint(&provider).await?;
    let mut url = url::Url::parse(&endpoint).map_err(AuthError::internal)?;
    for extra in
        q.get("scopes").map(|s| s.split([' ', ',']).map(str::to_string).collect::<Vec<_>>()).unwrap_or_default()
    {
        if !extra.is_empty() && !scopes.contains(&extra) {
            scopes.push(extra);
        }
    }
    url.query_pairs_mut()
        .append_pair("client_id", provider.client_ids.first().map(String::as_str).unwrap_or_default())
        .append_pair("redirect_uri", &callback_url(state))
        .append_pair("response_type", "code")
        .append_pair("scope", &scopes.join(" "))
        .append_pair("state", &signed)
        .extend_pairs(extra);
    if skip_redirect {
        return Ok(HttpResponse::Ok().json(json!({ "url": url.as_str() })));
    }
    Ok(redirect(url.as_str()))
}

#[derive(Debug, Default)]
pub struct CallbackForm {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `POST /callback` (`response_mode=form_post`, Apple's way) reads the same fields from the form.
pub async fn callback_post(
    state: web::Data<AuthState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let fields: std::collections::HashMap<String, String> = url::form_urlencoded::parse(&body).into_owned().collect();
    let form = CallbackForm {
        code: fields.get("code").cloned(),
        state: fields.get("state").cloned(),
        error: fields.get("error").cloned(),
        error_description: fields.get("error_description").cloned(),
    };
    callback_with(&state, &req, form).await
}

pub async fn callback(state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    let q = query(&req);
    let form = CallbackForm {
        code: q.get("code").cloned(),
        state: q.get("state").cloned(),
        error: q.get("error").cloned(),
        error_description: q.get("error_description").cloned(),
    };
    callback_with(&state, &req, form).await
}

async fn callback_with(state: &AuthState, req: &HttpRequest, form: CallbackForm) -> Result<HttpResponse, AuthError> {
    let invalid =
        || AuthError::Coded(StatusCode::BAD_REQUEST, "bad_oauth_state", "OAuth state parameter is invalid".into());
    let raw_state = form.state.filter(|s| !s.is_empty()).ok_or_else(|| {
        AuthError::Coded(StatusCode::BAD_REQUEST, "bad_oauth_state", "OAuth state parameter missing".into())
    })?;
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::HS256);
    validation.required_spec_claims.clear();
    let flow: OAuthState =
        jsonwebtoken::decode(&raw_state, &state.decoding_key, &validation).map_err(|_| invalid())?.claims;
    let back = |code: &str, description: &str| {
        let error = if code == "access_denied" { "access_denied" } else { "server_error" };
        redirect(&sessions::redirect_with_error(&flow.referrer, error, code, description))
    };
    if let Some(error) = form.error.filter(|e| !e.is_empty()) {
        return Ok(back(&error, form.error_description.as_deref().unwrap_or_default()));
    }
    let Some(provider) = state.oidc().redirect_provider(&flow.provider).cloned() else { return Err(invalid()) };
    let Some(code) = form.code.filter(|c| !c.is_empty()) else {
        return Ok(back("bad_oauth_callback", "OAuth callback with missing authorization code missing"));
    };
    let ip = client_ip(state, req);
    let outcome = async {
        let (claims, provider_token) = state.oidc().exchange(&provider, &code, &callback_url(state)).await?;
        let mut client = state.pool.get().await?;
        let tx = client.transaction().await?;
        let db = &tx;
        let user = match flow.link_user {
            Some(id) => {
                let user = users::by_id(db, id).await?.ok_or(AuthError::UserFromJwtMissing)?;
                oidc::link_to(db, &user, &provider, &claims).await?;
                user
            }
            None => oidc::user_for(state, db, &provider, &claims, &ip).await?,
        };
        if user.is_banned() {
            return Err(AuthError::UserBanned);
        }
        let location = match flow.flow_state_id {
            Some(id) => {
                let code = flows::bind_oauth_flow_state(db, id, user.id, &provider_token).await?;
                let sep = if flow.referrer.contains('?') { '&' } else { '?' };
                let code = url::form_urlencoded::byte_serialize(code.as_bytes()).collect::<String>();
                format!("{}{sep}code={code}", flow.referrer)
            }
            None => {
                let user = users::by_id(db, user.id).await?.ok_or(AuthError::UserFromJwtMissing)?;
                let info = client_info(state, req);
                let session =
                    sessions::sign_in(state, db, user, "oauth", &info, &ip, json!({"provider": provider.name})).await?;
                sessions::redirect_with_session(&flow.referrer, &session, &[("provider_token", &provider_token)])
            }
        };
        tx.commit().await?;
        Ok::<_, AuthError>(location)
    }
    .await;
    match outcome {
        Ok(location) => Ok(redirect(&location)),
        Err(AuthError::Internal(cause)) => Err(AuthError::Internal(cause)),
        Err(err) => Ok(back(err.parts().1, &err.to_string())),
    }
}
