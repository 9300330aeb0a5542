//! Logic trees: `and`, `or`, `not.` on keys and nodes, nesting, `not.` leaves, quoted and
//! array values, `in` lists inside trees, and embedded-resource keys.
//! These tests go through the public API only and must not rely on parser internals.

use super::*;

fn leaf(column: &str, negated: bool, op: Operation) -> LogicTree {
    LogicTree::Leaf(Filter { field: col(column), negated, op })
}

fn node(negated: bool, op: LogicOp, children: Vec<LogicTree>) -> LogicTree {
    LogicTree::Node { negated, op, children }
}

fn tree(key: &str, value: &str) -> (EmbedPath, LogicTree) {
    let q = parse(&[(key, value)]);
    assert_eq!(q.logic.len(), 1, "{q:?}");
    q.logic.into_iter().next().unwrap()
}

#[test]
fn or_tree() {
    assert_eq!(
        tree("or", "(a.eq.1,b.gt.2)"),
        (
            vec![],
            node(
                false,
                LogicOp::Or,
                vec![leaf("a", false, cmp(CompareOp::Eq, "1")), leaf("b", false, cmp(CompareOp::Gt, "2"))]
            )
        )
    );
}

#[test]
fn and_tree() {
    assert_eq!(
        tree("and", "(a.is.null)"),
        (vec![], node(false, LogicOp::And, vec![leaf("a", false, Operation::Is(IsValue::Null))]))
    );
}

#[test]
fn negated_keys() {
    assert_eq!(tree("not.or", "(a.eq.1)").1, node(true, LogicOp::Or, vec![leaf("a", false, cmp(CompareOp::Eq, "1"))]));
    assert_eq!(
        tree("not.and", "(a.eq.1)").1,
        node(true, LogicOp::And, vec![leaf("a", false, cmp(CompareOp::Eq, "1"))])
    );
}

#[test]
fn nested_nodes() {
    assert_eq!(
        tree("or", "(a.eq.1,and(b.gt.2,c.lt.3),not.or(d.eq.4,e.eq.5))").1,
        node(
            false,
            LogicOp::Or,
            vec![
                leaf("a", false, cmp(CompareOp::Eq, "1")),
                node(
                    false,
                    LogicOp::And,
                    vec![leaf("b", false, cmp(CompareOp::Gt, "2")), leaf("c", false, cmp(CompareOp::Lt, "3"))]
                ),
                node(
                    true,
                    LogicOp::Or,
                    vec![leaf("d", false, cmp(CompareOp::Eq, "4")), leaf("e", false, cmp(CompareOp::Eq, "5"))]
                ),
            ]
        )
    );
}

#[test]
fn negated_leaves() {
    assert_eq!(tree("or", "(a.not.eq.1)").1, node(false, LogicOp::Or, vec![leaf("a", true, cmp(CompareOp::Eq, "1"))]));
}

#[test]
fn quoted_values() {
    assert_eq!(
        tree("or", r#"(name.eq."a,b",name.eq."x\"y)")"#).1,
        node(
            false,
            LogicOp::Or,
            vec![leaf("name", false, cmp(CompareOp::Eq, "a,b")), leaf("name", false, cmp(CompareOp::Eq, "x\"y)"))]
        )
    );
}

#[test]
fn array_values_keep_their_commas() {
    assert_eq!(
        tree("and", "(tags.cs.{a,b},id.eq(any).{1,2})").1,
        node(
            false,
            LogicOp::And,
            vec![
                leaf("tags", false, cmp(CompareOp::Cs, "{a,b}")),
                leaf(
                    "id",
                    false,
                    Operation::Quantified { op: CompareOp::Eq, quantifier: Quantifier::Any, value: "{1,2}".into() }
                )
            ]
        )
    );
}

#[test]
fn in_lists_fts_and_like_inside_trees() {
    assert_eq!(
        tree("or", r#"(id.in.(1,"2,3"),t.fts(english).cat,n.like.*x*)"#).1,
        node(
            false,
            LogicOp::Or,
            vec![
                leaf("id", false, Operation::In(strings(&["1", "2,3"]))),
                leaf(
                    "t",
                    false,
                    Operation::Fts { kind: FtsKind::Fts, config: Some("english".into()), value: "cat".into() }
                ),
                leaf("n", false, cmp(CompareOp::Like, "%x%")),
            ]
        )
    );
}

#[test]
fn json_path_leaves_and_whitespace() {
    assert_eq!(
        tree("or", "( data->>a.eq.1 , data->0.gt.2 )").1,
        node(
            false,
            LogicOp::Or,
            vec![
                // Unquoted values run up to `,` or `)`, spaces included, as in PostgREST.
                LogicTree::Leaf(Filter {
                    field: json("data", vec![darrow("a")]),
                    negated: false,
                    op: cmp(CompareOp::Eq, "1 ")
                }),
                LogicTree::Leaf(Filter {
                    field: json("data", vec![JsonOperation::Arrow(JsonKey::Index(0))]),
                    negated: false,
                    op: cmp(CompareOp::Gt, "2 ")
                }),
            ]
        )
    );
}

#[test]
fn columns_named_like_operators() {
    assert_eq!(
        tree("or", "(and.eq.1,or.eq.2)").1.clone(),
        node(
            false,
            LogicOp::Or,
            vec![leaf("and", false, cmp(CompareOp::Eq, "1")), leaf("or", false, cmp(CompareOp::Eq, "2"))]
        )
    );
}

#[test]
fn embedded_keys() {
    assert_eq!(tree("films.or", "(a.eq.1)").0, strings(&["films"]));
    let (path, t) = tree("films.actors.not.and", "(a.eq.1)");
    assert_eq!(path, strings(&["films", "actors"]));
    assert!(matches!(t, LogicTree::Node { negated: true, op: LogicOp::And, .. }));
}

#[test]
fn several_trees_in_order() {
    let q = parse(&[("or", "(a.eq.1)"), ("x.and", "(b.eq.2)")]);
    assert_eq!(q.logic.len(), 2);
    assert_eq!(q.logic[1].0, strings(&["x"]));
}

#[test]
fn errors_report_the_value_and_postgrest_columns() {
    let e = parse_err(&[("or", "()")]);
    assert!(syntax(&e, ParamKind::LogicTree).starts_with("unexpected \")\""));
    assert_eq!(e.message(), "\"failed to parse logic tree (())\" (line 1, column 4)");
    let e = parse_err(&[("or", "(a.eq.1")]);
    syntax(&e, ParamKind::LogicTree);
    assert_eq!(e.message(), "\"failed to parse logic tree ((a.eq.1)\" (line 1, column 10)");
}

#[test]
fn malformed_trees() {
    for v in [
        "(a.eq.1))",
        "a.eq.1",
        "(a.eq.1,)",
        "(,a.eq.1)",
        "(id.in.1,2)",
        "(a.foo.1)",
        "(a)",
        "(a.eq.1,not.xor(b.eq.2))",
        "(and(a.eq.1)",
        "",
    ] {
        syntax(&parse_err(&[("or", v)]), ParamKind::LogicTree);
    }
}

#[test]
fn logic_key_must_end_in_an_operator_and_be_well_formed() {
    syntax(&parse_err(&[("a..or", "(a.eq.1)")]), ParamKind::LogicPath);
    syntax(&parse_err(&[("\"x.or", "(a.eq.1)")]), ParamKind::LogicPath);
    syntax(&parse_err(&[(".or", "(a.eq.1)")]), ParamKind::LogicPath);
}

#[test]
fn unterminated_quote_in_a_tree_is_raw_text_like_postgrest() {
    assert_eq!(tree("or", "(a.eq.\"x)").1, node(false, LogicOp::Or, vec![leaf("a", false, cmp(CompareOp::Eq, "\"x"))]));
}
