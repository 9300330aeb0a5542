//! The reports' series of the sampled figures (`samples`): the rows of `_studio.metric_samples`
//! in the period, cut into the report's buckets. Each instance's samples are averaged per bucket
//! (in SQL); a bucket in which an instance wrote nothing gets its last round again
//! (`carry_forward`: the sampler writes a round only when its figures changed, and at least
//! hourly), for at most `reach` seconds after it; then the instances are combined (`fold`): the
//! realtime sockets, each instance's own, are summed; the database's figures, which every
//! instance reads alike, are averaged.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use serde_json::{json, Value};

/// Per bucket, instance and figure: the mean of the instance's samples, from `$3` seconds before
/// the period on (the rounds carried into it).
const SAMPLES: &str = "\
select to_timestamp(floor(extract(epoch from at) / $2::float8) * $2::float8), instance, name, key, avg(value)
from _studio.metric_samples where at >= now() - make_interval(secs => $1::float8 + $3::float8)
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

/// The samples of the last `secs` seconds in buckets `width` seconds wide, each instance's last
/// round carried forward for `reach` seconds at most.
pub async fn read(
    db: &impl GenericClient,
    secs: f64,
    width: f64,
    reach: f64,
) -> Result<Vec<Sample>, tokio_postgres::Error> {
    let rows = db.query(SAMPLES, &[&secs, &width, &reach]).await?;
    let now: DateTime<Utc> = db.query_one("select now()", &[]).await?.get(0);
    let samples: Vec<Sample> = rows
        .iter()
        .map(|r| Sample { bucket: r.get(0), instance: r.get(1), name: r.get(2), key: r.get(3), value: r.get(4) })
        .collect();
    Ok(carry_forward(samples, now, width, reach))
}

/// Each instance's buckets up to `now`'s, a bucket without a sample of the instance given the
/// samples of its last bucket with some, when that one is at most `reach` seconds older.
pub fn carry_forward(samples: Vec<Sample>, now: DateTime<Utc>, width: f64, reach: f64) -> Vec<Sample> {
    let width = (width as i64).max(1);
    let last = now.timestamp().div_euclid(width) * width;
    let mut by_instance: BTreeMap<String, BTreeMap<i64, Vec<Sample>>> = BTreeMap::new();
    for sample in samples {
        let at = sample.bucket.timestamp();
        by_instance.entry(sample.instance.clone()).or_default().entry(at).or_default().push(sample);
    }
    let mut out = Vec::new();
    for buckets in by_instance.into_values() {
        let Some(&first) = buckets.keys().next() else { continue };
        let mut written: Option<(i64, &Vec<Sample>)> = None;
        let mut at = first;
        while at <= last {
            match buckets.get(&at) {
                Some(round) => {
                    out.extend(round.iter().cloned());
                    written = Some((at, round));
                }
                None => {
                    if let Some((_, round)) = written.filter(|(from, _)| (at - from) as f64 <= reach) {
                        let bucket = DateTime::from_timestamp(at, 0).unwrap_or(now);
                        out.extend(round.iter().map(|s| Sample { bucket, ..s.clone() }));
                    }
                }
            }
            at += width;
        }
    }
    out
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
    fn an_instance_s_last_round_is_carried_into_the_buckets_it_did_not_write_for_reach_seconds() {
        // Instance a wrote at 0 (two figures) and 90 (one); b only at 0. Buckets of 30 s up to 150.
        let samples = vec![
            s(0, "a", "db_connections", "idle", 3.0),
            s(0, "a", "storage_bytes", "docs", 10.0),
            s(90, "a", "db_connections", "idle", 4.0),
            s(0, "b", "realtime_connections", "", 2.0),
        ];
        let carried = carry_forward(samples, at(150), 30.0, 60.0);
        let of = |instance: &str, bucket: i64| -> Vec<(String, f64)> {
            let mut found: Vec<(String, f64)> = carried
                .iter()
                .filter(|s| s.instance == instance && s.bucket == at(bucket))
                .map(|s| (format!("{}/{}", s.name, s.key), s.value))
                .collect();
            found.sort_by(|x, y| x.0.cmp(&y.0));
            found
        };
        let both = vec![("db_connections/idle".to_string(), 3.0), ("storage_bytes/docs".to_string(), 10.0)];
        assert_eq!(of("a", 0), both);
        assert_eq!(of("a", 30), both, "carried");
        assert_eq!(of("a", 60), both, "carried, 60 s after");
        assert_eq!(of("a", 90), vec![("db_connections/idle".to_string(), 4.0)], "its own round, the bucket gone");
        assert_eq!(of("a", 120), vec![("db_connections/idle".to_string(), 4.0)]);
        assert_eq!(of("a", 150), vec![("db_connections/idle".to_string(), 4.0)], "up to now's bucket");
        assert_eq!(of("a", 180), vec![], "nothing after now");
        assert_eq!(of("b", 60), vec![("realtime_connections/".to_string(), 2.0)]);
        assert_eq!(of("b", 90), vec![], "past its reach: an instance that stopped leaves the chart");
        assert_eq!(fold(&carried)[&at(30)].realtime_connections, Some(2.0), "b's sockets still summed at 30");
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
