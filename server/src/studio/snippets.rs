//! The SQL editor's saved snippets (`_studio.snippets`): named statements, each the operator's
//! own (another operator's are neither listed nor reachable by id). Create, rename or update,
//! delete; each write commits with its audit row (`snippet.create`, `snippet.update`,
//! `snippet.delete`). A name is unique per operator (case aside): a clash is a 400 that says so.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

use super::audit;
use super::error::StudioError;
use super::session::OperatorSession;
use crate::state::AppState;

/// The longest snippet kept (characters).
const MAX_SQL: usize = 200_000;

fn snippet_json(row: &tokio_postgres::Row) -> Value {
    json!({
        "id": row.get::<_, Uuid>(0),
        "name": row.get::<_, String>(1),
        "sql": row.get::<_, String>(2),
        "created_at": row.get::<_, chrono::DateTime<chrono::Utc>>(3),
        "updated_at": row.get::<_, chrono::DateTime<chrono::Utc>>(4),
    })
}

const COLUMNS: &str = "id, name, sql, created_at, updated_at";

/// A name as kept: trimmed, 1 to 200 characters.
fn clean_name(name: &str) -> Result<String, StudioError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(StudioError::BadRequest("A snippet needs a name of 1 to 200 characters".into()));
    }
    Ok(name.to_string())
}

fn check_sql(sql: &str) -> Result<(), StudioError> {
    if sql.chars().count() > MAX_SQL {
        return Err(StudioError::BadRequest(format!("A snippet holds at most {MAX_SQL} characters")));
    }
    Ok(())
}

/// A unique-name clash as the operator should read it; other errors as they are.
fn clash(err: tokio_postgres::Error, name: &str) -> StudioError {
    if err.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) {
        return StudioError::BadRequest(format!("You already have a snippet named {name:?}"));
    }
    err.into()
}

/// `GET /studio/api/snippets`: `{snippets: [{id, name, sql, created_at, updated_at}]}`, by name.
pub async fn list(state: web::Data<AppState>, op: web::ReqData<OperatorSession>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let rows = client
        .query(
            &format!("select {COLUMNS} from _studio.snippets where operator_id = $1 order by lower(name), id"),
            &[&op.operator_id],
        )
        .await?;
    Ok(HttpResponse::Ok().json(json!({ "snippets": rows.iter().map(snippet_json).collect::<Vec<_>>() })))
}

#[derive(Deserialize)]
pub struct New {
    name: String,
    sql: String,
}

/// `POST /studio/api/snippets` `{name, sql}`: 201 `{snippet}`.
pub async fn create(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<New>,
) -> Result<HttpResponse, StudioError> {
    let name = clean_name(&body.name)?;
    check_sql(&body.sql)?;
    let mut client = state.pools.admin.get().await?;
    let tx = client.transaction().await?;
    let row = tx
        .query_one(
            &format!("insert into _studio.snippets (operator_id, name, sql) values ($1, $2, $3) returning {COLUMNS}"),
            &[&op.operator_id, &name, &body.sql],
        )
        .await
        .map_err(|e| clash(e, &name))?;
    let id: Uuid = row.get(0);
    audit::record(&tx, &op, "snippet.create", Some(&id.to_string()), json!({"name": name})).await?;
    tx.commit().await?;
    Ok(HttpResponse::Created().json(json!({ "snippet": snippet_json(&row) })))
}

#[derive(Deserialize)]
pub struct Change {
    name: Option<String>,
    sql: Option<String>,
}

/// `PATCH /studio/api/snippets/{id}` `{name?, sql?}`: `{snippet}` (a rename, a save, or both).
pub async fn update(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    id: web::Path<Uuid>,
    body: web::Json<Change>,
) -> Result<HttpResponse, StudioError> {
    let name = body.name.as_deref().map(clean_name).transpose()?;
    if let Some(sql) = &body.sql {
        check_sql(sql)?;
    }
    if name.is_none() && body.sql.is_none() {
        return Err(StudioError::BadRequest("Give a new name, new SQL, or both".into()));
    }
    let mut client = state.pools.admin.get().await?;
    let tx = client.transaction().await?;
    let row = tx
        .query_opt(
            &format!(
                "update _studio.snippets set name = coalesce($3, name), sql = coalesce($4, sql), updated_at = now() \
                 where id = $1 and operator_id = $2 returning {COLUMNS}"
            ),
            &[&*id, &op.operator_id, &name, &body.sql],
        )
        .await
        .map_err(|e| clash(e, name.as_deref().unwrap_or_default()))?
        .ok_or_else(|| StudioError::NotFound("No such snippet".into()))?;
    let detail = json!({"name": row.get::<_, String>(1), "renamed": name.is_some(), "sql_changed": body.sql.is_some()});
    audit::record(&tx, &op, "snippet.update", Some(&id.to_string()), detail).await?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(json!({ "snippet": snippet_json(&row) })))
}

/// `DELETE /studio/api/snippets/{id}`: 204.
pub async fn delete(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, StudioError> {
    let mut client = state.pools.admin.get().await?;
    let tx = client.transaction().await?;
    let row = tx
        .query_opt(
            "delete from _studio.snippets where id = $1 and operator_id = $2 returning name",
            &[&*id, &op.operator_id],
        )
        .await?
        .ok_or_else(|| StudioError::NotFound("No such snippet".into()))?;
    audit::record(&tx, &op, "snippet.delete", Some(&id.to_string()), json!({"name": row.get::<_, String>(0)})).await?;
    tx.commit().await?;
    Ok(HttpResponse::NoContent().finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(clean_name("  daily report ").unwrap(), "daily report");
        assert!(clean_name("   ").is_err());
        assert!(clean_name(&"x".repeat(201)).is_err());
        assert!(clean_name(&"é".repeat(200)).is_ok());
    }
}
