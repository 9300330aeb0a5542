//! The clients of the OAuth 2.1 server: their registration checked as GoTrue checks it, their
//! secrets (32 random bytes; only a SHA-256 hash is stored, compared in constant time) and their
//! rows of `auth.oauth_clients`. A secret leaves this module only in the answer to a creation or
//! a regeneration; a deleted client (soft-deleted, as in GoTrue) is not found by anything here.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::{DateTime, Utc};
use rand::RngCore;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

use super::registration::{type_of_method, Registration, Update};
use crate::auth::error::AuthError;
use crate::auth::users;

/// A registered client.
#[derive(Debug, Clone)]
pub struct Client {
    pub id: Uuid,
    secret_hash: Option<String>,
    registration_type: String,
    pub client_type: String,
    /// `none`, `client_secret_basic` or `client_secret_post`.
    pub auth_method: String,
    pub redirect_uris: Vec<String>,
    grant_types: Vec<String>,
    pub name: Option<String>,
    pub uri: Option<String>,
    pub logo_uri: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

const COLUMNS: &str = "id, client_secret_hash, registration_type::text, client_type::text, \
    token_endpoint_auth_method, redirect_uris, grant_types, client_name, client_uri, logo_uri, created_at, updated_at";

/// GoTrue stores lists comma-separated.
fn split(list: &str) -> Vec<String> {
    list.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect()
}

impl Client {
    fn from_row(row: &tokio_postgres::Row) -> Client {
        Client {
            id: row.get(0),
            secret_hash: row.get(1),
            registration_type: row.get(2),
            client_type: row.get(3),
            auth_method: row.get(4),
            redirect_uris: split(row.get(5)),
            grant_types: split(row.get(6)),
            name: row.get(7),
            uri: row.get(8),
            logo_uri: row.get(9),
            created_at: row.get(10),
            updated_at: row.get(11),
        }
    }

    pub fn is_public(&self) -> bool {
        self.client_type == "public"
    }

    pub fn allows_grant(&self, grant_type: &str) -> bool {
        self.grant_types.iter().any(|g| g == grant_type)
    }

    /// Whether `secret` is this client's secret (a public client has none).
    pub fn secret_matches(&self, secret: &str) -> bool {
        let Some(stored) = self.secret_hash.as_deref().and_then(|h| URL_SAFE_NO_PAD.decode(h).ok()) else {
            return false;
        };
        bool::from(Sha256::digest(secret.as_bytes()).as_slice().ct_eq(&stored))
    }

    /// The client as the admin API answers it; `secret` only right after it was made.
    pub fn to_json(&self, secret: Option<&str>) -> Value {
        let mut out = Map::new();
        out.insert("client_id".into(), json!(self.id));
        if let Some(secret) = secret {
            out.insert("client_secret".into(), json!(secret));
        }
        out.insert("client_type".into(), json!(self.client_type));
        if !self.redirect_uris.is_empty() {
            out.insert("redirect_uris".into(), json!(self.redirect_uris));
        }
        out.insert("token_endpoint_auth_method".into(), json!(self.auth_method));
        if !self.grant_types.is_empty() {
            out.insert("grant_types".into(), json!(self.grant_types));
        }
        out.insert("response_types".into(), json!(["code"]));
        for (key, value) in [("client_name", &self.name), ("client_uri", &self.uri), ("logo_uri", &self.logo_uri)] {
            if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
                out.insert(key.into(), json!(value));
            }
        }
        out.insert("registration_type".into(), json!(self.registration_type));
        out.insert("created_at".into(), json!(users::time(self.created_at)));
        out.insert("updated_at".into(), json!(users::time(self.updated_at)));
        Value::Object(out)
    }

    /// The short form shown to the user on the consent page and in their grants.
    pub fn details(&self) -> Value {
        let mut out = Map::new();
        out.insert("id".into(), json!(self.id));
        for (key, value) in [("name", &self.name), ("uri", &self.uri), ("logo_uri", &self.logo_uri)] {
            if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
                out.insert(key.into(), json!(value));
            }
        }
        Value::Object(out)
    }
}

/// A new secret and the hash that is stored.
fn new_secret() -> (String, String) {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    let secret = URL_SAFE_NO_PAD.encode(bytes);
    let hash = URL_SAFE_NO_PAD.encode(Sha256::digest(secret.as_bytes()));
    (secret, hash)
}

/// Register a client (`manual` from the admin API, `dynamic` from `/oauth/clients/register`):
/// the client and, for a confidential one, its secret. A refusal is GoTrue's message.
pub async fn register(
    db: &impl crate::db::cached::Db,
    reg: &Registration,
    registration_type: &str,
) -> Result<Result<(Client, Option<String>), String>, AuthError> {
    if let Err(why) = reg.check() {
        return Ok(Err(why));
    }
    let method = reg.token_endpoint_auth_method.as_deref().filter(|m| !m.is_empty());
    let client_type = match reg.client_type.as_deref().filter(|t| !t.is_empty()) {
        Some(t) => t,
        None => method.map(type_of_method).unwrap_or("confidential"),
    };
    let method = method.unwrap_or(if client_type == "public" { "none" } else { "client_secret_basic" });
    let grants = match reg.grant_types.as_deref().filter(|t| !t.is_empty()) {
        Some(types) => types.join(","),
        None => "authorization_code,refresh_token".into(),
    };
    let (secret, hash) = match client_type {
        "confidential" => {
            let (secret, hash) = new_secret();
            (Some(secret), Some(hash))
        }
        _ => (None, None),
    };
    let row = db
        .cached_query_one(
            &format!(
                "insert into auth.oauth_clients (id, client_secret_hash, registration_type, client_type, \
                 token_endpoint_auth_method, redirect_uris, grant_types, client_name, client_uri, logo_uri) \
                 values (gen_random_uuid(), $1, $2::text::auth.oauth_registration_type, \
                 $3::text::auth.oauth_client_type, $4, $5, $6, nullif($7, ''), nullif($8, ''), nullif($9, '')) \
                 returning {COLUMNS}"
            ),
            &[
                &hash,
                &registration_type,
                &client_type,
                &method,
                &reg.redirect_uris.as_deref().unwrap_or_default().join(","),
                &grants,
                &reg.client_name,
                &reg.client_uri,
                &reg.logo_uri,
            ],
        )
        .await?;
    Ok(Ok((Client::from_row(&row), secret)))
}

/// A client that is not deleted.
pub async fn find(db: &impl crate::db::cached::Db, id: Uuid) -> Result<Option<Client>, AuthError> {
    let row = db
        .cached_query_opt(
            &format!("select {COLUMNS} from auth.oauth_clients where id = $1 and deleted_at is null"),
            &[&id],
        )
        .await?;
    Ok(row.as_ref().map(Client::from_row))
}

/// Every client, newest first.
pub async fn list(db: &impl crate::db::cached::Db) -> Result<Vec<Client>, AuthError> {
    let rows = db
        .cached_query(
            &format!("select {COLUMNS} from auth.oauth_clients where deleted_at is null order by created_at desc"),
            &[],
        )
        .await?;
    Ok(rows.iter().map(Client::from_row).collect())
}

/// Apply `update` to `client`; a refusal is GoTrue's message.
pub async fn update(
    db: &impl crate::db::cached::Db,
    client: &Client,
    update: &Update,
) -> Result<Result<Client, String>, AuthError> {
    if let Err(why) = update.check(client) {
        return Ok(Err(why));
    }
    let row = db
        .cached_query_one(
            &format!(
                "update auth.oauth_clients set \
                   redirect_uris = coalesce($2, redirect_uris), grant_types = coalesce($3, grant_types), \
                   client_name = case when $4::text is null then client_name else nullif($4, '') end, \
                   client_uri = case when $5::text is null then client_uri else nullif($5, '') end, \
                   logo_uri = case when $6::text is null then logo_uri else nullif($6, '') end, \
                   token_endpoint_auth_method = coalesce($7, token_endpoint_auth_method), updated_at = now() \
                 where id = $1 returning {COLUMNS}"
            ),
            &[
                &client.id,
                &update.redirect_uris.as_ref().map(|u| u.join(",")),
                &update.grant_types.as_ref().map(|g| g.join(",")),
                &update.client_name,
                &update.client_uri,
                &update.logo_uri,
                &update.token_endpoint_auth_method,
            ],
        )
        .await?;
    Ok(Ok(Client::from_row(&row)))
}

/// Soft-delete a client: its sessions end with it (their refresh tokens are refused from now).
pub async fn delete(db: &impl crate::db::cached::Db, id: Uuid) -> Result<(), AuthError> {
    db.cached_execute("update auth.oauth_clients set deleted_at = now(), updated_at = now() where id = $1", &[&id])
        .await?;
    db.cached_execute("delete from auth.sessions where oauth_client_id = $1", &[&id]).await?;
    Ok(())
}

/// A new secret for a confidential client; the old one stops working at once.
pub async fn regenerate_secret(db: &impl crate::db::cached::Db, id: Uuid) -> Result<(Client, String), AuthError> {
    let (secret, hash) = new_secret();
    let row = db
        .cached_query_one(
            &format!(
                "update auth.oauth_clients set client_secret_hash = $2, updated_at = now() where id = $1 \
                 returning {COLUMNS}"
            ),
            &[&id, &hash],
        )
        .await?;
    Ok((Client::from_row(&row), secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_stored_as_hashes_and_checked_against_them() {
        let (secret, hash) = new_secret();
        assert_ne!(secret, hash);
        let client = Client {
            id: Uuid::nil(),
            secret_hash: Some(hash),
            registration_type: "manual".into(),
            client_type: "confidential".into(),
            auth_method: "client_secret_basic".into(),
            redirect_uris: vec!["https://a.test/cb".into()],
            grant_types: vec!["authorization_code".into()],
            name: None,
            uri: None,
            logo_uri: None,
            created_at: Utc::now(),
            updated_at: Utc::now(),
        };
        assert!(client.secret_matches(&secret));
        assert!(!client.secret_matches("guess"));
        let shown = client.to_json(None);
        assert!(shown.get("client_secret").is_none() && shown.get("client_name").is_none());
        assert_eq!(shown["response_types"], json!(["code"]));
        assert_eq!(client.to_json(Some(&secret))["client_secret"], json!(secret));
    }
}
