/**
 * The bootstrap of one function's worker: it captures the handler that the function gives
 * `Deno.serve` (or its default export's `fetch`), then answers the router's requests with it.
 *
 * It runs user code and nothing else: limits, routing and JWT checks are decided outside it.
 * Messages in and out are `ToWorker` / `FromWorker` (docs/functions.md); a request that came as
 * a WebSocket handshake may be upgraded with `Deno.upgradeWebSocket` (`worker_socket.ts`).
 * Booted with a lane, it also answers the server's warm requests on its own port (`lane.ts`).
 */

import { AsyncLocalStorage } from "node:async_hooks";
import process from "node:process";
import type { FromWorker, ToWorker } from "./messages.ts";
import { type Lane, openLane } from "./lane.ts";
import { guardPorts } from "./net_guard.ts";
import { allowUpgrade, forget, installUpgrade, socketOf, upgradeOf } from "./worker_socket.ts";

type Handler = (req: Request, info: unknown) => Response | Promise<Response>;

let handler: Handler | null = null;
/**
 * Per request whose body streams: its reader, and the router's credit for its next chunk (a `pull`
 * that came before the worker waited for it is kept in `granted`).
 */
const streams = new Map<number, ReadableStreamDefaultReader<Uint8Array>>();
const credits = new Map<number, () => void>();
const granted = new Set<number>();
/** Per request whose body is being read: where the router's next `body_chunk` or `body_end` goes. */
const uploads = new Map<number, (message: Extract<ToWorker, { type: "body_chunk" | "body_end" }>) => void>();

/** The request's body as a stream that asks the router for one chunk at a time. */
function uploadStream(id: number): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      return new Promise<void>((resolve) => {
        uploads.set(id, (message) => {
          uploads.delete(id);
          if (message.type === "body_chunk") controller.enqueue(message.chunk);
          else if (message.error) controller.error(new Error(message.error));
          else controller.close();
          resolve();
        });
        post({ type: "body_pull", id });
      });
    },
    cancel() {
      uploads.delete(id);
      post({ type: "body_cancel", id });
    },
  }, { highWaterMark: 0 });
}

function post(message: FromWorker, transfer: Transferable[] = []): void {
  self.postMessage(message, transfer);
}

/** `Deno.serve(handler)`, `Deno.serve(options, handler)`, `Deno.serve({ handler, ... })`. */
function handlerOf(args: unknown[]): Handler | null {
  for (const arg of args) {
    if (typeof arg === "function") return arg as Handler;
    if (arg && typeof arg === "object" && typeof (arg as { handler?: unknown }).handler === "function") {
      return (arg as { handler: Handler }).handler;
    }
  }
  return null;
}

function fakeServer() {
  return {
    finished: new Promise<void>(() => {}),
    addr: { transport: "tcp", hostname: "0.0.0.0", port: 0 },
    shutdown: () => Promise.resolve(),
    ref() {},
    unref() {},
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}

/** The id of the request whose handler is running, for the log lines it prints. */
const currentRequest = new AsyncLocalStorage<string | undefined>();
/** This worker's id: one per boot, as edge-runtime's `execution_id`. */
const executionId = crypto.randomUUID();

/**
 * `console.*` as one JSON line each on standard output (the server parses them: the server's log
 * and the function's kept logs), with the function's name, the request and execution ids.
 */
function captureConsole(name: string): void {
  const write = console.log.bind(console);
  const text = (args: unknown[]) => args.map((a) => (typeof a === "string" ? a : Deno.inspect(a))).join(" ");
  const levels: [keyof Console, string][] = [
    ["log", "info"],
    ["info", "info"],
    ["debug", "debug"],
    ["warn", "warn"],
    ["error", "error"],
  ];
  for (const [method, level] of levels) {
    (console as unknown as Record<string, unknown>)[method] = (...args: unknown[]) =>
      write(JSON.stringify({
        function_log: {
          function: name,
          level,
          message: text(args),
          request_id: currentRequest.getStore() ?? null,
          execution_id: executionId,
        },
      }));
  }
}

/** The function's secrets answered first by its own `Deno.env` (this worker's object). */
function overlayEnv(secrets: Record<string, string>): void {
  const env = Deno.env;
  const own = new Map(Object.entries(secrets));
  const get = env.get.bind(env);
  const has = env.has.bind(env);
  const toObject = env.toObject.bind(env);
  const remove = env.delete.bind(env);
  Object.assign(env, {
    get: (key: string) => (own.has(key) ? own.get(key) : get(key)),
    has: (key: string) => own.has(key) || has(key),
    set: (key: string, value: string) => void own.set(key, String(value)),
    delete: (key: string) => void (own.delete(key), remove(key)),
    toObject: () => ({ ...toObject(), ...Object.fromEntries(own) }),
  });
}

/** `Deno.serve` as Deno gives it, kept for the lane before the function's bootstrap replaces it. */
const realServe = Deno.serve.bind(Deno);
/** This worker's lane (`lane.ts`), once open. */
let lane: Lane | null = null;

function install(): void {
  // Supabase refuses outbound connections to the SMTP ports 25 and 587 (`net_guard.ts`).
  guardPorts();
  (Deno as unknown as { serve: unknown }).serve = (...args: unknown[]) => {
    handler = handlerOf(args);
    return fakeServer();
  };
  installUpgrade(post);
  // Supabase's `EdgeRuntime.waitUntil`: the worker lives on, so the promise only needs watching.
  (globalThis as Record<string, unknown>).EdgeRuntime = {
    waitUntil(promise: Promise<unknown>) {
      Promise.resolve(promise).catch((err) => console.error(err));
    },
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

async function boot(
  entrypoint: string,
  laneOptions?: { secret: string; shared: SharedArrayBuffer; path?: string },
): Promise<void> {
  try {
    const module = await import(entrypoint);
    const fallback = module?.default?.fetch;
    if (!handler && typeof fallback === "function") handler = fallback.bind(module.default);
    if (!handler) throw new Error("the function neither called Deno.serve nor exported a default fetch");
  } catch (err) {
    post({ type: "boot_error", message: describe(err) });
    return;
  }
  if (laneOptions) {
    try {
      lane = await openLane({
        ...laneOptions,
        handler: () => handler,
        run: (requestId, fn) => currentRequest.run(requestId, fn),
        serve: realServe,
        cpuTimeMs,
        describe,
      });
    } catch (err) {
      // Without a lane the function is still served through the router.
      console.error(`the function's lane did not open: ${describe(err)}`);
    }
  }
  post({ type: "ready", lane: lane?.key });
}

/** This process's CPU time so far in ms (as `router.ts`'s `cpuTimeMs`). */
function cpuTimeMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Microtask turns a body's read may take and still count as ready: a body given whole (a string,
 * bytes, JSON, a `Blob`) is read within 5; a stream waiting on anything else (a timer, I/O) takes
 * a turn of the event loop, which no microtask turn reaches.
 */
const READY_TURNS = 16;

/** Whether `promise` settles within `READY_TURNS` microtask turns. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(() => (settled = true), () => (settled = true));
  for (let turn = 0; turn < READY_TURNS && !settled; turn++) await null;
  return settled;
}

/** A chunk of the answer as bytes of its own (transferred to the router). */
function bytesOf(value: unknown): Uint8Array<ArrayBuffer> {
  return value instanceof Uint8Array ? value.slice() : new TextEncoder().encode(String(value));
}

function nextCredit(id: number): Promise<void> {
  if (granted.delete(id)) return Promise.resolve();
  return new Promise((resolve) => credits.set(id, resolve));
}

async function serve(message: Extract<ToWorker, { type: "request" }>): Promise<void> {
  const { id } = message;
  let response: Response;
  try {
    const request = new Request(message.url, {
      method: message.method,
      headers: message.headers,
      body: message.inline ?? (message.body ? uploadStream(id) : null),
      // @ts-ignore: a streamed request body (fetch's `duplex`)
      duplex: "half",
    });
    if (message.upgrade) allowUpgrade(request, id);
    if (!handler) throw new Error("the function has no handler");
    const info = { remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 0 } };
    response = await currentRequest.run(message.requestId, () => handler!(request, info));
    if (!(response instanceof Response)) throw new TypeError("the handler did not return a Response");
  } catch (err) {
    console.error(err);
    post({ type: "error", id, message: describe(err) });
    return;
  }
  const socket = upgradeOf(response);
  if (socket) {
    // The router upgrades the connection on this head; frames come and go from now on.
    post({ type: "head", id, status: 101, headers: [...response.headers] });
    socket.opened();
    return;
  }
  const head: Extract<FromWorker, { type: "head" }> = {
    type: "head",
    id,
    status: response.status,
    headers: [...response.headers],
  };
  if (!response.body) {
    post({ ...head, whole: new Uint8Array(0) });
    return;
  }
  const reader = response.body.getReader();
  streams.set(id, reader);
  try {
    let read = reader.read();
    let credit = true;
    // A body given whole is read at once: it goes with the head, in one message. A stream not
    // ready within a few microtask turns gets its head alone, as before.
    if (await settledSoon(read)) {
      const first = await read;
      if (!streams.has(id)) return;
      if (first.done) return post({ ...head, whole: new Uint8Array(0) });
      const chunk = bytesOf(first.value);
      read = reader.read();
      if (await settledSoon(read) && (await read).done) {
        if (!streams.has(id)) return;
        return post({ ...head, whole: chunk }, [chunk.buffer]);
      }
      post(head);
      post({ type: "chunk", id, chunk }, [chunk.buffer]);
      credit = false;
    } else post(head);
    // The first chunk goes with the head, unasked; each later one waits for the router's `pull`.
    // Each chunk is read before its credit comes (one read ahead), so the end follows the last
    // chunk at once.
    for (;;) {
      const { done, value } = await read;
      if (!streams.has(id)) return;
      if (done) break;
      if (!credit) {
        await nextCredit(id);
        if (!streams.has(id)) return;
      }
      credit = false;
      const chunk = bytesOf(value);
      post({ type: "chunk", id, chunk }, [chunk.buffer]);
      read = reader.read();
    }
    post({ type: "end", id });
  } catch (err) {
    console.error(err);
    post({ type: "error", id, message: describe(err) });
  } finally {
    streams.delete(id);
    credits.delete(id);
    granted.delete(id);
  }
}

function receive(message: ToWorker): void {
  switch (message.type) {
    case "boot":
      if (message.name) captureConsole(message.name);
      if (message.env && Object.keys(message.env).length > 0) overlayEnv(message.env);
      install();
      boot(message.entrypoint, message.lane);
      break;
    case "request":
      serve(message);
      break;
    case "body_chunk":
    case "body_end":
      uploads.get(message.id)?.(message);
      break;
    case "pull": {
      const credit = credits.get(message.id);
      credits.delete(message.id);
      if (credit) credit();
      else if (streams.has(message.id)) granted.add(message.id);
      break;
    }
    case "lane_idle":
      lane?.idle(message.slot, message.seq);
      break;
    case "lane_close":
      lane?.close();
      break;
    case "ws_message":
      socketOf(message.id)?.received(message.data);
      break;
    case "ws_close":
      socketOf(message.id)?.closed(message.code, message.reason);
      forget(message.id);
      break;
    case "cancel": {
      const stream = streams.get(message.id);
      streams.delete(message.id);
      granted.delete(message.id);
      credits.get(message.id)?.();
      credits.delete(message.id);
      stream?.cancel().catch(() => {});
      break;
    }
  }
}

self.onmessage = (event: MessageEvent<ToWorker>) => receive(event.data);
