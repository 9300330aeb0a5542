// WebSockets inside Edge Functions, as Supabase documents them ("Handling WebSockets"): a
// function calls `Deno.upgradeWebSocket(req)`; a browser connects to
// ws://<host>/functions/v1/<name> with the key in `?apikey=` (a browser's WebSocket cannot send
// an Authorization header). Real server, real Deno, Node's WebSocket (undici) as the client.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../lib/server.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const deno = process.env.FUNCTIONS_DENO_BIN
  || path.join(repo, 'server', 'functions-runtime', 'node_modules', '@deno', 'linux-x64-glibc', 'deno');
/** The wall-clock limit of this file's server: a socket open longer is ended by it. */
const WALL_CLOCK_SECS = 6;

const FUNCTIONS = {
  // Supabase's example, echoing instead of sending the date; "bye" makes it close with its code.
  echo: `
Deno.serve((req) => {
  const upgrade = req.headers.get('upgrade') || '';
  if (upgrade.toLowerCase() != 'websocket') {
    return new Response("request isn't trying to upgrade to WebSocket.", { status: 400 });
  }
  const { socket, response } = Deno.upgradeWebSocket(req);
  socket.onmessage = (e) => {
    if (e.data === 'bye') socket.close(4000, 'see you');
    else socket.send(e.data);
  };
  return response;
});`,
  refuses: `Deno.serve(() => Response.json({ error: 'no sockets here' }, { status: 400 }));`,
  hello: `Deno.serve(() => new Response('still answering'));`,
};

let server;
before(async () => {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'functions-ws-project-')), 'supabase');
  cpSync(path.join(repo, 'examples', 'todo', 'supabase'), dir, { recursive: true });
  for (const [name, source] of Object.entries(FUNCTIONS)) {
    mkdirSync(path.join(dir, 'functions', name), { recursive: true });
    writeFileSync(path.join(dir, 'functions', name, 'index.ts'), source);
  }
  server = await startServer({
    SUPABASE_PROJECT_DIR: dir,
    FUNCTIONS_DENO_BIN: deno,
    FUNCTIONS_WALL_CLOCK_SECS: String(WALL_CLOCK_SECS),
  });
});
after(async () => { if (process.env.SHOW_LOGS) console.error(server?.logs()); await server?.stop(); });

function wsUrl(name, key = server.anonKey) {
  return `${server.url.replace(/^http/, 'ws')}/functions/v1/${name}${key ? `?apikey=${key}` : ''}`;
}

/** A socket, the frames it receives, and promises of its opening and closing. */
function connect(url) {
  const socket = new WebSocket(url);
  socket.binaryType = 'arraybuffer';
  const frames = [];
  const waiters = [];
  socket.onmessage = (event) => {
    frames.push(event.data instanceof ArrayBuffer ? [...new Uint8Array(event.data)] : event.data);
    for (const waiter of waiters.splice(0)) waiter();
  };
  const opened = new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error('the socket failed'));
  });
  const closed = new Promise((resolve) => { socket.onclose = (e) => resolve({ code: e.code, reason: e.reason, at: Date.now() }); });
  const received = async (n) => {
    while (frames.length < n) await new Promise((resolve) => waiters.push(resolve));
    return frames;
  };
  return { socket, frames, opened, closed, received };
}

/** A raw handshake over HTTP/1.1: the status and body of the answer (101: no body read). */
function handshake(pathAndQuery, headers = {}) {
  return new Promise((resolve, reject) => {
    const url = new URL(server.url);
    const req = http.request({
      host: url.hostname, port: url.port, path: pathAndQuery,
      headers: {
        connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13',
        'sec-websocket-key': Buffer.from('0123456789abcdef').toString('base64'), ...headers,
      },
    });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve({ status: res.statusCode, headers: res.headers }); });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('an echo function echoes text and binary frames, and its close code and reason reach the client', async () => {
  const client = connect(wsUrl('echo'));
  await client.opened;
  client.socket.send('one');
  client.socket.send(new Uint8Array([0, 1, 2, 255]));
  client.socket.send('deux');
  client.socket.send(new Uint8Array(70_000).fill(7));
  const frames = await client.received(4);
  client.socket.send('bye');
  const closed = await client.closed;

  assert.deepEqual(frames.slice(0, 3), ['one', [0, 1, 2, 255], 'deux']);
  assert.equal(frames[3].length, 70_000);
  assert.ok(frames[3].every((b) => b === 7));
  assert.deepEqual([closed.code, closed.reason], [4000, 'see you']);
});

test('the 101 carries the accept key of the client\'s handshake', async () => {
  const answer = await handshake(`/functions/v1/echo?apikey=${server.anonKey}`);
  assert.equal(answer.status, 101);
  // RFC 6455's accept of the key "0123456789abcdef" (base64): SHA-1 of key + GUID.
  const { createHash } = await import('node:crypto');
  const key = Buffer.from('0123456789abcdef').toString('base64');
  const accept = createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  assert.equal(answer.headers['sec-websocket-accept'], accept);
});

test('a function that refuses the upgrade gives the client its 400 and body', async () => {
  const answer = await handshake(`/functions/v1/refuses?apikey=${server.anonKey}`);
  assert.equal(answer.status, 400);
  assert.deepEqual(JSON.parse(answer.body), { error: 'no sockets here' });
  const client = connect(wsUrl('refuses'));
  await assert.rejects(client.opened);
});

test('verify_jwt applies to the handshake: no key is refused, a bad one too, the Authorization header works', async () => {
  const none = await handshake('/functions/v1/echo');
  assert.equal(none.status, 401);
  assert.equal(none.headers['x-relay-error'], 'true');
  const bad = await handshake('/functions/v1/echo?apikey=not-a-jwt');
  assert.equal(bad.status, 401);
  const header = await handshake('/functions/v1/echo', { authorization: `Bearer ${server.anonKey}` });
  assert.equal(header.status, 101);
});

test('other functions, and the same one, keep answering while a socket is open', async () => {
  const client = connect(wsUrl('echo'));
  await client.opened;

  const other = await fetch(`${server.url}/functions/v1/hello`, { headers: { authorization: `Bearer ${server.anonKey}` } });
  const same = await fetch(`${server.url}/functions/v1/echo`, { headers: { authorization: `Bearer ${server.anonKey}` } });

  assert.deepEqual([other.status, await other.text()], [200, 'still answering']);
  assert.deepEqual([same.status, await same.text()], [400, "request isn't trying to upgrade to WebSocket."]);
  client.socket.send('still open');
  assert.deepEqual(await client.received(1), ['still open']);
  client.socket.close(1000, 'done');
  const closed = await client.closed;
  assert.equal(closed.code, 1000);
});

test('the wall-clock limit of the isolate ends an open socket', async () => {
  const client = connect(wsUrl('echo'));
  await client.opened;
  const opened = Date.now();
  const closed = await client.closed;
  const lasted = (closed.at - opened) / 1000;
  assert.ok(lasted > WALL_CLOCK_SECS - 2 && lasted < WALL_CLOCK_SECS + 5, `closed after ${lasted} s`);
  assert.equal(closed.code, 1011);
  // The function answers again afterwards.
  const again = connect(wsUrl('echo'));
  await again.opened;
  again.socket.send('back');
  assert.deepEqual(await again.received(1), ['back']);
  again.socket.close(1000);
  await again.closed;
});
