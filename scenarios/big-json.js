// scenarios/big-json.js: a large JSON answer. GET /users answers a page
// of 80 users (each with nested stats and a roles array), 16.3 KB of JSON,
// built as objects for every request and serialized by each framework's own
// JSON response (s200's json(), hono's c.json(), express's res.json(),
// fastify's reply serializer for a returned object, elysia's for a returned
// object): no cached string, so the row pays for the allocation and for
// JSON.stringify over ~600 values per request. No middleware.
// Not in bench's default run: name it (`--only big-json`).
// Format: scenarios/README.md.

export const description = 'GET /users answers a 16.3 KB JSON page of 80 users, built and serialized per request';

export const request = { method: 'GET', path: '/users', headers: {}, body: null };

/** Users on a page. */
const PER_PAGE = 80;

export const expect = {
  status: 200,
  body: JSON.stringify(usersPage()),
  // express and fastify add "; charset=utf-8"; parameters are ignored.
  contentType: 'application/json',
  headers: {},
};

/**
 * The page, as new objects every call (what an app builds from its rows).
 * The native rows build the same values in the same order (src/native).
 */
function usersPage() {
  const items = [];
  for (let i = 1; i <= PER_PAGE; i++) {
    items.push({
      id: 1000 + i,
      login: `user${i}`,
      name: `User Number ${i}`,
      email: `user${i}@example.com`,
      active: i % 3 !== 0,
      roles: i % 5 === 0 ? ['admin', 'editor'] : ['reader'],
      stats: { repos: (i * 7) % 40, followers: (i * 131) % 997, following: (i * 17) % 89 },
      createdAt: `2025-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}T09:00:00Z`,
    });
  }
  return { page: 1, perPage: PER_PAGE, total: 1250, items };
}

export const apps = {
  async s200() {
    return s200App(await import('s200'));
  },

  async 's200-light'() {
    return s200App(await import('s200/light'));
  },

  // Also serves hono-patched.
  async hono() {
    const { Hono } = await import('hono');
    const app = new Hono();
    app.get('/users', (c) => c.json(usersPage()));
    return app;
  },

  async express() {
    const { default: express } = await import('express');
    const app = express();
    app.get('/users', (_req, res) => res.json(usersPage()));
    return app;
  },

  // No response schema, so fastify serializes with JSON.stringify, as an
  // app without schemas does.
  async fastify() {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    app.get('/users', async () => usersPage());
    return app;
  },

  async elysia() {
    const { Elysia } = await import('elysia');
    return new Elysia().get('/users', () => usersPage());
  },
};

/** The s200 app; the same code runs on s200 and s200-light. */
function s200App({ createApp, get, json }) {
  const app = createApp();
  get(app, '/users', (ctx) => json(ctx, usersPage()));
  return app;
}
