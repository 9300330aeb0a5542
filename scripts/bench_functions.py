#!/usr/bin/env python3
"""make bench-functions: /functions/v1 beside the same function on a bare `deno serve`.

Starts the release server (BENCH_SERVER overrides) on a fresh private cluster with a functions
folder, and the pinned Deno (FUNCTIONS_DENO_BIN) for the floor, then prints in one run:
  * warm: invocations/s, p50 and p99 of a hello-world function through /functions/v1 (the anon key
    as Bearer, so the JWT check is in) and of the same file under a bare `deno serve`, with wrk at
    1 and 8 connections; the ratios; CPU per request of server + Deno child vs. the bare Deno
    (from /proc);
  * cold start: the first request after a fresh server start (which starts the Deno child: Deno
    starts at the first request since #43's lazy start, so this includes the router's start), and
    the first request after an edit of the function (back to back), and the first request to each of
    several functions not yet called (a second apart), p50 / p99 over several of each;
  * a supabase-js read (npm:@supabase/supabase-js, fetched by Deno from the npm registry) done in
    a function with the caller's token, beside the same read straight to /rest/v1;
  * memory: RSS of the Deno child and its functions' processes with 2 and 2 + N functions idle, and
    of the bare `deno serve`;
  * webhook deliveries/s through the outbox: BENCH_WEBHOOKS (2,000) single-row inserts, each its
    own transaction, into a table with a Supabase Database Webhook (`supabase_functions.
    http_request`, URL `http://localhost:54321/functions/v1/hook` as a Supabase CLI migration
    writes it, the anon key as Bearer in its headers) to a function that counts the inserts it
    receives; deliveries/s from the first insert's `created_at` to the last `delivered_at` in
    `outbox.http_requests` (delivered while the inserts are written), then of a backlog (N rows in
    one insert: from its commit to the last delivery, the outbox's own pace); beside the same N
    payloads POSTed by this script straight to /functions/v1/hook with as many connections as the
    outbox sends at once (50), and the N inserts into a table without the webhook (psql, the floor
    of writing the changes). OUTBOX_RETRY_BASE_SECONDS is 1 (a retried request waits 1 s, not 30):
    the retries are counted and printed.
Then the targets of issue #43 (warm overhead within 1.3x of bare Deno, cold start under 150 ms)
beside the measured values.
The server's settings come from the environment: `FUNCTIONS_LANES=false` measures warm requests
sent to the function's process instead of into its worker (the variant before lanes).
Load is wrk on 127.0.0.1 only, bounded in time. Not a test: numbers vary by machine.
"""
import http.client, json, os, re, shutil, statistics, subprocess, sys, tempfile, threading, time
import urllib.error, urllib.request

from benchlib import cpu_seconds, cpu_used, ensure_wrk, field_kb, headers_lua, pg_bin

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SERVER = os.environ.get("BENCH_SERVER", os.path.join(TARGET, "release", "server"))
DENO = os.environ.get("FUNCTIONS_DENO_BIN",
                      os.path.join(ROOT, "server/functions-runtime/node_modules/@deno/linux-x64-glibc/deno"))
PORT = int(os.environ.get("BENCH_PORT", 54391))
FLOOR_PORT = PORT + 1
DURATION = int(os.environ.get("BENCH_SECONDS", 8))
CONCURRENCIES = [int(c) for c in os.environ.get("BENCH_CONCURRENCY", "1,8").split(",")]
STARTS = int(os.environ.get("BENCH_COLD_STARTS", 5))
EDITS = int(os.environ.get("BENCH_EDITS", 10))
IDLE_WORKERS = int(os.environ.get("BENCH_IDLE_WORKERS", 10))
WEBHOOKS = int(os.environ.get("BENCH_WEBHOOKS", 2000))
# Requests the outbox worker sends at once (server/src/outbox/http.rs `BATCH`): the baseline's connections.
OUTBOX_BATCH = 50
OVERHEAD_TARGET, COLD_TARGET_MS = 1.3, 150
URL = f"http://127.0.0.1:{PORT}"

HELLO = 'export default { fetch: () => new Response("hello") };\n'
SB_READ = '''import { createClient } from "npm:@supabase/supabase-js@2";
const url = Deno.env.get("SUPABASE_URL")!, anon = Deno.env.get("SUPABASE_ANON_KEY")!;
Deno.serve(async (req) => {
  const client = createClient(url, anon, {
    global: { headers: { Authorization: req.headers.get("Authorization")! } },
    auth: { persistSession: false, autoRefreshToken: false },
  });
  const { data, error } = await client.from("bench_items").select("id,name").order("id").limit(10);
  if (error) return Response.json(error, { status: 500 });
  return Response.json(data);
});
'''
# The webhook's receiver: counts the INSERT payloads it is sent (one process per function, kept
# alive with FUNCTIONS_WORKER_IDLE_SECS=0), reports the count on GET.
HOOK = '''let inserts = 0;
Deno.serve(async (req) => {
  if (req.method === "GET") return Response.json({ inserts });
  const payload = await req.json();
  if (payload.type !== "INSERT" || payload.record?.id == null) return new Response("bad payload", { status: 400 });
  inserts++;
  return Response.json({ ok: true });
});
'''


def get(path, headers, timeout=120):
    req = urllib.request.Request(URL + path, headers=headers)
    with urllib.request.urlopen(req, timeout=timeout) as res:
        return res.status, res.read()


def timed_get(path, headers):
    start = time.perf_counter()
    status, _ = get(path, headers)
    if status != 200:
        sys.exit(f"{path}: {status}")
    return (time.perf_counter() - start) * 1000


def deploy(service_key, slug, source):
    """Deploy `source` as `slug`'s index.ts over the management API, as `supabase functions deploy`
    does (multipart `metadata` and `file` parts to `POST /v1/projects/<ref>/functions/deploy`)."""
    boundary = "bench-functions-boundary"
    metadata = json.dumps({"name": slug, "entrypoint_path": "index.ts", "verify_jwt": True})
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n{metadata}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"index.ts\"\r\n"
            f"Content-Type: application/typescript\r\n\r\n{source}\r\n--{boundary}--\r\n").encode()
    req = urllib.request.Request(f"{URL}/v1/projects/default/functions/deploy?slug={slug}", data=body, method="POST",
                                 headers={"Authorization": f"Bearer {service_key}",
                                          "Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(req, timeout=60) as res:
        if res.status not in (200, 201):
            sys.exit(f"deploy {slug}: {res.status}")


def run_wrk(url, conns, lua):
    script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
    script.write(lua)
    script.close()
    out = subprocess.run(["wrk", "-t", str(min(2, conns)), "-c", str(conns), "-d", f"{DURATION}s", "--latency",
                          "-s", script.name, url], capture_output=True, text=True, check=True).stdout
    os.unlink(script.name)

    def ms(label):
        m = re.search(rf"{label}%\s+([\d.]+)(us|ms|s)", out)
        return float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)), "p50": ms("50"), "p99": ms("99"),
            "requests": int(re.search(r"(\d+) requests in", out).group(1)),
            "errors": int(errors.group(1)) if errors else 0}


def measured(url, conns, lua, pids):
    before = cpu_seconds(pids)
    r = run_wrk(url, conns, lua)
    r["cpu_us"] = cpu_used(before, cpu_seconds(pids)) / max(1, r["requests"]) * 1e6
    return r


def children(pid):
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return out


def tree(pid):
    """`pid` and its descendants (the Deno child and the functions' processes it started)."""
    out, pending = [], [pid]
    while pending:
        current = pending.pop()
        out.append(current)
        pending.extend(children(current))
    return out


def deno_child(server_pid):
    for pid in children(server_pid):
        try:
            if os.path.basename(os.readlink(f"/proc/{pid}/exe")).startswith("deno"):
                return pid
        except OSError:
            pass
    return None


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


class Server:
    """The server binary on `data_dir`, started and stopped; `deno` is its Deno child's pid."""

    def __init__(self, env, data_dir):
        self.env, self.data_dir, self.proc, self.keys = env, data_dir, None, {}

    def start(self):
        log = open(os.path.join(self.data_dir, "server.log"), "a")
        self.proc = subprocess.Popen([SERVER], env=self.env, stdout=subprocess.PIPE, stderr=log, text=True)
        for line in self.proc.stdout:
            if line.startswith("anon key: "):
                self.keys["anon"] = line.split(": ", 1)[1].strip()
            if line.startswith("service_role key: "):
                self.keys["service"] = line.split(": ", 1)[1].strip()
                break
        if "anon" not in self.keys:
            sys.exit("the server did not start:\n" + open(os.path.join(self.data_dir, "server.log")).read())
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                _, body = get("/health", {}, timeout=5)
                # `idle`: functions found, Deno not started yet (it starts at the first request)
                if json.loads(body).get("functions") in ("idle", "running"):
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        else:
            sys.exit("the functions runtime did not start")
        self.deno = None  # found after the first request, which starts it

    def stop(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait(timeout=60)
            self.proc = None


def psql(db_url, sql, stdin=None):
    """psql's unaligned output of `sql` (or of the script on `stdin`); exits with psql's error."""
    args = [pg_bin("psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", db_url] + ([] if stdin else ["-c", sql])
    out = subprocess.run(args, input=stdin, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"psql failed: {out.stderr[-2000:]}")
    return out.stdout.strip()


def timed_inserts(db_url, table, n):
    """N single-row inserts into `table`, each its own transaction (psql in autocommit): seconds."""
    script = "".join(f"insert into public.{table} values ({i}, 'row {i}');\n" for i in range(1, n + 1))
    start = time.perf_counter()
    psql(db_url, None, stdin=script)
    return time.perf_counter() - start


def post_all(path, headers, bodies, conns):
    """POST each body on `conns` kept-alive connections at once: the seconds taken, the answers not 2xx."""
    pending, lock, bad = iter(bodies), threading.Lock(), []

    def worker():
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=120)
        while True:
            with lock:
                body = next(pending, None)
            if body is None:
                break
            conn.request("POST", path, body, headers)
            res = conn.getresponse()
            res.read()
            if res.status >= 300:
                bad.append(res.status)
        conn.close()

    threads = [threading.Thread(target=worker) for _ in range(conns)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start, bad


def hook_count(auth):
    return json.loads(get("/functions/v1/hook", auth)[1])["inserts"]


def wait_delivered(db_url, table, n):
    """Poll the outbox until the webhook requests of `table`'s n rows are delivered or failed (or a
    deadline): delivered, failed, retried, and the epochs of the first request's `created_at` and the
    last `delivered_at` (the database's clock, this machine's)."""
    state = ("select count(*) filter (where delivered_at is not null), count(*) filter (where failed_at is not null), "
             "count(*) filter (where attempts > 1), coalesce(extract(epoch from min(created_at)), 0), "
             "coalesce(extract(epoch from max(delivered_at)), 0) "
             f"from outbox.http_requests where source = 'webhook' and body->>'table' = '{table}'")
    deadline = time.time() + max(120, n / 5)
    while True:
        delivered, failed, retried, first, last = psql(db_url, state).split("|")
        if int(delivered) + int(failed) >= n or time.time() > deadline:
            return {"delivered": int(delivered), "failed": int(failed), "retried": int(retried),
                    "first": float(first), "last": float(last)}
        time.sleep(0.2)


def webhook_rates(db_url, auth, anon):
    """The webhook rows: the floor (inserts without a webhook), the same payloads POSTed straight to
    the function, the outbox's deliveries of N single-row inserts with the webhook (delivered while
    they are written), and of a backlog (N rows in one insert: the outbox's own pace)."""
    headers = json.dumps({"Content-Type": "application/json", "Authorization": f"Bearer {anon}"}).replace("'", "''")
    hook = ("for each row execute function supabase_functions.http_request("
            f"'http://localhost:54321/functions/v1/hook', 'POST', '{headers}', '{{}}', '10000')")
    psql(db_url, f"""
        create table public.bench_plain (id int primary key, name text);
        create table public.bench_hooked (id int primary key, name text);
        create table public.bench_backlog (id int primary key, name text);
        create trigger bench_hook after insert on public.bench_hooked {hook};
        create trigger bench_hook after insert on public.bench_backlog {hook};""")
    hook_count(auth)  # boots the function's process
    payloads = [json.dumps({"type": "INSERT", "table": "bench_hooked", "schema": "public",
                            "record": {"id": i, "name": f"row {i}"}, "old_record": None}) for i in range(1, WEBHOOKS + 1)]
    straight_s, refused = post_all("/functions/v1/hook", {**auth, "Content-Type": "application/json"}, payloads, OUTBOX_BATCH)
    if refused:
        sys.exit(f"straight POSTs to the function refused: {len(refused)} (statuses {sorted(set(refused))})")
    counted_before = hook_count(auth)
    plain_s = timed_inserts(db_url, "bench_plain", WEBHOOKS)
    hooked_s = timed_inserts(db_url, "bench_hooked", WEBHOOKS)
    single = wait_delivered(db_url, "bench_hooked", WEBHOOKS)
    single["span"] = single["last"] - single["first"]
    psql(db_url, f"insert into public.bench_backlog select i, 'row ' || i from generate_series(1, {WEBHOOKS}) i")
    committed = time.time()  # psql has returned: the insert is committed, the backlog visible
    backlog = wait_delivered(db_url, "bench_backlog", WEBHOOKS)
    backlog["span"] = backlog["last"] - committed
    return {"plain_s": plain_s, "hooked_s": hooked_s, "straight_s": straight_s, "single": single, "backlog": backlog,
            "counted": hook_count(auth) - counted_before}


def print_webhooks(w):
    n, single, backlog = WEBHOOKS, w["single"], w["backlog"]
    print(f"\nDatabase Webhook deliveries through the outbox ({n} rows; a webhook on insert to /functions/v1/hook, "
          f"URL and Bearer in the trigger as a Supabase migration writes them; a function counting what it receives):")
    print(f"{'path':<68}{'rows':>7}{'s':>8}{'rows/s':>9}")
    rows = [("inserts without a webhook, one transaction each (psql, the floor)", n, w["plain_s"]),
            ("inserts with the webhook, one transaction each (psql)", n, w["hooked_s"]),
            (f"the same payloads POSTed straight to the function ({OUTBOX_BATCH} conns)", n, w["straight_s"]),
            ("deliveries of those inserts (first insert to last delivered)", single["delivered"], single["span"]),
            ("deliveries of a backlog: one insert of N rows (commit to last)", backlog["delivered"], backlog["span"])]
    for label, count, secs in rows:
        print(f"{label:<68}{count:>7}{secs:>8.2f}{count / max(secs, 1e-9):>9.0f}")
    straight = n / w["straight_s"]
    for label, r in (("inserts one by one", single), ("backlog", backlog)):
        rate = r["delivered"] / max(r["span"], 1e-9)
        print(f"{f'  ratio of rows/s, straight POSTs / deliveries ({label})':<68}{'':>15}{straight / max(rate, 1e-9):>8.2f}x")
    for label, r in (("one by one", single), ("backlog", backlog)):
        print(f"  {label}: delivered {r['delivered']} of {n}, failed {r['failed']}, {r['retried']} needed more than one attempt")
        if r["delivered"] < n:
            print("  NOT ALL DELIVERED within the wait: the rate above is of those delivered")
    print(f"  the function counted {w['counted']} INSERT payloads for the {2 * n} rows (at least once: {2 * n} or more "
          "when all are delivered)")


def print_targets(warm, cold, edits, firsts, deploys):
    """The targets of issue #43 beside the measured values."""
    print("\nTargets (issue #43) beside the measured values:")
    print(f"{'measure':<62}{'target':>10}{'measured':>12}  verdict")

    def line(label, target, value, ok):
        print(f"{label:<62}{target:>10}{value:>12}  {'met' if ok else 'MISSED'}")

    for c, fl, fn in warm:
        for what, ratio in (("req/s floor / functions", fl["rps"] / fn["rps"]), ("p50 functions / floor", fn["p50"] / fl["p50"])):
            line(f"warm overhead, {c} conn{'s' if c > 1 else ''}, {what}", f"<= {OVERHEAD_TARGET}x", f"{ratio:.2f}x",
                 ratio <= OVERHEAD_TARGET)
    # The measure is the first request after a deploy; the others are printed beside it.
    for label, values in (("cold start after a deploy over the management API", deploys),
                          ("cold start after a fresh server start (Deno started too)", cold),
                          ("cold start after an edit of the function", edits),
                          ("cold start, first request to a function not yet called", firsts)):
        for p in (50, 99):
            v = pct(values, p)
            line(f"{label}, p{p}", f"< {COLD_TARGET_MS} ms", f"{v:.0f} ms", v < COLD_TARGET_MS)


def build_kind(binary):
    """What the binary's path says of its build: release figures are the ones to quote."""
    parts = binary.split(os.sep)
    return "DEBUG build" if "debug" in parts else "release build" if "release" in parts else "build unknown"


def rss_mb(pid):
    return field_kb(f"/proc/{pid}/status", "VmRSS") / 1024


def main():
    ensure_wrk()
    for binary, hint in ((SERVER, "run `make build` first (or set BENCH_SERVER)"), (DENO, "run `make setup` first")):
        if not os.path.exists(binary):
            sys.exit(f"{binary} is missing: {hint}")
    # Not under /tmp, which every function may read (as a server's data folder is not).
    data_dir = tempfile.mkdtemp(prefix="bench-functions-", dir="/var/tmp")
    os.chmod(data_dir, 0o755)  # as root, PostgreSQL runs as `postgres`, which must enter it
    functions = os.path.join(data_dir, "functions")
    for name, source in [("hello", HELLO), ("sbread", SB_READ), ("hook", HOOK)] + [(f"idle{i}", HELLO) for i in range(IDLE_WORKERS)]:
        os.makedirs(os.path.join(functions, name))
        with open(os.path.join(functions, name, "index.ts"), "w") as f:
            f.write(source)
    floor_file = os.path.join(data_dir, "floor.ts")
    with open(floor_file, "w") as f:
        f.write(HELLO)
    env = {**os.environ, "DATA_DIR": data_dir, "PORT": str(PORT), "DB_PORT": "0", "WEB_DIR": "/nonexistent",
           "RUST_LOG": "warn", "FUNCTIONS_DIR": functions, "FUNCTIONS_DENO_BIN": DENO, "FUNCTIONS_WORKER_IDLE_SECS": "0",
           "OUTBOX_RETRY_BASE_SECONDS": "1"}
    env.setdefault("DENO_TLS_CA_STORE", "system")  # as the Makefile: npm: imports through a local authority
    server = Server(env, data_dir)
    floor = subprocess.Popen([DENO, "serve", "--quiet", "--no-config", "--host", "127.0.0.1", "--port", str(FLOOR_PORT),
                              floor_file], env={"PATH": os.environ.get("PATH", ""), "NO_COLOR": "1",
                                                "DENO_DIR": os.path.join(data_dir, "floor-cache")},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Cold starts: a fresh server (and Deno child) each time, then the first request.
        cold = []
        for _ in range(STARTS):
            server.start()
            auth = {"apikey": server.keys["anon"], "Authorization": f"Bearer {server.keys['anon']}"}
            cold.append(timed_get("/functions/v1/hello", auth))
            server.stop()
        server.start()
        auth = {"apikey": server.keys["anon"], "Authorization": f"Bearer {server.keys['anon']}"}
        timed_get("/functions/v1/hello", auth)
        edits = []
        for i in range(EDITS):
            with open(os.path.join(functions, "hello", "index.ts"), "w") as f:
                f.write(f"// edit {i}\n" + HELLO)
            edits.append(timed_get("/functions/v1/hello", auth))
        # The cold start: the first request after a deploy (a new version over the
        # management API, served by the running Deno), a second apart like the folder's firsts.
        deploys = []
        for i in range(EDITS):
            deploy(server.keys["service"], "deployed", f"// version {i}\n" + HELLO)
            time.sleep(1)
            deploys.append(timed_get("/functions/v1/deployed", auth))
        for _ in range(100):  # warm-up of both paths
            timed_get("/functions/v1/hello", auth)
            urllib.request.urlopen(f"http://127.0.0.1:{FLOOR_PORT}/", timeout=10).read()

        server.deno = deno_child(server.proc.pid)
        pids = [server.proc.pid] + tree(server.deno)
        lua = headers_lua(auth)
        warm = []
        for c in CONCURRENCIES:
            fl = measured(f"http://127.0.0.1:{FLOOR_PORT}/", c, "", [floor.pid])
            fn = measured(URL + "/functions/v1/hello", c, lua, pids)
            warm.append((c, fl, fn))

        # supabase-js in a function vs. /rest/v1 straight.
        db_url = subprocess.run([SERVER, "db", "url"], env=env, capture_output=True, text=True, check=True).stdout.strip()
        subprocess.run([pg_bin("psql"), "-q", "-c",
                        "create table public.bench_items (id int primary key, name text); "
                        "insert into public.bench_items select g, 'item ' || g from generate_series(1, 100) g; "
                        "grant select on public.bench_items to anon, authenticated; notify pgrst, 'reload schema';",
                        db_url], check=True)
        time.sleep(1)
        start = time.perf_counter()
        try:  # Deno fetches supabase-js from the npm registry here
            status, body = get("/functions/v1/sbread", auth, timeout=300)
        except urllib.error.HTTPError as e:
            status, body = e.code, e.read() + open(os.path.join(data_dir, "server.log"), "rb").read()[-3000:]
        first_sb = (time.perf_counter() - start) * 1000
        if status != 200 or len(json.loads(body)) != 10:
            sys.exit(f"the supabase-js function answered {status}: {body.decode(errors='replace')}")
        npm_dir = os.path.join(data_dir, "functions-runtime", "cache", "npm", "registry.npmjs.org", "@supabase")
        fetched = sorted(os.listdir(npm_dir)) if os.path.isdir(npm_dir) else []
        pids = [server.proc.pid] + tree(server.deno)
        rest = measured(URL + "/rest/v1/bench_items?select=id,name&order=id&limit=10", 8, lua, pids)
        sbjs = measured(URL + "/functions/v1/sbread", 8, lua, pids)

        # Memory: the Deno child with only `hello` and `sbread` booted, then with N more idle workers.
        rss_before = sum(rss_mb(pid) for pid in tree(server.deno))
        firsts = []
        for i in range(IDLE_WORKERS):
            time.sleep(1)  # deploys a second apart: the spare process taken by the last one is back
            firsts.append(timed_get(f"/functions/v1/idle{i}", auth))
        time.sleep(1)
        rss_after = sum(rss_mb(pid) for pid in tree(server.deno))
        floor_rss = rss_mb(floor.pid)

        webhooks = webhook_rates(db_url, auth, server.keys["anon"])

        lanes = os.environ.get("FUNCTIONS_LANES", "true")
        print(f"\nserver: {SERVER} ({build_kind(SERVER)}; FUNCTIONS_LANES={lanes})\ndeno: {subprocess.run([DENO, '--version'], capture_output=True, text=True).stdout.splitlines()[0]}")
        print(f"\nWarm, hello world ({DURATION} s of wrk per row; /functions/v1 with the anon key as Bearer):")
        print(f"{'path':<34}{'conns':>6}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'CPU us/req':>12}{'errors':>8}")
        for c, fl, fn in warm:
            for label, r in (("bare deno serve (floor)", fl), ("/functions/v1/hello", fn)):
                print(f"{label:<34}{c:>6}{r['rps']:>9.0f}{r['p50']:>9.2f}{r['p99']:>9.2f}{r['cpu_us']:>12.0f}{r['errors']:>8}")
            print(f"{'  overhead (functions / floor)':<34}{c:>6}{fl['rps'] / fn['rps']:>8.2f}x{fn['p50'] / fl['p50']:>8.2f}x"
                  f"{fn['p99'] / fl['p99']:>8.2f}x{fn['cpu_us'] / max(fl['cpu_us'], 1):>11.2f}x")
        print("  (CPU: server + Deno child + the function's process for /functions/v1, the deno serve process for the floor; "
              "req/s ratio is floor/functions)")
        print(f"\nCold start, first request to hello:")
        print(f"  after a fresh server start, Deno started by it ({STARTS}): p50 {pct(cold, 50):.0f} ms, p99 {pct(cold, 99):.0f} ms "
              f"(all: {', '.join(f'{v:.0f}' for v in cold)})")
        print(f"  after a deploy over the management API, a second apart ({EDITS}): p50 {pct(deploys, 50):.0f} ms, "
              f"p99 {pct(deploys, 99):.0f} ms")
        print(f"  after an edit of the function ({EDITS}): p50 {pct(edits, 50):.0f} ms, p99 {pct(edits, 99):.0f} ms")
        print(f"  first request to a function not yet called, Deno running, a second apart ({IDLE_WORKERS}): "
              f"p50 {pct(firsts, 50):.0f} ms, p99 {pct(firsts, 99):.0f} ms")
        print(f"\nsupabase-js read of 10 rows (8 connections; first call, npm fetch included: {first_sb:.0f} ms; "
              f"npm packages fetched: {', '.join(fetched) or 'none seen'}):")
        print(f"{'path':<34}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'CPU us/req':>12}{'errors':>8}")
        for label, r in (("/rest/v1 straight", rest), ("supabase-js in a function", sbjs)):
            print(f"{label:<34}{r['rps']:>9.0f}{r['p50']:>9.2f}{r['p99']:>9.2f}{r['cpu_us']:>12.0f}{r['errors']:>8}")
        print(f"{'  ratio (function / straight)':<34}{rest['rps'] / sbjs['rps']:>8.2f}x{sbjs['p50'] / rest['p50']:>8.2f}x"
              f"{sbjs['p99'] / rest['p99']:>8.2f}x{sbjs['cpu_us'] / max(rest['cpu_us'], 1):>11.2f}x")
        print(f"\nMemory (RSS): bare deno serve {floor_rss:.0f} MB; Deno child and its processes (2 functions, the spare if any) {rss_before:.0f} MB, "
              f"with {IDLE_WORKERS} more idle {rss_after:.0f} MB: {(rss_after - rss_before) / IDLE_WORKERS:.1f} MB per idle function")
        print_webhooks(webhooks)
        print_targets(warm, cold, edits, firsts, deploys)
    finally:
        server.stop()
        floor.terminate()
        floor.wait(timeout=30)
        subprocess.run([SERVER, "db", "stop"], env=env, capture_output=True)
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
