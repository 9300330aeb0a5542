//! The catalogue queries of the type generator, postgres-meta's rules (its `src/lib/sql/`)
//! written again for what the generator needs: only reads of `pg_catalog`, values bound as
//! parameters (the asked schemas as `$1`).

pub(super) const SCHEMAS: &str = "
select n.nspname::text from pg_namespace n
where not starts_with(n.nspname, 'pg_')
  and n.nspname not in ('information_schema', 'pg_catalog', 'pg_toast')
  and (pg_has_role(n.nspowner, 'USAGE') or has_schema_privilege(n.oid, 'CREATE, USAGE'))
  and n.nspname = any($1)";

// Tables need a privilege on them (views and foreign tables are listed whatever their grants).
pub(super) const RELATIONS: &str = "
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

pub(super) const COLUMNS: &str = "
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
pub(super) const FOREIGN_KEYS: &str = "
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
pub(super) const VIEW_KEY_COLUMNS: &str = r#"
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

pub(super) const FUNCTIONS: &str = "
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
pub(super) const TYPES: &str = "
select t.oid::int8, t.typname::text, n.nspname::text, format_type(t.oid, null),
       coalesce((select array_agg(e.enumlabel::text order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid), '{}'),
       coalesce((select jsonb_agg(jsonb_build_array(a.attname, a.atttypid::int8) order by a.attnum)
                 from pg_class c join pg_attribute a on a.attrelid = c.oid
                 where c.oid = t.typrelid and c.relkind = 'c' and not a.attisdropped), '[]'),
       nullif(t.typrelid::int8, 0)
from pg_type t left join pg_namespace n on n.oid = t.typnamespace
where t.typrelid = 0 or (select c.relkind in ('c', 'r', 'v', 'm', 'p') from pg_class c where c.oid = t.typrelid)
order by t.oid";
