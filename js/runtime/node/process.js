// node:process for fwbench: the `process` object that js/runtime/node/globals.js
// installs as a global and that `import process from 'node:process'` returns.
//
// What is real: nextTick (a FIFO drained in one microtask, errors rethrown to
// the host), hrtime/hrtime.bigint/uptime (from performance.now()),
// emitWarning (a 'warning' event and one line in the host log), stdout and
// stderr whose write() goes to the host log line by line. What is a fixed
// fact of the sandbox: env holds what the host gives an app (PORT,
// NODE_ENV, --env and --env-file; empty for a built-in scenario), cwd() is
// the project directory ('/' without one), argv is ['fwbench'],
// stdout/stderr are not TTYs. What throws: exit, kill, chdir, memoryUsage,
// cpuUsage, binding, dlopen (a sandboxed app cannot do these, and a
// made-up number would be silently wrong).
import EventEmitter from 'fwbench:///vendor/polyfills/events.js';
import { log, projectServices } from 'fwbench:///runtime/host.js';
import { nodeError } from './_internal.js';

function unavailable(what) {
  return function () {
    throw nodeError(
      'ERR_FWBENCH_NOT_AVAILABLE',
      `process.${what}() is not available in fwbench (sandboxed host)`,
    );
  };
}

/** FIFO of [fn, args] run before the next macrotask, in one microtask. */
const ticks = [];
let tickScheduled = false;

function runTicks() {
  tickScheduled = false;
  // Callbacks queued while draining run in the same drain, as in Node.
  for (let i = 0; i < ticks.length; i++) {
    const [fn, args] = ticks[i];
    try {
      fn(...args);
    } catch (err) {
      ticks.splice(0, i + 1);
      if (ticks.length > 0) scheduleTicks();
      throw err; // reaches the host as an uncaught error, as in Node
    }
  }
  ticks.length = 0;
}

function scheduleTicks() {
  if (!tickScheduled) {
    tickScheduled = true;
    queueMicrotask(runTicks);
  }
}

function nextTick(fn, ...args) {
  if (typeof fn !== 'function') {
    throw nodeError('ERR_INVALID_ARG_TYPE', 'The "callback" argument must be of type function', TypeError);
  }
  ticks.push([fn, args]);
  scheduleTicks();
}

/** A write-only stand-in for stdout/stderr: complete lines go to the host log. */
function logStream(fd, prefix) {
  const stream = new EventEmitter();
  let partial = '';
  const decoder = new TextDecoder();
  Object.assign(stream, {
    fd,
    isTTY: false,
    writable: true,
    _isStdio: true,
    write(chunk, encoding, callback) {
      if (typeof encoding === 'function') callback = encoding;
      const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk);
      const lines = (partial + text).split('\n');
      partial = lines.pop();
      for (const line of lines) log(prefix + line);
      if (typeof callback === 'function') nextTick(callback);
      return true;
    },
    end(chunk, encoding, callback) {
      if (typeof chunk === 'function') [callback, chunk] = [chunk, undefined];
      if (chunk != null) stream.write(chunk, encoding);
      if (partial) log(prefix + partial);
      partial = '';
      if (typeof callback === 'function') nextTick(callback);
      return stream;
    },
    cork() {},
    uncork() {},
    hasColors: () => false,
    getColorDepth: () => 1,
  });
  return stream;
}

function hrtime(previous) {
  const now = performance.timeOrigin + performance.now(); // ms, fractional
  let sec = Math.floor(now / 1e3);
  let nsec = Math.floor((now - sec * 1e3) * 1e6);
  if (previous) {
    sec -= previous[0];
    nsec -= previous[1];
    if (nsec < 0) {
      sec -= 1;
      nsec += 1e9;
    }
  }
  return [sec, nsec];
}
hrtime.bigint = () => {
  const [sec, nsec] = hrtime();
  return BigInt(sec) * 1000000000n + BigInt(nsec);
};

function emitWarning(warning, type, code, ctor) {
  let detail;
  if (type !== null && typeof type === 'object' && !Array.isArray(type)) {
    ({ type, code, detail } = type);
  } else if (typeof type === 'function') {
    type = undefined;
  }
  if (typeof code === 'function') code = undefined;
  if (typeof warning === 'string') {
    warning = new Error(warning);
    warning.name = String(type || 'Warning');
    if (code !== undefined) warning.code = code;
    if (detail !== undefined) warning.detail = detail;
  }
  if (warning.name === 'DeprecationWarning' && process.noDeprecation) return;
  nextTick(() => {
    process.emit('warning', warning);
    const codePart = warning.code ? `[${warning.code}] ` : '';
    log(`(fwbench) ${codePart}${warning.name}: ${warning.message}`);
    if (warning.detail) log(warning.detail);
  });
}

/**
 * `process.env`, read from the host on first use in each runtime: this
 * module may be evaluated when a startup snapshot is built, where there is
 * no app and no environment yet (then nothing is kept).
 */
let envObject;
function loadEnv() {
  if (envObject === undefined) {
    try {
      envObject = { ...projectServices().env() };
    } catch {
      // The per-runtime ops are not bound yet (a snapshot being built).
      return {};
    }
  }
  return envObject;
}

const process = new EventEmitter();
Object.assign(process, {
  title: 'fwbench',
  // The shims follow Node's API as of this release (checked against it by
  // js/runtime/test/); libraries read versions.node to pick code paths.
  version: 'v20.20.2',
  versions: { node: '20.20.2', fwbench: '0.1.0' },
  platform: 'linux',
  argv: ['fwbench'],
  argv0: 'fwbench',
  execArgv: [],
  execPath: '/fwbench',
  exitCode: undefined,
  noDeprecation: false,
  throwDeprecation: false,
  traceDeprecation: false,
  browser: false,
  nextTick,
  emitWarning,
  hrtime,
  cwd: () => {
    try {
      return projectServices().root();
    } catch {
      return '/';
    }
  },
  uptime: () => performance.now() / 1e3,
  stdout: logStream(1, ''),
  stderr: logStream(2, ''),
  chdir: unavailable('chdir'),
  umask: unavailable('umask'),
  exit: unavailable('exit'),
  reallyExit: unavailable('reallyExit'),
  abort: unavailable('abort'),
  kill: unavailable('kill'),
  memoryUsage: unavailable('memoryUsage'),
  resourceUsage: unavailable('resourceUsage'),
  cpuUsage: unavailable('cpuUsage'),
  binding: unavailable('binding'),
  dlopen: unavailable('dlopen'),
});
process.memoryUsage.rss = unavailable('memoryUsage.rss');
Object.defineProperty(process, 'env', {
  get: loadEnv,
  set(value) {
    envObject = value;
  },
  enumerable: true,
  configurable: true,
});
Object.defineProperty(process, Symbol.toStringTag, { value: 'process' });

export default process;
export {
  nextTick,
  emitWarning,
  hrtime,
};
export const { argv, versions, version, platform, stdout, stderr, cwd, uptime, exit } = process;
/** `import { env } from 'node:process'`: the same object as `process.env`. */
export const env = new Proxy({}, {
  get: (_, key) => Reflect.get(loadEnv(), key),
  set: (_, key, value) => Reflect.set(loadEnv(), key, value),
  has: (_, key) => Reflect.has(loadEnv(), key),
  deleteProperty: (_, key) => Reflect.deleteProperty(loadEnv(), key),
  ownKeys: () => Reflect.ownKeys(loadEnv()),
  getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(loadEnv(), key),
});
