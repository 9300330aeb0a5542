/**
 * The main script of the server's Deno child: one Deno process per function, each started with
 * that function's permissions (read its own folders and /tmp, write /tmp, no programs, no FFI)
 * and its heap limit (`--max-old-space-size`), running `host.ts`; requests proxied to it over
 * loopback, body and answer streamed.
 *
 * V8 aborts a process at its heap limit: only that function's process ends, its callers get
 * `x-functions-error: limit` with `x-functions-limit: memory`, and every other function keeps
 * answering. (The CPU time per request and the resident memory are watched inside each process,
 * by its router: Deno lets a process read its own usage, not another's `/proc/<pid>`.) A new
 * version of a function gets a new worker in its running process when that process was started
 * exactly as one for the new version would be (`sameLaunch`), else a new process; either way the
 * old worker or process finishes its requests, then ends. A process idle for `idleMs` ends.
 *
 * One spare process is kept started ahead of need (after a cold request's answer, once taken):
 * the default heap limit, the reads every function may be given, no worker. The next cold
 * function of the default memory limit takes it, and its worker gets that function's narrowed
 * `deno.permissions` (`host.ts`), when that is as narrow as its own process would be (`spareFits`).
 *
 * The server decides which function, version and limits; the process's router (`router.ts`)
 * runs the requests. Protocol: docs/functions.md.
 */

import { failure, firstLine, HEADER, LIMIT_EXIT, type LimitKind, type RouterOptions } from "./router.ts";
import type { Assignment, HostOptions } from "./host.ts";
import { DENY_NET } from "./net_guard.ts";
import { innerHeaders, isUpgrade, openInner } from "./tunnel.ts";

/** What the server writes on the supervisor's standard input, as one JSON line. */
export interface SupervisorOptions extends RouterOptions {
  /** The Deno executable of the functions' processes (default: this one). */
  denoBin?: string;
  /** A function's memory limit in MiB when a request names none. */
  memoryMb?: number;
  /**
   * Keep one spare process started ahead of need for functions of the default memory limit
   * (default: true).
   */
  spare?: boolean;
  /**
   * Folders no function may write although they lie under /tmp, which every function may write
   * (the data folder, the project, the functions folder when they lie there): every function's
   * process gets them as `--deny-write`, which its worker inherits. No spare is used then.
   */
  denyWrite?: string[];
  /**
   * A folder outside every function's reach (not under /tmp, which every function may write):
   * each process gets a folder of its own in it, which only that process may read and write,
   * where its lanes listen on Unix sockets (`lane.ts`). Without it, lanes listen on loopback ports.
   */
  laneRoot?: string;
}

/** A folder of its own for a process's lane sockets in `root` (undefined when it cannot be made). */
function laneFolder(root: string | undefined): string | undefined {
  if (!root) return undefined;
  const dir = `${root}/${crypto.randomUUID().slice(0, 8)}`;
  try {
    Deno.mkdirSync(dir, { mode: 0o700 });
    return dir;
  } catch (err) {
    console.error(`no lane folder in ${root} (${err}); lanes listen on loopback ports`);
    return undefined;
  }
}

export type Supervisor = ((req: Request) => Promise<Response>) & {
  sweep(now?: number): number;
  /** The pid of a function's process (tests). */
  pid(entrypoint: string): number | undefined;
  /** How cold requests were served so far (a copy). */
  counts(): ColdCounts;
  /** The pid of the spare process, once it listens (tests). */
  sparePid(): Promise<number | undefined>;
  stop(): void;
};

const HOST = new URL("./host.ts", import.meta.url).pathname;
/** The worker's bootstrap, which the process must read to start its worker (public code, no secret). */
const WORKER = new URL("./worker.ts", import.meta.url).pathname;
/** What the worker's bootstrap imports (public code too). */
const WORKER_IMPORTS = ["./net_guard.ts", "./worker_socket.ts", "./lane.ts"].map((f) =>
  new URL(f, import.meta.url).pathname
);
/**
 * How long a retired process may keep running requests it was sent straight (see `retire`)
 * before it is killed: the default wall-clock limit and a margin.
 */
const DRAIN_LIMIT_MS = 410_000;
/** Processes remembered after they ended, by port, to tell the server why (`/_internal/ended`). */
const ENDED_KEPT = 32;
/** One request in flight on a process. */
type Flight = Record<never, never>;

export interface Spawn {
  entrypoint: string;
  version: string;
  name?: string;
  memoryMb: number;
  readPaths: string[];
  /** Folders it may not read although they lie in one it may (`--deny-read`, which wins). */
  denyPaths: string[];
  /** Its import map, or the `deno.json` / `deno.jsonc` holding it (`--import-map` / `--config`). */
  importMap?: string;
  secrets: Record<string, string>;
}

/** The process's working folder: the folder of the function's entry file (as edge-runtime's). */
export function folderOf(entrypoint: string): string | undefined {
  try {
    return decodeURIComponent(new URL(".", entrypoint).pathname);
  } catch {
    return undefined;
  }
}

/** How Deno is told about a function's import map: a Deno configuration file, or an import map. */
export function importMapFlags(importMap: string | undefined): string[] {
  if (!importMap) return ["--no-config"];
  const file = importMap.slice(importMap.lastIndexOf("/") + 1);
  // `--no-lock`: the function's folder is its author's; no lock file is written into it.
  if (file === "deno.json" || file === "deno.jsonc") return [`--config=${importMap}`, "--no-lock"];
  return ["--no-config", `--import-map=${importMap}`];
}

/**
 * A function's process: started once, reused until it ends, a limit kills it or a version replaces
 * it. A spare one (`spawn` null) is started with the permissions every function has and the
 * default heap limit, then `assign`ed to a function.
 */
class FunctionProcess {
  spawn: Spawn | null;
  readonly port: Promise<number>;
  readonly secret = crypto.randomUUID();
  readonly flights = new Set<Flight>();
  /** Resolves once the process ended, with the limit that ended it, if one did. */
  readonly ended: Promise<LimitKind | null>;
  /** Its lane sockets' folder (`SupervisorOptions.laneRoot`). */
  readonly laneDir: string | undefined;
  lastUsed = Date.now();
  /** The port, once the process listens. */
  portNumber: number | null = null;
  #child: Deno.ChildProcess;
  #killedFor: LimitKind | null = null;
  #outOfMemory = false;
  #retired = false;
  #exited = false;
  /** The process said it ends at a limit (`host.ts`): it takes no new request. */
  #ending = false;

  constructor(spawn: Spawn | null, private options: SupervisorOptions, onEnd: (process: FunctionProcess) => void) {
    this.spawn = spawn;
    // A spare may read what every function's worker may be given: the folders of functions, /tmp.
    const memoryMb = spawn?.memoryMb ?? defaultMemoryMb(options);
    const readPaths = spawn?.readPaths ?? options.readPaths;
    const denyPaths = spawn?.denyPaths ?? [];
    const denyWrite = options.denyWrite ?? [];
    this.laneDir = laneFolder(options.laneRoot);
    const lanePaths = this.laneDir ? [this.laneDir] : [];
    const args = [
      "run",
      ...importMapFlags(spawn?.importMap),
      "--no-prompt",
      "--unstable-worker-options",
      `--v8-flags=--max-old-space-size=${memoryMb}`,
      "--allow-net",
      // Ports 25 and 587 refused on every IPv4 address, as Supabase does (`net_guard.ts`).
      `--deny-net=${DENY_NET}`,
      "--allow-env",
      "--allow-sys",
      "--allow-import",
      `--allow-read=${[...readPaths, "/tmp", WORKER, ...WORKER_IMPORTS, ...lanePaths].join(",")}`,
      `--allow-write=${["/tmp", ...lanePaths].join(",")}`,
      ...(denyPaths.length > 0 ? [`--deny-read=${denyPaths.join(",")}`] : []),
      ...(denyWrite.length > 0 ? [`--deny-write=${denyWrite.join(",")}`] : []),
      HOST,
    ];
    this.#child = new Deno.Command(options.denoBin ?? Deno.execPath(), {
      args,
      // A function reads its static files by paths relative to its folder (`./my-book.pdf`).
      cwd: spawn ? folderOf(spawn.entrypoint) : undefined,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const hostOptions: HostOptions = {
      secret: this.secret,
      readPaths,
      idleMs: 0,
      inheritPermissions: true,
      memoryMb,
      laneDir: this.laneDir,
      secrets: spawn?.secrets ?? {},
      preload: spawn ? { entrypoint: spawn.entrypoint, version: spawn.version, name: spawn.name } : undefined,
    };
    const stdin = this.#child.stdin.getWriter();
    this.#stdin = stdin;
    // Held open for the process's life: its end tells the process the supervisor is gone.
    stdin.write(new TextEncoder().encode(JSON.stringify(hostOptions) + "\n")).catch(() => {});
    this.port = this.#readPort();
    this.port.then((port) => (this.portNumber = port), () => {});
    this.#forwardErrors();
    this.ended = this.#child.status.then((status) => {
      this.#exited = true;
      if (this.laneDir) Deno.remove(this.laneDir, { recursive: true }).catch(() => {});
      stdin.close().catch(() => {});
      // V8 at its heap limit: "Fatal JavaScript out of memory", then an abort (SIGTRAP).
      if (!this.#killedFor && this.#outOfMemory) this.#killedFor = "memory";
      // The process ended itself at a limit its router saw (`host.ts`).
      this.#killedFor ??= limitOfExit(status.code);
      const label = this.spawn ? this.spawn.name ?? this.spawn.entrypoint : "spare";
      if (this.#killedFor) console.error(`function ${label}: stopped at its ${this.#killedFor} limit`);
      else if (!status.success && !this.#retired) {
        console.error(`function ${label}: its process ended (${status.code})`);
      }
      onEnd(this);
      return this.#killedFor;
    });
  }

  #stdin: WritableStreamDefaultWriter<Uint8Array>;

  /** A spare process serves `spawn` from now on, its worker narrowed to `spawn`'s read paths. */
  assign(spawn: Spawn): void {
    this.spawn = spawn;
    this.lastUsed = Date.now();
    const assignment: Assignment = {
      entrypoint: spawn.entrypoint,
      version: spawn.version,
      name: spawn.name,
      readPaths: spawn.readPaths,
      secrets: spawn.secrets,
    };
    this.#stdin.write(new TextEncoder().encode(JSON.stringify(assignment) + "\n")).catch(() => {});
  }

  get pid(): number {
    return this.#child.pid;
  }

  get exited(): boolean {
    return this.#exited;
  }

  /** Ended, or ending at a limit: no new request goes to it. */
  get gone(): boolean {
    return this.#exited || this.#ending;
  }

  async #readPort(): Promise<number> {
    const lines = this.#child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(lineSplitter());
    const reader = lines.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error("the function's process ended before it listened");
      const port = listening(value);
      if (port) {
        // The function's log lines, to the server as the supervisor's own.
        (async () => {
          for (;;) {
            const next = await reader.read().catch(() => ({ done: true, value: undefined }));
            if (next.done) return;
            const ending = endingOf(next.value ?? "");
            if (ending) (this.#killedFor ??= ending, this.#ending = true);
            else console.log(next.value);
          }
        })();
        return port;
      }
      console.log(value);
    }
  }

  async #forwardErrors(): Promise<void> {
    const lines = this.#child.stderr.pipeThrough(new TextDecoderStream()).pipeThrough(lineSplitter());
    for await (const line of lines) {
      if (line.includes("out of memory")) this.#outOfMemory = true;
      console.error(line);
    }
  }

  /** A request starts. */
  begin(): Flight {
    const flight = {};
    this.flights.add(flight);
    this.lastUsed = Date.now();
    return flight;
  }

  /** A request ended (its answer sent, or failed). */
  end(flight: Flight): void {
    this.flights.delete(flight);
    this.lastUsed = Date.now();
  }

  /**
   * Serve no new requests; end once the ones in flight are done. The process itself waits for
   * them (it is told to drain): the server may have sent some straight to its port, which this
   * supervisor does not see. A process still running `DRAIN_LIMIT_MS` later is killed.
   */
  retire(): void {
    if (this.#retired) return;
    this.#retired = true;
    if (this.#exited) return;
    this.#stdin.write(new TextEncoder().encode('{"drain":true}\n')).catch(() => this.kill());
    const timer = setTimeout(() => this.kill(), DRAIN_LIMIT_MS);
    Deno.unrefTimer(timer);
    this.ended.then(() => clearTimeout(timer));
  }

  get retired(): boolean {
    return this.#retired;
  }

  /** End now (the supervisor stops). */
  stop(): void {
    this.#retired = true;
    this.kill();
  }

  kill(limit?: LimitKind): void {
    if (this.#exited) return;
    if (limit) this.#killedFor ??= limit;
    try {
      this.#child.kill("SIGKILL");
    } catch { /* already gone */ }
  }
}

/** The limit a function's process says it ends at (`{"ending": "cpu"}` on its standard output), if that line is one. */
function endingOf(line: string): LimitKind | null {
  if (!line.startsWith('{"ending"')) return null;
  try {
    const kind = JSON.parse(line).ending;
    return kind in LIMIT_EXIT ? kind as LimitKind : null;
  } catch {
    return null;
  }
}

/** The limit a function's process ended itself at, by its exit code (`host.ts`), if any. */
function limitOfExit(code: number): LimitKind | null {
  const found = Object.entries(LIMIT_EXIT).find(([, exit]) => exit === code);
  return found ? found[0] as LimitKind : null;
}

/** Whether a header is absent or a JSON array of paths for a permission flag (no comma in them). */
function pathList(header: string | null): boolean {
  if (header === null) return true;
  try {
    const paths = JSON.parse(header);
    return Array.isArray(paths) && paths.every((p) => typeof p === "string" && p !== "" && !p.includes(","));
  } catch {
    return false;
  }
}

function listening(line: string): number | null {
  if (!line.startsWith('{"listening"')) return null;
  try {
    return Number(JSON.parse(line).listening) || null;
  } catch {
    return null;
  }
}

function lineSplitter(): TransformStream<string, string> {
  let buffer = "";
  return new TransformStream({
    transform(text, controller) {
      buffer += text;
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) controller.enqueue(line);
    },
    flush(controller) {
      if (buffer) controller.enqueue(buffer);
    },
  });
}

function defaultMemoryMb(options: SupervisorOptions): number {
  return options.memoryMb || 256;
}

/** Whether `path` is `folder` or lies in it. */
function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith("/") ? folder : `${folder}/`);
}

/**
 * Whether a spare process (reading `roots` and /tmp, denying nothing) can serve a function with
 * exactly the reads its own process would get: its worker is given `read` and /tmp (each within
 * what the spare may read), and no denied folder may lie in those or hold one of them, since a
 * worker's permissions cannot deny more than its process's (Deno refuses a worker asking for /tmp
 * from a process that denies a folder in it).
 */
export function spareFits(roots: string[], read: string[], deny: string[]): boolean {
  const granted = [...read, "/tmp"];
  return read.every((p) => [...roots, "/tmp"].some((root) => within(p, root))) &&
    deny.every((d) => !granted.some((g) => within(d, g) || within(g, d)));
}

/**
 * Whether a function's live process can serve another version of it: started with the same
 * permissions, heap limit, secrets and folder, and without an import map (read once, when the
 * process starts). Its new worker then gets exactly what a process started for the new version
 * would give it; a process that is a former spare narrows it the same way (the same read folders).
 */
export function sameLaunch(running: Spawn, next: Spawn): boolean {
  const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);
  return running.entrypoint === next.entrypoint && running.name === next.name &&
    running.memoryMb === next.memoryMb && !running.importMap && !next.importMap &&
    same(running.readPaths, next.readPaths) && same(running.denyPaths, next.denyPaths) &&
    same(running.secrets, next.secrets);
}

/** How the cold requests were served since the supervisor started (tests, `/_internal/health`). */
export interface ColdCounts {
  /** A new version served by a new worker in the function's own live process. */
  reused: number;
  /** Served by the spare process. */
  spareTaken: number;
  /** A process started for the function. */
  started: number;
}

const LIMIT_MESSAGE: Record<LimitKind, string> = {
  memory: "the function's memory limit was reached",
  cpu: "the function's CPU time limit was reached",
  wall_clock: "the function's wall clock limit was reached",
};

/** The supervisor's request handler. */
export function createSupervisor(options: SupervisorOptions): Supervisor {
  const processes = new Map<string, FunctionProcess>();
  let spare: FunctionProcess | null = null;
  const counts: ColdCounts = { reused: 0, spareTaken: 0, started: 0 };
  let stopped = false;
  /** Every process by its port, the ended ones kept a while (`/_internal/ended`). */
  const byPort = new Map<number, FunctionProcess>();
  const onEnd = (ended: FunctionProcess) => {
    if (ended.portNumber !== null) {
      byPort.delete(ended.portNumber);
      byPort.set(ended.portNumber, ended);
      while (byPort.size > ENDED_KEPT && [...byPort.values()].filter((p) => p.exited).length > ENDED_KEPT) {
        const oldest = [...byPort.entries()].find(([, p]) => p.exited);
        if (!oldest) break;
        byPort.delete(oldest[0]);
      }
    }
    if (spare === ended) spare = null;
    const entrypoint = ended.spawn?.entrypoint;
    if (entrypoint !== undefined && processes.get(entrypoint) === ended) processes.delete(entrypoint);
  };
  /**
   * Start a spare process when there is none: after a cold request's answer (the first one, which
   * starts the supervisor itself, and each one that took the spare), so that the spare's start
   * never competes with a function's boot or its first answer.
   */
  function refill(): void {
    // A spare's worker asks for writing /tmp, which a process denying a folder in it refuses.
    if (options.spare === false || (options.denyWrite ?? []).length > 0 || stopped || spare) return;
    spare = new FunctionProcess(null, options, onEnd);
    // A spare that cannot start is left ended: the next cold request starts its own process.
    spare.port.catch(() => {});
  }
  /** The secrets the server last sent (`PUT /_internal/secrets`), given to processes as they start. */
  let secrets: Record<string, string> = options.secrets ?? {};

  function processFor(
    req: Request,
    entrypoint: string,
  ): { process: FunctionProcess; cold: boolean } {
    const version = req.headers.get(HEADER.version) ?? "";
    const process = processes.get(entrypoint);
    if (process && !process.gone && process.spawn?.version === version) return { process, cold: false };
    const spawn = spawnOf(req, entrypoint, version);
    if (process && !process.gone && process.spawn && sameLaunch(process.spawn, spawn)) {
      // A new version of the function (an edit of its folder, a `oneshot` request) started the
      // way its process was: a new worker in that process serves it (its router retires the old
      // worker once its requests are done), no Deno process to start.
      process.spawn = spawn;
      counts.reused += 1;
      return { process, cold: true };
    }
    if (process) {
      processes.delete(entrypoint);
      process.retire();
    }
    const taken = spare;
    if (
      // The spare runs without an import map: a function with one starts its own process.
      taken && !taken.exited && spawn.memoryMb === defaultMemoryMb(options) && !spawn.importMap &&
      spareFits(options.readPaths, spawn.readPaths, spawn.denyPaths)
    ) {
      spare = null;
      taken.assign(spawn);
      processes.set(entrypoint, taken);
      counts.spareTaken += 1;
      return { process: taken, cold: true };
    }
    const created = new FunctionProcess(spawn, options, onEnd);
    processes.set(entrypoint, created);
    counts.started += 1;
    return { process: created, cold: true };
  }

  /** What a request's headers say its function's process must be started with. */
  function spawnOf(req: Request, entrypoint: string, version: string): Spawn {
    const read = req.headers.get(HEADER.read);
    const deny = req.headers.get(HEADER.deny);
    const importMap = req.headers.get(HEADER.importMap);
    return {
      entrypoint,
      version,
      name: req.headers.get(HEADER.name) ?? undefined,
      memoryMb: Number(req.headers.get(HEADER.memory)) || defaultMemoryMb(options),
      readPaths: read ? JSON.parse(read) : options.readPaths,
      denyPaths: deny ? JSON.parse(deny) : [],
      importMap: importMap ? JSON.parse(importMap)[0] : undefined,
      secrets,
    };
  }

  /** Why a request to `process` failed: the limit that killed it, else the worker failure. */
  async function why(process: FunctionProcess, err: unknown): Promise<Response> {
    const limit = await Promise.race([process.ended, new Promise<null>((r) => setTimeout(() => r(null), 2000))]);
    if (limit) return failure("limit", 546, LIMIT_MESSAGE[limit], limit);
    return failure("worker", 500, `the function's process failed: ${err}`);
  }

  const handle = async (req: Request): Promise<Response> => {
    if (req.headers.get(HEADER.secret) !== options.secret) return failure("forbidden", 403, "forbidden");
    const url = new URL(req.url);
    if (url.pathname === "/_internal/health") return Response.json({ workers: processes.size, cold: counts });
    if (url.pathname === "/_internal/ended") {
      // A request the server sent straight to a process's port failed: did that process end,
      // and at which limit? (Waits as `why` does for the process's end to be seen.)
      const process = byPort.get(Number(url.searchParams.get("port")));
      if (!process) return Response.json({ ended: false, limit: null });
      const limit = await Promise.race([
        process.ended,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 2000)),
      ]);
      return Response.json({ ended: limit !== undefined, limit: limit ?? null });
    }
    if (url.pathname === "/_internal/secrets" && req.method === "PUT") {
      // Processes started from now on get these; the server changes the functions' versions with
      // them, so the processes of the old secrets are retired.
      secrets = await req.json();
      return new Response(null, { status: 204 });
    }
    const entrypoint = req.headers.get(HEADER.entrypoint);
    if (!entrypoint) return failure("bad_request", 400, `${HEADER.entrypoint} is missing`);
    for (const header of [HEADER.read, HEADER.deny, HEADER.importMap]) {
      if (!pathList(req.headers.get(header))) {
        return failure("bad_request", 400, `${header} must be a JSON array of paths without commas`);
      }
    }
    const { process, cold } = processFor(req, entrypoint);
    // Counted from now: a newer version arriving while this one starts retires it only after.
    const flight = process.begin();
    let port: number;
    try {
      port = await process.port;
    } catch (err) {
      process.end(flight);
      return failure("boot", 503, String(err instanceof Error ? err.message : err));
    }
    byPort.set(port, process);
    const headers = new Headers(req.headers);
    headers.set(HEADER.secret, process.secret);
    // What fetch would add on its own is marked, so the function sees the caller's headers only.
    const added = [];
    if (!headers.has("user-agent")) added.push("user-agent");
    if (!headers.has("accept-encoding")) (added.push("accept-encoding"), headers.set("accept-encoding", "identity"));
    headers.set(HEADER.added, added.join(","));
    if (isUpgrade(req)) {
      // A WebSocket handshake: through an inner socket to the process (`tunnel.ts`), in flight
      // until either side closes.
      try {
        return await openInner(req, `ws://127.0.0.1:${port}${url.pathname}${url.search}`, innerHeaders(headers), () => {
          process.end(flight);
          if (cold) refill();
        });
      } catch (err) {
        process.end(flight);
        if (cold) refill();
        return why(process, err);
      }
    }
    let response: Response;
    try {
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      response = await fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, {
        method: req.method,
        headers,
        body: hasBody ? req.body : null,
        redirect: "manual",
        // @ts-ignore: a streamed request body (fetch's `duplex`)
        duplex: "half",
      });
    } catch (err) {
      process.end(flight);
      if (cold) refill();
      return why(process, err);
    }
    // A cold request's answer delivered (or streaming for half a second): the next spare starts.
    const spareTimer = cold ? setTimeout(refill, 500) : undefined;
    const over = () => {
      process.end(flight);
      if (cold) (clearTimeout(spareTimer), refill());
    };
    const answer = new Headers(response.headers);
    answer.delete(HEADER.cold);
    answer.delete(HEADER.direct);
    if (cold) answer.set(HEADER.cold, "1");
    // Where the server may send this function's next requests of this version itself, without
    // this proxy (`functions::direct`): the process's port and secret, loopback only.
    if (!process.retired && !process.gone) answer.set(HEADER.direct, `${port} ${process.secret}`);
    if (!response.body) {
      over();
      return new Response(null, { status: response.status, headers: answer });
    }
    const reader = response.body.getReader();
    let done = false;
    const finish = () => {
      if (!done) (done = true, over());
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) (finish(), controller.close());
          else controller.enqueue(next.value);
        } catch (err) {
          finish();
          controller.error(err);
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason).catch(() => {});
      },
    }, { highWaterMark: 0 });
    return new Response(body, { status: response.status, headers: answer });
  };

  /** End the processes idle for `idleMs`; how many were ended. */
  function sweep(now = Date.now()): number {
    const idleMs = options.idleMs ?? 0;
    if (idleMs <= 0) return 0;
    const idle = [...processes.entries()].filter(([, p]) => p.flights.size === 0 && now - p.lastUsed >= idleMs);
    for (const [entrypoint, process] of idle) {
      processes.delete(entrypoint);
      process.retire();
    }
    return idle.length;
  }

  return Object.assign(handle, {
    sweep,
    pid: (entrypoint: string) => processes.get(entrypoint)?.pid,
    counts: () => ({ ...counts }),
    sparePid: async () => {
      const current = spare;
      if (!current) return undefined;
      await current.port.catch(() => {});
      return current.exited ? undefined : current.pid;
    },
    stop: () => {
      stopped = true;
      spare?.stop();
      spare = null;
      for (const process of processes.values()) process.stop();
      processes.clear();
    },
  });
}

if (import.meta.main) {
  const { line, rest } = await firstLine(Deno.stdin.readable);
  const options: SupervisorOptions = JSON.parse(line);
  const supervisor = createSupervisor(options);
  if ((options.idleMs ?? 0) > 0) setInterval(() => supervisor.sweep(), Math.min(options.idleMs!, 30_000));
  Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(JSON.stringify({ listening: port })),
  }, supervisor);
  // The server holds standard input open: its end means the server is gone.
  while (!(await rest.read()).done) { /* nothing else is sent */ }
  supervisor.stop();
  Deno.exit(0);
}
