/**
 * The app: `createApp`, registration (`use`, `get`, ... `all`) and
 * `app.fetch`, the entry point every host calls.
 *
 * `app.fetch(request)` finds what the path resolves to (src/router.js),
 * makes a Context (src/context.js), runs the chain (src/compose.js) and
 * returns `ctx.res`: synchronously when the whole chain ran synchronously,
 * otherwise as a promise. A light app (s200-light) does the same with
 * LightResponses inside and converts at the edge (see `fetch` below).
 *
 * @module
 */

import { Context } from './context.js';
import { run } from './compose.js';
import { compilePrefix, compileRoute, lookup, resolve } from './router.js';
import { lightKit, platformKit } from './response.js';
import { isLightResponse, toResponse } from './light-response.js';

/**
 * Set by a host whose adapter speaks the light response protocol
 * (fwbench sets `globalThis[Symbol.for('fwbench.host')]`). When it is
 * truthy, a light app's `fetch` returns LightResponses as they are.
 */
export const HOST_MARKER = Symbol.for('fwbench.host');

const TEXT_TYPE = 'text/plain; charset=UTF-8';

class App {
  constructor(options, kit) {
    /** Makes responses of this app's kind (platform or light). */
    this.kit = kit;
    /** @type {{ method: string, handler: Function }[]} */
    this.routes = [];
    /** @type {{ prefix: string, match: (path: string) => boolean, fn: Function }[]} */
    this.middleware = [];
    /** path -> PathEntry (src/router.js) */
    this.cache = new Map();
    this.logErrors = options.logErrors ?? true;
    const onError = options.onError;
    this.onError =
      typeof onError === 'function' ? onError : () => kit.respond('Internal Server Error', 500, TEXT_TYPE);
    const notFound = options.notFound;
    this.notFound =
      typeof notFound === 'function'
        ? notFound
        : function notFound() {
            return kit.respond('Not Found', 404, TEXT_TYPE);
          };

    /**
     * Answers a request. Own, bound property, so `export default app` and
     * `Deno.serve(app.fetch)` both work.
     * @type {(request: Request) => Response | Promise<Response>}
     */
    this.fetch = kit.light
      ? (request) => handle(this, request, globalThis[HOST_MARKER] ? finishLight : finishConverted)
      : (request) => handle(this, request, finishPlatform);
    if (kit.light) {
      /**
       * Answers a request with the light response itself, whatever the
       * host. For adapters that speak the protocol.
       * @type {(request: Request) => LightResponse | Promise<LightResponse>}
       */
      this.fetchLight = (request) => handle(this, request, finishLight);
    }
  }
}

/**
 * Creates an app.
 *
 * @param {object} [options]
 * @param {(err: unknown, ctx: Context) => Response} [options.onError] builds
 *   the response for an error (synchronously); default: 500 "Internal Server Error"
 * @param {(ctx: Context) => Response} [options.notFound] builds the 404
 *   response; default: 404 "Not Found"
 * @param {boolean} [options.logErrors=true] print each caught error with console.error
 * @param {boolean} [options.light=false] make a light app (what s200/light's createApp does)
 * @returns {App}
 * @example
 * import { createApp, get, json } from 's200';
 * const app = createApp();
 * get(app, '/', (ctx) => json(ctx, { message: 'hello' }));
 * export default app;
 */
export function createApp(options = {}) {
  return new App(options, options.light === true ? lightKit : platformKit);
}

function checkApp(app) {
  if (!(app instanceof App)) throw new TypeError('expected an app made by createApp() as the first argument');
}

function checkFunction(fn, what) {
  if (typeof fn !== 'function') throw new TypeError(`${what} must be a function, got ${fn === null ? 'null' : typeof fn}`);
}

/**
 * Registers middleware for a path prefix (`'/'` for every path), in order.
 *
 * @param {App} app
 * @param {string} path prefix: `/api` covers `/api` and `/api/...`
 * @param {...Function} middleware `(ctx, next) => Promise<void | Response>`
 * @returns {App}
 * @example
 * use(app, '/api', async (ctx, next) => {
 *   await next();
 *   ctx.res.headers.set('x-api', '1'); // ctx.res always exists here
 * });
 */
export function use(app, path, ...middleware) {
  checkApp(app);
  if (typeof path === 'function') {
    middleware.unshift(path);
    path = '/';
  }
  const match = compilePrefix(path);
  if (middleware.length === 0) throw new TypeError(`use(app, ${JSON.stringify(path)}) needs at least one middleware function`);
  for (const fn of middleware) checkFunction(fn, 'middleware');
  for (const fn of middleware) app.middleware.push({ prefix: path, match, fn });
  app.cache.clear();
  return app;
}

function addRoute(app, method, path, handler) {
  checkApp(app);
  const route = compileRoute(path);
  checkFunction(handler, `handler for ${method} ${path}`);
  app.routes.push({ ...route, method, handler });
  app.cache.clear();
  return app;
}

/**
 * Registers a GET route (HEAD requests are answered by it too, without body).
 * @param {App} app
 * @param {string} path e.g. `/user/:id`
 * @param {(ctx: Context) => Response | Promise<Response>} handler
 * @returns {App}
 * @example
 * get(app, '/user/:id', (ctx) => json(ctx, { id: ctx.params.id }));
 */
export const get = (app, path, handler) => addRoute(app, 'GET', path, handler);
/** Registers a POST route. @param {App} app @param {string} path @param {Function} handler @returns {App} */
export const post = (app, path, handler) => addRoute(app, 'POST', path, handler);
/** Registers a PUT route. @param {App} app @param {string} path @param {Function} handler @returns {App} */
export const put = (app, path, handler) => addRoute(app, 'PUT', path, handler);
/** Registers a PATCH route. @param {App} app @param {string} path @param {Function} handler @returns {App} */
export const patch = (app, path, handler) => addRoute(app, 'PATCH', path, handler);
/** Registers a DELETE route (`del`: `delete` is reserved). @param {App} app @param {string} path @param {Function} handler @returns {App} */
export const del = (app, path, handler) => addRoute(app, 'DELETE', path, handler);
/** Registers a route for every method. @param {App} app @param {string} path @param {Function} handler @returns {App} */
export const all = (app, path, handler) => addRoute(app, 'ALL', path, handler);

/**
 * One request, start to finish.
 * @param {App} app
 * @param {Request} request
 * @param {(ctx: Context) => Response} finish turns ctx.res into what fetch returns
 */
function handle(app, request, finish) {
  const url = request.url;
  if (typeof url !== 'string') throw new TypeError('app.fetch(request) needs a Request (or an object with url, method and headers)');
  const method = request.method;

  // The path is what follows the authority, up to '?' or '#'. Slicing the
  // string is several times cheaper than `new URL()` and is all the
  // router needs; ctx.query parses the rest on demand.
  let start = url.charCodeAt(0) === 47 /* / */ ? 0 : url.indexOf('/', url.indexOf('://') + 3);
  let path = '/';
  let query = url.indexOf('?');
  if (start !== -1 && (query === -1 || start < query)) {
    let end = query;
    const hash = url.indexOf('#', start);
    if (hash !== -1 && (end === -1 || hash < end)) {
      end = hash;
      query = -1;
    }
    path = end === -1 ? url.slice(start) : url.slice(start, end);
  }

  const entry = lookup(app, path);
  const { handler, params } = resolve(app, entry, method);
  const ctx = new Context(app, request, method, path, query, params, entry.mws, handler);
  return run(ctx, finish);
}

/** s200: ctx.res is a platform Response; HEAD drops its body. */
function finishPlatform(ctx) {
  const res = ctx.res;
  if (ctx.method === 'HEAD' && res.body !== null) return new Response(null, res);
  return res;
}

/** s200-light towards a host that speaks the protocol: the light object as is. */
function finishLight(ctx) {
  const res = ctx.res;
  if (ctx.method === 'HEAD') {
    if (isLightResponse(res)) res.body = null;
    else if (res.body !== null) return new Response(null, res);
  }
  return res;
}

/** s200-light anywhere else: a real Response at the edge. */
function finishConverted(ctx) {
  return toResponse(finishLight(ctx));
}
