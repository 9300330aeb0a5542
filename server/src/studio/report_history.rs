//! The reports' series of the sampled figures (`samples`): the rows of `_studio.metric_samples`
//! in the period, cut into the report's buckets. Each instance's samples are averaged per bucket
//! (in SQL), then the instances are combined (`fold`): the realtime sockets, each instance's own,
//! are summed; the database's figures, which every instance reads alike, are averaged.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use serde_json::{json, Value};

/// Per bucket, instance and figure: the mean of the instance's samples.
const SAMPLES: &str = "\
select to_timestamp(floor(extract(epoch from at) / $2::float8) * $2::float8), instance, name, key, avg(value)
from _studio.metric_samples where at >= now() - make_interval(secs => $1::float8)
group by 1, 2, 3, 4";

/// One instance's mean of one figure in one bucket.
#[derive(Debug, Clone)]
pub struct Sample {
    pub bucket: DateTime<Utc>,
    pub instance: String,
    pub name: String,
    pub key: String,
    pub value: f64,
}

/// The sampled figures of one bucket.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Figures {
    pub db_connections: BTreeMap<String, f64>,
    pub cache_hit_ratio: Option<f64>,
    pub storage_bytes: BTreeMap<String, f64>,
    pub realtime_connections: Option<f64>,
}

impl Figures {
    /// The bucket's fields in the report (empty maps and nulls where nothing was sampled).
    pub fn to_json(&self) -> Value {
        json!({
            "db_connections": self.db_connections,
            "cache_hit_ratio": self.cache_hit_ratio,
            "storage_bytes": self.storage_bytes,
            "realtime_connections": self.realtime_connections,
        })
    }
}

/// The samples of the last `secs` seconds in buckets `width` seconds wide.
pub async fn read(db: &impl GenericClient, secs: f64, width: f64) -> Result<Vec<Sample>, tokio_postgres::Error> {
    let rows = db.query(SAMPLES, &[&secs, &width]).await?;
    Ok(rows
        .iter()
        .map(|r| Sample { bucket: r.get(0), instance: r.get(1), name: r.get(2), key: r.get(3), value: r.get(4) })
        .collect())
}

/// Combine the instances' means per bucket: summed for the realtime sockets, averaged otherwise.
/// Figures of an unknown name are left out.
pub fn fold(samples: &[Sample]) -> BTreeMap<DateTime<Utc>, Figures> {
    let mut grouped: BTreeMap<(DateTime<Utc>, &str, &str), Vec<f64>> = BTreeMap::new();
    for s in samples {
        grouped.entry((s.bucket, s.name.as_str(), s.key.as_str())).or_default().push(s.value);
    }
    let mut out: BTreeMap<DateTime<Utc>, Figures> = BTreeMap::new();
    for ((bucket, name, key), values) in grouped {
        let sum: f64 = values.iter().sum();
        let mean = sum / values.len() as f64;
        let f = out.entry(bucket).or_default();
        match name {
            "db_connections" => {
                f.db_connections.insert(key.to_string(), mean);
            }
            "cache_hit_ratio" => f.cache_hit_ratio = Some(mean),
            "storage_bytes" => {
                f.storage_bytes.insert(key.to_string(), mean);
            }
            "realtime_connections" => f.realtime_connections = Some(sum),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(secs: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(secs, 0).single().expect("time")
    }

    fn s(bucket: i64, instance: &str, name: &str, key: &str, value: f64) -> Sample {
        Sample { bucket: at(bucket), instance: instance.into(), name: name.into(), key: key.into(), value }
    }

    #[test]
    fn realtime_sockets_are_summed_across_instances_and_database_figures_averaged() {
        let folded = fold(&[
            s(60, "a", "realtime_connections", "", 3.0),
            s(60, "b", "realtime_connections", "", 4.5),
            s(60, "a", "db_connections", "idle", 4.0),
            s(60, "b", "db_connections", "idle", 6.0),
            s(60, "a", "cache_hit_ratio", "", 0.9),
            s(60, "b", "cache_hit_ratio", "", 0.8),
            s(60, "a", "storage_bytes", "avatars", 100.0),
            s(60, "b", "storage_bytes", "avatars", 100.0),
        ]);
        let f = &folded[&at(60)];
        assert_eq!(f.realtime_connections, Some(7.5));
        assert_eq!(f.db_connections.get("idle"), Some(&5.0));
        assert!((f.cache_hit_ratio.expect("ratio") - 0.85).abs() < 1e-9);
        assert_eq!(f.storage_bytes.get("avatars"), Some(&100.0));
    }

    #[test]
    fn each_bucket_keeps_its_own_figures_and_keys() {
        let folded = fold(&[
            s(0, "a", "db_connections", "active", 1.0),
            s(0, "a", "db_connections", "idle", 2.0),
            s(30, "a", "storage_bytes", "docs", 10.0),
            s(30, "a", "storage_bytes", "avatars", 20.0),
            s(30, "a", "something_else", "", 1.0),
        ]);
        assert_eq!(folded.len(), 2);
        assert_eq!(folded[&at(0)].db_connections.len(), 2);
        assert!(folded[&at(0)].storage_bytes.is_empty());
        assert_eq!(folded[&at(30)].storage_bytes.len(), 2);
        assert_eq!(folded[&at(30)].realtime_connections, None);
        assert_eq!(
            folded[&at(30)].to_json(),
            json!({"db_connections": {}, "cache_hit_ratio": null, "storage_bytes": {"avatars": 20.0, "docs": 10.0},
                   "realtime_connections": null})
        );
    }

    #[test]
    fn nothing_sampled_folds_to_no_bucket() {
        assert!(fold(&[]).is_empty());
        assert_eq!(
            Figures::default().to_json(),
            json!({"db_connections": {}, "cache_hit_ratio": null, "storage_bytes": {}, "realtime_connections": null})
        );
    }
}
