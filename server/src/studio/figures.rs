//! The figures the reports show as they are now and the sampler (`samples`) records over time:
//! the database's connections by state (`pg_stat_activity`), its cache hit ratio
//! (`pg_stat_database`, since the statistics' last reset) and the bytes and objects of each
//! storage bucket (the sizes the storage surface recorded in each object's metadata). One query
//! each, read-only, on the connection they are given; no HTTP here.

use deadpool_postgres::GenericClient;

/// Connections to this database (and the background processes without one) by state, busiest first.
pub async fn connections(db: &impl GenericClient) -> Result<Vec<(String, i64)>, tokio_postgres::Error> {
    let rows = db
        .query(
            "select coalesce(state, backend_type), count(*) from pg_stat_activity \
             where datname = current_database() or datname is null group by 1 order by 2 desc",
            &[],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// `max_connections`.
pub async fn max_connections(db: &impl GenericClient) -> Result<Option<i64>, tokio_postgres::Error> {
    let max: String = db.query_one("select current_setting('max_connections')", &[]).await?.get(0);
    Ok(max.parse::<i64>().ok())
}

/// Blocks found in the buffer cache over blocks read or found; `None` before any was read.
pub async fn cache_hit_ratio(db: &impl GenericClient) -> Result<Option<f64>, tokio_postgres::Error> {
    let cache = db
        .query_one("select blks_hit, blks_read from pg_stat_database where datname = current_database()", &[])
        .await?;
    let (hit, read): (i64, i64) = (cache.get(0), cache.get(1));
    Ok((hit + read > 0).then(|| hit as f64 / (hit + read) as f64))
}

/// One bucket's use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketUse {
    pub bucket: String,
    pub objects: i64,
    pub bytes: i64,
}

/// Objects and bytes per bucket, the largest first.
pub async fn storage(db: &impl GenericClient) -> Result<Vec<BucketUse>, tokio_postgres::Error> {
    let rows = db
        .query(
            "select b.id, count(o.id), coalesce(sum(case when o.metadata->>'size' ~ '^[0-9]+$' \
               then (o.metadata->>'size')::bigint end), 0)::int8 \
             from storage.buckets b left join storage.objects o on o.bucket_id = b.id \
             group by b.id order by 3 desc, 1",
            &[],
        )
        .await?;
    Ok(rows.iter().map(|r| BucketUse { bucket: r.get(0), objects: r.get(1), bytes: r.get(2) }).collect())
}
