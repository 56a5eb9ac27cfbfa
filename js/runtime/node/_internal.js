// Helpers shared by fwbench's node:* shims (js/runtime/node/*.js): Node-style
// errors with a `code`, and the pieces that make a sandboxed built-in (fs,
// zlib, os, ...) importable while every use throws a clear error.
//
// Not a Node module: the host maps `node:X` to js/runtime/node/X.js, and no
// Node built-in is called `_internal`, so app code never reaches this file
// by a bare name.

/** An Error (or subclass) carrying Node's `code` property, as Node's internal errors do. */
export function nodeError(code, message, Base = Error) {
  const err = new Base(message);
  err.code = code;
  return err;
}

/** Node's ERR_INVALID_ARG_TYPE for `name`, which should have been `expected`. */
export function invalidArgType(name, expected, actual) {
  const got = actual === null ? 'null' : Array.isArray(actual) ? 'an instance of Array' : typeof actual;
  return nodeError(
    'ERR_INVALID_ARG_TYPE',
    `The "${name}" argument must be ${expected}. Received ${got}`,
    TypeError,
  );
}

/** The error every use of a sandboxed module throws. */
export function notAvailable(module, what) {
  return nodeError(
    'ERR_FWBENCH_NOT_AVAILABLE',
    `node:${module} is not available in fwbench (sandboxed host): ${what}`,
  );
}

/** A function named `name` that throws notAvailable(module, 'module.name()'). */
export function unavailableFunction(module, name) {
  const fn = {
    [name]() {
      throw notAvailable(module, `${module}.${name}()`);
    },
  }[name];
  return fn;
}

/**
 * A class named `name` whose constructor throws; it still works with
 * `instanceof` (always false) and as a base for `util.inherits`, which some
 * frameworks do at import time.
 */
export function unavailableClass(module, name) {
  const cls = {
    [name]: class {
      constructor() {
        throw notAvailable(module, `new ${module}.${name}()`);
      }
    },
  }[name];
  return cls;
}

/** Keys a module namespace or CommonJS interop probes that must stay undefined. */
const PROBED = new Set(['then', '__esModule', 'default', 'toJSON', 'constructor', 'inspect']);

/**
 * The default export of a sandboxed module: the listed members as they are
 * (constants and harmless values a framework may read at import time), and
 * for any other name a function that throws notAvailable when called, so
 * `fs.readFileSync(...)` fails with a message that names the call.
 */
export function sandboxedModule(module, members) {
  return new Proxy(members, {
    get(target, key, receiver) {
      if (typeof key === 'symbol' || PROBED.has(key) || key in target) {
        return Reflect.get(target, key, receiver);
      }
      return unavailableFunction(module, key);
    },
  });
}
