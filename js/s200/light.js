/**
 * s200-light: the same API and chain contract as s200 (same export names),
 * but the responses inside the chain are LightResponses with LightHeaders,
 * and no platform Response is built in the chain.
 *
 * `app.fetch(request)` returns a real Response (converted at the edge with
 * `toResponse`), unless the host has set
 * `globalThis[Symbol.for('fwbench.host')]`, meaning its adapter reads light
 * responses directly; `app.fetchLight(request)` always returns the light
 * response. See README.md ("s200-light") for the adapter protocol.
 *
 * @module
 */

import { createApp as createAnyApp } from './src/app.js';

/**
 * Creates a light app: like s200's createApp, with LightResponses inside.
 * @param {Parameters<typeof createAnyApp>[0]} [options] same options as s200's createApp
 * @returns {ReturnType<typeof createAnyApp>}
 * @example
 * import { createApp, get, json } from 's200/light';
 * const app = createApp();
 * get(app, '/', (ctx) => json(ctx, { message: 'hello' }));
 * export default app; // fetch -> Response; fetchLight -> LightResponse
 */
export function createApp(options = {}) {
  return createAnyApp({ ...options, light: true });
}

export { use, get, post, put, patch, del, all } from './src/app.js';
export { json, text, send } from './src/response.js';
export { setHeader } from './src/context.js';
export { LightHeaders, LightResponse, toResponse, isLightResponse, LIGHT_RESPONSE } from './src/light-response.js';
export { logger } from './middleware/logger/index.js';
export { cors } from './middleware/cors/index.js';
export { requestId } from './middleware/request-id/index.js';
