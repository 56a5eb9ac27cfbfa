// hono-patched: the hono app behind @hono/node-server's getRequestListener,
// served through dispatchNode. Its own process (node --test runs each file
// apart), since the listener replaces the global Request and Response.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setup, hostRequest, bodyText, header } from './harness.mjs';

await setup();
await import('../node/globals.js');
const { dispatchNode } = await import('../node/http.js');
const PlatformRequest = globalThis.Request;
const PlatformResponse = globalThis.Response;
const { build } = await import('./fixtures/hono-patched.mjs');
const { app, listener } = build();

test('getRequestListener replaces Request and Response with its lightweight classes', () => {
  assert.notEqual(globalThis.Request, PlatformRequest);
  assert.notEqual(globalThis.Response, PlatformResponse);
  // Instances still pass instanceof checks against the platform classes.
  assert.ok(new Response('x') instanceof PlatformResponse);
});

test('hono-patched serves the scenarios through dispatchNode', async () => {
  const serve = (url) => dispatchNode(listener, hostRequest(url, { headers: [['x-test', '1']] }));
  const hello = await serve('/');
  assert.equal(hello.status, 200);
  assert.equal(bodyText(hello.body), '{"message":"hello"}');
  assert.equal(header(hello.headers, 'content-type'), 'application/json');
  assert.equal(header(hello.headers, 'content-length'), '19');
  assert.equal(bodyText((await serve('/user/42')).body), '42');
  const mw = await serve('/mw');
  assert.equal(bodyText(mw.body), '{"message":"hello"}');
  for (const i of ['1', '2', '3', '4', '5']) assert.equal(header(mw.headers, `x-mw-${i}`), i);
  assert.equal((await serve('/nope')).status, 404);
});

test('the lightweight Response keeps [status, body, headers] under Symbol(cache) until materialized', async () => {
  const res = await app.fetch(new Request('http://localhost/'));
  const cache = Object.getOwnPropertySymbols(res).find((s) => s.description === 'cache');
  assert.ok(cache, 'Symbol(cache) own property');
  assert.deepEqual(res[cache], [200, '{"message":"hello"}', { 'Content-Type': 'application/json' }]);
  // The mw chain rewrites headers after the handler: hono rebuilds the
  // response, which materializes a platform Response under Symbol(responseCache).
  const mw = await app.fetch(new Request('http://localhost/mw'));
  const symbols = Object.getOwnPropertySymbols(mw).map((s) => s.description);
  assert.ok(symbols.includes('responseCache'), symbols.join());
  assert.equal(mw.headers.get('x-mw-1'), '1');
});

test('hono-patched reads a POST body through Readable.toWeb', async () => {
  const { Hono } = await import('../../../vendor/dist/hono.js');
  const { getRequestListener } = await import('../../../vendor/dist/hono-node-server.js');
  const echo = new Hono();
  echo.post('/echo', async (c) => c.json({ got: await c.req.json() }));
  const body = new TextEncoder().encode('{"a":1}');
  const r = await dispatchNode(getRequestListener(echo.fetch), hostRequest('/echo', {
    method: 'POST',
    headers: [['content-type', 'application/json'], ['content-length', String(body.length)]],
    body,
  }));
  assert.equal(r.status, 200);
  assert.equal(bodyText(r.body), '{"got":{"a":1}}');
  const streamed = new Hono();
  streamed.post('/len', async (c) => c.text(String((await c.req.arrayBuffer()).byteLength)));
  const big = new Uint8Array(100_000).fill(97);
  const r2 = await dispatchNode(getRequestListener(streamed.fetch), hostRequest('/len', {
    method: 'POST',
    headers: [['content-length', String(big.length)]],
    body: big,
  }));
  assert.equal(bodyText(r2.body), '100000');
});
