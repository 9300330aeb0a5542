//! Filters, logic trees and field expressions as SQL. Values are bound; JSON keys are string
//! literals; identifiers are quoted. Operators come from a closed list in the parser's AST.

use crate::rest::parse::{Field, Filter, IsValue, JsonKey, JsonOperation, LogicOp, LogicTree, Operation, Quantifier};
use crate::rest::schema::Table;

use super::{ident, literal, Sql};

/// `"alias"."col"->'a'->>'b'`.
pub fn field_sql(field: &Field, alias: &str) -> String {
    let mut out = format!("{}.{}", ident(alias), ident(&field.column));
    for op in &field.json_path {
        let (arrow, key) = match op {
            JsonOperation::Arrow(k) => ("->", k),
            JsonOperation::DoubleArrow(k) => ("->>", k),
        };
        out.push_str(arrow);
        match key {
            JsonKey::Key(k) => out.push_str(&literal(k)),
            JsonKey::Index(i) => out.push_str(&i.to_string()),
        }
    }
    out
}

/// The output key PostgREST gives a field without alias: the last JSON key, else the column.
pub fn field_key(field: &Field) -> String {
    match field.json_path.last() {
        Some(JsonOperation::Arrow(JsonKey::Key(k)) | JsonOperation::DoubleArrow(JsonKey::Key(k))) => k.clone(),
        _ => field.column.clone(),
    }
}

/// One filter on the level aliased `alias` (whose table, if known, tells column types).
pub fn filter_sql(filter: &Filter, alias: &str, table: Option<&Table>, sql: &mut Sql) -> String {
    let col = field_sql(&filter.field, alias);
    // A column of a domain read through its cast from `text` has its filter values read by the
    // cast's function; not a pattern (`like`, `match`), which is text whatever the column is.
    let parser = table
        .filter(|_| filter.field.json_path.is_empty())
        .and_then(|t| t.column(&filter.field.column))
        .and_then(|c| c.representation.from_text.as_deref());
    let value_of = |sql: &mut Sql, value: &str| match parser {
        Some(function) => format!("{function}({}::text)", sql.bind(value)),
        None => sql.bind(value),
    };
    let expr = match &filter.op {
        Operation::Compare { op, value } if op.is_pattern() => {
            format!("{col} {} {}", op.sql_operator(), sql.bind(value.as_str()))
        }
        Operation::Compare { op, value } => format!("{col} {} {}", op.sql_operator(), value_of(sql, value)),
        Operation::Quantified { op, quantifier, value } => {
            let q = match quantifier {
                Quantifier::Any => "ANY",
                Quantifier::All => "ALL",
            };
            let values = match parser.filter(|_| !op.is_pattern()) {
                // Each element of the array literal through the function.
                Some(function) => {
                    format!("SELECT {function}(pgrst_v) FROM unnest({}::text[]) AS pgrst_v", sql.bind(value.as_str()))
                }
                None => sql.bind(value.as_str()),
            };
            format!("{col} {} {q}({values})", op.sql_operator())
        }
        Operation::In(values) if values.is_empty() => "false".to_string(),
        Operation::In(values) => {
            let placeholders: Vec<String> = values.iter().map(|v| value_of(sql, v)).collect();
            format!("{col} IN ({})", placeholders.join(", "))
        }
        Operation::Is(value) => {
            let what = match value {
                IsValue::Null => "NULL",
                IsValue::NotNull => "NOT NULL",
                IsValue::True => "TRUE",
                IsValue::False => "FALSE",
                IsValue::Unknown => "UNKNOWN",
            };
            format!("{col} IS {what}")
        }
        Operation::Fts { kind, config, value } => {
            let is_tsvector = filter.field.json_path.is_empty()
                && table.and_then(|t| t.column(&filter.field.column)).is_some_and(|c| c.type_name == "tsvector");
            let query = match config {
                Some(cfg) => {
                    format!("{}({}::regconfig, {})", kind.function(), sql.bind(cfg.as_str()), sql.bind(value.as_str()))
                }
                None => format!("{}({})", kind.function(), sql.bind(value.as_str())),
            };
            let vector = match (is_tsvector, config) {
                (true, _) => col,
                (false, Some(cfg)) => format!("to_tsvector({}::regconfig, {col})", sql.bind(cfg.as_str())),
                (false, None) => format!("to_tsvector({col})"),
            };
            format!("{vector} @@ {query}")
        }
    };
    if filter.negated {
        format!("NOT ({expr})")
    } else {
        expr
    }
}

/// A logic tree (`or=(...)`, `and=(...)`, nested, negated).
pub fn logic_sql(tree: &LogicTree, alias: &str, table: Option<&Table>, sql: &mut Sql) -> String {
    match tree {
        LogicTree::Leaf(filter) => filter_sql(filter, alias, table, sql),
        LogicTree::Node { negated, op, children } => {
            let joiner = match op {
                LogicOp::And => " AND ",
                LogicOp::Or => " OR ",
            };
            let parts: Vec<String> = children.iter().map(|c| logic_sql(c, alias, table, sql)).collect();
            let inner = format!("({})", parts.join(joiner));
            if *negated {
                format!("NOT {inner}")
            } else {
                inner
            }
        }
    }
}
