//! SQL on `auth.users` and `auth.identities`, and the user's JSON as GoTrue shapes it.
//!
//! Every statement uses bind parameters and runs on the caller's connection or transaction
//! (the admin pool: auth work does not depend on the request's role). Addresses are stored
//! lower-case. `User::to_json` leaves out null fields exactly where GoTrue's `omitempty` does.
//! This module makes no decision about who may do what: handlers decide.

use std::sync::LazyLock;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Map, Value};
use tokio_postgres::Row;
use uuid::Uuid;

use super::error::AuthError;

/// Columns read for a user, with its identities and factors as JSON.
pub(crate) const COLUMNS: &str = "u.id, u.aud, u.role, u.email, u.encrypted_password, u.email_confirmed_at, u.invited_at, \
    u.phone, u.phone_confirmed_at, u.confirmation_sent_at, u.confirmed_at, u.recovery_sent_at, u.email_change, \
    u.email_change_sent_at, u.last_sign_in_at, u.raw_app_meta_data, u.raw_user_meta_data, u.created_at, \
    u.updated_at, u.banned_until, u.deleted_at, u.is_anonymous, u.phone_change, u.phone_change_sent_at, \
    u.reauthentication_sent_at, \
    (select coalesce(json_agg(json_build_object('identity_id', i.id, 'id', i.provider_id, 'user_id', i.user_id, \
        'identity_data', i.identity_data, 'provider', i.provider, 'last_sign_in_at', to_char(i.last_sign_in_at at time zone 'utc', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), \
        'created_at', to_char(i.created_at at time zone 'utc', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), 'updated_at', to_char(i.updated_at at time zone 'utc', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), 'email', i.email) order by i.created_at), '[]') \
     from auth.identities i where i.user_id = u.id) as identities, \
    (select json_agg(json_build_object('id', f.id, 'friendly_name', coalesce(f.friendly_name, ''), \
        'factor_type', f.factor_type, 'status', f.status, 'created_at', to_char(f.created_at at time zone 'utc', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), \
        'updated_at', to_char(f.updated_at at time zone 'utc', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')) \
        order by f.created_at) from auth.mfa_factors f where f.user_id = u.id) as factors";

/// A row of `auth.users` as the API needs it.
#[derive(Debug, Clone)]
pub struct User {
    pub id: Uuid,
    pub aud: String,
    pub role: String,
    pub email: Option<String>,
    pub encrypted_password: Option<String>,
    pub email_confirmed_at: Option<DateTime<Utc>>,
    pub invited_at: Option<DateTime<Utc>>,
    pub phone: Option<String>,
    pub phone_confirmed_at: Option<DateTime<Utc>>,
    pub confirmation_sent_at: Option<DateTime<Utc>>,
    pub confirmed_at: Option<DateTime<Utc>>,
    pub recovery_sent_at: Option<DateTime<Utc>>,
    pub email_change: Option<String>,
    pub email_change_sent_at: Option<DateTime<Utc>>,
    pub last_sign_in_at: Option<DateTime<Utc>>,
    pub app_metadata: Value,
    pub user_metadata: Value,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub banned_until: Option<DateTime<Utc>>,
    pub deleted_at: Option<DateTime<Utc>>,
    pub is_anonymous: bool,
    pub phone_change: Option<String>,
    pub phone_change_sent_at: Option<DateTime<Utc>>,
    pub reauthentication_sent_at: Option<DateTime<Utc>>,
    pub identities: Value,
    pub factors: Option<Value>,
}

impl User {
    pub(crate) fn from_row(row: &Row) -> User {
        let now = Utc::now();
        User {
            id: row.get("id"),
            aud: row.get::<_, Option<String>>("aud").unwrap_or_default(),
            role: row.get::<_, Option<String>>("role").unwrap_or_default(),
            email: row.get("email"),
            encrypted_password: row.get("encrypted_password"),
            email_confirmed_at: row.get("email_confirmed_at"),
            invited_at: row.get("invited_at"),
            phone: row.get("phone"),
            phone_confirmed_at: row.get("phone_confirmed_at"),
            confirmation_sent_at: row.get("confirmation_sent_at"),
            confirmed_at: row.get("confirmed_at"),
            recovery_sent_at: row.get("recovery_sent_at"),
            email_change: row.get("email_change"),
            email_change_sent_at: row.get("email_change_sent_at"),
            last_sign_in_at: row.get("last_sign_in_at"),
            app_metadata: row.get::<_, Option<Value>>("raw_app_meta_data").unwrap_or_else(|| json!({})),
            user_metadata: row.get::<_, Option<Value>>("raw_user_meta_data").unwrap_or_else(|| json!({})),
            created_at: row.get::<_, Option<DateTime<Utc>>>("created_at").unwrap_or(now),
            updated_at: row.get::<_, Option<DateTime<Utc>>>("updated_at").unwrap_or(now),
            banned_until: row.get("banned_until"),
            deleted_at: row.get("deleted_at"),
            is_anonymous: row.get("is_anonymous"),
            phone_change: row.get("phone_change"),
            phone_change_sent_at: row.get("phone_change_sent_at"),
            reauthentication_sent_at: row.get("reauthentication_sent_at"),
            identities: row.get::<_, Option<Value>>("identities").unwrap_or_else(|| json!([])),
            factors: row.get("factors"),
        }
    }

    /// Whether the e-mail address is confirmed.
    pub fn is_confirmed(&self) -> bool {
        self.email_confirmed_at.is_some()
    }

    /// Whether the user is banned right now.
    pub fn is_banned(&self) -> bool {
        self.banned_until.is_some_and(|until| until > Utc::now())
    }

    /// The e-mail address, or "".
    pub fn email_str(&self) -> &str {
        self.email.as_deref().unwrap_or_default()
    }

    /// The claims of an access token of this user's (the same whether a sign-in issues the token
    /// or the dashboard runs SQL as the user).
    pub fn access_claims(
        &self,
        issuer: &str,
        iat: i64,
        exp: i64,
        aal: String,
        amr: Vec<super::tokens::Amr>,
        session_id: String,
    ) -> super::tokens::AccessClaims {
        super::tokens::AccessClaims {
            iss: issuer.to_string(),
            sub: self.id.to_string(),
            aud: self.aud.clone(),
            exp,
            iat,
            email: self.email_str().to_string(),
            phone: self.phone.clone().unwrap_or_default(),
            app_metadata: self.app_metadata.clone(),
            user_metadata: self.user_metadata.clone(),
            role: self.role.clone(),
            aal,
            amr,
            session_id,
            is_anonymous: self.is_anonymous,
            client_id: None,
            scope: None,
        }
    }

    /// GoTrue's `User` object: null timestamps and empty strings left out where it omits them.
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("id".into(), json!(self.id));
        o.insert("aud".into(), json!(self.aud));
        o.insert("role".into(), json!(self.role));
        o.insert("email".into(), json!(self.email_str()));
        put_time(&mut o, "email_confirmed_at", self.email_confirmed_at);
        put_time(&mut o, "invited_at", self.invited_at);
        o.insert("phone".into(), json!(self.phone.as_deref().unwrap_or_default()));
        put_time(&mut o, "phone_confirmed_at", self.phone_confirmed_at);
        put_time(&mut o, "confirmation_sent_at", self.confirmation_sent_at);
        put_time(&mut o, "confirmed_at", self.confirmed_at);
        put_time(&mut o, "recovery_sent_at", self.recovery_sent_at);
        if let Some(new_email) = self.email_change.as_deref().filter(|e| !e.is_empty()) {
            o.insert("new_email".into(), json!(new_email));
        }
        put_time(&mut o, "email_change_sent_at", self.email_change_sent_at);
        if let Some(new_phone) = self.phone_change.as_deref().filter(|p| !p.is_empty()) {
            o.insert("new_phone".into(), json!(new_phone));
            put_time(&mut o, "phone_change_sent_at", self.phone_change_sent_at);
        }
        put_time(&mut o, "last_sign_in_at", self.last_sign_in_at);
        o.insert("app_metadata".into(), self.app_metadata.clone());
        o.insert("user_metadata".into(), self.user_metadata.clone());
        if let Some(factors) = self.factors.as_ref().filter(|f| f.as_array().is_some_and(|a| !a.is_empty())) {
            o.insert("factors".into(), factors.clone());
        }
        o.insert("identities".into(), self.identities.clone());
        o.insert("created_at".into(), json!(time(self.created_at)));
        o.insert("updated_at".into(), json!(time(self.updated_at)));
        put_time(&mut o, "banned_until", self.banned_until);
        put_time(&mut o, "deleted_at", self.deleted_at);
        o.insert("is_anonymous".into(), json!(self.is_anonymous));
        Value::Object(o)
    }
}

/// RFC 3339 in UTC with microseconds, as GoTrue prints times.
pub fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

fn put_time(o: &mut Map<String, Value>, key: &str, t: Option<DateTime<Utc>>) {
    if let Some(t) = t {
        o.insert(key.into(), json!(time(t)));
    }
}

/// The user with this id.
pub async fn by_id(db: &impl crate::db::cached::Db, id: Uuid) -> Result<Option<User>, AuthError> {
    static SQL: LazyLock<String> = LazyLock::new(|| format!("select {COLUMNS} from auth.users u where u.id = $1"));
    Ok(db.cached_query_opt(SQL.as_str(), &[&id]).await?.as_ref().map(User::from_row))
}

/// The user with this id and whether the session `session` (when given) still exists, in one
/// round trip.
pub async fn by_id_with_session(
    db: &impl crate::db::cached::Db,
    id: Uuid,
    session: Option<Uuid>,
) -> Result<Option<(User, bool)>, AuthError> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "select {COLUMNS}, $2::uuid is null or exists (select 1 from auth.sessions s where s.id = $2) as session_exists \
             from auth.users u where u.id = $1"
        )
    });
    let row = db.cached_query_opt(SQL.as_str(), &[&id, &session]).await?;
    Ok(row.map(|row| (User::from_row(&row), row.get("session_exists"))))
}

/// The (non-SSO) user with this address, compared lower-case.
pub async fn by_email(db: &impl crate::db::cached::Db, email: &str) -> Result<Option<User>, AuthError> {
    static SQL: LazyLock<String> =
        LazyLock::new(|| format!("select {COLUMNS} from auth.users u where u.email = lower($1) and not u.is_sso_user"));
    Ok(db.cached_query_opt(SQL.as_str(), &[&email]).await?.as_ref().map(User::from_row))
}

/// The user with this phone number (E.164 digits, as stored).
pub async fn by_phone(db: &impl crate::db::cached::Db, phone: &str) -> Result<Option<User>, AuthError> {
    static SQL: LazyLock<String> =
        LazyLock::new(|| format!("select {COLUMNS} from auth.users u where u.phone = $1 and not u.is_sso_user"));
    Ok(db.cached_query_opt(SQL.as_str(), &[&phone]).await?.as_ref().map(User::from_row))
}

/// Insert a user known by its phone number (provider `phone`) and its `phone` identity;
/// `Ok(None)` when the number is taken.
pub async fn insert_phone(
    db: &impl crate::db::cached::Db,
    phone: &str,
    encrypted_password: &str,
    user_metadata: &Value,
    confirmed: bool,
) -> Result<Option<User>, AuthError> {
    let id = Uuid::new_v4();
    let inserted = db
        .cached_query_opt(
            "insert into auth.users (instance_id, id, aud, role, phone, encrypted_password, phone_confirmed_at, \
                 raw_app_meta_data, raw_user_meta_data, is_super_admin, created_at, updated_at, is_anonymous) \
             values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', $2, $3, \
                 case when $4 then now() end, '{\"provider\": \"phone\", \"providers\": [\"phone\"]}', $5, \
                 false, now(), now(), false) \
             on conflict do nothing returning id",
            &[&id, &phone, &encrypted_password, &confirmed, user_metadata],
        )
        .await?;
    if inserted.is_none() {
        return Ok(None);
    }
    db.cached_execute(
        "insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at) \
         values ($1::uuid::text, $1, jsonb_build_object('sub', $1::uuid::text, 'phone', $2::text, \
             'phone_verified', $3::boolean, 'email_verified', false), 'phone', now(), now(), now())",
        &[&id, &phone, &confirmed],
    )
    .await?;
    by_id(db, id).await
}

/// The user of an external identity (`provider`, the provider's `sub`).
pub async fn by_identity(
    db: &impl crate::db::cached::Db,
    provider: &str,
    sub: &str,
) -> Result<Option<User>, AuthError> {
    let row = db
        .cached_query_opt(
            "select user_id from auth.identities where provider = $1 and provider_id = $2",
            &[&provider, &sub],
        )
        .await?;
    match row {
        Some(row) => by_id(db, row.get(0)).await,
        None => Ok(None),
    }
}

/// Record an external identity of `id` (or refresh its data), adding the provider to the user's
/// `app_metadata.providers`.
pub async fn link_identity(
    db: &impl crate::db::cached::Db,
    id: Uuid,
    provider: &str,
    sub: &str,
    data: &Value,
) -> Result<(), AuthError> {
    db.cached_execute(
        "insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at) \
         values ($1, $2, $3, $4, now(), now(), now()) \
         on conflict (provider_id, provider) do update set identity_data = excluded.identity_data, \
             last_sign_in_at = now(), updated_at = now()",
        &[&sub, &id, data, &provider],
    )
    .await?;
    db.cached_execute(
        "update auth.users set raw_app_meta_data = jsonb_set(coalesce(raw_app_meta_data, '{}'), '{providers}', \
             (select coalesce(jsonb_agg(distinct p), '[]') from jsonb_array_elements_text( \
                 coalesce(raw_app_meta_data->'providers', '[]') || jsonb_build_array($2::text)) p)), \
             updated_at = now() where id = $1",
        &[&id, &provider],
    )
    .await?;
    Ok(())
}

/// What `unlink_identity` did.
pub enum Unlinked {
    Done,
    NotFound,
    LastOne,
}

/// Remove identity `identity` (its `identity_id`) of user `id`, unless it is the user's last one;
/// the provider leaves `app_metadata.providers` when no identity of it remains.
pub async fn unlink_identity(db: &impl crate::db::cached::Db, id: Uuid, identity: Uuid) -> Result<Unlinked, AuthError> {
    let count: i64 =
        db.cached_query_one("select count(*) from auth.identities where user_id = $1", &[&id]).await?.get(0);
    let row = db
        .cached_query_opt("select provider from auth.identities where id = $1 and user_id = $2", &[&identity, &id])
        .await?;
    let Some(row) = row else { return Ok(Unlinked::NotFound) };
    if count <= 1 {
        return Ok(Unlinked::LastOne);
    }
    let provider: String = row.get(0);
    db.cached_execute("delete from auth.identities where id = $1", &[&identity]).await?;
    db.cached_execute(
        "update auth.users set raw_app_meta_data = jsonb_set(coalesce(raw_app_meta_data, '{}'), '{providers}', \
             coalesce((select jsonb_agg(distinct i.provider) from auth.identities i where i.user_id = $1), '[]')) \
             || case when raw_app_meta_data->>'provider' = $2 and not exists \
                 (select 1 from auth.identities i where i.user_id = $1 and i.provider = $2) \
                 then jsonb_build_object('provider', (select i.provider from auth.identities i where i.user_id = $1 \
                     order by i.created_at limit 1)) else '{}'::jsonb end, \
             updated_at = now() where id = $1",
        &[&id, &provider],
    )
    .await?;
    Ok(Unlinked::Done)
}

/// A user made from an external identity: its address (confirmed when the provider vouches for
/// it), `provider` in `app_metadata`, the claims as metadata, the identity.
pub async fn insert_external(
    db: &impl crate::db::cached::Db,
    provider: &str,
    sub: &str,
    email: Option<&str>,
    verified: bool,
    data: &Value,
) -> Result<Option<User>, AuthError> {
    let id = Uuid::new_v4();
    let app = json!({"provider": provider, "providers": [provider]});
    let inserted = db
        .cached_query_opt(
            "insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, \
                 raw_app_meta_data, raw_user_meta_data, is_super_admin, created_at, updated_at, is_anonymous) \
             values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', lower($2), '', \
                 case when $3 then now() end, $4, $5, false, now(), now(), false) \
             on conflict do nothing returning id",
            &[&id, &email, &verified, &app, data],
        )
        .await?;
    if inserted.is_none() {
        return Ok(None);
    }
    link_identity(db, id, provider, sub, data).await?;
    by_id(db, id).await
}

/// Mark the phone number confirmed (and `phone_verified` in the identity).
pub async fn confirm_phone(db: &impl crate::db::cached::Db, id: Uuid) -> Result<(), AuthError> {
    db.cached_execute(
        "update auth.users set phone_confirmed_at = coalesce(phone_confirmed_at, now()), confirmation_token = '', \
             updated_at = now() where id = $1",
        &[&id],
    )
    .await?;
    db.cached_execute(
        "update auth.identities set identity_data = identity_data || '{\"phone_verified\": true}', updated_at = now() \
         where user_id = $1 and provider = 'phone'",
        &[&id],
    )
    .await?;
    Ok(())
}

/// Apply a pending phone change (confirmed): the number, its identity, the user's providers.
/// `false` when another user has taken the number meanwhile.
pub async fn apply_phone_change(db: &impl crate::db::cached::Db, id: Uuid, phone: &str) -> Result<bool, AuthError> {
    let taken = db.cached_query_opt("select 1 from auth.users where phone = $1 and id <> $2", &[&phone, &id]).await?;
    if taken.is_some() {
        return Ok(false);
    }
    db.cached_execute(
        "update auth.users set phone = $2, phone_change = '', phone_change_token = '', phone_change_sent_at = null, \
             phone_confirmed_at = now(), updated_at = now(), \
             raw_app_meta_data = jsonb_set(coalesce(raw_app_meta_data, '{}'), '{providers}', \
                 (select coalesce(jsonb_agg(distinct p), '[]') from jsonb_array_elements_text( \
                     coalesce(raw_app_meta_data->'providers', '[]') || '[\"phone\"]') p)) \
                 || case when is_anonymous then '{\"provider\": \"phone\"}'::jsonb else '{}'::jsonb end, \
             is_anonymous = false \
         where id = $1",
        &[&id, &phone],
    )
    .await?;
    db.cached_execute(
        "insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at) \
         values ($1::uuid::text, $1, jsonb_build_object('sub', $1::uuid::text, 'phone', $2::text, \
             'phone_verified', true, 'email_verified', false), 'phone', now(), now(), now()) \
         on conflict (provider_id, provider) do update set \
             identity_data = auth.identities.identity_data || jsonb_build_object('phone', $2::text, 'phone_verified', true), \
             updated_at = now()",
        &[&id, &phone],
    )
    .await?;
    Ok(true)
}

/// A page of users, newest first, with the total count.
pub async fn page(db: &impl crate::db::cached::Db, page: i64, per_page: i64) -> Result<(Vec<User>, i64), AuthError> {
    let sql = format!("select {COLUMNS} from auth.users u order by u.created_at desc, u.id limit $1 offset $2");
    let rows = db.cached_query(&sql, &[&per_page, &((page - 1) * per_page)]).await?;
    let total: i64 = db.cached_query_one("select count(*) from auth.users", &[]).await?.get(0);
    Ok((rows.iter().map(User::from_row).collect(), total))
}

/// What a new user starts with.
#[derive(Debug, Clone, Default)]
pub struct NewUser {
    pub email: String,
    pub encrypted_password: Option<String>,
    pub user_metadata: Value,
    pub app_metadata: Value,
    pub confirmed: bool,
    pub role: String,
    pub invited: bool,
}

/// Insert a user and its `email` identity; `Ok(None)` when the address is taken.
pub async fn insert(db: &impl crate::db::cached::Db, new: &NewUser) -> Result<Option<User>, AuthError> {
    let id = Uuid::new_v4();
    let email = new.email.to_lowercase();
    let mut app = match &new.app_metadata {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    app.insert("provider".into(), json!("email"));
    app.insert("providers".into(), json!(["email"]));
    let mut meta = match &new.user_metadata {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    let inserted = db
        .cached_query_opt(
            "insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, \
                 invited_at, raw_app_meta_data, raw_user_meta_data, is_super_admin, created_at, updated_at, is_anonymous) \
             values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', $2, $3, $4, \
                 case when $5 then now() end, case when $6 then now() end, $7, $8, false, now(), now(), false) \
             on conflict do nothing returning id",
            &[
                &id,
                &new.role,
                &email,
                &new.encrypted_password.clone().unwrap_or_default(),
                &new.confirmed,
                &new.invited,
                &Value::Object(app),
                &Value::Object(meta.clone()),
            ],
        )
        .await?;
    if inserted.is_none() {
        return Ok(None);
    }
    meta.insert("sub".into(), json!(id.to_string()));
    meta.insert("email".into(), json!(email));
    meta.insert("email_verified".into(), json!(new.confirmed));
    meta.insert("phone_verified".into(), json!(false));
    db.cached_execute(
        "insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at) \
         values ($1, $2, $3, 'email', now(), now(), now())",
        &[&id.to_string(), &id, &Value::Object(meta)],
    )
    .await?;
    by_id(db, id).await
}

/// Insert an anonymous user: no address, no password, no identity, provider `anonymous`.
pub async fn insert_anonymous(db: &impl crate::db::cached::Db, user_metadata: &Value) -> Result<User, AuthError> {
    let id = Uuid::new_v4();
    db.cached_execute(
        "insert into auth.users (instance_id, id, aud, role, encrypted_password, raw_app_meta_data, \
             raw_user_meta_data, is_super_admin, created_at, updated_at, is_anonymous) \
         values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', '', \
             '{\"provider\": \"anonymous\", \"providers\": [\"anonymous\"]}', $2, false, now(), now(), true)",
        &[&id, user_metadata],
    )
    .await?;
    by_id(db, id).await?.ok_or(AuthError::UserFromJwtMissing)
}

/// Mark the address confirmed (and `email_verified` in the metadata and identity).
pub async fn confirm_email(db: &impl crate::db::cached::Db, id: Uuid) -> Result<(), AuthError> {
    db.cached_execute(
        "update auth.users set email_confirmed_at = coalesce(email_confirmed_at, now()), confirmation_token = '', \
             raw_user_meta_data = coalesce(raw_user_meta_data, '{}') || '{\"email_verified\": true}', updated_at = now() \
         where id = $1",
        &[&id],
    )
    .await?;
    db.cached_execute(
        "update auth.identities set identity_data = identity_data || '{\"email_verified\": true}', updated_at = now() \
         where user_id = $1 and provider = 'email'",
        &[&id],
    )
    .await?;
    db.cached_execute(
        "delete from auth.one_time_tokens where user_id = $1 and token_type = 'confirmation_token'",
        &[&id],
    )
    .await?;
    Ok(())
}

/// Record a successful sign-in.
pub async fn touch_sign_in(db: &impl crate::db::cached::Db, id: Uuid) -> Result<(), AuthError> {
    db.cached_execute("update auth.users set last_sign_in_at = now(), updated_at = now() where id = $1", &[&id])
        .await?;
    Ok(())
}

/// Set a new password hash and forget outstanding tokens, as GoTrue does on a password change.
pub async fn set_password(db: &impl crate::db::cached::Db, id: Uuid, hash: &str) -> Result<(), AuthError> {
    db.cached_execute(
        "update auth.users set encrypted_password = $2, recovery_token = '', confirmation_token = '', \
             updated_at = now() where id = $1",
        &[&id, &hash],
    )
    .await?;
    Ok(())
}

/// Merge `updates` into a metadata column (`null` values remove keys).
pub async fn merge_metadata(
    db: &impl crate::db::cached::Db,
    id: Uuid,
    app: bool,
    updates: &Value,
) -> Result<(), AuthError> {
    let column = if app { "raw_app_meta_data" } else { "raw_user_meta_data" };
    let sql = format!(
        "update auth.users set {column} = jsonb_strip_nulls(coalesce({column}, '{{}}') || $2), updated_at = now() \
         where id = $1"
    );
    db.cached_execute(&sql, &[&id, updates]).await?;
    Ok(())
}

/// Change the address (confirmed), keeping the identity's copy in step. An anonymous user who
/// gets an address becomes permanent: `is_anonymous` false, provider `email`, an `email` identity.
pub async fn set_email(db: &impl crate::db::cached::Db, id: Uuid, email: &str) -> Result<bool, AuthError> {
    let taken =
        db.cached_query_opt("select 1 from auth.users where email = lower($1) and id <> $2", &[&email, &id]).await?;
    if taken.is_some() {
        return Ok(false);
    }
    db.cached_execute(
        "update auth.users set email = lower($2), email_change = '', email_change_token_new = '', \
             email_change_token_current = '', email_change_confirm_status = 0, email_change_sent_at = null, \
             email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now(), \
             raw_app_meta_data = case when is_anonymous \
                 then coalesce(raw_app_meta_data, '{}') || '{\"provider\": \"email\", \"providers\": [\"email\"]}' \
                 else raw_app_meta_data end, \
             is_anonymous = false \
         where id = $1",
        &[&id, &email],
    )
    .await?;
    db.cached_execute(
        "update auth.identities set identity_data = identity_data || jsonb_build_object('email', lower($2::text)), \
             updated_at = now() where user_id = $1 and provider = 'email'",
        &[&id, &email],
    )
    .await?;
    db.cached_execute(
        "insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at) \
         select $1::uuid::text, $1, jsonb_build_object('sub', $1::uuid::text, 'email', lower($2::text), \
             'email_verified', true, 'phone_verified', false), 'email', now(), now(), now() \
         where not exists (select 1 from auth.identities where user_id = $1 and provider = 'email')",
        &[&id, &email],
    )
    .await?;
    Ok(true)
}

/// Check an address as GoTrue does and return it lower-case.
pub fn checked_email(email: Option<&str>) -> Result<String, AuthError> {
    let email = email.map(str::trim).unwrap_or_default().to_lowercase();
    if email.is_empty() {
        return Err(AuthError::Validation("To signup, please provide your email".into()));
    }
    if !valid_email(&email) {
        return Err(AuthError::Validation("Unable to validate email address: invalid format".into()));
    }
    Ok(email)
}

/// The shape check of an e-mail address GoTrue makes (the HTML specification's): the local
/// part of letters, digits and ``.!#$%&'*+/=?^_`{|}~-``, the domain of dot-separated labels of
/// letters, digits and inner hyphens (63 characters at most each); GoTrue refuses the rest with
/// `validation_failed`.
pub fn valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.rsplit_once('@') else { return false };
    let local_ok =
        !local.is_empty() && local.chars().all(|c| c.is_ascii_alphanumeric() || ".!#$%&'*+/=?^_`{|}~-".contains(c));
    let label_ok = |label: &str| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    };
    local_ok && domain.contains('.') && domain.split('.').all(label_ok) && email.len() <= 255
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_checked_for_shape() {
        assert!(valid_email("a@b.test"));
        assert!(!valid_email("a@b"));
        assert!(!valid_email("@b.test"));
        assert!(!valid_email("a b@c.test"));
        assert!(!valid_email("plain"));
        assert!(!valid_email("xx:;x@x.x"), "GoTrue refuses punctuation outside its set");
        assert!(!valid_email("a@-b.test") && !valid_email("a@b..test"));
        assert!(valid_email("first.last+tag@sub.example-domain.cd"));
        assert!(valid_email("o'brien@example.test"));
    }

    #[test]
    fn user_json_leaves_out_null_times_like_gotrue() {
        let t = DateTime::parse_from_rfc3339("2024-01-02T03:04:05Z").unwrap().with_timezone(&Utc);
        let user = User {
            id: Uuid::nil(),
            aud: "authenticated".into(),
            role: "authenticated".into(),
            email: Some("a@b.test".into()),
            encrypted_password: Some("$argon2id$secret".into()),
            email_confirmed_at: None,
            invited_at: None,
            phone: None,
            phone_confirmed_at: None,
            confirmation_sent_at: Some(t),
            confirmed_at: None,
            recovery_sent_at: None,
            email_change: Some(String::new()),
            email_change_sent_at: None,
            last_sign_in_at: None,
            app_metadata: json!({"provider": "email", "providers": ["email"]}),
            user_metadata: json!({}),
            created_at: t,
            updated_at: t,
            banned_until: None,
            deleted_at: None,
            is_anonymous: false,
            phone_change: None,
            phone_change_sent_at: None,
            reauthentication_sent_at: None,
            identities: json!([]),
            factors: Some(json!([])),
        };
        assert_eq!(
            user.to_json(),
            json!({
                "id": "00000000-0000-0000-0000-000000000000",
                "aud": "authenticated",
                "role": "authenticated",
                "email": "a@b.test",
                "phone": "",
                "confirmation_sent_at": "2024-01-02T03:04:05.000000Z",
                "app_metadata": {"provider": "email", "providers": ["email"]},
                "user_metadata": {},
                "identities": [],
                "created_at": "2024-01-02T03:04:05.000000Z",
                "updated_at": "2024-01-02T03:04:05.000000Z",
                "is_anonymous": false
            })
        );
        assert!(!user.to_json().to_string().contains("argon2"), "the hash never leaves");
    }

    #[test]
    fn times_print_in_utc_with_microseconds() {
        let t = DateTime::parse_from_rfc3339("2024-05-06T07:08:09.123456+02:00").unwrap().with_timezone(&Utc);
        assert_eq!(time(t), "2024-05-06T05:08:09.123456Z");
    }
}
