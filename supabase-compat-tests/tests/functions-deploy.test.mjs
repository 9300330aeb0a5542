// Deployed Edge Functions with unchanged supabase-js: a function deployed through the management
// API (`/v1/projects/{ref}/functions/deploy`, multipart as `supabase functions deploy --use-api`
// sends it) on one instance is invoked on a second instance of the same database within seconds;
// a secret set through the API is in the function's Deno.env; requests in flight on the second
// instance during a redeploy are all answered.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@supabase/supabase-js';
import { startServer } from '../lib/server.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const opts = { auth: { persistSession: false, autoRefreshToken: false } };
const deno = process.env.FUNCTIONS_DENO_BIN
  || path.join(repo, 'server', 'functions-runtime', 'node_modules', '@deno', 'linux-x64-glibc', 'deno');

const source = (word) => `
import { shout } from "../_shared/shout.ts";
Deno.serve(async (req) => {
  const { wait } = await req.json().catch(() => ({}));
  if (wait) await new Promise((r) => setTimeout(r, wait));
  return Response.json({ word: shout("${word}"), secret: Deno.env.get("GREETING") ?? null });
});`;

let first;
let second;
before(async () => {
  const env = { FUNCTIONS_DENO_BIN: deno, SUPABASE_PROJECT_DIR: '' };
  first = await startServer(env);
  second = await startServer(env, { dbUrl: first.dbUrl, jwtSecret: first.jwtSecret });
});
after(async () => {
  await second?.stop();
  await first?.stop();
});

async function deploy(server, slug, word) {
  const form = new FormData();
  form.append('metadata', JSON.stringify({ name: slug, entrypoint_path: `supabase/functions/${slug}/index.ts`, verify_jwt: true }));
  form.append('file', new Blob([source(word)]), `supabase/functions/${slug}/index.ts`);
  form.append('file', new Blob(['export const shout = (w: string) => w.toUpperCase();']), 'supabase/functions/_shared/shout.ts');
  const response = await fetch(`${server.url}/v1/projects/local/functions/deploy?slug=${slug}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.serviceKey}` },
    body: form,
  });
  assert.equal(response.status, 201, await response.clone().text());
  return response.json();
}

// Long enough for the second instance to start its Deno child at its first deployed function
// (seconds on a loaded machine), which the first invocation there waits for.
async function until(check, ms = 30000) {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value || Date.now() - started > ms) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a function deployed on one instance is invoked through supabase-js on the other within seconds', async () => {
  const deployed = await deploy(first, 'greet', 'one');
  assert.equal(deployed.slug, 'greet');
  const supabase = createClient(second.url, second.anonKey, opts);
  const started = Date.now();
  const data = await until(async () => (await supabase.functions.invoke('greet', { body: {} })).data);
  assert.deepEqual(data, { word: 'ONE', secret: null });
  assert.ok(Date.now() - started < 30000);
});

test("a secret set through the API is in the function's Deno.env on every instance", async () => {
  await deploy(first, 'greet', 'one');
  const set = await fetch(`${first.url}/v1/projects/local/secrets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${first.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify([{ name: 'GREETING', value: 'bonjour' }]),
  });
  assert.equal(set.status, 201);
  const supabase = createClient(second.url, second.anonKey, opts);
  const data = await until(async () => {
    const { data } = await supabase.functions.invoke('greet', { body: {} });
    return data?.secret === 'bonjour' ? data : null;
  });
  assert.deepEqual(data, { word: 'ONE', secret: 'bonjour' });
});

test('requests in flight on the second instance during a redeploy are all answered', async () => {
  await deploy(first, 'greet', 'one');
  const supabase = createClient(second.url, second.anonKey, opts);
  await until(async () => (await supabase.functions.invoke('greet', { body: {} })).data?.word === 'ONE');
  const inFlight = Array.from({ length: 6 }, () => supabase.functions.invoke('greet', { body: { wait: 1500 } }));
  await new Promise((r) => setTimeout(r, 300));
  await deploy(first, 'greet', 'two');
  for (const { data, error } of await Promise.all(inFlight)) {
    assert.equal(error, null);
    assert.equal(data.word, 'ONE');
  }
  const after = await until(async () => (await supabase.functions.invoke('greet', { body: {} })).data?.word === 'TWO');
  assert.ok(after, 'the new version is served after the deploy');
});
