//! `order`, `limit`/`offset` (root and embedded), `on_conflict` and `columns`.
//! These tests go through the public API only and must not rely on parser internals.

use super::*;

fn term(column: &str, direction: Option<Direction>, nulls: Option<NullsOrder>) -> OrderTerm {
    OrderTerm { relation: None, field: col(column), direction, nulls }
}

fn order(value: &str) -> Vec<OrderTerm> {
    let q = parse(&[("order", value)]);
    assert_eq!(q.order.len(), 1);
    let (path, terms) = q.order.into_iter().next().unwrap();
    assert!(path.is_empty());
    terms
}

#[test]
fn order_plain_column() {
    assert_eq!(order("a"), vec![term("a", None, None)]);
}

#[test]
fn order_directions() {
    assert_eq!(
        order("a.asc,b.desc"),
        vec![term("a", Some(Direction::Asc), None), term("b", Some(Direction::Desc), None)]
    );
}

#[test]
fn order_nulls() {
    assert_eq!(
        order("a.nullsfirst,b.nullslast"),
        vec![term("a", None, Some(NullsOrder::First)), term("b", None, Some(NullsOrder::Last))]
    );
}

#[test]
fn order_direction_and_nulls() {
    assert_eq!(
        order("a.desc.nullslast,b,c.asc.nullsfirst"),
        vec![
            term("a", Some(Direction::Desc), Some(NullsOrder::Last)),
            term("b", None, None),
            term("c", Some(Direction::Asc), Some(NullsOrder::First))
        ]
    );
}

#[test]
fn order_json_path_and_whitespace() {
    assert_eq!(
        order(" data->key.asc , data->>x "),
        vec![
            OrderTerm {
                relation: None,
                field: json("data", vec![arrow("key")]),
                direction: Some(Direction::Asc),
                nulls: None
            },
            OrderTerm { relation: None, field: json("data", vec![darrow("x")]), direction: None, nulls: None },
        ]
    );
}

#[test]
fn order_by_related_column() {
    assert_eq!(
        order("name,clients(name).desc.nullsfirst,id"),
        vec![
            term("name", None, None),
            OrderTerm {
                relation: Some("clients".into()),
                field: col("name"),
                direction: Some(Direction::Desc),
                nulls: Some(NullsOrder::First)
            },
            term("id", None, None),
        ]
    );
}

#[test]
fn order_on_embedded_resource() {
    let q = parse(&[("films.order", "year.desc"), ("films.actors.order", "name")]);
    assert_eq!(q.order[0], (strings(&["films"]), vec![term("year", Some(Direction::Desc), None)]));
    assert_eq!(q.order[1].0, strings(&["films", "actors"]));
}

#[test]
fn order_errors() {
    for (v, at) in [
        ("a.up", 3),
        ("id.ac", 4),
        ("id.descc", 8),
        ("id.asc.nlsfst", 8),
        ("id.nullslasttt", 13),
        ("clients(name,id)", 13),
        ("", 1),
        ("a,", 3),
        ("a.asc.desc", 7),
    ] {
        let e = parse_err(&[("order", v)]);
        syntax(&e, ParamKind::Order);
        assert_eq!(e.message(), format!("\"failed to parse order ({v})\" (line 1, column {at})"), "{v}");
    }
}

#[test]
fn limit_and_offset() {
    let q = parse(&[("limit", "10"), ("offset", "20")]);
    assert_eq!(q.limits, vec![(vec![], Some(10), Some(20))]);
    assert_eq!(parse(&[("offset", "5")]).limits, vec![(vec![], None, Some(5))]);
    assert_eq!(parse(&[("limit", "0")]).limits, vec![(vec![], Some(0), None)]);
}

#[test]
fn embedded_limit_and_offset() {
    let q = parse(&[("films.limit", "2"), ("limit", "1"), ("films.offset", "3"), ("films.actors.limit", "4")]);
    assert_eq!(
        q.limits,
        vec![
            (strings(&["films"]), Some(2), Some(3)),
            (vec![], Some(1), None),
            (strings(&["films", "actors"]), Some(4), None)
        ]
    );
}

#[test]
fn repeated_limit_last_wins() {
    assert_eq!(parse(&[("limit", "1"), ("limit", "2")]).limits, vec![(vec![], Some(2), None)]);
}

#[test]
fn bad_limits() {
    for (k, v, param) in [
        ("limit", "abc", ParamKind::Limit),
        ("limit", "", ParamKind::Limit),
        ("limit", "1.5", ParamKind::Limit),
        ("offset", "9223372036854775808", ParamKind::Offset),
        ("rel.offset", "x", ParamKind::Offset),
    ] {
        let e = parse_err(&[(k, v)]);
        syntax(&e, param);
    }
    let e = parse_err(&[("limit", "12x")]);
    assert_eq!(e.message(), "\"failed to parse limit parameter (12x)\" (line 1, column 3)");
    assert_eq!(e.details().as_deref(), Some("unexpected \"x\" expecting a non-negative integer"));
    assert_eq!(parse(&[("limit", " 7 ")]).limits, vec![(vec![], Some(7), None)]);
    // PostgREST: a negative limit cannot be satisfied (416), a negative offset is none.
    assert_eq!(parse_err(&[("limit", "-1")]).code(), "PGRST103");
    assert_eq!(parse_err(&[("limit", "-1")]).status(), 416);
    assert_eq!(parse(&[("offset", "-5")]).limits, vec![(vec![], None, Some(0))]);
    assert_eq!(parse(&[("offset", "9223372036854775807")]).limits, vec![(vec![], None, Some(i64::MAX as u64))]);
}

#[test]
fn on_conflict() {
    assert_eq!(parse(&[("on_conflict", "a,b")]).on_conflict, Some(strings(&["a", "b"])));
    assert_eq!(parse(&[("on_conflict", r#""my col" , b"#)]).on_conflict, Some(strings(&["my col", "b"])));
    assert_eq!(parse(&[]).on_conflict, None);
}

#[test]
fn columns() {
    assert_eq!(parse(&[("columns", "id,name")]).columns, Some(strings(&["id", "name"])));
    assert_eq!(parse(&[("columns", r#""a,b",c-d"#)]).columns, Some(strings(&["a,b", "c-d"])));
}

#[test]
fn columns_errors() {
    let e = parse_err(&[("columns", "")]);
    assert_eq!(e.message(), "\"failed to parse columns parameter ()\" (line 1, column 1)");
    assert_eq!(syntax(&e, ParamKind::Columns), "unexpected end of input expecting field name (* or [a..z0..9_$])");
    syntax(&parse_err(&[("columns", "a,b)")]), ParamKind::Columns);
    syntax(&parse_err(&[("on_conflict", "a,")]), ParamKind::OnConflict);
    syntax(&parse_err(&[("on_conflict", "a;b")]), ParamKind::OnConflict);
}
