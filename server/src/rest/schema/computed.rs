//! Computed relationships: a function of an exposed schema whose only parameter is the row
//! type of an exposed table or view (the parent) and which returns the row type of an exposed
//! table or view (the child), once or as a set, can be embedded under the parent by its name,
//! as PostgREST allows. It is to-one when it returns a single row or is declared `rows 1`.
//!
//! A computed relationship named like a table overrides the foreign-key relationships from the
//! same parent to that table, as in PostgREST (the function is how the schema's author asks
//! for that embedding to be done). Nothing here builds request SQL.

use std::collections::HashMap;

use crate::db::cached::Db;

use super::relationships::{Cardinality, Relationship};
use super::{QualifiedName, Table};

/// Functions of the exposed schemas with one parameter of a relation's row type that return a
/// relation's row type: (schema, name, parameter relation oid, returned relation oid, to-one).
const COMPUTED: &str = "
select n.nspname::text, p.proname::text, arg_rel.oid, ret_rel.oid, not p.proretset or p.prorows = 1
from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
join pg_class arg_rel on arg_rel.reltype = p.proargtypes[0]
join pg_class ret_rel on ret_rel.reltype = p.prorettype
where n.nspname = any($1) and p.prokind = 'f' and p.pronargs = 1
  and arg_rel.relkind in ('r','v','m','f','p') and ret_rel.relkind in ('r','v','m','f','p')";

/// One row of [`COMPUTED`].
#[derive(Debug, Clone)]
pub struct ComputedFunction {
    pub function: QualifiedName,
    pub parent: u32,
    pub child: u32,
    pub to_one: bool,
}

/// Read the candidate functions of `schemas`.
pub async fn load(client: &impl Db, schemas: &[String]) -> Result<Vec<ComputedFunction>, tokio_postgres::Error> {
    Ok(client
        .cached_query(COMPUTED, &[&schemas])
        .await?
        .iter()
        .map(|row| ComputedFunction {
            function: QualifiedName { schema: row.get(0), name: row.get(1) },
            parent: row.get(2),
            child: row.get(3),
            to_one: row.get(4),
        })
        .collect())
}

/// Add the computed relationships whose parent and child are both exposed to `relationships`,
/// dropping the foreign-key relationships from the same parent to a table of the function's
/// name.
pub fn add(
    relationships: &mut HashMap<QualifiedName, Vec<Relationship>>,
    tables: &HashMap<u32, Table>,
    functions: &[ComputedFunction],
) {
    for f in functions {
        let (Some(parent), Some(child)) = (tables.get(&f.parent), tables.get(&f.child)) else { continue };
        let list = relationships.entry(parent.name.clone()).or_default();
        list.retain(|r| r.function().is_some() || r.target != f.function);
        list.push(Relationship {
            source: parent.name.clone(),
            target: child.name.clone(),
            constraint: f.function.name.clone(),
            cardinality: Cardinality::Computed { function: f.function.clone(), to_one: f.to_one },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::schema::TableKind;

    fn table(schema: &str, name: &str) -> Table {
        Table {
            name: QualifiedName::new(schema, name),
            kind: TableKind::Table,
            columns: Vec::new(),
            primary_key: Vec::new(),
            unique_keys: Vec::new(),
            insertable: true,
            updatable: true,
            deletable: true,
            comment: None,
        }
    }

    fn fk(source: &str, target: &str) -> Relationship {
        Relationship {
            source: QualifiedName::new("public", source),
            target: QualifiedName::new("public", target),
            constraint: format!("{source}_{target}_fkey"),
            cardinality: Cardinality::ManyToOne { columns: vec![("x".into(), "id".into())] },
        }
    }

    fn computed(name: &str, parent: u32, child: u32, to_one: bool) -> ComputedFunction {
        ComputedFunction { function: QualifiedName::new("public", name), parent, child, to_one }
    }

    #[test]
    fn a_function_of_two_exposed_relations_becomes_a_relationship_of_its_parent() {
        let tables = HashMap::from([(1, table("public", "posts")), (2, table("public", "authors"))]);
        let mut rels = HashMap::new();
        add(&mut rels, &tables, &[computed("writer", 1, 2, true), computed("hidden", 1, 3, false)]);
        let from_posts = &rels[&QualifiedName::new("public", "posts")];
        assert_eq!(from_posts.len(), 1, "a child outside the exposed relations is skipped");
        assert_eq!(from_posts[0].target, QualifiedName::new("public", "authors"));
        assert!(from_posts[0].is_to_one());
        assert_eq!(from_posts[0].function(), Some(&QualifiedName::new("public", "writer")));
    }

    #[test]
    fn a_function_named_like_a_table_replaces_the_foreign_key_relationship_to_it() {
        let tables = HashMap::from([(1, table("public", "posts")), (2, table("public", "authors"))]);
        let posts = QualifiedName::new("public", "posts");
        let mut rels = HashMap::from([(posts.clone(), vec![fk("posts", "authors"), fk("posts", "tags")])]);
        add(&mut rels, &tables, &[computed("authors", 1, 2, false)]);
        let kept: Vec<(&str, bool)> =
            rels[&posts].iter().map(|r| (r.target.name.as_str(), r.function().is_some())).collect();
        assert_eq!(kept, [("tags", false), ("authors", true)]);
        assert!(!rels[&posts][1].is_to_one());
    }
}
