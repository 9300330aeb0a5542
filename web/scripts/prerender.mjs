// After `vite build`: renders the public pages to HTML (src/entry-server.tsx, built for Node
// into node_modules/.prerender, removed after) and writes dist/<page>/index.html, which the server sends for
// that path. The empty page is kept as dist/shell.html: the server answers it for every other
// client route (/profile, /blog/<id>, unknown paths), which the browser renders itself; the
// paths the app answers go to dist/routes.json, so the server answers the others with a 404.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'vite';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(web, 'dist');
// Inside the project, so the built module resolves react and the rest from node_modules.
const out = path.join(web, 'node_modules', '.prerender');

const escapeHtml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

try {
  await build({
    root: web,
    logLevel: 'warn',
    build: { ssr: path.join(web, 'src/entry-server.tsx'), outDir: out, emptyOutDir: true, copyPublicDir: false },
  });
  const { render, paths, patterns, routes, vehicleColumns } = await import(pathToFileURL(path.join(out, 'entry-server.js')).href);
  // the vehicle page's early request (scripts/early-vehicle.js), inlined in its <head>
  const earlyVehicle = readFileSync(path.join(web, 'scripts/early-vehicle.js'), 'utf8').replace('__VEHICLE_COLUMNS__', vehicleColumns)
    .replace(/^\s*\/\/.*\n/gm, ''); // its comments stay in the source
  // the paths the app answers: the server sends the others its « Page introuvable » with a 404.
  writeFileSync(path.join(dist, 'routes.json'), JSON.stringify(routes, null, 1));
  const shell = readFileSync(path.join(dist, 'index.html'), 'utf8');
  if (!shell.includes('<div id="root"></div>')) throw new Error('dist/index.html has no empty #root');
  writeFileSync(path.join(dist, 'shell.html'), shell);
  // pages with a parameter, in their loading state: /fleet/:id is written as /fleet/_id, which the
  // server sends for every /fleet/<id> (the browser renders the page itself, without hydrating).
  for (const page of [...paths, ...patterns.map((p) => p.replace(/:([a-z]+)/g, '_$1'))]) {
    const { html, title } = await render(page);
    // The page is readable before its code runs: the code need not compete with the page for
    // the first paint (it is fetched at low priority; it still starts at once).
    const doc = shell
      .replace('<div id="root"></div>', `<div id="root">${html}</div>`)
      .replaceAll('<script type="module" crossorigin', '<script type="module" fetchpriority="low" crossorigin')
      .replaceAll('<link rel="modulepreload" crossorigin', '<link rel="modulepreload" fetchpriority="low" crossorigin')
      .replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(title)}</title>`)
      .replace('</head>', page === '/fleet/_id' ? `<script>${earlyVehicle}</script></head>` : '</head>');
    const dir = page === '/' ? dist : path.join(dist, page);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'index.html'), doc);
    console.log(`prerendered ${page.padEnd(18)} ${(html.length / 1024).toFixed(1)} KB  ${title}`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
