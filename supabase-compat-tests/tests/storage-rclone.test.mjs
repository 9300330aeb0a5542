// rclone (Debian's package) against the S3 protocol at /storage/v1/s3, with an access key from
// `server keys s3-new`: a folder is copied up (small files and one above the multipart cutoff),
// `rclone check` finds every size and MD5 equal, files are read back, listed, and deleted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import { startServer, serverBin } from '../lib/server.mjs';

let server;
let env;

const rclone = (...args) => execFileSync('rclone', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

before(async () => {
  server = await startServer({});
  const out = execFileSync(serverBin(), ['keys', 's3-new', '--description', 'rclone'], {
    env: { ...process.env, DATABASE_URL: server.dbUrl, JWT_SECRET: server.jwtSecret, DATA_DIR: mkdtempSync(path.join(tmpdir(), 's3keys-')), RUST_LOG: 'warn' },
    encoding: 'utf8',
  });
  // the machine's own AWS settings (a CA bundle for HTTPS, profiles) have nothing to do here
  const own = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_') && !k.startsWith('RCLONE_')));
  env = {
    ...own,
    RCLONE_CONFIG: '/dev/null',
    RCLONE_CONFIG_SB_TYPE: 's3',
    RCLONE_CONFIG_SB_PROVIDER: 'Other',
    RCLONE_CONFIG_SB_ENDPOINT: `${server.url}/storage/v1/s3`,
    RCLONE_CONFIG_SB_REGION: 'us-east-1',
    RCLONE_CONFIG_SB_FORCE_PATH_STYLE: 'true',
    RCLONE_CONFIG_SB_ACCESS_KEY_ID: /S3 access key id: (\S+)/.exec(out)[1],
    RCLONE_CONFIG_SB_SECRET_ACCESS_KEY: /S3 secret access key: (\S+)/.exec(out)[1],
  };
});
after(async () => { await server?.stop(); });

test('rclone copies a folder up and back, checks it, lists and deletes', () => {
  const local = mkdtempSync(path.join(tmpdir(), 'rclone-src-'));
  mkdirSync(path.join(local, 'photos'));
  writeFileSync(path.join(local, 'contrat.txt'), 'Contrat de location\n');
  writeFileSync(path.join(local, 'photos', 'suv.bin'), randomBytes(200_000));
  writeFileSync(path.join(local, 'video.bin'), randomBytes(11 * 1024 * 1024)); // multipart above the 5 MB cutoff
  rclone('mkdir', 'sb:flotte');
  rclone('copy', local, 'sb:flotte/sauvegarde', '--s3-upload-cutoff', '5M', '--s3-chunk-size', '5M');
  // sizes and MD5 hashes equal on both sides
  rclone('check', local, 'sb:flotte/sauvegarde');
  const listed = JSON.parse(rclone('lsjson', '-R', '--files-only', 'sb:flotte/sauvegarde')).map((f) => f.Path).sort();
  assert.deepEqual(listed, ['contrat.txt', 'photos/suv.bin', 'video.bin']);
  assert.equal(rclone('cat', 'sb:flotte/sauvegarde/contrat.txt'), 'Contrat de location\n');

  const back = mkdtempSync(path.join(tmpdir(), 'rclone-back-'));
  rclone('copy', 'sb:flotte/sauvegarde', back);
  assert.deepEqual(readFileSync(path.join(back, 'video.bin')), readFileSync(path.join(local, 'video.bin')));

  rclone('delete', 'sb:flotte/sauvegarde/photos');
  const left = JSON.parse(rclone('lsjson', '-R', '--files-only', 'sb:flotte')).map((f) => f.Path).sort();
  assert.deepEqual(left, ['sauvegarde/contrat.txt', 'sauvegarde/video.bin']);
});

test('what rclone stored, supabase-js reads', async () => {
  const admin = createClient(server.url, server.serviceKey, { auth: { persistSession: false } });
  const { data, error } = await admin.storage.from('flotte').download('sauvegarde/contrat.txt');
  assert.equal(error, null);
  assert.equal(await data.text(), 'Contrat de location\n');
});
