#!/usr/bin/env python3
"""make bench-backup: backup and restore with pgBackRest beside the floors (pg_basebackup, tar),
point-in-time replay, and /rest/v1 writes with WAL archiving on beside off.

On a fresh private cluster with archiving on (its own DATA_DIR and repository under /var/tmp):
  * loads BENCH_BACKUP_MB of rows (~250-byte rows) and BENCH_BACKUP_OBJECTS stored files of
    4 KB (rows in storage.objects, bytes in the file backend's folder);
  * times `server backup now --type full` (pgBackRest + the files' first copy + the row counts)
    and prints the repository's added size beside `pg_basebackup` (plain format, WAL fetched) and
    a plain `tar` of the data folder, both uncompressed: the floors of reading the bytes once;
  * updates 5 % of the rows, times `server backup now --type incr` and its added size;
  * times `server restore --target-dir` of the latest backup with nothing to replay (restore time);
  * writes BENCH_BACKUP_WAL_MB of WAL after the last backup, notes a time T, then times
    `server restore --to T --target-dir`: the point-in-time replay rate is that WAL over the
    restore time beyond the restore with nothing to replay;
  * serves the data folder (`server`) twice, with BACKUP_ENABLED=true then false, and counts the
    rows BENCH_BACKUP_REST_CLIENTS clients insert through `POST /rest/v1/bench_writes` (1 KB rows,
    one per request, keep-alive) in BENCH_BACKUP_REST_SECONDS: write throughput with archiving on
    beside off.

Settings (environment):
  BENCH_SERVER               the server binary (default $CARGO_TARGET_DIR/release/server; point it at
                             .../debug/server for a quick run with a debug build)
  BENCH_BACKUP_MB            database size in MB (default 1024)
  BENCH_BACKUP_OBJECTS       stored files of 4 KB (default 10000)
  BENCH_BACKUP_WAL_MB        WAL written after the last backup, replayed by the restore to T (default 256)
  BENCH_BACKUP_REST_SECONDS  seconds of /rest/v1 writes per run (default 20; 0 skips that part)
  BENCH_BACKUP_REST_CLIENTS  concurrent writers (default 8)
A quick run: BENCH_SERVER=$CARGO_TARGET_DIR/debug/server BENCH_BACKUP_MB=50 BENCH_BACKUP_OBJECTS=500
BENCH_BACKUP_WAL_MB=32 BENCH_BACKUP_REST_SECONDS=10 python3 scripts/bench_backup.py
Not a test: it prints numbers (a Markdown table).
"""
import http.client, json, os, re, shutil, subprocess, sys, tempfile, threading, time, uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SERVER = os.environ.get("BENCH_SERVER", os.path.join(TARGET, "release", "server"))
SIZE_MB = int(os.environ.get("BENCH_BACKUP_MB", 1024))
OBJECTS = int(os.environ.get("BENCH_BACKUP_OBJECTS", 10000))
WAL_MB = int(os.environ.get("BENCH_BACKUP_WAL_MB", 256))
REST_SECONDS = float(os.environ.get("BENCH_BACKUP_REST_SECONDS", 20))
REST_CLIENTS = int(os.environ.get("BENCH_BACKUP_REST_CLIENTS", 8))


def pg_bin():
    versions = sorted(int(v) for v in os.listdir("/usr/lib/postgresql") if v.isdigit())
    return f"/usr/lib/postgresql/{versions[-1]}/bin"


def du(path):
    total = 0
    for base, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(base, f)).st_size
            except OSError:
                pass
    return total


def main():
    root = tempfile.mkdtemp(prefix="bench-backup-", dir="/var/tmp")
    os.chmod(root, 0o755)
    data, repo = os.path.join(root, "data"), os.path.join(root, "repo")
    env = dict(os.environ, DATA_DIR=data, DB_PORT="0", BACKUP_ENABLED="true", BACKUP_REPO_PATH=repo, RUST_LOG="warn")
    env.pop("DATABASE_URL", None)

    def server(*args, check=True):
        t0 = time.monotonic()
        out = subprocess.run([SERVER, *args], env=env, capture_output=True, text=True)
        if check and out.returncode != 0:
            sys.exit(f"server {' '.join(args)} failed:\n{out.stdout}{out.stderr}")
        return time.monotonic() - t0, out.stdout

    def psql(sql, url=None):
        return subprocess.run([os.path.join(pg_bin(), "psql"), "-qAtX", "-v", "ON_ERROR_STOP=1", "-d", url or db, "-c", sql],
                              capture_output=True, text=True, check=True).stdout.strip()

    def archived(segment):
        """Wait until WAL segment `segment` is archived (the restore to T needs it)."""
        for _ in range(600):
            last = psql("select coalesce(last_archived_wal, '') from pg_stat_archiver")
            if len(last) == 24 and last[8:] >= segment[8:]:
                return
            time.sleep(0.1)
        sys.exit(f"WAL segment {segment} was not archived")

    def rest_writes(run_env):
        """Serve DATA_DIR with `run_env`; rows inserted through /rest/v1 in REST_SECONDS, and the seconds."""
        log = open(os.path.join(root, f"server-{run_env['BACKUP_ENABLED']}.log"), "w")
        proc = subprocess.Popen([SERVER], env=dict(run_env, PORT="0", WEB_DIR="/nonexistent"), cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=log, text=True)
        url = key = None
        try:
            while url is None or key is None:
                line = proc.stdout.readline()
                if not line:
                    sys.exit("the server did not start:\n" + open(log.name).read()[-2000:])
                if line.startswith("API URL: "):
                    url = line.split(": ", 1)[1].strip()
                m = re.match(r"service_role key: (\S+)", line)
                if m:
                    key = m.group(1)
            threading.Thread(target=proc.stdout.read, daemon=True).start()
            host, port = re.match(r"https?://([^:/]+):(\d+)", url).groups()
            body = json.dumps({"body": "x" * 1000})
            headers = {"apikey": key, "Authorization": f"Bearer {key}", "Content-Type": "application/json",
                       "Prefer": "return=minimal"}
            counts = [0] * REST_CLIENTS
            failures = []
            stop_at = time.monotonic() + REST_SECONDS

            def writer(i):
                conn = http.client.HTTPConnection(host, int(port), timeout=30)
                while time.monotonic() < stop_at:
                    conn.request("POST", "/rest/v1/bench_writes", body=body, headers=headers)
                    res = conn.getresponse()
                    res.read()
                    if res.status == 201:
                        counts[i] += 1
                    elif not failures:
                        failures.append(res.status)

            t0 = time.monotonic()
            threads = [threading.Thread(target=writer, args=(i,)) for i in range(REST_CLIENTS)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            if failures:
                sys.exit(f"POST /rest/v1/bench_writes answered {failures[0]} (see {log.name})")
            return sum(counts), time.monotonic() - t0
        finally:
            proc.terminate()
            proc.wait()
            subprocess.run([SERVER, "db", "stop"], env=run_env, capture_output=True)

    try:
        server("migrate")  # stops the cluster it started
        _, out = server("db", "start")
        db = out.strip().splitlines()[-1]
        rows = SIZE_MB * 1024 * 1024 // 250
        print(f"loading {SIZE_MB} MB ({rows:,} rows) and {OBJECTS:,} stored files…", file=sys.stderr)
        psql(f"create table bench (id bigint primary key, body text); "
             f"insert into bench select i, md5(i::text) || repeat('x', 180) from generate_series(1, {rows}) i")
        storage = os.path.join(data, "storage")
        psql("insert into storage.buckets (id, name) values ('bench', 'bench') on conflict do nothing")
        values = []
        for i in range(OBJECTS):
            version = str(uuid.uuid4())
            path = os.path.join(storage, "objects", version[:2], version)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(os.urandom(4096))
            values.append(f"('bench', 'f{i}.bin', '{version}')")
        for start in range(0, len(values), 2000):
            psql("insert into storage.objects (bucket_id, name, version) values " + ",".join(values[start:start + 2000]))
        psql("create table bench_writes (id bigint generated always as identity primary key, body text not null); "
             "grant all on bench_writes to service_role")
        db_bytes = int(psql("select pg_database_size(current_database())"))

        def last_backup():
            _, out = server("backup", "info")
            return json.loads(out)[0]["backup"][-1]

        full_s, _ = server("backup", "now", "--type", "full")
        full = last_backup()
        psql(f"update bench set body = md5(body) where id % 20 = 0")
        incr_s, _ = server("backup", "now", "--type", "incr")
        incr = last_backup()

        base_dir = os.path.join(root, "basebackup")
        t0 = time.monotonic()
        subprocess.run([os.path.join(pg_bin(), "pg_basebackup"), "-d", db, "-D", base_dir, "-X", "fetch", "-c", "fast"],
                       check=True, capture_output=True)
        base_s, base_bytes = time.monotonic() - t0, du(base_dir)
        shutil.rmtree(base_dir)
        t0 = time.monotonic()
        tar = subprocess.run(f"tar -cf - -C {data} postgres storage | wc -c", shell=True, capture_output=True, text=True)
        tar_s, tar_bytes = time.monotonic() - t0, int(tar.stdout.strip() or 0)

        # A restore with nothing to replay, then one with WAL_MB of WAL after the last backup.
        quiet_s, out = server("restore", "--target-dir", os.path.join(root, "r0"))
        subprocess.run([SERVER, "db", "stop"], env=dict(env, DATA_DIR=os.path.join(root, "r0")), capture_output=True)
        shutil.rmtree(os.path.join(root, "r0"), ignore_errors=True)
        lsn0 = psql("select pg_current_wal_lsn()")
        wal_rows = WAL_MB * 1024 * 1024 // 600
        psql(f"update bench set body = md5(body) || body where id <= {wal_rows}")
        wal_bytes = int(psql(f"select pg_wal_lsn_diff(pg_current_wal_lsn(), '{lsn0}')"))
        t = psql("select clock_timestamp()::text")
        time.sleep(1.1)
        psql("create table after_t (n int)")  # a commit past T, so the replay stops at T
        archived(psql("select pg_walfile_name(pg_switch_wal())"))
        restore_s, out = server("restore", "--to", t, "--target-dir", os.path.join(root, "r1"))
        subprocess.run([SERVER, "db", "stop"], env=dict(env, DATA_DIR=os.path.join(root, "r1")), capture_output=True)
        shutil.rmtree(os.path.join(root, "r1"), ignore_errors=True)
        replay = wal_bytes / max(restore_s - quiet_s, 0.001) / 1e6

        rest = {}
        if REST_SECONDS > 0:
            subprocess.run([SERVER, "db", "stop"], env=env, capture_output=True)
            for archiving in ("true", "false"):
                rest[archiving] = rest_writes(dict(env, BACKUP_ENABLED=archiving))

        mb = lambda b: f"{b / 1e6:,.0f} MB"
        print(f"\nbench-backup: database {mb(db_bytes)}, {OBJECTS:,} stored files of 4 KB ({SERVER})\n")
        print(f"| what | time | size / rate |\n| --- | --- | --- |")
        print(f"| pgBackRest full backup (lz4) + files' first copy + row counts | {full_s:.1f} s | {mb(full['info']['repository']['delta'])} (database {mb(full['info']['size'])}) |")
        print(f"| pgBackRest incremental backup after 5 % of rows updated | {incr_s:.1f} s | {mb(incr['info']['repository']['delta'])} |")
        print(f"| pg_basebackup (plain, uncompressed, WAL fetched) | {base_s:.1f} s | {mb(base_bytes)} |")
        print(f"| tar of the data folder (postgres + storage, to a pipe) | {tar_s:.1f} s | {mb(tar_bytes)} |")
        print(f"| restore of the latest backup into a folder (nothing to replay) | {quiet_s:.1f} s | |")
        print(f"| restore to a time T with {mb(wal_bytes)} of WAL to replay | {restore_s:.1f} s | replay ≈ {replay:,.1f} MB/s |")
        for archiving, label in (("true", "on"), ("false", "off")):
            if archiving in rest:
                rows, seconds = rest[archiving]
                print(f"| /rest/v1 inserts (1 KB rows, {REST_CLIENTS} clients), archiving {label} | {seconds:.0f} s | {rows / seconds:,.0f} rows/s |")
    finally:
        for d in ("r0", "r1", "data"):
            subprocess.run([SERVER, "db", "stop"], env=dict(env, DATA_DIR=os.path.join(root, d)), capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
