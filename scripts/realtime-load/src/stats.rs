//! Percentiles as the Node generator takes them.

pub struct Percentiles {
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
    pub max: Option<f64>,
    pub samples: usize,
}

/// Nearest-rank percentiles (the value at ⌊n·p⌋ of the sorted samples), as `percentiles()` in
/// bench_realtime_load.mjs.
pub fn percentiles(values: &mut [f64]) -> Percentiles {
    values.sort_by(f64::total_cmp);
    let at = |p: f64| (!values.is_empty()).then(|| values[((values.len() as f64 * p) as usize).min(values.len() - 1)]);
    Percentiles { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: values.last().copied(), samples: values.len() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_take_the_nearest_rank() {
        let mut v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let p = percentiles(&mut v);
        assert_eq!((p.p50, p.p95, p.p99, p.max, p.samples), (Some(51.0), Some(96.0), Some(100.0), Some(100.0), 100));
        assert_eq!(percentiles(&mut []).p95, None);
    }
}
