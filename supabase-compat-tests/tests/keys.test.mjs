// Signing keys and the new API keys through supabase-js: sessions are ES256 tokens whose claims
// auth-js getClaims() verifies locally against /.well-known/jwks.json (no /user request), the
// same tokens open realtime channels, and clients made with the `sb_publishable_…` and
// `sb_secret_…` keys act as the anon and service roles on every surface.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '@supabase/supabase-js';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, sql, serverBin } from '../lib/server.mjs';
import { email } from '../lib/auth.mjs';

let server;
before(async () => {
  server = await startServer({ SIGNING_KEYS_RELOAD_SECONDS: '1' });
  await sql(server.dbUrl, `
    create table public.secrets (id int primary key, body text);
    alter table public.secrets enable row level security;
    insert into public.secrets values (1, 'only the service role reads this');
    notify pgrst, 'reload schema';`);
});
after(async () => { await server?.stop(); });

/** A client with `key` that records the URLs it fetches. */
function recordingClient(key) {
  const urls = [];
  const client = createClient(server.url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { fetch: (input, init) => { urls.push(String(input)); return fetch(input, init); } },
  });
  return { client, urls };
}

async function signedIn() {
  const admin = createClient(server.url, server.secretKey, { auth: { persistSession: false, autoRefreshToken: false } });
  const address = email('keys');
  const { error } = await admin.auth.admin.createUser({ email: address, password: 'secret-123', email_confirm: true });
  assert.equal(error, null);
  const { client, urls } = recordingClient(server.publishableKey);
  const { data, error: signInError } = await client.auth.signInWithPassword({ email: address, password: 'secret-123' });
  assert.equal(signInError, null);
  return { client, urls, session: data.session, address };
}

test('getClaims() verifies the ES256 session against the published JWKS without asking /user', async () => {
  const { client, urls, session, address } = await signedIn();
  const header = JSON.parse(Buffer.from(session.access_token.split('.')[0], 'base64url'));
  assert.equal(header.alg, 'ES256');
  urls.length = 0;
  const { data, error } = await client.auth.getClaims();
  assert.equal(error, null);
  assert.equal(data.claims.email, address);
  assert.equal(data.header.kid, header.kid);
  assert.ok(urls.some((u) => u.endsWith('/auth/v1/.well-known/jwks.json')), urls.join(' '));
  assert.ok(!urls.some((u) => u.includes('/auth/v1/user')), `verified locally: ${urls.join(' ')}`);

  // A token whose payload was changed after signing fails the local check.
  const [h, p, s] = session.access_token.split('.');
  const payload = JSON.parse(Buffer.from(p, 'base64url'));
  payload.role = 'service_role';
  const tampered = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
  const bad = await client.auth.getClaims(tampered);
  assert.equal(bad.data, null);
  assert.match(bad.error.message, /signature/i);
});

test('an ES256 session opens a realtime channel and reads through RLS as its user', async () => {
  const { client } = await signedIn();
  const { data, error } = await client.from('secrets').select();
  assert.equal(error, null);
  assert.deepEqual(data, [], 'RLS hides the row from the user');
  const channel = client.channel('room-es256');
  const status = await new Promise((resolve) => {
    channel.subscribe((s, err) => { if (s !== 'CLOSED') resolve(err ? `${s}: ${err.message}` : s); });
  });
  assert.equal(status, 'SUBSCRIBED');
  await client.removeAllChannels();
});

test('a client made with the publishable key is anon, with the secret key the service role', async () => {
  const anon = recordingClient(server.publishableKey).client;
  const anonRead = await anon.from('secrets').select();
  assert.equal(anonRead.error, null);
  assert.deepEqual(anonRead.data, []);
  const denied = await anon.auth.admin.listUsers();
  assert.equal(denied.error?.status, 403);

  const service = recordingClient(server.secretKey).client;
  const serviceRead = await service.from('secrets').select();
  assert.deepEqual(serviceRead.data, [{ id: 1, body: 'only the service role reads this' }]);
  const users = await service.auth.admin.listUsers();
  assert.equal(users.error, null);
  const bucket = await service.storage.createBucket('made-with-secret-key');
  assert.equal(bucket.error, null);
  const channel = anon.channel('room-publishable');
  const status = await new Promise((resolve) => {
    channel.subscribe((s, err) => { if (s !== 'CLOSED') resolve(err ? `${s}: ${err.message}` : s); });
  });
  assert.equal(status, 'SUBSCRIBED');
  await anon.removeAllChannels();
});

test('the secret key is refused from a browser User-Agent', async () => {
  const res = await fetch(`${server.url}/rest/v1/secrets`, {
    headers: {
      apikey: server.secretKey,
      authorization: `Bearer ${server.secretKey}`,
      'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36',
    },
  });
  assert.equal(res.status, 401);
  assert.equal((await res.json()).message, 'Forbidden use of secret API key in browser');
});

/** `server keys <args>` on the test server's database; its output. */
function keysCli(...args) {
  return execFileSync(serverBin(), ['keys', ...args], {
    env: { ...process.env, DATABASE_URL: server.dbUrl, JWT_SECRET: server.jwtSecret, RUST_LOG: 'error' },
    encoding: 'utf8',
  });
}

async function eventually(what, check) {
  const deadline = Date.now() + 15000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('a token of a rotated-out, revoked key is refused by rest, storage, realtime and auth', async () => {
  const { client: user, session } = await signedIn();
  const oldKid = JSON.parse(Buffer.from(session.access_token.split('.')[0], 'base64url')).kid;
  keysCli('new');
  keysCli('rotate');
  await eventually('new sessions are signed by the new key', async () => {
    const { session: fresh } = await signedIn();
    return JSON.parse(Buffer.from(fresh.access_token.split('.')[0], 'base64url')).kid !== oldKid;
  });
  assert.equal((await user.from('secrets').select()).error, null, 'a previously used key still verifies');
  keysCli('revoke', oldKid);
  await eventually('the revoked key is refused', async () => (await user.from('secrets').select()).status === 401);

  const storage = await user.storage.listBuckets();
  assert.ok(storage.error, 'storage refuses it');
  const auth = await user.auth.getUser(session.access_token);
  assert.equal(auth.error?.status, 403, 'auth refuses it');
  const jwks = await (await fetch(`${server.url}/auth/v1/.well-known/jwks.json`)).json();
  assert.ok(!jwks.keys.some((k) => k.kid === oldKid), 'it is no longer published');
  const channel = user.channel('room-revoked');
  const status = await new Promise((resolve) => {
    channel.subscribe((s) => { if (s !== 'SUBSCRIBED' && s !== 'CLOSED') resolve(s); else if (s === 'SUBSCRIBED') resolve(s); });
  });
  assert.notEqual(status, 'SUBSCRIBED', 'realtime refuses it');
  await user.removeAllChannels();
});

test('an RSA key moved from a Supabase project as a private JWK keeps its kid: its tokens verify here', async () => {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = crypto.randomUUID();
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', key_ops: ['sign', 'verify'] };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'jwk-')), 'signing_keys.json');
  fs.writeFileSync(file, JSON.stringify([jwk]));
  keysCli('new', '--jwk', file);
  const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const head = b64({ alg: 'RS256', typ: 'JWT', kid });
  const body = b64({ sub: crypto.randomUUID(), role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 600 });
  const signature = crypto.sign('RSA-SHA256', Buffer.from(`${head}.${body}`), privateKey).toString('base64url');
  const token = `${head}.${body}.${signature}`;
  const rest = createClient(server.url, server.publishableKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    global: { headers: { Authorization: `Bearer ${token}` } },
  });
  await eventually('the moved key verifies its token', async () => (await rest.from('secrets').select()).status === 200);
  const jwks = await (await fetch(`${server.url}/auth/v1/.well-known/jwks.json`)).json();
  const published = jwks.keys.find((k) => k.kid === kid);
  assert.equal(published?.kty, 'RSA');
  assert.equal(published.d, undefined, 'no private part is published');
});
