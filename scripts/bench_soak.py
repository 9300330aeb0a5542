#!/usr/bin/env python3
"""make bench-soak: a mixed workload held for minutes, with the memory of the server and of PostgreSQL.

Starts the release server on a fresh private cluster seeded with the demo data (`server seed`),
sign-in rate limits off, then:
  * capacity: ~15 s of a fixed mix at full speed with 8 closed-loop workers -> ops/s per kind.
    The mix: anonymous REST read (GET /vehicles), authenticated REST read (the demo customer's
    bookings with their vehicle), anonymous REST write (a contact message), password sign-in,
    64 KB storage upload (service key, upsert) and public download;
  * soak: the same mix open-loop at 80 % of that capacity for BENCH_SOAK_SECONDS (default 240):
    requests leave on a fixed schedule whatever the answers, and latency counts from the
    scheduled time, so queueing shows. Answers are counted by kind and HTTP status, connection
    errors apart;
  * memory at start, middle and end of the soak and after 30 s idle: the server's RSS, the sum
    of Pss over every process of the cluster, and the largest backend's anonymous memory;
  * the largest anonymous REST GET the default limits accept (50 embeds, depth 8, 500 select
    items, 1,000 `in` values, 200 filters, under 16 KiB), run 20 times 4 at a time while every
    backend's anonymous memory and the server's RSS are sampled every 5 ms; the same request
    with a 51st embed must be refused with 400.
Not a test: it prints numbers and exits non-zero only when the server does not start.
SERVER_BIN runs another binary; the load generator shares the machine's cores.
"""
import collections, concurrent.futures, http.client, json, os, random, shutil, signal, socket, subprocess, sys, tempfile, threading, time

from benchlib import cluster_pids, field_kb, start_seeded_server
from benchlib import cpu_seconds as benchlib_cpu_seconds

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The rental site's Supabase project, whose tables the benchmark reads.
RENTAL_PROJECT = os.path.join(ROOT, "web", "supabase")
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SERVER = os.environ.get("SERVER_BIN", os.path.join(TARGET, "release", "server"))
PORT, DB_PORT = 54411, 54412
SOAK_SECONDS = float(os.environ.get("BENCH_SOAK_SECONDS", 240))
CAPACITY_SECONDS, WORKERS, LOAD, IDLE_SECONDS = 15, 8, 0.8, 30
DEMO_EMAIL, PASSWORD = "client@kinshasa-auto.test", "soak-password-1"
MIX = [("anon read", 35), ("auth read", 20), ("rest write", 10), ("sign-in", 5), ("upload", 10), ("download", 20)]
OBJECT = os.urandom(64 * 1024)
MB = 1024.0


class Client:
    """Keep-alive HTTP/1.1 connections, one per thread; returns (status, body) or None on a connection error."""

    def __init__(self):
        self.local = threading.local()

    def call(self, method, path, headers, body=None):
        for attempt in range(2):
            conn = getattr(self.local, "conn", None)
            reused = conn is not None
            if conn is None:
                conn = self.local.conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
            try:
                conn.request(method, path, body=body, headers=headers)
                res = conn.getresponse()
                return res.status, res.read()
            except (OSError, http.client.HTTPException):
                conn.close()
                self.local.conn = None
                if not reused or attempt:  # a reused connection the server closed gets one retry
                    return None


CLIENT = Client()


# --- memory ------------------------------------------------------------------------------------

def memory(server_pid, data):
    """Pss counts shared_buffers once; Pss_Anon counts pages a fork still shares with the postmaster once."""
    rollups = [f"/proc/{pid}/smaps_rollup" for pid in cluster_pids(data)]
    return {"server RSS": field_kb(f"/proc/{server_pid}/status", "VmRSS"),
            "postgres Pss (all)": sum(field_kb(r, "Pss") for r in rollups),
            "postgres Pss_Anon (all)": sum(field_kb(r, "Pss_Anon") for r in rollups),
            "largest backend Anonymous": max((field_kb(r, "Anonymous") for r in rollups[1:]), default=0),
            "processes": len(rollups)}


def cpu_seconds(pids):
    return sum(benchlib_cpu_seconds(pids).values())


# --- server ------------------------------------------------------------------------------------

def port_free(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def start_server(data, env):
    return start_seeded_server(SERVER, ROOT, data, env, lambda: (CLIENT.call("GET", "/health/ready", {}) or (0,))[0] == 200)


def stop_server(proc, env):
    if proc and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    subprocess.run([SERVER, "db", "stop"], env=env, capture_output=True)


# --- the workload ------------------------------------------------------------------------------

class Workload:
    """Prepared accounts and keys, and one function per kind of operation."""

    def __init__(self, anon, service):
        self.counter = iter(range(10**12))
        self.anon_h = {"apikey": anon, "Authorization": f"Bearer {anon}"}
        json_h = {**self.anon_h, "Content-Type": "application/json"}
        self.users = [(f"soak{i}@example.test", PASSWORD) for i in range(4)]
        for email, password in self.users:
            expect(CLIENT.call("POST", "/auth/v1/signup", json_h, json.dumps({"email": email, "password": password})), 200, "sign-up")
        self.users.append((DEMO_EMAIL, PASSWORD))
        demo = expect(CLIENT.call("POST", "/auth/v1/token?grant_type=password", json_h,
                                  json.dumps({"email": DEMO_EMAIL, "password": PASSWORD})), 200, "demo sign-in")
        self.user_h = {"apikey": anon, "Authorization": f"Bearer {json.loads(demo)['access_token']}"}
        self.service_h = {"apikey": service, "Authorization": f"Bearer {service}"}
        expect(CLIENT.call("POST", "/storage/v1/bucket", {**self.service_h, "Content-Type": "application/json"},
                           json.dumps({"name": "soak", "public": True})), 200, "bucket")
        for n in range(32):
            expect(self.put(f"seed-{n}"), 200, "upload")

    def put(self, name):
        headers = {**self.service_h, "Content-Type": "application/octet-stream", "x-upsert": "true"}
        return CLIENT.call("POST", f"/storage/v1/object/soak/{name}", headers, OBJECT)

    def run(self, kind):
        n = next(self.counter)
        if kind == "anon read":
            return CLIENT.call("GET", "/rest/v1/vehicles?select=*", self.anon_h)
        if kind == "auth read":
            return CLIENT.call("GET", "/rest/v1/bookings?select=id,start_date,booking_status,vehicles(name,daily_rate)", self.user_h)
        if kind == "rest write":
            body = {"name": "Soak", "email": f"soak{n}@example.test", "subject": "information", "message": f"message {n}"}
            return CLIENT.call("POST", "/rest/v1/contact_messages",
                               {**self.anon_h, "Content-Type": "application/json", "Prefer": "return=minimal"}, json.dumps(body))
        if kind == "sign-in":
            email, password = self.users[n % len(self.users)]
            return CLIENT.call("POST", "/auth/v1/token?grant_type=password", {**self.anon_h, "Content-Type": "application/json"},
                               json.dumps({"email": email, "password": password}))
        if kind == "upload":
            return self.put(f"up-{n % 256}")
        return CLIENT.call("GET", f"/storage/v1/object/public/soak/seed-{n % 32}", self.anon_h)


def expect(result, status, what):
    if result is None or result[0] != status:
        raise SystemExit(f"{what}: expected {status}, got {result and (result[0], result[1][:300])}")
    return result[1]


def kinds_cycle():
    """The mix as an endless sequence: the weights' kinds, shuffled once with a fixed seed."""
    sequence = [kind for kind, weight in MIX for _ in range(weight)]
    random.Random(7).shuffle(sequence)
    while True:
        yield from sequence


class Tally:
    def __init__(self):
        self.status = collections.defaultdict(collections.Counter)
        self.latency = collections.defaultdict(list)
        self.lock = threading.Lock()

    def add(self, kind, result, seconds):
        with self.lock:
            self.status[kind][result[0] if result else "conn"] += 1
            self.latency[kind].append(seconds)

    def of(self, kinds):
        """Counts by status and latencies of these kinds together."""
        return (sum((self.status[k] for k in kinds), collections.Counter()), [x for k in kinds for x in self.latency[k]])


def capacity(work, pids):  # pids(): the server's and PostgreSQL's, for their CPU time
    """Closed loop: WORKERS threads, each sending its next request when the previous one is answered."""
    tally, kinds, lock = Tally(), kinds_cycle(), threading.Lock()
    deadline = time.perf_counter() + CAPACITY_SECONDS

    def worker():
        while time.perf_counter() < deadline:
            with lock:
                kind = next(kinds)
            start = time.perf_counter()
            result = work.run(kind)
            tally.add(kind, result, time.perf_counter() - start)

    cpu0, self0, start = cpu_seconds(pids()), sum(os.times()[:2]), time.perf_counter()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(WORKERS)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    elapsed = time.perf_counter() - start
    cpu = ((cpu_seconds(pids()) - cpu0) / elapsed, (sum(os.times()[:2]) - self0) / elapsed)
    return tally, elapsed, cpu


def soak(work, rate, on_half):
    """Open loop: request i leaves at start + i / rate on a pool of threads, whatever the answers."""
    tally, kinds = Tally(), kinds_cycle()
    pool = concurrent.futures.ThreadPoolExecutor(64)
    half = threading.Timer(SOAK_SECONDS / 2, on_half)
    half.daemon = True
    half.start()

    def job(kind, due):
        result = work.run(kind)
        tally.add(kind, result, time.perf_counter() - due)

    start, i = time.perf_counter(), 0
    try:
        while (due := start + i / rate) < start + SOAK_SECONDS:
            time.sleep(max(0.0, due - time.perf_counter()))
            pool.submit(job, next(kinds), due)
            i += 1
        pool.shutdown(wait=True)
    finally:
        half.cancel()
        pool.shutdown(wait=False, cancel_futures=True)
    return tally, time.perf_counter() - start


# --- the largest accepted anonymous request ----------------------------------------------------

VEHICLE_COLS = ["id", "name", "make", "model", "year", "category", "color", "price", "daily_rate", "rental_status",
                "description", "features", "location", "specifications", "pricing", "images", "primary_image", "created_at"]
BOOKING_COLS = ["id", "user_id", "vehicle_id", "start_date", "end_date", "pickup_location", "total_amount", "booking_status"]


def worst_query(embeds=50, items=500, in_values=1000, filters=200):
    """GET /vehicles with 6 chains bookings->vehicles->bookings... 8 deep plus 2 one-level embeds (the
    foreign key bookings.vehicle_id both ways), every vehicle column at the top (the only level anon
    sees rows of), the other select items spread over the embedded levels, `year=in.(...)` and an
    `and` of year filters."""
    chains = [8] * (embeds // 8) + [1] * (embeds % 8)
    levels = []  # every embedded level

    def chain(depth, table):
        node = {"table": table, "cols": [], "child": None}
        levels.append(node)
        if depth:
            node["child"] = chain(depth - 1, "vehicles" if table == "bookings" else "bookings")
        return node

    top = {"table": "vehicles", "cols": list(VEHICLE_COLS), "children": [chain(d - 1, "bookings") for d in chains]}
    cols_left, rank = items - embeds - len(VEHICLE_COLS), 0
    while cols_left:
        for node in levels:
            names = VEHICLE_COLS if node["table"] == "vehicles" else BOOKING_COLS
            if cols_left and rank < len(names):
                node["cols"].append(names[rank])
                cols_left -= 1
        rank += 1

    def render(node):
        inner = node["cols"] + ([render(node["child"])] if node["child"] else [])
        return f"{node['table']}({','.join(inner)})"

    select = ",".join(top["cols"] + [f"e{i}:{render(c)}" for i, c in enumerate(top["children"])])
    ins = ",".join(str(y) for y in range(2100 - in_values, 2100))
    ands = ",".join("year.gt.1" for _ in range(filters - 2))  # the and node + its leaves + the in filter
    return f"/rest/v1/vehicles?select={select}&year=in.({ins})&and=({ands})"


def sample_peaks(server_pid, data, stop, peaks):
    """Every 5 ms: each backend's anonymous memory and the server's RSS, keeping the maxima."""
    children = cluster_pids(data)[1:]
    last_list = time.perf_counter()
    while not stop.is_set():
        if time.perf_counter() - last_list > 0.2:
            children, last_list = cluster_pids(data)[1:], time.perf_counter()
        for pid in children:
            peaks[pid] = max(peaks.get(pid, 0), field_kb(f"/proc/{pid}/smaps_rollup", "Anonymous"))
        peaks["server"] = max(peaks.get("server", 0), field_kb(f"/proc/{server_pid}/status", "VmRSS"))
        time.sleep(0.005)


def worst_request(work, server_pid, data):
    path, bigger = worst_query(), worst_query(embeds=51)
    first = CLIENT.call("GET", path, work.anon_h)
    refused = CLIENT.call("GET", bigger, work.anon_h)
    base = {pid: field_kb(f"/proc/{pid}/smaps_rollup", "Anonymous") for pid in cluster_pids(data)[1:]}
    base["server"] = field_kb(f"/proc/{server_pid}/status", "VmRSS")
    peaks, stop = {}, threading.Event()
    sampler = threading.Thread(target=sample_peaks, args=(server_pid, data, stop, peaks))
    sampler.start()
    statuses, latencies = collections.Counter(), []

    def one(_):
        start = time.perf_counter()
        result = CLIENT.call("GET", path, work.anon_h)
        latencies.append(time.perf_counter() - start)
        statuses[result[0] if result else "conn"] += 1

    try:
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            list(pool.map(one, range(20)))
        time.sleep(0.05)
    finally:
        stop.set()
        sampler.join()
    growth = sorted(((peaks[p] - base.get(p, 0), p) for p in peaks if p != "server"), reverse=True)
    print(f"\nLargest accepted anonymous request: {len(path.split('?', 1)[1])} bytes of query string, "
          f"first answer {first and first[0]} ({len(first[1]) if first else 0} bytes of body)")
    print(f"  run 20 times, 4 in parallel: statuses {dict(statuses)}, p50 {pct(latencies, 0.5)*1000:.0f} ms, "
          f"max {max(latencies)*1000:.0f} ms")
    print("  peak growth of a backend's anonymous memory over its baseline (largest five): "
          + ", ".join(f"{g / MB:.1f} MB{' (new)' if p not in base else ''}" for g, p in growth[:5]))
    print(f"  server RSS: baseline {base['server'] / MB:.1f} MB, peak {peaks['server'] / MB:.1f} MB")
    message = json.loads(refused[1]).get("message", "") if refused and refused[0] == 400 else refused and refused[1][:200]
    print(f"  with a 51st embed ({len(bigger.split('?', 1)[1])} bytes): {refused and refused[0]} {message}")


# --- report ------------------------------------------------------------------------------------

def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def report(cap, cap_time, soak_tally, soak_time, rate, mem):
    print(f"\n{'kind':<11}{'cap ops/s':>10}{'cap p50 ms':>11}{'soak ops/s':>11}{'x cap':>6}{'p50 ms':>8}{'p95 ms':>8}{'p99 ms':>8}"
          f"{'5xx':>5}{'conn':>6}  statuses")
    every = [kind for kind, _ in MIX]
    for name, kinds in [(kind, [kind]) for kind in every] + [("all", every)]:
        (cap_counts, cap_lat), (soak_counts, lat) = cap.of(kinds), soak_tally.of(kinds)
        cap_rate, soak_rate = sum(cap_counts.values()) / cap_time, sum(soak_counts.values()) / soak_time
        fivexx = sum(v for s, v in soak_counts.items() if s != "conn" and s >= 500)
        statuses = " ".join(f"{s}:{v}" for s, v in sorted(soak_counts.items(), key=str))
        print(f"{name:<11}{cap_rate:>10.1f}{pct(cap_lat, .5)*1000:>11.0f}{soak_rate:>11.1f}{soak_rate / cap_rate if cap_rate else 0:>6.2f}"
              f"{pct(lat, .5)*1000:>8.0f}{pct(lat, .95)*1000:>8.0f}{pct(lat, .99)*1000:>8.0f}{fivexx:>5}{soak_counts['conn']:>6}  {statuses}")
    print(f"(soak target {rate:.1f} ops/s = {LOAD:.0%} of capacity; soak latency counts from the scheduled time)")
    print(f"\n{'memory, MB':<27}{'start':>8}{'mid':>8}{'end':>8}{'idle':>8}{'end/start':>10}{'idle/start':>11}")
    for name in ("server RSS", "postgres Pss (all)", "postgres Pss_Anon (all)", "largest backend Anonymous"):
        v = [mem[p][name] / MB for p in ("start", "mid", "end", "idle")]
        print(f"{name:<27}" + "".join(f"{x:>8.1f}" for x in v) + f"{v[2] / v[0] if v[0] else 0:>10.2f}{v[3] / v[0] if v[0] else 0:>11.2f}")
    print(f"{'postgres processes':<27}" + "".join(f"{mem[p]['processes']:>8}" for p in ("start", "mid", "end", "idle")))


def main():
    if not os.path.exists(SERVER):
        sys.exit(f"{SERVER} is missing: run `make build` first")
    if not (port_free(PORT) and port_free(DB_PORT)):
        sys.exit(f"port {PORT} or {DB_PORT} is in use")
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM cleans up as Ctrl-C does
    data = tempfile.mkdtemp(prefix="bench-soak-", dir=os.environ.get("BENCH_DIR", "/var/tmp"))
    os.chmod(data, 0o755)  # as root, PostgreSQL runs as `postgres`, which must enter it
    env = dict(os.environ, SUPABASE_PROJECT_DIR=os.environ.get("SUPABASE_PROJECT_DIR", RENTAL_PROJECT), DATA_DIR=data, PORT=str(PORT), DB_PORT=str(DB_PORT), RUST_LOG="warn", WEB_DIR="/nonexistent",
               MAILER_AUTOCONFIRM="true", RATE_LIMIT_TOKEN_REFRESH="0", RATE_LIMIT_OTP="0", RATE_LIMIT_VERIFY="0",
               RATE_LIMIT_EMAIL_SENT="0", SEED_DEMO_PASSWORD=PASSWORD, SEED_ADMIN_PASSWORD=PASSWORD + "-admin")
    server, wall, interrupted = None, time.time(), False
    try:
        server, anon, service = start_server(data, env)
        work = Workload(anon, service)
        print(f"server {SERVER}, {os.cpu_count()} cores shared with this load generator")
        cap, cap_time, (cpu_server_pg, cpu_self) = capacity(work, lambda: [server.pid] + cluster_pids(data))
        total = sum(sum(c.values()) for c in cap.status.values())
        failed = sum(v for c in cap.status.values() for s, v in c.items() if s == "conn" or s >= 300)
        rate = LOAD * total / cap_time
        print(f"capacity: {total / cap_time:.1f} ops/s with {WORKERS} workers over {cap_time:.0f} s, {failed} not 2xx "
              f"(CPU: server+postgres {cpu_server_pg:.0%}, load generator {cpu_self:.0%} of one core)")
        mem = {"start": memory(server.pid, data)}
        print(f"soak: {rate:.1f} ops/s for {SOAK_SECONDS:.0f} s ...", flush=True)
        soak_tally, soak_time = soak(work, rate, lambda: mem.__setitem__("mid", memory(server.pid, data)))
        mem["end"] = memory(server.pid, data)
        time.sleep(IDLE_SECONDS)
        mem["idle"] = memory(server.pid, data)
        report(cap, cap_time, soak_tally, soak_time, rate, mem)
        worst_request(work, server.pid, data)
        print(f"\nwall time {time.time() - wall:.0f} s; server alive at the end: {server.poll() is None}")
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        interrupted = True
    finally:
        stop_server(server, env)
        shutil.rmtree(data, ignore_errors=True)
    if interrupted:
        sys.exit(130)


if __name__ == "__main__":
    main()
