// The real server on a fresh data folder with the rental project seeded, and Debian's Chromium.
// `server seed` prints the dashboard's first operator once (as `make run` shows it): the tests
// sign in with it.
import { spawn, execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, mkdirSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { after, before } from 'node:test';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const shots = path.resolve(here, '../test-results');
mkdirSync(shots, { recursive: true });

export const DEMO = { email: 'client@kinshasa-auto.test', password: 'DemoE2e2026' };

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const launchBrowser = () => chromium.launch({ executablePath: CHROMIUM, args: ARGS });

/** axe on the page as it is: no serious or critical violation. */
export async function axeClean(page, name) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')}`),
    [],
    `axe on ${name}`,
  );
}

export const shot = (page, name) => page.screenshot({ path: path.join(shots, `${name}.png`) });

/** A page of a new 1280×800 English context (`options` added to the context's), signed in at
 * `/studio` as the stack's operator, once the Tables menu shows; page errors are printed. */
export async function signedInPage(browser, stack, { options = {}, timeout = 30000 } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', ...options });
  const page = await context.newPage();
  page.setDefaultTimeout(timeout);
  page.on('pageerror', (e) => console.error('[pageerror]', e.message));
  await page.goto(`${stack.baseUrl}/studio`);
  await page.getByLabel('E-mail').fill(stack.operator.email);
  await page.getByLabel('Password').fill(stack.operator.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Tables' }).waitFor();
  return page;
}

/**
 * A test file's stack, Chromium and signed-in page: made in a `before` hook and ended in an
 * `after` hook, both registered here. `ready({ stack, page })` runs at the end of that `before`
 * (the file keeps them; its own set-up goes there too). `page` holds `signedInPage`'s options.
 */
export function signedInSuite({ project, backups, page: pageOptions, ready = () => {} } = {}) {
  let stack;
  let browser;
  before(async () => {
    stack = await startStack({ project, backups });
    browser = await launchBrowser();
    await ready({ stack, page: await signedInPage(browser, stack, pageOptions) });
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });
}

/** The dashboard's own API with the page's cookie and the session's CSRF token: the answer's JSON. */
export async function studioApi(page, stack, method, route, data) {
  const session = await (await page.request.get(`${stack.baseUrl}/studio/api/session`)).json();
  const res = await page.request.fetch(`${stack.baseUrl}/studio/api${route}`, {
    method,
    headers: { 'x-csrf-token': session.csrf_token, origin: stack.baseUrl },
    data,
  });
  return res.json();
}

/** SQL as the database owner through the dashboard's SQL endpoint: its results; an error fails the test. */
export async function ownerSql(page, stack, text) {
  const out = await studioApi(page, stack, 'POST', '/sql', { sql: text });
  assert.equal(out.error, null, JSON.stringify(out.error));
  return out.results;
}

/** The server's address, from the first line it prints once it listens (`API URL: …`). */
function listening(server, ms = 60000) {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${out}`)), ms);
    server.stdout.on('data', (d) => {
      out += d;
      const m = /API URL: (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    server.once('exit', (code) => reject(new Error(`the server exited (${code}): ${out}`)));
  });
}

/** { baseUrl, operator: {email, password}, stop() }: on the rental project, or on `project` (a
 * `supabase/` folder). Backups (WAL archiving and the first full backup at start, the server's
 * default) only with `backups`: the other files do not look at them, and each stack's backup was
 * CPU taken from the tests beside it. */
export async function startStack({ project, backups = false } = {}) {
  const bin = process.env.SERVER_BIN;
  if (!bin || !existsSync(bin)) throw new Error(`server binary not found: ${bin} (set SERVER_BIN)`);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'studio-e2e-'));
  chmodSync(dataDir, 0o755); // the embedded PostgreSQL runs as another user
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    DB_PORT: '0',
    PORT: '0',
    WEB_DIR: '/nonexistent',
    SUPABASE_PROJECT_DIR: project ?? process.env.SUPABASE_PROJECT_DIR ?? path.resolve(here, '../../web/supabase'),
    SEED_ADMIN_PASSWORD: 'AdminE2e2026',
    SEED_DEMO_PASSWORD: DEMO.password,
    RUST_LOG: 'warn',
    ...(backups ? {} : { BACKUP_ENABLED: 'false' }),
  };
  const seeded = (await run(bin, ['seed'], { env })).stdout;
  const m = /created studio operator: (\S+)\s+password: (\S+)/.exec(seeded);
  if (!m) throw new Error(`no studio operator in: ${seeded}`);
  const server = spawn(bin, [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  server.stderr.on('data', (d) => {
    log = (log + d).slice(-8000);
  });
  const baseUrl = await listening(server);
  return {
    baseUrl,
    operator: { email: m[1], password: m[2] },
    log: () => log,
    stop: async () => {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r).once('error', r));
      await run(bin, ['db', 'stop'], { env }).catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
