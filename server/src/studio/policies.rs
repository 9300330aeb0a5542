//! The policies screen's backend: a schema's tables with their row-level security switches,
//! policies (command, roles, `using`, `with check`, permissive or restrictive) and columns, in
//! one round trip; and the writes (create or replace a policy, drop one, switch RLS), each
//! built by `policy_sql`, answered as SQL only with `dry_run` (the screen shows it before it
//! runs), else run as the database owner on a table the table editor would open (not the
//! platform's) with its audit row in one transaction.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};

use super::audit;
use super::catalog::relation;
use super::error::StudioError;
use super::policy_sql::{self, Policy, PolicyError};
use super::session::OperatorSession;
use crate::state::AppState;

impl From<PolicyError> for StudioError {
    fn from(err: PolicyError) -> StudioError {
        StudioError::BadRequest(err.to_string())
    }
}

#[derive(Deserialize)]
pub struct InSchema {
    schema: String,
}

/// The tables of a schema (not the platform's), each with RLS flags, policies and columns.
const LIST: &str = "select coalesce(json_agg(t order by t.name), '[]'::json)::text from ( \
  select c.relname as name, c.relrowsecurity as rls, c.relforcerowsecurity as force_rls, \
    (select coalesce(json_agg(json_build_object('name', p.policyname, 'command', lower(p.cmd), \
       'roles', p.roles, 'permissive', p.permissive = 'PERMISSIVE', 'using', p.qual, 'with_check', p.with_check) \
       order by p.policyname), '[]'::json) \
     from pg_policies p where p.schemaname = n.nspname and p.tablename = c.relname) as policies, \
    (select coalesce(json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod)) \
       order by a.attnum), '[]'::json) \
     from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns \
  from pg_class c join pg_namespace n on n.oid = c.relnamespace \
  where n.nspname = $1 and c.relkind in ('r', 'p') and n.nspname <> '_studio') t";

/// `GET /studio/api/policies?schema=`: `{tables: [{name, rls, force_rls, policies, columns}]}`.
pub async fn list(state: web::Data<AppState>, q: web::Query<InSchema>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let row = client.query_one(LIST, &[&q.schema]).await?;
    let tables: Value = serde_json::from_str(row.get::<_, &str>(0)).map_err(StudioError::internal)?;
    Ok(HttpResponse::Ok().json(json!({ "tables": tables })))
}

/// Run `statements` as the owner with their audit row, or only show them (`dry_run`).
async fn apply(
    state: &AppState,
    op: &OperatorSession,
    statements: Vec<String>,
    dry_run: bool,
    action: &str,
    (schema, table): (&str, &str),
) -> Result<HttpResponse, StudioError> {
    let sql = statements.join(";\n") + ";";
    let target = format!("{schema}.{table}");
    let mut client = state.pools.admin.get().await?;
    relation(&client, schema, table).await?;
    if dry_run {
        return Ok(HttpResponse::Ok().json(json!({ "sql": sql, "applied": false })));
    }
    let tx = client.transaction().await?;
    for statement in &statements {
        tx.execute(statement.as_str(), &[]).await?;
    }
    audit::record(&tx, op, action, Some(&target), json!({ "sql": sql })).await?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(json!({ "sql": sql, "applied": true })))
}

#[derive(Deserialize)]
pub struct PutBody {
    policy: Policy,
    /// The name of the policy this one replaces (an edit).
    replaces: Option<String>,
    #[serde(default)]
    dry_run: bool,
}

/// `POST /studio/api/policies` `{policy, replaces, dry_run}`: `{sql, applied}`.
pub async fn put(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<PutBody>,
) -> Result<HttpResponse, StudioError> {
    let p = &body.policy;
    let statements = policy_sql::put(p, body.replaces.as_deref())?;
    let action = if body.replaces.is_some() { "policy.replace" } else { "policy.create" };
    apply(&state, &op, statements, body.dry_run, action, (&p.schema, &p.table)).await
}

#[derive(Deserialize)]
pub struct DropBody {
    schema: String,
    table: String,
    name: String,
    #[serde(default)]
    dry_run: bool,
}

/// `POST /studio/api/policies/drop` `{schema, table, name, dry_run}`: `{sql, applied}`.
pub async fn drop_policy(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<DropBody>,
) -> Result<HttpResponse, StudioError> {
    let statements = vec![policy_sql::drop(&body.schema, &body.table, &body.name)];
    apply(&state, &op, statements, body.dry_run, "policy.drop", (&body.schema, &body.table)).await
}

#[derive(Deserialize)]
pub struct RlsBody {
    schema: String,
    table: String,
    enabled: bool,
    #[serde(default)]
    dry_run: bool,
}

/// `POST /studio/api/policies/rls` `{schema, table, enabled, dry_run}`: `{sql, applied}`.
pub async fn rls(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<RlsBody>,
) -> Result<HttpResponse, StudioError> {
    let statements = vec![policy_sql::rls(&body.schema, &body.table, body.enabled)];
    let action = if body.enabled { "rls.enable" } else { "rls.disable" };
    apply(&state, &op, statements, body.dry_run, action, (&body.schema, &body.table)).await
}
