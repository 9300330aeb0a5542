// Spawns the built server on a random port against a fresh database, for one test file.
//
// The database cluster is TEST_DATABASE_URL when set (a superuser URL), else the private test
// cluster under TEST_DATA_DIR (default: <tmp>/server-test-cluster), started with `server db start`.
// Each call creates a new, empty database; the server migrates it at start.
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
/** The rental site's project, which the servers started here run unless told otherwise
 * (`SUPABASE_PROJECT_DIR` in `extraEnv`; empty for none). */
export const RENTAL_PROJECT = path.join(repo, 'web', 'supabase');

export function serverBin() {
  if (process.env.SERVER_BIN) return process.env.SERVER_BIN;
  const target = process.env.CARGO_TARGET_DIR || path.join(repo, 'target');
  return path.join(target, 'debug', 'server');
}

let adminUrl;
function clusterUrl() {
  if (adminUrl) return adminUrl;
  if (process.env.TEST_DATABASE_URL) {
    adminUrl = process.env.TEST_DATABASE_URL;
  } else {
    const dataDir = process.env.TEST_DATA_DIR || path.join(tmpdir(), 'server-test-cluster');
    adminUrl = execFileSync(serverBin(), ['db', 'start'], {
      env: { ...process.env, DATA_DIR: dataDir, DB_PORT: '0', RUST_LOG: 'warn' },
      encoding: 'utf8',
    }).trim().split('\n').pop();
  }
  return adminUrl;
}

/** A TCP port free on 127.0.0.1 right now (for a helper process the tests start). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Append a libpq URL parameter. */
export function withParam(url, key, value) {
  return `${url}${url.includes('?') ? '&' : '?'}${key}=${encodeURIComponent(value)}`;
}

/** node-postgres settings for a libpq URL (including socket-directory hosts). */
export function pgConfig(url) {
  const u = new URL(url.replace(/^postgres(ql)?:/, 'http:'));
  const q = u.searchParams;
  return {
    host: q.get('host') || u.hostname || 'localhost',
    port: Number(q.get('port') || u.port || 5432),
    user: q.get('user') || decodeURIComponent(u.username) || 'postgres',
    password: u.password ? decodeURIComponent(u.password) : undefined,
    database: q.get('dbname') || u.pathname.replace(/^\//, '') || 'postgres',
  };
}

/** Run SQL on a database as its owner. */
export async function sql(dbUrl, text, params = []) {
  const client = new pg.Client(pgConfig(dbUrl));
  await client.connect();
  try {
    return await client.query(text, params);
  } finally {
    await client.end();
  }
}

let pooler;
/**
 * With COMPAT_VIA_PGBOUNCER=1, every server of this process reaches its database through one
 * PgBouncer in transaction mode (DB_PREPARED_STATEMENTS=false, the direct URL beside it): the
 * same suites, proving each surface works behind the pooler.
 */
async function viaPooler(dbUrl) {
  if (process.env.COMPAT_VIA_PGBOUNCER !== '1') return {};
  const { startPgbouncer } = await import('./pgbouncer.mjs');
  if (!pooler) {
    pooler = startPgbouncer(dbUrl, { poolSize: 4, background: true });
    pooler.then((bouncer) => process.once('exit', () => bouncer.kill()), () => {});
  }
  const bouncer = await pooler;
  const dbName = new URL(dbUrl.replace(/^postgres(ql)?:/, 'http:')).searchParams.get('dbname');
  return { DATABASE_URL: bouncer.url(dbName), DATABASE_DIRECT_URL: dbUrl, DB_PREPARED_STATEMENTS: 'false' };
}

/**
 * The superuser URL of the cluster a server runs itself under `dataDir` (`startServer` with
 * `embedded: true`), over its socket, from the running postmaster's pid file.
 */
export function embeddedUrl(dataDir) {
  const lines = readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n');
  return `postgresql:///postgres?user=postgres&host=${encodeURIComponent(lines[4])}&port=${lines[3]}`;
}

/** The pid of the postmaster a server runs itself under `dataDir`. */
export function embeddedPostmaster(dataDir) {
  return Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Create a new, empty database in the test cluster; resolves to its superuser URL. */
export async function freshDatabase() {
  const admin = clusterUrl();
  const dbName = `compat_${randomBytes(8).toString('hex')}`;
  await sql(admin, `create database ${dbName}`);
  return withParam(admin, 'dbname', dbName);
}

/**
 * Start a server on a fresh database. Resolves to
 * { url, anonKey, serviceKey, publishableKey, secretKey, jwtSecret, dbUrl, pid, logs(), stop() }.
 *
 * With `dbUrl` (and the `jwtSecret` of the server already using it), start another instance on
 * that existing database instead: a second instance beside the first, or the first again after
 * `stop()` (pass `{ PORT }` in `extraEnv` to get the same URL back).
 */
export async function startServer(extraEnv = {}, { fixture, dbUrl: existingDbUrl, jwtSecret: existingSecret, embedded = false } = {}) {
  let dbUrl = embedded ? undefined : existingDbUrl || await freshDatabase();
  const jwtSecret = existingSecret || randomBytes(32).toString('hex');
  const project = { SUPABASE_PROJECT_DIR: extraEnv.SUPABASE_PROJECT_DIR ?? process.env.SUPABASE_PROJECT_DIR ?? RENTAL_PROJECT };
  if (fixture) {
    // Migrate first so the fixture gets the platform roles and default privileges.
    execFileSync(serverBin(), ['migrate'], {
      env: { ...process.env, ...project, DATABASE_URL: dbUrl, JWT_SECRET: jwtSecret, RUST_LOG: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await sql(dbUrl, fixture);
  }
  const env = {
    ...process.env,
    ...project,
    // An embedded cluster would archive its WAL and take a first full backup: not the tests' subject.
    ...(embedded ? { DB_PORT: '0', BACKUP_ENABLED: 'false' } : { DATABASE_URL: dbUrl, ...(await viaPooler(dbUrl)) }),
    PORT: '0',
    HTTP_WORKERS: '1',
    JWT_SECRET: jwtSecret,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'compat-data-')),
    WEB_DIR: '/nonexistent',
    RUST_LOG: process.env.RUST_LOG || 'warn',
    ...extraEnv,
  };
  if (embedded) {
    delete env.DATABASE_URL;
    // as root, the cluster runs as `postgres`, which must enter the data directory
    chmodSync(env.DATA_DIR, 0o755);
  }
  const child = spawn(serverBin(), [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const info = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}\n${err}`)), embedded ? 90000 : 30000);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${out}\n${err}`)));
    child.stdout.on('data', (d) => {
      out += d;
      const url = out.match(/^API URL: (\S+)$/m);
      const anon = out.match(/^anon key: (\S+)$/m);
      const service = out.match(/^service_role key: (\S+)$/m);
      const publishable = out.match(/^publishable key: (\S+)$/m);
      const secret = out.match(/^secret key: (\S+)$/m);
      if (url && anon && service && publishable && secret) {
        clearTimeout(timer);
        resolve({
          url: url[1], anonKey: anon[1], serviceKey: service[1], publishableKey: publishable[1], secretKey: secret[1],
        });
      }
    });
  });
  child.removeAllListeners('exit');
  if (embedded) dbUrl = embeddedUrl(env.DATA_DIR);
  return {
    ...info,
    jwtSecret,
    dbUrl,
    dataDir: env.DATA_DIR,
    pid: child.pid,
    logs: () => err,
    /** Drop the database's idle replication slots (a postgres_changes join made one): left
     * behind, each would hold WAL and one of the cluster's few slots for good. */
    async dropSlots() {
      await sql(dbUrl, `select pg_drop_replication_slot(slot_name) from pg_replication_slots
        where database = current_database() and not active`);
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
