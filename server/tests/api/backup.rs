//! Backups and point-in-time recovery (issue #47) with the real pgBackRest and PostgreSQL: the
//! server binary runs with a data directory of its own and archives its WAL; the tests restore
//! to a time, after a lost disk, without the key of an encrypted repository, after retention,
//! and from a corrupted backup.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use object_store::ObjectStore as _;
use tokio_postgres::Client;

use crate::helpers::{connect, free_port, moto_server, KillOnDrop};

/// A data directory (and a repository folder beside it) removed, with its clusters, when dropped.
pub(crate) struct Site {
    pub(crate) data: PathBuf,
    pub(crate) repo: PathBuf,
    pub(crate) extra: Vec<PathBuf>,
}

impl Site {
    pub(crate) fn new(name: &str) -> Site {
        let root = std::env::temp_dir().join(format!("backup-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("scratch folder");
        Site { data: root.join("data"), repo: root.join("repo"), extra: Vec::new() }
    }

    /// The settings of every command of the test.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        vec![
            ("DATA_DIR".into(), self.data.display().to_string()),
            ("DB_PORT".into(), "0".into()),
            ("BACKUP_ENABLED".into(), "true".into()),
            ("BACKUP_REPO_PATH".into(), self.repo.display().to_string()),
            ("BACKUP_ARCHIVE_TIMEOUT_SECONDS".into(), "2".into()),
            ("BACKUP_FILES_INTERVAL_SECONDS".into(), "1".into()),
        ]
    }

    /// Run `server <args>` with the test's settings plus `more`.
    pub(crate) async fn cli(&self, args: &[&str], more: &[(&str, &str)]) -> Output {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_server"));
        command
            .env_remove("DATABASE_URL")
            .env_remove("BACKUP_CIPHER_PASS")
            .env("RUST_LOG", "warn")
            .env("WEB_DIR", "/nonexistent")
            .envs(self.env())
            .envs(more.iter().copied())
            .args(args);
        tokio::task::spawn_blocking(move || command.output()).await.expect("join").expect("run the server binary")
    }

    pub(crate) async fn ok(&self, args: &[&str], more: &[(&str, &str)]) -> String {
        let out = self.cli(args, more).await;
        assert!(out.status.success(), "server {args:?} failed: {}{}", text(&out.stdout), text(&out.stderr));
        text(&out.stdout)
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        for dir in std::iter::once(&self.data).chain(&self.extra) {
            stop_postmaster(&dir.join("postgres"));
        }
        if let Some(root) = self.data.parent() {
            let _ = std::fs::remove_dir_all(root);
        }
    }
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub(crate) fn stop_postmaster(pgdata: &Path) {
    if let Some(pid) = std::fs::read_to_string(pgdata.join("postmaster.pid"))
        .ok()
        .and_then(|t| t.lines().next().and_then(|l| l.trim().parse::<i32>().ok()))
    {
        // SAFETY: stops the postmaster of this test's own cluster.
        unsafe { libc::kill(pid, libc::SIGQUIT) };
    }
}

/// The superuser's URL over the cluster's socket under `data_dir`.
pub(crate) fn socket_url(data_dir: &Path) -> String {
    server::db::embedded::EmbeddedPostgres::new(data_dir, 0, None).expect("cluster").socket_url()
}

/// Wait until the repository lists a backup.
pub(crate) async fn first_backup(site: &Site) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let out = site.cli(&["backup", "list"], &[]).await;
        if text(&out.stdout).lines().any(|l| l.contains(" full ")) {
            return;
        }
        assert!(Instant::now() < deadline, "no first backup: {}{}", text(&out.stdout), text(&out.stderr));
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Switch to a new WAL segment and wait until the one holding everything so far is archived.
async fn archive_now(client: &Client) {
    let row = client.query_one("select pg_walfile_name(pg_switch_wal())", &[]).await.expect("switch");
    let segment: String = row.get(0);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let row = client
            .query_one("select coalesce(last_archived_wal, '') from pg_stat_archiver", &[])
            .await
            .expect("pg_stat_archiver");
        let archived: String = row.get(0);
        if archived.len() == 24 && archived.as_str() >= segment.as_str() {
            return;
        }
        assert!(Instant::now() < deadline, "segment {segment} was not archived (last: {archived})");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn ledger(client: &Client) -> Vec<(i32, String)> {
    client
        .query("select id, note from ledger order by id", &[])
        .await
        .expect("ledger")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
}

/// Stored objects as (name, bytes) read from the restored files of `data_dir`.
async fn objects(client: &Client, storage: &Path) -> Vec<(String, Vec<u8>)> {
    let rows =
        client.query("select name, version from storage.objects where bucket_id = 'docs' order by name", &[]).await;
    let mut out = Vec::new();
    for row in rows.expect("objects") {
        let (name, version): (String, String) = (row.get(0), row.get(1));
        let path = storage.join(server::storage::backend::key_of(&version).as_ref());
        out.push((name, std::fs::read(&path).unwrap_or_default()));
    }
    out
}

/// Creates the private bucket `docs` the uploads go to.
async fn docs_bucket(http: &reqwest::Client, url: &str, key: &str) {
    let res = http
        .post(format!("{url}/storage/v1/bucket"))
        .header("apikey", key)
        .bearer_auth(key)
        .json(&serde_json::json!({"name": "docs", "public": false}))
        .send()
        .await
        .expect("bucket");
    assert_eq!(res.status().as_u16(), 200, "{}", res.text().await.unwrap_or_default());
}

async fn upload(http: &reqwest::Client, url: &str, key: &str, name: &str, body: &'static str) {
    let res = http
        .post(format!("{url}/storage/v1/object/docs/{name}"))
        .header("apikey", key)
        .bearer_auth(key)
        .header("x-upsert", "true")
        .header("content-type", "text/plain")
        .body(body)
        .send()
        .await
        .expect("upload");
    assert_eq!(res.status().as_u16(), 200, "{}", res.text().await.unwrap_or_default());
}

/// Object copies (not their checksums) under the repository's `files/objects`.
fn copied_files(dir: &Path) -> usize {
    let Ok(shards) = std::fs::read_dir(dir) else { return 0 };
    shards
        .flatten()
        .filter_map(|shard| std::fs::read_dir(shard.path()).ok())
        .flat_map(|files| files.flatten())
        .filter(|f| !f.file_name().to_string_lossy().contains('.'))
        .count()
}

fn service_key(keys: &str) -> String {
    keys.lines().find_map(|l| l.strip_prefix("service_role key: ")).expect("service_role key").to_string()
}

#[tokio::test]
async fn a_restore_to_a_time_gives_the_rows_and_files_of_that_time_and_the_dropped_table_back() {
    // Arrange: a served project that archives, with a first full backup.
    let mut site = Site::new("pitr");
    let env = site.env();
    let mut env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    env.push(("METRICS_TOKEN", "metrics-secret"));
    let (mut child, url, _) = crate::helpers::spawn_binary(&env).await;
    first_backup(&site).await;
    let key = service_key(&site.ok(&["keys"], &[]).await);
    let db = connect(&socket_url(&site.data)).await;
    let http = reqwest::Client::new();

    // A workload: inserts, updates, deletes, uploads.
    db.batch_execute(
        "create table ledger (id int primary key, note text not null);
         insert into ledger select i, 'row ' || i from generate_series(1, 100) i;
         update ledger set note = 'changed' where id % 10 = 0;
         delete from ledger where id > 90;",
    )
    .await
    .expect("workload");
    docs_bucket(&http, &url, &key).await;
    upload(&http, &url, &key, "a.txt", "alpha, first version").await;
    upload(&http, &url, &key, "b.txt", "beta").await;
    // The files are copied every second (BACKUP_FILES_INTERVAL_SECONDS); T comes after that.
    let deadline = Instant::now() + Duration::from_secs(90);
    while copied_files(&site.repo.join("files/objects")) < 2 {
        assert!(Instant::now() < deadline, "the stored files were not copied into the repository");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let t: String = db.query_one("select clock_timestamp()::text", &[]).await.unwrap().get(0);
    let rows_at_t = ledger(&db).await;
    let files_at_t = objects(&db, &site.data.join("storage")).await;
    assert_eq!(files_at_t.len(), 2);
    tokio::time::sleep(Duration::from_secs(1)).await;

    // More writes after T, then an operator's mistake.
    db.batch_execute("insert into ledger values (500, 'after T'); delete from ledger where id < 20;").await.unwrap();
    upload(&http, &url, &key, "a.txt", "alpha, second version").await;
    upload(&http, &url, &key, "c.txt", "gamma").await;
    let res = http
        .delete(format!("{url}/storage/v1/object/docs/b.txt"))
        .header("apikey", &key)
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    db.batch_execute("drop table ledger").await.unwrap();
    archive_now(&db).await;

    // Metrics: a backup succeeded, the archive's lag is reported.
    let metrics =
        http.get(format!("{url}/metrics")).bearer_auth("metrics-secret").send().await.unwrap().text().await.unwrap();
    let gauge = |name: &str| -> f64 {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")).and_then(|v| v.trim().parse().ok()))
            .unwrap_or_else(|| panic!("{name} in {metrics}"))
    };
    assert!(gauge("backup_last_success_timestamp") > 1.7e9);
    assert!(gauge("wal_archive_lag_seconds") >= 0.0);
    assert_eq!(gauge("backup_last_verify_ok"), -1.0, "no verification yet");
    // Readiness tells the backups' state; without BACKUP_READY_MAX_AGE_SECONDS it never fails on it.
    let ready = http.get(format!("{url}/health/ready")).send().await.unwrap();
    assert_eq!(ready.status().as_u16(), 200);
    let ready: serde_json::Value = ready.json().await.unwrap();
    assert!(ready["backups"]["last_success"].as_i64().is_some_and(|t| t > 1_700_000_000), "{ready}");
    assert!(ready["backups"]["wal_archive_lag_seconds"].as_i64().is_some(), "{ready}");
    assert_eq!(ready["backups"]["stale"], false, "{ready}");
    assert!(ready["backups"]["last_verify_ok"].is_null(), "no verification yet: {ready}");

    // Act: restore to T into a scratch folder while the server keeps running.
    let target = site.data.parent().unwrap().join("restored");
    site.extra.push(target.clone());
    let started = Instant::now();
    let out = site.ok(&["restore", "--to", &t, "--target-dir", &target.display().to_string()], &[]).await;
    println!("restore to T took {:.1} s:\n{out}", started.elapsed().as_secs_f64());

    // Assert: exactly the rows and files of T, the dropped table back.
    let restored_url = out
        .lines()
        .find_map(|l| l.strip_prefix("PostgreSQL runs on the restored folder: "))
        .expect("the restored cluster's URL");
    let restored = connect(restored_url).await;
    assert_eq!(ledger(&restored).await, rows_at_t, "the rows of time T");
    assert_eq!(objects(&restored, &target.join("storage")).await, files_at_t, "the files of time T");
    let in_recovery: bool = restored.query_one("select pg_is_in_recovery()", &[]).await.unwrap().get(0);
    assert!(!in_recovery, "the restored cluster is promoted");
    let archive_mode: String = restored.query_one("show archive_mode", &[]).await.unwrap().get(0);
    assert_eq!(archive_mode, "off", "a restored copy never pushes WAL to the live repository");
    // The live server is untouched.
    let live_tables: i64 =
        db.query_one("select count(*) from pg_tables where tablename = 'ledger'", &[]).await.unwrap().get(0);
    assert_eq!(live_tables, 0);

    let _ = child.kill().await;
}

#[tokio::test]
async fn after_a_lost_data_folder_a_restore_gives_every_write_archived_and_the_server_starts_again() {
    // Arrange: a served project archiving to a repository on "another disk".
    let site = Site::new("lost");
    let env = site.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let (mut child, url, anon_before) = crate::helpers::spawn_binary(&env).await;
    first_backup(&site).await;
    let db = connect(&socket_url(&site.data)).await;
    db.batch_execute("create table acks (id int primary key, at timestamptz not null default clock_timestamp())")
        .await
        .unwrap();

    // Acknowledged writes for 8 seconds.
    let mut acked: Vec<(i32, f64)> = Vec::new();
    let t0 = Instant::now();
    let mut id = 0;
    while t0.elapsed() < Duration::from_secs(8) {
        id += 1;
        if db.execute("insert into acks (id) values ($1)", &[&id]).await.is_ok() {
            acked.push((id, t0.elapsed().as_secs_f64()));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let last_ack = t0.elapsed().as_secs_f64();

    // The disk is lost: the data folder goes under the running server, then the processes.
    let pid = std::fs::read_to_string(site.data.join("postgres/postmaster.pid")).unwrap();
    let pid: i32 = pid.lines().next().unwrap().trim().parse().unwrap();
    std::fs::remove_dir_all(&site.data).expect("delete the data folder");
    let _ = child.kill().await;
    // SAFETY: the test's own postmaster, whose files are gone.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    drop(db);
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Act: restore the data folder from the repository.
    let refused = site.cli(&["restore"], &[]).await;
    assert!(!refused.status.success(), "a restore of DATA_DIR wants --yes");
    assert!(text(&refused.stderr).contains("--yes"), "{}", text(&refused.stderr));
    let started = Instant::now();
    site.ok(&["restore", "--yes"], &[]).await;
    let rto = started.elapsed().as_secs_f64();

    // Assert: the server starts on the restored folder with its keys; the writes are a prefix.
    let (mut child, url_after, anon_after) = crate::helpers::spawn_binary(&env).await;
    assert_eq!(anon_after, anon_before, "the same keys after the restore");
    let ready = reqwest::get(format!("{url_after}/health/ready")).await.unwrap();
    assert_eq!(ready.status().as_u16(), 200);
    let db = connect(&socket_url(&site.data)).await;
    let ids: Vec<i32> =
        db.query("select id from acks order by id", &[]).await.unwrap().iter().map(|r| r.get(0)).collect();
    let kept = ids.len();
    assert_eq!(ids, (1..=kept as i32).collect::<Vec<_>>(), "the restored writes are the first ones, without a gap");
    let last_kept_at = acked.get(kept.saturating_sub(1)).map(|a| a.1).unwrap_or(0.0);
    let rpo = last_ack - last_kept_at;
    println!(
        "lost data folder: {} of {} acknowledged writes restored; recovery point {:.1} s before the last \
         acknowledged write (archive_timeout 2 s); restore took {:.1} s (RTO, before the server starts)",
        kept,
        acked.len(),
        rpo,
        rto
    );
    assert!(kept > 0, "writes archived before the loss are back");
    assert!(rpo < 6.0, "the recovery point is within a few archive timeouts: {rpo:.1} s");
    let _ = (url, child.kill().await);
}

#[tokio::test]
async fn an_encrypted_repository_read_without_its_key_fails_clearly() {
    let site = Site::new("cipher");
    let pass = [("BACKUP_CIPHER_PASS", "correct horse battery staple")];
    let out = site.ok(&["backup", "now"], &pass).await;
    assert!(out.contains("backup "), "{out}");
    let listed = site.ok(&["backup", "list"], &pass).await;
    assert!(listed.contains(" full "), "{listed}");

    let without = site.cli(&["backup", "list"], &[]).await;
    assert!(!without.status.success(), "read without the key: {}", text(&without.stdout));
    let said = text(&without.stderr);
    assert!(said.contains("BACKUP_CIPHER_PASS"), "the error names the missing key: {said}");

    let wrong = site.cli(&["backup", "list"], &[("BACKUP_CIPHER_PASS", "wrong")]).await;
    assert!(!wrong.status.success(), "read with a wrong key: {}", text(&wrong.stdout));

    let info = std::fs::read(site.repo.join("backup/main/backup.info")).expect("backup.info");
    assert!(!text(&info).contains("backup:current"), "the repository's files are encrypted");
}

#[tokio::test]
async fn retention_removes_old_backups_but_keeps_the_wal_the_oldest_kept_one_needs() {
    let site = Site::new("retention");
    let keep = [("BACKUP_RETENTION_FULL", "2")];
    site.ok(&["db", "start"], &keep).await;
    let db = connect(&socket_url(&site.data)).await;
    db.batch_execute("create table t (n int)").await.unwrap();
    let mut first_stop = String::new();
    for n in 0..3 {
        db.execute("insert into t values ($1)", &[&n]).await.unwrap();
        archive_now(&db).await;
        site.ok(&["backup", "now"], &keep).await;
        if n == 0 {
            let info: serde_json::Value = serde_json::from_str(&site.ok(&["backup", "info"], &keep).await).unwrap();
            first_stop = info[0]["backup"][0]["archive"]["stop"].as_str().expect("first backup's WAL").to_string();
        }
    }
    let info: serde_json::Value = serde_json::from_str(&site.ok(&["backup", "info"], &keep).await).unwrap();
    let backups = info[0]["backup"].as_array().expect("backups");
    assert_eq!(backups.len(), 2, "two full backups kept: {info}");
    let oldest_start = backups[0]["archive"]["start"].as_str().unwrap();
    let min = info[0]["archive"][0]["min"].as_str().unwrap();
    assert!(min <= oldest_start, "the WAL the oldest kept backup needs is kept ({min} <= {oldest_start})");
    assert!(min > first_stop.as_str(), "the expired backup's WAL is gone ({min} > {first_stop})");

    // The oldest kept backup restores.
    let target = site.data.parent().unwrap().join("oldest");
    let label = backups[0]["label"].as_str().unwrap();
    let out = site.ok(&["restore", "--to-backup", label, "--target-dir", &target.display().to_string()], &keep).await;
    let url = out.lines().find_map(|l| l.strip_prefix("PostgreSQL runs on the restored folder: ")).expect("url");
    let restored = connect(url).await;
    let rows: i64 = restored.query_one("select count(*) from t", &[]).await.unwrap().get(0);
    assert_eq!(rows, 2, "the state at the end of the second backup");
    drop(restored);
    stop_postmaster(&target.join("postgres"));
}

#[tokio::test]
async fn verify_passes_on_a_good_backup_and_detects_a_corrupted_file() {
    let site = Site::new("verify");
    site.ok(&["db", "start"], &[]).await;
    let db = connect(&socket_url(&site.data)).await;
    db.batch_execute("create table v as select i, md5(i::text) as h from generate_series(1, 20000) i").await.unwrap();
    site.ok(&["backup", "now"], &[]).await;
    let good = site.ok(&["backup", "verify"], &[]).await;
    assert!(good.contains("verified"), "{good}");

    // Corrupt the largest file of the backup (the table's), keeping its size.
    let mut largest: Option<(u64, PathBuf)> = None;
    let mut stack = vec![site.repo.join("backup/main")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().contains("/pg_data/base/") {
                let len = entry.metadata().unwrap().len();
                if largest.as_ref().is_none_or(|(l, _)| len > *l) {
                    largest = Some((len, path));
                }
            }
        }
    }
    let (len, path) = largest.expect("a backed-up table file");
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = (len / 2) as usize;
    for b in &mut bytes[middle..middle + 64.min(len as usize - middle)] {
        *b ^= 0xff;
    }
    std::fs::write(&path, bytes).unwrap();

    let bad = site.cli(&["backup", "verify"], &[]).await;
    assert!(!bad.status.success(), "a corrupted backup fails its verification: {}", text(&bad.stdout));
    assert!(text(&bad.stderr).contains("verify:"), "{}", text(&bad.stderr));
}

#[tokio::test]
async fn verify_compares_every_table_with_the_counts_recorded_at_backup_time() {
    let site = Site::new("counts");
    site.ok(&["db", "start"], &[]).await;
    let db = connect(&socket_url(&site.data)).await;
    db.batch_execute("create table counted as select i from generate_series(1, 1234) i").await.unwrap();
    let out = site.ok(&["backup", "now"], &[]).await;
    let label = out.split_whitespace().nth(1).expect("the backup's label").to_string();
    // Rows written after the backup are not the backup's: the verification restores to the
    // point at which the rows were counted.
    db.batch_execute("insert into counted select generate_series(1, 100)").await.unwrap();
    archive_now(&db).await;

    let manifest_path = site.repo.join(format!("files/manifests/{label}.json"));
    let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    assert_eq!(manifest["counts"]["tables"]["public.counted"], 1234, "{manifest}");
    assert_eq!(manifest["counts"]["point"], format!("backup-{label}"));

    let good = site.ok(&["backup", "verify"], &[]).await;
    assert!(good.contains("verified"), "{good}");
    assert!(good.contains("compared with the counts recorded at backup time"), "{good}");
    assert!(!good.contains(" 0 compared"), "{good}");

    // A tampered record fails the verification, naming the table and both counts.
    let mut tampered = manifest.clone();
    tampered["counts"]["tables"]["public.counted"] = serde_json::json!(1235);
    std::fs::write(&manifest_path, serde_json::to_vec_pretty(&tampered).unwrap()).unwrap();
    let bad = site.cli(&["backup", "verify"], &[]).await;
    assert!(!bad.status.success(), "a count that differs fails: {}", text(&bad.stdout));
    let said = text(&bad.stderr);
    assert!(said.contains("table public.counted has 1234 rows, 1235 were recorded at backup time"), "{said}");
}

#[tokio::test]
async fn stored_files_and_secrets_are_sealed_in_the_repository_and_restore_only_with_the_passphrase() {
    let site = Site::new("sealed");
    let pass = ("BACKUP_CIPHER_PASS", "correct horse battery staple");
    let env = site.env();
    let mut env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    env.push(pass);
    env.push(("BACKUP_READY_MAX_AGE_SECONDS", "1"));
    let (mut child, url, _) = crate::helpers::spawn_binary(&env).await;
    let deadline = Instant::now() + Duration::from_secs(120);
    while !text(&site.cli(&["backup", "list"], &[pass]).await.stdout).contains(" full ") {
        assert!(Instant::now() < deadline, "no first backup");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let key = service_key(&site.ok(&["keys"], &[pass]).await);
    let http = reqwest::Client::new();
    docs_bucket(&http, &url, &key).await;
    upload(&http, &url, &key, "plain.txt", "words nobody may read in the repository").await;
    site.ok(&["backup", "now"], &[pass]).await;

    // Sizes: the object's in clear, its copy's and the manifest's as sealed in the repository.
    let info: serde_json::Value = serde_json::from_str(&site.ok(&["backup", "info"], &[pass]).await).unwrap();
    let last = info[0]["backup"].as_array().and_then(|b| b.last()).expect("a backup").clone();
    let label = last["label"].as_str().unwrap();
    let object = last["manifest"]["objects"]
        .as_array()
        .and_then(|o| o.iter().find(|o| o["name"] == "plain.txt"))
        .unwrap_or_else(|| panic!("plain.txt in the manifest: {last}"))
        .clone();
    let copy = site.repo.join("files").join(object_key(object["key"].as_str().unwrap()).as_ref());
    assert_eq!(object["size"], 39, "the size in clear: {object}");
    assert_eq!(object["stored"], std::fs::metadata(&copy).unwrap().len(), "the sealed copy's size: {object}");
    let manifest_len = std::fs::metadata(site.repo.join(format!("files/manifests/{label}.json"))).unwrap().len();
    assert_eq!(last["manifest"]["bytes"], manifest_len, "the sealed manifest's size: {last}");
    let files_bytes = last["manifest"]["files_bytes"].as_u64().unwrap();
    assert!(files_bytes >= manifest_len + object["stored"].as_u64().unwrap(), "{last}");
    let listed = site.ok(&["backup", "list"], &[pass]).await;
    let line = listed.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("{label} in {listed}"));
    assert!(line.ends_with(&format!(" {files_bytes}")), "`backup list` shows the sealed files' size: {listed}");

    // In the repository: sealed copies, secrets and manifests.
    let files = site.repo.join("files");
    let mut stack = vec![files.clone()];
    let mut sealed = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(!text(&bytes).contains("words nobody"), "{} shows the object's bytes", path.display());
            if !name.ends_with(".sha256") && name != "cipher.json" {
                assert!(bytes.starts_with(b"SBRSENC1"), "{} is sealed", path.display());
                sealed += 1;
            }
        }
    }
    assert!(sealed >= 3, "an object, a manifest and the secrets are sealed ({sealed} files)");
    for secret in std::fs::read_dir(site.data.join("secrets")).unwrap().flatten() {
        let live = std::fs::read(secret.path()).unwrap();
        if live.is_empty() {
            continue;
        }
        let copy = std::fs::read(files.join("secrets").join(secret.file_name())).expect("the secret's copy");
        assert!(!copy.windows(live.len().min(16)).any(|w| live.starts_with(w)), "the secret is not in clear");
    }

    // Readiness: a backup older than BACKUP_READY_MAX_AGE_SECONDS (1 s) fails it, and says why.
    let deadline = Instant::now() + Duration::from_secs(60);
    let stale = loop {
        let res = http.get(format!("{url}/health/ready")).send().await.unwrap();
        let status = res.status().as_u16();
        let body: serde_json::Value = res.json().await.unwrap();
        if status == 503 {
            break body;
        }
        assert!(Instant::now() < deadline, "readiness never failed on a stale backup: {body}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    assert_eq!(stale["backups"]["stale"], true, "{stale}");
    assert!(stale["message"].as_str().unwrap_or_default().contains("BACKUP_READY_MAX_AGE_SECONDS"), "{stale}");
    let health: serde_json::Value = http.get(format!("{url}/health")).send().await.unwrap().json().await.unwrap();
    assert_eq!(health["database"], "reachable", "only the backup is stale: {health}");

    // Without the passphrase, or with another, a restore fails and says which setting.
    let target = site.data.parent().unwrap().join("restored");
    let dir = target.display().to_string();
    let without = site.cli(&["restore", "--target-dir", &dir], &[]).await;
    assert!(!without.status.success(), "restored without the key: {}", text(&without.stdout));
    assert!(text(&without.stderr).contains("BACKUP_CIPHER_PASS"), "{}", text(&without.stderr));
    let wrong = site.cli(&["restore", "--target-dir", &dir], &[("BACKUP_CIPHER_PASS", "wrong")]).await;
    assert!(!wrong.status.success(), "restored with a wrong key: {}", text(&wrong.stdout));
    assert!(text(&wrong.stderr).contains("BACKUP_CIPHER_PASS"), "{}", text(&wrong.stderr));

    // With it: the same bytes.
    let out = site.ok(&["restore", "--target-dir", &dir], &[pass]).await;
    let restored_url =
        out.lines().find_map(|l| l.strip_prefix("PostgreSQL runs on the restored folder: ")).expect("url");
    let restored = connect(restored_url).await;
    let files = objects(&restored, &target.join("storage")).await;
    assert_eq!(files, [("plain.txt".to_string(), b"words nobody may read in the repository".to_vec())]);
    for secret in std::fs::read_dir(site.data.join("secrets")).unwrap().flatten() {
        let restored_secret = std::fs::read(target.join("secrets").join(secret.file_name())).expect("restored");
        assert_eq!(restored_secret, std::fs::read(secret.path()).unwrap(), "the secrets in clear again");
    }
    drop(restored);
    stop_postmaster(&target.join("postgres"));
    let _ = child.kill().await;
}

#[tokio::test]
async fn with_database_url_every_command_refuses_clearly_and_writes_nothing() {
    let site = Site::new("external");
    let external = [("DATABASE_URL", "postgres://app@127.0.0.1:1/app")];
    let target = site.data.parent().unwrap().join("target").display().to_string();
    for args in [
        vec!["backup", "now"],
        vec!["backup", "list"],
        vec!["backup", "info"],
        vec!["backup", "verify"],
        vec!["restore", "--target-dir", target.as_str()],
        vec!["restore", "--yes"],
    ] {
        let out = site.cli(&args, &external).await;
        assert!(!out.status.success(), "{args:?} acted on an external database: {}", text(&out.stdout));
        let said = text(&out.stderr);
        assert!(said.contains("with DATABASE_URL, run pgBackRest on the database's machine"), "{args:?}: {said}");
    }
    assert!(!site.data.exists(), "nothing was written under DATA_DIR");
}

/// moto (plain HTTP, one bucket made) and, for pgBackRest which speaks only HTTPS to S3,
/// socat's TLS in front of it (moto's own TLS ends its connections without `close_notify`,
/// which pgBackRest 2.45 refuses: "unexpected eof while reading"). Stopped when dropped.
struct S3Service {
    plain: u16,
    tls: u16,
    _moto: KillOnDrop,
    _socat: KillOnDrop,
}

async fn s3_service(root: &Path, bucket: &str) -> S3Service {
    let (cert, key) = (root.join("cert.pem"), root.join("key.pem"));
    let made = std::process::Command::new("openssl")
        .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl");
    assert!(made.status.success());
    let (plain, tls) = (free_port(), free_port());
    let moto = moto_server(plain);
    let socat = KillOnDrop(
        std::process::Command::new("socat")
            .arg(format!("openssl-listen:{tls},cert={},key={},verify=0,fork,reuseaddr", cert.display(), key.display()))
            .arg(format!("tcp:127.0.0.1:{plain}"))
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("socat (make setup-system installs it)"),
    );
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !http.put(format!("http://127.0.0.1:{plain}/{bucket}")).send().await.is_ok_and(|r| r.status().is_success()) {
        assert!(Instant::now() < deadline, "moto did not start");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    S3Service { plain, tls, _moto: moto, _socat: socat }
}

/// The repository on the S3 test service: backup, verify (the row counts recorded at the
/// backup's restore point, kept sealed in the bucket, compared), restore into a folder. Small
/// files are bundled (`repo1-bundle`), so a backup is a few dozen requests, not ~1,000.
#[tokio::test]
async fn a_repository_on_s3_takes_restores_and_verifies_a_backup_with_its_row_counts() {
    let mut site = Site::new("s3");
    let root = site.data.parent().unwrap().to_path_buf();
    let s3 = s3_service(&root, "backups").await;
    let endpoint = format!("https://127.0.0.1:{}", s3.tls);
    let env = [
        ("BACKUP_REPO_TYPE", "s3"),
        ("BACKUP_REPO_PATH", "/repo"),
        ("BACKUP_S3_BUCKET", "backups"),
        ("BACKUP_S3_VERIFY_TLS", "false"),
        ("BACKUP_CIPHER_PASS", "correct horse battery staple"),
        ("GLOBAL_S3_ENDPOINT", endpoint.as_str()),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
    ];

    let t0 = Instant::now();
    site.ok(&["db", "start"], &env).await;
    let db = connect(&socket_url(&site.data)).await;
    db.batch_execute("create table s3_rows as select generate_series(1, 1000) n").await.unwrap();
    let out = site.ok(&["backup", "now"], &env).await;
    assert!(out.contains("s3://backups/repo"), "{out}");
    let label = out.split_whitespace().nth(1).expect("the backup's label").to_string();
    // Rows written after the backup are not its own: verify restores to the counts' point.
    db.batch_execute("insert into s3_rows select generate_series(1, 50)").await.unwrap();
    let backed_up = t0.elapsed().as_secs_f64();

    // The counts are in the bucket, sealed; `backup info` reads them back.
    let bucket = moto_bucket(s3.plain, "backups");
    let manifest = object_store::path::Path::from(format!("repo/files/manifests/{label}.json"));
    let sealed = bucket.get(&manifest).await.expect("the manifest is in the bucket").bytes().await.unwrap();
    assert!(sealed.starts_with(b"SBRSENC1") && !text(&sealed).contains("s3_rows"), "the manifest is sealed");
    let info: serde_json::Value = serde_json::from_str(&site.ok(&["backup", "info"], &env).await).unwrap();
    let counts = &info[0]["backup"][0]["manifest"]["counts"];
    assert_eq!(counts["tables"]["public.s3_rows"], 1000, "{info}");
    assert_eq!(info[0]["backup"][0]["manifest"]["bytes"], sealed.len(), "the sealed size is reported: {info}");

    let verified = site.ok(&["backup", "verify"], &env).await;
    assert!(verified.contains("verified"), "{verified}");
    assert!(verified.contains("compared with the counts recorded at backup time"), "{verified}");
    assert!(!verified.contains(" 0 compared"), "{verified}");

    let target = root.join("restored");
    site.extra.push(target.clone());
    let restored =
        site.ok(&["restore", "--to-backup", &label, "--target-dir", &target.display().to_string()], &env).await;
    let url = restored.lines().find_map(|l| l.strip_prefix("PostgreSQL runs on the restored folder: ")).expect("url");
    let restored_db = connect(url).await;
    let rows: i64 = restored_db.query_one("select count(*) from s3_rows", &[]).await.unwrap().get(0);
    assert_eq!(rows, 1000, "the backup's rows");
    println!(
        "S3 repository: backup {backed_up:.1} s, backup + verify + restore {:.1} s\n{out}{verified}",
        t0.elapsed().as_secs_f64()
    );
}

/// With the storage surface on S3 (bucket versioning on), a backup records the bucket's version
/// id and ETag of every object key its rows name; a restore to that backup brings back the keys
/// deleted or overwritten since, from those versions.
#[tokio::test]
async fn on_the_s3_storage_backend_a_backup_records_object_versions_and_a_restore_brings_them_back() {
    let mut site = Site::new("s3versions");
    let root = site.data.parent().unwrap().to_path_buf();
    let s3 = s3_service(&root, "store").await;
    let moto = format!("http://127.0.0.1:{}", s3.plain);
    let http = reqwest::Client::new();
    let res = http
        .put(format!("{moto}/store?versioning"))
        .body(r#"<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>"#)
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "bucket versioning on: {}", res.status());
    let storage = [
        ("STORAGE_BACKEND", "s3"),
        ("GLOBAL_S3_BUCKET", "store"),
        ("GLOBAL_S3_ENDPOINT", moto.as_str()),
        ("GLOBAL_S3_FORCE_PATH_STYLE", "true"),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
    ];
    let env = site.env();
    let mut env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    env.extend(storage);
    let (mut child, url, _) = crate::helpers::spawn_binary(&env).await;
    first_backup(&site).await;
    let key = service_key(&site.ok(&["keys"], &storage).await);
    docs_bucket(&http, &url, &key).await;
    upload(&http, &url, &key, "a.txt", "alpha at backup time").await;
    upload(&http, &url, &key, "b.txt", "beta at backup time").await;
    let out = site.ok(&["backup", "now"], &storage).await;
    let label = out.split_whitespace().nth(1).expect("the backup's label").to_string();

    // Recorded: each key's bucket version and ETag, shown by `backup info`.
    let info: serde_json::Value = serde_json::from_str(&site.ok(&["backup", "info"], &storage).await).unwrap();
    let backup = info[0]["backup"].as_array().unwrap().iter().find(|b| b["label"] == label.as_str()).expect("backup");
    let objects = backup["manifest"]["objects"].as_array().expect("objects");
    assert_eq!(objects.len(), 2, "{backup}");
    for object in objects {
        assert!(object["s3_version"].as_str().is_some_and(|v| !v.is_empty()), "a version id: {object}");
        assert!(object["etag"].as_str().is_some_and(|v| !v.is_empty()), "an ETag: {object}");
        assert_eq!(object["stored"], 0, "the bytes stay in the bucket: {object}");
    }

    // After the backup: a.txt deleted, b.txt overwritten (both remove the backup's keys).
    let res = http
        .delete(format!("{url}/storage/v1/object/docs/a.txt"))
        .header("apikey", &key)
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    upload(&http, &url, &key, "b.txt", "beta, later").await;
    let bucket = moto_bucket(s3.plain, "store");
    for object in objects {
        let gone = bucket.head(&object_key(object["key"].as_str().unwrap())).await;
        assert!(matches!(gone, Err(object_store::Error::NotFound { .. })), "the backup's key is gone: {gone:?}");
    }

    // Restore to the backup: the rows name the old keys, brought back from their versions.
    let target = root.join("restored");
    site.extra.push(target.clone());
    let dir = target.display().to_string();
    let out = site.ok(&["restore", "--to-backup", &label, "--target-dir", &dir], &storage).await;
    assert!(out.contains("stored files: 2 restored"), "{out}");
    let restored_url =
        out.lines().find_map(|l| l.strip_prefix("PostgreSQL runs on the restored folder: ")).expect("url");
    let restored = connect(restored_url).await;
    let rows = restored
        .query("select name, version from storage.objects where bucket_id = 'docs' order by name", &[])
        .await
        .unwrap();
    let mut bodies = Vec::new();
    for row in rows {
        let (name, version): (String, String) = (row.get(0), row.get(1));
        let body = bucket.get(&object_key(&version)).await.expect("the key is back").bytes().await.unwrap();
        bodies.push((name, text(&body)));
    }
    assert_eq!(
        bodies,
        [("a.txt".to_string(), "alpha at backup time".to_string()), ("b.txt".into(), "beta at backup time".into())]
    );
    drop(restored);
    let _ = child.kill().await;
}

fn object_key(version: &str) -> object_store::path::Path {
    server::storage::backend::key_of(version)
}

/// A client of moto's bucket `bucket` (moto refuses unsigned requests to its objects).
fn moto_bucket(port: u16, bucket: &str) -> impl object_store::ObjectStore {
    object_store::aws::AmazonS3Builder::new()
        .with_endpoint(format!("http://127.0.0.1:{port}"))
        .with_allow_http(true)
        .with_bucket_name(bucket)
        .with_region("us-east-1")
        .with_access_key_id("test")
        .with_secret_access_key("test")
        .build()
        .expect("an S3 client")
}
