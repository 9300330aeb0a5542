//! Column values of a change, from PostgreSQL's text output to the JSON `to_jsonb` would give:
//! numbers as numbers, booleans, JSON as JSON, one-dimensional arrays as arrays, timestamps in
//! ISO form; anything else stays a string. Pure functions, no I/O.

use serde_json::{Number, Value};

/// What delivery needs to know of a column type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeInfo {
    /// `pg_type.typname` (`int4`, `text`, `_int4`, ...), as `columns[].type` carries it.
    pub name: String,
    /// The element type's name for arrays.
    pub element: Option<String>,
}

/// Convert one text value of type `ty`.
pub fn to_json(text: &str, ty: &TypeInfo) -> Value {
    match &ty.element {
        Some(element) => parse_array(text, element).unwrap_or_else(|| Value::String(text.to_string())),
        None => scalar(text, &ty.name),
    }
}

fn scalar(text: &str, name: &str) -> Value {
    match name {
        "bool" => match text {
            "t" | "true" => Value::Bool(true),
            "f" | "false" => Value::Bool(false),
            _ => Value::String(text.into()),
        },
        "int2" | "int4" | "int8" | "oid" | "float4" | "float8" | "numeric" => number(text),
        "json" | "jsonb" => serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.into())),
        "timestamptz" => Value::String(iso_timestamp(text, true)),
        "timestamp" => Value::String(iso_timestamp(text, false)),
        _ => Value::String(text.into()),
    }
}

/// A number when the text is one JSON can hold (not NaN or Infinity).
fn number(text: &str) -> Value {
    if let Ok(i) = text.parse::<i64>() {
        return Value::Number(i.into());
    }
    if let Ok(u) = text.parse::<u64>() {
        return Value::Number(u.into());
    }
    match serde_json::from_str::<Number>(text) {
        Ok(n) => Value::Number(n),
        Err(_) => Value::String(text.into()),
    }
}

/// `2024-05-01 12:00:00.5+00` -> `2024-05-01T12:00:00.5+00:00` (with `DateStyle = ISO`).
pub fn iso_timestamp(text: &str, with_zone: bool) -> String {
    let mut out = text.replacen(' ', "T", 1);
    if with_zone {
        // The offset's minutes are omitted when zero; to_jsonb writes them.
        if let Some(sign) = out.rfind(['+', '-']).filter(|i| *i > 10) {
            if out.len() - sign == 3 {
                out.push_str(":00");
            }
        }
    }
    out
}

/// A one-dimensional array literal (`{1,2,NULL,"a b"}`); `None` for anything it cannot read
/// (nested arrays, explicit bounds), which then stays text.
fn parse_array(text: &str, element: &str) -> Option<Value> {
    let inner = text.strip_prefix('{')?.strip_suffix('}')?;
    let mut items = Vec::new();
    if inner.is_empty() {
        return Some(Value::Array(items));
    }
    let mut chars = inner.chars().peekable();
    loop {
        let mut item = String::new();
        let quoted = chars.peek() == Some(&'"');
        if quoted {
            chars.next();
            loop {
                match chars.next()? {
                    '\\' => item.push(chars.next()?),
                    '"' => break,
                    c => item.push(c),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == ',' {
                    break;
                }
                if c == '{' || c == '"' {
                    return None;
                }
                item.push(c);
                chars.next();
            }
        }
        items.push(if !quoted && item == "NULL" { Value::Null } else { scalar(&item, element) });
        match chars.next() {
            None => return Some(Value::Array(items)),
            Some(',') => continue,
            Some(_) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn ty(name: &str) -> TypeInfo {
        TypeInfo { name: name.into(), element: None }
    }

    fn array_of(element: &str) -> TypeInfo {
        TypeInfo { name: format!("_{element}"), element: Some(element.into()) }
    }

    #[test]
    fn numbers_booleans_and_json_are_typed() {
        assert_eq!(to_json("42", &ty("int8")), json!(42));
        assert_eq!(to_json("9223372036854775807", &ty("int8")), json!(9223372036854775807i64));
        assert_eq!(to_json("1.50", &ty("numeric")), json!(1.5));
        assert_eq!(to_json("NaN", &ty("float8")), json!("NaN"));
        assert_eq!(to_json("t", &ty("bool")), json!(true));
        assert_eq!(to_json("f", &ty("bool")), json!(false));
        assert_eq!(to_json(r#"{"a": [1]}"#, &ty("jsonb")), json!({"a": [1]}));
        assert_eq!(to_json("hello", &ty("text")), json!("hello"));
    }

    #[test]
    fn timestamps_read_as_to_jsonb_writes_them() {
        assert_eq!(to_json("2024-05-01 12:00:00.123+00", &ty("timestamptz")), json!("2024-05-01T12:00:00.123+00:00"));
        assert_eq!(to_json("2024-05-01 12:00:00+05:30", &ty("timestamptz")), json!("2024-05-01T12:00:00+05:30"));
        assert_eq!(to_json("2024-05-01 12:00:00-03", &ty("timestamptz")), json!("2024-05-01T12:00:00-03:00"));
        assert_eq!(to_json("2024-05-01 12:00:00", &ty("timestamp")), json!("2024-05-01T12:00:00"));
        assert_eq!(to_json("2024-05-01", &ty("date")), json!("2024-05-01"));
    }

    #[test]
    fn one_dimensional_arrays_become_json_arrays() {
        assert_eq!(to_json("{1,2,NULL}", &array_of("int4")), json!([1, 2, null]));
        assert_eq!(
            to_json(r#"{a,"b c","d\"e",NULL,"NULL"}"#, &array_of("text")),
            json!(["a", "b c", "d\"e", null, "NULL"])
        );
        assert_eq!(to_json("{}", &array_of("int4")), json!([]));
        assert_eq!(to_json("{{1,2},{3,4}}", &array_of("int4")), json!("{{1,2},{3,4}}"));
        assert_eq!(to_json("{\"unterminated", &array_of("text")), json!("{\"unterminated"));
    }
}
