//! OpenID Connect providers: sign-in with an ID token (`signInWithIdToken`, the `id_token` grant)
//! from Google, Apple and Keycloak (whose issuer is the realm URL, `EXTERNAL_KEYCLOAK_URL`), and
//! the redirect flow (`signInWithOAuth`: `/authorize` sends the browser to the provider, whose
//! code `/callback` exchanges at its token endpoint) for Google, Apple (`form_post`), Azure /
//! Microsoft Entra ID, Keycloak, GitLab (its OpenID Connect side, `EXTERNAL_GITLAB_URL`), and
//! GitHub, Discord and Facebook (OAuth 2.0 and their REST APIs), each enabled with GoTrue's
//! setting names. OIDC endpoints and keys come from the issuer's discovery document.
//!
//! The token is checked as GoTrue checks it: signature against the issuer's published keys
//! (discovery document, then its `jwks_uri`; kept an hour, fetched again when a token names an
//! unknown key), `iss`, `aud` among the provider's client ids, `exp`, and the nonce (the token
//! carries the SHA-256 hex of the nonce the client passes; both or neither). The user is found
//! by the provider's identity, else by a verified address (the identity is then linked), else
//! created with the provider as its `app_metadata.provider`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::error::AuthError;
use crate::config::AuthConfig;

/// How long an issuer's keys are trusted before they are fetched again.
const KEYS_TTL: Duration = Duration::from_secs(3600);

/// One enabled provider.
#[derive(Debug, Clone)]
pub struct Provider {
    pub name: &'static str,
    pub issuer: String,
    pub client_ids: Vec<String>,
    pub skip_nonce_check: bool,
    /// The client secret of the redirect flow (`EXTERNAL_<NAME>_SECRET`); none: ID tokens only.
    pub secret: Option<secrecy::SecretString>,
    pub flavor: Flavor,
}

/// How a provider tells who the user is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// OpenID Connect: endpoints from the discovery document, the user from the ID token.
    Oidc,
    /// GitHub's OAuth 2.0 and REST API; `issuer` is the site's base URL (`https://github.com`,
    /// or a GitHub Enterprise server, whose API is `<url>/api/v3`).
    GitHub,
    /// Discord's OAuth 2.0 and `/api/users/@me`; `issuer` is its base URL.
    Discord,
    /// Facebook's OAuth dialog and the Graph API's `/me`; `issuer` is `EXTERNAL_FACEBOOK_URL`
    /// or empty (www.facebook.com and graph.facebook.com).
    Facebook,
}

/// Microsoft's multi-tenant issuers: tokens name the user's own tenant as issuer.
const AZURE_MULTI_TENANT: [&str; 3] = ["/common/", "/organizations/", "/consumers/"];

impl Provider {
    /// Whether `iss` is this provider's issuer (any Microsoft tenant for a multi-tenant Azure).
    fn accepts_issuer(&self, iss: &str) -> bool {
        if iss == self.issuer {
            return true;
        }
        let multi_tenant = self.name == "azure" && AZURE_MULTI_TENANT.iter().any(|t| self.issuer.contains(t));
        multi_tenant
            && iss
                .strip_prefix("https://login.microsoftonline.com/")
                .and_then(|rest| rest.strip_suffix("/v2.0"))
                .is_some_and(|tenant| {
                    !tenant.is_empty() && tenant.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                })
    }
}

/// The providers and the issuers' keys.
pub struct Oidc {
    providers: Vec<Provider>,
    http: reqwest::Client,
    keys: Mutex<HashMap<String, (Instant, JwkSet)>>,
}

impl std::fmt::Debug for Oidc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Oidc").field("providers", &self.providers).finish()
    }
}

fn bad(message: impl Into<String>) -> AuthError {
    AuthError::Coded(StatusCode::BAD_REQUEST, "validation_failed", message.into())
}

fn ids(list: &[String]) -> Vec<String> {
    list.iter().flat_map(|s| s.split(',')).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

impl Oidc {
    /// The enabled providers of the configuration.
    pub fn new(config: &AuthConfig) -> Result<Oidc, String> {
        let mut providers = Vec::new();
        if config.google_enabled {
            providers.push(Provider {
                name: "google",
                issuer: "https://accounts.google.com".into(),
                client_ids: ids(&config.google_client_id),
                skip_nonce_check: config.google_skip_nonce_check,
                secret: config.google_secret.clone(),
                flavor: Flavor::Oidc,
            });
        }
        if config.apple_enabled {
            providers.push(Provider {
                name: "apple",
                issuer: config.apple_url.trim_end_matches('/').to_string(),
                client_ids: ids(&config.apple_client_id),
                skip_nonce_check: config.apple_skip_nonce_check,
                secret: config.apple_secret.clone(),
                flavor: Flavor::Oidc,
            });
        }
        if config.azure_enabled {
            providers.push(Provider {
                name: "azure",
                issuer: config.azure_url.trim_end_matches('/').to_string(),
                client_ids: ids(&config.azure_client_id),
                skip_nonce_check: false,
                secret: config.azure_secret.clone(),
                flavor: Flavor::Oidc,
            });
        }
        if config.keycloak_enabled {
            let url = config.keycloak_url.clone().ok_or("EXTERNAL_KEYCLOAK_ENABLED needs EXTERNAL_KEYCLOAK_URL")?;
            providers.push(Provider {
                name: "keycloak",
                issuer: url.trim_end_matches('/').to_string(),
                client_ids: ids(&config.keycloak_client_id),
                skip_nonce_check: config.keycloak_skip_nonce_check,
                secret: config.keycloak_secret.clone(),
                flavor: Flavor::Oidc,
            });
        }
        // Providers of the redirect flow only: no ID tokens, a secret is required.
        let redirect_only =
            |name: &'static str, url: &str, client_id: &[String], secret: &Option<secrecy::SecretString>, flavor| {
                let secret = secret
                    .clone()
                    .ok_or_else(|| format!("EXTERNAL_{}_ENABLED needs EXTERNAL_{0}_SECRET", name.to_uppercase()))?;
                Ok::<_, String>(Provider {
                    name,
                    issuer: url.trim_end_matches('/').to_string(),
                    client_ids: ids(client_id),
                    skip_nonce_check: true,
                    secret: Some(secret),
                    flavor,
                })
            };
        if config.gitlab_enabled {
            providers.push(redirect_only(
                "gitlab",
                &config.gitlab_url,
                &config.gitlab_client_id,
                &config.gitlab_secret,
                Flavor::Oidc,
            )?);
        }
        if config.github_enabled {
            providers.push(redirect_only(
                "github",
                &config.github_url,
                &config.github_client_id,
                &config.github_secret,
                Flavor::GitHub,
            )?);
        }
        if config.discord_enabled {
            providers.push(redirect_only(
                "discord",
                &config.discord_url,
                &config.discord_client_id,
                &config.discord_secret,
                Flavor::Discord,
            )?);
        }
        if config.facebook_enabled {
            providers.push(redirect_only(
                "facebook",
                config.facebook_url.as_deref().unwrap_or_default(),
                &config.facebook_client_id,
                &config.facebook_secret,
                Flavor::Facebook,
            )?);
        }
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| format!("OIDC HTTP client: {e}"))?;
        Ok(Oidc { providers, http, keys: Mutex::new(HashMap::new()) })
    }

    /// Whether `name` is enabled (for `/settings`).
    pub fn enabled(&self, name: &str) -> bool {
        self.providers.iter().any(|p| p.name == name)
    }

    /// The enabled provider a grant names, by `provider` or by `issuer`.
    pub fn provider(&self, name: &str, issuer: &str) -> Option<&Provider> {
        // GoTrue takes ID tokens from these providers only (not GitHub, not GitLab).
        self.providers
            .iter()
            .filter(|p| matches!(p.name, "google" | "apple" | "azure" | "keycloak"))
            .find(|p| p.name == name || (!issuer.is_empty() && p.accepts_issuer(issuer)))
    }

    /// Where the redirect flow sends the browser, the scopes it asks for by default, and the
    /// provider's own extra parameters (Apple answers by `form_post`).
    pub async fn authorization_endpoint(
        &self,
        provider: &Provider,
    ) -> Result<(String, Vec<String>, Vec<(&'static str, &'static str)>), AuthError> {
        let scopes = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        match provider.flavor {
            Flavor::GitHub => {
                return Ok((format!("{}/login/oauth/authorize", provider.issuer), scopes(&["user:email"]), vec![]))
            }
            Flavor::Discord => {
                return Ok((
                    format!("{}/api/oauth2/authorize", provider.issuer),
                    scopes(&["email", "identify"]),
                    vec![],
                ))
            }
            Flavor::Facebook => {
                let host = if provider.issuer.is_empty() { "https://www.facebook.com" } else { &provider.issuer };
                return Ok((format!("{host}/dialog/oauth"), scopes(&["email"]), vec![]));
            }
            Flavor::Oidc => {}
        }
        let discovery = self.discovery(&provider.issuer).await?;
        let endpoint = discovery["authorization_endpoint"]
            .as_str()
            .ok_or_else(|| AuthError::internal("the provider's discovery document has no authorization_endpoint"))?;
        if provider.name == "apple" {
            // Apple knows no `profile` scope and posts its answer when a name or e-mail is asked.
            return Ok((endpoint.to_string(), scopes(&["name", "email"]), vec![("response_mode", "form_post")]));
        }
        Ok((endpoint.to_string(), scopes(&["openid", "email", "profile"]), vec![]))
    }

    /// The issuer's discovery document.
    pub async fn discovery(&self, issuer: &str) -> Result<Value, AuthError> {
        let failed = |e: String| {
            tracing::warn!(issuer, error = %e, "could not read the provider's discovery document");
            bad("Bad ID token")
        };
        self.http
            .get(format!("{issuer}/.well-known/openid-configuration"))
            .send()
            .await
            .map_err(|e| failed(e.to_string()))?
            .json()
            .await
            .map_err(|e| failed(e.to_string()))
    }

    /// The provider that signs users in with the redirect flow, by name.
    pub fn redirect_provider(&self, name: &str) -> Option<&Provider> {
        self.providers.iter().find(|p| p.name == name && p.secret.is_some())
    }

    /// Exchange an authorization code at the provider's token endpoint; its ID token's claims
    /// and the provider's access token.
    pub async fn exchange(
        &self,
        provider: &Provider,
        code: &str,
        redirect_uri: &str,
    ) -> Result<(Value, String), AuthError> {
        use secrecy::ExposeSecret;
        match provider.flavor {
            Flavor::GitHub => return self.github_exchange(provider, code, redirect_uri).await,
            Flavor::Discord => return self.discord_exchange(provider, code, redirect_uri).await,
            Flavor::Facebook => return self.facebook_exchange(provider, code, redirect_uri).await,
            Flavor::Oidc => {}
        }
        let discovery = self.discovery(&provider.issuer).await?;
        let endpoint = discovery["token_endpoint"].as_str().ok_or_else(|| bad("Bad ID token"))?;
        let secret = provider.secret.as_ref().map(|s| s.expose_secret().to_string()).unwrap_or_default();
        let client_id = provider.client_ids.first().cloned().unwrap_or_default();
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("client_id", client_id.as_str()),
            ("client_secret", secret.as_str()),
        ];
        let failed = |why: String| {
            tracing::warn!(provider = provider.name, error = %why, "code exchange failed");
            AuthError::Coded(
                StatusCode::INTERNAL_SERVER_ERROR,
                "unexpected_failure",
                "Unable to exchange external code".into(),
            )
        };
        let res = self.http.post(endpoint).form(&form).send().await.map_err(|e| failed(e.to_string()))?;
        if !res.status().is_success() {
            return Err(failed(format!("token endpoint answered {}", res.status())));
        }
        let answer: Value = res.json().await.map_err(|e| failed(e.to_string()))?;
        let id_token = answer["id_token"].as_str().ok_or_else(|| failed("no id_token".into()))?;
        let claims = self.verify_without_nonce(provider, id_token).await?;
        Ok((claims, answer["access_token"].as_str().unwrap_or_default().to_string()))
    }

    /// GitHub: the code for an access token, then the user and its addresses from the REST API
    /// (`api.github.com`, or `<url>/api/v3` for GitHub Enterprise), shaped as ID-token claims.
    async fn github_exchange(
        &self,
        provider: &Provider,
        code: &str,
        redirect_uri: &str,
    ) -> Result<(Value, String), AuthError> {
        use secrecy::ExposeSecret;
        let failed = |why: String| {
            tracing::warn!(provider = "github", error = %why, "code exchange failed");
            AuthError::Coded(
                StatusCode::INTERNAL_SERVER_ERROR,
                "unexpected_failure",
                "Unable to exchange external code".into(),
            )
        };
        let secret = provider.secret.as_ref().map(|s| s.expose_secret().to_string()).unwrap_or_default();
        let client_id = provider.client_ids.first().cloned().unwrap_or_default();
        let form = [
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("client_id", client_id.as_str()),
            ("client_secret", secret.as_str()),
        ];
        let answer: Value = self
            .http
            .post(format!("{}/login/oauth/access_token", provider.issuer))
            .header("Accept", "application/json")
            .form(&form)
            .send()
            .await
            .map_err(|e| failed(e.to_string()))?
            .json()
            .await
            .map_err(|e| failed(e.to_string()))?;
        let token = answer["access_token"].as_str().filter(|t| !t.is_empty()).ok_or_else(|| {
            failed(format!("no access token: {}", answer["error"].as_str().unwrap_or("unknown error")))
        })?;
        let api = if provider.issuer == "https://github.com" {
            "https://api.github.com".to_string()
        } else {
            format!("{}/api/v3", provider.issuer)
        };
        let get = |path: &str| {
            self.http
                .get(format!("{api}{path}"))
                .bearer_auth(token)
                .header("Accept", "application/vnd.github+json")
                .header("User-Agent", "supabase-compatible-auth")
                .send()
        };
        let user: Value =
            get("/user").await.map_err(|e| failed(e.to_string()))?.json().await.map_err(|e| failed(e.to_string()))?;
        let emails: Value =
            get("/user/emails").await.map_err(|e| failed(e.to_string()))?.json().await.unwrap_or_default();
        let sub = match &user["id"] {
            Value::Number(n) => n.to_string(),
            Value::String(s) => s.clone(),
            _ => return Err(failed("the user has no id".into())),
        };
        let primary = emails.as_array().and_then(|list| {
            list.iter().find(|e| e["primary"].as_bool() == Some(true)).or_else(|| list.first()).cloned()
        });
        let mut claims = json!({
            "sub": sub,
            "name": user["name"].as_str().or(user["login"].as_str()).unwrap_or_default(),
            "picture": user["avatar_url"].as_str().unwrap_or_default(),
            "user_name": user["login"],
            "preferred_username": user["login"],
        });
        if let Some(email) = primary {
            claims["email"] = email["email"].clone();
            claims["email_verified"] = json!(email["verified"].as_bool().unwrap_or(false));
        }
        Ok((claims, token.to_string()))
    }

    /// Discord: the code for an access token, then `/api/users/@me`, shaped as ID-token claims.
    async fn discord_exchange(
        &self,
        provider: &Provider,
        code: &str,
        redirect_uri: &str,
    ) -> Result<(Value, String), AuthError> {
        let base = &provider.issuer;
        let token = self.rest_token(provider, &format!("{base}/api/oauth2/token"), code, redirect_uri, true).await?;
        let user = self.rest_get(provider, &format!("{base}/api/users/@me"), &token).await?;
        let id = user["id"]
            .as_str()
            .filter(|i| !i.is_empty())
            .ok_or_else(|| exchange_failed(provider, "the user has no id"))?;
        let username = user["username"].as_str().unwrap_or_default();
        let mut claims = json!({
            "sub": id,
            "name": user["global_name"].as_str().filter(|n| !n.is_empty()).unwrap_or(username),
            "user_name": username,
            "preferred_username": username,
        });
        if let Some(avatar) = user["avatar"].as_str().filter(|a| !a.is_empty()) {
            claims["picture"] = json!(format!("https://cdn.discordapp.com/avatars/{id}/{avatar}.png"));
        }
        if let Some(email) = user["email"].as_str().filter(|e| !e.is_empty()) {
            claims["email"] = json!(email);
            claims["email_verified"] = json!(user["verified"].as_bool().unwrap_or(false));
        }
        Ok((claims, token))
    }

    /// Facebook: the code for an access token, then the Graph API's `/me` (with the
    /// `appsecret_proof` of the token), shaped as ID-token claims. Facebook only hands out
    /// addresses it has confirmed.
    async fn facebook_exchange(
        &self,
        provider: &Provider,
        code: &str,
        redirect_uri: &str,
    ) -> Result<(Value, String), AuthError> {
        use hmac::Mac;
        use secrecy::ExposeSecret;
        let graph = if provider.issuer.is_empty() { "https://graph.facebook.com" } else { &provider.issuer };
        let token =
            self.rest_token(provider, &format!("{graph}/oauth/access_token"), code, redirect_uri, false).await?;
        let secret = provider.secret.as_ref().map(|s| s.expose_secret().to_string()).unwrap_or_default();
        let mut mac = hmac::Hmac::<Sha256>::new_from_slice(secret.as_bytes()).map_err(AuthError::internal)?;
        mac.update(token.as_bytes());
        let proof = hex::encode(mac.finalize().into_bytes());
        let url = format!("{graph}/me?fields=email,first_name,last_name,name,picture&appsecret_proof={proof}");
        let user = self.rest_get(provider, &url, &token).await?;
        let id = user["id"]
            .as_str()
            .filter(|i| !i.is_empty())
            .ok_or_else(|| exchange_failed(provider, "the user has no id"))?;
        let mut claims = json!({ "sub": id, "name": user["name"].as_str().unwrap_or_default() });
        if let Some(picture) = user["picture"]["data"]["url"].as_str() {
            claims["picture"] = json!(picture);
        }
        if let Some(email) = user["email"].as_str().filter(|e| !e.is_empty()) {
            claims["email"] = json!(email);
            claims["email_verified"] = json!(true);
        }
        Ok((claims, token))
    }

    /// The authorization-code grant of a plain OAuth 2.0 provider: its access token.
    async fn rest_token(
        &self,
        provider: &Provider,
        endpoint: &str,
        code: &str,
        redirect_uri: &str,
        grant_type: bool,
    ) -> Result<String, AuthError> {
        use secrecy::ExposeSecret;
        let secret = provider.secret.as_ref().map(|s| s.expose_secret().to_string()).unwrap_or_default();
        let client_id = provider.client_ids.first().cloned().unwrap_or_default();
        let mut form = vec![
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("client_id", client_id.as_str()),
            ("client_secret", secret.as_str()),
        ];
        if grant_type {
            form.push(("grant_type", "authorization_code"));
        }
        let answer: Value = self
            .http
            .post(endpoint)
            .header("Accept", "application/json")
            .form(&form)
            .send()
            .await
            .map_err(|e| exchange_failed(provider, &e.without_url().to_string()))?
            .json()
            .await
            .map_err(|e| exchange_failed(provider, &e.to_string()))?;
        answer["access_token"].as_str().filter(|t| !t.is_empty()).map(str::to_string).ok_or_else(|| {
            let why = answer["error"].as_str().or(answer["error"]["message"].as_str()).unwrap_or("unknown error");
            exchange_failed(provider, &format!("no access token: {why}"))
        })
    }

    /// A JSON resource of a plain OAuth 2.0 provider, with the user's access token.
    async fn rest_get(&self, provider: &Provider, url: &str, token: &str) -> Result<Value, AuthError> {
        let res = self
            .http
            .get(url)
            .bearer_auth(token)
            .header("Accept", "application/json")
            .send()
            .await
            .map_err(|e| exchange_failed(provider, &e.without_url().to_string()))?;
        if !res.status().is_success() {
            return Err(exchange_failed(provider, &format!("the user endpoint answered {}", res.status())));
        }
        res.json().await.map_err(|e| exchange_failed(provider, &e.to_string()))
    }

    async fn verify_without_nonce(&self, provider: &Provider, token: &str) -> Result<Value, AuthError> {
        let lenient = Provider { skip_nonce_check: true, ..provider.clone() };
        self.verify(&lenient, token, None).await
    }

    async fn fetch_keys(&self, issuer: &str) -> Result<JwkSet, AuthError> {
        let failed = |e: String| {
            tracing::warn!(issuer, error = %e, "could not fetch the provider's keys");
            bad("Bad ID token")
        };
        let discovery = self.discovery(issuer).await?;
        let jwks_uri = discovery["jwks_uri"].as_str().ok_or_else(|| failed("no jwks_uri".into()))?;
        let set: JwkSet = self
            .http
            .get(jwks_uri)
            .send()
            .await
            .map_err(|e| failed(e.to_string()))?
            .json()
            .await
            .map_err(|e| failed(e.to_string()))?;
        if let Ok(mut keys) = self.keys.lock() {
            keys.insert(issuer.to_string(), (Instant::now(), set.clone()));
        }
        Ok(set)
    }

    async fn key_for(&self, issuer: &str, kid: Option<&str>) -> Result<jsonwebtoken::jwk::Jwk, AuthError> {
        let pick = |set: &JwkSet| match kid {
            Some(kid) => set.find(kid).cloned(),
            None if set.keys.len() == 1 => set.keys.first().cloned(),
            None => None,
        };
        let cached =
            self.keys.lock().ok().and_then(|keys| {
                keys.get(issuer).filter(|(at, _)| at.elapsed() < KEYS_TTL).map(|(_, set)| set.clone())
            });
        if let Some(key) = cached.as_ref().and_then(pick) {
            return Ok(key);
        }
        pick(&self.fetch_keys(issuer).await?).ok_or_else(|| bad("Bad ID token"))
    }

    /// Verify an ID token for `provider`; its claims.
    pub async fn verify(&self, provider: &Provider, token: &str, nonce: Option<&str>) -> Result<Value, AuthError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| bad("Bad ID token"))?;
        if !matches!(
            header.alg,
            Algorithm::RS256 | Algorithm::ES256 | Algorithm::RS384 | Algorithm::RS512 | Algorithm::ES384
        ) {
            return Err(bad("Bad ID token"));
        }
        let jwk = self.key_for(&provider.issuer, header.kid.as_deref()).await?;
        let key = DecodingKey::from_jwk(&jwk).map_err(|_| bad("Bad ID token"))?;
        let mut validation = Validation::new(header.alg);
        validation.required_spec_claims.insert("iss".into());
        validation.validate_aud = false;
        validation.leeway = 30;
        let claims = jsonwebtoken::decode::<Value>(token, &key, &validation).map_err(|_| bad("Bad ID token"))?.claims;
        if !provider.accepts_issuer(claims["iss"].as_str().unwrap_or_default()) {
            return Err(bad("Bad ID token"));
        }
        if claims["sub"].as_str().unwrap_or_default().is_empty() {
            return Err(bad("Missing sub claim in id_token"));
        }
        let audience: Vec<&str> = match &claims["aud"] {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        if !provider.client_ids.iter().any(|id| audience.contains(&id.as_str())) {
            return Err(bad(format!("Unacceptable audience in id_token: {audience:?}")));
        }
        if !provider.skip_nonce_check {
            let in_token = claims["nonce"].as_str().filter(|n| !n.is_empty());
            let given = nonce.filter(|n| !n.is_empty());
            match (in_token, given) {
                (None, None) => {}
                (Some(expected), Some(given)) => {
                    if hex::encode(Sha256::digest(given.as_bytes())) != expected {
                        return Err(bad("Nonces mismatch"));
                    }
                }
                _ => return Err(bad("Passed nonce and nonce in id_token should either both exist or not.")),
            }
        }
        Ok(claims)
    }
}

/// GoTrue's answer when the provider's side of the code exchange fails (the cause is logged).
fn exchange_failed(provider: &Provider, why: &str) -> AuthError {
    tracing::warn!(provider = provider.name, error = %why, "code exchange failed");
    AuthError::Coded(StatusCode::INTERNAL_SERVER_ERROR, "unexpected_failure", "Unable to exchange external code".into())
}

/// The identity data GoTrue keeps for an OIDC user (`identity_data`, and the user's metadata).
pub fn identity_data(provider: &Provider, claims: &Value) -> Value {
    let mut data = Map::new();
    data.insert("iss".into(), json!(provider.issuer));
    data.insert("sub".into(), claims["sub"].clone());
    data.insert("provider_id".into(), claims["sub"].clone());
    for key in ["email", "name", "picture", "phone", "user_name", "preferred_username"] {
        if let Some(value) = claims.get(key).filter(|v| v.is_string()) {
            data.insert(key.into(), value.clone());
        }
    }
    if let Some(name) = claims.get("name").filter(|v| v.is_string()) {
        data.insert("full_name".into(), name.clone());
    }
    if let Some(picture) = claims.get("picture").filter(|v| v.is_string()) {
        data.insert("avatar_url".into(), picture.clone());
    }
    data.insert("email_verified".into(), json!(email_verified(claims)));
    data.insert("phone_verified".into(), json!(false));
    Value::Object(data)
}

/// Whether the provider vouches for the address (`email_verified`, a boolean or `"true"`).
pub fn email_verified(claims: &Value) -> bool {
    match &claims["email_verified"] {
        Value::Bool(b) => *b,
        Value::String(s) => s == "true",
        _ => false,
    }
}

/// The user of a verified identity: found by the identity, else by an address the provider
/// vouches for (the identity is linked), else created (unless sign-ups are off).
pub async fn user_for(
    state: &super::AuthState,
    db: &impl crate::db::cached::Db,
    provider: &Provider,
    claims: &Value,
    ip: &str,
) -> Result<super::users::User, AuthError> {
    use super::users;
    let sub = claims["sub"].as_str().unwrap_or_default().to_string();
    let data = identity_data(provider, claims);
    let email = claims["email"].as_str().map(str::to_lowercase).filter(|e| !e.is_empty());
    let verified = email_verified(claims);
    if let Some(user) = users::by_identity(db, provider.name, &sub).await? {
        users::link_identity(db, user.id, provider.name, &sub, &data).await?;
        return Ok(user);
    }
    let existing = match &email {
        Some(address) if verified => users::by_email(db, address).await?,
        _ => None,
    };
    if let Some(user) = existing {
        users::link_identity(db, user.id, provider.name, &sub, &data).await?;
        return Ok(user);
    }
    if state.config().disable_signup {
        return Err(AuthError::SignupDisabled);
    }
    let user = users::insert_external(db, provider.name, &sub, email.as_deref(), verified, &data)
        .await?
        .ok_or(AuthError::EmailExists)?;
    super::hooks::before_user_created(state, db, &user, ip).await?;
    super::audit::log(db, Some(user.id), user.email_str(), "user_signedup", json!({"provider": provider.name}), ip)
        .await;
    Ok(user)
}

/// Link a verified identity to `user` (`linkIdentity`, or `signInWithIdToken` with
/// `link_identity`): refused when another user has it.
pub async fn link_to(
    db: &impl crate::db::cached::Db,
    user: &super::users::User,
    provider: &Provider,
    claims: &Value,
) -> Result<(), AuthError> {
    let sub = claims["sub"].as_str().unwrap_or_default();
    if let Some(owner) = super::users::by_identity(db, provider.name, sub).await? {
        if owner.id != user.id {
            return Err(AuthError::Coded(
                StatusCode::UNPROCESSABLE_ENTITY,
                "identity_already_exists",
                "Identity is already linked to another user".into(),
            ));
        }
    }
    super::users::link_identity(db, user.id, provider.name, sub, &identity_data(provider, claims)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn azure(issuer: &str) -> Provider {
        Provider {
            name: "azure",
            issuer: issuer.into(),
            client_ids: vec![],
            skip_nonce_check: false,
            secret: None,
            flavor: Flavor::Oidc,
        }
    }

    #[test]
    fn a_multi_tenant_azure_accepts_any_tenant_s_issuer_and_a_tenant_only_its_own() {
        let common = azure("https://login.microsoftonline.com/common/v2.0");
        assert!(common.accepts_issuer("https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0"));
        assert!(!common.accepts_issuer("https://login.microsoftonline.com//v2.0"));
        assert!(!common.accepts_issuer("https://login.microsoftonline.com/a/b/v2.0"));
        assert!(!common.accepts_issuer("https://evil.example/tenant/v2.0"));
        let tenant = azure("https://login.microsoftonline.com/contoso-id/v2.0");
        assert!(tenant.accepts_issuer("https://login.microsoftonline.com/contoso-id/v2.0"));
        assert!(!tenant.accepts_issuer("https://login.microsoftonline.com/other-id/v2.0"));
        let keycloak = Provider { name: "keycloak", ..azure("https://kc.example/realms/common/x") };
        assert!(!keycloak.accepts_issuer("https://login.microsoftonline.com/t/v2.0"));
    }
}
