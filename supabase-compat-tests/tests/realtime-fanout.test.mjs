// /realtime/v1 fan-out on a server with several HTTP threads (HTTP_WORKERS=4, where the other
// tests run one): each thread writes its own sockets, so a broadcast crosses threads to reach a
// topic's members. Every socket must get every broadcast exactly once and in the order sent,
// over the socket and over the REST endpoint, on both serializers; a client that stops reading
// is closed with 1013 "client too slow" after what was queued for it, while the others keep
// receiving everything.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { startServer } from '../lib/server.mjs';
import { DEADLINE, waitFor, topicName } from '../lib/realtime.mjs';

let server;

before(async () => {
  server = await startServer({ HTTP_WORKERS: '4', TENANT_MAX_EVENTS_PER_SECOND: '100000' });
});
after(async () => {
  for (const s of open) s.close();
  await server?.stop();
});

const open = new Set();

/** A socket's broadcasts as { event, payload }, in arrival order, whatever its serializer. */
function receiver(vsn) {
  const url = `${server.url.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${server.anonKey}&vsn=${vsn}`;
  const ws = new WebSocket(url);
  const s = { ws, vsn, got: [], replies: new Map(), ref: 0, close: () => ws.close() };
  open.add(s);
  ws.addEventListener('message', (e) => {
    const m = JSON.parse(e.data);
    const [ref, event, payload] = vsn === '2.0.0' ? [m[1], m[3], m[4]] : [m.ref, m.event, m.payload];
    if (event === 'phx_reply') s.replies.set(ref, payload);
    if (event === 'broadcast') s.got.push({ event: payload.event, payload: payload.payload });
  });
  s.push = (topic, event, payload, joinRef = null) => {
    const ref = String(++s.ref);
    ws.send(vsn === '2.0.0' ? JSON.stringify([joinRef, ref, topic, event, payload])
      : JSON.stringify({ topic, event, payload, ref, join_ref: joinRef }));
    return ref;
  };
  s.join = async (topic) => {
    await new Promise((resolve, reject) => {
      if (ws.readyState === WebSocket.OPEN) return resolve();
      ws.addEventListener('open', resolve, { once: true });
      ws.addEventListener('error', () => reject(new Error('the WebSocket did not open')), { once: true });
    });
    const ref = s.push(topic, 'phx_join', { config: { broadcast: { self: false } } });
    const reply = await waitFor(() => s.replies.get(ref), DEADLINE, `the join reply on ${topic}`);
    assert.equal(reply.status, 'ok');
    s.joinRef = ref;
    return s;
  };
  return s;
}

const seqs = (s, event) => s.got.filter((m) => m.event === event).map((m) => m.payload.seq);
const range = (n) => Array.from({ length: n }, (_, i) => i);

test('with four HTTP threads, 16 sockets (both serializers) get 300 socket broadcasts and 20 REST broadcasts each exactly once and in the order sent', async () => {
  const name = topicName('fanout');
  const topic = `realtime:${name}`;
  const receivers = await Promise.all(range(16).map((i) => receiver(i % 2 ? '1.0.0' : '2.0.0').join(topic)));
  const sender = await receiver('2.0.0').join(topic);
  for (const seq of range(300)) {
    sender.push(topic, 'broadcast', { type: 'broadcast', event: 'tick', payload: { seq } }, sender.joinRef);
  }
  // One request after the other: each answered before the next is sent, whichever thread takes it.
  for (const seq of range(20)) {
    const res = await fetch(`${server.url}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: { apikey: server.serviceKey, authorization: `Bearer ${server.serviceKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ topic: name, event: 'rest', payload: { seq } }] }),
    });
    assert.equal(res.status, 202);
  }
  await waitFor(() => receivers.every((r) => r.got.length >= 320), DEADLINE, 'every broadcast at every socket');
  for (const [i, r] of receivers.entries()) {
    assert.deepEqual(seqs(r, 'tick'), range(300), `socket ${i} (${r.vsn}): socket broadcasts`);
    assert.deepEqual(seqs(r, 'rest'), range(20), `socket ${i} (${r.vsn}): REST broadcasts`);
  }
  assert.deepEqual(seqs(sender, 'tick'), [], 'self: false: the sender does not hear its own');
  assert.deepEqual(seqs(sender, 'rest'), range(20), 'the REST broadcasts reach the sender too');
});

/** A socket on plain TCP that joins `topic`, then reads nothing until `resume()`. */
async function stalled(topic) {
  const { port } = new URL(server.url);
  const sock = net.connect(Number(port), '127.0.0.1');
  await new Promise((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
  const frame = (op, text) => {
    const body = Buffer.from(text);
    const mask = randomBytes(4);
    const head = body.length < 126 ? Buffer.from([0x80 | op, 0x80 | body.length])
      : Buffer.from([0x80 | op, 0x80 | 126, body.length >> 8, body.length & 255]);
    return Buffer.concat([head, mask, Buffer.from(body.map((b, i) => b ^ mask[i & 3]))]);
  };
  let buf = Buffer.alloc(0);
  const frames = [];
  const onData = (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    if (!frames.upgraded) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      assert.match(buf.subarray(0, end).toString(), /^HTTP\/1\.1 101/);
      frames.upgraded = true;
      buf = buf.subarray(end + 4);
    }
    for (;;) {
      if (buf.length < 2) return;
      let len = buf[1] & 127;
      let at = 2;
      if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); at = 4; }
      else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); at = 10; }
      if (buf.length < at + len) return;
      frames.push({ op: buf[0] & 15, data: buf.subarray(at, at + len) });
      buf = buf.subarray(at + len);
    }
  };
  sock.on('data', onData);
  sock.write(`GET /realtime/v1/websocket?apikey=${server.anonKey}&vsn=2.0.0 HTTP/1.1\r\nHost: 127.0.0.1\r\n`
    + `Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n`
    + 'Sec-WebSocket-Version: 13\r\n\r\n');
  sock.write(frame(1, JSON.stringify(['1', '1', topic, 'phx_join', { config: { broadcast: { self: false } } }])));
  await waitFor(() => frames.some((f) => f.op === 1 && JSON.parse(f.data)[3] === 'phx_reply'), DEADLINE, 'the stalled socket joined');
  sock.pause();
  open.add({ close: () => sock.destroy() });
  return {
    frames,
    resume: () => sock.resume(),
    ticks: () => frames.filter((f) => f.op === 1).map((f) => JSON.parse(f.data)).filter((m) => m[3] === 'broadcast').map((m) => m[4].payload.seq),
    close: () => frames.find((f) => f.op === 8),
  };
}

test('a socket that stops reading is closed with 1013 "client too slow" after the broadcasts queued for it, in order; another socket gets all 3,000', async () => {
  const topic = `realtime:${topicName('slow')}`;
  const slow = await stalled(topic);
  const fast = await receiver('2.0.0').join(topic);
  const sender = await receiver('2.0.0').join(topic);
  // 3,000 x 16 KB: more than the slow socket's kernel buffers and its 1,024-frame queue hold.
  const pad = 'k'.repeat(16 * 1024);
  // Sent in steps of 100 that the reading socket takes in before the next: it never has more
  // than a few hundred waiting, so only the stalled one lags.
  for (let seq = 0; seq < 3000; seq++) {
    sender.push(topic, 'broadcast', { type: 'broadcast', event: 'tick', payload: { seq, pad } }, sender.joinRef);
    if (seq % 100 === 99) await waitFor(() => fast.got.length > seq - 100, DEADLINE, `broadcast ${seq - 100} at the reading socket`);
  }
  await waitFor(() => fast.got.length >= 3000, DEADLINE, 'all 3,000 at the reading socket');
  assert.equal(fast.ws.readyState, WebSocket.OPEN);
  assert.deepEqual(seqs(fast, 'tick'), range(3000));
  slow.resume();
  const close = await waitFor(() => slow.close(), DEADLINE, 'a close frame at the stalled socket');
  assert.equal(close.data.readUInt16BE(0), 1013);
  assert.equal(close.data.subarray(2).toString(), 'client too slow');
  const ticks = slow.ticks();
  // Its whole queue (1,024 frames) is written before the close, besides what the kernel held.
  assert.ok(ticks.length >= 1024 && ticks.length < 3000, `the stalled socket got ${ticks.length} of 3,000 before its close`);
  assert.deepEqual(ticks, range(ticks.length), 'what it got is the first broadcasts, in order, without a gap');
});
