// Several server instances on one database, as behind a load balancer: three processes started
// at once on a new database (one migrates, the others wait), the same JWT secret, files in an
// S3-compatible store (moto). Requests alternate between them; each test shows that state lives
// in Postgres or S3, not in one process: sessions, refresh-token rotation and reuse detection,
// rate limits, files, and the schema cache (reloaded everywhere by one NOTIFY).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, freshDatabase, sql } from '../lib/server.mjs';
import { startMoto } from '../lib/moto.mjs';
import { client, email } from '../lib/auth.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const migrationFiles = readdirSync(path.resolve(here, '..', '..', 'sql', 'migrations')).filter((f) => /^V\d+__.*\.sql$/.test(f));

let moto;
let dbUrl;
let instances = [];
const RATE_LIMIT_VERIFY = 6;

before(async () => {
  moto = await startMoto(`scale-${randomBytes(4).toString('hex')}`);
  dbUrl = await freshDatabase();
  const jwtSecret = randomBytes(32).toString('hex');
  const env = {
    ...moto.env,
    MAILER_AUTOCONFIRM: 'true',
    REFRESH_TOKEN_REUSE_INTERVAL: '0',
    RATE_LIMIT_VERIFY: String(RATE_LIMIT_VERIFY),
    FILE_SIZE_LIMIT: '200000000',
    STORAGE_FILE_ETAG_ALGORITHM: 'md5',
  };
  // All three at once on the empty database: they race for the migration lock.
  instances = await Promise.all([0, 1, 2].map(() => startServer(env, { dbUrl, jwtSecret })));
});

after(async () => {
  await Promise.all(instances.map((s) => s.stop()));
  await moto?.stop();
});

/** The instance serving the i-th request: round robin, as a proxy would. */
const at = (i) => instances[i % instances.length];

async function token(server, body, grant) {
  const res = await fetch(`${server.url}/auth/v1/token?grant_type=${grant}`, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const refresh = (server, refreshToken) => token(server, { refresh_token: refreshToken }, 'refresh_token');

async function signedUp(server) {
  const address = email('scale');
  const { data, error } = await client(server).auth.signUp({ email: address, password: 'correct horse battery' });
  assert.equal(error, null);
  assert.ok(data.session, 'autoconfirm gives a session');
  return { address, session: data.session };
}

test('three instances started at once on a new database applied each migration exactly once, and all serve', async () => {
  const { rows } = await sql(dbUrl, `select version, count(*)::int as n from supabase_migrations.refinery_history group by version`);
  assert.equal(rows.length, migrationFiles.length, 'every migration recorded');
  assert.ok(rows.every((r) => r.n === 1), 'none applied twice');
  const ports = new Set(instances.map((s) => new URL(s.url).port));
  assert.equal(ports.size, 3, 'three processes on three ports');
  for (const server of instances) {
    const res = await fetch(`${server.url}/health/ready`);
    assert.equal(res.status, 200, `${server.url} ready`);
  }
});

test('a session made on one instance refreshes on a second, is used on the third, and its sign-out holds everywhere', async () => {
  const { address, session } = await signedUp(at(0));

  const refreshed = await refresh(at(1), session.refresh_token);
  assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
  assert.notEqual(refreshed.body.refresh_token, session.refresh_token, 'rotated');
  assert.equal(refreshed.body.user.email, address);

  const me = await fetch(`${at(2).url}/auth/v1/user`, {
    headers: { apikey: at(2).anonKey, authorization: `Bearer ${refreshed.body.access_token}` },
  });
  assert.equal(me.status, 200);
  assert.equal((await me.json()).email, address);

  const out = await fetch(`${at(2).url}/auth/v1/logout`, {
    method: 'POST',
    headers: { apikey: at(2).anonKey, authorization: `Bearer ${refreshed.body.access_token}` },
  });
  assert.equal(out.status, 204);

  const again = await refresh(at(0), refreshed.body.refresh_token);
  assert.equal(again.status, 400);
  assert.equal(again.body.error_code ?? again.body.code, 'refresh_token_not_found');
  const gone = await fetch(`${at(1).url}/auth/v1/user`, {
    headers: { apikey: at(1).anonKey, authorization: `Bearer ${refreshed.body.access_token}` },
  });
  assert.equal(gone.status, 403, 'the signed-out session is refused by another instance');
});

test('reusing a rotated refresh token on another instance revokes the whole family there and everywhere', async () => {
  const { session } = await signedUp(at(0));
  const first = await refresh(at(1), session.refresh_token);
  assert.equal(first.status, 200);

  const reused = await refresh(at(2), session.refresh_token);
  assert.equal(reused.status, 400);
  assert.equal(reused.body.error_code ?? reused.body.code, 'refresh_token_already_used');

  const heir = await refresh(at(0), first.body.refresh_token);
  assert.equal(heir.status, 400, 'the token handed out before the reuse is revoked too');
  assert.equal(heir.body.error_code ?? heir.body.code, 'refresh_token_already_used');
});

test('a rate limit is counted across instances: the requests one client spreads over them add up', async () => {
  const verify = (server) => fetch(`${server.url}/auth/v1/verify`, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'signup', token_hash: randomBytes(16).toString('hex') }),
  });
  for (let i = 0; i < RATE_LIMIT_VERIFY; i += 1) {
    const res = await verify(at(i));
    assert.notEqual(res.status, 429, `request ${i + 1} of ${RATE_LIMIT_VERIFY} (instance ${i % 3}) is within the limit`);
  }
  for (const server of instances) {
    const res = await verify(server);
    assert.equal(res.status, 429, `${server.url} knows the other instances' count`);
    assert.equal((await res.json()).error_code, 'over_request_rate_limit');
  }
});

test('a 100 MB file uploaded through one instance (S3 multipart) is served whole and in ranges by the others', async () => {
  const admin = client(at(0), at(0).serviceKey);
  const bucket = `big-${randomBytes(3).toString('hex')}`;
  assert.equal((await admin.storage.createBucket(bucket, { public: false })).error, null);

  const body = Buffer.alloc(100 * 1024 * 1024);
  for (let i = 0; i < body.length; i += 4096) body.writeUInt32LE(i, i);
  const digest = createHash('sha256').update(body).digest('hex');
  const up = await admin.storage.from(bucket).upload('film.bin', body, { contentType: 'application/octet-stream' });
  assert.equal(up.error, null);

  const listed = await fetch(`${moto.endpoint}/${moto.bucket}?list-type=2`).then((r) => r.text());
  // Objects are kept under their version's id; the 100 MB are in the store, not on a disk.
  assert.match(listed, new RegExp(`<Size>${body.length}</Size>`), 'the bytes are in the S3 store');

  for (const server of [at(1), at(2)]) {
    const res = await fetch(`${server.url}/storage/v1/object/${bucket}/film.bin`, {
      headers: { apikey: server.serviceKey, authorization: `Bearer ${server.serviceKey}` },
    });
    assert.equal(res.status, 200);
    const got = Buffer.from(await res.arrayBuffer());
    assert.equal(got.length, body.length);
    assert.equal(createHash('sha256').update(got).digest('hex'), digest, `${server.url} serves the same bytes`);
  }
  const offset = 73 * 1024 * 1024 + 4096 * 5;
  const ranged = await fetch(`${at(2).url}/storage/v1/object/${bucket}/film.bin`, {
    headers: { apikey: at(2).serviceKey, authorization: `Bearer ${at(2).serviceKey}`, range: `bytes=${offset}-${offset + 7}` },
  });
  assert.equal(ranged.status, 206);
  const part = Buffer.from(await ranged.arrayBuffer());
  assert.deepEqual(part, body.subarray(offset, offset + 8));
  assert.equal(part.readUInt32LE(0), offset);
});

test('a resumable upload (S3) created on one instance takes its chunks on the next and is read whole on the third', async () => {
  const admin = client(at(0), at(0).serviceKey);
  const bucket = `tus-${randomBytes(3).toString('hex')}`;
  assert.equal((await admin.storage.createBucket(bucket)).error, null);
  const body = randomBytes(13 * 1024 * 1024);
  const chunk = 6 * 1024 * 1024;
  const b64 = (v) => Buffer.from(v).toString('base64');
  const headers = (server) => ({ apikey: server.serviceKey, authorization: `Bearer ${server.serviceKey}`, 'tus-resumable': '1.0.0' });
  const created = await fetch(`${at(0).url}/storage/v1/upload/resumable`, {
    method: 'POST',
    headers: {
      ...headers(at(0)),
      'upload-length': String(body.length),
      'upload-metadata': `bucketName ${b64(bucket)},objectName ${b64('film/part.bin')},contentType ${b64('application/octet-stream')}`,
    },
  });
  assert.equal(created.status, 201, await created.text());
  const where = new URL(created.headers.get('location')).pathname;
  for (let offset = 0, i = 0; offset < body.length; offset += chunk, i += 1) {
    const server = at(i); // each chunk through another instance
    const part = body.subarray(offset, Math.min(offset + chunk, body.length));
    const res = await fetch(`${server.url}${where}`, {
      method: 'PATCH',
      headers: { ...headers(server), 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
      body: part,
    });
    assert.equal(res.status, 204, `chunk ${i} on instance ${i % 3}: ${await res.text()}`);
    assert.equal(Number(res.headers.get('upload-offset')), offset + part.length);
  }
  const got = await client(at(2), at(2).serviceKey).storage.from(bucket).download('film/part.bin');
  assert.equal(got.error, null);
  assert.equal(createHash('sha256').update(Buffer.from(await got.data.arrayBuffer())).digest('hex'),
    createHash('sha256').update(body).digest('hex'));
});

test('a schema change announced once (NOTIFY pgrst) reaches the schema cache of every instance', async () => {
  const table = `scale_${randomBytes(4).toString('hex')}`;
  for (const server of instances) {
    const res = await fetch(`${server.url}/rest/v1/${table}`, { headers: { apikey: server.anonKey } });
    assert.equal(res.status, 404, 'unknown before');
  }
  await sql(dbUrl, `create table public.${table} (id int primary key, name text);
    insert into public.${table} values (1, 'one');
    grant select on public.${table} to anon;
    notify pgrst, 'reload schema'`);
  for (const server of instances) {
    const deadline = Date.now() + 15000;
    let res;
    for (;;) {
      res = await fetch(`${server.url}/rest/v1/${table}?select=name`, { headers: { apikey: server.anonKey } });
      if (res.status === 200 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(res.status, 200, `${server.url} reloaded`);
    assert.deepEqual(await res.json(), [{ name: 'one' }]);
  }
});
