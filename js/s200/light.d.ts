/**
 * Types for s200-light (light.js): the same names as s200 (index.d.ts);
 * only createApp differs, returning a LightApp whose chain carries
 * LightResponses.
 */

import type { AppOptions, LightApp, LightResponse } from './index.js';

export {
  AnyResponse,
  App,
  AppBase,
  AppOptions,
  Context,
  CorsOptions,
  Handler,
  Init,
  LightApp,
  LightBody,
  LogEntry,
  LoggerOptions,
  Middleware,
  Next,
  RequestIdOptions,
} from './index.js';

export {
  LIGHT_RESPONSE,
  LightHeaders,
  LightResponse,
  all,
  cors,
  del,
  get,
  isLightResponse,
  json,
  logger,
  patch,
  post,
  put,
  requestId,
  send,
  setHeader,
  text,
  toResponse,
  use,
} from './index.js';

/** Creates a light app: s200's API and contract, LightResponses inside. */
export function createApp(options?: Omit<AppOptions<LightResponse>, 'light'>): LightApp;
