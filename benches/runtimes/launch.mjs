// Serves one app file on Node or Deno the way that runtime ordinarily serves
// it. Usage: node launch.mjs KIND APP PORT, or deno run -A launch.mjs KIND APP PORT,
// where KIND is fetch (the default export has fetch(request)), express or
// fastify (the default export is such an app).
//   Node: fetch apps through @hono/node-server's serve() (Node has no
//         built-in fetch-style server; this is how hono, elysia and other
//         fetch apps run on Node), express and fastify with their own listen().
//   Deno: fetch apps through Deno.serve(), express and fastify with their own
//         listen() over Deno's node:http compatibility layer.
import { pathToFileURL } from 'node:url';

const [kind, appPath, portArg] = process.argv.slice(2);
const port = Number(portArg);
const hostname = '127.0.0.1';
if (!['fetch', 'express', 'fastify'].includes(kind) || !appPath || !Number.isInteger(port)) {
  console.error('usage: launch.mjs fetch|express|fastify APP PORT');
  process.exit(2);
}

const app = (await import(pathToFileURL(appPath).href)).default;

if (kind === 'fetch') {
  if (globalThis.Deno) {
    Deno.serve({ port, hostname, onListen() {} }, app.fetch);
  } else {
    const { serve } = await import('@hono/node-server');
    serve({ fetch: app.fetch, port, hostname });
  }
} else if (kind === 'express') {
  app.listen(port, hostname);
} else {
  await app.listen({ port, host: hostname });
}
