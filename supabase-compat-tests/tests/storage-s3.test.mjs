// The S3 protocol at /storage/v1/s3 through the AWS SDK for JavaScript v3: an access key issued by
// `server keys s3-new` (service role) creates a bucket, puts, heads, gets (whole and a range),
// lists (V2, folders, pages), copies and deletes objects, and what it stored is what supabase-js
// reads; a wrong secret is SignatureDoesNotMatch; a session token (a user's JWT, signed with the
// anon key as secret) is held to row-level security; multipart uploads join their parts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  S3Client, ListBucketsCommand, CreateBucketCommand, PutObjectCommand, HeadObjectCommand, GetObjectCommand,
  ListObjectsV2Command, CopyObjectCommand, DeleteObjectCommand, DeleteObjectsCommand, DeleteBucketCommand,
  CreateMultipartUploadCommand, UploadPartCommand, CompleteMultipartUploadCommand, AbortMultipartUploadCommand,
  ListPartsCommand,
} from '@aws-sdk/client-s3';
import { createClient } from '@supabase/supabase-js';
import { startServer, serverBin } from '../lib/server.mjs';
import { signJwt } from '../lib/jwt.mjs';

const fixture = readFileSync(new URL('../fixtures/storage.sql', import.meta.url), 'utf8');
const ALICE = randomUUID();
const BOB = randomUUID();
let server;
let keys;

const s3 = (credentials) => new S3Client({
  endpoint: `${server.url}/storage/v1/s3`,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});
const text = async (body) => Buffer.from(await body.transformToByteArray()).toString();

before(async () => {
  server = await startServer({}, { fixture });
  const out = execFileSync(serverBin(), ['keys', 's3-new', '--description', 'compat tests'], {
    env: { ...process.env, DATABASE_URL: server.dbUrl, JWT_SECRET: server.jwtSecret, DATA_DIR: mkdtempSync(path.join(tmpdir(), 's3keys-')), RUST_LOG: 'warn' },
    encoding: 'utf8',
  });
  keys = {
    accessKeyId: /S3 access key id: (\S+)/.exec(out)[1],
    secretAccessKey: /S3 secret access key: (\S+)/.exec(out)[1],
  };
});
after(async () => { await server?.stop(); });

test('an access key lists, creates, puts, heads, gets, lists, copies and deletes', async () => {
  const client = s3(keys);
  await client.send(new CreateBucketCommand({ Bucket: 'flotte' }));
  const { Buckets } = await client.send(new ListBucketsCommand({}));
  assert.ok(Buckets.some((b) => b.Name === 'flotte'));

  const body = randomBytes(3000);
  const put = await client.send(new PutObjectCommand({ Bucket: 'flotte', Key: 'photos/suv été.bin', Body: body, ContentType: 'application/octet-stream' }));
  assert.ok(put.ETag);
  await client.send(new PutObjectCommand({ Bucket: 'flotte', Key: 'photos/b.txt', Body: 'bonjour', ContentType: 'text/plain' }));
  await client.send(new PutObjectCommand({ Bucket: 'flotte', Key: 'contrat.txt', Body: 'contrat', ContentType: 'text/plain' }));

  const head = await client.send(new HeadObjectCommand({ Bucket: 'flotte', Key: 'photos/suv été.bin' }));
  assert.equal(head.ContentLength, 3000);
  assert.equal(head.ETag, put.ETag);
  const got = await client.send(new GetObjectCommand({ Bucket: 'flotte', Key: 'photos/suv été.bin' }));
  assert.deepEqual(Buffer.from(await got.Body.transformToByteArray()), body);
  const part = await client.send(new GetObjectCommand({ Bucket: 'flotte', Key: 'photos/b.txt', Range: 'bytes=2-4' }));
  assert.equal(await text(part.Body), 'njo');

  // folders, then pages of one
  const top = await client.send(new ListObjectsV2Command({ Bucket: 'flotte', Delimiter: '/' }));
  assert.deepEqual(top.CommonPrefixes.map((p) => p.Prefix), ['photos/']);
  assert.deepEqual(top.Contents.map((c) => c.Key), ['contrat.txt']);
  const keysSeen = [];
  let token;
  for (let i = 0; i < 5; i += 1) {
    const page = await client.send(new ListObjectsV2Command({ Bucket: 'flotte', Prefix: 'photos/', MaxKeys: 1, ContinuationToken: token }));
    keysSeen.push(...page.Contents.map((c) => c.Key));
    if (!page.IsTruncated) break;
    token = page.NextContinuationToken;
  }
  assert.deepEqual(keysSeen, ['photos/b.txt', 'photos/suv été.bin']);

  await client.send(new CopyObjectCommand({ Bucket: 'flotte', Key: 'archive/b.txt', CopySource: 'flotte/photos/b.txt' }));
  // what S3 stored, supabase-js reads
  const admin = createClient(server.url, server.serviceKey, { auth: { persistSession: false } });
  const { data } = await admin.storage.from('flotte').download('archive/b.txt');
  assert.equal(await data.text(), 'bonjour');

  const deleted = await client.send(new DeleteObjectsCommand({ Bucket: 'flotte', Delete: { Objects: [{ Key: 'photos/b.txt' }, { Key: 'archive/b.txt' }] } }));
  assert.deepEqual(deleted.Deleted.map((d) => d.Key).sort(), ['archive/b.txt', 'photos/b.txt']);
  await client.send(new DeleteObjectCommand({ Bucket: 'flotte', Key: 'photos/suv été.bin' }));
  await client.send(new DeleteObjectCommand({ Bucket: 'flotte', Key: 'contrat.txt' }));
  const missing = await client.send(new GetObjectCommand({ Bucket: 'flotte', Key: 'contrat.txt' })).catch((e) => e);
  assert.equal(missing.name, 'NoSuchKey');
  await client.send(new DeleteBucketCommand({ Bucket: 'flotte' }));
  const gone = await client.send(new ListObjectsV2Command({ Bucket: 'flotte' })).catch((e) => e);
  assert.equal(gone.name, 'NoSuchBucket');
});

test('user metadata (x-amz-meta-*) given on PutObject, CreateMultipartUpload and CopyObject comes back on HeadObject and GetObject', async () => {
  const client = s3(keys);
  await client.send(new CreateBucketCommand({ Bucket: 'meta' }));
  await client.send(new PutObjectCommand({ Bucket: 'meta', Key: 'a.txt', Body: 'hello', Metadata: { owner: 'fleet', plate: 'KN-1234' } }));
  const head = await client.send(new HeadObjectCommand({ Bucket: 'meta', Key: 'a.txt' }));
  assert.deepEqual(head.Metadata, { owner: 'fleet', plate: 'KN-1234' });
  const got = await client.send(new GetObjectCommand({ Bucket: 'meta', Key: 'a.txt' }));
  assert.deepEqual(got.Metadata, { owner: 'fleet', plate: 'KN-1234' });
  assert.equal(await text(got.Body), 'hello');
  // CopyObject keeps the source's metadata by default, takes the request's with REPLACE
  await client.send(new CopyObjectCommand({ Bucket: 'meta', Key: 'kept.txt', CopySource: 'meta/a.txt' }));
  assert.deepEqual((await client.send(new HeadObjectCommand({ Bucket: 'meta', Key: 'kept.txt' }))).Metadata, { owner: 'fleet', plate: 'KN-1234' });
  await client.send(new CopyObjectCommand({ Bucket: 'meta', Key: 'replaced.txt', CopySource: 'meta/a.txt', MetadataDirective: 'REPLACE', Metadata: { owner: 'garage' } }));
  assert.deepEqual((await client.send(new HeadObjectCommand({ Bucket: 'meta', Key: 'replaced.txt' }))).Metadata, { owner: 'garage' });
  // a multipart upload's metadata is the object's
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: 'meta', Key: 'big.bin', Metadata: { part: 'one' } }));
  const { ETag } = await client.send(new UploadPartCommand({ Bucket: 'meta', Key: 'big.bin', UploadId, PartNumber: 1, Body: randomBytes(100) }));
  await client.send(new CompleteMultipartUploadCommand({ Bucket: 'meta', Key: 'big.bin', UploadId, MultipartUpload: { Parts: [{ ETag, PartNumber: 1 }] } }));
  assert.deepEqual((await client.send(new HeadObjectCommand({ Bucket: 'meta', Key: 'big.bin' }))).Metadata, { part: 'one' });
  // an object without any has none
  await client.send(new PutObjectCommand({ Bucket: 'meta', Key: 'plain.txt', Body: 'x' }));
  assert.deepEqual((await client.send(new HeadObjectCommand({ Bucket: 'meta', Key: 'plain.txt' }))).Metadata, {});
});

/**
 * A presigned URL (AWS Signature Version 4 in the query string, as boto3's `generate_presigned_url`
 * and the AWS SDKs' presigners make it), signed here with the algorithm itself.
 */
function presign(method, url, { accessKeyId, secretAccessKey }, { expires = 300, at = new Date(), region = 'us-east-1' } = {}) {
  const u = new URL(url);
  const amzDate = at.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
  const scope = `${amzDate.slice(0, 8)}/${region}/s3/aws4_request`;
  const enc = (text) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const params = {
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256', 'X-Amz-Credential': `${accessKeyId}/${scope}`, 'X-Amz-Date': amzDate,
    'X-Amz-Expires': String(expires), 'X-Amz-SignedHeaders': 'host',
  };
  const query = Object.keys(params).sort().map((k) => `${enc(k)}=${enc(params[k])}`).join('&');
  const path = u.pathname.split('/').map((segment) => enc(decodeURIComponent(segment))).join('/');
  const canonical = [method, path, query, `host:${u.host}`, '', 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const hash = (data) => createHash('sha256').update(data).digest('hex');
  const hmac = (key, data) => createHmac('sha256', key).update(data).digest();
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, hash(canonical)].join('\n');
  let key = hmac(`AWS4${secretAccessKey}`, amzDate.slice(0, 8));
  for (const part of [region, 's3', 'aws4_request']) key = hmac(key, part);
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return `${u.origin}${path}?${query}&X-Amz-Signature=${signature}`;
}

test('presigned URLs (SigV4 in the query string): GET and PUT work until they expire; a wrong signature, method or key is refused', async () => {
  const client = s3(keys);
  await client.send(new CreateBucketCommand({ Bucket: 'presigned' }));
  const object = `${server.url}/storage/v1/s3/presigned/docs/bon de commande.txt`;
  const body = `facture ${randomUUID()}`;
  const put = await fetch(presign('PUT', object, keys), { method: 'PUT', body });
  assert.equal(put.status, 200, await put.text());
  const get = await fetch(presign('GET', object, keys));
  assert.equal(get.status, 200);
  assert.equal(await get.text(), body);
  assert.equal(await text((await client.send(new GetObjectCommand({ Bucket: 'presigned', Key: 'docs/bon de commande.txt' }))).Body), body);

  const code = async (res) => /<Code>([^<]+)<\/Code>/.exec(await res.text())?.[1];
  const expired = await fetch(presign('GET', object, keys, { at: new Date(Date.now() - 600_000), expires: 60 }));
  assert.equal(expired.status, 403);
  assert.equal(await code(expired), 'AccessDenied');
  const url = presign('GET', object, keys);
  const tampered = await fetch(url.replace(/X-Amz-Signature=(.)/, (m, c) => `X-Amz-Signature=${c === 'a' ? 'b' : 'a'}`));
  assert.equal(tampered.status, 403);
  assert.equal(await code(tampered), 'SignatureDoesNotMatch');
  const otherMethod = await fetch(url, { method: 'PUT', body: 'overwritten' });
  assert.equal(otherMethod.status, 403, 'a URL signed for GET does not PUT');
  assert.equal(await code(otherMethod), 'SignatureDoesNotMatch');
  const unknown = await fetch(presign('GET', object, { accessKeyId: 'NOSUCHKEY', secretAccessKey: 'x' }));
  assert.equal(unknown.status, 403);
  assert.equal(await code(unknown), 'InvalidAccessKeyId');
  const tooLong = await fetch(presign('GET', object, keys, { expires: 604_801 }));
  assert.equal(tooLong.status, 400);
  assert.equal(await (await fetch(presign('GET', object, keys))).text(), body, 'still the first body');
});

test('a multipart upload of three parts becomes one object; an aborted one leaves nothing', async () => {
  const client = s3(keys);
  await client.send(new CreateBucketCommand({ Bucket: 'videos' }));
  const parts = [randomBytes(5 * 1024 * 1024), randomBytes(5 * 1024 * 1024), randomBytes(1234)];
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: 'videos', Key: 'visite.mp4', ContentType: 'video/mp4' }));
  assert.ok(UploadId);
  const done = [];
  for (const [i, Body] of parts.entries()) {
    const { ETag } = await client.send(new UploadPartCommand({ Bucket: 'videos', Key: 'visite.mp4', UploadId, PartNumber: i + 1, Body }));
    done.push({ ETag, PartNumber: i + 1 });
  }
  const listed = await client.send(new ListPartsCommand({ Bucket: 'videos', Key: 'visite.mp4', UploadId }));
  assert.deepEqual(listed.Parts.map((p) => p.Size), parts.map((p) => p.length));
  // not an object before completion
  const early = await client.send(new HeadObjectCommand({ Bucket: 'videos', Key: 'visite.mp4' })).catch((e) => e);
  assert.equal(early.$metadata.httpStatusCode, 404);
  // a wrong ETag is refused
  const wrongEtag = await client.send(new CompleteMultipartUploadCommand({
    Bucket: 'videos', Key: 'visite.mp4', UploadId, MultipartUpload: { Parts: [{ ETag: '"0"', PartNumber: 1 }] },
  })).catch((e) => e);
  assert.equal(wrongEtag.name, 'InvalidPart');
  await client.send(new CompleteMultipartUploadCommand({ Bucket: 'videos', Key: 'visite.mp4', UploadId, MultipartUpload: { Parts: done } }));
  const got = await client.send(new GetObjectCommand({ Bucket: 'videos', Key: 'visite.mp4' }));
  assert.deepEqual(Buffer.from(await got.Body.transformToByteArray()), Buffer.concat(parts));
  assert.equal(got.ContentType, 'video/mp4');
  // completed: the upload is gone
  const again = await client.send(new ListPartsCommand({ Bucket: 'videos', Key: 'visite.mp4', UploadId })).catch((e) => e);
  assert.equal(again.name, 'NoSuchUpload');

  const other = await client.send(new CreateMultipartUploadCommand({ Bucket: 'videos', Key: 'brouillon.mp4' }));
  await client.send(new UploadPartCommand({ Bucket: 'videos', Key: 'brouillon.mp4', UploadId: other.UploadId, PartNumber: 1, Body: randomBytes(100) }));
  await client.send(new AbortMultipartUploadCommand({ Bucket: 'videos', Key: 'brouillon.mp4', UploadId: other.UploadId }));
  const absent = await client.send(new HeadObjectCommand({ Bucket: 'videos', Key: 'brouillon.mp4' })).catch((e) => e);
  assert.equal(absent.$metadata.httpStatusCode, 404);
});

test("with the SDK's default checksums, a streamed body arrives aws-chunked and is stored whole", async () => {
  const client = new S3Client({ endpoint: `${server.url}/storage/v1/s3`, region: 'us-east-1', forcePathStyle: true, credentials: keys });
  await client.send(new CreateBucketCommand({ Bucket: 'flux' }));
  const bytes = randomBytes(300_000);
  const pieces = [bytes.subarray(0, 70_000), bytes.subarray(70_000, 200_001), bytes.subarray(200_001)];
  await client.send(new PutObjectCommand({ Bucket: 'flux', Key: 'stream.bin', Body: Readable.from(pieces), ContentLength: bytes.length }));
  const got = await client.send(new GetObjectCommand({ Bucket: 'flux', Key: 'stream.bin' }));
  assert.deepEqual(Buffer.from(await got.Body.transformToByteArray()), bytes);
});

test('a wrong secret, an unknown key and an unsigned request are refused in S3 terms', async () => {
  const wrong = await s3({ ...keys, secretAccessKey: 'x'.repeat(40) }).send(new ListBucketsCommand({})).catch((e) => e);
  assert.equal(wrong.name, 'SignatureDoesNotMatch');
  assert.equal(wrong.$metadata.httpStatusCode, 403);
  const unknown = await s3({ accessKeyId: 'NOPE', secretAccessKey: 'x' }).send(new ListBucketsCommand({})).catch((e) => e);
  assert.equal(unknown.name, 'InvalidAccessKeyId');
  // a body that is not the one whose SHA-256 was signed: refused, and nothing is stored
  const liar = s3(keys);
  liar.middlewareStack.add((next) => async (args) => {
    args.request.headers['x-amz-content-sha256'] = createHash('sha256').update('other bytes').digest('hex');
    return next(args);
  }, { step: 'build', name: 'announceAnotherHash' });
  await s3(keys).send(new CreateBucketCommand({ Bucket: 'hash' }));
  const mismatch = await liar.send(new PutObjectCommand({ Bucket: 'hash', Key: 'x.txt', Body: 'these bytes' })).catch((e) => e);
  assert.equal(mismatch.name, 'XAmzContentSHA256Mismatch');
  const none = await s3(keys).send(new HeadObjectCommand({ Bucket: 'hash', Key: 'x.txt' })).catch((e) => e);
  assert.equal(none.$metadata.httpStatusCode, 404);
  // no signature at all
  const bare = await fetch(`${server.url}/storage/v1/s3`);
  assert.equal(bare.status, 403);
  assert.match(await bare.text(), /<Code>AccessDenied<\/Code>/);
});

test('a session token runs as its user: row-level security decides', async () => {
  const admin = s3(keys);
  await admin.send(new CreateBucketCommand({ Bucket: 'private' }));
  const token = signJwt({ sub: ALICE, role: 'authenticated', aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + 3600 }, server.jwtSecret);
  const alice = s3({ accessKeyId: 'project-ref', secretAccessKey: server.anonKey, sessionToken: token });
  await alice.send(new PutObjectCommand({ Bucket: 'private', Key: `${ALICE}/permis.txt`, Body: 'à moi' }));
  const mine = await alice.send(new GetObjectCommand({ Bucket: 'private', Key: `${ALICE}/permis.txt` }));
  assert.equal(await text(mine.Body), 'à moi');
  const refused = await alice.send(new PutObjectCommand({ Bucket: 'private', Key: `${BOB}/intrus.txt`, Body: 'non' })).catch((e) => e);
  assert.equal(refused.$metadata.httpStatusCode, 403);
  const listed = await alice.send(new ListObjectsV2Command({ Bucket: 'private', Prefix: `${BOB}/` }));
  assert.equal(listed.KeyCount, 0);
  const forged = s3({ accessKeyId: 'project-ref', secretAccessKey: 'not-the-anon-key', sessionToken: token });
  const bad = await forged.send(new ListBucketsCommand({})).catch((e) => e);
  assert.equal(bad.name, 'SignatureDoesNotMatch');
});
