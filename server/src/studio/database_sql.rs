//! The SQL of the Database section (roles, extensions, migrations, table sizes, indexes): the
//! catalog reads, each one statement answering a JSON array as text, and the builders of the
//! statements an operator may run or copy (`create extension`, `alter extension … update`, `drop extension`, `create index`,
//! `drop index`). Names are quoted by `db::quote_ident`; the reads take their values as bound
//! parameters. Nothing here runs SQL: `database` does.

use crate::db::{escaped_literal, quote_ident};

/// Schemas the Database screens leave out: Postgres's own and the dashboard's.
const HIDDEN: &str = "('pg_catalog', 'information_schema', 'pg_toast', '_studio')";

/// Every role with its attributes and the roles it is a member of.
pub const ROLES: &str = "select coalesce(json_agg(r order by r.name), '[]'::json)::text from ( \
  select r.rolname as name, r.rolsuper as superuser, r.rolinherit as inherit, r.rolcreaterole as create_role, \
    r.rolcreatedb as create_db, r.rolcanlogin as can_login, r.rolreplication as replication, \
    r.rolbypassrls as bypass_rls, r.rolconnlimit as connection_limit, r.rolvaliduntil as valid_until, \
    r.rolname like 'pg\\_%' as system, \
    array(select b.rolname from pg_auth_members m join pg_roles b on b.oid = m.roleid \
          where m.member = r.oid order by b.rolname) as member_of, \
    (select count(*) from pg_stat_activity a where a.usename = r.rolname) as connections \
  from pg_roles r) r";

/// Every extension the server could install, with the installed version and schema if it is,
/// every version it has (`pg_available_extension_versions`) and, installed, the versions its
/// scripts can update it to (`pg_extension_update_paths`).
pub const EXTENSIONS: &str = "select coalesce(json_agg(x order by x.name), '[]'::json)::text from ( \
  select a.name, a.default_version, e.extversion as installed_version, n.nspname as schema, a.comment, \
    array(select v.version from pg_available_extension_versions v where v.name = a.name) as versions, \
    case when e.extversion is null then '{}'::text[] else \
      array(select p.target from pg_extension_update_paths(a.name) p \
            where p.source = e.extversion and p.path is not null) end as updates \
  from pg_available_extensions a left join pg_extension e on e.extname = a.name \
  left join pg_namespace n on n.oid = e.extnamespace) x";

/// The platform's migrations, as refinery recorded them.
pub const PLATFORM_MIGRATIONS: &str = "select coalesce(json_agg(m order by m.version), '[]'::json)::text from ( \
  select version::text as version, name, applied_on from supabase_migrations.refinery_history) m";

/// The project's migrations (`supabase/migrations`), as `project::migrations` records them.
pub const PROJECT_MIGRATIONS: &str = "select coalesce(json_agg(m order by m.version), '[]'::json)::text from ( \
  select version, coalesce(name, '') as name, coalesce(cardinality(statements), 0) as statements \
  from supabase_migrations.schema_migrations) m";

/// Each table and materialized view with its sizes (total = table + toast + indexes), estimated
/// rows and scan counts.
pub fn table_sizes() -> String {
    format!(
        "select coalesce(json_agg(t order by t.total_bytes desc, t.schema, t.name), '[]'::json)::text from ( \
  select n.nspname as schema, c.relname as name, \
    case c.relkind when 'm' then 'materialized view' when 'p' then 'partitioned table' else 'table' end as kind, \
    pg_total_relation_size(c.oid) as total_bytes, \
    pg_table_size(c.oid) - coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0::oid)), 0) as table_bytes, \
    pg_indexes_size(c.oid) as index_bytes, \
    coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0::oid)), 0) as toast_bytes, \
    case when c.reltuples < 0 then null else c.reltuples::bigint end as estimated_rows, \
    s.seq_scan, s.idx_scan \
  from pg_class c join pg_namespace n on n.oid = c.relnamespace \
  left join pg_stat_user_tables s on s.relid = c.oid \
  where c.relkind in ('r', 'm', 'p') and n.nspname not in {HIDDEN}) t"
    )
}

/// Indexes never scanned since the statistics were reset, that back no constraint (not a
/// primary key, not unique, not an exclusion constraint): candidates to drop, biggest first.
pub fn unused_indexes() -> String {
    format!(
        "select coalesce(json_agg(i order by i.bytes desc, i.schema, i.name), '[]'::json)::text from ( \
  select s.schemaname as schema, s.relname as table, s.indexrelname as name, \
    pg_relation_size(s.indexrelid) as bytes, s.idx_scan as scans, pg_get_indexdef(s.indexrelid) as definition \
  from pg_stat_user_indexes s join pg_index x on x.indexrelid = s.indexrelid \
  where s.idx_scan = 0 and not x.indisunique and not x.indisprimary \
    and not exists (select 1 from pg_constraint c where c.conindid = s.indexrelid) \
    and s.schemaname not in {HIDDEN}) i"
    )
}

/// Tables read mostly by sequential scans although they hold at least `$1` rows: a query on
/// them may want an index.
pub fn seq_scanned_tables() -> String {
    format!(
        "select coalesce(json_agg(t order by t.seq_rows_read desc, t.schema, t.name), '[]'::json)::text from ( \
  select s.schemaname as schema, s.relname as name, s.seq_scan, s.seq_tup_read as seq_rows_read, \
    coalesce(s.idx_scan, 0) as idx_scan, s.n_live_tup as live_rows, \
    s.seq_tup_read / greatest(s.seq_scan, 1) as rows_per_seq_scan, \
    array(select a.attname from pg_attribute a where a.attrelid = s.relid and a.attnum > 0 \
          and not a.attisdropped order by a.attnum) as columns \
  from pg_stat_user_tables s \
  where s.seq_scan > coalesce(s.idx_scan, 0) and s.n_live_tup >= $1 and s.schemaname not in {HIDDEN} \
  limit 50) t"
    )
}

/// Foreign keys whose columns lead no index of their table: a delete or update of the
/// referenced row scans the whole referencing table.
pub fn unindexed_foreign_keys() -> String {
    format!(
        "select coalesce(json_agg(f order by f.schema, f.table, f.name), '[]'::json)::text from ( \
  select n.nspname as schema, c.relname as table, k.conname as name, \
    array(select a.attname from unnest(k.conkey) with ordinality u(attnum, ord) \
          join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.attnum order by u.ord) as columns, \
    k.confrelid::regclass::text as references \
  from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace \
  where k.contype = 'f' and n.nspname not in {HIDDEN} \
    and not exists (select 1 from pg_index x where x.indrelid = k.conrelid \
      and (string_to_array(x.indkey::text, ' ')::int2[])[1:cardinality(k.conkey)] @> k.conkey \
      and (string_to_array(x.indkey::text, ' ')::int2[])[1:cardinality(k.conkey)] <@ k.conkey)) f"
    )
}

/// `create extension` for `name`, in `schema` when given (else Postgres's choice: the
/// extension's own, or the first schema of the search path).
pub fn create_extension(name: &str, schema: Option<&str>) -> String {
    let mut sql = format!("create extension if not exists {}", quote_ident(name));
    if let Some(schema) = schema {
        sql.push_str(" schema ");
        sql.push_str(&quote_ident(schema));
    }
    sql
}

/// `drop extension` for `name`; without `cascade` Postgres refuses while objects depend on it.
pub fn drop_extension(name: &str, cascade: bool) -> String {
    format!("drop extension if exists {}{}", quote_ident(name), if cascade { " cascade" } else { "" })
}

/// `alter extension … update`, to `version` when given (else to the default version).
pub fn update_extension(name: &str, version: Option<&str>) -> String {
    match version {
        Some(v) => format!("alter extension {} update to {}", quote_ident(name), escaped_literal(v)),
        None => format!("alter extension {} update", quote_ident(name)),
    }
}

/// Orders version strings as people read them: runs of digits as numbers (`1.10` after `1.9`),
/// the rest as text.
pub fn compare_versions(a: &str, b: &str) -> std::cmp::Ordering {
    fn parts(v: &str) -> Vec<(u8, u64, String)> {
        let mut out = Vec::new();
        let mut rest = v;
        while let Some(c) = rest.chars().next() {
            let digits = c.is_ascii_digit();
            let end = rest.find(|x: char| x.is_ascii_digit() != digits).unwrap_or(rest.len());
            let (run, tail) = rest.split_at(end);
            out.push(if digits {
                (0, run.parse().unwrap_or(u64::MAX), String::new())
            } else {
                (1, 0, run.to_string())
            });
            rest = tail;
        }
        out
    }
    parts(a).cmp(&parts(b)).then_with(|| a.cmp(b))
}

/// `drop index concurrently` for an index (the suggestion of an unused index, copied, not run).
pub fn drop_index(schema: &str, name: &str) -> String {
    format!("drop index concurrently if exists {}.{};", quote_ident(schema), quote_ident(name))
}

/// The longest name Postgres keeps (bytes).
const NAME_MAX: usize = 63;

/// `create index concurrently` on `columns` of a table, named `<table>_<columns>_idx` cut to
/// what Postgres keeps (the suggestion of a missing index, copied, not run).
pub fn create_index(schema: &str, table: &str, columns: &[String]) -> String {
    let mut name = format!("{}_{}_idx", table, columns.join("_"));
    if name.len() > NAME_MAX {
        let mut cut = NAME_MAX - 4;
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        name = format!("{}_idx", &name[..cut]);
    }
    let cols: Vec<String> = columns.iter().map(|c| quote_ident(c)).collect();
    format!(
        "create index concurrently if not exists {} on {}.{} ({});",
        quote_ident(&name),
        quote_ident(schema),
        quote_ident(table),
        cols.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_statements_quote_the_names() {
        assert_eq!(
            create_extension("pg_trgm", Some("extensions")),
            r#"create extension if not exists "pg_trgm" schema "extensions""#
        );
        assert_eq!(create_extension("citext", None), r#"create extension if not exists "citext""#);
        assert_eq!(
            create_extension(r#"x"; drop table t; --"#, None),
            r#"create extension if not exists "x""; drop table t; --""#
        );
        assert_eq!(drop_extension("citext", false), r#"drop extension if exists "citext""#);
        assert_eq!(drop_extension("citext", true), r#"drop extension if exists "citext" cascade"#);
    }

    #[test]
    fn extension_updates_quote_the_name_and_the_version() {
        assert_eq!(update_extension("pg_trgm", None), r#"alter extension "pg_trgm" update"#);
        assert_eq!(update_extension("pg_trgm", Some("1.6")), r#"alter extension "pg_trgm" update to E'1.6'"#);
        assert_eq!(update_extension("x\"y", Some("1'0")), r#"alter extension "x""y" update to E'1''0'"#);
    }

    #[test]
    fn versions_sort_numbers_as_numbers() {
        let mut v = vec!["1.10", "1.9", "1.2", "2.0", "1.0beta", "1.0"];
        v.sort_by(|a, b| compare_versions(a, b));
        assert_eq!(v, ["1.0", "1.0beta", "1.2", "1.9", "1.10", "2.0"]);
    }

    #[test]
    fn index_suggestions_quote_names_and_fit_postgres_length() {
        assert_eq!(drop_index("public", "Old idx"), r#"drop index concurrently if exists "public"."Old idx";"#);
        assert_eq!(
            create_index("public", "orders", &["customer".into(), "at".into()]),
            r#"create index concurrently if not exists "orders_customer_at_idx" on "public"."orders" ("customer", "at");"#
        );
        let long = "c".repeat(80);
        let sql = create_index("s", "t", std::slice::from_ref(&long));
        let name = sql.split('"').nth(1).unwrap();
        assert!(name.len() <= NAME_MAX && name.ends_with("_idx"), "{name}");
        let sql = create_index("s", "t", &["é".repeat(40)]);
        assert!(sql.split('"').nth(1).unwrap().len() <= NAME_MAX);
        assert_eq!(
            create_index("s", "t\"x", &["a\"b".into()]),
            r#"create index concurrently if not exists "t""x_a""b_idx" on "s"."t""x" ("a""b");"#
        );
    }

    #[test]
    fn reads_take_values_as_parameters_and_hide_the_platform_schema() {
        assert!(seq_scanned_tables().contains("n_live_tup >= $1"));
        for sql in [table_sizes(), unused_indexes(), seq_scanned_tables(), unindexed_foreign_keys()] {
            assert!(sql.contains("'_studio'"), "{sql}");
        }
        assert!(unused_indexes().contains("not x.indisunique and not x.indisprimary"));
    }
}
