// make bench-web: the weight of the JavaScript the home page loads, the booking mails' rate
// through the outbox, and Lighthouse's performance
// and accessibility scores of /, /fleet, /booking and a vehicle page (/fleet/:id), against the real server on a fresh seeded
// database, in Debian's Chromium. Beside them, the same measures of a baseline: a static HTML
// page with the home page's hero text and the site's stylesheet, served by the same server
// (what the pages would score with no JavaScript at all). Prints tables; not a test: nothing here
// passes or fails on a number.
//
// Usage (from the repository root): make bench-web
//   RUNS=5             Lighthouse runs per page (the median is shown)
//   SERVER_BIN=...     server binary (default: the release build)
//   CHROMIUM_PATH=...  browser (default /usr/bin/chromium)
//   LIGHTHOUSE=0       only the JavaScript weight and the outbox's mails per second
//   OUTBOX_BOOKINGS=N  visitor bookings for the mail rate (default 150, two mails each)
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync, constants } from 'node:zlib';
import { chromium } from 'playwright-core';
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';
import { startStack } from '../e2e/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, '../dist');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RUNS = Number(process.env.RUNS ?? 5);
const BUDGET_KB = 180;
const SCORE_TARGET = 95;
// a seeded vehicle's page (the Corolla): /fleet/:id is rendered in the browser, not at build time
const PAGES = ['/', '/fleet', '/booking', '/fleet/5eed0000-0000-4000-8000-000000000001'];
const BASELINE = '/bench-baseline.html';

/** A copy of the build with the baseline page added (the build itself is left untouched). */
function siteWithBaseline() {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-web-'));
  cpSync(dist, dir, { recursive: true });
  const css = readdirSync(path.join(dir, 'assets')).find((f) => f.endsWith('.css'));
  writeFileSync(
    path.join(dir, BASELINE.slice(1)),
    `<!doctype html><html lang="fr"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Référence statique</title><meta name="description" content="Page statique de référence du banc d'essai.">
<link rel="stylesheet" href="/assets/${css}"></head>
<body><main class="bg-blue-950 text-white"><div class="mx-auto max-w-7xl px-4 py-16">
<h1 class="text-4xl font-extrabold">Location de véhicules et service protocole à Kinshasa</h1>
<p class="mt-5 text-lg">Des véhicules entretenus, des chauffeurs professionnels et une assistance 24/7 pour vos déplacements privés et professionnels.</p>
<a class="mt-8 inline-block rounded bg-amber-400 px-6 py-3 text-slate-950" href="/fleet">Voir notre flotte</a></div></main></body></html>`,
  );
  return dir;
}

const gzipKb = (buf) => gzipSync(buf, { level: constants.Z_BEST_COMPRESSION }).length / 1024;

/** Every script the page loads until the network is idle and the vehicle cards are shown. */
async function scriptsOf(baseUrl, route, waitFor) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    const scripts = [];
    page.on('response', (res) => {
      if (res.request().resourceType() === 'script') scripts.push(res);
    });
    await page.goto(baseUrl + route, { waitUntil: 'networkidle' });
    if (waitFor) await page.locator(waitFor).first().waitFor();
    await page.waitForLoadState('networkidle');
    const rows = [];
    for (const res of scripts) {
      const body = await res.body();
      const sizes = await res.request().sizes();
      rows.push({ file: new URL(res.url()).pathname, raw: body.length / 1024, gzip: gzipKb(body), wire: sizes.responseBodySize / 1024, encoding: res.headers()['content-encoding'] ?? 'none' });
    }
    return rows.sort((a, b) => b.gzip - a.gzip);
  } finally {
    await browser.close();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Lighthouse's default (mobile, simulated slow 4G and 4x CPU) scores, median of RUNS. */
async function lighthouseScores(url, chrome) {
  const perf = [];
  const a11y = [];
  let metrics = null;
  for (let i = 0; i < RUNS; i++) {
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility'] });
    const { categories, audits } = result.lhr;
    perf.push(Math.round(categories.performance.score * 100));
    a11y.push(Math.round(categories.accessibility.score * 100));
    metrics ??= {};
    for (const id of ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift']) {
      (metrics[id] ??= []).push(audits[id].numericValue);
    }
  }
  const m = Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, median(v)]));
  return { perf: median(perf), a11y: median(a11y), fcp: m['first-contentful-paint'], lcp: m['largest-contentful-paint'], tbt: m['total-blocking-time'], cls: m['cumulative-layout-shift'] };
}

/**
 * The booking mails' rate: N visitor bookings written through /rest/v1 (8 at a time), each
 * making two mails (the visitor's, the company's notice) that the outbox worker delivers to the
 * development inbox; mails delivered per second from the first booking to the last mail, beside
 * the bookings written per second (the baseline: what the mails follow).
 */
async function outboxRate(stack) {
  const N = Number(process.env.OUTBOX_BOOKINGS ?? 150);
  const to = `bench.${Date.now()}@example.cd`;
  const headers = { apikey: stack.anonKey, 'Content-Type': 'application/json', Prefer: 'return=minimal' };
  const vehicles = await (await fetch(`${stack.apiUrl}/rest/v1/vehicles?select=id&rental_status=eq.available&order=id`, { headers })).json();
  const day = (n) => new Date(Date.now() + n * 86400000).toISOString().slice(0, 10);
  const started = performance.now();
  let next = 0;
  let refused = 0;
  const worker = async () => {
    while (next < N) {
      const i = next++;
      const slot = Math.floor(i / vehicles.length);
      const body = { vehicle_id: vehicles[i % vehicles.length].id, start_date: day(2 + 2 * slot), end_date: day(3 + 2 * slot), customer_name: 'Banc Essai', customer_email: to, customer_phone: '+243810000000', driver_license_number: 'KIN-BENCH' };
      const r = await fetch(`${stack.apiUrl}/rest/v1/bookings`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (r.status !== 201) refused++;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const written = performance.now();
  const booked = N - refused;
  const count = async (address) => (await (await fetch(`${stack.baseUrl}/inbox/api/messages?to=${encodeURIComponent(address)}`)).json()).messages.length;
  // the company's notices go to the settings' address (fresh stack: only these bookings')
  const company = 'admin@example.cd';
  let mails = 0;
  while (performance.now() - started < 120_000) {
    mails = (await count(to)) + (await count(company));
    if (mails >= 2 * Math.min(booked, 200)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const done = performance.now();
  console.log('Booking mails through the outbox (visitor bookings, two mails each, development inbox)');
  console.log(`bookings written   ${booked} in ${((written - started) / 1000).toFixed(2)} s   ${(booked / ((written - started) / 1000)).toFixed(0).padStart(6)} /s${refused ? `  (${refused} refused)` : ''}`);
  console.log(`mails delivered    ${mails} in ${((done - started) / 1000).toFixed(2)} s   ${(mails / ((done - started) / 1000)).toFixed(0).padStart(6)} /s   ratio to bookings ${((mails / ((done - started) / 1000)) / (booked / ((written - started) / 1000))).toFixed(2)}\n`);
}

const pad = (s, n) => String(s).padEnd(n);
const num = (x, d = 1) => x.toFixed(d).padStart(8);

async function main() {
  const webDir = siteWithBaseline();
  process.env.SERVER_BIN ??= path.join(process.env.CARGO_TARGET_DIR ?? path.resolve(here, '../../target'), 'release/server');
  const stack = await startStack({ webDir });
  let chrome;
  try {
    console.log(`site: ${stack.baseUrl}  (Lighthouse ${RUNS} run(s) per page, median shown)\n`);

    const home = await scriptsOf(stack.baseUrl, '/', 'article');
    const base = await scriptsOf(stack.baseUrl, BASELINE, null);
    const sum = (rows, k) => rows.reduce((t, r) => t + r[k], 0);
    console.log('JavaScript loaded by / (until the network is idle and the vehicle cards are shown)');
    console.log(`${pad('file', 48)}${'raw KB'.padStart(8)}${'gzip KB'.padStart(9)}${'wire KB'.padStart(9)}  encoding`);
    for (const r of home) console.log(`${pad(r.file, 48)}${num(r.raw)}${num(r.gzip).padStart(9)}${num(r.wire).padStart(9)}  ${r.encoding}`);
    const total = sum(home, 'gzip');
    console.log(`${pad(`total (${home.length} files)`, 48)}${num(sum(home, 'raw'))}${num(total).padStart(9)}${num(sum(home, 'wire')).padStart(9)}`);
    console.log(`budget ${BUDGET_KB} KB gzip: ${total <= BUDGET_KB ? 'within' : 'OVER'} (${(total / BUDGET_KB).toFixed(2)} of the budget); static baseline page: ${sum(base, 'gzip').toFixed(1)} KB`);
    const admin = home.filter((r) => /admin/i.test(r.file));
    console.log(`back-office chunks loaded by /: ${admin.length ? admin.map((r) => r.file).join(', ') : 'none'}\n`);

    await outboxRate(stack);

    if (process.env.LIGHTHOUSE === '0') return;
    chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'] });
    const baseline = await lighthouseScores(stack.baseUrl + BASELINE, chrome);
    console.log('Lighthouse (mobile: simulated slow 4G, 4x CPU slowdown), target 95 or more');
    console.log(`${pad('page', 22)}${'perf'.padStart(6)}${'a11y'.padStart(6)}${'FCP ms'.padStart(9)}${'LCP ms'.padStart(9)}${'TBT ms'.padStart(9)}${'CLS'.padStart(7)}${'perf/base'.padStart(11)}`);
    const line = (name, s) =>
      console.log(`${pad(name, 22)}${String(s.perf).padStart(6)}${String(s.a11y).padStart(6)}${s.fcp.toFixed(0).padStart(9)}${s.lcp.toFixed(0).padStart(9)}${s.tbt.toFixed(0).padStart(9)}${s.cls.toFixed(3).padStart(7)}${(s.perf / baseline.perf).toFixed(2).padStart(11)}`);
    line('baseline (static)', baseline);
    for (const route of PAGES) {
      const s = await lighthouseScores(stack.baseUrl + route, chrome);
      line(route, s);
      if (s.perf < SCORE_TARGET || s.a11y < SCORE_TARGET) console.log(`  ${route}: below the target of ${SCORE_TARGET}`);
    }
  } finally {
    await chrome?.kill();
    await stack.stop();
    rmSync(webDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
