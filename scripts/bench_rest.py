#!/usr/bin/env python3
"""make bench-rest: /rest/v1 throughput and latency beside the same SQL run by pgbench.

Starts the release server on a fresh private cluster, loads a small RLS-protected schema,
then for each scenario (GETSingle, GETSingleAnon, GETSingleEmbed, GETList, POSTSingle, POSTBulk):
  * wrk drives /rest/v1 as an authenticated user, or for GETSingleAnon with the anon key alone
    (32 connections, 2 threads, fixed duration);
  * the statement the server generated for that request (taken from its debug log, in a first
    start of the server; the measured runs are of a second start that logs warnings only) is run by
    pgbench with the same connection count, inside the same transaction, after a context
    statement setting what the server sets (role, claims, method, path, the request's headers,
    search_path, the role's own settings, cookies, the request id), every value a bind parameter
    as the server sends it, logged in as the same `authenticator` role: once pipelined as the
    server sends them (context and statement in one round trip, `\startpipeline`, one implicit
    transaction that the pipeline's Sync commits; a read sets `transaction_read_only` in the
    context), the honest twin, and once one statement at a time (between BEGIN and COMMIT).
The REST run and its pipelined twin alternate in BENCH_ROUNDS rounds (default 2) that share
BENCH_SECONDS between them, each side starting once the cluster is quiet (under 3 % of a core for a
second): this machine's speed drifts from minute to minute, and what one run leaves behind
(autovacuum of the rows a write wrote, the request log's last rows, WAL archiving) otherwise lands
in the next one's CPU, the twin's as much as the server's.
Prints requests/s, p50 and p99 for REST and the pipelined twin, their ratio, the sequential
twin's rate, the server's and Postgres's CPU per request, and Postgres's CPU per transaction of
the pipelined twin (the cluster's processes, including the backends pgbench's connections left).
Then the HTTP side's floor: scripts/http-floor (the server's own actix-web, patched actix-http and
allocator, as many workers) answering GETSingle's bytes as a constant, driven by the same wrk, and
its CPU per request beside the server's and what 1.3x of the twin leaves the server.

Both load generators (wrk and pgbench) run at `nice 10`, each in a session of its own whose
scheduling group has that nice value too (`benchlib.yielding`): they share this machine's cores
with the server and Postgres, and at equal priority the p99 measured the scheduler's fairness
between processes more than the system under test (a Postgres backend carrying the pipelines of
several requests lost its turn to wrk's threads for tens of milliseconds). The kernel groups
processes by session (autogroup) and shares the cores fairly between groups, so a nice value
alone did not reach beyond the bench's own group, which held the server too. A client on
another machine takes nothing from them; BENCH_LOADGEN_NICE=0 measures the old way.

With BENCH_BASELINE_SERVER=<another server binary> (e.g. a build of an earlier commit), that
binary runs beside this one, each on its own fresh cluster, and every round measures both, in turn
first and last; a last table gives each scenario's REST req/s and CPU per request after/before: a
change's cost measured in one run, with the machine's drift falling on both alike.
"""
import hashlib, hmac, json, os, re, shutil, signal, subprocess, sys, tempfile, time, urllib.request
from statistics import median

from benchlib import (cluster_cpu_seconds, cpu_seconds, cpu_used, ensure_wrk, pg_bin, wait_backups_idle,
                      wait_cluster_quiet, yielding)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The rental site's Supabase project, whose tables the benchmark reads.
RENTAL_PROJECT = os.path.join(ROOT, "web", "supabase")
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SERVER = os.environ.get("BENCH_SERVER", os.path.join(TARGET, "release", "server"))
# The server's HTTP stack answering a constant (scripts/http-floor): the HTTP side's floor.
FLOOR = os.environ.get("BENCH_FLOOR_SERVER", os.path.join(TARGET, "release", "bench-http-floor"))
PORT, DB_PORT, FLOOR_PORT = 54391, 54392, 54393
BASELINE_PORT, BASELINE_DB_PORT = 54394, 54395
CONNS, THREADS = int(os.environ.get("BENCH_CONNECTIONS", 32)), 2
DURATION = int(os.environ.get("BENCH_SECONDS", 10))
# Each scenario's REST run and its twins alternate in this many rounds of DURATION / ROUNDS seconds
# (sums and pooled figures are printed): this machine's speed drifts from minute to minute, and
# one long run of each side measured the drift as much as the difference.
ROUNDS = max(1, int(os.environ.get("BENCH_ROUNDS", 2)))
# The load generators yield to the server and Postgres (see the module's doc).
LOADGEN = yielding(int(os.environ.get("BENCH_LOADGEN_NICE", "10")))
# The measured runs keep the server's default logging (a line per request at info, the request log
# kept for the dashboard) unless BENCH_RUST_LOG names a level (`warn` was the earlier variant).
MEASURED_LOG = os.environ.get("BENCH_RUST_LOG") or None
# A comma-separated list of scenario names runs only those.
ONLY = set(filter(None, os.environ.get("BENCH_ONLY", "").replace(" ", "").split(",")))
USER_ID = "0b6f0a44-7f6e-4c55-9a36-3c1d2a2b9f10"


def jwt(claims, secret):
    b64 = lambda b: __import__("base64").urlsafe_b64encode(b).rstrip(b"=").decode()
    head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = b64(json.dumps(claims).encode())
    sig = b64(hmac.new(secret.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest())
    return f"{head}.{body}.{sig}"


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else 0.0


def run_wrk(url, headers, method="GET", body=None, seconds=None):
    script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
    script.write(f'wrk.method = "{method}"\n')
    for k, v in headers.items():
        script.write(f'wrk.headers["{k}"] = "{v}"\n')
    if body is not None:
        script.write(f"wrk.body = {json.dumps(body)}\n")
    script.close()
    out = subprocess.run(["wrk", "-t", str(THREADS), "-c", str(CONNS), "-d", f"{seconds or DURATION}s", "--latency", "-s", script.name, url],
                         capture_output=True, text=True, check=True, **LOADGEN).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    def ms(label):
        m = re.search(rf"{label}%\s+([\d.]+)(us|ms|s)", out)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        sys.exit(f"wrk saw {errors.group(1)} error responses for {method} {url}")
    return rps, ms("50"), ms("99")


def run_pgbench(sql_file, conninfo, env, variables, data, seconds=None):
    """pgbench's transactions/s, p50 and p99 in ms, and the cluster's CPU ms per transaction."""
    logdir = tempfile.mkdtemp()
    defines = [arg for k, v in variables.items() for arg in ("-D", f"{k}={v}")]
    cmd = [pg_bin("pgbench"), "-n", "-M", "prepared", "-c", str(CONNS), "-j", str(THREADS), "-T", str(seconds or DURATION),
           *defines, "-f", sql_file, "--log", "--log-prefix", os.path.join(logdir, "tx"), conninfo]
    pg_before = cluster_cpu_seconds(data)
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, **LOADGEN)
    if out.returncode != 0:
        sys.exit(f"pgbench failed: {out.stderr}")
    pg_ms = (cluster_cpu_seconds(data) - pg_before) * 1000
    tps = float(re.search(r"tps = ([\d.]+)", out.stdout).group(1))
    pg_ms /= int(re.search(r"number of transactions actually processed: (\d+)", out.stdout).group(1))
    latencies = []
    for name in os.listdir(logdir):
        with open(os.path.join(logdir, name)) as f:
            latencies.extend(int(line.split()[2]) / 1000.0 for line in f if line.strip())
    shutil.rmtree(logdir)
    return tps, percentile(latencies, 0.5), percentile(latencies, 0.99), pg_ms


def start_server(server_bin, data, log, rust_log, port, db_port):
    """`server_bin` serving on `port` with its cluster under `data` (on `db_port`); the process and
    its keys."""
    env = dict(os.environ, SUPABASE_PROJECT_DIR=os.environ.get("SUPABASE_PROJECT_DIR", RENTAL_PROJECT), DATA_DIR=data, PORT=str(port), DB_PORT=str(db_port), LOG_FORMAT="json",
               DB_POOL_SIZE=str(CONNS), WEB_DIR="/nonexistent")
    env.pop("RUST_LOG", None)
    if rust_log is not None:
        env["RUST_LOG"] = rust_log
    server = subprocess.Popen([server_bin], env=env, stdout=subprocess.PIPE, stderr=log, text=True)
    keys = {}
    while len(keys) < 2:
        line = server.stdout.readline()
        if not line:
            sys.exit("server exited; see " + log.name)
        m = re.match(r"(anon key|service_role key): (\S+)", line)
        if m:
            keys[m.group(1)] = m.group(2)
    return server, keys


def prepare(server_bin, port, db_port):
    """Start `server_bin` on a fresh cluster, load the schema, take each scenario's statement from
    its log and write its twins; the server is left running with the measured settings."""
    data = tempfile.mkdtemp(prefix="bench-rest-")
    os.chmod(data, 0o755)
    log = open(os.path.join(data, "server.log"), "w")
    # Started first with the generated SQL logged (to take each scenario's statement from the log),
    # then again without it for the measured runs: a debug line per request is not the server's
    # cost.
    server, keys = start_server(server_bin, data, log, "warn,server::rest::sql=debug", port, db_port)
    try:
        secret = open(os.path.join(data, "secrets", "jwt_secret")).read().strip()
        password = open(os.path.join(data, "secrets", "db_password")).read().strip()
        pgenv = dict(os.environ, PGPASSWORD=password)
        admin = f"host=127.0.0.1 port={db_port} user=postgres dbname=postgres"
        schema = f"""
        create table public.bench_categories (id int primary key, name text not null);
        create table public.bench_items (id serial primary key, owner uuid not null default auth.uid(),
          category_id int references public.bench_categories(id), name text not null, price numeric(10,2), created_at timestamptz default now());
        alter table public.bench_items enable row level security;
        create policy own_items on public.bench_items for all to authenticated using (owner = auth.uid()) with check (owner = auth.uid());
        create policy anon_reads on public.bench_items for select to anon using (true);
        grant select on public.bench_items to anon;
        insert into public.bench_categories select g, 'category ' || g from generate_series(1, 20) g;
        insert into public.bench_items (owner, category_id, name, price)
          select '{USER_ID}', 1 + g % 20, 'item ' || g, g * 1.5 from generate_series(1, 10000) g;
        analyze; notify pgrst, 'reload schema';"""
        subprocess.run([pg_bin("psql"), "-q", "-v", "ON_ERROR_STOP=1", admin, "-c", schema], env=pgenv, check=True)
        time.sleep(1)
        token = jwt({"sub": USER_ID, "role": "authenticated", "aud": "authenticated", "exp": int(time.time()) + 3600}, secret)
        # Who calls: a signed-in user (their token as Authorization), or anon (the anon key alone).
        anon_payload = keys["anon key"].split(".")[1]
        anon_claims = json.loads(__import__("base64").urlsafe_b64decode(anon_payload + "=" * (-len(anon_payload) % 4)))
        callers = {
            "authenticated": (json.dumps({"sub": USER_ID, "role": "authenticated", "aud": "authenticated"}),
                              {"apikey": keys["anon key"], "Authorization": f"Bearer {token}", "Content-Type": "application/json"}),
            "anon": (json.dumps(anon_claims), {"apikey": keys["anon key"], "Content-Type": "application/json"}),
        }
        base = f"http://127.0.0.1:{port}/rest/v1"
        one = json.dumps({"name": "new item", "category_id": 3, "price": 9.5})
        bulk = json.dumps([{"name": f"bulk {i}", "category_id": 1 + i % 20, "price": i} for i in range(100)])
        scenarios = [
            ("GETSingle", "authenticated", "GET", "/bench_items?id=eq.5000", None, ["5000"]),
            ("GETSingleAnon", "anon", "GET", "/bench_items?id=eq.5000", None, ["5000"]),
            ("GETSingleEmbed", "authenticated", "GET", "/bench_items?select=*,bench_categories(*)&id=eq.5000", None, ["5000"]),
            ("GETList", "authenticated", "GET", "/bench_items?limit=50&order=id", None, ["50"]),
            ("POSTSingle", "authenticated", "POST", "/bench_items", one, None),
            ("POSTBulk", "authenticated", "POST", "/bench_items", bulk, None),
        ]
        auth_pw = hmac.new(secret.encode(), b"authenticator", hashlib.sha256).hexdigest()
        authenticator = f"host=127.0.0.1 port={db_port} user=authenticator dbname=postgres"
        # The server also applies the caller role's own settings (`alter role ... set`), the
        # request's cookies and its request id (as application_name): so does the twin.
        def settings_of(role):
            lines = subprocess.run(
                [pg_bin("psql"), "-qAt", admin, "-c",
                 f"select unnest(setconfig) from pg_db_role_setting where setrole = '{role}'::regrole and setdatabase = 0"],
                env=pgenv, check=True, capture_output=True, text=True).stdout.splitlines()
            return [tuple(kv.split("=", 1)) for kv in lines if "=" in kv]
        settings = {role: settings_of(role) for role in callers}
        prepared = []
        for name, role, method, path, body, params in scenarios:
            claims, headers = callers[role]
            role_settings = settings[role]
            mark = os.path.getsize(log.name)
            req = urllib.request.Request(base + path, data=body.encode() if body else None, method=method, headers=headers)
            with urllib.request.urlopen(req) as res:
                answer = res.read()
                if name == "GETSingle":
                    floor_answer = (answer, res.headers["content-type"], headers)
            time.sleep(0.2)
            with open(log.name) as f:
                f.seek(mark)
                statements = [json.loads(l)["fields"]["sql"] for l in f if '"sql"' in l]
            sql = statements[-1]
            # The server binds an insert's body as a JSON array (a single object is wrapped).
            values = params if params is not None else [body if body.startswith("[") else f"[{body}]"]
            # pgbench sends `:name` variables as bind parameters in prepared mode, as the server does.
            for i in range(len(values), 0, -1):
                sql = sql.replace(f"${i}", f":p{i}")
            request_headers = {"host": f"127.0.0.1:{port}", **{k.lower(): v for k, v in headers.items()}}
            variables = {f"p{i}": v for i, v in enumerate(values, start=1)}
            variables.update(role=role, claims=claims, method=method, path=path.split("?")[0],
                             headers=json.dumps(request_headers), search_path='"public", "extensions"',
                             cookies="{}", request_id="5f053dc5-17c8-4c20-be48-f4fd8854071a")
            variables.update({f"rs{i}": v for i, (_, v) in enumerate(role_settings)})
            own = "".join(f", set_config('{k}', :rs{i}, true)" for i, (k, _) in enumerate(role_settings))
            read_only = method == "GET"
            context = ("select set_config('role', :role, true), set_config('request.jwt.claims', :claims, true), "
                       "set_config('request.method', :method, true), set_config('request.path', :path, true), "
                       "set_config('request.headers', :headers, true)"
                       + (", set_config('transaction_read_only', 'on', true)" if read_only else "")
                       + f", set_config('search_path', :search_path, true){own}, "
                       "set_config('request.cookies', :cookies, true), set_config('application_name', :request_id, true);")
            sequential = os.path.join(data, f"{name}.sql")
            with open(sequential, "w") as f:
                f.write(f"BEGIN {'READ ONLY' if read_only else 'READ WRITE'};\n{context}\n{sql};\nCOMMIT;\n")
            pipelined = os.path.join(data, f"{name}-pipelined.sql")
            with open(pipelined, "w") as f:
                f.write(f"\\startpipeline\n{context}\n{sql};\n\\endpipeline\n")
            prepared.append((name, method, path, body, headers, variables, sequential, pipelined))
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
        server, _ = start_server(server_bin, data, log, MEASURED_LOG, port, db_port)
        return dict(server=server, data=data, base=base, authenticator=authenticator, auth_pw=auth_pw,
                    prepared=prepared, floor_answer=floor_answer)
    except BaseException:
        close(dict(server=server, data=data))
        raise


def close(suite):
    """Stop a suite's server (and with it its cluster) and remove its data."""
    suite["server"].send_signal(signal.SIGTERM)
    suite["server"].wait(timeout=60)
    shutil.rmtree(suite["data"], ignore_errors=True)


def rest_round(suite, path, headers, method, body, seconds):
    """One measured wrk run on a quiet cluster: (req/s, p50, p99, server CPU s, Postgres CPU s,
    requests served) and the seconds waited for quiet."""
    server, data = suite["server"], suite["data"]
    # What the last run left (autovacuum of the rows a write wrote, the request log's last rows,
    # WAL archiving) is nobody's cost here.
    quiet = wait_cluster_quiet(data)
    server_before, pg_before = cpu_seconds([server.pid]), cluster_cpu_seconds(data)
    rps, p50, p99 = run_wrk(suite["base"] + path, headers, method, body, seconds=seconds)
    return (rps, p50, p99, cpu_used(server_before, cpu_seconds([server.pid])),
            cluster_cpu_seconds(data) - pg_before, rps * seconds), quiet


def twin_round(suite, variables, sql_file, seconds=None):
    """One pgbench run of `sql_file` on a quiet cluster ([`run_pgbench`]'s figures) and the seconds
    waited for quiet."""
    quiet = wait_cluster_quiet(suite["data"])
    env = dict(os.environ, PGPASSWORD=suite["auth_pw"])
    return run_pgbench(sql_file, suite["authenticator"], env, variables, suite["data"], seconds), quiet


def measure(suites):
    """Every scenario on every suite, their REST runs and pipelined twins alternating in ROUNDS
    rounds (suite after suite within a round, in turn first and last, so that the machine's drift
    falls on all alike); each suite's rows."""
    rows = [[] for _ in suites]
    seconds = max(1, DURATION // ROUNDS)
    for index, (name, method, path, body, *_) in enumerate(suites[0]["prepared"]):
        if ONLY and name not in ONLY:
            continue
        # A short unmeasured run first: the pool opens its connections and each prepares the
        # statement, as pgbench's connections are open before it starts timing.
        # Each suite's own headers: its own keys and token (each cluster has its own secret).
        headers = [suite["prepared"][index][4] for suite in suites]
        for suite, own in zip(suites, headers):
            run_wrk(suite["base"] + path, own, method, body, seconds=2)
        waited = wait_backups_idle()
        if waited > 3:
            print(f"({name}: waited {waited:.0f} s for the start's backup and WAL archiving to end)", flush=True)
        rest_rounds, twin_rounds = [[] for _ in suites], [[] for _ in suites]
        quiet = 0.0
        for round_ in range(ROUNDS):
            # A, B, then B, A: a drift during the rounds falls on both alike.
            order = list(enumerate(suites))
            for i, suite in order if round_ % 2 == 0 else order[::-1]:
                variables, pipelined = suite["prepared"][index][5], suite["prepared"][index][7]
                rest, waited = rest_round(suite, path, headers[i], method, body, seconds)
                twin, waited_too = twin_round(suite, variables, pipelined, seconds)
                rest_rounds[i].append(rest)
                twin_rounds[i].append(twin)
                quiet += waited + waited_too
        if quiet > 3 * ROUNDS * len(suites):
            print(f"({name}: waited {quiet:.0f} s in all for a quiet cluster before its runs)", flush=True)
        for i, suite in enumerate(suites):
            variables, sequential = suite["prepared"][index][5], suite["prepared"][index][6]
            one_by_one, _ = twin_round(suite, variables, sequential)
            served = sum(r[5] for r in rest_rounds[i])
            # CPU per request over every round; rates averaged over the rounds (of equal length);
            # percentiles the median of the rounds'.
            rest = (served / (seconds * ROUNDS), median([r[1] for r in rest_rounds[i]]),
                    median([r[2] for r in rest_rounds[i]]), sum(r[3] for r in rest_rounds[i]) * 1000 / served,
                    sum(r[4] for r in rest_rounds[i]) * 1000 / served)
            done = sum(t[0] for t in twin_rounds[i])
            twin = (done / ROUNDS, median([t[1] for t in twin_rounds[i]]), median([t[2] for t in twin_rounds[i]]),
                    sum(t[0] * t[3] for t in twin_rounds[i]) / done)
            rows[i].append((name, rest, twin + one_by_one[:1]))
    return rows


def run_floor(answer):
    """The HTTP floor: scripts/http-floor answering GETSingle's bytes, driven by the same wrk with
    the same headers; its requests/s and CPU ms per request."""
    body, content_type, headers = answer
    data = tempfile.mkdtemp(prefix="bench-rest-floor-")
    with open(os.path.join(data, "body"), "wb") as f:
        f.write(body)
    floor = subprocess.Popen([FLOOR, str(FLOOR_PORT), os.path.join(data, "body"), content_type])
    try:
        url = f"http://127.0.0.1:{FLOOR_PORT}/rest/v1/bench_items?id=eq.5000"
        for _ in range(100):
            try:
                urllib.request.urlopen(url).read()
                break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit(f"the HTTP floor ({FLOOR}) did not answer on port {FLOOR_PORT}")
        run_wrk(url, headers, seconds=2)
        before = cpu_seconds([floor.pid])
        rps = run_wrk(url, headers)[0]
        return rps, cpu_used(before, cpu_seconds([floor.pid])) * 1000 / (rps * DURATION)
    finally:
        floor.send_signal(signal.SIGTERM)
        floor.wait(timeout=30)
        shutil.rmtree(data, ignore_errors=True)


def print_floor(rows, floor):
    """The HTTP floor beside GETSingle and what issue #45's 1.3x leaves the server."""
    single = next((r for r in rows if r[0] == "GETSingle"), None)
    if single is None:
        return
    _, (_, _, _, server_ms, pg_ms), (_, _, _, twin_pg_ms, _) = single
    floor_rps, floor_ms = floor
    budget = 1.3 * twin_pg_ms - pg_ms
    print(f"\nHTTP floor (scripts/http-floor: the same actix-web answering GETSingle's bytes as a constant, same wrk):"
          f" {floor_rps:.0f} req/s, {floor_ms:.3f} ms CPU per request")
    print(f"GETSingle: server {server_ms:.3f} ms = {server_ms / floor_ms:.2f}x the floor; within 1.3x of the twin's"
          f" {twin_pg_ms:.3f} ms with this run's Postgres {pg_ms:.3f} ms leaves the server {budget:.3f} ms"
          f" ({budget / floor_ms:.2f}x the floor); the floor plus the twin's own Postgres is"
          f" {(floor_ms + twin_pg_ms) / twin_pg_ms:.2f}x the twin")


def print_table(title, rows):
    request_log = os.environ.get("REQUEST_LOG_ENABLED", "true")
    print(f"\nserver settings: RUST_LOG={MEASURED_LOG or 'unset (the default: info, a line per request)'}, LOG_FORMAT=json, "
          f"REQUEST_LOG_ENABLED={request_log}, BACKUP_ENABLED={os.environ.get('BACKUP_ENABLED', 'unset (the default: on)')}, "
          f"DB_POOL_SIZE={CONNS}, DB_SHARED_CONNECTIONS={os.environ.get('DB_SHARED_CONNECTIONS', 'unset (4)')}, "
          f"DB_SHARED_READ_DEPTH={os.environ.get('DB_SHARED_READ_DEPTH', 'unset (16)')}")
    print(f"\n{title}: /rest/v1 vs the same SQL through pgbench, pipelined as the server sends it and one statement at a time"
          f" ({CONNS} connections, {DURATION}s each in {ROUNDS} alternating rounds, signed in unless the name says Anon, RLS on)")
    print(f"{'scenario':<16}{'REST req/s':>12}{'p50 ms':>9}{'p99 ms':>9}{'pipelined tps':>15}{'p50 ms':>9}{'p99 ms':>9}"
          f"{'ratio':>8}{'sequential tps':>16}{'ratio':>8}{'server CPU ms/req':>19}{'pg CPU ms/req':>15}"
          f"{'twin pg CPU ms/tx':>19}")
    for name, (rps, p50, p99, server_ms, pg_ms), (tps, b50, b99, twin_pg_ms, seq) in rows:
        print(f"{name:<16}{rps:>12.0f}{p50:>9.2f}{p99:>9.2f}{tps:>15.0f}{b50:>9.2f}{b99:>9.2f}{rps / tps:>8.2f}"
              f"{seq:>16.0f}{rps / seq:>8.2f}{server_ms:>19.3f}{pg_ms:>15.3f}{twin_pg_ms:>19.3f}")


def main():
    ensure_wrk()
    baseline = os.environ.get("BENCH_BASELINE_SERVER")
    # With a baseline, both servers run side by side, each on its own cluster, and each round
    # measures one after the other.
    suites = [prepare(SERVER, PORT, DB_PORT)]
    try:
        if baseline:
            suites.insert(0, prepare(baseline, BASELINE_PORT, BASELINE_DB_PORT))
        results = measure(suites)
    finally:
        for suite in suites:
            close(suite)
    answer = suites[-1]["floor_answer"]
    if baseline:
        before, after = results
        print_table(f"before ({baseline})", before)
        print_table(f"after ({SERVER})", after)
        # Each REST rate is also divided by its own pgbench twin, measured in the same rounds.
        # CPU per request (server and Postgres together) is the steady measure: requests per
        # second swing with whatever else the machine does meanwhile.
        print("\nafter / before (measured in alternating rounds)")
        print(f"{'scenario':<16}{'before req/s':>14}{'after req/s':>13}{'after/before':>14}"
              f"{'before CPU ms/req':>19}{'after CPU ms/req':>18}{'CPU after/before':>18}")
        for (name, b, _), (_, a, _) in zip(before, after):
            b_cpu, a_cpu = b[3] + b[4], a[3] + a[4]
            print(f"{name:<16}{b[0]:>14.0f}{a[0]:>13.0f}{a[0] / b[0]:>14.2f}{b_cpu:>19.3f}{a_cpu:>18.3f}{a_cpu / b_cpu:>18.2f}")
    else:
        rows = results[0]
        print_table("this build", rows)
    if not ONLY or "GETSingle" in ONLY:
        print_floor(after if baseline else rows, run_floor(answer))


if __name__ == "__main__":
    main()
