// The Auth → Users and API & keys screens in Chromium against the real server: create a user,
// see them sign in, ban them and see their sign-in refused, unban, delete them; the API page's
// keys (the secret only on request), the generated types and a table's supabase-js calls; axe
// on each screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { axeClean, launchBrowser, shot, startStack } from './stack.mjs';

let stack;
let browser;
let page;
let publishable;

const USER = { email: 'e2e-banned@auth.test', password: 'E2e-Passw0rd-2026' };

const axe = (name) => axeClean(page, name);

/** Sign in as the app user through /auth/v1/token, as supabase-js would: the status and code. */
async function appSignIn() {
  return page.evaluate(
    async ({ email, password, key }) => {
      const res = await fetch('/auth/v1/token?grant_type=password', {
        method: 'POST',
        headers: { apikey: key, 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
        body: JSON.stringify({ email, password }),
      });
      const body = await res.json();
      return { status: res.status, code: body.code ?? null };
    },
    { ...USER, key: publishable },
  );
}

before(async () => {
  stack = await startStack();
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.baseUrl });
  page = await context.newPage();
  page.setDefaultTimeout(15000);
  page.on('pageerror', (e) => console.error('[pageerror]', e.message));
  await page.goto(`${stack.baseUrl}/studio`);
  await page.getByLabel('E-mail').fill(stack.operator.email);
  await page.getByLabel('Password').fill(stack.operator.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
});

after(async () => {
  await browser?.close();
  await stack?.stop();
});

test('the API page shows the URL and publishable key, and the secret key only on request', async () => {
  await page.getByRole('link', { name: 'API & keys' }).click();
  const key = page.getByLabel('Publishable key', { exact: true });
  await key.waitFor();
  publishable = (await key.innerText()).trim();
  assert.match(publishable, /^sb_publishable_/);
  assert.equal((await page.getByLabel('API URL', { exact: true }).innerText()).trim(), stack.baseUrl);
  assert.equal(await page.getByText(/^sb_secret_/).count(), 0, 'the secret key is not on the page');
  await axe('API keys');
  await page.getByRole('button', { name: 'Reveal secret key' }).click();
  const secret = page.getByLabel('secret key (revealed)', { exact: true });
  assert.match((await secret.innerText()).trim(), /^sb_secret_/);
  await page.getByRole('button', { name: 'Copy secret key (revealed)' }).click();
  assert.match(await page.evaluate(() => navigator.clipboard.readText()), /^sb_secret_/);

  await page.getByRole('tab', { name: 'TypeScript types' }).click();
  const types = page.getByLabel('Generated types', { exact: true });
  await types.waitFor();
  const text = await types.innerText();
  assert.ok(text.includes('export type Database') && text.includes('vehicles: {'), 'the rental tables are typed');
  await axe('API types');

  await page.getByRole('navigation', { name: 'API pages' }).getByRole('link', { name: 'vehicles', exact: true }).click();
  const read = page.getByLabel('Read rows of vehicles', { exact: true });
  await read.waitFor();
  assert.ok((await read.innerText()).includes(".from('vehicles')"));
  assert.ok((await page.getByLabel('Listen to changes of vehicles', { exact: true }).innerText()).includes("table: 'vehicles'"));
  await shot(page, 'studio-api');
  await axe('API table page');
});

test('an operator creates a user, who can then sign in', async () => {
  await page.getByRole('link', { name: 'Users', exact: true }).click();
  await page.getByRole('heading', { name: 'Users' }).waitFor();
  await page.getByRole('button', { name: 'Create user' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('E-mail').fill(USER.email);
  await dialog.getByLabel('Password').fill(USER.password);
  await axe('create user dialog');
  await dialog.getByRole('button', { name: 'Create user' }).click();
  await page.getByRole('heading', { name: USER.email }).waitFor();
  const first = await appSignIn();
  assert.equal(first.status, 200, 'a new, confirmed user signs in');
  await page.reload();
  await page.getByRole('region', { name: 'Sessions', exact: true }).getByRole('cell', { name: 'aal1' }).waitFor();
});

test('a banned user’s sign-in is refused, and unbanning lets them back', async () => {
  await page.getByRole('button', { name: 'Ban user' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Ban for').fill('2');
  await dialog.getByLabel('Unit').selectOption('d');
  await dialog.getByRole('button', { name: 'Ban user' }).click();
  await page.getByText(/^banned until /).waitFor();
  await page.getByRole('region', { name: 'Sessions', exact: true }).getByText('None.').waitFor();
  const refused = await appSignIn();
  assert.deepEqual(refused, { status: 400, code: 'user_banned' });
  await shot(page, 'studio-auth-user');
  await axe('user page');

  await page.getByRole('button', { name: 'Unban user' }).click();
  await page.getByRole('status').filter({ hasText: 'The ban is lifted.' }).waitFor();
  assert.equal((await appSignIn()).status, 200);
});

test('the list is searched and filtered, and a user is deleted', async () => {
  await page.getByRole('link', { name: 'Users', exact: true }).click();
  const list = page.getByRole('region', { name: 'User list (scrollable)' });
  await list.getByRole('link', { name: USER.email }).waitFor();
  await page.getByLabel('Confirmed', { exact: true }).selectOption('no');
  await list.getByRole('link', { name: USER.email }).waitFor({ state: 'detached' });
  await page.getByLabel('Confirmed', { exact: true }).selectOption('any');
  await page.getByLabel('Search users by e-mail, phone or id').fill('e2e-banned');
  await list.getByRole('link', { name: USER.email }).waitFor();
  assert.equal(await list.getByRole('link').count(), 1);
  await shot(page, 'studio-auth-users');
  await axe('users list');

  await list.getByRole('link', { name: USER.email }).click();
  await page.getByRole('group', { name: 'User actions' }).getByRole('button', { name: 'Delete user' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete user' }).click();
  await page.waitForURL(/\/studio\/auth\/users$/);
  await list.getByRole('link', { name: USER.email }).waitFor({ state: 'detached' });
  assert.equal((await appSignIn()).status, 400, 'a deleted user cannot sign in');
  const audit = await page.evaluate(() => fetch('/studio/api/audit').then((r) => r.json()));
  const actions = audit.entries.map((e) => e.action);
  for (const a of ['auth.users.create', 'auth.users.ban', 'auth.users.unban', 'auth.users.delete', 'keys.reveal']) {
    assert.ok(actions.includes(a), `${a} audited: ${actions.join(', ')}`);
  }
});
