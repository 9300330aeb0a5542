//! The table editor's SQL, pinned: identifiers quoted by one function, every value bound.

use serde_json::{json, Map, Value};

use super::*;

fn col(name: &str, nullable: bool) -> Column {
    Column {
        name: name.into(),
        type_name: "text".into(),
        udt: "text".into(),
        category: "S".into(),
        nullable,
        default: None,
        read_only: false,
        identity: false,
        enum_values: None,
    }
}

fn rel() -> Relation {
    let mut generated = col("total", true);
    generated.read_only = true;
    Relation {
        schema: "public".into(),
        name: "odd\"name".into(),
        kind: "r".into(),
        columns: vec![col("id", false), col("name", true), col("created_at", false), generated],
        primary_key: vec!["id".into()],
    }
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

fn spec(v: Value) -> Select {
    serde_json::from_value(v).unwrap()
}

#[test]
fn the_first_page_is_a_keyset_page_on_the_primary_key() {
    let (built, paging) = select(&rel(), &Select::default()).unwrap();
    assert_eq!(
        built.sql,
        "select row_to_json(t)::text from \"public\".\"odd\"\"name\" t order by t.\"id\" limit $1::text::bigint"
    );
    assert_eq!(built.params, vec!["101"]);
    assert_eq!(paging, Paging::Keyset { keys: vec!["id".into()], desc: false });
}

#[test]
fn a_next_keyset_page_compares_rows_with_bound_values() {
    let s = spec(
        json!({"sort": [{"column": "created_at", "desc": true}], "after": {"created_at": "2026-01-01", "id": 7}, "limit": 50}),
    );
    let (built, paging) = select(&rel(), &s).unwrap();
    assert_eq!(paging, Paging::Keyset { keys: vec!["created_at".into(), "id".into()], desc: true });
    assert_eq!(
        built.sql,
        "select row_to_json(t)::text from \"public\".\"odd\"\"name\" t where (t.\"created_at\", t.\"id\") < \
         ((json_populate_record(null::\"public\".\"odd\"\"name\", $1::text::json)).\"created_at\", \
         (json_populate_record(null::\"public\".\"odd\"\"name\", $1::text::json)).\"id\") \
         order by t.\"created_at\" desc, t.\"id\" desc limit $2::text::bigint"
    );
    assert_eq!(built.params, vec![r#"{"created_at":"2026-01-01","id":7}"#.to_string(), "51".to_string()]);
}

#[test]
fn a_sort_on_a_nullable_column_pages_by_offset() {
    let s = spec(json!({"sort": [{"column": "name"}], "offset": 200, "limit": 100}));
    let (built, paging) = select(&rel(), &s).unwrap();
    assert_eq!(paging, Paging::Offset);
    assert!(built.sql.ends_with("order by t.\"name\" limit $1::text::bigint offset $2::text::bigint"), "{}", built.sql);
    assert_eq!(built.params, vec!["101", "200"]);
}

#[test]
fn mixed_directions_and_tables_without_a_key_page_by_offset() {
    let s = spec(json!({"sort": [{"column": "created_at"}, {"column": "id", "desc": true}]}));
    assert_eq!(select(&rel(), &s).unwrap().1, Paging::Offset);
    let mut view = rel();
    view.primary_key.clear();
    assert_eq!(select(&view, &Select::default()).unwrap().1, Paging::Offset);
}

#[test]
fn every_filter_operator_binds_its_value() {
    let cases = [("eq", "="), ("neq", "<>"), ("lt", "<"), ("lte", "<="), ("gt", ">"), ("gte", ">=")];
    for (op, symbol) in cases {
        let s = spec(json!({"filters": [{"column": "name", "op": op, "value": "x'; drop table t; --"}]}));
        let (built, _) = select(&rel(), &s).unwrap();
        assert!(
            built.sql.contains(&format!(
                "where t.\"name\" {symbol} (json_populate_record(null::\"public\".\"odd\"\"name\", $1::text::json)).\"name\""
            )),
            "{op}: {}",
            built.sql
        );
        assert_eq!(built.params[0], r#"{"name":"x'; drop table t; --"}"#);
        assert!(!built.sql.contains("drop table"));
    }
    let s = spec(
        json!({"filters": [{"column": "name", "op": "ilike", "value": "%a%"}, {"column": "id", "op": "like", "value": 4}]}),
    );
    let (built, _) = select(&rel(), &s).unwrap();
    assert!(
        built.sql.contains("where t.\"name\"::text ilike $1::text and t.\"id\"::text like $2::text"),
        "{}",
        built.sql
    );
    assert_eq!(built.params[..2], ["%a%".to_string(), "4".to_string()]);
    let s = spec(json!({"filters": [{"column": "name", "op": "is_null"}, {"column": "id", "op": "not_null"}]}));
    let (built, _) = select(&rel(), &s).unwrap();
    assert!(built.sql.contains("where t.\"name\" is null and t.\"id\" is not null"));
    assert_eq!(built.params.len(), 1, "only the limit");
}

#[test]
fn unknown_columns_are_refused_wherever_they_appear() {
    let bad = "id\" from pg_shadow --";
    let filter = spec(json!({"filters": [{"column": bad, "op": "eq", "value": 1}]}));
    assert_eq!(select(&rel(), &filter).unwrap_err(), BuildError::UnknownColumn(bad.into()));
    let sort = spec(json!({"sort": [{"column": bad}]}));
    assert!(select(&rel(), &sort).is_err());
    assert!(insert(&rel(), &obj(json!({bad: 1}))).is_err());
    assert!(update(&rel(), &obj(json!({"id": 1})), &obj(json!({bad: 1}))).is_err());
}

#[test]
fn an_insert_takes_the_given_columns_through_one_bound_record() {
    let built = insert(&rel(), &obj(json!({"id": 1, "name": "A"}))).unwrap();
    assert_eq!(
        built.sql,
        "insert into \"public\".\"odd\"\"name\" as t (\"id\", \"name\") select \
         (json_populate_record(null::\"public\".\"odd\"\"name\", $1::text::json)).\"id\", \
         (json_populate_record(null::\"public\".\"odd\"\"name\", $1::text::json)).\"name\" returning row_to_json(t)::text"
    );
    assert_eq!(built.params, vec![r#"{"id":1,"name":"A"}"#]);
    let empty = insert(&rel(), &Map::new()).unwrap();
    assert_eq!(empty.sql, "insert into \"public\".\"odd\"\"name\" as t default values returning row_to_json(t)::text");
    assert_eq!(insert(&rel(), &obj(json!({"total": 3}))).unwrap_err(), BuildError::ReadOnly("total".into()));
}

#[test]
fn an_update_matches_the_whole_primary_key() {
    let built = update(&rel(), &obj(json!({"id": 9})), &obj(json!({"name": null}))).unwrap();
    assert_eq!(
        built.sql,
        "update \"public\".\"odd\"\"name\" as t set \"name\" = \
         (json_populate_record(null::\"public\".\"odd\"\"name\", $1::text::json)).\"name\" where t.\"id\" = \
         (json_populate_record(null::\"public\".\"odd\"\"name\", $2::text::json)).\"id\" returning row_to_json(t)::text"
    );
    assert_eq!(built.params, vec![r#"{"name":null}"#, r#"{"id":9}"#]);
    assert!(matches!(update(&rel(), &obj(json!({})), &obj(json!({"name": 1}))), Err(BuildError::IncompleteKey(_))));
    assert!(matches!(
        update(&rel(), &obj(json!({"id": 1, "name": "x"})), &obj(json!({"name": 1}))),
        Err(BuildError::IncompleteKey(_))
    ));
    let mut view = rel();
    view.primary_key.clear();
    assert!(matches!(
        update(&view, &obj(json!({"id": 1})), &obj(json!({"name": 1}))),
        Err(BuildError::NoPrimaryKey(_))
    ));
}

#[test]
fn a_delete_binds_its_keys_as_one_json_array() {
    let built = delete(&rel(), &[obj(json!({"id": 1})), obj(json!({"id": 2}))]).unwrap();
    assert_eq!(
        built.sql,
        "delete from \"public\".\"odd\"\"name\" as t using json_populate_recordset(null::\"public\".\"odd\"\"name\", \
         $1::text::json) k where t.\"id\" = k.\"id\" returning row_to_json(t)::text"
    );
    assert_eq!(built.params, vec![r#"[{"id":1},{"id":2}]"#]);
    assert!(delete(&rel(), &[]).is_err());
    assert!(delete(&rel(), &[obj(json!({"name": "x"}))]).is_err());
}

#[test]
fn limits_are_clamped() {
    let (built, _) = select(&rel(), &spec(json!({"limit": 1_000_000}))).unwrap();
    assert_eq!(built.params, vec![(MAX_LIMIT + 1).to_string()]);
    let (built, _) = select(&rel(), &spec(json!({"limit": -5}))).unwrap();
    assert_eq!(built.params, vec!["2"]);
}

#[test]
fn the_export_has_every_row_of_the_view_as_text_with_values_bound() {
    let s = spec(
        json!({"filters": [{"column": "name", "op": "ilike", "value": "%a%"}], "sort": [{"column": "created_at", "desc": true}], "limit": 5}),
    );
    let built = export(&rel(), &s).unwrap();
    assert_eq!(
        built.sql,
        "select array[t.\"id\"::text, t.\"name\"::text, t.\"created_at\"::text, t.\"total\"::text]::text[] \
         from \"public\".\"odd\"\"name\" t where t.\"name\"::text ilike $1::text order by t.\"created_at\" desc, t.\"id\""
    );
    assert_eq!(built.params, vec!["%a%"]);
    let unknown = spec(json!({"sort": [{"column": "nope"}]}));
    assert_eq!(export(&rel(), &unknown), Err(BuildError::UnknownColumn("nope".into())));
}

#[test]
fn an_import_inserts_a_batch_from_one_bound_json_array() {
    let built = insert_many(&rel(), &["id".into(), "name".into()], "[{\"id\":\"1\"}]".into()).unwrap();
    assert_eq!(
        built.sql,
        "insert into \"public\".\"odd\"\"name\" (\"id\", \"name\") select r.\"id\", r.\"name\" \
         from json_populate_recordset(null::\"public\".\"odd\"\"name\", $1::text::json) r"
    );
    assert_eq!(built.params, vec!["[{\"id\":\"1\"}]"]);
    assert_eq!(insert_many(&rel(), &["total".into()], "[]".into()), Err(BuildError::ReadOnly("total".into())));
    assert_eq!(insert_many(&rel(), &["x".into()], "[]".into()), Err(BuildError::UnknownColumn("x".into())));
}

#[test]
fn bytes_are_bound_as_bytea_after_the_key_and_only_into_a_bytea_column() {
    let mut r = rel();
    let mut blob = col("blob", true);
    blob.udt = "bytea".into();
    r.columns.push(blob);
    let key = obj(json!({"id": "7"}));
    let record = "(json_populate_record(null::\"public\".\"odd\"\"name\", $1::text::json))";
    let built = update_bytes(&r, &key, "blob").unwrap();
    assert_eq!(
        built.sql,
        format!(
            "update \"public\".\"odd\"\"name\" as t set \"blob\" = $2::bytea where t.\"id\" = {record}.\"id\" \
             returning row_to_json(t)::text"
        )
    );
    assert_eq!(built.params, vec!["{\"id\":\"7\"}"]);
    let read = select_bytes(&r, &key, "blob").unwrap();
    assert_eq!(
        read.sql,
        format!("select t.\"blob\" from \"public\".\"odd\"\"name\" as t where t.\"id\" = {record}.\"id\"")
    );
    assert_eq!(update_bytes(&r, &key, "name"), Err(BuildError::Invalid("column \"name\" is not bytea".into())));
    assert_eq!(select_bytes(&r, &key, "nope"), Err(BuildError::UnknownColumn("nope".into())));
    assert_eq!(update_bytes(&r, &obj(json!({})), "blob"), Err(BuildError::IncompleteKey("id".into())));
}
