//! `select=`: every item form, embeddings, spreads, aggregates, casts and whitespace.
//! These tests go through the public API only and must not rely on parser internals.

use super::*;

fn embed(relation: &str, select: Vec<SelectItem>) -> SelectItem {
    SelectItem::Embed { relation: relation.into(), alias: None, hint: None, join: None, spread: false, select }
}

#[test]
fn not_given_and_empty_mean_star() {
    assert!(parse(&[]).select.is_empty());
    assert!(select("").is_empty());
    assert!(select("  ").is_empty());
}

#[test]
fn star() {
    assert_eq!(select("*"), vec![SelectItem::Star]);
    assert_eq!(select(" * , id "), vec![SelectItem::Star, column("id")]);
}

#[test]
fn columns() {
    assert_eq!(select("id,name"), vec![column("id"), column("name")]);
}

#[test]
fn identifiers_with_spaces_dashes_dollars_digits_and_unicode() {
    assert_eq!(
        select("my col,a-b,$x,123,ñandú"),
        vec![column("my col"), column("a-b"), column("$x"), column("123"), column("ñandú")]
    );
}

#[test]
fn quoted_identifiers() {
    assert_eq!(
        select(r#""my col","a,b","x\"y",":""#),
        vec![column("my col"), column("a,b"), column("x\"y"), column(":")]
    );
}

#[test]
fn alias() {
    assert_eq!(
        select("n:name"),
        vec![SelectItem::Column {
            field: col("name"),
            alias: Some("n".into()),
            cast: None,
            aggregate: None,
            aggregate_cast: None
        }]
    );
}

#[test]
fn cast() {
    assert_eq!(
        select("id::text"),
        vec![SelectItem::Column {
            field: col("id"),
            alias: None,
            cast: Some("text".into()),
            aggregate: None,
            aggregate_cast: None
        }]
    );
}

#[test]
fn alias_json_path_and_cast() {
    assert_eq!(
        select("alias:data->a->>b::int"),
        vec![SelectItem::Column {
            field: json("data", vec![arrow("a"), darrow("b")]),
            alias: Some("alias".into()),
            cast: Some("int".into()),
            aggregate: None,
            aggregate_cast: None,
        }]
    );
}

#[test]
fn json_paths() {
    let idx = |n| JsonOperation::Arrow(JsonKey::Index(n));
    let didx = |n| JsonOperation::DoubleArrow(JsonKey::Index(n));
    let field = |s: &str| match select(s).into_iter().next() {
        Some(SelectItem::Column { field, .. }) => field,
        other => panic!("{other:?}"),
    };
    assert_eq!(field("data->0"), json("data", vec![idx(0)]));
    assert_eq!(field("data->>-1"), json("data", vec![didx(-1)]));
    assert_eq!(field("data->1a"), json("data", vec![arrow("1a")]));
    assert_eq!(field("data->'x'"), json("data", vec![arrow("'x'")]));
    assert_eq!(field("data->!@#$%^&*_a"), json("data", vec![arrow("!@#$%^&*_a")]));
    assert_eq!(field(r#"data->"a.b""#), json("data", vec![arrow("a.b")]));
    assert_eq!(field("data->a-b->>c"), json("data", vec![arrow("a-b"), darrow("c")]));
    // An index inside an embedding is still an index (PostgREST would read a key "0").
    match select("rel(data->0)").into_iter().next() {
        Some(SelectItem::Embed { select, .. }) => assert_eq!(
            select,
            vec![SelectItem::Column {
                field: json("data", vec![idx(0)]),
                alias: None,
                cast: None,
                aggregate: None,
                aggregate_cast: None
            }]
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn embed_simple_and_nested() {
    assert_eq!(
        select("*,client(*,nested(id))"),
        vec![SelectItem::Star, embed("client", vec![SelectItem::Star, embed("nested", vec![column("id")])])]
    );
}

#[test]
fn embed_empty() {
    assert_eq!(select("id,clients()"), vec![column("id"), embed("clients", vec![])]);
    assert_eq!(select("clients( )"), vec![embed("clients", vec![])]);
}

#[test]
fn embed_alias() {
    assert_eq!(
        select("c:clients(id)"),
        vec![SelectItem::Embed {
            relation: "clients".into(),
            alias: Some("c".into()),
            hint: None,
            join: None,
            spread: false,
            select: vec![column("id")]
        }]
    );
}

fn embed_params(s: &str) -> (Option<String>, Option<String>, Option<JoinType>) {
    match select(s).into_iter().next() {
        Some(SelectItem::Embed { alias, hint, join, .. }) => (alias, hint, join),
        other => panic!("{other:?}"),
    }
}

#[test]
fn embed_hint() {
    assert_eq!(embed_params("rel!fk_name(*)"), (None, Some("fk_name".into()), None));
    assert_eq!(embed_params(r#"rel!"inner"(*)"#), (None, Some("inner".into()), None));
    assert_eq!(embed_params("rel!leftovers(*)"), (None, Some("leftovers".into()), None));
}

#[test]
fn embed_join_types() {
    assert_eq!(embed_params("rel!inner(*)"), (None, None, Some(JoinType::Inner)));
    assert_eq!(embed_params("rel!left(*)"), (None, None, Some(JoinType::Left)));
}

#[test]
fn embed_hint_and_join_in_either_order() {
    let want = (Some("a".into()), Some("hint".into()), Some(JoinType::Inner));
    assert_eq!(embed_params("a:rel!hint!inner(*)"), want);
    assert_eq!(embed_params("a:rel!inner!hint(*)"), want);
}

#[test]
fn spread() {
    assert_eq!(
        select("*,...client!fk!inner(name)"),
        vec![
            SelectItem::Star,
            SelectItem::Embed {
                relation: "client".into(),
                alias: None,
                hint: Some("fk".into()),
                join: Some(JoinType::Inner),
                spread: true,
                select: vec![column("name")]
            }
        ]
    );
}

#[test]
fn count_all() {
    assert_eq!(select("count()"), vec![SelectItem::CountAll { alias: None, cast: None }]);
    assert_eq!(
        select("n:count()::int"),
        vec![SelectItem::CountAll { alias: Some("n".into()), cast: Some("int".into()) }]
    );
}

#[test]
fn count_is_not_an_embedding_but_a_column_named_count_is_fine() {
    assert_eq!(select("count"), vec![column("count")]);
    assert!(parse_query(&pairs(&[("select", "count(id)")])).is_err());
}

fn agg(s: &str) -> SelectItem {
    select(s).into_iter().next().unwrap()
}

#[test]
fn aggregates() {
    for (s, a) in [
        ("amount.sum()", Aggregate::Sum),
        ("amount.avg()", Aggregate::Avg),
        ("amount.max()", Aggregate::Max),
        ("amount.min()", Aggregate::Min),
        ("amount.count()", Aggregate::Count),
    ] {
        assert_eq!(
            agg(s),
            SelectItem::Column {
                field: col("amount"),
                alias: None,
                cast: None,
                aggregate: Some(a),
                aggregate_cast: None
            },
            "{s}"
        );
    }
}

#[test]
fn aggregate_with_alias_and_result_cast() {
    assert_eq!(
        agg("total:amount.sum()::int"),
        SelectItem::Column {
            field: col("amount"),
            alias: Some("total".into()),
            cast: None,
            aggregate: Some(Aggregate::Sum),
            aggregate_cast: Some("int".into())
        }
    );
}

#[test]
fn cast_before_aggregate() {
    assert_eq!(
        agg("amount::int.sum()::text"),
        SelectItem::Column {
            field: col("amount"),
            alias: None,
            cast: Some("int".into()),
            aggregate: Some(Aggregate::Sum),
            aggregate_cast: Some("text".into())
        }
    );
}

#[test]
fn aggregates_in_embeddings_and_spreads() {
    match agg("...orders(total:amount.sum(),count())") {
        SelectItem::Embed { spread: true, select, .. } => assert_eq!(select.len(), 2),
        other => panic!("{other:?}"),
    }
}

#[test]
fn type_name_casts() {
    for (s, want) in [
        ("c::varchar(10)", "varchar(10)"),
        ("c::numeric(10, 2)", "numeric(10,2)"),
        ("c::int[]", "int[]"),
        ("c::int[3][]", "int[3][]"),
        ("c::timestamp with time zone", "timestamp with time zone"),
        ("c::timestamp(3)  without time zone", "timestamp(3) without time zone"),
        ("c::double precision", "double precision"),
        ("c::character varying(5)[]", "character varying(5)[]"),
        ("c::_int4", "_int4"),
    ] {
        match agg(s) {
            SelectItem::Column { cast, .. } => assert_eq!(cast.as_deref(), Some(want), "{s}"),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn whitespace_around_items_and_parens() {
    assert_eq!(
        select(" id , name ,\tclients( id , name ) "),
        vec![column("id"), column("name"), embed("clients", vec![column("id"), column("name")])]
    );
    assert_eq!(select("clients (id)"), vec![embed("clients", vec![column("id")])]);
}

#[test]
fn only_first_select_counts() {
    assert_eq!(parse(&[("select", "id"), ("select", "name")]).select, vec![column("id")]);
}

#[test]
fn deep_but_allowed_nesting() {
    let depth = MAX_DEPTH;
    let s = format!("{}id{}", "r(".repeat(depth), ")".repeat(depth));
    let mut items = select(&s);
    for _ in 0..depth {
        match items.pop() {
            Some(SelectItem::Embed { select, .. }) => items = select,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(items, vec![column("id")]);
}
