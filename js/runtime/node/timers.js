// node:timers for fwbench. setTimeout/setInterval here return Node-style
// Timeout objects (ref/unref/hasRef/refresh/close, usable as a number), which
// Node code expects from node:timers; the platform globals keep returning
// numbers. setImmediate runs its callback in a later macrotask, after
// pending I/O callbacks, like Node's check phase: immediates queued while
// a batch runs wait for the next batch.
//
// ref()/unref() only record the flag: the host's event loop lives as long
// as the server does, so "keeps the process alive" has no effect here.
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

class Immediate {
  #ref = true;
  constructor(callback, args) {
    this._onImmediate = callback;
    this._args = args;
    this._cleared = false;
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
}

let immediates = [];
let immediatesScheduled = false;

function runImmediates() {
  immediatesScheduled = false;
  const batch = immediates;
  immediates = [];
  for (let i = 0; i < batch.length; i++) {
    const immediate = batch[i];
    if (immediate._cleared) continue;
    immediate._cleared = true;
    try {
      immediate._onImmediate(...immediate._args);
    } catch (err) {
      // Keep the rest of the batch, then let the error reach the host.
      immediates = batch.slice(i + 1).concat(immediates);
      scheduleImmediates();
      throw err;
    }
  }
}

function scheduleImmediates() {
  if (!immediatesScheduled) {
    immediatesScheduled = true;
    platformSetTimeout(runImmediates, 0);
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
  const immediate = new Immediate(callback, args);
  immediates.push(immediate);
  scheduleImmediates();
  return immediate;
}

function clearImmediate(immediate) {
  if (immediate instanceof Immediate) immediate._cleared = true;
}

const timers = { setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate };

export default timers;
export { setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate, Timeout, Immediate };
