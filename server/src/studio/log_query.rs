//! The log explorer's filters (`GET /studio/api/logs/requests?…`) parsed into a typed filter,
//! and the `select` over `_studio.request_log` built from it: every value bound (as text, cast
//! in SQL), newest first, keyset pages on the id (`before` for older rows, `after` for the live
//! tail's newer ones).

use chrono::{DateTime, Utc};
use serde::Deserialize;
use uuid::Uuid;

use super::query::Built;

/// Surfaces a request may belong to (`request_log::surface_of`).
pub const SURFACES: &[&str] = &["rest", "auth", "storage", "realtime", "functions", "studio", "platform", "site"];

/// The query string as sent: every field text, checked by [`RequestFilter::parse`].
#[derive(Debug, Default, Deserialize)]
pub struct RequestParams {
    pub surface: Option<String>,
    pub path: Option<String>,
    pub status: Option<String>,
    pub user: Option<String>,
    pub request_id: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub before: Option<String>,
    pub after: Option<String>,
    pub limit: Option<String>,
}

/// Which statuses: a class (`2xx` … `5xx`), the errors (`error`: 400 and above) or one status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusFilter {
    Class(u16),
    Errors,
    Exact(u16),
}

/// A checked filter.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestFilter {
    pub surface: Option<String>,
    /// Part of the path (matched literally, case-insensitive).
    pub path: Option<String>,
    pub status: Option<StatusFilter>,
    pub user: Option<Uuid>,
    pub request_id: Option<String>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    pub before: Option<i64>,
    pub after: Option<i64>,
    pub limit: i64,
}

fn non_empty(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

fn time(v: &Option<String>, name: &str) -> Result<Option<DateTime<Utc>>, String> {
    non_empty(v)
        .map(|s| {
            DateTime::parse_from_rfc3339(s)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|_| format!("{name} must be a date and time like 2026-01-31T12:00:00Z"))
        })
        .transpose()
}

fn id(v: &Option<String>, name: &str) -> Result<Option<i64>, String> {
    non_empty(v).map(|s| s.parse::<i64>().map_err(|_| format!("{name} must be a row id"))).transpose()
}

impl RequestFilter {
    pub fn parse(p: &RequestParams) -> Result<RequestFilter, String> {
        let surface = match non_empty(&p.surface) {
            Some(s) if SURFACES.contains(&s) => Some(s.to_string()),
            Some(s) => return Err(format!("unknown surface {s:?}: one of {}", SURFACES.join(", "))),
            None => None,
        };
        let status = match non_empty(&p.status) {
            None => None,
            Some("error") | Some("errors") => Some(StatusFilter::Errors),
            Some(s) if s.len() == 3 && s.ends_with("xx") => match s.as_bytes()[0] {
                c @ b'1'..=b'5' => Some(StatusFilter::Class(u16::from(c - b'0'))),
                _ => return Err(format!("unknown status class {s:?}")),
            },
            Some(s) => match s.parse::<u16>() {
                Ok(n) if (100..600).contains(&n) => Some(StatusFilter::Exact(n)),
                _ => return Err(format!("status must be 2xx, 3xx, 4xx, 5xx, error or a status code, not {s:?}")),
            },
        };
        let user = non_empty(&p.user)
            .map(|s| Uuid::parse_str(s).map_err(|_| "user must be a user id (a UUID)".to_string()))
            .transpose()?;
        let limit = match non_empty(&p.limit) {
            Some(s) => s.parse::<i64>().map_err(|_| "limit must be a number".to_string())?.clamp(1, 500),
            None => 100,
        };
        Ok(RequestFilter {
            surface,
            path: non_empty(&p.path).map(str::to_string),
            status,
            user,
            request_id: non_empty(&p.request_id).map(str::to_string),
            from: time(&p.from, "from")?,
            to: time(&p.to, "to")?,
            before: id(&p.before, "before")?,
            after: id(&p.after, "after")?,
            limit,
        })
    }

    /// The `select`, newest first.
    pub fn select(&self) -> Built {
        let mut b = Built { sql: String::new(), params: Vec::new() };
        let bind = |b: &mut Built, v: String| {
            b.params.push(v);
            format!("${}", b.params.len())
        };
        let mut conditions: Vec<String> = Vec::new();
        if let Some(s) = &self.surface {
            conditions.push(format!("surface = {}::text", bind(&mut b, s.clone())));
        }
        if let Some(p) = &self.path {
            conditions.push(format!("path ilike '%' || {}::text || '%'", bind(&mut b, escape_like(p))));
        }
        match self.status {
            Some(StatusFilter::Class(c)) => {
                let low = bind(&mut b, (c * 100).to_string());
                conditions.push(format!("status between {low}::text::int2 and {low}::text::int2 + 99"));
            }
            Some(StatusFilter::Errors) => conditions.push("status >= 400".into()),
            Some(StatusFilter::Exact(n)) => {
                conditions.push(format!("status = {}::text::int2", bind(&mut b, n.to_string())))
            }
            None => {}
        }
        if let Some(u) = self.user {
            conditions.push(format!("user_id = {}::text::uuid", bind(&mut b, u.to_string())));
        }
        if let Some(r) = &self.request_id {
            conditions.push(format!("request_id = {}::text", bind(&mut b, r.clone())));
        }
        if let Some(t) = self.from {
            conditions.push(format!("at >= {}::text::timestamptz", bind(&mut b, t.to_rfc3339())));
        }
        if let Some(t) = self.to {
            conditions.push(format!("at < {}::text::timestamptz", bind(&mut b, t.to_rfc3339())));
        }
        if let Some(id) = self.before {
            conditions.push(format!("id < {}::text::int8", bind(&mut b, id.to_string())));
        }
        if let Some(id) = self.after {
            conditions.push(format!("id > {}::text::int8", bind(&mut b, id.to_string())));
        }
        let filter = if conditions.is_empty() { String::new() } else { format!(" where {}", conditions.join(" and ")) };
        let limit = bind(&mut b, self.limit.to_string());
        b.sql = format!("select {COLUMNS} from _studio.request_log{filter} order by id desc limit {limit}::text::int8");
        b
    }
}

/// The columns every listing returns, in the order `row_json` reads them.
pub const COLUMNS: &str = "id, at, surface, method, path, route, status, duration_ms, request_id, user_id, role, bytes";

/// One row as the dashboard reads it.
pub fn row_json(r: &tokio_postgres::Row) -> serde_json::Value {
    serde_json::json!({
        "id": r.get::<_, i64>(0),
        "at": r.get::<_, DateTime<Utc>>(1),
        "surface": r.get::<_, String>(2),
        "method": r.get::<_, String>(3),
        "path": r.get::<_, String>(4),
        "route": r.get::<_, Option<String>>(5),
        "status": r.get::<_, i16>(6),
        "duration_ms": r.get::<_, f64>(7),
        "request_id": r.get::<_, String>(8),
        "user_id": r.get::<_, Option<Uuid>>(9),
        "role": r.get::<_, Option<String>>(10),
        "bytes": r.get::<_, Option<i64>>(11),
    })
}

/// `%`, `_` and `\` taken literally by `ilike`.
pub fn escape_like(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> RequestParams {
        let q: String = pairs.iter().map(|(k, v)| format!("{k}={v}&")).collect();
        actix_web::web::Query::<RequestParams>::from_query(&q).expect("params").into_inner()
    }

    #[test]
    fn no_filter_lists_the_newest_hundred() {
        let f = RequestFilter::parse(&RequestParams::default()).expect("ok");
        let b = f.select();
        assert_eq!(b.sql, format!("select {COLUMNS} from _studio.request_log order by id desc limit $1::text::int8"));
        assert_eq!(b.params, vec!["100"]);
    }

    #[test]
    fn every_filter_is_a_bound_value() {
        let f = RequestFilter::parse(&params(&[
            ("surface", "rest"),
            ("path", "cars"),
            ("status", "5xx"),
            ("user", "11111111-1111-4111-8111-111111111111"),
            ("request_id", "abc"),
            ("from", "2026-01-01T00:00:00Z"),
            ("to", "2026-01-02T00:00:00Z"),
            ("before", "50"),
            ("limit", "20"),
        ]))
        .expect("ok");
        let b = f.select();
        assert_eq!(
            b.sql,
            format!(
                "select {COLUMNS} from _studio.request_log where surface = $1::text and path ilike '%' || $2::text || '%' \
                 and status between $3::text::int2 and $3::text::int2 + 99 and user_id = $4::text::uuid \
                 and request_id = $5::text and at >= $6::text::timestamptz and at < $7::text::timestamptz \
                 and id < $8::text::int8 order by id desc limit $9::text::int8"
            )
        );
        assert_eq!(
            b.params,
            vec![
                "rest",
                "cars",
                "500",
                "11111111-1111-4111-8111-111111111111",
                "abc",
                "2026-01-01T00:00:00+00:00",
                "2026-01-02T00:00:00+00:00",
                "50",
                "20"
            ]
        );
    }

    #[test]
    fn the_live_tail_asks_for_rows_after_the_newest_it_has() {
        let b = RequestFilter::parse(&params(&[("after", "7"), ("status", "error")])).expect("ok").select();
        assert!(b.sql.contains("where status >= 400 and id > $1::text::int8"), "{}", b.sql);
        assert_eq!(b.params, vec!["7", "100"]);
    }

    #[test]
    fn a_path_with_like_characters_is_matched_literally() {
        assert_eq!(escape_like("50%_off\\"), "50\\%\\_off\\\\");
        let b = RequestFilter::parse(&params(&[("path", "a%")])).expect("ok").select();
        assert_eq!(b.params[0], "a\\%");
    }

    #[test]
    fn bad_filters_are_refused_with_a_reason() {
        for (k, v, says) in [
            ("surface", "ftp", "unknown surface"),
            ("status", "6xx", "unknown status class"),
            ("status", "abc", "status must be"),
            ("user", "bob", "user must be a user id"),
            ("from", "yesterday", "from must be a date"),
            ("before", "x", "before must be a row id"),
            ("limit", "many", "limit must be a number"),
        ] {
            let err = RequestFilter::parse(&params(&[(k, v)])).expect_err(k);
            assert!(err.contains(says), "{k}={v}: {err}");
        }
    }

    #[test]
    fn an_exact_status_and_a_large_limit() {
        let f = RequestFilter::parse(&params(&[("status", "404"), ("limit", "9999")])).expect("ok");
        assert_eq!(f.status, Some(StatusFilter::Exact(404)));
        assert_eq!(f.limit, 500);
    }
}
