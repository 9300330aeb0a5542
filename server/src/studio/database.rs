//! The Database section's API (beside `backups`): roles with their attributes and memberships,
//! extensions installed and available (enabled and disabled here, the SQL shown first with
//! `dry_run`), the applied migrations of the project and of the platform, table sizes, and the
//! indexes that look unused or missing, from Postgres's statistics.
//!
//! Everything reads the catalog as the database owner on the admin pool; the only writes here
//! are the extension switches and updates, built by `database_sql` and committed with their
//! audit row (`extension.enable`, `extension.disable`, `extension.update`); roles are edited
//! by `roles`. Index suggestions are SQL to copy: nothing here
//! creates or drops an index.

use actix_web::{web, HttpResponse};
use deadpool_postgres::GenericClient;
use serde::Deserialize;
use serde_json::{json, Value};

use super::audit;
use super::database_sql as sql;
use super::error::StudioError;
use super::roles_sql;
use super::session::OperatorSession;
use crate::state::AppState;

/// A table is "large" for the missing-index hint from this many live rows.
const MANY_ROWS: i64 = 1000;

/// One of the catalog reads, parsed.
async fn read(
    db: &impl GenericClient,
    statement: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Value, StudioError> {
    let row = db.query_one(statement, params).await?;
    serde_json::from_str(row.get::<_, &str>(0)).map_err(StudioError::internal)
}

/// `GET /studio/api/database/roles`: `{roles: [{name, superuser, can_login, …, member_of,
/// connections, protected}]}`; `protected` says why the forms of `roles` refuse a role (null
/// when they may edit it).
pub async fn roles(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let server = super::roles::server_roles(&client).await?;
    let mut roles = read(&client, sql::ROLES, &[]).await?;
    for r in roles.as_array_mut().into_iter().flatten() {
        let why = roles_sql::protected(r["name"].as_str().unwrap_or_default(), &server);
        r["protected"] = json!(why);
    }
    Ok(HttpResponse::Ok().json(json!({ "roles": roles })))
}

/// `GET /studio/api/database/extensions`: `{extensions: [{name, default_version,
/// installed_version, schema, comment, versions, updates}]}`; `versions` every version the
/// server has, `updates` those an installed one can be updated to, both oldest first.
pub async fn extensions(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let mut list = read(&client, sql::EXTENSIONS, &[]).await?;
    for e in list.as_array_mut().into_iter().flatten() {
        for key in ["versions", "updates"] {
            if let Some(versions) = e[key].as_array_mut() {
                versions.sort_by(|a, b| sql::compare_versions(a.as_str().unwrap_or(""), b.as_str().unwrap_or("")));
            }
        }
    }
    Ok(HttpResponse::Ok().json(json!({ "extensions": list })))
}

#[derive(Deserialize)]
pub struct Update {
    name: String,
    /// The version to reach; the extension's default version when unset.
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    dry_run: bool,
}

/// `POST /studio/api/database/extensions/update` `{name, version?, dry_run?}`: `{sql, applied}`;
/// audited `extension.update`. The extension must be installed and the version one its update
/// scripts reach from the installed one.
pub async fn update_extension(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<Update>,
) -> Result<HttpResponse, StudioError> {
    let body = body.into_inner();
    let mut client = state.pools.admin.get().await?;
    let installed = client
        .query_opt(
            "select e.extversion, a.default_version from pg_extension e \
             join pg_available_extensions a on a.name = e.extname where e.extname = $1",
            &[&body.name],
        )
        .await?;
    let Some(installed) = installed else {
        return Err(StudioError::BadRequest(format!("The extension {:?} is not installed", body.name)));
    };
    let (current, default): (String, Option<String>) = (installed.get(0), installed.get(1));
    let version = body.version.as_deref().map(str::trim).filter(|v| !v.is_empty());
    let target = version.map(str::to_string).or(default).unwrap_or_default();
    let reachable = client
        .query_opt(
            "select 1 from pg_extension_update_paths($1) where source = $2 and target = $3 and path is not null",
            &[&body.name, &current, &target],
        )
        .await?
        .is_some();
    if !reachable {
        return Err(StudioError::BadRequest(format!(
            "{} {current} cannot be updated to {target:?}: no update script leads there",
            body.name
        )));
    }
    let statement = sql::update_extension(&body.name, version);
    if body.dry_run {
        return Ok(HttpResponse::Ok().json(json!({"sql": format!("{statement};"), "applied": false})));
    }
    let tx = client.transaction().await?;
    tx.batch_execute(&statement).await?;
    let detail = json!({"sql": statement, "from": current, "to": target});
    audit::record(&tx, &op, "extension.update", Some(&body.name), detail).await?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(json!({"sql": format!("{statement};"), "applied": true})))
}

#[derive(Deserialize)]
pub struct Switch {
    name: String,
    enabled: bool,
    /// Where to create it (enable only); `extensions` when unset, as Supabase does.
    #[serde(default)]
    schema: Option<String>,
    /// Drop what depends on it too (disable only).
    #[serde(default)]
    cascade: bool,
    /// Answer the SQL without running it.
    #[serde(default)]
    dry_run: bool,
}

/// `POST /studio/api/database/extensions` `{name, enabled, schema, cascade, dry_run}`: `{sql, applied}`.
/// The name must be one of `pg_available_extensions`.
pub async fn switch_extension(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<Switch>,
) -> Result<HttpResponse, StudioError> {
    let body = body.into_inner();
    let mut client = state.pools.admin.get().await?;
    let known =
        client.query_opt("select 1 from pg_available_extensions where name = $1", &[&body.name]).await?.is_some();
    if !known {
        return Err(StudioError::BadRequest(format!("No extension named {:?} is available on this server", body.name)));
    }
    let statement = if body.enabled {
        let schema = body.schema.as_deref().map(str::trim).filter(|s| !s.is_empty()).unwrap_or("extensions");
        sql::create_extension(&body.name, Some(schema))
    } else {
        sql::drop_extension(&body.name, body.cascade)
    };
    if body.dry_run {
        return Ok(HttpResponse::Ok().json(json!({"sql": format!("{statement};"), "applied": false})));
    }
    let tx = client.transaction().await?;
    tx.batch_execute(&statement).await?;
    let action = if body.enabled { "extension.enable" } else { "extension.disable" };
    audit::record(&tx, &op, action, Some(&body.name), json!({"sql": statement})).await?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(json!({"sql": format!("{statement};"), "applied": true})))
}

/// `GET /studio/api/database/migrations`: `{project: [{version, name, statements}] | null,
/// platform: [{version, name, applied_on}]}`; `project` is null when no project migration was
/// ever applied (no `supabase_migrations.schema_migrations`).
pub async fn migrations(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let has = |table: &'static str| {
        let client = &client;
        async move {
            let row = client.query_one("select to_regclass($1) is not null", &[&table]).await?;
            Ok::<bool, StudioError>(row.get(0))
        }
    };
    let project = if has("supabase_migrations.schema_migrations").await? {
        read(&client, sql::PROJECT_MIGRATIONS, &[]).await?
    } else {
        Value::Null
    };
    let platform = if has("supabase_migrations.refinery_history").await? {
        read(&client, sql::PLATFORM_MIGRATIONS, &[]).await?
    } else {
        json!([])
    };
    Ok(HttpResponse::Ok().json(json!({ "project": project, "platform": platform })))
}

/// `GET /studio/api/database/table-sizes`: `{tables: [{schema, name, kind, total_bytes,
/// table_bytes, index_bytes, toast_bytes, estimated_rows, seq_scan, idx_scan}]}`, biggest first.
pub async fn table_sizes(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    Ok(HttpResponse::Ok().json(json!({ "tables": read(&client, &sql::table_sizes(), &[]).await? })))
}

/// `GET /studio/api/database/indexes`: `{unused: [{…, drop_sql}], seq_scanned: [{…, create_sql}],
/// unindexed_foreign_keys: [{…, create_sql}], stats_reset}`. The SQL is suggested, never run.
pub async fn indexes(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let mut unused = read(&client, &sql::unused_indexes(), &[]).await?;
    for i in unused.as_array_mut().into_iter().flatten() {
        let statement =
            sql::drop_index(i["schema"].as_str().unwrap_or_default(), i["name"].as_str().unwrap_or_default());
        i["drop_sql"] = json!(statement);
    }
    let mut seq = read(&client, &sql::seq_scanned_tables(), &[&MANY_ROWS]).await?;
    for t in seq.as_array_mut().into_iter().flatten() {
        // The column is the operator's to choose (the one the slow queries filter on): the
        // suggestion names the first column as a placeholder to edit.
        let first = t["columns"].get(0).and_then(Value::as_str).unwrap_or("column").to_string();
        let create = sql::create_index(
            t["schema"].as_str().unwrap_or_default(),
            t["name"].as_str().unwrap_or_default(),
            &[first],
        );
        t["create_sql"] = json!(format!("-- pick the column(s) your slow queries filter or join on\n{create}"));
    }
    let mut fks = read(&client, &sql::unindexed_foreign_keys(), &[]).await?;
    for f in fks.as_array_mut().into_iter().flatten() {
        let columns: Vec<String> =
            f["columns"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect();
        let create = sql::create_index(
            f["schema"].as_str().unwrap_or_default(),
            f["table"].as_str().unwrap_or_default(),
            &columns,
        );
        f["create_sql"] = json!(create);
    }
    let reset: Option<chrono::DateTime<chrono::Utc>> = client
        .query_one("select stats_reset from pg_stat_database where datname = current_database()", &[])
        .await?
        .get(0);
    Ok(HttpResponse::Ok().json(json!({
        "unused": unused,
        "seq_scanned": seq,
        "unindexed_foreign_keys": fks,
        "many_rows": MANY_ROWS,
        "stats_reset": reset,
    })))
}
