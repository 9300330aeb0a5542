// The Database section and the SQL editor's extras in Chromium against the real server and the
// rental data: roles with their memberships, an extension enabled with its SQL shown first and
// then listed as installed (and disabled), the applied migrations, a table's size, an unused
// index and an unindexed foreign key with their suggested SQL; an EXPLAIN ANALYZE plan drawn as
// a tree with its costly node marked; a snippet saved with Ctrl+S, reopened after a reload,
// renamed and deleted. axe on each screen; screenshots into docs/studio/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { axeClean, launchBrowser, ownerSql, signedInPage, startStack } from './stack.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const docs = path.resolve(here, '../../docs/studio');

let stack;
let browser;
let page;

/** Waits until the SQL editor's text holds `text`. */
const editorHas = (text) => page.waitForFunction((t) => document.querySelector('.cm-content')?.textContent.includes(t), text);

const axe = (name) => axeClean(page, name);

const sql = (text) => ownerSql(page, stack, text);

before(async () => {
  stack = await startStack();
  browser = await launchBrowser();
  page = await signedInPage(browser, stack);
});

after(async () => {
  await browser?.close();
  await stack?.stop();
});

test('roles are listed with their attributes and memberships', async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Database' }).click();
  await page.getByRole('heading', { name: 'Database › Roles' }).waitFor();
  const authenticator = page.getByTestId('role-authenticator');
  await authenticator.getByText('can log in').waitFor();
  assert.match(await authenticator.textContent(), /anon.*authenticated/);
  await page.getByTestId('role-service_role').getByText('bypasses RLS').waitFor();
  assert.equal(await page.getByTestId('role-pg_monitor').count(), 0, "Postgres's roles are hidden by default");
  await page.getByLabel("Show Postgres's pg_* roles").check();
  await page.getByTestId('role-pg_monitor').waitFor();
  await axe('database: roles');
  await page.screenshot({ path: path.join(docs, 'database-roles.png') });
});

test('an extension is enabled with its SQL shown first, listed as installed, then disabled', async () => {
  await page.getByRole('navigation', { name: 'Database' }).getByRole('link', { name: 'Extensions' }).click();
  await page.getByRole('heading', { name: 'Database › Extensions' }).waitFor();
  await page.getByLabel('Search extensions').fill('citext');
  const row = page.getByTestId('extension-citext');
  await row.getByRole('button', { name: 'Enable citext' }).click();
  const dialog = page.getByRole('dialog', { name: 'Enable citext' });
  await dialog.getByTestId('extension-sql').getByText('create extension if not exists "citext" schema "extensions";').waitFor();
  await axe('database: enable an extension');
  // Nothing ran yet.
  assert.equal((await sql("select count(*) from pg_extension where extname = 'citext'"))[0].rows[0][0], '0');
  await dialog.getByRole('button', { name: 'Run SQL' }).click();
  await row.getByRole('button', { name: 'Disable citext' }).waitFor();
  assert.match(await row.textContent(), /extensions/);
  assert.equal((await sql("select extensions.citext_eq('A', 'a')"))[0].rows[0][0], 't');
  await page.getByLabel('Search extensions').fill('');
  await page.getByRole('button', { name: /^Installed/ }).click();
  await row.waitFor();
  await axe('database: extensions');
  await page.screenshot({ path: path.join(docs, 'database-extensions.png') });
  await row.getByRole('button', { name: 'Disable citext' }).click();
  const off = page.getByRole('dialog', { name: 'Disable citext' });
  await off.getByTestId('extension-sql').getByText('drop extension if exists "citext";').waitFor();
  await off.getByRole('button', { name: 'Run SQL' }).click();
  await row.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'All', exact: false }).first().click();
  const audit = await sql("select action, target from _studio.audit_log where action like 'extension.%' order by id");
  assert.deepEqual(audit[0].rows, [['extension.enable', 'citext'], ['extension.disable', 'citext']]);
});

test('the applied migrations of the project and of the platform are listed', async () => {
  await page.getByRole('navigation', { name: 'Database' }).getByRole('link', { name: 'Migrations' }).click();
  const project = page.getByRole('region', { name: 'Migrations (scrollable)' }).locator('section').first();
  await project.getByRole('heading', { name: /^Project \(\d+\)/ }).waitFor();
  const applied = await sql('select count(*) from supabase_migrations.schema_migrations');
  await project.getByRole('heading', { name: new RegExp(`^Project \\(${applied[0].rows[0][0]}\\)`) }).waitFor();
  await page.getByRole('cell', { name: 'V98' }).waitFor();
  await page.getByRole('cell', { name: 'studio snippets' }).waitFor();
  await page.screenshot({ path: path.join(docs, 'database-migrations.png') });
  await axe('database: migrations');
});

test("a table's size is shown and sorts, and index hints come with their SQL", async () => {
  await sql(
    `create table public.e2e_parents (id int primary key);
     create table public.e2e_kids (id int primary key, parent int references public.e2e_parents, body text);
     insert into public.e2e_parents select generate_series(1, 10);
     insert into public.e2e_kids select i, 1 + i % 10, repeat('x', 500) || i from generate_series(1, 5000) i;
     create index e2e_kids_body_idx on public.e2e_kids (body);
     analyze public.e2e_kids`,
  );
  await page.getByRole('navigation', { name: 'Database' }).getByRole('link', { name: 'Table sizes' }).click();
  const kids = page.getByTestId('size-public.e2e_kids');
  await kids.waitFor();
  assert.match(await kids.textContent(), /e2e_kids.*(kB|MB).*5,000/);
  // Sorted by rows, largest first: e2e_kids (5,000) above e2e_parents (10).
  await page.getByRole('button', { name: 'Rows (est.)' }).click();
  await page.getByRole('columnheader', { name: 'Rows (est.)' }).and(page.locator('[aria-sort="descending"]')).waitFor();
  const order = await page.locator('[data-testid^="size-public.e2e_"]').evaluateAll((rows) => rows.map((r) => r.dataset.testid));
  assert.deepEqual(order, ['size-public.e2e_kids', 'size-public.e2e_parents']);
  await axe('database: table sizes');
  await page.screenshot({ path: path.join(docs, 'database-table-sizes.png') });

  await page.getByRole('navigation', { name: 'Database' }).getByRole('link', { name: 'Indexes' }).click();
  await page.getByTestId('unused-e2e_kids_body_idx').getByText('drop index concurrently if exists "public"."e2e_kids_body_idx";').waitFor();
  await page.getByText('create index concurrently if not exists "e2e_kids_parent_idx" on "public"."e2e_kids" ("parent");').waitFor();
  await axe('database: indexes');
  await page.screenshot({ path: path.join(docs, 'database-indexes.png') });
});

test('EXPLAIN ANALYZE is drawn as a tree with the costly node marked, and nothing is written', async () => {
  await page.getByRole('link', { name: 'SQL editor' }).click();
  const editor = page.getByRole('textbox', { name: 'SQL' });
  await editor.waitFor();
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText('delete from public.e2e_kids where body like \'%9\'');
  await page.getByRole('button', { name: /^Explain/ }).click();
  const plan = page.getByRole('region', { name: 'Query plan' });
  await plan.getByText(/execution .* ms/).waitFor();
  const nodes = page.getByTestId('plan-node');
  assert.ok((await nodes.count()) >= 2, 'a ModifyTable over a scan');
  await nodes.first().getByText('Delete', { exact: true }).waitFor();
  await plan.getByText('on e2e_kids').first().waitFor();
  await plan.getByText(/rows 500 of/).waitFor();
  assert.ok((await page.locator('[data-testid="plan-node"][data-costly]').count()) >= 1, 'a costly node is marked');
  await plan.getByText('costly').first().waitFor();
  assert.equal((await sql('select count(*) from public.e2e_kids'))[0].rows[0][0], '5000', 'ANALYZE ran and was rolled back');
  await axe('sql: plan');
  await page.screenshot({ path: path.join(docs, 'sql-explain.png') });
});

test('a snippet is saved with Ctrl+S, reopened after a reload, renamed and deleted', async () => {
  const editor = page.getByRole('textbox', { name: 'SQL' });
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText('select id, body from public.e2e_kids order by id limit 5');
  await page.keyboard.press('Control+s');
  const dialog = page.getByRole('dialog', { name: 'Save as a snippet' });
  await dialog.getByRole('button', { name: 'Save snippet' }).click();
  await dialog.getByText('Give the snippet a name').waitFor();
  await axe('sql: save a snippet');
  await dialog.getByLabel('Name').fill('First kids');
  await dialog.getByRole('button', { name: 'Save snippet' }).click();
  await page.getByText('Saved “First kids”.').waitFor();
  assert.match(page.url(), /\/studio\/sql\?snippet=/);

  await page.reload();
  await editorHas('select id, body from public.e2e_kids order by id limit 5');
  assert.equal(await page.getByLabel('Snippets').locator('option:checked').textContent(), 'First kids');

  // Changed, then saved into the same snippet with Ctrl+S (no dialog).
  await page.getByRole('textbox', { name: 'SQL' }).click();
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText(' offset 1');
  await page.getByRole('button', { name: /^Save\*/ }).waitFor();
  await page.keyboard.press('Control+s');
  await page.getByText('Saved “First kids”.').waitFor();
  const stored = await sql('select name, sql from _studio.snippets');
  assert.deepEqual(stored[0].rows, [['First kids', 'select id, body from public.e2e_kids order by id limit 5 offset 1']]);

  await page.getByRole('button', { name: 'Rename' }).click();
  const rename = page.getByRole('dialog', { name: 'Rename “First kids”' });
  await rename.getByLabel('Name').fill('Kids, second page');
  await rename.getByRole('button', { name: 'Rename' }).click();
  await page.getByLabel('Snippets').locator('option', { hasText: 'Kids, second page' }).waitFor({ state: 'attached' });
  await axe('sql: snippets');
  await page.screenshot({ path: path.join(docs, 'sql-snippets.png') });

  // A new query, then the saved one opened from the list.
  await page.getByLabel('Snippets').selectOption({ label: 'New query (no snippet)' });
  await page.getByLabel('Snippets').selectOption({ label: 'Kids, second page' });
  await editorHas('offset 1');

  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('dialog', { name: 'Delete “Kids, second page”?' }).getByRole('button', { name: 'Delete snippet' }).click();
  await page.getByLabel('Snippets').locator('option', { hasText: 'Snippets (0)' }).waitFor({ state: 'attached' });
  assert.equal((await sql('select count(*) from _studio.snippets'))[0].rows[0][0], '0');
});
