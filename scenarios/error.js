// scenarios/error.js: a handler that throws, with the five-link chain of
// mw.js mounted. GET /api/orders/42 reaches a handler that throws
// `new Error('order store unavailable')`; the framework's own error handling
// answers 500 with {"error":"order store unavailable"} as JSON (s200's
// createApp({ onError }), hono's app.onError, an express error middleware,
// fastify's setErrorHandler, elysia's onError), and every link stamps
// x-mw-<i> all the same:
//
// - s200, hono: the true unwind. The error is turned into the error
//   response where it was thrown, and each link's code after `await next()`
//   stamps that response on the way out (s200 in place, hono through
//   c.header()).
// - express, fastify, elysia: the links write into the response's header
//   store on the way in (as in mw.js), and the error answer is built on top
//   of that store, so it keeps them: express's error middleware writes into
//   the same res, fastify's error handler into the same reply, elysia's
//   onError answer is mapped with the request's `set.headers`.
//
// Per-request logging, by default: s200 prints every caught error with
// console.error (createApp's logErrors, true unless turned off), so its rows
// pay for a log line per request, as an s200 app that keeps the default
// does; hono, express, fastify (its logger is off by default) and elysia log
// nothing once an error handler is set (hono's and express's default
// handlers would log; these apps replace them, as an API does to answer
// JSON). Not in bench's default run: name it (`--only error`).
// Format: scenarios/README.md.

export const description =
  'the handler throws inside the five-link chain; the error handler answers 500 JSON and every link still stamps';

export const request = { method: 'GET', path: '/api/orders/42', headers: { 'x-test': '1' }, body: null };

/** What the handler throws. */
const MESSAGE = 'order store unavailable';

export const expect = {
  status: 500,
  body: JSON.stringify({ error: MESSAGE }),
  // express and fastify add "; charset=utf-8"; parameters are ignored.
  contentType: 'application/json',
  headers: Object.fromEntries(links().map((i) => [`x-mw-${i}`, String(i)])),
};

/** The link numbers 1 … 5, link 3 the timed one (as in mw.js). */
function links() {
  return [1, 2, 3, 4, 5];
}

/** The handler's work: it fails, as a lost database connection would. */
function loadOrder() {
  throw new Error(MESSAGE);
}

export const apps = {
  async s200() {
    return s200App(await import('s200'));
  },

  async 's200-light'() {
    return s200App(await import('s200/light'));
  },

  // Also serves hono-patched. The thrown error reaches app.onError at the
  // handler; the links' code after `await next()` runs on its response.
  async hono() {
    const { Hono } = await import('hono');
    const app = new Hono();
    for (const i of links()) {
      if (i === 3) {
        app.use('/api/*', async (c, next) => {
          c.req.header('x-test');
          const t0 = performance.now();
          await next();
          c.header('x-mw-3', '3');
          c.set('elapsed', performance.now() - t0);
        });
      } else {
        app.use('/api/*', async (c, next) => {
          c.req.header('x-test');
          await next();
          c.header(`x-mw-${i}`, String(i));
        });
      }
    }
    app.get('/api/orders/:id', (c) => c.json(loadOrder(c.req.param('id'))));
    app.onError((err, c) => c.json({ error: err.message }, 500));
    return app;
  },

  // A synchronous throw in the handler goes to the error middleware (four
  // arguments), which answers on the same res the links stamped.
  async express() {
    const { default: express } = await import('express');
    const app = express();
    for (const i of links()) {
      if (i === 3) {
        app.use('/api', (req, res, next) => {
          req.headers['x-test'];
          const t0 = performance.now();
          res.setHeader('x-mw-3', '3');
          next();
          req.elapsed = performance.now() - t0;
        });
      } else {
        app.use('/api', (req, res, next) => {
          req.headers['x-test'];
          res.setHeader(`x-mw-${i}`, String(i));
          next();
        });
      }
    }
    app.get('/api/orders/:id', (req, res) => res.json(loadOrder(req.params.id)));
    app.use((err, _req, res, _next) => {
      res.status(500).json({ error: err.message });
    });
    return app;
  },

  // The async handler rejects; the scope's setErrorHandler answers on the
  // reply the onRequest hooks stamped. The logger is off (the default).
  async fastify() {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    await app.register(async (instance) => {
      for (const i of links()) {
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
      instance.setErrorHandler((error, _request, reply) => {
        reply.code(500).send({ error: error.message });
      });
      instance.get('/api/orders/:id', async (request) => loadOrder(request.params.id));
    });
    return app;
  },

  // The guard's beforeHandle links stamp set.headers; the thrown error goes
  // to onError, whose returned object is answered as JSON with those
  // headers.
  async elysia() {
    const { Elysia } = await import('elysia');
    const app = new Elysia().onError(({ error, set }) => {
      set.status = 500;
      return { error: error.message };
    });
    const mwLinks = {
      beforeHandle: links().map((i) =>
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
    app.guard(mwLinks, (scoped) => scoped.get('/api/orders/:id', ({ params }) => loadOrder(params.id)));
    return app;
  },
};

/** The s200 app; the same code runs on s200 and s200-light. */
function s200App({ createApp, use, get, json }) {
  // logErrors stays at its default (true): one console.error per request.
  const app = createApp({ onError: (err, ctx) => json(ctx, { error: err.message }, 500) });
  const chain = links().map((i) =>
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
  use(app, '/api', ...chain);
  get(app, '/api/orders/:id', (ctx) => json(ctx, loadOrder(ctx.params.id)));
  return app;
}
