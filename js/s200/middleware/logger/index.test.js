// logger(): one line per request, errors included; on s200 and s200-light.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { logger, formatLine } from './index.js';
import { IMPLS, QUIET, call } from '../../conformance/impls.js';

/** A clock that advances 2.5 ms per reading. */
function fakeClock() {
  let t = 100;
  return () => (t += 2.5);
}

for (const { name, m } of IMPLS) {
  describe(`logger on ${name}`, () => {
    test('one line per request: method, path, status, duration', async () => {
      const lines = [];
      const app = m.createApp();
      m.use(app, '/', logger({ sink: (line) => lines.push(line), now: fakeClock() }));
      m.get(app, '/users', (ctx) => m.json(ctx, []));
      await call(app, '/users?page=2');
      await call(app, '/users', { method: 'POST' });
      assert.deepEqual(lines, ['GET /users 200 2.5ms', 'POST /users 405 2.5ms']);
    });

    test('logs 404s', async () => {
      const lines = [];
      const app = m.createApp();
      m.use(app, '/', logger({ sink: (line) => lines.push(line), now: fakeClock() }));
      await call(app, '/nowhere');
      assert.deepEqual(lines, ['GET /nowhere 404 2.5ms']);
    });

    test('logs errors: status 500 and the error', async () => {
      const lines = [];
      const entries = [];
      const app = m.createApp(QUIET);
      m.use(
        app,
        '/',
        logger({
          sink: (line, entry) => {
            lines.push(line);
            entries.push(entry);
          },
          now: fakeClock(),
        })
      );
      m.get(app, '/boom', () => {
        throw new RangeError('out of range');
      });
      const res = await call(app, '/boom');
      assert.equal(res.status, 500);
      assert.deepEqual(lines, ['GET /boom 500 2.5ms RangeError: out of range']);
      assert.equal(entries[0].status, 500);
      assert.ok(entries[0].error instanceof RangeError);
    });

    test('the sink gets a structured entry; format is pluggable', async () => {
      const got = [];
      const app = m.createApp();
      m.use(
        app,
        '/',
        logger({
          sink: (line, entry) => got.push({ line, entry }),
          format: (e) => `${e.status} ${e.method}`,
          now: fakeClock(),
        })
      );
      m.get(app, '/', (ctx) => m.text(ctx, 'ok'));
      await call(app, '/');
      assert.equal(got[0].line, '200 GET');
      assert.deepEqual(got[0].entry, { method: 'GET', path: '/', status: 200, ms: 2.5, error: undefined });
    });

    test('default sink is console.log and default clock is performance.now', async () => {
      const original = console.log;
      const lines = [];
      console.log = (line) => lines.push(line);
      try {
        const app = m.createApp();
        m.use(app, '/', logger());
        m.get(app, '/', (ctx) => m.text(ctx, 'ok'));
        await call(app, '/');
      } finally {
        console.log = original;
      }
      assert.equal(lines.length, 1);
      assert.match(lines[0], /^GET \/ 200 \d+\.\dms$/);
    });
  });
}

test('logger() returns a function named logger; bad options are TypeErrors', () => {
  assert.equal(logger().name, 'logger');
  assert.throws(() => logger({ sink: 'stdout' }), TypeError);
  assert.throws(() => logger({ format: 1 }), TypeError);
});

test('formatLine', () => {
  assert.equal(formatLine({ method: 'GET', path: '/', status: 200, ms: 1.234 }), 'GET / 200 1.2ms');
  assert.equal(formatLine({ method: 'GET', path: '/', status: 500, ms: 0, error: 'text' }), 'GET / 500 0.0ms text');
});
