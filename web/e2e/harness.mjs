// Starts the real server on a fresh data directory (seeded), and the built site in front of it.
import { spawn, execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, mkdirSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { startStaticServer } from './static-server.mjs';

const run = promisify(execFile);

export const SEED = { adminPassword: 'AdminE2e2026', demoPassword: 'DemoE2e2026' };

const here = path.dirname(fileURLToPath(import.meta.url));
/** The built site (web/dist) and where screenshots go (web/test-results). */
export const webDir = path.resolve(here, '../dist');
const shots = path.resolve(here, '../test-results');
mkdirSync(shots, { recursive: true });
if (!existsSync(path.join(webDir, 'index.html'))) throw new Error('web/dist is missing: run `npm run build` first');

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Debian's Chromium (never a downloaded browser). */
export const launchBrowser = () => chromium.launch({ executablePath: CHROMIUM, args: ARGS });

/** The pages' time zone: the company's, whatever the machine's. */
export const TIME_ZONE = 'Africa/Kinshasa';

/**
 * The date `n` days from today in `TIME_ZONE`, as yyyy-MM-dd: the pages count days there, so a
 * test that used the machine's date would be a day behind them between midnight in Kinshasa and
 * midnight in the machine's zone.
 */
export function isoInDays(n) {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE }).format(new Date());
  const d = new Date(`${today}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** A page in a fresh French context (Kinshasa time) whose visits wait for the app to be interactive. */
export async function newPageIn(browser, viewport, { acceptDialogs = false } = {}) {
  const context = await browser.newContext({ viewport, locale: 'fr-FR', timezoneId: TIME_ZONE });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  page.on('pageerror', (e) => console.error('[pageerror]', e.message));
  if (acceptDialogs) page.on('dialog', (d) => d.accept());
  return waitForAppOnVisit(page);
}

/** A full-page screenshot kept under web/test-results/<name>.png. */
export const shot = (page, name) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function waitFor(url, ms = 30000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timeout waiting for ${url}`);
}

/** The stack on the built site and a browser, for one test file's `before`. */
export async function openSession() {
  const stack = await startStack({ webDir });
  const browser = await launchBrowser();
  console.log(`site: ${stack.baseUrl}`);
  return { stack, browser };
}

/** The file's `after`: closes what `openSession` opened (either may be missing if it failed). */
export async function closeSession({ stack, browser }) {
  await browser?.close();
  await stack?.stop();
}

/**
 * The newest message of the development inbox to `to` (an address, or `+<digits>` for texts) that
 * `match` accepts, polled every 200 ms for at most 15 s.
 */
export async function waitForMail(baseUrl, to, match = () => true, what = 'a message', timeoutMs = 15_000) {
  for (let i = 0; i < timeoutMs / 200; i++) {
    const r = await fetch(`${baseUrl}/inbox/api/messages?to=${encodeURIComponent(to)}`);
    const { messages } = await r.json();
    const m = messages.find(match);
    if (m) return m;
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`no ${what} for ${to}`);
}

/** { baseUrl, apiUrl, anonKey, serviceKey, log(), stop() } */
export async function startStack({ webDir }) {
  const given = process.env.E2E_BASE_URL;
  if (given) return { baseUrl: given.replace(/\/$/, ''), apiUrl: given.replace(/\/$/, ''), anonKey: process.env.E2E_ANON_KEY ?? null, serviceKey: process.env.E2E_SERVICE_KEY ?? null, stop: async () => {} };

  const bin = process.env.SERVER_BIN ?? '/var/tmp/web-server/server';
  if (!existsSync(bin)) throw new Error(`server binary not found: ${bin} (set SERVER_BIN)`);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'web-e2e-'));
  chmodSync(dataDir, 0o755); // the embedded PostgreSQL runs as another user
  const apiPort = await freePort();
  const sitePort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    DB_PORT: '0',
    BACKUP_ENABLED: 'false', // no WAL archiving nor first full backup: not what these tests look at
    PORT: String(apiPort),
    WEB_DIR: webDir,
    // the site's own Supabase project: its tables, policies and functions
    SUPABASE_PROJECT_DIR: process.env.SUPABASE_PROJECT_DIR ?? path.join(webDir, '..', 'supabase'),
    SITE_URL: apiUrl,
    URI_ALLOW_LIST: `http://127.0.0.1:${sitePort}/*`,
    SEED_ADMIN_PASSWORD: SEED.adminPassword,
    SEED_DEMO_PASSWORD: SEED.demoPassword,
    // The site's auth settings are web/supabase/config.toml's; its passkeys' origins are the
    // ports of this run (browsers bind passkeys to localhost, never to an IP address).
    WEBAUTHN_RP_ORIGINS: `http://localhost:${apiPort},http://localhost:${sitePort}`,
    // booking mails leave the outbox within a second.
    OUTBOX_POLL_SECONDS: '1',
    // the site's Edge Functions (booking-receipt) on the pinned Deno, which fetches their npm:
    // imports through the system's certificate authorities (as the Makefile sets)
    FUNCTIONS_DENO_BIN: process.env.FUNCTIONS_DENO_BIN ?? path.resolve(here, '../../server/functions-runtime/node_modules/@deno/linux-x64-glibc/deno'),
    DENO_TLS_CA_STORE: process.env.DENO_TLS_CA_STORE ?? 'system',
    RUST_LOG: 'warn',
  };
  await run(bin, ['seed'], { env });
  const keys = (await run(bin, ['keys'], { env })).stdout;
  const anonKey = /anon key:\s*(\S+)/.exec(keys)?.[1];
  const serviceKey = /service_role key:\s*(\S+)/.exec(keys)?.[1];
  if (!anonKey) throw new Error(`no anon key in: ${keys}`);
  const server = spawn(bin, [], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  server.stderr.on('data', (d) => {
    log = (log + d).slice(-8000);
  });
  await waitFor(`${apiUrl}/auth/v1/health`);

  // The server serves the site itself once it is wired to (GET / answers the app); else we do.
  let baseUrl = apiUrl;
  let site = null;
  const probe = await fetch(`${apiUrl}/fleet`).catch(() => null);
  const config = await fetch(`${apiUrl}/config.json`).catch(() => null);
  if (!probe || probe.status !== 200 || !config || config.status !== 200) {
    site = await startStaticServer({ dir: webDir, apiUrl, anonKey, port: sitePort });
    baseUrl = `http://127.0.0.1:${sitePort}`;
  }
  return {
    baseUrl,
    apiUrl,
    anonKey,
    serviceKey,
    log: () => log,
    stop: async () => {
      site?.close();
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r).once('error', r));
      await run(bin, ['db', 'stop'], { env }).catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Public pages arrive rendered and become interactive once hydrated (`<html data-ready>`): a
 * click before that would be lost. Makes every `page.goto` wait for it, as a user would.
 */
export function waitForAppOnVisit(page) {
  const goto = page.goto.bind(page);
  page.goto = async (url, options) => {
    const response = await goto(url, options);
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    return response;
  };
  return page;
}
