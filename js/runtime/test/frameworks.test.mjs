// The vendored frameworks served through fwbench's shims: express and
// fastify through dispatchNode (as the host's adapter does), hono and
// elysia through fetch. Each serves the scenarios' shapes (GET /,
// GET /user/:id, the five-link mw chain, a 404). express and fastify are
// also compared with the same apps on real Node (real node:http server).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setup, hostRequest, bodyText, header } from './harness.mjs';

// Node's own, kept before globals.js replaces `process` with fwbench's.
const NODE = process.execPath;
await setup();
const { dispatchNode, serverHandler } = await import('../node/http.js');
await import('../node/globals.js');

const MW_HEADERS = ['1', '2', '3', '4', '5'];
const request = (url, extra = {}) => hostRequest(url, { headers: [['x-test', '1'], ...(extra.headers ?? [])], ...extra });

async function checkScenarios(serve, { notFoundStatus = 404 } = {}) {
  const hello = await serve('/');
  assert.equal(hello.status, 200);
  assert.equal(bodyText(hello.body), '{"message":"hello"}');
  assert.match(header(hello.headers, 'content-type'), /^application\/json/);

  const user = await serve('/user/42');
  assert.equal(user.status, 200);
  assert.equal(bodyText(user.body), '42');

  const mw = await serve('/mw');
  assert.equal(mw.status, 200);
  assert.equal(bodyText(mw.body), '{"message":"hello"}');
  assert.match(header(mw.headers, 'content-type'), /^application\/json/);
  for (const i of MW_HEADERS) assert.equal(header(mw.headers, `x-mw-${i}`), i, `x-mw-${i}`);

  const missing = await serve('/nope');
  assert.equal(missing.status, notFoundStatus);
}

/**
 * The reference app of `framework` on real Node, in a child process (this
 * one has fwbench's globals, which real express would trip over):
 * [{url, status, headers, body}].
 */
function viaRealNode(framework) {
  const out = execFileSync(NODE, [fileURLToPath(new URL('./fixtures/real-node.mjs', import.meta.url)), framework]);
  return JSON.parse(out);
}

const normalized = (r) => ({
  status: r.status,
  headers: r.headers.map(([n, v]) => [n.toLowerCase(), v]).sort(),
  body: bodyText(r.body),
});

test('express 5 serves the scenarios through dispatchNode', async () => {
  const { build } = await import('./fixtures/express-app.mjs');
  const app = build();
  await checkScenarios(async (url) => dispatchNode(app, request(url)));
});

test('express 5 through the shims answers like express on real Node', async () => {
  const { build } = await import('./fixtures/express-app.mjs');
  const app = build();
  for (const real of viaRealNode('express')) {
    const mine = normalized(await dispatchNode(app, request(real.url)));
    assert.deepEqual(mine, normalized(real), real.url);
  }
});

test('express 5 parses a JSON request body', async () => {
  const { default: express } = await import('./fixtures/express-app.mjs').then(() => import('../../../vendor/dist/express.js'));
  const app = express();
  app.post('/echo', express.json(), (req, res) => res.json({ got: req.body }));
  const body = new TextEncoder().encode('{"a":[1,2]}');
  const r = await dispatchNode(app, hostRequest('/echo', {
    method: 'POST',
    headers: [['content-type', 'application/json'], ['content-length', String(body.length)]],
    body,
  }));
  assert.equal(r.status, 200);
  assert.equal(bodyText(r.body), '{"got":{"a":[1,2]}}');
});

test('fastify 5 serves the scenarios through its server listener', async () => {
  const { build } = await import('./fixtures/fastify-app.mjs');
  const app = await build();
  const handler = serverHandler(app.server);
  await checkScenarios(async (url) => dispatchNode(handler, request(url)));
  // fastify.routing is the same listener fastify gave http.createServer.
  const again = await dispatchNode(app.routing, request('/'));
  assert.equal(bodyText(again.body), '{"message":"hello"}');
});

test('fastify 5 through the shims answers like fastify on real Node', async () => {
  const { build } = await import('./fixtures/fastify-app.mjs');
  const app = await build();
  for (const real of viaRealNode('fastify')) {
    const mine = normalized(await dispatchNode(serverHandler(app.server), request(real.url)));
    assert.deepEqual(mine, normalized(real), real.url);
  }
});

test('fastify 5 parses a JSON body and supports inject()', async () => {
  const { default: Fastify } = await import('./fixtures/fastify-app.mjs').then(() => import('../../../vendor/dist/fastify.js'));
  const app = Fastify();
  app.post('/echo', async (request) => ({ got: request.body }));
  await app.ready();
  const body = new TextEncoder().encode('{"a":[1,2]}');
  const r = await dispatchNode(app.routing, hostRequest('/echo', {
    method: 'POST',
    headers: [['content-type', 'application/json'], ['content-length', String(body.length)]],
    body,
  }));
  assert.equal(r.status, 200);
  assert.equal(bodyText(r.body), '{"got":{"a":[1,2]}}');
  const injected = await app.inject({ method: 'GET', url: '/missing' });
  assert.equal(injected.statusCode, 404);
});

async function viaFetch(app, url) {
  const res = await app.fetch(new Request(`http://localhost${url}`, { headers: { 'x-test': '1' } }));
  return { status: res.status, headers: [...res.headers], body: await res.text() };
}

test('hono serves the scenarios through fetch', async () => {
  const { build } = await import('./fixtures/hono-app.mjs');
  const app = build();
  await checkScenarios((url) => viaFetch(app, url));
});

test('hono subpath bundles share one Hono class', async () => {
  const { Hono } = await import('../../../vendor/dist/hono.js');
  const { cors } = await import('../../../vendor/dist/hono/cors.js');
  const { requestId } = await import('../../../vendor/dist/hono/request-id.js');
  const app = new Hono();
  app.use(cors(), requestId());
  app.get('/', (c) => c.text(c.get('requestId')));
  const res = await app.fetch(new Request('http://localhost/'));
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  assert.equal(await res.text(), res.headers.get('x-request-id'));
});

test('elysia serves the scenarios through fetch', async () => {
  const { build } = await import('./fixtures/elysia-app.mjs');
  const app = build();
  await checkScenarios((url) => viaFetch(app, url));
});
