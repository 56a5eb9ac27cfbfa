// Serves one of fwbench's scenario apps on Node, Deno or Bun, as that
// runtime ordinarily serves such an app, for bench's runtime rows
// (`--runtime node,deno,bun`; src/bench/runtimes/). bench writes it, with
// the framework bundles and scenario modules it embeds, into a private
// directory and runs, from there:
//
//   node launch.mjs MODE MAIN    deno run -A launch.mjs MODE MAIN    bun launch.mjs MODE MAIN
//
// (benches/runtimes/bench.py gives a PORT after MAIN; bench lets the
// system pick one.)
//
// MAIN's default export is the app (built by runtime/scenario.js's appFor,
// the same code fwbench serves); MODE is how fwbench serves it:
//   node: a node:http request listener (express), or an object with
//         listen() (fastify): served by the runtime's node:http;
//   fetch, hono-node-server: an object with fetch(request): Deno.serve and
//         Bun.serve on those; on Node, which has no fetch-style server,
//         through @hono/node-server's serve(), as hono and other fetch apps
//         run on Node.
// It listens on 127.0.0.1, on PORT or a port the system picks, and prints one banner
// line in `fwbench serve`'s form (the address, and when the runtime was
// ready and the app loaded, in ms since the process started), which bench
// reads as it reads its own servers'.
import { pathToFileURL } from 'node:url';

const runtimeReady = performance.now();
const [mode, main, portArg = '0'] = process.argv.slice(2);
const hostname = '127.0.0.1';
const port = Number(portArg);
const validPort = Number.isInteger(port) && port >= 0 && port <= 65535;
if (!['node', 'fetch', 'hono-node-server'].includes(mode) || !main || !validPort) {
  console.error('usage: launch.mjs node|fetch|hono-node-server MAIN [PORT]');
  process.exit(2);
}
// What the app prints goes to stderr, so the banner is stdout's first line.
console.log = console.info = console.debug = console.error;

const app = (await import(pathToFileURL(main).href)).default;
const appLoaded = performance.now();

/** The port `app` is served on, once it listens. */
async function listen() {
  if (mode === 'node') {
    if (typeof app === 'function') {
      const { createServer } = await import('node:http');
      const server = createServer(app);
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, hostname, resolve);
      });
      return server.address().port;
    }
    if (typeof app?.listen === 'function') {
      await app.listen({ port, host: hostname });
      return app.server.address().port;
    }
    throw new TypeError('a node-style app is a request listener or has listen()');
  }
  if (typeof app?.fetch !== 'function') throw new TypeError('a fetch-style app has fetch(request)');
  const fetch = (request) => app.fetch(request);
  if (globalThis.Bun) return Bun.serve({ port, hostname, fetch }).port;
  if (globalThis.Deno) {
    return await new Promise((resolve) => {
      Deno.serve({ port, hostname, onListen: ({ port }) => resolve(port) }, fetch);
    });
  }
  const { serve } = await import('@hono/node-server');
  return await new Promise((resolve) => serve({ fetch, port, hostname }, (info) => resolve(info.port)));
}

const listening = await listen();
const runtime = globalThis.Bun
  ? `bun ${Bun.version}`
  : globalThis.Deno
    ? `deno ${Deno.version.deno}`
    : `node ${process.version}`;
const ms = (at) => at.toFixed(1);
process.stdout.write(
  `fwbench-launch serving ${main} (${mode} app) on http://${hostname}:${listening}/ with 1 worker [${runtime}] ` +
    `· started: runtime ready ${ms(runtimeReady)} ms, app loaded ${ms(appLoaded)} ms, ` +
    `banner ${ms(performance.now())} ms\n`,
);
