// The realtime inspector's Postgres-changes filter in Chromium against the real server: joined
// on one table with `id=eq.2` (then `id=in.(1,3)`), only the matching row's change appears in
// the inspector though every row of the table changes. axe on the form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { axeClean, ownerSql, signedInSuite } from './stack.mjs';

let stack;
let page;
signedInSuite({ ready: (s) => ({ stack, page } = s) });

const sql = (text) => ownerSql(page, stack, text);

const changes = () => page.locator('[data-testid="inspector-message"][data-kind="postgres_changes"]');

/** Joins the e2e table's changes with a filter, updates every row, and answers the notes seen. */
async function joinAndUpdateAll(op, value, marker) {
  await page.getByRole('combobox', { name: 'Table', exact: true }).selectOption('public.e2e_filtered');
  await page.getByRole('combobox', { name: 'Event' }).selectOption('UPDATE');
  await page.getByRole('textbox', { name: 'Filter column' }).fill('id');
  await page.getByRole('combobox', { name: 'Operator' }).selectOption(op);
  await page.getByRole('textbox', { name: 'Filter value' }).fill(value);
  await page.getByRole('button', { name: 'Join' }).click();
  await page.getByTestId('inspector-status').getByText('Joined').waitFor();
  // The server says when the listener is in place (the system message), before any update.
  await page.locator('[data-testid="inspector-message"][data-kind="system"]').filter({ hasText: 'Subscribed to PostgreSQL' }).waitFor();
  // Each row updated on its own, then a last marker row (id 3) the filter lets through or not.
  for (const id of [1, 2, 3, 4]) await sql(`update public.e2e_filtered set note = '${marker}-${id}' where id = ${id}`);
}

test('with a filter only the matching row\'s change appears in the inspector', async () => {
  await sql(
    'create table public.e2e_filtered (id int primary key, note text); ' +
      "insert into public.e2e_filtered values (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'); " +
      'grant select on public.e2e_filtered to anon; ' +
      'alter publication supabase_realtime add table public.e2e_filtered',
  );
  await page.getByRole('link', { name: 'Realtime' }).click();
  await page.getByRole('heading', { name: 'Realtime › Inspector' }).waitFor();
  await page.getByRole('table', { name: 'Tables in the publication' }).getByText('public.e2e_filtered').waitFor();
  await page.getByRole('textbox', { name: 'Channel' }).fill('e2e-filter');

  await joinAndUpdateAll('eq', '2', 'eq');
  await changes().filter({ hasText: 'eq-2' }).waitFor();
  // The changes of rows 1, 3 and 4 were committed before and after row 2's: wait for a later
  // one to have had time to arrive (a broadcast sent after them comes back), then count.
  await page.getByRole('textbox', { name: 'Event', exact: true }).fill('after-updates');
  await page.getByRole('button', { name: 'Send broadcast' }).click();
  await page.getByTestId('inspector-message').filter({ hasText: 'after-updates' }).waitFor();
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(await changes().count(), 1, 'only the change of row 2 appears');
  assert.match(await changes().first().textContent(), /UPDATE public\.e2e_filtered/);
  await axeClean(page, 'realtime inspector with a filter');

  await page.getByRole('button', { name: 'Leave' }).click();
  await page.getByTestId('inspector-status').getByText('Left').waitFor();
  await page.getByRole('button', { name: 'Clear' }).click();

  await joinAndUpdateAll('in', '1, 3', 'in');
  await changes().filter({ hasText: 'in-3' }).waitFor();
  await new Promise((r) => setTimeout(r, 1000));
  const seen = await changes().evaluateAll((rows) => rows.map((r) => r.textContent.match(/in-\d/)?.[0]).sort());
  assert.deepEqual(seen, ['in-1', 'in-3']);
  await page.getByRole('button', { name: 'Leave' }).click();

  // A filter on every table is not offered, and a malformed one is refused by the form.
  await page.getByRole('combobox', { name: 'Table', exact: true }).selectOption('public.*');
  assert.equal(await page.getByRole('textbox', { name: 'Filter column' }).count(), 0);
  await page.getByRole('combobox', { name: 'Table', exact: true }).selectOption('public.e2e_filtered');
  await page.getByRole('combobox', { name: 'Operator' }).selectOption('eq');
  await page.getByRole('textbox', { name: 'Filter value' }).fill('1,2');
  await page.getByRole('button', { name: 'Join' }).click();
  await page.getByText('A value cannot hold a comma (use in for several values)').waitFor();
});
