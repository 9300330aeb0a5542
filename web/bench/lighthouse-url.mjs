// Lighthouse's performance and accessibility scores of one page, in Debian's Chromium, for the
// Python benches (`make bench-studio` runs it on the dashboard's table editor). Drives Lighthouse
// as bench-web.mjs does (its node module and chrome-launcher, from this folder's node_modules);
// prints one JSON line and nothing else on stdout. Not a test: nothing here passes or fails on a
// score; a preset fails when the page did not load what it was asked to check or Lighthouse could
// not finish (e.g. a page whose main thread never settles).
//
// Usage: node web/bench/lighthouse-url.mjs URL
//   LIGHTHOUSE_COOKIE=...     sent as the Cookie header of every request the page makes (a
//                             signed-in session); read from the environment so that it never
//                             shows in a process list, and never printed
//   LIGHTHOUSE_EXPECT=PATH    a request whose URL contains PATH must have been answered 200 in
//                             every run (e.g. the table editor's rows: proves the session held)
//   LIGHTHOUSE_RUNS=3         runs per preset (the median is printed)
//   LIGHTHOUSE_PRESETS=mobile,desktop
//                             mobile: Lighthouse's default (simulated slow 4G, 4x CPU slowdown,
//                             a phone's screen); desktop: its desktop preset (dense 4G, no CPU
//                             slowdown, 1350x940)
//   CHROMIUM_PATH=...         browser (default /usr/bin/chromium)
// Output: {"url", "runs", "presets": {"mobile": {perf, a11y, fcp, lcp, tbt, cls, expected: the
// requests containing LIGHTHOUSE_EXPECT the page made, failed: [ids of accessibility audits under
// 1]} or {error, completed: runs done before it}, ...}}; exits 1 when no preset could finish.
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import * as chromeLauncher from 'chrome-launcher';

const url = process.argv[2];
if (!url) {
  console.error('usage: node lighthouse-url.mjs URL');
  process.exit(2);
}
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
const PRESETS = (process.env.LIGHTHOUSE_PRESETS ?? 'mobile,desktop').split(',').map((p) => p.trim());
const EXPECT = process.env.LIGHTHOUSE_EXPECT;
const cookie = process.env.LIGHTHOUSE_COOKIE;
const CONFIGS = { mobile: undefined, desktop: desktopConfig };
const METRICS = { fcp: 'first-contentful-paint', lcp: 'largest-contentful-paint', tbt: 'total-blocking-time', cls: 'cumulative-layout-shift' };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One Lighthouse run: the scores and metrics, or an error naming what the page did not load. */
async function once(chrome, preset) {
  const flags = {
    port: chrome.port,
    output: 'json',
    logLevel: 'error',
    onlyCategories: ['performance', 'accessibility'],
    extraHeaders: cookie ? { Cookie: cookie } : undefined,
  };
  const result = await lighthouse(url, flags, CONFIGS[preset]);
  const { categories, audits, runtimeError, finalDisplayedUrl } = result.lhr;
  if (runtimeError) throw new Error(`Lighthouse: ${runtimeError.code} ${runtimeError.message}`);
  const expected = (audits['network-requests']?.details?.items ?? []).filter((r) => EXPECT && String(r.url).includes(EXPECT));
  if (EXPECT && !expected.some((r) => r.statusCode === 200)) {
    const got = expected.length ? expected.map((r) => r.statusCode).join(', ') : 'no such request';
    throw new Error(`no 200 answer to a request containing ${EXPECT} (got ${got}; page ended at ${finalDisplayedUrl})`);
  }
  const failed = Object.values(audits)
    .filter((a) => categories.accessibility.auditRefs.some((r) => r.id === a.id && r.weight > 0) && a.score !== null && a.score < 1)
    .map((a) => a.id);
  return {
    perf: Math.round(categories.performance.score * 100),
    a11y: Math.round(categories.accessibility.score * 100),
    ...Object.fromEntries(Object.entries(METRICS).map(([k, id]) => [k, audits[id].numericValue])),
    failed,
    expected: expected.length,
  };
}

async function main() {
  for (const p of PRESETS) if (!(p in CONFIGS)) throw new Error(`unknown preset ${p} (mobile, desktop)`);
  const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'] });
  try {
    const presets = {};
    for (const preset of PRESETS) {
      const runs = [];
      try {
        for (let i = 0; i < RUNS; i++) runs.push(await once(chrome, preset));
      } catch (err) {
        // a preset that cannot finish is reported as such, the others still run
        presets[preset] = { error: String(err.message ?? err), completed: runs.length };
        continue;
      }
      presets[preset] = {
        ...Object.fromEntries(['perf', 'a11y', ...Object.keys(METRICS), 'expected'].map((k) => [k, median(runs.map((r) => r[k]))])),
        failed: [...new Set(runs.flatMap((r) => r.failed))],
      };
    }
    console.log(JSON.stringify({ url, runs: RUNS, presets }));
    if (Object.values(presets).every((p) => p.error)) process.exitCode = 1;
  } finally {
    await chrome.kill();
  }
}

main().catch((err) => {
  console.error(err.message ?? err);
  process.exit(1);
});
