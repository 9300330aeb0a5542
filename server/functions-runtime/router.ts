/**
 * One function's router: the HTTP listener of a function's own Deno process (`host.ts`), which
 * runs the function in a worker (its own isolate, with read access to the function's folders and
 * write access to /tmp only), hands it requests as messages (the body streamed in) and streams
 * its answer back.
 *
 * The server decides everything else: which function a URL names, JWT checks, body sizes and
 * the wall-clock limit, the request idle timeout and the function's version, which it sends with
 * each request (a new version gets a new worker; the old one finishes its requests, then stops).
 * In a function's own process (`host.ts`) it also watches the process's CPU time and resident
 * memory while a request runs; the heap limit is the process's (`supervisor.ts` sets it). The
 * router only enforces its limits and says how a request failed in `x-functions-error` (`boot`, `worker`,
 * `limit`, `idle`); the server turns that into Supabase's answer. Protocol: docs/functions.md.
 */

import process from "node:process";
import type { FromWorker, ToWorker } from "./messages.ts";
import { acceptInner, functionHeaders, isUpgrade, type Link, PROTOCOL_HEADER } from "./tunnel.ts";
import {
  callerUrl,
  CPU_MS,
  createShared,
  field,
  FREE,
  IDLE_MS,
  IN_FLIGHT,
  LANE_HEADER,
  type LaneView,
  ORIGIN,
  SEQ,
  SLOTS,
  STATE,
  view,
  WAITING,
  WALL_MS,
  WATCHING,
} from "./lane.ts";

/** The router's options (the supervisor's, through the standard input of `host.ts`). */
export interface RouterOptions {
  /** Every request must carry it in `x-functions-secret`. */
  secret: string;
  /** Folders a function may read (its own code is in them). */
  readPaths: string[];
  /** A worker without requests for this long is stopped (its memory returned); 0 keeps them. */
  idleMs?: number;
  /**
   * Workers get this process's permissions as they are (a function's own process, already
   * narrowed to that function), instead of the read and write lists below.
   */
  inheritPermissions?: boolean;
  /**
   * The memory limit of the process in MiB: a worker is stopped (546, `memory`) when the
   * process's resident memory passes it by `RSS_ALLOWANCE_MB` while a request runs.
   */
  memoryMb?: number;
  /** The function's secrets, until the server sends others (`PUT /_internal/secrets`). */
  secrets?: Record<string, string>;
  /** Each worker opens a lane (`lane.ts`) for the server's warm requests. */
  lanes?: boolean;
  /**
   * The process's own lane folder (the supervisor's `laneRoot`): lanes listen on Unix sockets in
   * it, which its workers may read and write; on loopback ports without.
   */
  laneDir?: string;
  /**
   * Called when a worker is stopped at its CPU-time or memory limit, after its requests were
   * answered: a function's process ends then (`host.ts`), since a worker stopped in a busy loop
   * keeps its thread spinning (Deno's `terminate` does not end it) and memory is not returned.
   */
  onLimit?: (kind: LimitKind) => void;
}

/** The exit codes of a function's process that ended itself at a limit (`host.ts`; the supervisor reads them). */
export const LIMIT_EXIT: Record<LimitKind, number> = { wall_clock: 81, memory: 82, cpu: 83 };

/**
 * The request handler, the sweep of idle workers (`now` given by tests), and a boot ahead of the
 * first request (resolved once the worker is ready or failed to boot).
 */
export type Router = ((req: Request) => Promise<Response>) & {
  sweep(now?: number): number;
  preload(entrypoint: string, version: string, name?: string): Promise<void>;
  /** Requests in flight on every worker, retired ones finishing theirs included. */
  inFlight(): number;
};

export const HEADER = {
  secret: "x-functions-secret",
  entrypoint: "x-functions-entrypoint",
  timeout: "x-functions-timeout-ms",
  idle: "x-functions-idle-timeout-ms",
  version: "x-functions-version",
  name: "x-functions-name",
  requestId: "x-functions-request-id",
  error: "x-functions-error",
  cold: "x-functions-cold",
  /** Which limit stopped the function (`wall_clock`, `memory`, `cpu`), with `error: limit`. */
  limit: "x-functions-limit",
  /** Headers the supervisor's own fetch added (`user-agent`, `accept-encoding`): not the caller's. */
  added: "x-functions-added",
  /** The function's memory limit in MiB, its CPU-time limit per request in ms (the supervisor's). */
  memory: "x-functions-memory-mb",
  cpu: "x-functions-cpu-ms",
  /** The folders the function may read, as a JSON array (the supervisor's). */
  read: "x-functions-read",
  /** Folders inside those it may read that the function may not read, as a JSON array (the supervisor's). */
  deny: "x-functions-deny",
  /** The function's import map or deno.json, as a JSON array of zero or one path (the supervisor's). */
  importMap: "x-functions-import-map",
  /** The supervisor's answer: `<port> <secret>` of the function's process, for the server's direct requests. */
  direct: "x-functions-direct",
  /** The CPU time the function's process spent until the answer's head, in ms (to the server). */
  cpuUsed: "x-functions-cpu-used-ms",
  /** The answer's worker's lane, its port or socket path (`lane.ts`): where the server may send the function's next requests. */
  lane: LANE_HEADER,
  /** The caller's origin (`lane.ts`'s `callerUrl`), which the function's request URL starts with. */
  origin: ORIGIN,
} as const;

export type LimitKind = "wall_clock" | "memory" | "cpu";

/**
 * What a function's process may hold beyond its heap limit before its worker is stopped: the Deno
 * runtime and the router (about 60 MB measured), and memory outside the V8 heap (`ArrayBuffer`s).
 */
export const RSS_ALLOWANCE_MB = 128;
/** How often CPU time and memory are read while a request runs. */
const WATCH_MS = 50;
/** The runtime's files a worker loads: readable by every worker, whatever its function may read. */
const WORKER_FILES = ["./worker.ts", "./lane.ts", "./net_guard.ts", "./worker_socket.ts"]
  .map((f) => new URL(f, import.meta.url).pathname);
/** How many closed workers' lanes are remembered (`/_internal/lane`). */
const ENDED_LANES_KEPT = 64;
/** Numbers the lanes' sockets in the process's lane folder. */
let laneNumber = 0;

/** The CPU time (user + system) of this process so far, in ms (getrusage: no permission needed). */
export function cpuTimeMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

export type FailureKind = "boot" | "worker" | "limit" | "idle";

const STATUS: Record<FailureKind, number> = { boot: 503, worker: 500, limit: 546, idle: 504 };

const NULL_BODY_STATUS = [101, 103, 204, 205, 304];

/** Request bodies up to this size (by `Content-Length`) reach the worker whole, with the request. */
const INLINE_BODY_BYTES = 64 * 1024;

export function failure(
  kind: FailureKind | "forbidden" | "bad_request",
  status: number,
  message: string,
  limit?: LimitKind,
): Response {
  const headers: Record<string, string> = { [HEADER.error]: kind, "content-type": "text/plain" };
  if (limit) headers[HEADER.limit] = limit;
  return new Response(message, { status, headers });
}

class Failure extends Error {
  constructor(readonly kind: FailureKind, message: string, readonly limit?: LimitKind) {
    super(message);
  }
}

/** One request in flight on a worker. */
interface Pending {
  head(response: Response): void;
  fail(kind: FailureKind, message: string, limit?: LimitKind): void;
  /** The head carried the whole body: the answer is complete, nothing follows. */
  complete?: boolean;
  /** Set once the head arrived: where the next chunk, the end or an error goes. */
  next?: (message: FromWorker) => void;
  /** The worker asks for the next chunk of the request's body, or gives it up. */
  upload?: (message: Extract<FromWorker, { type: "body_pull" | "body_cancel" }>) => void;
  /**
   * What came after the head before its reader listened: an upgraded request's frames before the
   * tunnel did (`tunnel.ts`), or the answer's first chunk and end before `stream` did.
   */
  frames?: FromWorker[];
}

/** A function's worker: booted once, then reused until it fails or runs past a limit. */
class FunctionWorker {
  readonly ready: Promise<void>;
  readonly pending = new Map<number, Pending>();
  /** When the last request came or ended. */
  lastUsed = Date.now();
  /** Its lane, once the worker says it listens. */
  lane: { key: number | string; view: LaneView } | null = null;
  #shared: SharedArrayBuffer | undefined;
  #worker: Worker;
  #closed = false;
  #retired = false;
  #drain: ReturnType<typeof setInterval> | undefined;

  constructor(
    entrypoint: string,
    readonly version: string,
    options: RouterOptions,
    private onClose: (limit: LimitKind | undefined) => void,
    boot: { name?: string; env?: Record<string, string> } = {},
  ) {
    const laneDirs = options.laneDir ? [options.laneDir] : [];
    this.#worker = new Worker(new URL("./worker.ts", import.meta.url), {
      type: "module",
      // @ts-ignore: Deno's worker options (--unstable-worker-options)
      deno: {
        permissions: options.inheritPermissions ? "inherit" : {
          net: true,
          env: true,
          read: [...options.readPaths, "/tmp", ...WORKER_FILES, ...laneDirs],
          write: ["/tmp", ...laneDirs],
          import: true,
          sys: true,
          run: false,
          ffi: false,
        },
      },
    });
    this.ready = new Promise((resolve, reject) => {
      this.#worker.onmessage = (event: MessageEvent<FromWorker>) => {
        const message = event.data;
        if (message.type === "ready") {
          if (message.lane && this.#shared) this.lane = { key: message.lane, view: view(this.#shared) };
          resolve();
        } else if (message.type === "boot_error") {
          console.error(`function ${entrypoint} failed to boot: ${message.message}`);
          this.close("boot", message.message);
          reject(new Failure("boot", message.message));
        } else this.#receive(message);
      };
      this.#worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        console.error(`function ${entrypoint}: ${event.message}`);
        reject(new Failure("boot", event.message));
        this.close("worker", event.message);
      };
    });
    this.#shared = options.lanes ? createShared() : undefined;
    const path = options.laneDir ? `${options.laneDir}/${++laneNumber}.sock` : undefined;
    const lane = this.#shared ? { secret: options.secret, shared: this.#shared, path } : undefined;
    this.post({ type: "boot", entrypoint, ...boot, lane });
  }

  /** Requests in flight on its lane. */
  laneInFlight(): number {
    return this.lane ? Atomics.load(this.lane.view.ints, IN_FLIGHT) : 0;
  }

  get retired(): boolean {
    return this.#retired;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** A request is over: forget it, and stop a retired worker once it has none left. */
  settle(id: number): void {
    this.pending.delete(id);
    this.lastUsed = Date.now();
    if (this.#retired) this.#closeIfIdle();
  }

  /**
   * Take no new requests (a newer version of the function serves them); stop once idle. Its
   * lane takes no new connection; its requests end without a message, so they are looked for.
   */
  retire(): void {
    if (this.#retired) return;
    this.#retired = true;
    this.post({ type: "lane_close" });
    if (!this.#closeIfIdle() && this.lane) this.#drain = setInterval(() => this.#closeIfIdle(), 20);
  }

  #closeIfIdle(): boolean {
    if (this.pending.size > 0 || this.laneInFlight() > 0) return false;
    this.close("worker", "replaced by a newer version");
    return true;
  }

  /** Send to the worker; false when it is closed (nothing will answer). */
  post(message: ToWorker, transfer: Transferable[] = []): boolean {
    if (!this.#closed) this.#worker.postMessage(message, transfer);
    return !this.#closed;
  }

  #receive(message: FromWorker): void {
    if (!("id" in message)) return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === "body_pull" || message.type === "body_cancel") {
      pending.upload?.(message);
    } else if (message.type === "head") {
      // `x-functions-*` answers are the router's own: a function cannot fake a failure.
      const headers = message.headers.filter(([name]) => !name.toLowerCase().startsWith("x-functions-"));
      if (message.whole) {
        pending.complete = true;
        const body = NULL_BODY_STATUS.includes(message.status) ? null : message.whole;
        pending.head(new Response(body, { status: message.status, headers }));
      } else pending.head(new Response(null, { status: message.status, headers }));
    } else if (message.type === "error" && !pending.next) {
      this.settle(message.id);
      pending.fail("worker", message.message);
    } else if (pending.next) pending.next(message);
    // Came before the answer's reader (or the tunnel) listened: kept for it.
    else (pending.frames ??= []).push(message);
  }

  /** Stop the worker: every request on it fails with `kind`. */
  close(kind: FailureKind, message: string, limit?: LimitKind): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#drain);
    this.#worker.terminate();
    // A watcher waiting for the lane's next request is let go.
    if (this.lane) Atomics.notify(this.lane.view.ints, IN_FLIGHT);
    this.onClose(kind === "limit" ? limit : undefined);
    for (const pending of this.pending.values()) {
      if (pending.next) pending.next({ type: "error", id: -1, message });
      else pending.fail(kind, message, limit);
    }
    this.pending.clear();
  }
}

/** What the watcher checks of a request in flight. */
interface Watched {
  worker: FunctionWorker;
  /** The wall-clock limit in ms (0: none), and when it is reached (ms since the epoch). */
  wallClockMs: number;
  deadline: number;
  /** The process's CPU time when the function started on the request (set once its worker is ready). */
  cpuStart?: number;
  cpuMs: number;
  memoryMb: number;
  /** While no head has come: when the request idle timeout is reached, and what it does then. */
  idleAt?: number;
  onIdle?: () => void;
}

/** What the watcher keeps of a worker's lane: per slot, the request it saw there and its start. */
interface LaneWatch {
  worker: FunctionWorker;
  view: LaneView;
  seen: Int32Array;
  /** The process's CPU time when the watcher first saw the slot's request. */
  cpuStart: Float64Array;
  /** The request of the slot already told its idle timeout. */
  idleTold: Int32Array;
  /** A wait for the lane's next request is pending (`Atomics.waitAsync`). */
  armed: boolean;
}

/**
 * The limits of every request in flight, checked together every `WATCH_MS` while any is (the
 * process's CPU time and memory read once per check): no timer is set per request, and none runs
 * while the process is idle. A limit is seen up to `WATCH_MS` after it is reached. Requests on a
 * lane (`lane.ts`) are read from their slots: a request shorter than a check is not seen at all;
 * the CPU time of one that is counts from when it was first seen.
 */
function createWatcher(memoryMb: number) {
  const watched = new Set<Watched>();
  const lanes = new Set<LaneWatch>();
  let ticker: ReturnType<typeof setInterval> | undefined;

  const start = () => {
    if (ticker !== undefined) return;
    for (const lane of lanes) Atomics.store(lane.view.ints, WATCHING, 1);
    ticker = setInterval(check, WATCH_MS);
  };
  /** Sleep until a lane's next request (or a watched request) starts the ticker again. */
  const stop = () => {
    clearInterval(ticker);
    ticker = undefined;
    for (const lane of lanes) {
      Atomics.store(lane.view.ints, WATCHING, 0);
      arm(lane);
    }
  };
  const arm = (lane: LaneWatch) => {
    if (lane.armed || lane.worker.closed) return;
    const wait = Atomics.waitAsync(lane.view.ints, IN_FLIGHT, 0);
    if (!wait.async) return start();
    lane.armed = true;
    wait.value.then(() => {
      lane.armed = false;
      if (!lane.worker.closed) start();
    });
  };

  const checkLane = (lane: LaneWatch, now: number, cpu: () => number, rssMb: () => number): boolean => {
    const { ints, times } = lane.view;
    if (Atomics.load(ints, IN_FLIGHT) === 0) return false;
    const worker = lane.worker;
    for (let slot = 0; slot < SLOTS; slot++) {
      const state = Atomics.load(ints, field(slot, STATE));
      if (state === FREE) continue;
      const seq = ints[field(slot, SEQ)];
      if (lane.seen[slot] !== seq) (lane.seen[slot] = seq, lane.cpuStart[slot] = cpu());
      const wallMs = ints[field(slot, WALL_MS)];
      const started = times[slot];
      if (wallMs > 0 && now - started >= wallMs) {
        worker.close("limit", `wall clock limit of ${wallMs} ms reached`, "wall_clock");
        return true;
      }
      // The request idle timeout runs until the function's answer (a lane's answer streams
      // out of Deno's own server, chunk by chunk, without the router).
      const idleMs = ints[field(slot, IDLE_MS)];
      if (state === WAITING && idleMs > 0 && now - started >= idleMs && lane.idleTold[slot] !== seq) {
        lane.idleTold[slot] = seq;
        worker.post({ type: "lane_idle", slot, seq });
      }
      const cpuMs = ints[field(slot, CPU_MS)];
      if (cpuMs > 0 && cpu() - lane.cpuStart[slot] > cpuMs) {
        worker.close("limit", `CPU time limit of ${cpuMs} ms reached`, "cpu");
        return true;
      }
      if (memoryMb > 0 && rssMb() > memoryMb + RSS_ALLOWANCE_MB) {
        worker.close("limit", `memory limit of ${memoryMb} MB reached`, "memory");
        return true;
      }
    }
    return true;
  };

  const check = () => {
    const now = Date.now();
    let cpuNow: number | undefined;
    let rssNow: number | undefined;
    const cpu = () => (cpuNow ??= cpuTimeMs());
    const rssMb = () => (rssNow ??= Deno.memoryUsage().rss / 1048576);
    for (const w of watched) {
      if (w.deadline > 0 && now >= w.deadline) {
        w.worker.close("limit", `wall clock limit of ${w.wallClockMs} ms reached`, "wall_clock");
        continue;
      }
      if (w.idleAt !== undefined && now >= w.idleAt) {
        const onIdle = w.onIdle;
        w.idleAt = w.onIdle = undefined;
        onIdle?.();
      }
      if (w.cpuStart === undefined) continue;
      if (w.cpuMs > 0 && cpu() - w.cpuStart > w.cpuMs) {
        w.worker.close("limit", `CPU time limit of ${w.cpuMs} ms reached`, "cpu");
      } else if (w.memoryMb > 0 && rssMb() > w.memoryMb + RSS_ALLOWANCE_MB) {
        w.worker.close("limit", `memory limit of ${w.memoryMb} MB reached`, "memory");
      }
    }
    let busy = false;
    for (const lane of lanes) {
      if (lane.worker.closed) lanes.delete(lane);
      else if (checkLane(lane, now, cpu, rssMb)) busy = true;
    }
    if (watched.size === 0 && !busy) stop();
  };
  return {
    /** Watch a request until the returned function is called (more than once is harmless). */
    watch(w: Watched): () => void {
      watched.add(w);
      start();
      return () => {
        watched.delete(w);
      };
    },
    /** Watch the requests of `worker`'s lane from now on, until it closes. */
    watchLane(worker: FunctionWorker): void {
      if (!worker.lane) return;
      const lane: LaneWatch = {
        worker,
        view: worker.lane.view,
        seen: new Int32Array(SLOTS),
        cpuStart: new Float64Array(SLOTS),
        idleTold: new Int32Array(SLOTS),
        armed: false,
      };
      lanes.add(lane);
      if (ticker !== undefined) Atomics.store(lane.view.ints, WATCHING, 1);
      else arm(lane);
    },
  };
}

/** The router's request handler. */
export function createRouter(options: RouterOptions): Router {
  const workers = new Map<string, FunctionWorker>();
  /** Every worker not closed yet, the retired ones finishing their requests included. */
  const open = new Set<FunctionWorker>();
  let nextId = 1;
  /** The secrets the server last sent (`PUT /_internal/secrets`), given to workers as they boot. */
  let secrets: Record<string, string> = options.secrets ?? {};
  const watcher = createWatcher(options.memoryMb ?? 0);
  /** A limit ends this process (`onLimit`): requests are refused from then on. */
  let ending = false;
  /** Lanes of closed workers, by port or socket path: the limit that closed each, or null (`/_internal/lane`). */
  const endedLanes = new Map<string, LimitKind | null>();

  function workerFor(entrypoint: string, version: string, name?: string): FunctionWorker {
    let worker = workers.get(entrypoint);
    if (worker && worker.version !== version) {
      workers.delete(entrypoint);
      worker.retire();
      worker = undefined;
    }
    if (!worker) {
      const created: FunctionWorker = new FunctionWorker(entrypoint, version, options, (limit) => {
        open.delete(created);
        if (workers.get(entrypoint) === created) workers.delete(entrypoint);
        if (created.lane) {
          endedLanes.set(String(created.lane.key), limit ?? null);
          if (endedLanes.size > ENDED_LANES_KEPT) endedLanes.delete(endedLanes.keys().next().value!);
        }
        if ((limit === "cpu" || limit === "memory") && options.onLimit && !ending) {
          // The process ends: no new request is taken (the server sends it elsewhere).
          ending = true;
          for (const worker of open) worker.retire();
          options.onLimit(limit);
        }
      }, { name, env: secrets });
      created.ready.then(() => watcher.watchLane(created), () => {});
      open.add(created);
      worker = created;
      workers.set(entrypoint, worker);
    }
    worker.lastUsed = Date.now();
    return worker;
  }

  /** Stop the workers idle for `idleMs`; how many were stopped. */
  function sweep(now = Date.now()): number {
    const idleMs = options.idleMs ?? 0;
    if (idleMs <= 0) return 0;
    const idle = [...workers.values()].filter((w) => w.pending.size === 0 && now - w.lastUsed >= idleMs);
    for (const worker of idle) worker.retire();
    return idle.length;
  }

  const handle = (req: Request): Promise<Response> => {
    // The supervisor's inner socket for a WebSocket handshake: accepted, then the head is its
    // first frame (`tunnel.ts`). The request's headers are read before the upgrade closes them.
    if (isUpgrade(req) && req.headers.get(HEADER.secret) === options.secret) {
      const copy = new Request(req.url, { method: req.method, headers: new Headers(req.headers) });
      return Promise.resolve(acceptInner(req, (onLink) => run(copy, onLink)));
    }
    return run(req);
  };

  const run = async (req: Request, onLink?: (link: Link) => void): Promise<Response> => {
    if (req.headers.get(HEADER.secret) !== options.secret) return failure("forbidden", 403, "forbidden");
    const url = new URL(req.url);
    if (url.pathname === "/_internal/health") return Response.json({ workers: workers.size });
    if (url.pathname === "/_internal/lane") {
      // A request the server sent to a lane broke off: did its worker stop, and at which limit?
      const lane = url.searchParams.get("lane") ?? "";
      if (!endedLanes.has(lane)) return Response.json({ ended: false, limit: null });
      return Response.json({ ended: true, limit: endedLanes.get(lane) });
    }
    if (url.pathname === "/_internal/secrets" && req.method === "PUT") {
      // Workers booted from now on get these; the server changes the functions' versions with
      // them, so the workers of the old secrets are retired.
      secrets = await req.json();
      return new Response(null, { status: 204 });
    }
    if (ending) {
      // Not run: the server sends a request straight here again through the supervisor, which
      // has a new process for it.
      const refused = failure("boot", 503, "the function's process is ending at a limit");
      refused.headers.set(HEADER.lane, "gone");
      return refused;
    }
    const entrypoint = req.headers.get(HEADER.entrypoint);
    if (!entrypoint) return failure("bad_request", 400, `${HEADER.entrypoint} is missing`);
    const timeoutMs = Number(req.headers.get(HEADER.timeout) ?? "0");
    const idleMs = Number(req.headers.get(HEADER.idle) ?? "0");
    const added = (req.headers.get(HEADER.added) ?? "").split(",").map((h) => h.trim().toLowerCase());
    const callers = [...req.headers].filter(([name]) => !name.startsWith("x-functions-") && !added.includes(name));
    const headers = onLink ? functionHeaders(callers, req.headers.get(PROTOCOL_HEADER)) : callers;
    let upload = req.method === "GET" || req.method === "HEAD" ? null : req.body;
    // A small body declared by its length goes whole with the request: no round trip per chunk.
    const length = Number(req.headers.get("content-length") ?? Number.NaN);
    let inline: Uint8Array<ArrayBuffer> | undefined;
    if (upload && !onLink && Number.isInteger(length) && length <= INLINE_BODY_BYTES) {
      inline = new Uint8Array(await req.arrayBuffer());
      upload = null;
    }

    const name = req.headers.get(HEADER.name) ?? undefined;
    const requestId = req.headers.get(HEADER.requestId) ?? undefined;
    const version = req.headers.get(HEADER.version) ?? "";
    // A worker booted for this request: a cold start, told to the server in `x-functions-cold`.
    const cold = workers.get(entrypoint)?.version !== version;
    const worker = workerFor(entrypoint, version, name);
    const id = nextId++;
    const cpuMs = Number(req.headers.get(HEADER.cpu) ?? "0") || 0;
    let cpuStart = 0;
    const watch: Watched = {
      worker,
      wallClockMs: timeoutMs,
      deadline: timeoutMs > 0 ? Date.now() + timeoutMs : 0,
      cpuMs,
      memoryMb: options.memoryMb ?? 0,
    };
    const done = watcher.watch(watch);
    try {
      await worker.ready;
      // The CPU time and memory of the process while the request runs (its boot not counted).
      // The process's CPU time counts every request running at once on it.
      cpuStart = cpuTimeMs();
      watch.cpuStart = cpuStart;
      const head = await new Promise<Response>((resolve, reject) => {
        // The request idle timeout: no head from the function this long after it got the request.
        if (idleMs > 0) {
          watch.idleAt = Date.now() + idleMs;
          watch.onIdle = () => {
            worker.post({ type: "cancel", id });
            reject(new Failure("idle", `no answer within the request idle timeout of ${idleMs} ms`));
          };
        }
        const headCame = () => (watch.idleAt = watch.onIdle = undefined);
        const reader = upload?.getReader();
        worker.pending.set(id, {
          head: (response) => (headCame(), resolve(response)),
          fail: (kind, message, limit) => (headCame(), reject(new Failure(kind, message, limit))),
          upload: (message) => {
            if (message.type === "body_cancel") reader?.cancel().catch(() => {});
            else if (reader) {
              reader.read().then(
                ({ done, value }) =>
                  done
                    ? worker.post({ type: "body_end", id })
                    : worker.post({ type: "body_chunk", id, chunk: value }, [value.buffer]),
                (err) => worker.post({ type: "body_end", id, error: String(err) }),
              );
            }
          },
        });
        const sent = worker.post({
          type: "request",
          id,
          method: req.method,
          url: callerUrl(req.url, req.headers.get(HEADER.origin)),
          headers,
          body: reader !== undefined,
          inline,
          requestId,
          upgrade: onLink !== undefined,
        });
        // Closed between its boot and now (a limit, a crash): the request fails as the others on it.
        if (!sent) reject(new Failure("worker", "the worker stopped before the request reached it"));
      });
      if (head.status === 101 && onLink) {
        // The function upgraded: the request stays in flight (its limits too) until the socket closes.
        onLink(link(worker, id, done));
        return head;
      }
      let response = head;
      if (worker.pending.get(id)?.complete) (worker.settle(id), done());
      else response = stream(worker, id, head, idleMs, done);
      if (cold) response.headers.set(HEADER.cold, "1");
      if (worker.lane && !worker.retired && !worker.closed) response.headers.set(HEADER.lane, String(worker.lane.key));
      response.headers.set(HEADER.cpuUsed, String(Math.round(cpuTimeMs() - cpuStart)));
      return response;
    } catch (err) {
      done();
      worker.settle(id);
      if (err instanceof Failure) {
        return failure(err.kind, STATUS[err.kind], err.message, err.limit);
      }
      throw err;
    }
  };
  async function preload(entrypoint: string, version: string, name?: string): Promise<void> {
    await workerFor(entrypoint, version, name).ready.catch(() => {});
  }
  const inFlight = () => [...open].reduce((sum, worker) => sum + worker.pending.size + worker.laneInFlight(), 0);
  return Object.assign(handle, { sweep, preload, inFlight });
}

/** The worker's side of upgraded request `id`, for the tunnel. */
function link(worker: FunctionWorker, id: number, done: () => void): Link {
  return {
    post: (message, transfer) => worker.post({ ...message, id } as ToWorker, transfer),
    listen(onMessage) {
      const pending = worker.pending.get(id);
      if (!pending) return onMessage({ type: "error", id, message: "the worker stopped" });
      const early = pending.frames ?? [];
      pending.frames = undefined;
      pending.next = onMessage;
      early.forEach(onMessage);
    },
    end() {
      worker.settle(id);
      done();
    },
  };
}

/**
 * The worker's answer as a response whose body pulls one chunk at a time. The worker sends the
 * first chunk with the head, unasked, and each later one for a `pull` (its credit): one credit at
 * most is outstanding, so the worker is never more than a chunk ahead of the client. A pull the
 * function leaves unanswered for `idleMs` breaks the body off (the status is already sent): a
 * stream that keeps sending is never idle, and a client that reads slowly does not count against it.
 */
function stream(worker: FunctionWorker, id: number, head: Response, idleMs: number, done: () => void): Response {
  const pending = worker.pending.get(id);
  if (!pending || NULL_BODY_STATUS.includes(head.status)) {
    worker.post({ type: "cancel", id });
    worker.settle(id);
    done();
    return head;
  }
  // Messages that came while no pull waited (the first chunk, the end, a failure under a limit).
  const early: FromWorker[] = pending.frames ?? [];
  pending.frames = undefined;
  // The worker may send a chunk now: the first one needs no pull.
  let credit = true;
  let waiting: ((message: FromWorker) => void) | null = null;
  pending.next = (message) => (waiting ? waiting(message) : early.push(message));
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      return new Promise<void>((resolve) => {
        let idle: ReturnType<typeof setTimeout> | undefined;
        waiting = (message) => {
          clearTimeout(idle);
          waiting = null;
          if (message.type === "chunk") {
            credit = false;
            controller.enqueue(message.chunk);
            // The next chunk asked for now, unless the end already came: it travels while the
            // client reads this one.
            if (early.length === 0) (credit = true, worker.post({ type: "pull", id }));
          } else {
            worker.settle(id);
            done();
            if (message.type === "end") controller.close();
            else controller.error(new Error(message.type === "error" ? message.message : "unexpected message"));
          }
          resolve();
        };
        const next = early.shift();
        if (next) return waiting(next);
        if (!credit) (credit = true, worker.post({ type: "pull", id }));
        if (idleMs > 0) {
          idle = setTimeout(() => {
            worker.post({ type: "cancel", id });
            const message = `no chunk within the request idle timeout of ${idleMs} ms`;
            waiting?.({ type: "error", id, message });
          }, idleMs);
        }
      });
    },
    cancel() {
      worker.post({ type: "cancel", id });
      worker.settle(id);
      done();
    },
  }, { highWaterMark: 0 });
  return new Response(body, { status: head.status, headers: head.headers });
}

/** The first line of standard input (the options), the reader of the rest and what it already read of it. */
export function firstLine(
  input: ReadableStream<Uint8Array>,
): Promise<{ line: string; rest: ReadableStreamDefaultReader<Uint8Array>; buffered: string }> {
  return nextLine(input.getReader(), "");
}

/** The next line from `reader`, after the text already read (`buffered`); what follows it is buffered again. */
export async function nextLine(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  buffered: string,
): Promise<{ line: string; rest: ReadableStreamDefaultReader<Uint8Array>; buffered: string }> {
  const decoder = new TextDecoder();
  let text = buffered;
  for (;;) {
    const end = text.indexOf("\n");
    if (end >= 0) return { line: text.slice(0, end), rest: reader, buffered: text.slice(end + 1) };
    const { done, value } = await reader.read();
    if (done) return { line: text, rest: reader, buffered: "" };
    text += decoder.decode(value, { stream: true });
  }
}
