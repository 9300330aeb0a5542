// PgBouncer (Debian's package) in transaction mode in front of the test cluster, on a free port:
// the pooler of the tests that run server instances behind one.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, pgConfig, withParam } from './server.mjs';

const candidates = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'];

/**
 * Start PgBouncer in front of the cluster of `clusterDbUrl` (a superuser URL of any database);
 * `background`: for a whole test process, which stops it on exit.
 * Resolves to { port, url(dbName, user), show(what), stop() }: `url` is a pooled URL of a
 * database, `show` runs `SHOW <what>` on the admin console.
 */
export async function startPgbouncer(clusterDbUrl, { poolSize = 4, background = false } = {}) {
  const bin = candidates.find((c) => existsSync(c));
  if (!bin) throw new Error('no pgbouncer: run `make setup`');
  const { host, port: pgPort } = pgConfig(clusterDbUrl);
  const dir = mkdtempSync(path.join(tmpdir(), 'pgbouncer-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const ini = path.join(dir, 'pgbouncer.ini');
  const users = path.join(dir, 'userlist.txt');
  writeFileSync(users, '"postgres" ""\n"authenticator" ""\n', { mode: 0o644 });
  writeFileSync(ini, `[databases]
* = host=${host} port=${pgPort}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${users}
admin_users = postgres
pool_mode = transaction
default_pool_size = ${poolSize}
max_client_conn = 1000
server_reset_query =
ignore_startup_parameters = extra_float_digits
`, { mode: 0o644 });
  // PgBouncer refuses to run as root: it runs as the cluster's own user.
  const args = process.getuid?.() === 0 ? ['-u', 'postgres', ini] : [ini];
  // In the background it neither logs nor keeps the test process alive.
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', background ? 'ignore' : 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d) => { log += d; });
  if (background) child.unref();
  const admin = { host: '127.0.0.1', port, user: 'postgres', database: 'pgbouncer' };
  const deadline = Date.now() + 15000;
  for (;;) {
    const client = new pg.Client(admin);
    try {
      await client.connect();
      await client.end();
      break;
    } catch (err) {
      await client.end().catch(() => {});
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill();
        throw new Error(`pgbouncer did not start: ${err.message}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    port,
    /** A URL of `dbName` through the pooler. */
    url(dbName, user = 'postgres') {
      return withParam(`postgresql://${user}@127.0.0.1:${port}/${dbName}`, 'application_name', 'via-pgbouncer');
    },
    /** `SHOW <what>` on the admin console: its rows. */
    async show(what) {
      const client = new pg.Client(admin);
      await client.connect();
      try {
        return (await client.query(`SHOW ${what}`)).rows;
      } finally {
        await client.end();
      }
    },
    logs: () => log,
    /** Stop at once (a process exit handler cannot wait). */
    kill: () => child.kill('SIGTERM'),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
