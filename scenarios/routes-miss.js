// scenarios/routes-miss.js: the routes.js apps (100 GitHub REST routes),
// asked for a path none of them takes: GET /repos/fwbench/bench/discussions/7
// shares its first three segments with 60 routes, then matches none, so
// each router does its whole search (express tries every layer) before
// the framework's not-found path answers 404 with GitHub's JSON body,
// set in each framework's idiom (s200's createApp({ notFound }), hono's
// app.notFound, a last express middleware, fastify's setNotFoundHandler,
// elysia's onError for NOT_FOUND).
// Not in bench's default run: name it (`--only routes-miss`).
// Format: scenarios/README.md.

import { NOT_FOUND } from './routes.js';

export { apps } from './routes.js';

export const description = 'GET a path none of the 100 GitHub REST routes takes: 404 through the not-found path';

export const request = { method: 'GET', path: '/repos/fwbench/bench/discussions/7', headers: {}, body: null };

export const expect = {
  status: 404,
  body: JSON.stringify(NOT_FOUND),
  // express and fastify add "; charset=utf-8"; parameters are ignored.
  contentType: 'application/json',
  headers: {},
};
