/**
 * CORS middleware: answers preflights and stamps CORS headers on the way out.
 *
 * @module
 */

import { setHeader } from '../../src/context.js';
import { send } from '../../src/response.js';

const DEFAULT_METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH'];

/**
 * Adds `token` to the response's Vary header unless it (or `*`) is there.
 * @param {import('../../src/context.js').Context} ctx
 * @param {string} token
 */
function addVary(ctx, token) {
  const current = ctx.res.headers.get('vary');
  if (current === null || current.trim() === '') {
    setHeader(ctx, 'vary', token);
    return;
  }
  const lower = token.toLowerCase();
  for (const part of current.split(',')) {
    const p = part.trim().toLowerCase();
    if (p === '*' || p === lower) return;
  }
  setHeader(ctx, 'vary', `${current}, ${token}`);
}

function toList(value, what) {
  if (value == null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  throw new TypeError(`cors: ${what} must be a string or an array of strings`);
}

/**
 * Creates the CORS middleware.
 *
 * Preflights (`OPTIONS` with `Access-Control-Request-Method`) are answered
 * here with 204 and never reach the routes. For every other request the
 * chain runs first and the headers are then stamped in place on `ctx.res`,
 * so error and 404 responses carry them too (a browser can then show the
 * real failure instead of a CORS error).
 *
 * `origin` decides the `Access-Control-Allow-Origin` value:
 * - `'*'` (default): any origin; with `credentials`, the request's origin is
 *   echoed instead, since browsers refuse `*` with credentials;
 * - another string: that fixed origin;
 * - an array: the request's origin if it is in the list, else none;
 * - a function `(origin, ctx) => string | boolean | null` (may be async): a
 *   string is used as is, `true` echoes the request's origin, anything else
 *   allows none.
 * Whenever the value depends on the request's origin, `Vary: Origin` is
 * added so caches keep the answers apart.
 *
 * @param {object} [options]
 * @param {string | string[] | ((origin: string, ctx: import('../../src/context.js').Context) => string | boolean | null | undefined | Promise<string | boolean | null | undefined>)} [options.origin='*']
 * @param {string[]} [options.allowMethods=['GET','HEAD','PUT','POST','DELETE','PATCH']] preflight Allow-Methods
 * @param {string[]} [options.allowHeaders=[]] preflight Allow-Headers; empty echoes the request's Access-Control-Request-Headers
 * @param {string[]} [options.exposeHeaders=[]] Access-Control-Expose-Headers on actual responses
 * @param {boolean} [options.credentials=false] send Access-Control-Allow-Credentials: true
 * @param {number} [options.maxAge] preflight Access-Control-Max-Age, in seconds
 * @returns {(ctx: import('../../src/context.js').Context, next: () => Promise<void>) => Promise<void | Response>}
 * @example
 * import { createApp, use, cors } from 's200';
 * const app = createApp();
 * use(app, '/api', cors({
 *   origin: ['https://app.example.com', 'https://admin.example.com'],
 *   credentials: true,
 *   exposeHeaders: ['x-request-id'],
 *   maxAge: 600,
 * }));
 */
export function cors(options = {}) {
  const { origin = '*', credentials = false, maxAge } = options;
  const allowMethods = toList(options.allowMethods ?? DEFAULT_METHODS, 'allowMethods').join(', ');
  const allowHeaders = toList(options.allowHeaders, 'allowHeaders').join(', ');
  const exposeHeaders = toList(options.exposeHeaders, 'exposeHeaders').join(', ');
  if (maxAge !== undefined && !(Number.isInteger(maxAge) && maxAge >= 0)) {
    throw new TypeError('cors: maxAge must be a whole number of seconds');
  }

  /** @type {(requestOrigin: string | null, ctx: object) => string | null | Promise<string | null>} */
  let allowOrigin;
  /** Whether the answer depends on the request's Origin (so: Vary: Origin). */
  let varies = true;
  if (origin === '*') {
    if (credentials) allowOrigin = (requestOrigin) => requestOrigin;
    else {
      allowOrigin = () => '*';
      varies = false;
    }
  } else if (typeof origin === 'string') {
    allowOrigin = () => origin;
    varies = false;
  } else if (Array.isArray(origin)) {
    const allowed = new Set(toList(origin, 'origin'));
    allowOrigin = (requestOrigin) => (requestOrigin !== null && allowed.has(requestOrigin) ? requestOrigin : null);
  } else if (typeof origin === 'function') {
    const decide = (requestOrigin, verdict) => {
      if (verdict === true) return requestOrigin;
      return typeof verdict === 'string' && verdict !== '' ? verdict : null;
    };
    allowOrigin = (requestOrigin, ctx) => {
      if (requestOrigin === null) return null;
      const verdict = origin(requestOrigin, ctx);
      return verdict != null && typeof verdict.then === 'function'
        ? verdict.then((v) => decide(requestOrigin, v))
        : decide(requestOrigin, verdict);
    };
  } else {
    throw new TypeError('cors: origin must be a string, an array of strings or a function');
  }

  return async function cors(ctx, next) {
    const headers = ctx.req.headers;
    const requestOrigin = headers.get('origin');
    const allowed = await allowOrigin(requestOrigin, ctx);

    if (ctx.method === 'OPTIONS' && headers.get('access-control-request-method') !== null) {
      const out = {};
      const vary = [];
      if (varies) vary.push('Origin');
      if (allowed !== null) {
        out['access-control-allow-origin'] = allowed;
        if (credentials) out['access-control-allow-credentials'] = 'true';
        out['access-control-allow-methods'] = allowMethods;
        let allowHeadersValue = allowHeaders;
        if (allowHeadersValue === '') {
          const requested = headers.get('access-control-request-headers');
          if (requested !== null && requested.trim() !== '') {
            allowHeadersValue = requested.split(',').map((h) => h.trim()).filter(Boolean).join(', ');
            vary.push('Access-Control-Request-Headers');
          }
        }
        if (allowHeadersValue !== '') out['access-control-allow-headers'] = allowHeadersValue;
        if (maxAge !== undefined) out['access-control-max-age'] = String(maxAge);
      }
      if (vary.length > 0) out.vary = vary.join(', ');
      return send(ctx, null, { status: 204, headers: out });
    }

    await next();
    if (allowed !== null) {
      setHeader(ctx, 'access-control-allow-origin', allowed);
      if (credentials) setHeader(ctx, 'access-control-allow-credentials', 'true');
      if (exposeHeaders !== '') setHeader(ctx, 'access-control-expose-headers', exposeHeaders);
    }
    if (varies) addVary(ctx, 'Origin');
  };
}
