// scenarios/mw.js: the five-link middleware chain of docs/unwind-tax.md. Each framework
// runs it in its own idiom, as docs/unwind-tax.md describes: every link reads
// the x-test request header and sets x-mw-<i> on the response, and the third
// also stores a performance.now() delta in the per-request context. s200 and
// hono write after the handler ran (s200 in place, hono through c.header(),
// which rebuilds the response); express, fastify and elysia write into a
// header store that is serialized at the end. docs/unwind-tax.md's caveats apply:
// idiomatic, not identical; work-equivalent.
//
// What is read: `x-test`, once per link, in each framework's idiom. The
// request sends it itself, so every link finds it under every header set
// (`--headers`, docs/header-sets.md), and the first read makes a framework
// that parses headers lazily parse them all, as hello.js's `accept` does.
//
// The chain's length is a parameter: `depth` below is the article's five,
// and `fwbench sweep` builds the same chain with 0, 1, 2, 4, 8, 16 links
// (each factory and `expect` receive `{ depth }`) to fit the cost of one
// link. Link 3, when there is one, is always the timed link.
// Format: scenarios/README.md.

export const description =
  'five middleware links, each reads x-test and stamps x-mw-<i> after the handler';

/** The number of links `bench` runs; `sweep` varies it. */
export const depth = 5;

export const request = { method: 'GET', path: '/mw', headers: { 'x-test': '1' }, body: null };

/** What a chain of `depth` links answers: x-mw-1 … x-mw-<depth>. */
export function expect({ depth }) {
  return {
    status: 200,
    body: '{"message":"hello"}',
    // express and fastify add "; charset=utf-8"; parameters are ignored.
    contentType: 'application/json',
    headers: Object.fromEntries(links(depth).map((i) => [`x-mw-${i}`, String(i)])),
  };
}

/** The link numbers 1 … depth. */
const links = (depth) => Array.from({ length: depth }, (_, i) => i + 1);

export const apps = {
  // The true unwind: the header is written on the materialized response.
  async s200({ depth }) {
    return s200App(await import('s200'), depth);
  },

  // The same code; ctx.res is a LightResponse with LightHeaders.
  async 's200-light'({ depth }) {
    return s200App(await import('s200/light'), depth);
  },

  // Also a true unwind, but the header write goes through the context.
  async hono({ depth }) {
    const { Hono } = await import('hono');
    const app = new Hono();
    for (const i of links(depth)) {
      if (i === 3) {
        app.use('/mw/*', async (c, next) => {
          c.req.header('x-test');
          const t0 = performance.now();
          await next();
          c.header('x-mw-3', '3');
          c.set('elapsed', performance.now() - t0);
        });
      } else {
        app.use('/mw/*', async (c, next) => {
          c.req.header('x-test');
          await next();
          c.header(`x-mw-${i}`, String(i));
        });
      }
    }
    app.get('/mw', (c) => c.json({ message: 'hello' }));
    return app;
  },

  // Store-and-serialize: setHeader on the way in is equivalent to writing
  // at unwind, since serialization is deferred; the third link's timing
  // store still runs after next().
  async express({ depth }) {
    const { default: express } = await import('express');
    const app = express();
    for (const i of links(depth)) {
      if (i === 3) {
        app.use('/mw', (req, res, next) => {
          req.headers['x-test'];
          const t0 = performance.now();
          res.setHeader('x-mw-3', '3');
          next();
          req.elapsed = performance.now() - t0;
        });
      } else {
        app.use('/mw', (req, res, next) => {
          req.headers['x-test'];
          res.setHeader(`x-mw-${i}`, String(i));
          next();
        });
      }
    }
    app.get('/mw', (_req, res) => res.json({ message: 'hello' }));
    return app;
  },

  // Async onRequest hooks in an encapsulated register scope (fastify hooks
  // are per plugin), writing into the reply's header store.
  async fastify({ depth }) {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    await app.register(async (instance) => {
      for (const i of links(depth)) {
        if (i === 3) {
          instance.addHook('onRequest', async (request, reply) => {
            const t0 = performance.now();
            request.headers['x-test'];
            reply.header('x-mw-3', '3');
            request.elapsed = performance.now() - t0;
          });
        } else {
          instance.addHook('onRequest', async (request, reply) => {
            request.headers['x-test'];
            reply.header(`x-mw-${i}`, String(i));
          });
        }
      }
      instance.get('/mw', async () => ({ message: 'hello' }));
    });
    return app;
  },

  // elysia's onRequest hooks cannot be scoped, so the scoped equivalent is a
  // guard({ beforeHandle }) chain writing set.headers.
  async elysia({ depth }) {
    const { Elysia } = await import('elysia');
    const app = new Elysia();
    const mwLinks = {
      beforeHandle: links(depth).map((i) =>
        i === 3
          ? (ctx) => {
              const t0 = performance.now();
              ctx.request.headers.get('x-test');
              ctx.set.headers['x-mw-3'] = '3';
              ctx.elapsed = performance.now() - t0;
            }
          : (ctx) => {
              ctx.request.headers.get('x-test');
              ctx.set.headers[`x-mw-${i}`] = String(i);
            },
      ),
    };
    app.guard(mwLinks, (scoped) => scoped.get('/mw', () => ({ message: 'hello' })));
    return app;
  },
};

/** The s200 app; the same code runs on s200 and s200-light. */
function s200App({ createApp, use, get, json }, depth) {
  const app = createApp();
  const chain = links(depth).map((i) =>
    i === 3
      ? (ctx, next) => {
          ctx.req.headers.get('x-test');
          const t0 = performance.now();
          return next().then(() => {
            ctx.state.elapsed = performance.now() - t0;
            ctx.res.headers.set('x-mw-3', '3');
          });
        }
      : (ctx, next) => {
          ctx.req.headers.get('x-test');
          return next().then(() => {
            ctx.res.headers.set(`x-mw-${i}`, String(i));
          });
        },
  );
  if (chain.length > 0) use(app, '/mw', ...chain);
  get(app, '/mw', (ctx) => json(ctx, { message: 'hello' }));
  return app;
}
