//! Filters: every operator, quantifiers, `not.`, full-text configs, `in` lists, `is`
//! values, array/range literals, JSON paths and embedded-path keys.
//! These tests go through the public API only and must not rely on parser internals.

use super::*;

macro_rules! compare_op_test {
    ($($name:ident: $text:literal => $op:ident,)*) => {$(
        #[test]
        fn $name() {
            let value = concat!($text, ".5");
            assert_eq!(op(value), (false, cmp(CompareOp::$op, "5")));
            assert_eq!(CompareOp::$op.as_str(), $text);
            assert_eq!(op(concat!("not.", $text, ".x")), (true, cmp(CompareOp::$op, "x")));
        }
    )*};
}

compare_op_test! {
    op_eq: "eq" => Eq,
    op_neq: "neq" => Neq,
    op_gt: "gt" => Gt,
    op_gte: "gte" => Gte,
    op_lt: "lt" => Lt,
    op_lte: "lte" => Lte,
    op_like: "like" => Like,
    op_ilike: "ilike" => Ilike,
    op_match: "match" => Match,
    op_imatch: "imatch" => Imatch,
    op_isdistinct: "isdistinct" => IsDistinct,
    op_cs: "cs" => Cs,
    op_cd: "cd" => Cd,
    op_ov: "ov" => Ov,
    op_sl: "sl" => Sl,
    op_sr: "sr" => Sr,
    op_nxl: "nxl" => Nxl,
    op_nxr: "nxr" => Nxr,
    op_adj: "adj" => Adj,
}

#[test]
fn op_in() {
    assert_eq!(op("in.(1,2,3)"), (false, Operation::In(strings(&["1", "2", "3"]))));
}

#[test]
fn op_is() {
    for (v, want) in [
        ("null", IsValue::Null),
        ("NULL", IsValue::Null),
        ("not_null", IsValue::NotNull),
        ("Not_Null", IsValue::NotNull),
        ("true", IsValue::True),
        ("TRUE", IsValue::True),
        ("false", IsValue::False),
        ("unknown", IsValue::Unknown),
        ("UnKnOwN", IsValue::Unknown),
    ] {
        assert_eq!(op(&format!("is.{v}")), (false, Operation::Is(want)), "{v}");
    }
    assert_eq!(op("not.is.null"), (true, Operation::Is(IsValue::Null)));
}

#[test]
fn op_is_rejects_other_values() {
    for v in ["is.nil", "is.nullx", "is.", "is.1"] {
        let e = parse_err(&[("c", v)]);
        assert!(syntax(&e, ParamKind::Filter).contains("isVal"), "{v}: {e:?}");
    }
}

fn fts(kind: FtsKind, config: Option<&str>, value: &str) -> Operation {
    Operation::Fts { kind, config: config.map(str::to_string), value: value.to_string() }
}

#[test]
fn op_fts() {
    assert_eq!(op("fts.cat & dog"), (false, fts(FtsKind::Fts, None, "cat & dog")));
    assert_eq!(FtsKind::Fts.function(), "to_tsquery");
}

#[test]
fn op_plfts() {
    assert_eq!(op("plfts.fat cat"), (false, fts(FtsKind::Plfts, None, "fat cat")));
}

#[test]
fn op_phfts() {
    assert_eq!(op("phfts(english).fat cat"), (false, fts(FtsKind::Phfts, Some("english"), "fat cat")));
}

#[test]
fn op_wfts() {
    assert_eq!(op("not.wfts(french).\"chat\" -chien"), (true, fts(FtsKind::Wfts, Some("french"), "\"chat\" -chien")));
}

#[test]
fn fts_config_is_required_inside_parens() {
    let e = parse_err(&[("c", "fts().x")]);
    syntax(&e, ParamKind::Filter);
}

#[test]
fn like_and_ilike_turn_stars_into_percent() {
    assert_eq!(op("like.*on*"), (false, cmp(CompareOp::Like, "%on%")));
    assert_eq!(op("ilike.a*b"), (false, cmp(CompareOp::Ilike, "a%b")));
    assert_eq!(op("eq.*"), (false, cmp(CompareOp::Eq, "*")));
    assert_eq!(op("match.^a.*"), (false, cmp(CompareOp::Match, "^a.*")));
}

fn quant(op: CompareOp, q: Quantifier, value: &str) -> Operation {
    Operation::Quantified { op, quantifier: q, value: value.to_string() }
}

#[test]
fn quantifiers_on_every_quantifiable_operator() {
    for name in ["eq", "gt", "gte", "lt", "lte", "like", "ilike", "match", "imatch"] {
        let (neg, got) = op(&format!("{name}(any).{{1,2}}"));
        assert!(!neg);
        match got {
            Operation::Quantified { op, quantifier: Quantifier::Any, value } => {
                assert_eq!(op.as_str(), name);
                assert!(op.accepts_quantifier());
                assert_eq!(value, "{1,2}");
            }
            other => panic!("{name}: {other:?}"),
        }
        let (_, got) = op(&format!("{name}(all).{{3}}"));
        assert!(matches!(got, Operation::Quantified { quantifier: Quantifier::All, .. }), "{name}");
    }
}

#[test]
fn quantified_like_converts_stars() {
    assert_eq!(op("like(all).{a*,*b}"), (false, quant(CompareOp::Like, Quantifier::All, "{a%,%b}")));
    assert_eq!(op("not.ilike(any).{A*}"), (true, quant(CompareOp::Ilike, Quantifier::Any, "{A%}")));
}

#[test]
fn quantifiers_rejected_on_other_operators() {
    for v in ["neq(any).{1}", "cs(any).{1}", "is(any).null", "in(any).(1)", "eq().1", "eq(some).1", "isdistinct(all).1"]
    {
        syntax(&parse_err(&[("c", v)]), ParamKind::Filter);
    }
    // As in PostgREST, `fts(any)` is a text search configuration named `any`.
    assert_eq!(op("fts(any).x").1, fts(FtsKind::Fts, Some("any"), "x"));
    assert!(!CompareOp::Neq.accepts_quantifier());
    assert!(!CompareOp::IsDistinct.accepts_quantifier());
}

#[test]
fn in_lists_with_quotes_escapes_and_spaces() {
    assert_eq!(op(r#"in.(a,"b,c",d)"#).1, Operation::In(strings(&["a", "b,c", "d"])));
    assert_eq!(op(r#"in.("a\"b","c\\d","(x)")"#).1, Operation::In(strings(&["a\"b", "c\\d", "(x)"])));
    assert_eq!(op("in.( a , b )").1, Operation::In(strings(&["a ", " b "])));
    assert_eq!(op(r#"in.("a"b)"#).1, Operation::In(strings(&["\"a\"b"])));
    assert_eq!(op("not.in.(1)"), (true, Operation::In(strings(&["1"]))));
}

#[test]
fn in_empty_list() {
    assert_eq!(op("in.()").1, Operation::In(vec![]));
    assert_eq!(op(r#"in.("")"#).1, Operation::In(strings(&[""])));
    assert_eq!(op("in.(,)").1, Operation::In(strings(&["", ""])));
}

#[test]
fn array_and_range_literals_are_kept_raw() {
    assert_eq!(op("cs.{a,b}").1, cmp(CompareOp::Cs, "{a,b}"));
    assert_eq!(op("ov.[1,5)").1, cmp(CompareOp::Ov, "[1,5)"));
    assert_eq!(op("adj.(1,10]").1, cmp(CompareOp::Adj, "(1,10]"));
    assert_eq!(op(r#"eq."quoted, kept""#).1, cmp(CompareOp::Eq, "\"quoted, kept\""));
}

#[test]
fn empty_and_dotted_values() {
    assert_eq!(op("eq.").1, cmp(CompareOp::Eq, ""));
    assert_eq!(op("eq.a.b.c").1, cmp(CompareOp::Eq, "a.b.c"));
    assert_eq!(op("eq.not.x").1, cmp(CompareOp::Eq, "not.x"));
}

#[test]
fn key_with_json_path() {
    let (path, f) = filter("data->a->>b", "eq.1");
    assert!(path.is_empty());
    assert_eq!(f.field, json("data", vec![arrow("a"), darrow("b")]));
    let (_, f) = filter("data->0", "eq.1");
    assert_eq!(f.field, json("data", vec![JsonOperation::Arrow(JsonKey::Index(0))]));
}

#[test]
fn key_with_embedded_path() {
    let (path, f) = filter("films.year", "gte.2000");
    assert_eq!(path, strings(&["films"]));
    assert_eq!(f.field, col("year"));
    let (path, f) = filter("films.actors.data->>name", "eq.x");
    assert_eq!(path, strings(&["films", "actors"]));
    assert_eq!(f.field, json("data", vec![darrow("name")]));
    let (path, f) = filter(r#""a.b"."c d""#, "eq.1");
    assert_eq!(path, strings(&["a.b"]));
    assert_eq!(f.field, col("c d"));
}

#[test]
fn filters_keep_query_order() {
    let q = parse(&[("a", "eq.1"), ("b.c", "lt.2"), ("a", "gt.0")]);
    let cols: Vec<_> = q.filters.iter().map(|(_, f)| f.field.column.as_str()).collect();
    assert_eq!(cols, vec!["a", "c", "a"]);
}

#[test]
fn rpc_values_without_an_operator_are_arguments_and_the_others_filters() {
    let pairs = pairs(&[
        ("name", "anything (at all"),
        ("id", "eq.1"),
        ("tag", "not.is.null"),
        ("doc", "fts(english).cat"),
        ("word", "equal.ish"),
        ("select", "x"),
        ("limit", "2"),
    ]);
    let q = parse_rpc_query(&pairs).unwrap();
    let args: Vec<(&str, &str)> = q.rpc_args.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(args, vec![("name", "anything (at all"), ("word", "equal.ish")]);
    let filtered: Vec<_> = q.filters.iter().map(|(_, f)| f.field.column.as_str()).collect();
    assert_eq!(filtered, vec!["id", "tag", "doc"]);
    assert_eq!(q.select, vec![column("x")]);
    assert_eq!(q.limits, vec![(vec![], Some(2), None)]);
    // A value that starts like a filter and is not one is a filter error, as in PostgREST.
    assert!(parse_rpc_query(&[("id".into(), "in.(1,2".into())]).is_err());
}

#[test]
fn unknown_operator_is_a_filter_error() {
    let e = parse_err(&[("id", "foo.1")]);
    let details = syntax(&e, ParamKind::Filter);
    assert_eq!(e.message(), "\"failed to parse filter (foo.1)\" (line 1, column 1)");
    assert_eq!(details, "unexpected \"f\" expecting \"not\" or operator (eq, gt, ...)");
    assert_eq!(e.details().as_deref(), Some(details.as_str()));
    assert_eq!(e.hint(), None);
}

#[test]
fn value_without_operator_is_an_error() {
    for v in ["1", "", "eq", "EQ.1", "not.1", "not.not.eq.1", "eq1"] {
        syntax(&parse_err(&[("id", v)]), ParamKind::Filter);
    }
}

#[test]
fn trailing_garbage_after_in_list_is_rejected() {
    let e = parse_err(&[("id", "in.(1,2)x")]);
    assert!(syntax(&e, ParamKind::Filter).contains("unexpected \"x\""));
    syntax(&parse_err(&[("id", "in.(1,2")]), ParamKind::Filter);
}
