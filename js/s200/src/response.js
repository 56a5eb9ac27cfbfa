/**
 * Response helpers (`json`, `text`, `send`) and the two response kits.
 *
 * A kit is how an app makes responses: s200's kit builds platform
 * `Response`s, s200-light's builds `LightResponse`s. The helpers take `ctx`
 * and ask its app's kit, so one `json(ctx, ...)` serves both flavours and
 * middleware written for s200 runs unchanged on s200-light.
 *
 * @module
 */

import { makeLightResponse } from './light-response.js';

const JSON_TYPE = 'application/json';
const TEXT_TYPE = 'text/plain; charset=UTF-8';

// Shared, never-mutated inits for the common no-init case: the Response
// constructor only reads them. Measured on Node 20 the literal headers
// object is as cheap as a shared Headers instance and cannot be mutated
// through the response (the response copies it).
const JSON_INIT = { headers: { 'content-type': JSON_TYPE } };
const TEXT_INIT = { headers: { 'content-type': TEXT_TYPE } };

function normalizeInit(init) {
  return typeof init === 'number' ? { status: init } : init;
}

/** The platform kit: responses are real `Response`s. */
export const platformKit = {
  light: false,
  /**
   * @param {BodyInit | null} body
   * @param {ResponseInit | number | undefined} init
   * @param {string | null} contentType default content-type, if the init sets none
   * @returns {Response}
   */
  respond(body, init, contentType) {
    if (init === undefined) {
      if (contentType === JSON_TYPE) return new Response(body, JSON_INIT);
      if (contentType === TEXT_TYPE) return new Response(body, TEXT_INIT);
      return new Response(body);
    }
    init = normalizeInit(init);
    const headers = new Headers(init.headers);
    if (contentType !== null && !headers.has('content-type')) headers.set('content-type', contentType);
    return new Response(body, { status: init.status ?? 200, statusText: init.statusText ?? '', headers });
  },
};

/** The light kit: responses are `LightResponse`s. */
export const lightKit = {
  light: true,
  /**
   * @param {import('./light-response.js').LightBody} body
   * @param {ResponseInit | number | undefined} init
   * @param {string | null} contentType
   */
  respond(body, init, contentType) {
    if (init === undefined) return makeLightResponse(body, 200, contentType, undefined);
    init = normalizeInit(init);
    return makeLightResponse(body, init.status ?? 200, contentType, init);
  },
};

/**
 * Responds with `JSON.stringify(body)` and `content-type: application/json`
 * (unless `init.headers` sets one).
 *
 * @param {import('./context.js').Context} ctx
 * @param {unknown} body
 * @param {ResponseInit | number} [init] a ResponseInit, or just a status
 * @returns {Response} (a LightResponse on s200-light)
 * @example
 * get(app, '/', (ctx) => json(ctx, { message: 'hello' }));
 * get(app, '/teapot', (ctx) => json(ctx, { error: 'short and stout' }, 418));
 */
export function json(ctx, body, init) {
  return ctx._app.kit.respond(JSON.stringify(body), init, JSON_TYPE);
}

/**
 * Responds with a string and `content-type: text/plain; charset=UTF-8`
 * (unless `init.headers` sets one).
 *
 * @param {import('./context.js').Context} ctx
 * @param {string} body
 * @param {ResponseInit | number} [init]
 * @returns {Response} (a LightResponse on s200-light)
 * @example
 * get(app, '/health', (ctx) => text(ctx, 'ok'));
 */
export function text(ctx, body, init) {
  return ctx._app.kit.respond(body, init, TEXT_TYPE);
}

/**
 * Responds with any body the app's response type accepts (string, bytes,
 * ReadableStream, or null) and no default content-type.
 *
 * @param {import('./context.js').Context} ctx
 * @param {string | Uint8Array | ArrayBuffer | ReadableStream | null} body
 * @param {ResponseInit | number} [init]
 * @returns {Response} (a LightResponse on s200-light)
 * @example
 * use(app, '/old', (ctx) => send(ctx, null, { status: 301, headers: { location: '/new' } }));
 */
export function send(ctx, body, init) {
  return ctx._app.kit.respond(body, init, null);
}
