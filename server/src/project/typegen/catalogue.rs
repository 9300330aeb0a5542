//! What the type generator reads of the database: schemas, relations, columns, foreign keys (and
//! the views' columns they reach, as PostgREST follows them), functions and types, read from the
//! system catalogues with the same rules as postgres-meta's introspection (the CLI's generator),
//! so that the same database gives the same model.
//!
//! It only reads; it knows nothing of TypeScript.

use std::collections::HashSet;

use tokio_postgres::Client;

use super::queries::{COLUMNS, FOREIGN_KEYS, FUNCTIONS, RELATIONS, SCHEMAS, TYPES, VIEW_KEY_COLUMNS};
use super::views::{through_views, KeyDep};

/// A table, foreign table, view or materialized view.
#[derive(Debug, Clone)]
pub struct Relation {
    pub id: i64,
    pub schema: String,
    pub name: String,
    /// `r`/`p` table, `f` foreign table, `v` view, `m` materialized view.
    pub kind: char,
    /// A view that takes inserts, updates and deletes.
    pub updatable: bool,
}

#[derive(Debug, Clone)]
pub struct Column {
    pub table_id: i64,
    pub name: String,
    /// The type's name (the base type's, for a domain): `int4`, `_text`, an enum's name…
    pub format: String,
    pub is_identity: bool,
    /// `generated always as identity`.
    pub identity_always: bool,
    pub is_nullable: bool,
    pub is_updatable: bool,
    pub has_default: bool,
}

/// A foreign key, or one a view exposes.
#[derive(Debug, Clone)]
pub struct Relationship {
    pub foreign_key_name: String,
    pub schema: String,
    pub relation: String,
    pub columns: Vec<String>,
    pub is_one_to_one: bool,
    pub referenced_schema: String,
    pub referenced_relation: String,
    pub referenced_columns: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ArgMode {
    In,
    Out,
    InOut,
    Variadic,
    Table,
}

#[derive(Debug, Clone)]
pub struct Arg {
    pub mode: ArgMode,
    pub name: String,
    pub type_id: i64,
    pub has_default: bool,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub schema: String,
    pub name: String,
    pub args: Vec<Arg>,
    /// `pg_get_function_arguments`.
    pub argument_types: String,
    /// `pg_get_function_result`.
    pub return_type: String,
    pub return_type_id: i64,
    pub return_type_relation_id: Option<i64>,
    pub is_set_returning: bool,
    /// The `rows` estimate of a set-returning function.
    pub prorows: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct PgType {
    pub id: i64,
    pub name: String,
    pub schema: String,
    /// `format_type`: the name as written where the search path does not reach it (`s.t`).
    pub format: String,
    pub enums: Vec<String>,
    /// A composite type's attributes: name and type.
    pub attributes: Vec<(String, i64)>,
    pub type_relation_id: Option<i64>,
}

/// Everything the generator reads.
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    /// The schemas asked for that exist (and the user may use).
    pub schemas: Vec<String>,
    pub relations: Vec<Relation>,
    pub columns: Vec<Column>,
    pub relationships: Vec<Relationship>,
    pub functions: Vec<Function>,
    pub types: Vec<PgType>,
}

fn strings(value: &serde_json::Value) -> Vec<String> {
    value.as_array().map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

fn mode(code: &str) -> ArgMode {
    match code {
        "i" => ArgMode::In,
        "o" => ArgMode::Out,
        "b" => ArgMode::InOut,
        "v" => ArgMode::Variadic,
        _ => ArgMode::Table,
    }
}

/// Read the catalogue of `schemas` (and what they reference).
pub async fn read(client: &Client, schemas: &[String]) -> Result<Catalogue, tokio_postgres::Error> {
    let asked = schemas;
    let present: HashSet<String> =
        client.query(SCHEMAS, &[&asked]).await?.iter().map(|r| r.get::<_, String>(0)).collect();
    let schemas = asked.iter().filter(|s| present.contains(*s)).cloned().collect();
    let relations = client
        .query(RELATIONS, &[&asked])
        .await?
        .iter()
        .map(|r| Relation {
            id: r.get(0),
            schema: r.get(1),
            name: r.get(2),
            kind: r.get::<_, String>(3).chars().next().unwrap_or('r'),
            updatable: r.get(4),
        })
        .collect();
    let columns = client
        .query(COLUMNS, &[&asked])
        .await?
        .iter()
        .map(|r| Column {
            table_id: r.get(0),
            name: r.get(1),
            format: r.get(2),
            is_identity: r.get(3),
            identity_always: r.get(4),
            is_nullable: r.get(5),
            is_updatable: r.get(6),
            has_default: r.get(7),
        })
        .collect();
    let tables: Vec<Relationship> = client
        .query(FOREIGN_KEYS, &[])
        .await?
        .iter()
        .map(|r| Relationship {
            foreign_key_name: r.get(0),
            schema: r.get(1),
            relation: r.get(2),
            columns: strings(&r.get(3)),
            referenced_schema: r.get(4),
            referenced_relation: r.get(5),
            referenced_columns: strings(&r.get(6)),
            is_one_to_one: r.get(7),
        })
        .collect();
    let key_deps: Vec<KeyDep> = client
        .query(VIEW_KEY_COLUMNS, &[])
        .await?
        .iter()
        .map(|r| KeyDep {
            table_schema: r.get(0),
            table_name: r.get(1),
            view_schema: r.get(2),
            view_name: r.get(3),
            constraint_name: r.get(4),
            constraint_type: r.get(5),
            columns: r
                .get::<_, serde_json::Value>(6)
                .as_array()
                .map(|pairs| pairs.iter().map(|pair| strings(&pair[1])).collect())
                .unwrap_or_default(),
        })
        .collect();
    let mut relationships = tables.clone();
    relationships.extend(through_views(&tables, &key_deps));
    let functions = client
        .query(FUNCTIONS, &[&asked])
        .await?
        .iter()
        .map(|r| {
            let modes: Vec<String> = r.get(2);
            let names: Vec<String> = r.get(3);
            let types: Vec<i64> = r.get(4);
            let nargs: i32 = r.get(5);
            let ndefaults: i32 = r.get(6);
            let args = (0..modes.len().max(names.len()).max(types.len()))
                .map(|i| Arg {
                    mode: modes.get(i).map(|m| mode(m)).unwrap_or(ArgMode::Table),
                    name: names.get(i).cloned().unwrap_or_default(),
                    type_id: types.get(i).copied().unwrap_or(0),
                    // The defaults are the last of the input arguments, counted over all of them
                    // by position (as postgres-meta counts them).
                    has_default: (i as i32) >= nargs - ndefaults && (i as i32) < nargs,
                })
                .collect();
            Function {
                schema: r.get(0),
                name: r.get(1),
                args,
                argument_types: r.get(7),
                return_type: r.get(8),
                return_type_id: r.get(9),
                return_type_relation_id: r.get(10),
                is_set_returning: r.get(11),
                prorows: r.get(12),
            }
        })
        .filter(|f: &Function| f.return_type != "trigger" && f.return_type != "event_trigger")
        .collect();
    let types = client
        .query(TYPES, &[])
        .await?
        .iter()
        .map(|r| PgType {
            id: r.get(0),
            name: r.get(1),
            schema: r.get::<_, Option<String>>(2).unwrap_or_default(),
            format: r.get(3),
            enums: r.get(4),
            attributes: r
                .get::<_, serde_json::Value>(5)
                .as_array()
                .map(|attrs| {
                    attrs
                        .iter()
                        .map(|a| (a[0].as_str().unwrap_or_default().to_string(), a[1].as_i64().unwrap_or(0)))
                        .collect()
                })
                .unwrap_or_default(),
            type_relation_id: r.get(6),
        })
        .collect();
    Ok(Catalogue { schemas, relations, columns, relationships, functions, types })
}
