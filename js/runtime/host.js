// Host services for fwbench's runtime modules (the node:* shims): digests,
// HMAC and constant-time comparison done in Rust, the server log, the port the
// app is served on, and the node:http shim's hand-off with the adapter.
// App code should not import this module.
//
// This is the one module that reads the host's two globals: the services
// js/runtime/bootstrap.js installs (`fwbench.internal`) and the adapter's
// side (`fwbench.host`, from js/runtime/serve.js; absent where no server
// runs, e.g. `fwbench test`). Every other runtime module imports from here.
const internal = globalThis[Symbol.for("fwbench.internal")];
const adapter = () => globalThis[Symbol.for("fwbench.host")];

/**
 * Digest of `data` with `algorithm` ('sha1' | 'md5' | 'sha256' | 'sha384' |
 * 'sha512').
 * @param {string} algorithm
 * @param {Uint8Array} data
 * @returns {Uint8Array}
 */
export function hash(algorithm, data) {
  return internal.hash(algorithm, data);
}

/**
 * HMAC of `data` under `key` with the digest `algorithm` ('sha1' | 'md5' |
 * 'sha256' | 'sha384' | 'sha512').
 * @param {string} algorithm
 * @param {Uint8Array} key
 * @param {Uint8Array} data
 * @returns {Uint8Array}
 */
export function hmac(algorithm, key, data) {
  return internal.hmac(algorithm, key, data);
}

/**
 * Whether `a` and `b` hold the same bytes, in time that depends only on
 * their length (throws a RangeError if the lengths differ).
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 * @returns {boolean}
 */
export function timingSafeEqual(a, b) {
  return internal.timingSafeEqual(a, b);
}

/**
 * Writes one line to the server log (stderr).
 * @param {string} line
 */
export function log(line) {
  internal.log(line);
}

/**
 * The current async context: a value that follows promise continuations
 * and timers (deno_core's continuation-preserved embedder data). The basis
 * of node:async_hooks' AsyncLocalStorage.
 * @returns {unknown}
 */
export function getAsyncContext() {
  return internal.getAsyncContext();
}

/**
 * Replaces the current async context (see getAsyncContext).
 * @param {unknown} context
 */
export function setAsyncContext(context) {
  internal.setAsyncContext(context);
}

/**
 * The TCP port fwbench serves the app on (0 outside a server).
 * @returns {number}
 */
export function hostPort() {
  return adapter()?.hostPort() ?? 0;
}

/**
 * Hands a node:http server whose `listen()` was called to the adapter,
 * which serves it (no socket is opened).
 * @param {object} server
 */
export function registerNodeServer(server) {
  adapter()?.registerNodeServer(server);
}

/**
 * Withdraws a server registered with registerNodeServer (`server.close()`).
 * @param {object} server
 */
export function unregisterNodeServer(server) {
  adapter()?.unregisterNodeServer(server);
}

/**
 * Gives the adapter the node:http shim's entry points, once node:http is
 * loaded: `runNode(listener, hostRequest, done, failed)`, which the adapter
 * serves through, `dispatchNode` (the same as a promise) and
 * `serverHandler(server)`.
 * @param {{ runNode: Function, dispatchNode: Function, serverHandler: Function }} bridge
 */
export function provideNodeBridge(bridge) {
  internal.offerNodeBridge(bridge);
}

/**
 * The app's project services (src/engine/project/ops.rs): module
 * resolution and sources for the CommonJS loader, the read-only file
 * system, process.env, zlib codecs, compileFunction and importSync. Each
 * throws where the runtime has no project (a built-in scenario).
 * @returns {object}
 */
export function projectServices() {
  return internal.project();
}

/**
 * deno_core's immediate queue (node:timers' setImmediate): `queue`,
 * `clear`, `refCount(increase)` and the `kRefed` key an immediate carries.
 * @returns {object}
 */
export function immediates() {
  return internal.immediates();
}
