//! Settings of `/functions/v1`: where the functions are, which Deno runs them, and the limits
//! the server holds them to.

use std::path::PathBuf;

use clap::Args;

/// Settings of the Edge Functions runtime.
#[derive(Debug, Clone, Args)]
pub struct FunctionsConfig {
    /// The folder of the functions, one subfolder each (`<name>/index.ts`); default: the project
    /// folder's `functions/`. Without one, no Deno is started until a function is deployed (and
    /// only deployed functions are found).
    #[arg(long = "functions-dir", env = "FUNCTIONS_DIR")]
    pub dir: Option<PathBuf>,

    /// An import map (or `deno.json`) for every function, over `config.toml`'s `import_map` and
    /// the functions' own `deno.json` (as `supabase functions serve --import-map`).
    #[arg(long = "functions-import-map", env = "FUNCTIONS_IMPORT_MAP")]
    pub import_map: Option<PathBuf>,

    /// The Deno executable (`make setup` installs the pinned one under `server/functions-runtime`).
    #[arg(long = "functions-deno-bin", env = "FUNCTIONS_DENO_BIN", default_value = "deno")]
    pub deno_bin: PathBuf,

    /// Seconds one request may run before its worker is stopped and the client gets 546
    /// `WORKER_LIMIT` (the CLI's default wall-clock limit).
    #[arg(long = "functions-wall-clock-secs", env = "FUNCTIONS_WALL_CLOCK_SECS", default_value_t = 400)]
    pub wall_clock_secs: u64,

    /// Seconds a request may wait for the next byte of its function's answer (the head, or the
    /// next chunk of a streamed body) before the client gets 504 (Supabase's request idle
    /// timeout); `[functions.<name>] request_idle_timeout_secs` overrides it; 0 turns it off.
    #[arg(long = "functions-request-idle-secs", env = "FUNCTIONS_REQUEST_IDLE_SECS", default_value_t = 150)]
    pub request_idle_secs: u64,

    /// Seconds a function's worker may sit without requests before it is stopped and its memory
    /// returned (the next request boots it again); 0 keeps workers for good.
    #[arg(long = "functions-worker-idle-secs", env = "FUNCTIONS_WORKER_IDLE_SECS", default_value_t = 300)]
    pub worker_idle_secs: u64,

    /// Heap limit of a function's process in MiB (edge-runtime's memory limit): past it V8 stops
    /// the process and its callers get 546 `WORKER_LIMIT`; `[functions.<name>] memory_limit_mb`
    /// overrides it. Memory outside the heap counts too, with some room (docs/functions.md).
    #[arg(long = "functions-memory-limit-mb", env = "FUNCTIONS_MEMORY_LIMIT_MB", default_value_t = 256,
          value_parser = clap::value_parser!(u64).range(16..))]
    pub memory_limit_mb: u64,

    /// CPU time one request may use in ms (edge-runtime's CPU limit) before its function's process
    /// is stopped and the caller gets 546 `WORKER_LIMIT`; `[functions.<name>] cpu_time_limit_ms`
    /// overrides it; 0 turns it off.
    #[arg(long = "functions-cpu-time-limit-ms", env = "FUNCTIONS_CPU_TIME_LIMIT_MS", default_value_t = 2000)]
    pub cpu_time_limit_ms: u64,

    /// Send a function's warm requests into its worker's own listener (its lane: one hop into
    /// the thread that runs it, on a Unix socket in a folder of `/var/tmp` no function may reach);
    /// `false` sends them to the function's process, which hands each to the worker as messages
    /// (docs/functions.md).
    #[arg(long = "functions-lanes", env = "FUNCTIONS_LANES", default_value_t = true, action = clap::ArgAction::Set)]
    pub lanes: bool,

    /// Largest request body a function is given, in bytes (413 beyond it).
    #[arg(long = "functions-max-request-bytes", env = "FUNCTIONS_MAX_REQUEST_BYTES", default_value_t = 20 * 1024 * 1024)]
    pub max_request_bytes: usize,
}
