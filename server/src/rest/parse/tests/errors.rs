//! Malformed and hostile inputs: each must be rejected with the right variant (or, for
//! values, kept verbatim), never truncated; cast names only in type-name shape; nesting cap.
//! These tests go through the public API only and must not rely on parser internals.

use super::*;

#[test]
fn unbalanced_parens_in_select() {
    for s in ["rel(id", "id)", "rel(id))", "rel((id)", "(id)", "a(b(c(d)"] {
        syntax(&parse_err(&[("select", s)]), ParamKind::Select);
    }
    let e = parse_err(&[("select", "id,name)")]);
    assert_eq!(e.message(), "\"failed to parse select parameter (id,name))\" (line 1, column 8)");
    assert_eq!(syntax(&e, ParamKind::Select), "unexpected \")\" expecting \",\" or end of input");
}

#[test]
fn unbalanced_parens_in_filters_and_trees() {
    syntax(&parse_err(&[("id", "in.(1,2")]), ParamKind::Filter);
    syntax(&parse_err(&[("id", "in.1,2)")]), ParamKind::Filter);
    syntax(&parse_err(&[("and", "(a.eq.1,or(b.eq.2)")]), ParamKind::LogicTree);
    syntax(&parse_err(&[("and", "((a.eq.1)")]), ParamKind::LogicTree);
}

#[test]
fn empty_operator() {
    for v in [".1", "not..1", "", "not.", "(any).1"] {
        syntax(&parse_err(&[("id", v)]), ParamKind::Filter);
    }
}

#[test]
fn unknown_operator() {
    for v in ["foo.1", "equals.1", "not.foo.1", "in", "is", "like_.x", "eq:1"] {
        syntax(&parse_err(&[("id", v)]), ParamKind::Filter);
    }
    let e = parse_err(&[("a.b", "noop.0")]);
    assert_eq!(e.message(), "\"failed to parse filter (noop.0)\" (line 1, column 1)");
}

#[test]
fn bad_limit() {
    let e = parse_err(&[("limit", "ten")]);
    assert_eq!(e.message(), "\"failed to parse limit parameter (ten)\" (line 1, column 1)");
    syntax(&e, ParamKind::Limit);
}

#[test]
fn trailing_garbage() {
    syntax(&parse_err(&[("select", "id,y z)")]), ParamKind::Select);
    syntax(&parse_err(&[("select", "*x")]), ParamKind::Select);
    syntax(&parse_err(&[("select", "rel(id)x")]), ParamKind::Select);
    syntax(&parse_err(&[("select", "id.sum()x")]), ParamKind::Select);
    syntax(&parse_err(&[("id", "is.null x")]), ParamKind::Filter);
    syntax(&parse_err(&[("id", "in.(1)x")]), ParamKind::Filter);
    syntax(&parse_err(&[("or", "(a.eq.1)x")]), ParamKind::LogicTree);
    syntax(&parse_err(&[("order", "a.desc x")]), ParamKind::Order);
    syntax(&parse_err(&[("data->a.b", "eq.1")]), ParamKind::TreePath);
    syntax(&parse_err(&[("columns", "a b,c)")]), ParamKind::Columns);
}

#[test]
fn unterminated_quotes() {
    let e = parse_err(&[("select", "\"abc")]);
    assert!(syntax(&e, ParamKind::Select).starts_with("unexpected end of input expecting closing quote"));
    syntax(&parse_err(&[("select", "rel(\"a)")]), ParamKind::Select);
    syntax(&parse_err(&[("\"abc", "eq.1")]), ParamKind::TreePath);
    syntax(&parse_err(&[("columns", "\"a")]), ParamKind::Columns);
    syntax(&parse_err(&[("order", "\"a.desc")]), ParamKind::Order);
    syntax(&parse_err(&[("select", "\"a\\")]), ParamKind::Select);
}

#[test]
fn misc_select_errors() {
    for s in [
        "id,",
        ",id",
        "id,,name",
        "name!hint",
        "*!hint",
        "name::",
        "a:",
        ":a",
        "alias:*",
        "*::text",
        "rel->x(*)",
        "...rel",
        "alias:...rel(*)",
        "rel!a!b(*)",
        "rel!inner!left(*)",
        "rel!a!inner!b(*)",
        "id.foo()",
        "id.sum",
        "data->",
        "data->>-78xy",
        "data->>--34",
        "data->99999999999999999999",
        "\"\"",
        "a- ",
    ] {
        syntax(&parse_err(&[("select", s)]), ParamKind::Select);
    }
}

#[test]
fn errors_follow_postgrest_check_order() {
    // PostgREST checks order, logic, columns, select, filters, on_conflict, in that order.
    let e = parse_err(&[("id", "bad"), ("select", "x)"), ("order", "a.up")]);
    syntax(&e, ParamKind::Order);
    let e = parse_err(&[("id", "bad"), ("select", "x)")]);
    syntax(&e, ParamKind::Select);
}

#[test]
fn over_deep_nesting_select() {
    let ok = format!("{}id{}", "r(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    assert!(parse_query(&pairs(&[("select", &ok)])).is_ok());
    for depth in [MAX_DEPTH + 1, 100_000] {
        let s = format!("{}id{}", "r(".repeat(depth), ")".repeat(depth));
        match parse_err(&[("select", &s)]) {
            e @ ParseError::TooDeep { param: ParamKind::Select, max: MAX_DEPTH, .. } => {
                assert_eq!(e.code(), "PGRST100");
                assert!(e.details().unwrap().contains("64"));
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn over_deep_nesting_logic() {
    let nest = |n: usize| format!("({}a.eq.1{})", "or(".repeat(n), ")".repeat(n));
    assert!(parse_query(&pairs(&[("or", &nest(MAX_DEPTH - 1))])).is_ok());
    for n in [MAX_DEPTH, 100_000] {
        assert!(matches!(parse_err(&[("or", &nest(n))]), ParseError::TooDeep { param: ParamKind::LogicTree, .. }));
    }
    let unclosed = "(".repeat(100_000);
    syntax(&parse_err(&[("or", &unclosed)]), ParamKind::LogicTree);
    let many_nots = "not.".repeat(50_000);
    syntax(&parse_err(&[("c", &format!("{many_nots}eq.1"))]), ParamKind::Filter);
}

#[test]
fn hostile_identifiers_are_rejected_or_kept_whole() {
    for s in ["id;drop table x", "id--x", "id -- x", "id/*x*/", "a'b", "id)", "a=b", "a\"b"] {
        syntax(&parse_err(&[("select", s)]), ParamKind::Select);
    }
    assert_eq!(select(r#""id; drop table x;--""#), vec![column("id; drop table x;--")]);
    assert_eq!(
        select(r#""x\" from y;--":id"#),
        vec![SelectItem::Column {
            field: col("id"),
            alias: Some("x\" from y;--".into()),
            cast: None,
            aggregate: None,
            aggregate_cast: None
        }]
    );
    syntax(&parse_err(&[("id;drop", "eq.1")]), ParamKind::TreePath);
    syntax(&parse_err(&[("order", "id;drop")]), ParamKind::Order);
    syntax(&parse_err(&[("on_conflict", "id);--")]), ParamKind::OnConflict);
    syntax(&parse_err(&[("c", "fts(english'); drop).x")]), ParamKind::Filter);
}

#[test]
fn hostile_values_are_kept_verbatim() {
    let v = "1'; drop table x;--";
    assert_eq!(op(&format!("eq.{v}")).1, cmp(CompareOp::Eq, v));
    assert_eq!(
        op("in.(1'; drop table x;--,\"a\"\"b\")").1,
        Operation::In(strings(&["1'; drop table x;--", "\"a\"\"b\""]))
    );
    // A `)` inside an unquoted element ends the list; what follows is an error, not dropped.
    syntax(&parse_err(&[("c", "in.(1');--)")]), ParamKind::Filter);
    let (_, f) = filter("data->a'b;", "eq.1");
    assert_eq!(f.field, json("data", vec![arrow("a'b;")]));
    syntax(&parse_err(&[("data->a'b;--x", "eq.1")]), ParamKind::TreePath);
}

#[test]
fn cast_names_must_look_like_types() {
    for bad in [
        "int); drop table x;--",
        "int union select 1",
        "int;",
        "\"int\"",
        "in-t",
        "$1",
        "1int",
        "varchar(a)",
        "varchar(10",
        "varchar(10,2,3)",
        "int[",
        "int[a]",
        "pg_catalog.int4",
        "text collate \"C\"",
        "int/**/",
        "int'",
        "",
    ] {
        let e = parse_err(&[("select", &format!("c::{bad}"))]);
        syntax(&e, ParamKind::Select);
        let e = parse_err(&[("select", &format!("c.sum()::{bad}"))]);
        syntax(&e, ParamKind::Select);
        let e = parse_err(&[("select", &format!("count()::{bad}"))]);
        syntax(&e, ParamKind::Select);
    }
}

#[test]
fn display_includes_message_and_details() {
    let e = parse_err(&[("id", "foo.1")]);
    assert_eq!(
        e.to_string(),
        "\"failed to parse filter (foo.1)\" (line 1, column 1): unexpected \"f\" expecting \"not\" or operator (eq, gt, ...)"
    );
}

#[test]
fn positions_count_lines_and_tabs() {
    // Whitespace is only spaces and tabs; a newline can only occur inside quotes.
    let e = parse_err(&[("select", "\"x\ny\",\tname!x")]);
    assert_eq!(e.message(), r#""failed to parse select parameter (\"x\ny\",\tname!x)" (line 2, column 15)"#);
    assert_eq!(e.details().as_deref(), Some("unexpected end of input expecting \"(\""));
    let e = parse_err(&[("select", "id,\nname")]);
    assert!(e.message().ends_with("(line 1, column 4)"), "{e}");
}

#[test]
fn messages_match_postgrest_test_suite() {
    // Messages (and details where Parsec's wording is reproducible) from PostgREST's spec.
    let e = parse_err(&[("or", "()")]);
    assert_eq!(e.message(), r#""failed to parse logic tree (())" (line 1, column 4)"#);
    assert_eq!(
        e.details().as_deref(),
        Some(
            r#"unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)"#
        )
    );
    let e = parse_err(&[("columns", "")]);
    assert_eq!(e.message(), r#""failed to parse columns parameter ()" (line 1, column 1)"#);
    let e = parse_err(&[("select", "data->>--34")]);
    assert_eq!(e.message(), r#""failed to parse select parameter (data->>--34)" (line 1, column 9)"#);
    assert_eq!(e.details().as_deref(), Some(r#"unexpected "-" expecting digit"#));
    let e = parse_err(&[("select", "data->(!@#$%^&*_d->>!@#$%^&*_e::integer")]);
    assert_eq!(
        e.message(),
        r#""failed to parse select parameter (data->(!@#$%^&*_d->>!@#$%^&*_e::integer)" (line 1, column 7)"#
    );
    let e = parse_err(&[("order", "id.asc.nullslasttt")]);
    assert_eq!(e.message(), r#""failed to parse order (id.asc.nullslasttt)" (line 1, column 17)"#);
    assert_eq!(e.details().as_deref(), Some(r#"unexpected "t" expecting "," or end of input"#));
    let e = parse_err(&[("id", "0")]);
    assert_eq!(e.message(), r#""failed to parse filter (0)" (line 1, column 1)"#);
    assert_eq!(e.details().as_deref(), Some(r#"unexpected "0" expecting "not" or operator (eq, gt, ...)"#));
    let e = parse_err(&[("select", "data->>-78xy")]);
    assert_eq!(e.message(), r#""failed to parse select parameter (data->>-78xy)" (line 1, column 11)"#);
}

#[test]
fn nesting_does_not_grow_the_call_stack() {
    let run = || {
        let d = MAX_DEPTH;
        let sel = format!("{}id{}", "r(".repeat(d), ")".repeat(d));
        let tree = format!("({}a.eq.1{})", "or(".repeat(d - 1), ")".repeat(d - 1));
        parse_query(&pairs(&[("select", &sel), ("or", &tree)])).is_ok()
            && parse_query(&pairs(&[("select", &"r(".repeat(100_000))])).is_err()
            && parse_query(&pairs(&[("or", &"(or".repeat(100_000))])).is_err()
    };
    let small_stack = std::thread::Builder::new().stack_size(64 * 1024).spawn(run).unwrap();
    assert!(small_stack.join().unwrap());
}

#[test]
fn an_unparsable_first_item_says_what_an_item_needs() {
    let e = parse_err(&[("select", "!")]);
    assert_eq!(
        e.details().as_deref(),
        Some(r#"unexpected "!" expecting field name (* or [a..z0..9_$]), "*", "count()" or end of input"#)
    );
    let e = parse_err(&[("select", "rel(!)")]);
    assert_eq!(e.message(), r#""failed to parse select parameter (rel(!))" (line 1, column 5)"#);
    assert!(e.details().unwrap().ends_with(r#""count()" or ")""#), "{e:?}");
}
