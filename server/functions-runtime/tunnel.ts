/**
 * WebSocket upgrades through the runtime's two hops (docs/functions.md): the server sends the
 * client's handshake to the supervisor, which opens a WebSocket to the function's process and
 * names the client's headers on it. The process always accepts that inner socket, runs the
 * request, and sends the function's answer's head as the first (text) frame:
 * `{"status": 101 | …, "headers": [[name, value], …]}`.
 *
 * - 101 (the function called `Deno.upgradeWebSocket` and returned its response): every later
 *   frame is the function's socket's, both ways; either side's close, code and reason, closes the
 *   other side.
 * - any other status (a refusal, or the router's `x-functions-error` answer): the body follows
 *   as binary frames, then a close; the supervisor answers the server's request with it, so the
 *   client gets the function's refusal as an ordinary HTTP answer.
 *
 * The supervisor upgrades the server's connection only on a 101; the server splices bytes.
 * This module moves frames; it decides nothing about limits or which function runs.
 */

import type { FromWorker, ToWorker } from "./messages.ts";

/** Carries the client's `Sec-WebSocket-Protocol` across the inner hop (the inner handshake has none). */
export const PROTOCOL_HEADER = "x-functions-ws-protocol";

/** The head of the function's answer, the inner socket's first frame. */
export interface Head {
  status: number;
  headers: [string, string][];
}

/** Whether a request is a WebSocket handshake. */
export function isUpgrade(req: Request): boolean {
  return req.method === "GET" && (req.headers.get("upgrade") ?? "").toLowerCase() === "websocket";
}

/** Headers of the handshake itself, which each hop makes anew. */
const HANDSHAKE = ["upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions"];

/** The headers the supervisor names on its inner socket: the caller's minus the handshake's. */
export function innerHeaders(headers: Headers): Headers {
  const inner = new Headers(headers);
  for (const name of [...HANDSHAKE, "host", "content-length"]) inner.delete(name);
  const protocol = inner.get("sec-websocket-protocol");
  inner.delete("sec-websocket-protocol");
  if (protocol) inner.set(PROTOCOL_HEADER, protocol);
  return inner;
}

/** The headers the function sees on an upgraded request: the client's protocol given back. */
export function functionHeaders(headers: [string, string][], protocol: string | null): [string, string][] {
  const kept = headers.filter(([name]) => name !== "sec-websocket-protocol" && name !== "sec-websocket-extensions");
  return protocol ? [...kept, ["sec-websocket-protocol", protocol]] : kept;
}

/**
 * A close code the supervisor's inner socket (a client socket) may not send, 1001…1014, travels
 * as 1000 with this mark, the code's four digits and then the reason; the process's side reads
 * it back (`closeOf`). A reason that itself starts with the mark travels marked as 1000.
 */
const CODE_MARK = "\u0001";

/**
 * Close `socket` with the code and reason the other side closed with. The codes no endpoint may
 * send (1005 no status, 1006 abnormal, 1015 TLS) close without a code; a code a client socket
 * refuses (1001…1014) closes with 1000, marked in the reason (`CODE_MARK`) on the inner socket
 * (`inner`: the process's side reads it with `closeOf`), the reason alone on any other.
 */
export function closeWith(socket: WebSocket, code?: number, reason = "", inner = false): void {
  if (socket.readyState === WebSocket.CLOSING || socket.readyState === WebSocket.CLOSED) return;
  const cut = reason.length > 60 ? reason.slice(0, 60) : reason;
  try {
    if (code === undefined || code === 1005 || code === 1006 || code === 1015) socket.close();
    else if (inner && code === 1000 && cut.startsWith(CODE_MARK)) socket.close(1000, `${CODE_MARK}1000${cut}`);
    else socket.close(code, cut);
  } catch {
    try {
      socket.close(1000, inner ? `${CODE_MARK}${code}${cut}` : cut);
    } catch { /* already closing */ }
  }
}

/** The code and reason a close carried, a code marked by `closeWith` read back. */
export function closeOf(event: { code: number; reason: string }): { code: number; reason: string } {
  if (event.code === 1000 && event.reason.startsWith(CODE_MARK)) {
    const code = Number(event.reason.slice(1, 5));
    if (Number.isInteger(code) && code >= 1000 && code <= 1014) return { code, reason: event.reason.slice(5) };
  }
  return { code: event.code, reason: event.reason };
}

/** A frame's data as the worker's messages carry it. */
function frameData(data: unknown): string | Uint8Array {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(0);
}

/** The worker's side of an upgraded request, as the router holds it. */
export interface Link {
  post(message: ToWorker, transfer?: Transferable[]): boolean;
  /** Frames from the worker (`ws_message`, `ws_close`) or its end (`error`) go here. */
  listen(onMessage: (message: FromWorker) => void): void;
  /** The request is over (the socket closed): its limits end, its worker may retire. */
  end(): void;
}

/**
 * The process's side (router): accept the supervisor's inner socket, run the request (`answer`,
 * which calls `onLink` when the function upgrades), send the head, then the frames or the body.
 */
export function acceptInner(
  req: Request,
  answer: (onLink: (link: Link) => void) => Promise<Response>,
): Response {
  const { socket, response } = Deno.upgradeWebSocket(req);
  socket.binaryType = "arraybuffer";
  const opened = new Promise<boolean>((resolve) => {
    socket.addEventListener("open", () => resolve(true), { once: true });
    socket.addEventListener("close", () => resolve(false), { once: true });
  });
  let link: Link | null = null;
  (async () => {
    let head: Response;
    try {
      head = await answer((l) => (link = l));
    } catch (err) {
      head = new Response(String(err), { status: 500, headers: { "x-functions-error": "worker" } });
    }
    if (!(await opened)) {
      // The supervisor went away before the answer: end the function's side too.
      if (link) ((link as Link).post({ type: "ws_close", id: -1, code: 1006, reason: "" }), (link as Link).end());
      else await head.body?.cancel().catch(() => {});
      return;
    }
    socket.send(JSON.stringify({ status: head.status, headers: [...head.headers] } satisfies Head));
    if (head.status === 101 && link) bridge(socket, link);
    else await sendBody(socket, head);
  })();
  return response;
}

/** A refusal's body as binary frames, then a normal close. */
async function sendBody(socket: WebSocket, head: Response): Promise<void> {
  try {
    if (head.body) {
      for await (const chunk of head.body) {
        if (socket.readyState !== WebSocket.OPEN) return;
        socket.send(chunk);
      }
    }
    closeWith(socket, 1000);
  } catch (err) {
    closeWith(socket, 1011, String(err));
  }
}

/** Frames between the inner socket and the function's worker until either closes. */
function bridge(socket: WebSocket, link: Link): void {
  let ended = false;
  const end = () => {
    if (!ended) (ended = true, link.end());
  };
  link.listen((message) => {
    if (message.type === "ws_message") {
      if (socket.readyState === WebSocket.OPEN) socket.send(message.data);
    } else if (message.type === "ws_close") closeWith(socket, message.code, message.reason);
    else if (message.type === "error") {
      // The worker stopped under it (a limit, a crash): the client's socket ends.
      closeWith(socket, 1011, message.message);
      end();
    }
  });
  socket.onmessage = (event) => {
    const data = frameData(event.data);
    link.post({ type: "ws_message", id: 0, data }, typeof data === "string" ? [] : [data.buffer as ArrayBuffer]);
  };
  socket.onclose = (event) => {
    link.post({ type: "ws_close", id: 0, ...closeOf(event) });
    end();
  };
}

/**
 * The supervisor's side: open the inner socket to the function's process at `url` with
 * `headers`, wait for the head, and answer the server's handshake `req` with it (upgrading on a
 * 101). `finish` runs once the request is over (sockets closed, or the refusal's body sent);
 * a process that fails before its head rejects (the caller says why).
 */
export async function openInner(
  req: Request,
  url: string,
  headers: Headers,
  finish: () => void,
): Promise<Response> {
  const inner = new WebSocket(url, { headers } as unknown as string[]);
  inner.binaryType = "arraybuffer";
  const early: unknown[] = [];
  let onFrame: ((data: unknown) => void) | null = null;
  let innerClose: CloseEvent | null = null;
  let onInnerClose: ((event: CloseEvent) => void) | null = null;
  const head = await new Promise<Head>((resolve, reject) => {
    let gotHead = false;
    inner.onmessage = (event) => {
      if (!gotHead) {
        gotHead = true;
        try {
          resolve(JSON.parse(String(event.data)));
        } catch (err) {
          reject(err);
        }
      } else if (onFrame) onFrame(event.data);
      else early.push(event.data);
    };
    inner.onclose = (event) => {
      innerClose = event;
      if (!gotHead) reject(new Error(`the function's process closed the socket (${event.code})`));
      onInnerClose?.(event);
    };
    inner.onerror = () => {
      if (!gotHead) reject(new Error("the function's process refused the socket"));
    };
  });
  let finished = false;
  const over = () => {
    if (!finished) (finished = true, finish());
  };
  const answerHeaders = new Headers(head.headers);
  if (head.status !== 101) {
    let ended = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const enqueue = (data: unknown) => {
          if (!ended && data instanceof ArrayBuffer) controller.enqueue(new Uint8Array(data));
        };
        early.forEach(enqueue);
        onFrame = enqueue;
        const close = () => {
          over();
          if (!ended) (ended = true, controller.close());
        };
        if (innerClose) close();
        else onInnerClose = close;
      },
      cancel() {
        ended = true;
        closeWith(inner, 1000, "", true);
        over();
      },
    });
    const nullBody = [204, 205, 304].includes(head.status);
    if (nullBody) body.cancel().catch(() => {});
    return new Response(nullBody ? null : body, { status: head.status, headers: answerHeaders });
  }
  const protocol = answerHeaders.get("sec-websocket-protocol") ?? undefined;
  const { socket: outer, response } = Deno.upgradeWebSocket(req, protocol ? { protocol } : {});
  outer.binaryType = "arraybuffer";
  outer.onopen = () => {
    for (const data of early) outer.send(data as string | ArrayBuffer);
    early.length = 0;
    onFrame = (data) => outer.readyState === WebSocket.OPEN && outer.send(data as string | ArrayBuffer);
    const closed = (event: CloseEvent) => (closeWith(outer, event.code, event.reason), over());
    if (innerClose) closed(innerClose);
    else onInnerClose = closed;
  };
  outer.onmessage = (event) => {
    if (inner.readyState === WebSocket.OPEN) inner.send(event.data);
  };
  outer.onclose = (event) => {
    closeWith(inner, event.code, event.reason, true);
    over();
  };
  return response;
}
