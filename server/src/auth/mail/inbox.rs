//! The development inbox: where auth mail lands when no SMTP server is configured, and text
//! messages when no SMS provider is (`auth::sms`), so a newcomer can confirm an account with
//! neither.
//!
//! Messages are rows of `auth.dev_inbox`, their files rows of `auth.dev_inbox_attachments`
//! (V91). `GET /inbox` is a small HTML page listing them with their links and files;
//! `GET /inbox/api/messages?to=<email>` returns them as JSON (newest first) for tests, each with
//! its `attachments` (`id`, `filename`, `content_type`, `size`, `url`), and
//! `GET /inbox/api/attachments/<id>` answers a file's bytes. Both are mounted at the server root, and only while the inbox is the transport: with
//! SMTP configured they answer 404. They also answer 404 to anything but a direct request from
//! the loopback interface (no `Forwarded` / `X-Forwarded-For`), so a deployment that forgot
//! SMTP does not publish recovery links to the world.

use crate::db::cached::CachedQueries;
use actix_web::{web, HttpRequest, HttpResponse};
use deadpool_postgres::Pool;
use serde::Deserialize;
use serde_json::json;

use super::templates::{html_escape, Rendered};
use super::Attachment;
use crate::auth::error::AuthError;
use crate::auth::AuthState;

/// Keep a message and its files, in one statement.
pub async fn store(
    pool: &Pool,
    to: &str,
    kind: &str,
    rendered: &Rendered,
    link: Option<&str>,
    attachments: &[Attachment],
) -> Result<(), AuthError> {
    let names: Vec<&str> = attachments.iter().map(|a| a.filename.as_str()).collect();
    let types: Vec<&str> = attachments.iter().map(|a| a.content_type.as_str()).collect();
    let contents: Vec<&[u8]> = attachments.iter().map(|a| a.content.as_slice()).collect();
    let client = pool.get().await?;
    client
        .cached_execute(
            "with m as (insert into auth.dev_inbox (recipient, subject, kind, html, body_text, link) \
                        values ($1, $2, $3, $4, $5, $6) returning id) \
             insert into auth.dev_inbox_attachments (message_id, filename, content_type, content) \
             select m.id, f.filename, f.content_type, f.content \
             from m, unnest($7::text[], $8::text[], $9::bytea[]) with ordinality f (filename, content_type, content, n) \
             order by f.n",
            &[&to, &rendered.subject, &kind, &rendered.html, &rendered.text, &link, &names, &types, &contents],
        )
        .await?;
    tracing::info!(to, kind, files = attachments.len(), "mail stored in the development inbox (/inbox)");
    Ok(())
}

/// Mount `/inbox` and its JSON API.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/inbox", web::get().to(page))
        .route("/inbox/api/messages", web::get().to(messages))
        .route("/inbox/api/attachments/{id}", web::get().to(attachment));
}

#[derive(Debug, Deserialize)]
struct Filter {
    to: Option<String>,
}

async fn rows(state: &AuthState, to: Option<&str>) -> Result<Vec<tokio_postgres::Row>, AuthError> {
    let client = state.pool.get().await?;
    Ok(client
        .cached_query(
            "select d.id, d.recipient, d.subject, d.kind, d.html, d.body_text, d.link, d.created_at, \
                    coalesce((select jsonb_agg(jsonb_build_object('id', a.id, 'filename', a.filename, \
                                'content_type', a.content_type, 'size', length(a.content), \
                                'url', '/inbox/api/attachments/' || a.id) order by a.id) \
                              from auth.dev_inbox_attachments a where a.message_id = d.id), '[]') \
             from auth.dev_inbox d \
             where $1::text is null or lower(d.recipient) = lower($1) order by d.id desc limit 200",
            &[&to],
        )
        .await?)
}

/// The inbox is shown only while it is the transport, and only to local, unproxied requests.
fn check_access(state: &AuthState, req: &HttpRequest) -> Result<(), AuthError> {
    let texts_here = state.config().phone_enabled && state.sms().uses_inbox();
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
                "attachments": r.get::<_, serde_json::Value>(8),
            })
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "messages": list })))
}

/// One file of a stored message, as it was attached.
async fn attachment(
    state: web::Data<AuthState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, AuthError> {
    use actix_web::http::header::{ContentDisposition, DispositionParam, DispositionType};
    check_access(&state, &req)?;
    let Ok(id) = id.parse::<i64>() else {
        return Err(AuthError::NotFound("No such attachment".into()));
    };
    let client = state.pool.get().await?;
    let row = client
        .cached_query_opt(
            "select filename, content_type, content from auth.dev_inbox_attachments where id = $1",
            &[&id],
        )
        .await?
        .ok_or_else(|| AuthError::NotFound("No such attachment".into()))?;
    let disposition = ContentDisposition {
        disposition: DispositionType::Attachment,
        parameters: vec![DispositionParam::Filename(row.get(0))],
    };
    Ok(HttpResponse::Ok()
        .content_type(row.get::<_, String>(1))
        .insert_header(disposition)
        .body(row.get::<_, Vec<u8>>(2)))
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
        for file in r.get::<_, serde_json::Value>(8).as_array().into_iter().flatten() {
            html.push_str(&format!(
                "<p>&#128206; <a href=\"{}\">{}</a> <small>{} &middot; {} bytes</small></p>",
                html_escape(file["url"].as_str().unwrap_or_default()),
                html_escape(file["filename"].as_str().unwrap_or_default()),
                html_escape(file["content_type"].as_str().unwrap_or_default()),
                file["size"].as_i64().unwrap_or_default(),
            ));
        }
    }
    Ok(HttpResponse::Ok().content_type("text/html; charset=utf-8").body(html))
}
