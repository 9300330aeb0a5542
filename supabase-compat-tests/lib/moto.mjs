// moto's S3 server (from the virtual environment `make setup` builds), on a free port, with one
// bucket: the S3-compatible store of the tests that run the `s3` storage backend.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(here, '..', '.venv', 'bin', 'moto_server');

/**
 * Start moto and create `bucket` in it. Resolves to { endpoint, bucket, env, stop() }, where `env`
 * is the server's settings for the `s3` backend on that bucket.
 */
export async function startMoto(bucket = 'storage') {
  if (!existsSync(bin)) throw new Error(`no moto_server at ${bin}: run \`make setup\``);
  const port = await freePort();
  const child = spawn(bin, ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30000;
  for (;;) {
    try {
      const res = await fetch(`${endpoint}/${bucket}`, { method: 'PUT' });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill();
      throw new Error('moto_server did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    endpoint,
    bucket,
    env: {
      STORAGE_BACKEND: 's3',
      GLOBAL_S3_BUCKET: bucket,
      GLOBAL_S3_ENDPOINT: endpoint,
      GLOBAL_S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
