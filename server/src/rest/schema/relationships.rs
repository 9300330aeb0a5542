//! Relationships between tables and views, derived from foreign keys: many-to-one,
//! one-to-many, one-to-one and many-to-many through a junction table, carried over to views
//! that show the key columns; plus computed relationships (functions, see `computed`).
//! Embedding resolves names against these.

use std::collections::HashMap;

use super::views::{view_columns_for, ViewMap};
use super::{QualifiedName, Table, TableKind};

/// A foreign key as read from pg_constraint.
#[derive(Debug, Clone)]
pub struct ForeignKey {
    pub name: String,
    pub table: u32,
    pub columns: Vec<String>,
    pub foreign_table: u32,
    pub foreign_columns: Vec<String>,
}

/// How many rows of the target one source row relates to, and through which columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cardinality {
    /// The source holds the foreign key: (source column, target column) pairs.
    ManyToOne { columns: Vec<(String, String)> },
    /// The target holds the foreign key: (source column, target column) pairs.
    OneToMany { columns: Vec<(String, String)> },
    /// Like the two above, with unique foreign-key columns; `source_has_fk` says which side.
    OneToOne { columns: Vec<(String, String)>, source_has_fk: bool },
    /// Through a junction: (source column, junction column) and (junction column, target column).
    ManyToMany {
        junction: QualifiedName,
        source_columns: Vec<(String, String)>,
        target_columns: Vec<(String, String)>,
        target_constraint: String,
    },
    /// A function `function(source_row) returns [setof] target`: embedded by the function's
    /// name, its rows are what it returns for the parent row. `to_one` when it returns a
    /// single row or is declared `rows 1`.
    Computed { function: QualifiedName, to_one: bool },
}

/// One way to embed `target` under `source`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relationship {
    pub source: QualifiedName,
    pub target: QualifiedName,
    /// Foreign key constraint name (the source-side one for many-to-many).
    pub constraint: String,
    pub cardinality: Cardinality,
}

impl Relationship {
    /// Whether an embedding of this relationship yields one object (or null) rather than a list.
    pub fn is_to_one(&self) -> bool {
        matches!(
            self.cardinality,
            Cardinality::ManyToOne { .. } | Cardinality::OneToOne { .. } | Cardinality::Computed { to_one: true, .. }
        )
    }

    /// The function of a computed relationship.
    pub fn function(&self) -> Option<&QualifiedName> {
        match &self.cardinality {
            Cardinality::Computed { function, .. } => Some(function),
            _ => None,
        }
    }

    /// Foreign key columns on the side that holds the key, for hint matching.
    pub fn fk_columns(&self) -> Vec<&str> {
        match &self.cardinality {
            Cardinality::ManyToOne { columns } => columns.iter().map(|(s, _)| s.as_str()).collect(),
            Cardinality::OneToMany { columns } => columns.iter().map(|(_, t)| t.as_str()).collect(),
            Cardinality::OneToOne { columns, source_has_fk } => {
                columns.iter().map(|(s, t)| if *source_has_fk { s.as_str() } else { t.as_str() }).collect()
            }
            Cardinality::ManyToMany { .. } | Cardinality::Computed { .. } => Vec::new(),
        }
    }

    /// PostgREST's short word for the cardinality (used in PGRST201 details).
    pub fn cardinality_word(&self) -> &'static str {
        match self.cardinality {
            Cardinality::ManyToOne { .. } => "many-to-one",
            Cardinality::OneToMany { .. } => "one-to-many",
            Cardinality::OneToOne { .. } => "one-to-one",
            Cardinality::ManyToMany { .. } => "many-to-many",
            Cardinality::Computed { to_one: true, .. } => "computed to-one",
            Cardinality::Computed { to_one: false, .. } => "computed to-many",
        }
    }
}

/// A relation that shows a given set of columns of a base table: the table itself or a view.
struct Projection {
    name: QualifiedName,
    columns: Vec<String>,
}

/// The table itself (if exposed) and every exposed view showing all `columns` of `base`.
fn projections(tables: &HashMap<u32, Table>, view_map: &ViewMap, base: u32, columns: &[String]) -> Vec<Projection> {
    let mut out = Vec::new();
    if let Some(t) = tables.get(&base) {
        out.push(Projection { name: t.name.clone(), columns: columns.to_vec() });
    }
    for (view, table) in tables.iter().filter(|(_, t)| matches!(t.kind, TableKind::View | TableKind::MaterializedView))
    {
        if let Some(cols) = view_columns_for(view_map, *view, base, columns) {
            out.push(Projection { name: table.name.clone(), columns: cols });
        }
    }
    out
}

fn is_unique(tables: &HashMap<u32, Table>, table: u32, columns: &[String]) -> bool {
    tables.get(&table).is_some_and(|t| {
        t.unique_keys
            .iter()
            .any(|key| !key.is_empty() && key.iter().all(|k| columns.contains(k)) && key.len() == columns.len())
    })
}

/// Every relationship between exposed relations.
pub fn build(
    tables: &HashMap<u32, Table>,
    _names: &HashMap<u32, QualifiedName>,
    foreign_keys: &[ForeignKey],
    view_map: &ViewMap,
) -> HashMap<QualifiedName, Vec<Relationship>> {
    let mut out: HashMap<QualifiedName, Vec<Relationship>> = HashMap::new();
    for fk in foreign_keys {
        let unique = is_unique(tables, fk.table, &fk.columns);
        for source in projections(tables, view_map, fk.table, &fk.columns) {
            for target in projections(tables, view_map, fk.foreign_table, &fk.foreign_columns) {
                let pairs: Vec<(String, String)> =
                    source.columns.iter().cloned().zip(target.columns.iter().cloned()).collect();
                let reversed: Vec<(String, String)> = pairs.iter().map(|(s, t)| (t.clone(), s.clone())).collect();
                let (forward, backward) = if unique {
                    (
                        Cardinality::OneToOne { columns: pairs, source_has_fk: true },
                        Cardinality::OneToOne { columns: reversed, source_has_fk: false },
                    )
                } else {
                    (Cardinality::ManyToOne { columns: pairs }, Cardinality::OneToMany { columns: reversed })
                };
                out.entry(source.name.clone()).or_default().push(Relationship {
                    source: source.name.clone(),
                    target: target.name.clone(),
                    constraint: fk.name.clone(),
                    cardinality: forward,
                });
                out.entry(target.name.clone()).or_default().push(Relationship {
                    source: target.name.clone(),
                    target: source.name.clone(),
                    constraint: fk.name.clone(),
                    cardinality: backward,
                });
            }
        }
    }

    // Many-to-many: a junction table with two foreign keys whose columns are part of its primary key.
    let mut by_table: HashMap<u32, Vec<&ForeignKey>> = HashMap::new();
    for fk in foreign_keys {
        by_table.entry(fk.table).or_default().push(fk);
    }
    for (junction_oid, fks) in &by_table {
        let Some(junction) = tables.get(junction_oid) else { continue };
        if junction.kind != TableKind::Table && junction.kind != TableKind::Partitioned {
            continue;
        }
        let pk = &junction.primary_key;
        for a in fks {
            for b in fks {
                if std::ptr::eq(*a, *b) {
                    continue;
                }
                let in_pk = |fk: &ForeignKey| fk.columns.iter().all(|c| pk.contains(c));
                if pk.is_empty() || !in_pk(a) || !in_pk(b) {
                    continue;
                }
                for source in projections(tables, view_map, a.foreign_table, &a.foreign_columns) {
                    for target in projections(tables, view_map, b.foreign_table, &b.foreign_columns) {
                        out.entry(source.name.clone()).or_default().push(Relationship {
                            source: source.name.clone(),
                            target: target.name.clone(),
                            constraint: a.name.clone(),
                            cardinality: Cardinality::ManyToMany {
                                junction: junction.name.clone(),
                                source_columns: source.columns.iter().cloned().zip(a.columns.iter().cloned()).collect(),
                                target_columns: b.columns.iter().cloned().zip(target.columns.iter().cloned()).collect(),
                                target_constraint: b.name.clone(),
                            },
                        });
                    }
                }
            }
        }
    }
    out
}
