// A tiny stand-in for the Rust server's site serving: web/dist with an index.html fallback
// for client routes, API paths proxied to the server, and /config.json answered from the
// server when it serves one, else from the given anon key. WebSocket upgrades (/realtime/v1)
// are passed through to the server as they are.
import http from 'node:http';
import net from 'node:net';
import { createReadStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};
const API = ['/rest/', '/auth/', '/storage/', '/functions/', '/inbox', '/realtime/'];

export function startStaticServer({ dir, apiUrl, anonKey, port = 0 }) {
  const api = new URL(apiUrl);
  const proxy = (req, res) => {
    const up = http.request(
      { hostname: api.hostname, port: api.port, path: req.url, method: req.method, headers: { ...req.headers, host: api.host } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (API.some((p) => url.pathname === p.replace(/\/$/, '') || url.pathname.startsWith(p))) return proxy(req, res);
    if (url.pathname === '/config.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
      res.end(JSON.stringify({ supabaseUrl: `http://${req.headers.host}`, anonKey }));
      return;
    }
    let file = path.join(dir, decodeURIComponent(url.pathname));
    if (!file.startsWith(dir)) {
      res.writeHead(403);
      return res.end();
    }
    if (!existsSync(file) || statSync(file).isDirectory()) {
      if (path.extname(url.pathname)) {
        res.writeHead(404);
        return res.end();
      }
      file = path.join(dir, 'index.html');
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': file.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    createReadStream(file).pipe(res);
  });
  server.on('upgrade', (req, socket, head) => {
    if (!(req.url ?? '').startsWith('/realtime/')) return socket.destroy();
    const up = net.connect(Number(api.port), api.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i];
        lines.push(`${name}: ${name.toLowerCase() === 'host' ? api.host : req.rawHeaders[i + 1]}`);
      }
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head?.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
