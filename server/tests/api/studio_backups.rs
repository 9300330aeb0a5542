//! The dashboard's Backups screen API (`/studio/api/backups…`): on a served project with real
//! pgBackRest, an operator lists the backups, takes one, verifies the latest and restores one
//! into a folder (bad folders and an unconfirmed restore refused); every write is audited. With
//! `DATABASE_URL` the screen says why there are no backups and refuses to act.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use crate::backup::{socket_url, stop_postmaster, Site};
use crate::helpers::connect;
use crate::helpers::spawn_app;
use crate::studio::Studio;

const EMAIL: &str = "backups@studio.test";
const PASSWORD: &str = "correct horse battery";

/// A signed-in dashboard client of the server at `url`.
struct Operator {
    http: reqwest::Client,
    url: String,
    studio: Studio,
}

impl Operator {
    async fn sign_in(url: &str) -> Operator {
        let http = reqwest::Client::new();
        let studio = Studio::sign_in(&http, url, EMAIL, PASSWORD).await;
        Operator { http, url: url.to_string(), studio }
    }

    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        self.studio.call_at(&self.http, &self.url, method, &format!("/studio/api{path}"), body).await
    }
}

#[tokio::test]
async fn an_operator_lists_takes_verifies_and_restores_backups_from_the_dashboard() {
    let mut site = Site::new("studio");
    let env = site.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let (mut child, url, _) = crate::helpers::spawn_binary(&env).await;
    site.ok(&["studio", "operators", "add", EMAIL, "--password", PASSWORD], &[]).await;
    let op = Operator::sign_in(&url).await;

    // The first full backup, listed with its type, times and sizes.
    let deadline = Instant::now() + Duration::from_secs(120);
    let listed = loop {
        let (status, body) = op.call(Method::GET, "/backups", None).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["enabled"], true, "{body}");
        if body["backups"].as_array().is_some_and(|b| !b.is_empty()) {
            break body;
        }
        assert!(Instant::now() < deadline, "no first backup: {body}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let first = &listed["backups"][0];
    assert_eq!(first["type"], "full");
    assert!(first["stopped_at"].as_i64().unwrap() >= first["started_at"].as_i64().unwrap());
    assert!(first["database_bytes"].as_u64().unwrap() > 0);
    assert_eq!(listed["repository"], site.repo.display().to_string());
    assert_eq!(listed["encrypted"], false);
    assert!(listed["status"]["wal_archive_lag_seconds"].is_i64(), "{listed}");

    // Take one now; a type that does not exist is refused.
    let (status, body) = op.call(Method::POST, "/backups", Some(json!({"kind": "weekly"}))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (400, Some("bad_request")), "{body}");
    let (status, taken) = op.call(Method::POST, "/backups", Some(json!({"kind": "incr"}))).await;
    assert_eq!(status, 201, "{taken}");
    let label = taken["label"].as_str().unwrap().to_string();
    assert!(label.ends_with('I'), "an incremental backup: {label}");
    let (_, after) = op.call(Method::GET, "/backups", None).await;
    let labels: Vec<&str> = after["backups"].as_array().unwrap().iter().filter_map(|b| b["label"].as_str()).collect();
    assert_eq!(labels.last(), Some(&label.as_str()), "{after}");

    // Verify the latest: restored, compared with the counts recorded when it was taken.
    let (status, verified) = op.call(Method::POST, "/backups/verify", None).await;
    assert_eq!(status, 200, "{verified}");
    assert_eq!(verified["ok"], true, "{verified}");
    assert_eq!(verified["label"], label.as_str());
    assert!(verified["compared"].as_u64().is_some_and(|n| n > 0), "{verified}");
    let (_, state) = op.call(Method::GET, "/backups", None).await;
    assert_eq!(state["status"]["last_verify_ok"], true, "{state}");

    // Restore into a folder: refused unconfirmed, relative, or onto the live data.
    let target = site.data.parent().unwrap().join("from-studio");
    site.extra.push(target.clone());
    let dir = target.display().to_string();
    let data = site.data.display().to_string();
    for (body, why) in [
        (json!({"target_dir": dir, "label": label}), "Confirm"),
        (json!({"target_dir": "relative/x", "label": label, "confirm": true}), "absolute"),
        (json!({"target_dir": data, "label": label, "confirm": true}), "live data folder"),
    ] {
        let (status, answer) = op.call(Method::POST, "/backups/restore", Some(body)).await;
        assert_eq!(status, 400, "{answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains(why), "{answer}");
    }
    let (status, restored) = op
        .call(Method::POST, "/backups/restore", Some(json!({"target_dir": dir, "label": label, "confirm": true})))
        .await;
    assert_eq!(status, 200, "{restored}");
    let restored_url = restored["url"].as_str().expect("the restored cluster runs");
    let copy = connect(restored_url).await;
    let ours: i64 =
        copy.query_one("select count(*) from _studio.operators where email = $1", &[&EMAIL]).await.unwrap().get(0);
    assert_eq!(ours, 1, "the restored database is the project's, with the operator added before the backup");
    drop(copy);
    stop_postmaster(&target.join("postgres"));

    // Every write is in the audit log.
    let db = connect(&socket_url(&site.data)).await;
    let actions: Vec<String> = db
        .query("select action from _studio.audit_log where action like 'backup.%' order by id", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(actions, ["backup.take", "backup.verify", "backup.restore"]);
    let _ = child.kill().await;
}

#[tokio::test]
async fn with_an_external_database_the_screen_says_why_and_refuses_to_act() {
    let app = spawn_app().await;
    let hash = server::auth::password::hash_blocking(PASSWORD).expect("hash");
    app.admin_sql(&format!("insert into _studio.operators (email, password_hash) values ('{EMAIL}', '{hash}')")).await;
    let op = Operator::sign_in(&app.address).await;
    let (status, body) = op.call(Method::GET, "/backups", None).await;
    assert_eq!(status, 200);
    assert_eq!(body["enabled"], false);
    assert!(body["reason"].as_str().unwrap().contains("DATABASE_URL"), "{body}");
    for (path, payload) in [
        ("/backups", json!({"kind": "full"})),
        ("/backups/verify", json!({})),
        ("/backups/restore", json!({"target_dir": "/tmp/x", "confirm": true})),
    ] {
        let (status, answer) = op.call(Method::POST, path, Some(payload)).await;
        assert_eq!(status, 400, "{path}: {answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains("DATABASE_URL"), "{path}: {answer}");
    }
}
