/**
 * The chain contract and API conformance suite, run unchanged against s200
 * and s200-light (see s200.test.js and light.test.js next to this file).
 * Each guarantee of the contract in ../README.md is one test here.
 *
 * @module
 */

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bodyOf, call, QUIET } from './impls.js';

/**
 * Registers the suite for one implementation.
 * @param {{ name: string, m: typeof import('../index.js'), light: boolean }} impl
 */
export function conformance(impl) {
  const { m } = impl;
  const { createApp, use, get, post, put, patch, del, all, json, text, send, setHeader } = m;

  /** Middleware that records what it sees of ctx.res after next(). */
  const observer = (seen) =>
    async function observe(ctx, next) {
      await next();
      seen.push({ res: ctx.res, status: ctx.res?.status, error: ctx.error });
    };

  describe(`${impl.name}: routing and helpers`, () => {
    test('GET / answers the handler response (json)', async () => {
      const app = createApp();
      get(app, '/', (ctx) => json(ctx, { message: 'hello' }));
      const res = await call(app, '/');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(await bodyOf(res), '{"message":"hello"}');
    });

    test('every method helper registers its method', async () => {
      const app = createApp();
      get(app, '/r', (ctx) => text(ctx, 'get'));
      post(app, '/r', (ctx) => text(ctx, 'post'));
      put(app, '/r', (ctx) => text(ctx, 'put'));
      patch(app, '/r', (ctx) => text(ctx, 'patch'));
      del(app, '/r', (ctx) => text(ctx, 'delete'));
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const res = await call(app, '/r', { method });
        assert.equal(res.status, 200);
        assert.equal(await bodyOf(res), method === 'DELETE' ? 'delete' : method.toLowerCase());
      }
    });

    test('all() answers any method', async () => {
      const app = createApp();
      all(app, '/any', (ctx) => text(ctx, ctx.method));
      for (const method of ['GET', 'POST', 'OPTIONS', 'PURGE']) {
        const res = await call(app, '/any', { method });
        assert.equal(await bodyOf(res), method);
      }
    });

    test('the first registered matching route wins', async () => {
      const app = createApp();
      get(app, '/user/me', (ctx) => text(ctx, 'me'));
      get(app, '/user/:id', (ctx) => text(ctx, `id ${ctx.params.id}`));
      assert.equal(await bodyOf(await call(app, '/user/me')), 'me');
      assert.equal(await bodyOf(await call(app, '/user/7')), 'id 7');
    });

    test('ctx.params: named segments, percent-decoded, and a trailing wildcard', async () => {
      const app = createApp();
      get(app, '/user/:id/post/:post', (ctx) => json(ctx, { ...ctx.params }));
      get(app, '/files/*', (ctx) => json(ctx, { rest: ctx.params['*'] }));
      assert.deepEqual(JSON.parse(await bodyOf(await call(app, '/user/a%20b/post/9'))), { id: 'a b', post: '9' });
      assert.deepEqual(JSON.parse(await bodyOf(await call(app, '/files/a/b.txt'))), { rest: 'a/b.txt' });
      assert.deepEqual(JSON.parse(await bodyOf(await call(app, '/files'))), { rest: '' });
      assert.equal((await call(app, '/user/1/post')).status, 404);
    });

    test('ctx.query: first value per key; ctx.path excludes the query', async () => {
      const app = createApp();
      get(app, '/q', (ctx) => json(ctx, { q: { ...ctx.query }, path: ctx.path }));
      const body = JSON.parse(await bodyOf(await call(app, '/q?a=1&a=2&b=&c=x%20y')));
      assert.deepEqual(body, { q: { a: '1', b: '', c: 'x y' }, path: '/q' });
      const none = JSON.parse(await bodyOf(await call(app, '/q')));
      assert.deepEqual(none.q, {});
    });

    test('ctx.state is a fresh store per request', async () => {
      const app = createApp();
      use(app, '/', async (ctx, next) => {
        ctx.state.count = (ctx.state.count ?? 0) + 1;
        await next();
      });
      get(app, '/', (ctx) => json(ctx, ctx.state));
      assert.deepEqual(JSON.parse(await bodyOf(await call(app, '/'))), { count: 1 });
      assert.deepEqual(JSON.parse(await bodyOf(await call(app, '/'))), { count: 1 });
    });

    test('json/text/send take a status or a ResponseInit, and keep an explicit content-type', async () => {
      const app = createApp();
      get(app, '/created', (ctx) => json(ctx, { ok: true }, 201));
      get(app, '/teapot', (ctx) => text(ctx, 'short', { status: 418, headers: { 'x-kind': 'teapot' } }));
      get(app, '/html', (ctx) => text(ctx, '<p>', { headers: { 'content-type': 'text/html' } }));
      get(app, '/raw', (ctx) => send(ctx, new TextEncoder().encode('bytes'), { headers: { 'content-type': 'application/octet-stream' } }));
      get(app, '/empty', (ctx) => send(ctx, null, 204));
      const created = await call(app, '/created');
      assert.equal(created.status, 201);
      assert.equal(created.headers.get('content-type'), 'application/json');
      const teapot = await call(app, '/teapot');
      assert.equal(teapot.status, 418);
      assert.equal(teapot.headers.get('x-kind'), 'teapot');
      assert.equal(teapot.headers.get('content-type'), 'text/plain; charset=UTF-8');
      assert.equal((await call(app, '/html')).headers.get('content-type'), 'text/html');
      const raw = await call(app, '/raw');
      assert.equal(await bodyOf(raw), 'bytes');
      const empty = await call(app, '/empty');
      assert.equal(empty.status, 204);
      assert.equal(await bodyOf(empty), '');
    });

    test('registration errors are TypeErrors that say what is wrong', () => {
      const app = createApp();
      assert.throws(() => get(app, 'no-slash', () => null), { name: 'TypeError', message: /starting with "\/"/ });
      assert.throws(() => get(app, '/x', 'not a function'), { name: 'TypeError', message: /handler for GET \/x must be a function/ });
      assert.throws(() => use(app, '/x'), { name: 'TypeError', message: /at least one middleware/ });
      assert.throws(() => use(app, '/x', 42), { name: 'TypeError', message: /middleware must be a function/ });
      assert.throws(() => get({}, '/x', () => null), { name: 'TypeError', message: /createApp/ });
      assert.throws(() => get(app, '/a/:', () => null), { name: 'TypeError', message: /needs a name/ });
    });
  });

  describe(`${impl.name}: the chain contract`, () => {
    test('ctx.res exists after await next() for a handler response, and is mutated in place', async () => {
      const seen = [];
      const app = createApp();
      use(app, '/', observer(seen), async (ctx, next) => {
        await next();
        ctx.res.headers.set('x-inner', '1');
      });
      get(app, '/', (ctx) => json(ctx, { message: 'hello' }));
      const res = await call(app, '/');
      assert.equal(seen.length, 1);
      assert.ok(seen[0].res, 'ctx.res exists after next()');
      assert.equal(seen[0].status, 200);
      assert.equal(seen[0].res.headers.get('x-inner'), '1', 'outer link sees the inner link write on the same object');
      assert.equal(res.headers.get('x-inner'), '1');
    });

    test('the response object is the handler\'s own, through every link (no rebuild)', async () => {
      const objects = [];
      let made;
      const app = createApp();
      const link = (i) => async (ctx, next) => {
        await next();
        objects.push(ctx.res);
        ctx.res.headers.set(`x-mw-${i}`, String(i));
      };
      use(app, '/mw', link(1), link(2), link(3));
      get(app, '/mw', (ctx) => (made = json(ctx, { message: 'hello' })));
      const res = await call(app, '/mw');
      assert.equal(objects.length, 3);
      for (const o of objects) assert.equal(o, made);
      for (let i = 1; i <= 3; i++) assert.equal(res.headers.get(`x-mw-${i}`), String(i));
    });

    test('an async handler: ctx.res exists after next()', async () => {
      const seen = [];
      const app = createApp();
      use(app, '/', observer(seen));
      get(app, '/slow', async (ctx) => {
        await new Promise((r) => setTimeout(r, 1));
        return text(ctx, 'late');
      });
      const res = await call(app, '/slow');
      assert.equal(seen[0].status, 200);
      assert.equal(await bodyOf(res), 'late');
    });

    test('404: no route; ctx.res is the 404 after next()', async () => {
      const seen = [];
      const app = createApp();
      use(app, '/', observer(seen));
      get(app, '/', (ctx) => text(ctx, 'home'));
      const res = await call(app, '/missing');
      assert.equal(res.status, 404);
      assert.equal(await bodyOf(res), 'Not Found');
      assert.equal(seen[0].status, 404);
      assert.equal(seen[0].error, undefined);
    });

    test('405: path matches but method does not, with Allow; ctx.res is the 405 after next()', async () => {
      const seen = [];
      const app = createApp();
      use(app, '/', observer(seen));
      get(app, '/item', (ctx) => text(ctx, 'get'));
      post(app, '/item', (ctx) => text(ctx, 'post'));
      const res = await call(app, '/item', { method: 'DELETE' });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'GET, POST, HEAD');
      assert.equal(seen[0].status, 405);
    });

    test('500: a handler throws; unwinding middleware sees ctx.res (500) and ctx.error', async () => {
      const seen = [];
      const boom = new Error('boom');
      const app = createApp(QUIET);
      use(app, '/', observer(seen));
      get(app, '/', () => {
        throw boom;
      });
      const res = await call(app, '/');
      assert.equal(res.status, 500);
      assert.equal(await bodyOf(res), 'Internal Server Error');
      assert.equal(seen[0].status, 500);
      assert.equal(seen[0].error, boom);
    });

    test('500: a handler rejects', async () => {
      const seen = [];
      const app = createApp(QUIET);
      use(app, '/', observer(seen));
      get(app, '/', async () => {
        await null;
        throw new TypeError('async boom');
      });
      const res = await call(app, '/');
      assert.equal(res.status, 500);
      assert.equal(seen[0].status, 500);
      assert.match(String(seen[0].error), /async boom/);
    });

    test('500: a later middleware throws after next(); earlier middleware sees the 500', async () => {
      const seen = [];
      const app = createApp(QUIET);
      use(app, '/', observer(seen), async (ctx, next) => {
        await next();
        throw new Error('unwind boom');
      });
      get(app, '/', (ctx) => text(ctx, 'fine'));
      const res = await call(app, '/');
      assert.equal(res.status, 500);
      assert.equal(seen[0].status, 500);
      assert.match(seen[0].error.message, /unwind boom/);
    });

    test('500: a later middleware rejects before next(); the handler does not run', async () => {
      const seen = [];
      let ran = false;
      const app = createApp(QUIET);
      use(app, '/', observer(seen), (ctx, next) => Promise.reject(new Error('early')));
      get(app, '/', (ctx) => {
        ran = true;
        return text(ctx, 'fine');
      });
      const res = await call(app, '/');
      assert.equal(res.status, 500);
      assert.equal(ran, false);
      assert.equal(seen[0].status, 500);
    });

    test('500: a sync middleware throws', async () => {
      const app = createApp(QUIET);
      use(app, '/', () => {
        throw new Error('sync');
      });
      get(app, '/', (ctx) => text(ctx, 'fine'));
      assert.equal((await call(app, '/')).status, 500);
    });

    test('a thrown non-Error value is an error too', async () => {
      const seen = [];
      const app = createApp(QUIET);
      use(app, '/', observer(seen));
      get(app, '/', () => {
        throw 'plain string';
      });
      assert.equal((await call(app, '/')).status, 500);
      assert.equal(seen[0].error, 'plain string');
    });

    test('a middleware short-circuits by returning its own response', async () => {
      const seen = [];
      let ran = false;
      const app = createApp();
      use(app, '/', observer(seen), async (ctx) => text(ctx, 'denied', 403));
      get(app, '/', (ctx) => {
        ran = true;
        return text(ctx, 'secret');
      });
      const res = await call(app, '/');
      assert.equal(res.status, 403);
      assert.equal(await bodyOf(res), 'denied');
      assert.equal(ran, false);
      assert.equal(seen[0].status, 403);
    });

    test('a middleware short-circuits by setting ctx.res', async () => {
      const app = createApp();
      use(app, '/', (ctx) => {
        ctx.res = text(ctx, 'set directly', 401);
        return Promise.resolve();
      });
      get(app, '/', (ctx) => text(ctx, 'secret'));
      const res = await call(app, '/');
      assert.equal(res.status, 401);
      assert.equal(await bodyOf(res), 'set directly');
    });

    test('a middleware that neither awaits next() nor responds gives a 500 that says why', async () => {
      const seen = [];
      const app = createApp(QUIET);
      use(app, '/', observer(seen), async () => {});
      get(app, '/', (ctx) => text(ctx, 'fine'));
      const res = await call(app, '/');
      assert.equal(res.status, 500);
      assert.match(seen[0].error.message, /return or await next\(\)/);
    });

    test('a handler that returns nothing gives a 500 that says why', async () => {
      const seen = [];
      const app = createApp(QUIET);
      use(app, '/', observer(seen));
      get(app, '/', () => undefined);
      assert.equal((await call(app, '/')).status, 500);
      assert.match(seen[0].error.message, /handler must return a Response/);
    });

    test('next() called twice is an error, not a double run', async () => {
      const seen = [];
      let runs = 0;
      let second;
      const app = createApp(QUIET);
      use(app, '/', observer(seen), async (ctx, next) => {
        await next();
        try {
          await next();
        } catch (err) {
          second = err;
          throw err;
        }
      });
      get(app, '/', (ctx) => {
        runs++;
        return text(ctx, 'once');
      });
      const res = await call(app, '/');
      assert.equal(runs, 1);
      assert.ok(second instanceof Error);
      assert.match(second.message, /next\(\) called multiple times/);
      assert.equal(res.status, 500);
      assert.equal(seen[0].error, second);
    });

    test('next() after a later link short-circuited is still an error', async () => {
      let thirdRan = false;
      let second;
      const app = createApp(QUIET);
      use(
        app,
        '/',
        async (ctx, next) => {
          await next();
          second = await Promise.resolve()
            .then(() => next())
            .then(
              () => null,
              (err) => err
            );
        },
        async (ctx) => text(ctx, 'short'),
        async (ctx, next) => {
          thirdRan = true;
          await next();
        }
      );
      get(app, '/', (ctx) => text(ctx, 'handler'));
      const res = await call(app, '/');
      assert.equal(thirdRan, false);
      assert.match(second.message, /called multiple times/);
      assert.equal(await bodyOf(res), 'short');
    });

    test('HEAD on a GET route: same status and headers, no body', async () => {
      let ran = 0;
      const app = createApp();
      use(app, '/', async (ctx, next) => {
        await next();
        ctx.res.headers.set('x-seen', ctx.method);
      });
      get(app, '/doc', (ctx) => {
        ran++;
        return json(ctx, { big: 'body' });
      });
      const res = await call(app, '/doc', { method: 'HEAD' });
      assert.equal(ran, 1);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(res.headers.get('x-seen'), 'HEAD');
      assert.equal(await bodyOf(res), '');
    });

    test('HEAD on a path without GET is a 405; on no path a 404, without body', async () => {
      const app = createApp();
      post(app, '/only-post', (ctx) => text(ctx, 'x'));
      const r405 = await call(app, '/only-post', { method: 'HEAD' });
      assert.equal(r405.status, 405);
      assert.equal(await bodyOf(r405), '');
      const r404 = await call(app, '/nothing', { method: 'HEAD' });
      assert.equal(r404.status, 404);
      assert.equal(await bodyOf(r404), '');
    });

    test('path-prefix middleware runs only under its prefix', async () => {
      const hits = [];
      const app = createApp();
      use(app, '/api', async (ctx, next) => {
        hits.push(ctx.path);
        await next();
      });
      for (const p of ['/', '/api', '/api/users', '/apix', '/other/api']) get(app, p, (ctx) => text(ctx, 'ok'));
      for (const p of ['/', '/api', '/api/users', '/apix', '/other/api']) await call(app, p);
      assert.deepEqual(hits, ['/api', '/api/users']);
    });

    test('prefix forms: "/api/*" equals "/api"; "/", "*" and a bare function run everywhere; ":name" matches a segment', async () => {
      const hits = [];
      const tag = (t) => async (ctx, next) => {
        hits.push(`${t} ${ctx.path}`);
        await next();
      };
      const app = createApp();
      use(app, '/api/*', tag('star'));
      use(app, '*', tag('all'));
      use(app, tag('fn'));
      use(app, '/user/:id/posts', tag('param'));
      all(app, '/*', (ctx) => text(ctx, 'ok'));
      await call(app, '/api/x');
      await call(app, '/user/9/posts/1');
      await call(app, '/user/9/postsX');
      assert.deepEqual(hits, ['star /api/x', 'all /api/x', 'fn /api/x', 'all /user/9/posts/1', 'fn /user/9/posts/1', 'param /user/9/posts/1', 'all /user/9/postsX', 'fn /user/9/postsX']);
    });

    test('middleware runs in registration order, and unwinds in reverse', async () => {
      const order = [];
      const app = createApp();
      const tag = (t) => async (ctx, next) => {
        order.push(`in ${t}`);
        await next();
        order.push(`out ${t}`);
      };
      use(app, '/', tag('a'));
      use(app, '/x', tag('b'), tag('c'));
      use(app, '/', tag('d'));
      get(app, '/x', (ctx) => {
        order.push('handler');
        return text(ctx, 'x');
      });
      await call(app, '/x');
      assert.deepEqual(order, ['in a', 'in b', 'in c', 'in d', 'handler', 'out d', 'out c', 'out b', 'out a']);
    });

    test('middleware added after the first request is picked up (cache invalidation)', async () => {
      const app = createApp();
      get(app, '/', (ctx) => text(ctx, 'ok'));
      assert.equal((await call(app, '/')).headers.get('x-late'), null);
      use(app, '/', async (ctx, next) => {
        await next();
        ctx.res.headers.set('x-late', '1');
      });
      assert.equal((await call(app, '/')).headers.get('x-late'), '1');
    });

    test('setHeader before the response exists applies when it materializes', async () => {
      const app = createApp();
      use(app, '/', async (ctx, next) => {
        setHeader(ctx, 'x-early', 'yes');
        await next();
      });
      get(app, '/', (ctx) => text(ctx, 'ok'));
      const res = await call(app, '/');
      assert.equal(res.headers.get('x-early'), 'yes');
    });

    test('setHeader before the response also lands on a 404 and a 500', async () => {
      const app = createApp(QUIET);
      use(app, '/', async (ctx, next) => {
        setHeader(ctx, 'x-early', 'yes');
        await next();
      });
      get(app, '/boom', () => {
        throw new Error('x');
      });
      assert.equal((await call(app, '/none')).headers.get('x-early'), 'yes');
      assert.equal((await call(app, '/boom')).headers.get('x-early'), 'yes');
    });

    test('setHeader after next() writes straight to ctx.res.headers (same object)', async () => {
      let before;
      let after;
      const app = createApp();
      use(app, '/', async (ctx, next) => {
        await next();
        before = ctx.res;
        setHeader(ctx, 'x-late', 'yes');
        after = ctx.res;
      });
      get(app, '/', (ctx) => text(ctx, 'ok'));
      const res = await call(app, '/');
      assert.equal(before, after);
      assert.equal(res.headers.get('x-late'), 'yes');
    });

    test('setHeader on an immutable platform Response (Response.redirect) copies it once', async () => {
      const app = createApp();
      use(app, '/', async (ctx, next) => {
        await next();
        setHeader(ctx, 'x-late', 'yes');
      });
      get(app, '/go', () => Response.redirect('http://localhost/there', 302));
      const res = await call(app, '/go');
      assert.equal(res.status, 302);
      assert.equal(res.headers.get('location'), 'http://localhost/there');
      assert.equal(res.headers.get('x-late'), 'yes');
    });

    test('a handler may return a platform Response', async () => {
      const app = createApp();
      use(app, '/', async (ctx, next) => {
        await next();
        ctx.res.headers.set('x-mw', '1');
      });
      get(app, '/', () => new Response('platform', { status: 202 }));
      const res = await call(app, '/');
      assert.equal(res.status, 202);
      assert.equal(res.headers.get('x-mw'), '1');
      assert.equal(await bodyOf(res), 'platform');
    });

    test('options: onError and notFound build the error and 404 responses', async () => {
      const seen = [];
      const app = createApp({
        logErrors: false,
        onError: (err, ctx) => json(ctx, { error: err.message }, 503),
        notFound: (ctx) => json(ctx, { missing: ctx.path }, 404),
      });
      use(app, '/', observer(seen));
      get(app, '/boom', () => {
        throw new Error('down');
      });
      const boom = await call(app, '/boom');
      assert.equal(boom.status, 503);
      assert.deepEqual(JSON.parse(await bodyOf(boom)), { error: 'down' });
      assert.equal(seen[0].status, 503);
      const missing = await call(app, '/where');
      assert.deepEqual(JSON.parse(await bodyOf(missing)), { missing: '/where' });
    });

    test('an onError that throws falls back to a plain 500', async () => {
      const app = createApp({
        logErrors: false,
        onError: () => {
          throw new Error('handler of handlers');
        },
      });
      get(app, '/', () => {
        throw new Error('first');
      });
      const res = await call(app, '/');
      assert.equal(res.status, 500);
      assert.equal(await bodyOf(res), 'Internal Server Error');
    });

    test('an async onError is refused with a message, and a plain 500 is sent', async () => {
      const original = console.error;
      const lines = [];
      console.error = (...args) => lines.push(args.map(String).join(' '));
      let res;
      try {
        const app = createApp({ onError: async (err, ctx) => text(ctx, 'too late', 503) });
        get(app, '/', () => {
          throw new Error('first');
        });
        res = await call(app, '/');
      } finally {
        console.error = original;
      }
      assert.equal(res.status, 500);
      assert.equal(lines.length, 2);
      assert.match(lines[1], /onError must return a Response synchronously/);
    });

    test('errors are logged with console.error unless logErrors is false', async () => {
      const original = console.error;
      const lines = [];
      console.error = (...args) => lines.push(args.map(String).join(' '));
      try {
        const app = createApp();
        get(app, '/x', () => {
          throw new Error('visible');
        });
        await call(app, '/x');
        const quiet = createApp(QUIET);
        get(quiet, '/x', () => {
          throw new Error('hidden');
        });
        await call(quiet, '/x');
      } finally {
        console.error = original;
      }
      assert.equal(lines.length, 1);
      assert.match(lines[0], /GET \/x/);
      assert.match(lines[0], /visible/);
    });

    test('requests are independent under concurrency', async () => {
      const app = createApp();
      use(app, '/', async (ctx, next) => {
        ctx.state.id = ctx.params.id ?? ctx.path;
        await next();
        ctx.res.headers.set('x-id', String(ctx.state.id));
      });
      get(app, '/n/:id', async (ctx) => {
        await new Promise((r) => setTimeout(r, Number(ctx.params.id) % 3));
        return text(ctx, ctx.params.id);
      });
      const ids = Array.from({ length: 20 }, (_, i) => String(i));
      const results = await Promise.all(ids.map((id) => call(app, `/n/${id}`)));
      for (let i = 0; i < ids.length; i++) {
        assert.equal(await bodyOf(results[i]), ids[i]);
        assert.equal(results[i].headers.get('x-id'), ids[i]);
      }
    });
  });
}
