//! Database › Roles' writes: create a role, alter it, drop it, grant or revoke membership in
//! another role and table privileges. Each form's SQL is built by `roles_sql`, answered alone
//! with `dry_run` (the screen shows it before it runs), else run as the database owner with its
//! audit row in one transaction. The platform's roles, Postgres's and the one this server
//! connects as are refused with the reason; a password is sent as a verifier and the audit row
//! says `"password": "set"`, never what it was. The list itself is `database::roles`.

use actix_web::{web, HttpResponse};
use deadpool_postgres::GenericClient;
use serde::Deserialize;
use serde_json::{json, Value};

use super::audit;
use super::error::StudioError;
use super::roles_sql::{self as sql, Attributes, Built, Privilege, RoleSqlError};
use super::session::OperatorSession;
use crate::state::AppState;

impl From<RoleSqlError> for StudioError {
    fn from(err: RoleSqlError) -> StudioError {
        StudioError::BadRequest(err.to_string())
    }
}

/// The roles the admin pool's connection runs as (`current_user`, `session_user`).
pub async fn server_roles(db: &impl GenericClient) -> Result<Vec<String>, StudioError> {
    let row = db.query_one("select current_user::text, session_user::text", &[]).await?;
    Ok(vec![row.get(0), row.get(1)])
}

/// Whether a role exists, and whether it is a superuser.
async fn superuser(db: &impl GenericClient, name: &str) -> Result<Option<bool>, StudioError> {
    Ok(db.query_opt("select rolsuper from pg_roles where rolname = $1", &[&name]).await?.map(|r| r.get(0)))
}

/// An existing role the forms may edit.
async fn editable(db: &impl GenericClient, name: &str) -> Result<(), StudioError> {
    sql::check_name(name, &server_roles(db).await?)?;
    match superuser(db, name).await? {
        Some(_) => Ok(()),
        None => Err(StudioError::NotFound(format!("No role named {name}"))),
    }
}

/// Answers the SQL (`dry_run`), or runs it with its audit row.
async fn apply(
    state: &AppState,
    op: &OperatorSession,
    action: &str,
    target: &str,
    built: Built,
    dry_run: bool,
    detail: Value,
) -> Result<HttpResponse, StudioError> {
    let shown = built.shown_sql();
    if dry_run {
        return Ok(HttpResponse::Ok().json(json!({ "sql": shown, "applied": false })));
    }
    let mut detail = detail;
    detail["sql"] = json!(shown);
    if built.password_set {
        detail["password"] = json!("set");
    }
    let mut client = state.pools.admin.get().await?;
    let tx = client.transaction().await?;
    for statement in &built.run {
        tx.batch_execute(statement).await?;
    }
    audit::record(&tx, op, action, Some(target), detail).await?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(json!({ "sql": shown, "applied": true })))
}

/// A password's verifier, computed off the request thread (PBKDF2 with 4096 rounds); for a
/// preview an empty stand-in (only the shown text, which hides it, is answered).
async fn verifier_for(attrs: &Attributes, dry_run: bool) -> Result<Option<String>, StudioError> {
    match attrs.password.clone().filter(|p| !p.is_empty()) {
        Some(_) if dry_run => Ok(Some(String::new())),
        Some(password) => Ok(Some(
            tokio::task::spawn_blocking(move || sql::verifier(&password)).await.map_err(StudioError::internal)?,
        )),
        None => Ok(None),
    }
}

#[derive(Deserialize)]
pub struct CreateBody {
    name: String,
    #[serde(flatten)]
    attributes: Attributes,
    #[serde(default)]
    dry_run: bool,
}

/// `POST /studio/api/database/roles` `{name, login?, inherit?, create_db?, create_role?,
/// bypass_rls?, connection_limit?, valid_until?, password?, dry_run?}`: `{sql, applied}`;
/// audited `role.create`.
pub async fn create(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<CreateBody>,
) -> Result<HttpResponse, StudioError> {
    let body = body.into_inner();
    let name = body.name.trim();
    let client = state.pools.admin.get().await?;
    sql::check_name(name, &server_roles(&client).await?)?;
    if superuser(&client, name).await?.is_some() {
        return Err(StudioError::BadRequest(format!("A role named {name} already exists")));
    }
    drop(client);
    let verifier = verifier_for(&body.attributes, body.dry_run).await?;
    let built = sql::create_role(name, &body.attributes, verifier.as_deref())?;
    apply(&state, &op, "role.create", name, built, body.dry_run, json!({})).await
}

#[derive(Deserialize)]
pub struct AlterBody {
    #[serde(flatten)]
    attributes: Attributes,
    #[serde(default)]
    dry_run: bool,
}

/// `PATCH /studio/api/database/roles/{name}` `{login?, …, password?, clear_password?, dry_run?}`:
/// `{sql, applied}`; audited `role.alter`.
pub async fn alter(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    path: web::Path<String>,
    body: web::Json<AlterBody>,
) -> Result<HttpResponse, StudioError> {
    let name = path.into_inner();
    let body = body.into_inner();
    editable(&state.pools.admin.get().await?, &name).await?;
    let verifier = verifier_for(&body.attributes, body.dry_run).await?;
    let built = sql::alter_role(&name, &body.attributes, verifier.as_deref())?;
    apply(&state, &op, "role.alter", &name, built, body.dry_run, json!({})).await
}

#[derive(Deserialize)]
pub struct DropQuery {
    #[serde(default)]
    drop_owned: bool,
    #[serde(default)]
    dry_run: bool,
}

/// `DELETE /studio/api/database/roles/{name}?drop_owned=&dry_run=`: `{sql, applied}`; audited
/// `role.drop`.
pub async fn drop_role(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    path: web::Path<String>,
    query: web::Query<DropQuery>,
) -> Result<HttpResponse, StudioError> {
    let name = path.into_inner();
    editable(&state.pools.admin.get().await?, &name).await?;
    let built = sql::drop_role(&name, query.drop_owned);
    apply(&state, &op, "role.drop", &name, built, query.dry_run, json!({})).await
}

#[derive(Deserialize)]
pub struct MembershipBody {
    /// The role to grant (or revoke) to the one in the path.
    role: String,
    grant: bool,
    #[serde(default)]
    dry_run: bool,
}

/// `POST /studio/api/database/roles/{name}/membership` `{role, grant, dry_run?}`: `{sql,
/// applied}`; audited `role.grant` / `role.revoke`. A superuser role is not granted (its
/// members could `set role` to it).
pub async fn membership(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    path: web::Path<String>,
    body: web::Json<MembershipBody>,
) -> Result<HttpResponse, StudioError> {
    let name = path.into_inner();
    let client = state.pools.admin.get().await?;
    editable(&client, &name).await?;
    match superuser(&client, &body.role).await? {
        None => return Err(StudioError::NotFound(format!("No role named {}", body.role))),
        Some(true) if body.grant => {
            return Err(StudioError::BadRequest(format!(
                "{} is a superuser: membership in it is not granted here",
                body.role
            )))
        }
        Some(_) => {}
    }
    drop(client);
    let built = sql::membership(&name, &body.role, body.grant)?;
    let action = if body.grant { "role.grant" } else { "role.revoke" };
    apply(&state, &op, action, &name, built, body.dry_run, json!({ "role": body.role })).await
}

#[derive(Deserialize)]
pub struct PrivilegesBody {
    schema: String,
    /// One table of the schema; every table of it when absent.
    #[serde(default)]
    table: Option<String>,
    privileges: Vec<Privilege>,
    grant: bool,
    #[serde(default)]
    dry_run: bool,
}

/// `POST /studio/api/database/roles/{name}/privileges` `{schema, table?, privileges: [select |
/// insert | update | delete], grant, dry_run?}`: `{sql, applied}`; audited
/// `role.grant_privileges` / `role.revoke_privileges`.
pub async fn privileges(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    path: web::Path<String>,
    body: web::Json<PrivilegesBody>,
) -> Result<HttpResponse, StudioError> {
    let name = path.into_inner();
    let body = body.into_inner();
    let table = body.table.as_deref().map(str::trim).filter(|t| !t.is_empty());
    let client = state.pools.admin.get().await?;
    editable(&client, &name).await?;
    if client.query_opt("select 1 from pg_namespace where nspname = $1", &[&body.schema]).await?.is_none() {
        return Err(StudioError::NotFound(format!("No schema {}", body.schema)));
    }
    if let Some(table) = table {
        let found = client
            .query_opt(
                "select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace \
                 where n.nspname = $1 and c.relname = $2 and c.relkind in ('r', 'v', 'm', 'p', 'f')",
                &[&body.schema, &table],
            )
            .await?;
        if found.is_none() {
            return Err(StudioError::NotFound(format!("No table {}.{table}", body.schema)));
        }
    }
    drop(client);
    let built = sql::table_privileges(&name, &body.schema, table, &body.privileges, body.grant)?;
    let action = if body.grant { "role.grant_privileges" } else { "role.revoke_privileges" };
    let detail = json!({ "schema": body.schema, "table": table });
    apply(&state, &op, action, &name, built, body.dry_run, detail).await
}
