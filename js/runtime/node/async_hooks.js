// node:async_hooks for fwbench: AsyncLocalStorage and AsyncResource.
//
// Context propagation across `await`, promise callbacks and timers needs
// the engine: deno_core keeps an "async context" value that follows
// continuations (core.getAsyncContext/setAsyncContext, which the QuickJS
// backend implements as V8's continuation-preserved embedder data), and
// fwbench:///runtime/host.js hands it over as getAsyncContext and
// setAsyncContext. The current context is an immutable Map from
// AsyncLocalStorage to store, as in Deno's node:async_hooks.
//
// createHook, executionAsyncId, triggerAsyncId and executionAsyncResource
// throw: no async resource tracking exists here.
import * as host from 'fwbench:///runtime/host.js';

const getContext = host.getAsyncContext;
const setContext = host.setAsyncContext;

/** Runs fn with `context` as the current async context, restoring the previous one after. */
function runInContext(context, fn, thisArg, args) {
  const previous = getContext();
  setContext(context);
  try {
    return Reflect.apply(fn, thisArg, args);
  } finally {
    setContext(previous);
  }
}

function withStore(key, store) {
  const next = new Map(getContext() ?? undefined);
  if (store === undefined && arguments.length === 1) next.delete(key);
  else next.set(key, store);
  return next;
}

class AsyncLocalStorage {
  #enabled = true;

  static bind(fn) {
    return AsyncResource.bind(fn);
  }

  static snapshot() {
    const context = getContext();
    return (fn, ...args) => runInContext(context, fn, undefined, args);
  }

  run(store, callback, ...args) {
    this.#enabled = true;
    return runInContext(withStore(this, store), callback, undefined, args);
  }

  exit(callback, ...args) {
    return runInContext(withStore(this), callback, undefined, args);
  }

  getStore() {
    if (!this.#enabled) return undefined;
    return getContext()?.get(this);
  }

  enterWith(store) {
    this.#enabled = true;
    setContext(withStore(this, store));
  }

  disable() {
    this.#enabled = false;
    if (getContext()?.has(this)) setContext(withStore(this));
  }
}

let nextAsyncId = 1;

class AsyncResource {
  #context;
  #asyncId;
  #triggerAsyncId;

  constructor(type, options) {
    if (typeof type !== 'string') throw new TypeError('The "type" argument must be of type string');
    this.type = type;
    this.#context = getContext();
    this.#asyncId = nextAsyncId++;
    this.#triggerAsyncId = typeof options === 'number' ? options : options?.triggerAsyncId ?? 0;
  }

  static bind(fn, type, thisArg) {
    return new AsyncResource(type || fn.name || 'bound-anonymous-fn').bind(fn, thisArg);
  }

  runInAsyncScope(fn, thisArg, ...args) {
    return runInContext(this.#context, fn, thisArg, args);
  }

  bind(fn, thisArg) {
    const resource = this;
    const bound = thisArg === undefined
      ? function (...args) {
          return resource.runInAsyncScope(fn, this, ...args);
        }
      : (...args) => resource.runInAsyncScope(fn, thisArg, ...args);
    Object.defineProperties(bound, {
      length: { value: fn.length, configurable: true },
      asyncResource: { value: this, configurable: true, enumerable: true, writable: true },
    });
    return bound;
  }

  emitDestroy() {
    return this;
  }

  asyncId() {
    return this.#asyncId;
  }

  triggerAsyncId() {
    return this.#triggerAsyncId;
  }
}

const untracked = (name) => ({
  [name]() {
    throw new Error(`async_hooks.${name}() is not available in fwbench: the host does not track async resources`);
  },
})[name];
const createHook = untracked('createHook');
const executionAsyncId = untracked('executionAsyncId');
const triggerAsyncId = untracked('triggerAsyncId');
const executionAsyncResource = untracked('executionAsyncResource');

const asyncHooks = { AsyncLocalStorage, AsyncResource, createHook, executionAsyncId, triggerAsyncId, executionAsyncResource };
export default asyncHooks;
export { AsyncLocalStorage, AsyncResource, createHook, executionAsyncId, triggerAsyncId, executionAsyncResource };
