// Node's globals for fwbench: the host bootstrap imports this module once,
// before the app, so Node-style code finds `process`, `Buffer`, `global`,
// `setImmediate` and `clearImmediate` as it does in Node. The Web globals
// (URL, TextEncoder, timers, structuredClone, ...) come from the bootstrap
// itself. Like Node's own, these globals are writable, configurable and
// not enumerable.
import process from './process.js';
import { Buffer } from './buffer.js';
import { setImmediate, clearImmediate } from './timers.js';

function define(name, value) {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}

define('global', globalThis);
define('process', process);
define('Buffer', Buffer);
define('setImmediate', setImmediate);
define('clearImmediate', clearImmediate);
