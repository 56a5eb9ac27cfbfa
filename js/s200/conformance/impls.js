/**
 * The implementations every shared suite runs against (hono's
 * router/common.case.test.ts idea: one suite, every implementation), and
 * small helpers for tests.
 *
 * Test files import only `test`/`describe` from 'node:test' and `assert`
 * from 'node:assert/strict' (equal, notEqual, deepEqual, ok, throws,
 * rejects, match), so the same files also run inside fwbench's embedded
 * engine through its shim.
 *
 * @module
 */

import * as s200 from '../index.js';
import * as light from '../light.js';

/** @type {{ name: string, m: typeof s200, light: boolean }[]} */
export const IMPLS = [
  { name: 's200', m: s200, light: false },
  { name: 's200-light', m: light, light: true },
];

/**
 * Calls the app in-process.
 * @param {{ fetch: (r: Request) => unknown }} app
 * @param {string} path
 * @param {RequestInit} [init]
 */
export async function call(app, path, init) {
  return app.fetch(new Request(`http://localhost${path}`, init));
}

/** The body as text, whichever response type came back. */
export async function bodyOf(res) {
  if (res.body == null) return '';
  return res.text();
}

/**
 * Runs `fn` with `globalThis[Symbol.for('fwbench.host')]` set to `value`
 * (undefined: removed), restoring the previous state afterwards. fwbench's
 * own engine sets the marker, so tests that depend on it say which they want.
 */
export async function withHostMarker(value, fn) {
  const key = Symbol.for('fwbench.host');
  const had = Object.prototype.hasOwnProperty.call(globalThis, key);
  const prev = globalThis[key];
  if (value === undefined) delete globalThis[key];
  else globalThis[key] = value;
  try {
    return await fn();
  } finally {
    if (had) globalThis[key] = prev;
    else delete globalThis[key];
  }
}

/** Options for apps in tests whose errors are expected: keep stderr quiet. */
export const QUIET = { logErrors: false };
