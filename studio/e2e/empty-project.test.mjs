// Every screen of the dashboard on an empty project: a `supabase/` folder with only its
// config.toml (no migration, no seed, no function, no bucket), as `supabase init` leaves one.
// Each screen must load without an error, end its loading, and pass axe.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { axeClean, signedInSuite } from './stack.mjs';

const SCREENS = [
  ['/tables', 'table editor'],
  ['/tables/public?new', 'new table'],
  ['/sql', 'SQL editor'],
  ['/storage', 'storage'],
  ['/storage-keys', 'S3 keys'],
  ['/policies/public', 'policies'],
  ['/auth/users', 'users'],
  ['/auth/settings', 'auth settings'],
  ['/auth/templates', 'mail templates'],
  ['/auth/signing-keys', 'signing keys'],
  ['/api-docs', 'API & keys'],
  ['/realtime', 'realtime'],
  ['/functions', 'functions'],
  ['/functions-secrets', 'function secrets'],
  ['/audit', 'audit log'],
  ['/database/backups', 'backups'],
  ['/database/roles', 'roles'],
  ['/database/extensions', 'extensions'],
  ['/database/migrations', 'migrations'],
  ['/database/table-sizes', 'table sizes'],
  ['/database/indexes', 'indexes'],
  ['/logs/requests', 'request log'],
  ['/logs/postgres', 'Postgres log'],
  ['/logs/auth', 'auth log'],
  ['/reports', 'reports'],
  ['/account', 'account'],
];

const folder = mkdtempSync(path.join(tmpdir(), 'studio-empty-'));
mkdirSync(path.join(folder, 'supabase'));
writeFileSync(path.join(folder, 'supabase', 'config.toml'), 'project_id = "empty"\n');
let stack;
let page;
signedInSuite({ project: path.join(folder, 'supabase'), backups: true, ready: (s) => ({ stack, page } = s) });
after(() => rmSync(folder, { recursive: true, force: true }));

for (const [route, name] of SCREENS) {
  test(`on an empty project, ${name} (${route}) loads without an error and passes axe`, async () => {
    const failed = [];
    const watch = (res) => {
      if (res.url().includes('/studio/api/') && res.status() >= 500) failed.push(`${res.status()} ${res.url()}`);
    };
    page.on('response', watch);
    try {
      await page.goto(`${stack.baseUrl}/studio${route}`);
      await page.getByRole('main').waitFor();
      // Loading ends: no "Loading…" status is left.
      await page.waitForFunction(
        () => ![...document.querySelectorAll('[role=status]')].some((el) => /Loading/.test(el.textContent ?? '')),
        undefined,
        { timeout: 20000 },
      );
      const alerts = await page.getByRole('alert').allInnerTexts();
      assert.deepEqual(alerts.filter((t) => t.trim() !== ''), [], `no error shown on ${name}`);
      assert.deepEqual(failed, [], `no 5xx from the dashboard's API on ${name}`);
      await axeClean(page, `${name} on an empty project`);
    } finally {
      page.off('response', watch);
    }
  });
}
