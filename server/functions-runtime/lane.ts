/**
 * A function's lane: its worker's own HTTP listener, on a Unix socket in its process's lane
 * folder (the supervisor's `laneRoot`, which no other function may read or write) or else on a
 * loopback port, where the server sends the function's warm requests (`functions::direct`), so
 * that a request is one HTTP hop into the thread that runs the function, with no message between
 * the router and the worker.
 *
 * The router keeps the limits of lane requests without a message per request: each request
 * holds a slot of a `SharedArrayBuffer` the router and the worker share (its state, its limits,
 * when it started), from its arrival until its answer has left (`info.completed`), and the
 * router's watcher reads the slots while any is held. The worker wakes the router
 * (`Atomics.notify`) only when a request starts while the watcher sleeps. A limit reached is the
 * router's to enforce, as for its own requests: it stops the worker (the lane's connections
 * break; the router remembers why, and the server asks it: `GET /_internal/lane?lane=`); the
 * request idle timeout (no answer yet) is the worker's, told by the router (`lane_idle`), since
 * the answer is the worker's to send. The function's answer goes out as the function gave it,
 * through Deno's own server (a body given whole with its length, a stream as it comes): a stream
 * that stalls is held to the wall-clock and CPU limits, not to the idle timeout.
 *
 * A lane closes when its worker is retired (a new version, the idle sweep): new connections are
 * refused and the server goes through the supervisor again. A request it cannot take (every slot
 * held) is answered with `x-functions-lane: full` before the function sees it, and the server
 * sends it the other way.
 */

/** The shared state's layout: a header of `Int32`s, then `FIELDS` `Int32`s per slot, then a `Float64` per slot. */
export const SLOTS = 1024;
export const IN_FLIGHT = 0;
/** 1 while the router's watcher runs: a request starting then needs no wake-up. */
export const WATCHING = 1;
const HEADER_INTS = 2;
const FIELDS = 5;
/** A slot's fields. */
export const STATE = 0, SEQ = 1, CPU_MS = 2, IDLE_MS = 3, WALL_MS = 4;
/** A slot's states: free, waiting for the function's answer, sending it. */
export const FREE = 0, WAITING = 1, STREAMING = 2;

export interface LaneView {
  ints: Int32Array;
  /** Per slot: when its request started (ms since the epoch). */
  times: Float64Array;
}

export function createShared(): SharedArrayBuffer {
  const intBytes = (HEADER_INTS + SLOTS * FIELDS) * 4;
  const padded = Math.ceil(intBytes / 8) * 8;
  return new SharedArrayBuffer(padded + SLOTS * 8);
}

export function view(shared: SharedArrayBuffer): LaneView {
  const ints = new Int32Array(shared, 0, HEADER_INTS + SLOTS * FIELDS);
  const offset = Math.ceil(ints.byteLength / 8) * 8;
  return { ints, times: new Float64Array(shared, offset, SLOTS) };
}

export function field(slot: number, name: number): number {
  return HEADER_INTS + slot * FIELDS + name;
}

/** Header names the lane reads or sets (as `router.ts`'s `HEADER`). */
const SECRET = "x-functions-secret";
const REQUEST_ID = "x-functions-request-id";
const ADDED = "x-functions-added";
const ERROR = "x-functions-error";
export const LANE_HEADER = "x-functions-lane";
const CPU_USED = "x-functions-cpu-used-ms";
/** The caller's origin (`<scheme>://<host>`), given by the server: the function's request URL starts with it. */
export const ORIGIN = "x-functions-origin";
/** The server asks for `CPU_USED` (its metrics are on). */
const MEASURE = "x-functions-measure";
/** The answer headers the server reads as the router's, which a function's answer may not carry. */
const ROUTER_HEADERS = [
  ERROR,
  "x-functions-limit",
  LANE_HEADER,
  "x-functions-cold",
  "x-functions-direct",
  CPU_USED,
];

/** `response` without the router's headers (a copy: its own may not be changeable). */
function withoutRouterHeaders(response: Response): Response {
  const kept: [string, string][] = [];
  for (const pair of response.headers) if (!pair[0].startsWith("x-functions-")) kept.push(pair);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: kept });
}

/**
 * The URL a function's request carries: `url`'s path and query after the caller's `origin` (the
 * server's `x-functions-origin`), so a function sees the URL it was called at whichever hop
 * brought the request; `url` as it is without an origin.
 */
export function callerUrl(url: string, origin: string | null): string {
  if (!origin) return url.startsWith("http+unix://") ? `http://${url.slice(12)}` : url;
  const path = url.indexOf("/", url.indexOf("//") + 2);
  return path < 0 ? url : origin + url.slice(path);
}

type Handler = (req: Request, info: unknown) => Response | Promise<Response>;

/** What the worker gives its lane. */
export interface LaneHost {
  secret: string;
  shared: SharedArrayBuffer;
  /** The function's handler, once booted. */
  handler: () => Handler | null;
  /** Run `fn` as request `requestId` (its log lines name it). */
  run: <T>(requestId: string | undefined, fn: () => T) => T;
  /** The Unix socket to listen on (in the process's lane folder); a loopback port without. */
  path?: string;
  /** `Deno.serve` as it was before the function's bootstrap replaced it. */
  serve: typeof Deno.serve;
  cpuTimeMs: () => number;
  describe: (err: unknown) => string;
}

export interface Lane {
  /** Where it listens: its loopback port, or its socket's path (the router's `x-functions-lane`). */
  key: number | string;
  /** The router's `lane_idle`: request `seq` in `slot` got no answer (or no chunk) in time. */
  idle(slot: number, seq: number): void;
  /** Take no new connection; requests in flight finish. */
  close(): void;
}

function failure(kind: string, status: number, message: string): Response {
  return new Response(message, { status, headers: { [ERROR]: kind, "content-type": "text/plain" } });
}

/** Open the lane; resolves once it listens. */
export function openLane(host: LaneHost): Promise<Lane> {
  const { ints, times } = view(host.shared);
  const free: number[] = [];
  for (let slot = SLOTS - 1; slot >= 0; slot--) free.push(slot);
  /** Per held slot: what ends its request for the idle timeout. */
  const onIdle: (((message: string) => void) | undefined)[] = new Array(SLOTS);
  let seq = 0;
  let closing = false;

  const hold = (slot: number, headers: Headers): number => {
    const id = ++seq & 0x7fffffff;
    ints[field(slot, SEQ)] = id;
    ints[field(slot, CPU_MS)] = Number(headers.get("x-functions-cpu-ms")) || 0;
    ints[field(slot, IDLE_MS)] = Number(headers.get("x-functions-idle-timeout-ms")) || 0;
    ints[field(slot, WALL_MS)] = Number(headers.get("x-functions-timeout-ms")) || 0;
    times[slot] = Date.now();
    Atomics.store(ints, field(slot, STATE), WAITING);
    Atomics.add(ints, IN_FLIGHT, 1);
    if (Atomics.load(ints, WATCHING) === 0) Atomics.notify(ints, IN_FLIGHT);
    return id;
  };
  const release = (slot: number) => {
    onIdle[slot] = undefined;
    Atomics.store(ints, field(slot, STATE), FREE);
    Atomics.sub(ints, IN_FLIGHT, 1);
    free.push(slot);
  };

  const serve = async (req: Request, info: unknown): Promise<Response> => {
    const headers = req.headers;
    if (headers.get(SECRET) !== host.secret) return failure("forbidden", 403, "forbidden");
    const handler = host.handler();
    const slot = closing || !handler ? undefined : free.pop();
    if (slot === undefined || !handler) {
      return new Response(null, { status: 503, headers: { [LANE_HEADER]: "full" } });
    }
    hold(slot, headers);
    const requestId = headers.get(REQUEST_ID) ?? undefined;
    // The function's request: the caller's headers without the server's `x-functions-*` (the
    // secret above all) nor those the server marks as its own. A server request's headers
    // cannot be changed, so this is a copy, given as pairs (a `Headers` object as the init
    // costs four times more in Deno's `Request`).
    const added = headers.get(ADDED);
    const addedNames = added ? added.split(",").map((name) => name.trim().toLowerCase()) : null;
    const kept: [string, string][] = [];
    for (const pair of headers) {
      if (!pair[0].startsWith("x-functions-") && !addedNames?.includes(pair[0])) kept.push(pair);
    }
    const method = req.method;
    const request = new Request(callerUrl(req.url, headers.get(ORIGIN)), {
      method,
      headers: kept,
      body: method === "GET" || method === "HEAD" ? null : req.body,
    });
    // The CPU time of the answer, for the server's metrics, when it asks (it costs two reads).
    const measure = headers.has(MEASURE);
    const cpuStart = measure ? host.cpuTimeMs() : 0;
    let response: Response;
    try {
      const answer = host.run(requestId, () => handler(request, info));
      response = await new Promise<Response>((resolve, reject) => {
        onIdle[slot] = (message) => reject(Object.assign(new Error(message), { idle: true }));
        Promise.resolve(answer).then(resolve, reject);
      });
      if (!(response instanceof Response)) throw new TypeError("the handler did not return a Response");
    } catch (err) {
      release(slot);
      if ((err as { idle?: boolean })?.idle) return failure("idle", 504, (err as Error).message);
      console.error(err);
      return failure("worker", 500, host.describe(err));
    }
    onIdle[slot] = undefined;
    // The function's own answer goes out as it is: Deno sends a body given whole with its
    // length, and streams any other. A function cannot answer with the headers the server reads
    // as the router's. The request is in flight until its answer has left.
    const answer = ROUTER_HEADERS.some((name) => response.headers.has(name))
      ? withoutRouterHeaders(response)
      : response;
    if (measure) {
      try {
        answer.headers.set(CPU_USED, String(Math.round(host.cpuTimeMs() - cpuStart)));
      } catch { /* immutable headers (Response.redirect): not measured */ }
    }
    Atomics.store(ints, field(slot, STATE), STREAMING);
    const completed = (info as { completed?: Promise<void> }).completed;
    if (completed) completed.then(() => release(slot), () => release(slot));
    else release(slot);
    return answer;
  };

  return new Promise((resolve, reject) => {
    try {
      const where = host.path ? { path: host.path } : { hostname: "127.0.0.1", port: 0 };
      const server = host.serve({
        ...where,
        onListen: (addr) =>
          resolve({
            key: "port" in addr ? addr.port : (host.path as string),
            idle(slot, seq) {
              if (ints[field(slot, SEQ)] === seq && Atomics.load(ints, field(slot, STATE)) === WAITING) {
                onIdle[slot]?.(`no answer within the request idle timeout of ${ints[field(slot, IDLE_MS)]} ms`);
              }
            },
            close() {
              closing = true;
              server.shutdown().catch(() => {});
            },
          }),
        onError: (err) => {
          console.error(err);
          return failure("worker", 500, host.describe(err));
        },
      }, serve);
    } catch (err) {
      reject(err);
    }
  });
}
