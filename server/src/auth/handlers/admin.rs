//! The admin API for the `service_role` key: `/admin/users` (list with `X-Total-Count` and
//! `Link`, create, read, update, delete), `/admin/generate_link` and `/invite`. Any other role
//! gets 403 `not_admin`. Admin-created users may carry a bcrypt or argon2 `password_hash`.

use std::collections::HashMap;

use actix_web::{web, HttpRequest, HttpResponse, HttpResponseBuilder};
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::auth::error::AuthError;
use crate::auth::flows::{self, LinkType};
use crate::auth::request::{client_ip, json_body, query, Admin};
use crate::auth::user_admin::{self, AccountRequest, Actor, NewAccount};
use crate::auth::users::{self, checked_email, User};
use crate::auth::{audit, AuthState};
use crate::db::cached::CachedQueries;

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

/// A listing's `page` and `per_page` (1 and 50 when absent or zero; at most 1000 a page).
fn page_and_size(q: &HashMap<String, String>) -> Result<(i64, i64), AuthError> {
    let page = pagination(q.get("page"))?.filter(|p| *p > 0).unwrap_or(1);
    let per_page = pagination(q.get("per_page"))?.filter(|p| *p > 0).unwrap_or(50).min(1000);
    Ok((page, per_page))
}

/// An answer with one page of `total` entries as GoTrue pages it: `X-Total-Count`, and `Link`s
/// to the next page (if any) and the last one of `path`.
fn paged(path: &str, page: i64, per_page: i64, total: i64) -> HttpResponseBuilder {
    let last = ((total + per_page - 1) / per_page).max(1);
    let mut links = Vec::new();
    if page < last {
        links.push(format!("<{path}?page={}&per_page={per_page}>; rel=\"next\"", page + 1));
    }
    links.push(format!("<{path}?page={last}&per_page={per_page}>; rel=\"last\""));
    let mut res = HttpResponse::Ok();
    res.insert_header(("X-Total-Count", total.to_string())).insert_header(("Link", links.join(", ")));
    res
}

fn user_id(path: &str) -> Result<Uuid, AuthError> {
    Uuid::parse_str(path).map_err(|_| AuthError::NotFoundUser)
}

/// What `PUT` and `DELETE /admin/users/{id}` start from: the id (`user_not_found` when it is no
/// UUID), the JSON body and the caller's IP.
fn user_call(
    state: &AuthState,
    req: &HttpRequest,
    path: &str,
    body: &[u8],
) -> Result<(Uuid, UserBody, String), AuthError> {
    let id = user_id(path)?;
    let p: UserBody = json_body(body)?;
    Ok((id, p, client_ip(state, req)))
}

/// GoTrue's audit entries of the admin API name the `service_role`.
fn service_role(ip: &str) -> Actor<'_> {
    Actor { name: "service_role", ip }
}

pub async fn list(_: Admin, state: web::Data<AuthState>, req: HttpRequest) -> Result<HttpResponse, AuthError> {
    let (page, per_page) = page_and_size(&query(&req))?;
    let client = state.pool.get().await?;
    let (list, total) = users::page(&client, page, per_page).await?;
    Ok(paged("/admin/users", page, per_page, total)
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
    let request = AccountRequest {
        email: p.email.as_deref(),
        password: p.password.as_deref(),
        password_hash: p.password_hash.as_deref(),
        email_confirm: p.email_confirm.unwrap_or(false),
        user_metadata: p.user_metadata.clone(),
        app_metadata: p.app_metadata.clone(),
        role: p.role.clone(),
        ban_duration: p.ban_duration.as_deref(),
    };
    let new = NewAccount::checked(&state, request).await?;
    let ip = client_ip(&state, &req);
    let user =
        user_admin::in_transaction(&state, async |db| user_admin::create(db, &new, service_role(&ip)).await).await?;
    Ok(HttpResponse::Ok().json(user.to_json()))
}

pub async fn get(_: Admin, state: web::Data<AuthState>, path: web::Path<String>) -> Result<HttpResponse, AuthError> {
    let client = state.pool.get().await?;
    let user = user_admin::existing(&client, user_id(&path)?).await?;
    Ok(HttpResponse::Ok().json(user.to_json()))
}

pub async fn update(
    _: Admin,
    state: web::Data<AuthState>,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let (id, p, ip) = user_call(&state, &req, &path, &body)?;
    let hash = user_admin::password_hash(&state, p.password.as_deref(), p.password_hash.as_deref()).await?;
    let user = user_admin::in_transaction(&state, async |db| {
        let user = user_admin::existing(db, id).await?;
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
            db.cached_execute("update auth.users set role = $2, updated_at = now() where id = $1", &[&id, &role])
                .await?;
        }
        if let Some(duration) = p.ban_duration.as_deref() {
            user_admin::ban(db, id, user_admin::ban_until(duration)?).await?;
        }
        audit::log(db, Some(id), "service_role", "user_modified", json!({"by": "admin"}), &ip).await;
        user_admin::existing(db, id).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(user.to_json()))
}

pub async fn delete(
    _: Admin,
    state: web::Data<AuthState>,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AuthError> {
    let (id, p, ip) = user_call(&state, &req, &path, &body)?;
    let soft = p.should_soft_delete.unwrap_or(false);
    // A soft delete is three statements: all of them or none.
    user_admin::in_transaction(&state, async |db| user_admin::delete(db, id, soft, service_role(&ip)).await).await?;
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
    let hash = user_admin::password_hash(&state, p.password.as_deref(), None).await?;
    let kind = p.kind.as_deref().unwrap_or_default();
    let (user, link, link_type) = user_admin::in_transaction(&state, async |db| {
        let (user, link_type, target) = match kind {
            "signup" | "invite" => {
                let user = user_admin::unconfirmed_or_new(db, &email, hash, p.data.clone(), kind == "invite").await?;
                (user, if kind == "invite" { LinkType::Invite } else { LinkType::Signup }, email.clone())
            }
            "magiclink" | "recovery" => {
                let user = users::by_email(db, &email).await?.ok_or(AuthError::NotFoundUser)?;
                (user, if kind == "recovery" { LinkType::Recovery } else { LinkType::MagicLink }, email.clone())
            }
            "email_change_current" | "email_change_new" => {
                let user = users::by_email(db, &email).await?.ok_or(AuthError::NotFoundUser)?;
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
        Ok((user_admin::existing(db, user.id).await?, link, link_type))
    })
    .await?;
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
    let ip = client_ip(&state, &req);
    let user = user_admin::in_transaction(&state, async |db| {
        user_admin::invite(&state, db, &email, p.data.clone(), &redirect, service_role(&ip)).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(user.to_json()))
}

use crate::auth::user_admin::FACTOR_JSON;

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
    let ip = client_ip(&state, &req);
    let deleted = user_admin::delete_factor(&tx, user.id, factor, Actor { name: user.email_str(), ip: &ip }).await?;
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
    let (page, per_page) = page_and_size(&q)?;
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
    Ok(paged("/admin/audit", page, per_page, total).json(entries))
}
