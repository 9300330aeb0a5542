//! The table editor's structure: a table's constraints, foreign keys, indexes, row-level
//! security and realtime-publication membership in one read; and the structure forms' writes,
//! built by `ddl_sql`, answered as SQL only with `dry_run` (the screen shows it before it
//! runs), else run as the database owner with their audit row in one transaction. The
//! dashboard's own schema is never a target.

use actix_web::{web, HttpResponse};
use deadpool_postgres::GenericClient;
use serde::Deserialize;
use serde_json::{json, Value};

use super::audit;
use super::catalog::{relation, OWN_SCHEMA};
use super::ddl_sql::{self, Ddl, DdlError, REALTIME_PUBLICATION};
use super::error::StudioError;
use super::session::OperatorSession;
use crate::state::AppState;

impl From<DdlError> for StudioError {
    fn from(err: DdlError) -> StudioError {
        StudioError::BadRequest(err.to_string())
    }
}

/// Constraints (with foreign keys' referenced side), indexes and the two switches, as JSON.
const STRUCTURE: &str = "select json_build_object( \
  'rls', c.relrowsecurity, \
  'realtime', exists (select from pg_publication_tables p where p.pubname = $3 and p.schemaname = n.nspname and p.tablename = c.relname), \
  'constraints', (select coalesce(json_agg(json_build_object( \
      'name', k.conname, 'type', k.contype::text, 'definition', pg_get_constraintdef(k.oid), \
      'columns', (select coalesce(json_agg(a.attname order by u.ord), '[]'::json) from unnest(k.conkey) with ordinality u(num, ord) \
                  join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.num), \
      'references', case when k.contype = 'f' then json_build_object( \
         'schema', rn.nspname, 'table', rc.relname, \
         'columns', (select json_agg(a.attname order by u.ord) from unnest(k.confkey) with ordinality u(num, ord) \
                     join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.num), \
         'on_delete', k.confdeltype::text) end) order by k.contype, k.conname), '[]'::json) \
    from pg_constraint k left join pg_class rc on rc.oid = k.confrelid left join pg_namespace rn on rn.oid = rc.relnamespace \
    where k.conrelid = c.oid), \
  'indexes', (select coalesce(json_agg(json_build_object( \
      'name', ic.relname, 'definition', pg_get_indexdef(i.indexrelid), 'unique', i.indisunique, \
      'primary', i.indisprimary, 'method', am.amname, \
      'constraint', exists (select from pg_constraint k where k.conindid = i.indexrelid and k.conrelid = c.oid)) \
      order by ic.relname), '[]'::json) \
    from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam where i.indrelid = c.oid) \
  )::text from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relname = $2";

/// `GET /studio/api/tables/{schema}/{table}/structure`:
/// `{rls, realtime, constraints: [{name, type, definition, columns, references}], indexes: [...]}`.
pub async fn structure(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, StudioError> {
    let (schema, name) = path.into_inner();
    let client = state.pools.admin.get().await?;
    relation(&client, &schema, &name).await?;
    let row = client.query_one(STRUCTURE, &[&schema, &name, &REALTIME_PUBLICATION]).await?;
    let body: Value = serde_json::from_str(row.get::<_, &str>(0)).map_err(StudioError::internal)?;
    Ok(HttpResponse::Ok().json(body))
}

/// The target must be a table the editor opens; a new table's schema must exist and not be
/// the dashboard's own.
async fn check_target(db: &impl GenericClient, ddl: &Ddl) -> Result<(), StudioError> {
    let (schema, table) = ddl.target();
    if schema == OWN_SCHEMA {
        return Err(StudioError::BadRequest("The dashboard's own schema is not edited here".into()));
    }
    if let Ddl::CreateTable { .. } = ddl {
        let exists = db.query_opt("select 1 from pg_namespace where nspname = $1", &[&schema]).await?;
        if exists.is_none() {
            return Err(StudioError::NotFound(format!("No schema {schema}")));
        }
        return Ok(());
    }
    relation(db, schema, table).await.map(drop)
}

#[derive(Deserialize)]
pub struct DdlBody {
    #[serde(flatten)]
    ddl: Ddl,
    #[serde(default)]
    dry_run: bool,
}

/// `POST /studio/api/ddl` `{op, ..., dry_run}`: `{sql, statements, expressions, applied}`.
/// `expressions` are the parts written as the operator typed them (defaults and checks given
/// as SQL), which the screen marks in the preview.
pub async fn run(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<DdlBody>,
) -> Result<HttpResponse, StudioError> {
    let built = ddl_sql::build(&body.ddl)?;
    let sql = built.statements.join(";\n") + ";";
    let mut client = state.pools.admin.get().await?;
    check_target(&client, &body.ddl).await?;
    let answer = |applied: bool| json!({ "sql": sql, "statements": built.statements, "expressions": built.expressions, "applied": applied });
    if body.dry_run {
        return Ok(HttpResponse::Ok().json(answer(false)));
    }
    let (schema, table) = body.ddl.target();
    let tx = client.transaction().await?;
    for statement in &built.statements {
        tx.execute(statement.as_str(), &[]).await?;
    }
    audit::record(&tx, &op, body.ddl.action(), Some(&format!("{schema}.{table}")), json!({ "sql": sql })).await?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(answer(true)))
}
