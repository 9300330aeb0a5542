// Load generator of `make bench-realtime` (scripts/bench_realtime.py drives it; not a test).
//
// Speaks Phoenix serializer 2.0.0 — raw frames rather than supabase-js — over a minimal WebSocket
// client on plain TCP (BENCH_WS=native: Node's own, with --experimental-websocket), so thousands
// of sockets fit in a few threads and the client's CPU weighs little in what is measured.
// Receivers are spread over worker threads; every time is wall-clock milliseconds with microseconds
// (performance.timeOrigin + performance.now()), comparable across threads, processes and
// Postgres's clock_timestamp() on this machine.
//
//   node --experimental-websocket bench_realtime_load.mjs <mode> '<json config>'
//
// modes (each prints JSON lines on stdout: {"event":"ready",...} once its sockets are joined,
// then {"event":"result",...}):
//   changes    one socket per user, each joined with a postgres_changes binding on the bench
//              table (optionally `owner=eq.<uid>`); inserts rows owned by random users at a fixed
//              rate through node-postgres; reports latency and who received what.
//   broadcast  receivers joined on one topic (several threads) and one sender pushing broadcasts
//              at a fixed rate; reports deliveries, latency, missed and duplicated.
//   idle       sockets each joined to its own topic, held until a line arrives on stdin.
//   notify     baseline: pg_notify -> LISTEN round trip at a fixed rate.
//   fanout-server  baseline: a minimal Phoenix-speaking WebSocket fan-out server on `port`
//              (joins, heartbeats, broadcast to the topic's other sockets; nothing else).
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { createHmac, createHash, randomUUID, randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import readline from 'node:readline';

const require = createRequire(new URL('../supabase-compat-tests/package.json', import.meta.url));
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const emit = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
const HEARTBEAT_MS = 25000;
const CONNECT_PARALLEL = 64;

export function signJwt(claims, secret) {
  const b64 = (s) => Buffer.from(s).toString('base64url');
  const head = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64(JSON.stringify(claims));
  const sig = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

/**
 * The part of the WebSocket API used here, over a plain TCP socket: client frames masked,
 * server frames read as they come (text, continuation, ping, close). Several times cheaper per
 * received frame than Node's WebSocket, so the client's CPU weighs less in what is measured
 * (BENCH_WS=native uses Node's WebSocket instead).
 */
class RawWebSocket {
  constructor(url) {
    const u = new URL(url);
    this.readyState = 0;
    this.sock = net.connect(Number(u.port), u.hostname);
    this.sock.setNoDelay(true);
    const key = randomBytes(16).toString('base64');
    this.sock.on('connect', () => {
      this.sock.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\n`
        + `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
    let buf = null;
    let fragments = [];
    const fail = (code, reason) => {
      if (this.readyState === 3) return;
      const connecting = this.readyState === 0;
      this.readyState = 3;
      this.sock.destroy();
      if (connecting) this.onerror?.({});
      this.onclose?.({ code, reason });
    };
    this.sock.on('error', () => fail(1006, 'socket error'));
    this.sock.on('close', () => fail(1006, ''));
    this.sock.on('data', (chunk) => {
      buf = buf ? Buffer.concat([buf, chunk]) : chunk;
      if (this.readyState === 0) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.toString('latin1', 0, end);
        if (!/^HTTP\/1\.1 101/.test(head)) return fail(1006, head.split('\r\n')[0]);
        this.readyState = 1;
        buf = buf.length > end + 4 ? buf.subarray(end + 4) : null;
        this.onopen?.();
      }
      while (buf && buf.length >= 2) {
        const fin = buf[0] & 128;
        const op = buf[0] & 15;
        let len = buf[1] & 127;
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
        const data = buf.subarray(at, at + len);
        buf = buf.length > at + len ? buf.subarray(at + len) : null;
        if (op === 1 || op === 2 || op === 0) {
          fragments.push(data);
          if (!fin) continue;
          const text = fragments.length === 1 ? data.toString() : Buffer.concat(fragments).toString();
          fragments = [];
          this.onmessage?.({ data: text });
        } else if (op === 8) {
          this.frame(8, Buffer.alloc(0));
          return fail(len >= 2 ? data.readUInt16BE(0) : 1005, data.subarray(2).toString());
        } else if (op === 9) {
          this.frame(10, data);
        }
      }
    });
  }

  frame(op, body) {
    const len = body.length;
    const head = len < 126 ? Buffer.from([0x80 | op, 0x80 | len, 0, 0, 0, 0])
      : len < 65536 ? Buffer.from([0x80 | op, 0x80 | 126, len >> 8, len & 255, 0, 0, 0, 0])
        : null;
    if (!head) throw new Error('frame too large');
    const mask = randomBytes(4);
    mask.copy(head, head.length - 4);
    const out = Buffer.from(body);
    for (let i = 0; i < out.length; i++) out[i] ^= mask[i & 3];
    this.sock.write(Buffer.concat([head, out]));
  }

  send(text) {
    if (this.readyState === 1) this.frame(1, Buffer.from(text));
  }

  close(code = 1000) {
    if (this.readyState !== 1) return this.sock.destroy();
    this.frame(8, Buffer.from([code >> 8, code & 255]));
    this.readyState = 2;
    setTimeout(() => this.sock.destroy(), 2000).unref();
  }
}

const Socket = process.env.BENCH_WS === 'native' ? WebSocket : RawWebSocket;

/** One Phoenix socket: pushes with replies, everything else to `onMessage(msg)`. */
class Phx {
  constructor(url) {
    this.url = url;
    this.ref = 0;
    this.pending = new Map();
    this.onMessage = () => {};
    this.closed = null;
  }

  open() {
    return new Promise((resolve, reject) => {
      const ws = new Socket(this.url);
      this.ws = ws;
      ws.onopen = () => resolve(this);
      ws.onerror = () => reject(new Error(`websocket error on ${this.url.split('?')[0]}`));
      ws.onclose = (e) => {
        this.closed = { code: e.code, reason: e.reason };
        reject(new Error(`closed ${e.code} ${e.reason}`));
        for (const p of this.pending.values()) p({ status: 'closed' });
        this.pending.clear();
      };
      ws.onmessage = (e) => {
        const msg = JSON.parse(e.data);
        if (msg[3] === 'phx_reply') {
          const p = this.pending.get(msg[1]);
          if (p) {
            this.pending.delete(msg[1]);
            p(msg[4]);
          }
          return;
        }
        this.onMessage(msg);
      };
    });
  }

  send(joinRef, topic, event, payload) {
    const ref = String(++this.ref);
    this.ws.send(JSON.stringify([joinRef, ref, topic, event, payload]));
    return ref;
  }

  request(joinRef, topic, event, payload) {
    return new Promise((resolve) => {
      this.pending.set(this.send(joinRef, topic, event, payload), resolve);
    });
  }

  async join(topic, config, accessToken) {
    this.joinRef = String(this.ref + 1);
    this.topic = topic;
    const reply = await this.request(this.joinRef, topic, 'phx_join', { config, access_token: accessToken });
    if (reply.status !== 'ok') throw new Error(`join ${topic}: ${JSON.stringify(reply)}`);
    return reply.response;
  }

  heartbeat() {
    if (this.ws.readyState === 1) this.send(null, 'phoenix', 'heartbeat', {});
  }

  close() {
    try { this.ws.close(1000); } catch { /* already closed */ }
  }
}

const broadcastConfig = { broadcast: { self: false, ack: false }, presence: { enabled: false }, private: false };

/** Open `count` sockets and join each (`setup(i, socket)` joins), `CONNECT_PARALLEL` at a time. */
async function openMany(count, url, setup) {
  const sockets = new Array(count);
  let next = 0;
  let failed = 0;
  let firstError;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      for (let attempt = 0; ; attempt++) {
        let s;
        try {
          s = new Phx(url);
          await s.open();
          await setup(i, s);
          sockets[i] = s;
          break;
        } catch (err) {
          s?.close();
          if (attempt >= 2) {
            failed++;
            firstError ??= err.message;
            break;
          }
          await sleep(200);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECT_PARALLEL }, lane));
  // Heartbeats as realtime-js sends them (the server closes sockets silent for 90 s), staggered.
  const timer = setInterval(() => {
    sockets.forEach((s, i) => s && setTimeout(() => s.heartbeat(), (i * 7) % 1000));
  }, HEARTBEAT_MS);
  timer.unref();
  return { sockets, failed, firstError, stop: () => clearInterval(timer) };
}

function closedSummary(sockets) {
  const reasons = {};
  for (const s of sockets) {
    if (s?.closed) {
      const k = `${s.closed.code} ${s.closed.reason}`.trim();
      reasons[k] = (reasons[k] || 0) + 1;
    }
  }
  return reasons;
}

// ---------------------------------------------------------------------------------------------
// Receiver threads (broadcast, idle).

async function receiverThread({ mode, url, token, topic, first, count, messages }) {
  const received = new Uint16Array(mode === 'broadcast' ? count * messages : 0);
  const lat = new Float64Array(mode === 'broadcast' ? count * messages : 0);
  let n = 0;
  let last = 0;
  const { sockets, failed, firstError, stop } = await openMany(count, url, async (i, s) => {
    const t = mode === 'broadcast' ? topic : `${topic}-${first + i}`;
    if (mode === 'broadcast') {
      s.onMessage = (msg) => {
        if (msg[3] !== 'broadcast') return;
        const at = now();
        const p = msg[4].payload;
        const slot = i * messages + p.seq;
        if (received[slot]++ === 0 && n < lat.length) lat[n++] = at - p.t;
        last = at;
      };
    }
    await s.join(t, broadcastConfig, token);
  });
  // How late this thread's event loop runs: when it is busy, latencies measure the client.
  const loop = monitorEventLoopDelay({ resolution: 1 });
  parentPort.postMessage({ type: 'ready', failed, firstError });
  parentPort.on('message', (m) => {
    if (m === 'start') {
      loop.enable();
    } else if (m === 'count') {
      parentPort.postMessage({ type: 'count', n });
    } else if (m === 'finish') {
      let deliveries = 0;
      let dups = 0;
      let missed = 0;
      for (let i = 0; i < count; i++) {
        if (!sockets[i]) continue;
        for (let k = 0; k < messages; k++) {
          const c = received[i * messages + k];
          deliveries += c;
          if (c === 0) missed++;
          else dups += c - 1;
        }
      }
      const latencies = lat.slice(0, n);
      loop.disable();
      // The histogram counts the 1 ms sampling period itself.
      const loopDelay = { p99: Math.max(0, loop.percentile(99) / 1e6 - 1), max: Math.max(0, loop.max / 1e6 - 1) };
      parentPort.postMessage(
        { type: 'result', deliveries, dups, missed, connected: count - failed, last, latencies, loopDelay, closed: closedSummary(sockets) },
        [latencies.buffer],
      );
    } else if (m === 'close') {
      stop();
      for (const s of sockets) s?.close();
      setTimeout(() => process.exit(0), 500);
    }
  });
}

/** Start `workers` receiver threads sharing `total` sockets; resolves once all are joined. */
async function startReceivers(total, workers, data) {
  const threads = [];
  const per = Math.ceil(total / workers);
  for (let w = 0, first = 0; first < total; w++, first += per) {
    const count = Math.min(per, total - first);
    const worker = new Worker(new URL(import.meta.url), { workerData: { ...data, first, count } });
    threads.push(worker);
  }
  const ask = (msg, type) => Promise.all(threads.map((t) => new Promise((resolve) => {
    const on = (m) => {
      if (m.type === type) {
        t.off('message', on);
        resolve(m);
      }
    };
    t.on('message', on);
    if (msg) t.postMessage(msg);
  })));
  const ready = await ask(null, 'ready');
  return {
    failed: ready.reduce((a, r) => a + r.failed, 0),
    firstError: ready.find((r) => r.firstError)?.firstError,
    start: () => threads.forEach((t) => t.postMessage('start')),
    count: async () => (await ask('count', 'count')).reduce((a, r) => a + r.n, 0),
    finish: () => ask('finish', 'result'),
    close: () => threads.forEach((t) => t.postMessage('close')),
  };
}

// ---------------------------------------------------------------------------------------------
// Modes.

async function broadcastMode(c) {
  const messages = Math.round(c.rate * c.seconds);
  const started = now();
  const rx = await startReceivers(c.sockets, c.workers, {
    mode: 'broadcast', url: c.url, token: c.token, topic: c.topic, messages,
  });
  const sender = new Phx(c.url);
  await sender.open();
  await sender.join(c.topic, broadcastConfig, c.token);
  emit({ event: 'ready', connected: c.sockets - rx.failed, failed: rx.failed, firstError: rx.firstError, setup_s: (now() - started) / 1000 });
  await sleep(1000);
  rx.start();
  const t0 = now();
  const interval = 1000 / c.rate;
  let lag = 0;
  for (let seq = 0; seq < messages; seq++) {
    const due = t0 + seq * interval;
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    else lag = Math.max(lag, -wait);
    sender.send(sender.joinRef, c.topic, 'broadcast', { type: 'broadcast', event: 'tick', payload: { seq, t: now() } });
  }
  const sentAt = now();
  const expected = (c.sockets - rx.failed) * messages;
  let seen = -1;
  let stable = now();
  while (now() - sentAt < 30000) {
    const got = await rx.count();
    if (got >= expected) break;
    if (got !== seen) {
      seen = got;
      stable = now();
    } else if (now() - stable > 5000) {
      break;
    }
    await sleep(200);
  }
  const results = await rx.finish();
  const latencies = concat(results.map((r) => r.latencies));
  const deliveries = results.reduce((a, r) => a + r.deliveries, 0);
  const last = Math.max(...results.map((r) => r.last));
  const closed = {};
  for (const r of results) for (const [k, v] of Object.entries(r.closed)) closed[k] = (closed[k] || 0) + v;
  emit({
    event: 'result', messages, connected: c.sockets - rx.failed, expected, deliveries,
    unique: latencies.length,
    missed: results.reduce((a, r) => a + r.missed, 0),
    duplicated: results.reduce((a, r) => a + r.dups, 0),
    window_s: (last - t0) / 1000,
    send_lag_ms: lag,
    // Event-loop delay of the receiver threads while sending (the worst thread).
    loop_p99_ms: Math.max(...results.map((r) => r.loopDelay.p99)),
    loop_max_ms: Math.max(...results.map((r) => r.loopDelay.max)),
    closed,
    ...percentiles(latencies),
  });
  sender.close();
  rx.close();
  setTimeout(() => process.exit(0), 1000);
}

async function idleMode(c) {
  const started = now();
  const rx = await startReceivers(c.sockets, c.workers, { mode: 'idle', url: c.url, token: c.token, topic: c.topic });
  emit({ event: 'ready', connected: c.sockets - rx.failed, failed: rx.failed, firstError: rx.firstError, setup_s: (now() - started) / 1000 });
  const rl = readline.createInterface({ input: process.stdin });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    rx.close();
    emit({ event: 'result' });
    setTimeout(() => process.exit(0), 1000);
  };
  rl.once('line', end);
  rl.once('close', end);
}

async function changesMode(c) {
  const pg = require('pg');
  const users = Array.from({ length: c.clients }, () => randomUUID());
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const tokens = users.map((sub) => signJwt({ sub, role: 'authenticated', aud: 'authenticated', exp }, c.secret));
  const total = Math.round(c.rate * c.seconds);
  const owners = new Int32Array(total).map(() => Math.floor(Math.random() * c.clients));
  const got = new Uint16Array(total); // deliveries of each change to its owner
  const lat = new Float64Array(total);
  const latCommit = new Float64Array(total);
  let n = 0;
  let deliveries = 0;
  let wrong = 0;
  let stray = 0;
  const worst = { ms: 0, seq: -1 };
  const started = now();
  const { sockets, failed, firstError, stop } = await openMany(c.clients, c.url, async (i, s) => {
    s.onMessage = (msg) => {
      if (msg[3] !== 'postgres_changes') return;
      const at = now();
      const record = msg[4].data?.record;
      deliveries++;
      if (!record || record.run !== c.run || !(record.seq >= 0 && record.seq < total)) {
        stray++;
        return;
      }
      if (record.owner !== users[i]) {
        wrong++;
        return;
      }
      if (got[record.seq]++ === 0) {
        lat[n] = at - record.sent_ms;
        if (lat[n] > worst.ms) Object.assign(worst, { ms: lat[n], seq: record.seq });
        latCommit[n++] = at - Date.parse(msg[4].data.commit_timestamp);
      }
    };
    const binding = { event: '*', schema: 'public', table: c.table };
    if (c.filter) binding.filter = `owner=eq.${users[i]}`;
    await s.join(c.topic, { ...broadcastConfig, postgres_changes: [binding] }, tokens[i]);
  });
  const db = new pg.Client(c.db);
  await db.connect();
  emit({ event: 'ready', connected: c.clients - failed, failed, firstError, setup_s: (now() - started) / 1000 });
  await sleep(1000);
  const t0 = now();
  const interval = 1000 / c.rate;
  const inserts = [];
  let lag = 0;
  let insertErrors = 0;
  for (let seq = 0; seq < total; seq++) {
    const due = t0 + seq * interval;
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    else lag = Math.max(lag, -wait);
    inserts.push(db.query(`insert into public.${c.table} (owner, seq, run) values ($1, $2, $3)`, [users[owners[seq]], seq, c.run])
      .catch(() => { insertErrors++; }));
  }
  await Promise.all(inserts);
  const sentAt = now();
  while (now() - sentAt < c.drain_ms && n < total) await sleep(50);
  await sleep(500); // late duplicates
  // Changes whose owner's socket never joined cannot be expected.
  let expected = 0;
  let missed = 0;
  let duplicated = 0;
  for (let seq = 0; seq < total; seq++) {
    if (!sockets[owners[seq]]) continue;
    expected++;
    if (got[seq] === 0) missed++;
    else duplicated += got[seq] - 1;
  }
  emit({
    event: 'result', changes: total, expected, deliveries, delivered: n, missed, duplicated, wrong_user: wrong,
    stray, insert_errors: insertErrors, connected: c.clients - failed, send_lag_ms: lag,
    closed: closedSummary(sockets),
    worst_seq: worst.seq,
    ...percentiles(lat.slice(0, n)),
    commit: percentiles(latCommit.slice(0, n)),
  });
  stop();
  for (const s of sockets) s?.close();
  await db.end();
  setTimeout(() => process.exit(0), 500);
}

async function notifyMode(c) {
  const pg = require('pg');
  const listener = new pg.Client(c.db);
  const sender = new pg.Client(c.db);
  await listener.connect();
  await sender.connect();
  const total = Math.round(c.rate * c.seconds);
  const lat = [];
  listener.on('notification', (m) => { lat.push(now() - Number(m.payload)); });
  await listener.query('listen bench_realtime');
  const t0 = now();
  for (let i = 0; i < total; i++) {
    const wait = t0 + (i * 1000) / c.rate - now();
    if (wait > 0) await sleep(wait);
    await sender.query('select pg_notify($1, $2)', ['bench_realtime', String(now())]);
  }
  const end = now();
  while (lat.length < total && now() - end < 5000) await sleep(20);
  emit({ event: 'result', sent: total, received: lat.length, ...percentiles(Float64Array.from(lat)) });
  await listener.end();
  await sender.end();
}

/** A minimal WebSocket fan-out server speaking just enough Phoenix for the clients above. */
function fanoutServer(c) {
  const topics = new Map();
  const frame = (text) => {
    const body = Buffer.from(text);
    const len = body.length;
    const head = len < 126 ? Buffer.from([0x81, len])
      : len < 65536 ? Buffer.from([0x81, 126, len >> 8, len & 255])
        : (() => { const b = Buffer.alloc(10); b[0] = 0x81; b[1] = 127; b.writeBigUInt64BE(BigInt(len), 2); return b; })();
    return Buffer.concat([head, body]);
  };
  const server = http.createServer((req, res) => { res.writeHead(404); res.end(); });
  server.on('upgrade', (req, socket) => {
    const accept = createHash('sha1').update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    socket.setNoDelay(true);
    const joined = new Set();
    let buf = Buffer.alloc(0);
    const onText = (text) => {
      const [joinRef, ref, topic, event, payload] = JSON.parse(text);
      const reply = (response) => socket.write(frame(JSON.stringify([joinRef, ref, topic, 'phx_reply', { status: 'ok', response }])));
      if (event === 'phx_join') {
        if (!topics.has(topic)) topics.set(topic, new Set());
        topics.get(topic).add(socket);
        joined.add(topic);
        reply({ postgres_changes: [] });
      } else if (event === 'broadcast') {
        const out = frame(JSON.stringify([null, null, topic, 'broadcast', payload]));
        for (const s of topics.get(topic) || []) if (s !== socket) s.write(out);
      } else {
        reply({});
      }
    };
    socket.on('data', (chunk) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      while (buf.length >= 2) {
        const op = buf[0] & 15;
        let len = buf[1] & 127;
        let at = 2;
        if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); at = 4; }
        else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); at = 10; }
        const masked = buf[1] & 128;
        if (buf.length < at + (masked ? 4 : 0) + len) return;
        const mask = masked ? buf.subarray(at, at + 4) : null;
        at += masked ? 4 : 0;
        const data = Buffer.from(buf.subarray(at, at + len));
        if (mask) for (let i = 0; i < data.length; i++) data[i] ^= mask[i & 3];
        buf = buf.subarray(at + len);
        if (op === 1) onText(data.toString());
        else if (op === 8) { socket.end(Buffer.from([0x88, 0])); return; }
        else if (op === 9) socket.write(Buffer.concat([Buffer.from([0x8a, data.length]), data]));
      }
    });
    const drop = () => { for (const t of joined) topics.get(t)?.delete(socket); };
    socket.on('close', drop);
    socket.on('error', drop);
  });
  server.listen(c.port, '127.0.0.1', () => emit({ event: 'ready', port: c.port }));
}

function concat(arrays) {
  const out = new Float64Array(arrays.reduce((a, x) => a + x.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

function percentiles(values) {
  const v = Float64Array.from(values).sort();
  const at = (p) => (v.length ? v[Math.min(v.length - 1, Math.floor(v.length * p))] : null);
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: v.length ? v[v.length - 1] : null, samples: v.length };
}

if (!isMainThread) {
  receiverThread(workerData);
} else {
  const [mode, json] = process.argv.slice(2);
  const config = JSON.parse(json || '{}');
  const modes = { changes: changesMode, broadcast: broadcastMode, idle: idleMode, notify: notifyMode, 'fanout-server': fanoutServer };
  if (!modes[mode]) {
    console.error(`usage: bench_realtime_load.mjs ${Object.keys(modes).join('|')} '<json>'`);
    process.exit(2);
  }
  Promise.resolve(modes[mode](config)).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
