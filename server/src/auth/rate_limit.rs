//! Rate limits counted in Postgres, so that they hold across several server instances.
//!
//! Each limit is a fixed window: one row per (key, window start) in `auth.rate_limits`,
//! incremented atomically by an upsert (`auth.count_hit`, which the refresh grant calls too). Keys name the limit and the client (`token:<ip>`,
//! `verify:<ip>`, `otp:<ip>`, `email:all`). Old windows are deleted now and then. This module
//! decides nothing about which requests are limited: handlers call [`hit`].

use crate::db::cached::CachedQueries;
use deadpool_postgres::Pool;

use super::error::AuthError;

/// Length of the per-IP windows, in seconds (GoTrue counts per 5 minutes).
pub const IP_WINDOW_SECS: i64 = 300;
/// Length of the e-mail window, in seconds (per hour).
pub const EMAIL_WINDOW_SECS: i64 = 3600;

/// Count one event under `key`; refuse with `error` when `limit` events already happened in the
/// current window. A limit of 0 disables the check.
pub async fn hit(pool: &Pool, key: &str, limit: u64, window_secs: i64, error: AuthError) -> Result<(), AuthError> {
    if limit == 0 {
        return Ok(());
    }
    let client = pool.get().await?;
    let count: i32 =
        client.cached_query_one("select auth.count_hit($1, $2)", &[&key, &(window_secs as f64)]).await?.get(0);
    if count as u64 > limit {
        return Err(error);
    }
    Ok(())
}
