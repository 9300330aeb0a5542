// storage-js `listV2` (POST /storage/v1/object/list-v2/{bucket}): folders grouped at the next `/`
// with storage-api's `{key, name}` shape, objects in byte order of their names or by creation
// time, pages chained by `nextCursor` until `hasNext` is false, `%` and `_` in a prefix taken
// literally, and row-level security deciding which objects (and so which folders) a user sees.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import { startServer } from '../lib/server.mjs';
import { signJwt } from '../lib/jwt.mjs';

const fixture = readFileSync(new URL('../fixtures/storage.sql', import.meta.url), 'utf8');
const opts = { auth: { persistSession: false, autoRefreshToken: false } };
const ALICE = randomUUID();
const BOB = randomUUID();
let server;
let admin;

const userClient = (sub) => {
  const token = signJwt({ sub, role: 'authenticated', aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + 3600 }, server.jwtSecret);
  return createClient(server.url, server.anonKey, { ...opts, global: { headers: { Authorization: `Bearer ${token}` } } });
};
const ok = ({ data, error }) => { assert.equal(error, null, JSON.stringify(error)); return data; };
const names = (entries) => entries.map((e) => e.name);

/** Every page of a listing, `limit` entries at a time. */
async function allPages(client, bucket, options) {
  const pages = [];
  let cursor;
  for (let i = 0; i < 20; i += 1) {
    const page = ok(await client.storage.from(bucket).listV2({ ...options, cursor }));
    pages.push(page);
    if (!page.hasNext) return pages;
    assert.ok(page.nextCursor, 'a page with more after it has a cursor');
    cursor = page.nextCursor;
  }
  throw new Error('too many pages');
}

before(async () => {
  server = await startServer({}, { fixture });
  admin = createClient(server.url, server.serviceKey, opts);
  ok(await admin.storage.createBucket('private', { public: false }));
  ok(await admin.storage.createBucket('files'));
  // created one after the other: creation order differs from name order
  for (const name of ['c.txt', 'a/2.txt', 'a/b/3.txt', 'd/4.txt', 'a/1.txt', 'pct%_x.txt', 'pctAAx.txt', 'b.txt']) {
    ok(await admin.storage.from('files').upload(name, new Blob([name]), { contentType: 'text/plain' }));
  }
});
after(async () => { await server?.stop(); });

test('with a delimiter: folders with their key, then objects, in name order', async () => {
  const all = ok(await admin.storage.from('files').listV2({ with_delimiter: true }));
  assert.equal(all.hasNext, false);
  assert.deepEqual(all.folders, [{ key: 'a', name: 'a/' }, { key: 'd', name: 'd/' }]);
  assert.deepEqual(names(all.objects), ['b.txt', 'c.txt', 'pct%_x.txt', 'pctAAx.txt']);
  const obj = all.objects[0];
  assert.match(obj.id, /^[0-9a-f-]{36}$/);
  assert.equal(obj.key, 'b.txt');
  assert.equal(obj.metadata.size, 5);
  assert.ok(obj.created_at && obj.updated_at);

  const inA = ok(await admin.storage.from('files').listV2({ prefix: 'a/', with_delimiter: true }));
  assert.deepEqual(inA.folders, [{ key: 'a/b', name: 'a/b/' }]);
  assert.deepEqual(names(inA.objects), ['a/1.txt', 'a/2.txt']);
});

test('pages of two chain through nextCursor, ascending and descending, folders counting as entries', async () => {
  const up = await allPages(admin, 'files', { with_delimiter: true, limit: 2 });
  assert.deepEqual(up.map((p) => [...names(p.folders), ...names(p.objects)].length), [2, 2, 2]);
  assert.deepEqual(up.flatMap((p) => [...names(p.folders), ...names(p.objects)]).sort(),
    ['a/', 'b.txt', 'c.txt', 'd/', 'pct%_x.txt', 'pctAAx.txt'].sort());
  // each page holds the next entries in name order (a page lists its folders apart from its objects)
  const perPage = up.map((p) => names(p.folders.concat(p.objects)).sort());
  assert.deepEqual(perPage, [['a/', 'b.txt'], ['c.txt', 'd/'], ['pct%_x.txt', 'pctAAx.txt']]);
  assert.ok(up[0].nextCursorKey, 'the last name of the page');

  const down = await allPages(admin, 'files', { with_delimiter: true, limit: 4, sortBy: { column: 'name', order: 'desc' } });
  assert.deepEqual(down.map((p) => names(p.folders.concat(p.objects)).sort()),
    [['c.txt', 'd/', 'pct%_x.txt', 'pctAAx.txt'], ['a/', 'b.txt']]);
  assert.deepEqual(names(down[0].objects), ['pctAAx.txt', 'pct%_x.txt', 'c.txt'], 'objects newest name first');

  // by creation time, a folder is dated by its oldest object (as storage-api's search_by_timestamp)
  const byDate = await allPages(admin, 'files', { with_delimiter: true, limit: 2, sortBy: { column: 'created_at', order: 'asc' } });
  assert.deepEqual(byDate.map((p) => names(p.folders.concat(p.objects)).sort()),
    [['a/', 'c.txt'], ['d/', 'pct%_x.txt'], ['b.txt', 'pctAAx.txt']]);
  assert.equal(byDate[0].folders[0].key, 'a');
});

test('without a delimiter: every object under the prefix, by name or by creation time', async () => {
  const flat = await allPages(admin, 'files', { limit: 3 });
  assert.deepEqual(flat.flatMap((p) => names(p.objects)),
    ['a/1.txt', 'a/2.txt', 'a/b/3.txt', 'b.txt', 'c.txt', 'd/4.txt', 'pct%_x.txt', 'pctAAx.txt']);
  assert.ok(flat.every((p) => p.folders.length === 0));

  const created = await allPages(admin, 'files', { limit: 3, sortBy: { column: 'created_at', order: 'asc' } });
  assert.deepEqual(created.flatMap((p) => names(p.objects)),
    ['c.txt', 'a/2.txt', 'a/b/3.txt', 'd/4.txt', 'a/1.txt', 'pct%_x.txt', 'pctAAx.txt', 'b.txt']);
  const newest = await allPages(admin, 'files', { limit: 5, sortBy: { column: 'created_at', order: 'desc' } });
  assert.deepEqual(newest.flatMap((p) => names(p.objects))[0], 'b.txt');
  assert.equal(newest.flatMap((p) => p.objects).length, 8);

  // `%` and `_` in a prefix are the characters themselves, not wildcards
  const literal = ok(await admin.storage.from('files').listV2({ prefix: 'pct%_' }));
  assert.deepEqual(names(literal.objects), ['pct%_x.txt']);
});

test('row-level security decides which objects, and so which folders, a user sees', async () => {
  const alice = userClient(ALICE);
  const bob = userClient(BOB);
  ok(await alice.storage.from('private').upload(`${ALICE}/notes/a.txt`, new Blob(['a'])));
  ok(await bob.storage.from('private').upload(`${BOB}/b.txt`, new Blob(['b'])));
  const seen = ok(await alice.storage.from('private').listV2({ with_delimiter: true }));
  assert.deepEqual(seen.folders, [{ key: ALICE, name: `${ALICE}/` }]);
  const deeper = ok(await alice.storage.from('private').listV2({ prefix: `${ALICE}/`, with_delimiter: true }));
  assert.deepEqual(deeper.folders, [{ key: `${ALICE}/notes`, name: `${ALICE}/notes/` }]);
  const none = ok(await alice.storage.from('private').listV2({ prefix: `${BOB}/` }));
  assert.deepEqual(none.objects, []);
  const anon = createClient(server.url, server.anonKey, opts);
  assert.deepEqual(ok(await anon.storage.from('private').listV2({ with_delimiter: true })).folders, []);
});

test('a bad cursor, a bad limit or an unknown bucket answer storage-api errors', async () => {
  const bad = await admin.storage.from('files').listV2({ cursor: 'not base64 !!' });
  assert.equal(bad.data, null);
  assert.equal(bad.error.statusCode, '400');
  const zero = await admin.storage.from('files').listV2({ limit: 0 });
  assert.equal(zero.error.statusCode, '400');
  const missing = await admin.storage.from('nope').listV2({});
  assert.equal(missing.error.statusCode, '404');
});
