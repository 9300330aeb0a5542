//! A `postgres_changes` binding of a join: event, schema, table and filter, parsed from the join
//! payload, and matched against changes.
//!
//! Filters use PostgREST's syntax as realtime-js writes it: `column=op.value`, several joined by
//! commas (all must hold), `not.` to negate, values optionally double-quoted; the operators are
//! `eq, neq, lt, lte, gt, gte, in` (at most 100 values) and `is` (`null`, `true`, `false`).
//! Values compare as numbers when both sides are numbers, as text otherwise. Checking that the
//! table, the column and the value's type exist is the caller's job (it needs the database).

use std::cmp::Ordering;

use serde_json::{Map, Value};

/// Which changes a binding wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    All,
    Insert,
    Update,
    Delete,
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Neq,
    Lt,
    Lte,
    Gt,
    Gte,
    In,
    Is,
}

/// One `column=op.value` condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    pub column: String,
    pub op: Op,
    pub negate: bool,
    /// One value, or the list of `in`.
    pub values: Vec<String>,
}

/// A parsed binding, with the id the join reply gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub id: u32,
    pub event: Event,
    /// `*` for every schema.
    pub schema: String,
    /// `None` for every table of the schema.
    pub table: Option<String>,
    pub filters: Vec<Filter>,
    /// The entry as the client sent it, plus `id`: what the join reply echoes.
    pub echo: Value,
}

/// The most values an `in` filter may list.
pub const MAX_IN_VALUES: usize = 100;

/// Parse one entry of `config.postgres_changes`.
pub fn parse(entry: &Value) -> Result<Binding, String> {
    let Value::Object(map) = entry else {
        return Err("postgres_changes entries must be objects".into());
    };
    let text = |key: &str| -> Result<Option<String>, String> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!("`{key}` must be a string, got {other}")),
        }
    };
    let event = match text("event")?.as_deref().map(str::to_ascii_uppercase).as_deref() {
        Some("INSERT") => Event::Insert,
        Some("UPDATE") => Event::Update,
        Some("DELETE") => Event::Delete,
        Some("*") | None => Event::All,
        Some(other) => return Err(format!("unknown event {other}")),
    };
    let (schema, table) = match (text("schema")?, text("table")?) {
        (None, None) => {
            return Err(format!(
            "No subscription params provided. Please provide at least a `schema` or `table` to subscribe to: {entry}"
        ))
        }
        (schema, table) => (schema.unwrap_or_else(|| "public".into()), table.filter(|t| t != "*")),
    };
    let filters = match text("filter")? {
        Some(f) if !f.trim().is_empty() => parse_filters(&f)?,
        _ => Vec::new(),
    };
    let id = binding_id(map);
    let mut echo = map.clone();
    echo.insert("id".into(), Value::from(id));
    Ok(Binding { id, event, schema, table, filters, echo: Value::Object(echo) })
}

/// A stable id for an entry (identical entries share it), below 2^27 like Supabase's.
fn binding_id(map: &Map<String, Value>) -> u32 {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    let mut hash: u32 = 0x811c_9dc5;
    for key in keys {
        for byte in key.bytes().chain([0]).chain(map[key].to_string().into_bytes()).chain([0]) {
            hash ^= u32::from(byte);
            hash = hash.wrapping_mul(0x0100_0193);
        }
    }
    hash & 0x07ff_ffff
}

/// Split on commas outside parentheses and quotes.
fn split_top(text: &str) -> Vec<String> {
    let (mut parts, mut current, mut depth, mut quoted, mut escaped) = (Vec::new(), String::new(), 0, false, false);
    for c in text.chars() {
        if escaped {
            current.push(c);
            escaped = false;
            continue;
        }
        match c {
            '\\' if quoted => {
                escaped = true;
                current.push(c);
                continue;
            }
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts
}

/// A value, unquoted.
fn unquote(value: &str) -> String {
    let v = value.trim();
    match v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        Some(inner) => {
            let mut out = String::new();
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                } else {
                    out.push(c);
                }
            }
            out
        }
        None => v.to_string(),
    }
}

/// Parse a filter string into its conditions.
pub fn parse_filters(text: &str) -> Result<Vec<Filter>, String> {
    let parse_error = |detail: &str| format!("Error parsing `filter` params: {detail}");
    let mut filters = Vec::new();
    for part in split_top(text) {
        if part.trim().is_empty() {
            return Err(parse_error("filter must not contain empty segments (check for extra commas)"));
        }
        let Some((column, rest)) = part.split_once('=') else {
            return Err(parse_error(&format!("{:?}", [part.as_str()])));
        };
        let (negate, rest) = match rest.strip_prefix("not.") {
            Some(rest) => (true, rest),
            None => (false, rest),
        };
        let Some((op, value)) = rest.split_once('.') else {
            return Err(parse_error(&format!("{:?}", [column, rest])));
        };
        let op = match op {
            "eq" => Op::Eq,
            "neq" => Op::Neq,
            "lt" => Op::Lt,
            "lte" => Op::Lte,
            "gt" => Op::Gt,
            "gte" => Op::Gte,
            "in" => Op::In,
            "is" => Op::Is,
            _ => return Err(parse_error(&format!("{:?}", [column, op]))),
        };
        let values = match op {
            Op::In => {
                let inner = value
                    .trim()
                    .strip_prefix('(')
                    .and_then(|v| v.strip_suffix(')'))
                    .ok_or_else(|| parse_error("`in` filter value must be wrapped by parentheses"))?;
                let values: Vec<String> = split_top(inner).iter().map(|v| unquote(v)).collect();
                if values.len() > MAX_IN_VALUES {
                    return Err(format!("too many values for `in` filter. Maximum {MAX_IN_VALUES}"));
                }
                values
            }
            Op::Is => {
                let v = value.trim().to_ascii_lowercase();
                if !["null", "true", "false"].contains(&v.as_str()) {
                    return Err(parse_error(&format!("`is` takes null, true or false, not {value}")));
                }
                vec![v]
            }
            _ => vec![unquote(value)],
        };
        let column = column.trim();
        if column.is_empty() {
            return Err(parse_error("a filter needs a column"));
        }
        filters.push(Filter { column: column.to_string(), op, negate, values });
    }
    Ok(filters)
}

/// Order a row's value against a filter's text (numbers numerically, text as text).
fn compare(actual: &Value, wanted: &str) -> Option<Ordering> {
    match actual {
        Value::Null => None,
        Value::Number(n) => {
            if let (Some(a), Ok(b)) = (n.as_i64(), wanted.trim().parse::<i64>()) {
                return Some(a.cmp(&b));
            }
            n.as_f64()?.partial_cmp(&wanted.trim().parse::<f64>().ok()?)
        }
        Value::Bool(b) => {
            let w = match wanted.to_ascii_lowercase().as_str() {
                "true" | "t" => true,
                "false" | "f" => false,
                _ => return None,
            };
            Some(b.cmp(&w))
        }
        Value::String(s) => Some(s.as_str().cmp(wanted)),
        other => Some(other.to_string().as_str().cmp(wanted)),
    }
}

impl Filter {
    /// Whether `record` satisfies the condition (SQL semantics: a null compares to nothing).
    pub fn matches(&self, record: &Map<String, Value>) -> bool {
        let actual = record.get(&self.column).unwrap_or(&Value::Null);
        let holds = match self.op {
            Op::Is => match self.values[0].as_str() {
                "null" => actual.is_null(),
                "true" => actual == &Value::Bool(true),
                _ => actual == &Value::Bool(false),
            },
            Op::In => self.values.iter().any(|v| compare(actual, v) == Some(Ordering::Equal)),
            op => match compare(actual, &self.values[0]) {
                None => return false,
                Some(ord) => match op {
                    Op::Eq => ord == Ordering::Equal,
                    Op::Neq => ord != Ordering::Equal,
                    Op::Lt => ord == Ordering::Less,
                    Op::Lte => ord != Ordering::Greater,
                    Op::Gt => ord == Ordering::Greater,
                    _ => ord != Ordering::Less,
                },
            },
        };
        if actual.is_null() && self.op != Op::Is {
            return false;
        }
        holds != self.negate
    }
}

impl Binding {
    /// Whether the binding wants a change of `kind` on `schema.table` whose row is `record`.
    pub fn wants(&self, schema: &str, table: &str, kind: Event, record: &Map<String, Value>) -> bool {
        (self.event == Event::All || self.event == kind)
            && (self.schema == "*" || self.schema == schema)
            && self.table.as_deref().is_none_or(|t| t == table)
            && self.filters.iter().all(|f| f.matches(record))
    }
}

#[cfg(test)]
#[path = "binding_tests.rs"]
mod tests;
