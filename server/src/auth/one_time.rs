//! One-time tokens (confirmation, recovery / magic link, e-mail change, phone change): their hashes are kept
//! in `auth.users`' token columns and mirrored in `auth.one_time_tokens`, as GoTrue keeps them.
//!
//! Only storage lives here: making, mailing and checking tokens is `flows`' business. Column
//! names come from [`TokenColumn`], never from input.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::error::AuthError;
use super::users::{User, COLUMNS};

/// The token columns of `auth.users`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenColumn {
    Confirmation,
    Recovery,
    EmailChangeNew,
    EmailChangeCurrent,
    /// The code texted to the new number of a phone change.
    PhoneChange,
    /// The nonce of `/reauthenticate`.
    Reauthentication,
}

impl TokenColumn {
    /// Column name (a fixed identifier, never user input).
    pub fn name(self) -> &'static str {
        match self {
            TokenColumn::Confirmation => "confirmation_token",
            TokenColumn::Recovery => "recovery_token",
            TokenColumn::EmailChangeNew => "email_change_token_new",
            TokenColumn::EmailChangeCurrent => "email_change_token_current",
            TokenColumn::PhoneChange => "phone_change_token",
            TokenColumn::Reauthentication => "reauthentication_token",
        }
    }

    fn sent_at(self) -> &'static str {
        match self {
            TokenColumn::Confirmation => "confirmation_sent_at",
            TokenColumn::Recovery => "recovery_sent_at",
            TokenColumn::EmailChangeNew | TokenColumn::EmailChangeCurrent => "email_change_sent_at",
            TokenColumn::PhoneChange => "phone_change_sent_at",
            TokenColumn::Reauthentication => "reauthentication_sent_at",
        }
    }

    fn one_time_type(self) -> &'static str {
        match self {
            TokenColumn::Confirmation => "confirmation_token",
            TokenColumn::Recovery => "recovery_token",
            TokenColumn::EmailChangeNew => "email_change_token_new",
            TokenColumn::EmailChangeCurrent => "email_change_token_current",
            TokenColumn::PhoneChange => "phone_change_token",
            TokenColumn::Reauthentication => "reauthentication_token",
        }
    }
}

/// Store a token hash (and its send time), mirrored in `auth.one_time_tokens` as GoTrue does.
pub async fn set_token(
    db: &impl crate::db::cached::Db,
    id: Uuid,
    column: TokenColumn,
    hash: &str,
    relates_to: &str,
) -> Result<(), AuthError> {
    let sql = format!(
        "update auth.users set {} = $2, {} = now(), updated_at = now() where id = $1",
        column.name(),
        column.sent_at()
    );
    db.cached_execute(&sql, &[&id, &hash]).await?;
    db.cached_execute(
        "insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to) \
         values ($1, $2, $3::text::auth.one_time_token_type, $4, $5) \
         on conflict (user_id, token_type) do update set token_hash = excluded.token_hash, \
             relates_to = excluded.relates_to, updated_at = now()",
        &[&Uuid::new_v4(), &id, &column.one_time_type(), &hash, &relates_to],
    )
    .await?;
    Ok(())
}

/// Forget a used token.
pub async fn clear_token(db: &impl crate::db::cached::Db, id: Uuid, column: TokenColumn) -> Result<(), AuthError> {
    let sql = format!("update auth.users set {} = '' where id = $1", column.name());
    db.cached_execute(&sql, &[&id]).await?;
    db.cached_execute(
        "delete from auth.one_time_tokens where user_id = $1 and token_type = $2::text::auth.one_time_token_type",
        &[&id, &column.one_time_type()],
    )
    .await?;
    Ok(())
}

/// When the token in `column` was sent.
pub fn sent_at(user: &User, column: TokenColumn) -> Option<DateTime<Utc>> {
    match column {
        TokenColumn::Confirmation => user.confirmation_sent_at,
        TokenColumn::Recovery => user.recovery_sent_at,
        TokenColumn::EmailChangeNew | TokenColumn::EmailChangeCurrent => user.email_change_sent_at,
        TokenColumn::PhoneChange => user.phone_change_sent_at,
        TokenColumn::Reauthentication => user.reauthentication_sent_at,
    }
}

/// The user with a token pending in `column` for the number `phone`: the account's number for a
/// confirmation or a reauthentication, the new number for a phone change. For codes a provider
/// makes and checks (Twilio Verify), whose hash the server cannot know.
pub async fn by_pending_number(
    db: &impl crate::db::cached::Db,
    column: TokenColumn,
    phone: &str,
) -> Result<Option<User>, AuthError> {
    let number = match column {
        TokenColumn::PhoneChange => "phone_change",
        _ => "phone",
    };
    let sql = format!(
        "select {COLUMNS} from auth.users u where u.{number} = $1 and coalesce(u.{}, '') <> '' limit 1",
        column.name()
    );
    Ok(db.cached_query_opt(&sql, &[&phone]).await?.as_ref().map(User::from_row))
}

/// The user holding a token hash in `column` (one of the token columns), with when it was sent.
pub async fn by_token(
    db: &impl crate::db::cached::Db,
    column: TokenColumn,
    hash: &str,
) -> Result<Option<User>, AuthError> {
    let sql = format!("select {COLUMNS} from auth.users u where u.{} = $1 and $1 <> ''", column.name());
    Ok(db.cached_query_opt(&sql, &[&hash]).await?.as_ref().map(User::from_row))
}
