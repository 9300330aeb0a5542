//! INSERT (and upsert), UPDATE and DELETE as SQL. The request body is bound once as JSON and
//! expanded by Postgres (`json_populate_recordset`); column names come from the schema cache.
//! A field whose column is of a domain with a cast from `json` is read by the cast's function
//! instead (PostgREST's domain representations).
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
    let parsed = parsed_columns(table, columns);
    let source = if missing_default {
        // Each column's default is evaluated once for every row, whether the row gives the
        // column or not, as PostgREST does (so an identity or serial column draws a value per
        // row): the inner query computes them, kept apart by `OFFSET 0`.
        let mut defaults = Vec::new();
        let populated = format!("json_populate_record(NULL::{t}, {})", without(&parsed, "pgrst_body.j"));
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
                let given = match parser(&parsed, c) {
                    Some(function) => format!("{function}({})", json_field("pgrst_body.j", c)),
                    None => format!("({populated}).{}", ident(c)),
                };
                format!(
                    "CASE WHEN pgrst_body.j::jsonb ? {key} THEN {given} ELSE pgrst_body.pgrst_d{i} END",
                    key = literal(c)
                )
            })
            .collect();
        format!(
            "SELECT {} FROM (SELECT pgrst_elems.j, {} FROM json_array_elements({body}::json) AS pgrst_elems(j) OFFSET 0) AS pgrst_body",
            exprs.join(", "),
            defaults.join(", ")
        )
    } else if !parsed.is_empty() {
        // Fields read through their domain's cast from `json` are taken from each element
        // before the others are read as the table's row type.
        let exprs: Vec<String> = columns
            .iter()
            .map(|c| match parser(&parsed, c) {
                Some(function) => format!("{function}({})", json_field("pgrst_elems.j", c)),
                None => format!("pgrst_body.{}", ident(c)),
            })
            .collect();
        format!(
            "SELECT {} FROM json_array_elements({body}::json) AS pgrst_elems(j), \
             LATERAL json_populate_record(NULL::{t}, {}) AS pgrst_body",
            exprs.join(", "),
            without(&parsed, "pgrst_elems.j")
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
    let body = format!("{}::json", sql.bind(body));
    let parsed = parsed_columns(table, columns);
    let sets: Vec<String> = columns
        .iter()
        .map(|c| match parser(&parsed, c) {
            Some(function) => format!("{} = {function}({})", ident(c), json_field(&body, c)),
            None => format!("{} = pgrst_body.{}", ident(c), ident(c)),
        })
        .collect();
    let mut out = format!(
        "UPDATE {t} AS {a} SET {} FROM (SELECT * FROM json_populate_record(NULL::{t}, {})) AS pgrst_body",
        sets.join(", "),
        without(&parsed, &body),
        a = ident(TARGET)
    );
    push_where(&mut out, table, filters, logic, sql);
    out
}

/// The written columns of a domain read through its cast from `json`, with the cast's function.
fn parsed_columns<'t>(table: &'t Table, columns: &[String]) -> Vec<(&'t str, &'t str)> {
    columns
        .iter()
        .filter_map(|c| table.column(c))
        .filter_map(|c| c.representation.from_json.as_deref().map(|f| (c.name.as_str(), f)))
        .collect()
}

fn parser<'t>(parsed: &[(&'t str, &'t str)], column: &str) -> Option<&'t str> {
    parsed.iter().find(|(c, _)| *c == column).map(|(_, f)| *f)
}

/// The field `key` of the JSON object `object`, SQL's null for JSON's (as `json_to_record`
/// reads a `json` field), for the function of the field's domain.
fn json_field(object: &str, key: &str) -> String {
    let field = format!("{object} -> {}", literal(key));
    format!("(CASE WHEN json_typeof({field}) <> 'null' THEN {field} END)")
}

/// The JSON object `object` without the fields read through their functions, so that reading
/// the rest as the table's row type does not read them as the domain's base type.
fn without(parsed: &[(&str, &str)], object: &str) -> String {
    if parsed.is_empty() {
        return object.to_string();
    }
    let keys: Vec<String> = parsed.iter().map(|(c, _)| literal(c)).collect();
    format!("({object}::jsonb - ARRAY[{}]::text[])::json", keys.join(", "))
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
