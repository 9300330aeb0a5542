#!/usr/bin/env bash
# Entrypoint of a streaming replica on the official postgres image, run as the postgres user.
# First start (no cluster in PGDATA): clone the primary with pg_basebackup, which writes
# standby.signal and primary_conninfo (-R). Every start: run postgres as a hot standby with the
# arguments given (`-c hot_standby=on ...`).
#
# Environment: PRIMARY_HOST (and PRIMARY_PORT, default 5432), PGPASSWORD (the `replicator`
# role's password, also used by the WAL receiver through primary_conninfo).
set -euo pipefail

: "${PRIMARY_HOST:?PRIMARY_HOST must be set}"
: "${PGPASSWORD:?PGPASSWORD (the replicator password) must be set}"
PGDATA="${PGDATA:-/var/lib/postgresql/data}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  echo "replica: cloning ${PRIMARY_HOST} into ${PGDATA}"
  until
    # Not a cluster yet, so whatever a failed attempt left can go.
    find "$PGDATA" -mindepth 1 -delete
    pg_basebackup --host="$PRIMARY_HOST" --port="${PRIMARY_PORT:-5432}" --username=replicator \
      --pgdata="$PGDATA" --wal-method=stream --write-recovery-conf --checkpoint=fast --no-password
  do
    echo "replica: the primary is not ready; trying again in 3 s"
    sleep 3
  done
fi

# PostgreSQL refuses a data directory others can read.
chmod 0700 "$PGDATA"
exec postgres "$@"
