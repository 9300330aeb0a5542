/**
 * The router with real workers running real functions written to a temporary folder.
 * Run: deno test --allow-all --unstable-worker-options --no-config router_test.ts
 */

import { createRouter, HEADER } from "./router.ts";
import { assertEquals, writeFunction } from "./test_support.ts";

const dir = await Deno.makeTempDir({ prefix: "functions-router-test-" });
const SECRET = "test-secret";
const router = createRouter({ secret: SECRET, readPaths: [dir], idleMs: 60_000 });

const fn = (name: string, source: string) => writeFunction(dir, name, source);

function call(
  entrypoint: string,
  path: string,
  init: RequestInit & { timeoutMs?: number; idleMs?: number; version?: string } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set(HEADER.secret, SECRET);
  headers.set(HEADER.entrypoint, entrypoint);
  if (init.version) headers.set(HEADER.version, init.version);
  if (init.timeoutMs) headers.set(HEADER.timeout, String(init.timeoutMs));
  if (init.idleMs) headers.set(HEADER.idle, String(init.idleMs));
  return router(new Request(`http://127.0.0.1${path}`, { ...init, headers }));
}

const echo = await fn(
  "echo",
  `let calls = 0;
   Deno.serve(async (req) => {
     calls += 1;
     const url = new URL(req.url);
     const body = req.method === "GET" ? null : await req.text();
     const internal = [...req.headers.keys()].filter((k) => k.startsWith("x-functions-"));
     return Response.json({ calls, method: req.method, path: url.pathname, body, internal, who: req.headers.get("x-who") },
       { status: 201, headers: { "x-answer": "yes" } });
   });`,
);

Deno.test("a request without the secret is refused before any function runs", async () => {
  const response = await router(new Request("http://127.0.0.1/echo", { headers: { [HEADER.entrypoint]: echo } }));
  assertEquals(response.status, 403);
  assertEquals(response.headers.get(HEADER.error), "forbidden");
  await response.body?.cancel();
});

Deno.test("the function's answer comes back with its status, headers and body", async () => {
  const response = await call(echo, "/echo/sub?x=1", { method: "POST", body: "hello", headers: { "x-who": "me" } });
  assertEquals(response.status, 201);
  assertEquals(response.headers.get("x-answer"), "yes");
  const json = await response.json();
  assertEquals([json.method, json.path, json.body, json.who, json.internal], ["POST", "/echo/sub", "hello", "me", []]);
});

Deno.test("a small body declared by its length and a larger streamed one reach the function whole", async () => {
  const small = "x".repeat(1000);
  const large = "y".repeat(200_000);
  for (const [body, length] of [[small, "1000"], [large, "200000"]]) {
    const response = await call(echo, "/echo", { method: "POST", body, headers: { "content-length": length } });
    assertEquals((await response.json()).body === body, true, `${length} bytes`);
  }
});

Deno.test("a function's worker is reused: its module state lives between requests", async () => {
  const first = await (await call(echo, "/echo")).json();
  const second = await (await call(echo, "/echo")).json();
  assertEquals(second.calls, first.calls + 1);
});

Deno.test("a function that throws while loading is a boot failure (503)", async () => {
  const broken = await fn("broken", `throw new Error("cannot start");`);
  const response = await call(broken, "/broken");
  assertEquals(response.status, 503);
  assertEquals(response.headers.get(HEADER.error), "boot");
  assertEquals((await response.text()).includes("cannot start"), true);
});

Deno.test("a function that never serves is a boot failure", async () => {
  const silent = await fn("silent", `export const x = 1;`);
  const response = await call(silent, "/silent");
  assertEquals([response.status, response.headers.get(HEADER.error)], [503, "boot"]);
  await response.body?.cancel();
});

Deno.test("a handler that throws is a worker failure (500), and the worker serves the next request", async () => {
  const flaky = await fn(
    "flaky",
    `let n = 0; Deno.serve(() => { n += 1; if (n === 1) throw new Error("first call fails"); return new Response("n=" + n); });`,
  );
  const failed = await call(flaky, "/flaky");
  assertEquals([failed.status, failed.headers.get(HEADER.error)], [500, "worker"]);
  await failed.body?.cancel();
  const next = await call(flaky, "/flaky");
  assertEquals(await next.text(), "n=2");
});

Deno.test("a request past the wall-clock limit is a limit failure (546) and the worker starts afresh", async () => {
  const slow = await fn(
    "slow",
    `let n = 0; Deno.serve(async (req) => {
       n += 1;
       if (new URL(req.url).searchParams.has("hang")) await new Promise(() => {});
       return new Response("n=" + n);
     });`,
  );
  assertEquals(await (await call(slow, "/slow")).text(), "n=1");
  const hung = await call(slow, "/slow?hang", { timeoutMs: 200 });
  assertEquals([hung.status, hung.headers.get(HEADER.error)], [546, "limit"]);
  await hung.body?.cancel();
  assertEquals(await (await call(slow, "/slow")).text(), "n=1");
});

Deno.test("a function that sends no answer within the request idle timeout gets 504, the others keep answering", async () => {
  const idle = await fn(
    "idle",
    `let n = 0; Deno.serve(async (req) => {
       n += 1;
       if (new URL(req.url).searchParams.has("hang")) await new Promise(() => {});
       return new Response("n=" + n);
     });`,
  );
  const hanging = call(idle, "/idle?hang", { idleMs: 300 });
  const other = await call(echo, "/echo");
  assertEquals([other.status, (await other.json()).method], [201, "GET"], "another function meanwhile:");
  const hung = await hanging;
  assertEquals([hung.status, hung.headers.get(HEADER.error)], [504, "idle"]);
  await hung.body?.cancel();
  // Only the request was given up: the worker (and its module state) lives on.
  assertEquals(await (await call(idle, "/idle", { idleMs: 300 })).text(), "n=2");
});

Deno.test("a streamed answer that keeps sending is not idle; one that stops sending is broken off", async () => {
  const ticking = await fn(
    "ticking",
    `Deno.serve((req) => {
       const stall = new URL(req.url).searchParams.has("stall");
       let i = 0;
       const body = new ReadableStream({
         async pull(controller) {
           if (i > 0) await new Promise((r) => setTimeout(r, stall ? 1e9 : 150));
           if (i++ === 10) controller.close(); else controller.enqueue(new TextEncoder().encode("."));
         },
       });
       return new Response(body);
     });`,
  );
  // Ten chunks 150 ms apart: longer in all than the 1 s idle timeout, never idle for it.
  const steady = await call(ticking, "/ticking", { idleMs: 1000 });
  assertEquals([steady.status, await steady.text()], [200, ".........."]);
  const stalling = await call(ticking, "/ticking?stall", { idleMs: 300 });
  assertEquals(stalling.status, 200);
  const reader = stalling.body!.getReader();
  assertEquals(new TextDecoder().decode((await reader.read()).value), ".");
  const broken = await reader.read().then(() => "read", (err: Error) => err.message);
  assertEquals(broken, "no chunk within the request idle timeout of 300 ms");
});

Deno.test("a streamed body reaches the client chunk by chunk, before the function has finished", async () => {
  const streaming = await fn(
    "streaming",
    `let release = () => {};
     Deno.serve((req) => {
       if (new URL(req.url).pathname.endsWith("/release")) { release(); return new Response("released"); }
       const body = new ReadableStream({
         async start(controller) {
           controller.enqueue(new TextEncoder().encode("first;"));
           await new Promise((resolve) => (release = resolve));
           controller.enqueue(new TextEncoder().encode("second"));
           controller.close();
         },
       });
       return new Response(body, { headers: { "content-type": "text/event-stream" } });
     });`,
  );
  const response = await call(streaming, "/streaming");
  const reader = response.body!.getReader();
  const first = await reader.read();
  assertEquals(new TextDecoder().decode(first.value), "first;");
  assertEquals(await (await call(streaming, "/streaming/release")).text(), "released");
  let rest = "";
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
  assertEquals(rest, "second");
});

Deno.test("a function reads its own folder but nothing outside it and /tmp, and runs no program", async () => {
  const reader = await fn(
    "reader",
    `Deno.serve(async () => {
       const tryIt = async (f) => { try { await f(); return "ok"; } catch (e) { return e.name; } };
       return Response.json({
         own: await tryIt(() => Deno.readTextFile(new URL(import.meta.url).pathname)),
         outside: await tryIt(() => Deno.readTextFile("/etc/hostname")),
         run: await tryIt(() => new Deno.Command("true").output()),
       });
     });`,
  );
  assertEquals(await (await call(reader, "/reader")).json(), { own: "ok", outside: "NotCapable", run: "NotCapable" });
});

Deno.test("a module whose default export has fetch is served too", async () => {
  const exported = await fn("exported", `export default { fetch: () => new Response("from fetch") };`);
  assertEquals(await (await call(exported, "/exported")).text(), "from fetch");
});

Deno.test("a 204 answer has no body", async () => {
  const empty = await fn("empty", `Deno.serve(() => new Response(null, { status: 204 }));`);
  const response = await call(empty, "/empty");
  assertEquals([response.status, response.body], [204, null]);
});

Deno.test("an answer given whole goes out with its length; one that streams on still streams", async () => {
  const whole = await fn("whole", `Deno.serve(() => Response.json({ hello: "whole" }));`);
  const later = await fn(
    "later",
    `Deno.serve(() => new Response(new ReadableStream({
       start(c) { c.enqueue(new TextEncoder().encode("first ")); setTimeout(() => (c.enqueue(new TextEncoder().encode("then")), c.close()), 50); },
     })));`,
  );
  const broken = await fn(
    "broken",
    `Deno.serve(() => new Response(new ReadableStream({ start(c) { c.error(new Error("no body after all")); } })));`,
  );
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, router);
  const get = (entrypoint: string) =>
    fetch(`http://127.0.0.1:${server.addr.port}/`, {
      headers: { [HEADER.secret]: SECRET, [HEADER.entrypoint]: entrypoint },
    });
  try {
    const one = await get(whole);
    assertEquals([one.status, one.headers.get("content-length"), await one.text()], [200, "17", `{"hello":"whole"}`]);
    const streamed = await get(later);
    assertEquals(
      [streamed.headers.get("content-length"), streamed.headers.get("transfer-encoding"), await streamed.text()],
      [null, "chunked", "first then"],
    );
    // A body that fails before any of it is read: a worker failure, not a 200 cut short.
    const failed = await get(broken);
    assertEquals([failed.status, failed.headers.get(HEADER.error)], [500, "worker"]);
    await failed.body?.cancel();
  } finally {
    await server.shutdown();
  }
});

Deno.test("a new version gets a new worker, while the old one finishes the answer it was streaming", async () => {
  // The old answer's last chunk comes 300 ms after its first, once the new version has answered:
  // it needs the old worker still there (and is not read ahead with the first chunk).
  const source = (word: string) =>
    `Deno.serve(() => {
       const chunks = ["${word}:", "done"];
       const body = new ReadableStream({
         async pull(controller) {
           const next = chunks.shift();
           if (next === "done" && "${word}" === "old") await new Promise((r) => setTimeout(r, 300));
           if (next) controller.enqueue(new TextEncoder().encode(next));
           else controller.close();
         },
       }, { highWaterMark: 0 });
       return new Response(body);
     });`;
  const entry = await fn("versioned", source("old"));
  const old = await call(entry, "/versioned", { version: "1" });
  const oldReader = old.body!.getReader();
  assertEquals(new TextDecoder().decode((await oldReader.read()).value), "old:");

  await Deno.writeTextFile(new URL(entry).pathname, source("new"));
  assertEquals(await (await call(entry, "/versioned", { version: "2" })).text(), "new:done");

  let rest = "";
  for (let r = await oldReader.read(); !r.done; r = await oldReader.read()) rest += new TextDecoder().decode(r.value);
  assertEquals(rest, "done");
  assertEquals(await (await call(entry, "/versioned", { version: "2" })).text(), "new:done");
});

Deno.test("a function cannot answer with the router's own x-functions-* headers", async () => {
  const faker = await fn(
    "faker",
    `Deno.serve(() => new Response("fine", { status: 200, headers: { "x-functions-error": "boot", "x-kept": "1" } }));`,
  );
  const response = await call(faker, "/faker");
  assertEquals([response.status, response.headers.get(HEADER.error), response.headers.get("x-kept")], [200, null, "1"]);
  assertEquals(await response.text(), "fine");
});

Deno.test("a worker idle past idleMs is stopped by the sweep, and the next request boots a new one", async () => {
  const counter = await fn("counter", `let n = 0; Deno.serve(() => new Response(String(++n)));`);
  assertEquals(await (await call(counter, "/counter")).text(), "1");
  assertEquals(await (await call(counter, "/counter")).text(), "2");
  const busyOnes = router.sweep(Date.now());
  assertEquals(busyOnes, 0, "none idle yet");
  const health = async () =>
    (await (await router(new Request("http://x/_internal/health", { headers: { [HEADER.secret]: SECRET } }))).json())
      .workers;
  const before = await health();
  assertEquals(router.sweep(Date.now() + 120_000) >= 1, true);
  assertEquals(await health(), 0);
  assertEquals(before > 0, true);
  assertEquals(await (await call(counter, "/counter")).text(), "1");
});

Deno.test("secrets sent to the router are in the Deno.env of workers booted after, and a boot is told cold", async () => {
  const env = await fn(
    "env-secrets",
    `Deno.serve(() => Response.json({ key: Deno.env.get("PAY_KEY") ?? null, has: Deno.env.has("PAY_KEY"),
       inObject: Deno.env.toObject().PAY_KEY ?? null, process: globalThis.process?.env?.PAY_KEY ?? null }));`,
  );
  const put = await router(
    new Request("http://127.0.0.1/_internal/secrets", {
      method: "PUT",
      headers: { [HEADER.secret]: SECRET },
      body: JSON.stringify({ PAY_KEY: "sk_1" }),
    }),
  );
  assertEquals(put.status, 204);
  const first = await call(env, "/env-secrets", { version: "s1" });
  assertEquals(first.headers.get(HEADER.cold), "1");
  assertEquals(await first.json(), { key: "sk_1", has: true, inObject: "sk_1", process: "sk_1" });
  const warm = await call(env, "/env-secrets", { version: "s1" });
  assertEquals(warm.headers.get(HEADER.cold), null);
  await warm.body?.cancel();
  // Not in the router's own environment: each worker has its own overlay.
  assertEquals(Deno.env.get("PAY_KEY"), undefined);

  await router(
    new Request("http://127.0.0.1/_internal/secrets", {
      method: "PUT",
      headers: { [HEADER.secret]: SECRET },
      body: "{}",
    }),
  );
  // The same version keeps the worker and its values; a new version boots one without them.
  assertEquals((await (await call(env, "/env-secrets", { version: "s1" })).json()).key, "sk_1");
  assertEquals((await (await call(env, "/env-secrets", { version: "s2" })).json()).key, null);
});
