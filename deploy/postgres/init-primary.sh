#!/bin/sh
# First start of the primary only (the official image runs /docker-entrypoint-initdb.d/* once,
# on an empty data directory): the role the replicas stream as, and the pg_hba.conf line that
# lets it connect for replication. The image's own line (`host all all all scram-sha-256`)
# does not cover replication connections.
set -eu

: "${REPLICATION_PASSWORD:?REPLICATION_PASSWORD must be set}"

psql -v ON_ERROR_STOP=1 -v pw="$REPLICATION_PASSWORD" \
    --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-postgres}" <<'SQL'
create role replicator with replication login password :'pw';
SQL

echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
