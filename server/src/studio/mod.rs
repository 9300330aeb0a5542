//! Studio, the operator's dashboard: the single-page app embedded in the binary at `/studio`
//! and its HTTP API under `/studio/api/`.
//!
//! Operators are not app users: they live in `_studio.operators` (argon2 hashes made by
//! `auth::password`), sign in with a session cookie (`session`), and every write they make lands
//! in `_studio.audit_log` (`audit`). The API never sends an API key to the browser, and no API
//! key or app user's token opens it: only the session cookie does, with its CSRF token on writes.
//! The data screens run SQL as the database owner on the admin pool (`rows`, `sql_editor`),
//! building every statement with identifiers quoted by `db::quote_ident` and values bound
//! (`query`); the table editor's structure forms build their DDL in `ddl_sql` and run it in
//! `ddl`, CSV goes in and out through `csv_io`, `fk_picker` searches a referenced table, and
//! `bytea` sets and downloads a binary cell's bytes.
//! The storage screen mounts storage's own handlers for operators (`storage`); the
//! policies screen builds its DDL in `policy_sql` and tests policies as a caller in a rolled-back
//! transaction (`policy_tester`); the users screen reads `auth.users` (`auth_users`) and acts
//! through the auth room's admin actions (`auth_actions`); the auth settings, mail templates and
//! signing keys screens (`auth_settings`, `auth_templates`, `signing_keys`) write overrides that
//! the auth room's live configuration (`auth::live`) puts in force; operators may add TOTP
//! (`operator_totp`); `api_keys` shows the API's URL, keys
//! and generated types; `backups` drives the backup room; `database` (with its SQL in `database_sql`) shows roles,
//! extensions, migrations, sizes and index hints, and `roles` (its SQL in `roles_sql`) edits roles; `explain` and `snippets` extend the SQL editor; `logs` and `reports` read the request
//! log (`request_log`), the embedded cluster's log file and Postgres's statistics, and the history
//! the sampler `samples` writes (`figures`, `report_history`). This room imports shared parts (`db`,
//! `config`), `auth`'s password hashing, rate limits, claims and admin actions on users
//! (`auth::user_admin`), `storage`'s routes and S3 keys, `backup`, the type generator of
//! `project`, and nothing of `startup` but the application state. The realtime inspector
//! (`realtime`) reads the realtime room's hub and relay and hands the page a short-lived token
//! (`tokens`); the functions screen (`functions`, `function_invoke`) goes through
//! `functions::manage::ops`, the management API's own operations.

pub mod api_keys;
pub mod assets;
pub mod audit;
pub mod auth_actions;
pub mod auth_settings;
pub mod auth_templates;
pub mod auth_users;
pub mod backups;
pub mod body;
pub mod bytea;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod csv_io;
pub mod database;
pub mod database_sql;
pub mod ddl;
pub mod ddl_sql;
pub mod error;
pub mod explain;
pub mod figures;
pub mod fk_picker;
pub mod function_invoke;
pub mod functions;
pub mod history;
pub mod log_query;
pub mod logs;
pub mod operator_totp;
pub mod operators;
pub mod pg_log;
pub mod policies;
pub mod policy_sql;
pub mod policy_tester;
pub mod query;
pub mod realtime;
pub mod report_history;
pub mod reports;
pub mod roles;
pub mod roles_sql;
pub mod rows;
pub mod samples;
pub mod session;
pub mod signin;
pub mod signing_keys;
pub mod snippets;
pub mod sql_editor;
pub mod storage;
pub mod tokens;
pub mod users;

use actix_web::middleware::from_fn;
use actix_web::web;

pub use config::{OperatorsAction, StudioAction, StudioConfig};

/// Mount `/studio/api/` and the app at `/studio`.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/studio/api").route("/signin", web::post().to(signin::sign_in)).service(
            web::scope("")
                .wrap(from_fn(session::require_operator))
                .route("/session", web::get().to(signin::current))
                .route("/signout", web::post().to(signin::sign_out))
                .route("/audit", web::get().to(audit::list))
                .route("/schemas", web::get().to(catalog::schemas))
                .route("/tables", web::get().to(catalog::tables))
                .route("/tables/{schema}/{table}", web::get().to(catalog::table))
                .route("/tables/{schema}/{table}/rows", web::get().to(rows::select))
                .route("/tables/{schema}/{table}/rows", web::post().to(rows::insert))
                .route("/tables/{schema}/{table}/rows", web::patch().to(rows::update))
                .route("/tables/{schema}/{table}/rows", web::delete().to(rows::delete))
                // Table editor › structure (ddl, ddl_sql), CSV (csv_io), foreign-key picker (fk_picker)
                .route("/tables/{schema}/{table}/structure", web::get().to(ddl::structure))
                .route("/tables/{schema}/{table}/export", web::get().to(csv_io::export))
                .route("/tables/{schema}/{table}/import", web::post().to(csv_io::import))
                .route("/tables/{schema}/{table}/references", web::get().to(fk_picker::pick))
                // Table editor › bytea cells: set from hex or a file, download (bytea)
                .route("/tables/{schema}/{table}/bytes", web::put().to(bytea::set))
                .route("/tables/{schema}/{table}/bytes", web::get().to(bytea::download))
                .route("/ddl", web::post().to(ddl::run))
                .route("/sql", web::post().to(sql_editor::run))
                .route("/sql/history", web::get().to(history::list))
                // SQL editor: the plan tree and saved snippets
                .route("/sql/explain", web::post().to(explain::run))
                .route("/snippets", web::get().to(snippets::list))
                .route("/snippets", web::post().to(snippets::create))
                .route("/snippets/{id}", web::patch().to(snippets::update))
                .route("/snippets/{id}", web::delete().to(snippets::delete))
                .route("/users", web::get().to(users::search))
                // Storage screen: storage's own routes as the service role, and the S3 access keys.
                .configure(storage::configure)
                .route("/s3-keys", web::get().to(storage::list_keys))
                .route("/s3-keys", web::post().to(storage::create_key))
                .route("/s3-keys/{id}", web::delete().to(storage::revoke_key))
                // Policies screen: policies and RLS per table, and the policy tester.
                .route("/policies", web::get().to(policies::list))
                .route("/policies", web::post().to(policies::put))
                .route("/policies/drop", web::post().to(policies::drop_policy))
                .route("/policies/rls", web::post().to(policies::rls))
                .route("/policies/test", web::post().to(policy_tester::run))
                // Database › Backups
                .route("/backups", web::get().to(backups::list))
                .route("/backups", web::post().to(backups::take))
                .route("/backups/verify", web::post().to(backups::verify))
                .route("/backups/restore", web::post().to(backups::restore))
                // Database › roles, extensions, migrations, table sizes, indexes
                .route("/database/roles", web::get().to(database::roles))
                .route("/database/roles", web::post().to(roles::create))
                .route("/database/roles/{name}", web::patch().to(roles::alter))
                .route("/database/roles/{name}", web::delete().to(roles::drop_role))
                .route("/database/roles/{name}/membership", web::post().to(roles::membership))
                .route("/database/roles/{name}/privileges", web::post().to(roles::privileges))
                .route("/database/extensions", web::get().to(database::extensions))
                .route("/database/extensions", web::post().to(database::switch_extension))
                .route("/database/extensions/update", web::post().to(database::update_extension))
                .route("/database/migrations", web::get().to(database::migrations))
                .route("/database/table-sizes", web::get().to(database::table_sizes))
                .route("/database/indexes", web::get().to(database::indexes))
                // Auth → Users (auth_users reads, auth_actions writes through auth::user_admin)
                .route("/auth/users", web::get().to(auth_users::list))
                .route("/auth/users", web::post().to(auth_actions::create))
                .route("/auth/invite", web::post().to(auth_actions::invite))
                .route("/auth/users/{id}", web::get().to(auth_users::detail))
                .route("/auth/users/{id}", web::delete().to(auth_actions::delete))
                .route("/auth/users/{id}/metadata", web::put().to(auth_actions::metadata))
                .route("/auth/users/{id}/ban", web::post().to(auth_actions::ban))
                .route("/auth/users/{id}/send-link", web::post().to(auth_actions::send_link))
                .route("/auth/users/{id}/sign-out", web::post().to(auth_actions::sign_out))
                .route("/auth/users/{id}/factors/{factor}", web::delete().to(auth_actions::delete_factor))
                // Auth → Settings, Mail templates, Signing keys; the operator's own TOTP
                .route("/auth/settings", web::get().to(auth_settings::get))
                .route("/auth/settings", web::put().to(auth_settings::put))
                .route("/auth/templates", web::get().to(auth_templates::list))
                .route("/auth/templates/{kind}", web::put().to(auth_templates::put))
                .route("/auth/templates/{kind}/preview", web::post().to(auth_templates::preview))
                .route("/auth/templates/{kind}/test", web::post().to(auth_templates::test_send))
                .route("/auth/signing-keys", web::get().to(signing_keys::list))
                .route("/auth/signing-keys/rotate", web::post().to(signing_keys::rotate))
                .route("/auth/signing-keys/{id}/revoke", web::post().to(signing_keys::revoke))
                .route("/operator/totp", web::get().to(operator_totp::status))
                .route("/operator/totp/enroll", web::post().to(operator_totp::enroll))
                .route("/operator/totp/verify", web::post().to(operator_totp::verify))
                .route("/operator/totp/remove", web::post().to(operator_totp::remove))
                // API & keys (api_keys): the URL, the keys, the generated types
                .route("/project/api", web::get().to(api_keys::settings))
                .route("/project/api/reveal", web::post().to(api_keys::reveal))
                .route("/types", web::get().to(api_keys::types))
                // Logs and reports (logs, reports): read-only
                .route("/logs/requests", web::get().to(logs::requests))
                .route("/logs/requests/{id}", web::get().to(logs::request))
                .route("/logs/postgres", web::get().to(logs::postgres))
                .route("/logs/auth", web::get().to(logs::auth))
                .route("/reports", web::get().to(reports::report))
                // Realtime inspector (realtime) and Edge Functions (functions, function_invoke)
                .route("/realtime/token", web::post().to(realtime::token))
                .route("/realtime/publication", web::get().to(realtime::publication))
                .route("/realtime/instances", web::get().to(realtime::instances))
                .route("/functions", web::get().to(functions::list))
                .route("/functions-secrets", web::get().to(functions::list_secrets))
                .route("/functions-secrets", web::post().to(functions::set_secret))
                .route("/functions-secrets/{name}", web::delete().to(functions::unset_secret))
                .route("/functions/{slug}", web::get().to(functions::get))
                .route("/functions/{slug}", web::delete().to(functions::delete))
                .route("/functions/{slug}/deploy", web::post().to(functions::deploy))
                .route("/functions/{slug}/invoke", web::post().to(function_invoke::invoke))
                .route("/functions/{slug}/logs", web::get().to(functions::logs))
                .default_service(web::to(error::not_found)),
        ),
    );
    assets::configure(cfg);
}
