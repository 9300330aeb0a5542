// The foundation through supabase-js: the gate refuses bad tokens with 401, health answers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '@supabase/supabase-js';
import { startServer } from '../lib/server.mjs';
import { signJwt } from '../lib/jwt.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server?.stop(); });

test('health answers 200 with the database reachable', async () => {
  const res = await fetch(`${server.url}/health`);
  assert.equal(res.status, 200);
  assert.equal((await res.json()).status, 'ok');
});

test('a forged service token is refused with 401 and a PostgREST error', async () => {
  const forged = signJwt({ role: 'service_role' }, 'not-the-secret-not-the-secret-not-the-secret');
  const client = createClient(server.url, server.anonKey, {
    global: { headers: { Authorization: `Bearer ${forged}` } },
    auth: { persistSession: false, autoRefreshToken: false },
  });
  const { error, status } = await client.from('anything').select();
  assert.equal(status, 401);
  assert.equal(error.code, 'PGRST301');
});

test('an expired token is refused with 401 JWT expired', async () => {
  const expired = signJwt({ role: 'authenticated', sub: 'x', exp: 1000 }, server.jwtSecret);
  const client = createClient(server.url, server.anonKey, {
    global: { headers: { Authorization: `Bearer ${expired}` } },
    auth: { persistSession: false, autoRefreshToken: false },
  });
  const { error, status } = await client.from('anything').select();
  assert.equal(status, 401);
  assert.equal(error.code, 'PGRST303');
  assert.equal(error.message, 'JWT expired');
});

test('a request without an apikey is refused', async () => {
  const res = await fetch(`${server.url}/rest/v1/anything`);
  assert.equal(res.status, 401);
  assert.equal((await res.json()).message, 'No API key found in request');
});
