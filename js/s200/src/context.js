/**
 * The per-request context (`ctx`) and `setHeader`.
 *
 * One `Context` is made per request by `app.fetch` (src/app.js) and passed
 * to every middleware and the handler. Public fields: `req`, `res`,
 * `params`, `query`, `state`, `error`, `method`, `path`. Fields starting
 * with `_` belong to the chain (src/compose.js) and may change without
 * notice.
 *
 * @module
 */

const EMPTY_QUERY = Object.freeze(Object.create(null));

export class Context {
  /**
   * @param {object} app the internal app record (src/app.js)
   * @param {Request} req
   * @param {string} method
   * @param {string} path
   * @param {number} queryStart index of '?' in req.url, or -1
   * @param {Record<string, string>} params
   * @param {Function[]} mws the middleware that apply to this path
   * @param {Function} handler the route handler or the 404/405 fallback
   */
  constructor(app, req, method, path, queryStart, params, mws, handler) {
    /** The platform Request (or whatever the host passed to fetch). */
    this.req = req;
    /**
     * The response: null on the way in, and always a response once a
     * `next()` resolves (handler result, 404/405/500 fallbacks, or a
     * middleware's own response). Mutate it in place.
     * @type {Response | null}
     */
    this.res = null;
    /** Route parameters, e.g. `{ id: '42' }` for `/user/:id` (read-only). */
    this.params = params;
    /** Per-request store for middleware and handlers. */
    this.state = {};
    /** The error a handler or later middleware threw, if any. */
    this.error = undefined;
    /** The request method, upper case. */
    this.method = method;
    /** The request path (no query), as sent: not percent-decoded. */
    this.path = path;

    this._app = app;
    this._mws = mws;
    this._handler = handler;
    this._i = -1;
    this._pending = null;
    this._queryStart = queryStart;
    this._query = null;
    this._settle = null;
    this._fail = null;
  }

  /**
   * The query string as an object, first value per key, parsed on first
   * read. `?a=1&a=2&b` gives `{ a: '1', b: '' }`.
   * @type {Record<string, string>}
   */
  get query() {
    if (this._query !== null) return this._query;
    if (this._queryStart === -1) return (this._query = EMPTY_QUERY);
    const url = this.req.url;
    const hash = url.indexOf('#', this._queryStart);
    const search = url.slice(this._queryStart + 1, hash === -1 ? undefined : hash);
    const query = Object.create(null);
    for (const [k, v] of new URLSearchParams(search)) if (!(k in query)) query[k] = v;
    return (this._query = query);
  }
}

/**
 * Sets a response header from middleware, whenever it runs.
 *
 * Once `ctx.res` exists (always the case after `await next()`), this writes
 * straight to `ctx.res.headers`: no rebuild, no copy. Before that, the
 * header is queued and applied to whichever response materializes first
 * (handler, fallback, short-circuit or error response).
 *
 * A platform Response with immutable headers (from `fetch()` or
 * `Response.redirect()`) is copied once into a mutable one.
 *
 * @param {Context} ctx
 * @param {string} name
 * @param {string} value
 * @example
 * use(app, '/', async function poweredBy(ctx, next) {
 *   await next();
 *   setHeader(ctx, 'x-powered-by', 's200'); // in place, on the real response
 * });
 */
export function setHeader(ctx, name, value) {
  if (ctx.res != null) writeHeader(ctx, name, value);
  else if (ctx._pending === null) ctx._pending = [name, value];
  else ctx._pending.push(name, value);
}

function writeHeader(ctx, name, value) {
  const res = ctx.res;
  try {
    res.headers.set(name, value);
  } catch (err) {
    // Immutable headers (a fetched or redirect Response) throw a TypeError;
    // invalid names and values also throw one, so retry on a copy and let a
    // second failure propagate as the real error.
    if (!(err instanceof TypeError) || !(res instanceof Response) || res.bodyUsed) throw err;
    const copy = new Response(res.body, res);
    copy.headers.set(name, value);
    ctx.res = copy;
  }
}

/**
 * Applies headers queued by `setHeader` before the response existed.
 * Called by the chain each time a response lands in `ctx.res`.
 * @param {Context} ctx
 */
export function applyPending(ctx) {
  const pending = ctx._pending;
  ctx._pending = null;
  for (let i = 0; i < pending.length; i += 2) writeHeader(ctx, pending[i], pending[i + 1]);
}
