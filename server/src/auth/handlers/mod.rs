//! The `/auth/v1` endpoints, one file per group; each parses, checks limits, runs its work in
//! one transaction on the admin pool and answers in GoTrue's shapes. No SQL lives here beyond
//! calls into `users`, `sessions` and `flows`.

mod admin;
mod disabled;
mod external;
mod factors;
mod logout;
mod oauth;
mod oauth_clients;
mod oauth_token;
mod otp;
mod passkeys;
mod reauthenticate;
mod settings;
mod signup;
mod token;
mod user;
mod verify;

use actix_web::web;

use super::error::AuthError;

/// Mount every endpoint.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/signup", web::post().to(signup::signup))
        .route("/token", web::post().to(token::token))
        .route("/user", web::get().to(user::get))
        .route("/user", web::put().to(user::update))
        .route("/logout", web::post().to(logout::logout))
        .route("/reauthenticate", web::get().to(reauthenticate::reauthenticate))
        .route("/recover", web::post().to(otp::recover))
        .route("/resend", web::post().to(otp::resend))
        .route("/otp", web::post().to(otp::otp))
        .route("/magiclink", web::post().to(otp::otp))
        .route("/verify", web::get().to(verify::get))
        .route("/verify", web::post().to(verify::post))
        .route("/settings", web::get().to(settings::settings))
        .route("/health", web::get().to(settings::health))
        .route("/.well-known/jwks.json", web::get().to(settings::jwks))
        .route("/.well-known/openid-configuration", web::get().to(settings::openid_configuration))
        .route("/.well-known/oauth-authorization-server", web::get().to(oauth::authorization_server_metadata))
        .route("/user/oauth/grants", web::get().to(oauth::list_grants))
        .route("/user/oauth/grants", web::delete().to(oauth::revoke_grant))
        .route("/admin/custom-providers", web::to(disabled::custom_providers))
        .route("/admin/custom-providers/{rest:.*}", web::to(disabled::custom_providers))
        .route("/scim/v2", web::to(disabled::scim))
        .route("/scim/v2/{rest:.*}", web::to(disabled::scim))
        .route("/factors", web::post().to(factors::enroll))
        .route("/factors/{id}/challenge", web::post().to(factors::challenge))
        .route("/factors/{id}/verify", web::post().to(factors::verify))
        .route("/factors/{id}", web::delete().to(factors::unenroll))
        .route("/invite", web::post().to(admin::invite))
        .route("/admin/users", web::get().to(admin::list))
        .route("/admin/users", web::post().to(admin::create))
        .route("/admin/users/{id}", web::get().to(admin::get))
        .route("/admin/users/{id}", web::put().to(admin::update))
        .route("/admin/users/{id}", web::delete().to(admin::delete))
        .route("/admin/generate_link", web::post().to(admin::generate_link))
        .route("/admin/audit", web::get().to(admin::audit))
        .route("/admin/users/{id}/factors", web::get().to(admin::factors))
        .route("/admin/users/{id}/factors/{factor}", web::delete().to(admin::delete_factor))
        .route("/admin/users/{id}/factors/{factor}", web::put().to(admin::update_factor))
        .route("/authorize", web::get().to(external::authorize))
        .route("/callback", web::get().to(external::callback))
        .route("/callback", web::post().to(external::callback_post))
        .route("/user/identities/authorize", web::get().to(external::link_authorize))
        .route("/user/identities/{id}", web::delete().to(external::unlink))
        .route("/sso", web::to(disabled::saml))
        .route("/sso/{rest:.*}", web::to(disabled::saml))
        .route("/admin/sso/{rest:.*}", web::to(disabled::saml))
        .route("/oauth/authorize", web::get().to(oauth::authorize))
        .route("/oauth/authorizations/{id}", web::get().to(oauth::details))
        .route("/oauth/authorizations/{id}/consent", web::post().to(oauth::consent))
        .route("/oauth/token", web::post().to(oauth_token::token))
        .route("/oauth/userinfo", web::get().to(oauth_token::userinfo))
        .route("/oauth/clients/register", web::post().to(oauth_clients::register_dynamic))
        .route("/oauth/{rest:.*}", web::to(oauth::unknown))
        .route("/admin/oauth/clients", web::get().to(oauth_clients::list))
        .route("/admin/oauth/clients", web::post().to(oauth_clients::create))
        .route("/admin/oauth/clients/{id}", web::get().to(oauth_clients::get))
        .route("/admin/oauth/clients/{id}", web::put().to(oauth_clients::update))
        .route("/admin/oauth/clients/{id}", web::delete().to(oauth_clients::delete))
        .route("/admin/oauth/clients/{id}/regenerate_secret", web::post().to(oauth_clients::regenerate_secret))
        .route("/admin/oauth/{rest:.*}", web::to(oauth::unknown))
        .route("/passkeys", web::get().to(passkeys::list))
        .route("/passkeys/", web::get().to(passkeys::list))
        .route("/passkeys/registration/options", web::post().to(passkeys::registration_options))
        .route("/passkeys/registration/verify", web::post().to(passkeys::registration_verify))
        .route("/passkeys/authentication/options", web::post().to(passkeys::authentication_options))
        .route("/passkeys/authentication/verify", web::post().to(passkeys::authentication_verify))
        .route("/passkeys/{id}", web::patch().to(passkeys::rename))
        .route("/passkeys/{id}", web::delete().to(passkeys::delete))
        .route("/passkeys", web::to(passkeys::unknown))
        .route("/passkeys/{rest:.*}", web::to(passkeys::unknown))
        .route("/admin/users/{id}/passkeys", web::get().to(passkeys::admin_list))
        .route("/admin/users/{id}/passkeys/{passkey}", web::delete().to(passkeys::admin_delete))
        .default_service(web::to(|| async {
            Err::<actix_web::HttpResponse, _>(AuthError::NotFound("Not Found".into()))
        }));
}
