//! Catalog queries that fill a `SchemaCache`. Read-only; run on the admin pool.

use std::collections::HashMap;

use crate::db::cached::Db;

use super::computed;
use super::relationships::{self, ForeignKey};
use super::representations;
use super::views::{self, ViewColumnSource};
use super::{
    Column, Function, FunctionArg, MediaDomain, QualifiedName, ReturnShape, SchemaCache, Table, TableKind, Volatility,
};

const TABLES: &str = "
select c.oid, n.nspname::text, c.relname::text, c.relkind::text, obj_description(c.oid, 'pg_class'),
       c.relkind in ('r','p') or (pg_relation_is_updatable(c.oid::regclass, true) & 8) = 8,
       c.relkind in ('r','p') or (pg_relation_is_updatable(c.oid::regclass, true) & 4) = 4,
       c.relkind in ('r','p') or (pg_relation_is_updatable(c.oid::regclass, true) & 16) = 16
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where n.nspname = any($1) and c.relkind in ('r','v','m','f','p')";

const COLUMNS: &str = "
select a.attrelid, a.attname::text, format_type(a.atttypid, a.atttypmod), not a.attnotnull,
       coalesce(pg_get_expr(d.adbin, d.adrelid),
                -- an identity column's default is its sequence; a domain's default is the domain's
                case when a.attidentity = 'd' then format('nextval(%L::regclass)',
                     pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname)) end,
                case when t.typtype = 'd' then pg_get_expr(t.typdefaultbin, 0) end),
       t.typname::text,
       array(select e.enumlabel::text from pg_enum e where e.enumtypid = coalesce(nullif(t.typbasetype, 0), t.oid) order by e.enumsortorder),
       col_description(a.attrelid, a.attnum), a.attgenerated <> '', a.atttypid
from pg_attribute a
join pg_class c on c.oid = a.attrelid
join pg_namespace n on n.oid = c.relnamespace
join pg_type t on t.oid = a.atttypid
left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
where n.nspname = any($1) and c.relkind in ('r','v','m','f','p') and a.attnum > 0 and not a.attisdropped
order by a.attrelid, a.attnum";

const KEYS: &str = "
select con.conrelid, con.contype::text, con.conname::text,
       array(select a.attname::text from unnest(con.conkey) with ordinality k(num, ord)
             join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.num order by k.ord),
       con.confrelid,
       array(select a.attname::text from unnest(con.confkey) with ordinality k(num, ord)
             join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.num order by k.ord)
from pg_constraint con
where con.contype in ('p','u','f')
order by con.oid";

const UNIQUE_INDEXES: &str = "
select i.indrelid, array(select a.attname::text from unnest(i.indkey::int2[]) with ordinality k(num, ord)
                         join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.num order by k.ord)
from pg_index i where i.indisunique and i.indpred is null and i.indexprs is null";

const VIEW_RULES: &str = "
select c.oid, r.ev_action::text from pg_rewrite r join pg_class c on c.oid = r.ev_class
where c.relkind in ('v','m') and r.rulename = '_RETURN'";

const FUNCTIONS: &str = "
select n.nspname::text, p.proname::text, p.provolatile::text, p.proretset, format_type(p.prorettype, null),
       t.typtype::text, t.typrelid, t.typname::text,
       coalesce(p.proargnames, '{}'::text[]),
       coalesce(p.proargmodes::text[], '{}'::text[]),
       array(select format_type(x, null) from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality u(x, o) order by o),
       p.pronargdefaults::int4, obj_description(p.oid, 'pg_proc'),
       (select b.typname::text from pg_type b where b.oid = t.typbasetype)
from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_type t on t.oid = p.prorettype
where n.nspname = any($1) and p.prokind = 'f'";

const COMPOSITE_COLUMNS: &str = "
select a.attrelid, a.attname::text, format_type(a.atttypid, a.atttypmod)
from pg_attribute a where a.attrelid = any($1) and a.attnum > 0 and not a.attisdropped order by a.attrelid, a.attnum";

const ROLE_SETTINGS: &str = "
select r.rolname::text, s.setconfig
from pg_db_role_setting s join pg_roles r on r.oid = s.setrole
where s.setdatabase in (0, (select oid from pg_database where datname = current_database()))
order by s.setdatabase";

/// Settings of a role that requests of that role get (PostgREST's impersonated role settings).
const ROLE_SETTINGS_APPLIED: &[&str] =
    &["statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout", "work_mem", "hash_mem_multiplier"];

/// Read the catalog and build the cache for `schemas`.
pub async fn load(client: &impl Db, schemas: &[String]) -> Result<SchemaCache, tokio_postgres::Error> {
    let mut tables: HashMap<u32, Table> = HashMap::new();
    for row in client.cached_query(TABLES, &[&schemas]).await? {
        let kind = match row.get::<_, String>(3).as_str() {
            "v" => TableKind::View,
            "m" => TableKind::MaterializedView,
            "f" => TableKind::Foreign,
            "p" => TableKind::Partitioned,
            _ => TableKind::Table,
        };
        tables.insert(
            row.get(0),
            Table {
                name: QualifiedName { schema: row.get(1), name: row.get(2) },
                kind,
                columns: Vec::new(),
                primary_key: Vec::new(),
                unique_keys: Vec::new(),
                comment: row.get(4),
                insertable: row.get(5),
                updatable: row.get(6),
                deletable: row.get(7),
            },
        );
    }
    let representations = representations::load(client).await?;
    for row in client.cached_query(COLUMNS, &[&schemas]).await? {
        if let Some(table) = tables.get_mut(&row.get::<_, u32>(0)) {
            table.columns.push(Column {
                name: row.get(1),
                data_type: row.get(2),
                nullable: row.get(3),
                default: row.get(4),
                type_name: row.get(5),
                enum_values: row.get(6),
                comment: row.get(7),
                generated: row.get(8),
                representation: representations.get(&row.get::<_, u32>(9)).cloned().unwrap_or_default(),
            });
        }
    }

    let mut foreign_keys = Vec::new();
    let mut keys_by_oid: HashMap<u32, (Vec<String>, Vec<Vec<String>>)> = HashMap::new();
    for row in client.cached_query(KEYS, &[]).await? {
        let relid: u32 = row.get(0);
        let kind: String = row.get(1);
        let columns: Vec<String> = row.get(3);
        match kind.as_str() {
            "p" => {
                let entry = keys_by_oid.entry(relid).or_default();
                entry.0 = columns.clone();
                entry.1.push(columns);
            }
            "u" => keys_by_oid.entry(relid).or_default().1.push(columns),
            _ => foreign_keys.push(ForeignKey {
                name: row.get(2),
                table: relid,
                columns,
                foreign_table: row.get(4),
                foreign_columns: row.get(5),
            }),
        }
    }
    for row in client.cached_query(UNIQUE_INDEXES, &[]).await? {
        keys_by_oid.entry(row.get(0)).or_default().1.push(row.get(1));
    }
    for (oid, (pk, uniques)) in &keys_by_oid {
        if let Some(table) = tables.get_mut(oid) {
            table.primary_key = pk.clone();
            table.unique_keys = uniques.clone();
        }
    }

    // Views: map their columns to base table columns to give them keys and relationships.
    let mut view_sources: HashMap<u32, Vec<ViewColumnSource>> = HashMap::new();
    for row in client.cached_query(VIEW_RULES, &[]).await? {
        let text: String = row.get(1);
        view_sources.insert(row.get(0), views::parse_target_list(&text));
    }
    let attnames = attribute_names(client, &view_sources).await?;
    let view_map = views::resolve(&view_sources, &attnames);
    views::inherit_keys(&mut tables, &keys_by_oid, &view_map);

    let mut relationships = relationships::build(&tables, &keys_by_oid, &foreign_keys, &view_map);
    computed::add(&mut relationships, &tables, &computed::load(client, schemas).await?);

    let functions = load_functions(client, schemas).await?;
    let role_settings = load_role_settings(client).await?;
    // PostgREST offers `application/geo+json` only where PostGIS's `ST_AsGeoJSON` exists.
    let geojson: bool = client
        .cached_query_one("select exists(select 1 from pg_proc where proname = 'st_asgeojson')", &[])
        .await?
        .get(0);
    // `Prefer: timezone=` is honoured only for a name Postgres knows, as in PostgREST.
    let timezones = client
        .cached_query("select name from pg_catalog.pg_timezone_names", &[])
        .await?
        .iter()
        .map(|row| row.get(0))
        .collect();

    Ok(SchemaCache {
        schemas: schemas.to_vec(),
        tables: tables.into_values().map(|t| (t.name.clone(), t)).collect(),
        relationships,
        functions,
        role_settings,
        geojson,
        timezones,
    })
}

/// Column names by (relation oid, attnum), for the relations views read from.
async fn attribute_names(
    client: &impl Db,
    views: &HashMap<u32, Vec<ViewColumnSource>>,
) -> Result<HashMap<(u32, i16), String>, tokio_postgres::Error> {
    let mut oids: Vec<u32> = views.values().flatten().filter_map(|s| s.origin.map(|(oid, _)| oid)).collect();
    oids.extend(views.keys());
    oids.sort_unstable();
    oids.dedup();
    let rows = client
        .cached_query(
            "select attrelid, attnum, attname::text from pg_attribute where attrelid = any($1) and attnum > 0 and not attisdropped",
            &[&oids],
        )
        .await?;
    Ok(rows.iter().map(|r| ((r.get(0), r.get(1)), r.get(2))).collect())
}

async fn load_functions(
    client: &impl Db,
    schemas: &[String],
) -> Result<HashMap<QualifiedName, Vec<Function>>, tokio_postgres::Error> {
    let rows = client.cached_query(FUNCTIONS, &[&schemas]).await?;
    let relids: Vec<u32> = rows.iter().map(|r| r.get::<_, u32>(6)).filter(|oid| *oid != 0).collect();
    let mut composite: HashMap<u32, Vec<(String, String)>> = HashMap::new();
    for row in client.cached_query(COMPOSITE_COLUMNS, &[&relids]).await? {
        composite.entry(row.get(0)).or_default().push((row.get(1), row.get(2)));
    }
    let relation_names: HashMap<u32, QualifiedName> = client
        .cached_query("select c.oid, n.nspname::text, c.relname::text from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = any($1)", &[&relids])
        .await?
        .iter()
        .map(|r| (r.get(0), QualifiedName { schema: r.get(1), name: r.get(2) }))
        .collect();

    let mut functions: HashMap<QualifiedName, Vec<Function>> = HashMap::new();
    for row in rows {
        let name = QualifiedName { schema: row.get(0), name: row.get(1) };
        let volatility = match row.get::<_, String>(2).as_str() {
            "i" => Volatility::Immutable,
            "s" => Volatility::Stable,
            _ => Volatility::Volatile,
        };
        let returns_set: bool = row.get(3);
        let return_type: String = row.get(4);
        let typtype: String = row.get(5);
        let typrelid: u32 = row.get(6);
        let typname: String = row.get(7);
        let arg_names: Vec<String> = row.get(8);
        let arg_modes: Vec<String> = row.get(9);
        let arg_types: Vec<String> = row.get(10);
        let n_defaults = row.get::<_, i32>(11).max(0) as usize;

        let mut args = Vec::new();
        let mut out_columns = Vec::new();
        for (i, data_type) in arg_types.iter().enumerate() {
            let mode = arg_modes.get(i).map(String::as_str).unwrap_or("i");
            let arg_name = arg_names.get(i).cloned().unwrap_or_default();
            match mode {
                "o" | "t" => out_columns.push((arg_name, data_type.clone())),
                _ => args.push(FunctionArg {
                    name: arg_name,
                    data_type: data_type.clone(),
                    has_default: false,
                    variadic: mode == "v",
                }),
            }
            if mode == "b" {
                out_columns.push((arg_names.get(i).cloned().unwrap_or_default(), data_type.clone()));
            }
        }
        let first_default = args.len().saturating_sub(n_defaults);
        for arg in args.iter_mut().skip(first_default) {
            arg.has_default = true;
        }
        let returns = if typname == "void" {
            ReturnShape::Void
        } else if typtype == "c" {
            ReturnShape::Composite {
                columns: composite.get(&typrelid).cloned().unwrap_or_default(),
                relation: relation_names.get(&typrelid).cloned(),
            }
        } else if typname == "record" && !out_columns.is_empty() {
            ReturnShape::Composite { columns: out_columns, relation: None }
        } else {
            ReturnShape::Scalar(return_type)
        };
        // A domain named like a media type (`create domain "text/html" as text`) makes the
        // function's value the body itself, in that media type (PostgREST's media handlers).
        let base: Option<String> = row.get(13);
        let media = base
            .filter(|_| typtype == "d" && !returns_set && is_media_type(&typname))
            .map(|base| MediaDomain { media_type: typname.to_ascii_lowercase(), binary: base == "bytea" });
        functions.entry(name.clone()).or_default().push(Function {
            name,
            args,
            returns,
            returns_set,
            volatility,
            comment: row.get(12),
            media,
        });
    }
    Ok(functions)
}

/// `type/subtype` of letters, digits, `.`, `-` (and `+` in the subtype), or `*/*`.
fn is_media_type(name: &str) -> bool {
    let ok = |part: &str, plus: bool| {
        !part.is_empty()
            && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-' || (plus && c == '+'))
    };
    name == "*/*" || name.split_once('/').is_some_and(|(kind, sub)| ok(kind, false) && ok(sub, true))
}

async fn load_role_settings(client: &impl Db) -> Result<HashMap<String, Vec<(String, String)>>, tokio_postgres::Error> {
    let mut settings: HashMap<String, Vec<(String, String)>> = HashMap::new();
    for row in client.cached_query(ROLE_SETTINGS, &[]).await? {
        let role: String = row.get(0);
        let config: Vec<String> = row.get(1);
        for entry in config {
            if let Some((key, value)) = entry.split_once('=') {
                if ROLE_SETTINGS_APPLIED.contains(&key) {
                    let list = settings.entry(role.clone()).or_default();
                    // Database-specific settings come last and win.
                    list.retain(|(k, _)| k != key);
                    list.push((key.to_string(), value.to_string()));
                }
            }
        }
    }
    Ok(settings)
}
