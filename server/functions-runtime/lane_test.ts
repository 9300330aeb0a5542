/**
 * A worker's lane (`lane.ts`): real workers running real functions, their lanes called over HTTP
 * as the server calls them, their limits kept by the router's watcher.
 * Run: deno test --allow-all --unstable-worker-options --no-config lane_test.ts
 */

import { createRouter, HEADER } from "./router.ts";
import { assertEquals, writeFunction } from "./test_support.ts";

const dir = await Deno.makeTempDir({ prefix: "functions-lane-test-" });
const SECRET = "lane-test-secret";
const limits: string[] = [];
const router = createRouter({ secret: SECRET, readPaths: [dir], lanes: true, onLimit: (kind) => limits.push(kind) });

const fn = (name: string, source: string) => writeFunction(dir, name, source);

/** A request through the router, as the supervisor sends it; its answer names the lane. */
async function viaRouter(entrypoint: string, version = "v1"): Promise<{ response: Response; lane: number }> {
  const headers = new Headers({ [HEADER.secret]: SECRET, [HEADER.entrypoint]: entrypoint, [HEADER.version]: version });
  const response = await router(new Request("http://127.0.0.1/f", { headers }));
  return { response, lane: Number(response.headers.get(HEADER.lane)) };
}

/** A request to a lane, as the server sends it straight. */
function viaLane(
  lane: number,
  path: string,
  init: RequestInit & { cpuMs?: number; idleMs?: number; timeoutMs?: number; secret?: string } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set(HEADER.secret, init.secret ?? SECRET);
  headers.set(HEADER.requestId, "req-1");
  if (init.cpuMs) headers.set(HEADER.cpu, String(init.cpuMs));
  if (init.idleMs) headers.set(HEADER.idle, String(init.idleMs));
  if (init.timeoutMs) headers.set(HEADER.timeout, String(init.timeoutMs));
  return fetch(`http://127.0.0.1:${lane}${path}`, { ...init, headers });
}

/** What the router says of a lane (`/_internal/lane`). */
async function laneEnded(lane: number): Promise<{ ended: boolean; limit: string | null }> {
  const headers = { [HEADER.secret]: SECRET };
  return await (await router(new Request(`http://127.0.0.1/_internal/lane?lane=${lane}`, { headers }))).json();
}

/** Wait until `check` holds, for at most `ms`. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const echo = await fn(
  "echo",
  `let calls = 0;
   Deno.serve(async (req) => {
     calls += 1;
     const url = new URL(req.url);
     const body = req.method === "GET" ? null : await req.text();
     const internal = [...req.headers.keys()].filter((k) => k.startsWith("x-functions-") || k === "user-agent");
     return Response.json({ calls, path: url.pathname + url.search, body, internal, who: req.headers.get("x-who") },
       { status: 201, headers: { "x-answer": "yes", "x-functions-error": "limit" } });
   });`,
);

Deno.test("the router's answer names the worker's lane, which runs the same worker's function", async () => {
  const { response, lane } = await viaRouter(echo);
  const first = await response.json();
  assertEquals(lane > 0, true, "a lane port");
  const straight = await viaLane(lane, "/echo/sub?x=1", {
    method: "POST",
    body: "hello",
    headers: { "x-who": "me", [HEADER.added]: "user-agent" },
  });
  assertEquals(straight.status, 201);
  assertEquals(straight.headers.get("x-answer"), "yes");
  assertEquals(straight.headers.get("x-functions-error"), null, "a function cannot fake the router's headers");
  assertEquals(straight.headers.get("content-length") !== null, true, "a body given whole goes with its length");
  const json = await straight.json();
  assertEquals([json.calls, json.path, json.body, json.who], [first.calls + 1, "/echo/sub?x=1", "hello", "me"]);
  assertEquals(json.internal, [], "no x-functions-* header and none the caller did not send");
});

Deno.test("the function sees the caller's origin in its URL through the router and on its lane, else the hop's own", async () => {
  const url = await fn("url", `Deno.serve((req) => new Response(req.url));`);
  const origin = "https://api.example.cd:8443";
  const headers = new Headers({
    [HEADER.secret]: SECRET,
    [HEADER.entrypoint]: url,
    [HEADER.version]: "v1",
    [HEADER.origin]: origin,
  });
  const routed = await router(new Request("http://127.0.0.1:9/url/sub?x=1", { headers }));
  const lane = Number(routed.headers.get(HEADER.lane));
  assertEquals(await routed.text(), `${origin}/url/sub?x=1`);
  const straight = await viaLane(lane, "/url/a/b?y=2", { headers: { [HEADER.origin]: origin } });
  assertEquals(await straight.text(), `${origin}/url/a/b?y=2`);
  const without = await viaLane(lane, "/url/c");
  assertEquals(await without.text(), `http://127.0.0.1:${lane}/url/c`);
});

/** A raw HTTP/1.1 request on a lane's Unix socket (as the server's client sends it); the whole answer's text. */
async function viaSocket(path: string, target: string, extra: Record<string, string> = {}): Promise<string> {
  const conn = await Deno.connect({ transport: "unix", path });
  const head = Object.entries({ [HEADER.secret]: SECRET, [HEADER.requestId]: "req-2", ...extra })
    .map(([name, value]) => `${name}: ${value}\r\n`).join("");
  await conn.write(
    new TextEncoder().encode(`GET ${target} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n${head}\r\n`),
  );
  return await new Response(conn.readable).text();
}

Deno.test("with a lane folder, a worker's lane listens on a Unix socket in it and serves the same function", async () => {
  const laneDir = await Deno.makeTempDir({ prefix: "functions-lane-dir-" });
  const socketRouter = createRouter({ secret: SECRET, readPaths: [dir], lanes: true, laneDir });
  const url = await fn(
    "url-socket",
    `Deno.serve((req, info) => new Response(req.url + " " + info.remoteAddr.transport));`,
  );
  const headers = new Headers({ [HEADER.secret]: SECRET, [HEADER.entrypoint]: url, [HEADER.version]: "v1" });
  const routed = await socketRouter(new Request("http://127.0.0.1:9/url-socket", { headers }));
  const lane = routed.headers.get(HEADER.lane) ?? "";
  assertEquals([lane.startsWith(`${laneDir}/`), lane.endsWith(".sock")], [true, true], lane);
  assertEquals(await routed.text(), "http://127.0.0.1:9/url-socket tcp");
  const origin = await viaSocket(lane, "/url-socket/a?b=1", { [HEADER.origin]: "http://localhost:54321" });
  assertEquals(origin.startsWith("HTTP/1.1 200"), true, origin);
  assertEquals(origin.endsWith("http://localhost:54321/url-socket/a?b=1 unix"), true, origin);
  const bare = await viaSocket(lane, "/url-socket/c");
  assertEquals(bare.endsWith("http://localhost/url-socket/c unix"), true, bare);
  const refused = await viaSocket(lane, "/url-socket", { [HEADER.secret]: "wrong" });
  assertEquals(refused.startsWith("HTTP/1.1 403"), true, refused);
  socketRouter.sweep(Date.now() + 1e9);
  await Deno.remove(laneDir, { recursive: true }).catch(() => {});
});

Deno.test("a lane refuses a request without the process's secret before the function runs", async () => {
  const { response, lane } = await viaRouter(echo);
  const before = (await response.json()).calls;
  const refused = await viaLane(lane, "/echo", { secret: "wrong" });
  assertEquals([refused.status, refused.headers.get(HEADER.error)], [403, "forbidden"]);
  await refused.body?.cancel();
  const after = await (await viaLane(lane, "/echo")).json();
  assertEquals(after.calls, before + 1, "the refused request never reached the function");
});

Deno.test("a function past its wall-clock limit on its lane is stopped, told as wall_clock", async () => {
  const slow = await fn(
    "slow",
    `Deno.serve(async (req) => {
       if (new URL(req.url).searchParams.has("wait")) await new Promise((r) => setTimeout(r, 10_000));
       return new Response("done");
     });`,
  );
  const { response, lane } = await viaRouter(slow);
  await response.body?.cancel();
  const waited = await viaLane(lane, "/slow?wait", { timeoutMs: 200 }).then((r) => r.status, (err) => String(err));
  assertEquals(typeof waited, "string", "the connection breaks");
  assertEquals(await laneEnded(lane), { ended: true, limit: "wall_clock" });
});

Deno.test("a function that sends no answer within the idle timeout on its lane gets 504; its other requests are answered meanwhile", async () => {
  const idle = await fn(
    "idle",
    `Deno.serve(async (req) => {
       if (new URL(req.url).searchParams.has("hang")) await new Promise(() => {});
       return new Response("fine");
     });`,
  );
  const { response, lane } = await viaRouter(idle);
  await response.body?.cancel();
  const hanging = viaLane(lane, "/idle?hang", { idleMs: 300 });
  assertEquals(await (await viaLane(lane, "/idle")).text(), "fine");
  const answer = await hanging;
  assertEquals([answer.status, answer.headers.get(HEADER.error)], [504, "idle"]);
  assertEquals((await answer.text()).includes("request idle timeout of 300 ms"), true);
  assertEquals(await (await viaLane(lane, "/idle")).text(), "fine", "the worker lives on");
});

Deno.test("a streamed answer on a lane arrives chunk by chunk, and its request is in flight until the answer has left", async () => {
  const ticks = await fn(
    "ticks",
    `Deno.serve(() => {
       let n = 0;
       const body = new ReadableStream({
         async pull(controller) {
           await new Promise((r) => setTimeout(r, 100));
           if (n === 4) return controller.close();
           controller.enqueue(new TextEncoder().encode("tick" + n++ + "\\n"));
         },
       });
       return new Response(body, { headers: { "content-type": "text/plain" } });
     });`,
  );
  const { response, lane } = await viaRouter(ticks);
  await response.body?.cancel();
  const before = router.inFlight();
  const streamed = await viaLane(lane, "/ticks", { idleMs: 1000 });
  assertEquals(streamed.headers.get("content-length"), null, "a stream is not given a length");
  const reader = streamed.body!.getReader();
  const first = await reader.read();
  assertEquals(new TextDecoder().decode(first.value), "tick0\n");
  // The chunks left take at least two of the function's 100 ms timers: a buffered answer would have
  // come at once after the first.
  const firstAt = Date.now();
  assertEquals(router.inFlight(), before + 1, "in flight while it streams");
  let rest = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += new TextDecoder().decode(value);
  }
  assertEquals(rest, "tick1\ntick2\ntick3\n");
  assertEquals(Date.now() - firstAt >= 150, true, "the first chunk came before the function had finished");
  await until(() => Promise.resolve(router.inFlight() === before), 5000, "no longer in flight once sent");
});

Deno.test("a lane measures the answer's CPU time only when the server asks", async () => {
  const { response, lane } = await viaRouter(echo);
  await response.body?.cancel();
  const plain = await viaLane(lane, "/echo");
  await plain.body?.cancel();
  assertEquals(plain.headers.get(HEADER.cpuUsed), null);
  const measured = await viaLane(lane, "/echo", { headers: { "x-functions-measure": "1" } });
  await measured.body?.cancel();
  assertEquals(Number.isInteger(Number(measured.headers.get(HEADER.cpuUsed))), true);
});

Deno.test("a new version retires the old worker: its lane then refuses new connections and is told ended without a limit", async () => {
  const versioned = await fn("versioned", `Deno.serve(() => new Response("answer"));`);
  const old = await viaRouter(versioned, "v1");
  await old.response.body?.cancel();
  const next = await viaRouter(versioned, "v2");
  await next.response.body?.cancel();
  assertEquals(next.lane !== old.lane, true, "the new version has its own lane");
  await until(async () => (await laneEnded(old.lane)).ended, 5000, "the old lane ended");
  assertEquals(await laneEnded(old.lane), { ended: true, limit: null });
  const refused = await fetch(`http://127.0.0.1:${old.lane}/versioned`, { headers: { [HEADER.secret]: SECRET } })
    .then((r) => r.status, (err) => String(err));
  assertEquals(typeof refused, "string", "no new connection");
  assertEquals(await (await viaLane(next.lane, "/versioned")).text(), "answer");
});

Deno.test("the router counts a lane's requests in flight (a draining process waits for them)", async () => {
  const gate = await fn(
    "gate",
    `Deno.serve(async (req) => {
       if (new URL(req.url).searchParams.has("wait")) await new Promise((r) => setTimeout(r, 2000));
       return new Response("ok");
     });`,
  );
  const { response, lane } = await viaRouter(gate);
  await response.body?.cancel();
  const before = router.inFlight();
  const waiting = viaLane(lane, "/gate?wait");
  await until(() => Promise.resolve(router.inFlight() === before + 1), 5000, "counted in flight");
  assertEquals(await (await waiting).text(), "ok");
  await until(() => Promise.resolve(router.inFlight() === before), 5000, "no longer in flight");
});

// Last: Deno's `terminate` leaves a worker's thread spinning in its loop (a function's own process
// ends itself at this limit, `host.ts`; this test's process goes on with it).
Deno.test("a function looping on its lane is stopped at the CPU limit; the router says so, calls onLimit and takes no new request", async () => {
  const spin = await fn(
    "spin",
    `Deno.serve((req) => {
       if (new URL(req.url).searchParams.has("loop")) for (;;) {}
       return new Response("alive");
     });`,
  );
  const { response, lane } = await viaRouter(spin);
  assertEquals(await response.text(), "alive");
  const abort = new AbortController();
  const looping = viaLane(lane, "/spin?loop", { cpuMs: 300, signal: abort.signal }).then(
    (r) => r.status,
    () => "aborted",
  );
  await until(async () => (await laneEnded(lane)).ended, 3000, "the lane's worker stopped");
  assertEquals(await laneEnded(lane), { ended: true, limit: "cpu" });
  assertEquals(limits, ["cpu"], "onLimit told");
  abort.abort();
  assertEquals(await looping, "aborted", "no answer came from the looping worker");
  // This router's process is ending (onLimit): it takes no new request, and says so.
  const again = await viaRouter(spin);
  assertEquals([again.response.status, again.response.headers.get(HEADER.lane)], [503, "gone"]);
  await again.response.body?.cancel();
});
