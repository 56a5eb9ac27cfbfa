// scenarios/routes.js: a real API's route table. Every app registers the
// same 100 routes of GitHub's REST API v3 (scenarios/data/github-routes.js
// says where they come from), each with its own method and parameters, and
// a JSON not-found answer; GET /repos/fwbench/bench/actions/runs/8675309/jobs
// hits the 98th route registered, so routers that try routes in order
// (express walks its stack, testing each layer's RegExp) pay for the 97
// before it, and compiled or tree routers (hono's one RegExp, fastify's and
// elysia's radix trees, s200's per-path cache) show what they save. Each
// route answers {"route": <operation id>, <param>: <value>, ...}, the
// parameters read one by one through the framework's own API, in the
// path's order. routes-miss.js serves the same apps a path no route takes.
// Not in bench's default run: name it (`--only routes`).
// Format: scenarios/README.md.

import ROUTES from './data/github-routes.js';

export const description =
  'GET a late route of a 100-route GitHub REST table (params echoed as JSON), every framework\'s router';

export const request = {
  method: 'GET',
  path: '/repos/fwbench/bench/actions/runs/8675309/jobs',
  headers: {},
  body: null,
};

export const expect = {
  status: 200,
  body: JSON.stringify({
    route: 'actions/list-jobs-for-workflow-run',
    owner: 'fwbench',
    repo: 'bench',
    run_id: '8675309',
  }),
  // express and fastify add "; charset=utf-8"; parameters are ignored.
  contentType: 'application/json',
  headers: {},
};

/** The route table: [method, path, operation id], in registration order. */
export const routes = ROUTES;

/** What a path no route takes answers (404), GitHub's own not-found body. */
export const NOT_FOUND = { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' };

/** The parameter names of a `:param` path, in order. */
function paramNames(path) {
  return path
    .split('/')
    .filter((segment) => segment.startsWith(':'))
    .map((segment) => segment.slice(1));
}

/** A route's answer: its operation id, then each parameter read by `param`. */
function answer(id, names, param) {
  const body = { route: id };
  for (const name of names) body[name] = param(name);
  return body;
}

export const apps = {
  async s200() {
    return s200App(await import('s200'));
  },

  async 's200-light'() {
    return s200App(await import('s200/light'));
  },

  // Also serves hono-patched. hono's default router (SmartRouter) compiles
  // the table into one RegExp at the first request.
  async hono() {
    const { Hono } = await import('hono');
    const app = new Hono();
    for (const [method, path, id] of ROUTES) {
      const names = paramNames(path);
      app.on(method, path, (c) => c.json(answer(id, names, (name) => c.req.param(name))));
    }
    app.notFound((c) => c.json(NOT_FOUND, 404));
    return app;
  },

  // One router layer per route, tried in order; a last middleware answers
  // what none took.
  async express() {
    const { default: express } = await import('express');
    const app = express();
    for (const [method, path, id] of ROUTES) {
      const names = paramNames(path);
      app[method.toLowerCase()](path, (req, res) => res.json(answer(id, names, (name) => req.params[name])));
    }
    app.use((_req, res) => res.status(404).json(NOT_FOUND));
    return app;
  },

  // find-my-way's radix tree; setNotFoundHandler replaces fastify's
  // default 404 body.
  async fastify() {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    for (const [method, url, id] of ROUTES) {
      const names = paramNames(url);
      app.route({ method, url, handler: async (request) => answer(id, names, (name) => request.params[name]) });
    }
    app.setNotFoundHandler((_request, reply) => reply.code(404).send(NOT_FOUND));
    return app;
  },

  // elysia's radix router; its NOT_FOUND error goes to onError, which
  // answers GitHub's body instead of elysia's "NOT_FOUND" text.
  async elysia() {
    const { Elysia } = await import('elysia');
    const app = new Elysia().onError(({ code, set }) => {
      if (code === 'NOT_FOUND') {
        set.status = 404;
        return NOT_FOUND;
      }
    });
    for (const [method, path, id] of ROUTES) {
      const names = paramNames(path);
      app.route(method, path, ({ params }) => answer(id, names, (name) => params[name]));
    }
    return app;
  },
};

/** The s200 app; the same code runs on s200 and s200-light. */
function s200App(s200) {
  const { createApp, json } = s200;
  const app = createApp({ notFound: (ctx) => json(ctx, NOT_FOUND, 404) });
  const register = { GET: s200.get, POST: s200.post, PUT: s200.put, PATCH: s200.patch, DELETE: s200.del };
  for (const [method, path, id] of ROUTES) {
    const names = paramNames(path);
    register[method](app, path, (ctx) => json(ctx, answer(id, names, (name) => ctx.params[name])));
  }
  return app;
}
