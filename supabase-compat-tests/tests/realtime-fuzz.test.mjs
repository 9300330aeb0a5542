// A seeded fuzz test of /realtime/v1/websocket's request decoding (issue #12, item 6): a few
// hundred frames per socket, on sockets of both serializers, of three kinds:
// - text garbage: JSON token soup, unicode and NUL, huge numbers, nesting around serde_json's
//   128-level limit and beyond, very long strings, truncated and wrongly shaped frames;
// - valid frames (phx_join, broadcast, presence track/untrack, access_token, heartbeat,
//   phx_leave) with fields replaced by values of another type or by odd values (topic as a
//   number, ref as an object, postgres_changes filters like `id=eq.` or `=in.(`, unknown tables,
//   schema `*`, event `FOO`, broadcast.self as a string, presence.key as an array, tokens that
//   are numbers, forged or signed with odd claims);
// - binary frames: random kinds, lengths pointing past the end, invalid UTF-8, unknown
//   encodings, bad metadata, random bytes (and binary frames on 1.0.0, which cannot carry them).
//
// Replay: the run is decided by SEED alone (override it with REALTIME_FUZZ_SEED=<number>); each
// socket draws from its own generator (SEED + socket number), and what is sent never depends on
// what comes back. A finding names its socket, frame number and the frame itself.
//
// (Tokens carry the current time, and one of them expires 2 s into the run: those outcomes may
// vary, and the checks accept either.)
//
// Half of the batches are sent one frame at a time, each followed by a heartbeat: everything the
// server sends between the frame and the heartbeat's reply answers that frame (a socket's replies
// are written in order), so each frame is checked against what docs/realtime.md ("Bad input")
// says it gets. The other half are sent in bursts, then one heartbeat. Every frame received is
// checked for the socket's serializer's shape. After the run the server must still serve
// supabase-js and HTTP, and its log must have no panic.
//
// The server runs with TENANT_MAX_PAYLOAD_SIZE_IN_KB=64 (a frame over 64,500 bytes is "too
// large", the WebSocket limit stays 1 MiB), TENANT_MAX_CHANNELS_PER_CLIENT=20 and high event and
// join rates, so the rate limits do not hide the decoding under "Too many messages per second".
//
// Then, below the Phoenix frames, a raw TCP client sends what the WebSocket API cannot
// (fragments with a ping between them, text that is not UTF-8, a reserved opcode, an unmasked
// frame) and checks RFC 6455's close codes; and the fuzzing's findings are pinned as plain tests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { startServer } from '../lib/server.mjs';
import { signJwt } from '../lib/jwt.mjs';
import { realtimeClient, closeClients, subscribed, inbox, userToken, topicName, waitFor, DEADLINE } from '../lib/realtime.mjs';

const SEED = Number(process.env.REALTIME_FUZZ_SEED ?? 0x5eed1206) >>> 0;
const SEED_HEX = `0x${SEED.toString(16)}`;
/** Frames per socket, in batches; even batches one frame at a time, odd ones in a burst. */
const FRAMES_PER_SOCKET = 320;
const BATCH = 20;
const SOCKETS = [
  { vsn: '2.0.0', key: 'anon' },
  { vsn: '2.0.0', key: 'service' },
  { vsn: '1.0.0', key: 'anon' },
  { vsn: '1.0.0', key: 'service' },
];
const PAYLOAD_KB = 64;
/** channel.rs: a frame longer than the payload limit + 500 bytes is "too large". */
const TOO_LARGE = PAYLOAD_KB * 1000 + 500;
const MAX_CHANNELS = 20;
/** How long a heartbeat may take to be answered before the socket counts as hung. */
const SYNC_MS = 10000;

const USER = 'f0f0f0f0-0000-4000-8000-0000000000f1';
const fixture = `
  create table public.fz_items (id int primary key, name text, at timestamptz);
  alter publication supabase_realtime add table public.fz_items;
  create table public.fz_unpublished (id int primary key);
`;

let server;
before(async () => {
  server = await startServer({
    TENANT_MAX_PAYLOAD_SIZE_IN_KB: String(PAYLOAD_KB),
    TENANT_MAX_CHANNELS_PER_CLIENT: String(MAX_CHANNELS),
    TENANT_MAX_EVENTS_PER_SECOND: '1000000',
    TENANT_MAX_JOINS_PER_SECOND: '1000000',
  }, { fixture });
});
after(async () => {
  await closeClients();
  for (const c of liveConns) c.ws.close();
  if (server) {
    await server.stop();
    // A postgres_changes join made a replication slot: drop it, or it holds WAL for good.
    await server.dropSlots().catch(() => {});
  }
});

// ---------------------------------------------------------------------------------------------
// A seeded generator (mulberry32)

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHARS = [...'abcxyz019 _-:.,=()*"\\/{}[]', 'é', 'ß', '漢', '🚗', '\u00a0', '\n', '\t'];
/** Also NUL, controls, separators, a BOM, a non-character and lone surrogates (which
 * JSON.stringify writes as `\ud800` escapes, which serde_json refuses). */
const WEIRD_CHARS = [...CHARS, '\u0000', '\u0001', '\u001f', '\u007f', '\u2028', '\ufeff', '\uffff', '\ud800', '\udfff'];

class Rng {
  constructor(seed) { this.next = mulberry32(seed); }
  int(n) { return Math.floor(this.next() * n); }
  chance(p) { return this.next() < p; }
  pick(list) { return list[this.int(list.length)]; }
  string(max = 12, weird = this.chance(0.15)) {
    let s = '';
    for (let i = this.int(max + 1); i > 0; i -= 1) s += this.pick(weird ? WEIRD_CHARS : CHARS);
    return s;
  }
  bytes(n) { return Uint8Array.from({ length: n }, () => this.int(256)); }
}

/** Any JSON value (nested up to a few levels). */
function randomJson(r, depth = 0) {
  switch (r.int(depth > 2 ? 7 : 10)) {
    case 0: return null;
    case 1: return r.chance(0.5);
    case 2: return r.int(2000) - 1000;
    case 3: return r.pick([0, 1.5, -1e-7, 1e21, 1e308, -1e308, 2 ** 53, 2 ** 64, -(2 ** 63), 5e-324]);
    case 4: case 5: return r.string(16);
    case 6: return r.pick(['', 'true', 'null', 'realtime:fuzz-a', 'phoenix', 'eq.', '*', 'x'.repeat(2000)]);
    case 7: return Array.from({ length: r.int(5) }, () => randomJson(r, depth + 1));
    default: {
      const o = {};
      for (let i = r.int(5); i > 0; i -= 1) o[r.pick(['type', 'event', 'payload', 'config', r.string(6)])] = randomJson(r, depth + 1);
      return o;
    }
  }
}

const nest = (n, inner = 1) => `${'['.repeat(n)}${inner}${']'.repeat(n)}`;

// ---------------------------------------------------------------------------------------------
// What the server can read: serde_json and protocol.rs, mirrored

/**
 * Parse `text` as serde_json (1.0.154, default features) does: JSON.parse's grammar, plus
 * serde_json's own refusals — nesting of 128 levels or more (its recursion limit), a number
 * that overflows f64 (`1e400`) and an unpaired UTF-16 surrogate escape (`"\ud800"`).
 */
function serdeParse(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  const NUM = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '"') inString = false;
      else if (c === '\\') {
        if (text[i + 1] !== 'u') {
          i += 1;
          continue;
        }
        const n = parseInt(text.slice(i + 2, i + 6), 16);
        if (n >= 0xdc00 && n <= 0xdfff) return { ok: false };
        if (n >= 0xd800 && n <= 0xdbff) {
          const n2 = text.slice(i + 6, i + 8) === '\\u' ? parseInt(text.slice(i + 8, i + 12), 16) : -1;
          if (!(n2 >= 0xdc00 && n2 <= 0xdfff)) return { ok: false };
          i += 11;
        } else {
          i += 5;
        }
      }
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth += 1;
      if (depth >= 128) return { ok: false };
    } else if (c === ']' || c === '}') depth -= 1;
    else if (c === '-' || (c >= '0' && c <= '9')) {
      NUM.lastIndex = i;
      const m = NUM.exec(text);
      if (!Number.isFinite(Number(m[0]))) return { ok: false };
      i += m[0].length - 1;
    }
  }
  return { ok: true, value };
}

/** A ref that came as a JSON number: the server keeps its text, which JS may write otherwise. */
const NUMERIC = Symbol('numeric ref');
const refOk = (x) => x === undefined || x === null || typeof x === 'string' || typeof x === 'number';
const refOf = (x) => (typeof x === 'string' ? x : typeof x === 'number' ? NUMERIC : null);

/** protocol.rs `decode_text`: the message, or null when the server cannot read it. */
function decodeText(vsn, text) {
  const parsed = serdeParse(text);
  if (!parsed.ok) return null;
  const v = parsed.value;
  let j; let r; let topic; let event; let payload;
  if (vsn === '2.0.0') {
    if (!Array.isArray(v) || v.length !== 5) return null;
    [j, r, topic, event, payload] = v;
  } else {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
    ({ join_ref: j, ref: r, topic, event } = v);
    payload = 'payload' in v ? v.payload : null;
  }
  if (!refOk(j) || !refOk(r) || typeof topic !== 'string' || typeof event !== 'string') return null;
  return { joinRef: refOf(j), ref: refOf(r), topic, event, payload, json: true };
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const enc = new TextEncoder();

/** protocol.rs `decode_binary` (2.0.0): the message, or null when the server cannot read it. */
function decodeBinary(b) {
  let at = 0;
  const u8 = () => {
    if (at >= b.length) throw new Error('short');
    return b[at++];
  };
  const text = (n) => {
    if (at + n > b.length) throw new Error('short');
    const s = utf8.decode(b.subarray(at, at + n));
    at += n;
    return s;
  };
  try {
    const kind = u8();
    if (kind === 0) {
      const [jl, rl, tl, el] = [u8(), u8(), u8(), u8()];
      const [j, r, topic, event] = [text(jl), text(rl), text(tl), text(el)];
      return { joinRef: j || null, ref: r || null, topic, event, json: false };
    }
    if (kind === 3) {
      const [jl, rl, tl, el, ml, encoding] = [u8(), u8(), u8(), u8(), u8(), u8()];
      const [j, r, topic] = [text(jl), text(rl), text(tl)];
      text(el);
      const meta = text(ml);
      if (meta !== '' && !serdeParse(meta).ok) return null;
      if (encoding === 1) {
        if (!serdeParse(utf8.decode(b.subarray(at))).ok) return null;
      } else if (encoding !== 0) {
        return null;
      }
      return { joinRef: j || null, ref: r || null, topic, event: 'broadcast', json: false };
    }
    return null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// The frames

const TOPICS = [
  'realtime:fuzz-a', 'realtime:fuzz-b', 'realtime:fuzz-c', 'realtime:fuzz-🚗', 'realtime:', 'phoenix',
  'not-realtime:x', 'realtime:guarded', '', `realtime:${'x'.repeat(300)}`, 'realtime:fuzz-\u0000', 'REALTIME:fuzz-a',
];
const EVENTS = [
  'phx_join', 'PHX_JOIN', 'heartbeat', 'presence', 'access_token', 'broadcast', 'phx_leave', 'phx_reply',
  'phx_close', 'system', 'FOO', '', 'postgres_changes',
];
const REFS = [{}, [], true, false, 1.5, -1, 0, 1e21, '', null, 'x'.repeat(300), 123456789012345678901234567890, '🚗', '\u0000'];
const FILTERS = [
  'id=eq.', '=in.(', 'id=in.(', 'id=in.()', 'id=in.(1,2', 'id=eq.1', 'id=eq.zz', 'name=eq."unterminated',
  'id=is.maybe', 'name=is.NULL', 'id=eq.1,,id=eq.2', ',', '=', '.', '=eq.1', 'id=not.eq.1', 'not.id=eq.1',
  'id=neq.1,name=in.(a,"b,c",d)', `id=in.(${Array.from({ length: 101 }, (_, i) => i).join(',')})`,
  `name=eq.${'x'.repeat(5000)}`, 'name=eq.\u0000', 'nope=eq.1', 'id=like.1', 'id=eq.1)', 'id=in.((((1))))',
  'name=in.("\\"","\\\\")', 'at=gt.not-a-date', 'id=gte.1e400', 'id=lt.-9223372036854775809', ' ',
];
function oddBinding(r) {
  const b = {
    event: r.pick(['*', 'INSERT', 'update', 'DELETE', 'FOO', '', 5, null, undefined]),
    schema: r.pick(['public', '*', 'pg_catalog', 'nope', '', null, undefined, 5, 'public\u0000']),
    table: r.pick(['fz_items', 'fz_unpublished', 'no_such_table', '*', '', null, undefined, ['fz_items'], 'pg_class']),
  };
  if (r.chance(0.7)) b.filter = r.chance(0.8) ? r.pick(FILTERS) : randomJson(r);
  return r.chance(0.1) ? randomJson(r) : b;
}
const ODD_BINDINGS = (r) => r.pick([
  () => [oddBinding(r)],
  () => [oddBinding(r), oddBinding(r)],
  () => [null, null],
  () => [],
  () => r.pick([5, 'all', {}, true]),
  () => [{ event: '*', schema: 'public', table: 'fz_items', filter: 'id=eq.1' }],
  () => [{ event: 'INSERT', schema: '*' }],
  () => [{ event: '*', schema: 'public', table: 'fz_items' }, { event: '*', schema: 'public', table: 'fz_items' }],
])();

/** Tokens for `access_token`: valid, expiring, expired, forged, or signed with odd claims. */
let TOKENS;
function makeTokens() {
  const now = Math.floor(Date.now() / 1000);
  const secret = server.jwtSecret;
  const signed = (claims) => signJwt(claims, secret);
  TOKENS = [
    userToken(server, USER),
    userToken(server, USER, { expiresIn: 2 }),
    userToken(server, USER, { expiresIn: -3600 }),
    server.anonKey,
    server.serviceKey,
    signJwt({ role: 'authenticated', sub: USER, exp: now + 3600 }, 'not-the-secret-not-the-secret-000'),
    signJwt({ role: 'service_role', exp: now + 3600 }, secret, { alg: 'HS512', typ: 'JWT' }),
    'eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.',
    signed({ role: 'anon' }),
    signed({ role: 5, exp: now + 3600 }),
    signed({ role: '', exp: now + 3600 }),
    signed({ role: 'postgres', exp: now + 3600 }),
    signed({ role: 'authenticated', sub: 'not-a-uuid', exp: now + 3600 }),
    signed({ role: 'anon', exp: 'tomorrow' }),
    signed({ role: 'anon', exp: 1e300 }),
    signed({ role: 'anon', exp: -1e300 }),
    signed({ role: 'authenticated', sub: USER, exp: -1e19 }),
    signed({ role: 'anon', exp: now + 3600, nbf: now + 3600 }),
    signed({ role: 'anon', exp: now + 3600, iat: 'yesterday' }),
    signed([1, 2, 3]),
    'a.b.c', 'not-a-jwt', '', ' ', 'sb_publishable_fuzz', `Bearer ${server.anonKey}`, 5, null, {}, [],
  ];
}

/** A valid message of one of the kinds realtime-js sends. */
function validMessage(r, ctx) {
  ctx.seq += 1;
  const ref = String(ctx.seq);
  const topic = r.chance(0.8) ? r.pick(['realtime:fuzz-a', 'realtime:fuzz-b', 'realtime:fuzz-c']) : r.pick(TOPICS);
  const joinRef = String(r.int(40));
  const m = (event, payload, extra = {}) => ({ kind: event, joinRef, ref, topic, event, payload, ...extra });
  switch (r.pick(['join', 'join', 'pg_join', 'broadcast', 'broadcast', 'track', 'untrack', 'access_token', 'heartbeat', 'leave'])) {
    case 'join': {
      const config = {
        broadcast: { self: true, ack: r.chance(0.5) },
        presence: { key: `k${r.int(4)}`, enabled: r.chance(0.7) },
        postgres_changes: [],
        private: false,
      };
      const payload = { config };
      if (r.chance(0.2)) payload.access_token = r.pick(TOKENS.slice(0, 5));
      return m('phx_join', payload, { joinRef: ref });
    }
    case 'pg_join': {
      const binding = { event: r.pick(['*', 'INSERT', 'UPDATE', 'DELETE']), schema: 'public', table: 'fz_items' };
      const filter = r.pick([undefined, 'id=eq.1', 'name=in.(a,b)', 'id=gt.3,name=neq.x', 'id=not.eq.1', 'name=is.null']);
      if (filter) binding.filter = filter;
      return m('phx_join', { config: { broadcast: { self: false }, postgres_changes: [binding] } }, { kind: 'join', joinRef: ref });
    }
    case 'broadcast':
      return m('broadcast', { type: 'broadcast', event: r.pick(['e', 'ping', r.string(8)]), payload: randomJson(r) });
    case 'track':
      return m('presence', { type: 'presence', event: 'track', payload: { online: true, n: r.int(100) } }, { kind: 'presence' });
    case 'untrack':
      return m('presence', { type: 'presence', event: 'untrack' }, { kind: 'presence' });
    case 'access_token':
      return m('access_token', { access_token: r.pick(TOKENS) });
    case 'heartbeat':
      return m('heartbeat', {}, { topic: 'phoenix', joinRef: null });
    default:
      return m('phx_leave', {});
  }
}

const PATHS = {
  common: ['topic', 'event', 'ref', 'joinRef', 'payload'],
  phx_join: [
    'payload.config', 'payload.config.postgres_changes', 'payload.config.postgres_changes',
    'payload.config.postgres_changes', 'payload.config.broadcast', 'payload.config.broadcast.self',
    'payload.config.broadcast.ack', 'payload.config.presence', 'payload.config.presence.key',
    'payload.config.presence.enabled', 'payload.config.private', 'payload.access_token', 'payload.user_token',
  ],
  broadcast: ['payload.type', 'payload.event', 'payload.payload'],
  presence: ['payload.event', 'payload.payload', 'payload.type'],
  access_token: ['payload.access_token', 'payload.access_token'],
};
const FLAGS = ['true', 'TRUE', 'yes', 1, 0, null, [], {}, true, false];
function special(r, key) {
  switch (key) {
    case 'topic': return r.pick([...TOPICS, 5, null, [], {}, true]);
    case 'event': return r.pick([...EVENTS, 5, null, [], {}]);
    case 'ref': case 'joinRef': return r.pick(REFS);
    case 'postgres_changes': return ODD_BINDINGS(r);
    case 'self': case 'ack': case 'enabled': case 'private': return r.pick(FLAGS);
    case 'key': return r.pick([['a', 'b'], { k: 1 }, 5, '', null, 'x'.repeat(1000), '🚗', '\u0000', true]);
    case 'access_token': case 'user_token': return r.pick(TOKENS);
    case 'payload': return r.chance(0.5) ? r.pick([null, 5, 'text', [], [1, 2], {}, JSON.parse(nest(60))]) : randomJson(r);
    default: return undefined;
  }
}

function setPath(obj, path, value, remove) {
  const keys = path.split('.');
  let o = obj;
  for (const k of keys.slice(0, -1)) {
    if (o[k] === null || typeof o[k] !== 'object' || Array.isArray(o[k])) o[k] = {};
    o = o[k];
  }
  const last = keys[keys.length - 1];
  if (remove) delete o[last];
  else o[last] = value;
}

function encodeMessage(vsn, m) {
  return vsn === '2.0.0'
    ? JSON.stringify([m.joinRef, m.ref, m.topic, m.event, m.payload])
    : JSON.stringify({ topic: m.topic, event: m.event, payload: m.payload, ref: m.ref, join_ref: m.joinRef });
}

/** A valid message with one to three fields replaced (or removed), sometimes a broken envelope. */
function mutatedText(r, vsn, ctx) {
  const m = validMessage(r, ctx);
  const paths = [...PATHS.common, ...(PATHS[m.kind === 'join' ? 'phx_join' : m.kind] ?? [])];
  for (let n = 1 + r.int(3); n > 0; n -= 1) {
    const path = r.pick(paths);
    const key = path.split('.').pop();
    const value = r.chance(0.65) ? special(r, key) : randomJson(r);
    setPath(m, path, value === undefined ? randomJson(r) : value, r.chance(0.08));
  }
  if (!r.chance(0.1)) return encodeMessage(vsn, m);
  if (vsn === '2.0.0') {
    const arr = [m.joinRef, m.ref, m.topic, m.event, m.payload];
    return JSON.stringify(r.pick([
      () => arr.slice(0, 4), () => [...arr, 'extra'], () => [arr], () => ({ ...arr }), () => arr.reverse(),
    ])());
  }
  const obj = { topic: m.topic, event: m.event, payload: m.payload, ref: m.ref, join_ref: m.joinRef };
  return JSON.stringify(r.pick([
    () => { delete obj.topic; return obj; }, () => { delete obj.event; return obj; }, () => ({ ...obj, extra: [1] }),
    () => Object.values(obj), () => ({ message: obj }),
  ])());
}

const TOKENS_SOUP = [
  '{', '}', '[', ']', ',', ':', '"a"', 'null', 'true', 'fals', '1', '-0', '-', '1e400', '-1e400', '1e-400', '0.',
  '.5', '01', '12345678901234567890123', '"\\u0000"', '"\\ud800"', '"\\udc00"', '"\\ud83d\\ude97"', '"\\x"', '\u0000',
  ' ', '\n', '"', '\\', 'é', '🚗', '"phoenix"', '"heartbeat"', '"phx_join"', '"realtime:fuzz-a"', 'NaN', 'Infinity',
  "'single'", '/*c*/', '\ufeff',
];

/** Text that is not a frame, or a frame at the edges of what serde_json reads. */
function garbageText(r, vsn) {
  const heartbeat = (payload, ref = '1') => encodeMessage(vsn, { joinRef: null, ref, topic: 'phoenix', event: 'heartbeat', payload });
  switch (r.int(12)) {
    case 0: case 1: return Array.from({ length: r.int(40) }, () => r.pick(TOKENS_SOUP)).join('');
    case 2: return nest(r.pick([150, 200, 300]));
    case 3: {
      // Around serde_json's recursion limit: the envelope is one level, so a payload nested
      // 126 deep is read and 127 deep is not.
      const depth = r.pick([100, 125, 126, 127, 128, 200]);
      return heartbeat(JSON.parse(nest(depth)), `deep-${depth}`);
    }
    case 4: {
      const size = r.pick([1000, 30000, 63000, 64000, 66000, 200000]);
      return heartbeat({ s: 'x'.repeat(size) }, `long-${size}`);
    }
    case 5: return r.pick([`{${'a'.repeat(70000)}`, `"${'é'.repeat(40000)}`, `[${'1,'.repeat(40000)}`]);
    case 6: {
      const n = r.pick(['1e400', '-1e400', '1e-400', '1'.repeat(400), '123456789012345678901234567890', '-0.0e+0', '1E308']);
      return vsn === '2.0.0' ? `[null,${n},"phoenix","heartbeat",{}]` : `{"topic":"phoenix","event":"heartbeat","payload":{},"ref":${n}}`;
    }
    case 7: return Array.from({ length: r.int(60) }, () => String.fromCodePoint(r.chance(0.3) ? r.int(32) : r.int(0x10ffff))).join('');
    case 8: return r.pick(['', ' ', 'null', 'true', '5', '"text"', '[]', '{}', '[1,2,3,4,5]', '["a","b","c","d","e"]',
      '[null,null,null,null,null]', '{"topic":"phoenix"}', '{"topic":1,"event":"heartbeat"}', '[[],[],"phoenix","heartbeat",{}]']);
    case 9: {
      const t = mutatedText(r, vsn, { seq: 1000 });
      return t.slice(0, r.int(t.length));
    }
    case 10: {
      const t = heartbeat({}, 'ws');
      return r.pick([`\ufeff${t}`, ` \n\t${t}\r\n `, `${t}x`, `${t}${t}`, `\u00a0${t}`]);
    }
    default: return `[null,"1","phoenix","heartbeat",${JSON.stringify(randomJson(r))}]`;
  }
}

const lenBytes = (s) => enc.encode(s).subarray(0, 255);

/** A binary frame: valid kinds 0 and 3, and every way of breaking them. */
function binaryFrame(r, ctx) {
  ctx.seq += 1;
  const ref = enc.encode(String(ctx.seq));
  const joinRef = enc.encode(r.chance(0.5) ? String(r.int(40)) : '');
  const topic = lenBytes(r.chance(0.7) ? r.pick(['realtime:fuzz-a', 'realtime:fuzz-b']) : r.pick(TOPICS));
  const event = lenBytes(r.chance(0.5) ? r.pick(EVENTS) : r.string(8));
  const body = r.chance(0.5) ? enc.encode(JSON.stringify(randomJson(r))) : r.bytes(r.int(40));
  const meta = enc.encode(r.pick(['', '', '{"persist":true}', '[]', '{', 'null', JSON.stringify(randomJson(r))]));
  const kind3 = (encoding, parts = {}) => {
    const p = { joinRef, ref, topic, event, meta, body, ...parts };
    return Uint8Array.from([3, p.joinRef.length, p.ref.length, p.topic.length, p.event.length, p.meta.length, encoding,
      ...p.joinRef, ...p.ref, ...p.topic, ...p.event, ...p.meta, ...p.body]);
  };
  const kind0 = () => Uint8Array.from([0, joinRef.length, ref.length, topic.length, event.length, ...joinRef, ...ref, ...topic, ...event, ...body]);
  const invalid = [[0xff], [0xc0, 0x80], [0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]];
  switch (r.int(12)) {
    case 0: return kind3(1, { body: enc.encode(JSON.stringify(randomJson(r))) });
    case 1: return kind3(0);
    case 2: case 3: return kind0();
    case 4: { const f = kind3(r.int(2)); f[0] = r.pick([1, 2, 4, 5, 127, 128, 255]); return f; }
    case 5: { const f = kind3(1); f[1 + r.int(5)] = 200 + r.int(56); return f; }
    case 6: { const f = r.chance(0.5) ? kind3(r.int(2)) : kind0(); return f.subarray(0, r.int(f.length)); }
    case 7: {
      const bad = Uint8Array.from([...r.pick(invalid), ...r.pick(invalid)]);
      return kind3(0, { [r.pick(['joinRef', 'ref', 'topic', 'event', 'meta'])]: bad });
    }
    case 8: return kind3(2 + r.int(254));
    case 9: return kind3(1, { body: r.pick([enc.encode('{"a":'), Uint8Array.from([0x22, 0xff, 0x22]), enc.encode(nest(200)), enc.encode('"\\ud800"'), new Uint8Array(0)]) });
    case 10: return r.bytes(r.int(64));
    default: return r.chance(0.5)
      ? kind3(0, { body: new Uint8Array(70000) })
      : kind3(1, { meta: enc.encode(nest(r.pick([100, 126, 127, 200]))), topic: lenBytes('realtime:fuzz-a') });
  }
}

// ---------------------------------------------------------------------------------------------
// What comes back

const KNOWN_EVENTS = new Set(['phx_reply', 'phx_close', 'phx_error', 'system', 'broadcast', 'presence_state', 'presence_diff', 'postgres_changes']);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Why a frame received on a `vsn` socket is not one of that serializer's frames (or null). */
function malformedFrame(vsn, data) {
  if (typeof data !== 'string') {
    if (vsn !== '2.0.0') return 'a binary frame on serializer 1.0.0';
    const b = new Uint8Array(data);
    if (b.length < 5 || b[0] !== 4) return `a binary frame that is not a user broadcast (kind 4): ${hex(b)}`;
    if (5 + b[1] + b[2] + b[3] > b.length) return `a kind-4 frame whose lengths run past its end: ${hex(b)}`;
    if (b[4] !== 0) return `a kind-4 frame with encoding ${b[4]}`;
    try {
      utf8.decode(b.subarray(5, 5 + b[1] + b[2] + b[3]));
    } catch {
      return `a kind-4 frame whose topic, event or metadata is not UTF-8: ${hex(b)}`;
    }
    return null;
  }
  let v;
  try {
    v = JSON.parse(data);
  } catch {
    return 'not JSON';
  }
  let f;
  if (vsn === '2.0.0') {
    if (!Array.isArray(v) || v.length !== 5) return 'not an array of 5';
    const [joinRef, ref, topic, event, payload] = v;
    f = { joinRef, ref, topic, event, payload };
  } else {
    if (!isObject(v)) return 'not an object';
    const keys = Object.keys(v).sort().join(',');
    if (keys !== 'event,payload,ref,topic') return `keys ${keys} instead of event,payload,ref,topic`;
    f = { joinRef: null, ...v };
  }
  const { joinRef, ref, topic, event, payload } = f;
  if (!(joinRef === null || typeof joinRef === 'string')) return 'join_ref neither null nor a string';
  if (!(ref === null || typeof ref === 'string')) return 'ref neither null nor a string';
  if (typeof topic !== 'string') return 'topic not a string';
  if (!KNOWN_EVENTS.has(event)) return `unknown event ${JSON.stringify(event)}`;
  switch (event) {
    case 'phx_reply': {
      if (!isObject(payload) || !['ok', 'error'].includes(payload.status) || !('response' in payload)) return 'a phx_reply without status ok|error and a response';
      const res = payload.response;
      if (payload.status === 'error') {
        const fine = (typeof res === 'string' && res.length > 0)
          || (isObject(res) && Object.keys(res).length === 0)
          || (isObject(res) && typeof res.reason === 'string' && res.reason.length > 0);
        if (!fine) return 'an error reply whose response is neither a reason, a string nor {}';
      }
      return null;
    }
    case 'phx_close':
      return isObject(payload) && Object.keys(payload).length === 0 ? null : 'phx_close with a payload';
    case 'system':
      return isObject(payload) && ['channel', 'extension', 'message', 'status'].every((k) => typeof payload[k] === 'string')
        ? null : 'system without channel, extension, message and status';
    case 'broadcast':
      return isObject(payload) && payload.type === 'broadcast' && typeof payload.event === 'string' && 'payload' in payload
        && joinRef === null && ref === null ? null : 'a broadcast not shaped {type, event, payload}';
    case 'presence_diff':
      return isObject(payload) && isObject(payload.joins) && isObject(payload.leaves) ? null : 'presence_diff without joins and leaves';
    default:
      return isObject(payload) ? null : `${event} whose payload is not an object`;
  }
}

function hex(b, max = 48) {
  return `${b.length} bytes ${Buffer.from(b.subarray(0, max)).toString('hex')}${b.length > max ? '…' : ''}`;
}
function describe(data) {
  if (typeof data !== 'string') return `binary ${hex(new Uint8Array(data))}`;
  const n = Buffer.byteLength(data);
  return `text (${n} bytes) ${JSON.stringify(data.length > 160 ? `${data.slice(0, 160)}…` : data)}`;
}

/** A received frame, normalised to { joinRef, ref, topic, event, payload } (or { binary }). */
function parseFrame(vsn, data) {
  if (typeof data !== 'string') return { binary: true };
  try {
    const v = JSON.parse(data);
    if (vsn === '2.0.0' && Array.isArray(v)) {
      const [joinRef, ref, topic, event, payload] = v;
      return { joinRef, ref, topic, event, payload, text: data };
    }
    if (isObject(v)) return { joinRef: undefined, ...v, text: data };
  } catch { /* counted by malformedFrame */ }
  return { broken: true, text: data };
}

/**
 * What the server must send for one frame (`sent`), given the topics the socket had joined, as
 * docs/realtime.md "Bad input" and channel.rs describe it. `window` is everything received
 * between the frame and the next heartbeat's reply. Returns the problems found.
 */
function judge(vsn, sent, joinedBefore, window) {
  const problems = [];
  const expect = (cond, what) => { if (!cond) problems.push(what); };
  const replies = window.filter((f) => f.event === 'phx_reply');
  const cut = (t) => (t.length > 200 ? `${t.slice(0, 200)}…` : t);
  const shown = () => window.map((f) => (f.binary ? '(binary)' : cut(f.text))).join(' ');
  const { msg } = sent;
  if (!msg) {
    // Unreadable: one error on topic phoenix, and nothing else.
    const phoenix = replies.filter((f) => f.topic === 'phoenix' && f.ref === null && f.payload?.status === 'error'
      && typeof f.payload?.response?.reason === 'string' && f.payload.response.reason.length > 0);
    expect(phoenix.length === 1 && replies.length === 1,
      `an unreadable frame${sent.size > TOO_LARGE ? ` over ${TOO_LARGE} bytes` : ''} is answered by one error on topic phoenix; got [${shown()}]`);
    return { category: 'unreadable', problems };
  }
  const refMatches = (f) => (msg.ref === NUMERIC ? typeof f.ref === 'string' : f.ref === msg.ref);
  const mine = replies.filter((f) => f.topic === msg.topic && refMatches(f));
  expect(replies.length === mine.length, `every reply is on the frame's topic with its ref; got [${shown()}]`);
  const one = (pred, what) => {
    expect(mine.length === 1 && pred(mine[0].payload, mine[0]), `${what}; got [${shown()}]`);
  };
  const reason = (p) => p?.response?.reason;
  if (sent.size > TOO_LARGE) {
    one((p) => p.status === 'error' && p.response === 'payload_size_exceeded', 'a readable frame over the limit gets payload_size_exceeded');
    return { category: 'too large', problems };
  }
  if (msg.topic === 'phoenix' && msg.event === 'heartbeat') {
    one((p) => p.status === 'ok' && isObject(p.response) && Object.keys(p.response).length === 0, 'a heartbeat gets an ok reply');
    return { category: 'heartbeat', problems };
  }
  const joinRefOk = (f, expected) => vsn !== '2.0.0' || expected === NUMERIC || f.joinRef === expected;
  if (msg.event === 'phx_join') {
    if (!msg.topic.startsWith('realtime:')) {
      one((p, f) => p.status === 'error' && reason(p) === 'unmatched topic' && joinRefOk(f, null), 'a join outside realtime: is unmatched topic');
    } else if (msg.topic === 'realtime:') {
      one((p) => p.status === 'error' && /^TopicNameRequired: /.test(reason(p)), 'a join on "realtime:" is TopicNameRequired');
    } else if (!msg.json) {
      one((p) => p.status === 'error' && /^RealtimeDisabledForConfiguration: /.test(reason(p)), 'a join with a binary payload is refused');
    } else if (joinShouldSucceed(msg, joinedBefore)) {
      one((p, f) => p.status === 'ok' && Array.isArray(p.response?.postgres_changes) && joinRefOk(f, msg.joinRef), 'a plain public join is ok');
    } else {
      one((p, f) => (p.status === 'ok' || (typeof reason(p) === 'string' && reason(p).length > 0)) && joinRefOk(f, msg.joinRef),
        'a join gets an ok, or an error with a reason');
    }
    return { category: 'join', problems };
  }
  // A channel whose token expired may have been closed (phx_close) just before the frame was
  // read: then its reply comes after that phx_close. A phx_close after the reply, or with no
  // reply at all (access_token), is the frame's own doing.
  const firstReply = window.findIndex((f) => f.event === 'phx_reply');
  const closedMeanwhile = firstReply > 0
    && window.slice(0, firstReply).some((f) => f.event === 'phx_close' && f.topic === msg.topic);
  const joined = joinedBefore.has(msg.topic) && !closedMeanwhile;
  if (!joined) {
    if (msg.event === 'phx_leave') one((p) => p.status === 'ok', 'a leave of an unjoined topic is ok');
    else one((p, f) => p.status === 'error' && reason(p) === 'unmatched topic' && joinRefOk(f, null), 'a message on an unjoined topic is unmatched topic');
    return { category: 'unjoined topic', problems };
  }
  switch (msg.event) {
    case 'phx_leave':
      one((p) => p.status === 'ok', 'a leave is ok');
      expect(window.some((f) => f.event === 'phx_close' && f.topic === msg.topic), 'a leave is followed by phx_close');
      break;
    case 'broadcast':
      expect(mine.length <= 1, `a broadcast gets at most one reply; got [${shown()}]`);
      break;
    case 'presence':
      one((p) => p.status === 'ok' || p.status === 'error', 'a presence message gets a reply');
      break;
    case 'access_token':
      expect(mine.length === 0, `access_token gets no reply; got [${shown()}]`);
      break;
    default:
      one((p) => p.status === 'error' && reason(p) === `unknown event ${msg.event}`, `an unknown event on a joined channel is "unknown event ${msg.event}"`);
  }
  return { category: `joined: ${['phx_leave', 'broadcast', 'presence', 'access_token'].includes(msg.event) ? msg.event : 'unknown event'}`, problems };
}

/** channel.rs `join`: a public join without a token or bindings, with room for the channel. */
function joinShouldSucceed(msg, joinedBefore) {
  const p = msg.payload;
  const get = (o, k) => (isObject(o) ? o[k] : undefined);
  const flag = (v) => v === true || (typeof v === 'string' && v.toLowerCase() === 'true');
  const config = get(p, 'config') ?? {};
  const token = isObject(p) ? ('access_token' in p ? p.access_token : p.user_token) : undefined;
  const changes = get(config, 'postgres_changes');
  return !flag(get(config, 'private'))
    && !(typeof token === 'string' && token !== '' && !token.startsWith('sb_'))
    && (changes === undefined || changes === null || (Array.isArray(changes) && changes.every((e) => e === null)))
    && (joinedBefore.has(msg.topic) || joinedBefore.size < MAX_CHANNELS);
}

// ---------------------------------------------------------------------------------------------
// A fuzzing socket

const liveConns = new Set();

class Conn {
  constructor(url, vsn, report, label) {
    this.vsn = vsn;
    this.report = report;
    this.label = label;
    this.frames = [];
    this.joined = new Set();
    this.closed = null;
    this.waiters = new Map();
    this.ws = new WebSocket(url);
    this.ws.binaryType = 'arraybuffer';
    liveConns.add(this);
    this.ws.addEventListener('message', (e) => this.receive(e.data));
    this.ws.addEventListener('close', (e) => {
      this.closed = { code: e.code, reason: e.reason };
      liveConns.delete(this);
      for (const w of this.waiters.values()) w(null);
    });
    this.opened = new Promise((resolve, reject) => {
      this.ws.addEventListener('open', () => resolve(this), { once: true });
      this.ws.addEventListener('error', () => reject(new Error(`${label}: the WebSocket did not open`)), { once: true });
    });
  }

  receive(data) {
    const bad = malformedFrame(this.vsn, data);
    if (bad) this.report.malformed.push(`${this.label}: ${bad}: ${describe(data)}`);
    const f = parseFrame(this.vsn, data);
    this.frames.push(f);
    this.report.received += 1;
    // The topics joined, as the frames tell it (a join's ok reply echoes postgres_changes).
    if (f.event === 'phx_reply' && f.payload?.status === 'ok' && Array.isArray(f.payload?.response?.postgres_changes)) this.joined.add(f.topic);
    if (f.event === 'phx_close') this.joined.delete(f.topic);
    if (f.event === 'phx_reply' && f.topic === 'phoenix' && this.waiters.has(f.ref)) {
      this.waiters.get(f.ref)(f);
      this.waiters.delete(f.ref);
    }
  }

  send(data) {
    this.ws.send(data);
  }

  /** Send a heartbeat; resolves with its reply, or null when the socket closed or it timed out. */
  sync(ref) {
    const hb = this.vsn === '2.0.0'
      ? JSON.stringify([null, ref, 'phoenix', 'heartbeat', {}])
      : JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref });
    return new Promise((resolve) => {
      if (this.closed) {
        resolve(null);
        return;
      }
      const timer = setTimeout(() => { this.waiters.delete(ref); resolve(null); }, SYNC_MS);
      this.waiters.set(ref, (f) => { clearTimeout(timer); resolve(f); });
      this.ws.send(hb);
    });
  }
}

function newReport() {
  return {
    sent: 0, received: 0, kinds: {}, outcomes: {}, malformed: [], judged: 0, wrong: [], wrongLarge: [], closes: [], heartbeats: [], batches: 0,
  };
}

/** The next frame to send (`data`), with what the server should read in it (`sent.msg`, null
 * when it cannot read it) and its size in bytes. */
function nextFrame(r, vsn, ctx, report) {
  const roll = r.int(100);
  let kind; let data;
  if (roll < 12) [kind, data] = ['valid', encodeMessage(vsn, validMessage(r, ctx))];
  else if (roll < 50) [kind, data] = ['mutated', mutatedText(r, vsn, ctx)];
  else if (roll < 75) [kind, data] = ['garbage', garbageText(r, vsn)];
  else if (vsn === '2.0.0' || roll < 80) [kind, data] = ['binary', binaryFrame(r, ctx)];
  else [kind, data] = ['mutated', mutatedText(r, vsn, ctx)];
  report.kinds[kind] = (report.kinds[kind] ?? 0) + 1;
  let msg; let size;
  if (typeof data === 'string') {
    // What goes on the wire: UTF-8, lone surrogates replaced (the WebSocket API does so).
    data = Buffer.from(data, 'utf8').toString('utf8');
    size = Buffer.byteLength(data);
    msg = decodeText(vsn, data);
  } else {
    size = data.length;
    msg = vsn === '2.0.0' ? decodeBinary(data) : null;
  }
  return { data, sent: { msg, size } };
}

async function fuzzSocket(index, { vsn, key }, report) {
  const r = new Rng(SEED + index);
  const ctx = { seq: 0 };
  const apikey = key === 'anon' ? server.anonKey : server.serviceKey;
  const url = `${server.url.replace(/^http/, 'ws')}/realtime/v1/websocket?${new URLSearchParams({ apikey, vsn })}`;
  let generation = 0;
  const open = async () => {
    generation += 1;
    const c = await new Conn(url, vsn, report, `socket ${index} (${vsn}, ${key})${generation > 1 ? ` #${generation}` : ''}`).opened;
    // Two channels to fuzz against: one with broadcast self and presence, one plain.
    for (const [i, topic] of ['realtime:fuzz-a', 'realtime:fuzz-b'].entries()) {
      c.send(encodeMessage(vsn, { joinRef: `j${i}`, ref: `j${i}`, topic, event: 'phx_join', payload: { config: { broadcast: { self: true }, presence: { enabled: i === 0, key: `s${index}` } } } }));
    }
    await c.sync('setup');
    return c;
  };
  let c = await open();
  let syncs = 0;
  for (let n = 0; n < FRAMES_PER_SOCKET;) {
    const batch = Math.floor(n / BATCH);
    const windowed = batch % 2 === 0;
    const sentInBatch = [];
    for (let k = 0; k < BATCH && n < FRAMES_PER_SOCKET; k += 1) {
      const { data, sent } = nextFrame(r, vsn, ctx, report);
      const joinedBefore = new Set(c.joined);
      const from = c.frames.length;
      c.send(data);
      report.sent += 1;
      n += 1;
      sentInBatch.push(`#${n} ${describe(data)}`);
      if (windowed) {
        syncs += 1;
        const reply = await c.sync(`sync-${syncs}`);
        if (reply && reply.payload?.status !== 'ok') {
          report.heartbeats.push(`${c.label}: the heartbeat after frame #${n} ${describe(data)} got ${reply.text}`);
        }
        if (reply) {
          const window = c.frames.slice(from, c.frames.indexOf(reply));
          report.judged += 1;
          const { category, problems } = judge(vsn, sent, joinedBefore, window);
          const key = `${category}${sent.size > TOO_LARGE ? ' (over the payload limit)' : ''}`;
          report.outcomes[key] = (report.outcomes[key] ?? 0) + 1;
          for (const p of problems) {
            (sent.size > TOO_LARGE ? report.wrongLarge : report.wrong).push(`${c.label} frame #${n} ${describe(data)}: ${p}`);
          }
        } else if (!c.closed) {
          report.heartbeats.push(`${c.label}: no heartbeat reply within ${SYNC_MS} ms after frame #${n} ${describe(data)}`);
        }
      }
      if (c.closed || (windowed && c.ws.readyState !== WebSocket.OPEN)) break;
    }
    if (!windowed && !c.closed) {
      syncs += 1;
      const reply = await c.sync(`sync-${syncs}`);
      if (!reply && !c.closed) report.heartbeats.push(`${c.label}: no heartbeat reply within ${SYNC_MS} ms after the burst ${sentInBatch.join(' | ')}`);
      else if (reply && reply.payload?.status !== 'ok') report.heartbeats.push(`${c.label}: the heartbeat after a burst got ${reply.text}`);
    }
    report.batches += 1;
    if (!c.closed && c.ws.readyState !== WebSocket.OPEN) await waitFor(() => c.closed, 5000, 'the close event').catch(() => {});
    if (c.closed) {
      report.closes.push({ label: c.label, ...c.closed, after: sentInBatch.slice(windowed ? -1 : 0) });
      c = await open();
    }
  }
  const last = await c.sync('final');
  if (!last) report.heartbeats.push(`${c.label}: no reply to the final heartbeat`);
  c.ws.close();
}

const report = newReport();
const sample = (list, n = 12) => `${list.length} found:\n  ${list.slice(0, n).join('\n  ')}${list.length > n ? `\n  … ${list.length - n} more` : ''}`;

// ---------------------------------------------------------------------------------------------
// The run, then what it must have shown

test(`fuzz run, seed ${SEED_HEX}: ${SOCKETS.length} sockets (both serializers) x ${FRAMES_PER_SOCKET} frames of garbage, mutated frames and binary frames`, async (t) => {
  makeTokens();
  await Promise.all(SOCKETS.map((s, i) => fuzzSocket(i + 1, s, report)));
  t.diagnostic(`seed ${SEED_HEX} (replay: REALTIME_FUZZ_SEED=${SEED}); sent ${report.sent} ${JSON.stringify(report.kinds)}; received ${report.received}`);
  t.diagnostic(`judged one by one: ${report.judged} ${JSON.stringify(report.outcomes)}`);
  const expected = SOCKETS.length * FRAMES_PER_SOCKET;
  assert.equal(report.sent, expected, `${report.sent} of ${expected} frames sent`);
  assert.ok(report.judged >= expected / 3, `${report.judged} frames judged one by one`);
  for (const k of ['valid', 'mutated', 'garbage', 'binary']) assert.ok(report.kinds[k] > 20, `${k}: ${report.kinds[k]} frames`);
  for (const k of ['unreadable', 'heartbeat', 'join', 'unjoined topic', 'joined: broadcast', 'joined: presence', 'joined: unknown event']) {
    assert.ok(report.outcomes[k] > 5, `${k}: ${report.outcomes[k]} frames judged`);
  }
});

test(`fuzz (seed ${SEED_HEX}): every frame the server sent is a well-formed frame of the socket's serializer`, () => {
  assert.ok(report.received > report.sent, `${report.received} frames received`);
  assert.equal(report.malformed.length, 0, `frames that are not the serializer's: ${sample(report.malformed)}`);
});

test(`fuzz (seed ${SEED_HEX}): each frame within the payload limit, sent alone, gets what docs/realtime.md promises — unreadable: one error on topic phoenix; unjoined topic: unmatched topic; unknown event: "unknown event X"; heartbeat: ok; join: a reply`, () => {
  assert.equal(report.wrong.length, 0, `frames not answered as documented: ${sample(report.wrong)}`);
});

test(`fuzz (seed ${SEED_HEX}): each frame over the payload limit (${TOO_LARGE} bytes) and under the 1 MiB WebSocket limit, sent alone, is answered — payload_size_exceeded when it can be read, an error on topic phoenix when it cannot`, () => {
  assert.ok(report.outcomes['too large (over the payload limit)'] > 0 || report.outcomes['unreadable (over the payload limit)'] > 0, 'some frames over the limit were judged');
  assert.equal(report.wrongLarge.length, 0, `frames not answered as documented: ${sample(report.wrongLarge)}`);
});

test(`fuzz (seed ${SEED_HEX}): no socket was closed with 1006 (abnormal) or 1011 (server error)`, () => {
  const bad = report.closes.filter((c) => c.code === 1006 || c.code === 1011);
  assert.equal(bad.length, 0, `sockets that died: ${sample(bad.map((c) => `${c.label} closed ${c.code} ${JSON.stringify(c.reason)} after ${c.after.join(' | ')}`))}`);
});

test(`fuzz (seed ${SEED_HEX}): no socket was closed at all (no frame was over the 1 MiB WebSocket limit, so none may be)`, () => {
  assert.equal(report.closes.length, 0, `closed sockets: ${sample(report.closes.map((c) => `${c.label} closed ${c.code} ${JSON.stringify(c.reason)} after ${c.after.join(' | ')}`))}`);
});

test(`fuzz (seed ${SEED_HEX}): a heartbeat after every frame and after every burst was answered ok while the socket was open`, () => {
  assert.ok(report.batches >= SOCKETS.length * (FRAMES_PER_SOCKET / BATCH), `${report.batches} batches`);
  assert.equal(report.heartbeats.length, 0, `heartbeats not answered: ${sample(report.heartbeats)}`);
});

test('after the fuzzing, supabase-js (serializers 1.0.0 and 2.0.0) joins a public channel and receives its own broadcast with self: true', async () => {
  for (const vsn of ['1.0.0', '2.0.0']) {
    const supabase = await realtimeClient(server, { vsn });
    const mine = inbox(`self ${vsn}`);
    const channel = supabase.channel(topicName('after-fuzz'), { config: { broadcast: { self: true } } })
      .on('broadcast', { event: 'echo' }, mine);
    await subscribed(channel);
    assert.equal(await channel.send({ type: 'broadcast', event: 'echo', payload: { vsn } }), 'ok');
    const m = await mine.find();
    assert.deepEqual({ event: m.event, payload: m.payload }, { event: 'echo', payload: { vsn } });
  }
  await closeClients();
});

test('after the fuzzing the server answers GET /health 200 and GET /rest/v1/ 200, its process is alive and its log has no panic', async () => {
  assert.equal((await fetch(`${server.url}/health`)).status, 200);
  const rest = await fetch(`${server.url}/rest/v1/`, { headers: { apikey: server.anonKey } });
  assert.equal(rest.status, 200);
  assert.doesNotThrow(() => process.kill(server.pid, 0), 'the server process is alive');
  const lines = server.logs().split('\n');
  const panics = lines.flatMap((l, i) => (/panicked/.test(l) ? [`${l} ${lines[i + 1] ?? ''}`] : []));
  assert.equal(panics.length, 0, `panics in the server log:\n${panics.join('\n')}`);
});

// ---------------------------------------------------------------------------------------------
// Below the Phoenix frames: the WebSocket layer, with a raw TCP client

/** A WebSocket over a bare TCP socket, for frames the WebSocket API will not send. */
function rawWebSocket() {
  return new Promise((resolve, reject) => {
    const u = new URL(server.url);
    const sock = net.connect(Number(u.port), u.hostname);
    const st = { sock, frames: [], close: null, ended: false };
    let buf = Buffer.alloc(0);
    let upgraded = false;
    const parse = () => {
      for (;;) {
        if (buf.length < 2) return;
        let len = buf[1] & 0x7f;
        let at = 2;
        if (len === 126) {
          if (buf.length < 4) return;
          len = buf.readUInt16BE(2);
          at = 4;
        } else if (len === 127) {
          if (buf.length < 10) return;
          len = Number(buf.readBigUInt64BE(2));
          at = 10;
        }
        if (buf.length < at + len) return;
        const frame = { opcode: buf[0] & 0x0f, payload: buf.subarray(at, at + len) };
        buf = buf.subarray(at + len);
        st.frames.push(frame);
        if (frame.opcode === 8) st.close = { code: len >= 2 ? frame.payload.readUInt16BE(0) : 1005, reason: frame.payload.subarray(2).toString() };
      }
    };
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (!upgraded) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString();
        buf = buf.subarray(end + 4);
        if (!/^HTTP\/1\.1 101/.test(head)) {
          reject(new Error(head));
          return;
        }
        upgraded = true;
        resolve(st);
      }
      parse();
    });
    sock.on('close', () => { st.ended = true; });
    sock.on('error', () => { st.ended = true; });
    const q = new URLSearchParams({ apikey: server.anonKey, vsn: '2.0.0' });
    sock.write(`GET /realtime/v1/websocket?${q} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
      + `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  });
}

/** One client frame: masked unless told otherwise. */
function wsFrame(opcode, payload, { fin = true, mask = true } = {}) {
  const data = Buffer.from(payload);
  const head = [(fin ? 0x80 : 0) | opcode];
  const m = mask ? 0x80 : 0;
  if (data.length < 126) head.push(m | data.length);
  else if (data.length < 65536) head.push(m | 126, data.length >> 8, data.length & 0xff);
  else {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(BigInt(data.length));
    head.push(m | 127, ...b);
  }
  if (!mask) return Buffer.concat([Buffer.from(head), data]);
  const key = randomBytes(4);
  const masked = Buffer.from(data.map((x, i) => x ^ key[i % 4]));
  return Buffer.concat([Buffer.from(head), key, masked]);
}

const textOf = (st) => st.frames.filter((f) => f.opcode === 1).map((f) => f.payload.toString());

test('a heartbeat split into three continuation frames with a ping between them is answered (pong, then the ok reply); the socket stays open', async () => {
  const st = await rawWebSocket();
  const hb = JSON.stringify([null, 'frag', 'phoenix', 'heartbeat', {}]);
  st.sock.write(wsFrame(1, hb.slice(0, 10), { fin: false }));
  st.sock.write(wsFrame(9, 'ping!'));
  st.sock.write(wsFrame(0, hb.slice(10, 20), { fin: false }));
  st.sock.write(wsFrame(0, hb.slice(20)));
  await waitFor(() => textOf(st).length > 0 || st.close || st.ended, DEADLINE, 'the reply');
  assert.equal(st.close, null);
  assert.deepEqual(st.frames.filter((f) => f.opcode === 10).map((f) => f.payload.toString()), ['ping!']);
  assert.deepEqual(JSON.parse(textOf(st)[0]), [null, 'frag', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]);
  st.sock.destroy();
});

test('frames the WebSocket layer refuses end the socket with RFC 6455\'s close code (7.4.1): 1007 for a text frame that is not UTF-8, 1002 for a reserved opcode and for an unmasked client frame, 1009 for a message over 1 MiB in fragments', async () => {
  const cases = [
    ['a text frame with the bytes ff fe', 1007, wsFrame(1, Buffer.from([0xff, 0xfe]))],
    ['a text frame with a UTF-16 surrogate encoded in UTF-8 (ed a0 80)', 1007, wsFrame(1, Buffer.from([0x5b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x5d]))],
    ['a frame with the reserved opcode 3', 1002, wsFrame(3, 'x')],
    ['an unmasked text frame', 1002, wsFrame(1, '[null,"1","phoenix","heartbeat",{}]', { mask: false })],
    ['a text message of 2 x 600 KB continuation frames', 1009, Buffer.concat([wsFrame(1, 'x'.repeat(600000), { fin: false }), wsFrame(0, 'x'.repeat(600000))])],
  ];
  const got = [];
  for (const [what, , bytes] of cases) {
    const st = await rawWebSocket();
    st.sock.write(bytes);
    await waitFor(() => st.close || st.ended, DEADLINE, `the close after ${what}`).catch(() => {});
    got.push([what, st.close ? st.close.code : 'the connection ended without a close frame (1006)']);
    st.sock.destroy();
  }
  assert.deepEqual(got, cases.map(([what, code]) => [what, code]));
  // And the server still serves.
  const st = await rawWebSocket();
  st.sock.write(wsFrame(1, JSON.stringify([null, 'after', 'phoenix', 'heartbeat', {}])));
  await waitFor(() => textOf(st).length > 0, DEADLINE, 'the heartbeat reply');
  st.sock.destroy();
});

test('a single text frame over the 1 MiB WebSocket limit closes only its socket, with the documented code 1009', async () => {
  const victim = await new Conn(`${server.url.replace(/^http/, 'ws')}/realtime/v1/websocket?${new URLSearchParams({ apikey: server.anonKey, vsn: '2.0.0' })}`, '2.0.0', newReport(), 'victim').opened;
  const bystander = await new Conn(`${server.url.replace(/^http/, 'ws')}/realtime/v1/websocket?${new URLSearchParams({ apikey: server.anonKey, vsn: '1.0.0' })}`, '1.0.0', newReport(), 'bystander').opened;
  victim.send(`[null,"1","phoenix","heartbeat",{"s":"${'x'.repeat(1100 * 1024)}"}]`);
  await waitFor(() => victim.closed, DEADLINE, 'the oversized socket to close');
  assert.equal(victim.closed.code, 1009);
  const reply = await bystander.sync('still');
  assert.equal(reply?.payload?.status, 'ok');
  bystander.ws.close();
});

// ---------------------------------------------------------------------------------------------
// Findings of the fuzzing, pinned

test('a text frame of 70 KB that is not JSON (over the payload limit, under the WebSocket limit) is answered by an error on topic phoenix, as every unreadable frame is', async () => {
  const c = await new Conn(`${server.url.replace(/^http/, 'ws')}/realtime/v1/websocket?${new URLSearchParams({ apikey: server.anonKey, vsn: '2.0.0' })}`, '2.0.0', newReport(), 'big-garbage').opened;
  const from = c.frames.length;
  c.send(`{${'a'.repeat(70000)}`);
  const reply = await c.sync('after-big-garbage');
  assert.ok(reply, 'the heartbeat is answered');
  const window = c.frames.slice(from, c.frames.indexOf(reply));
  assert.deepEqual(window.map((f) => [f.topic, f.event, f.payload?.status, typeof f.payload?.response?.reason]), [['phoenix', 'phx_reply', 'error', 'string']]);
  c.ws.close();
});

test('an access_token signed with the server\'s secret whose exp is -1e300 closes that channel with a system error, and the socket stays open', async () => {
  const url = `${server.url.replace(/^http/, 'ws')}/realtime/v1/websocket?${new URLSearchParams({ apikey: server.anonKey, vsn: '2.0.0' })}`;
  const c = await new Conn(url, '2.0.0', newReport(), 'exp').opened;
  const token = signJwt({ role: 'anon', exp: -1e300 }, server.jwtSecret);
  c.send(JSON.stringify(['1', '1', 'realtime:fuzz-exp', 'phx_join', { config: {} }]));
  await c.sync('joined');
  c.send(JSON.stringify(['1', '2', 'realtime:fuzz-exp', 'access_token', { access_token: token }]));
  const reply = await c.sync('after-token');
  assert.equal(c.closed, null, `the socket closed: ${JSON.stringify(c.closed)}`);
  assert.equal(reply?.payload?.status, 'ok');
  const system = c.frames.find((f) => f.event === 'system' && f.topic === 'realtime:fuzz-exp');
  assert.equal(system?.payload?.status, 'error', 'a system error for the channel');
  assert.match(system.payload.message, /^Token has expired/);
  // The same token in a join is refused with a reason.
  c.send(JSON.stringify(['3', '3', 'realtime:fuzz-exp2', 'phx_join', { config: {}, access_token: token }]));
  const after = await c.sync('after-join');
  assert.equal(c.closed, null, `the socket closed: ${JSON.stringify(c.closed)}`);
  assert.ok(after);
  const refused = c.frames.find((f) => f.event === 'phx_reply' && f.ref === '3');
  assert.match(refused?.payload?.response?.reason ?? '', /^InvalidJWTToken: Token has expired/);
  c.ws.close();
});

test('an upgrade whose apikey is signed with the server\'s secret and has exp -1e300 is refused 401 {"error":"Token has expired"}, not 500', async () => {
  const token = signJwt({ role: 'anon', exp: -1e300 }, server.jwtSecret);
  const u = new URL(`/realtime/v1/websocket?${new URLSearchParams({ apikey: token, vsn: '2.0.0' })}`, server.url);
  const res = await new Promise((resolve, reject) => {
    const req = http.request({
      host: u.hostname, port: u.port, path: u.pathname + u.search,
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': randomBytes(16).toString('base64'), 'Sec-WebSocket-Version': '13' },
    });
    req.on('response', (r) => {
      let body = '';
      r.on('data', (d) => { body += d; });
      r.on('end', () => resolve({ status: r.statusCode, body }));
    });
    req.on('upgrade', (r, socket) => { socket.destroy(); resolve({ status: r.statusCode, body: '' }); });
    req.on('error', reject);
    req.end();
  });
  assert.deepEqual(res, { status: 401, body: JSON.stringify({ error: 'Token has expired' }) });
});
