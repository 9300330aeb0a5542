//! The audit log: every auth event becomes a row of `auth.audit_log_entries`, with GoTrue's
//! payload shape (`actor_id`, `actor_username`, `action`, `log_type`, `traits`), written by
//! `auth.write_audit`, which the grants in SQL call too.
//!
//! Writing the log never fails a request: an error is logged and the request goes on.

use serde_json::Value;
use uuid::Uuid;

/// Record `action` by `actor` (a user id or the admin role).
pub async fn log(
    db: &impl crate::db::cached::Db,
    actor: Option<Uuid>,
    username: &str,
    action: &str,
    traits: Value,
    ip: &str,
) {
    let result = db
        .cached_execute("select auth.write_audit($1, $2, $3, $4, $5)", &[&actor, &username, &action, &traits, &ip])
        .await;
    if let Err(err) = result {
        tracing::warn!(error = %err, action, "could not write the audit log");
    }
}
