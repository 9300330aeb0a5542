// OpenTelemetry traces over OTLP/HTTP: with OTEL_EXPORTER_OTLP_ENDPOINT set, each request's span
// (named `request`, with its id, method and path) reaches the collector, in protobuf, under the
// service name. The collector here is a plain HTTP server keeping what it receives.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { startServer } from '../lib/server.mjs';

let collector;
let received = [];
let server;

before(async () => {
  collector = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url, type: req.headers['content-type'], body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((resolve) => collector.listen(0, '127.0.0.1', resolve));
  server = await startServer({
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.address().port}`,
    OTEL_SERVICE_NAME: 'rental-api',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
});
after(async () => {
  await server?.stop();
  collector?.close();
});

test('a request that carries a W3C traceparent joins the caller\'s trace', async () => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parentId = '00f067aa0ba902b7';
  const id = `traced-${Date.now()}`;
  const res = await fetch(`${server.url}/rest/v1/`, {
    headers: { apikey: server.anonKey, 'x-request-id': id, traceparent: `00-${traceId}-${parentId}-01` },
  });
  assert.equal(res.status, 200);
  const deadline = Date.now() + 15000;
  let batch;
  while (!(batch = received.find((r) => r.body.includes(id)))) {
    assert.ok(Date.now() < deadline, `no span with ${id} reached the collector`);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(batch.body.includes(Buffer.from(traceId, 'hex')), 'the span carries the caller\'s trace id');
  assert.ok(batch.body.includes(Buffer.from(parentId, 'hex')), 'and the caller\'s span as its parent');
});

test('a request\'s span reaches the OTLP collector with its request id, method and path', async () => {
  const id = `trace-me-${Date.now()}`;
  const res = await fetch(`${server.url}/rest/v1/`, { headers: { apikey: server.anonKey, 'x-request-id': id } });
  assert.equal(res.headers.get('x-request-id'), id);
  const deadline = Date.now() + 15000;
  let batch;
  while (!(batch = received.find((r) => r.body.includes(id)))) {
    assert.ok(Date.now() < deadline, `no span with ${id} reached the collector (${received.length} posts)`);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(batch.path, '/v1/traces');
  assert.equal(batch.type, 'application/x-protobuf');
  for (const text of ['request', 'rental-api', '/rest/v1/', 'GET']) {
    assert.ok(batch.body.includes(text), `the batch holds ${text}`);
  }
});
