//! The admin API for the `service_role` key: `/admin/users` (list with `X-Total-Count` and
//! `Link`, create, read, update, delete), `/admin/generate_link` and `/invite`. Any other role
//! gets 403 `not_admin`. Admin-created users may carry a bcrypt or argon2 `password_hash`.

use crate::db::cached::CachedQueries;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::{Duration, Utc};
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

use super::signup::checked_email;
use crate::auth::error::AuthError;
use crate::auth::flows::{self, LinkType};
use crate::auth::request::{client_ip, json_body, query, Admin};
use crate::auth::users::{self, NewUser, User};
use crate::auth::{audit, password, sessions, AuthState};

#[derive(Debug, Default, Deserialize)]
struct UserBody {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    password_hash: Option<String>,
    email_confirm: Option<bool>,
    user_metadata: Option<Value>,
    app_metadata: Option<Value>,
    role: Option<String>,
    ban_duration: Option<String>,
    should_soft_delete: Option<bool>,
}

/// A `page` / `per_page` value: absent, or a whole number (GoTrue's wording for anything else).
fn pagination(raw: Option<&String>) -> Result<Option<i64>, AuthError> {
    match raw.map(String::as_str).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => match v.parse::<u64>() {
            Ok(n) => Ok(Some(n.min(i64::MAX as u64) as i64)),
            Err(_) => Err(AuthError::Validation(format!(
                "Bad Pagination Parameters: strconv.ParseUint: parsing {v:?}: invalid syntax"
            ))),
        },
    }
}

fn user_id(path: &str) -> Result<Uuid, AuthError> {
    Uuid::parse_str(path).map_err(|_| AuthError::NotFoundUser)
}

/// A password, checked and hashed, or an imported hash.
async fn password_hash(state: &AuthState, p: &UserBody) -> Result<Option<String>, AuthError> {
    if let Some(hash) = p.password_hash.as_deref().filter(|h| !h.is_empty()) {
        if !password::is_supported_hash(hash) {
            return Err(AuthError::Validation("Invalid password hash: only bcrypt and argon2 are supported".into()));
        }
        return Ok(Some(hash.to_string()));
    }
    match p.password.as_deref() {
        Some(plain) => {
            state.check_password(plain)?;
            Ok(Some(password::hash(plain.to_string()).await?))
        }
        None => Ok(None),
    }
}

/// Parse a ban duration (`none`, or Go-style `1h30m`, `90s`, `24h`).
fn ban_until(value: &str) -> Result<Option<chrono::DateTime<Utc>>, AuthError> {
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

pub async fn list(_: Admin, state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    let q = query(&req);
    let page = pagination(q.get("page"))?.filter(|p| *p > 0).unwrap_or(1);
    let per_page = pagination(q.get("per_page"))?.filter(|p| *p > 0).unwrap_or(50).min(1000);
    let client = state.pool.get().await?;
    let (list, total) = users::page(&client, page, per_page).await?;
    let last = ((total + per_page - 1) / per_page).max(1);
    let mut links = Vec::new();
    if page < last {
        links.push(format!("</admin/users?page={}&per_page={per_page}>; rel=\"next\"", page + 1));
    }
    links.push(format!("</admin/users?page={last}&per_page={per_page}>; rel=\"last\""));
    Ok(HttpResponse::Ok()
        .insert_header(("X-Total-Count", total.to_string()))
        .insert_header(("Link", links.join(", ")))
        .json(json!({ "users": list.iter().map(User::to_json).collect::<Vec<_>>(), "aud": "authenticated" })))
}

pub async fn create(
    _: Admin,
    state: web::Data<AuthState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let p: UserBody = json_body(&body)?;
    if p.email.is_none() && p.phone.is_some() {
        return Err(AuthError::Unprocessable("Phone users are not supported".into()));
    }
    let email = checked_email(p.email.as_deref())?;
    let hash = password_hash(&state, &p).await?;
    let banned = match p.ban_duration.as_deref() {
        Some(d) => ban_until(d)?,
        None => None,
    };
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    let new = NewUser {
        email: email.clone(),
        encrypted_password: hash,
        user_metadata: p.user_metadata.clone().filter(Value::is_object).unwrap_or_else(|| json!({})),
        app_metadata: p.app_metadata.clone().filter(Value::is_object).unwrap_or_else(|| json!({})),
        confirmed: p.email_confirm.unwrap_or(false),
        role: p.role.clone().unwrap_or_else(|| "authenticated".into()),
        invited: false,
    };
    let user = users::insert(db, &new).await?.ok_or(AuthError::EmailExists)?;
    if banned.is_some() {
        db.cached_execute("update auth.users set banned_until = $2 where id = $1", &[&user.id, &banned]).await?;
    }
    audit::log(
        db,
        Some(user.id),
        "service_role",
        "user_signedup",
        json!({"provider": "email", "by": "admin"}),
        &client_ip(&state, &req),
    )
    .await;
    let user = users::by_id(db, user.id).await?.ok_or(AuthError::NotFoundUser)?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(user.to_json()))
}

pub async fn get(_: Admin, state: web::Data<AuthState>, path: web::Path<String>) -> Result<HttpResponse, AuthError> {
    let client = state.pool.get().await?;
    let user = users::by_id(&client, user_id(&path)?).await?.ok_or(AuthError::NotFoundUser)?;
    Ok(HttpResponse::Ok().json(user.to_json()))
}

pub async fn update(
    _: Admin,
    state: web::Data<AuthState>,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let id = user_id(&path)?;
    let p: UserBody = json_body(&body)?;
    let hash = password_hash(&state, &p).await?;
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    let user = users::by_id(db, id).await?.ok_or(AuthError::NotFoundUser)?;
    if let Some(email) = p.email.as_deref().filter(|e| !e.trim().is_empty()) {
        let email = checked_email(Some(email))?;
        if email != user.email_str() && !users::set_email(db, id, &email).await? {
            return Err(AuthError::EmailExists);
        }
    }
    if let Some(hash) = &hash {
        users::set_password(db, id, hash).await?;
    }
    if p.email_confirm == Some(true) {
        users::confirm_email(db, id).await?;
    }
    if let Some(meta) = p.user_metadata.as_ref().filter(|m| m.is_object()) {
        users::merge_metadata(db, id, false, meta).await?;
    }
    if let Some(meta) = p.app_metadata.as_ref().filter(|m| m.is_object()) {
        users::merge_metadata(db, id, true, meta).await?;
    }
    if let Some(role) = p.role.as_deref() {
        db.cached_execute("update auth.users set role = $2, updated_at = now() where id = $1", &[&id, &role]).await?;
    }
    if let Some(duration) = p.ban_duration.as_deref() {
        let until = ban_until(duration)?;
        db.cached_execute("update auth.users set banned_until = $2, updated_at = now() where id = $1", &[&id, &until])
            .await?;
        if until.is_some() {
            sessions::logout(db, id, None, sessions::Scope::Global).await?;
        }
    }
    audit::log(db, Some(id), "service_role", "user_modified", json!({"by": "admin"}), &client_ip(&state, &req)).await;
    let user = users::by_id(db, id).await?.ok_or(AuthError::NotFoundUser)?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(user.to_json()))
}

pub async fn delete(
    _: Admin,
    state: web::Data<AuthState>,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let id = user_id(&path)?;
    let p: UserBody = json_body(&body)?;
    let mut client = state.pool.get().await?;
    // A soft delete is three statements: all of them or none.
    let tx = client.transaction().await?;
    let db = &tx;
    let user = users::by_id(db, id).await?.ok_or(AuthError::NotFoundUser)?;
    if p.should_soft_delete.unwrap_or(false) {
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
    audit::log(
        db,
        Some(id),
        "service_role",
        "user_deleted",
        json!({"user_email": user.email_str()}),
        &client_ip(&state, &req),
    )
    .await;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(json!({})))
}

#[derive(Debug, Deserialize)]
struct LinkBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    email: Option<String>,
    password: Option<String>,
    data: Option<Value>,
    new_email: Option<String>,
    redirect_to: Option<String>,
}

pub async fn generate_link(
    _: Admin,
    state: web::Data<AuthState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let p: LinkBody = json_body(&body)?;
    let email = checked_email(p.email.as_deref())?;
    let redirect =
        state.redirect_target(p.redirect_to.as_deref().or(query(&req).get("redirect_to").map(String::as_str)));
    let data = p.data.clone().filter(Value::is_object).unwrap_or_else(|| json!({}));
    let hash = match p.password.as_deref() {
        Some(plain) => {
            state.check_password(plain)?;
            Some(password::hash(plain.to_string()).await?)
        }
        None => None,
    };
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    let existing = users::by_email(db, &email).await?;
    let kind = p.kind.as_deref().unwrap_or_default();
    let (user, link_type, target) = match kind {
        "signup" | "invite" => {
            let user = match existing {
                Some(user) if user.is_confirmed() => return Err(AuthError::EmailExists),
                Some(user) => user,
                None => {
                    let new = NewUser {
                        email: email.clone(),
                        encrypted_password: hash,
                        user_metadata: data,
                        app_metadata: json!({}),
                        confirmed: false,
                        role: "authenticated".into(),
                        invited: kind == "invite",
                    };
                    users::insert(db, &new).await?.ok_or(AuthError::EmailExists)?
                }
            };
            (user, if kind == "invite" { LinkType::Invite } else { LinkType::Signup }, email.clone())
        }
        "magiclink" | "recovery" => {
            let user = existing.ok_or(AuthError::NotFoundUser)?;
            (user, if kind == "recovery" { LinkType::Recovery } else { LinkType::MagicLink }, email.clone())
        }
        "email_change_current" | "email_change_new" => {
            let user = existing.ok_or(AuthError::NotFoundUser)?;
            let new_email = checked_email(p.new_email.as_deref())?;
            if users::by_email(db, &new_email).await?.is_some() {
                return Err(AuthError::EmailExists);
            }
            db.cached_execute(
                "update auth.users set email_change = $2, email_change_confirm_status = 0 where id = $1",
                &[&user.id, &new_email],
            )
            .await?;
            if kind == "email_change_current" {
                let current = user.email_str().to_string();
                (user, LinkType::EmailChangeCurrent, current)
            } else {
                (user, LinkType::EmailChange, new_email)
            }
        }
        other => return Err(AuthError::Validation(format!("Invalid email action link type requested: {other}"))),
    };
    let link = flows::make_link(&state, db, &user, link_type, &target, &redirect, false).await?;
    let user = users::by_id(db, user.id).await?.ok_or(AuthError::NotFoundUser)?;
    tx.commit().await?;
    let mut out = user.to_json();
    if let Value::Object(map) = &mut out {
        map.insert("action_link".into(), json!(link.action_link));
        map.insert("email_otp".into(), json!(link.otp));
        map.insert("hashed_token".into(), json!(link.hashed_token));
        map.insert("redirect_to".into(), json!(link.redirect_to));
        map.insert("verification_type".into(), json!(link_type.name()));
    }
    Ok(HttpResponse::Ok().json(out))
}

#[derive(Debug, Deserialize)]
struct InviteBody {
    email: Option<String>,
    data: Option<Value>,
}

pub async fn invite(
    _: Admin,
    state: web::Data<AuthState>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let p: InviteBody = json_body(&body)?;
    let email = checked_email(p.email.as_deref())?;
    let redirect = state.redirect_target(query(&req).get("redirect_to").map(String::as_str));
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let db = &tx;
    let user = match users::by_email(db, &email).await? {
        Some(user) if user.is_confirmed() => return Err(AuthError::EmailExists),
        Some(user) => user,
        None => {
            let new = NewUser {
                email: email.clone(),
                encrypted_password: None,
                user_metadata: p.data.filter(Value::is_object).unwrap_or_else(|| json!({})),
                app_metadata: json!({}),
                confirmed: false,
                role: "authenticated".into(),
                invited: true,
            };
            users::insert(db, &new).await?.ok_or(AuthError::EmailExists)?
        }
    };
    flows::send_link(&state, db, &user, LinkType::Invite, None, &redirect, false).await?;
    audit::log(
        db,
        Some(user.id),
        "service_role",
        "user_invited",
        json!({"user_email": email}),
        &client_ip(&state, &req),
    )
    .await;
    let user = users::by_id(db, user.id).await?.ok_or(AuthError::NotFoundUser)?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(user.to_json()))
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

/// A factor as the admin factors API answers it (GoTrue's `Factor` JSON).
const FACTOR_JSON: &str = "json_build_object('id', f.id, 'friendly_name', coalesce(f.friendly_name, ''), \
    'factor_type', f.factor_type, 'status', f.status, \
    'created_at', to_char(f.created_at at time zone 'utc', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), \
    'updated_at', to_char(f.updated_at at time zone 'utc', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'))";

fn factor_id(raw: &str) -> Result<Uuid, AuthError> {
    Uuid::parse_str(raw).map_err(|_| AuthError::MfaFactorNotFound)
}

/// `GET /admin/users/{id}/factors`: the user's factors, oldest first.
pub async fn factors(
    _: Admin,
    state: web::Data<AuthState>,
    path: web::Path<String>,
) -> Result<HttpResponse, AuthError> {
    let client = state.pool.get().await?;
    let user = users::by_id(&client, user_id(&path)?).await?.ok_or(AuthError::NotFoundUser)?;
    let sql = format!(
        "select coalesce(json_agg({FACTOR_JSON} order by f.created_at), '[]') from auth.mfa_factors f where f.user_id = $1"
    );
    let list: Value = client.cached_query_one(&sql, &[&user.id]).await?.get(0);
    Ok(HttpResponse::Ok().json(list))
}

/// `DELETE /admin/users/{id}/factors/{factor}`: remove a factor (the sessions it raised drop
/// to aal1); answers the deleted factor.
pub async fn delete_factor(
    _: Admin,
    state: web::Data<AuthState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, AuthError> {
    let (user, factor) = (user_id(&path.0)?, factor_id(&path.1)?);
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let user = users::by_id(&tx, user).await?.ok_or(AuthError::NotFoundUser)?;
    let sql = format!("delete from auth.mfa_factors f where f.id = $1 and f.user_id = $2 returning {FACTOR_JSON}");
    let deleted: Value =
        tx.cached_query_opt(&sql, &[&factor, &user.id]).await?.ok_or(AuthError::MfaFactorNotFound)?.get(0);
    tx.cached_execute(
        "update auth.sessions set aal = 'aal1', factor_id = null, updated_at = now() where user_id = $1 and factor_id = $2",
        &[&user.id, &factor],
    )
    .await?;
    audit::log(
        &tx,
        Some(user.id),
        user.email_str(),
        "factor_deleted",
        json!({"factor_id": factor}),
        &client_ip(&state, &req),
    )
    .await;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(deleted))
}

#[derive(Debug, Deserialize)]
struct FactorBody {
    friendly_name: Option<String>,
}

/// `PUT /admin/users/{id}/factors/{factor}`: rename a factor.
pub async fn update_factor(
    _: Admin,
    state: web::Data<AuthState>,
    path: web::Path<(String, String)>,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let (user, factor) = (user_id(&path.0)?, factor_id(&path.1)?);
    let p: FactorBody = json_body(&body)?;
    let client = state.pool.get().await?;
    let user = users::by_id(&client, user).await?.ok_or(AuthError::NotFoundUser)?;
    let sql = format!(
        "update auth.mfa_factors f set friendly_name = coalesce($3, f.friendly_name), updated_at = now() \
         where f.id = $1 and f.user_id = $2 returning {FACTOR_JSON}"
    );
    let updated: Value = client
        .cached_query_opt(&sql, &[&factor, &user.id, &p.friendly_name])
        .await?
        .ok_or(AuthError::MfaFactorNotFound)?
        .get(0);
    Ok(HttpResponse::Ok().json(updated))
}

/// `GET /admin/audit?page=&per_page=&query=`: the audit log, newest first, as GoTrue pages it
/// (`X-Total-Count`, `Link`); `query` keeps entries whose actor, action or type contains it.
pub async fn audit(_: Admin, state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    let q = query(&req);
    let page = pagination(q.get("page"))?.filter(|p| *p > 0).unwrap_or(1);
    let per_page = pagination(q.get("per_page"))?.filter(|p| *p > 0).unwrap_or(50).min(1000);
    let needle = q.get("query").map(|s| s.trim().to_lowercase()).filter(|s| !s.is_empty());
    let client = state.pool.get().await?;
    let filter = "($1::text is null or lower(coalesce(payload->>'actor_username', '') || ' ' || \
        coalesce(payload->>'action', '') || ' ' || coalesce(payload->>'log_type', '')) like '%' || $1 || '%')";
    let rows = client
        .cached_query(
            &format!(
                "select json_build_object('id', id, 'payload', payload, 'created_at', \
                     to_char(created_at at time zone 'utc', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), 'ip_address', ip_address) \
                 from auth.audit_log_entries where {filter} order by created_at desc, id limit $2 offset $3"
            ),
            &[&needle, &per_page, &((page - 1).saturating_mul(per_page))],
        )
        .await?;
    let total: i64 = client
        .cached_query_one(&format!("select count(*) from auth.audit_log_entries where {filter}"), &[&needle])
        .await?
        .get(0);
    let entries: Vec<Value> = rows.iter().map(|r| r.get(0)).collect();
    let last = ((total + per_page - 1) / per_page).max(1);
    let mut links = Vec::new();
    if page < last {
        links.push(format!("</admin/audit?page={}&per_page={per_page}>; rel=\"next\"", page + 1));
    }
    links.push(format!("</admin/audit?page={last}&per_page={per_page}>; rel=\"last\""));
    Ok(HttpResponse::Ok()
        .insert_header(("X-Total-Count", total.to_string()))
        .insert_header(("Link", links.join(", ")))
        .json(entries))
}
