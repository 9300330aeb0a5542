//! The Auth → Users screen's writes: create (e-mail and password, confirmed at once if asked),
//! invite, mail a recovery or magic link, ban for a duration and unban, replace metadata, sign
//! out everywhere, delete (soft or hard). The logic is the auth surface's own
//! (`auth::user_admin`, which the `/auth/v1/admin/*` handlers call too); each action runs in one
//! transaction with its row of `_studio.audit_log`, and GoTrue's audit entry names the operator.

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest, HttpResponse, ResponseError};
use deadpool_postgres::Transaction;
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

use super::audit;
use super::auth_users::user_id;
use super::error::StudioError;
use super::session::OperatorSession;
use crate::auth::error::AuthError;
use crate::auth::user_admin::{self, AccountRequest, Actor, MailedLink, NewAccount};
use crate::auth::users::{checked_email, User};
use crate::state::AppState;

impl From<AuthError> for StudioError {
    /// The auth surface's refusals are the operator's to read; its failures stay internal.
    fn from(err: AuthError) -> StudioError {
        match err {
            AuthError::NotFoundUser => StudioError::NotFound("No such user".into()),
            AuthError::MfaFactorNotFound => StudioError::NotFound("No such factor".into()),
            AuthError::Unavailable(_) | AuthError::PoolTimeout => StudioError::Unavailable,
            AuthError::Internal(cause) => StudioError::internal(cause),
            other if other.status_code().is_client_error() => StudioError::BadRequest(other.to_string()),
            other => StudioError::internal(other),
        }
    }
}

/// What every write of this screen needs: the state, the signed-in operator (left by the
/// session middleware) and the address they write from.
pub struct UserWrite {
    state: web::Data<AppState>,
    op: OperatorSession,
    ip: String,
}

impl FromRequest for UserWrite {
    type Error = StudioError;
    type Future = std::future::Ready<Result<UserWrite, StudioError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let op = req.extensions().get::<OperatorSession>().cloned();
        let ip = req.peer_addr().map(|a| a.ip().to_string()).unwrap_or_default();
        std::future::ready(match (state, op) {
            (Some(state), Some(op)) => Ok(UserWrite { state, op, ip }),
            _ => Err(StudioError::Unauthenticated),
        })
    }
}

impl UserWrite {
    /// Run an auth action and its audit row in one transaction on the owner pool.
    async fn run<T>(
        &self,
        action: &str,
        target: &str,
        detail: Value,
        work: impl AsyncFnOnce(&Transaction<'_>, Actor<'_>) -> Result<T, AuthError>,
    ) -> Result<T, StudioError> {
        let mut client = self.state.pools.admin.get().await?;
        let tx = client.transaction().await?;
        let out = work(&tx, Actor { name: &self.op.email, ip: &self.ip }).await?;
        audit::record(&tx, &self.op, action, Some(target), detail).await?;
        tx.commit().await?;
        Ok(out)
    }

    /// [`run`](Self::run) on the user a path names (404 for a malformed id).
    async fn on_user<T>(
        &self,
        path: &str,
        action: &str,
        detail: Value,
        work: impl AsyncFnOnce(&Transaction<'_>, Actor<'_>, Uuid) -> Result<T, AuthError>,
    ) -> Result<T, StudioError> {
        let id = user_id(path)?;
        self.run(action, &format!("auth.users:{id}"), detail, async |db, actor| work(db, actor, id).await).await
    }
}

fn user_answer(user: &User) -> HttpResponse {
    HttpResponse::Ok().json(json!({ "user": user.to_json() }))
}

#[derive(Deserialize)]
pub struct Create {
    email: String,
    password: Option<String>,
    #[serde(default)]
    auto_confirm: bool,
}

/// `POST /studio/api/auth/users` `{email, password, auto_confirm}`: the new user.
pub async fn create(w: UserWrite, body: web::Json<Create>) -> Result<HttpResponse, StudioError> {
    let request = AccountRequest {
        email: Some(&body.email),
        password: body.password.as_deref().filter(|p| !p.is_empty()),
        email_confirm: body.auto_confirm,
        ..AccountRequest::default()
    };
    let new = NewAccount::checked(&w.state.auth, request).await?;
    let email = body.email.trim().to_lowercase();
    let detail = json!({"email": email, "auto_confirm": body.auto_confirm});
    let user = w
        .run("auth.users.create", &format!("auth.users:{email}"), detail, async |db, actor| {
            user_admin::create(db, &new, actor).await
        })
        .await?;
    Ok(HttpResponse::Created().json(json!({ "user": user.to_json() })))
}

#[derive(Deserialize)]
pub struct Invite {
    email: String,
}

/// `POST /studio/api/auth/invite` `{email}`: the invited user (the invite mail is sent by the
/// auth surface's mailer).
pub async fn invite(w: UserWrite, body: web::Json<Invite>) -> Result<HttpResponse, StudioError> {
    let email = checked_email(Some(&body.email))?;
    let auth = &w.state.auth;
    let redirect = auth.redirect_target(None);
    let user = w
        .run("auth.users.invite", &format!("auth.users:{email}"), json!({"email": email}), async |db, actor| {
            user_admin::invite(auth, db, &email, None, &redirect, actor).await
        })
        .await?;
    Ok(user_answer(&user))
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    Recovery,
    Magiclink,
}

#[derive(Deserialize)]
pub struct SendLink {
    kind: LinkKind,
}

/// `POST /studio/api/auth/users/{id}/send-link` `{kind: recovery|magiclink}`: the link is mailed.
pub async fn send_link(
    w: UserWrite,
    path: web::Path<String>,
    body: web::Json<SendLink>,
) -> Result<HttpResponse, StudioError> {
    let (link, name) = match body.kind {
        LinkKind::Recovery => (MailedLink::Recovery, "recovery"),
        LinkKind::Magiclink => (MailedLink::MagicLink, "magiclink"),
    };
    let auth = &w.state.auth;
    let redirect = auth.redirect_target(None);
    let user = w
        .on_user(&path, "auth.users.send_link", json!({"kind": name}), async |db, actor, id| {
            user_admin::send_link(auth, db, id, link, &redirect, actor).await
        })
        .await?;
    Ok(user_answer(&user))
}

#[derive(Deserialize)]
pub struct Ban {
    /// Go-style (`24h`, `1h30m`), or `none` to lift the ban.
    duration: String,
}

/// `POST /studio/api/auth/users/{id}/ban` `{duration}`: banned until then (their sessions end), or
/// unbanned with `none`.
pub async fn ban(w: UserWrite, path: web::Path<String>, body: web::Json<Ban>) -> Result<HttpResponse, StudioError> {
    let until = user_admin::ban_until(body.duration.trim())?;
    let action = if until.is_some() { "auth.users.ban" } else { "auth.users.unban" };
    let detail = json!({"duration": body.duration.trim(), "until": until});
    let user = w
        .on_user(&path, action, detail, async |db, actor, id| {
            user_admin::existing(db, id).await?;
            user_admin::ban(db, id, until).await?;
            let traits = json!({"by": "admin", "banned_until": until});
            crate::auth::audit::log(db, Some(id), actor.name, "user_modified", traits, actor.ip).await;
            user_admin::existing(db, id).await
        })
        .await?;
    Ok(user_answer(&user))
}

#[derive(Deserialize)]
pub struct Metadata {
    app_metadata: Option<Value>,
    user_metadata: Option<Value>,
}

/// `PUT /studio/api/auth/users/{id}/metadata` `{app_metadata?, user_metadata?}`: each object
/// given replaces the stored one.
pub async fn metadata(
    w: UserWrite,
    path: web::Path<String>,
    body: web::Json<Metadata>,
) -> Result<HttpResponse, StudioError> {
    let (app, user) = (body.app_metadata.as_ref(), body.user_metadata.as_ref());
    let detail = json!({"app_metadata": app, "user_metadata": user});
    let user = w
        .on_user(&path, "auth.users.metadata", detail, async |db, actor, id| {
            user_admin::replace_metadata(db, id, app, user, actor).await
        })
        .await?;
    Ok(user_answer(&user))
}

/// `POST /studio/api/auth/users/{id}/sign-out`: every session (and refresh token) ends;
/// `{ended}` says how many sessions there were.
pub async fn sign_out(w: UserWrite, path: web::Path<String>) -> Result<HttpResponse, StudioError> {
    let ended = w
        .on_user(&path, "auth.users.sign_out", json!({}), async |db, actor, id| {
            user_admin::sign_out_all(db, id, actor).await
        })
        .await?;
    Ok(HttpResponse::Ok().json(json!({ "ended": ended })))
}

#[derive(Deserialize, Default)]
pub struct Delete {
    /// GoTrue's `should_soft_delete`: keep the row with `deleted_at`, its personal data gone.
    #[serde(default)]
    soft: bool,
}

/// `DELETE /studio/api/auth/users/{id}` `{soft}`: 204.
pub async fn delete(
    w: UserWrite,
    path: web::Path<String>,
    body: Option<web::Json<Delete>>,
) -> Result<HttpResponse, StudioError> {
    let soft = body.map(|b| b.soft).unwrap_or(false);
    w.on_user(&path, "auth.users.delete", json!({"soft": soft}), async |db, actor, id| {
        user_admin::delete(db, id, soft, actor).await
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `DELETE /studio/api/auth/users/{id}/factors/{factor}`: the MFA factor is removed (the
/// sessions it raised drop to aal1); answers the deleted factor.
pub async fn delete_factor(w: UserWrite, path: web::Path<(String, String)>) -> Result<HttpResponse, StudioError> {
    let (user, factor) = path.into_inner();
    let factor = Uuid::parse_str(&factor).map_err(|_| StudioError::NotFound("No such factor".into()))?;
    let deleted = w
        .on_user(&user, "auth.users.delete_factor", json!({"factor_id": factor}), async |db, actor, id| {
            user_admin::delete_factor(db, id, factor, actor).await
        })
        .await?;
    Ok(HttpResponse::Ok().json(json!({ "factor": deleted })))
}
