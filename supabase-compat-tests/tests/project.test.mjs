// A Supabase project folder run by the server (`SUPABASE_PROJECT_DIR`, as `--project DIR`):
// examples/todo/supabase is applied to a fresh database — its migrations in timestamp order with
// the Supabase CLI's history rows, its seed once, its buckets and its config.toml settings —
// then used with unchanged supabase-js; a folder with a failing migration, an unknown key or a
// wrongly typed value is reported as the CLI would.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@supabase/supabase-js';
import { startServer, sql, serverBin, freshDatabase } from '../lib/server.mjs';
import { signJwt } from '../lib/jwt.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const example = path.join(repo, 'examples', 'todo', 'supabase');
const opts = { auth: { persistSession: false, autoRefreshToken: false } };
const ALICE = '00000000-0000-4000-8000-000000000001';
const BOB = '00000000-0000-4000-8000-000000000002';
let server;

/** A copy of the example folder to change. */
function copyOfExample() {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'project-')), 'supabase');
  cpSync(example, dir, { recursive: true });
  return dir;
}

const as = (sub) => createClient(server.url, server.anonKey, {
  ...opts,
  global: { headers: { Authorization: `Bearer ${signJwt({ sub, role: 'authenticated', aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + 3600 }, server.jwtSecret)}` } },
});

before(async () => {
  server = await startServer({ SUPABASE_PROJECT_DIR: example, TODO_MIME: 'text/plain' });
});
after(async () => { await server?.stop(); });

test("the project's migrations are applied in timestamp order and recorded as the Supabase CLI records them", async () => {
  const { rows } = await sql(server.dbUrl, 'select version, name, statements from supabase_migrations.schema_migrations order by version');
  assert.deepEqual(rows.map((r) => [r.version, r.name]), [['20240101000000', 'todos'], ['20240102000000', 'tags']]);
  // the statements: the file split on `;` outside quotes and bodies, trimmed, without the `;`
  assert.equal(rows[0].statements.length, 6);
  assert.ok(rows[0].statements[0].startsWith('-- To-dos, each visible to and changed by its owner only.\ncreate table public.todos ('));
  assert.equal(rows[0].statements[1], 'alter table public.todos enable row level security');
  assert.equal(rows[1].statements[3], "create function public.open_todos() returns bigint\nlanguage sql stable security invoker\nas $$\n  select count(*) from public.todos where not is_complete;\n$$");
  const columns = (await sql(server.dbUrl, `select column_name from information_schema.columns
    where table_schema = 'supabase_migrations' and table_name = 'schema_migrations' order by ordinal_position`)).rows.map((r) => r.column_name);
  assert.deepEqual(columns, ['version', 'statements', 'name']);
});

test('the seed ran once, and row-level security of the migrations decides what each user reads', async () => {
  const { data: tags, error } = await createClient(server.url, server.anonKey, opts).from('tags').select('name').order('name');
  assert.equal(error, null);
  assert.deepEqual(tags.map((t) => t.name), ['errands', 'home', 'work']);
  const alice = await as(ALICE).from('todos').select('task').order('id');
  assert.deepEqual(alice.data.map((t) => t.task), ['Water the plants', 'Call the garage']);
  const bob = await as(BOB).from('todos').select('task');
  assert.deepEqual(bob.data.map((t) => t.task), ['Book the airport transfer']);
  const { data: open } = await as(ALICE).rpc('open_todos');
  assert.equal(open, 2);
  const { rows } = await sql(server.dbUrl, 'select path from supabase_migrations.seed_files');
  assert.deepEqual(rows.map((r) => r.path), ['supabase/seed.sql']);
});

test('config.toml takes effect: auth settings, max_rows, the bucket with its limits', async () => {
  const settings = await (await fetch(`${server.url}/auth/v1/settings`, { headers: { apikey: server.anonKey } })).json();
  assert.equal(settings.disable_signup, false);
  assert.equal(settings.external.anonymous_users, true, 'enable_anonymous_sign_ins = true');
  assert.equal(settings.mailer_autoconfirm, true, '[auth.email] enable_confirmations = false');
  // jwt_expiry = 1800: a new user's session lasts half an hour
  const signedUp = await createClient(server.url, server.anonKey, opts).auth.signUp({ email: 'todo-user@example.com', password: 'long enough 1' });
  assert.equal(signedUp.error, null);
  assert.equal(signedUp.data.session.expires_in, 1800);
  // max_rows = 50 caps a select of 60 rows
  await sql(server.dbUrl, `insert into public.todos (user_id, task) select '${BOB}', 'item ' || g from generate_series(1, 60) g`);
  const capped = await as(BOB).from('todos').select('id');
  assert.equal(capped.data.length, 50);
  const admin = createClient(server.url, server.serviceKey, opts);
  const { data: bucket } = await admin.storage.getBucket('attachments');
  assert.equal(bucket.public, false);
  assert.equal(bucket.file_size_limit, 1024 * 1024);
  assert.deepEqual(bucket.allowed_mime_types, ['image/png', 'application/pdf']);
  // a password shorter than minimum_password_length = 8 is refused
  const short = await createClient(server.url, server.anonKey, opts).auth.signUp({ email: 'short@example.com', password: 'abc1234' });
  assert.equal(short.error?.code, 'weak_password');
});

test('started again, nothing is applied or seeded twice', async () => {
  await server.stop();
  server = await startServer({ SUPABASE_PROJECT_DIR: example, PORT: new URL(server.url).port }, { dbUrl: server.dbUrl, jwtSecret: server.jwtSecret });
  const { rows } = await sql(server.dbUrl, 'select count(*)::int as n from public.tags');
  assert.equal(rows[0].n, 3);
  const history = await sql(server.dbUrl, 'select count(*)::int as n from supabase_migrations.schema_migrations');
  assert.equal(history.rows[0].n, 2);
});

test('env() in config.toml is replaced by the variable; a new migration is applied by `server db push`', async () => {
  const dir = copyOfExample();
  const config = readFileSync(path.join(dir, 'config.toml'), 'utf8')
    .replace('allowed_mime_types = ["image/png", "application/pdf"]', 'allowed_mime_types = ["env(TODO_MIME)"]');
  writeFileSync(path.join(dir, 'config.toml'), config);
  const dbUrl = await freshDatabase();
  const env = { ...process.env, DATABASE_URL: dbUrl, JWT_SECRET: 'x'.repeat(40), RUST_LOG: 'warn', TODO_MIME: 'text/csv' };
  execFileSync(serverBin(), ['--project', dir, 'db', 'push'], { env, encoding: 'utf8' });
  const { rows } = await sql(dbUrl, "select allowed_mime_types from storage.buckets where id = 'attachments'");
  assert.deepEqual(rows[0].allowed_mime_types, ['text/csv']);
  // `migration new` makes the file; `db push` applies it; `migration list` shows both sides
  const made = execFileSync(serverBin(), ['--project', dir, 'migration', 'new', 'add_priority'], { env, encoding: 'utf8' });
  const file = /Created new migration at (\S+)/.exec(made)[1];
  writeFileSync(file, 'alter table public.todos add column priority int not null default 0;');
  const pushed = execFileSync(serverBin(), ['--project', dir, 'db', 'push'], { env, encoding: 'utf8' });
  assert.match(pushed, /_add_priority\.sql/);
  const columns = await sql(dbUrl, "select 1 from information_schema.columns where table_name = 'todos' and column_name = 'priority'");
  assert.equal(columns.rows.length, 1);
  const list = execFileSync(serverBin(), ['--project', dir, 'migration', 'list'], { env, encoding: 'utf8' });
  const version = path.basename(file).split('_')[0];
  const row = list.split('\n').find((l) => l.includes(version));
  assert.deepEqual(row.split('|').map((c) => c.trim()).slice(0, 2), [version, version]);
  // the seed ran on the fresh database only, not on the second push
  const seeded = await sql(dbUrl, 'select count(*)::int as n from public.tags');
  assert.equal(seeded.rows[0].n, 3);
});

test('a failing migration stops the start with its file, its statement and Postgres\'s message; nothing of it stays', async () => {
  const dir = copyOfExample();
  writeFileSync(path.join(dir, 'migrations', '20240103000000_broken.sql'),
    'create table public.half (id int);\ninsert into public.nowhere values (1);\n');
  const dbUrl = await freshDatabase();
  const run = spawnSync(serverBin(), ['--project', dir, 'db', 'push'], {
    env: { ...process.env, DATABASE_URL: dbUrl, JWT_SECRET: 'x'.repeat(40), RUST_LOG: 'warn' }, encoding: 'utf8',
  });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /20240103000000_broken\.sql failed at statement 1: relation "public\.nowhere" does not exist \(SQLSTATE 42P01\)/);
  assert.match(run.stderr, /insert into public\.nowhere values \(1\)/);
  const half = await sql(dbUrl, "select to_regclass('public.half') as t");
  assert.equal(half.rows[0].t, null, 'the failed file was rolled back whole');
  const history = await sql(dbUrl, 'select version from supabase_migrations.schema_migrations order by 1');
  assert.deepEqual(history.rows.map((r) => r.version), ['20240101000000', '20240102000000']);
});

test('an unknown key in config.toml is a warning that names it; a value of the wrong type fails with its name', async () => {
  const dir = copyOfExample();
  const config = readFileSync(path.join(dir, 'config.toml'), 'utf8');
  writeFileSync(path.join(dir, 'config.toml'), config.replace('max_rows = 50', 'max_rows = 50\nmax_rowz = 7'));
  const env = { ...process.env, DATABASE_URL: await freshDatabase(), JWT_SECRET: 'x'.repeat(40), RUST_LOG: 'warn' };
  const warned = spawnSync(serverBin(), ['--project', dir, 'db', 'push'], { env, encoding: 'utf8' });
  assert.equal(warned.status, 0, warned.stderr);
  assert.match(warned.stderr, /unknown key api\.max_rowz in config\.toml/);
  writeFileSync(path.join(dir, 'config.toml'), config.replace('max_rows = 50', 'max_rows = "fifty"'));
  const failed = spawnSync(serverBin(), ['--project', dir, 'db', 'push'], { env, encoding: 'utf8' });
  assert.notEqual(failed.status, 0);
  assert.match(failed.stderr, /config\.toml: api\.max_rows must be an integer/);
});

test("`server db dump` gives the project's schema, or its rows, without the platform's schemas", async () => {
  const env = { ...process.env, DATABASE_URL: server.dbUrl, JWT_SECRET: server.jwtSecret, RUST_LOG: 'warn' };
  const schema = execFileSync(serverBin(), ['db', 'dump'], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.match(schema, /CREATE TABLE public\.todos \(/);
  assert.match(schema, /CREATE POLICY "Owners read their to-dos" ON public\.todos/);
  assert.doesNotMatch(schema, /CREATE TABLE auth\./);
  assert.doesNotMatch(schema, /CREATE TABLE storage\./);
  assert.doesNotMatch(schema, /INSERT INTO/);
  const data = execFileSync(serverBin(), ['db', 'dump', '--data-only', '--schema', 'public'], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.match(data, /INSERT INTO public\.tags VALUES \('home', 'green'\);/);
  assert.doesNotMatch(data, /CREATE TABLE/);
});

test('without a project, a new database gets only the platform: public is empty', async () => {
  const bare = await startServer({ SUPABASE_PROJECT_DIR: '' });
  try {
    const tables = await sql(bare.dbUrl, "select tablename from pg_tables where schemaname = 'public'");
    assert.deepEqual(tables.rows, []);
    const functions = await sql(bare.dbUrl, "select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public'");
    assert.deepEqual(functions.rows, []);
    const types = await sql(bare.dbUrl, "select t.typname from pg_type t join pg_namespace n on n.oid = t.typnamespace where n.nspname = 'public'");
    assert.deepEqual(types.rows, []);
    const published = await sql(bare.dbUrl, "select tablename from pg_publication_tables where pubname = 'supabase_realtime'");
    assert.deepEqual(published.rows, []);
    // the platform is whole: auth, storage and realtime answer
    const settings = await fetch(`${bare.url}/auth/v1/settings`, { headers: { apikey: bare.anonKey } });
    assert.equal(settings.status, 200);
    const { error } = await createClient(bare.url, bare.serviceKey, opts).storage.listBuckets();
    assert.equal(error, null);
  } finally {
    await bare.stop();
  }
});

test("a database migrated before the rental app became a project keeps every row and policy, nothing runs twice, and its history ends at the baseline", async () => {
  const rental = path.join(repo, 'web', 'supabase');
  const dbUrl = await freshDatabase();
  const env = { ...process.env, DATABASE_URL: dbUrl, JWT_SECRET: 'x'.repeat(40), RUST_LOG: 'warn', SUPABASE_PROJECT_DIR: rental };
  execFileSync(serverBin(), ['migrate'], { env, encoding: 'utf8' });
  // the baseline's files, and the old versions they squash (`-- squashes: …` at the top of each)
  const all = (await sql(dbUrl, 'select version, name from supabase_migrations.schema_migrations order by version')).rows;
  const squashed = [...new Set(readdirSync(path.join(rental, 'migrations')).flatMap((file) =>
    readFileSync(path.join(rental, 'migrations', file), 'utf8').split('\n')
      .filter((line) => line.startsWith('-- squashes:')).flatMap((line) => line.slice(12).trim().split(/\s+/))))].sort();
  assert.equal(squashed.length, 30);
  // turn its bookkeeping into what the platform wrote before the split: the app's migrations
  // V30…V69 as refinery rows of the platform's history (version n is 20250101<hh><mm>00 with
  // n = 60 hh + mm), the later one in the CLI's history, none of the baseline
  await sql(dbUrl, 'delete from supabase_migrations.schema_migrations');
  for (const version of squashed) {
    if (version.startsWith('20250101')) {
      const old = Number(version.slice(8, 10)) * 60 + Number(version.slice(10, 12));
      await sql(dbUrl, `insert into supabase_migrations.refinery_history (version, name, applied_on, checksum)
        values ($1, 'old', now()::text, '0')`, [old]);
    } else {
      await sql(dbUrl, 'insert into supabase_migrations.schema_migrations (version) values ($1)', [version]);
    }
  }
  // a row the app's migrations seeded, changed since: it must come through as it is
  await sql(dbUrl, "update public.airport_services set name = 'Kept?' where code = 'vip'");
  const policies = (await sql(dbUrl, "select count(*)::int as n from pg_policies where schemaname = 'public'")).rows[0].n;
  assert.ok(policies > 20);

  // the new server starts on it: the app's history moves over and is squashed into the baseline,
  // no migration runs again
  const started = await startServer({ SUPABASE_PROJECT_DIR: rental }, { dbUrl, jwtSecret: 'x'.repeat(40) });
  try {
    const history = (await sql(dbUrl, 'select version, name from supabase_migrations.schema_migrations order by version')).rows;
    assert.deepEqual(history, all);
    const left = (await sql(dbUrl, 'select count(*)::int as n from supabase_migrations.refinery_history where version >= 30 and version < 70 and version not in (49, 52, 54, 55, 57, 58, 59, 60, 61, 62)')).rows[0].n;
    assert.equal(left, 0);
    assert.equal((await sql(dbUrl, "select count(*)::int as n from pg_policies where schemaname = 'public'")).rows[0].n, policies);
    const kept = await sql(dbUrl, "select name from public.airport_services where code = 'vip'");
    assert.deepEqual(kept.rows, [{ name: 'Kept?' }]);
    const vehicles = await fetch(`${started.url}/rest/v1/vehicles?select=id&limit=1`, { headers: { apikey: started.anonKey } });
    assert.equal(vehicles.status, 200);
  } finally {
    await started.stop();
  }
});

test('`server db reset` makes the database again: migrations applied anew, the seed loaded, other rows gone; DATABASE_URL needs --force', async () => {
  const dir = copyOfExample();
  const dbUrl = await freshDatabase();
  const env = { ...process.env, DATABASE_URL: dbUrl, JWT_SECRET: 'x'.repeat(40), RUST_LOG: 'warn' };
  execFileSync(serverBin(), ['--project', dir, 'db', 'push'], { env, encoding: 'utf8' });
  await sql(dbUrl, "insert into public.tags (name) values ('temporary'); delete from public.tags where name = 'home'");
  const refused = spawnSync(serverBin(), ['--project', dir, 'db', 'reset'], { env, encoding: 'utf8' });
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, /add --force/);
  assert.equal((await sql(dbUrl, "select count(*)::int as n from public.tags where name = 'temporary'")).rows[0].n, 1, 'refused: nothing changed');
  const reset = execFileSync(serverBin(), ['--project', dir, 'db', 'reset', '--force'], { env, encoding: 'utf8' });
  assert.match(reset, /Applying migration 20240101000000_todos\.sql\.\.\./);
  assert.match(reset, /Finished server db reset\./);
  const tags = (await sql(dbUrl, 'select name from public.tags order by name')).rows.map((r) => r.name);
  assert.deepEqual(tags, ['errands', 'home', 'work'], 'the seed again, nothing else');
  const history = (await sql(dbUrl, 'select version from supabase_migrations.schema_migrations order by 1')).rows.map((r) => r.version);
  assert.deepEqual(history, ['20240101000000', '20240102000000']);
});

test("migrations and seeds run with the search_path of Supabase's postgres role: extensions' functions resolve unqualified", async () => {
  const dir = copyOfExample();
  writeFileSync(path.join(dir, 'migrations', '20240103000000_hashes.sql'),
    "create table public.secrets (hash text not null);\ninsert into public.secrets values (crypt('s3cret', gen_salt('bf', 4)));\n");
  writeFileSync(path.join(dir, 'seed.sql'), `${readFileSync(path.join(dir, 'seed.sql'), 'utf8')}\ninsert into public.secrets values (crypt('seeded', gen_salt('md5')));\n`);
  const dbUrl = await freshDatabase();
  const run = spawnSync(serverBin(), ['--project', dir, 'db', 'push'], {
    env: { ...process.env, DATABASE_URL: dbUrl, JWT_SECRET: 'x'.repeat(40), RUST_LOG: 'warn' }, encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  const { rows } = await sql(dbUrl, "select count(*)::int as n from public.secrets where hash like '$%'");
  assert.equal(rows[0].n, 2);
});
