//! The reports screen's API: `GET /studio/api/reports?period=15m|1h|24h|7d` answers, over the
//! period cut into buckets, the requests per second by surface, latency percentiles, error
//! counts and active users from the request log; the database's connections by state, cache hit
//! ratio, storage used per bucket and realtime sockets (summed over the instances) from the
//! sampler's history (`samples`, `report_history`); and, as they are now, those figures again
//! (`figures`), the slowest statements (`pg_stat_statements`, when the extension exists) and
//! the realtime channels of this instance.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::StudioError;
use super::{figures, report_history};
use crate::state::AppState;

/// A period the reports cover, and the width of its buckets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub name: &'static str,
    pub seconds: u32,
    pub bucket_seconds: u32,
}

pub const PERIODS: &[Period] = &[
    Period { name: "15m", seconds: 15 * 60, bucket_seconds: 30 },
    Period { name: "1h", seconds: 3600, bucket_seconds: 60 },
    Period { name: "24h", seconds: 86_400, bucket_seconds: 1800 },
    Period { name: "7d", seconds: 7 * 86_400, bucket_seconds: 6 * 3600 },
];

impl Period {
    pub fn parse(s: Option<&str>) -> Result<Period, String> {
        let s = s.unwrap_or("1h");
        PERIODS
            .iter()
            .copied()
            .find(|p| p.name == s)
            .ok_or_else(|| format!("period must be 15m, 1h, 24h or 7d, not {s:?}"))
    }
}

/// Buckets of the period (every one, empty ones included) with what the log holds in each.
const BUCKETS: &str = "\
with r as (
  select to_timestamp(floor(extract(epoch from at) / $2::float8) * $2::float8) as bucket, status, duration_ms, user_id
  from _studio.request_log where at >= now() - make_interval(secs => $1::float8)
), b as (
  select generate_series(to_timestamp(floor(extract(epoch from now() - make_interval(secs => $1::float8)) / $2::float8) * $2::float8),
                         now(), make_interval(secs => $2::float8)) as bucket
)
select b.bucket, count(r.bucket), count(*) filter (where r.status >= 500), count(*) filter (where r.status between 400 and 499),
  percentile_cont(0.5) within group (order by r.duration_ms),
  percentile_cont(0.95) within group (order by r.duration_ms),
  percentile_cont(0.99) within group (order by r.duration_ms),
  count(distinct r.user_id)
from b left join r on r.bucket = b.bucket group by b.bucket order by b.bucket";

const BY_SURFACE: &str = "\
select to_timestamp(floor(extract(epoch from at) / $2::float8) * $2::float8), surface, count(*)
from _studio.request_log where at >= now() - make_interval(secs => $1::float8) group by 1, 2";

const TOTALS: &str = "\
select count(*), count(*) filter (where status >= 500), count(*) filter (where status between 400 and 499),
  percentile_cont(0.5) within group (order by duration_ms), percentile_cont(0.95) within group (order by duration_ms),
  percentile_cont(0.99) within group (order by duration_ms), count(distinct user_id)
from _studio.request_log where at >= now() - make_interval(secs => $1::float8)";

#[derive(Debug, Deserialize)]
pub struct ReportParams {
    period: Option<String>,
}

/// `GET /studio/api/reports?period=`
pub async fn report(state: web::Data<AppState>, q: web::Query<ReportParams>) -> Result<HttpResponse, StudioError> {
    let period = Period::parse(q.period.as_deref()).map_err(StudioError::BadRequest)?;
    let client = state.pools.admin.get().await?;
    let (secs, width) = (f64::from(period.seconds), f64::from(period.bucket_seconds));
    let mut by_surface: BTreeMap<DateTime<Utc>, serde_json::Map<String, Value>> = BTreeMap::new();
    for r in client.query(BY_SURFACE, &[&secs, &width]).await? {
        let count: i64 = r.get(2);
        by_surface.entry(r.get(0)).or_default().insert(r.get(1), json!(count as f64 / width));
    }
    let reach = super::samples::KEYFRAME.as_secs_f64() + 2.0 * state.config.studio.reports_sample_secs as f64;
    let mut sampled = report_history::fold(&report_history::read(&client, secs, width, reach).await?);
    let buckets: Vec<Value> = client
        .query(BUCKETS, &[&secs, &width])
        .await?
        .iter()
        .map(|r| {
            let at: DateTime<Utc> = r.get(0);
            let total: i64 = r.get(1);
            let mut bucket = json!({
                "at": at,
                "requests": total,
                "per_second": total as f64 / width,
                "by_surface": by_surface.remove(&at).unwrap_or_default(),
                "errors": r.get::<_, i64>(2),
                "client_errors": r.get::<_, i64>(3),
                "p50_ms": r.get::<_, Option<f64>>(4),
                "p95_ms": r.get::<_, Option<f64>>(5),
                "p99_ms": r.get::<_, Option<f64>>(6),
                "active_users": r.get::<_, i64>(7),
            });
            if let (Some(fields), Value::Object(figures)) =
                (bucket.as_object_mut(), sampled.remove(&at).unwrap_or_default().to_json())
            {
                fields.extend(figures);
            }
            bucket
        })
        .collect();
    let t = client.query_one(TOTALS, &[&secs]).await?;
    let total: i64 = t.get(0);
    let errors: i64 = t.get(1);
    let totals = json!({
        "requests": total,
        "errors": errors,
        "client_errors": t.get::<_, i64>(2),
        "error_rate": if total > 0 { errors as f64 / total as f64 } else { 0.0 },
        "p50_ms": t.get::<_, Option<f64>>(3),
        "p95_ms": t.get::<_, Option<f64>>(4),
        "p99_ms": t.get::<_, Option<f64>>(5),
        "active_users": t.get::<_, i64>(6),
    });
    let database = database(&client).await?;
    let statements = statements(&client).await;
    let storage = storage(&client).await?;
    Ok(HttpResponse::Ok().insert_header(("Cache-Control", "no-store")).json(json!({
        "period": period.name,
        "bucket_seconds": period.bucket_seconds,
        "request_log_enabled": state.config.request_log.enabled,
        "sample_seconds": state.config.studio.reports_sample_secs,
        "buckets": buckets,
        "totals": totals,
        "database": database,
        "statements": statements,
        "storage": storage,
        "realtime": {
            "connections": state.realtime.connections.load(Ordering::Relaxed),
            "channels": state.realtime.hub.channel_count(),
        },
    })))
}

/// Connections by state, the limit, and the cache hit ratio of this database.
async fn database(db: &impl GenericClient) -> Result<Value, StudioError> {
    let states = figures::connections(db).await?;
    Ok(json!({
        "connections": states.iter().map(|(state, count)| json!({"state": state, "count": count})).collect::<Vec<_>>(),
        "max_connections": figures::max_connections(db).await?,
        "cache_hit_ratio": figures::cache_hit_ratio(db).await?,
    }))
}

/// The ten statements slowest on average, or why they cannot be shown.
async fn statements(db: &impl GenericClient) -> Value {
    let unavailable = |reason: String| {
        json!({
            "available": false,
            "reason": reason,
            "hint": "Run `create extension pg_stat_statements;` in the SQL editor. The embedded cluster preloads it; \
                     an external server needs `shared_preload_libraries = 'pg_stat_statements'` and a restart first.",
            "rows": [],
        })
    };
    match db.query_opt("select 1 from pg_extension where extname = 'pg_stat_statements'", &[]).await {
        Ok(Some(_)) => {}
        Ok(None) => return unavailable("The pg_stat_statements extension is not created in this database.".into()),
        Err(err) => return unavailable(err.to_string()),
    }
    let rows = db
        .query(
            "select query, calls, total_exec_time, mean_exec_time, rows from pg_stat_statements \
             where dbid = (select oid from pg_database where datname = current_database()) \
             order by mean_exec_time desc limit 10",
            &[],
        )
        .await;
    match rows {
        Ok(rows) => json!({
            "available": true,
            "rows": rows.iter().map(|r| json!({
                "query": r.get::<_, String>(0),
                "calls": r.get::<_, i64>(1),
                "total_ms": r.get::<_, f64>(2),
                "mean_ms": r.get::<_, f64>(3),
                "rows": r.get::<_, i64>(4),
            })).collect::<Vec<_>>(),
        }),
        Err(err) => unavailable(err.as_db_error().map(|e| e.message().to_string()).unwrap_or_else(|| err.to_string())),
    }
}

/// Objects and bytes per bucket (the sizes the storage surface recorded in each object's metadata).
async fn storage(db: &impl GenericClient) -> Result<Value, StudioError> {
    Ok(json!(figures::storage(db)
        .await?
        .iter()
        .map(|b| json!({"bucket": b.bucket, "objects": b.objects, "bytes": b.bytes}))
        .collect::<Vec<_>>()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_period_has_a_few_dozen_buckets() {
        for p in PERIODS {
            let n = p.seconds / p.bucket_seconds;
            assert!((20..=60).contains(&n), "{}: {n} buckets", p.name);
        }
        assert_eq!(Period::parse(None).expect("default").name, "1h");
        assert_eq!(Period::parse(Some("7d")).expect("7d").bucket_seconds, 6 * 3600);
        assert!(Period::parse(Some("1y")).is_err());
    }
}
