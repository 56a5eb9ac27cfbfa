/**
 * Request ID middleware: gives every request an id, exposes it on
 * `ctx.state` and stamps it on the response.
 *
 * @module
 */

import { setHeader } from '../../src/context.js';

// What an incoming id may look like to be reused: word characters, '-' and
// '=' (UUIDs, base64url, most tracing ids); anything else is replaced, so a
// client cannot inject arbitrary text into logs or headers.
const VALID = /^[\w\-=]+$/;

/**
 * Creates the request-id middleware.
 *
 * An incoming `x-request-id` (or `headerName`) that is non-empty, at most
 * `limitLength` characters and made of `[A-Za-z0-9_=-]` is reused; otherwise
 * `generator(ctx)` makes one (default `crypto.randomUUID()`). The id is put
 * in `ctx.state[stateKey]` before the rest of the chain runs, and stamped on
 * the response with `setHeader` after it: since `ctx.res` always exists
 * after `await next()`, that is one in-place header write, and it lands on
 * 404, 405 and 500 responses as well.
 *
 * @param {object} [options]
 * @param {string} [options.headerName='X-Request-Id'] request and response header
 * @param {number} [options.limitLength=255] longest incoming id reused
 * @param {(ctx: import('../../src/context.js').Context) => string} [options.generator] makes a new id
 * @param {string} [options.stateKey='requestId'] where the id goes on ctx.state
 * @returns {(ctx: import('../../src/context.js').Context, next: () => Promise<void>) => Promise<void>}
 * @example
 * import { createApp, use, get, text, requestId } from 's200';
 * const app = createApp();
 * use(app, '/', requestId());
 * get(app, '/', (ctx) => text(ctx, `your id is ${ctx.state.requestId}`));
 */
export function requestId(options = {}) {
  const {
    headerName = 'X-Request-Id',
    limitLength = 255,
    generator = () => crypto.randomUUID(),
    stateKey = 'requestId',
  } = options;
  if (typeof headerName !== 'string' || headerName === '') throw new TypeError('requestId: headerName must be a non-empty string');
  if (typeof generator !== 'function') throw new TypeError('requestId: generator must be a function');

  return async function requestId(ctx, next) {
    let id = ctx.req.headers.get(headerName);
    if (id === null || id.length === 0 || id.length > limitLength || !VALID.test(id)) id = String(generator(ctx));
    ctx.state[stateKey] = id;
    await next();
    setHeader(ctx, headerName, id);
  };
}
