#!/usr/bin/env python3
"""make bench-policies: what row-level security costs an administrator's list, beside anon's.

Migrates a fresh database with the release server (`server migrate`, no HTTP), adds 10,000
vehicles and one administrator, then times `select * from public.vehicles` inside Postgres as
anon and as the administrator (milliseconds per query, mean of many). It runs twice in one go:
with the policies as the migrations leave them (helpers called once per statement through
`(select is_admin())`, V53) and, as the baseline, with the same policies unwrapped back to
`is_admin()` / `auth.uid()`, which Postgres evaluates row by row. Prints both and the ratios.
"""
import os, shutil, subprocess, sys, tempfile

from benchlib import pg_bin

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The rental site's Supabase project, whose tables the benchmark reads.
RENTAL_PROJECT = os.path.join(ROOT, "web", "supabase")
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SERVER = os.environ.get("BENCH_SERVER", os.path.join(TARGET, "release", "server"))
ROWS, QUERIES = 10_000, 40
ADMIN = "adadadad-0000-4000-8000-000000000003"

SETUP = f"""
insert into auth.users (id, email) values ('{ADMIN}', 'admin@example.cd');
update public.profiles set role = 'admin' where user_id = '{ADMIN}';
insert into public.vehicles (name, make, model, year)
  select 'car ' || g, 'Toyota', 'Prado', 2020 from generate_series(1, {ROWS}) g;
analyze;
create function public.bench_list_ms(claims text, who text, n int) returns numeric language plpgsql as $$
declare t0 timestamptz; c bigint;
begin
  perform set_config('request.jwt.claims', claims, true);
  perform set_config('role', who, true);
  t0 := clock_timestamp();
  for i in 1..n loop
    select count(*) into c from (select * from public.vehicles) v;
  end loop;
  perform set_config('role', 'postgres', true);
  return extract(epoch from clock_timestamp() - t0) * 1000 / n;
end $$;
"""

# The baseline: every `( SELECT f() AS f)` the migrations wrote, back to the bare call.
UNWRAP = r"""
do $$
declare p record; u text; w text;
  wrapped constant text := '\( SELECT ((public\.)?is_admin\(\)|auth\.(uid|jwt|role)\(\)) AS \w+\)';
begin
  for p in select pol.polname, n.nspname, c.relname, pg_get_expr(pol.polqual, pol.polrelid) q,
                  pg_get_expr(pol.polwithcheck, pol.polrelid) w
           from pg_policy pol join pg_class c on c.oid = pol.polrelid join pg_namespace n on n.oid = c.relnamespace
           where n.nspname in ('public', 'storage', 'realtime') loop
    u := regexp_replace(p.q, wrapped, '\1', 'g');
    w := regexp_replace(p.w, wrapped, '\1', 'g');
    if u is distinct from p.q then execute format('alter policy %I on %I.%I using (%s)', p.polname, p.nspname, p.relname, u); end if;
    if w is distinct from p.w then execute format('alter policy %I on %I.%I with check (%s)', p.polname, p.nspname, p.relname, w); end if;
  end loop;
end $$;
"""


def psql(conn, sql):
    out = subprocess.run([pg_bin("psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", conn, "-c", sql],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"psql failed: {out.stderr}")
    return out.stdout.strip()


def measure(conn):
    anon = float(psql(conn, f"""select public.bench_list_ms('{{"role":"anon"}}', 'anon', {QUERIES})"""))
    admin_claims = f'{{"sub":"{ADMIN}","role":"authenticated","aal":"aal2"}}'
    admin = float(psql(conn, f"select public.bench_list_ms('{admin_claims}', 'authenticated', {QUERIES})"))
    return anon, admin


def main():
    data = tempfile.mkdtemp(prefix="bench-policies-")
    os.chmod(data, 0o755)
    env = dict(os.environ, SUPABASE_PROJECT_DIR=os.environ.get("SUPABASE_PROJECT_DIR", RENTAL_PROJECT), DATA_DIR=data, DB_PORT="0", RUST_LOG="warn")
    try:
        subprocess.run([SERVER, "db", "start"], env=env, check=True, capture_output=True)
        subprocess.run([SERVER, "migrate"], env=env, check=True, capture_output=True)
        subprocess.run([SERVER, "db", "start"], env=env, check=True, capture_output=True)
        conn = f"postgresql:///postgres?user=postgres&host={data}/pg-run"
        psql(conn, SETUP)
        measure(conn)  # warm the caches once
        once = measure(conn)
        psql(conn, UNWRAP)
        per_row = measure(conn)
        print(f"\nselect * from vehicles ({ROWS} rows) inside Postgres, ms per query (mean of {QUERIES})")
        print(f"{'policies':<40}{'anon':>10}{'admin':>10}{'admin/anon':>12}")
        print(f"{'helpers once per statement (V53)':<40}{once[0]:>10.3f}{once[1]:>10.3f}{once[1] / once[0]:>12.2f}")
        print(f"{'baseline: helpers row by row':<40}{per_row[0]:>10.3f}{per_row[1]:>10.3f}{per_row[1] / per_row[0]:>12.2f}")
        print(f"administrator's list: {per_row[1] / once[1]:.2f}x faster once per statement")
    finally:
        subprocess.run([SERVER, "db", "stop"], env=env, capture_output=True)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
