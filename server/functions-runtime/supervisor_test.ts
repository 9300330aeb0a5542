/**
 * The supervisor with real Deno processes running real functions written to a temporary folder:
 * the memory and CPU limits end one function's process while the others answer, permissions are
 * per function, bodies stream both ways.
 * Run: deno test --allow-all --unstable-worker-options --no-config supervisor_test.ts
 */

import { HEADER } from "./router.ts";
import { createSupervisor, sameLaunch, type Spawn } from "./supervisor.ts";
import { assertEquals, writeFunction } from "./test_support.ts";

/** Child processes and their pipes outlive one test by design (they are reused). */
function test(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, fn, sanitizeOps: false, sanitizeResources: false });
}

// Not under /tmp, which every function may read.
const dir = await Deno.realPath(await Deno.makeTempDir({ dir: "/var/tmp", prefix: "functions-supervisor-test-" }));
const SECRET = "test-secret";
const supervisor = createSupervisor({ secret: SECRET, readPaths: [dir], idleMs: 60_000, memoryMb: 64 });
globalThis.addEventListener("unload", () => {
  supervisor.stop();
  Deno.removeSync(dir, { recursive: true });
});

const fn = (name: string, source: string) => writeFunction(dir, name, source);

interface Call extends RequestInit {
  version?: string;
  memoryMb?: number;
  cpuMs?: number;
  read?: string[];
  deny?: string[];
}

function call(entrypoint: string, path: string, init: Call = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set(HEADER.secret, SECRET);
  headers.set(HEADER.entrypoint, entrypoint);
  if (init.version) headers.set(HEADER.version, init.version);
  if (init.memoryMb) headers.set(HEADER.memory, String(init.memoryMb));
  if (init.cpuMs) headers.set(HEADER.cpu, String(init.cpuMs));
  if (init.read) headers.set(HEADER.read, JSON.stringify(init.read));
  if (init.deny) headers.set(HEADER.deny, JSON.stringify(init.deny));
  return supervisor(new Request(`http://127.0.0.1${path}`, { ...init, headers }));
}

const echo = await fn(
  "echo",
  `let calls = 0;
   Deno.serve(async (req) => {
     calls += 1;
     const internal = [...req.headers.keys()].filter((k) => k.startsWith("x-functions-"));
     return Response.json({ calls, method: req.method, path: new URL(req.url).pathname, body: await req.text(),
       internal, agent: req.headers.get("user-agent"), encoding: req.headers.get("accept-encoding") });
   });`,
);

const hog = await fn(
  "hog",
  `Deno.serve((req) => {
     const query = new URL(req.url).searchParams;
     if (query.has("small")) return new Response("fine");
     // 1 GB outside V8's heap, which its heap limit does not see.
     if (query.has("buffer")) {
       const kept = new Uint8Array(1024 * 1024 * 1024).fill(1);
       return new Promise((resolve) => setTimeout(() => resolve(new Response(String(kept.length))), 5000));
     }
     // About 1 GB of small strings and arrays: all on V8's heap.
     const kept = [];
     for (let i = 0; i < 1_000_000; i++) kept.push(new Array(128).fill(String(i) + "x".repeat(64)));
     return new Response(String(kept.length));
   });`,
);

const spinner = await fn(
  "spinner",
  `Deno.serve((req) => {
     if (new URL(req.url).searchParams.has("spin")) while (true) { /* endless */ }
     return new Response("idle");
   });`,
);

test("a function answers from its own process, which is reused, and a start is told cold", async () => {
  const first = await call(echo, "/echo/sub", { method: "POST", body: "hello" });
  assertEquals(first.headers.get(HEADER.cold), "1");
  const json = await first.json();
  assertEquals([json.method, json.path, json.body, json.internal], ["POST", "/echo/sub", "hello", []]);
  // Only what the caller sent: not fetch's own user-agent and accept-encoding.
  assertEquals([json.agent, json.encoding], [null, null]);
  const second = await call(echo, "/echo", { headers: { "user-agent": "me/1" } });
  assertEquals(second.headers.get(HEADER.cold), null);
  const again = await second.json();
  assertEquals([again.calls, again.agent], [json.calls + 1, "me/1"]);
  assertEquals(Number(second.headers.get(HEADER.cpuUsed)) >= 0, true);
});

test("a function allocating 1 GB is stopped at its memory limit (546) while another answers during and after", async () => {
  assertEquals(await (await call(hog, "/hog?small")).text(), "fine");
  const hogPid = supervisor.pid(hog);
  // A CPU limit far away: the heap limit is what stops it here.
  const allocating = call(hog, "/hog", { cpuMs: 120_000 });
  const during = await call(echo, "/echo");
  assertEquals(during.status, 200, "another function during");
  await during.body?.cancel();
  const stopped = await allocating;
  assertEquals(stopped.status, 546);
  assertEquals([stopped.headers.get(HEADER.error), stopped.headers.get(HEADER.limit)], ["limit", "memory"]);
  await stopped.body?.cancel();
  const after = await call(echo, "/echo");
  assertEquals(after.status, 200, "another function after");
  await after.body?.cancel();
  // The function itself starts afresh in a new process.
  assertEquals(await (await call(hog, "/hog?small")).text(), "fine");
  assertEquals(supervisor.pid(hog) !== hogPid, true);
});

test("1 GB outside the heap (an ArrayBuffer) is stopped by the resident memory watch (546); the next request is answered (by a new process)", async () => {
  const stopped = await call(hog, "/hog?buffer", { cpuMs: 120_000 });
  assertEquals([stopped.status, stopped.headers.get(HEADER.limit)], [546, "memory"]);
  await stopped.body?.cancel();
  assertEquals(await (await call(hog, "/hog?small")).text(), "fine");
});

test("a per-function memory limit is the one its process gets", async () => {
  // 1 GB of heap would pass with a limit of 4 GB: the request names the limit, not the default.
  const medium = await fn(
    "medium",
    `Deno.serve(() => {
       const kept = [];
       for (let i = 0; i < 40; i++) kept.push(new Array(1_000_000).fill(i + 0.5));
       return new Response(String(kept.length));
     });`,
  );
  const small = await call(medium, "/medium", { memoryMb: 64, cpuMs: 120_000 });
  assertEquals([small.status, small.headers.get(HEADER.limit)], [546, "memory"]);
  await small.body?.cancel();
  const large = await call(medium, "/medium", { memoryMb: 1024, cpuMs: 120_000, version: "large" });
  assertEquals([large.status, await large.text()], [200, "40"]);
});

test("an endless loop is stopped at the CPU time limit (546) while another function answers", async () => {
  assertEquals(await (await call(spinner, "/spinner")).text(), "idle");
  const spinning = call(spinner, "/spinner?spin", { cpuMs: 500 });
  const during = await call(echo, "/echo");
  assertEquals(during.status, 200, "another function during");
  await during.body?.cancel();
  const stopped = await spinning;
  assertEquals(stopped.status, 546);
  assertEquals(stopped.headers.get(HEADER.limit), "cpu");
  await stopped.body?.cancel();
  assertEquals(await (await call(spinner, "/spinner")).text(), "idle");
});

test("a function reads its own folders and /tmp, not another function's folder, and runs no program", async () => {
  const other = `${dir}/echo/index.ts`;
  const reader = await fn(
    "reader",
    `Deno.serve(async () => {
       const tryIt = async (f) => { try { await f(); return "ok"; } catch (e) { return e.name; } };
       await Deno.writeTextFile("/tmp/functions-supervisor-test.txt", "x");
       return Response.json({
         own: await tryIt(() => Deno.readTextFile(new URL(import.meta.url).pathname)),
         tmp: await tryIt(() => Deno.readTextFile("/tmp/functions-supervisor-test.txt")),
         other: await tryIt(() => Deno.readTextFile(${JSON.stringify(other)})),
         outside: await tryIt(() => Deno.readTextFile("/etc/hostname")),
         run: await tryIt(() => new Deno.Command("true").output()),
         ffi: await tryIt(async () => Deno.dlopen("libc.so.6", {})),
       });
     });`,
  );
  const own = `${dir}/reader`;
  const answer = await (await call(reader, "/reader", { read: [own] })).json();
  assertEquals(answer, {
    own: "ok",
    tmp: "ok",
    other: "NotCapable",
    outside: "NotCapable",
    run: "NotCapable",
    ffi: "NotCapable",
  });
});

test("a folder under /tmp named in the deny list is refused although /tmp may be read", async () => {
  const guarded = await Deno.makeTempDir({ prefix: "functions-supervisor-guarded-" });
  await Deno.writeTextFile(`${guarded}/secret.txt`, "secret");
  const reader = await fn(
    "tmp-reader",
    `Deno.serve(async () => {
       const tryIt = async (f) => { try { await f(); return "ok"; } catch (e) { return e.name; } };
       return Response.json({
         guarded: await tryIt(() => Deno.readTextFile(${JSON.stringify(`${guarded}/secret.txt`)})),
         tmp: await tryIt(() => Deno.readDir("/tmp")[Symbol.asyncIterator]().next()),
       });
     });`,
  );
  const answer = await (await call(reader, "/tmp-reader", { read: [`${dir}/tmp-reader`], deny: [guarded] })).json();
  await Deno.remove(guarded, { recursive: true });
  assertEquals(answer, { guarded: "NotCapable", tmp: "ok" });
});

test("a function served by the spare process reads its own folder and /tmp, not another function's nor a denied folder", async () => {
  // A cold request's answer starts the spare (none is started with the supervisor).
  const first = await fn("spare-first", `Deno.serve(() => new Response("first"));`);
  assertEquals(await (await call(first, "/spare-first")).text(), "first");
  const spare = await supervisor.sparePid();
  assertEquals(typeof spare, "number", "a spare process is waiting");
  await Deno.mkdir(`${dir}/data`, { recursive: true });
  await Deno.writeTextFile(`${dir}/data/secret.txt`, "secret");
  const reader = await fn(
    "spare-reader",
    `Deno.serve(async () => {
       const tryIt = async (f) => { try { await f(); return "ok"; } catch (e) { return e.name; } };
       await Deno.writeTextFile("/tmp/functions-supervisor-spare-test.txt", "x");
       return Response.json({
         own: await tryIt(() => Deno.readTextFile(new URL(import.meta.url).pathname)),
         tmp: await tryIt(() => Deno.readTextFile("/tmp/functions-supervisor-spare-test.txt")),
         other: await tryIt(() => Deno.readTextFile(${JSON.stringify(`${dir}/echo/index.ts`)})),
         data: await tryIt(() => Deno.readTextFile(${JSON.stringify(`${dir}/data/secret.txt`)})),
         outside: await tryIt(() => Deno.readTextFile("/etc/hostname")),
         run: await tryIt(() => new Deno.Command("true").output()),
       });
     });`,
  );
  const response = await call(reader, "/spare-reader", { read: [`${dir}/spare-reader`], deny: [`${dir}/data`] });
  assertEquals(response.headers.get(HEADER.cold), "1");
  assertEquals(supervisor.pid(reader), spare, "served by the former spare");
  assertEquals(await response.json(), {
    own: "ok",
    tmp: "ok",
    other: "NotCapable",
    data: "NotCapable",
    outside: "NotCapable",
    run: "NotCapable",
  });
  const next = await supervisor.sparePid();
  assertEquals(typeof next === "number" && next !== spare, true, "a new spare started once the first was taken");
});

test("a function served by the spare process is stopped at the memory and CPU limits while another answers", async () => {
  const heavy = await fn(
    "spare-heavy",
    `Deno.serve((req) => {
       const query = new URL(req.url).searchParams;
       if (query.has("spin")) while (true) { /* endless */ }
       if (query.has("small")) return new Response("fine");
       const kept = [];
       for (let i = 0; i < 1_000_000; i++) kept.push(new Array(128).fill(String(i) + "x".repeat(64)));
       return new Response(String(kept.length));
     });`,
  );
  const read = [`${dir}/spare-heavy`];
  let spare = await supervisor.sparePid();
  assertEquals(await (await call(heavy, "/spare-heavy?small", { read })).text(), "fine");
  assertEquals(supervisor.pid(heavy), spare, "served by the former spare");
  const allocating = await call(heavy, "/spare-heavy", { read, cpuMs: 120_000 });
  assertEquals([allocating.status, allocating.headers.get(HEADER.limit)], [546, "memory"]);
  await allocating.body?.cancel();
  spare = await supervisor.sparePid();
  const spinning = call(heavy, "/spare-heavy?spin", { read, cpuMs: 500, version: "2" });
  const during = await call(echo, "/echo");
  assertEquals(during.status, 200, "another function during");
  await during.body?.cancel();
  const stopped = await spinning;
  assertEquals([stopped.status, stopped.headers.get(HEADER.limit)], [546, "cpu"]);
  await stopped.body?.cancel();
  assertEquals(supervisor.pid(heavy), spare, "the spinning version was served by the next spare");
});

test("a function with a memory limit of its own starts its own process and leaves the spare waiting", async () => {
  const own = await fn("own-limit", `Deno.serve(() => new Response("own"));`);
  const spare = await supervisor.sparePid();
  assertEquals(await (await call(own, "/own-limit", { memoryMb: 128 })).text(), "own");
  assertEquals(supervisor.pid(own) !== spare, true, "not the spare");
  assertEquals(await supervisor.sparePid(), spare, "the spare still waits");
});

test("a 50 MB upload reaches the function as a stream it counts", async () => {
  const counter = await fn(
    "counter",
    `Deno.serve(async (req) => {
       let bytes = 0, chunks = 0;
       for await (const chunk of req.body) { bytes += chunk.length; chunks += 1; }
       return Response.json({ bytes, chunks });
     });`,
  );
  const size = 50 * 1024 * 1024;
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= size) return controller.close();
      const chunk = new Uint8Array(Math.min(1024 * 1024, size - sent)).fill(7);
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  const answer = await (await call(counter, "/counter", { method: "POST", body })).json();
  assertEquals(answer.bytes, size);
  assertEquals(answer.chunks > 1, true, "in several chunks");
});

test("a new version started the same way gets a new worker in its process, while the old one finishes the answer it was streaming", async () => {
  // The old version's last chunk waits for a file the test writes after the new version has
  // answered (a chunk may be read ahead of the caller, so a plain stream could end too soon).
  const go = `${dir}/versioned/go`;
  const read = [`${dir}/versioned`];
  const source = (word: string, wait: boolean) =>
    `Deno.serve(() => {
       const chunks = ["${word}:", "done"];
       return new Response(new ReadableStream({
         async pull(controller) {
           const next = chunks.shift();
           if (next === "done" && ${wait}) {
             for (let i = 0; i < 1000; i++) {
               try { await Deno.stat(${
      JSON.stringify(go)
    }); break; } catch { await new Promise((r) => setTimeout(r, 10)); }
             }
           }
           if (next) controller.enqueue(new TextEncoder().encode(next));
           else controller.close();
         },
       }, { highWaterMark: 0 }));
     });`;
  const entry = await fn("versioned", source("old", true));
  const old = await call(entry, "/versioned", { version: "1", read });
  const oldReader = old.body!.getReader();
  assertEquals(new TextDecoder().decode((await oldReader.read()).value), "old:");
  const pid = supervisor.pid(entry);
  const before = supervisor.counts();
  await Deno.writeTextFile(new URL(entry).pathname, source("new", false));
  const edited = await call(entry, "/versioned", { version: "2", read });
  assertEquals(edited.headers.get(HEADER.cold), "1", "a cold start of the new version");
  assertEquals(await edited.text(), "new:done");
  assertEquals(supervisor.pid(entry), pid, "the same process");
  assertEquals(supervisor.counts().reused, before.reused + 1, "counted as reused");
  assertEquals(supervisor.counts().started, before.started, "no process started");
  await Deno.writeTextFile(go, "");
  let rest = "";
  for (let r = await oldReader.read(); !r.done; r = await oldReader.read()) rest += new TextDecoder().decode(r.value);
  assertEquals(rest, "done");
  assertEquals(await (await call(entry, "/versioned", { version: "2", read })).text(), "new:done");
});

test("a new version whose permissions changed takes the spare process, while the old process finishes its answer", async () => {
  // The old version's last chunk (asked with ?wait) waits for a file the test writes once the new
  // version has answered (a chunk may be read ahead of the caller, so a plain stream could end too soon).
  const go = `${dir}/restaticked/go`;
  const source = (word: string) =>
    `Deno.serve(async (req) => {
       const wait = new URL(req.url).searchParams.has("wait");
       const tryIt = async (f) => { try { await f(); return "ok"; } catch (e) { return e.name; } };
       const chunks = ["${word}:", await tryIt(() => Deno.readTextFile(${JSON.stringify(`${dir}/static/page.html`)}))];
       let first = true;
       return new Response(new ReadableStream({
         async pull(controller) {
           if (!first && wait) {
             for (let i = 0; i < 1000; i++) {
               try { await Deno.stat(${
      JSON.stringify(go)
    }); break; } catch { await new Promise((r) => setTimeout(r, 10)); }
             }
           }
           first = false;
           const next = chunks.shift();
           if (next) controller.enqueue(new TextEncoder().encode(next));
           else controller.close();
         },
       }, { highWaterMark: 0 }));
     });`;
  await Deno.mkdir(`${dir}/static`, { recursive: true });
  await Deno.writeTextFile(`${dir}/static/page.html`, "page");
  const entry = await fn("restaticked", source("old"));
  // Its first answer delivered, a spare is started (if the first took the previous one).
  assertEquals(
    await (await call(entry, "/restaticked", { version: "1", read: [`${dir}/restaticked`] })).text(),
    "old:NotCapable",
  );
  const spare = await supervisor.sparePid();
  assertEquals(typeof spare, "number", "a spare process is waiting");
  const old = await call(entry, "/restaticked?wait", { version: "1", read: [`${dir}/restaticked`] });
  const oldPid = supervisor.pid(entry);
  const oldReader = old.body!.getReader();
  assertEquals(new TextDecoder().decode((await oldReader.read()).value), "old:");
  const before = supervisor.counts();

  // The edit adds a static file (config.toml's `static_files`): its read folders grow.
  await Deno.writeTextFile(new URL(entry).pathname, source("new"));
  const read = [`${dir}/restaticked`, `${dir}/static`];
  const edited = await call(entry, "/restaticked", { version: "2", read });

  assertEquals(await edited.text(), "new:ok", "the new code, reading its static file");
  assertEquals(supervisor.pid(entry), spare, "served by the former spare");
  assertEquals(supervisor.counts().spareTaken, before.spareTaken + 1, "counted as the spare taken");
  assertEquals(supervisor.counts().started, before.started, "no process started");
  await Deno.writeTextFile(go, "");
  let rest = "";
  for (let r = await oldReader.read(); !r.done; r = await oldReader.read()) rest += new TextDecoder().decode(r.value);
  assertEquals(rest, "NotCapable", "the old version finished in its own process, with its own permissions");
  const next = await supervisor.sparePid();
  assertEquals(typeof next === "number" && next !== spare && next !== oldPid, true, "a new spare started");
});

Deno.test("a process is reused for another version only when started the same way, never with an import map", () => {
  const spawn: Spawn = {
    entrypoint: "file:///f/a/index.ts",
    version: "1",
    memoryMb: 256,
    readPaths: ["/f/a"],
    denyPaths: ["/f/b"],
    secrets: { K: "1" },
  };
  assertEquals(sameLaunch(spawn, { ...spawn, version: "2", readPaths: ["/f/a"], secrets: { K: "1" } }), true);
  assertEquals(sameLaunch(spawn, { ...spawn, version: "2", readPaths: ["/f/a", "/f/static"] }), false, "reads");
  assertEquals(sameLaunch(spawn, { ...spawn, version: "2", denyPaths: ["/f/b", "/f/c"] }), false, "denied folders");
  assertEquals(sameLaunch(spawn, { ...spawn, version: "2", memoryMb: 512 }), false, "heap limit");
  assertEquals(sameLaunch(spawn, { ...spawn, version: "2", secrets: { K: "2" } }), false, "secrets");
  assertEquals(sameLaunch(spawn, { ...spawn, version: "2", entrypoint: "file:///f/b/index.ts" }), false, "entry");
  const mapped = { ...spawn, importMap: "/f/a/deno.json" };
  assertEquals(sameLaunch(mapped, { ...mapped, version: "2" }), false, "an import map is read at the process's start");
});

test("an answer names its process's port and secret; a request sent there straight is answered, and a retired process finishes it before it ends", async () => {
  const source = (word: string) =>
    `let n = 0;
     Deno.serve(async (req) => {
       n += 1;
       const slow = new URL(req.url).searchParams.get("slow");
       if (slow) {
         await Deno.writeTextFile(slow, "started");
         await new Promise((r) => setTimeout(r, 600));
       }
       return new Response("${word}" + n);
     });`;
  const entry = await fn("direct", source("old"));
  const first = await call(entry, "/direct", { version: "1" });
  assertEquals(await first.text(), "old1");
  const direct = first.headers.get(HEADER.direct) ?? "";
  const [port, secret] = direct.split(" ");
  assertEquals(Number(port) > 0 && secret.length > 0, true, `x-functions-direct is "<port> <secret>": ${direct}`);
  const pid = supervisor.pid(entry)!;
  const straight = (query = "", processSecret = secret) =>
    fetch(`http://127.0.0.1:${port}/direct${query}`, {
      headers: { [HEADER.secret]: processSecret, [HEADER.entrypoint]: entry, [HEADER.version]: "1" },
    });
  const wrong = await straight("", "not-its-secret");
  assertEquals(wrong.status, 403, "the process's own secret is required");
  await wrong.body?.cancel();
  assertEquals(await (await straight()).text(), "old2", "the same worker answers a request sent straight");

  // A request in flight straight to the process when a new version (started another way) retires it.
  // The slow request marks its start in /tmp: the retirement comes once it is in flight.
  const marker = `/tmp/functions-direct-${crypto.randomUUID()}`;
  const slow = straight(`?slow=${encodeURIComponent(marker)}`);
  while (!(await Deno.stat(marker).then(() => true, () => false))) await new Promise((r) => setTimeout(r, 10));
  await Deno.remove(marker);
  await Deno.writeTextFile(new URL(entry).pathname, source("new"));
  const edited = await call(entry, "/direct", { version: "2", memoryMb: 80 });
  assertEquals(await edited.text(), "new1", "the new version in a new process");
  assertEquals(supervisor.pid(entry) !== pid, true, "a new process");
  assertEquals(await (await slow).text(), "old3", "the retired process answered the request sent straight");
  // Then it ends on its own: its port is closed.
  let closed = false;
  for (let i = 0; i < 50 && !closed; i++) {
    await new Promise((r) => setTimeout(r, 50));
    closed = await straight().then((r) => (r.body?.cancel(), false), () => true);
  }
  assertEquals(closed, true, "the retired process ended once its last request was answered");
});

test("a process idle past idleMs is ended by the sweep, and the next request starts a new one", async () => {
  const counter = await fn("idle", `let n = 0; Deno.serve(() => new Response(String(++n)));`);
  assertEquals(await (await call(counter, "/idle")).text(), "1");
  assertEquals(await (await call(counter, "/idle")).text(), "2");
  assertEquals(supervisor.sweep(Date.now()), 0, "none idle yet");
  assertEquals(supervisor.sweep(Date.now() + 120_000) >= 1, true);
  assertEquals(supervisor.pid(counter), undefined);
  assertEquals(await (await call(counter, "/idle")).text(), "1");
});

test("a function that fails to load is a boot failure", async () => {
  const broken = await fn("broken", `throw new Error("cannot start");`);
  const response = await call(broken, "/broken");
  assertEquals([response.status, response.headers.get(HEADER.error)], [503, "boot"]);
  assertEquals((await response.text()).includes("cannot start"), true);
});

/** A function trying every way out to port 25, 587 and `?port=` (an open one), and saying how each went. */
const MAILER = `import net from "node:net";
  const how = async (attempt) => {
    try {
      const value = await attempt();
      if (value instanceof Response) await value.body?.cancel();
      else value?.close?.();
      return "connected";
    } catch (err) {
      return err?.name === "NotCapable" || err?.message?.includes("are blocked") ? "refused: " + err.message : "other: " + err;
    }
  };
  const nodeConnect = (port, host) => new Promise((resolve, reject) => {
    const socket = net.connect(port, host);
    socket.on("connect", () => resolve({ close: () => socket.destroy() }));
    socket.on("error", reject);
  });
  const socket = (url) => new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.onopen = () => resolve(ws);
    ws.onerror = () => reject(new Error("websocket failed"));
  });
  Deno.serve(async (req) => {
    const open = Number(new URL(req.url).searchParams.get("port"));
    return Response.json({
      connect25: await how(() => Deno.connect({ hostname: "127.0.0.1", port: 25 })),
      connect587v6: await how(() => Deno.connect({ hostname: "::1", port: 587 })),
      tls587: await how(() => Deno.connectTls({ hostname: "localhost", port: 587 })),
      fetch25: await how(() => fetch("http://localhost:25/")),
      websocket587: await how(() => socket("ws://127.0.0.1:587/")),
      node25: await how(() => nodeConnect(25, "127.0.0.1")),
      node587: await how(() => nodeConnect(587, "localhost")),
      connectOpen: await how(() => Deno.connect({ hostname: "127.0.0.1", port: open })),
      fetchOpen: await how(() => fetch("http://127.0.0.1:" + open + "/")),
      nodeOpen: await how(() => nodeConnect(open, "127.0.0.1")),
    });
  });`;

/** Every attempt to 25 and 587 refused with the error saying why; the open port reached every way. */
async function assertSmtpPortsRefused(response: Response): Promise<void> {
  assertEquals(response.status, 200);
  const how: Record<string, string> = await response.json();
  for (const [attempt, outcome] of Object.entries(how)) {
    if (attempt.endsWith("Open")) assertEquals(outcome, "connected", attempt);
    else assertEquals(outcome.startsWith("refused: "), true, `${attempt}: ${outcome}`);
  }
  // Deno.connect to an IPv6 address is refused by the bootstrap, with the reason.
  assertEquals(how.connect587v6.includes("port 587 are not allowed"), true, how.connect587v6);
}

test("a function's connections to ports 25 and 587 are refused every way, other ports are reached", async () => {
  const listener = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("open"));
  try {
    const mailer = await fn("mailer", MAILER);
    await assertSmtpPortsRefused(await call(mailer, `/mailer?port=${listener.addr.port}`, { cpuMs: 30_000 }));
    // The same through the spare process, whose worker's permissions are narrowed at assignment.
    const spare = await supervisor.sparePid();
    assertEquals(typeof spare, "number", "a spare process is waiting");
    const other = await fn("mailer-spare", MAILER);
    const read = [`${dir}/mailer-spare`];
    const response = await call(other, `/mailer-spare?port=${listener.addr.port}`, { read, cpuMs: 30_000 });
    assertEquals(supervisor.pid(other), spare, "served by the former spare");
    await assertSmtpPortsRefused(response);
  } finally {
    await listener.shutdown();
  }
});

test("a function's deno.json or import map maps its imports, and it reads files relative to its folder", async () => {
  await Deno.mkdir(`${dir}/lib`, { recursive: true });
  await Deno.writeTextFile(`${dir}/lib/greeting.ts`, `export const greeting = "mapped";`);
  const source = `import { greeting } from "greet/greeting.ts";
    Deno.serve(async () => new Response(greeting + ":" + (await Deno.readTextFile("./page.html")).trim()));`;
  const configured = await fn("configured", source);
  await Deno.writeTextFile(
    `${dir}/configured/deno.jsonc`,
    `// comments are allowed\n{ "imports": { "greet/": "../lib/" } }`,
  );
  await Deno.writeTextFile(`${dir}/configured/page.html`, "<p>configured</p>");
  const mapped = await fn("mapped", source);
  await Deno.writeTextFile(`${dir}/mapped/import_map.json`, `{ "imports": { "greet/": "../lib/" } }`);
  await Deno.writeTextFile(`${dir}/mapped/page.html`, "<p>mapped</p>");
  const read = (name: string) => [`${dir}/${name}`, `${dir}/lib`];

  const withConfig = await call(configured, "/configured", {
    read: read("configured"),
    headers: { [HEADER.importMap]: JSON.stringify([`${dir}/configured/deno.jsonc`]) },
  });
  const withMap = await call(mapped, "/mapped", {
    read: read("mapped"),
    headers: { [HEADER.importMap]: JSON.stringify([`${dir}/mapped/import_map.json`]) },
  });
  const without = await call(mapped, "/mapped", { read: read("mapped"), version: "no-map" });

  assertEquals([withConfig.status, await withConfig.text()], [200, "mapped:<p>configured</p>"]);
  assertEquals([withMap.status, await withMap.text()], [200, "mapped:<p>mapped</p>"]);
  assertEquals(without.status, 503, "without its import map, the bare import does not resolve");
  assertEquals((await without.text()).includes("greet/greeting.ts"), true);
  assertEquals(
    (await call(configured, "/configured", { headers: { [HEADER.importMap]: "[1]" } })).status,
    400,
    "an import map header that is not a list of paths",
  );
});

test("a function served by the spare process reads files relative to its own folder", async () => {
  const spare = await supervisor.sparePid();
  assertEquals(typeof spare, "number", "a spare process is waiting");
  const reader = await fn(
    "spare-relative",
    `Deno.serve(async () => new Response(await Deno.readTextFile("./note.txt")));`,
  );
  await Deno.writeTextFile(`${dir}/spare-relative/note.txt`, "beside the function");
  const response = await call(reader, "/spare-relative", { read: [`${dir}/spare-relative`] });
  assertEquals(supervisor.pid(reader), spare, "served by the former spare");
  assertEquals([response.status, await response.text()], [200, "beside the function"]);
});

test("with its folders under /tmp, a function writes /tmp but not the folders denied writing, and no spare is kept", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ dir: "/tmp", prefix: "functions-supervisor-write-" }));
  await Deno.mkdir(`${root}/data`);
  await Deno.writeTextFile(`${root}/data/secret.txt`, "the server's");
  await Deno.mkdir(`${root}/functions/writer`, { recursive: true });
  await Deno.writeTextFile(
    `${root}/functions/writer/index.ts`,
    `Deno.serve(async () => {
       const tryIt = async (f) => { try { await f(); return "ok"; } catch (e) { return e.name; } };
       return Response.json({
         tmp: await tryIt(() => Deno.writeTextFile(${JSON.stringify(`${root}/scratch.txt`)}, "x")),
         data: await tryIt(() => Deno.writeTextFile(${JSON.stringify(`${root}/data/secret.txt`)}, "x")),
         added: await tryIt(() => Deno.writeTextFile(${JSON.stringify(`${root}/data/added.txt`)}, "x")),
         own: await tryIt(() => Deno.writeTextFile(new URL("./index.ts", import.meta.url).pathname, "x")),
       });
     });`,
  );
  const guarded = createSupervisor({
    secret: SECRET,
    readPaths: [`${root}/functions`],
    idleMs: 60_000,
    memoryMb: 64,
    denyWrite: [`${root}/data`, `${root}/functions`],
  });
  try {
    const headers = new Headers({
      [HEADER.secret]: SECRET,
      [HEADER.entrypoint]: `file://${root}/functions/writer/index.ts`,
      [HEADER.read]: JSON.stringify([`${root}/functions/writer`]),
      [HEADER.deny]: JSON.stringify([`${root}/data`]),
    });
    const answer = await (await guarded(new Request("http://127.0.0.1/writer", { headers }))).json();
    assertEquals(answer, { tmp: "ok", data: "NotCapable", added: "NotCapable", own: "NotCapable" });
    assertEquals(await Deno.readTextFile(`${root}/data/secret.txt`), "the server's", "the file unchanged");
    assertEquals(await guarded.sparePid(), undefined, "no spare kept");
  } finally {
    guarded.stop();
    await Deno.remove(root, { recursive: true });
  }
});

test("with a lane root, each process's lanes listen in a folder of its own that no other function can list, reach or replace", async () => {
  const laneRoot = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "functions-lane-root-test-" });
  const lanes = createSupervisor({ secret: SECRET, readPaths: [dir], idleMs: 60_000, memoryMb: 64, laneRoot });
  const prober = await fn(
    "prober",
    `const tryIt = async (f) => { try { await f(); return "ok"; } catch (e) { return e.name; } };
     Deno.serve(async (req) => {
       const lane = new URL(req.url).searchParams.get("lane");
       const folder = lane.slice(0, lane.lastIndexOf("/"));
       return Response.json({
         list: await tryIt(async () => { for await (const _ of Deno.readDir(${JSON.stringify(laneRoot)})) {} }),
         connect: await tryIt(async () => (await Deno.connect({ transport: "unix", path: lane })).close()),
         remove: await tryIt(() => Deno.remove(lane)),
         plant: await tryIt(() => Deno.writeTextFile(folder + "/1.sock", "x")),
       });
     });`,
  );
  try {
    const headers = (entrypoint: string) => new Headers({ [HEADER.secret]: SECRET, [HEADER.entrypoint]: entrypoint });
    const first = await lanes(new Request("http://127.0.0.1/echo", { headers: headers(echo) }));
    await first.body?.cancel();
    const lane = first.headers.get(HEADER.lane) ?? "";
    assertEquals(lane.startsWith(`${laneRoot}/`) && lane.endsWith(".sock"), true, `a socket in the root: ${lane}`);
    assertEquals((await Deno.stat(lane)).isSocket, true, "the socket exists");
    const probe = `/prober?lane=${encodeURIComponent(lane)}`;
    const answer = await (await lanes(new Request(`http://127.0.0.1${probe}`, { headers: headers(prober) }))).json();
    assertEquals(answer, { list: "NotCapable", connect: "NotCapable", remove: "NotCapable", plant: "NotCapable" });
    assertEquals((await Deno.stat(lane)).isSocket, true, "still there");
  } finally {
    lanes.stop();
    await Deno.remove(laneRoot, { recursive: true }).catch(() => {});
  }
});
