//! The supervised Deno child that runs the functions: it writes the router's scripts (embedded
//! in the binary) under the data folder, starts Deno on the supervisor (`supervisor.ts`, which
//! starts one Deno process per function, with that function's permissions and limits, and may
//! run only that Deno binary), learns the router's port from its first line, health-checks it, and starts it
//! again with a growing delay when it dies or stops answering. Stopped when the server stops
//! (and it ends itself when its standard input closes, so it never outlives the server).
//!
//! Meanwhile `endpoint` waits a little for a router that is starting and then gives up, so a
//! request gets `BOOT_ERROR` instead of hanging; `has_been_ready` tells a first start (Deno
//! compiling the router, which a request may wait longer for) from a restart. It decides nothing
//! about requests.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use secrecy::{ExposeSecret, SecretString};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::watch;

/// The router's scripts, written next to each other before each start.
const SCRIPTS: &[(&str, &str)] = &[
    ("supervisor.ts", include_str!("../../functions-runtime/supervisor.ts")),
    ("host.ts", include_str!("../../functions-runtime/host.ts")),
    ("router.ts", include_str!("../../functions-runtime/router.ts")),
    ("worker.ts", include_str!("../../functions-runtime/worker.ts")),
    ("messages.ts", include_str!("../../functions-runtime/messages.ts")),
    ("net_guard.ts", include_str!("../../functions-runtime/net_guard.ts")),
    ("tunnel.ts", include_str!("../../functions-runtime/tunnel.ts")),
    ("worker_socket.ts", include_str!("../../functions-runtime/worker_socket.ts")),
    ("lane.ts", include_str!("../../functions-runtime/lane.ts")),
];
/// The server's variables the child inherits: Deno's certificate settings, so that a machine
/// whose registries are reached through its own certificate authority (in the system store, or a
/// PEM file) lets Deno fetch `npm:` imports as npm does. Neither holds a secret.
const INHERITED: &[&str] = &["DENO_TLS_CA_STORE", "DENO_CERT"];
/// How long a start may take to print the port (the first start compiles the router).
pub const START_TIMEOUT: Duration = Duration::from_secs(60);
const HEALTH_INTERVAL: Duration = Duration::from_secs(10);
const HEALTH_TIMEOUT: Duration = Duration::from_secs(5);
/// Failed health checks in a row after which the child is stopped and started again.
const HEALTH_FAILURES: u32 = 3;
const BACKOFF_FIRST: Duration = Duration::from_secs(1);
const BACKOFF_MAX: Duration = Duration::from_secs(30);
/// A child that ran this long had its backoff reset.
const STABLE_AFTER: Duration = Duration::from_secs(60);

/// Where the router is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Being started: a request waits for it a little.
    Starting,
    Ready {
        port: u16,
    },
    /// Died or could not start, and waits out its backoff: a request is refused at once.
    Down,
    Stopped,
}

/// What the child is started with.
#[derive(Debug, Clone)]
pub struct Launch {
    pub deno_bin: PathBuf,
    /// The functions folder: the child's working folder, readable by functions.
    pub functions_dir: PathBuf,
    /// Where the scripts are written (`<data>/functions-runtime`), and Deno's cache below it.
    pub work_dir: PathBuf,
    /// The variables functions see (`SUPABASE_URL`, keys, the project's secrets); nothing else
    /// of the server's environment is passed.
    pub env: Vec<(String, SecretString)>,
    /// A worker idle this long is stopped (0: never).
    pub worker_idle: Duration,
    /// Other folders functions may read (the deployed versions).
    pub extra_read: Vec<PathBuf>,
    /// The memory limit of a function that names none, in MiB: the heap limit of the spare
    /// process started ahead of need for such functions.
    pub memory_limit_mb: u64,
    /// Keep a spare process started ahead of need (false when the folders functions must not
    /// read lie under `/tmp`, where a spare could not keep them out: `Guarded::none_within`).
    pub spare: bool,
    /// Folders no function may write although they lie where every function may (the guarded
    /// folders under `/tmp`: `Guarded::within`), each function's process's `--deny-write`.
    pub deny_write: Vec<PathBuf>,
    /// The folder of the lanes' Unix sockets (`lane_root`), which the supervisor writes.
    pub lane_root: Option<PathBuf>,
    /// Takes the functions' log lines from the child's output.
    pub logs: super::logs::LogSink,
}

/// The running supervisor.
pub struct Runtime {
    status: watch::Receiver<Status>,
    stop: watch::Sender<bool>,
    /// Whether the router has answered at least once since this runtime was spawned.
    ready_once: Arc<AtomicBool>,
    /// Every request to the router carries it (`x-functions-secret`).
    pub secret: SecretString,
}

impl Runtime {
    /// Start supervising the child (in the background; `endpoint` says when it is ready).
    pub fn spawn(launch: Launch) -> Arc<Runtime> {
        let (status_tx, status) = watch::channel(Status::Starting);
        let (stop, stop_rx) = watch::channel(false);
        let secret = SecretString::from(crate::keys::random_secret());
        let ready_once = Arc::new(AtomicBool::new(false));
        tokio::spawn(supervise(launch, secret.clone(), status_tx, stop_rx, ready_once.clone()));
        Arc::new(Runtime { status, stop, ready_once, secret })
    }

    /// Whether the router has been ready at least once (false during the first start).
    pub fn has_been_ready(&self) -> bool {
        self.ready_once.load(Ordering::Relaxed)
    }

    /// The router's port, waiting up to `wait` for one that is starting; `None` if not running.
    pub async fn endpoint(&self, wait: Duration) -> Option<u16> {
        let mut status = self.status.clone();
        let settled = |s: &Status| !matches!(s, Status::Starting);
        let ready = tokio::time::timeout(wait, async { status.wait_for(settled).await.map(|s| *s) }).await;
        match ready {
            Ok(Ok(Status::Ready { port })) => Some(port),
            _ => None,
        }
    }

    /// The status now.
    pub fn status(&self) -> Status {
        *self.status.borrow()
    }

    /// Stop the child and the supervision.
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

async fn supervise(
    launch: Launch,
    secret: SecretString,
    status: watch::Sender<Status>,
    mut stop: watch::Receiver<bool>,
    ready_once: Arc<AtomicBool>,
) {
    let mut backoff = BACKOFF_FIRST;
    while !*stop.borrow() {
        let _ = status.send(Status::Starting);
        let started = Instant::now();
        match start(&launch, &secret).await {
            Ok((mut child, port, stdin)) => {
                tracing::info!(port, "functions: runtime started");
                ready_once.store(true, Ordering::Relaxed);
                let _ = status.send(Status::Ready { port });
                tokio::select! {
                    exit = child.wait() => tracing::error!(status = ?exit, "functions: the runtime exited"),
                    () = unhealthy(port, &secret) => tracing::error!("functions: the runtime stopped answering its health check"),
                    _ = stop.wait_for(|stop| *stop) => {}
                }
                drop(stdin);
                let _ = child.kill().await;
            }
            Err(message) => {
                tracing::error!(deno = %launch.deno_bin.display(), "functions: cannot start the runtime: {message}")
            }
        }
        let _ = status.send(Status::Down);
        if started.elapsed() > STABLE_AFTER {
            backoff = BACKOFF_FIRST;
        }
        tokio::select! {
            () = tokio::time::sleep(backoff) => {}
            _ = stop.wait_for(|stop| *stop) => {}
        }
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
    let _ = status.send(Status::Stopped);
}

/// Start the child and wait for its port. The standard input returned must stay open.
async fn start(launch: &Launch, secret: &SecretString) -> Result<(Child, u16, tokio::process::ChildStdin), String> {
    write_scripts(&launch.work_dir).map_err(|e| format!("cannot write the router's scripts: {e}"))?;
    let functions_dir = launch.functions_dir.to_string_lossy().into_owned();
    // The supervisor runs this one program, the functions' processes, by its full path.
    let deno = program_path(&launch.deno_bin).ok_or_else(|| format!("{} is not found", launch.deno_bin.display()))?;
    let mut command = Command::new(&deno);
    command
        .arg("run")
        .args(["--no-config", "--no-prompt", "--unstable-worker-options", "--allow-net", "--allow-env", "--allow-sys"])
        .arg("--allow-import")
        .arg("--allow-read")
        .arg(match &launch.lane_root {
            Some(root) => format!("--allow-write=/tmp,{}", root.display()),
            None => "--allow-write=/tmp".to_string(),
        })
        .arg(format!("--allow-run={}", deno.display()))
        .arg(launch.work_dir.join("supervisor.ts"))
        .current_dir(&launch.functions_dir)
        .env_clear()
        .env("DENO_DIR", launch.work_dir.join("cache"))
        .env("DENO_NO_UPDATE_CHECK", "1")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for name in INHERITED {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    for (name, value) in &launch.env {
        command.env(name, value.expose_secret());
    }
    let mut child = command.spawn().map_err(|e| e.to_string())?;
    let (Some(mut stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("the child's pipes are missing".into());
    };
    let options = serde_json::json!({
        "secret": secret.expose_secret(),
        "readPaths": std::iter::once(functions_dir)
            .chain(launch.extra_read.iter().map(|p| p.to_string_lossy().into_owned()))
            .collect::<Vec<_>>(),
        "idleMs": u64::try_from(launch.worker_idle.as_millis()).unwrap_or(u64::MAX),
        "denoBin": deno.to_string_lossy(),
        "memoryMb": launch.memory_limit_mb,
        "spare": launch.spare,
        // Paths holding a comma cannot be given to Deno's flags (which separate paths by commas).
        "denyWrite": launch.deny_write.iter().map(|p| p.to_string_lossy().into_owned())
            .filter(|p| !p.contains(',')).collect::<Vec<_>>(),
        "laneRoot": launch.lane_root.as_ref().map(|p| p.to_string_lossy().into_owned()),
    });
    stdin.write_all(format!("{options}\n").as_bytes()).await.map_err(|e| format!("cannot send the options: {e}"))?;
    tokio::spawn(forward_lines(BufReader::new(stderr), "stderr"));
    let mut lines = BufReader::new(stdout).lines();
    let port = tokio::time::timeout(START_TIMEOUT, async {
        while let Ok(Some(line)) = lines.next_line().await {
            match serde_json::from_str::<serde_json::Value>(&line).ok().and_then(|v| v["listening"].as_u64()) {
                Some(port) => return u16::try_from(port).ok(),
                None => tracing::info!(target: "functions", "{line}"),
            }
        }
        None
    })
    .await
    .ok()
    .flatten();
    let Some(port) = port else {
        let _ = child.kill().await;
        return Err("the router did not say its port".into());
    };
    let logs = launch.logs.clone();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            if !logs.take(&line) {
                tracing::info!(target: "functions", "{line}");
            }
        }
    });
    Ok((child, port, stdin))
}

/// `bin` as a full path without links: itself when it names a folder, else found on `PATH`.
fn program_path(bin: &Path) -> Option<PathBuf> {
    if bin.components().count() > 1 {
        return std::fs::canonicalize(bin).ok();
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(bin))
        .find(|p| p.is_file())
        .and_then(|p| std::fs::canonicalize(p).ok())
}

/// The functions' logs (their `console.log` and `console.error`) in the server's log.
async fn forward_lines(reader: BufReader<tokio::process::ChildStderr>, stream: &'static str) {
    let mut lines = reader.lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::warn!(target: "functions", stream, "{line}");
    }
}

fn write_scripts(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in SCRIPTS {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(*text) {
            std::fs::write(&path, text)?;
        }
    }
    Ok(())
}

/// Resolves once the router has failed `HEALTH_FAILURES` checks in a row.
async fn unhealthy(port: u16, secret: &SecretString) {
    let client = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{port}/_internal/health");
    let mut failures = 0;
    loop {
        tokio::time::sleep(HEALTH_INTERVAL).await;
        let answer = client
            .get(&url)
            .header(super::proxy::SECRET_HEADER, secret.expose_secret())
            .timeout(HEALTH_TIMEOUT)
            .send()
            .await;
        if answer.is_ok_and(|r| r.status().is_success()) {
            failures = 0;
        } else {
            failures += 1;
            if failures >= HEALTH_FAILURES {
                return;
            }
        }
    }
}
