//! The server process's memory after password work (issue #12): each argon2 hash takes 19 MiB,
//! and the allocator used to keep them (0.5 GB after 40 sign-ins, for good). The server binary
//! runs as its own process here, so its resident memory is its alone.

use serde_json::json;

use crate::helpers::fresh_database;

fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("process status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS line");
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("VmRSS value")
}

#[tokio::test]
async fn memory_comes_back_down_after_many_password_sign_ins() {
    let db_url = fresh_database().await;
    let data_dir = std::env::temp_dir().join(format!("server-memory-{}", std::process::id()));
    let secret = server::keys::random_secret();
    let dir = data_dir.to_string_lossy().to_string();
    let (mut child, url, anon) = crate::helpers::spawn_binary(&[
        ("DATABASE_URL", &db_url),
        ("JWT_SECRET", &secret),
        ("DATA_DIR", &dir),
        ("MAILER_AUTOCONFIRM", "true"),
        ("RATE_LIMIT_TOKEN_REFRESH", "0"),
        ("RATE_LIMIT_OTP", "0"),
    ])
    .await;
    let pid = child.id().expect("pid");
    let http = reqwest::Client::new();
    let credentials = json!({"email": "memory@example.test", "password": "secret-123"});
    let signup = http.post(format!("{url}/auth/v1/signup")).header("apikey", &anon).json(&credentials).send().await;
    assert!(signup.expect("sign up").status().is_success());
    let fresh = resident_kib(pid);

    for _ in 0..10 {
        let batch = (0..4).map(|_| {
            http.post(format!("{url}/auth/v1/token?grant_type=password"))
                .header("apikey", &anon)
                .json(&credentials)
                .send()
        });
        for res in futures_util::future::join_all(batch).await {
            assert!(res.expect("sign in").status().is_success());
        }
    }
    let after = resident_kib(pid);

    // 40 hashes of 19 MiB each, four at a time: what stays must be far less than one batch.
    assert!(after < fresh + 40 * 1024, "resident memory went from {fresh} KiB to {after} KiB after 40 sign-ins");
    child.kill().await.expect("stop the server");
    let _ = std::fs::remove_dir_all(&data_dir);
}
