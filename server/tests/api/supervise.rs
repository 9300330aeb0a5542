//! The embedded PostgreSQL is started again when it dies (issue #12): the server binary runs
//! with its own cluster, the postmaster is killed with SIGKILL, and the server answers again
//! by itself, its data intact. Also what the binary does with a cluster of its own at its start,
//! stop and rest: a refused start leaves no Postgres behind, a stop is quiet, an idle server
//! writes no WAL.

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

/// Runs the server binary under `data_dir` with `env` until it exits; its exit status, its
/// standard error, and whether a postmaster is running for `data_dir` afterwards.
async fn start_and_exit(data_dir: &std::path::Path, env: &[(&str, &str)]) -> (std::process::ExitStatus, String, bool) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_server"));
    command
        .env_remove("DATABASE_URL")
        .env("DATA_DIR", data_dir)
        .env("DB_PORT", "0")
        .env("PORT", "0")
        .env("WEB_DIR", "/nonexistent")
        .env("RUST_LOG", "warn")
        .env("BACKUP_ENABLED", "false")
        .envs(env.iter().copied());
    let out = tokio::task::spawn_blocking(move || command.output()).await.expect("join").expect("run the server");
    let running = server::db::embedded::postmaster_alive(&data_dir.join("postgres"));
    (out.status, String::from_utf8_lossy(&out.stderr).into_owned(), running)
}

/// Stops the postmaster a test left under `data_dir`, if any, and removes the directory.
fn clean_up(data_dir: &std::path::Path) {
    let pgdata = data_dir.join("postgres");
    if server::db::embedded::postmaster_alive(&pgdata) {
        if let Some(pid) = std::fs::read_to_string(pgdata.join("postmaster.pid"))
            .ok()
            .and_then(|t| t.lines().next().and_then(|l| l.trim().parse::<i32>().ok()))
        {
            // SAFETY: stops the postmaster of this test's own cluster, so it does not outlive the test.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
    }
    let _ = std::fs::remove_dir_all(data_dir);
}

#[tokio::test]
async fn a_start_refused_for_its_listener_leaves_no_embedded_postgres_running() {
    // Arrange: a fresh DATA_DIR, and a congestion control no kernel offers.
    let data_dir = std::env::temp_dir().join(format!("server-refused-{}", uuid::Uuid::new_v4()));

    // Act
    let (status, stderr, left_running) = start_and_exit(&data_dir, &[("TCP_CONGESTION", "no-such-algorithm")]).await;
    clean_up(&data_dir);

    // Assert: it stops with the setting's name, and no postmaster was left behind for it.
    assert!(!status.success(), "the start fails");
    assert!(stderr.contains("TCP_CONGESTION=no-such-algorithm"), "{stderr}");
    assert!(!left_running, "an embedded cluster outlived the failed start");
}

#[tokio::test]
async fn a_start_that_fails_after_its_migrations_stops_the_cluster_it_started() {
    // Arrange: a fresh DATA_DIR, and a REST secret said to be base64 that is not, which the start
    // finds only once the cluster runs and the migrations are applied.
    let data_dir = std::env::temp_dir().join(format!("server-late-failure-{}", uuid::Uuid::new_v4()));
    let env = [("PGRST_JWT_SECRET_IS_BASE64", "true"), ("PGRST_JWT_SECRET", "not base64 at all!")];

    // Act
    let (status, stderr, left_running) = start_and_exit(&data_dir, &env).await;
    let migrated = data_dir.join("postgres/PG_VERSION").exists();
    clean_up(&data_dir);

    // Assert
    assert!(!status.success(), "the start fails");
    assert!(stderr.contains("PGRST_JWT_SECRET is not base64"), "{stderr}");
    assert!(migrated, "the premise: the start got as far as creating the cluster");
    assert!(!left_running, "an embedded cluster outlived the failed start");
}

#[tokio::test]
async fn a_failed_start_leaves_a_cluster_it_found_running() {
    // Arrange: the cluster started on its own first (`server db start`), as `make test` does.
    let data_dir = std::env::temp_dir().join(format!("server-found-running-{}", uuid::Uuid::new_v4()));
    let started = std::process::Command::new(env!("CARGO_BIN_EXE_server"))
        .args(["db", "start"])
        .env_remove("DATABASE_URL")
        .env("DATA_DIR", &data_dir)
        .env("DB_PORT", "0")
        .env("RUST_LOG", "warn")
        .output()
        .expect("server db start");
    assert!(started.status.success(), "{}", String::from_utf8_lossy(&started.stderr));
    let env = [("PGRST_JWT_SECRET_IS_BASE64", "true"), ("PGRST_JWT_SECRET", "not base64 at all!")];

    // Act
    let (status, _, left_running) = start_and_exit(&data_dir, &env).await;
    clean_up(&data_dir);

    // Assert: the server did not start, and the cluster someone else started still runs.
    assert!(!status.success(), "the start fails");
    assert!(left_running, "a failed start stopped a cluster it had not started");
}

#[tokio::test]
async fn a_stop_by_sigterm_prints_no_warning_for_the_connections_its_cluster_s_stop_closes() {
    use tokio::io::AsyncBufReadExt;
    // Arrange: the server binary on a cluster of its own, its standard error in a file.
    let data_dir = std::env::temp_dir().join(format!("server-quiet-stop-{}", uuid::Uuid::new_v4()));
    let log_path = data_dir.with_extension("log");
    let log = std::fs::File::create(&log_path).expect("the log file");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_server"))
        .env_remove("DATABASE_URL")
        .env("DATA_DIR", &data_dir)
        .env("DB_PORT", "0")
        .env("PORT", "0")
        .env("WEB_DIR", "/nonexistent")
        .env("RUST_LOG", "info")
        .env("BACKUP_ENABLED", "false")
        .env("SUPABASE_PROJECT_DIR", crate::helpers::rental_project())
        .stdout(std::process::Stdio::piped())
        .stderr(log)
        .kill_on_drop(true)
        .spawn()
        .expect("start the server binary");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(120), lines.next_line()).await.expect("started");
        if let Some(url) = line.expect("stdout").expect("a line").strip_prefix("API URL: ") {
            break url.to_string();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    let http = reqwest::Client::new();
    let ready = http.get(format!("{url}/health/ready")).send().await.map(|r| r.status().as_u16());
    assert_eq!(ready.ok(), Some(200));

    // Act: SIGTERM, as a service manager stops it.
    // SAFETY: signals the test's own child process.
    unsafe { libc::kill(child.id().expect("pid") as i32, libc::SIGTERM) };
    let status = tokio::time::timeout(Duration::from_secs(60), child.wait()).await.expect("stopped").expect("status");
    let stderr = std::fs::read_to_string(&log_path).unwrap_or_default();
    let left_running = server::db::embedded::postmaster_alive(&data_dir.join("postgres"));
    clean_up(&data_dir);
    let _ = std::fs::remove_file(&log_path);

    // Assert: a clean exit with its cluster stopped, and no warning from the listeners, pools and
    // outbox that lost their database on the way (each used to say so).
    assert!(status.success(), "{status}: {stderr}");
    assert!(!left_running, "the embedded cluster outlived the server");
    let (_, after) = stderr.split_once("shutdown signal received").expect("the stop is logged");
    assert!(after.contains("embedded PostgreSQL stopped"), "{after}");
    assert!(!after.lines().any(|line| line.contains("WARN")), "{after}");
}

#[tokio::test]
async fn an_idle_server_writes_nothing_to_the_wal_so_no_segment_is_switched_and_archived() {
    // Arrange: the server binary on a cluster of its own (realtime on, as by default; the
    // reports' sampler every 5 s instead of 60, so that the watch below sees three of its rounds),
    // asked once.
    let data_dir = std::env::temp_dir().join(format!("server-idle-wal-{}", uuid::Uuid::new_v4()));
    let dir = data_dir.to_string_lossy().to_string();
    let (mut child, url, _) =
        crate::helpers::spawn_binary(&[("DATA_DIR", &dir), ("DB_PORT", "0"), ("REPORTS_SAMPLE_SECS", "5")]).await;
    let ready = reqwest::get(format!("{url}/health/ready")).await.map(|r| r.status().as_u16());
    assert_eq!(ready.ok(), Some(200));
    let cluster = server::db::embedded::EmbeddedPostgres::new(&data_dir, 0, None).expect("the cluster");
    let db = crate::helpers::connect(&cluster.socket_url()).await;
    let lsn = || async {
        let row = db.query_one("select pg_current_wal_lsn()::text", &[]).await.expect("the WAL position");
        row.get::<_, String>(0)
    };

    // Act: watch the WAL's position once a second until it has stood still for 16 s (three of the
    // relay's beats and of the sampler's rounds, each of which used to write a commit), for 3
    // minutes at most (the start's own writes and autovacuum's first analyses settle first).
    let quiet = Duration::from_secs(16);
    let deadline = std::time::Instant::now() + Duration::from_secs(180);
    let (mut last, mut since, mut moves) = (lsn().await, std::time::Instant::now(), 0);
    let stood_still = loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let now = lsn().await;
        if now != last {
            (last, since, moves) = (now, std::time::Instant::now(), moves + 1);
        } else if since.elapsed() >= quiet {
            break true;
        }
        if std::time::Instant::now() > deadline {
            break false;
        }
    };
    let _ = child.kill().await;
    clean_up(&data_dir);

    // Assert: an idle server, alone on its database, lets the WAL stand still.
    assert!(stood_still, "the WAL moved {moves} times in 3 minutes and never stood still for {quiet:?}");
}
