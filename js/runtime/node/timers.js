// node:timers for fwbench. setTimeout/setInterval here return Node-style
// Timeout objects (ref/unref/hasRef/refresh/close, usable as a number), which
// Node code expects from node:timers; the platform globals keep returning
// numbers. setImmediate runs its callback in the event loop's check phase,
// after pending I/O callbacks, as Node's does (deno_core's queue).
//
// ref()/unref() only record the flag: the host's event loop lives as long
// as the server does, so "keeps the process alive" has no effect here.
import { getAsyncContext, immediates, setAsyncContext } from 'fwbench:///runtime/host.js';

const {
  setTimeout: platformSetTimeout,
  clearTimeout: platformClearTimeout,
  setInterval: platformSetInterval,
  clearInterval: platformClearInterval,
} = globalThis;

class Timeout {
  #id;
  #repeat;
  #callback;
  #delay;
  #args;
  #ref = true;

  constructor(callback, delay, args, repeat) {
    this.#callback = callback;
    this.#delay = delay;
    this.#args = args;
    this.#repeat = repeat;
    this.#start();
  }

  #start() {
    const arm = this.#repeat ? platformSetInterval : platformSetTimeout;
    this.#id = arm(this.#callback, this.#delay, ...this.#args);
  }

  ref() {
    this.#ref = true;
    return this;
  }

  unref() {
    this.#ref = false;
    return this;
  }

  hasRef() {
    return this.#ref;
  }

  refresh() {
    this.close();
    this.#start();
    return this;
  }

  close() {
    (this.#repeat ? platformClearInterval : platformClearTimeout)(this.#id);
    return this;
  }

  [Symbol.toPrimitive]() {
    return this.#id;
  }
}

const queue = immediates();
const { kRefed } = queue;

/**
 * An immediate in deno_core's queue: the event loop runs the queue in its
 * check phase, after I/O, as Node's does; immediates queued while it runs
 * wait for the next turn. The callback runs in the async context it was
 * scheduled in (AsyncLocalStorage), as each timer's does.
 */
class Immediate {
  constructor(callback, args) {
    this._idleNext = null;
    this._idlePrev = null;
    const context = getAsyncContext();
    this._onImmediate = () => {
      const previous = getAsyncContext();
      setAsyncContext(context);
      try {
        callback(...args);
      } finally {
        setAsyncContext(previous);
      }
    };
    this._argv = undefined;
    this._destroyed = false;
    this.asyncId = 0;
    this.triggerAsyncId = 0;
    this[kRefed] = false;
    this.ref();
    queue.queue(this);
  }
  ref() {
    if (!this[kRefed] && !this._destroyed) {
      this[kRefed] = true;
      queue.refCount(true);
    }
    return this;
  }
  unref() {
    if (this[kRefed]) {
      this[kRefed] = false;
      queue.refCount(false);
    }
    return this;
  }
  hasRef() {
    return Boolean(this[kRefed]);
  }
}

function checkCallback(callback) {
  if (typeof callback !== 'function') {
    const err = new TypeError('The "callback" argument must be of type function');
    err.code = 'ERR_INVALID_ARG_TYPE';
    throw err;
  }
}

function setTimeout(callback, delay, ...args) {
  checkCallback(callback);
  return new Timeout(callback, delay, args, false);
}

function setInterval(callback, delay, ...args) {
  checkCallback(callback);
  return new Timeout(callback, delay, args, true);
}

function clearTimeout(timer) {
  if (timer instanceof Timeout) timer.close();
  else if (timer != null) platformClearTimeout(timer);
}

function clearInterval(timer) {
  if (timer instanceof Timeout) timer.close();
  else if (timer != null) platformClearInterval(timer);
}

function setImmediate(callback, ...args) {
  checkCallback(callback);
  return new Immediate(callback, args);
}

function clearImmediate(immediate) {
  if (immediate instanceof Immediate) queue.clear(immediate);
}

const timers = { setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate };

export default timers;
export { setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate, Timeout, Immediate };
