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
/// Length of the windows that count wrong codes per phone number or factor (per hour).
pub const FAILED_CODE_WINDOW_SECS: i64 = 3600;

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

/// The sign-ups and sign-ins by e-mail or phone of the client `ip` (`RATE_LIMIT_OTP` per 5 minutes,
/// the CLI's `sign_in_sign_ups`): `/signup` and `/otp` count together, as in GoTrue.
pub async fn sign_in_sign_up(pool: &Pool, ip: &str, limit: u64) -> Result<(), AuthError> {
    hit(pool, &format!("otp:{ip}"), limit, IP_WINDOW_SECS, AuthError::OverRequestRateLimit).await
}

/// Events counted under `key` in the current window, without counting one more.
pub async fn count(pool: &Pool, key: &str, window_secs: i64) -> Result<u64, AuthError> {
    let client = pool.get().await?;
    let row = client
        .cached_query_opt(
            "select count from auth.rate_limits where key = $1 \
             and window_start = to_timestamp(floor(extract(epoch from now())::float8 / $2) * $2)",
            &[&key, &(window_secs as f64)],
        )
        .await?;
    Ok(row.map(|r| r.get::<_, i32>(0).max(0) as u64).unwrap_or(0))
}

/// Forget what was counted under `key` (a new code starts its own count of wrong guesses).
pub async fn clear(pool: &Pool, key: &str) -> Result<(), AuthError> {
    let client = pool.get().await?;
    client.cached_execute("delete from auth.rate_limits where key = $1", &[&key]).await?;
    Ok(())
}
