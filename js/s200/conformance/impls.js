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
 * Runs `fn(applied)` with `globalThis[Symbol.for('fwbench.host')]` set to
 * `value` (undefined: removed), restoring the previous state afterwards.
 * fwbench's own engine defines the marker as a locked (non-configurable)
 * property; there the requested state cannot be made, `applied` is false,
 * and the marker stays as the host set it.
 * @param {unknown} value
 * @param {(applied: boolean) => unknown} fn
 */
export async function withHostMarker(value, fn) {
  const key = Symbol.for('fwbench.host');
  const desc = Object.getOwnPropertyDescriptor(globalThis, key);
  if (desc !== undefined && !desc.configurable) return fn(desc.value === value);
  if (value === undefined) delete globalThis[key];
  else Object.defineProperty(globalThis, key, { value, configurable: true, writable: true });
  try {
    return await fn(true);
  } finally {
    if (desc !== undefined) Object.defineProperty(globalThis, key, desc);
    else delete globalThis[key];
  }
}

/** Options for apps in tests whose errors are expected: keep stderr quiet. */
export const QUIET = { logErrors: false };
