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
    of the bare `deno serve`.
Load is wrk on 127.0.0.1 only, bounded in time. Not a test: numbers vary by machine.
"""
import json, os, re, shutil, statistics, subprocess, sys, tempfile, time, urllib.error, urllib.request

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
    for name, source in [("hello", HELLO), ("sbread", SB_READ)] + [(f"idle{i}", HELLO) for i in range(IDLE_WORKERS)]:
        os.makedirs(os.path.join(functions, name))
        with open(os.path.join(functions, name, "index.ts"), "w") as f:
            f.write(source)
    floor_file = os.path.join(data_dir, "floor.ts")
    with open(floor_file, "w") as f:
        f.write(HELLO)
    env = {**os.environ, "DATA_DIR": data_dir, "PORT": str(PORT), "DB_PORT": "0", "WEB_DIR": "/nonexistent",
           "RUST_LOG": "warn", "FUNCTIONS_DIR": functions, "FUNCTIONS_DENO_BIN": DENO, "FUNCTIONS_WORKER_IDLE_SECS": "0"}
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

        print(f"\nserver: {SERVER}\ndeno: {subprocess.run([DENO, '--version'], capture_output=True, text=True).stdout.splitlines()[0]}")
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
        print("\nTargets (issue #43): warm overhead within 1.3x of bare Deno, cold start under 150 ms.")
    finally:
        server.stop()
        floor.terminate()
        floor.wait(timeout=30)
        subprocess.run([SERVER, "db", "stop"], env=env, capture_output=True)
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
