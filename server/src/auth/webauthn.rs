//! WebAuthn ceremonies, for passkeys (`/passkeys/*`) and WebAuthn MFA factors (`/factors`), on
//! `webauthn-rs-core`: it checks the client data (type, challenge, origin), the authenticator
//! data (RP id hash, user presence and verification flags, signature counter), the attestation
//! statement and the assertion signature. This module holds the relying-party settings and turns
//! the library's types into the JSON that supabase-js sends and receives; the handlers store the
//! ceremony state and the credentials.
//!
//! The relying party is `WEBAUTHN_RP_ID` (default: SITE_URL's host) and the origins an answer
//! may come from `WEBAUTHN_RP_ORIGINS` (default: SITE_URL's origin). As in GoTrue, a user's
//! WebAuthn handle is the text of the user id.

use std::time::Duration;

use actix_web::http::StatusCode;
use serde_json::{json, Value};
use url::Url;
use uuid::Uuid;
use webauthn_rs_core::proto::{
    AttestationConveyancePreference, AuthenticationResult, Credential, CredentialID, PublicKeyCredential,
    RegisterPublicKeyCredential, UserVerificationPolicy,
};
use webauthn_rs_core::WebauthnCore;

use crate::auth::error::AuthError;
use crate::config::AuthConfig;

/// The relying party and its ceremonies.
pub struct WebAuthn {
    core: WebauthnCore,
    rp_id: String,
    /// How long a challenge stays answerable.
    pub challenge_expiry_secs: i64,
}

impl std::fmt::Debug for WebAuthn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebAuthn").field("rp_id", &self.rp_id).finish()
    }
}

/// 400 `webauthn_verification_failed`, GoTrue's answer to a credential that does not verify.
pub fn verification_failed(message: &str) -> AuthError {
    AuthError::Coded(StatusCode::BAD_REQUEST, "webauthn_verification_failed", message.to_string())
}

impl WebAuthn {
    pub fn new(config: &AuthConfig, site_url: &str) -> Result<WebAuthn, String> {
        let site = Url::parse(site_url).map_err(|e| format!("SITE_URL is not a URL: {e}"))?;
        let rp_id = match config.webauthn_rp_id.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            Some(id) => id.to_string(),
            None => site.host_str().unwrap_or("localhost").to_string(),
        };
        let mut origins = Vec::new();
        for raw in config.webauthn_rp_origins.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
            origins.push(Url::parse(raw).map_err(|e| format!("WEBAUTHN_RP_ORIGINS: {raw:?} is not a URL: {e}"))?);
        }
        if origins.is_empty() {
            origins.push(site);
        }
        let name = config.webauthn_rp_display_name.clone().filter(|n| !n.trim().is_empty()).unwrap_or(rp_id.clone());
        let expiry = config.webauthn_challenge_expiry_secs.max(1);
        let core =
            WebauthnCore::new_unsafe_experts_only(&name, &rp_id, origins, Duration::from_secs(expiry), None, None);
        Ok(WebAuthn { core, rp_id, challenge_expiry_secs: expiry as i64 })
    }

    /// Options for `navigator.credentials.create()` (the `publicKey` member) and the state to
    /// keep until the answer. `resident` asks for a discoverable credential (a passkey that can
    /// sign in without a user name).
    pub fn start_registration(
        &self,
        user_id: Uuid,
        name: &str,
        display_name: &str,
        exclude: Vec<CredentialID>,
        resident: bool,
    ) -> Result<(Value, Value), AuthError> {
        let handle = user_id.to_string();
        let name = if name.is_empty() { handle.as_str() } else { name };
        let display_name = if display_name.is_empty() { name } else { display_name };
        let builder = self
            .core
            .new_challenge_register_builder(handle.as_bytes(), name, display_name)
            .map_err(AuthError::internal)?
            .attestation(AttestationConveyancePreference::None)
            .user_verification_policy(UserVerificationPolicy::Preferred)
            .exclude_credentials(Some(exclude).filter(|e| !e.is_empty()))
            .require_resident_key(resident);
        let (options, state) = self.core.generate_challenge_register(builder).map_err(AuthError::internal)?;
        let mut public_key = serde_json::to_value(options.public_key).map_err(AuthError::internal)?;
        strip_nulls(&mut public_key);
        Ok((public_key, serde_json::to_value(state).map_err(AuthError::internal)?))
    }

    /// Verify the answer of `navigator.credentials.create()` against the kept state.
    pub fn finish_registration(&self, response: &Value, state: &Value) -> Result<Credential, AuthError> {
        let response: RegisterPublicKeyCredential =
            serde_json::from_value(response.clone()).map_err(|_| verification_failed("Invalid credential response"))?;
        let state: webauthn_rs_core::proto::RegistrationState =
            serde_json::from_value(state.clone()).map_err(AuthError::internal)?;
        self.core.register_credential(&response, &state, None).map_err(|err| {
            tracing::debug!(%err, "WebAuthn registration refused");
            verification_failed("Credential verification failed")
        })
    }

    /// Options for `navigator.credentials.get()` (the `publicKey` member) and the state to keep.
    /// With no credentials the ceremony is discoverable: the authenticator picks the passkey and
    /// names its user.
    pub fn start_authentication(&self, credentials: Vec<Credential>) -> Result<(Value, Value), AuthError> {
        let builder = self
            .core
            .new_challenge_authenticate_builder(credentials, Some(UserVerificationPolicy::Preferred))
            .map_err(AuthError::internal)?;
        let (options, state) = self.core.generate_challenge_authenticate(builder).map_err(AuthError::internal)?;
        let mut public_key = serde_json::to_value(options.public_key).map_err(AuthError::internal)?;
        strip_nulls(&mut public_key);
        Ok((public_key, serde_json::to_value(state).map_err(AuthError::internal)?))
    }

    /// Verify the answer of `navigator.credentials.get()`, signed by one of `credentials`.
    pub fn finish_authentication(
        &self,
        response: &PublicKeyCredential,
        state: &Value,
        credentials: Vec<Credential>,
    ) -> Result<AuthenticationResult, AuthError> {
        let mut state: webauthn_rs_core::proto::AuthenticationState =
            serde_json::from_value(state.clone()).map_err(AuthError::internal)?;
        if !credentials.is_empty() {
            state.set_allowed_credentials(credentials);
        }
        self.core.authenticate_credential(response, &state).map_err(|err| {
            tracing::debug!(%err, "WebAuthn assertion refused");
            verification_failed("Credential verification failed")
        })
    }
}

/// The answer of `navigator.credentials.get()` as supabase-js serializes it.
pub fn parse_assertion(response: &Value) -> Result<PublicKeyCredential, AuthError> {
    serde_json::from_value(response.clone()).map_err(|_| verification_failed("Invalid credential response"))
}

/// The user an assertion names (its user handle, the text of a user id).
pub fn assertion_user(response: &PublicKeyCredential) -> Option<Uuid> {
    let handle = response.response.user_handle.as_ref()?;
    Uuid::parse_str(std::str::from_utf8(handle.as_slice()).ok()?).ok()
}

/// The AAGUID of the authenticator when its attestation names it.
pub fn aaguid(credential: &Credential) -> Option<Uuid> {
    use webauthn_rs_core::proto::AttestationMetadata;
    match &credential.attestation.metadata {
        AttestationMetadata::Packed { aaguid } | AttestationMetadata::Tpm { aaguid, .. } => Some(*aaguid),
        _ => None,
    }
}

/// A stored credential (`credential` jsonb) back into the library's type.
pub fn stored(credential: Value) -> Result<Credential, AuthError> {
    serde_json::from_value(credential).map_err(AuthError::internal)
}

/// The transports of a credential, as GoTrue lists them.
pub fn transports(credential: &Credential) -> Value {
    serde_json::to_value(&credential.transports).ok().filter(|v| !v.is_null()).unwrap_or_else(|| json!([]))
}

/// Browsers refuse `null` where WebIDL expects a member to be absent (`extensions: null`,
/// `mediation: null`): drop such members.
fn strip_nulls(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(strip_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_nulls),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relying_party(rp_id: Option<&str>, origins: &[&str]) -> WebAuthn {
        use clap::Parser;
        let mut cli = crate::config::Cli::parse_from(["server"]);
        cli.config.auth.webauthn_rp_id = rp_id.map(str::to_string);
        cli.config.auth.webauthn_rp_origins = origins.iter().map(|s| s.to_string()).collect();
        WebAuthn::new(&cli.config.auth, "http://localhost:5173").unwrap()
    }

    #[test]
    fn the_relying_party_defaults_to_the_site() {
        let rp = relying_party(None, &[]);
        let (options, _) = rp.start_registration(Uuid::nil(), "a@b.cd", "", vec![], true).unwrap();
        assert_eq!(options["rp"]["id"], "localhost");
        assert_eq!(options["authenticatorSelection"]["residentKey"], "required");
        assert_eq!(options["attestation"], "none");
        // the user handle is the text of the user id, base64url-encoded, as GoTrue sends it
        let handle = base64::Engine::decode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            options["user"]["id"].as_str().unwrap(),
        )
        .unwrap();
        assert_eq!(handle, Uuid::nil().to_string().as_bytes());
        assert!(options.get("extensions").is_none_or(|e| !e.is_null()));
    }

    #[test]
    fn a_discoverable_ceremony_allows_no_credential_in_particular() {
        let rp = relying_party(Some("example.test"), &["https://example.test"]);
        let (options, state) = rp.start_authentication(vec![]).unwrap();
        assert_eq!(options["rpId"], "example.test");
        assert!(options["allowCredentials"].as_array().is_none_or(Vec::is_empty));
        assert!(options["challenge"].as_str().is_some_and(|c| c.len() >= 43));
        assert!(state.is_object());
    }

    #[test]
    fn garbage_is_an_invalid_credential_response_not_a_failure_of_ours() {
        let rp = relying_party(None, &[]);
        let (_, state) = rp.start_registration(Uuid::nil(), "a@b.cd", "", vec![], false).unwrap();
        let err = rp.finish_registration(&json!({"id": 1}), &state).unwrap_err();
        assert_eq!(err.parts().1, "webauthn_verification_failed");
        assert!(parse_assertion(&json!("nope")).is_err());
    }
}
