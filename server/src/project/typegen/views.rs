//! The relationships a view inherits from the foreign keys of the tables behind it (view to
//! table, table to view, view to view), as PostgREST and postgres-meta derive them from the
//! key columns each view shows (`queries::VIEW_KEY_COLUMNS`).

use super::catalogue::Relationship;

/// A key whose every column a view shows: per key column (in the key's order), the view's
/// columns that show it.
pub(super) struct KeyDep {
    pub(super) table_schema: String,
    pub(super) table_name: String,
    pub(super) view_schema: String,
    pub(super) view_name: String,
    pub(super) constraint_name: String,
    pub(super) constraint_type: String,
    pub(super) columns: Vec<Vec<String>>,
}

/// Every way of picking one view column per key column (a view may show one twice).
fn picks(columns: &[Vec<String>]) -> Vec<Vec<String>> {
    columns.iter().fold(vec![vec![]], |acc, options| {
        acc.iter()
            .flat_map(|prefix| {
                options.iter().map(move |option| {
                    let mut next = prefix.clone();
                    next.push(option.clone());
                    next
                })
            })
            .collect()
    })
}

/// The relationships views inherit from their tables' foreign keys: view to table, table to
/// view, view to view, in that order for each key.
pub(super) fn through_views(tables: &[Relationship], deps: &[KeyDep]) -> Vec<Relationship> {
    let mut out = Vec::new();
    for r in tables {
        let from_views: Vec<&KeyDep> = deps
            .iter()
            .filter(|d| {
                d.table_schema == r.schema
                    && d.table_name == r.relation
                    && d.constraint_name == r.foreign_key_name
                    && d.constraint_type == "f"
            })
            .collect();
        let to_views: Vec<&KeyDep> = deps
            .iter()
            .filter(|d| {
                d.table_schema == r.referenced_schema
                    && d.table_name == r.referenced_relation
                    && d.constraint_name == r.foreign_key_name
                    && d.constraint_type == "f_ref"
            })
            .collect();
        for d in &from_views {
            for columns in picks(&d.columns) {
                out.push(Relationship {
                    schema: d.view_schema.clone(),
                    relation: d.view_name.clone(),
                    columns,
                    ..r.clone()
                });
            }
        }
        for d in &to_views {
            for referenced_columns in picks(&d.columns) {
                out.push(Relationship {
                    referenced_schema: d.view_schema.clone(),
                    referenced_relation: d.view_name.clone(),
                    referenced_columns,
                    ..r.clone()
                });
            }
        }
        for d in &from_views {
            for columns in picks(&d.columns) {
                for t in &to_views {
                    for referenced_columns in picks(&t.columns) {
                        out.push(Relationship {
                            foreign_key_name: r.foreign_key_name.clone(),
                            schema: d.view_schema.clone(),
                            relation: d.view_name.clone(),
                            columns: columns.clone(),
                            is_one_to_one: r.is_one_to_one,
                            referenced_schema: t.view_schema.clone(),
                            referenced_relation: t.view_name.clone(),
                            referenced_columns,
                        });
                    }
                }
            }
        }
    }
    out
}
