use serde_json::json;

use super::*;

fn row(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

fn filter(text: &str) -> Filter {
    let mut f = parse_filters(text).unwrap();
    assert_eq!(f.len(), 1);
    f.remove(0)
}

#[test]
fn each_operator_compares_numbers_as_numbers() {
    let r = row(json!({"id": 10}));
    assert!(filter("id=eq.10").matches(&r));
    assert!(!filter("id=eq.9").matches(&r));
    assert!(filter("id=neq.9").matches(&r));
    assert!(filter("id=lt.11").matches(&r) && !filter("id=lt.10").matches(&r));
    assert!(filter("id=lte.10").matches(&r) && !filter("id=lte.9").matches(&r));
    assert!(filter("id=gt.9").matches(&r) && !filter("id=gt.10").matches(&r));
    assert!(filter("id=gte.10").matches(&r) && !filter("id=gte.11").matches(&r));
    // 9 < 10 numerically, though "9" > "10" as text.
    assert!(filter("id=gt.9").matches(&r));
}

#[test]
fn in_lists_accept_quoted_values_with_commas() {
    let f = filter(r#"name=in.(a,"b,c",d)"#);
    assert_eq!(f.values, vec!["a", "b,c", "d"]);
    assert!(f.matches(&row(json!({"name": "b,c"}))));
    assert!(!f.matches(&row(json!({"name": "b"}))));
    assert!(filter("id=in.(1,2,3)").matches(&row(json!({"id": 2}))));
    assert!(!filter("id=in.(1,2,3)").matches(&row(json!({"id": 4}))));
}

#[test]
fn text_uuid_and_boolean_values_compare() {
    assert!(filter("status=eq.confirmed").matches(&row(json!({"status": "confirmed"}))));
    assert!(filter("ok=eq.true").matches(&row(json!({"ok": true}))));
    assert!(filter("ok=is.false").matches(&row(json!({"ok": false}))));
    assert!(filter("note=is.null").matches(&row(json!({"note": null}))));
    assert!(filter("note=is.null").matches(&row(json!({}))));
}

#[test]
fn nulls_match_no_comparison_even_negated() {
    let r = row(json!({"n": null}));
    assert!(!filter("n=eq.1").matches(&r));
    assert!(!filter("n=neq.1").matches(&r));
    assert!(!filter("n=not.eq.1").matches(&r));
}

#[test]
fn negation_and_several_conditions() {
    let fs = parse_filters("a=not.eq.1,b=gt.2").unwrap();
    assert_eq!(fs.len(), 2);
    assert!(fs[0].negate);
    let r = row(json!({"a": 2, "b": 3}));
    assert!(fs.iter().all(|f| f.matches(&r)));
}

#[test]
fn malformed_filters_are_refused_with_supabase_messages() {
    assert_eq!(parse_filters("foo=hey.1").unwrap_err(), r#"Error parsing `filter` params: ["foo", "hey"]"#);
    assert!(parse_filters("id=in.1,2").unwrap_err().contains("wrapped by parentheses"));
    assert!(parse_filters("a=eq.1,,b=eq.2").unwrap_err().contains("empty segments"));
    assert!(parse_filters("undefined").is_err());
    assert!(parse_filters("=eq.1").is_err());
    assert!(parse_filters("a=is.maybe").is_err());
    let many = format!("id=in.({})", (0..101).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    assert!(parse_filters(&many).unwrap_err().contains("Maximum 100"));
}

#[test]
fn a_binding_echoes_its_entry_with_a_stable_id() {
    let entry = json!({"event": "INSERT", "schema": "public", "table": "todos", "filter": "id=eq.1"});
    let a = parse(&entry).unwrap();
    let b = parse(&entry).unwrap();
    assert_eq!(a.id, b.id);
    assert!(a.id < (1 << 27));
    assert_eq!(a.echo["table"], "todos");
    assert_eq!(a.echo["id"], json!(a.id));
    let other = parse(&json!({"event": "UPDATE", "schema": "public", "table": "todos"})).unwrap();
    assert_ne!(a.id, other.id);
}

#[test]
fn bindings_select_events_schemas_and_tables() {
    let b = parse(&json!({"event": "*", "schema": "public"})).unwrap();
    assert_eq!(b.table, None);
    assert!(b.wants("public", "x", Event::Delete, &Map::new()));
    assert!(!b.wants("other", "x", Event::Delete, &Map::new()));
    let b = parse(&json!({"event": "UPDATE", "schema": "*", "table": "x"})).unwrap();
    assert!(b.wants("s", "x", Event::Update, &Map::new()));
    assert!(!b.wants("s", "x", Event::Insert, &Map::new()));
    assert!(!b.wants("s", "y", Event::Update, &Map::new()));
    assert!(parse(&json!({"event": "*"})).unwrap_err().starts_with("No subscription params"));
    assert!(parse(&json!({"event": "TRUNCATE", "schema": "public"})).is_err());
    assert!(parse(&json!("public")).is_err());
}
