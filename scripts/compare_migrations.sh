#!/usr/bin/env bash
# Compare the schema two versions of a project's migrations make: the files of OLD_REV (read from
# git, so a deleted history still counts) against the files in the working tree. Not part of
# `make test`: it proves a re-cut of migrations (a squash) changes nothing.
#
#   scripts/compare_migrations.sh OLD_REV [PROJECT_MIGRATIONS_DIR]
#
# OLD_REV: a commit whose PROJECT_MIGRATIONS_DIR (default web/supabase/migrations) holds the old
# files; the new ones are that folder's in the working tree (or NEW_DIR's). Two scratch databases are made on the test cluster (PGHOST, default the socket of
# $TEST_DATA_DIR, the Makefile's; start it with `server db start`), each with the platform's
# migrations (sql/migrations, in version order) and then one side's project files, each file in
# one transaction with the search_path the server gives migrations. Then, for both:
#   - `pg_dump --schema-only` of the whole database (tables, columns, constraints, indexes,
#     functions, views, triggers, policies, grants, comments, publication membership, in every
#     schema: `public`, and what the files add to `auth`, `storage`, `realtime`, `outbox`);
#   - the rows of every table of `public`, `storage.buckets` and `outbox.schedules` (columns
#     ending in `_at`, which hold the time the files ran, left out);
# and the two are diffed. Exit status 0 and "no difference" when both are equal.
set -euo pipefail

old_rev=${1:?usage: scripts/compare_migrations.sh OLD_REV [PROJECT_MIGRATIONS_DIR]}
dir=${2:-web/supabase/migrations}
repo=$(git rev-parse --show-toplevel)
cd "$repo"
if [ -z "${PGHOST:-}" ]; then
  : "${TEST_DATA_DIR:=/tmp/server-test-cluster-$(id -u)-$(printf %s "$repo" | cksum | cut -d' ' -f1)}"
  export PGHOST=$TEST_DATA_DIR/pg-run
fi
export PGUSER=${PGUSER:-postgres}
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

work=$(mktemp -d)
suffix=$$
cleanup() {
  for side in old new; do psql_q -d postgres -c "drop database if exists cmp_${side}_$suffix" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# The old side's files, from git.
mkdir -p "$work/old" "$work/new"
git ls-tree --name-only "$old_rev" "$dir/" | while read -r path; do
  case $path in *.sql) git show "$old_rev:$path" > "$work/old/$(basename "$path")" ;; esac
done
new_dir=${NEW_DIR:-$dir}
cp "$new_dir"/*.sql "$work/new/"
echo "old: $(ls "$work/old" | wc -l) files of $old_rev; new: $(ls "$work/new" | wc -l) files of $new_dir"

for side in old new; do
  db=cmp_${side}_$suffix
  psql_q -d postgres -c "create database $db" >/dev/null
  for file in $(ls sql/migrations | sed -n 's/^V\([0-9]*\)__.*/\1 &/p' | sort -n | cut -d' ' -f2); do
    psql_q -d "$db" -1 -f "sql/migrations/$file" >/dev/null 2>"$work/$side.log" || { cat "$work/$side.log"; exit 1; }
  done
  for file in $(ls "$work/$side" | sort); do
    if ! PGOPTIONS='-c search_path="$user",public,extensions' \
         psql_q -d "$db" -1 -f "$work/$side/$file" >/dev/null 2>"$work/$side.log"; then
      echo "$side: $file failed:"; cat "$work/$side.log"; exit 1
    fi
  done
  # the schema, without pg_dump's per-run \restrict key
  pg_dump --schema-only -d "$db" | grep -v '^\\\(un\)\?restrict ' > "$work/$side.schema.sql"
  # the rows
  psql_q -d "$db" -At > "$work/$side.rows.txt" <<'SQL'
do $$ begin perform 1; end $$;
create temp table rows_of (relation text, row_text text);
do $$
declare
  r record;
begin
  for r in
    select format('%I.%I', n.nspname, c.relname) as rel
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p')
      and (n.nspname = 'public' or (n.nspname, c.relname) in (('storage', 'buckets'), ('outbox', 'schedules')))
    order by 1
  loop
    execute format(
      'insert into rows_of select %L, (select jsonb_object_agg(key, value) from jsonb_each(to_jsonb(t)) where key not like ''%%\_at'')::text from %s t',
      r.rel, r.rel);
  end loop;
end
$$;
select relation || ' ' || row_text from rows_of order by 1;
SQL
done

status=0
diff -u "$work/old.schema.sql" "$work/new.schema.sql" || status=1
diff -u "$work/old.rows.txt" "$work/new.rows.txt" || status=1
if [ $status -eq 0 ]; then
  echo "no difference: $(grep -c '^CREATE' "$work/new.schema.sql") CREATE statements and $(wc -l < "$work/new.rows.txt") rows compared"
fi
exit $status
