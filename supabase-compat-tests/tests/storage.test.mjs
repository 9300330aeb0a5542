// /storage/v1 through the unchanged supabase-js storage client (storage-js v2): buckets, RLS
// policies written for Supabase as two users and anon, public and signed URLs, limits, and a
// 100 MB round trip with the server's memory watched.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { createClient } from '@supabase/supabase-js';
import { startServer } from '../lib/server.mjs';
import { signJwt } from '../lib/jwt.mjs';

const fixture = readFileSync(new URL('../fixtures/storage.sql', import.meta.url), 'utf8');
const opts = { auth: { persistSession: false, autoRefreshToken: false } };
const ALICE = randomUUID();
const BOB = randomUUID();
let server;
let admin; // service_role
let anon;
let alice;
let bob;

const userClient = (sub) => {
  const token = signJwt({ sub, role: 'authenticated', aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + 3600 }, server.jwtSecret);
  return createClient(server.url, server.anonKey, { ...opts, global: { headers: { Authorization: `Bearer ${token}` } } });
};
const ok = ({ data, error }) => { assert.equal(error, null, JSON.stringify(error)); return data; };
const failed = ({ data, error }, statusCode) => {
  assert.equal(data, null);
  assert.ok(error, 'expected an error');
  assert.equal(error.statusCode, statusCode, JSON.stringify(error));
  return error;
};
const rssKb = () => {
  const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
  return { rss: Number(status.match(/VmRSS:\s+(\d+)/)[1]), hwm: Number(status.match(/VmHWM:\s+(\d+)/)[1]) };
};

before(async () => {
  server = await startServer({ FILE_SIZE_LIMIT: String(200 * 1024 * 1024) }, { fixture });
  admin = createClient(server.url, server.serviceKey, opts);
  anon = createClient(server.url, server.anonKey, opts);
  alice = userClient(ALICE);
  bob = userClient(BOB);
  ok(await admin.storage.createBucket('private', { public: false }));
  ok(await admin.storage.createBucket('public', { public: true }));
  ok(await admin.storage.createBucket('files'));
});
after(async () => { await server?.stop(); });

describe('buckets', () => {
  test('create, get, list, update, empty and delete with the service key', async () => {
    ok(await admin.storage.createBucket('tmp', { public: false, fileSizeLimit: '1MB', allowedMimeTypes: ['image/*'] }));
    const bucket = ok(await admin.storage.getBucket('tmp'));
    assert.equal(bucket.id, 'tmp');
    assert.equal(bucket.file_size_limit, 1_000_000, 'decimal units, as storage-api reads them');
    assert.deepEqual(bucket.allowed_mime_types, ['image/*']);
    const all = ok(await admin.storage.listBuckets());
    assert.ok(all.some((b) => b.id === 'tmp'));
    ok(await admin.storage.updateBucket('tmp', { public: true }));
    assert.equal(ok(await admin.storage.getBucket('tmp')).public, true);
    failed(await admin.storage.createBucket('tmp'), '409');
    ok(await admin.storage.from('tmp').upload('a.png', new Blob(['png'], { type: 'image/png' })));
    failed(await admin.storage.deleteBucket('tmp'), '409');
    ok(await admin.storage.emptyBucket('tmp'));
    ok(await admin.storage.deleteBucket('tmp'));
    failed(await admin.storage.getBucket('tmp'), '404');
  });
  test('anon cannot create buckets (RLS on storage.buckets)', async () => {
    failed(await anon.storage.createBucket('nope'), '403');
  });
});

describe('a private bucket with per-user folder policies', () => {
  test('each user writes and reads only their folder', async () => {
    ok(await alice.storage.from('private').upload(`${ALICE}/note.txt`, new Blob(['alice'], { type: 'text/plain' })));
    ok(await bob.storage.from('private').upload(`${BOB}/note.txt`, new Blob(['bob'], { type: 'text/plain' })));
    const refused = failed(await bob.storage.from('private').upload(`${ALICE}/evil.txt`, new Blob(['x'])), '403');
    assert.equal(refused.message, 'new row violates row-level security policy');
    assert.equal(await ok(await alice.storage.from('private').download(`${ALICE}/note.txt`)).text(), 'alice');
    failed(await bob.storage.from('private').download(`${ALICE}/note.txt`), '404');
    failed(await anon.storage.from('private').download(`${ALICE}/note.txt`), '404');
    assert.deepEqual(ok(await bob.storage.from('private').list(ALICE)), []);
    assert.deepEqual(ok(await alice.storage.from('private').list(ALICE)).map((f) => f.name), ['note.txt']);
    assert.deepEqual(ok(await bob.storage.from('private').remove([`${ALICE}/note.txt`])), []);
    failed(await anon.storage.from('private').upload('anon.txt', new Blob(['x'])), '403');
    failed(await alice.storage.from('private').createSignedUrl(`${BOB}/note.txt`, 60), '404');
  });
});

describe('public bucket', () => {
  test('getPublicUrl is readable with a plain fetch and no header', async () => {
    ok(await admin.storage.from('public').upload('img/logo.svg', new Blob(['<svg/>'], { type: 'image/svg+xml' }), { cacheControl: '120' }));
    const { data } = admin.storage.from('public').getPublicUrl('img/logo.svg');
    const res = await fetch(data.publicUrl);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/svg+xml');
    assert.equal(res.headers.get('cache-control'), 'max-age=120');
    assert.equal(await res.text(), '<svg/>');
    const download = await fetch(admin.storage.from('public').getPublicUrl('img/logo.svg', { download: true }).data.publicUrl);
    assert.match(download.headers.get('content-disposition'), /^attachment; filename="logo.svg"/);
    const privateUrl = admin.storage.from('private').getPublicUrl(`${ALICE}/note.txt`).data.publicUrl;
    assert.equal((await fetch(privateUrl)).status, 400);
  });
});

describe('objects', () => {
  const files = () => admin.storage.from('files');
  test('upload a Blob, an ArrayBuffer and a stream, then download them', async () => {
    const blob = ok(await files().upload('kinds/blob.txt', new Blob(['from a blob'], { type: 'text/plain' })));
    assert.equal(blob.path, 'kinds/blob.txt');
    assert.equal(blob.fullPath, 'files/kinds/blob.txt');
    assert.ok(blob.id);
    ok(await files().upload('kinds/buffer.bin', new TextEncoder().encode('from a buffer').buffer, { contentType: 'application/octet-stream' }));
    ok(await files().upload('kinds/stream.txt', Readable.toWeb(Readable.from([Buffer.from('from '), Buffer.from('a stream')])), { contentType: 'text/plain' }));
    assert.equal(await ok(await files().download('kinds/blob.txt')).text(), 'from a blob');
    assert.equal(await ok(await files().download('kinds/buffer.bin')).text(), 'from a buffer');
    assert.equal(await ok(await files().download('kinds/stream.txt')).text(), 'from a stream');
    const info = ok(await files().info('kinds/blob.txt'));
    assert.equal(info.size, 11);
    assert.equal(ok(await files().exists('kinds/blob.txt')), true);
    assert.equal((await files().exists('kinds/none.txt')).data, false);
  });
  test('a second upload is refused without upsert and replaces with it', async () => {
    ok(await files().upload('dup.txt', new Blob(['one'])));
    const dup = failed(await files().upload('dup.txt', new Blob(['two'])), '409');
    assert.equal(dup.message, 'The resource already exists');
    ok(await files().upload('dup.txt', new Blob(['three']), { upsert: true }));
    assert.equal(await ok(await files().download('dup.txt')).text(), 'three');
    ok(await files().update('dup.txt', new Blob(['four'])));
    assert.equal(await ok(await files().download('dup.txt')).text(), 'four');
  });
  test('list with prefixes, folders, search and sort; move, copy and remove', async () => {
    for (const p of ['tree/a.txt', 'tree/b.txt', 'tree/sub/c.txt', 'tree/sub/deep/d.txt']) ok(await files().upload(p, new Blob([p])));
    const top = ok(await files().list('tree'));
    assert.deepEqual(top.map((f) => [f.name, f.id === null]), [['a.txt', false], ['b.txt', false], ['sub', true]]);
    assert.deepEqual(ok(await files().list('tree/sub')).map((f) => f.name), ['c.txt', 'deep']);
    assert.deepEqual(ok(await files().list('tree', { search: 'b' })).map((f) => f.name), ['b.txt']);
    assert.deepEqual(ok(await files().list('tree', { limit: 1, offset: 1 })).map((f) => f.name), ['b.txt']);
    assert.deepEqual(ok(await files().list('tree', { sortBy: { column: 'name', order: 'desc' } })).map((f) => f.name), ['sub', 'b.txt', 'a.txt']);
    ok(await files().move('tree/a.txt', 'tree/moved.txt'));
    failed(await files().download('tree/a.txt'), '404');
    assert.equal(await ok(await files().download('tree/moved.txt')).text(), 'tree/a.txt');
    assert.equal(ok(await files().copy('tree/moved.txt', 'tree/copy.txt')).path, 'files/tree/copy.txt');
    assert.equal(await ok(await files().download('tree/copy.txt')).text(), 'tree/a.txt');
    const removed = ok(await files().remove(['tree/moved.txt', 'tree/copy.txt']));
    assert.equal(removed.length, 2);
    assert.deepEqual(ok(await files().list('tree')).map((f) => f.name), ['b.txt', 'sub']);
  });
  test('utf-8 names are accepted and dot segments refused', async () => {
    ok(await files().upload('été/photo 1.txt', new Blob(['utf8'])));
    assert.equal(await ok(await files().download('été/photo 1.txt')).text(), 'utf8');
    const res = await fetch(`${server.url}/storage/v1/object/files/a/..%2Fb`, { method: 'POST', headers: { apikey: server.serviceKey, Authorization: `Bearer ${server.serviceKey}` }, body: 'x' });
    assert.equal((await res.json()).code, 'InvalidKey');
  });
  test('a range request answers 206 with the slice', async () => {
    ok(await files().upload('range.txt', new Blob(['0123456789'])));
    const res = await fetch(`${server.url}/storage/v1/object/files/range.txt`, { headers: { apikey: server.serviceKey, Authorization: `Bearer ${server.serviceKey}`, Range: 'bytes=2-4' } });
    assert.equal(res.status, 206);
    assert.equal(res.headers.get('content-range'), 'bytes 2-4/10');
    assert.equal(await res.text(), '234');
    const etag = res.headers.get('etag');
    const again = await fetch(`${server.url}/storage/v1/object/files/range.txt`, { headers: { apikey: server.serviceKey, 'If-None-Match': etag } });
    assert.equal(again.status, 304);
  });
});

describe('signed URLs', () => {
  test('a signed URL downloads without a key until it expires, and refuses tampering', async () => {
    ok(await admin.storage.from('files').upload('signed.txt', new Blob(['signed'])));
    const { signedUrl } = ok(await admin.storage.from('files').createSignedUrl('signed.txt', 60));
    assert.equal(await (await fetch(signedUrl)).text(), 'signed');
    const tampered = signedUrl.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')).replace(/token=(.)/, (_, c) => `token=${c === 'e' ? 'f' : 'e'}`);
    assert.equal((await fetch(tampered)).status, 400);
    const expired = signJwt({ url: 'files/signed.txt', iat: 1, exp: 2 }, server.jwtSecret);
    const res = await fetch(`${server.url}/storage/v1/object/sign/files/signed.txt?token=${expired}`);
    assert.equal(res.status, 400);
    assert.equal((await res.json()).message, 'jwt expired');
    const many = ok(await admin.storage.from('files').createSignedUrls(['signed.txt', 'missing.txt'], 60));
    assert.equal(await (await fetch(many[0].signedUrl)).text(), 'signed');
    assert.equal(many[1].signedUrl, null);
  });
  test('a signed upload URL uploads once; expired and tampered tokens are refused', async () => {
    const { token, path } = ok(await alice.storage.from('private').createSignedUploadUrl(`${ALICE}/signed-up.txt`));
    ok(await anon.storage.from('private').uploadToSignedUrl(path, token, new Blob(['by token'])));
    assert.equal(await ok(await alice.storage.from('private').download(`${ALICE}/signed-up.txt`)).text(), 'by token');
    failed(await anon.storage.from('private').uploadToSignedUrl(path, token, new Blob(['again'])), '409');
    failed(await bob.storage.from('private').createSignedUploadUrl(`${ALICE}/x.txt`), '403');
    const expired = signJwt({ url: `private/${ALICE}/late.txt`, owner: ALICE, upsert: false, iat: 1, exp: 2 }, server.jwtSecret);
    failed(await anon.storage.from('private').uploadToSignedUrl(`${ALICE}/late.txt`, expired, new Blob(['x'])), '400');
    const forged = signJwt({ url: `private/${ALICE}/forged.txt`, owner: ALICE, upsert: false, exp: 4e9 }, 'not-the-secret-not-the-secret-xx');
    failed(await anon.storage.from('private').uploadToSignedUrl(`${ALICE}/forged.txt`, forged, new Blob(['x'])), '400');
    const { signedUrl } = ok(await alice.storage.from('private').createSignedUrl(`${ALICE}/signed-up.txt`, 60));
    const downloadToken = new URL(signedUrl).searchParams.get('token');
    failed(await anon.storage.from('private').uploadToSignedUrl(`${ALICE}/signed-up.txt`, downloadToken, new Blob(['x']), { upsert: true }), '400');
  });
});

describe('limits', () => {
  test('bucket size and mime limits answer 413 and 415', async () => {
    ok(await admin.storage.createBucket('small', { fileSizeLimit: 1024, allowedMimeTypes: ['image/*'] }));
    const small = admin.storage.from('small');
    ok(await small.upload('ok.png', new Blob([new Uint8Array(1000)], { type: 'image/png' })));
    failed(await small.upload('big.png', new Blob([new Uint8Array(2048)], { type: 'image/png' })), '413');
    const mime = failed(await small.upload('page.html', new Blob(['<p>'], { type: 'text/html' })), '415');
    assert.equal(mime.message, 'mime type text/html is not supported');
  });
});

describe('large objects', () => {
  test('100 MB up and down: bytes intact, server memory flat', async () => {
    const size = 100 * 1024 * 1024;
    const chunk = 1024 * 1024;
    const upHash = createHash('sha256');
    // Growth over what the server held before, sampled every 20 ms: a body held in memory
    // would add its 100 MB; streamed, the server stays within a few buffers of where it was.
    const base = rssKb().rss;
    let peak = base;
    const watch = setInterval(() => { peak = Math.max(peak, rssKb().rss); }, 20);
    try {
      async function* generate() {
        for (let i = 0; i < size / chunk; i++) {
          const buf = Buffer.alloc(chunk, i % 251);
          buf.writeUInt32LE(i, 0);
          upHash.update(buf);
          yield buf;
        }
      }
      ok(await admin.storage.from('files').upload('large.bin', Readable.toWeb(Readable.from(generate())), { contentType: 'application/octet-stream' }));
      const res = await fetch(`${server.url}/storage/v1/object/files/large.bin`, { headers: { apikey: server.serviceKey, Authorization: `Bearer ${server.serviceKey}` } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-length'), String(size));
      const downHash = createHash('sha256');
      let received = 0;
      for await (const part of res.body) { downHash.update(part); received += part.length; }
      assert.equal(received, size);
      assert.equal(downHash.digest('hex'), upHash.digest('hex'));
    } finally {
      clearInterval(watch);
    }
    const grownMb = (peak - base) / 1024;
    console.log(`server RSS during 100 MB transfers: ${(base / 1024).toFixed(1)} MB, at most ${grownMb.toFixed(1)} MB more`);
    assert.ok(grownMb < 25, `server RSS grew by ${grownMb.toFixed(1)} MB from ${(base / 1024).toFixed(1)} MB`);
  });
});

describe("storage-api's exact shapes", () => {
  test('buckets, object info, emptyBucket and the refusal without credentials read as storage-api writes them', async () => {
    ok(await admin.storage.createBucket('shapes', { public: false, fileSizeLimit: '20mb' }));
    const bucket = ok(await admin.storage.getBucket('shapes'));
    assert.deepEqual(Object.keys(bucket).sort(),
      ['allowed_mime_types', 'created_at', 'file_size_limit', 'id', 'name', 'owner', 'public', 'updated_at']);
    assert.equal(bucket.owner, '', 'a bucket made with the service key has no owner: an empty string');
    assert.equal(bucket.file_size_limit, 20_000_000);
    assert.match(bucket.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    ok(await admin.storage.from('shapes').upload('plain.txt', new Blob(['x'])));
    const info = ok(await admin.storage.from('shapes').info('plain.txt'));
    assert.deepEqual(info.metadata, {}, 'no user metadata reads as {}');
    const listed = ok(await admin.storage.from('shapes').list());
    assert.match(listed[0].created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const emptied = ok(await admin.storage.emptyBucket('shapes'));
    assert.equal(emptied.message, 'Empty bucket has been queued. Completion may take up to an hour.');
    assert.deepEqual(ok(await admin.storage.from('shapes').list()), []);
    ok(await admin.storage.deleteBucket('shapes'));

    // no apikey, no token: storage-api's own refusal of the empty JWT
    const res = await fetch(`${server.url}/storage/v1/bucket`);
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { statusCode: '403', code: 'AccessDenied', error: 'Unauthorized', message: 'Invalid Compact JWS' });
  });
});
