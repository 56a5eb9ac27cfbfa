// requestId(): reuse or make an id, expose it, stamp it (errors too); on s200 and s200-light.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { requestId } from './index.js';
import { IMPLS, QUIET, bodyOf, call } from '../../conformance/impls.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

for (const { name, m } of IMPLS) {
  describe(`requestId on ${name}`, () => {
    function app(options) {
      const a = m.createApp(QUIET);
      m.use(a, '/', requestId(options));
      m.get(a, '/', (ctx) => m.text(ctx, String(ctx.state.requestId)));
      m.get(a, '/boom', () => {
        throw new Error('boom');
      });
      return a;
    }

    test('makes a UUID when none comes in, exposes it on ctx.state and stamps it', async () => {
      const res = await call(app(), '/');
      const id = res.headers.get('x-request-id');
      assert.match(id, UUID);
      assert.equal(await bodyOf(res), id);
    });

    test('each request gets its own id', async () => {
      const a = app();
      const one = (await call(a, '/')).headers.get('x-request-id');
      const two = (await call(a, '/')).headers.get('x-request-id');
      assert.notEqual(one, two);
    });

    test('reuses a valid incoming x-request-id', async () => {
      const res = await call(app(), '/', { headers: { 'X-Request-Id': 'abc-123_DEF=' } });
      assert.equal(res.headers.get('x-request-id'), 'abc-123_DEF=');
      assert.equal(await bodyOf(res), 'abc-123_DEF=');
    });

    test('replaces an invalid incoming id (bad characters, too long, empty)', async () => {
      for (const bad of ['has space', 'semi;colon', 'x'.repeat(256), '']) {
        const res = await call(app(), '/', { headers: { 'x-request-id': bad } });
        assert.match(res.headers.get('x-request-id'), UUID, JSON.stringify(bad));
      }
      const res = await call(app({ limitLength: 4 }), '/', { headers: { 'x-request-id': 'abcde' } });
      assert.match(res.headers.get('x-request-id'), UUID);
    });

    test('stamps error and 404 responses too', async () => {
      const boom = await call(app(), '/boom', { headers: { 'x-request-id': 'err-1' } });
      assert.equal(boom.status, 500);
      assert.equal(boom.headers.get('x-request-id'), 'err-1');
      const missing = await call(app(), '/missing');
      assert.equal(missing.status, 404);
      assert.match(missing.headers.get('x-request-id'), UUID);
    });

    test('stamps in place after next(): the response object is unchanged', async () => {
      let before;
      let after;
      const a = m.createApp();
      m.use(
        a,
        '/',
        async (ctx, next) => {
          await next();
          after = ctx.res;
        },
        requestId(),
        async (ctx, next) => {
          await next();
          before = ctx.res;
        }
      );
      m.get(a, '/', (ctx) => m.text(ctx, 'ok'));
      await call(a, '/');
      assert.equal(before, after);
      assert.match(after.headers.get('x-request-id'), UUID);
    });

    test('options: headerName, generator (gets ctx), stateKey', async () => {
      const a = m.createApp();
      m.use(a, '/', requestId({ headerName: 'X-Trace', generator: (ctx) => `gen-${ctx.path.length}`, stateKey: 'trace' }));
      m.get(a, '/', (ctx) => m.text(ctx, ctx.state.trace));
      const res = await call(a, '/');
      assert.equal(res.headers.get('x-trace'), 'gen-1');
      assert.equal(res.headers.get('x-request-id'), null);
      assert.equal(await bodyOf(res), 'gen-1');
    });
  });
}

test('requestId() returns a function named requestId; bad options are TypeErrors', () => {
  assert.equal(requestId().name, 'requestId');
  assert.throws(() => requestId({ headerName: '' }), TypeError);
  assert.throws(() => requestId({ generator: 'uuid' }), TypeError);
});
