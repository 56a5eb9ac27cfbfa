/**
 * The middleware chain and its contract.
 *
 * `run(ctx, finish)` calls the middleware that apply to `ctx.path` in registration
 * order, then the handler (or the 404/405 fallback). The contract every
 * middleware may rely on:
 *
 * - `next()` returns a promise that never rejects, and when it resolves,
 *   `ctx.res` is a response: the handler's, a fallback, a later
 *   middleware's own response, or a 500 built from the error a later link
 *   threw or rejected with (that error is in `ctx.error`).
 * - `next()` called a second time by the same link throws; nothing runs
 *   twice.
 * - A link that returns a response (or sets `ctx.res`) without calling
 *   `next()` short-circuits the rest of the chain.
 *
 * So a link writes headers on the way out by mutating `ctx.res` in place.
 *
 * Shape: like koa/hono's compose (hono src/compose.ts), a `next` closure per
 * link, but without an async function per level: a link that returns
 * synchronously costs no promise at all, and a handler that returns a
 * Response synchronously resolves its `next()` with one shared, already
 * resolved promise. Each asynchronous link costs exactly one derived
 * promise (the `.then` that settles it and catches its errors).
 *
 * @module
 */

import { applyPending } from './context.js';

/** Resolved promise handed out by every `next()` that finished synchronously. */
export const RESOLVED = Promise.resolve();

/**
 * Runs the whole chain for `ctx`, then `finish(ctx)`.
 *
 * The outermost level is unrolled here so that its settlement and the
 * finish step share one promise: a chain that ran synchronously returns
 * `finish(ctx)` directly, an asynchronous one costs no extra `.then`.
 *
 * @template T
 * @param {import('./context.js').Context} ctx
 * @param {(ctx: import('./context.js').Context) => T} finish
 * @returns {T | Promise<T>}
 */
export function run(ctx, finish) {
  ctx._i = 0;
  const mws = ctx._mws;
  let r;
  try {
    r = mws.length === 0 ? ctx._handler(ctx) : mws[0](ctx, nextFor(ctx, 1));
  } catch (err) {
    fail(ctx, err);
    return finish(ctx);
  }
  if (r != null && typeof r.then === 'function') {
    return r.then(
      (value) => {
        settle(ctx, value);
        return finish(ctx);
      },
      (err) => {
        fail(ctx, err);
        return finish(ctx);
      }
    );
  }
  settle(ctx, r);
  return finish(ctx);
}

function dispatch(ctx, i) {
  ctx._i = i;
  const mws = ctx._mws;
  let r;
  try {
    r = i === mws.length ? ctx._handler(ctx) : mws[i](ctx, nextFor(ctx, i + 1));
  } catch (err) {
    fail(ctx, err);
    return RESOLVED;
  }
  if (r != null && typeof r.then === 'function') {
    return r.then(ctx._settle ?? makeSettle(ctx), ctx._fail ?? makeFail(ctx));
  }
  settle(ctx, r);
  return RESOLVED;
}

function nextFor(ctx, i) {
  return function next() {
    if (i <= ctx._i) {
      throw new Error(`next() called multiple times in middleware #${i - 1} for ${ctx.method} ${ctx.path}: call it once and await it`);
    }
    return dispatch(ctx, i);
  };
}

// The two continuations are made once per request, on the first
// asynchronous link, and reused by every level.
function makeSettle(ctx) {
  return (ctx._settle = (value) => settle(ctx, value));
}

function makeFail(ctx) {
  return (ctx._fail = (err) => fail(ctx, err));
}

/**
 * A link (or the handler) finished. A returned response-like object becomes
 * `ctx.res`; a link that neither produced nor awaited a response is an
 * error, so that `ctx.res` exists for everyone unwinding above it.
 */
function settle(ctx, value) {
  if (value != null && typeof value === 'object') ctx.res = value;
  if (ctx.res == null) {
    fail(ctx, new Error(noResponseMessage(ctx)));
    return;
  }
  if (ctx._pending !== null) {
    try {
      applyPending(ctx);
    } catch (err) {
      fail(ctx, err);
    }
  }
}

function noResponseMessage(ctx) {
  return `no response for ${ctx.method} ${ctx.path}: a handler must return a Response (e.g. json(ctx, ...)), and a middleware must return or await next() or return its own Response`;
}

/**
 * A link (or the handler) threw or rejected: record the error and replace
 * `ctx.res` with the app's error response.
 */
function fail(ctx, err) {
  ctx.error = err;
  const app = ctx._app;
  if (app.logErrors) {
    console.error(`s200: error in ${ctx.method} ${ctx.path}:`, err);
  }
  let res;
  try {
    res = app.onError(err, ctx);
  } catch (err2) {
    res = null;
    if (app.logErrors) console.error('s200: onError threw:', err2);
  }
  if (res == null || typeof res !== 'object' || typeof res.then === 'function') {
    if (res != null && app.logErrors) {
      console.error('s200: onError must return a Response synchronously; answering a plain 500');
    }
    res = app.kit.respond('Internal Server Error', 500, 'text/plain; charset=UTF-8');
  }
  ctx.res = res;
  if (ctx._pending !== null) {
    try {
      applyPending(ctx);
    } catch {
      ctx._pending = null;
    }
  }
}
