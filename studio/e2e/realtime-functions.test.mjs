// The realtime inspector and the functions screens in Chromium against the real server (and real
// Deno): join a channel as anon, watch a broadcast sent by the test through the REST endpoint
// arrive, see a Postgres change after an insert, send a broadcast from the page, filter, pause
// and clear; then create a function from the template, deploy it, set a secret it reads, invoke
// it as anon and see its answer and its log line, and delete it. axe on each screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { axeClean, launchBrowser, ownerSql, signedInPage, startStack, studioApi as studioApiOf } from './stack.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const docs = path.resolve(here, '../../docs/studio');

// The invocation counts come from the metrics, recorded when /metrics is on.
process.env.METRICS_TOKEN = 'studio-e2e-metrics-token';

let stack;
let browser;
let page;

const axe = (name) => axeClean(page, name);

const studioApi = (method, route, data) => studioApiOf(page, stack, method, route, data);

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

test('the inspector shows a broadcast sent by the test and a Postgres change after an insert', async () => {
  await sql(
    'create table public.e2e_pings (id int generated always as identity primary key, note text); ' +
      'grant select on public.e2e_pings to anon; ' +
      'alter publication supabase_realtime add table public.e2e_pings',
  );
  await page.getByRole('link', { name: 'Realtime' }).click();
  await page.getByRole('heading', { name: 'Realtime › Inspector' }).waitFor();
  await page.getByRole('table', { name: 'Tables in the publication' }).getByText('public.e2e_pings').waitFor();
  await page.getByRole('textbox', { name: 'Channel' }).fill('e2e-room');
  await page.getByRole('combobox', { name: 'Table', exact: true }).selectOption('public.e2e_pings');
  await page.getByRole('button', { name: 'Join' }).click();
  await page.getByTestId('inspector-status').getByText('Joined').waitFor();
  await page.getByTestId('this-instance').getByRole('cell', { name: '1', exact: true }).first().waitFor();
  await page.getByRole('list', { name: 'Topics on this instance' }).getByText('e2e-room').waitFor();

  // A broadcast from the test, through the REST endpoint with the publishable key.
  const { publishable_key: apikey } = await studioApi('GET', '/project/api');
  const sent = await fetch(`${stack.baseUrl}/realtime/v1/api/broadcast`, {
    method: 'POST',
    headers: { apikey, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ topic: 'e2e-room', event: 'from-test', payload: { n: 42 } }] }),
  });
  assert.equal(sent.status, 202);
  const fromTest = page.getByTestId('inspector-message').filter({ hasText: 'from-test' });
  await fromTest.waitFor();
  await fromTest.getByRole('button').click();
  await page.getByTestId('inspector-payload').getByText('"n": 42').waitFor();

  // A Postgres change after an insert.
  await sql("insert into public.e2e_pings (note) values ('hello from e2e')");
  const change = page.locator('[data-testid="inspector-message"][data-kind="postgres_changes"]').filter({ hasText: 'INSERT public.e2e_pings' });
  await change.waitFor();
  assert.match(await change.textContent(), /hello from e2e/);

  // A broadcast from the page comes back (own broadcasts received).
  await page.getByRole('textbox', { name: 'Event', exact: true }).fill('from-page');
  await page.getByRole('button', { name: 'Send broadcast' }).click();
  await page.getByTestId('inspector-message').filter({ hasText: 'from-page' }).waitFor();
  await axe('realtime inspector');
  await page.screenshot({ path: path.join(docs, 'realtime.png') });

  // Filter, pause, clear.
  await page.getByLabel('Filter messages').fill('from-test');
  await page.getByRole('heading', { name: /Messages \(1 of \d+\)/ }).waitFor();
  await page.getByLabel('Filter messages').fill('');
  await page.getByRole('button', { name: 'Pause' }).click();
  await page.getByText('Paused: new messages are not collected.').waitFor();
  await page.getByRole('button', { name: 'Resume' }).click();
  await page.getByRole('button', { name: 'Clear' }).click();
  await page.getByText('No message yet.', { exact: false }).waitFor();
  await page.getByRole('button', { name: 'Leave' }).click();
  await page.getByTestId('inspector-status').getByText('Left').waitFor();
});

const SOURCE = `Deno.serve(async (req: Request) => {
  const { name } = await req.json();
  console.log("e2e-hello called for " + name);
  return Response.json({ message: (Deno.env.get("E2E_GREETING") ?? "Hello") + " " + name });
});
`;

test('a function is created, deployed, given a secret it reads, invoked, logged and deleted', async () => {
  await page.getByRole('link', { name: 'Functions' }).click();
  await page.getByRole('heading', { name: 'Edge Functions' }).waitFor();
  await page.getByRole('button', { name: 'New' }).click();
  await page.getByLabel('Name (its URL is /functions/v1/<name>)').fill('e2e-hello');
  await page.getByRole('button', { name: 'Create' }).click();
  await page.getByText('Not deployed yet').waitFor();
  const editor = page.getByRole('textbox', { name: 'Source of index.ts' });
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(SOURCE);
  await page.getByRole('button', { name: 'Deploy' }).click();
  await page.getByText('Deployed version 1.').waitFor({ timeout: 60000 });
  await page.getByRole('navigation', { name: 'Functions' }).getByRole('link', { name: /e2e-hello/ }).getByText('v1').waitFor();
  // The editor is mounted afresh with the deployed version; the confirmation outlives that.
  await page.getByTestId('deployed-version').getByText(/^Version 1, deployed/).waitFor();
  assert.ok(await page.getByText('Deployed version 1.').isVisible(), 'the deploy confirmation is still shown once the deployed version is loaded');

  // A secret, listed by name only.
  await page.getByRole('link', { name: 'Secrets' }).click();
  await page.getByLabel('Name').fill('E2E_GREETING');
  await page.getByLabel('Value').fill('Bonjour');
  await page.getByRole('button', { name: 'Set secret' }).click();
  await page.getByRole('table', { name: 'Secrets' }).getByRole('cell', { name: 'E2E_GREETING', exact: true }).waitFor();
  assert.ok(!(await page.content()).includes('Bonjour'), 'the value is not shown');
  await axe('function secrets');

  // Invoke as anon through the studio backend: the answer, then its log line.
  await page.getByRole('link', { name: 'Functions', exact: true }).first().click();
  await page.getByRole('navigation', { name: 'Functions' }).getByRole('link', { name: /e2e-hello/ }).click();
  await page.getByLabel('Body').fill('{"name": "Studio"}');
  await page.getByRole('button', { name: 'Invoke', exact: true }).click();
  const answer = page.getByTestId('invoke-answer');
  await answer.getByText('200').waitFor({ timeout: 60000 });
  await page.getByTestId('invoke-body').getByText('"message": "Bonjour Studio"').waitFor();
  await page.getByTestId('log-line').filter({ hasText: 'e2e-hello called for Studio' }).waitFor({ timeout: 30000 });
  await page.getByRole('navigation', { name: 'Functions' }).getByText(/1 call/).waitFor();
  await axe('functions');
  await page.screenshot({ path: path.join(docs, 'functions.png'), fullPage: true });

  // Delete.
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('button', { name: 'Delete function' }).click();
  await page.getByText('Choose a function, or create one.').waitFor();
  await page.getByRole('navigation', { name: 'Functions' }).getByRole('link', { name: /e2e-hello/ }).waitFor({ state: 'detached' });
  const gone = await fetch(`${stack.baseUrl}/functions/v1/e2e-hello`, { method: 'POST' });
  assert.equal(gone.status, 404);
});
