// Warms a framework up before its startup snapshot is taken (build.rs,
// src/engine/snapshot_sets.rs): builds a throwaway app with the framework's
// own API (a middleware, a plain route, a route with a parameter; fastify's
// `ready()` too) and drops it.
//
// What that leaves in the snapshot is what any process has after making
// its first app, and nothing of the app: the modules a framework requires
// only then are evaluated (fastify's ajv and its schema compilers, on the
// first `Fastify()`), and the framework's functions that ran are compiled
// to bytecode, which V8 keeps in a snapshot. A row's runtime then builds
// its own app, with its own instance, as before; it only skips that work.
//
// No request is sent. A warm-up that also sent each app three requests
// saved a few more milliseconds of start-up, but the rows then served at
// 0.47 (express) to 0.73 (fastify) of the req/s, allocating more per
// request, in paired bench rounds (benches/results/
// 2026-12-06-framework-warm-up.txt): the request path that ran while the
// snapshot was made stayed slower in every runtime made from it.
//
// Only the framework's own API is used. hono-patched's @hono/node-server,
// which replaces the global Request and Response when its listener is made,
// is not touched: its snapshot is hono's, and the hono row shares it.

async function s200(specifier) {
  const { createApp, use, get, json } = await import(specifier);
  const app = createApp();
  use(app, async (ctx, next) => {
    await next();
    ctx.res.headers.set('x-warm', '1');
  });
  get(app, '/', (ctx) => json(ctx, { message: 'hello' }));
  get(app, '/users/:id', (ctx) => json(ctx, { id: ctx.params.id }));
}

const WARM_UPS = {
  s200: () => s200('s200'),
  's200/light': () => s200('s200/light'),

  async hono() {
    const { Hono } = await import('hono');
    const app = new Hono();
    app.use('*', async (c, next) => {
      await next();
      c.header('x-warm', '1');
    });
    app.get('/', (c) => c.json({ message: 'hello' }));
    app.get('/users/:id', (c) => c.json({ id: c.req.param('id') }));
  },

  async express() {
    const { default: express } = await import('express');
    const app = express();
    app.use((_req, res, next) => {
      res.setHeader('x-warm', '1');
      next();
    });
    app.get('/', (_req, res) => res.json({ message: 'hello' }));
    app.get('/users/:id', (req, res) => res.json({ id: req.params.id }));
  },

  async fastify() {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    app.addHook('onRequest', async (_request, reply) => {
      reply.header('x-warm', '1');
    });
    app.get('/', async () => ({ message: 'hello' }));
    app.get('/users/:id', async (request) => ({ id: request.params.id }));
    await app.ready();
  },

  async elysia() {
    const { Elysia } = await import('elysia');
    new Elysia()
      .onBeforeHandle(({ set }) => {
        set.headers['x-warm'] = '1';
      })
      .get('/', () => ({ message: 'hello' }))
      .get('/users/:id', ({ params }) => ({ id: params.id }));
  },
};

/**
 * Runs the warm-ups named (keys of WARM_UPS: a framework package, as app
 * code imports it), one after the other.
 * @param {string[]} names
 */
export async function warmUp(names) {
  // The console cannot print while a snapshot is taken (deno_web makes its
  // printer on first use, and cannot then), and a framework logs only on
  // an error path: what it would have printed becomes the build's error.
  const console = Object.getOwnPropertyDescriptor(globalThis, 'console');
  const logged = [];
  const describe = (arg) => (arg instanceof Error ? arg.stack : String(arg));
  globalThis.console = new Proxy(console.value, {
    get: (target, key) =>
      typeof target[key] === 'function'
        ? (...args) => logged.push(`console.${String(key)}: ${args.map(describe).join(' ')}`)
        : target[key],
  });
  // V8 leaves its own queueMicrotask out of a context being snapshotted
  // (deno_core's wrapper finds it at run time), and process.nextTick
  // (fastify's plugin loader) queues through the global one: a promise job
  // stands in for it.
  const queueMicrotask = Object.getOwnPropertyDescriptor(globalThis, 'queueMicrotask');
  globalThis.queueMicrotask = (callback) => {
    Promise.resolve().then(callback);
  };
  try {
    for (const name of names) {
      const run = WARM_UPS[name];
      if (run === undefined) throw new Error(`no warm-up for ${name}`);
      await run();
      if (logged.length > 0) throw new Error(`the ${name} warm-up logged:\n${logged.join('\n')}`);
    }
  } finally {
    Object.defineProperty(globalThis, 'console', console);
    Object.defineProperty(globalThis, 'queueMicrotask', queueMicrotask);
  }
}
