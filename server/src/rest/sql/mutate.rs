//! INSERT (and upsert), UPDATE and DELETE as SQL. The request body is bound once as JSON and
//! expanded by Postgres (`json_populate_recordset`); column names come from the schema cache.
//! The caller adds the `RETURNING` list and makes the statement a CTE named `pgrst_mut`.

use crate::rest::parse::{Filter, LogicTree};
use crate::rest::schema::Table;

use super::filter::{filter_sql, logic_sql};
use super::{ident, literal, Sql};

/// Alias of the mutated table inside UPDATE and DELETE.
pub const TARGET: &str = "pgrst_0";

/// What to do with rows that clash with `on_conflict` columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conflict {
    None,
    Merge(Vec<String>),
    Ignore(Vec<String>),
}

/// INSERT of the JSON array bound as `body` into `columns`.
pub fn insert(
    table: &Table,
    columns: &[String],
    body: String,
    missing_default: bool,
    conflict: &Conflict,
    sql: &mut Sql,
) -> String {
    let t = table.name.sql();
    let body = sql.bind(body);
    let cols: Vec<String> = columns.iter().map(|c| ident(c)).collect();
    let source = if missing_default {
        // Each column's default is evaluated once for every row, whether the row gives the
        // column or not, as PostgREST does (so an identity or serial column draws a value per
        // row): the inner query computes them, kept apart by `OFFSET 0`.
        let mut defaults = Vec::new();
        let exprs: Vec<String> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                // No default: a null of the column's own type (a bare NULL would be text, which a
                // CASE cannot match with the column's type).
                let default = table
                    .column(c)
                    .and_then(|col| col.default.clone())
                    .unwrap_or_else(|| format!("(json_populate_record(NULL::{t}, '{{}}'::json)).{}", ident(c)));
                defaults.push(format!("{default} AS pgrst_d{i}"));
                format!(
                    "CASE WHEN pgrst_body.j::jsonb ? {key} THEN (json_populate_record(NULL::{t}, pgrst_body.j)).{col} ELSE pgrst_body.pgrst_d{i} END",
                    key = literal(c),
                    col = ident(c)
                )
            })
            .collect();
        format!(
            "SELECT {} FROM (SELECT pgrst_elems.j, {} FROM json_array_elements({body}::json) AS pgrst_elems(j) OFFSET 0) AS pgrst_body",
            exprs.join(", "),
            defaults.join(", ")
        )
    } else {
        format!("SELECT {} FROM json_populate_recordset(NULL::{t}, {body}::json) AS pgrst_body", cols.join(", "))
    };
    let mut out = if columns.is_empty() {
        // `[{}]`-like bodies: one row of defaults per element.
        format!("INSERT INTO {t} SELECT FROM json_array_elements({body}::json)")
    } else {
        format!("INSERT INTO {t} ({}) {source}", cols.join(", "))
    };
    match conflict {
        Conflict::None => {}
        Conflict::Ignore(keys) => {
            if keys.is_empty() {
                out.push_str(" ON CONFLICT DO NOTHING");
            } else {
                let keys: Vec<String> = keys.iter().map(|k| ident(k)).collect();
                out.push_str(&format!(" ON CONFLICT ({}) DO NOTHING", keys.join(", ")));
            }
        }
        Conflict::Merge(keys) => {
            let key_list: Vec<String> = keys.iter().map(|k| ident(k)).collect();
            let sets: Vec<String> = columns.iter().map(|c| format!("{} = EXCLUDED.{}", ident(c), ident(c))).collect();
            if sets.is_empty() {
                out.push_str(&format!(" ON CONFLICT ({}) DO NOTHING", key_list.join(", ")));
            } else {
                out.push_str(&format!(" ON CONFLICT ({}) DO UPDATE SET {}", key_list.join(", "), sets.join(", ")));
            }
        }
    }
    out
}

/// UPDATE of `columns` from the JSON object bound as `body`, on rows matching the filters.
pub fn update(
    table: &Table,
    columns: &[String],
    body: String,
    filters: &[Filter],
    logic: &[LogicTree],
    sql: &mut Sql,
) -> String {
    let t = table.name.sql();
    let body = sql.bind(body);
    let sets: Vec<String> = columns.iter().map(|c| format!("{} = pgrst_body.{}", ident(c), ident(c))).collect();
    let mut out = format!(
        "UPDATE {t} AS {a} SET {} FROM (SELECT * FROM json_populate_record(NULL::{t}, {body}::json)) AS pgrst_body",
        sets.join(", "),
        a = ident(TARGET)
    );
    push_where(&mut out, table, filters, logic, sql);
    out
}

/// DELETE of rows matching the filters.
pub fn delete(table: &Table, filters: &[Filter], logic: &[LogicTree], sql: &mut Sql) -> String {
    let mut out = format!("DELETE FROM {} AS {}", table.name.sql(), ident(TARGET));
    push_where(&mut out, table, filters, logic, sql);
    out
}

fn push_where(out: &mut String, table: &Table, filters: &[Filter], logic: &[LogicTree], sql: &mut Sql) {
    let mut wheres: Vec<String> = filters.iter().map(|f| filter_sql(f, TARGET, Some(table), sql)).collect();
    wheres.extend(logic.iter().map(|l| logic_sql(l, TARGET, Some(table), sql)));
    if !wheres.is_empty() {
        out.push_str(" WHERE ");
        out.push_str(&wheres.join(" AND "));
    }
}
