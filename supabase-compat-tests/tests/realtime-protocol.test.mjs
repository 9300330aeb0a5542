// /realtime/v1 on the wire, with raw WebSockets (Node's native `WebSocket`) and raw HTTP, for
// what supabase-js does not exercise: the refused upgrades, the exact frames of both serializers
// (heartbeat, join, leave, close, broadcast, system), bad input (frames that cannot be read,
// unknown topics and events, bad postgres_changes bindings, a malformed access token), the
// TENANT_MAX_* limits, and the REST broadcast endpoints' refusals. After all of it the servers
// still answer /health and never panicked.
//
// Expected shapes are Supabase Realtime's (Phoenix's V1/V2 serializers), except where this
// server documents a choice of its own (docs/realtime.md, "Bad input"): a frame that cannot be
// read and an unknown event get an error reply instead of being ignored, and a bad binding
// refuses the join at once.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { startServer, sql } from '../lib/server.mjs';
import { signJwt } from '../lib/jwt.mjs';
import { DEADLINE, waitFor, userToken, topicName } from '../lib/realtime.mjs';

const USER = 'cccccccc-0000-4000-8000-0000000000c1';
const fixture = `
  create table public.rt_things (id int primary key, name text);
  alter publication supabase_realtime add table public.rt_things;
  create table public.rt_unpublished (id int primary key);
  -- private channels: authenticated users may read and write 'guarded' only; anon nothing.
  create policy rt_guarded_read on realtime.messages for select to authenticated
    using (realtime.topic() = 'guarded');
  create policy rt_guarded_write on realtime.messages for insert to authenticated
    with check (realtime.topic() = 'guarded');
`;

/** Default limits. */
let main;
/** TENANT_MAX_PAYLOAD_SIZE_IN_KB=1, TENANT_MAX_CHANNELS_PER_CLIENT=2, TENANT_MAX_EVENTS_PER_SECOND=5. */
let limited;
/** TENANT_MAX_JOINS_PER_SECOND=3, TENANT_MAX_CONCURRENT_USERS=2. */
let crowded;

before(async () => {
  [main, limited, crowded] = await Promise.all([
    startServer({}, { fixture }),
    startServer({
      TENANT_MAX_PAYLOAD_SIZE_IN_KB: '1',
      TENANT_MAX_CHANNELS_PER_CLIENT: '2',
      TENANT_MAX_EVENTS_PER_SECOND: '5',
    }),
    startServer({ TENANT_MAX_JOINS_PER_SECOND: '3', TENANT_MAX_CONCURRENT_USERS: '2' }),
  ]);
});
afterEach(closeAll);
after(async () => {
  await closeAll();
  await Promise.all([main, limited, crowded].filter(Boolean).map(async (server) => {
    await server.stop();
    // The postgres_changes join made this database a replication slot: drop it, or it would
    // hold WAL (and one of the cluster's few slots) forever.
    await sql(server.dbUrl, `select pg_drop_replication_slot(slot_name) from pg_replication_slots
      where database = current_database() and not active`);
  }));
});

// ---------------------------------------------------------------------------------------------
// Raw clients

const now = () => Math.floor(Date.now() / 1000);
const wsUrl = (server, params) =>
  `${server.url.replace(/^http/, 'ws')}/realtime/v1/websocket?${new URLSearchParams(params)}`;

/** One frame as received: normalised fields plus the raw text (or bytes for binary frames). */
function decode(vsn, data) {
  if (typeof data !== 'string') return { binary: new Uint8Array(data) };
  const value = JSON.parse(data);
  if (vsn === '2.0.0') {
    const [join_ref, ref, topic, event, payload] = value;
    return { join_ref, ref, topic, event, payload, value, text: data };
  }
  return { ...value, value, text: data };
}

const sockets = new Set();

/**
 * A raw Phoenix client. `frames` holds everything received, in order; `push` sends a message
 * with a fresh ref; `join` sends phx_join (join_ref = its ref) and resolves with the reply.
 */
class Raw {
  constructor(server, { vsn = '2.0.0', key = server.anonKey } = {}) {
    this.vsn = vsn;
    this.frames = [];
    this.seq = 0;
    this.closed = null;
    this.ws = new WebSocket(wsUrl(server, { apikey: key, vsn }));
    this.ws.binaryType = 'arraybuffer';
    this.ws.addEventListener('message', (e) => this.frames.push(decode(vsn, e.data)));
    this.ws.addEventListener('close', (e) => { this.closed = { code: e.code, reason: e.reason }; });
    this.opened = new Promise((resolve, reject) => {
      this.ws.addEventListener('open', () => resolve(this), { once: true });
      this.ws.addEventListener('error', () => reject(new Error('the WebSocket did not open')), { once: true });
    });
    this.opened.catch(() => {});
    sockets.add(this);
  }

  static open(server, opts) {
    return new Raw(server, opts).opened;
  }

  ref() {
    this.seq += 1;
    return String(this.seq);
  }

  /** Send `[join_ref, ref, topic, event, payload]` (or its 1.0.0 object); returns the ref. */
  push(topic, event, payload, { joinRef = null, ref = this.ref() } = {}) {
    this.ws.send(this.vsn === '2.0.0'
      ? JSON.stringify([joinRef, ref, topic, event, payload])
      : JSON.stringify({ topic, event, payload, ref, join_ref: joinRef }));
    return ref;
  }

  send(data) {
    this.ws.send(data);
  }

  /** The first frame from index `from` on matching `pred`, once it arrives. */
  find(pred, what = String(pred), from = 0) {
    return waitFor(() => this.frames.slice(from).find((f) => !f.binary && pred(f)), DEADLINE, what);
  }

  /** The phx_reply to `ref`. */
  reply(ref) {
    return this.find((f) => f.event === 'phx_reply' && f.ref === ref, `the reply to ref ${ref}`);
  }

  /** Send phx_join; resolves with { joinRef, reply } (the whole reply frame). */
  async join(topic, config = {}, extra = {}) {
    const ref = this.ref();
    this.push(topic, 'phx_join', { config, ...extra }, { joinRef: ref, ref });
    return { joinRef: ref, reply: await this.reply(ref) };
  }

  /** Join and insist on an ok reply; resolves with the join_ref. */
  async joined(topic, config = { broadcast: { self: true } }, extra = {}) {
    const { joinRef, reply } = await this.join(topic, config, extra);
    assert.equal(reply.payload.status, 'ok', `join ${topic}: ${reply.text}`);
    return joinRef;
  }

  /** A broadcast (self: true) sent on `topic` comes back to this socket. */
  async roundTrip(topic, joinRef) {
    const n = randomBytes(6).toString('hex');
    const from = this.frames.length;
    this.push(topic, 'broadcast', { type: 'broadcast', event: 'ping', payload: { n } }, { joinRef });
    const got = await this.find(
      (f) => f.event === 'broadcast' && f.topic === topic && f.payload?.payload?.n === n,
      `the broadcast ${n} back on ${topic}`,
      from,
    );
    assert.equal(got.payload.event, 'ping');
  }

  /** A heartbeat is answered: everything this socket caused before it has been sent. */
  async heartbeat() {
    const ref = this.push('phoenix', 'heartbeat', {});
    const reply = await this.reply(ref);
    assert.equal(reply.payload.status, 'ok');
  }

  /** Frames received so far matching `pred`. */
  all(pred) {
    return this.frames.filter((f) => !f.binary && pred(f));
  }

  close() {
    sockets.delete(this);
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close();
  }
}

/** Open a socket, retrying while the server refuses it (sockets of earlier tests may still be
 * counted against TENANT_MAX_CONCURRENT_USERS for a moment after they closed). */
async function openRetry(server, opts) {
  const deadline = Date.now() + DEADLINE;
  for (;;) {
    try {
      return await Raw.open(server, opts);
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function closeAll() {
  for (const s of [...sockets]) s.close();
}

/** A bare `[join_ref, ref, topic, event, payload]` for comparisons, from a 2.0.0 frame. */
const wire = (f) => f.value;

/**
 * A WebSocket upgrade request made with node:http, so that a refusal's status and body can be
 * read (the WebSocket API hides them). Resolves { status: 101 } or { status, type, body }.
 */
function upgrade(server, params, headers = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(`/realtime/v1/websocket?${new URLSearchParams(params)}`, server.url);
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path: u.pathname + u.search,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
        'Sec-WebSocket-Version': '13',
        ...headers,
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A native WebSocket to these parameters fails (error event) without ever opening. */
async function neverOpens(server, params) {
  const ws = new WebSocket(wsUrl(server, params));
  const outcome = await new Promise((resolve) => {
    ws.addEventListener('open', () => resolve('open'), { once: true });
    ws.addEventListener('error', () => resolve('error'), { once: true });
  });
  if (outcome === 'open') ws.close();
  assert.equal(outcome, 'error');
  assert.notEqual(ws.readyState, WebSocket.OPEN);
}

const refused = (status, error) => ({ status, type: 'application/json', body: JSON.stringify({ error }) });
/** An upgrade's answer with its media type (without parameters) and its body re-serialised. */
const parsed = (res) => ({
  ...res,
  type: res.type?.split(';')[0].trim(),
  body: res.body === '' ? '' : JSON.stringify(JSON.parse(res.body)),
});

/** POST to a REST broadcast endpoint; resolves { status, body (text) }. */
async function post(server, path, body, { key = server.anonKey, bearer, type = 'application/json' } = {}) {
  const headers = { 'content-type': type };
  if (key) headers.apikey = key;
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const res = await fetch(`${server.url}/realtime/v1/api/${path}`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.text() };
}

const rt = (tag) => `realtime:${topicName(tag)}`;
const bytes = (...parts) => {
  const enc = new TextEncoder();
  return Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...enc.encode(p)] : Array.isArray(p) ? p : [p])));
};

// ---------------------------------------------------------------------------------------------
// The upgrade

test('an upgrade without an apikey is refused with 401 {"error":"API key is missing"} and a WebSocket never opens', async () => {
  assert.deepEqual(parsed(await upgrade(main, { vsn: '2.0.0' })), refused(401, 'API key is missing'));
  await neverOpens(main, { vsn: '2.0.0' });
});

test('an upgrade with a key signed with another secret is refused with 401 {"error":"Failed to validate JWT signature"}', async () => {
  const forged = signJwt({ role: 'service_role', exp: now() + 3600 }, randomBytes(32).toString('hex'));
  assert.deepEqual(parsed(await upgrade(main, { vsn: '2.0.0', apikey: forged })), refused(401, 'Failed to validate JWT signature'));
  await neverOpens(main, { vsn: '2.0.0', apikey: forged });
});

test('an upgrade with a key that is not a JWT is refused with 401 {"error":"The token provided is not a valid JWT"}', async () => {
  assert.deepEqual(
    parsed(await upgrade(main, { vsn: '1.0.0', apikey: 'not-a-jwt' })),
    refused(401, 'The token provided is not a valid JWT'),
  );
});

test('an upgrade with a key that expired an hour ago is refused with 401 {"error":"Token has expired"}', async () => {
  const expired = signJwt({ role: 'anon', iat: now() - 7200, exp: now() - 3600 }, main.jwtSecret);
  assert.deepEqual(parsed(await upgrade(main, { vsn: '2.0.0', apikey: expired })), refused(401, 'Token has expired'));
  await neverOpens(main, { vsn: '2.0.0', apikey: expired });
});

test('an upgrade with a key that has no exp is refused with 401 {"error":"Fields `role` and `exp` are required in JWT"}', async () => {
  const noExp = signJwt({ role: 'anon' }, main.jwtSecret);
  assert.deepEqual(
    parsed(await upgrade(main, { vsn: '2.0.0', apikey: noExp })),
    refused(401, 'Fields `role` and `exp` are required in JWT'),
  );
});

test('an upgrade or a join with a token that has no role, or the login role authenticator, is refused', async () => {
  const noRole = signJwt({ sub: 'someone', exp: now() + 3600 }, main.jwtSecret);
  const login = signJwt({ role: 'authenticator', exp: now() + 3600 }, main.jwtSecret);
  assert.deepEqual(parsed(await upgrade(main, { vsn: '2.0.0', apikey: noRole })), refused(401, 'Fields `role` and `exp` are required in JWT'));
  assert.deepEqual(parsed(await upgrade(main, { vsn: '2.0.0', apikey: login })), refused(401, 'The role `authenticator` cannot be used to connect'));
  const s = await Raw.open(main);
  for (const [token, message] of [[noRole, 'Fields `role` and `exp` are required in JWT'], [login, 'The role `authenticator` cannot be used to connect']]) {
    const { reply } = await s.join(rt(`no-role-${message.length}`), {}, { access_token: token });
    assert.equal(reply.payload.status, 'error', reply.text);
    assert.equal(reply.payload.response.reason, `InvalidJWTToken: ${message}`);
  }
});

test('an upgrade asking for an unsupported serializer (vsn=3.0.0) is refused with 403', async () => {
  const res = await upgrade(main, { vsn: '3.0.0', apikey: main.anonKey });
  assert.equal(res.status, 403);
  await neverOpens(main, { vsn: '3.0.0', apikey: main.anonKey });
});

test('an upgrade with a valid key in ?apikey= or in x-api-key (which wins over ?apikey=) is switched to a WebSocket with both serializers', async () => {
  const forged = signJwt({ role: 'anon', exp: now() + 3600 }, randomBytes(32).toString('hex'));
  assert.equal((await upgrade(main, { vsn: '1.0.0', apikey: main.anonKey })).status, 101);
  assert.equal((await upgrade(main, { vsn: '2.0.0', apikey: main.anonKey })).status, 101);
  assert.equal((await upgrade(main, { vsn: '2.0.0' }, { 'x-api-key': main.anonKey })).status, 101);
  assert.equal((await upgrade(main, { vsn: '2.0.0', apikey: forged }, { 'x-api-key': main.anonKey })).status, 101);
  assert.deepEqual(
    parsed(await upgrade(main, { vsn: '2.0.0', apikey: main.anonKey }, { 'x-api-key': forged })),
    refused(401, 'Failed to validate JWT signature'),
  );
});

// ---------------------------------------------------------------------------------------------
// Exact frames

test('a heartbeat on topic phoenix is answered [null, ref, "phoenix", "phx_reply", {"status":"ok","response":{}}] (serializer 2.0.0)', async () => {
  const s = await Raw.open(main);
  const ref = s.push('phoenix', 'heartbeat', {});
  assert.deepEqual(wire(await s.reply(ref)), [null, ref, 'phoenix', 'phx_reply', { status: 'ok', response: {} }]);
});

test('a heartbeat on topic phoenix is answered {"topic":"phoenix","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":ref} (serializer 1.0.0)', async () => {
  const s = await Raw.open(main, { vsn: '1.0.0' });
  const ref = s.ref();
  s.send(JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref }));
  assert.deepEqual((await s.reply(ref)).value, {
    topic: 'phoenix', event: 'phx_reply', payload: { status: 'ok', response: {} }, ref,
  });
});

test('a join is answered [join_ref, ref, topic, "phx_reply", {"status":"ok","response":{"postgres_changes":[]}}] (serializer 2.0.0)', async () => {
  const s = await Raw.open(main);
  const topic = rt('join-shape');
  const { joinRef, reply } = await s.join(topic, { broadcast: { self: false }, presence: { key: '' }, private: false });
  assert.deepEqual(wire(reply), [joinRef, joinRef, topic, 'phx_reply', { status: 'ok', response: { postgres_changes: [] } }]);
});

test('with serializer 1.0.0 a join reply carries exactly topic, event, payload and ref, as Phoenix\'s V1 serializer writes it', async () => {
  const s = await Raw.open(main, { vsn: '1.0.0' });
  const topic = rt('join-shape-v1');
  const { joinRef, reply } = await s.join(topic, {});
  assert.deepEqual(reply.value, {
    topic, event: 'phx_reply', payload: { status: 'ok', response: { postgres_changes: [] } }, ref: joinRef,
  });
});

test('a broadcast reaches another socket as [null, null, topic, "broadcast", {"type":"broadcast","event":e,"payload":p}] on 2.0.0 and as {"topic","event","payload","ref":null} on 1.0.0', async () => {
  const topic = rt('bcast-shape');
  const sender = await Raw.open(main);
  const v2 = await Raw.open(main);
  const v1 = await Raw.open(main, { vsn: '1.0.0' });
  await v2.joined(topic, {});
  await v1.joined(topic, {});
  const senderRef = await sender.joined(topic, {});
  const payload = { text: 'Mbote 🚗', list: [1, null, true], nested: { x: 1.5 } };
  sender.push(topic, 'broadcast', { type: 'broadcast', event: 'hello', payload }, { joinRef: senderRef });
  const message = { type: 'broadcast', event: 'hello', payload };
  assert.deepEqual(wire(await v2.find((f) => f.event === 'broadcast')), [null, null, topic, 'broadcast', message]);
  assert.deepEqual((await v1.find((f) => f.event === 'broadcast')).value, { topic, event: 'broadcast', payload: message, ref: null });
  // self is false by default: the sender does not hear itself.
  await sender.heartbeat();
  assert.equal(sender.all((f) => f.event === 'broadcast').length, 0);
});

test('with broadcast.ack a broadcast is answered [join_ref, ref, topic, "phx_reply", {"status":"ok","response":{}}]', async () => {
  const s = await Raw.open(main);
  const topic = rt('ack');
  const joinRef = await s.joined(topic, { broadcast: { ack: true } });
  const ref = s.push(topic, 'broadcast', { type: 'broadcast', event: 'e', payload: {} }, { joinRef });
  assert.deepEqual(wire(await s.reply(ref)), [joinRef, ref, topic, 'phx_reply', { status: 'ok', response: {} }]);
});

test('a binary user-broadcast push (kind 3) comes back, with self, as a kind-4 frame carrying topic, event and the exact bytes (2.0.0)', async () => {
  const s = await Raw.open(main);
  const topic = rt('binary');
  const joinRef = await s.joined(topic);
  const ref = s.ref();
  const body = [0, 1, 2, 250, 255, 10, 13];
  // kind, join_ref, ref, topic, user event and metadata lengths, payload encoding (0 = binary).
  s.send(bytes(3, joinRef.length, ref.length, topic.length, 'blob'.length, 0, 0, joinRef, ref, topic, 'blob', body));
  const frame = await waitFor(() => s.frames.find((f) => f.binary), DEADLINE, 'a binary frame');
  assert.deepEqual([...frame.binary], [...bytes(4, topic.length, 'blob'.length, 0, 0, topic, 'blob', body)]);
});

// ---------------------------------------------------------------------------------------------
// Frames that cannot be read

const malformed = [
  ['2.0.0', 'a text frame that is not JSON', 'not json {'],
  ['2.0.0', 'a 2.0.0 text frame with four elements instead of five', JSON.stringify([null, '90', 'realtime:x', 'broadcast'])],
  ['2.0.0', 'a 2.0.0 text frame whose topic is a number', JSON.stringify([null, '90', 42, 'broadcast', {}])],
  ['2.0.0', 'a 2.0.0 text frame that is a JSON object', JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '90' })],
  ['2.0.0', 'a text frame nested 100,000 arrays deep', `${'['.repeat(100000)}${']'.repeat(100000)}`],
  ['2.0.0', 'a truncated binary frame', bytes(3, 1, 2, 40, 4, 0, 1, '1', '9')],
  ['2.0.0', 'a binary frame of an unknown kind', bytes(9, 0, 0, 0, 0)],
  ['2.0.0', 'an empty binary frame', new Uint8Array(0)],
  ['2.0.0', 'a binary user-broadcast whose JSON payload is not JSON', null],
  ['1.0.0', 'a text frame that is not JSON', '{"topic":'],
  ['1.0.0', 'a 1.0.0 frame that is a JSON array', JSON.stringify([null, '90', 'phoenix', 'heartbeat', {}])],
  ['1.0.0', 'a 1.0.0 frame without an event', JSON.stringify({ topic: 'phoenix', payload: {}, ref: '90' })],
  ['1.0.0', 'a binary frame on serializer 1.0.0', bytes(3, 0, 0, 1, 1, 0, 1, 'x', 'y', '{}')],
];

for (const [vsn, what, frame] of malformed) {
  test(`${what} gets an error reply on topic "phoenix", and the socket and its joined channel keep working (serializer ${vsn})`, async () => {
    const s = await Raw.open(main, { vsn });
    const topic = rt('malformed');
    const joinRef = await s.joined(topic);
    const from = s.frames.length;
    if (frame === null) {
      // A well-formed kind-3 frame for the joined topic whose JSON-encoded payload is cut short.
      const ref = s.ref();
      s.send(bytes(3, joinRef.length, ref.length, topic.length, 1, 0, 1, joinRef, ref, topic, 'e', '{"a":'));
    } else {
      s.send(frame);
    }
    const error = await s.find((f) => f.topic === 'phoenix' && f.event === 'phx_reply', 'the error on phoenix', from);
    const reason = error.payload?.response?.reason;
    assert.equal(typeof reason, 'string', error.text);
    assert.ok(reason.length > 0);
    const expected = { status: 'error', response: { reason } };
    if (vsn === '2.0.0') {
      assert.deepEqual(wire(error), [null, null, 'phoenix', 'phx_reply', expected]);
    } else {
      assert.deepEqual(error.value, { topic: 'phoenix', event: 'phx_reply', payload: expected, ref: null });
    }
    assert.equal(s.closed, null);
    await s.roundTrip(topic, joinRef);
    await s.heartbeat();
    assert.equal(s.closed, null);
  });
}

// ---------------------------------------------------------------------------------------------
// Unknown topics and events

test('a join on a topic outside realtime: (not-realtime:x) is answered [null, ref, topic, "phx_reply", {"status":"error","response":{"reason":"unmatched topic"}}]', async () => {
  const s = await Raw.open(main);
  const { joinRef, reply } = await s.join('not-realtime:x', {});
  assert.deepEqual(wire(reply), [null, joinRef, 'not-realtime:x', 'phx_reply', { status: 'error', response: { reason: 'unmatched topic' } }]);
  // Nothing was joined: a broadcast there is unmatched too.
  const ref = s.push('not-realtime:x', 'broadcast', { type: 'broadcast', event: 'e', payload: {} }, { joinRef });
  assert.deepEqual((await s.reply(ref)).payload, { status: 'error', response: { reason: 'unmatched topic' } });
});

test('a message on a topic the socket has not joined is answered unmatched topic, without a join_ref, and the joined channel keeps working', async () => {
  const s = await Raw.open(main);
  const topic = rt('joined');
  const joinRef = await s.joined(topic);
  const other = rt('never-joined');
  const ref = s.push(other, 'broadcast', { type: 'broadcast', event: 'e', payload: {} }, { joinRef: '77' });
  assert.deepEqual(wire(await s.reply(ref)), [null, ref, other, 'phx_reply', { status: 'error', response: { reason: 'unmatched topic' } }]);
  const presenceRef = s.push(other, 'presence', { type: 'presence', event: 'track', payload: {} });
  assert.deepEqual((await s.reply(presenceRef)).payload, { status: 'error', response: { reason: 'unmatched topic' } });
  await s.roundTrip(topic, joinRef);
});

test('a phx_leave on a topic that is not joined is answered ok', async () => {
  const s = await Raw.open(main);
  const topic = rt('not-joined-leave');
  const ref = s.push(topic, 'phx_leave', {});
  assert.deepEqual((await s.reply(ref)).payload, { status: 'ok', response: {} });
});

test('an unknown event on a joined channel gets an error reply on that channel, and the channel keeps working', async () => {
  const s = await Raw.open(main);
  const topic = rt('unknown-event');
  const joinRef = await s.joined(topic);
  const ref = s.push(topic, 'frobnicate', { any: 1 }, { joinRef });
  const reply = await s.reply(ref);
  assert.equal(reply.topic, topic);
  assert.equal(reply.payload.status, 'error');
  assert.equal(typeof reply.payload.response.reason, 'string');
  assert.match(reply.payload.response.reason, /frobnicate/);
  await s.roundTrip(topic, joinRef);
});

test('a channel joined with presence off receives presence from its first track: the state with its own presence, then diffs', async () => {
  const s = await Raw.open(main);
  const other = await Raw.open(main);
  const topic = rt('presence-late');
  // as realtime-js joins a channel that has no presence listener, then calls track()
  const joinRef = await s.joined(topic, { broadcast: { self: false }, presence: { enabled: false, key: 'me' } });
  const otherRef = await other.joined(topic, { presence: { enabled: true, key: 'them' } });
  const from = s.frames.length;
  const ref = s.push(topic, 'presence', { type: 'presence', event: 'track', payload: { online: true } }, { joinRef });
  assert.equal((await s.reply(ref)).payload.status, 'ok');
  const state = await s.find((f) => f.event === 'presence_state' && f.topic === topic, 'the presence_state after the first track', from);
  assert.deepEqual(Object.keys(state.payload), ['me']);
  assert.equal(state.payload.me.metas[0].online, true);
  // from then on it hears the others' diffs
  other.push(topic, 'presence', { type: 'presence', event: 'track', payload: { here: 1 } }, { joinRef: otherRef });
  const diff = await s.find((f) => f.event === 'presence_diff' && f.topic === topic && f.payload.joins?.them, "the other's join", from);
  assert.equal(diff.payload.joins.them.metas[0].here, 1);
});

test("a topic's presence state is bounded (REALTIME_MAX_PRESENCE_STATE_KB, 1000): a track past it is refused, a late joiner gets what was accepted", async () => {
  const topic = rt('presence-bound');
  const [a, b, late] = [await Raw.open(main), await Raw.open(main), await Raw.open(main)];
  const refA = await a.joined(topic, { presence: { enabled: true, key: 'a' } });
  const refB = await b.joined(topic, { presence: { enabled: true, key: 'b' } });
  const blob = 'x'.repeat(600_000);
  const okA = a.push(topic, 'presence', { type: 'presence', event: 'track', payload: { blob } }, { joinRef: refA });
  assert.equal((await a.reply(okA)).payload.status, 'ok');
  const refused = b.push(topic, 'presence', { type: 'presence', event: 'track', payload: { blob } }, { joinRef: refB });
  const reply = (await b.reply(refused)).payload;
  assert.equal(reply.status, 'error');
  assert.match(reply.response.reason, /^PresenceStateTooLarge: /);
  await late.joined(topic, { presence: { enabled: true, key: 'late' } });
  const state = await late.find((f) => f.event === 'presence_state' && f.topic === topic, 'the late joiner\'s state');
  assert.deepEqual(Object.keys(state.payload), ['a'], 'only the accepted presence');
  // once A leaves, B fits
  const gone = a.push(topic, 'presence', { type: 'presence', event: 'untrack' }, { joinRef: refA });
  assert.equal((await a.reply(gone)).payload.status, 'ok');
  const okB = b.push(topic, 'presence', { type: 'presence', event: 'track', payload: { blob } }, { joinRef: refB });
  assert.equal((await b.reply(okB)).payload.status, 'ok');
});

test('a presence track whose payload is not a map is answered {"status":"error","response":{"reason":"Presence track payload must be a map"}}, and the channel keeps working', async () => {
  const s = await Raw.open(main);
  const topic = rt('presence-bad');
  const joinRef = await s.joined(topic, { broadcast: { self: true }, presence: { enabled: true, key: 'k' } });
  const ref = s.push(topic, 'presence', { type: 'presence', event: 'track', payload: ['not', 'a', 'map'] }, { joinRef });
  assert.deepEqual(wire(await s.reply(ref)), [joinRef, ref, topic, 'phx_reply', {
    status: 'error', response: { reason: 'Presence track payload must be a map' },
  }]);
  const ok = s.push(topic, 'presence', { type: 'presence', event: 'track', payload: { online: true } }, { joinRef });
  assert.deepEqual((await s.reply(ok)).payload, { status: 'ok', response: {} });
  const diff = await s.find((f) => f.event === 'presence_diff' && f.topic === topic, 'the presence_diff');
  assert.deepEqual(Object.keys(diff.payload.joins), ['k']);
  await s.roundTrip(topic, joinRef);
});

test('a join on "realtime:" without a name is refused TopicNameRequired: You must provide a topic name', async () => {
  const s = await Raw.open(main);
  const { joinRef, reply } = await s.join('realtime:', {});
  assert.deepEqual(wire(reply), [joinRef, joinRef, 'realtime:', 'phx_reply', {
    status: 'error', response: { reason: 'TopicNameRequired: You must provide a topic name' },
  }]);
});

// ---------------------------------------------------------------------------------------------
// Leave, rejoin, tokens

test('phx_leave is answered ok, then phx_close arrives with ref = join_ref, and the topic is no longer joined', async () => {
  const s = await Raw.open(main);
  const topic = rt('leave');
  const other = rt('stays');
  const otherRef = await s.joined(other);
  const joinRef = await s.joined(topic);
  const from = s.frames.length;
  const ref = s.push(topic, 'phx_leave', {}, { joinRef });
  const reply = await s.reply(ref);
  assert.deepEqual(wire(reply), [joinRef, ref, topic, 'phx_reply', { status: 'ok', response: {} }]);
  const close = await s.find((f) => f.event === 'phx_close' && f.topic === topic, 'phx_close', from);
  assert.deepEqual(wire(close), [joinRef, joinRef, topic, 'phx_close', {}]);
  assert.ok(s.frames.indexOf(reply) < s.frames.indexOf(close), 'the reply comes before phx_close');
  const after = s.push(topic, 'broadcast', { type: 'broadcast', event: 'e', payload: {} }, { joinRef });
  assert.equal((await s.reply(after)).payload.response.reason, 'unmatched topic');
  await s.roundTrip(other, otherRef);
});

test('joining a joined topic again closes the old join (phx_close with the old join_ref), and only the new join receives', async () => {
  const s = await Raw.open(main);
  const topic = rt('rejoin');
  const oldRef = await s.joined(topic);
  const from = s.frames.length;
  const newRef = await s.joined(topic);
  const close = await s.find((f) => f.event === 'phx_close' && f.topic === topic, 'phx_close of the old join', from);
  assert.deepEqual(wire(close), [oldRef, oldRef, topic, 'phx_close', {}]);
  assert.equal(s.all((f) => f.event === 'phx_close' && f.join_ref === newRef).length, 0);
  const before = s.frames.length;
  await s.roundTrip(topic, newRef);
  await s.heartbeat();
  assert.equal(s.frames.slice(before).filter((f) => f.event === 'broadcast').length, 1, 'one copy, not one per join');
});

test('a join whose access_token expired an hour ago is refused "InvalidJWTToken: Token has expired N seconds ago" with N about 3600', async () => {
  const s = await Raw.open(main);
  const expired = userToken(main, USER, { expiresIn: -3600 });
  const { reply } = await s.join(rt('expired-join'), {}, { access_token: expired });
  assert.equal(reply.payload.status, 'error');
  const m = /^InvalidJWTToken: Token has expired (\d+) seconds ago$/.exec(reply.payload.response.reason);
  assert.ok(m, reply.text);
  assert.ok(Math.abs(Number(m[1]) - 3600) < 120, `N = ${m[1]}`);
});

test('an access_token push with a malformed token sends system {"extension":"system","status":"error","message":"The token provided is not a valid JWT"} then phx_close, for that channel only', async () => {
  const s = await Raw.open(main);
  const victim = rt('token-victim');
  const bystander = rt('token-bystander');
  const victimRef = await s.joined(victim);
  const bystanderRef = await s.joined(bystander);
  const from = s.frames.length;
  s.push(victim, 'access_token', { access_token: 'not.a.jwt' }, { joinRef: victimRef });
  const system = await s.find((f) => f.event === 'system' && f.topic === victim, 'the system message', from);
  assert.deepEqual(wire(system), [victimRef, null, victim, 'system', {
    channel: victim.slice('realtime:'.length),
    extension: 'system',
    message: 'The token provided is not a valid JWT',
    status: 'error',
  }]);
  const close = await s.find((f) => f.event === 'phx_close' && f.topic === victim, 'phx_close', from);
  assert.deepEqual(wire(close), [victimRef, victimRef, victim, 'phx_close', {}]);
  assert.ok(s.frames.indexOf(system) < s.frames.indexOf(close));
  await s.roundTrip(bystander, bystanderRef);
  await s.heartbeat();
  assert.equal(s.all((f) => f.topic === bystander && (f.event === 'phx_close' || f.event === 'system')).length, 0);
});

// ---------------------------------------------------------------------------------------------
// postgres_changes bindings

const badBindings = [
  ['a filter whose value does not cast to the column (id=eq.zz)', { table: 'rt_things', filter: 'id=eq.zz' }],
  ['a filter on an unknown column', { table: 'rt_things', filter: 'nope=eq.1' }],
  ['an unknown operator (foo=hey.1)', { table: 'rt_things', filter: 'foo=hey.1' }],
  ['an unknown table', { table: 'rt_missing' }],
  ['a table outside the publication', { table: 'rt_unpublished' }],
];

for (const [what, binding] of badBindings) {
  test(`a postgres_changes join with ${what} is refused "RealtimeDisabledForConfiguration: …" and the socket's other channel keeps working`, async () => {
    const s = await Raw.open(main);
    const other = rt('pg-bystander');
    const otherRef = await s.joined(other);
    const topic = rt('pg-bad');
    const { joinRef, reply } = await s.join(topic, { postgres_changes: [{ event: '*', schema: 'public', ...binding }] });
    assert.equal(reply.join_ref, joinRef);
    assert.equal(reply.topic, topic);
    assert.equal(reply.payload.status, 'error', reply.text);
    assert.match(reply.payload.response.reason, /^RealtimeDisabledForConfiguration: \S/);
    const after = s.push(topic, 'broadcast', { type: 'broadcast', event: 'e', payload: {} }, { joinRef });
    assert.equal((await s.reply(after)).payload.response.reason, 'unmatched topic', 'the refused channel is not joined');
    await s.roundTrip(other, otherRef);
  });
}

test('a valid postgres_changes join is answered with the binding and its id, then system "Subscribed to PostgreSQL"', async () => {
  const s = await Raw.open(main);
  const topic = rt('pg-good');
  const { joinRef, reply } = await s.join(topic, {
    postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'rt_things', filter: 'id=eq.1' }],
  });
  assert.equal(reply.payload.status, 'ok', reply.text);
  const [echo] = reply.payload.response.postgres_changes;
  assert.equal(typeof echo.id, 'number');
  assert.deepEqual({ ...echo, id: 0 }, { event: 'INSERT', schema: 'public', table: 'rt_things', filter: 'id=eq.1', id: 0 });
  const system = await s.find((f) => f.event === 'system' && f.topic === topic, 'the system message');
  assert.deepEqual(wire(system), [joinRef, null, topic, 'system', {
    channel: topic.slice('realtime:'.length), extension: 'postgres_changes', message: 'Subscribed to PostgreSQL', status: 'ok',
  }]);
});

// ---------------------------------------------------------------------------------------------
// Limits

test('with TENANT_MAX_PAYLOAD_SIZE_IN_KB=1 a larger broadcast gets the error reply payload_size_exceeded on its channel, is not delivered, and the socket\'s other channel keeps working', async () => {
  const s = await Raw.open(limited);
  const big = rt('big');
  const small = rt('small');
  const bigRef = await s.joined(big, { broadcast: { self: true, ack: true } });
  const smallRef = await s.joined(small);
  const ref = s.push(big, 'broadcast', { type: 'broadcast', event: 'huge', payload: { blob: 'x'.repeat(5000) } }, { joinRef: bigRef });
  assert.deepEqual(wire(await s.reply(ref)), [bigRef, ref, big, 'phx_reply', { status: 'error', response: 'payload_size_exceeded' }]);
  await s.roundTrip(small, smallRef);
  await s.roundTrip(big, bigRef);
  assert.equal(s.all((f) => f.event === 'broadcast' && f.payload?.event === 'huge').length, 0);
});

test('with TENANT_MAX_PAYLOAD_SIZE_IN_KB=1 the REST broadcast endpoints answer 422 to a larger payload, and 202 to a small one', async () => {
  const topic = topicName('rest-big');
  const blob = 'x'.repeat(5000);
  const batch = await post(limited, 'broadcast', { messages: [{ topic, event: 'e', payload: { blob } }] });
  assert.equal(batch.status, 422, batch.body);
  const single = await post(limited, `broadcast/${topic}/events/e`, { blob });
  assert.equal(single.status, 422, single.body);
  const binary = await post(limited, `broadcast/${topic}/events/e`, new Uint8Array(5000), { type: 'application/octet-stream' });
  assert.equal(binary.status, 422, binary.body);
  assert.equal((await post(limited, 'broadcast', { messages: [{ topic, event: 'e', payload: { ok: 1 } }] })).status, 202);
});

test('with TENANT_MAX_PAYLOAD_SIZE_IN_KB=1 the batch endpoint applies the limit to each message, as Supabase does: four 600-byte messages in one request are accepted (202) and delivered', async () => {
  const name = topicName('rest-batch');
  const s = await Raw.open(limited);
  await s.joined(`realtime:${name}`, {});
  const messages = [1, 2, 3, 4].map((i) => ({ topic: name, event: `part-${i}`, payload: { i, text: 'y'.repeat(600) } }));
  const res = await post(limited, 'broadcast', { messages });
  assert.deepEqual(res, { status: 202, body: '' });
  for (const m of messages) await s.find((f) => f.event === 'broadcast' && f.payload.event === m.event, m.event);
});

test('a frame over 1 MiB closes only its own socket, with code 1009, and another socket keeps working', async () => {
  const victim = await Raw.open(limited);
  const bystander = await Raw.open(limited);
  const topic = rt('huge-frame');
  const joinRef = await bystander.joined(topic);
  victim.push(topic, 'broadcast', { type: 'broadcast', event: 'e', payload: { blob: 'x'.repeat(1100 * 1024) } });
  await waitFor(() => victim.closed, DEADLINE, 'the oversized socket to close');
  assert.equal(victim.closed.code, 1009);
  await bystander.roundTrip(topic, joinRef);
});

test('with TENANT_MAX_CHANNELS_PER_CLIENT=2 the third join is refused "ChannelRateLimitReached: Too many channels", the first two keep working, and a leave makes room', async () => {
  const s = await Raw.open(limited);
  const [a, b, c] = [rt('chan-a'), rt('chan-b'), rt('chan-c')];
  const aRef = await s.joined(a);
  const bRef = await s.joined(b);
  const { joinRef, reply } = await s.join(c, {});
  assert.deepEqual(wire(reply), [joinRef, joinRef, c, 'phx_reply', {
    status: 'error', response: { reason: 'ChannelRateLimitReached: Too many channels' },
  }]);
  await s.roundTrip(a, aRef);
  await s.roundTrip(b, bRef);
  // Rejoining a joined topic replaces it and is not a third channel.
  const bAgain = await s.joined(b);
  await s.roundTrip(b, bAgain);
  // Another socket has its own count.
  const t = await Raw.open(limited);
  await t.joined(c);
  const leave = s.push(a, 'phx_leave', {}, { joinRef: aRef });
  assert.equal((await s.reply(leave)).payload.status, 'ok');
  const cRef = await s.joined(c);
  await s.roundTrip(c, cRef);
});

test('with TENANT_MAX_EVENTS_PER_SECOND=5 a burst of 20 broadcasts gets error replies "Too many messages per second" beyond the limit, and the channel works again a second later', async () => {
  const s = await Raw.open(limited);
  const topic = rt('events');
  const joinRef = await s.joined(topic, { broadcast: { self: true, ack: true } });
  const refs = [];
  for (let i = 0; i < 20; i += 1) {
    refs.push(s.push(topic, 'broadcast', { type: 'broadcast', event: 'burst', payload: { i } }, { joinRef }));
  }
  const replies = await Promise.all(refs.map((ref) => s.reply(ref)));
  const errors = replies.filter((r) => r.payload.status === 'error');
  const oks = replies.filter((r) => r.payload.status === 'ok');
  assert.equal(errors.length + oks.length, 20);
  assert.ok(errors.length >= 1, 'some of the burst is refused');
  assert.ok(oks.length >= 1 && oks.length <= 10, `${oks.length} accepted`);
  for (const e of errors) {
    assert.deepEqual(wire(e), [joinRef, e.ref, topic, 'phx_reply', { status: 'error', response: { reason: 'Too many messages per second' } }]);
  }
  // What was refused was not delivered.
  await s.heartbeat();
  assert.equal(s.all((f) => f.event === 'broadcast' && f.payload?.event === 'burst').length, oks.length);
  await new Promise((r) => setTimeout(r, 1100));
  await s.roundTrip(topic, joinRef);
});

test('with TENANT_MAX_CONCURRENT_USERS=2 a third socket is refused with 429 {"error":"Too many connected users"}, and admitted once one closes', async () => {
  const open = async () => {
    const s = await openRetry(crowded);
    await s.heartbeat();
    return s;
  };
  const first = await open();
  const second = await open();
  assert.deepEqual(parsed(await upgrade(crowded, { vsn: '2.0.0', apikey: crowded.anonKey })), refused(429, 'Too many connected users'));
  await neverOpens(crowded, { vsn: '2.0.0', apikey: crowded.anonKey });
  await second.heartbeat();
  first.close();
  const third = await open();
  await third.heartbeat();
});

test('with TENANT_MAX_CONCURRENT_USERS=2 eight simultaneous upgrades admit at most two sockets', async () => {
  // Wait until the earlier tests' sockets are gone (one upgrade gets through, then let it go).
  const probe = await openRetry(crowded);
  probe.close();
  await waitFor(() => probe.closed, DEADLINE, 'the probe socket to close');
  const held = [];
  try {
    const results = await Promise.all(Array.from({ length: 8 }, () => new Promise((resolve, reject) => {
      const u = new URL(`/realtime/v1/websocket?${new URLSearchParams({ vsn: '2.0.0', apikey: crowded.anonKey })}`, crowded.url);
      const req = http.request({
        host: u.hostname, port: u.port, path: u.pathname + u.search, agent: false,
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': randomBytes(16).toString('base64'), 'Sec-WebSocket-Version': '13' },
      });
      req.on('response', (res) => { res.resume(); resolve(res.statusCode); });
      req.on('upgrade', (res, socket) => { held.push(socket); resolve(res.statusCode); });
      req.on('error', reject);
      req.end();
    })));
    const admitted = results.filter((code) => code === 101).length;
    assert.ok(admitted <= 2, `${admitted} of 8 simultaneous sockets admitted: ${results.join(' ')}`);
    assert.deepEqual(results.filter((code) => code !== 101).map(() => 429), results.filter((code) => code !== 101));
  } finally {
    for (const socket of held) socket.destroy();
  }
});

test('with TENANT_MAX_JOINS_PER_SECOND=3 a burst of joins is refused "ClientJoinRateLimitReached: Too many joins per second" beyond the limit, and joins succeed again a second later', async () => {
  const s = await openRetry(crowded);
  const topics = Array.from({ length: 8 }, () => rt('burst'));
  const refs = topics.map((topic) => {
    const ref = s.ref();
    s.push(topic, 'phx_join', { config: {} }, { joinRef: ref, ref });
    return ref;
  });
  const replies = await Promise.all(refs.map((ref) => s.reply(ref)));
  const refusedJoins = replies.filter((r) => r.payload.status === 'error');
  assert.ok(refusedJoins.length >= 1, 'some joins are refused');
  assert.ok(replies.filter((r) => r.payload.status === 'ok').length >= 1);
  for (const r of refusedJoins) {
    assert.deepEqual(r.payload, { status: 'error', response: { reason: 'ClientJoinRateLimitReached: Too many joins per second' } });
    assert.equal(r.join_ref, r.ref);
  }
  await new Promise((r) => setTimeout(r, 1100));
  const topic = rt('after-burst');
  const joinRef = await s.joined(topic);
  await s.roundTrip(topic, joinRef);
});

// ---------------------------------------------------------------------------------------------
// REST broadcast

test('POST /realtime/v1/api/broadcast without a key, or with a forged one, is 401 {"message":"Unauthorized"}; so is the single-topic endpoint', async () => {
  const body = { messages: [{ topic: 't', event: 'e', payload: {} }] };
  const forged = signJwt({ role: 'service_role', exp: now() + 3600 }, randomBytes(32).toString('hex'));
  for (const res of [
    await post(main, 'broadcast', body, { key: null }),
    await post(main, 'broadcast', body, { key: forged }),
    await post(main, 'broadcast', body, { bearer: forged }),
    await post(main, 'broadcast/t/events/e', {}, { key: null }),
  ]) {
    assert.equal(res.status, 401);
    assert.deepEqual(JSON.parse(res.body), { message: 'Unauthorized' });
  }
});

test('POST /realtime/v1/api/broadcast with a body missing messages, a topic, an event or a payload object is 422', async () => {
  for (const body of [
    {},
    { messages: 'no' },
    { messages: [{ event: 'e', payload: {} }] },
    { messages: [{ topic: 't', payload: {} }] },
    { messages: [{ topic: 't', event: 'e' }] },
    { messages: [{ topic: 't', event: 'e', payload: 'text' }] },
  ]) {
    const res = await post(main, 'broadcast', body);
    assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.status} ${res.body}`);
  }
});

test('a text/plain body on the single-topic endpoint is 415 {"error":"Unsupported Media Type. Use application/json or application/octet-stream"}', async () => {
  const res = await post(main, 'broadcast/t/events/e', 'hello', { type: 'text/plain' });
  assert.equal(res.status, 415);
  assert.deepEqual(JSON.parse(res.body), { error: 'Unsupported Media Type. Use application/json or application/octet-stream' });
});

test('a valid REST broadcast is 202 with an empty body and reaches a joined socket as a broadcast frame', async () => {
  const name = topicName('rest-ok');
  const s = await Raw.open(main);
  await s.joined(`realtime:${name}`, {});
  const batch = await post(main, 'broadcast', { messages: [{ topic: name, event: 'from-batch', payload: { n: 1 } }] });
  assert.deepEqual(batch, { status: 202, body: '' });
  const single = await post(main, `broadcast/${name}/events/from-single`, { n: 2 });
  assert.deepEqual(single, { status: 202, body: '' });
  const first = await s.find((f) => f.event === 'broadcast' && f.payload.event === 'from-batch', 'the batch message');
  assert.deepEqual(first.payload, { type: 'broadcast', event: 'from-batch', payload: { n: 1 } });
  const second = await s.find((f) => f.event === 'broadcast' && f.payload.event === 'from-single', 'the single message');
  assert.deepEqual(second.payload, { type: 'broadcast', event: 'from-single', payload: { n: 2 } });
  assert.deepEqual([first.join_ref, first.ref, first.topic], [null, null, `realtime:${name}`]);
});

test('a private REST message to a topic the caller may not write is skipped in the batch endpoint (202) and refused 403 {"message":"Unauthorized"} by the single-topic endpoint', async () => {
  const user = userToken(main, USER);
  const listener = await Raw.open(main);
  await listener.joined('realtime:guarded', { private: true }, { access_token: user });
  const pub = topicName('rest-public');
  await listener.joined(`realtime:${pub}`, {});
  // anon may not write to the private 'guarded': skipped, while the public message goes out.
  const batch = await post(main, 'broadcast', { messages: [
    { topic: 'guarded', event: 'sneaky', payload: { n: 1 }, private: true },
    { topic: pub, event: 'public', payload: { n: 2 } },
  ] });
  assert.deepEqual(batch, { status: 202, body: '' });
  const single = await post(main, 'broadcast/guarded/events/sneaky?private=true', { n: 3 });
  assert.equal(single.status, 403);
  assert.deepEqual(JSON.parse(single.body), { message: 'Unauthorized' });
  // The user may write there: its message arrives, and nothing anon sent came before it.
  assert.equal((await post(main, 'broadcast', { messages: [{ topic: 'guarded', event: 'allowed', payload: {}, private: true }] }, { bearer: user })).status, 202);
  await listener.find((f) => f.topic === 'realtime:guarded' && f.payload?.event === 'allowed', 'the allowed private message');
  await listener.find((f) => f.payload?.event === 'public', 'the public message');
  assert.equal(listener.all((f) => f.payload?.event === 'sneaky').length, 0);
});

// ---------------------------------------------------------------------------------------------
// Still standing

test('after all that bad input every server still answers /health 200 and none of their logs has "panicked"', async () => {
  for (const server of [main, limited, crowded]) {
    const res = await fetch(`${server.url}/health`);
    assert.equal(res.status, 200);
    assert.doesNotMatch(server.logs(), /panicked/);
  }
});

test('a client that closes with 1000 gets 1000 back, and a close without a code gets one without (Phoenix reconnects after any other code)', async () => {
  for (const [sent, expected] of [[1000, 1000], [4001, 4001], [undefined, 1005]]) {
    const ws = new WebSocket(wsUrl(main, { apikey: main.anonKey, vsn: '2.0.0' }));
    await new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve, { once: true });
      ws.addEventListener('error', reject, { once: true });
    });
    const closed = new Promise((resolve) => ws.addEventListener('close', (e) => resolve(e.code), { once: true }));
    if (sent === undefined) ws.close();
    else ws.close(sent);
    assert.equal(await closed, expected, `closed with ${sent}`);
  }
});
