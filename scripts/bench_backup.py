#!/usr/bin/env python3
"""make bench-backup: backup and restore with pgBackRest beside the floors (pg_basebackup, tar).

On a fresh private cluster with archiving on (its own DATA_DIR and repository under a temp dir):
  * loads BENCH_BACKUP_MB of rows (1024 by default; ~250-byte rows) and BENCH_BACKUP_OBJECTS
    stored files (10,000 of 4 KB: rows in storage.objects, bytes in the file backend's folder);
  * times `server backup now --type full` (pgBackRest + the files' first copy) and prints the
    repository's added size beside `pg_basebackup` (plain format, WAL fetched) and a plain
    `tar` of the data folder, both uncompressed: the floors of reading the bytes once;
  * updates 5 % of the rows, times `server backup now --type incr` and its added size;
  * writes BENCH_BACKUP_WAL_MB more of WAL after the last backup, then times
    `server restore --target-dir` to the latest point: restore + replay of that WAL + promotion +
    files; the replay rate is that WAL over the restore time beyond a restore with nothing to replay.
Not a test: it prints numbers. /rest/v1 write throughput with archiving on beside off is not
measured here (see docs/operations.md).
"""
import json, os, shutil, subprocess, sys, tempfile, time, uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SERVER = os.environ.get("BENCH_SERVER", os.path.join(TARGET, "release", "server"))
SIZE_MB = int(os.environ.get("BENCH_BACKUP_MB", 1024))
OBJECTS = int(os.environ.get("BENCH_BACKUP_OBJECTS", 10000))
WAL_MB = int(os.environ.get("BENCH_BACKUP_WAL_MB", 256))


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
        psql("select pg_switch_wal()")
        time.sleep(3)
        restore_s, out = server("restore", "--target-dir", os.path.join(root, "r1"))
        subprocess.run([SERVER, "db", "stop"], env=dict(env, DATA_DIR=os.path.join(root, "r1")), capture_output=True)
        replay = wal_bytes / max(restore_s - quiet_s, 0.001) / 1e6

        mb = lambda b: f"{b / 1e6:,.0f} MB"
        print(f"\nbench-backup: database {mb(db_bytes)}, {OBJECTS:,} stored files of 4 KB ({SERVER})\n")
        print(f"| what | time | size |\n| --- | --- | --- |")
        print(f"| pgBackRest full backup (lz4) + files' first copy | {full_s:.1f} s | {mb(full['info']['repository']['delta'])} (database {mb(full['info']['size'])}) |")
        print(f"| pgBackRest incremental backup after 5 % of rows updated | {incr_s:.1f} s | {mb(incr['info']['repository']['delta'])} |")
        print(f"| pg_basebackup (plain, uncompressed, WAL fetched) | {base_s:.1f} s | {mb(base_bytes)} |")
        print(f"| tar of the data folder (postgres + storage, to a pipe) | {tar_s:.1f} s | {mb(tar_bytes)} |")
        print(f"| restore of the latest backup into a folder (nothing to replay) | {quiet_s:.1f} s | |")
        print(f"| restore to the latest point with {mb(wal_bytes)} of WAL to replay | {restore_s:.1f} s | replay ≈ {replay:,.0f} MB/s |")
    finally:
        for d in ("r0", "r1", "data"):
            subprocess.run([SERVER, "db", "stop"], env=dict(env, DATA_DIR=os.path.join(root, d)), capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
