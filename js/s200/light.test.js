// s200-light at the edge: which object fetch returns, and that the chain
// builds no platform Response. The shared contract is in conformance/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createApp, get, json, text, use, setHeader } from './light.js';
import { withHostMarker } from './conformance/impls.js';

const BRAND = Symbol.for('fwbench.light-response');

function helloApp() {
  const app = createApp();
  use(app, '/', async (ctx, next) => {
    await next();
    ctx.res.headers.set('x-mw', '1');
    setHeader(ctx, 'x-set', '2');
  });
  get(app, '/', (ctx) => json(ctx, { message: 'hello' }));
  return app;
}

test('app.fetch returns a real Response when no host marker is set', async () => {
  await withHostMarker(undefined, async (applied) => {
    const res = await helloApp().fetch(new Request('http://localhost/'));
    if (!applied) {
      // Inside fwbench the host's marker is locked on: fetch must hand the
      // adapter the light response, which is what this checks there.
      assert.equal(res[BRAND], true);
      return;
    }
    assert.ok(res instanceof Response);
    assert.equal(res[BRAND], undefined);
    assert.equal(res.headers.get('x-mw'), '1');
    assert.equal(res.headers.get('x-set'), '2');
    assert.equal(await res.text(), '{"message":"hello"}');
  });
});

test('app.fetch returns the light response when globalThis[Symbol.for("fwbench.host")] is set', async () => {
  await withHostMarker({ host: 'test' }, async () => {
    const res = await helloApp().fetch(new Request('http://localhost/'));
    assert.equal(res[BRAND], true);
    assert.equal(res instanceof Response, false);
    assert.equal(res.status, 200);
    assert.equal(res.body, '{"message":"hello"}');
    assert.equal(res.headers.get('x-mw'), '1');
  });
});

test('app.fetchLight returns the light response whatever the host', async () => {
  await withHostMarker(undefined, async () => {
    const res = await helloApp().fetchLight(new Request('http://localhost/'));
    assert.equal(res[BRAND], true);
    const seen = {};
    res.headers.forEach((v, k) => (seen[k] = v));
    assert.deepEqual(seen, { 'content-type': 'application/json', 'x-mw': '1', 'x-set': '2' });
  });
});

test('HEAD through fetchLight: the light response with body null', async () => {
  const res = await helloApp().fetchLight(new Request('http://localhost/', { method: 'HEAD' }));
  assert.equal(res[BRAND], true);
  assert.equal(res.status, 200);
  assert.equal(res.body, null);
  assert.equal(res.headers.get('content-type'), 'application/json');
});

test('no platform Response is constructed in the light chain', async () => {
  const Original = globalThis.Response;
  let constructed = 0;
  globalThis.Response = class CountingResponse extends Original {
    constructor(...args) {
      super(...args);
      constructed++;
    }
  };
  try {
    const app = createApp({ logErrors: false });
    use(app, '/', async (ctx, next) => {
      await next();
      setHeader(ctx, 'x-a', '1');
    });
    get(app, '/', (ctx) => json(ctx, { message: 'hello' }));
    get(app, '/boom', () => {
      throw new Error('x');
    });
    for (const path of ['/', '/missing', '/boom']) {
      const res = await app.fetchLight(new Request(`http://localhost${path}`));
      assert.equal(res[BRAND], true, path);
    }
    const r405 = await app.fetchLight(new Request('http://localhost/', { method: 'POST' }));
    assert.equal(r405.status, 405);
  } finally {
    globalThis.Response = Original;
  }
  assert.equal(constructed, 0);
});

test('s200 middleware runs unchanged on s200-light (Headers-style writes)', async () => {
  const app = createApp();
  // written against the platform Headers API
  use(app, '/', async (ctx, next) => {
    await next();
    ctx.res.headers.append('Vary', 'Origin');
    ctx.res.headers.append('vary', 'Accept');
    if (!ctx.res.headers.has('x-powered-by')) ctx.res.headers.set('X-Powered-By', 's200');
    ctx.res.headers.delete('x-remove');
  });
  get(app, '/', (ctx) => text(ctx, 'ok', { headers: { 'x-remove': 'me' } }));
  const res = await app.fetchLight(new Request('http://localhost/'));
  assert.equal(res.headers.get('vary'), 'Origin, Accept');
  assert.equal(res.headers.get('x-powered-by'), 's200');
  assert.equal(res.headers.has('x-remove'), false);
});
