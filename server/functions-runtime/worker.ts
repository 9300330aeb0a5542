/**
 * The bootstrap of one function's worker: it captures the handler that the function gives
 * `Deno.serve` (or its default export's `fetch`), then answers the router's requests with it.
 *
 * It runs user code and nothing else: limits, routing and JWT checks are decided outside it.
 * Messages in and out are `ToWorker` / `FromWorker` (docs/functions.md).
 */

import type { FromWorker, ToWorker } from "./messages.ts";

type Handler = (req: Request, info: unknown) => Response | Promise<Response>;

let handler: Handler | null = null;
/** Per request whose body streams: its reader, and the router's credit for its next chunk. */
const streams = new Map<number, ReadableStreamDefaultReader<Uint8Array>>();
const credits = new Map<number, () => void>();

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

function install(): void {
  (Deno as unknown as { serve: unknown }).serve = (...args: unknown[]) => {
    handler = handlerOf(args);
    return fakeServer();
  };
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

async function boot(entrypoint: string): Promise<void> {
  try {
    const module = await import(entrypoint);
    const fallback = module?.default?.fetch;
    if (!handler && typeof fallback === "function") handler = fallback.bind(module.default);
    if (!handler) throw new Error("the function neither called Deno.serve nor exported a default fetch");
    post({ type: "ready" });
  } catch (err) {
    post({ type: "boot_error", message: describe(err) });
  }
}

function nextCredit(id: number): Promise<void> {
  return new Promise((resolve) => credits.set(id, resolve));
}

async function serve(message: Extract<ToWorker, { type: "request" }>): Promise<void> {
  const { id } = message;
  let response: Response;
  try {
    const request = new Request(message.url, {
      method: message.method,
      headers: message.headers,
      body: message.body,
    });
    if (!handler) throw new Error("the function has no handler");
    response = await handler(request, { remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 0 } });
    if (!(response instanceof Response)) throw new TypeError("the handler did not return a Response");
  } catch (err) {
    console.error(err);
    post({ type: "error", id, message: describe(err) });
    return;
  }
  post({ type: "head", id, status: response.status, headers: [...response.headers] });
  if (!response.body) {
    post({ type: "end", id });
    return;
  }
  const reader = response.body.getReader();
  streams.set(id, reader);
  try {
    for (;;) {
      await nextCredit(id);
      if (!streams.has(id)) return;
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = value instanceof Uint8Array ? value.slice() : new TextEncoder().encode(String(value));
      post({ type: "chunk", id, chunk }, [chunk.buffer]);
    }
    post({ type: "end", id });
  } catch (err) {
    console.error(err);
    post({ type: "error", id, message: describe(err) });
  } finally {
    streams.delete(id);
    credits.delete(id);
  }
}

function receive(message: ToWorker): void {
  switch (message.type) {
    case "boot":
      install();
      boot(message.entrypoint);
      break;
    case "request":
      serve(message);
      break;
    case "pull":
      credits.get(message.id)?.();
      credits.delete(message.id);
      break;
    case "cancel": {
      const stream = streams.get(message.id);
      streams.delete(message.id);
      credits.get(message.id)?.();
      credits.delete(message.id);
      stream?.cancel().catch(() => {});
      break;
    }
  }
}

self.onmessage = (event: MessageEvent<ToWorker>) => receive(event.data);
