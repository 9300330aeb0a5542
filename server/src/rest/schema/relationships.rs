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

/// Whether `columns` are a unique key (or the primary key) of `table`, exposed or not: a table
/// of a private schema shown through a view keeps its one-to-one relationships.
fn is_unique(keys: &Keys, table: u32, columns: &[String]) -> bool {
    keys.get(&table).is_some_and(|(_, uniques)| {
        uniques
            .iter()
            .any(|key| !key.is_empty() && key.iter().all(|k| columns.contains(k)) && key.len() == columns.len())
    })
}

/// Primary key and unique keys of every table, by oid.
pub type Keys = HashMap<u32, (Vec<String>, Vec<Vec<String>>)>;

/// Every relationship between exposed relations.
pub fn build(
    tables: &HashMap<u32, Table>,
    keys: &Keys,
    foreign_keys: &[ForeignKey],
    view_map: &ViewMap,
) -> HashMap<QualifiedName, Vec<Relationship>> {
    let mut out: HashMap<QualifiedName, Vec<Relationship>> = HashMap::new();
    for fk in foreign_keys {
        let unique = is_unique(keys, fk.table, &fk.columns);
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

    // Many-to-many, as PostgREST finds them: a junction (a table, or a view of one, which
    // inherits its primary key) with many-to-one relationships to two relations through two
    // different foreign keys, whose columns all belong to the junction's primary key.
    let primary_keys: HashMap<&QualifiedName, &Vec<String>> =
        tables.values().map(|t| (&t.name, &t.primary_key)).collect();
    let mut many_to_many = Vec::new();
    for (junction, rels) in &out {
        let Some(pk) = primary_keys.get(junction).filter(|pk| !pk.is_empty()) else { continue };
        let to_one: Vec<(&Relationship, &Vec<(String, String)>)> = rels
            .iter()
            .filter_map(|r| match &r.cardinality {
                Cardinality::ManyToOne { columns } => Some((r, columns)),
                _ => None,
            })
            .collect();
        for (a, a_cols) in &to_one {
            for (b, b_cols) in &to_one {
                if a.constraint == b.constraint {
                    continue;
                }
                if !a_cols.iter().chain(b_cols.iter()).all(|(jcol, _)| pk.contains(jcol)) {
                    continue;
                }
                many_to_many.push(Relationship {
                    source: a.target.clone(),
                    target: b.target.clone(),
                    constraint: a.constraint.clone(),
                    cardinality: Cardinality::ManyToMany {
                        junction: (*junction).clone(),
                        source_columns: a_cols.iter().map(|(j, s)| (s.clone(), j.clone())).collect(),
                        target_columns: b_cols.to_vec(),
                        target_constraint: b.constraint.clone(),
                    },
                });
            }
        }
    }
    for rel in many_to_many {
        out.entry(rel.source.clone()).or_default().push(rel);
    }
    out
}
