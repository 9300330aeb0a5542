//! Retention of the request log: rows older than `REQUEST_LOG_RETENTION_HOURS` go, then the
//! oldest beyond `REQUEST_LOG_MAX_ROWS`. Both deletes walk an index (`at`, the primary key).

/// How much of the log is kept.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_age_hours: u32,
    /// 0: no limit on the count.
    pub max_rows: u64,
}

/// Delete what the limits leave out; returns the number of rows deleted.
pub async fn prune(db: &tokio_postgres::Client, limits: Limits) -> Result<u64, tokio_postgres::Error> {
    let hours = i32::try_from(limits.max_age_hours).unwrap_or(i32::MAX);
    let mut deleted =
        db.execute("delete from _studio.request_log where at < now() - make_interval(hours => $1)", &[&hours]).await?;
    if limits.max_rows > 0 {
        let keep = i64::try_from(limits.max_rows).unwrap_or(i64::MAX);
        deleted += db
            .execute(
                "delete from _studio.request_log where id <= \
                 (select id from _studio.request_log order by id desc offset $1 limit 1)",
                &[&keep],
            )
            .await?;
    }
    Ok(deleted)
}
