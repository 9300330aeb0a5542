/**
 * A function's lane: its worker's own HTTP listener on a loopback port, where the server sends
 * the function's warm requests (`functions::direct`), so that a request is one HTTP hop into the
 * thread that runs the function, with no message between the router and the worker.
 *
 * The router keeps the limits of lane requests without a message per request: each request
 * holds a slot of a `SharedArrayBuffer` the router and the worker share (its state, its limits,
 * when it started and when its answer last moved), and the router's watcher reads the slots
 * while any is held. The worker wakes the router (`Atomics.notify`) only when a request starts
 * while the watcher sleeps. A limit reached is the router's to enforce, as for its own requests:
 * it stops the worker (the lane's connections break; the router remembers why, and the server
 * asks it: `GET /_internal/lane?port=`); the request idle timeout is the worker's, told by the
 * router (`lane_idle`), since the answer is the worker's to send.
 *
 * A lane closes when its worker is retired (a new version, the idle sweep): new connections are
 * refused and the server goes through the supervisor again. A request it cannot take (every slot
 * held) is answered with `x-functions-lane: full` before the function sees it, and the server
 * sends it the other way.
 */

/** The shared state's layout: a header of `Int32`s, then `FIELDS` `Int32`s per slot, then two `Float64`s per slot. */
export const SLOTS = 1024;
export const IN_FLIGHT = 0;
/** 1 while the router's watcher runs: a request starting then needs no wake-up. */
export const WATCHING = 1;
const HEADER_INTS = 4;
const FIELDS = 6;
/** A slot's fields. */
export const STATE = 0, SEQ = 1, CPU_MS = 2, IDLE_MS = 3, WALL_MS = 4;
/** A slot's states: free, waiting for the function's answer, streaming its body. */
export const FREE = 0, WAITING = 1, STREAMING = 2;

export interface LaneView {
  ints: Int32Array;
  /** Per slot: when the request started, when its answer last moved (ms since the epoch). */
  times: Float64Array;
}

export function createShared(): SharedArrayBuffer {
  const intBytes = (HEADER_INTS + SLOTS * FIELDS) * 4;
  const padded = Math.ceil(intBytes / 8) * 8;
  return new SharedArrayBuffer(padded + SLOTS * 2 * 8);
}

export function view(shared: SharedArrayBuffer): LaneView {
  const ints = new Int32Array(shared, 0, HEADER_INTS + SLOTS * FIELDS);
  const offset = Math.ceil(ints.byteLength / 8) * 8;
  return { ints, times: new Float64Array(shared, offset, SLOTS * 2) };
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

type Handler = (req: Request, info: unknown) => Response | Promise<Response>;

/** What the worker gives its lane. */
export interface LaneHost {
  secret: string;
  shared: SharedArrayBuffer;
  /** The function's handler, once booted. */
  handler: () => Handler | null;
  /** Run `fn` as request `requestId` (its log lines name it). */
  run: <T>(requestId: string | undefined, fn: () => T) => T;
  /** `Deno.serve` as it was before the function's bootstrap replaced it. */
  serve: typeof Deno.serve;
  cpuTimeMs: () => number;
  describe: (err: unknown) => string;
}

export interface Lane {
  port: number;
  /** The router's `lane_idle`: request `seq` in `slot` got no answer (or no chunk) in time. */
  idle(slot: number, seq: number): void;
  /** Take no new connection; requests in flight finish. */
  close(): void;
}

const NULL_BODY_STATUS = [101, 103, 204, 205, 304];
/** Microtask turns a whole body takes to read (as `worker.ts`'s `READY_TURNS`). */
const READY_TURNS = 16;

async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(() => (settled = true), () => (settled = true));
  for (let turn = 0; turn < READY_TURNS && !settled; turn++) await null;
  return settled;
}

function failure(kind: string, status: number, message: string): Response {
  return new Response(message, { status, headers: { [ERROR]: kind, "content-type": "text/plain" } });
}

/** The answer's headers without the router's own `x-functions-*` (a function cannot fake a failure). */
function ownHeaders(headers: Headers): Headers {
  for (const [name] of headers) {
    if (name.startsWith("x-functions-")) {
      const kept = new Headers();
      for (const [n, v] of headers) if (!n.startsWith("x-functions-")) kept.append(n, v);
      return kept;
    }
  }
  return headers;
}

/** Open the lane; resolves with its port once it listens. */
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
    const now = Date.now();
    times[slot * 2] = now;
    times[slot * 2 + 1] = now;
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

  /** The answer's body streamed, each chunk marking the slot's progress; released at its end. */
  const streamed = (
    slot: number,
    reader: ReadableStreamDefaultReader<Uint8Array>,
    first: Uint8Array | null,
    started: Promise<ReadableStreamReadResult<Uint8Array>>,
  ) => {
    let released = false;
    const done = () => {
      if (!released) (released = true, release(slot));
    };
    Atomics.store(ints, field(slot, STATE), STREAMING);
    times[slot * 2 + 1] = Date.now();
    let pending = first;
    let next: Promise<ReadableStreamReadResult<Uint8Array>> | null = started;
    return new ReadableStream<Uint8Array>({
      start(controller) {
        onIdle[slot] = (message) => {
          reader.cancel(message).catch(() => {});
          done();
          controller.error(new Error(message));
        };
      },
      async pull(controller) {
        if (pending) {
          controller.enqueue(pending);
          pending = null;
          return;
        }
        try {
          const reading = next ?? reader.read();
          next = null;
          const { done: end, value } = await reading;
          if (released) return;
          times[slot * 2 + 1] = Date.now();
          if (end) (done(), controller.close());
          else controller.enqueue(value instanceof Uint8Array ? value : new TextEncoder().encode(String(value)));
        } catch (err) {
          if (released) return;
          console.error(err);
          done();
          controller.error(err);
        }
      },
      cancel(reason) {
        done();
        return reader.cancel(reason).catch(() => {});
      },
    }, { highWaterMark: 0 });
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
    const added = headers.get(ADDED);
    const drop: string[] = [];
    for (const [name] of headers) if (name.startsWith("x-functions-")) drop.push(name);
    if (added) { for (const name of added.split(",")) if (name) drop.push(name.trim().toLowerCase()); }
    let request = req;
    try {
      for (const name of drop) headers.delete(name);
    } catch {
      // Immutable headers: a copy without them.
      const kept = [...headers].filter(([name]) => !drop.includes(name));
      request = new Request(req.url, { method: req.method, headers: kept, body: req.body });
    }
    const cpuStart = host.cpuTimeMs();
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
    const own = ownHeaders(response.headers);
    const status = response.status;
    const body = response.body;
    const cpu = () => String(Math.round(host.cpuTimeMs() - cpuStart));
    if (!body || NULL_BODY_STATUS.includes(status)) {
      body?.cancel().catch(() => {});
      release(slot);
      const answer = new Response(null, { status, headers: own });
      answer.headers.set(CPU_USED, cpu());
      return answer;
    }
    const reader = body.getReader();
    let read = reader.read();
    let first: Uint8Array | null = null;
    try {
      // A body given whole goes with its length; any other is streamed as it comes.
      if (await settledSoon(read)) {
        const chunk = await read;
        if (chunk.done) {
          release(slot);
          const answer = new Response(new Uint8Array(0), { status, headers: own });
          answer.headers.set(CPU_USED, cpu());
          return answer;
        }
        first = chunk.value instanceof Uint8Array ? chunk.value : new TextEncoder().encode(String(chunk.value));
        read = reader.read();
        if (await settledSoon(read) && (await read).done) {
          release(slot);
          const answer = new Response(first as Uint8Array<ArrayBuffer>, { status, headers: own });
          answer.headers.set(CPU_USED, cpu());
          return answer;
        }
      }
    } catch (err) {
      release(slot);
      console.error(err);
      return failure("worker", 500, host.describe(err));
    }
    // A stream: the read already started is its next chunk.
    const answer = new Response(streamed(slot, reader, first, read), { status, headers: own });
    answer.headers.set(CPU_USED, cpu());
    return answer;
  };

  return new Promise((resolve, reject) => {
    try {
      const server = host.serve({
        hostname: "127.0.0.1",
        port: 0,
        onListen: ({ port }) =>
          resolve({
            port,
            idle(slot, seq) {
              const state = Atomics.load(ints, field(slot, STATE));
              if (ints[field(slot, SEQ)] === seq && state !== FREE) {
                const what = state === WAITING ? "no answer" : "no chunk";
                onIdle[slot]?.(`${what} within the request idle timeout of ${ints[field(slot, IDLE_MS)]} ms`);
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
