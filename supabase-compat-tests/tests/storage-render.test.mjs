// Image transformations through storage-js: `download(path, {transform})` (authenticated render),
// `getPublicUrl(path, {transform})` (public render, no key), `createSignedUrl(path, expiresIn,
// {transform})` (the transformations travel in the token, `x-transformations` says what was
// done); cover / contain / fill boxes; WebP for clients that accept it, AVIF when asked for and
// accepted, the source's format otherwise or with `format: 'origin'`; results kept in the object store; RLS decides who renders
// a private image; what is not an image is refused with storage-api's error shape.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
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
let dataDir;

/**
 * A `width` x `height` RGB PNG (a gradient), encoded here with zlib; with `claim`, a header that
 * claims those dimensions over the pixels of a 1 x 1 image.
 */
function png(width, height, claim = null) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(claim ? claim[0] : width, 0);
  ihdr.writeUInt32BE(claim ? claim[1] : height, 4);
  ihdr[8] = 8; ihdr[9] = 2; // 8-bit RGB
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = y * (width * 3 + 1) + 1 + x * 3;
      raw[at] = x % 256; raw[at + 1] = y % 256; raw[at + 2] = 128;
    }
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
/** Width and height of a PNG. */
const pngSize = (buf) => [buf.readUInt32BE(16), buf.readUInt32BE(20)];
const isWebp = (buf) => buf.subarray(0, 4).toString() === 'RIFF' && buf.subarray(8, 12).toString() === 'WEBP';
const token = (sub) => signJwt({ sub, role: 'authenticated', aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + 3600 }, server.jwtSecret);
const as = (sub) => createClient(server.url, server.anonKey, { ...opts, global: { headers: { Authorization: `Bearer ${token(sub)}` } } });

before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'render-'));
  server = await startServer({ DATA_DIR: dataDir }, { fixture });
  admin = createClient(server.url, server.serviceKey, opts);
  for (const [name, pub] of [['photos', true], ['private', false]]) {
    const { error } = await admin.storage.createBucket(name, { public: pub });
    assert.equal(error, null);
  }
  const put = async (client, bucket, name, body, contentType) => {
    const { error } = await client.storage.from(bucket).upload(name, body, { contentType });
    assert.equal(error, null, JSON.stringify(error));
  };
  await put(admin, 'photos', 'voitures/suv.png', png(400, 200), 'image/png');
  await put(admin, 'photos', 'notes.txt', Buffer.from('pas une image'), 'text/plain');
  await put(as(ALICE), 'private', `${ALICE}/permis.png`, png(300, 300), 'image/png');
});
after(async () => { await server?.stop(); });

test('download with transform: cover, contain and fill give their boxes, in the source format for */*', async () => {
  const files = admin.storage.from('photos');
  const box = async (transform) => {
    const { data, error } = await files.download('voitures/suv.png', { transform });
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(data.type, 'image/png');
    return pngSize(Buffer.from(await data.arrayBuffer()));
  };
  assert.deepEqual(await box({ width: 100, height: 100 }), [100, 100], 'cover (the default) crops to the box');
  assert.deepEqual(await box({ width: 100, height: 100, resize: 'contain' }), [100, 50]);
  assert.deepEqual(await box({ width: 100, height: 100, resize: 'fill' }), [100, 100]);
  assert.deepEqual(await box({ width: 80 }), [80, 40], 'one side keeps the ratio');
});

test('a browser that accepts WebP gets WebP, unless the format is origin; results are kept', async () => {
  const url = admin.storage.from('photos').getPublicUrl('voitures/suv.png', { transform: { width: 120, height: 60 } }).data.publicUrl;
  assert.match(url, /\/storage\/v1\/render\/image\/public\/photos\/voitures\/suv\.png\?/);
  const accept = { Accept: 'image/avif,image/webp,image/apng,image/*,*/*;q=0.8' };
  const res = await fetch(url, { headers: accept }); // no key: a public bucket
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/webp');
  assert.equal(res.headers.get('x-transformations'), 'height:60,width:120,resizing_type:fill');
  const first = Buffer.from(await res.arrayBuffer());
  assert.ok(isWebp(first));
  const again = Buffer.from(await (await fetch(url, { headers: accept })).arrayBuffer());
  assert.deepEqual(again, first, 'the same bytes again');
  const etag = res.headers.get('etag');
  assert.ok(etag);
  assert.equal((await fetch(url, { headers: { ...accept, 'If-None-Match': etag } })).status, 304);
  const kept = path.join(dataDir, 'storage', 'render');
  assert.ok(existsSync(kept) && readdirSync(kept).length >= 1, 'the result is kept in the object store');
  const avif = await fetch(`${url}&format=avif`, { headers: accept });
  assert.equal(avif.headers.get('content-type'), 'image/avif', 'AVIF for a client that takes it, when asked');
  assert.equal(Buffer.from(await avif.arrayBuffer()).subarray(4, 12).toString(), 'ftypavif');
  const noAvif = await fetch(`${url}&format=avif`, { headers: { Accept: 'image/webp,*/*' } });
  assert.equal(noAvif.headers.get('content-type'), 'image/webp');
  const origin = await fetch(`${url}&format=origin`, { headers: accept });
  assert.equal(origin.headers.get('content-type'), 'image/png');
  assert.deepEqual(pngSize(Buffer.from(await origin.arrayBuffer())), [120, 60]);
});

test('a signed URL with transform renders what its token says', async () => {
  const { data, error } = await admin.storage.from('photos').createSignedUrl('voitures/suv.png', 600, {
    transform: { width: 200, height: 200, quality: 60 },
  });
  assert.equal(error, null);
  assert.match(data.signedUrl, /\/storage\/v1\/render\/image\/sign\/photos\/voitures\/suv\.png\?token=/);
  const res = await fetch(data.signedUrl);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-transformations'), 'height:200,width:200,resizing_type:fill,quality:60');
  assert.deepEqual(pngSize(Buffer.from(await res.arrayBuffer())), [200, 200]);
  // the token is for this object only
  const other = data.signedUrl.replace('voitures/suv.png', 'notes.txt');
  assert.equal((await fetch(other)).status, 400);
});

test('RLS decides who renders a private image; what is not an image is refused', async () => {
  const mine = await as(ALICE).storage.from('private').download(`${ALICE}/permis.png`, { transform: { width: 50, height: 50 } });
  assert.equal(mine.error, null);
  assert.deepEqual(pngSize(Buffer.from(await mine.data.arrayBuffer())), [50, 50]);
  const theirs = await as(BOB).storage.from('private').download(`${ALICE}/permis.png`, { transform: { width: 50, height: 50 } });
  assert.ok(theirs.error);
  assert.equal(theirs.data, null, 'RLS hides the object from Bob');
  const raw404 = await fetch(`${server.url}/storage/v1/render/image/authenticated/private/${ALICE}/permis.png?width=50`, {
    headers: { apikey: server.anonKey, Authorization: `Bearer ${token(BOB)}` },
  });
  assert.equal(raw404.status, 400);
  assert.equal((await raw404.json()).statusCode, '404', 'storage-api: not found, in a 400');
  const text = await admin.storage.from('photos').download('notes.txt', { transform: { width: 50 } });
  assert.ok(text.error);
  const raw = await fetch(`${server.url}/storage/v1/render/image/authenticated/photos/notes.txt?width=50`, {
    headers: { apikey: server.serviceKey, Authorization: `Bearer ${server.serviceKey}` },
  });
  assert.equal(raw.status, 400);
  const body = await raw.json();
  assert.equal(body.statusCode, '400');
  assert.match(body.message, /not an image/);
  // a PNG whose header claims 60 megapixels is refused before any decoding
  const huge = png(1, 1, [10_000, 6_000]);
  const up = await admin.storage.from('photos').upload('geante.png', huge, { contentType: 'image/png' });
  assert.equal(up.error, null);
  const tooBig = await fetch(`${server.url}/storage/v1/render/image/public/photos/geante.png?width=100`);
  assert.equal(tooBig.status, 400);
  assert.match((await tooBig.json()).message, /resolution is too high/);
  const bad = await fetch(`${server.url}/storage/v1/render/image/public/photos/voitures/suv.png?resize=stretch`);
  assert.equal(bad.status, 400);
});

/** A `width` x `height` 16-bit RGBA PNG of black pixels: small on disk, 8 bytes a pixel decoded. */
function png16(width, height) {
  const one = png(1, 1);
  const crcOf = (type, data) => {
    // the helper above writes its chunks; take its CRC routine by building one chunk through it
    const table = Array.from({ length: 256 }, (_, n) => {
      let c = n;
      for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      return c >>> 0;
    });
    let c = 0xffffffff;
    for (const b of Buffer.concat([Buffer.from(type), data])) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crcOf(type, data));
    return Buffer.concat([len, Buffer.from(type), data, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 16; ihdr[9] = 6; // 16-bit RGBA
  const raw = Buffer.alloc((width * 8 + 1) * height);
  return Buffer.concat([one.subarray(0, 8), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

/** A process's peak resident memory (VmHWM), in MB. */
const peakMb = (pid) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

test('transformations are bounded by decoded bytes: four 128 MB-decoded PNGs at once stay in the budget, a larger one is refused', { timeout: 180000 }, async () => {
  const budgeted = await startServer({ IMAGE_TRANSFORM_MEMORY_MB: '300' }, { fixture });
  try {
    const service = createClient(budgeted.url, budgeted.serviceKey, opts);
    assert.equal((await service.storage.createBucket('big', { public: false })).error, null);
    const small = png16(4000, 4000); // 16 MP: 122 MiB decoded, 245 MiB of budget with its working copy
    assert.ok(small.length < 2_000_000, `${small.length} bytes on disk`);
    assert.equal((await service.storage.from('big').upload('deep.png', small, { contentType: 'image/png' })).error, null);
    const before = peakMb(budgeted.pid);
    const renders = await Promise.all([100, 101, 102, 103].map((width) => service.storage.from('big').download('deep.png', { transform: { width } })));
    for (const { data, error } of renders) {
      assert.equal(error, null, JSON.stringify(error));
      assert.ok(data.size > 0);
    }
    const grew = peakMb(budgeted.pid) - before;
    // the budget holds (one at a time, 137 MB measured on a quiet machine; the allocator may keep
    // the last image's pages a moment longer under load); four at once took 516 MB
    assert.ok(grew < 300 + 60, `the server's peak memory grew by ${grew.toFixed(0)} MB, past the 300 MB budget`);

    const large = png16(5000, 5000); // 191 MiB decoded: 382 MiB of budget, more than the whole 300
    assert.equal((await service.storage.from('big').upload('deeper.png', large, { contentType: 'image/png' })).error, null);
    const refused = await service.storage.from('big').download('deeper.png', { transform: { width: 100 } });
    assert.ok(refused.error, 'refused');
    const body = await refused.error.context?.json?.().catch(() => null);
    assert.equal(refused.error.statusCode ?? body?.statusCode, '400');
    const needs = Math.ceil((large.length + 2 * 5000 * 5000 * 8) / 2 ** 20);
    assert.equal(refused.error.message, `The image needs ${needs} MB to transform, more than IMAGE_TRANSFORM_MEMORY_MB (300 MB)`);
  } finally {
    await budgeted.stop();
  }
});
