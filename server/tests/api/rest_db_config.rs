//! PostgREST's in-database configuration: `alter role authenticator … set pgrst.…` read at start
//! and on `NOTIFY pgrst, 'reload config'`, the server's own settings winning. Each test sets the
//! role's settings for its own database only (`in database`), never the cluster's.

use reqwest::Method;

use crate::helpers::{json_of, spawn_app, spawn_app_with, TestApp};

async fn set_in_this_database(app: &TestApp, settings: &str) {
    let db: String = app.admin_query_one("select current_database()::text").await.get(0);
    for setting in settings.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        app.admin_sql(&format!("alter role authenticator in database {db} set {setting}")).await;
    }
}

async fn catalogue_rows(app: &TestApp) -> usize {
    let res = app.rest_req(Method::GET, "/airport_services?select=code", None).send().await.expect("request");
    let (status, body) = json_of(res).await;
    assert_eq!(status, 200, "{body}");
    body.as_array().map(Vec::len).unwrap_or_default()
}

#[tokio::test]
async fn db_max_rows_of_the_authenticator_role_caps_reads_after_reload_config() {
    // Arrange
    let app = spawn_app().await;
    assert_eq!(catalogue_rows(&app).await, 3);

    // Act
    set_in_this_database(&app, "pgrst.db_max_rows = '2'").await;
    app.admin_sql("notify pgrst, 'reload config'").await;

    // Assert: the listener applies it (it reads the notification on its own connection)
    let mut rows = 0;
    for _ in 0..100 {
        rows = catalogue_rows(&app).await;
        if rows == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(rows, 2);
}

#[tokio::test]
async fn plan_and_aggregates_can_be_enabled_in_the_database() {
    // Arrange
    let app = spawn_app().await;
    let plan = |app: &TestApp| {
        app.rest_req(Method::GET, "/airport_services?select=code", None)
            .header("Accept", "application/vnd.pgrst.plan+json")
            .send()
    };
    let count = |app: &TestApp| app.rest_req(Method::GET, "/airport_services?select=count()", None).send();
    assert_eq!(plan(&app).await.unwrap().status(), 406);
    assert_eq!(count(&app).await.unwrap().status(), 400);

    // Act
    set_in_this_database(&app, "pgrst.db_plan_enabled = 'true'; pgrst.db_aggregates_enabled = 'true'").await;
    app.rest.reload_config().await;

    // Assert
    assert_eq!(plan(&app).await.unwrap().status(), 200);
    let (status, body) = json_of(count(&app).await.unwrap()).await;
    assert_eq!((status, body), (200, serde_json::json!([{ "count": 3 }])));
}

#[tokio::test]
async fn the_servers_own_setting_wins_over_the_databases() {
    // Arrange: the server is given max_rows = 1
    let app = spawn_app_with(|c| c.rest.max_rows = Some(1)).await;

    // Act
    set_in_this_database(&app, "pgrst.db_max_rows = '2'; pgrst.db_tx_end = 'not-a-mode'").await;
    app.rest.reload_config().await;

    // Assert: 1 row, and the value that does not parse changed nothing
    assert_eq!(catalogue_rows(&app).await, 1);
    assert_eq!(app.rest.tunables().tx_end, "commit");
}

#[tokio::test]
async fn the_settings_of_the_database_apply_from_the_start() {
    // Arrange: a first server sets them on its database
    let first = spawn_app().await;
    set_in_this_database(&first, "pgrst.db_max_rows = '1'").await;

    // Act: a server started on that database
    let app = crate::helpers::spawn_app_on(first.db_url.clone(), |_| {}).await;

    // Assert
    assert_eq!(catalogue_rows(&app).await, 1);
}
