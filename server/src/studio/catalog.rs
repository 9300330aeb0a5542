//! What the table editor browses: schemas, their tables and views, and one relation's columns
//! and primary key (read from `pg_catalog` with the names bound). `_studio` itself is left out:
//! the audit log is not edited from the dashboard it audits.

use actix_web::{web, HttpResponse};
use deadpool_postgres::GenericClient;
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::StudioError;
use super::query::{Column, Relation};
use crate::state::AppState;

/// The dashboard's own schema, hidden from the table editor.
pub const OWN_SCHEMA: &str = "_studio";

/// The kinds of relation the editor lists.
const KINDS: &str = "('r', 'p', 'v', 'm', 'f')";

/// `GET /studio/api/schemas`.
pub async fn schemas(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let rows = client
        .query(
            "select nspname from pg_namespace where nspname not like 'pg\\_%' \
             and nspname not in ('information_schema', $1) order by nspname = 'public' desc, nspname",
            &[&OWN_SCHEMA],
        )
        .await?;
    let names: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    Ok(HttpResponse::Ok().json(json!({ "schemas": names })))
}

#[derive(Deserialize)]
pub struct InSchema {
    schema: String,
}

/// `GET /studio/api/tables?schema=public`: tables, views and materialized views with their
/// estimated row counts (`null` before the table was first analyzed).
pub async fn tables(state: web::Data<AppState>, q: web::Query<InSchema>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let rows = client
        .query(
            &format!(
                "select c.relname, c.relkind::text, case when c.reltuples >= 0 then c.reltuples::bigint end, c.relrowsecurity \
                 from pg_class c join pg_namespace n on n.oid = c.relnamespace \
                 where n.nspname = $1 and n.nspname <> $2 and c.relkind in {KINDS} order by c.relname"
            ),
            &[&q.schema, &OWN_SCHEMA],
        )
        .await?;
    let list: Vec<Value> = rows
        .iter()
        .map(|r| {
            json!({
                "name": r.get::<_, String>(0),
                "kind": r.get::<_, String>(1),
                "estimated_rows": r.get::<_, Option<i64>>(2),
                "rls": r.get::<_, bool>(3),
            })
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "tables": list })))
}

/// The relation `schema.name` with its columns, or `NotFound`.
pub async fn relation(db: &impl GenericClient, schema: &str, name: &str) -> Result<Relation, StudioError> {
    let head = db
        .query_opt(
            &format!(
                "select c.oid, c.relkind::text, coalesce((select array_agg(a.attname::text order by k.ord) \
                   from pg_index i cross join lateral unnest(i.indkey) with ordinality k(attnum, ord) \
                   join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum \
                   where i.indrelid = c.oid and i.indisprimary), '{{}}') \
                 from pg_class c join pg_namespace n on n.oid = c.relnamespace \
                 where n.nspname = $1 and c.relname = $2 and n.nspname <> $3 and c.relkind in {KINDS}"
            ),
            &[&schema, &name, &OWN_SCHEMA],
        )
        .await?
        .ok_or_else(|| StudioError::NotFound(format!("No table or view {schema}.{name}")))?;
    let oid: u32 = head.get(0);
    let rows = db
        .query(
            "select a.attname::text, format_type(a.atttypid, a.atttypmod), t.typname::text, t.typcategory::text, \
               not a.attnotnull, pg_get_expr(d.adbin, d.adrelid), \
               a.attidentity = 'a' or a.attgenerated <> '', \
               case when t.typtype = 'e' then (select array_agg(e.enumlabel::text order by e.enumsortorder) \
                 from pg_enum e where e.enumtypid = t.oid) end, \
               a.attidentity <> '' \
             from pg_attribute a join pg_type t on t.oid = a.atttypid \
             left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum \
             where a.attrelid = $1 and a.attnum > 0 and not a.attisdropped order by a.attnum",
            &[&oid],
        )
        .await?;
    let columns = rows
        .iter()
        .map(|r| Column {
            name: r.get(0),
            type_name: r.get(1),
            udt: r.get(2),
            category: r.get(3),
            nullable: r.get(4),
            default: r.get(5),
            read_only: r.get(6),
            enum_values: r.get(7),
            identity: r.get(8),
        })
        .collect();
    Ok(Relation {
        schema: schema.to_string(),
        name: name.to_string(),
        kind: head.get(1),
        columns,
        primary_key: head.get(2),
    })
}

/// `GET /studio/api/tables/{schema}/{table}`: columns, types and primary key.
pub async fn table(state: web::Data<AppState>, path: web::Path<(String, String)>) -> Result<HttpResponse, StudioError> {
    let (schema, name) = path.into_inner();
    let client = state.pools.admin.get().await?;
    let rel = relation(&client, &schema, &name).await?;
    Ok(HttpResponse::Ok().json(rel))
}
