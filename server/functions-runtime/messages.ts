/**
 * The messages between the router and a function's worker (docs/functions.md).
 *
 * One request is one `request`; its body, when it has one, follows as `body_chunk`s, each sent
 * only after the worker's `body_pull`, then `body_end` (an upload is never held whole in memory).
 * Its answer is `head`, then `chunk`s, each sent only after the router's `pull` (so a fast body
 * never piles up in memory), then `end`; or `error` instead. An answer whose body is ready at once
 * (given whole: text, bytes, JSON, a `Blob`) is one `head` carrying that body as `whole`: nothing
 * follows it.
 *
 * A WebSocket upgrade is a `request` with `upgrade: true`: a function that calls
 * `Deno.upgradeWebSocket(req)` and returns its response answers `head` with status 101 and no
 * body; from then on the socket's frames go both ways as `ws_message`s, and either side ends it
 * with `ws_close` (the other side's close, with its code and reason). A 101 request stays in
 * flight until then (its limits apply).
 *
 * A worker booted with `lane` opens its lane (`lane.ts`) and names it in `ready`; lane
 * requests travel as HTTP, not as messages: only `lane_idle` (a request past its idle timeout)
 * and `lane_close` (the worker is retired) concern them.
 */

export type ToWorker =
  | {
    type: "boot";
    entrypoint: string;
    /** The function's name, in its log lines. */
    name?: string;
    /** Its secrets: its `Deno.env` answers them first (each worker has its own). */
    env?: Record<string, string>;
    /** Open a lane (`lane.ts`): the secret its requests carry, the slots shared with the router. */
    lane?: { secret: string; shared: SharedArrayBuffer; path?: string };
  }
  | {
    type: "request";
    id: number;
    method: string;
    url: string;
    headers: [string, string][];
    /** Whether a body follows (`body_chunk`s pulled by `body_pull`, then `body_end`). */
    body: boolean;
    /** A small body (declared by `Content-Length`), whole: no `body_pull` then. */
    inline?: Uint8Array<ArrayBuffer>;
    /** The server's request id, in the log lines printed while the request runs. */
    requestId?: string;
    /** A WebSocket upgrade: the function may call `Deno.upgradeWebSocket` on it. */
    upgrade?: boolean;
  }
  | { type: "body_chunk"; id: number; chunk: Uint8Array }
  | { type: "body_end"; id: number; error?: string }
  | { type: "pull"; id: number }
  | { type: "cancel"; id: number }
  /** The lane request in `slot` (its `seq`) reached the request idle timeout. */
  | { type: "lane_idle"; slot: number; seq: number }
  /** The worker is retired: its lane takes no new connection. */
  | { type: "lane_close" }
  | WebSocketFrame;

/** A frame of an upgraded request's socket, either way (text as a string, binary as bytes). */
export type WebSocketFrame =
  | { type: "ws_message"; id: number; data: string | Uint8Array }
  | { type: "ws_close"; id: number; code?: number; reason?: string };

export type FromWorker =
  /** Booted; `lane`: its lane's port or socket path (`Lane.key`), when one opened. */
  | { type: "ready"; lane?: number | string }
  | { type: "boot_error"; message: string }
  | {
    type: "head";
    id: number;
    status: number;
    headers: [string, string][];
    /** The whole body, when it was ready with the head: the answer is complete (no chunk, no end). */
    whole?: Uint8Array<ArrayBuffer>;
  }
  | { type: "chunk"; id: number; chunk: Uint8Array }
  | { type: "end"; id: number }
  | { type: "error"; id: number; message: string }
  | { type: "body_pull"; id: number }
  | { type: "body_cancel"; id: number }
  | WebSocketFrame;
