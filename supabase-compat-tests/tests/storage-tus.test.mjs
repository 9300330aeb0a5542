// Resumable uploads (TUS) at /storage/v1/upload/resumable with tus-js-client, configured as
// Supabase's documentation configures it: 6 MB chunks, the user's token, `x-upsert`, metadata
// bucketName / objectName / contentType / cacheControl. An upload interrupted after its first
// chunk resumes on another server instance (same database and object store) and completes;
// row-level security refuses another user's folder at creation; only the creator may send the
// rest; a wrong offset is 409; a half-sent upload is never a visible object.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import tus from 'tus-js-client';
import { startServer } from '../lib/server.mjs';
import { signJwt } from '../lib/jwt.mjs';

const fixture = readFileSync(new URL('../fixtures/storage.sql', import.meta.url), 'utf8');
const opts = { auth: { persistSession: false, autoRefreshToken: false } };
const CHUNK = 6 * 1024 * 1024;
const ALICE = randomUUID();
const BOB = randomUUID();
let one;
let two;

const token = (server, sub) =>
  signJwt({ sub, role: 'authenticated', aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + 3600 }, server.jwtSecret);
const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** A tus-js-client upload of `bytes` to `objectName` in `bucketName`, as `sub`. */
function tusUpload(server, sub, bytes, { bucketName = 'private', objectName, uploadUrl, onChunk, upsert = false } = {}) {
  let upload;
  const done = new Promise((resolve, reject) => {
    upload = new tus.Upload(bytes, {
      endpoint: `${server.url}/storage/v1/upload/resumable`,
      uploadUrl,
      retryDelays: [],
      headers: { authorization: `Bearer ${token(server, sub)}`, 'x-upsert': String(upsert) },
      uploadDataDuringCreation: true,
      removeFingerprintOnSuccess: true,
      metadata: { bucketName, objectName, contentType: 'video/mp4', cacheControl: '3600' },
      chunkSize: CHUNK,
      onError: reject,
      onChunkComplete: (size, sent, total) => onChunk?.(sent, total, upload),
      onSuccess: () => resolve(upload),
    });
    upload.start();
  });
  return { done, get upload() { return upload; } };
}

before(async () => {
  // two instances on one database and one object store (the file backend under a shared DATA_DIR)
  const shared = mkdtempSync(path.join(tmpdir(), 'tus-shared-'));
  one = await startServer({ DATA_DIR: shared, FILE_SIZE_LIMIT: String(50 * 1024 * 1024) }, { fixture });
  two = await startServer({ DATA_DIR: shared, FILE_SIZE_LIMIT: String(50 * 1024 * 1024) }, { dbUrl: one.dbUrl, jwtSecret: one.jwtSecret });
  const admin = createClient(one.url, one.serviceKey, opts);
  const { error } = await admin.storage.createBucket('private', { public: false });
  assert.equal(error, null);
});
after(async () => { await one?.stop(); await two?.stop(); });

test('a 13 MB upload in 6 MB chunks becomes the object, byte for byte, as the user', async () => {
  const bytes = randomBytes(13 * 1024 * 1024);
  const objectName = `${ALICE}/videos/visite.mp4`;
  const chunks = [];
  await tusUpload(one, ALICE, bytes, { objectName, onChunk: (sent) => chunks.push(sent) }).done;
  assert.deepEqual(chunks, [CHUNK, 2 * CHUNK, bytes.length]);
  const alice = createClient(one.url, one.anonKey, { ...opts, global: { headers: { Authorization: `Bearer ${token(one, ALICE)}` } } });
  const { data, error } = await alice.storage.from('private').download(objectName);
  assert.equal(error, null);
  assert.equal(sha(Buffer.from(await data.arrayBuffer())), sha(bytes));
  const info = (await alice.storage.from('private').info(objectName)).data;
  assert.equal(info.size, bytes.length);
  assert.equal(info.contentType, 'video/mp4');
  assert.equal(info.cacheControl, 'max-age=3600');
});

test('interrupted after its first chunk, an upload resumes on another instance and completes', async () => {
  const bytes = randomBytes(2 * CHUNK + 1234);
  const objectName = `${ALICE}/videos/reprise.mp4`;
  const first = tusUpload(one, ALICE, bytes, {
    objectName,
    onChunk: (sent, total, upload) => { if (sent === CHUNK) upload.abort(); },
  });
  // abort() settles neither callback: wait until the first chunk is in
  const url = await new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(async () => {
      const u = first.upload?.url;
      if (u) {
        const head = await fetch(u, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0', Authorization: `Bearer ${token(one, ALICE)}`, apikey: one.anonKey } });
        if (head.headers.get('upload-offset') === String(CHUNK)) { clearInterval(poll); resolve(u); }
      }
      if (Date.now() - started > 15000) { clearInterval(poll); reject(new Error('the first chunk never arrived')); }
    }, 100);
  });
  assert.match(url, /\/storage\/v1\/upload\/resumable\/[A-Za-z0-9_-]+$/);
  // not an object yet
  const admin = createClient(one.url, one.serviceKey, opts);
  assert.deepEqual((await admin.storage.from('private').list(`${ALICE}/videos`)).data.map((o) => o.name).filter((n) => n === 'reprise.mp4'), []);

  // the same upload, resumed through the second instance
  const onTwo = url.replace(one.url, two.url);
  const head = await fetch(onTwo, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0', Authorization: `Bearer ${token(two, ALICE)}`, apikey: two.anonKey } });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('upload-offset'), String(CHUNK));
  assert.equal(head.headers.get('upload-length'), String(bytes.length));
  assert.equal(head.headers.get('cache-control'), 'no-store');
  await tusUpload(two, ALICE, bytes, { objectName, uploadUrl: onTwo }).done;
  const { data } = await admin.storage.from('private').download(objectName);
  assert.equal(sha(Buffer.from(await data.arrayBuffer())), sha(bytes));
});

test("row-level security: another user's folder is refused at creation, another user's upload refuses their bytes", async () => {
  const refused = await tusUpload(one, BOB, randomBytes(1000), { objectName: `${ALICE}/intrus.bin` }).done.catch((e) => e);
  assert.ok(refused instanceof Error, 'the creation is refused');
  assert.equal(refused.originalResponse.getStatus(), 403);

  // Alice's upload, Bob's bytes
  const create = await fetch(`${one.url}/storage/v1/upload/resumable`, {
    method: 'POST',
    headers: {
      'Tus-Resumable': '1.0.0', 'Upload-Length': '10', Authorization: `Bearer ${token(one, ALICE)}`, apikey: one.anonKey,
      'Upload-Metadata': `bucketName ${Buffer.from('private').toString('base64')},objectName ${Buffer.from(`${ALICE}/dix.bin`).toString('base64')}`,
    },
  });
  assert.equal(create.status, 201);
  const location = create.headers.get('location');
  const patch = (sub, offset, body) => fetch(location, {
    method: 'PATCH',
    headers: { 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream', Authorization: `Bearer ${token(one, sub)}`, apikey: one.anonKey },
    body,
  });
  assert.equal((await patch(BOB, 0, Buffer.from('0123456789'))).status, 403);
  // a wrong offset is a conflict; bytes past Upload-Length are refused
  assert.equal((await patch(ALICE, 4, Buffer.from('456789'))).status, 409);
  assert.equal((await patch(ALICE, 0, Buffer.from('0123456789abc'))).status, 413);
  const ok = await patch(ALICE, 0, Buffer.from('01234'));
  assert.equal(ok.status, 204);
  assert.equal(ok.headers.get('upload-offset'), '5');
  // abandoned: the upload is gone, and never was an object
  const gone = await fetch(location, { method: 'DELETE', headers: { 'Tus-Resumable': '1.0.0', Authorization: `Bearer ${token(one, ALICE)}`, apikey: one.anonKey } });
  assert.equal(gone.status, 204);
  const head = await fetch(location, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0', Authorization: `Bearer ${token(one, ALICE)}`, apikey: one.anonKey } });
  assert.equal(head.status, 404);
  const admin = createClient(one.url, one.serviceKey, opts);
  assert.equal((await admin.storage.from('private').exists(`${ALICE}/dix.bin`)).data, false);
});

test('bad requests get TUS answers, never a 500', async () => {
  const base = { 'Tus-Resumable': '1.0.0', Authorization: `Bearer ${token(one, ALICE)}`, apikey: one.anonKey };
  const post = (headers) => fetch(`${one.url}/storage/v1/upload/resumable`, { method: 'POST', headers: { ...base, ...headers } });
  assert.equal((await post({})).status, 400, 'no Upload-Length');
  assert.equal((await post({ 'Upload-Length': '5', 'Upload-Metadata': 'bucketName !!!' })).status, 400);
  assert.equal((await post({ 'Upload-Length': '5', 'Upload-Metadata': `bucketName ${Buffer.from('nope').toString('base64')},objectName ${Buffer.from('x').toString('base64')}` })).status, 404);
  assert.equal((await post({ 'Upload-Length': String(60 * 1024 * 1024), 'Upload-Metadata': `bucketName ${Buffer.from('private').toString('base64')},objectName ${Buffer.from(`${ALICE}/big`).toString('base64')}` })).status, 413);
  assert.equal((await post({ 'Tus-Resumable': '0.2.2', 'Upload-Length': '5' })).status, 412);
  const head = await fetch(`${one.url}/storage/v1/upload/resumable/bm9uZQ`, { method: 'HEAD', headers: base });
  assert.equal(head.status, 404);
});

/** POST an empty upload of `length` bytes; resolves to its URL. */
async function createUpload(server, sub, objectName, length) {
  const meta = (pairs) => Object.entries(pairs).map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`).join(',');
  const res = await fetch(`${server.url}/storage/v1/upload/resumable`, {
    method: 'POST',
    headers: {
      'Tus-Resumable': '1.0.0', Authorization: `Bearer ${token(server, sub)}`, apikey: server.anonKey,
      'Upload-Length': String(length), 'Upload-Metadata': meta({ bucketName: 'private', objectName, contentType: 'application/octet-stream' }),
    },
  });
  assert.equal(res.status, 201);
  return res.headers.get('location');
}

/** PATCH `bytes` at `offset`; with `pauseAfter`, the body stops after that many bytes until `resume` resolves. */
function patchUpload(server, sub, url, offset, bytes, { pauseAfter, resume } = {}) {
  const body = new ReadableStream({
    async start(controller) {
      if (pauseAfter) {
        controller.enqueue(bytes.subarray(0, pauseAfter));
        await resume;
        controller.enqueue(bytes.subarray(pauseAfter));
      } else {
        controller.enqueue(bytes);
      }
      controller.close();
    },
  });
  return fetch(url, {
    method: 'PATCH',
    duplex: 'half',
    body,
    headers: {
      'Tus-Resumable': '1.0.0', Authorization: `Bearer ${token(server, sub)}`, apikey: server.anonKey,
      'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': String(offset), 'Content-Length': String(bytes.length),
    },
  });
}

test('two PATCHes at one offset: one writes, the other gets 409 with the offset, and the acknowledged chunk is kept', async () => {
  const alice = createClient(one.url, one.anonKey, { ...opts, global: { headers: { Authorization: `Bearer ${token(one, ALICE)}` } } });
  const first = randomBytes(1024 * 1024);
  const second = randomBytes(first.length);
  const rest = randomBytes(4321);
  const total = first.length + rest.length;
  for (const [round, [a, b]] of [[one, two], [one, one]].entries()) {
    // round 0: the racing requests reach two instances; round 1: the same one
    const objectName = `${ALICE}/race-${round}.bin`;
    const url = await createUpload(one, ALICE, objectName, total);
    let resume;
    const resumed = new Promise((r) => { resume = r; });
    // the first request is mid-body (its claim made, half its bytes sent) when the second comes
    const slow = patchUpload(a, ALICE, url.replace(one.url, a.url), 0, first, { pauseAfter: 4096, resume: resumed });
    await new Promise((r) => setTimeout(r, 300));
    const fast = await patchUpload(b, ALICE, url.replace(one.url, b.url), 0, second);
    resume();
    const slowRes = await slow;
    const results = [[slowRes, first], [fast, second]];
    const won = results.filter(([res]) => res.status === 204);
    const lost = results.filter(([res]) => res.status === 409);
    assert.equal(won.length, 1, `one 204: ${results.map(([r]) => r.status)}`);
    assert.equal(lost.length, 1, `one 409: ${results.map(([r]) => r.status)}`);
    assert.equal(won[0][0].headers.get('upload-offset'), String(first.length));
    assert.ok(['0', String(first.length)].includes(lost[0][0].headers.get('upload-offset')), 'the 409 tells the current offset');
    const head = await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0', Authorization: `Bearer ${token(one, ALICE)}`, apikey: one.anonKey } });
    assert.equal(head.headers.get('upload-offset'), String(first.length));
    const last = await patchUpload(one, ALICE, url, first.length, rest);
    assert.equal(last.status, 204, await last.text());
    const { data, error } = await alice.storage.from('private').download(objectName);
    assert.equal(error, null);
    assert.equal(sha(Buffer.from(await data.arrayBuffer())), sha(Buffer.concat([won[0][1], rest])), "the winner's bytes, then the rest");
  }
});
