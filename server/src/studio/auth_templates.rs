//! Auth → Mail templates: the subject and HTML of each auth mail (confirmation, invite, magic
//! link, recovery, e-mail change, reauthentication), edited over the start-up templates
//! (built-in, `MAILER_TEMPLATES_*` files, `MAILER_SUBJECTS_*`). A preview renders the draft
//! server-side with sample values through the auth surface's own template engine; a test send
//! delivers that rendering through the auth mailer (the development inbox when SMTP is not set).
//! Saving writes `_studio.auth_mail_templates` with its audit row and reloads the auth surface,
//! so the next mail uses it.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};

use super::audit;
use super::error::StudioError;
use super::session::OperatorSession;
use crate::auth::mail::{Kind, Rendered, Templates, Vars};
use crate::state::AppState;

/// The largest template accepted (bytes).
const MAX_HTML: usize = 100_000;

fn kind_of(name: &str) -> Result<Kind, StudioError> {
    Kind::ALL
        .into_iter()
        .find(|k| k.name() == name)
        .ok_or_else(|| StudioError::NotFound(format!("No mail template named {name}")))
}

/// The sample values of previews and test sends.
pub fn sample_vars(site_url: &str, email: &str) -> Vars {
    Vars {
        confirmation_url: format!(
            "{site_url}/auth/v1/verify?token=sample-token-hash&type=signup&redirect_to={site_url}"
        ),
        token: "123456".into(),
        token_hash: "sample-token-hash".into(),
        site_url: site_url.into(),
        redirect_to: site_url.into(),
        email: email.into(),
        new_email: "new.address@example.com".into(),
    }
}

fn entry(kind: Kind, base: &Templates, effective: &Templates, overridden: bool) -> Value {
    let (default_subject, default_html) = base.source(kind);
    let (subject, html) = effective.source(kind);
    json!({
        "kind": kind.name(), "subject": subject, "html": html,
        "default_subject": default_subject, "default_html": default_html, "overridden": overridden,
    })
}

async fn overridden(state: &AppState) -> Result<Vec<String>, StudioError> {
    let client = state.pools.admin.get().await?;
    Ok(client.query("select kind from _studio.auth_mail_templates", &[]).await?.into_iter().map(|r| r.get(0)).collect())
}

/// `GET /studio/api/auth/templates`: every kind with its template in force and its default.
pub async fn list(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let saved = overridden(&state).await?;
    let live = state.auth.live();
    let effective = live.current();
    let list: Vec<Value> = Kind::ALL
        .into_iter()
        .map(|k| entry(k, &live.base_templates, &effective.templates, saved.iter().any(|s| s == k.name())))
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "templates": list })))
}

/// A draft: `null` or blank fields mean "the default".
#[derive(Deserialize)]
pub struct Draft {
    subject: Option<String>,
    html: Option<String>,
    /// The address of a test send.
    to: Option<String>,
}

impl Draft {
    fn checked(&self) -> Result<(Option<&str>, Option<&str>), StudioError> {
        let subject = self.subject.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let html = self.html.as_deref().filter(|h| !h.trim().is_empty());
        if subject.is_some_and(|s| s.len() > 500 || s.contains(['\r', '\n'])) {
            return Err(StudioError::BadRequest("subject: one line of at most 500 characters".into()));
        }
        if html.is_some_and(|h| h.len() > MAX_HTML) {
            return Err(StudioError::BadRequest(format!("html: at most {MAX_HTML} bytes")));
        }
        Ok((subject, html))
    }

    /// The draft rendered with the sample values by the auth surface's engine.
    fn render(&self, state: &AppState, kind: Kind, email: &str) -> Result<Rendered, StudioError> {
        let (subject, html) = self.checked()?;
        let live = state.auth.live();
        let mut templates = live.base_templates.clone().with_subject(kind, subject);
        if let Some(html) = html {
            templates = templates.with_html(kind, html);
        }
        Ok(templates.render(kind, &sample_vars(&state.auth.site_url, email)))
    }
}

/// `PUT /studio/api/auth/templates/{kind}` `{subject, html}`: saved and in force (blank both: back
/// to the default).
pub async fn put(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    path: web::Path<String>,
    body: web::Json<Draft>,
) -> Result<HttpResponse, StudioError> {
    let kind = kind_of(&path)?;
    let (subject, html) = body.checked()?;
    let mut client = state.pools.admin.get().await?;
    let tx = client.transaction().await?;
    if subject.is_none() && html.is_none() {
        tx.execute("delete from _studio.auth_mail_templates where kind = $1", &[&kind.name()]).await?;
    } else {
        tx.execute(
            "insert into _studio.auth_mail_templates (kind, subject, html) values ($1, $2, $3) \
             on conflict (kind) do update set subject = excluded.subject, html = excluded.html, updated_at = now()",
            &[&kind.name(), &subject, &html],
        )
        .await?;
    }
    let detail =
        json!({"subject": subject, "html_bytes": html.map(str::len), "reset": subject.is_none() && html.is_none()});
    audit::record(&tx, &op, "auth.templates.update", Some(&format!("auth.templates:{}", kind.name())), detail).await?;
    tx.commit().await?;
    drop(client);
    state.auth.reload_settings().await.map_err(StudioError::internal)?;
    let live = state.auth.live();
    let overridden = subject.is_some() || html.is_some();
    Ok(HttpResponse::Ok().json(entry(kind, &live.base_templates, &live.current().templates, overridden)))
}

/// `POST /studio/api/auth/templates/{kind}/preview` `{subject, html}`: the draft rendered with
/// sample values (`{subject, html, text}`); nothing is saved.
pub async fn preview(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    path: web::Path<String>,
    body: web::Json<Draft>,
) -> Result<HttpResponse, StudioError> {
    let kind = kind_of(&path)?;
    let rendered = body.render(&state, kind, &op.email)?;
    Ok(HttpResponse::Ok().json(json!({"subject": rendered.subject, "html": rendered.html, "text": rendered.text})))
}

/// `POST /studio/api/auth/templates/{kind}/test` `{subject, html, to}`: the draft rendered with
/// sample values and delivered to `to` (the operator's own address when absent) through the
/// auth mailer. 204.
pub async fn test_send(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    path: web::Path<String>,
    body: web::Json<Draft>,
) -> Result<HttpResponse, StudioError> {
    let kind = kind_of(&path)?;
    let to = body.to.as_deref().map(str::trim).filter(|t| !t.is_empty()).unwrap_or(&op.email).to_string();
    let to = crate::auth::users::checked_email(Some(&to))?;
    let rendered = body.render(&state, kind, &to)?;
    let link = sample_vars(&state.auth.site_url, &to).confirmation_url;
    state.auth.mailer.deliver(&to, kind.name(), &rendered, Some(&link)).await?;
    let client = state.pools.admin.get().await?;
    audit::record(
        &client,
        &op,
        "auth.templates.test_send",
        Some(&format!("auth.templates:{}", kind.name())),
        json!({"to": to}),
    )
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_named_as_the_inbox_names_them() {
        assert!(matches!(kind_of("magic_link"), Ok(Kind::MagicLink)));
        assert!(matches!(kind_of("signup"), Err(StudioError::NotFound(_))));
    }

    #[test]
    fn drafts_are_checked() {
        let draft =
            |subject: &str, html: &str| Draft { subject: Some(subject.into()), html: Some(html.into()), to: None };
        assert!(matches!(draft("a\nb", "x").checked(), Err(StudioError::BadRequest(_))));
        assert!(matches!(draft("ok", &"x".repeat(MAX_HTML + 1)).checked(), Err(StudioError::BadRequest(_))));
        assert_eq!(draft("  ", " ").checked().unwrap(), (None, None));
        assert_eq!(draft(" Hi ", "<p>x</p>").checked().unwrap(), (Some("Hi"), Some("<p>x</p>")));
    }
}
