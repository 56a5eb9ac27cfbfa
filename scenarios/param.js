// scenarios/param.js: one route with a path parameter, no middleware:
// GET /user/42 answers the id, "42", as text/plain in every framework.
// What is read: the path parameter, and the `accept` request header once
// (its value ignored), in each framework's idiom, as in hello.js, which
// says why; the request sends `accept` itself.
// Format: scenarios/README.md.
//
// Content types differ by default, so each app states text/plain where its
// framework would not: express's res.send(string) says text/html; s200's
// text(), hono's c.text(), fastify (a string payload) and elysia (a string
// return) already say text/plain, with or without "; charset=…".

export const description = 'GET /user/:id answers the id as text/plain, no middleware';

export const request = {
  method: 'GET',
  path: '/user/42',
  headers: { accept: 'text/plain' },
  body: null,
};

export const expect = {
  status: 200,
  body: '42',
  contentType: 'text/plain',
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
    app.get('/user/:id', (c) => {
      c.req.header('accept');
      return c.text(c.req.param('id'));
    });
    return app;
  },

  async express() {
    const { default: express } = await import('express');
    const app = express();
    // res.send(string) alone would say text/html.
    app.get('/user/:id', (req, res) => {
      req.headers.accept;
      res.type('text/plain').send(req.params.id);
    });
    return app;
  },

  async fastify() {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    // A string payload is sent as text/plain; charset=utf-8.
    app.get('/user/:id', async (request) => {
      request.headers.accept;
      return request.params.id;
    });
    return app;
  },

  async elysia() {
    const { Elysia } = await import('elysia');
    // A returned string is sent as text/plain.
    return new Elysia().get('/user/:id', ({ params, request }) => {
      request.headers.get('accept');
      return params.id;
    });
  },
};

/** The s200 app; the same code runs on s200 and s200-light. */
function s200App({ createApp, get, text }) {
  const app = createApp();
  get(app, '/user/:id', (ctx) => {
    ctx.req.headers.get('accept');
    return text(ctx, ctx.params.id);
  });
  return app;
}
