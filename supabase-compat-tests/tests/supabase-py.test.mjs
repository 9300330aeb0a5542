// The server through supabase-py (PyPI `supabase`, storage3 and supabase-auth): the Python
// tests of python/test_storage.py run against a server started here, in the virtual
// environment `make setup` builds (supabase-compat-tests/.venv, from python/requirements.txt).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { createClient } from '@supabase/supabase-js';
import { startServer } from '../lib/server.mjs';

const python = new URL('../.venv/bin/python', import.meta.url).pathname;
const fixture = readFileSync(new URL('../fixtures/storage.sql', import.meta.url), 'utf8');
let server;

before(async () => {
  server = await startServer({ MAILER_AUTOCONFIRM: 'true' }, { fixture });
  const admin = createClient(server.url, server.serviceKey, { auth: { persistSession: false } });
  const { error } = await admin.storage.createBucket('private', { public: false });
  assert.equal(error, null);
});
after(async () => { await server?.stop(); });

test('supabase-py: buckets, objects, signed URLs and row-level security', async () => {
  assert.ok(existsSync(python), `no Python environment at ${python}: run \`make setup\``);
  const env = {
    ...process.env,
    SUPABASE_URL: server.url,
    SUPABASE_SERVICE_KEY: server.serviceKey,
    SUPABASE_ANON_KEY: server.anonKey,
  };
  const { code, output } = await new Promise((resolve) => {
    execFile(python, ['-m', 'unittest', '-v', 'test_storage'], { env, cwd: new URL('../python', import.meta.url).pathname },
      (err, stdout, stderr) => resolve({ code: err ? err.code ?? 1 : 0, output: stdout + stderr }));
  });
  assert.equal(code, 0, output);
  assert.match(output, /Ran 3 tests/);
  assert.match(output, /\nOK\n?$/);
});
