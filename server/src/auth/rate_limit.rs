//! Rate limits counted in Postgres, so that they hold across several server instances.
//!
//! Each limit is a fixed window: one row per (key, window start) in `auth.rate_limits`,
//! incremented atomically by an upsert. Keys name the limit and the client (`token:<ip>`,
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
    let row = client
        .cached_query_one(
            "insert into auth.rate_limits (key, window_start, count) \
             values ($1, to_timestamp(floor(extract(epoch from now())::float8 / $2::float8) * $2::float8), 1) \
             on conflict (key, window_start) do update set count = auth.rate_limits.count + 1 \
             returning count, (random() < 0.01) as sweep",
            &[&key, &(window_secs as f64)],
        )
        .await?;
    let count: i32 = row.get(0);
    if row.get::<_, bool>(1) {
        let _ = client
            .cached_execute("delete from auth.rate_limits where window_start < now() - interval '2 hours'", &[])
            .await;
    }
    if count as u64 > limit {
        return Err(error);
    }
    Ok(())
}
