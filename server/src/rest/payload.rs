//! Request bodies of `/rest/v1` writes and `rpc` calls, in the three media types PostgREST
//! reads: JSON (an object, or an array of objects with the same keys), CSV (a header line, then
//! one row per line; `NULL` is null, every other field a string Postgres casts) and
//! `application/x-www-form-urlencoded` (one object of strings).

use serde_json::{Map, Value};

use crate::rest::error::RestError;
use crate::rest::schema::Table;

/// The media type of a body, from its `Content-Type` (JSON when absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyType {
    Json,
    Csv,
    Form,
}

/// The media type of a `Content-Type` value, lower-cased, without its parameters.
pub fn mime(content_type: Option<&str>) -> String {
    content_type.and_then(|ct| ct.split(';').next()).unwrap_or("").trim().to_ascii_lowercase()
}

impl BodyType {
    /// The body type `content_type` names, or PGRST102 "Content-Type not acceptable".
    pub fn of(content_type: Option<&str>) -> Result<BodyType, RestError> {
        match mime(content_type).as_str() {
            "" | "application/json" => Ok(BodyType::Json),
            "text/csv" => Ok(BodyType::Csv),
            "application/x-www-form-urlencoded" => Ok(BodyType::Form),
            other => Err(RestError::content_type_not_acceptable(other)),
        }
    }
}

/// The body as JSON. An empty JSON body is `empty` (`None`: PGRST102 "Empty or invalid json").
pub fn decode(kind: BodyType, body: &[u8], empty: Option<Value>) -> Result<Value, RestError> {
    match kind {
        BodyType::Json if body.iter().all(u8::is_ascii_whitespace) => empty.ok_or_else(RestError::invalid_json_body),
        BodyType::Json => serde_json::from_slice(body).map_err(|_| RestError::invalid_json_body()),
        BodyType::Csv => csv_rows(body),
        BodyType::Form => Ok(Value::Object(
            url::form_urlencoded::parse(body).map(|(k, v)| (k.into_owned(), Value::String(v.into_owned()))).collect(),
        )),
    }
}

/// CSV with a header line as an array of objects; `NULL` is null.
fn csv_rows(body: &[u8]) -> Result<Value, RestError> {
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(body);
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| RestError::invalid_body(format!("parse error: {e}")))?
        .iter()
        .map(str::to_string)
        .collect();
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| match e.kind() {
            csv::ErrorKind::UnequalLengths { .. } => RestError::csv_fields_mismatch(),
            _ => RestError::invalid_body(format!("parse error: {e}")),
        })?;
        let row: Map<String, Value> = headers
            .iter()
            .zip(record.iter())
            .map(|(k, v)| (k.clone(), if v == "NULL" { Value::Null } else { Value::String(v.to_string()) }))
            .collect();
        rows.push(Value::Object(row));
    }
    Ok(Value::Array(rows))
}

/// The rows of a write and the columns to write.
pub struct Payload {
    pub rows: Vec<Map<String, Value>>,
    pub columns: Vec<String>,
}

/// The rows of `value` (an object, or an array of objects whose keys agree unless `columns=`
/// names the columns), checked against `table`'s columns.
pub fn rows(table: &Table, value: Value, columns_param: Option<&Vec<String>>) -> Result<Payload, RestError> {
    let mut rows = objects(value)?;
    let columns: Vec<String> = match columns_param {
        Some(cols) => cols.clone(),
        None => uniform_keys(&rows)?,
    };
    for column in &columns {
        if table.column(column).is_none() {
            return Err(RestError::column_not_found(&table.name.name, column));
        }
    }
    if columns_param.is_some() {
        // Keys that `columns=` leaves out are not read at all, as PostgREST reads only those it
        // names: a value there that the column's type would refuse is no error.
        for row in &mut rows {
            row.retain(|key, _| columns.contains(key));
        }
    }
    Ok(Payload { rows, columns })
}

/// An object, or an array of objects, as a list of objects.
pub fn objects(value: Value) -> Result<Vec<Map<String, Value>>, RestError> {
    match value {
        Value::Object(map) => Ok(vec![map]),
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::Object(map) => Ok(map),
                _ => Err(RestError::invalid_json_body()),
            })
            .collect(),
        _ => Err(RestError::invalid_json_body()),
    }
}

/// The keys of the first object, which every other object must have exactly.
pub fn uniform_keys(rows: &[Map<String, Value>]) -> Result<Vec<String>, RestError> {
    let first: Vec<String> = rows.first().map(|r| r.keys().cloned().collect()).unwrap_or_default();
    for row in rows.iter().skip(1) {
        if row.len() != first.len() || !first.iter().all(|k| row.contains_key(k)) {
            return Err(RestError::body_keys_mismatch());
        }
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn csv_bodies_are_arrays_of_objects_of_strings_with_null() {
        let value = decode(BodyType::Csv, b"id,name,note\n1,\"a, b\",NULL\n2,x,\n", None).unwrap();
        assert_eq!(value, json!([{"id": "1", "name": "a, b", "note": null}, {"id": "2", "name": "x", "note": ""}]));
        let err = decode(BodyType::Csv, b"id,name\n1\n", None).unwrap_err();
        assert_eq!(err.code(), "PGRST102");
    }

    #[test]
    fn form_bodies_are_one_object_of_strings() {
        let value = decode(BodyType::Form, b"name=Jean+Mbala&city=Kinshasa%2FGombe", None).unwrap();
        assert_eq!(value, json!({"name": "Jean Mbala", "city": "Kinshasa/Gombe"}));
    }

    #[test]
    fn content_types_other_than_the_three_are_refused() {
        assert_eq!(BodyType::of(Some("text/csv; charset=utf-8")).unwrap(), BodyType::Csv);
        assert_eq!(BodyType::of(None).unwrap(), BodyType::Json);
        assert_eq!(BodyType::of(Some("application/xml")).unwrap_err().code(), "PGRST102");
    }

    #[test]
    fn objects_in_an_array_must_share_their_keys() {
        let rows = objects(json!([{"a": 1, "b": 2}, {"b": 3, "a": 4}])).unwrap();
        assert_eq!(uniform_keys(&rows).unwrap(), ["a", "b"]);
        let rows = objects(json!([{"a": 1}, {"b": 3}])).unwrap();
        assert_eq!(uniform_keys(&rows).unwrap_err().code(), "PGRST102");
        assert!(objects(json!([1, 2])).is_err());
    }
}
