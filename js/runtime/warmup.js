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
// saved a few more milliseconds of start-up, but express, fastify, hono
// and hono-patched then served hello at 0.47-0.73 of the req/s, allocating
// more per request, in paired bench rounds (elysia and s200 unchanged;
// benches/results/2026-12-06-framework-warm-up.txt): a framework's request
// path that ran while the snapshot was made stayed slower in the runtimes
// made from it. The same goes for composing: elysia's `precompile` and
// `compile()` on the throwaway app (its handlers composed, no request)
// started elysia 0.81 of the time, but its hello row then allocated 9 %
// more per request (2,390 -> 2,620 bytes, 5 pairs) at 0.92-0.97 of the
// req/s. Not done either. The request path is compiled into the snapshot
// another way, with nothing run: build.rs rehearses the rows in another
// runtime (rehearsal.js) and hands this one V8's code caches from it.
//
// No timer may be set either. deno_core keeps its timer lists in JS, so
// they go into the snapshot: a timer pending, or cleared before it was due,
// leaves an entry (and the time of the next expiry, on the build's clock)
// that the runtimes made from the snapshot would inherit. Hence fastify's
// `pluginTimeout: 0` and elysia's `sucrose.gcTime: null`, and `warmUp`
// fails the build on a `setTimeout` or `setInterval` through the globals.
// (node:timers and setImmediate hold the platform functions from before
// the warm-up; a setImmediate runs to its end before the snapshot is
// taken, build.rs sees to it.)
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
    // Its plugin loader otherwise sets a 10 s timer per plugin.
    const app = Fastify({ pluginTimeout: 0 });
    app.addHook('onRequest', async (_request, reply) => {
      reply.header('x-warm', '1');
    });
    app.get('/', async () => ({ message: 'hello' }));
    app.get('/users/:id', async (request) => ({ id: request.params.id }));
    await app.ready();
  },

  async elysia() {
    const { Elysia } = await import('elysia');
    // Its handler analysis otherwise sets a 295 s timer to drop its cache.
    new Elysia({ sucrose: { gcTime: null } })
      .onBeforeHandle(({ set }) => {
        set.headers['x-warm'] = '1';
      })
      .get('/', () => ({ message: 'hello' }))
      .get('/users/:id', ({ params }) => ({ id: params.id }));
  },
};

/** An argument as a build error shows it. */
function describe(arg) {
  if (arg instanceof Error) return arg.stack;
  if (typeof arg === 'object' && arg !== null) {
    try {
      return JSON.stringify(arg);
    } catch {
      // A cycle: what String() says will have to do.
    }
  }
  return String(arg);
}

/**
 * Runs the warm-ups named (keys of WARM_UPS: a framework package, as app
 * code imports it), one after the other. Fails if one throws, logs, or
 * sets a timer through the globals.
 * @param {string[]} names
 */
export async function warmUp(names) {
  const logged = [];
  // The globals stood in for while the warm-ups run, with their own
  // descriptors, put back as they were when the warm-ups end.
  const saved = new Map();
  const standIn = (name, make) => {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, name);
    saved.set(name, descriptor);
    globalThis[name] = make(descriptor.value);
  };
  // The console cannot print while a snapshot is taken (deno_web makes its
  // printer on first use, and cannot then), and a framework logs only on
  // an error path: what it would have printed becomes the build's error.
  standIn('console', (console) => new Proxy(console, {
    get: (target, key) =>
      typeof target[key] === 'function'
        ? (...args) => logged.push(`console.${String(key)}: ${args.map(describe).join(' ')}`)
        : target[key],
  }));
  // V8 leaves its own queueMicrotask out of a context being snapshotted
  // (deno_core's wrapper finds it at run time), and process.nextTick
  // queues through the global one: a promise job stands in for it.
  standIn('queueMicrotask', () => (callback) => {
    Promise.resolve().then(callback);
  });
  // Timers are recorded, and fail the build (see the top of this file).
  for (const name of ['setTimeout', 'setInterval']) {
    standIn(name, (timer) => (callback, delay, ...args) => {
      logged.push(`${name}(…, ${delay}) ${new Error().stack.split('\n').slice(2, 5).map((line) => line.trim()).join(', ')}`);
      return Reflect.apply(timer, globalThis, [callback, delay, ...args]);
    });
  }
  try {
    for (const name of names) {
      const run = WARM_UPS[name];
      if (run === undefined) throw new Error(`no warm-up for ${name}: add one to WARM_UPS in js/runtime/warmup.js`);
      try {
        await run();
      } catch (error) {
        const also = logged.length > 0 ? `\nit also logged:\n${logged.join('\n')}` : '';
        throw new Error(`the ${name} warm-up (js/runtime/warmup.js) failed: ${describe(error)}${also}`);
      }
      // A log from a promise job the warm-up left queued counts too.
      await Promise.resolve();
      if (logged.length > 0) {
        throw new Error(`the ${name} warm-up (js/runtime/warmup.js) logged or set a timer:\n${logged.join('\n')}`);
      }
    }
  } finally {
    for (const [name, descriptor] of saved) Object.defineProperty(globalThis, name, descriptor);
  }
}
