//! The web app at `/`: static files, client routes falling back to index.html, `/config.json`,
//! and API routes left untouched.

use serde_json::Value;

use crate::helpers::spawn_app_with;

#[tokio::test]
async fn the_site_is_served_with_a_fallback_for_client_routes() {
    let dir = std::env::temp_dir().join(format!("site-test-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>Accueil</title>").unwrap();
    std::fs::write(dir.join("assets/app.js"), "console.log(1)").unwrap();
    let web_dir = dir.clone();
    let app = spawn_app_with(move |c| c.web_dir = web_dir).await;

    let get = |path: &str| app.http.get(format!("{}{}", app.address, path)).send();
    let home = get("/").await.unwrap();
    assert_eq!(home.status().as_u16(), 200);
    assert!(home.text().await.unwrap().contains("Accueil"));
    let route = get("/profile/bookings").await.unwrap();
    assert_eq!(route.status().as_u16(), 200);
    assert!(route.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let asset = get("/assets/app.js").await.unwrap();
    assert_eq!(asset.status().as_u16(), 200);
    assert_eq!(asset.text().await.unwrap(), "console.log(1)");
    assert_eq!(get("/assets/missing.js").await.unwrap().status().as_u16(), 404);

    let config: Value = get("/config.json").await.unwrap().json().await.unwrap();
    assert_eq!(config["anonKey"], app.anon_key);
    assert_eq!(config["supabaseUrl"], app.address);

    let api = get("/rest/v1/nothing").await.unwrap();
    assert_eq!(api.status().as_u16(), 401, "the API keeps its own answers");
    let _ = std::fs::remove_dir_all(dir);
}
