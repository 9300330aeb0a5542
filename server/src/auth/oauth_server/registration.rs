//! What a client may register with, checked as GoTrue checks it (messages included): redirect
//! URIs (absolute, a host, no fragment, no scheme that runs code, `http` only for loopback hosts,
//! at most 10), grant types, names and URIs within their lengths, and a client type consistent
//! with its token endpoint authentication method. Only rules: no SQL, no secrets.

use serde::Deserialize;

use super::clients::Client;

/// The body of a registration (admin or dynamic).
#[derive(Debug, Default, Deserialize)]
pub struct Registration {
    pub(super) redirect_uris: Option<Vec<String>>,
    pub(super) client_type: Option<String>,
    pub(super) token_endpoint_auth_method: Option<String>,
    pub(super) grant_types: Option<Vec<String>>,
    pub(super) client_name: Option<String>,
    pub(super) client_uri: Option<String>,
    pub(super) logo_uri: Option<String>,
}

/// The body of an update: only the fields given change.
#[derive(Debug, Default, Deserialize)]
pub struct Update {
    pub(super) redirect_uris: Option<Vec<String>>,
    pub(super) grant_types: Option<Vec<String>>,
    pub(super) client_name: Option<String>,
    pub(super) client_uri: Option<String>,
    pub(super) logo_uri: Option<String>,
    pub(super) token_endpoint_auth_method: Option<String>,
}

const AUTH_METHODS: [&str; 3] = ["none", "client_secret_basic", "client_secret_post"];

fn methods_of(client_type: &str) -> &'static [&'static str] {
    match client_type {
        "public" => &["none"],
        "confidential" => &["client_secret_basic", "client_secret_post"],
        _ => &[],
    }
}

pub(super) fn type_of_method(method: &str) -> &'static str {
    if method == "none" {
        "public"
    } else {
        "confidential"
    }
}

/// A redirect URI GoTrue accepts (RFC 6749 3.1.2): absolute, with a host, no fragment, not a
/// scheme that runs code or reads local data, and plain `http` only for loopback hosts.
pub fn check_redirect_uri(uri: &str) -> Result<(), String> {
    if uri.is_empty() {
        return Err("redirect URI cannot be empty".into());
    }
    let parsed = url::Url::parse(uri).map_err(|_| "invalid URL format".to_string())?;
    let host = parsed.host_str().unwrap_or_default();
    if host.is_empty() {
        return Err("must have scheme and host".into());
    }
    let scheme = parsed.scheme();
    if ["javascript", "data", "file", "vbscript", "about", "blob"].contains(&scheme) {
        return Err(format!("scheme '{scheme}' is not allowed for security reasons"));
    }
    if scheme == "http" && !["localhost", "127.0.0.1", "[::1]"].contains(&host) {
        return Err("HTTP scheme only allowed for localhost".into());
    }
    if parsed.fragment().is_some() {
        return Err("fragment not allowed in redirect URI".into());
    }
    Ok(())
}

fn check_redirect_uris(uris: &[String], required: bool) -> Result<(), String> {
    match uris.len() {
        0 if required => return Err("redirect_uris is required".into()),
        0 => return Err("redirect_uris cannot be empty".into()),
        n if n > 10 => return Err("redirect_uris cannot exceed 10 items".into()),
        _ => {}
    }
    for uri in uris {
        check_redirect_uri(uri).map_err(|why| format!("invalid redirect_uri '{uri}': {why}"))?;
    }
    Ok(())
}

fn check_grant_types(types: &[String]) -> Result<(), String> {
    if types.is_empty() {
        return Err("grant_types cannot be empty".into());
    }
    if types.iter().any(|t| t != "authorization_code" && t != "refresh_token") {
        return Err("grant_types must only contain 'authorization_code' and/or 'refresh_token'".into());
    }
    Ok(())
}

fn check_text(name: &str, value: Option<&str>, max: usize, is_url: bool) -> Result<(), String> {
    let Some(value) = value.filter(|v| !v.is_empty()) else { return Ok(()) };
    if value.chars().count() > max {
        return Err(format!("{name} cannot exceed {max} characters"));
    }
    if is_url && url::Url::parse(value).is_err() {
        return Err(format!("{name} must be a valid URL"));
    }
    Ok(())
}

fn check_method(method: Option<&str>) -> Result<(), String> {
    match method {
        Some(m) if !AUTH_METHODS.contains(&m) => {
            Err(format!("token_endpoint_auth_method must be one of: [{}]", AUTH_METHODS.join(" ")))
        }
        _ => Ok(()),
    }
}

impl Registration {
    pub(super) fn check(&self) -> Result<(), String> {
        check_redirect_uris(self.redirect_uris.as_deref().unwrap_or_default(), true)?;
        if let Some(types) = self.grant_types.as_deref().filter(|t| !t.is_empty()) {
            check_grant_types(types)?;
        }
        check_text("client_name", self.client_name.as_deref(), 1024, false)?;
        check_text("client_uri", self.client_uri.as_deref(), 2048, true)?;
        check_text("logo_uri", self.logo_uri.as_deref(), 2048, true)?;
        let client_type = self.client_type.as_deref().filter(|t| !t.is_empty());
        if client_type.is_some_and(|t| t != "public" && t != "confidential") {
            return Err("client_type must be 'public' or 'confidential'".into());
        }
        let method = self.token_endpoint_auth_method.as_deref().filter(|m| !m.is_empty());
        check_method(method)?;
        if let (Some(t), Some(m)) = (client_type, method) {
            if t != type_of_method(m) {
                return Err(format!(
                    "client_type '{t}' is inconsistent with token_endpoint_auth_method '{m}' (expected client_type '{}')",
                    type_of_method(m)
                ));
            }
        }
        Ok(())
    }
}

impl Update {
    pub fn is_empty(&self) -> bool {
        self.redirect_uris.is_none()
            && self.grant_types.is_none()
            && self.client_name.is_none()
            && self.client_uri.is_none()
            && self.logo_uri.is_none()
            && self.token_endpoint_auth_method.is_none()
    }

    pub(super) fn check(&self, client: &Client) -> Result<(), String> {
        if let Some(uris) = &self.redirect_uris {
            check_redirect_uris(uris, false)?;
        }
        if let Some(types) = &self.grant_types {
            check_grant_types(types)?;
        }
        check_text("client_name", self.client_name.as_deref(), 1024, false)?;
        check_text("client_uri", self.client_uri.as_deref(), 2048, true)?;
        check_text("logo_uri", self.logo_uri.as_deref(), 2048, true)?;
        let method = self.token_endpoint_auth_method.as_deref();
        if method.is_some_and(|m| !AUTH_METHODS.contains(&m)) {
            return Err(format!("invalid token_endpoint_auth_method: must be one of [{}]", AUTH_METHODS.join(" ")));
        }
        if let Some(m) = method.filter(|m| !methods_of(&client.client_type).contains(m)) {
            return Err(format!(
                "token_endpoint_auth_method '{m}' is not valid for client_type '{}'; valid methods: [{}]",
                client.client_type,
                methods_of(&client.client_type).join(" ")
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn registration(value: Value) -> Registration {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn redirect_uris_follow_gotrues_rules() {
        assert!(check_redirect_uri("https://app.test/cb").is_ok());
        assert!(check_redirect_uri("http://localhost:3000/cb").is_ok());
        assert!(check_redirect_uri("http://127.0.0.1/cb").is_ok());
        assert!(check_redirect_uri("myapp://callback").is_ok());
        assert_eq!(check_redirect_uri("http://app.test/cb").unwrap_err(), "HTTP scheme only allowed for localhost");
        assert_eq!(check_redirect_uri("https://app.test/cb#x").unwrap_err(), "fragment not allowed in redirect URI");
        assert_eq!(check_redirect_uri("/cb").unwrap_err(), "invalid URL format");
        assert!(check_redirect_uri("javascript://x/alert(1)").unwrap_err().contains("not allowed"));
    }

    #[test]
    fn a_registration_needs_redirect_uris_and_consistent_types() {
        let empty = registration(json!({"redirect_uris": []}));
        assert_eq!(empty.check().unwrap_err(), "redirect_uris is required");
        let many = registration(json!({"redirect_uris": vec!["https://a.test/cb"; 11]}));
        assert_eq!(many.check().unwrap_err(), "redirect_uris cannot exceed 10 items");
        let grants = registration(json!({"redirect_uris": ["https://a.test/cb"], "grant_types": ["password"]}));
        assert!(grants.check().unwrap_err().starts_with("grant_types must only contain"));
        let mixed = registration(
            json!({"redirect_uris": ["https://a.test/cb"], "client_type": "public", "token_endpoint_auth_method": "client_secret_post"}),
        );
        assert!(mixed.check().unwrap_err().contains("inconsistent"));
        assert!(registration(json!({"redirect_uris": ["https://a.test/cb"]})).check().is_ok());
    }
}
