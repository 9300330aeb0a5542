//! The SQL of the table editor, built as text plus bound values: identifiers come from the
//! catalog ([`Relation`]) and are quoted by `db::quote_ident` only; every value the operator
//! typed is a bound parameter. A value reaches its column's type through
//! `json_populate_record(null::<relation>, $n::text::json)`, so Postgres converts it with the
//! column's own input function (enums, dates, uuid, arrays, json) and no type name is ever
//! written into the statement.
//!
//! Pages are keyset pages (`(a, b) > (…)` on the sort columns, the primary key appended) when
//! every sort column is `not null` and they go one way; otherwise offset pages. Nothing here
//! touches the database.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::db::quote_ident;

/// A column of a table or view, as the catalog describes it.
#[derive(Debug, Clone, Serialize)]
pub struct Column {
    pub name: String,
    /// `format_type`: `integer`, `character varying(20)`, `text[]`, `public.status`...
    pub type_name: String,
    /// The type's own name (`int4`, `_text`, `status`).
    pub udt: String,
    /// `pg_type.typcategory`: `N` numbers, `S` strings, `B` booleans, `D` dates, `U` uuid/json,
    /// `A` arrays, `E` enums...
    pub category: String,
    pub nullable: bool,
    pub default: Option<String>,
    /// Generated or `generated always as identity`: not written by the editor.
    pub read_only: bool,
    /// An identity column (`always` or `by default`): a duplicated row leaves it to its sequence.
    pub identity: bool,
    /// An enum's labels, in order.
    pub enum_values: Option<Vec<String>>,
}

/// A table, view or materialized view with its columns and primary key.
#[derive(Debug, Clone, Serialize)]
pub struct Relation {
    pub schema: String,
    pub name: String,
    /// `pg_class.relkind`: `r` table, `p` partitioned table, `v` view, `m` materialized view, `f` foreign table.
    pub kind: String,
    pub columns: Vec<Column>,
    pub primary_key: Vec<String>,
}

/// A statement and its values, each bound as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    pub sql: String,
    pub params: Vec<String>,
}

impl Built {
    /// The values as tokio-postgres parameters.
    pub fn param_refs(&self) -> Vec<&(dyn tokio_postgres::types::ToSql + Sync)> {
        self.params.iter().map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync)).collect()
    }

    fn bind(&mut self, value: String) -> String {
        self.params.push(value);
        format!("${}::text", self.params.len())
    }
}

/// A filter's operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Eq,
    Neq,
    Lt,
    Lte,
    Gt,
    Gte,
    Like,
    Ilike,
    IsNull,
    NotNull,
}

/// `column op value`.
#[derive(Debug, Clone, Deserialize)]
pub struct Filter {
    pub column: String,
    pub op: Op,
    #[serde(default)]
    pub value: Value,
}

/// One sort key.
#[derive(Debug, Clone, Deserialize)]
pub struct Sort {
    pub column: String,
    #[serde(default)]
    pub desc: bool,
}

/// What a page of rows asks for.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Select {
    #[serde(default)]
    pub filters: Vec<Filter>,
    #[serde(default)]
    pub sort: Vec<Sort>,
    pub limit: Option<i64>,
    /// The keyset cursor: the previous page's last values of [`Page::keys`].
    pub after: Option<Map<String, Value>>,
    pub offset: Option<i64>,
}

/// How the next page is asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Paging {
    /// By the values of these columns in the last row.
    Keyset {
        keys: Vec<String>,
        desc: bool,
    },
    Offset,
}

/// The largest page.
pub const MAX_LIMIT: i64 = 1000;

/// Why a request cannot be turned into SQL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("unknown column {0:?}")]
    UnknownColumn(String),
    #[error("column {0:?} cannot be written")]
    ReadOnly(String),
    #[error("{0} has no primary key: rows cannot be told apart")]
    NoPrimaryKey(String),
    #[error("the key must give every primary key column ({0})")]
    IncompleteKey(String),
    #[error("{0}")]
    Invalid(String),
}

impl Relation {
    /// `"schema"."name"`.
    pub fn qualified(&self) -> String {
        format!("{}.{}", quote_ident(&self.schema), quote_ident(&self.name))
    }

    fn column(&self, name: &str) -> Result<&Column, BuildError> {
        self.columns.iter().find(|c| c.name == name).ok_or_else(|| BuildError::UnknownColumn(name.to_string()))
    }

    /// `(json_populate_record(null::"s"."t", $n::text::json))`: a row of this relation from a
    /// bound JSON object, whose fields are the object's values in the columns' types.
    fn record(&self, built: &mut Built, object: &Map<String, Value>) -> String {
        let param = built.bind(Value::Object(object.clone()).to_string());
        format!("(json_populate_record(null::{}, {param}::json))", self.qualified())
    }

    fn require_key(&self) -> Result<(), BuildError> {
        if self.primary_key.is_empty() {
            return Err(BuildError::NoPrimaryKey(format!("{}.{}", self.schema, self.name)));
        }
        Ok(())
    }

    /// `t."a" = (record)."a" and ...` for every primary-key column, from `key`.
    fn key_match(&self, built: &mut Built, key: &Map<String, Value>) -> Result<String, BuildError> {
        self.require_key()?;
        if self.primary_key.iter().any(|k| !key.contains_key(k)) || key.len() != self.primary_key.len() {
            return Err(BuildError::IncompleteKey(self.primary_key.join(", ")));
        }
        let record = self.record(built, key);
        Ok(self
            .primary_key
            .iter()
            .map(|k| format!("t.{c} = {record}.{c}", c = quote_ident(k)))
            .collect::<Vec<_>>()
            .join(" and "))
    }
}

/// How `select` pages: keyset on the sort columns plus the primary key when that is sound.
pub fn paging(rel: &Relation, sort: &[Sort]) -> Paging {
    if rel.primary_key.is_empty() {
        return Paging::Offset;
    }
    let desc = sort.first().is_some_and(|s| s.desc);
    if sort.iter().any(|s| s.desc != desc) {
        return Paging::Offset;
    }
    let mut keys: Vec<String> = sort.iter().map(|s| s.column.clone()).collect();
    let all_not_null = keys.iter().all(|k| rel.columns.iter().any(|c| &c.name == k && !c.nullable));
    if !all_not_null {
        return Paging::Offset;
    }
    for k in &rel.primary_key {
        if !keys.contains(k) {
            keys.push(k.clone());
        }
    }
    Paging::Keyset { keys, desc }
}

/// The `where` conditions of `filters`, their values bound in `built`.
fn conditions(rel: &Relation, filters: &[Filter], built: &mut Built) -> Result<Vec<String>, BuildError> {
    let mut conditions = Vec::new();
    for f in filters {
        rel.column(&f.column)?;
        let col = format!("t.{}", quote_ident(&f.column));
        let cond = match f.op {
            Op::IsNull => format!("{col} is null"),
            Op::NotNull => format!("{col} is not null"),
            Op::Like | Op::Ilike => {
                let pattern = match &f.value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let op = if f.op == Op::Like { "like" } else { "ilike" };
                format!("{col}::text {op} {}", built.bind(pattern))
            }
            op => {
                let mut object = Map::new();
                object.insert(f.column.clone(), f.value.clone());
                let record = rel.record(built, &object);
                let symbol = match op {
                    Op::Eq => "=",
                    Op::Neq => "<>",
                    Op::Lt => "<",
                    Op::Lte => "<=",
                    Op::Gt => ">",
                    _ => ">=",
                };
                format!("{col} {symbol} {record}.{}", quote_ident(&f.column))
            }
        };
        conditions.push(cond);
    }
    Ok(conditions)
}

/// One page of rows, each as `row_to_json` text, one more than the limit (to tell whether a
/// next page exists).
pub fn select(rel: &Relation, spec: &Select) -> Result<(Built, Paging), BuildError> {
    let mut built = Built { sql: String::new(), params: Vec::new() };
    let mut conditions = conditions(rel, &spec.filters, &mut built)?;
    for s in &spec.sort {
        rel.column(&s.column)?;
    }
    let paging = paging(rel, &spec.sort);
    let order: Vec<(String, bool)> = match &paging {
        Paging::Keyset { keys, desc } => keys.iter().map(|k| (k.clone(), *desc)).collect(),
        Paging::Offset => spec.sort.iter().map(|s| (s.column.clone(), s.desc)).collect(),
    };
    if let (Paging::Keyset { keys, desc }, Some(after)) = (&paging, &spec.after) {
        if keys.iter().any(|k| !after.contains_key(k)) {
            return Err(BuildError::Invalid(format!("the cursor must give {}", keys.join(", "))));
        }
        let record = rel.record(&mut built, after);
        let left: Vec<String> = keys.iter().map(|k| format!("t.{}", quote_ident(k))).collect();
        let right: Vec<String> = keys.iter().map(|k| format!("{record}.{}", quote_ident(k))).collect();
        let symbol = if *desc { "<" } else { ">" };
        conditions.push(format!("({}) {symbol} ({})", left.join(", "), right.join(", ")));
    }
    let limit = spec.limit.unwrap_or(100).clamp(1, MAX_LIMIT);
    let mut sql = format!("select row_to_json(t)::text from {} t", rel.qualified());
    if !conditions.is_empty() {
        sql.push_str(" where ");
        sql.push_str(&conditions.join(" and "));
    }
    if !order.is_empty() {
        let keys: Vec<String> =
            order.iter().map(|(k, desc)| format!("t.{}{}", quote_ident(k), if *desc { " desc" } else { "" })).collect();
        sql.push_str(" order by ");
        sql.push_str(&keys.join(", "));
    }
    let limit_param = built.bind((limit + 1).to_string());
    sql.push_str(&format!(" limit {limit_param}::bigint"));
    if paging == Paging::Offset {
        let offset = spec.offset.unwrap_or(0).max(0);
        let offset_param = built.bind(offset.to_string());
        sql.push_str(&format!(" offset {offset_param}::bigint"));
    }
    built.sql = sql;
    Ok((built, paging))
}

/// Every row of the filtered, sorted view (no page), each as an array of its columns' text
/// (`col::text`, Postgres's own output of the type, as `copy ... csv` writes it): the CSV export.
pub fn export(rel: &Relation, spec: &Select) -> Result<Built, BuildError> {
    let mut built = Built { sql: String::new(), params: Vec::new() };
    let conditions = conditions(rel, &spec.filters, &mut built)?;
    let mut order = Vec::new();
    for s in &spec.sort {
        rel.column(&s.column)?;
        order.push(format!("t.{}{}", quote_ident(&s.column), if s.desc { " desc" } else { "" }));
    }
    for k in &rel.primary_key {
        if !spec.sort.iter().any(|s| &s.column == k) {
            order.push(format!("t.{}", quote_ident(k)));
        }
    }
    let cols: Vec<String> = rel.columns.iter().map(|c| format!("t.{}::text", quote_ident(&c.name))).collect();
    let mut sql = format!("select array[{}]::text[] from {} t", cols.join(", "), rel.qualified());
    if !conditions.is_empty() {
        sql.push_str(" where ");
        sql.push_str(&conditions.join(" and "));
    }
    if !order.is_empty() {
        sql.push_str(" order by ");
        sql.push_str(&order.join(", "));
    }
    built.sql = sql;
    Ok(built)
}

fn writable<'a>(rel: &Relation, values: &'a Map<String, Value>) -> Result<Vec<&'a String>, BuildError> {
    let mut names = Vec::new();
    for name in values.keys() {
        if rel.column(name)?.read_only {
            return Err(BuildError::ReadOnly(name.clone()));
        }
        names.push(name);
    }
    Ok(names)
}

/// Insert one row of `values` (columns left out take their defaults); returns it as JSON text.
pub fn insert(rel: &Relation, values: &Map<String, Value>) -> Result<Built, BuildError> {
    let names = writable(rel, values)?;
    let mut built = Built { sql: String::new(), params: Vec::new() };
    if names.is_empty() {
        built.sql = format!("insert into {} as t default values returning row_to_json(t)::text", rel.qualified());
        return Ok(built);
    }
    let cols: Vec<String> = names.iter().map(|n| quote_ident(n)).collect();
    let record = rel.record(&mut built, values);
    let picked: Vec<String> = cols.iter().map(|c| format!("{record}.{c}")).collect();
    built.sql = format!(
        "insert into {} as t ({}) select {} returning row_to_json(t)::text",
        rel.qualified(),
        cols.join(", "),
        picked.join(", ")
    );
    Ok(built)
}

/// Insert the rows of `rows` (a JSON array of objects keyed by `columns`), converted to the
/// columns' types by `json_populate_recordset`: the CSV import, one bound value per batch.
pub fn insert_many(rel: &Relation, columns: &[String], rows: String) -> Result<Built, BuildError> {
    if columns.is_empty() {
        return Err(BuildError::Invalid("no column to import".into()));
    }
    for name in columns {
        if rel.column(name)?.read_only {
            return Err(BuildError::ReadOnly(name.clone()));
        }
    }
    let mut built = Built { sql: String::new(), params: Vec::new() };
    let param = built.bind(rows);
    let cols: Vec<String> = columns.iter().map(|n| quote_ident(n)).collect();
    let picked: Vec<String> = cols.iter().map(|c| format!("r.{c}")).collect();
    built.sql = format!(
        "insert into {} ({}) select {} from json_populate_recordset(null::{}, {param}::json) r",
        rel.qualified(),
        cols.join(", "),
        picked.join(", "),
        rel.qualified()
    );
    Ok(built)
}

/// Set `values` on the row whose primary key is `key`; returns it as JSON text.
pub fn update(rel: &Relation, key: &Map<String, Value>, values: &Map<String, Value>) -> Result<Built, BuildError> {
    let names = writable(rel, values)?;
    if names.is_empty() {
        return Err(BuildError::Invalid("nothing to change".into()));
    }
    let mut built = Built { sql: String::new(), params: Vec::new() };
    let record = rel.record(&mut built, values);
    let sets: Vec<String> = names.iter().map(|n| format!("{c} = {record}.{c}", c = quote_ident(n))).collect();
    let matched = rel.key_match(&mut built, key)?;
    built.sql = format!(
        "update {} as t set {} where {matched} returning row_to_json(t)::text",
        rel.qualified(),
        sets.join(", ")
    );
    Ok(built)
}

/// The bytea column `name` of `rel`, or why it is not one.
fn bytea_column<'a>(rel: &'a Relation, name: &str) -> Result<&'a Column, BuildError> {
    let column = rel.column(name)?;
    if column.udt != "bytea" {
        return Err(BuildError::Invalid(format!("column {name:?} is not bytea")));
    }
    Ok(column)
}

/// Set the bytea column `column` of the row whose primary key is `key` to bytes the caller
/// binds **after** [`Built::params`], as `$n::bytea` (n = params + 1); returns the row as JSON text.
pub fn update_bytes(rel: &Relation, key: &Map<String, Value>, column: &str) -> Result<Built, BuildError> {
    if bytea_column(rel, column)?.read_only {
        return Err(BuildError::ReadOnly(column.to_string()));
    }
    let mut built = Built { sql: String::new(), params: Vec::new() };
    let matched = rel.key_match(&mut built, key)?;
    built.sql = format!(
        "update {} as t set {} = ${}::bytea where {matched} returning row_to_json(t)::text",
        rel.qualified(),
        quote_ident(column),
        built.params.len() + 1
    );
    Ok(built)
}

/// The bytes of the bytea column `column` in the row whose primary key is `key`.
pub fn select_bytes(rel: &Relation, key: &Map<String, Value>, column: &str) -> Result<Built, BuildError> {
    bytea_column(rel, column)?;
    let mut built = Built { sql: String::new(), params: Vec::new() };
    let matched = rel.key_match(&mut built, key)?;
    built.sql = format!("select t.{} from {} as t where {matched}", quote_ident(column), rel.qualified());
    Ok(built)
}

/// Delete the rows whose primary keys are `keys`; returns them as JSON text.
pub fn delete(rel: &Relation, keys: &[Map<String, Value>]) -> Result<Built, BuildError> {
    rel.require_key()?;
    if keys.is_empty() {
        return Err(BuildError::Invalid("no row to delete".into()));
    }
    if keys.iter().any(|k| rel.primary_key.iter().any(|c| !k.contains_key(c)) || k.len() != rel.primary_key.len()) {
        return Err(BuildError::IncompleteKey(rel.primary_key.join(", ")));
    }
    let mut built = Built { sql: String::new(), params: Vec::new() };
    let list = Value::Array(keys.iter().cloned().map(Value::Object).collect()).to_string();
    let param = built.bind(list);
    let matched: Vec<String> = rel.primary_key.iter().map(|k| format!("t.{c} = k.{c}", c = quote_ident(k))).collect();
    built.sql = format!(
        "delete from {} as t using json_populate_recordset(null::{}, {param}::json) k where {} \
         returning row_to_json(t)::text",
        rel.qualified(),
        rel.qualified(),
        matched.join(" and ")
    );
    Ok(built)
}

#[cfg(test)]
mod tests;
