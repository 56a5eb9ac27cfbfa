// scenarios/hello.js: the floor. One route, no middleware: GET / answers
// {"message":"hello"} as JSON in every framework. It measures routing
// dispatch plus the adapter, the row every published benchmark shows
// (docs/unwind-tax.md).
//
// What is read: every app reads the `accept` request header once, in its
// framework's idiom, and ignores the value. Frameworks and the host parse
// request headers lazily, so an app that read none would get a browser's
// dozen headers (`--headers browser`, docs/header-sets.md) nearly for free;
// real handlers read some. The request sends `accept` itself, so the read
// finds a value under every header set (the scenario's own header wins over
// the set's).
// Format: scenarios/README.md.

export const description = 'GET / answers {"message":"hello"} as JSON, no middleware';

export const request = {
  method: 'GET',
  path: '/',
  headers: { accept: 'application/json' },
  body: null,
};

export const expect = {
  status: 200,
  body: '{"message":"hello"}',
  // express and fastify add "; charset=utf-8"; parameters are ignored.
  contentType: 'application/json',
  headers: {},
};

export const apps = {
  async s200() {
    return s200App(await import('s200'));
  },

  async 's200-light'() {
    return s200App(await import('s200/light'));
  },

  async hono() {
    const { Hono } = await import('hono');
    const app = new Hono();
    app.get('/', (c) => {
      c.req.header('accept');
      return c.json({ message: 'hello' });
    });
    return app;
  },

  async express() {
    const { default: express } = await import('express');
    const app = express();
    app.get('/', (req, res) => {
      req.headers.accept;
      res.json({ message: 'hello' });
    });
    return app;
  },

  async fastify() {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    app.get('/', async (request) => {
      request.headers.accept;
      return { message: 'hello' };
    });
    return app;
  },

  async elysia() {
    const { Elysia } = await import('elysia');
    return new Elysia().get('/', ({ request }) => {
      request.headers.get('accept');
      return { message: 'hello' };
    });
  },
};

/** The s200 app; the same code runs on s200 and s200-light. */
function s200App({ createApp, get, json }) {
  const app = createApp();
  get(app, '/', (ctx) => {
    ctx.req.headers.get('accept');
    return json(ctx, { message: 'hello' });
  });
  return app;
}
