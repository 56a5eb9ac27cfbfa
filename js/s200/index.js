/**
 * s200: a small web framework whose middleware chain guarantees that
 * `ctx.res` is a materialized Response whenever `await next()` returns, so
 * middleware stamps headers on the way out by mutating it in place.
 *
 * This is the public entry point (an explicit export list). Layout:
 * - src/app.js: createApp, registration, app.fetch
 * - src/router.js: path patterns, middleware prefixes, per-path cache
 * - src/compose.js: the chain and its contract
 * - src/context.js: ctx and setHeader
 * - src/response.js: json/text/send and the platform and light kits
 * - src/light-response.js: LightHeaders, LightResponse, toResponse, the adapter protocol
 * - middleware/<battery>/: logger, cors, request-id
 * `light.js` exports the same names for s200-light.
 *
 * @module
 */

export { createApp, use, get, post, put, patch, del, all } from './src/app.js';
export { json, text, send } from './src/response.js';
export { setHeader } from './src/context.js';
export { LightHeaders, LightResponse, toResponse, isLightResponse, LIGHT_RESPONSE } from './src/light-response.js';
export { logger } from './middleware/logger/index.js';
export { cors } from './middleware/cors/index.js';
export { requestId } from './middleware/request-id/index.js';
