// Edge Functions called with unchanged supabase-js (`functions.invoke`) on a server running a
// project folder: examples/todo/supabase plus functions written here, run by real Deno (the
// pinned one, FUNCTIONS_DENO_BIN). A function calls the server back with the caller's token, so
// the migrations' row-level security decides what it reads.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, FunctionsFetchError, FunctionsHttpError, FunctionsRelayError } from '@supabase/supabase-js';
import { startServer } from '../lib/server.mjs';
import { signJwt } from '../lib/jwt.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const opts = { auth: { persistSession: false, autoRefreshToken: false } };
const ALICE = '00000000-0000-4000-8000-000000000001';
const deno = process.env.FUNCTIONS_DENO_BIN
  || path.join(repo, 'server', 'functions-runtime', 'node_modules', '@deno', 'linux-x64-glibc', 'deno');

// The CORS answer of Supabase's function template.
const CORS = `const cors = { 'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'authorization, x-client-info, apikey, content-type' };`;

const FUNCTIONS = {
  hello: `${CORS}
Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: cors });
  const { name } = await req.json();
  return new Response(JSON.stringify({ message: \`Hello \${name}!\` }), { headers: { ...cors, 'Content-Type': 'application/json' } });
});`,
  'my-todos': `
Deno.serve(async (req) => {
  const answer = await fetch(Deno.env.get('SUPABASE_URL') + '/rest/v1/todos?select=task&order=id', {
    headers: { apikey: Deno.env.get('SUPABASE_ANON_KEY'), authorization: req.headers.get('authorization') },
  });
  return Response.json(await answer.json());
});`,
  refuses: `Deno.serve(() => Response.json({ reason: 'no such booking' }, { status: 400 }));`,
  text: `Deno.serve(() => new Response('plain words', { headers: { 'content-type': 'text/plain' } }));`,
  // functions-js's own suite's mirror, shortened: how the request arrived.
  mirror: `
Deno.serve(async (req) => {
  const type = req.headers.get('content-type') ?? '';
  const body = type.startsWith('multipart/form-data')
    ? [...(await req.formData()).entries()].map(([k, v]) => [k, String(v)])
    : await req.text();
  const url = new URL(req.url);
  return Response.json({ method: req.method, url: req.url, path: url.pathname, search: url.search, type, body,
    region: req.headers.get('x-region') });
});`,
  slow: `Deno.serve(async () => { await new Promise((r) => setTimeout(r, 3000)); return new Response('slow'); });`,
};

let server;
before(async () => {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'functions-project-')), 'supabase');
  cpSync(path.join(repo, 'examples', 'todo', 'supabase'), dir, { recursive: true });
  for (const [name, source] of Object.entries(FUNCTIONS)) {
    mkdirSync(path.join(dir, 'functions', name), { recursive: true });
    writeFileSync(path.join(dir, 'functions', name, 'index.ts'), source);
  }
  server = await startServer({ SUPABASE_PROJECT_DIR: dir, FUNCTIONS_DENO_BIN: deno });
});
after(async () => { await server?.stop(); });

test('functions.invoke sends the JSON body and gets the JSON answer', async () => {
  const supabase = createClient(server.url, server.anonKey, opts);
  const { data, error } = await supabase.functions.invoke('hello', { body: { name: 'Functions' } });
  assert.equal(error, null);
  assert.deepEqual(data, { message: 'Hello Functions!' });
});

test("a function reads through the API with the caller's token, so row-level security decides", async () => {
  const token = signJwt({ sub: ALICE, role: 'authenticated', aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + 3600 }, server.jwtSecret);
  const alice = createClient(server.url, server.anonKey, { ...opts, global: { headers: { Authorization: `Bearer ${token}` } } });
  const { data, error } = await alice.functions.invoke('my-todos', { method: 'GET' });
  assert.equal(error, null);
  assert.deepEqual(data.map((t) => t.task), ['Water the plants', 'Call the garage']);
  const { data: anonymous } = await createClient(server.url, server.anonKey, opts).functions.invoke('my-todos', { method: 'GET' });
  assert.deepEqual(anonymous, []);
});

test("a function's error answer and a missing function are FunctionsHttpErrors with the response", async () => {
  const supabase = createClient(server.url, server.anonKey, opts);
  const refused = await supabase.functions.invoke('refuses', { body: {} });
  assert.ok(refused.error instanceof FunctionsHttpError);
  assert.equal(refused.error.context.status, 400);
  assert.deepEqual(await refused.error.context.json(), { reason: 'no such booking' });
  const missing = await supabase.functions.invoke('nowhere');
  assert.ok(missing.error instanceof FunctionsHttpError);
  assert.equal(missing.error.context.status, 404);
  assert.equal(await missing.error.context.text(), 'Function not found');
});

test('a text answer is returned as text', async () => {
  const { data, error } = await createClient(server.url, server.anonKey, opts).functions.invoke('text');
  assert.equal(error, null);
  assert.equal(data, 'plain words');
});

test("a browser's preflight for functions.invoke's headers is allowed", async () => {
  const response = await fetch(`${server.url}/functions/v1/hello`, {
    method: 'OPTIONS',
    headers: {
      Origin: 'http://localhost:5173',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization, x-client-info, apikey, content-type, x-region',
    },
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('access-control-allow-origin'), '*');
  await response.arrayBuffer();
});

// What functions-js's own live suite (packages/core/functions-js, run against this server) taught.

test('a refused token is a FunctionsRelayError, not the function\'s FunctionsHttpError', async () => {
  const forged = signJwt({ role: 'anon', exp: Math.floor(Date.now() / 1000) + 3600 }, 'another-secret-another-secret-another-secret');
  const { data, error } = await createClient(server.url, forged, opts).functions.invoke('hello', { body: { name: 'x' } });
  assert.equal(data, null);
  assert.ok(error instanceof FunctionsRelayError, String(error));
  assert.equal(error.context.status, 401);
});

test('form data, a Blob and an ArrayBuffer reach the function as sent, with the region', async () => {
  const supabase = createClient(server.url, server.anonKey, opts);
  const form = new FormData();
  form.append('one', '1');
  form.append('two', 'deux');
  const sent = await supabase.functions.invoke('mirror', { body: form, region: 'eu-west-3' });
  assert.equal(sent.error, null);
  assert.deepEqual(sent.data.body, [['one', '1'], ['two', 'deux']]);
  assert.equal(sent.data.region, 'eu-west-3');
  assert.equal(sent.data.search, '?forceFunctionRegion=eu-west-3');
  const blob = await supabase.functions.invoke('mirror', { body: new Blob(['blob words'], { type: 'text/plain' }) });
  assert.deepEqual([blob.data.body, blob.data.type], ['blob words', 'text/plain']);
  const buffer = await supabase.functions.invoke('mirror', { body: new TextEncoder().encode('buffer words').buffer });
  assert.deepEqual([buffer.data.body, buffer.data.type], ['buffer words', 'application/octet-stream']);
});

test('the function sees the URL it was called at, without /functions/v1, cold and warm', async () => {
  const supabase = createClient(server.url, server.anonKey, opts);
  const seen = [];
  for (let i = 0; i < 5; i += 1) {
    const { data, error } = await supabase.functions.invoke('mirror/deep?x=1', { method: 'GET' });
    assert.equal(error, null);
    seen.push(data.url);
  }
  assert.deepEqual(seen, Array(5).fill(`${new URL(server.url).origin}/mirror/deep?x=1`));
});

test('an invoke past its timeout is a FunctionsFetchError, one within it gets the answer', async () => {
  const supabase = createClient(server.url, server.anonKey, opts);
  const cut = await supabase.functions.invoke('slow', { timeout: 500 });
  assert.ok(cut.error instanceof FunctionsFetchError, String(cut.error));
  const waited = await supabase.functions.invoke('slow', { timeout: 10000 });
  assert.equal(waited.error, null);
  assert.equal(waited.data, 'slow');
});

test('a preflight is answered by the function alone: its own header list, nothing added', async () => {
  const response = await fetch(`${server.url}/functions/v1/hello`, {
    method: 'OPTIONS',
    headers: {
      Origin: 'https://example.com',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization, x-supabase-new-feature',
    },
  });
  // What the function template answers, as on Supabase: a header it does not list stays unlisted.
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('access-control-allow-headers'), 'authorization, x-client-info, apikey, content-type');
  assert.equal(response.headers.get('access-control-allow-methods'), null);
  assert.equal(response.headers.get('access-control-max-age'), null);
  assert.equal(await response.text(), 'ok');
});
