//! The audit log: every auth event becomes a row of `auth.audit_log_entries`, with GoTrue's
//! payload shape (`actor_id`, `actor_username`, `action`, `log_type`, `traits`).
//!
//! Writing the log never fails a request: an error is logged and the request goes on.

use crate::db::cached::CachedQueries;
use deadpool_postgres::GenericClient;
use serde_json::{json, Value};
use uuid::Uuid;

/// Record `action` by `actor` (a user id or the admin role).
pub async fn log(db: &impl GenericClient, actor: Option<Uuid>, username: &str, action: &str, traits: Value, ip: &str) {
    let log_type = match action {
        "login" | "logout" | "login_failed" | "user_signedup" | "user_invited" => "account",
        "token_refreshed" | "token_revoked" => "token",
        "user_recovery_requested" | "user_confirmation_requested" | "user_reauthenticate_requested" => "user",
        _ => "user",
    };
    let payload = json!({
        "actor_id": actor.map(|a| a.to_string()).unwrap_or_default(),
        "actor_username": username,
        "actor_via_sso": false,
        "action": action,
        "log_type": log_type,
        "traits": traits,
    });
    let result = db
        .cached_execute(
            "insert into auth.audit_log_entries (instance_id, id, payload, created_at, ip_address) \
             values ('00000000-0000-0000-0000-000000000000', $1, $2::jsonb::json, now(), $3)",
            &[&Uuid::new_v4(), &payload, &ip],
        )
        .await;
    if let Err(err) = result {
        tracing::warn!(error = %err, action, "could not write the audit log");
    }
}
