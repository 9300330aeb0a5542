// /realtime/v1 broadcast, presence and private channels through the unchanged supabase-js
// (realtime-js), with both serializers: client to client, `self` and `ack`, binary payloads,
// the REST endpoint (send() before joining, httpSend), realtime.send and
// realtime.broadcast_changes from SQL, channels authorized by policies on realtime.messages,
// and presence sync / join / leave.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startServer, sql } from '../lib/server.mjs';
import {
  VSNS, DEADLINE, realtimeClient, closeClients, userToken, waitFor, inbox, subscribed,
  subscribeLogged, topicName, metas, without,
} from '../lib/realtime.mjs';

const A = 'aaaaaaaa-0000-4000-8000-0000000000a1';
const B = 'bbbbbbbb-0000-4000-8000-0000000000b2';
const fixture = `
  -- private channels: authenticated users may receive and send on 'allowed-room' only, and
  -- receive on 'orders' (fed by a trigger).
  create policy rt_allowed_read on realtime.messages for select to authenticated
    using (realtime.topic() = 'allowed-room' or realtime.topic() = 'orders');
  create policy rt_allowed_write on realtime.messages for insert to authenticated
    with check (realtime.topic() = 'allowed-room');

  create table public.rt_orders (id int primary key, status text not null);
  create function public.rt_orders_broadcast() returns trigger
  language plpgsql security definer set search_path = ''
  as $$
  begin
    perform realtime.broadcast_changes('orders', tg_op, tg_op, tg_table_name, tg_table_schema, new, old);
    return null;
  end
  $$;
  create trigger rt_orders_broadcast after insert or update or delete on public.rt_orders
  for each row execute function public.rt_orders_broadcast();
`;

let server;
const q = (text, params) => sql(server.dbUrl, text, params);

before(async () => { server = await startServer({}, { fixture }); });
afterEach(closeClients);
after(async () => {
  await closeClients();
  await server?.stop();
  await server?.dropSlots();
});

/** Two clients on one topic, both joined; `receiver` hears every broadcast event. */
async function pair(vsnSender, vsnReceiver, { tag = 'room', senderConfig = {}, receiverConfig = {} } = {}) {
  const topic = topicName(tag);
  const senderClient = await realtimeClient(server, { vsn: vsnSender });
  const receiverClient = await realtimeClient(server, { vsn: vsnReceiver });
  const heard = inbox('receiver');
  const receiver = receiverClient.channel(topic, { config: receiverConfig }).on('broadcast', { event: '*' }, heard);
  await subscribed(receiver);
  const sender = senderClient.channel(topic, { config: senderConfig });
  await subscribed(sender);
  return { topic, senderClient, receiverClient, sender, receiver, heard };
}

const greeting = { text: 'Mbote! Ça va ? 🚗', n: 1.5, nested: { list: [1, 'two', null, true] } };

for (const vsn of VSNS) {
  test(`a broadcast reaches the other client on the topic with its event and payload (serializer ${vsn})`, async () => {
    const { sender, heard } = await pair(vsn, vsn);
    assert.equal(await sender.send({ type: 'broadcast', event: 'greet', payload: greeting }), 'ok');
    const m = await heard.find((x) => x.event === 'greet');
    assert.equal(m.type, 'broadcast');
    assert.deepEqual(m.payload, greeting);
  });

  test(`with self: true the sender receives its own broadcast (serializer ${vsn})`, async () => {
    const supabase = await realtimeClient(server, { vsn });
    const mine = inbox('self');
    const channel = supabase.channel(topicName('self'), { config: { broadcast: { self: true } } })
      .on('broadcast', { event: 'echo' }, mine);
    await subscribed(channel);
    assert.equal(await channel.send({ type: 'broadcast', event: 'echo', payload: { n: 1 } }), 'ok');
    const m = await mine.find();
    assert.deepEqual({ type: m.type, event: m.event, payload: m.payload }, { type: 'broadcast', event: 'echo', payload: { n: 1 } });
  });

  test(`with self: false the sender does not receive its own broadcast (serializer ${vsn})`, async () => {
    const topic = topicName('noself');
    const me = await realtimeClient(server, { vsn });
    const other = await realtimeClient(server, { vsn });
    const mine = inbox('me');
    const channel = me.channel(topic, { config: { broadcast: { self: false, ack: true } } })
      .on('broadcast', { event: '*' }, mine);
    await subscribed(channel);
    const theirs = other.channel(topic);
    await subscribed(theirs);
    // Acknowledged, so the server has handled it before the control message is sent.
    assert.equal(await channel.send({ type: 'broadcast', event: 'echo', payload: { n: 1 } }), 'ok');
    await theirs.send({ type: 'broadcast', event: 'control', payload: { n: 2 } });
    await mine.find((m) => m.event === 'control');
    assert.deepEqual(mine.items.map((m) => m.event), ['control']);
  });

  test(`with ack: true send() resolves 'ok' once the server has the message (serializer ${vsn})`, async () => {
    const { sender, heard } = await pair(vsn, vsn, { senderConfig: { broadcast: { ack: true } } });
    const started = Date.now();
    assert.equal(await sender.send({ type: 'broadcast', event: 'acked', payload: { seq: 1 } }), 'ok');
    assert.ok(Date.now() - started < 10000, 'acknowledged before the push timeout');
    const m = await heard.find((x) => x.event === 'acked');
    assert.deepEqual(m.payload, { seq: 1 });
  });

  test(`send() on a channel that is not joined falls back to the REST endpoint and reaches a subscriber (serializer ${vsn})`, async () => {
    const topic = topicName('rest');
    const receiverClient = await realtimeClient(server, { vsn });
    const heard = inbox('receiver');
    await subscribed(receiverClient.channel(topic).on('broadcast', { event: '*' }, heard));
    const senderClient = await realtimeClient(server, { vsn });
    const unjoined = senderClient.channel(topic);
    assert.equal(await unjoined.send({ type: 'broadcast', event: 'rest', payload: { via: 'fallback' } }), 'ok');
    const m = await heard.find((x) => x.event === 'rest');
    assert.deepEqual(m.payload, { via: 'fallback' });
    assert.equal(m.type, 'broadcast');
  });

  test(`httpSend() posts to /realtime/v1/api/broadcast/<topic>/events/<event> and reaches a subscriber (serializer ${vsn})`, async () => {
    const topic = topicName('http');
    const receiverClient = await realtimeClient(server, { vsn });
    const heard = inbox('receiver');
    await subscribed(receiverClient.channel(topic).on('broadcast', { event: '*' }, heard));
    const senderClient = await realtimeClient(server, { vsn });
    const channel = senderClient.channel(topic);
    assert.deepEqual(await channel.httpSend('http', { via: 'httpSend', list: [1, 2] }), { success: true });
    const m = await heard.find((x) => x.event === 'http');
    assert.deepEqual(m.payload, { via: 'httpSend', list: [1, 2] });
    if (vsn === '2.0.0') {
      const bytes = new Uint8Array(randomBytes(300));
      assert.deepEqual(await channel.httpSend('http-bytes', bytes), { success: true });
      const b = await heard.find((x) => x.event === 'http-bytes');
      assert.ok(b.payload instanceof ArrayBuffer, 'a binary REST broadcast reaches 2.0.0 as an ArrayBuffer');
      assert.ok(Buffer.from(b.payload).equals(Buffer.from(bytes)));
    }
  });

  test(`realtime.send() from SQL reaches a subscriber of its topic (serializer ${vsn})`, async () => {
    const supabase = await realtimeClient(server, { vsn });
    const heard = inbox('room');
    await subscribed(supabase.channel('room').on('broadcast', { event: 'evt' }, heard));
    await q(`select realtime.send('{"a":1}'::jsonb, 'evt', 'room', false)`);
    const m = await heard.find();
    assert.equal(m.event, 'evt');
    assert.equal(m.type, 'broadcast');
    assert.deepEqual(without(m.payload, 'id'), { a: 1 });
  });

  test(`a private channel is joined where a realtime.messages policy allows it, refused elsewhere and to anon (serializer ${vsn})`, async () => {
    const alice = await realtimeClient(server, { vsn, token: userToken(server, A) });
    const heard = inbox('allowed');
    const allowed = alice.channel('allowed-room', { config: { private: true } }).on('broadcast', { event: '*' }, heard);
    await subscribed(allowed);

    const other = alice.channel('other-room', { config: { private: true } });
    const otherLog = subscribeLogged(other);
    await waitFor(() => otherLog.statuses.includes('CHANNEL_ERROR'), DEADLINE, `CHANNEL_ERROR on other-room (statuses: ${otherLog.statuses})`);
    assert.ok(!otherLog.statuses.includes('SUBSCRIBED'));

    const anon = await realtimeClient(server, { vsn });
    const anonChannel = anon.channel('allowed-room', { config: { private: true } });
    const anonLog = subscribeLogged(anonChannel);
    await waitFor(() => anonLog.statuses.includes('CHANNEL_ERROR'), DEADLINE, `CHANNEL_ERROR for anon (statuses: ${anonLog.statuses})`);
    assert.ok(!anonLog.statuses.includes('SUBSCRIBED'));

    // The refused joins did not disturb the allowed one.
    await q(`select realtime.send('{"from":"sql"}'::jsonb, 'private-evt', 'allowed-room', true)`);
    const m = await heard.find((x) => x.event === 'private-evt');
    assert.equal(m.payload.from, 'sql');
    assert.equal(allowed.state, 'joined');
  });

  test(`two users exchange broadcasts on a private channel their policies allow (serializer ${vsn})`, async () => {
    const alice = await realtimeClient(server, { vsn, token: userToken(server, A) });
    const bob = await realtimeClient(server, { vsn, token: userToken(server, B) });
    const heard = inbox('alice');
    await subscribed(alice.channel('allowed-room', { config: { private: true } }).on('broadcast', { event: 'hello' }, heard));
    const bobs = bob.channel('allowed-room', { config: { private: true, broadcast: { ack: true } } });
    await subscribed(bobs);
    assert.equal(await bobs.send({ type: 'broadcast', event: 'hello', payload: { from: 'bob' } }), 'ok');
    const m = await heard.find();
    assert.deepEqual(m.payload, { from: 'bob' });
  });

  test(`a row trigger calling realtime.broadcast_changes reaches a private channel's subscriber (serializer ${vsn})`, async () => {
    const alice = await realtimeClient(server, { vsn, token: userToken(server, A) });
    const heard = inbox('orders');
    await subscribed(alice.channel('orders', { config: { private: true } }).on('broadcast', { event: '*' }, heard));
    const id = vsn === '1.0.0' ? 1 : 2;
    await q(`insert into public.rt_orders (id, status) values (${id}, 'new')`);
    await q(`update public.rt_orders set status = 'paid' where id = ${id}`);
    const upd = await heard.find((m) => m.event === 'UPDATE');
    const ins = heard.items.find((m) => m.event === 'INSERT');
    assert.deepEqual(without(ins.payload, 'id'), {
      operation: 'INSERT', schema: 'public', table: 'rt_orders', record: { id, status: 'new' }, old_record: null,
    });
    assert.deepEqual(without(upd.payload, 'id'), {
      operation: 'UPDATE', schema: 'public', table: 'rt_orders', record: { id, status: 'paid' }, old_record: { id, status: 'new' },
    });
  });

  test(`presence: track() on one client shows as join and sync on the other, untrack() and removeChannel() as leave (serializer ${vsn})`, async () => {
    const topic = topicName('lobby');
    const watcherClient = await realtimeClient(server, { vsn });
    const trackerClient = await realtimeClient(server, { vsn });
    const joins = inbox('joins');
    const leaves = inbox('leaves');
    const syncs = inbox('syncs');
    const watcher = watcherClient.channel(topic, { config: { presence: { key: 'watcher' } } })
      .on('presence', { event: 'sync' }, () => syncs(watcher.presenceState()))
      .on('presence', { event: 'join' }, joins)
      .on('presence', { event: 'leave' }, leaves);
    await subscribed(watcher);
    const tracker = trackerClient.channel(topic, { config: { presence: { key: 'alice' } } });
    await subscribed(tracker);

    assert.equal(await tracker.track({ name: 'Alice', seats: 2 }), 'ok');
    const join = await joins.find((j) => j.key === 'alice');
    assert.deepEqual(metas(join.newPresences), [{ name: 'Alice', seats: 2 }]);
    assert.equal(typeof join.newPresences[0].presence_ref, 'string');
    const synced = await syncs.find((s) => s.alice);
    assert.deepEqual(metas(synced.alice), [{ name: 'Alice', seats: 2 }]);
    assert.deepEqual(metas(watcher.presenceState().alice), [{ name: 'Alice', seats: 2 }]);

    // A late joiner gets the current state on joining.
    const lateClient = await realtimeClient(server, { vsn });
    const lateSyncs = inbox('late');
    const late = lateClient.channel(topic, { config: { presence: { key: 'late' } } })
      .on('presence', { event: 'sync' }, () => lateSyncs(late.presenceState()));
    await subscribed(late);
    const lateState = await lateSyncs.find((s) => s.alice);
    assert.deepEqual(metas(lateState.alice), [{ name: 'Alice', seats: 2 }]);

    assert.equal(await tracker.untrack(), 'ok');
    const leave = await leaves.find((l) => l.key === 'alice');
    assert.deepEqual(metas(leave.leftPresences), [{ name: 'Alice', seats: 2 }]);
    await waitFor(() => !watcher.presenceState().alice, DEADLINE, 'alice to leave the presence state');

    assert.equal(await tracker.track({ name: 'Alice', seats: 3 }), 'ok');
    await joins.find((j) => j.key === 'alice' && j.newPresences.some((p) => p.seats === 3));
    await trackerClient.removeChannel(tracker);
    await leaves.find((l) => l.key === 'alice' && l.leftPresences.some((p) => p.seats === 3));
    await waitFor(() => !watcher.presenceState().alice, DEADLINE, 'alice to leave after removeChannel');
    assert.deepEqual(Object.keys(watcher.presenceState()), [], 'nobody else tracked anything');
  });
}

test('a binary (ArrayBuffer) broadcast arrives byte-identical (serializer 2.0.0)', async () => {
  const { sender, heard } = await pair('2.0.0', '2.0.0', { tag: 'binary' });
  const bytes = new Uint8Array(1024);
  for (let i = 0; i < 256; i += 1) bytes[i] = i;
  bytes.set(randomBytes(768), 256);
  assert.equal(await sender.send({ type: 'broadcast', event: 'bytes', payload: bytes.buffer }), 'ok');
  const m = await heard.find((x) => x.event === 'bytes');
  assert.equal(m.type, 'broadcast');
  assert.ok(m.payload instanceof ArrayBuffer, 'the payload is an ArrayBuffer');
  assert.ok(Buffer.from(m.payload).equals(Buffer.from(bytes)), 'the same bytes');
});

test('a broadcast crosses serializers: sent with 1.0.0, heard with 2.0.0, and back', async () => {
  const one = await pair('1.0.0', '2.0.0', { tag: 'cross' });
  assert.equal(await one.sender.send({ type: 'broadcast', event: 'v1-to-v2', payload: greeting }), 'ok');
  assert.deepEqual((await one.heard.find((x) => x.event === 'v1-to-v2')).payload, greeting);
  const two = await pair('2.0.0', '1.0.0', { tag: 'cross' });
  assert.equal(await two.sender.send({ type: 'broadcast', event: 'v2-to-v1', payload: greeting }), 'ok');
  assert.deepEqual((await two.heard.find((x) => x.event === 'v2-to-v1')).payload, greeting);
});
