// The storage and policies screens in Chromium against the real server and the rental data:
// create a bucket, upload a 50 MB file with its progress visible, see it listed, preview an
// image through the transformation endpoint, get a signed URL and fetch it without any key,
// delete; then switch row-level security on a table, write a policy from a template with its
// SQL shown first, and test it: a customer sees only their rows, an insert for another owner is
// refused. axe on each screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { DEMO, axeClean, launchBrowser, ownerSql, signedInPage, startStack } from './stack.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const docs = path.resolve(here, '../../docs/studio');
const BIG = 50 * 1024 * 1024;

/** A small red PNG (width × height), written here: chunks with their CRC, pixels deflated. */
function png(width, height) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'ascii');
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [200, 0, 0]).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}
const PNG = png(64, 48);

let stack;
let browser;
let page;
let files;
let other;

const axe = (name) => axeClean(page, name);

const sql = (text) => ownerSql(page, stack, text);

before(async () => {
  stack = await startStack();
  files = mkdtempSync(path.join(tmpdir(), 'studio-storage-e2e-'));
  writeFileSync(path.join(files, 'big.bin'), Buffer.alloc(BIG, 7));
  writeFileSync(path.join(files, 'red.png'), PNG);
  browser = await launchBrowser();
  page = await signedInPage(browser, stack);
});

after(async () => {
  await browser?.close();
  await stack?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

test('a bucket is created and a 50 MB file uploaded with its progress shown', async () => {
  await page.getByRole('link', { name: 'Storage' }).click();
  await page.getByRole('button', { name: 'New bucket' }).click();
  await page.getByLabel('Name').fill('e2e-media');
  await page.getByLabel('Largest file (empty: the server\'s limit)').fill('60 MB');
  await page.getByRole('button', { name: 'Create bucket' }).click();
  await page.getByRole('heading', { name: 'e2e-media' }).waitFor();
  await page.getByText('private · up to 60.0 MB').waitFor();

  // Every value the progress bar takes, as the page renders it.
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver(() => {
      for (const bar of document.querySelectorAll('progress')) window.__progress.push(Number(bar.value));
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['value'] });
  });
  await page.getByLabel('Files to upload').setInputFiles(path.join(files, 'big.bin'));
  await page.getByRole('progressbar', { name: 'Upload of big.bin' }).waitFor();
  await page.getByText('done · 50.0 MB').waitFor({ timeout: 120000 });
  const seen = await page.evaluate(() => window.__progress);
  assert.ok(seen.some((v) => v > 0 && v < 100), `progress between 0 and 100 was shown: ${seen.join(',')}`);
  await page.getByRole('button', { name: 'big.bin' }).waitFor();
  await page.getByRole('row', { name: /big\.bin 50\.0 MB/ }).waitFor();
  await axe('storage: a bucket');
});

test('an image is previewed through the transformation endpoint, signed and fetched without a key, and deleted', async () => {
  await page.getByLabel('Files to upload').setInputFiles(path.join(files, 'red.png'));
  await page.getByRole('button', { name: 'red.png' }).click();
  const preview = page.getByRole('img', { name: 'Preview of red.png' });
  await preview.waitFor();
  await page.waitForFunction(() => document.querySelector('img[alt="Preview of red.png"]')?.naturalWidth > 0);
  assert.match(await preview.getAttribute('src'), /\/studio\/api\/storage\/render\/image\/authenticated\/e2e-media\/red\.png\?width=/);
  await page.getByLabel('Lifetime').selectOption({ label: 'valid 1 minute' });
  await page.getByRole('button', { name: 'Get URL' }).click();
  const url = await page.getByRole('textbox', { name: 'Signed URL' }).inputValue();
  assert.match(url, /\/storage\/v1\/object\/sign\/e2e-media\/red\.png\?token=/);
  const fetched = await fetch(url); // no cookie, no key
  assert.equal(fetched.status, 200);
  assert.deepEqual(Buffer.from(await fetched.arrayBuffer()), PNG);
  const shotPath = path.join(docs, 'storage.png');
  await page.screenshot({ path: shotPath });
  await axe('storage: a file');

  await page.getByRole('button', { name: 'Delete…' }).click();
  await page.getByRole('button', { name: 'Delete file' }).click();
  await page.getByRole('button', { name: 'red.png' }).waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Empty', exact: true }).click();
  await page.getByRole('button', { name: 'Empty bucket' }).click();
  await page.getByText('This folder is empty').waitFor();
  await page.getByRole('button', { name: 'Delete bucket' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete bucket' }).click();
  await page.getByText('Choose a bucket, or make one.').waitFor();
  assert.equal(await page.getByRole('link', { name: 'e2e-media' }).count(), 0);
});

test('a policy written from a template lets a customer see only their rows and refuses an insert for another owner', async () => {
  const [ids] = await sql(
    `select (select id::text from auth.users where email = '${DEMO.email}'), (select id::text from auth.users where email <> '${DEMO.email}' order by created_at limit 1)`,
  );
  const [demo, someoneElse] = ids.rows[0];
  other = someoneElse;
  await sql(`create table public.e2e_orders (id int primary key, customer uuid not null, total int not null default 0);
    grant select, insert, update, delete on public.e2e_orders to anon, authenticated, service_role;
    insert into public.e2e_orders values (1, '${demo}', 10), (2, '${demo}', 20), (3, '${other}', 30);`);

  await page.getByRole('link', { name: 'Policies' }).click();
  await page.getByRole('link', { name: /^e2e_orders/ }).click();
  const rls = page.getByRole('switch', { name: 'Row-level security' });
  assert.equal(await rls.getAttribute('aria-checked'), 'false');
  await rls.click();
  await page.getByRole('dialog').getByLabel('SQL to run').getByText('alter table "public"."e2e_orders" enable row level security;').waitFor();
  await page.getByRole('button', { name: 'Run SQL' }).click();
  await page.waitForFunction(() => document.querySelector('[role=switch]')?.getAttribute('aria-checked') === 'true');

  await page.getByRole('button', { name: 'New policy' }).click();
  await page.getByLabel('Owner column (uuid = auth.uid())').selectOption('customer');
  await page.getByLabel('Template').selectOption({ label: 'Owner only (read and write their rows)' });
  assert.equal(await page.getByLabel('Name').inputValue(), 'Owners manage their e2e_orders');
  await page.getByRole('button', { name: 'Review SQL' }).click();
  const shown = page.getByRole('dialog').getByLabel('SQL to run');
  await shown.getByText(/create policy "Owners manage their e2e_orders" on "public"."e2e_orders"/).waitFor();
  assert.match(await shown.innerText(), /using \(\(select auth\.uid\(\)\) = "customer"\)\s+with check \(\(select auth\.uid\(\)\) = "customer"\)/);
  await page.getByRole('button', { name: 'Run SQL' }).click();
  await page.getByRole('heading', { name: 'Owners manage their e2e_orders' }).waitFor();
  await axe('policies');

  // the tester: as the demo customer
  await page.getByLabel('Search users').fill(DEMO.email);
  await page.getByLabel('User', { exact: true }).locator('option', { hasText: DEMO.email }).waitFor({ state: 'attached' });
  await page.getByLabel('User', { exact: true }).selectOption({ label: DEMO.email });
  await page.getByRole('button', { name: 'Test', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Sees 2 of 3 rows' }).waitFor();
  const rows = page.getByRole('region', { name: 'Rows the caller sees (scrollable)' }).locator('tbody tr');
  assert.equal(await rows.count(), 2);
  await page.screenshot({ path: path.join(docs, 'policies.png') });

  await page.getByLabel('Operation').selectOption('insert');
  await page.getByLabel('Row (JSON)').fill(JSON.stringify({ id: 9, customer: other, total: 1 }));
  await page.getByRole('button', { name: 'Test', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Refused: new row violates row-level security policy' }).waitFor();
  await page.getByLabel('Row (JSON)').fill(JSON.stringify({ id: 9, customer: demo, total: 1 }));
  await page.getByRole('button', { name: 'Test', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Allowed: 1 row would be written (rolled back)' }).waitFor();
  await axe('policy tester');
  const [left] = await sql('select count(*)::text from public.e2e_orders');
  assert.deepEqual(left.rows, [['3']], 'the tester wrote nothing');
});
