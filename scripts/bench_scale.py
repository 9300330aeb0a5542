#!/usr/bin/env python3
"""make bench-scale: /rest/v1 GETSingle and POSTSingle with 1, 2 and 3 server instances on one
database, directly and through PgBouncer in transaction mode, reads on a streaming replica, and
the cost of /metrics, all in one run, as ratios to one instance connected directly.

Starts a private primary cluster (`server db start`), a hot standby cloned from it with
pg_basebackup, and Debian's PgBouncer (transaction mode) in front of the primary. Each
configuration starts its instances (release build), warms them for 2 s, then wrk drives them
together: one wrk per instance, the connections shared out, requests per second summed and the
worst p99 kept. The configurations take turns, BENCH_ROUNDS times (3), and each figure is the
median of its rounds: this machine's speed drifts from one minute to the next. All of it runs on this one machine, so more instances share the same cores:
the table shows what several instances cost or give here, not what several machines would.
"""
import json, os, re, secrets, shutil, signal, subprocess, sys, tempfile, time, urllib.request

from benchlib import cpu_seconds, cpu_used, ensure_wrk, headers_lua, pg_bin

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SERVER = os.environ.get("BENCH_SERVER", os.path.join(TARGET, "release", "server"))
CONNS = int(os.environ.get("BENCH_CONNECTIONS", 32))
DURATION = int(os.environ.get("BENCH_SECONDS", 6))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", 3))
BASE_PORT = 54410
AS_POSTGRES = {"user": "postgres"} if os.geteuid() == 0 else {}


def wrk(url, headers, method, body, conns, threads):
    script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
    script.write(f'wrk.method = "{method}"\n' + headers_lua(headers))
    if body is not None:
        script.write(f"wrk.body = {json.dumps(body)}\n")
    script.close()
    return subprocess.Popen(["wrk", "-t", str(threads), "-c", str(conns), "-d", f"{DURATION}s", "--latency", "-s", script.name, url],
                            stdout=subprocess.PIPE, text=True)


def parse(out):
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    m = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    p99 = float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, p99, int(non2xx.group(1)) if non2xx else 0


def psql(url, sql):
    subprocess.run([pg_bin("psql"), "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql], check=True, capture_output=True)


def start_instances(n, db_url, secret, extra):
    procs = []
    for i in range(n):
        port = BASE_PORT + i
        env = dict(os.environ, DATABASE_URL=db_url, JWT_SECRET=secret, PORT=str(port), HOST="127.0.0.1",
                   DATA_DIR=tempfile.mkdtemp(prefix="scale-data-"), WEB_DIR="/nonexistent", RUST_LOG="warn",
                   OUTBOX_ENABLED="false", **extra)
        proc = subprocess.Popen([SERVER], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        anon = None
        while anon is None:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"instance {i} did not start")
            m = re.match(r"anon key: (\S+)", line)
            if m:
                anon = m.group(1)
        procs.append((proc, f"http://127.0.0.1:{port}", anon))
    return procs


def stop(procs):
    for proc, _, _ in procs:
        proc.send_signal(signal.SIGTERM)
    for proc, _, _ in procs:
        proc.wait(timeout=60)


def measure(procs, method, path, body):
    n = len(procs)
    runs = []
    pids = [proc.pid for proc, _, _ in procs]
    before = cpu_seconds(pids)
    for proc, url, anon in procs:
        headers = {"apikey": anon, "Content-Type": "application/json"}
        runs.append(wrk(url + "/rest/v1" + path, headers, method, body, max(1, CONNS // n), 1 if n > 1 else 2))
    results = [parse(r.communicate()[0]) for r in runs]
    rps = sum(r[0] for r in results)
    # The servers' CPU per request: steadier than requests per second on a shared machine.
    cpu_us = cpu_used(before, cpu_seconds(pids)) * 1e6 / max(1.0, rps * DURATION)
    return rps, max(r[1] for r in results), sum(r[2] for r in results), cpu_us


def warm(procs):
    for _, url, anon in procs:
        req = urllib.request.Request(url + "/rest/v1/scale_items?id=eq.1", headers={"apikey": anon})
        urllib.request.urlopen(req).read()
    time.sleep(0.5)


def main():
    if not os.path.exists(SERVER):
        raise SystemExit(f"no server at {SERVER}: run `cargo build --release -p server`")
    ensure_wrk()
    pgbouncer = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    if not os.path.exists(pgbouncer):
        subprocess.run(["apt-get", "install", "-y", "-qq", "pgbouncer"], check=True, capture_output=True)
    work = tempfile.mkdtemp(prefix="bench-scale-")
    os.chmod(work, 0o755)
    primary_dir = os.path.join(work, "primary")
    cluster_url = subprocess.run([SERVER, "db", "start"], env=dict(os.environ, DATA_DIR=primary_dir, DB_PORT="0", RUST_LOG="warn"),
                                 capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    socket_dir = urllib.parse.unquote(re.search(r"host=([^&]+)", cluster_url).group(1))
    replica, bouncer = None, None
    try:
        psql(cluster_url, "create database scale")
        db_url = cluster_url.replace("/postgres?", "/scale?")
        secret = secrets.token_hex(32)
        subprocess.run([SERVER, "migrate"], env=dict(os.environ, DATABASE_URL=db_url, JWT_SECRET=secret, RUST_LOG="warn"),
                       check=True, capture_output=True)
        psql(db_url, """create table public.scale_items (id serial primary key, name text not null, price numeric(10,2));
            insert into public.scale_items (name, price) select 'item ' || g, g from generate_series(1, 10000) g;
            grant select, insert on public.scale_items to anon; grant usage on sequence public.scale_items_id_seq to anon;
            """)
        psql(db_url, "vacuum analyze")
        psql(db_url, "checkpoint")
        # The replica: a hot standby cloned from the primary, on its own socket directory.
        rdir, rrun = os.path.join(work, "replica"), os.path.join(work, "replica-run")
        os.makedirs(rrun)
        if AS_POSTGRES:
            shutil.chown(work, "postgres")
            shutil.chown(rrun, "postgres")
        subprocess.run([pg_bin("pg_basebackup"), "-D", rdir, "-R", "-X", "stream", "-c", "fast", "-h", socket_dir, "-U", "postgres"],
                       check=True, capture_output=True, **AS_POSTGRES)
        replica = subprocess.Popen([pg_bin("postgres"), "-D", rdir, "-c", f"unix_socket_directories={rrun}", "-c", "listen_addresses=",
                                    "-c", "hot_standby=on", "-c", "shared_preload_libraries="],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **AS_POSTGRES)
        replica_url = f"postgresql:///scale?user=postgres&host={urllib.parse.quote(rrun, safe='')}"
        for _ in range(300):
            if subprocess.run([pg_bin("psql"), replica_url, "-Atc", "select 1"], capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        # PgBouncer in transaction mode in front of the primary.
        bport = BASE_PORT + 50
        with open(os.path.join(work, "users.txt"), "w") as f:
            f.write('"postgres" ""\n"authenticator" ""\n')
        with open(os.path.join(work, "pgbouncer.ini"), "w") as f:
            f.write(f"[databases]\n* = host={socket_dir}\n[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {bport}\n"
                    f"unix_socket_dir =\nauth_type = trust\nauth_file = {work}/users.txt\npool_mode = transaction\n"
                    "default_pool_size = 20\nmax_client_conn = 1000\nserver_reset_query =\nignore_startup_parameters = extra_float_digits\n")
        for name in ("users.txt", "pgbouncer.ini"):
            os.chmod(os.path.join(work, name), 0o644)
        bouncer = subprocess.Popen([pgbouncer] + (["-u", "postgres"] if AS_POSTGRES else []) + [os.path.join(work, "pgbouncer.ini")],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
        pooled = {"DATABASE_URL": f"postgresql://postgres@127.0.0.1:{bport}/scale", "DATABASE_DIRECT_URL": db_url,
                  "DB_PREPARED_STATEMENTS": "false"}
        configs = [
            ("1 instance, direct", 1, {}),
            ("2 instances, direct", 2, {}),
            ("3 instances, direct", 3, {}),
            ("1 instance, PgBouncer", 1, pooled),
            ("3 instances, PgBouncer", 3, pooled),
            ("1 instance, reads on the replica", 1, {"DATABASE_READ_URL": replica_url}),
            ("1 instance, /metrics on", 1, {"METRICS_TOKEN": secrets.token_hex(16)}),
        ]
        only = [w.strip() for w in os.environ.get("BENCH_ONLY", "").split(",") if w.strip()]
        if only:  # the baseline, and the configurations whose label holds one of the words
            configs = configs[:1] + [c for c in configs[1:] if any(w in c[0] for w in only)]
        one = json.dumps({"name": "new item", "price": 9.5})
        runs = {label: [] for label, _, _ in configs}
        for round_ in range(ROUNDS):
            for label, n, extra in configs:
                env = dict(extra)
                url = env.pop("DATABASE_URL", db_url)
                procs = start_instances(n, url, secret, env)
                try:
                    warm(procs)
                    measure(procs, "GET", "/scale_items?id=eq.5000", None)  # warm-up run, not counted
                    get = measure(procs, "GET", "/scale_items?id=eq.5000", None)
                    post = measure(procs, "POST", "/scale_items", one)
                finally:
                    stop(procs)
                runs[label].append((get, post))
                print(f"  round {round_ + 1}, {label}: GET {get[0]:,.0f}/s, POST {post[0]:,.0f}/s", file=sys.stderr)
        median = lambda values: sorted(values)[len(values) // 2]
        rows = []
        for label, _, _ in configs:
            gets, posts = [g for g, _ in runs[label]], [p for _, p in runs[label]]
            rows.append((label, tuple(median([g[i] for g in gets]) for i in range(4)),
                         tuple(median([p[i] for p in posts]) for i in range(4))))
        base_get, base_post = rows[0][1][0], rows[0][2][0]
        print(f"\n/rest/v1 with several instances on this machine ({os.cpu_count()} cores; {CONNS} connections in all, "
              f"{DURATION}s each, median of {ROUNDS} rounds; anon; ratios to one instance connected directly)\n")
        print("| configuration | GETSingle req/s | p99 ms | ratio | server CPU µs/req | POSTSingle req/s | p99 ms | ratio | server CPU µs/req | non-2xx |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for label, get, post in rows:
            print(f"| {label} | {get[0]:,.0f} | {get[1]:.1f} | {get[0] / base_get:.2f}x | {get[3]:.0f} | {post[0]:,.0f} | {post[1]:.1f} | "
                  f"{post[0] / base_post:.2f}x | {post[3]:.0f} | {get[2] + post[2]} |")
    finally:
        if bouncer:
            bouncer.terminate()
            bouncer.wait()
        if replica:
            replica.send_signal(signal.SIGINT)
            replica.wait()
        subprocess.run([SERVER, "db", "stop"], env=dict(os.environ, DATA_DIR=primary_dir, RUST_LOG="warn"), capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    import urllib.parse
    main()
