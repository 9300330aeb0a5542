//! Building REST responses as PostgREST does: status, `Content-Range`, `Preference-Applied`,
//! `Content-Profile`, media type, and the body Postgres produced (CSV is converted from it).

use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, HttpResponseBuilder};
use serde_json::Value;

use crate::rest::error::RestError;
use crate::rest::execute::ResponseSettings;
use crate::rest::request::{MediaType, RestRequest};

/// `Content-Range` value for a page of `page` rows starting at `offset`, of `total` if known.
pub fn content_range(offset: u64, page: i64, total: Option<i64>) -> String {
    let total = total.map(|t| t.to_string()).unwrap_or_else(|| "*".into());
    if page <= 0 {
        format!("*/{total}")
    } else {
        format!("{}-{}/{total}", offset, offset + page as u64 - 1)
    }
}

/// Status of a read: 206 when the known total exceeds the page, 416 when the offset is past it.
pub fn read_status(offset: u64, page: i64, total: Option<i64>) -> Result<StatusCode, RestError> {
    match total {
        Some(total) if offset > 0 && offset >= total as u64 && !(offset == 0 && total == 0) => {
            Err(RestError::range_out_of_bounds(offset, Some(total as u64)))
        }
        Some(total) if (page as u64) < total as u64 => Ok(StatusCode::PARTIAL_CONTENT),
        _ => Ok(StatusCode::OK),
    }
}

/// A response builder with the headers every REST answer carries.
pub fn builder(status: StatusCode, req: &RestRequest, applied: &[String]) -> HttpResponseBuilder {
    let mut res = HttpResponse::build(status);
    if !applied.is_empty() {
        res.insert_header(("Preference-Applied", applied.join(", ")));
    }
    if req.schema_explicit {
        res.insert_header(("Content-Profile", req.schema.clone()));
    }
    res
}

/// The answer's content type: with `nulls=stripped`, the media type asked with its parameter, as
/// PostgREST's says it.
pub fn content_type(media: MediaType, strip_nulls: bool) -> &'static str {
    match (media, strip_nulls) {
        (MediaType::SingleObject, true) => "application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8",
        (MediaType::Json, true) => "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8",
        _ => media.content_type(),
    }
}

/// The body in the requested media type (JSON as Postgres built it, without its null-valued
/// keys when `strip_nulls`, or CSV converted from it).
pub fn body(
    builder: &mut HttpResponseBuilder,
    media: MediaType,
    json: String,
    strip_nulls: bool,
) -> Result<HttpResponse, RestError> {
    match media {
        MediaType::Csv => {
            let csv = json_to_csv(&json)?;
            Ok(builder.content_type(media.content_type()).body(csv))
        }
        _ if strip_nulls => {
            let mut value: Value =
                serde_json::from_str(&json).map_err(|e| RestError::internal(format!("nulls=stripped: {e}")))?;
            strip_null_keys(&mut value);
            Ok(builder.content_type(content_type(media, true)).body(value.to_string()))
        }
        _ => Ok(builder.content_type(media.content_type()).body(json)),
    }
}

/// The last step of every successful answer: the response settings SQL made, then
/// `Server-Timing` when enabled.
pub fn complete(res: HttpResponse, req: &RestRequest, settings: &ResponseSettings) -> Result<HttpResponse, RestError> {
    let mut res = apply_settings(res, settings)?;
    req.timing.mark("response");
    if let Some(value) = req.timing.header().and_then(|v| HeaderValue::try_from(v).ok()) {
        res.headers_mut().insert(HeaderName::from_static("server-timing"), value);
    }
    Ok(res)
}

/// The status and headers SQL asked for through `response.status` and `response.headers`
/// (PostgREST's response GUCs): the status replaces ours; each header replaces ours of the same
/// name, and several objects may give the same name (two `Set-Cookie`). Malformed values are
/// PGRST111 / PGRST112.
fn apply_settings(mut res: HttpResponse, settings: &ResponseSettings) -> Result<HttpResponse, RestError> {
    if let Some(status) = &settings.status {
        let code: u16 = status.trim().parse().map_err(|_| RestError::InvalidResponseStatusGuc)?;
        *res.status_mut() = StatusCode::from_u16(code).map_err(|_| RestError::InvalidResponseStatusGuc)?;
    }
    if let Some(headers) = &settings.headers {
        let items: Vec<serde_json::Map<String, Value>> =
            serde_json::from_str(headers).map_err(|_| RestError::InvalidResponseHeadersGuc)?;
        let mut pairs = Vec::with_capacity(items.len());
        for item in items {
            let mut entries = item.into_iter();
            let (Some((name, Value::String(value))), None) = (entries.next(), entries.next()) else {
                return Err(RestError::InvalidResponseHeadersGuc);
            };
            let name = HeaderName::try_from(name.as_str()).map_err(|_| RestError::InvalidResponseHeadersGuc)?;
            let value = HeaderValue::try_from(value.as_str()).map_err(|_| RestError::InvalidResponseHeadersGuc)?;
            pairs.push((name, value));
        }
        for (name, _) in &pairs {
            res.headers_mut().remove(name);
        }
        for (name, value) in pairs {
            res.headers_mut().append(name, value);
        }
    }
    Ok(res)
}

/// `json_strip_nulls`: object keys whose value is null go, at every depth; array items stay.
fn strip_null_keys(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(strip_null_keys);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_null_keys),
        _ => {}
    }
}

/// A JSON array of objects as CSV with a header line (keys of the first object, in order).
pub fn json_to_csv(json: &str) -> Result<String, RestError> {
    let rows: Vec<serde_json::Map<String, Value>> =
        serde_json::from_str(json).map_err(|e| RestError::internal(format!("csv conversion: {e}")))?;
    let Some(first) = rows.first() else { return Ok(String::new()) };
    let keys: Vec<&String> = first.keys().collect();
    let mut out = keys.iter().map(|k| csv_field(k)).collect::<Vec<_>>().join(",");
    for row in &rows {
        out.push('\n');
        let fields: Vec<String> = keys
            .iter()
            .map(|k| match row.get(*k) {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) => csv_field(s),
                Some(nested @ (Value::Object(_) | Value::Array(_))) => csv_field(&jsonb_text(nested)),
                Some(other) => csv_field(&other.to_string()),
            })
            .collect();
        out.push_str(&fields.join(","));
    }
    Ok(out)
}

/// A field quoted as Postgres quotes the fields of a record's text (PostgREST builds its CSV from
/// that): empty, or holding a quote, a backslash, a parenthesis, a comma or white space.
fn csv_field(value: &str) -> String {
    let needs =
        value.is_empty() || value.chars().any(|c| matches!(c, '"' | '\\' | '(' | ')' | ',') || c.is_whitespace());
    if needs {
        format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\"\""))
    } else {
        value.to_string()
    }
}

/// A JSON value as `jsonb`'s text output writes it: `{"a": 1, "b": [1, 2]}`.
fn jsonb_text(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let items: Vec<String> =
                map.iter().map(|(k, v)| format!("{}: {}", Value::String(k.clone()), jsonb_text(v))).collect();
            format!("{{{}}}", items.join(", "))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(jsonb_text).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_range_forms() {
        assert_eq!(content_range(0, 10, Some(100)), "0-9/100");
        assert_eq!(content_range(0, 0, Some(100)), "*/100");
        assert_eq!(content_range(5, 3, None), "5-7/*");
        assert_eq!(content_range(0, 0, None), "*/*");
    }

    #[test]
    fn read_status_is_206_for_partial_and_416_past_the_end() {
        assert_eq!(read_status(0, 10, Some(100)).unwrap(), StatusCode::PARTIAL_CONTENT);
        assert_eq!(read_status(0, 10, Some(10)).unwrap(), StatusCode::OK);
        assert_eq!(read_status(0, 10, None).unwrap(), StatusCode::OK);
        assert_eq!(read_status(200, 0, Some(100)).unwrap_err().code(), "PGRST103");
        assert_eq!(read_status(0, 0, Some(0)).unwrap(), StatusCode::OK);
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let csv =
            json_to_csv(r#"[{"id":1,"name":"a,b","note":null},{"id":2,"name":"say \"hi\"","note":"x"}]"#).unwrap();
        assert_eq!(csv, "id,name,note\n1,\"a,b\",\n2,\"say \"\"hi\"\"\",x");
        let csv =
            json_to_csv(r#"[{"v":"'cat' 'fat'","j":{"a":{"b":1},"c":[1,2]},"r":"[1,2)","e":"","s":"a\\b"}]"#).unwrap();
        assert_eq!(
            csv,
            "v,j,r,e,s\n\"'cat' 'fat'\",\"{\"\"a\"\": {\"\"b\"\": 1}, \"\"c\"\": [1, 2]}\",\"[1,2)\",\"\",\"a\\\\b\""
        );
    }
}
