// The dashboard in Chromium against the real server and the rental data: sign in, browse the
// rental tables, edit a cell, insert and delete a row, run SQL as a customer and see only their
// rows; axe on each screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DEMO, axeClean, launchBrowser, ownerSql, shot, startStack } from './stack.mjs';

const run = promisify(execFile);
const docs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/studio');

let stack;
let browser;
let page;

const axe = (name) => axeClean(page, name);

before(async () => {
  stack = await startStack({ backups: true });
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  page = await context.newPage();
  page.setDefaultTimeout(15000);
  page.on('pageerror', (e) => console.error('[pageerror]', e.message));
});

after(async () => {
  await browser?.close();
  await stack?.stop();
});

test('an operator signs in (a wrong password is refused first)', async () => {
  await page.goto(`${stack.baseUrl}/studio`);
  await page.getByLabel('E-mail').fill(stack.operator.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Invalid e-mail or password' }).waitFor();
  await axe('sign-in');
  await page.getByLabel('Password').fill(stack.operator.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Tables' }).waitFor();
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'studio_session');
  assert.ok(session?.httpOnly, 'the session cookie is HttpOnly');
  assert.equal(session?.sameSite, 'Strict');
  const scripts = await page.evaluate(() => JSON.stringify(localStorage) + document.cookie);
  assert.ok(!scripts.includes('eyJ'), 'no token reachable from scripts');
});

test('the rental tables are listed and their rows shown', async () => {
  await page.getByRole('link', { name: /^vehicles/ }).click();
  await page.getByRole('grid', { name: 'public.vehicles' }).waitFor();
  const cells = await page.getByRole('grid', { name: 'public.vehicles' }).locator('tbody tr').count();
  assert.ok(cells > 0, 'vehicles has rows');
  await page.screenshot({ path: path.join(docs, 'table-grid.png') });
  await axe('table editor');
});

test('a cell is edited, a row inserted and deleted, in a table of our own', async () => {
  // A table of the test's own, through the SQL editor (so the rental data stays as it is).
  await page.getByRole('link', { name: 'SQL editor' }).click();
  const editor = page.getByRole('textbox', { name: 'SQL' });
  await editor.waitFor();
  await editor.click();
  await page.keyboard.press('Control+a');
  await page.keyboard.type(
    "create table public.e2e_notes (id int primary key, title text not null, done boolean not null default false, meta jsonb);\ninsert into public.e2e_notes values (1, 'first', false, null), (2, 'second', true, '{\"a\": 1}');",
  );
  await page.keyboard.press('Control+Enter');
  await page.getByText('2 statements run · committed').waitFor();

  await page.getByRole('link', { name: 'Table editor' }).click();
  await page.getByRole('link', { name: /^e2e_notes/ }).click();
  const grid = page.getByRole('grid', { name: 'public.e2e_notes' });
  await grid.waitFor();
  await grid.getByRole('button', { name: 'title: first' }).dblclick();
  const input = page.getByLabel('New value of title (text)');
  await input.fill('first, edited');
  await input.press('Enter');
  await grid.getByRole('button', { name: 'title: first, edited' }).waitFor();

  // JSON is checked before it is sent.
  await grid.getByRole('button', { name: 'meta: NULL' }).dblclick();
  const json = page.getByLabel('New value of meta (jsonb)');
  await json.fill('{broken');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('alert').filter({ hasText: 'Invalid JSON' }).waitFor();
  await page.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('button', { name: 'Insert row' }).click();
  await page.getByLabel('id (integer, required)').fill('3');
  await page.getByLabel('title (text, required)').fill('third');
  await axe('insert row dialog');
  await page.getByRole('dialog').getByRole('button', { name: 'Insert row' }).click();
  await grid.getByRole('button', { name: 'title: third' }).waitFor();

  await page.getByLabel('Select row {"id":3}').check();
  await page.getByRole('button', { name: 'Delete 1 row' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await grid.getByRole('button', { name: 'title: third' }).waitFor({ state: 'detached' });
});

test('a filter narrows the rows on the server', async () => {
  await page.getByLabel('Filter column').selectOption('title');
  await page.getByLabel('Filter operator').selectOption('ilike');
  await page.getByLabel('Filter value').fill('%second%');
  await page.getByRole('button', { name: 'Add filter' }).click();
  const grid = page.getByRole('grid', { name: 'public.e2e_notes' });
  await grid.getByRole('button', { name: 'title: first, edited' }).waitFor({ state: 'detached' });
  await grid.getByRole('button', { name: 'title: second' }).waitFor();
  assert.equal(await grid.locator('tbody tr[aria-rowindex]').count(), 1);
});

test("at a phone's width the grid is held to the screen: one page of rows, the next when scrolled to", async () => {
  await ownerSql(page, stack, 'create table public.e2e_many as select g as id, md5(g::text) as label from generate_series(1, 1000) g; alter table public.e2e_many add primary key (id)');
  await page.setViewportSize({ width: 412, height: 823 });
  try {
    await page.goto(`${stack.baseUrl}/studio/tables/public/e2e_many`);
    const region = page.getByRole('region', { name: 'public.e2e_many (scrollable)' });
    await region.getByRole('grid', { name: 'public.e2e_many' }).waitFor();
    await page.getByText(/^200 rows loaded$/).waitFor();
    // The cause of loading every page: a scroller as tall as its rows sees them all "in view".
    const box = await region.evaluate((el) => ({ client: el.clientHeight, scroll: el.scrollHeight }));
    assert.ok(box.client < 823, `the scroller fits the screen (${box.client} px)`);
    assert.ok(box.scroll > box.client, 'the rows overflow the scroller');
    assert.equal(await page.getByText(/^200 rows loaded$/).count(), 1, 'still one page');
    await region.evaluate((el) => { el.scrollTop = el.scrollHeight; });
    await page.getByText(/^400 rows loaded$/).waitFor();
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
});

test('SQL run as a customer sees only their rows', async () => {
  await page.getByRole('link', { name: 'SQL editor' }).click();
  const editor = page.getByRole('textbox', { name: 'SQL' });
  await editor.click();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('select email from public.profiles order by email');
  await page.keyboard.press('Control+Enter');
  await page.getByText(/Statement 1: 2 rows/).waitFor();

  await page.getByLabel('Run as').selectOption('user');
  await page.getByLabel('Search users by e-mail').fill('client@');
  await page.getByLabel('User', { exact: true }).selectOption({ label: DEMO.email });
  await page.getByRole('button', { name: /^Run/ }).click();
  await page.getByText(/Statement 1: 1 row\b/).waitFor();
  const grid = page.getByRole('grid', { name: 'Rows of statement 1' });
  assert.deepEqual(await grid.locator('tbody tr[aria-rowindex] td').allInnerTexts(), [DEMO.email]);
  await page.screenshot({ path: path.join(docs, 'sql-run.png') });
  await axe('SQL editor');
});

test('an error is shown with its place marked', async () => {
  await page.getByLabel('Run as').selectOption('owner');
  const editor = page.getByRole('textbox', { name: 'SQL' });
  await editor.click();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('select 1;\nselect * from nowhere_at_all');
  await page.keyboard.press('Control+Enter');
  await page.getByRole('alert').filter({ hasText: 'Statement 2 failed (42P01)' }).waitFor();
  await page.locator('.cm-lintRange-error').waitFor();
});

test('a past run is taken back from the history', async () => {
  const history = page.getByLabel('History');
  const options = await history.locator('option').allInnerTexts();
  const index = options.findIndex((t) => t.includes('select email from public.profiles'));
  assert.ok(index > 0, `the customer's query is in the history: ${options.join(' | ')}`);
  await history.selectOption({ index });
  await page.getByRole('textbox', { name: 'SQL' }).filter({ hasText: 'select email from public.profiles' }).waitFor();
});

// Database › Backups: the server archives and backs up by default; the screen lists the
// backups, takes one now, verifies the latest and restores one into a folder of its own.
test('a backup is taken, listed, verified and restored into a folder', async () => {
  await page.getByRole('link', { name: 'Backups' }).click();
  await page.getByRole('heading', { name: /Backups/ }).waitFor();
  // The first full backup is taken when the server starts: wait until it is listed.
  const table = page.getByRole('table', { name: /Backups in the repository/ });
  for (let i = 0; !(await table.isVisible()); i += 1) {
    assert.ok(i < 120, 'the first full backup is listed');
    await page.waitForTimeout(1000);
    await page.reload();
    await page.getByRole('heading', { name: /Backups/ }).waitFor();
  }
  const before = await table.locator('tbody tr').count();
  await page.getByLabel('Type').selectOption('incr');
  await page.getByRole('button', { name: 'Take backup now' }).click();
  await page.getByRole('status').filter({ hasText: /^Backup \S+I taken in/ }).waitFor({ timeout: 120000 });
  await table.locator('tbody tr').nth(before).waitFor();
  await table.getByRole('cell', { name: 'Incremental' }).first().waitFor();
  await page.getByText('(not encrypted)').waitFor();
  await shot(page, 'studio-backups');
  await axe('backups');

  await page.getByRole('button', { name: 'Verify latest' }).click();
  await page.getByRole('status').filter({ hasText: /verified: restored and started/ }).waitFor({ timeout: 180000 });
  await page.getByText(/^passed at/).waitFor();

  const label = (await table.locator('tbody tr').first().locator('td').first().innerText()).trim();
  await page.getByRole('button', { name: `Restore ${label} into a folder` }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel(/Target folder/).fill('relative/path');
  await dialog.getByRole('button', { name: 'Restore into this folder' }).click();
  await dialog.getByText('Enter an absolute path (starting with /)').waitFor();
  await axe('restore dialog');
  const target = mkdtempSync(path.join(tmpdir(), 'studio-restore-'));
  chmodSync(target, 0o755);
  try {
    await dialog.getByLabel(/Target folder/).fill(target);
    await dialog.getByRole('button', { name: 'Restore into this folder' }).click();
    await dialog.getByRole('status').filter({ hasText: `Restored into ${target}` }).waitFor({ timeout: 180000 });
    await dialog.getByText('PostgreSQL runs on the restored folder').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
  } finally {
    await run(process.env.SERVER_BIN, ['db', 'stop'], { env: { ...process.env, DATA_DIR: target } }).catch(() => {});
    rmSync(target, { recursive: true, force: true });
  }
});

test('the audit log shows what the operator did', async () => {
  await page.getByRole('link', { name: 'Audit log' }).click();
  await page.getByRole('cell', { name: 'rows.update' }).first().waitFor();
  await page.getByRole('cell', { name: 'rows.delete' }).first().waitFor();
  await page.getByRole('cell', { name: 'backup.take' }).first().waitFor();
  await page.getByRole('cell', { name: 'backup.restore' }).first().waitFor();
  await page.screenshot({ path: path.join(docs, 'audit-log.png') });
  await axe('audit log');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
});
