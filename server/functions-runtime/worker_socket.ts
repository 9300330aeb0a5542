/**
 * `Deno.upgradeWebSocket` inside a function's worker, where requests arrive as messages rather
 * than on a connection of the worker's own: the socket it returns is a `WebSocket`-shaped object
 * whose frames travel as `ws_message` / `ws_close` messages (messages.ts) to the router, which
 * holds the real connection. Its response is a 101 the worker recognises (`upgradeOf`).
 *
 * It runs in the worker with user code and decides nothing: which requests may upgrade is the
 * router's (`request.upgrade`), the limits are the router's and the server's.
 */

import type { FromWorker } from "./messages.ts";

type Post = (message: FromWorker, transfer?: Transferable[]) => void;

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/** A function's end of an upgraded request. */
export class TunnelSocket extends EventTarget {
  static readonly CONNECTING = CONNECTING;
  static readonly OPEN = OPEN;
  static readonly CLOSING = CLOSING;
  static readonly CLOSED = CLOSED;
  readonly CONNECTING = CONNECTING;
  readonly OPEN = OPEN;
  readonly CLOSING = CLOSING;
  readonly CLOSED = CLOSED;
  readyState = CONNECTING;
  /** As Deno's server sockets: binary frames arrive as `ArrayBuffer`s unless set to "blob". */
  binaryType: BinaryType = "arraybuffer";
  readonly extensions = "";
  bufferedAmount = 0;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  /** Sends in order, a `Blob`'s bytes read before what follows it. */
  #queue: Promise<void> = Promise.resolve();

  constructor(readonly id: number, readonly url: string, readonly protocol: string, private post: Post) {
    super();
  }

  #fire(event: Event): void {
    const handler = (this as unknown as Record<string, unknown>)[`on${event.type}`];
    if (typeof handler === "function") {
      try {
        handler.call(this, event);
      } catch (err) {
        console.error(err);
      }
    }
    this.dispatchEvent(event);
  }

  /** The answer's head went out: the socket is open. */
  opened(): void {
    if (this.readyState !== CONNECTING) return;
    this.readyState = OPEN;
    this.#fire(new Event("open"));
  }

  /** A frame from the client. */
  received(data: string | Uint8Array): void {
    if (this.readyState !== OPEN) return;
    const payload = typeof data === "string"
      ? data
      : this.binaryType === "blob"
      ? new Blob([data as Uint8Array<ArrayBuffer>])
      : data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
    this.#fire(new MessageEvent("message", { data: payload }));
  }

  /** The connection ended (the client closed it, or the router ended it). */
  closed(code = 1005, reason = ""): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    this.#fire(new CloseEvent("close", { code, reason, wasClean: code !== 1006 }));
  }

  send(data: string | ArrayBufferLike | ArrayBufferView | Blob): void {
    if (this.readyState === CONNECTING) throw new DOMException("the socket is not open yet", "InvalidStateError");
    if (this.readyState !== OPEN) return;
    const frame = async (): Promise<string | Uint8Array> => {
      if (typeof data === "string") return data;
      if (data instanceof Blob) return new Uint8Array(await data.arrayBuffer());
      if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
      return new Uint8Array(data as ArrayBuffer).slice();
    };
    this.#queue = this.#queue.then(async () => {
      const payload = await frame();
      if (this.readyState !== OPEN) return;
      if (typeof payload === "string") this.post({ type: "ws_message", id: this.id, data: payload });
      else this.post({ type: "ws_message", id: this.id, data: payload }, [payload.buffer as ArrayBuffer]);
    }).catch((err) => console.error(err));
  }

  close(code?: number, reason?: string): void {
    if (code !== undefined && code !== 1000 && (code < 3000 || code > 4999)) {
      throw new DOMException(`the close code must be 1000 or in 3000-4999, not ${code}`, "InvalidAccessError");
    }
    if (reason !== undefined && new TextEncoder().encode(reason).byteLength > 123) {
      throw new DOMException("the close reason is longer than 123 bytes", "SyntaxError");
    }
    if (this.readyState === CLOSING || this.readyState === CLOSED) return;
    this.readyState = CLOSING;
    // After the frames already queued.
    this.#queue = this.#queue.then(() => this.post({ type: "ws_close", id: this.id, code, reason }));
  }
}

/** The sockets of upgraded requests, by request id, and the 101 answers that mean "upgrade". */
const sockets = new Map<number, TunnelSocket>();
const upgrades = new WeakMap<Response, TunnelSocket>();
/** The requests that may be upgraded (a WebSocket handshake reached the router), by request. */
const upgradable = new WeakMap<Request, number>();

/** `req` (request `id`) came as a WebSocket handshake: the function may upgrade it. */
export function allowUpgrade(req: Request, id: number): void {
  upgradable.set(req, id);
}

/** The socket a response returned by the function upgrades to, if it is an upgrade's. */
export function upgradeOf(response: Response): TunnelSocket | undefined {
  return upgrades.get(response);
}

/** The socket of request `id`, while it is open. */
export function socketOf(id: number): TunnelSocket | undefined {
  return sockets.get(id);
}

/** Forget request `id`'s socket (it closed). */
export function forget(id: number): void {
  sockets.delete(id);
}

/** `Deno.upgradeWebSocket` for requests handed over as messages (`install` in worker.ts). */
export function installUpgrade(post: Post): void {
  (Deno as unknown as { upgradeWebSocket: unknown }).upgradeWebSocket = (
    req: Request,
    options: { protocol?: string; idleTimeout?: number } = {},
  ) => {
    const id = upgradable.get(req);
    if (id === undefined || sockets.has(id)) {
      throw new TypeError("Invalid Header: 'upgrade' header must contain 'websocket'");
    }
    const protocol = options.protocol ?? "";
    const socket = new TunnelSocket(id, req.url.replace(/^http/, "ws"), protocol, post);
    sockets.set(id, socket);
    const headers: Record<string, string> = { upgrade: "websocket", connection: "Upgrade" };
    if (protocol) headers["sec-websocket-protocol"] = protocol;
    const response = new Response(null, { status: 101, headers });
    upgrades.set(response, socket);
    return { socket, response };
  };
}
