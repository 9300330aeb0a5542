// A primary and its streaming replica, as real processes: a new private cluster (`server db start`
// with its own DATA_DIR) and a hot standby cloned from it with pg_basebackup, on its own socket
// directory. The replica's replay can be paused, and the replica stopped.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { serverBin, pgConfig, withParam } from './server.mjs';

function binDir() {
  const versions = readdirSync('/usr/lib/postgresql').sort((x, y) => Number(y) - Number(x));
  return path.join('/usr/lib/postgresql', versions[0], 'bin');
}

/** PostgreSQL refuses to run as root: as root, it runs as `postgres`. */
function owner() {
  if (process.getuid?.() !== 0) return {};
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

async function query(config, text) {
  const client = new pg.Client(config);
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Start a primary and a replica. Resolves to { primaryUrl, replicaUrl(dbName), pauseReplay(),
 * resumeReplay(), stopReplica(), stop() }; URLs are superuser URLs over unix sockets.
 */
export async function startReplicatedCluster() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'primary-'));
  chmodSync(dataDir, 0o755); // the cluster's user must be able to enter it
  const primaryUrl = execFileSync(serverBin(), ['db', 'start'], {
    env: { ...process.env, DATA_DIR: dataDir, DB_PORT: '0', RUST_LOG: 'warn' },
    encoding: 'utf8',
  }).trim().split('\n').pop();
  const { host, port } = pgConfig(primaryUrl);
  const ids = owner();
  const root = mkdtempSync(path.join(tmpdir(), 'replica-'));
  const pgdata = path.join(root, 'pgdata');
  const run = path.join(root, 'run');
  mkdirSync(run);
  if (ids.uid !== undefined) {
    chownSync(root, ids.uid, ids.gid);
    chownSync(run, ids.uid, ids.gid);
  }
  execFileSync(path.join(binDir(), 'pg_basebackup'),
    ['-D', pgdata, '-R', '-X', 'stream', '-c', 'fast', '-h', host, '-p', String(port), '-U', 'postgres'],
    { ...ids, stdio: ['ignore', 'ignore', 'pipe'] });
  const replica = spawn(path.join(binDir(), 'postgres'), [
    '-D', pgdata, '-c', `port=${port}`, '-c', `unix_socket_directories=${run}`, '-c', 'listen_addresses=',
    '-c', 'hot_standby=on', '-c', 'shared_preload_libraries=',
  ], { ...ids, stdio: 'ignore' });
  const replicaConfig = { host: run, port, user: 'postgres', database: 'postgres' };
  const deadline = Date.now() + 30000;
  for (;;) {
    try {
      const [row] = await query(replicaConfig, 'select pg_is_in_recovery() as standby');
      if (row.standby) break;
    } catch (err) {
      if (Date.now() > deadline || replica.exitCode !== null) throw new Error(`the replica did not start: ${err.message}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const stopReplica = async () => {
    if (replica.exitCode !== null) return;
    const exited = new Promise((resolve) => replica.on('exit', resolve));
    replica.kill('SIGINT'); // fast shutdown: open sessions are ended
    await exited;
  };
  return {
    primaryUrl,
    replicaUrl: (dbName) => `postgresql:///${dbName}?user=postgres&host=${encodeURIComponent(run)}&port=${port}`,
    pauseReplay: () => query(replicaConfig, 'select pg_wal_replay_pause()'),
    resumeReplay: () => query(replicaConfig, 'select pg_wal_replay_resume()'),
    stopReplica,
    async stop() {
      await stopReplica();
      execFileSync(serverBin(), ['db', 'stop'], { env: { ...process.env, DATA_DIR: dataDir, RUST_LOG: 'warn' }, stdio: 'ignore' });
      rmSync(root, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export { withParam };
