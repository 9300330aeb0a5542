//! Authorization requests and consents of the OAuth 2.1 server, as rows of
//! `auth.oauth_authorizations` and `auth.oauth_consents`.
//!
//! A request is created pending by `/oauth/authorize`, bound to the first signed-in user who
//! opens it, then approved (it gets its code) or denied; the code is exchanged once, and the
//! request is deleted with that exchange. Every step reads the row `for update skip locked`, so
//! two answers to one request can never both succeed. Nothing here checks who is asking.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::auth::error::AuthError;
use crate::auth::{tokens, users};

/// Length of authorization ids and codes (alphanumeric).
const ID_LEN: usize = 32;
const CODE_LEN: usize = 48;

/// The scopes GoTrue's server knows.
pub const SUPPORTED_SCOPES: [&str; 5] = ["openid", "profile", "email", "phone", "offline_access"];

/// The scopes of a space-separated list, in order, blanks dropped.
pub fn scopes(list: &str) -> Vec<&str> {
    list.split(' ').map(str::trim).filter(|s| !s.is_empty()).collect()
}

/// A request of `/oauth/authorize`.
#[derive(Debug, Clone)]
pub struct Authorization {
    pub id: Uuid,
    pub authorization_id: String,
    pub client_id: Uuid,
    pub user_id: Option<Uuid>,
    pub redirect_uri: String,
    pub scope: String,
    pub state: Option<String>,
    pub resource: Option<String>,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
    pub status: String,
    pub code: Option<String>,
    pub nonce: Option<String>,
    /// Its lifetime is over.
    pub expired: bool,
}

const COLUMNS: &str = "id, authorization_id, client_id, user_id, redirect_uri, scope, state, resource, \
    code_challenge, code_challenge_method::text, status::text, authorization_code, nonce, expires_at <= now()";

impl Authorization {
    fn from_row(row: &tokio_postgres::Row) -> Authorization {
        Authorization {
            id: row.get(0),
            authorization_id: row.get(1),
            client_id: row.get(2),
            user_id: row.get(3),
            redirect_uri: row.get(4),
            scope: row.get(5),
            state: row.get(6),
            resource: row.get(7),
            code_challenge: row.get(8),
            code_challenge_method: row.get(9),
            status: row.get(10),
            code: row.get(11),
            nonce: row.get(12),
            expired: row.get(13),
        }
    }
}

/// What `/oauth/authorize` asked for, checked.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub client_id: Uuid,
    pub redirect_uri: &'a str,
    pub scope: &'a str,
    pub state: &'a str,
    pub resource: &'a str,
    pub code_challenge: &'a str,
    /// `s256`.
    pub code_challenge_method: &'a str,
    pub nonce: &'a str,
}

/// Store a pending request living `ttl_secs`; its `authorization_id`.
pub async fn create(db: &impl crate::db::cached::Db, req: &Request<'_>, ttl_secs: u64) -> Result<String, AuthError> {
    let authorization_id = tokens::random_token(ID_LEN);
    db.cached_execute(
        "insert into auth.oauth_authorizations (id, authorization_id, client_id, redirect_uri, scope, state, \
         resource, code_challenge, code_challenge_method, nonce, expires_at) \
         values (gen_random_uuid(), $1, $2, $3, $4, nullif($5, ''), nullif($6, ''), $7, \
         $8::text::auth.code_challenge_method, nullif($9, ''), now() + make_interval(secs => $10))",
        &[
            &authorization_id,
            &req.client_id,
            &req.redirect_uri,
            &req.scope,
            &req.state,
            &req.resource,
            &req.code_challenge,
            &req.code_challenge_method,
            &req.nonce,
            &(ttl_secs.max(1) as f64),
        ],
    )
    .await?;
    Ok(authorization_id)
}

/// The request `authorization_id`, locked for this transaction (`None` if another holds it).
pub async fn lock(db: &impl crate::db::cached::Db, authorization_id: &str) -> Result<Option<Authorization>, AuthError> {
    let row = db
        .cached_query_opt(
            &format!(
                "select {COLUMNS} from auth.oauth_authorizations where authorization_id = $1 \
                 limit 1 for update skip locked"
            ),
            &[&authorization_id],
        )
        .await?;
    Ok(row.as_ref().map(Authorization::from_row))
}

/// The approved request whose code is `code`, locked for this transaction.
pub async fn lock_by_code(db: &impl crate::db::cached::Db, code: &str) -> Result<Option<Authorization>, AuthError> {
    let row = db
        .cached_query_opt(
            &format!(
                "select {COLUMNS} from auth.oauth_authorizations \
                 where authorization_code = $1 and status = 'approved' limit 1 for update"
            ),
            &[&code],
        )
        .await?;
    Ok(row.as_ref().map(Authorization::from_row))
}

/// Mark a pending request expired.
pub async fn expire(db: &impl crate::db::cached::Db, id: Uuid) -> Result<(), AuthError> {
    db.cached_execute("update auth.oauth_authorizations set status = 'expired' where id = $1", &[&id]).await?;
    Ok(())
}

/// Bind a request to the user who opened it.
pub async fn set_user(db: &impl crate::db::cached::Db, id: Uuid, user_id: Uuid) -> Result<(), AuthError> {
    db.cached_execute("update auth.oauth_authorizations set user_id = $2 where id = $1", &[&id, &user_id]).await?;
    Ok(())
}

/// Approve a request: its new single-use code.
pub async fn approve(db: &impl crate::db::cached::Db, id: Uuid) -> Result<String, AuthError> {
    let code = tokens::random_token(CODE_LEN);
    db.cached_execute(
        "update auth.oauth_authorizations set status = 'approved', approved_at = now(), authorization_code = $2 \
         where id = $1",
        &[&id, &code],
    )
    .await?;
    Ok(code)
}

/// Deny a request.
pub async fn deny(db: &impl crate::db::cached::Db, id: Uuid) -> Result<(), AuthError> {
    db.cached_execute("update auth.oauth_authorizations set status = 'denied' where id = $1", &[&id]).await?;
    Ok(())
}

/// Forget a request whose code was exchanged.
pub async fn consume(db: &impl crate::db::cached::Db, id: Uuid) -> Result<(), AuthError> {
    db.cached_execute("delete from auth.oauth_authorizations where id = $1", &[&id]).await?;
    Ok(())
}

/// Whether the user's active consent to the client covers every scope of `scope`.
pub async fn consent_covers(
    db: &impl crate::db::cached::Db,
    user_id: Uuid,
    client_id: Uuid,
    scope: &str,
) -> Result<bool, AuthError> {
    let row = db
        .cached_query_opt(
            "select scopes from auth.oauth_consents where user_id = $1 and client_id = $2 and revoked_at is null",
            &[&user_id, &client_id],
        )
        .await?;
    Ok(row.is_some_and(|row| {
        let granted: String = row.get(0);
        let granted = scopes(&granted);
        scopes(scope).iter().all(|s| granted.contains(s))
    }))
}

/// Record (or renew) the user's consent to the client for `scope`.
pub async fn record_consent(
    db: &impl crate::db::cached::Db,
    user_id: Uuid,
    client_id: Uuid,
    scope: &str,
) -> Result<(), AuthError> {
    db.cached_execute(
        "insert into auth.oauth_consents (id, user_id, client_id, scopes) values (gen_random_uuid(), $1, $2, $3) \
         on conflict (user_id, client_id) do update set scopes = excluded.scopes, granted_at = now(), revoked_at = null",
        &[&user_id, &client_id, &scopes(scope).join(" ")],
    )
    .await?;
    Ok(())
}

/// The user's active grants to clients that still exist, newest first, as GoTrue lists them.
pub async fn grants(db: &impl crate::db::cached::Db, user_id: Uuid) -> Result<Vec<Value>, AuthError> {
    let rows = db
        .cached_query(
            "select c.id, c.client_name, c.client_uri, c.logo_uri, o.scopes, o.granted_at \
             from auth.oauth_consents o join auth.oauth_clients c on c.id = o.client_id and c.deleted_at is null \
             where o.user_id = $1 and o.revoked_at is null order by o.granted_at desc",
            &[&user_id],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| {
            let mut client = json!({ "id": row.get::<_, Uuid>(0) });
            for (at, key) in [(1, "name"), (2, "uri"), (3, "logo_uri")] {
                if let Some(value) = row.get::<_, Option<String>>(at).filter(|v| !v.is_empty()) {
                    client[key] = json!(value);
                }
            }
            let granted: String = row.get(4);
            json!({ "client": client, "scopes": scopes(&granted), "granted_at": users::time(row.get::<_, DateTime<Utc>>(5)) })
        })
        .collect())
}

/// Revoke the user's grant to the client and end the sessions it gave; false if there was none.
pub async fn revoke(db: &impl crate::db::cached::Db, user_id: Uuid, client_id: Uuid) -> Result<bool, AuthError> {
    let revoked = db
        .cached_execute(
            "update auth.oauth_consents set revoked_at = now() \
             where user_id = $1 and client_id = $2 and revoked_at is null",
            &[&user_id, &client_id],
        )
        .await?;
    if revoked == 0 {
        return Ok(false);
    }
    db.cached_execute("delete from auth.sessions where user_id = $1 and oauth_client_id = $2", &[&user_id, &client_id])
        .await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_lists_split_on_spaces_and_drop_blanks() {
        assert_eq!(scopes(" openid  email "), vec!["openid", "email"]);
        assert!(scopes("").is_empty());
    }
}
