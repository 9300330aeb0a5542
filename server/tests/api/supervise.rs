//! The embedded PostgreSQL is started again when it dies (issue #12): the server binary runs
//! with its own cluster, the postmaster is killed with SIGKILL, and the server answers again
//! by itself, its data intact.

use std::time::Duration;

#[tokio::test]
async fn the_embedded_postgres_killed_with_sigkill_is_started_again_and_keeps_its_data() {
    let data_dir = std::env::temp_dir().join(format!("server-supervise-{}", std::process::id()));
    let dir = data_dir.to_string_lossy().to_string();
    let (mut child, url, anon) = crate::helpers::spawn_binary(&[("DATA_DIR", &dir), ("DB_PORT", "0")]).await;
    let http = reqwest::Client::new();
    let ready = || async {
        let res = http.get(format!("{url}/health/ready")).send().await;
        res.map(|r| r.status().as_u16() == 200).unwrap_or(false)
    };
    assert!(ready().await);
    let seen = |res: reqwest::Response| async move { (res.status().as_u16(), res.text().await.unwrap_or_default()) };
    let before =
        seen(http.get(format!("{url}/rest/v1/vehicles?select=id")).header("apikey", &anon).send().await.unwrap()).await;
    assert_eq!(before.0, 200);

    let pid_file = std::fs::read_to_string(data_dir.join("postgres/postmaster.pid")).expect("postmaster.pid");
    let pid: i32 = pid_file.lines().next().and_then(|l| l.trim().parse().ok()).expect("the postmaster's pid");
    // SAFETY: sends SIGKILL to the test's own embedded postmaster.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);

    // Back by itself: poll readiness (the server checks its cluster every second).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let alive = std::fs::read_to_string(data_dir.join("postgres/postmaster.pid"))
            .ok()
            .and_then(|t| t.lines().next().and_then(|l| l.trim().parse::<i32>().ok()))
            .is_some_and(|p| p != pid);
        if alive && ready().await {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the embedded PostgreSQL did not come back");
    }
    let after =
        seen(http.get(format!("{url}/rest/v1/vehicles?select=id")).header("apikey", &anon).send().await.unwrap()).await;
    assert_eq!(after, before, "the same answer as before the crash");

    // SIGTERM: the server stops its cluster on the way out.
    // SAFETY: signals the test's own child process.
    unsafe { libc::kill(child.id().expect("pid") as i32, libc::SIGTERM) };
    let _ = tokio::time::timeout(Duration::from_secs(60), child.wait()).await;
    let _ = std::fs::remove_dir_all(&data_dir);
}

#[tokio::test]
async fn a_start_refused_for_its_listener_leaves_no_embedded_postgres_running() {
    // Arrange: a cluster under a fresh DATA_DIR, and a congestion control no kernel offers.
    let data_dir = std::env::temp_dir().join(format!("server-refused-{}", uuid::Uuid::new_v4()));
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_server"));
    command
        .env_remove("DATABASE_URL")
        .env("DATA_DIR", &data_dir)
        .env("DB_PORT", "0")
        .env("PORT", "0")
        .env("WEB_DIR", "/nonexistent")
        .env("RUST_LOG", "warn")
        .env("TCP_CONGESTION", "no-such-algorithm");

    // Act
    let out = tokio::task::spawn_blocking(move || command.output()).await.unwrap().expect("run the server");

    // Assert: it stops with the setting's name, and no postmaster was left behind for it.
    assert!(!out.status.success(), "the start fails");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("TCP_CONGESTION=no-such-algorithm"), "{stderr}");
    let pgdata = data_dir.join("postgres");
    let left_running = server::db::embedded::postmaster_alive(&pgdata);
    if left_running {
        if let Some(pid) = std::fs::read_to_string(pgdata.join("postmaster.pid"))
            .ok()
            .and_then(|t| t.lines().next().and_then(|l| l.trim().parse::<i32>().ok()))
        {
            // SAFETY: stops the postmaster this test's server left behind, so it does not outlive the test.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
    }
    let _ = std::fs::remove_dir_all(&data_dir);
    assert!(!left_running, "an embedded cluster outlived the failed start");
}
