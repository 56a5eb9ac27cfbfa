// cors(): simple and preflight requests, origin forms, credentials, expose,
// max-age, Vary; on s200 and s200-light.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cors } from './index.js';
import { IMPLS, QUIET, bodyOf, call } from '../../conformance/impls.js';

const PREFLIGHT = (origin, extra = {}) => ({
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': 'PUT', ...extra },
});

for (const { name, m } of IMPLS) {
  describe(`cors on ${name}`, () => {
    let handled = 0;
    function app(options, extra) {
      handled = 0;
      const a = m.createApp(QUIET);
      if (extra) m.use(a, '/', extra);
      m.use(a, '/', cors(options));
      m.get(a, '/data', (ctx) => {
        handled++;
        return m.json(ctx, { ok: true });
      });
      m.put(a, '/data', (ctx) => m.json(ctx, { ok: true }));
      m.get(a, '/boom', () => {
        throw new Error('boom');
      });
      return a;
    }

    test('simple request, default origin "*": Allow-Origin *, no Vary', async () => {
      const res = await call(app(), '/data', { headers: { origin: 'https://a.example' } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.equal(res.headers.get('vary'), null);
      assert.equal(res.headers.get('access-control-allow-credentials'), null);
    });

    test('origin as a fixed string', async () => {
      const res = await call(app({ origin: 'https://app.example' }), '/data', { headers: { origin: 'https://other.example' } });
      assert.equal(res.headers.get('access-control-allow-origin'), 'https://app.example');
    });

    test('origin as a list: echoes a listed origin, with Vary: Origin', async () => {
      const options = { origin: ['https://a.example', 'https://b.example'] };
      const ok = await call(app(options), '/data', { headers: { origin: 'https://b.example' } });
      assert.equal(ok.headers.get('access-control-allow-origin'), 'https://b.example');
      assert.equal(ok.headers.get('vary'), 'Origin');
      const no = await call(app(options), '/data', { headers: { origin: 'https://evil.example' } });
      assert.equal(no.status, 200);
      assert.equal(no.headers.get('access-control-allow-origin'), null);
      assert.equal(no.headers.get('vary'), 'Origin');
      const none = await call(app(options), '/data');
      assert.equal(none.headers.get('access-control-allow-origin'), null);
      assert.equal(none.headers.get('vary'), 'Origin');
    });

    test('origin as a function: a string, true (echo), or a refusal; sync or async', async () => {
      const seen = [];
      const fn = (origin, ctx) => {
        seen.push(`${origin} ${ctx.path}`);
        if (origin.endsWith('.trusted.example')) return true;
        if (origin === 'https://alias.example') return 'https://canonical.example';
        return null;
      };
      const a = app({ origin: fn });
      const trusted = await call(a, '/data', { headers: { origin: 'https://x.trusted.example' } });
      assert.equal(trusted.headers.get('access-control-allow-origin'), 'https://x.trusted.example');
      assert.equal(trusted.headers.get('vary'), 'Origin');
      const alias = await call(a, '/data', { headers: { origin: 'https://alias.example' } });
      assert.equal(alias.headers.get('access-control-allow-origin'), 'https://canonical.example');
      const refused = await call(a, '/data', { headers: { origin: 'https://nope.example' } });
      assert.equal(refused.headers.get('access-control-allow-origin'), null);
      assert.deepEqual(seen, ['https://x.trusted.example /data', 'https://alias.example /data', 'https://nope.example /data']);
      const asyncApp = app({ origin: async (origin) => origin === 'https://late.example' });
      const late = await call(asyncApp, '/data', { headers: { origin: 'https://late.example' } });
      assert.equal(late.headers.get('access-control-allow-origin'), 'https://late.example');
    });

    test('credentials: Allow-Credentials, and "*" becomes the echoed origin', async () => {
      const res = await call(app({ credentials: true }), '/data', { headers: { origin: 'https://a.example' } });
      assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
      assert.equal(res.headers.get('access-control-allow-origin'), 'https://a.example');
      assert.equal(res.headers.get('vary'), 'Origin');
    });

    test('exposeHeaders on actual responses', async () => {
      const res = await call(app({ exposeHeaders: ['x-request-id', 'x-total'] }), '/data', { headers: { origin: 'https://a.example' } });
      assert.equal(res.headers.get('access-control-expose-headers'), 'x-request-id, x-total');
    });

    test('preflight: 204 with methods, echoed headers, max-age; the route does not run', async () => {
      const a = app({ origin: ['https://a.example'], maxAge: 600, credentials: true });
      const res = await call(a, '/data', PREFLIGHT('https://a.example', { 'access-control-request-headers': 'content-type, x-custom' }));
      assert.equal(res.status, 204);
      assert.equal(await bodyOf(res), '');
      assert.equal(handled, 0);
      assert.equal(res.headers.get('access-control-allow-origin'), 'https://a.example');
      assert.equal(res.headers.get('access-control-allow-methods'), 'GET, HEAD, PUT, POST, DELETE, PATCH');
      assert.equal(res.headers.get('access-control-allow-headers'), 'content-type, x-custom');
      assert.equal(res.headers.get('access-control-max-age'), '600');
      assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
      assert.equal(res.headers.get('vary'), 'Origin, Access-Control-Request-Headers');
    });

    test('preflight with explicit allowHeaders and allowMethods', async () => {
      const a = app({ allowHeaders: ['content-type'], allowMethods: ['GET', 'PUT'] });
      const res = await call(a, '/data', PREFLIGHT('https://a.example', { 'access-control-request-headers': 'x-other' }));
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.equal(res.headers.get('access-control-allow-methods'), 'GET, PUT');
      assert.equal(res.headers.get('access-control-allow-headers'), 'content-type');
      assert.equal(res.headers.get('access-control-max-age'), null);
      assert.equal(res.headers.get('vary'), null);
    });

    test('preflight from a refused origin: 204 without CORS grants', async () => {
      const res = await call(app({ origin: ['https://a.example'] }), '/data', PREFLIGHT('https://evil.example'));
      assert.equal(res.status, 204);
      assert.equal(res.headers.get('access-control-allow-origin'), null);
      assert.equal(res.headers.get('access-control-allow-methods'), null);
      assert.equal(res.headers.get('vary'), 'Origin');
    });

    test('a plain OPTIONS (no Access-Control-Request-Method) is not a preflight', async () => {
      const res = await call(app(), '/data', { method: 'OPTIONS', headers: { origin: 'https://a.example' } });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
    });

    test('error and 404 responses carry CORS headers too', async () => {
      const options = { origin: ['https://a.example'] };
      const boom = await call(app(options), '/boom', { headers: { origin: 'https://a.example' } });
      assert.equal(boom.status, 500);
      assert.equal(boom.headers.get('access-control-allow-origin'), 'https://a.example');
      const missing = await call(app(options), '/missing', { headers: { origin: 'https://a.example' } });
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.get('access-control-allow-origin'), 'https://a.example');
    });

    test('Vary: Origin merges with an existing Vary, once', async () => {
      const a = m.createApp();
      m.use(a, '/', cors({ origin: ['https://a.example'] }));
      m.get(a, '/v', (ctx) => m.text(ctx, 'x', { headers: { vary: 'Accept-Encoding' } }));
      m.get(a, '/o', (ctx) => m.text(ctx, 'x', { headers: { vary: 'origin' } }));
      m.get(a, '/s', (ctx) => m.text(ctx, 'x', { headers: { vary: '*' } }));
      const v = await call(a, '/v', { headers: { origin: 'https://a.example' } });
      assert.equal(v.headers.get('vary'), 'Accept-Encoding, Origin');
      assert.equal((await call(a, '/o')).headers.get('vary'), 'origin');
      assert.equal((await call(a, '/s')).headers.get('vary'), '*');
    });
  });
}

test('cors() returns a function named cors; bad options are TypeErrors', () => {
  assert.equal(cors().name, 'cors');
  assert.throws(() => cors({ origin: 42 }), TypeError);
  assert.throws(() => cors({ maxAge: -1 }), TypeError);
  assert.throws(() => cors({ exposeHeaders: [1] }), TypeError);
});
