// A rehearsal of a framework snapshot's rows, run at build time in a
// throwaway runtime (build.rs): each row's app for the built-in scenarios
// is built and sent the scenario's request, as a row's runtime would be.
//
// Nothing of it goes into a snapshot but bytecode. The functions that ran
// are then compiled, and build.rs takes each module's V8 code cache from
// this runtime and hands it to the runtime the snapshot is made in, where
// V8 reads the compiled functions from it instead of compiling them on a
// row's first request. No request runs in that runtime: a request path
// that ran while a snapshot was made stays slower in the runtimes made
// from it (warmup.js says by how much).

import { appFor } from './scenario.js';
import { runNode, serverHandler } from './node/_http_dispatch.js';

/** The scenarios rehearsed: the rows' built-in ones. */
const SCENARIOS = ['hello', 'param', 'mw'];

/** The host the adapter's requests name (any loopback address will do). */
const ORIGIN = 'http://127.0.0.1:3000';

/** Sends `request` (a scenario's) to a node-style listener; resolves with its status. */
function sendNode(listener, request) {
  const rawHeaders = ['host', ORIGIN.slice('http://'.length)];
  for (const [name, value] of Object.entries(request.headers ?? {})) rawHeaders.push(name, value);
  const hostRequest = {
    method: request.method,
    url: request.path,
    rawHeaders,
    body: null,
    remoteAddress: '127.0.0.1',
    remotePort: 0,
  };
  return new Promise((resolve, reject) => runNode(listener, hostRequest, (out) => resolve(out.status), reject));
}

/**
 * Sends `request` to a row's app as serve.js serves it (fetch-style, an
 * express app, a fastify instance); resolves with the status.
 */
async function send(app, request) {
  if (app !== null && typeof app === 'object' && typeof app.fetch === 'function') {
    const response = await app.fetch(
      new Request(ORIGIN + request.path, { method: request.method, headers: request.headers }),
    );
    await response.arrayBuffer();
    return response.status;
  }
  if (typeof app === 'function' && typeof app.handle === 'function') return sendNode(app, request);
  if (app !== null && typeof app === 'object' && typeof app.ready === 'function') {
    await app.ready();
    return sendNode(serverHandler(app.server), request);
  }
  throw new TypeError(`the rehearsal cannot serve this app (${typeof app})`);
}

/**
 * Builds each row's app for each built-in scenario and sends it the
 * scenario's request twice (a framework may take one path on its first
 * request to a route, another after). Fails on an answer that is not 2xx.
 * @param {{ name: string, factory: string, mode: string }[]} rows
 */
export async function rehearse(rows) {
  // hono-node-server replaces this runtime's Request and Response: its
  // rows go last, so that every other row runs on the platform's.
  const ordered = [...rows].sort((a, b) => (a.mode === 'hono-node-server') - (b.mode === 'hono-node-server'));
  for (const row of ordered) {
    for (const name of SCENARIOS) {
      const scenario = await import(`fwbench:///scenarios/${name}.js`);
      const app = await appFor(scenario, name, row);
      for (let i = 0; i < 2; i++) {
        const status = await send(app, scenario.request);
        if (status < 200 || status > 299) {
          throw new Error(`the ${row.name} ${name} rehearsal answered ${status}`);
        }
      }
    }
  }
}
