//! The development inbox: where auth mail lands when no SMTP server is configured, and text
//! messages when no SMS provider is (`auth::sms`), so a newcomer can confirm an account with
//! neither.
//!
//! Messages are rows of `auth.dev_inbox`. `GET /inbox` is a small HTML page listing them with
//! their links; `GET /inbox/api/messages?to=<email>` returns them as JSON (newest first) for
//! tests. Both are mounted at the server root, and only while the inbox is the transport: with
//! SMTP configured they answer 404. They also answer 404 to anything but a direct request from
//! the loopback interface (no `Forwarded` / `X-Forwarded-For`), so a deployment that forgot
//! SMTP does not publish recovery links to the world.

use crate::db::cached::CachedQueries;
use actix_web::{web, HttpRequest, HttpResponse};
use deadpool_postgres::Pool;
use serde::Deserialize;
use serde_json::json;

use super::templates::{html_escape, Rendered};
use crate::auth::error::AuthError;
use crate::auth::AuthState;

/// Keep a message.
pub async fn store(
    pool: &Pool,
    to: &str,
    kind: &str,
    rendered: &Rendered,
    link: Option<&str>,
) -> Result<(), AuthError> {
    let client = pool.get().await?;
    client
        .cached_execute(
            "insert into auth.dev_inbox (recipient, subject, kind, html, body_text, link) values ($1, $2, $3, $4, $5, $6)",
            &[&to, &rendered.subject, &kind, &rendered.html, &rendered.text, &link],
        )
        .await?;
    tracing::info!(to, kind, "mail stored in the development inbox (/inbox)");
    Ok(())
}

/// Mount `/inbox` and its JSON API.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/inbox", web::get().to(page)).route("/inbox/api/messages", web::get().to(messages));
}

#[derive(Debug, Deserialize)]
struct Filter {
    to: Option<String>,
}

async fn rows(state: &AuthState, to: Option<&str>) -> Result<Vec<tokio_postgres::Row>, AuthError> {
    let client = state.pool.get().await?;
    Ok(client
        .cached_query(
            "select id, recipient, subject, kind, html, body_text, link, created_at from auth.dev_inbox \
             where $1::text is null or lower(recipient) = lower($1) order by id desc limit 200",
            &[&to],
        )
        .await?)
}

/// The inbox is shown only while it is the transport, and only to local, unproxied requests.
fn check_access(state: &AuthState, req: &HttpRequest) -> Result<(), AuthError> {
    let texts_here = state.config().phone_enabled && state.sms.uses_inbox();
    if !state.mailer.uses_inbox() && !texts_here {
        return Err(AuthError::NotFound(
            "The development inbox is off (SMTP and an SMS provider are configured)".into(),
        ));
    }
    let proxied = ["forwarded", "x-forwarded-for", "x-real-ip"].iter().any(|h| req.headers().contains_key(*h));
    let local = req.peer_addr().is_some_and(|a| a.ip().is_loopback());
    if proxied || !local {
        return Err(AuthError::NotFound("The development inbox is only served to local requests".into()));
    }
    Ok(())
}

async fn messages(
    state: web::Data<AuthState>,
    req: HttpRequest,
    filter: web::Query<Filter>,
) -> Result<HttpResponse, AuthError> {
    check_access(&state, &req)?;
    let list: Vec<_> = rows(&state, filter.to.as_deref())
        .await?
        .iter()
        .map(|r| {
            json!({
                "id": r.get::<_, i64>(0),
                "to": r.get::<_, String>(1),
                "subject": r.get::<_, String>(2),
                "kind": r.get::<_, String>(3),
                "html": r.get::<_, String>(4),
                "text": r.get::<_, String>(5),
                "link": r.get::<_, Option<String>>(6),
                "created_at": crate::auth::users::time(r.get(7)),
            })
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "messages": list })))
}

async fn page(
    state: web::Data<AuthState>,
    req: HttpRequest,
    filter: web::Query<Filter>,
) -> Result<HttpResponse, AuthError> {
    check_access(&state, &req)?;
    let mut html = String::from(
        "<!doctype html><meta charset=utf-8><title>Inbox</title>\
         <style>body{font-family:sans-serif;max-width:60rem;margin:2rem auto}article{border:1px solid #ccc;\
         border-radius:6px;padding:1rem;margin:1rem 0}small{color:#666}</style>\
         <h1>Development inbox</h1><p>Mail sent by /auth/v1 while no SMTP server is configured.</p>",
    );
    let list = rows(&state, filter.to.as_deref()).await?;
    if list.is_empty() {
        html.push_str("<p>No messages yet.</p>");
    }
    for r in &list {
        let link: Option<String> = r.get(6);
        html.push_str(&format!(
            "<article><small>{} &middot; to {} &middot; {}</small><h2>{}</h2>{}<pre>{}</pre></article>",
            html_escape(&crate::auth::users::time(r.get(7))),
            html_escape(&r.get::<_, String>(1)),
            html_escape(&r.get::<_, String>(3)),
            html_escape(&r.get::<_, String>(2)),
            link.map(|l| format!("<p><a href=\"{0}\">{0}</a></p>", html_escape(&l))).unwrap_or_default(),
            html_escape(&r.get::<_, String>(5)),
        ));
    }
    Ok(HttpResponse::Ok().content_type("text/html; charset=utf-8").body(html))
}
