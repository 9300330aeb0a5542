//! What every REST request carries besides its path: schema profile, preferences, accepted
//! media type, range, query pairs, and the caller. Parsed once, with PostgREST's errors.

use actix_web::http::Method;
use actix_web::{HttpMessage, HttpRequest};
use serde_json::{Map, Value};

use crate::db::context::{Caller, RequestInfo};
use crate::rest::error::RestError;
use crate::rest::parse::{self, ParseError, Preferences};
use crate::rest::RestState;

/// Media types a read can answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaType {
    Json,
    SingleObject,
    Csv,
    Plan,
    /// `application/geo+json`: the rows as a GeoJSON feature collection (needs PostGIS).
    GeoJson,
    /// A media type the resource itself offers (`RestRequest::custom_media` names it): the
    /// root's OpenAPI type, a function returning a media-type domain.
    Custom,
}

impl MediaType {
    pub fn content_type(self) -> &'static str {
        match self {
            MediaType::Json => "application/json; charset=utf-8",
            MediaType::SingleObject => "application/vnd.pgrst.object+json; charset=utf-8",
            MediaType::Csv => "text/csv; charset=utf-8",
            MediaType::Plan => "application/vnd.pgrst.plan+json; charset=utf-8",
            MediaType::GeoJson => "application/geo+json; charset=utf-8",
            MediaType::Custom => "application/octet-stream",
        }
    }
}

/// Everything parsed from a request's headers and query string.
pub struct RestRequest {
    pub caller: Caller,
    pub schema: String,
    /// Whether the client named the schema (then `Content-Profile` is echoed).
    pub schema_explicit: bool,
    pub prefer: Preferences,
    pub media: MediaType,
    /// Whether the caller runs as the configured anonymous role (a refusal is then a 401).
    pub anonymous: bool,
    /// `nulls=stripped` on the JSON media types: keys whose value is null are left out.
    pub strip_nulls: bool,
    /// What `application/vnd.pgrst.plan` asks for (when `media` is the plan).
    pub plan: PlanRequest,
    pub pairs: Vec<(String, String)>,
    /// From the `Range` header: (offset, limit).
    pub range: Option<(u64, Option<u64>)>,
    pub info: RequestInfo,
    pub method: Method,
    /// The phases measured for `Server-Timing`.
    pub timing: crate::rest::timing::Timing,
    /// The media type chosen when `media` is [`MediaType::Custom`].
    pub custom_media: Option<String>,
    /// The client wrote recently (its read-your-writes cookie): reads go to the primary.
    pub wrote_recently: bool,
}

pub fn parse_error(err: ParseError) -> RestError {
    match err.code() {
        "PGRST103" => RestError::invalid_range(err.message(), err.details().unwrap_or_default()),
        "PGRST122" => RestError::invalid_preferences_text(err.message(), err.details().unwrap_or_default()),
        _ => RestError::query_param(err.message(), err.details().unwrap_or_default()),
    }
}

impl RestRequest {
    pub fn from_http(req: &HttpRequest, state: &RestState) -> Result<RestRequest, RestError> {
        Self::build(req, state, None)
    }

    /// For the root, where `application/openapi+json` is also acceptable.
    pub fn for_root(req: &HttpRequest, state: &RestState) -> Result<RestRequest, RestError> {
        Self::build(req, state, Some("application/openapi+json"))
    }

    /// For a resource that also offers `media` (`*/*`: whatever the client accepts).
    pub fn offering(req: &HttpRequest, state: &RestState, media: Option<&str>) -> Result<RestRequest, RestError> {
        Self::build(req, state, media)
    }

    fn build(req: &HttpRequest, state: &RestState, extra: Option<&str>) -> Result<RestRequest, RestError> {
        let gate_time = req.extensions().get::<crate::rest::timing::GateTime>().copied();
        let timing = crate::rest::timing::Timing::start(state.config.server_timing, gate_time);
        let caller = req
            .extensions()
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| RestError::internal("request reached /rest/v1 without passing the gate"))?;
        let method = req.method().clone();
        crate::rest::limits::check_url(req.query_string(), &state.limits())?;
        let read = method == Method::GET || method == Method::HEAD;
        let profile_header = if read { "accept-profile" } else { "content-profile" };
        let schema_explicit = header(req, profile_header).is_some();
        let schema = profile_schema(header(req, profile_header), state)?;
        let prefer_values: Vec<&str> = req.headers().get_all("prefer").filter_map(|v| v.to_str().ok()).collect();
        let cache = state.cache.get();
        let known_timezone = |tz: &str| cache.timezones.contains(tz);
        let prefer =
            parse::parse_prefer_with_timezones(prefer_values.iter().copied(), &known_timezone).map_err(parse_error)?;
        let offered = Offered { plan: state.tunables().plan_enabled, geojson: cache.geojson, extra };
        let (media, strip_nulls, custom_media) = media_type(header(req, "accept").unwrap_or("*/*"), offered)?;
        let plan = if media == MediaType::Plan {
            plan_request(header(req, "accept").unwrap_or_default())
        } else {
            PlanRequest::default()
        };
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(req.query_string().as_bytes())
            .filter(|(k, _)| k != "apikey")
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let range = match (header(req, "range"), read) {
            (Some(r), true) => {
                let unit_ok = header(req, "range-unit").is_none_or(|u| u.eq_ignore_ascii_case("items"));
                if unit_ok {
                    Some(parse::parse_range_header(r).map_err(parse_error)?)
                } else {
                    None
                }
            }
            _ => None,
        };
        let mut headers = Map::new();
        for (name, value) in req.headers() {
            if let Ok(v) = value.to_str() {
                headers.insert(name.as_str().to_ascii_lowercase(), Value::String(v.to_string()));
            }
        }
        let mut settings = cache.role_settings.get(&caller.role).cloned().unwrap_or_default();
        if let Some(tz) = &prefer.timezone {
            settings.push(("timezone".into(), tz.clone()));
        }
        let search_path: Vec<String> = std::iter::once(schema.clone())
            .chain(state.config.extra_search_path.iter().cloned())
            .map(|s| crate::db::quote_ident(s.trim()))
            .collect();
        settings.push(("search_path".into(), search_path.join(", ")));
        // PostgREST gives SQL the request's cookies as a JSON object too.
        let cookies: Map<String, Value> = req
            .headers()
            .get_all("cookie")
            .filter_map(|v| v.to_str().ok())
            .flat_map(|line| line.split(';'))
            .filter_map(|pair| pair.split_once('='))
            .map(|(name, value)| (name.trim().to_string(), Value::String(value.trim().to_string())))
            .filter(|(name, _)| !name.is_empty())
            .collect();
        settings.push(("request.cookies".into(), Value::Object(cookies).to_string()));
        settings.extend(crate::telemetry::postgres_setting(req));
        let info = RequestInfo {
            method: method.to_string(),
            // PostgREST behind Supabase's gateway sees the path without `/rest/v1`.
            path: req.path().strip_prefix("/rest/v1").unwrap_or(req.path()).to_string(),
            headers: Value::Object(headers),
            settings,
        };
        let anonymous = caller.role == state.config.anon_role;
        let wrote_recently = !state.replicas.is_empty()
            && req.cookie(crate::db::replicas::WROTE_COOKIE).is_some_and(|c| c.value() == "1");
        Ok(RestRequest {
            caller,
            schema,
            schema_explicit,
            prefer,
            media,
            anonymous,
            strip_nulls,
            plan,
            pairs,
            range,
            info,
            method,
            timing,
            custom_media,
            wrote_recently,
        })
    }
}

/// The schema a profile header names (it must be exposed), or the first exposed schema.
fn profile_schema(named: Option<&str>, state: &RestState) -> Result<String, RestError> {
    let schemas = &state.config.schemas;
    match named {
        Some(s) if schemas.iter().any(|x| x == s) => Ok(s.to_string()),
        Some(s) => Err(RestError::schema_not_exposed(s, schemas)),
        None => Ok(schemas.first().cloned().unwrap_or_else(|| "public".into())),
    }
}

/// The schema an `OPTIONS` request names (`Accept-Profile` or `Content-Profile`), or the first.
pub fn options_schema(req: &HttpRequest, state: &RestState) -> Result<String, RestError> {
    profile_schema(header(req, "accept-profile").or_else(|| header(req, "content-profile")), state)
}

pub fn header<'r>(req: &'r HttpRequest, name: &str) -> Option<&'r str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// The plan media type's format and `EXPLAIN` options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanRequest {
    /// `+text` (and the bare type): Postgres's text plan; `+json`: its JSON plan.
    pub text: bool,
    /// `for="..."`, echoed in the answer's content type.
    pub for_media: Option<String>,
    /// `options=analyze|verbose|settings|buffers|wal`, as `EXPLAIN` options.
    pub options: Vec<&'static str>,
}

impl PlanRequest {
    /// The `EXPLAIN` options list, e.g. `FORMAT JSON, VERBOSE`.
    pub fn explain_options(&self) -> String {
        let mut options = vec![if self.text { "FORMAT TEXT" } else { "FORMAT JSON" }];
        options.extend(self.options.iter().copied());
        options.join(", ")
    }

    /// The answer's content type, as PostgREST writes it: always a `for` (`application/json` when
    /// the request gave none), then the options in their fixed order.
    pub fn content_type(&self) -> String {
        let format = if self.text { "text" } else { "json" };
        let media = self.for_media.as_deref().map(canonical_media).unwrap_or("application/json");
        let options = if self.options.is_empty() {
            String::new()
        } else {
            format!("; options={}", self.options.iter().map(|o| o.to_ascii_lowercase()).collect::<Vec<_>>().join("|"))
        };
        format!("application/vnd.pgrst.plan+{format}; for=\"{media}\"{options}; charset=utf-8")
    }
}

/// A `for=` media type under the name PostgREST gives it back.
fn canonical_media(media: &str) -> &str {
    match media.to_ascii_lowercase().as_str() {
        "application/vnd.pgrst.object" => "application/vnd.pgrst.object+json",
        "application/vnd.pgrst.array" | "application/vnd.pgrst.array+json" => "application/json",
        _ => media,
    }
}

/// The plan's options in PostgREST's order.
const PLAN_OPTIONS: [&str; 5] = ["ANALYZE", "VERBOSE", "SETTINGS", "BUFFERS", "WAL"];

/// Read the plan media type's parameters from an `Accept` header.
fn plan_request(accept: &str) -> PlanRequest {
    let Some(range) =
        accept.split(',').find(|r| r.trim().to_ascii_lowercase().starts_with("application/vnd.pgrst.plan"))
    else {
        return PlanRequest::default();
    };
    let mut pieces = range.split(';');
    let mime = pieces.next().unwrap_or_default().trim().to_ascii_lowercase();
    let mut plan = PlanRequest { text: !mime.ends_with("+json"), ..PlanRequest::default() };
    for piece in pieces {
        let Some((key, value)) = piece.trim().split_once('=') else { continue };
        match key.trim().to_ascii_lowercase().as_str() {
            "for" => plan.for_media = Some(value.trim().trim_matches('"').to_string()).filter(|m| !m.is_empty()),
            "options" => {
                for option in value.split('|') {
                    let known = match option.trim().to_ascii_lowercase().as_str() {
                        "analyze" => "ANALYZE",
                        "verbose" => "VERBOSE",
                        "settings" => "SETTINGS",
                        "buffers" => "BUFFERS",
                        "wal" => "WAL",
                        _ => continue,
                    };
                    if !plan.options.contains(&known) {
                        plan.options.push(known);
                    }
                }
                // `EXPLAIN`'s options and the content type list them in one fixed order.
                plan.options.sort_by_key(|o| PLAN_OPTIONS.iter().position(|p| p == o));
            }
            _ => {}
        }
    }
    plan
}

/// Pick the first acceptable media type of an `Accept` header (q-values honoured), and whether
/// it asks for `nulls=stripped` (PostgREST's array and object types only).
/// The media types offered besides JSON and CSV.
#[derive(Debug, Clone, Copy, Default)]
struct Offered<'a> {
    /// `PGRST_DB_PLAN_ENABLED`
    plan: bool,
    /// PostGIS is there.
    geojson: bool,
    /// What the resource itself offers besides (`*/*`: anything the client accepts).
    extra: Option<&'a str>,
}

/// The media type to answer in, whether nulls are stripped, and the custom type when chosen.
fn media_type(accept: &str, offered: Offered) -> Result<(MediaType, bool, Option<String>), RestError> {
    let mut ranges: Vec<(f32, usize, String, bool)> = accept
        .split(',')
        .enumerate()
        .filter_map(|(i, part)| {
            let mut pieces = part.split(';');
            let mime = pieces.next()?.trim().to_ascii_lowercase();
            if mime.is_empty() {
                return None;
            }
            let params: Vec<String> = pieces.map(|p| p.trim().to_ascii_lowercase()).collect();
            let q = params.iter().filter_map(|p| p.strip_prefix("q=").and_then(|q| q.parse::<f32>().ok())).next();
            let stripped = params.iter().any(|p| p == "nulls=stripped");
            Some((q.unwrap_or(1.0), i, mime, stripped))
        })
        .collect();
    if ranges.is_empty() {
        return Ok(match offered.extra {
            Some("*/*") => (MediaType::Custom, false, Some("application/octet-stream".into())),
            _ => (MediaType::Json, false, None),
        });
    }
    ranges.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal).then(a.1.cmp(&b.1)));
    for (q, _, mime, stripped) in &ranges {
        if *q <= 0.0 {
            continue;
        }
        // What the resource offers comes first; a `*/*` resource takes any accepted type.
        match offered.extra {
            Some("*/*") => {
                let chosen = if mime == "*/*" { "application/octet-stream" } else { mime.as_str() };
                return Ok((MediaType::Custom, false, Some(chosen.to_string())));
            }
            Some(extra) if extra == mime => return Ok((MediaType::Custom, false, Some(mime.clone()))),
            _ => {}
        }
        let found = match mime.as_str() {
            "application/vnd.pgrst.array+json" | "application/vnd.pgrst.array" => Some((MediaType::Json, *stripped)),
            "application/vnd.pgrst.object+json" | "application/vnd.pgrst.object" => {
                Some((MediaType::SingleObject, *stripped))
            }
            "application/json" | "*/*" | "application/*" => Some((MediaType::Json, false)),
            "text/csv" | "text/*" => Some((MediaType::Csv, false)),
            "application/geo+json" if offered.geojson => Some((MediaType::GeoJson, false)),
            m if m.starts_with("application/vnd.pgrst.plan") && offered.plan => Some((MediaType::Plan, false)),
            _ => None,
        };
        if let Some((media, stripped)) = found {
            return Ok((media, stripped, None));
        }
    }
    let names: Vec<String> = ranges.into_iter().map(|(_, _, m, _)| m).collect();
    Err(RestError::media_type_unavailable(&names))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mt(accept: &str, offered: Offered) -> Result<(MediaType, bool), RestError> {
        media_type(accept, offered).map(|(media, stripped, _)| (media, stripped))
    }

    #[test]
    fn a_resource_offering_its_own_media_type_is_chosen_for_it() {
        let html = Offered { extra: Some("text/html"), ..Offered::default() };
        assert_eq!(media_type("text/html", html).unwrap(), (MediaType::Custom, false, Some("text/html".into())));
        assert_eq!(media_type("*/*", html).unwrap().0, MediaType::Json, "*/* stays JSON, as in PostgREST");
        let any = Offered { extra: Some("*/*"), ..Offered::default() };
        assert_eq!(media_type("image/png", any).unwrap().2.as_deref(), Some("image/png"));
        assert_eq!(media_type("*/*", any).unwrap().2.as_deref(), Some("application/octet-stream"));
    }

    #[test]
    fn accept_headers_pick_the_first_supported_type() {
        assert_eq!(mt("*/*", Offered::default()).unwrap(), (MediaType::Json, false));
        assert_eq!(
            mt("application/vnd.pgrst.object+json", Offered::default()).unwrap(),
            (MediaType::SingleObject, false)
        );
        assert_eq!(mt("text/csv", Offered::default()).unwrap(), (MediaType::Csv, false));
        assert_eq!(mt("text/html;q=0.9, text/csv", Offered::default()).unwrap(), (MediaType::Csv, false));
        assert_eq!(
            mt("application/vnd.pgrst.plan+json", Offered { plan: true, geojson: false, extra: None }).unwrap(),
            (MediaType::Plan, false)
        );
        assert_eq!(
            mt("application/vnd.pgrst.array+json;nulls=stripped", Offered::default()).unwrap(),
            (MediaType::Json, true)
        );
        assert_eq!(
            mt("application/vnd.pgrst.object+json; nulls=stripped", Offered::default()).unwrap(),
            (MediaType::SingleObject, true)
        );
        assert_eq!(mt("image/png", Offered::default()).unwrap_err().code(), "PGRST107");
        assert_eq!(mt("application/geo+json", Offered::default()).unwrap_err().code(), "PGRST107");
        let postgis = Offered { plan: false, geojson: true, extra: None };
        assert_eq!(mt("application/geo+json", postgis).unwrap(), (MediaType::GeoJson, false));
        let plan =
            plan_request(r#"application/vnd.pgrst.plan+text; for="application/json"; options=verbose|settings|bogus;"#);
        assert!(plan.text);
        assert_eq!(plan.explain_options(), "FORMAT TEXT, VERBOSE, SETTINGS");
        assert_eq!(
            plan.content_type(),
            "application/vnd.pgrst.plan+text; for=\"application/json\"; options=verbose|settings; charset=utf-8"
        );
        assert!(!plan_request("application/vnd.pgrst.plan+json").text);
        // No `for`: application/json, as PostgREST; options in its order whatever the request's.
        let plan = plan_request("application/vnd.pgrst.plan+json; options=wal|analyze|wal");
        assert_eq!(plan.explain_options(), "FORMAT JSON, ANALYZE, WAL");
        assert_eq!(
            plan.content_type(),
            "application/vnd.pgrst.plan+json; for=\"application/json\"; options=analyze|wal; charset=utf-8"
        );
        let plan = plan_request(r#"application/vnd.pgrst.plan; for="application/vnd.pgrst.object""#);
        assert_eq!(
            plan.content_type(),
            "application/vnd.pgrst.plan+text; for=\"application/vnd.pgrst.object+json\"; charset=utf-8"
        );
    }
}
