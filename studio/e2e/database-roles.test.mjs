// Database › Roles' forms and extension updates in Chromium against the real server: a login
// role created with a password (its SQL shown first, the password hidden), listed with its
// attributes, granted membership in `authenticated` (which Postgres then reports), refused for
// the platform's roles, and dropped; pg_trgm installed at 1.5 offered its update, updated with
// the SQL shown first. Every write in the audit log, without the password. axe on each form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { axeClean, ownerSql, signedInSuite } from './stack.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const docs = path.resolve(here, '../../docs/studio');

let stack;
let page;
signedInSuite({ ready: (s) => ({ stack, page } = s) });

const axe = (name) => axeClean(page, name);
const sql = (text) => ownerSql(page, stack, text);
const one = async (text) => (await sql(text))[0].rows[0][0];

test('a login role is created, granted membership in authenticated, listed with its attributes and dropped', async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Database' }).click();
  await page.getByRole('heading', { name: 'Database › Roles' }).waitFor();
  // The platform's roles offer no form.
  await page.getByTestId('role-anon').getByText("not editable: one of the platform's roles").waitFor();
  assert.equal(await page.getByTestId('role-anon').getByRole('button').count(), 0);

  await page.getByRole('button', { name: 'New role' }).click();
  const create = page.getByRole('dialog', { name: 'New role' });
  await create.getByRole('textbox', { name: 'Name' }).fill('e2e_reporter');
  await create.getByLabel('Password (optional)').fill('E2e-secret-pw');
  await create.getByLabel('Connection limit (-1: none)').fill('4');
  await create
    .getByTestId('role-sql')
    .getByText(`create role "e2e_reporter" with login inherit nocreatedb nocreaterole nobypassrls connection limit 4 password '********';`)
    .waitFor();
  await axe('database: new role');
  await page.screenshot({ path: path.join(docs, 'database-roles-create.png') });
  assert.equal(await one("select count(*) from pg_roles where rolname = 'e2e_reporter'"), '0', 'nothing ran yet');
  await create.getByRole('button', { name: 'Run SQL' }).click();
  const row = page.getByTestId('role-e2e_reporter');
  await row.getByText('can log in').waitFor();
  assert.match(await row.textContent(), /e2e_reporter.*can log in.*—.*4/);

  await row.getByRole('button', { name: 'Membership e2e_reporter' }).click();
  const grant = page.getByRole('dialog', { name: 'Membership of e2e_reporter' });
  await grant.getByRole('combobox', { name: 'Role' }).selectOption('authenticated');
  await grant.getByTestId('role-sql').getByText('grant "authenticated" to "e2e_reporter";').waitFor();
  await axe('database: role membership');
  await grant.getByRole('button', { name: 'Run SQL' }).click();
  await row.getByRole('cell', { name: 'authenticated', exact: true }).waitFor();
  assert.equal(await one("select pg_has_role('e2e_reporter', 'authenticated', 'member')"), 't');

  await row.getByRole('button', { name: 'Drop e2e_reporter' }).click();
  const drop = page.getByRole('dialog', { name: 'Drop role e2e_reporter' });
  await drop.getByTestId('role-sql').getByText('drop role "e2e_reporter";').waitFor();
  await axe('database: drop a role');
  await drop.getByRole('button', { name: 'Run SQL' }).click();
  await row.waitFor({ state: 'detached' });
  assert.equal(await one("select count(*) from pg_roles where rolname = 'e2e_reporter'"), '0');

  const audit = await sql("select action, target, detail::text from _studio.audit_log where action like 'role.%' order by id");
  assert.deepEqual(
    audit[0].rows.map((r) => [r[0], r[1]]),
    [['role.create', 'e2e_reporter'], ['role.grant', 'e2e_reporter'], ['role.drop', 'e2e_reporter']],
  );
  assert.match(audit[0].rows[0][2], /"password": "set"/);
  assert.doesNotMatch(JSON.stringify(audit[0].rows), /E2e-secret-pw|SCRAM/);
});

test('an extension installed at an older version is offered its update and updated with the SQL shown first', async () => {
  await sql("create extension pg_trgm with schema extensions version '1.5'");
  await page.getByRole('navigation', { name: 'Database' }).getByRole('link', { name: 'Extensions' }).click();
  await page.getByLabel('Search extensions').fill('pg_trgm');
  const row = page.getByTestId('extension-pg_trgm');
  await row.getByText('update: 1.6').waitFor();
  await row.getByRole('button', { name: 'Update pg_trgm' }).click();
  const dialog = page.getByRole('dialog', { name: 'Update pg_trgm' });
  await dialog.getByText('1.6 (the default version)').waitFor({ state: 'attached' });
  await dialog.getByTestId('extension-sql').getByText('alter extension "pg_trgm" update;').waitFor();
  await axe('database: update an extension');
  assert.equal(await one("select extversion from pg_extension where extname = 'pg_trgm'"), '1.5');
  await dialog.getByRole('button', { name: 'Run SQL' }).click();
  await row.getByRole('button', { name: 'Update pg_trgm' }).waitFor({ state: 'detached' });
  assert.match(await row.textContent(), /1\.6/);
  assert.equal(await one("select extversion from pg_extension where extname = 'pg_trgm'"), '1.6');
  assert.equal(await one("select target from _studio.audit_log where action = 'extension.update'"), 'pg_trgm');
});
