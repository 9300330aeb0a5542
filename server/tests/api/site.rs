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
    // Pages rendered at build time, and the empty page for the other client routes.
    std::fs::create_dir_all(dir.join("fleet")).unwrap();
    std::fs::write(dir.join("fleet/index.html"), "<!doctype html><title>Notre flotte</title>").unwrap();
    std::fs::write(dir.join("shell.html"), "<!doctype html><title>Chargement</title>").unwrap();
    let big = "export const words = ['location', 'chauffeur', 'diagnostic'];\n".repeat(200);
    std::fs::write(dir.join("assets/big.js"), &big).unwrap();
    let web_dir = dir.clone();
    let app = spawn_app_with(move |c| c.web_dir = web_dir).await;

    let get = |path: &str| app.http.get(format!("{}{}", app.address, path)).send();
    let home = get("/").await.unwrap();
    assert_eq!(home.status().as_u16(), 200);
    assert!(home.text().await.unwrap().contains("Accueil"));
    let route = get("/profile/bookings").await.unwrap();
    assert_eq!(route.status().as_u16(), 200);
    assert!(route.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(route.text().await.unwrap().contains("Chargement"), "client routes get the empty page");
    for path in ["/fleet", "/fleet/"] {
        let page = get(path).await.unwrap();
        assert_eq!(page.status().as_u16(), 200, "{path}");
        assert!(page.text().await.unwrap().contains("Notre flotte"), "{path} gets its prerendered page");
    }
    let asset = get("/assets/app.js").await.unwrap();
    assert_eq!(asset.status().as_u16(), 200);
    assert_eq!(asset.text().await.unwrap(), "console.log(1)");
    assert_eq!(get("/assets/missing.js").await.unwrap().status().as_u16(), 404);

    // Hashed assets are cached for a year, pages revalidated; text is compressed when asked.
    let cache = |r: &reqwest::Response| r.headers()["cache-control"].to_str().unwrap().to_owned();
    assert_eq!(cache(&get("/assets/app.js").await.unwrap()), "public, max-age=31536000, immutable");
    assert_eq!(cache(&get("/").await.unwrap()), "no-cache");
    assert_eq!(cache(&get("/fleet").await.unwrap()), "no-cache");
    let gz =
        app.http.get(format!("{}/assets/big.js", app.address)).header("Accept-Encoding", "gzip").send().await.unwrap();
    assert_eq!(gz.headers()["content-encoding"], "gzip");
    let compressed = gz.bytes().await.unwrap();
    assert!(compressed.len() * 10 < big.len(), "{} compressed bytes for {}", compressed.len(), big.len());
    let plain = get("/assets/big.js").await.unwrap();
    assert!(plain.headers().get("content-encoding").is_none());
    assert_eq!(plain.text().await.unwrap(), big);

    let config: Value = get("/config.json").await.unwrap().json().await.unwrap();
    assert_eq!(config["anonKey"], app.anon_key);
    assert_eq!(config["supabaseUrl"], app.address);

    let api = app
        .http
        .get(format!("{}/rest/v1/nothing", app.address))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(api.status().as_u16(), 401, "the API keeps its own answers");
    assert!(api.headers().get("content-encoding").is_none(), "API answers are not compressed");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn paths_the_app_does_not_answer_are_404_with_its_page() {
    let dir = std::env::temp_dir().join(format!("site-test-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>Accueil</title>").unwrap();
    std::fs::write(dir.join("shell.html"), "<!doctype html><title>Chargement</title>").unwrap();
    std::fs::write(dir.join("routes.json"), r#"["/", "/fleet", "/fleet/:id", "/admin/*"]"#).unwrap();
    // the vehicle page, rendered ahead in its loading state, for every /fleet/<id>
    std::fs::create_dir_all(dir.join("fleet/_id")).unwrap();
    std::fs::write(dir.join("fleet/_id/index.html"), "<!doctype html><title>Véhicule</title>").unwrap();
    let web_dir = dir.clone();
    let app = spawn_app_with(move |c| c.web_dir = web_dir).await;
    let get = |path: &str| app.http.get(format!("{}{}", app.address, path)).send();

    for (path, status) in [("/admin/anything/here", 200), ("/page-inconnue", 404), ("/fleet/a/b", 404)] {
        let res = get(path).await.unwrap();
        assert_eq!(res.status().as_u16(), status, "{path}");
        assert!(
            res.text().await.unwrap().contains("Chargement"),
            "{path}: the app's page, which says « Page introuvable » itself"
        );
    }
    let vehicle = get("/fleet/5eed0000").await.unwrap();
    assert_eq!(vehicle.status().as_u16(), 200);
    assert!(
        vehicle.text().await.unwrap().contains("Véhicule"),
        "a vehicle's path gets the page rendered for /fleet/:id"
    );
    let _ = std::fs::remove_dir_all(dir);
}
