//! The `/auth/v1` endpoints, one file per group; each parses, checks limits, runs its work in
//! one transaction on the admin pool and answers in GoTrue's shapes. No SQL lives here beyond
//! calls into `users`, `sessions` and `flows`.

mod admin;
mod disabled;
mod external;
mod factors;
mod logout;
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
        .route("/.well-known/oauth-authorization-server", web::get().to(disabled::oauth_server))
        .route("/user/oauth/grants", web::to(disabled::oauth_server))
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
        .route("/oauth/{rest:.*}", web::to(disabled::oauth_server))
        .route("/admin/oauth/{rest:.*}", web::to(disabled::oauth_server))
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
