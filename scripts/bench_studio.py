#!/usr/bin/env python3
"""make bench-studio: the dashboard's table editor on a large table, beside psql (the floor).

Starts the server (release by default; BENCH_SERVER=<binary> for another) on a fresh private
cluster, loads `public.bench_rows` with BENCH_STUDIO_ROWS rows (1,000,000 by default; an index on
`score`), adds an operator with `server studio operators add`, signs in over HTTP (the session
cookie, as the browser holds it), then times, from the request to the last byte of the answer
on a kept-alive connection, four pages of 200 rows of `GET /studio/api/tables/public/bench_rows/rows`:

  * the first page (by primary key);
  * a page deep in the table (a keyset page after 90 % of the ids);
  * a filtered page (`score = 7`, which the index finds);
  * a page sorted on the indexed column (`score desc`, keyset on `(score, id)`).

Beside each, psql runs the same query on the same cluster over its Unix socket: the statement
the table editor's builder writes (`row_to_json` of each row, the values inlined where the
server binds them), timed by psql's `\\timing` (the floor: what the dashboard adds is its HTTP,
session check, catalog read and JSON answer). Medians of BENCH_STUDIO_RUNS runs (30) after a
warm-up. Then the studio's JavaScript for its first screen (what `studio/dist/index.html` loads:
its scripts and module preloads), gzipped. Then Lighthouse (web/bench's, installed from the npm
registry by `make bench-studio`, in Debian's Chromium, driven by web/bench/lighthouse-url.mjs as
`make bench-web` drives it) on the table editor's page of the same table,
`/studio/tables/public/bench_rows`, signed in: the operator's session cookie is sent with every
request the page makes (Lighthouse's `extraHeaders`; the page only reads, so no CSRF header), and
the run counts only if the page's rows request was answered 200. Performance and accessibility,
median of BENCH_STUDIO_LIGHTHOUSE_RUNS (3) runs, with Lighthouse's mobile default (simulated slow
4G, 4x CPU slowdown) and its desktop preset (the operator's usual screen); BENCH_STUDIO_LIGHTHOUSE=0
skips it.
"""
import gzip, json, os, re, shutil, socket, statistics, subprocess, sys, tempfile, time, urllib.parse
import http.client

from benchlib import pg_bin

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RENTAL_PROJECT = os.path.join(ROOT, "web", "supabase")
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SERVER = os.environ.get("BENCH_SERVER", os.path.join(TARGET, "release", "server"))
ROWS = int(os.environ.get("BENCH_STUDIO_ROWS", 1_000_000))
RUNS = int(os.environ.get("BENCH_STUDIO_RUNS", 30))
PAGE = 200
EMAIL, PASSWORD = "bench@studio.local", "bench-studio-password"
DIST = os.path.join(ROOT, "studio", "dist")
LIGHTHOUSE_DRIVER = os.path.join(ROOT, "web", "bench", "lighthouse-url.mjs")
LIGHTHOUSE_MODULES = os.path.join(ROOT, "web", "bench", "node_modules", "lighthouse")
LIGHTHOUSE = os.environ.get("BENCH_STUDIO_LIGHTHOUSE", "1") != "0"
LIGHTHOUSE_RUNS = int(os.environ.get("BENCH_STUDIO_LIGHTHOUSE_RUNS", 3))

SETUP = f"""
create table public.bench_rows (
  id bigint primary key,
  name text not null,
  score int not null,
  created_at timestamptz not null,
  note text
);
insert into public.bench_rows
  select i, 'row ' || i, (i::bigint * 7919 % 1000)::int, timestamptz '2026-01-01' + i * interval '1 second',
         case when i % 3 = 0 then null else md5(i::text) end
  from generate_series(1, {ROWS}) i;
create index bench_rows_score_idx on public.bench_rows (score);
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def psql(conn, sql, *extra):
    out = subprocess.run([pg_bin("psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", *extra, conn, "-c", sql],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"psql failed: {out.stderr}")
    return out.stdout.strip()


def psql_ms(conn, sql):
    """The median of psql's `\\timing` for RUNS runs of `sql` in one session (after one warm-up)."""
    script = "\\timing on\n" + "".join(f"{sql};\n" for _ in range(RUNS + 1))
    out = subprocess.run([pg_bin("psql"), "-X", "-q", "-o", "/dev/null", "-v", "ON_ERROR_STOP=1", conn],
                         input=script, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"psql failed: {out.stderr}")
    times = [float(t) for t in re.findall(r"Time: ([\d.]+) ms", out.stdout)]
    if len(times) != RUNS + 1:
        sys.exit(f"psql printed {len(times)} timings, not {RUNS + 1}:\n{out.stdout[-500:]}")
    return statistics.median(times[1:])


class Dashboard:
    """A signed-in operator's kept-alive connection to /studio/api."""

    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        body = json.dumps({"email": EMAIL, "password": PASSWORD})
        self.conn.request("POST", "/studio/api/signin", body, {"content-type": "application/json"})
        res = self.conn.getresponse()
        res.read()
        if res.status != 200:
            sys.exit(f"sign-in refused: {res.status}")
        self.cookie = res.getheader("set-cookie").split(";")[0]

    def get(self, path):
        self.conn.request("GET", path, headers={"cookie": self.cookie, "accept": "application/json"})
        res = self.conn.getresponse()
        body = res.read()
        if res.status != 200:
            sys.exit(f"GET {path}: {res.status} {body[:300]!r}")
        return json.loads(body)

    def rows(self, spec):
        return self.get("/studio/api/tables/public/bench_rows/rows?q=" + urllib.parse.quote(json.dumps(spec)))

    def rows_ms(self, spec):
        """The median time from the request to the answer's last byte, and the rows of one answer."""
        first = self.rows(spec)  # warm-up
        times = []
        for _ in range(RUNS):
            started = time.perf_counter()
            self.rows(spec)
            times.append((time.perf_counter() - started) * 1000)
        return statistics.median(times), first


def first_screen_js():
    """The gzipped bytes of the scripts index.html loads (entry and module preloads), and their count."""
    index = os.path.join(DIST, "index.html")
    if not os.path.exists(index):
        return None
    html = open(index).read()
    srcs = re.findall(r'<script[^>]+src="([^"]+\.js)"', html) + re.findall(r'<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"', html)
    total = 0
    for src in dict.fromkeys(srcs):
        path = os.path.join(DIST, src.split("/studio/", 1)[-1].lstrip("/"))
        with open(path, "rb") as f:
            total += len(gzip.compress(f.read(), 9))
    return total, len(set(srcs))


TABLE_EDITOR = "/studio/tables/public/bench_rows"


def build_kind(binary):
    """What the binary's path says of its build: release figures are the ones to quote."""
    parts = binary.split(os.sep)
    return "DEBUG build" if "debug" in parts else "release build" if "release" in parts else "build unknown"


def lighthouse_scores(port, cookie):
    """Lighthouse's scores of the table editor, signed in with `cookie` (passed in the driver's
    environment, never on its command line), from web/bench/lighthouse-url.mjs's JSON line."""
    env = dict(os.environ, LIGHTHOUSE_COOKIE=cookie, LIGHTHOUSE_RUNS=str(LIGHTHOUSE_RUNS),
               LIGHTHOUSE_EXPECT="/studio/api/tables/public/bench_rows/rows")
    out = subprocess.run(["node", LIGHTHOUSE_DRIVER, f"http://127.0.0.1:{port}{TABLE_EDITOR}"], env=env,
                         capture_output=True, text=True)
    lines = out.stdout.strip().splitlines()
    if not lines:
        sys.exit(f"Lighthouse failed: {out.stderr[-2000:]}")
    return json.loads(lines[-1])


def print_lighthouse(result):
    print(f"\nLighthouse on the table editor ({TABLE_EDITOR}, signed in, {ROWS:,} rows; median of {result['runs']} runs)")
    print(f"{'preset':<44}{'perf':>6}{'a11y':>6}{'FCP ms':>9}{'LCP ms':>9}{'TBT ms':>9}{'CLS':>7}{'rows requests':>15}")
    labels = {"mobile": "mobile (slow 4G, 4x CPU slowdown, phone)", "desktop": "desktop (dense 4G, 1350x940)"}
    for preset, s in result["presets"].items():
        if "error" in s:
            print(f"{labels.get(preset, preset):<44}  not measured: {s['error']} (after {s['completed']} complete runs)")
            continue
        print(f"{labels.get(preset, preset):<44}{s['perf']:>6}{s['a11y']:>6}{s['fcp']:>9.0f}{s['lcp']:>9.0f}"
              f"{s['tbt']:>9.0f}{s['cls']:>7.3f}{s['expected']:>15}")
        if s["failed"]:
            print(f"  {preset}: accessibility audits not passed in some run: {', '.join(s['failed'])}")
    print("  (rows requests: the page's GETs of /studio/api/tables/public/bench_rows/rows during the run, median)")
    if all("error" in s for s in result["presets"].values()):
        sys.exit("Lighthouse could not finish any preset")


def main():
    if not os.path.exists(SERVER):
        sys.exit(f"no server binary at {SERVER} (make build, or BENCH_SERVER=...)")
    if LIGHTHOUSE and not os.path.isdir(LIGHTHOUSE_MODULES):
        sys.exit("Lighthouse is not installed in web/bench/node_modules: `make bench-studio` installs it "
                 "(or `cd web/bench && npm ci`); BENCH_STUDIO_LIGHTHOUSE=0 skips it")
    data = tempfile.mkdtemp(prefix="bench-studio-")
    os.chmod(data, 0o755)
    port = free_port()
    env = dict(os.environ, SUPABASE_PROJECT_DIR=os.environ.get("SUPABASE_PROJECT_DIR", RENTAL_PROJECT), DATA_DIR=data,
               DB_PORT="0", PORT=str(port), RUST_LOG="warn", WEB_DIR="/nonexistent", BACKUP_ENABLED="false")
    server = None
    try:
        subprocess.run([SERVER, "db", "start"], env=env, check=True, capture_output=True)
        subprocess.run([SERVER, "migrate"], env=env, check=True, capture_output=True)
        subprocess.run([SERVER, "db", "start"], env=env, check=True, capture_output=True)
        conn = f"postgresql:///postgres?user=postgres&host={data}/pg-run"
        started = time.time()
        psql(conn, SETUP)
        psql(conn, "vacuum analyze public.bench_rows")
        print(f"loaded {ROWS:,} rows in {time.time() - started:.1f} s", flush=True)
        subprocess.run([SERVER, "studio", "operators", "add", EMAIL, "--password", PASSWORD], env=env, check=True,
                       capture_output=True)
        log = open(os.path.join(data, "server.log"), "w")
        server = subprocess.Popen([SERVER], env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)
        for _ in range(600):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if server.poll() is not None:
                    sys.exit("the server exited:\n" + open(log.name).read()[-2000:])
                time.sleep(0.1)
        dash = Dashboard(port)

        deep_id = ROWS * 9 // 10
        select = "select row_to_json(t)::text from public.bench_rows t"
        scenarios = [
            ("first page", {"limit": PAGE}, f"{select} order by t.id limit {PAGE + 1}"),
            (f"deep page (after id {deep_id:,})", {"limit": PAGE, "after": {"id": deep_id}},
             f"{select} where (t.id) > ({deep_id}) order by t.id limit {PAGE + 1}"),
            ("filtered page (score = 7)", {"limit": PAGE, "filters": [{"column": "score", "op": "eq", "value": 7}]},
             f"{select} where t.score = 7 order by t.id limit {PAGE + 1}"),
            ("sorted on an index (score desc)", {"limit": PAGE, "sort": [{"column": "score", "desc": True}]},
             f"{select} order by t.score desc, t.id desc limit {PAGE + 1}"),
        ]
        print(f"\nStudio table editor on {ROWS:,} rows, {PAGE} rows a page: median ms of {RUNS} runs ({build_kind(SERVER)} at {SERVER})")
        print(f"{'page':<36}{'dashboard API':>15}{'psql (floor)':>14}{'ratio':>8}{'paging':>9}{'rows':>6}")
        for label, spec, sql in scenarios:
            api_ms, answer = dash.rows_ms(spec)
            floor_ms = psql_ms(conn, sql)
            rows = len(answer["rows"])
            print(f"{label:<36}{api_ms:>15.2f}{floor_ms:>14.2f}{api_ms / floor_ms:>8.1f}{answer['paging']:>9}{rows:>6}")
            if rows == 0:
                sys.exit(f"{label}: no rows came back")

        js = first_screen_js()
        if js is None:
            print("\nstudio JavaScript: studio/dist is not built (make studio)")
        else:
            print(f"\nstudio JavaScript for the first screen: {js[0] / 1024:.1f} kB gzipped ({js[1]} files: entry and module preloads)")
        if LIGHTHOUSE:
            print_lighthouse(lighthouse_scores(port, dash.cookie))
        else:
            print("\nLighthouse: skipped (BENCH_STUDIO_LIGHTHOUSE=0)")
    finally:
        if server:
            server.terminate()
            server.wait(timeout=30)
        subprocess.run([SERVER, "db", "stop"], env=env, capture_output=True)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
