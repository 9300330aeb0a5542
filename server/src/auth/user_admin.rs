//! What an administrator does to users, shared by the admin API (`/auth/v1/admin/*`, `/invite`)
//! and the studio's Auth screen: create, invite, mail a recovery or magic link, ban and unban,
//! delete (soft or hard, as GoTrue's admin API), sign out everywhere, replace metadata.
//!
//! Each action runs inside the caller's transaction (so the studio commits its own audit row
//! with it) and writes GoTrue's audit entry under the [`Actor`] it is given. Checks that need no
//! database (the address, the password's strength and hashing, a ban's duration) are done before
//! a transaction is opened, by [`NewAccount::checked`] and [`ban_until`]. Nothing here reads a
//! request: the handlers and the studio parse their own.

use chrono::{DateTime, Duration, Utc};
use deadpool_postgres::Transaction;
use serde_json::{json, Value};
use uuid::Uuid;

use super::error::AuthError;
use super::flows::{self, LinkType};
use super::users::{self, NewUser, User};
use super::{audit, password, sessions, AuthState};

/// Who acts, as GoTrue's audit log names them (`actor_username`) and where from.
#[derive(Debug, Clone, Copy)]
pub struct Actor<'a> {
    pub name: &'a str,
    pub ip: &'a str,
}

/// Runs `work` in one transaction of the auth pool and commits it; an error rolls it back.
pub async fn in_transaction<T>(
    state: &AuthState,
    work: impl AsyncFnOnce(&Transaction<'_>) -> Result<T, AuthError>,
) -> Result<T, AuthError> {
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let out = work(&tx).await?;
    tx.commit().await?;
    Ok(out)
}

/// The user with this id, or 404 `user_not_found`.
pub async fn existing(db: &impl crate::db::cached::Db, id: Uuid) -> Result<User, AuthError> {
    users::by_id(db, id).await?.ok_or(AuthError::NotFoundUser)
}

/// Parse a ban duration (`none`, or Go-style `1h30m`, `90s`, `24h`): the end of the ban, or
/// `None` to lift it.
pub fn ban_until(value: &str) -> Result<Option<DateTime<Utc>>, AuthError> {
    if value == "none" {
        return Ok(None);
    }
    let invalid = || AuthError::Validation("invalid format for ban duration".into());
    let mut total = 0i64;
    let mut number = String::new();
    for c in value.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let n: i64 = number.parse().map_err(|_| invalid())?;
        number.clear();
        let unit = match c {
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return Err(invalid()),
        };
        // Every step is checked: a duration past what a date can hold is refused, not a panic.
        total = n.checked_mul(unit).and_then(|secs| total.checked_add(secs)).ok_or_else(invalid)?;
    }
    if !number.is_empty() || total <= 0 {
        return Err(invalid());
    }
    Duration::try_seconds(total).and_then(|d| Utc::now().checked_add_signed(d)).map(Some).ok_or_else(invalid)
}

/// A password checked and hashed, or an imported bcrypt / argon2 hash (which wins), or none.
pub async fn password_hash(
    state: &AuthState,
    plain: Option<&str>,
    imported: Option<&str>,
) -> Result<Option<String>, AuthError> {
    if let Some(hash) = imported.filter(|h| !h.is_empty()) {
        if !password::is_supported_hash(hash) {
            return Err(AuthError::Validation("Invalid password hash: only bcrypt and argon2 are supported".into()));
        }
        return Ok(Some(hash.to_string()));
    }
    match plain {
        Some(plain) => {
            state.check_password(plain)?;
            Ok(Some(password::hash(plain.to_string()).await?))
        }
        None => Ok(None),
    }
}

/// What an administrator asks for a new user (the admin API's `POST /admin/users` body).
#[derive(Debug, Default, Clone)]
pub struct AccountRequest<'a> {
    pub email: Option<&'a str>,
    pub password: Option<&'a str>,
    pub password_hash: Option<&'a str>,
    pub email_confirm: bool,
    pub user_metadata: Option<Value>,
    pub app_metadata: Option<Value>,
    pub role: Option<String>,
    pub ban_duration: Option<&'a str>,
}

/// A new user, checked and with its password hashed, ready for [`create`].
#[derive(Debug, Clone)]
pub struct NewAccount {
    user: NewUser,
    banned_until: Option<DateTime<Utc>>,
}

impl NewAccount {
    /// Check the address, the password (hashed here, outside any transaction) and the ban, in
    /// the order GoTrue reports them.
    pub async fn checked(state: &AuthState, req: AccountRequest<'_>) -> Result<NewAccount, AuthError> {
        let email = users::checked_email(req.email)?;
        let hash = password_hash(state, req.password, req.password_hash).await?;
        let banned_until = match req.ban_duration {
            Some(d) => ban_until(d)?,
            None => None,
        };
        let object = |v: Option<Value>| v.filter(Value::is_object).unwrap_or_else(|| json!({}));
        Ok(NewAccount {
            user: NewUser {
                email,
                encrypted_password: hash,
                user_metadata: object(req.user_metadata),
                app_metadata: object(req.app_metadata),
                confirmed: req.email_confirm,
                role: req.role.unwrap_or_else(|| "authenticated".into()),
                invited: false,
            },
            banned_until,
        })
    }
}

/// Create a user (its `email` identity with it); 422 `email_exists` when the address is taken.
pub async fn create(db: &impl crate::db::cached::Db, new: &NewAccount, actor: Actor<'_>) -> Result<User, AuthError> {
    let user = users::insert(db, &new.user).await?.ok_or(AuthError::EmailExists)?;
    if new.banned_until.is_some() {
        db.cached_execute("update auth.users set banned_until = $2 where id = $1", &[&user.id, &new.banned_until])
            .await?;
    }
    let traits = json!({"provider": "email", "by": "admin"});
    audit::log(db, Some(user.id), actor.name, "user_signedup", traits, actor.ip).await;
    existing(db, user.id).await
}

/// The unconfirmed user with this address, or a new one (invited or not); 422 `email_exists`
/// when the address belongs to a confirmed user.
pub async fn unconfirmed_or_new(
    db: &impl crate::db::cached::Db,
    email: &str,
    password_hash: Option<String>,
    data: Option<Value>,
    invited: bool,
) -> Result<User, AuthError> {
    match users::by_email(db, email).await? {
        Some(user) if user.is_confirmed() => Err(AuthError::EmailExists),
        Some(user) => Ok(user),
        None => {
            let new = NewUser {
                email: email.to_string(),
                encrypted_password: password_hash,
                user_metadata: data.filter(Value::is_object).unwrap_or_else(|| json!({})),
                app_metadata: json!({}),
                confirmed: false,
                role: "authenticated".into(),
                invited,
            };
            users::insert(db, &new).await?.ok_or(AuthError::EmailExists)
        }
    }
}

/// Invite `email` (checked by [`users::checked_email`]): a new unconfirmed user, or the
/// unconfirmed one that has this address, gets the invite mail through the auth mailer.
pub async fn invite(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    email: &str,
    data: Option<Value>,
    redirect: &str,
    actor: Actor<'_>,
) -> Result<User, AuthError> {
    let user = unconfirmed_or_new(db, email, None, data, true).await?;
    flows::send_link(state, db, &user, LinkType::Invite, None, redirect, false).await?;
    audit::log(db, Some(user.id), actor.name, "user_invited", json!({"user_email": email}), actor.ip).await;
    existing(db, user.id).await
}

/// Which link an administrator mails to an existing user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailedLink {
    Recovery,
    MagicLink,
}

/// Mail a recovery or magic link to a user with an address (a magic link to an unconfirmed user
/// is its sign-up confirmation, as `/magiclink` sends it); the per-user spacing applies.
pub async fn send_link(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    id: Uuid,
    link: MailedLink,
    redirect: &str,
    actor: Actor<'_>,
) -> Result<User, AuthError> {
    let user = existing(db, id).await?;
    if user.email_str().is_empty() {
        return Err(AuthError::Validation("This user has no e-mail address".into()));
    }
    let (link_type, traits) = match link {
        MailedLink::Recovery => (LinkType::Recovery, json!({"by": "admin"})),
        MailedLink::MagicLink if user.is_confirmed() => {
            (LinkType::MagicLink, json!({"by": "admin", "magiclink": true}))
        }
        MailedLink::MagicLink => (LinkType::Signup, json!({"by": "admin", "magiclink": true})),
    };
    flows::send_link(state, db, &user, link_type, None, redirect, false).await?;
    audit::log(db, Some(user.id), actor.name, "user_recovery_requested", traits, actor.ip).await;
    existing(db, id).await
}

/// Ban a user until `until` (their sessions and refresh tokens end at once), or lift the ban
/// with `None`.
pub async fn ban(db: &impl crate::db::cached::Db, id: Uuid, until: Option<DateTime<Utc>>) -> Result<(), AuthError> {
    db.cached_execute("update auth.users set banned_until = $2, updated_at = now() where id = $1", &[&id, &until])
        .await?;
    if until.is_some() {
        sessions::logout(db, id, None, sessions::Scope::Global).await?;
    }
    Ok(())
}

/// Delete a user: for good (identities, sessions, factors go with it by their foreign keys), or
/// softly as GoTrue does (the row stays with `deleted_at`, its address, password, metadata,
/// identities and sessions are gone).
pub async fn delete(db: &impl crate::db::cached::Db, id: Uuid, soft: bool, actor: Actor<'_>) -> Result<(), AuthError> {
    let user = existing(db, id).await?;
    if soft {
        db.cached_execute("delete from auth.sessions where user_id = $1", &[&id]).await?;
        db.cached_execute(
            "update auth.users set deleted_at = now(), email = null, encrypted_password = '', \
                 raw_app_meta_data = '{}', raw_user_meta_data = '{}', updated_at = now() where id = $1",
            &[&id],
        )
        .await?;
        db.cached_execute("delete from auth.identities where user_id = $1", &[&id]).await?;
    } else {
        db.cached_execute("delete from auth.users where id = $1", &[&id]).await?;
    }
    let traits = json!({"user_email": user.email_str()});
    audit::log(db, Some(id), actor.name, "user_deleted", traits, actor.ip).await;
    Ok(())
}

/// End every session of a user (their refresh tokens go with them); how many ended.
/// A factor as the admin factors API answers it (GoTrue's `Factor` JSON).
pub const FACTOR_JSON: &str = "json_build_object('id', f.id, 'friendly_name', coalesce(f.friendly_name, ''), \
    'factor_type', f.factor_type, 'status', f.status, \
    'created_at', to_char(f.created_at at time zone 'utc', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), \
    'updated_at', to_char(f.updated_at at time zone 'utc', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'))";

/// Remove the MFA factor `factor` of user `id` (the sessions it raised drop to aal1), with
/// GoTrue's `factor_deleted` audit entry; the deleted factor's JSON.
pub async fn delete_factor(
    db: &impl crate::db::cached::Db,
    id: Uuid,
    factor: Uuid,
    actor: Actor<'_>,
) -> Result<Value, AuthError> {
    let user = existing(db, id).await?;
    let sql = format!("delete from auth.mfa_factors f where f.id = $1 and f.user_id = $2 returning {FACTOR_JSON}");
    let deleted: Value =
        db.cached_query_opt(&sql, &[&factor, &user.id]).await?.ok_or(AuthError::MfaFactorNotFound)?.get(0);
    db.cached_execute(
        "update auth.sessions set aal = 'aal1', factor_id = null, updated_at = now() where user_id = $1 and factor_id = $2",
        &[&user.id, &factor],
    )
    .await?;
    audit::log(db, Some(user.id), actor.name, "factor_deleted", json!({"factor_id": factor}), actor.ip).await;
    Ok(deleted)
}

pub async fn sign_out_all(db: &impl crate::db::cached::Db, id: Uuid, actor: Actor<'_>) -> Result<u64, AuthError> {
    existing(db, id).await?;
    let ended = sessions::logout(db, id, None, sessions::Scope::Global).await?;
    audit::log(db, Some(id), actor.name, "logout", json!({"by": "admin", "scope": "global"}), actor.ip).await;
    Ok(ended)
}

/// Replace a user's app and/or user metadata with the objects given (not merged: what the
/// operator edited is what is kept).
pub async fn replace_metadata(
    db: &impl crate::db::cached::Db,
    id: Uuid,
    app: Option<&Value>,
    user: Option<&Value>,
    actor: Actor<'_>,
) -> Result<User, AuthError> {
    existing(db, id).await?;
    for value in [app, user].into_iter().flatten() {
        if !value.is_object() {
            return Err(AuthError::Validation("Metadata must be a JSON object".into()));
        }
    }
    db.cached_execute(
        "update auth.users set raw_app_meta_data = coalesce($2, raw_app_meta_data), \
             raw_user_meta_data = coalesce($3, raw_user_meta_data), updated_at = now() where id = $1",
        &[&id, &app, &user],
    )
    .await?;
    audit::log(db, Some(id), actor.name, "user_modified", json!({"by": "admin", "metadata": true}), actor.ip).await;
    existing(db, id).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ban_durations_in_go_syntax_are_read() {
        let until = ban_until("1h30m").unwrap().unwrap();
        let secs = (until - Utc::now()).num_seconds();
        assert!((5390..=5400).contains(&secs), "{secs}");
        assert_eq!(ban_until("none").unwrap(), None);
    }

    #[test]
    fn a_ban_duration_too_large_for_a_date_is_refused_not_a_panic() {
        for value in ["99999999999h", "9223372036854775807s", "2562047788015216h", "99999999999h99999999999h"] {
            assert!(matches!(ban_until(value), Err(AuthError::Validation(_))), "{value}");
        }
        for value in ["", "h", "1x", "1h2", "0s", "-1h"] {
            assert!(ban_until(value).is_err(), "{value}");
        }
    }
}
