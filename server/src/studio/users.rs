//! The app's users as the dashboard looks them up (`auth.users`, read as the owner): the search
//! behind the SQL editor's "run as a user" picker.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::StudioError;
use crate::state::AppState;

#[derive(Deserialize)]
pub struct Search {
    #[serde(default)]
    q: String,
}

/// `GET /studio/api/users?q=`: up to 20 users whose e-mail, phone or id contains `q`, newest first.
pub async fn search(state: web::Data<AppState>, q: web::Query<Search>) -> Result<HttpResponse, StudioError> {
    let pattern = format!("%{}%", q.q.trim().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
    let client = state.pools.admin.get().await?;
    let rows = client
        .query(
            "select id, email, phone, created_at, is_anonymous from auth.users \
             where deleted_at is null and (email ilike $1 or phone ilike $1 or id::text ilike $1) \
             order by created_at desc limit 20",
            &[&pattern],
        )
        .await?;
    let users: Vec<Value> = rows
        .iter()
        .map(|r| {
            json!({
                "id": r.get::<_, uuid::Uuid>(0),
                "email": r.get::<_, Option<String>>(1),
                "phone": r.get::<_, Option<String>>(2),
                "created_at": r.get::<_, chrono::DateTime<chrono::Utc>>(3),
                "is_anonymous": r.get::<_, bool>(4),
            })
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "users": users })))
}
