/**
 * WebSocket upgrades through the supervisor, served on a loopback port as the server reaches it,
 * to real functions in their own processes: frames echoed both ways (text and binary), close code
 * and reason passed through, a refusal answered as plain HTTP, a subprotocol chosen by the
 * function, and other requests answered while a socket is open.
 * Run: deno test --allow-all --unstable-worker-options --no-config tunnel_test.ts
 */

import { HEADER } from "./router.ts";
import { createSupervisor } from "./supervisor.ts";
import { assertEquals, writeFunction } from "./test_support.ts";

function test(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, fn, sanitizeOps: false, sanitizeResources: false });
}

const dir = await Deno.realPath(await Deno.makeTempDir({ dir: "/var/tmp", prefix: "functions-tunnel-test-" }));
const SECRET = "test-secret";
const supervisor = createSupervisor({ secret: SECRET, readPaths: [dir], idleMs: 60_000, spare: false });
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, supervisor);
globalThis.addEventListener("unload", () => {
  supervisor.stop();
  server.shutdown();
  Deno.removeSync(dir, { recursive: true });
});

const fn = (name: string, source: string) => writeFunction(dir, name, source);

function headers(entrypoint: string, extra: Record<string, string> = {}): Record<string, string> {
  return { [HEADER.secret]: SECRET, [HEADER.entrypoint]: entrypoint, [HEADER.timeout]: "20000", ...extra };
}

/** A socket to `path` of `entrypoint`, and the frames and close it gets. */
function connect(entrypoint: string, path: string, protocols?: string[]) {
  const socket = new WebSocket(`ws://127.0.0.1:${server.addr.port}${path}`, {
    headers: headers(entrypoint),
    protocols,
  } as unknown as string[]);
  socket.binaryType = "arraybuffer";
  const frames: unknown[] = [];
  let notify = () => {};
  socket.onmessage = (event) => {
    frames.push(event.data instanceof ArrayBuffer ? [...new Uint8Array(event.data)] : event.data);
    notify();
  };
  const opened = new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error("the socket failed"));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.onclose = (event) => resolve({ code: event.code, reason: event.reason });
  });
  const frameCount = (n: number) =>
    new Promise<void>((resolve) => {
      notify = () => frames.length >= n && resolve();
      notify();
    });
  return { socket, frames, opened, closed, frameCount };
}

const echo = await fn(
  "echo",
  `Deno.serve((req) => {
     if ((req.headers.get("upgrade") ?? "").toLowerCase() !== "websocket") {
       return new Response("request isn't trying to upgrade to WebSocket.", { status: 400 });
     }
     const wanted = req.headers.get("sec-websocket-protocol");
     const { socket, response } = Deno.upgradeWebSocket(req, wanted ? { protocol: wanted.split(",")[0].trim() } : {});
     socket.onopen = () => socket.send("hello " + new URL(req.url).pathname + " " + socket.protocol);
     socket.onmessage = (e) => {
       if (e.data === "bye") socket.close(4001, "asked to");
       else socket.send(e.data);
     };
     socket.onclose = (e) => console.log("closed by the client", e.code, e.reason);
     return response;
   });`,
);

test("an upgraded function echoes text and binary frames, then closes with its code and reason", async () => {
  const client = connect(echo, "/echo/room?x=1");
  await client.opened;
  client.socket.send("one");
  client.socket.send(new Uint8Array([1, 2, 3]));
  client.socket.send("two");
  await client.frameCount(4);
  client.socket.send("bye");
  const closed = await client.closed;

  assertEquals(client.frames, ["hello /echo/room ", "one", [1, 2, 3], "two"], "frames");
  assertEquals(closed, { code: 4001, reason: "asked to" }, "close");
});

test("a close code only a client's own stack sends (1001 going away) reaches the function as sent", async () => {
  // Browsers send 1001 when a page goes away, but a WebSocket object may not: a raw client.
  const out = await Deno.makeTempFile({ dir: "/tmp", prefix: "functions-tunnel-close-" });
  const closer = await fn(
    "closer",
    `Deno.serve((req) => {
       const { socket, response } = Deno.upgradeWebSocket(req);
       socket.onopen = () => socket.send("ready");
       socket.onclose = (e) => Deno.writeTextFileSync(${JSON.stringify(out)}, JSON.stringify([e.code, e.reason]));
       return response;
     });`,
  );
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
  const head = Object.entries({
    ...headers(closer),
    host: `127.0.0.1:${server.addr.port}`,
    upgrade: "websocket",
    connection: "Upgrade",
    "sec-websocket-key": btoa("0123456789abcdef"),
    "sec-websocket-version": "13",
  }).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  await conn.write(new TextEncoder().encode(`GET /closer HTTP/1.1\r\n${head}\r\n`));
  // The 101 and the function's "ready" frame, then a masked close frame: 1001, "away".
  let seen = "";
  const buffer = new Uint8Array(4096);
  while (!seen.includes("ready")) {
    const n = await conn.read(buffer);
    if (n === null) throw new Error(`closed before ready: ${seen}`);
    seen += new TextDecoder().decode(buffer.subarray(0, n));
  }
  assertEquals(seen.startsWith("HTTP/1.1 101"), true, seen);
  const payload = [0x03, 0xe9, ...new TextEncoder().encode("away")];
  await conn.write(new Uint8Array([0x88, 0x80 | payload.length, 0, 0, 0, 0, ...payload]));
  const end = Date.now() + 5000;
  let got = "";
  while (!(got = await Deno.readTextFile(out)) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  conn.close();
  await Deno.remove(out);
  assertEquals(JSON.parse(got || "null"), [1001, "away"], "the function's close event");
});

test("the subprotocol the function chooses reaches the client", async () => {
  const client = connect(echo, "/echo", ["chat.v2", "chat.v1"]);
  await client.opened;
  await client.frameCount(1);

  assertEquals(client.socket.protocol, "chat.v2", "protocol");
  assertEquals(client.frames, ["hello /echo chat.v2"], "frames");
  client.socket.close(1000);
  await client.closed;
});

test("a function that refuses the upgrade answers its refusal as plain HTTP", async () => {
  const refuses = await fn("refuses", `Deno.serve(() => new Response("no sockets here", { status: 400 }));`);
  const key = btoa("0123456789abcdef");
  const answer = await fetch(`http://127.0.0.1:${server.addr.port}/refuses`, {
    headers: headers(refuses, {
      upgrade: "websocket",
      connection: "Upgrade",
      "sec-websocket-key": key,
      "sec-websocket-version": "13",
    }),
  }).catch((err) => err);
  // fetch cannot send an upgrade; a WebSocket then sees the refusal as a failed handshake.
  if (answer instanceof Response) {
    assertEquals([answer.status, await answer.text()], [400, "no sockets here"], "refusal");
  }
  const client = connect(refuses, "/refuses");
  const failed = await client.opened.then(() => false, () => true);
  assertEquals(failed, true, "handshake refused");
});

test("other requests are answered while a socket is open", async () => {
  const plain = await fn("plain", `Deno.serve(() => new Response("still here"));`);
  const client = connect(echo, "/echo");
  await client.opened;

  const answer = await supervisor(new Request("http://127.0.0.1/plain", { headers: headers(plain) }));
  const again = await supervisor(
    new Request("http://127.0.0.1/echo", { headers: headers(echo) }),
  );

  assertEquals([answer.status, await answer.text()], [200, "still here"], "other function");
  assertEquals(
    [again.status, await again.text()],
    [400, "request isn't trying to upgrade to WebSocket."],
    "same function",
  );
  client.socket.send("still open");
  await client.frameCount(2);
  assertEquals(client.frames[1], "still open", "echo");
  client.socket.close(1000, "done");
  await client.closed;
});
