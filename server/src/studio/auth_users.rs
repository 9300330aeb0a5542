//! The Auth → Users screen's reads: the app's users (`auth.users`, read as the owner) searched by
//! e-mail, phone or id and filtered by provider, confirmation, ban, anonymity and MFA, newest
//! first in keyset pages (`(created_at, id) < cursor`); and one user's page: the GoTrue user
//! object, identities, MFA factors, sessions and their audit events. The writes are in
//! `auth_actions`. The list's statement is built by [`list_query`]: every value is a bound text
//! parameter cast in SQL, nothing of the request is written into the statement.

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

use super::error::StudioError;
use super::query::Built;
use crate::state::AppState;

/// The most users a page holds.
pub const MAX_PAGE: i64 = 200;

/// The list's search, filters and page (`GET /studio/api/auth/users?…`).
#[derive(Debug, Default, Deserialize)]
pub struct UserFilter {
    /// Part of the e-mail, the phone or the id.
    #[serde(default)]
    pub q: String,
    /// Users with an identity of this provider (`email`, `phone`, `google`…; `anonymous`).
    pub provider: Option<String>,
    pub confirmed: Option<bool>,
    pub banned: Option<bool>,
    pub anonymous: Option<bool>,
    /// Users with (or without) a verified MFA factor.
    pub mfa: Option<bool>,
    /// The cursor of the next page, as `next` gave it.
    pub after: Option<String>,
    pub limit: Option<i64>,
}

/// A page cursor: the last row's `created_at` and id.
pub fn cursor(created_at: DateTime<Utc>, id: Uuid) -> String {
    format!("{}|{id}", created_at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true))
}

fn parse_cursor(text: &str) -> Result<(DateTime<Utc>, Uuid), StudioError> {
    let bad = || StudioError::BadRequest("after: not a cursor of this list".into());
    let (at, id) = text.split_once('|').ok_or_else(bad)?;
    let at = DateTime::parse_from_rfc3339(at).map_err(|_| bad())?.with_timezone(&Utc);
    Ok((at, Uuid::parse_str(id).map_err(|_| bad())?))
}

/// `like` pattern that matches `text` anywhere, its wildcards escaped.
fn contains_pattern(text: &str) -> String {
    format!("%{}%", text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"))
}

/// The statement of a page: one row of JSON per user (limit + 1 rows, to know if more follow).
pub fn list_query(filter: &UserFilter) -> Result<Built, StudioError> {
    let mut built = Built { sql: String::new(), params: Vec::new() };
    let mut bind = |value: String| {
        built.params.push(value);
        format!("${}::text", built.params.len())
    };
    let mut wheres = vec!["u.deleted_at is null".to_string()];
    let q = filter.q.trim();
    if !q.is_empty() {
        let p = bind(contains_pattern(q));
        wheres.push(format!("(u.email ilike {p} or u.phone ilike {p} or u.id::text ilike {p})"));
    }
    if let Some(provider) = filter.provider.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
        if provider == "anonymous" {
            wheres.push("u.is_anonymous".into());
        } else {
            let p = bind(provider.to_string());
            wheres
                .push(format!("exists (select 1 from auth.identities i where i.user_id = u.id and i.provider = {p})"));
        }
    }
    let flag = |on: bool, cond: &str| if on { format!("({cond})") } else { format!("not ({cond})") };
    if let Some(on) = filter.confirmed {
        wheres.push(flag(on, "u.email_confirmed_at is not null or u.phone_confirmed_at is not null"));
    }
    if let Some(on) = filter.banned {
        wheres.push(flag(on, "coalesce(u.banned_until > now(), false)"));
    }
    if let Some(on) = filter.anonymous {
        wheres.push(flag(on, "u.is_anonymous"));
    }
    if let Some(on) = filter.mfa {
        wheres.push(flag(
            on,
            "exists (select 1 from auth.mfa_factors f where f.user_id = u.id and f.status = 'verified')",
        ));
    }
    if let Some(after) = filter.after.as_deref().filter(|a| !a.is_empty()) {
        let (at, id) = parse_cursor(after)?;
        let at = bind(at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true));
        let id = bind(id.to_string());
        wheres.push(format!("(coalesce(u.created_at, 'epoch'), u.id) < ({at}::timestamptz, {id}::uuid)"));
    }
    let limit = bind((filter.limit.unwrap_or(50).clamp(1, MAX_PAGE) + 1).to_string());
    built.sql = format!(
        "select json_build_object('id', u.id, 'email', u.email, 'phone', u.phone, \
             'created_at', coalesce(u.created_at, 'epoch'), 'last_sign_in_at', u.last_sign_in_at, \
             'confirmed', u.email_confirmed_at is not null or u.phone_confirmed_at is not null, \
             'banned_until', case when u.banned_until > now() then u.banned_until end, \
             'is_anonymous', u.is_anonymous, \
             'providers', coalesce((select json_agg(distinct i.provider) from auth.identities i where i.user_id = u.id), '[]'), \
             'mfa', exists (select 1 from auth.mfa_factors f where f.user_id = u.id and f.status = 'verified'))::text \
         from auth.users u where {} \
         order by coalesce(u.created_at, 'epoch') desc, u.id desc limit {limit}::bigint",
        wheres.join(" and ")
    );
    Ok(built)
}

/// `GET /studio/api/auth/users?q=&provider=&confirmed=&banned=&anonymous=&mfa=&after=&limit=`:
/// `{users, next}`, `next` the cursor of the following page or `null`.
pub async fn list(state: web::Data<AppState>, filter: web::Query<UserFilter>) -> Result<HttpResponse, StudioError> {
    let built = list_query(&filter)?;
    let client = state.pools.admin.get().await?;
    let rows = client.query(&built.sql, &built.param_refs()).await?;
    let mut users: Vec<Value> = rows
        .iter()
        .map(|r| serde_json::from_str(r.get::<_, &str>(0)).map_err(StudioError::internal))
        .collect::<Result<_, _>>()?;
    let limit = filter.limit.unwrap_or(50).clamp(1, MAX_PAGE) as usize;
    let next = if users.len() > limit {
        users.truncate(limit);
        users.last().and_then(|u| {
            let at = u["created_at"].as_str().and_then(|t| DateTime::parse_from_rfc3339(t).ok())?;
            let id = u["id"].as_str().and_then(|t| Uuid::parse_str(t).ok())?;
            Some(cursor(at.with_timezone(&Utc), id))
        })
    } else {
        None
    };
    Ok(HttpResponse::Ok().json(json!({ "users": users, "next": next })))
}

/// The user id of a path, or 404.
pub fn user_id(raw: &str) -> Result<Uuid, StudioError> {
    Uuid::parse_str(raw).map_err(|_| StudioError::NotFound("No such user".into()))
}

/// `GET /studio/api/auth/users/{id}`: `{user, identities, factors, sessions, events}` (the user
/// as GoTrue's admin API shows it; its 50 newest audit events).
pub async fn detail(state: web::Data<AppState>, path: web::Path<String>) -> Result<HttpResponse, StudioError> {
    let id = user_id(&path)?;
    let client = state.pools.admin.get().await?;
    let user = crate::auth::users::by_id(&client, id)
        .await
        .map_err(StudioError::from)?
        .ok_or_else(|| StudioError::NotFound("No such user".into()))?;
    let one = |sql: &'static str| {
        let client = &client;
        async move { client.query_one(sql, &[&id]).await.map(|r| r.get::<_, Value>(0)) }
    };
    let identities = one(
        "select coalesce(json_agg(json_build_object('id', i.id, 'provider', i.provider, 'provider_id', i.provider_id, \
             'email', i.email, 'identity_data', i.identity_data, 'created_at', i.created_at, \
             'last_sign_in_at', i.last_sign_in_at) order by i.created_at), '[]') \
         from auth.identities i where i.user_id = $1",
    )
    .await?;
    let factors = one("select coalesce(json_agg(json_build_object('id', f.id, 'friendly_name', f.friendly_name, \
             'factor_type', f.factor_type, 'status', f.status, 'created_at', f.created_at, \
             'updated_at', f.updated_at) order by f.created_at), '[]') \
         from auth.mfa_factors f where f.user_id = $1")
    .await?;
    let sessions =
        one("select coalesce(json_agg(json_build_object('id', s.id, 'aal', s.aal, 'user_agent', s.user_agent, \
             'ip', host(s.ip), 'created_at', s.created_at, 'refreshed_at', s.refreshed_at, \
             'updated_at', s.updated_at, 'not_after', s.not_after) order by s.created_at desc), '[]') \
         from auth.sessions s where s.user_id = $1")
        .await?;
    let events = one("select coalesce(json_agg(e order by e.created_at desc), '[]') from ( \
             select a.id, a.payload->>'action' as action, a.payload->>'actor_username' as actor, \
                 a.payload->'traits' as traits, a.ip_address as ip, a.created_at \
             from auth.audit_log_entries a where a.payload->>'actor_id' = $1::uuid::text \
             order by a.created_at desc limit 50) e")
    .await?;
    Ok(HttpResponse::Ok().json(json!({
        "user": user.to_json(),
        "identities": identities,
        "factors": factors,
        "sessions": sessions,
        "events": events,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(f: impl FnOnce(&mut UserFilter)) -> UserFilter {
        let mut out = UserFilter::default();
        f(&mut out);
        out
    }

    #[test]
    fn an_empty_filter_lists_live_users_newest_first() {
        let built = list_query(&UserFilter::default()).unwrap();
        assert!(built.sql.contains("where u.deleted_at is null order by"), "{}", built.sql);
        assert!(built.sql.ends_with("limit $1::text::bigint"), "{}", built.sql);
        assert_eq!(built.params, vec!["51"]);
    }

    #[test]
    fn search_and_provider_are_bound_never_written() {
        let built = list_query(&filter(|f| {
            f.q = "o'hara_%".into();
            f.provider = Some("google'; drop table auth.users; --".into());
        }))
        .unwrap();
        assert!(!built.sql.contains("o'hara") && !built.sql.contains("drop table"), "{}", built.sql);
        assert_eq!(built.params[0], "%o'hara\\_\\%%");
        assert_eq!(built.params[1], "google'; drop table auth.users; --");
        assert!(built.sql.contains("u.email ilike $1::text or u.phone ilike $1::text or u.id::text ilike $1::text"));
        assert!(built.sql.contains("i.provider = $2::text"));
    }

    #[test]
    fn flags_filter_both_ways() {
        let built = list_query(&filter(|f| {
            f.confirmed = Some(true);
            f.banned = Some(false);
            f.anonymous = Some(false);
            f.mfa = Some(true);
            f.provider = Some("anonymous".into());
        }))
        .unwrap();
        let wheres =
            built.sql.split_once("from auth.users u where ").and_then(|(_, w)| w.split(" order by ").next()).unwrap();
        assert_eq!(
            wheres,
            "u.deleted_at is null and u.is_anonymous \
             and (u.email_confirmed_at is not null or u.phone_confirmed_at is not null) \
             and not (coalesce(u.banned_until > now(), false)) and not (u.is_anonymous) \
             and (exists (select 1 from auth.mfa_factors f where f.user_id = u.id and f.status = 'verified'))"
        );
        assert_eq!(built.params, vec!["51"]);
    }

    #[test]
    fn pages_follow_the_cursor_by_key() {
        let id = Uuid::parse_str("11111111-1111-4111-8111-111111111111").unwrap();
        let at = DateTime::parse_from_rfc3339("2026-01-02T03:04:05.123456Z").unwrap().with_timezone(&Utc);
        let built = list_query(&filter(|f| {
            f.after = Some(cursor(at, id));
            f.limit = Some(10_000);
        }))
        .unwrap();
        assert!(built
            .sql
            .contains("(coalesce(u.created_at, 'epoch'), u.id) < ($1::text::timestamptz, $2::text::uuid)"));
        assert_eq!(built.params, vec!["2026-01-02T03:04:05.123456Z".to_string(), id.to_string(), "201".to_string()]);
        assert!(matches!(list_query(&filter(|f| f.after = Some("nope".into()))), Err(StudioError::BadRequest(_))));
    }
}
