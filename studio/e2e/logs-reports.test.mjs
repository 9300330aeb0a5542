// The logs and reports screens in Chromium against the real server (embedded Postgres, the
// rental data): a REST request with a known x-request-id is found in the log explorer by that id
// and its detail opened; the live tail shows a request made after it was switched on; the
// Postgres log shows the embedded cluster's lines; the auth audit tab lists; the reports' request
// chart counts a burst of requests and the sampled history (sampled every second here) charts
// the database connections, cache hit ratio, storage and realtime. axe on each screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { axeClean, launchBrowser, signedInPage, startStack } from './stack.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const docs = path.resolve(here, '../../docs/studio');

let stack;
let browser;
let page;
let anonKey;

const axe = (name) => axeClean(page, name);

/** A REST request as an app would send it (the anon key), with the given request id. */
async function rest(pathAndQuery, requestId) {
  const headers = { apikey: anonKey };
  if (requestId) headers['x-request-id'] = requestId;
  const res = await fetch(`${stack.baseUrl}/rest/v1${pathAndQuery}`, { headers });
  await res.arrayBuffer();
  return res;
}

before(async () => {
  // The server inherits this: a sample of the database, storage and realtime figures every second.
  process.env.REPORTS_SAMPLE_SECS = '1';
  stack = await startStack();
  browser = await launchBrowser();
  page = await signedInPage(browser, stack);
  anonKey = (await (await page.request.get(`${stack.baseUrl}/studio/api/project/api`)).json()).anon_key;
  assert.ok(anonKey, 'the anon key');
});

after(async () => {
  await browser?.close();
  await stack?.stop();
});

test('a REST request is found in the log explorer by its request id and its detail shown', async () => {
  const res = await rest('/vehicles?select=id&limit=1', 'e2e-known-request-1');
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-request-id'), 'e2e-known-request-1');
  // and one whose id the server chose, read from the response's header
  const chosen = (await rest('/vehicles?select=id&limit=2')).headers.get('x-request-id');
  assert.match(chosen, /^[0-9a-f-]{36}$/);

  await page.getByRole('link', { name: 'Logs', exact: true }).click();
  await page.getByRole('heading', { name: 'Logs' }).waitFor();
  await page.getByRole('textbox', { name: 'Request id' }).fill('e2e-known-request-1');
  await page.getByRole('button', { name: 'Apply' }).click();
  const table = page.getByRole('region', { name: 'Requests (scrollable)' });
  // The writer flushes every second: refresh until the row is there.
  for (let i = 0; i < 20 && (await table.getByText('e2e-known-request-1').count()) === 0; i++) {
    await page.waitForTimeout(500);
    await page.getByRole('button', { name: 'Refresh' }).click();
  }
  await table.getByText('e2e-known-request-1').waitFor();
  assert.equal(await table.getByRole('button', { name: /^Show / }).count(), 1, 'only the request with that id');
  const row = table.getByRole('button', { name: 'Show GET /rest/v1/vehicles (200)' });
  await row.click();
  const detail = page.getByRole('region', { name: 'Request', exact: true });
  await detail.getByText('e2e-known-request-1').first().waitFor();
  await detail.getByText('/rest/v1/{table}').waitFor();
  await detail.getByText('anon', { exact: true }).waitFor();
  await axe('logs: a request');
  await page.screenshot({ path: path.join(docs, 'logs.png') });

  await page.getByRole('textbox', { name: 'Request id' }).fill(chosen);
  await page.getByRole('button', { name: 'Apply' }).click();
  await table.getByText(chosen).waitFor();
  assert.equal(await table.getByRole('button', { name: /^Show / }).count(), 1, 'only the request with the id the server chose');
});

test('bad filters are refused before they are sent', async () => {
  await page.getByLabel('User id').fill('not-a-uuid');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByRole('alert').getByText('A user id is a UUID').waitFor();
  await page.getByRole('button', { name: 'Clear' }).click();
});

test('the live tail shows a request made after it was switched on', async () => {
  await page.getByLabel('Surface').selectOption('rest');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByLabel('Live tail (every 2 s)').check();
  await rest('/vehicles?select=id&limit=3', 'e2e-tail-1');
  await page.getByRole('region', { name: 'Requests (scrollable)' }).getByText('e2e-tail-1').waitFor();
  await page.getByLabel('Live tail (every 2 s)').uncheck();
});

test('the Postgres log shows the embedded cluster and filters by level', async () => {
  await page.getByRole('link', { name: 'Postgres' }).click();
  const lines = page.getByRole('region', { name: 'Postgres log lines, newest first (scrollable)' });
  await lines.waitFor();
  assert.ok((await lines.getByRole('listitem').count()) > 0, 'some lines');
  await page.getByLabel('Level').selectOption('error');
  await page.getByLabel('Text contains').fill('no-such-text-in-the-log');
  await page.getByText('No line matches.').waitFor();
  await axe('logs: postgres');
});

test('the auth audit log lists sign-ins', async () => {
  await page.getByRole('link', { name: 'Auth audit' }).click();
  await page.getByRole('region', { name: 'Auth audit entries (scrollable)' }).waitFor();
  await axe('logs: auth audit');
});

test('the reports count a burst of requests in the request chart', async () => {
  await page.getByRole('link', { name: 'Reports' }).click();
  await page.getByRole('button', { name: '15 min' }).click();
  const summary = page.getByRole('figure').filter({ hasText: 'Requests per second by surface' }).getByTestId('chart-summary');
  await summary.waitFor();
  const count = async () => Number((/^([\d,]+) requests/.exec(await summary.innerText()) ?? [])[1]?.replaceAll(',', '') ?? NaN);
  const before = await count();
  assert.ok(Number.isFinite(before), await summary.innerText());
  for (let i = 0; i < 20; i++) assert.equal((await rest('/vehicles?select=id&limit=1')).status, 200);
  // The report is fetched again every 5 s for this period: wait until it counts the burst.
  await page.waitForFunction(
    ([el, n]) => Number((/^([\d,]+) requests/.exec(el.textContent ?? '') ?? [])[1]?.replaceAll(',', '') ?? 0) >= n,
    [await summary.elementHandle(), before + 20],
    { timeout: 30000 },
  );
  assert.ok((await count()) >= before + 20);
  await page.getByText('Database connections').first().waitFor();
  // The sampled history: a connection count in the last bucket, and the other three charts.
  const history = (title) => page.getByRole('figure').filter({ hasText: title }).getByTestId('chart-summary');
  await page.waitForFunction((el) => /on average in the last bucket, sampled every 1 s/.test(el.textContent ?? ''), await history('Database connections by state').elementHandle(), {
    timeout: 30000,
  });
  assert.match(await history('Cache hit ratio').innerText(), /^\d+\.\d+ % in the last bucket/);
  assert.match(await history('Storage used per bucket').innerText(), /in the last bucket$/);
  assert.match(await history('Realtime connections').innerText(), /^\d+\.\d sockets on average/);
  await page.getByRole('heading', { name: /Slowest statements/ }).waitFor();
  await axe('reports');
  await page.screenshot({ path: path.join(docs, 'reports.png'), fullPage: true });
});
