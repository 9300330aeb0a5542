//! The e-mail flows: making a one-time token, building its link, mailing it (with the per-user
//! spacing and the server-wide hourly limit), verifying it later, and the PKCE flow state that
//! turns a verified link into `?code=` for `exchangeCodeForSession`.
//!
//! Links are `API_EXTERNAL_URL/auth/v1/verify?token=<hash>&type=<type>&redirect_to=<url>`; a
//! PKCE flow prefixes the hash with `pkce_`. Handlers decide which flow to start.

use chrono::{Duration, Utc};
use uuid::Uuid;

use super::error::AuthError;
use super::mail::{Kind, Vars};
use super::one_time::{self, TokenColumn};
use super::rate_limit;
use super::tokens;
use super::users::{self, User};
use super::AuthState;

/// Seconds a PKCE auth code stays exchangeable (GoTrue's default flow state expiry).
const FLOW_STATE_EXPIRY_SECS: i64 = 300;

/// What a link does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkType {
    Signup,
    Invite,
    MagicLink,
    Recovery,
    /// E-mail change, the link mailed to the new address.
    EmailChange,
    /// E-mail change, the link mailed to the current address (secure e-mail change).
    EmailChangeCurrent,
}

impl LinkType {
    /// Parse a `type` of `/verify` (`email` is a signup or a magic link, decided by the stored token).
    pub fn parse(value: &str) -> Option<Vec<LinkType>> {
        Some(match value {
            "signup" => vec![LinkType::Signup],
            "invite" => vec![LinkType::Invite],
            "magiclink" => vec![LinkType::MagicLink],
            "recovery" => vec![LinkType::Recovery],
            "email_change" => vec![LinkType::EmailChange, LinkType::EmailChangeCurrent],
            "email" => vec![LinkType::Signup, LinkType::MagicLink],
            _ => return None,
        })
    }

    /// The `type` in links and in the redirect fragment.
    pub fn name(self) -> &'static str {
        match self {
            LinkType::Signup => "signup",
            LinkType::Invite => "invite",
            LinkType::MagicLink => "magiclink",
            LinkType::Recovery => "recovery",
            LinkType::EmailChange | LinkType::EmailChangeCurrent => "email_change",
        }
    }

    /// Where the token is stored (GoTrue keeps magic links in `recovery_token`).
    pub fn column(self) -> TokenColumn {
        match self {
            LinkType::Signup | LinkType::Invite => TokenColumn::Confirmation,
            LinkType::MagicLink | LinkType::Recovery => TokenColumn::Recovery,
            LinkType::EmailChange => TokenColumn::EmailChangeNew,
            LinkType::EmailChangeCurrent => TokenColumn::EmailChangeCurrent,
        }
    }

    fn kind(self) -> Kind {
        match self {
            LinkType::Signup => Kind::Confirmation,
            LinkType::Invite => Kind::Invite,
            LinkType::MagicLink => Kind::MagicLink,
            LinkType::Recovery => Kind::Recovery,
            LinkType::EmailChange | LinkType::EmailChangeCurrent => Kind::EmailChange,
        }
    }

    /// `authentication_method` of flow states and the `amr` method of the session it opens.
    pub fn method(self) -> &'static str {
        match self {
            LinkType::Signup => "email/signup",
            LinkType::Invite => "invite",
            LinkType::MagicLink => "magiclink",
            LinkType::Recovery => "recovery",
            LinkType::EmailChange | LinkType::EmailChangeCurrent => "email_change",
        }
    }

    /// The `amr` method of a session opened by this link.
    pub fn amr(self) -> &'static str {
        match self {
            LinkType::Signup | LinkType::MagicLink => "otp",
            LinkType::Invite => "invite",
            LinkType::Recovery => "recovery",
            LinkType::EmailChange | LinkType::EmailChangeCurrent => "email_change",
        }
    }
}

/// A link ready to mail (or to return from `generate_link`).
#[derive(Debug, Clone)]
pub struct Link {
    pub otp: String,
    pub hashed_token: String,
    pub action_link: String,
    pub redirect_to: String,
}

/// Make and store a token for `user`, and its link. `target` is the address the mail goes to.
pub async fn make_link(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    user: &User,
    link_type: LinkType,
    target: &str,
    redirect_to: &str,
    pkce: bool,
) -> Result<Link, AuthError> {
    let otp = tokens::otp(state.mailer_otp_length());
    let hashed_token = tokens::token_hash(&target.to_lowercase(), &otp);
    one_time::set_token(db, user.id, link_type.column(), &hashed_token, &target.to_lowercase()).await?;
    let token = if pkce { format!("pkce_{hashed_token}") } else { hashed_token.clone() };
    let mut link = url::Url::parse(&format!("{}/verify", state.issuer)).map_err(AuthError::internal)?;
    link.query_pairs_mut()
        .append_pair("token", &token)
        .append_pair("type", link_type.name())
        .append_pair("redirect_to", redirect_to);
    Ok(Link { otp, hashed_token, action_link: link.to_string(), redirect_to: redirect_to.to_string() })
}

/// Refuse a mail of this kind sent to the user less than `SMTP_MAX_FREQUENCY` seconds ago.
pub fn check_spacing(state: &AuthState, user: &User, link_type: LinkType) -> Result<(), AuthError> {
    let Some(sent) = one_time::sent_at(user, link_type.column()) else { return Ok(()) };
    let wait = state.config().smtp_max_frequency as i64 - (Utc::now() - sent).num_seconds();
    if wait > 0 {
        return Err(AuthError::OverEmailSendRateLimit(format!(
            "For security purposes, you can only request this after {wait} seconds."
        )));
    }
    Ok(())
}

/// Mail a link of `link_type` to `user` (or to `target` for an e-mail change), after the
/// per-user spacing check.
pub async fn send_link(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    user: &User,
    link_type: LinkType,
    target: Option<&str>,
    redirect_to: &str,
    pkce: bool,
) -> Result<Link, AuthError> {
    check_spacing(state, user, link_type)?;
    deliver(state, db, user, link_type, target, redirect_to, pkce).await
}

/// Mail a link without the spacing check (the second mail of a secure e-mail change); the
/// server-wide hourly limit still applies.
pub async fn deliver(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    user: &User,
    link_type: LinkType,
    target: Option<&str>,
    redirect_to: &str,
    pkce: bool,
) -> Result<Link, AuthError> {
    rate_limit::hit(
        &state.pool,
        "email:all",
        state.config().rate_limit_email_sent,
        rate_limit::EMAIL_WINDOW_SECS,
        AuthError::OverEmailSendRateLimit("Email rate limit exceeded".into()),
    )
    .await?;
    let to = target.unwrap_or(user.email_str()).to_string();
    let link = make_link(state, db, user, link_type, &to, redirect_to, pkce).await?;
    let new_email = match link_type {
        LinkType::EmailChange | LinkType::EmailChangeCurrent => user.email_change.clone().unwrap_or_default(),
        _ => String::new(),
    };
    let vars = Vars {
        confirmation_url: link.action_link.clone(),
        token: link.otp.clone(),
        token_hash: link.hashed_token.clone(),
        site_url: state.site_url.clone(),
        redirect_to: redirect_to.to_string(),
        email: user.email_str().to_string(),
        new_email: if new_email.is_empty() { target.unwrap_or_default().to_string() } else { new_email },
    };
    state.mailer.send(&to, link_type.kind(), &vars).await?;
    Ok(link)
}

/// What a verified token did.
#[derive(Debug, Clone)]
pub enum Verified {
    /// The token was applied; the user as it is now.
    Done(Box<User>, LinkType),
    /// First of the two links of a secure e-mail change: the other one is still awaited.
    OtherAddressPending,
}

/// GoTrue's answer to the first link of a secure e-mail change.
pub const SINGLE_CONFIRMATION: &str =
    "Confirmation link accepted. Please proceed to confirm link sent to the other email";

/// Check a token hash of one of `types` and apply it (confirm, recover, change the address).
pub async fn verify(
    state: &AuthState,
    db: &impl crate::db::cached::Db,
    types: &[LinkType],
    token_hash: &str,
) -> Result<Verified, AuthError> {
    let hash = token_hash.strip_prefix("pkce_").unwrap_or(token_hash);
    for &link_type in types {
        let Some(user) = one_time::by_token(db, link_type.column(), hash).await? else { continue };
        let fresh = one_time::sent_at(&user, link_type.column())
            .is_some_and(|sent| sent + Duration::seconds(state.config().mailer_otp_exp as i64) > Utc::now());
        if !fresh {
            return Err(AuthError::OtpExpired);
        }
        one_time::clear_token(db, user.id, link_type.column()).await?;
        match link_type {
            LinkType::EmailChange | LinkType::EmailChangeCurrent => {
                let status: i16 = db
                    .cached_query_one(
                        "select coalesce(email_change_confirm_status, 0)::int2 from auth.users where id = $1",
                        &[&user.id],
                    )
                    .await?
                    .get(0);
                let secure = state.config().secure_email_change && !state.config().mailer_autoconfirm;
                if secure && status == 0 && !user.email_str().is_empty() {
                    db.cached_execute(
                        "update auth.users set email_change_confirm_status = 1 where id = $1",
                        &[&user.id],
                    )
                    .await?;
                    return Ok(Verified::OtherAddressPending);
                }
                let new_email = user.email_change.clone().unwrap_or_default();
                if new_email.is_empty() || !users::set_email(db, user.id, &new_email).await? {
                    return Err(AuthError::EmailExists);
                }
            }
            _ => users::confirm_email(db, user.id).await?,
        }
        if link_type == LinkType::Invite {
            db.cached_execute(
                "update auth.users set invited_at = coalesce(invited_at, now()) where id = $1",
                &[&user.id],
            )
            .await?;
        }
        let user = users::by_id(db, user.id).await?.ok_or(AuthError::OtpExpired)?;
        return Ok(Verified::Done(Box::new(user), link_type));
    }
    Err(AuthError::OtpExpired)
}

/// A PKCE challenge sent with signup/recover/otp.
#[derive(Debug, Clone)]
pub struct Challenge {
    pub challenge: String,
    pub method: &'static str,
}

/// Read `code_challenge` + `code_challenge_method`; both or neither.
pub fn challenge(code: Option<&str>, method: Option<&str>) -> Result<Option<Challenge>, AuthError> {
    match (code.filter(|c| !c.is_empty()), method.filter(|m| !m.is_empty())) {
        (None, None) => Ok(None),
        (Some(code), Some(method)) => {
            let method = tokens::challenge_method(method)
                .ok_or_else(|| AuthError::Validation(format!("code challenge method not supported : {method}")))?;
            if !(43..=128).contains(&code.len()) && method == "s256" {
                return Err(AuthError::Validation("code challenge has to be between 43 and 128 characters".into()));
            }
            Ok(Some(Challenge { challenge: code.to_string(), method }))
        }
        _ => Err(AuthError::Validation("PKCE flow requires code_challenge_method and code_challenge".into())),
    }
}

/// Remember a PKCE challenge for `user` and `link_type`.
pub async fn save_flow_state(
    db: &impl crate::db::cached::Db,
    user_id: Uuid,
    link_type: LinkType,
    challenge: &Challenge,
) -> Result<(), AuthError> {
    db.cached_execute(
        "insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type, \
             created_at, updated_at, authentication_method) \
         values ($1, $2, $3, $4::text::auth.code_challenge_method, $5, 'email', now(), now(), $6)",
        &[
            &Uuid::new_v4(),
            &user_id,
            &Uuid::new_v4().to_string(),
            &challenge.method,
            &challenge.challenge,
            &link_type.method(),
        ],
    )
    .await?;
    Ok(())
}

/// The auth code of the newest flow state of `user` for `link_type`, marked issued now.
/// A PKCE flow state of the OAuth redirect flow, before the user is known; its id (carried in
/// the `state` sent to the provider).
pub async fn save_oauth_flow_state(
    db: &impl crate::db::cached::Db,
    provider: &str,
    challenge: &Challenge,
) -> Result<Uuid, AuthError> {
    let id = Uuid::new_v4();
    db.cached_execute(
        "insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type, \
             created_at, updated_at, authentication_method) \
         values ($1, null, $2, $3::text::auth.code_challenge_method, $4, $5, now(), now(), 'oauth')",
        &[&id, &Uuid::new_v4().to_string(), &challenge.method, &challenge.challenge, &provider],
    )
    .await?;
    Ok(id)
}

/// The provider came back: bind the flow state to its user and issue its auth code.
pub async fn bind_oauth_flow_state(
    db: &impl crate::db::cached::Db,
    id: Uuid,
    user_id: Uuid,
    provider_token: &str,
) -> Result<String, AuthError> {
    let row = db
        .cached_query_opt(
            "update auth.flow_state set user_id = $2, provider_access_token = $3, auth_code_issued_at = now(), \
                 updated_at = now() where id = $1 and user_id is null returning auth_code",
            &[&id, &user_id, &provider_token],
        )
        .await?
        .ok_or(AuthError::FlowStateNotFound)?;
    Ok(row.get(0))
}

pub async fn issue_auth_code(
    db: &impl crate::db::cached::Db,
    user_id: Uuid,
    link_type: LinkType,
) -> Result<Option<String>, AuthError> {
    let row = db
        .cached_query_opt(
            "update auth.flow_state set auth_code_issued_at = now(), updated_at = now() where id = \
                 (select id from auth.flow_state where user_id = $1 and authentication_method = $2 \
                  order by created_at desc limit 1) returning auth_code",
            &[&user_id, &link_type.method()],
        )
        .await?;
    Ok(row.map(|r| r.get(0)))
}

/// Exchange an auth code and its verifier for the flow's user (the flow state is consumed).
pub async fn exchange_code(
    db: &impl crate::db::cached::Db,
    auth_code: &str,
    verifier: &str,
) -> Result<(Uuid, String), AuthError> {
    let row = db
        .cached_query_opt(
            "delete from auth.flow_state where auth_code = $1 \
             returning user_id, code_challenge_method::text, code_challenge, authentication_method, \
                 extract(epoch from now() - coalesce(auth_code_issued_at, created_at))::float8",
            &[&auth_code],
        )
        .await?
        .ok_or(AuthError::FlowStateNotFound)?;
    let user_id: Option<Uuid> = row.get(0);
    let method: String = row.get(1);
    let challenge: String = row.get(2);
    let auth_method: String = row.get(3);
    let age: f64 = row.get::<_, Option<f64>>(4).unwrap_or_default();
    if age > FLOW_STATE_EXPIRY_SECS as f64 {
        return Err(AuthError::FlowStateExpired);
    }
    if !tokens::pkce_matches(&method, &challenge, verifier) {
        return Err(AuthError::BadCodeVerifier);
    }
    Ok((user_id.ok_or(AuthError::FlowStateNotFound)?, auth_method))
}
