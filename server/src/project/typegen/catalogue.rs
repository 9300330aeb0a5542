//! What the type generator reads of the database: schemas, relations, columns, foreign keys (and
//! the views' columns they reach, as PostgREST follows them), functions and types, read from the
//! system catalogues with the same rules as postgres-meta's introspection (the CLI's generator),
//! so that the same database gives the same model.
//!
//! It only reads; it knows nothing of TypeScript.

use std::collections::HashSet;

use tokio_postgres::Client;

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

const SCHEMAS: &str = "
select n.nspname::text from pg_namespace n
where not starts_with(n.nspname, 'pg_')
  and n.nspname not in ('information_schema', 'pg_catalog', 'pg_toast')
  and (pg_has_role(n.nspowner, 'USAGE') or has_schema_privilege(n.oid, 'CREATE, USAGE'))
  and n.nspname = any($1)";

// Tables need a privilege on them (views and foreign tables are listed whatever their grants).
const RELATIONS: &str = "
select c.oid::int8, n.nspname::text, c.relname::text, c.relkind::text,
       c.relkind = 'v' and (pg_relation_is_updatable(c.oid, false) & 20) = 20
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where n.nspname = any($1)
  and (c.relkind in ('f', 'v', 'm')
       or (c.relkind in ('r', 'p') and not pg_is_other_temp_schema(n.oid)
           and (pg_has_role(c.relowner, 'USAGE')
                or has_table_privilege(c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
                or has_any_column_privilege(c.oid, 'SELECT, INSERT, UPDATE, REFERENCES'))))
order by c.oid";

const COLUMNS: &str = "
select c.oid::int8, a.attname::text, coalesce(bt.typname, t.typname)::text,
       a.attidentity in ('a', 'd'), a.attidentity = 'a',
       not (a.attnotnull or (t.typtype = 'd' and t.typnotnull)),
       c.relkind in ('r', 'p') or (c.relkind in ('v', 'f') and pg_column_is_updatable(c.oid, a.attnum, false)),
       a.atthasdef
from pg_attribute a
  join pg_class c on c.oid = a.attrelid
  join pg_namespace nc on nc.oid = c.relnamespace
  join pg_type t on t.oid = a.atttypid
  left join pg_type bt on t.typtype = 'd' and bt.oid = t.typbasetype
where nc.nspname = any($1) and not pg_is_other_temp_schema(nc.oid)
  and a.attnum > 0 and not a.attisdropped and c.relkind in ('r', 'v', 'm', 'f', 'p')
  and (pg_has_role(c.relowner, 'USAGE') or has_column_privilege(c.oid, a.attnum, 'SELECT, INSERT, UPDATE, REFERENCES'))
order by c.oid, a.attnum";

// Every foreign key outside the system schemas (a relation of an asked schema may point to any
// other). One-to-one: the referencing columns (in the key's order) are, in column order, those of
// the table's primary key or of one of its unique constraints.
const FOREIGN_KEYS: &str = "
with unique_sets as (
  select k.connamespace, k.conrelid,
         jsonb_agg((select array_agg(a.attname::text order by a.attnum)
                    from pg_attribute a where a.attrelid = k.conrelid and a.attnum = any (k.conkey))) as sets
  from pg_constraint k
  where k.contype in ('p', 'u') and k.connamespace::regnamespace::text not in ('information_schema', 'pg_catalog', 'pg_toast')
  group by k.connamespace, k.conrelid
)
select fk.conname::text, ns.nspname::text, tab.relname::text, cols.names, rns.nspname::text, ref.relname::text, cols.refs,
       coalesce(cols.names in (select jsonb_array_elements(u.sets)), false)
from pg_constraint fk
  join lateral (
    select jsonb_agg(src.attname order by k.ord) as names, jsonb_agg(dst.attname order by k.ord) as refs
    from unnest(fk.conkey, fk.confkey) with ordinality as k(col, ref, ord)
      join pg_attribute src on src.attrelid = fk.conrelid and src.attnum = k.col
      join pg_attribute dst on dst.attrelid = fk.confrelid and dst.attnum = k.ref
  ) cols on true
  join pg_namespace ns on ns.oid = fk.connamespace
  join pg_class tab on tab.oid = fk.conrelid
  join pg_class ref on ref.oid = fk.confrelid
  join pg_namespace rns on rns.oid = ref.relnamespace
  left join unique_sets u on u.connamespace = fk.connamespace and u.conrelid = fk.conrelid
where fk.contype = 'f' and fk.conparentid = 0
  and ns.nspname not in ('information_schema', 'pg_catalog', 'pg_toast')
order by fk.oid";

/// The table columns behind the columns of views (followed through views of views), for the
/// columns of primary and foreign keys: PostgREST's way, reading the view's stored query tree
/// (`pg_rewrite.ev_action`) turned into JSON by text replacements, keeping each target entry's
/// `resno`, `resorigtbl` and `resorigcol`. One row per view and key whose every column the
/// view shows.
const VIEW_KEY_COLUMNS: &str = r#"
with recursive
key_columns as (
  select contype::text as contype, conname, array_length(conkey, 1) as ncol, conrelid as resorigtbl, col as resorigcol, ord
  from pg_constraint left join lateral unnest(conkey) with ordinality as _(col, ord) on true
  where contype in ('p', 'f')
  union
  select concat(contype, '_ref'), conname, array_length(confkey, 1), confrelid, col, ord
  from pg_constraint left join lateral unnest(confkey) with ordinality as _(col, ord) on true
  where contype = 'f' and connamespace::regnamespace::text not in ('information_schema', 'pg_catalog', 'pg_toast')
),
view_trees as (
  select c.oid as view_id, n.nspname as view_schema, c.relname as view_name, r.ev_action as tree
  from pg_class c join pg_namespace n on n.oid = c.relnamespace join pg_rewrite r on r.ev_class = c.oid
  where c.relkind in ('v', 'm') and n.nspname not in ('information_schema', 'pg_catalog', 'pg_toast')
),
as_json as (
  -- Each step, in order: empty lists become (); commas and escaped braces (only in names) go;
  -- the three fields kept become JSON keys; every other field is dropped by one regex; node
  -- lists are protected from it and restored; lists become arrays, spaces commas.
  select view_id, view_schema, view_name,
    replace(replace(replace(replace(replace(replace(replace(
    regexp_replace(
    replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(
      tree::text,
      '<>', '()'), ',', ''), E'\\{', ''), E'\\}', ''),
      ' :targetList ', ',"targetList":'), ' :resno ', ',"resno":'),
      ' :resorigtbl ', ',"resorigtbl":'), ' :resorigcol ', ',"resorigcol":'),
      '{', '{ :'), '((', '{(('), '({', '{({'),
    ' :[^}{,]+', ',"":', 'g'),
    ',"":}', '}'), ',"":,', ','), '{(', '('), '{,', '{'), '(', '['), ')', ']'), ' ', ',')::json as tree
  from view_trees
),
entries as (
  select view_id, view_schema, view_name, json_array_elements(tree -> 0 -> 'targetList') as entry from as_json
),
view_columns as (
  select view_id, view_schema, view_name, (entry ->> 'resno')::int as view_column,
         (entry ->> 'resorigtbl')::oid as resorigtbl, (entry ->> 'resorigcol')::int as resorigcol
  from entries
),
followed (view_id, view_schema, view_name, view_column, resorigtbl, resorigcol, is_cycle, path) as (
  select v.*, false, array[v.resorigtbl] from view_columns v
  union all
  select f.view_id, f.view_schema, f.view_name, f.view_column, t.resorigtbl, t.resorigcol,
         t.resorigtbl = any (f.path), f.path || t.resorigtbl
  from followed f join view_columns t on f.resorigtbl = t.view_id and f.resorigcol = t.view_column
  where not f.is_cycle
),
by_origin as (
  select view_id, view_schema, view_name, resorigtbl, resorigcol, array_agg(attname::text) as view_columns
  from followed join pg_attribute vcol on vcol.attrelid = view_id and vcol.attnum = view_column
  group by view_id, view_schema, view_name, resorigtbl, resorigcol
)
select sch.nspname::text, tbl.relname::text, o.view_schema::text, o.view_name::text, k.conname::text, k.contype,
       jsonb_agg(jsonb_build_array(col.attname, o.view_columns) order by k.ord)
from by_origin o
  join key_columns k using (resorigtbl, resorigcol)
  join pg_class tbl on tbl.oid = o.resorigtbl
  join pg_attribute col on col.attrelid = tbl.oid and col.attnum = o.resorigcol
  join pg_namespace sch on sch.oid = tbl.relnamespace
group by sch.nspname, tbl.relname, o.view_schema, o.view_name, k.conname, k.contype, k.ncol
having k.ncol = array_length(array_agg(row(col.attname, o.view_columns) order by k.ord), 1)
"#;

const FUNCTIONS: &str = "
select n.nspname::text, p.proname::text,
       coalesce(p.proargmodes::text[], array_fill('i'::text, array[cardinality(coalesce(p.proallargtypes, p.proargtypes::oid[]))])),
       coalesce(p.proargnames, array_fill(''::text, array[cardinality(coalesce(p.proallargtypes, p.proargtypes::oid[]))])),
       coalesce(p.proallargtypes, p.proargtypes::oid[])::int8[],
       p.pronargs::int4, p.pronargdefaults::int4,
       pg_get_function_arguments(p.oid), pg_get_function_result(p.oid), p.prorettype::int8,
       nullif(rt.typrelid::int8, 0), p.proretset, case when p.proretset then nullif(p.prorows, 0)::float8 end
from pg_proc p
  join pg_namespace n on n.oid = p.pronamespace
  left join pg_type rt on rt.oid = p.prorettype
where p.prokind = 'f' and n.nspname = any($1)
order by p.oid";

// Every type (of every schema: a column may use one of a schema not asked for), with table
// types and arrays.
const TYPES: &str = "
select t.oid::int8, t.typname::text, n.nspname::text, format_type(t.oid, null),
       coalesce((select array_agg(e.enumlabel::text order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid), '{}'),
       coalesce((select jsonb_agg(jsonb_build_array(a.attname, a.atttypid::int8) order by a.attnum)
                 from pg_class c join pg_attribute a on a.attrelid = c.oid
                 where c.oid = t.typrelid and c.relkind = 'c' and not a.attisdropped), '[]'),
       nullif(t.typrelid::int8, 0)
from pg_type t left join pg_namespace n on n.oid = t.typnamespace
where t.typrelid = 0 or (select c.relkind in ('c', 'r', 'v', 'm', 'p') from pg_class c where c.oid = t.typrelid)
order by t.oid";

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

/// A key whose every column a view shows: per key column (in the key's order), the view's
/// columns that show it.
struct KeyDep {
    table_schema: String,
    table_name: String,
    view_schema: String,
    view_name: String,
    constraint_name: String,
    constraint_type: String,
    columns: Vec<Vec<String>>,
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
fn through_views(tables: &[Relationship], deps: &[KeyDep]) -> Vec<Relationship> {
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
