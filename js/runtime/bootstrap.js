// The engine's bootstrap: installs the Web platform globals onto globalThis.
//
// deno_web, deno_webidl and deno_fetch ship their JS as lazy-loaded scripts
// (`ext:` specifiers) and leave it to the embedder to decide which globals
// exist (Deno does this in runtime/js/98_global_scope_shared.js). We install
// the Web APIs a server-side framework expects, plus `crypto` backed by our
// own ops; the host then removes `Deno` and `__bootstrap` so app code cannot
// reach deno_core's op table directly: the sandbox is the set of ops we register,
// and app code only sees them through the globals below.
import { core, primordials } from "ext:core/mod.js";
import {
  op_fwbench_external_release,
  op_fwbench_external_reserve,
  op_fwbench_hash,
  op_fwbench_hmac,
  op_fwbench_hmac_verify,
  op_fwbench_log,
  op_fwbench_random_fill,
  op_fwbench_random_uuid,
  op_fwbench_timing_safe_equal,
} from "ext:core/ops";
import { createSubtle } from "ext:fwbench_engine/webcrypto.js";

const webidl = core.loadExtScript("ext:deno_webidl/00_webidl.js");
const url = core.loadExtScript("ext:deno_web/00_url.js");
const consoleMod = core.loadExtScript("ext:deno_web/01_console.js");
const domException = core.loadExtScript("ext:deno_web/01_dom_exception.js");
const urlPattern = core.loadExtScript("ext:deno_web/01_urlpattern.js");
const event = core.loadExtScript("ext:deno_web/02_event.js");
const structuredCloneMod = core.loadExtScript(
  "ext:deno_web/02_structured_clone.js",
);
const timers = core.loadExtScript("ext:deno_web/02_timers.js");
const abortSignal = core.loadExtScript("ext:deno_web/03_abort_signal.js");
const base64 = core.loadExtScript("ext:deno_web/05_base64.js");
const streams = core.loadExtScript("ext:deno_web/06_streams.js");
const encoding = core.loadExtScript("ext:deno_web/08_text_encoding.js");
const file = core.loadExtScript("ext:deno_web/09_file.js");
const messagePort = core.loadExtScript("ext:deno_web/13_message_port.js");
const compression = core.loadExtScript("ext:deno_web/14_compression.js");
const performanceMod = core.loadExtScript("ext:deno_web/15_performance.js");
const headers = core.loadExtScript("ext:deno_fetch/20_headers.js");
const formData = core.loadExtScript("ext:deno_fetch/21_formdata.js");
const request = core.loadExtScript("ext:deno_fetch/23_request.js");
const response = core.loadExtScript("ext:deno_fetch/23_response.js");
const fetchMod = core.loadExtScript("ext:deno_fetch/26_fetch.js");

/** A writable, configurable, non-enumerable global, as the Web IDL asks. */
function define(name, value) {
  Object.defineProperty(globalThis, name, {
    value,
    enumerable: false,
    configurable: true,
    writable: true,
  });
}

/**
 * deno_fetch's fetch, whose permission check denies every request here (see
 * src/engine/sandbox.rs). Its refusal names Deno's --allow-net flag, which
 * means nothing to an fwbench user, so say what is going on instead.
 */
function sandboxedFetch(input, init) {
  return fetchMod.fetch(input, init).catch((error) => {
    if (error?.name === "NotCapable") {
      const refusal = new TypeError(
        `fetch() is not available in fwbench: the sandbox has no network (${
          error.message.replace(/, run again with the --allow-\w+ flag$/, "")
        })`,
      );
      refusal.cause = error;
      throw refusal;
    }
    throw error;
  });
}

const globals = {
  AbortController: abortSignal.AbortController,
  AbortSignal: abortSignal.AbortSignal,
  Blob: file.Blob,
  ByteLengthQueuingStrategy: streams.ByteLengthQueuingStrategy,
  CompressionStream: compression.CompressionStream,
  CountQueuingStrategy: streams.CountQueuingStrategy,
  CustomEvent: event.CustomEvent,
  DecompressionStream: compression.DecompressionStream,
  DOMException: domException.DOMException,
  ErrorEvent: event.ErrorEvent,
  Event: event.Event,
  EventTarget: event.EventTarget,
  File: file.File,
  FormData: formData.FormData,
  Headers: headers.Headers,
  MessageChannel: messagePort.MessageChannel,
  MessageEvent: event.MessageEvent,
  MessagePort: messagePort.MessagePort,
  Performance: performanceMod.Performance,
  PerformanceEntry: performanceMod.PerformanceEntry,
  PerformanceMark: performanceMod.PerformanceMark,
  PerformanceMeasure: performanceMod.PerformanceMeasure,
  ProgressEvent: event.ProgressEvent,
  PromiseRejectionEvent: event.PromiseRejectionEvent,
  ReadableByteStreamController: streams.ReadableByteStreamController,
  ReadableStream: streams.ReadableStream,
  ReadableStreamBYOBReader: streams.ReadableStreamBYOBReader,
  ReadableStreamBYOBRequest: streams.ReadableStreamBYOBRequest,
  ReadableStreamDefaultController: streams.ReadableStreamDefaultController,
  ReadableStreamDefaultReader: streams.ReadableStreamDefaultReader,
  Request: request.Request,
  Response: response.Response,
  TextDecoder: encoding.TextDecoder,
  TextDecoderStream: encoding.TextDecoderStream,
  TextEncoder: encoding.TextEncoder,
  TextEncoderStream: encoding.TextEncoderStream,
  TransformStream: streams.TransformStream,
  TransformStreamDefaultController: streams.TransformStreamDefaultController,
  URL: url.URL,
  URLPattern: urlPattern.URLPattern,
  URLSearchParams: url.URLSearchParams,
  WritableStream: streams.WritableStream,
  WritableStreamDefaultController: streams.WritableStreamDefaultController,
  WritableStreamDefaultWriter: streams.WritableStreamDefaultWriter,
  atob: base64.atob,
  btoa: base64.btoa,
  clearInterval: timers.clearInterval,
  clearTimeout: timers.clearTimeout,
  fetch: sandboxedFetch,
  performance: performanceMod.performance,
  reportError: event.reportError,
  setInterval: timers.setInterval,
  setTimeout: timers.setTimeout,
  structuredClone: messagePort.structuredClone ??
    structuredCloneMod.structuredClone,
};
for (const name of Object.keys(globals)) define(name, globals[name]);
// performance.timeOrigin is set by whoever bootstraps deno_web (Deno does in
// its runtime's main); unset it is undefined, and process.hrtime, which
// pino reads when it loads, would be NaN. It is the wall-clock time the
// runtime started, so it is set when each runtime starts, not here: on V8
// this module runs when the startup snapshot is built, and the build's time
// would stay in every runtime. The host calls this hook once per runtime,
// before app code, and deletes it (src/engine/mod.rs, `START_RUNTIME`).
Object.defineProperty(globalThis, "__fwbenchStartRuntime", {
  value: () => performanceMod.setTimeOrigin(),
  enumerable: false,
  configurable: true,
});

// console: deno_web's Console, printing through deno_core's op_print
// (stdout for log/info/debug, stderr for warn/error).
define("console", new consoleMod.Console((msg, level) => core.print(msg, level > 1)));

// crypto: what frameworks and their auth packages use on the request path,
// from our own ops. deno_crypto is not part of this host (it is the whole
// WebCrypto surface with ring and aws-lc behind it); crypto.subtle is the
// subset js/runtime/webcrypto.js implements (SHA digests, HMAC keys, sign
// and verify: what HS256 JWTs need), over src/engine/ops_crypto.rs.
const webcrypto = createSubtle({
  digest: op_fwbench_hash,
  hmac: op_fwbench_hmac,
  hmacVerify: op_fwbench_hmac_verify,
  randomFill: op_fwbench_random_fill,
  DOMException: domException.DOMException,
  atob: base64.atob,
  btoa: base64.btoa,
});
class Crypto {
  getRandomValues(array) {
    if (!ArrayBuffer.isView(array) || array instanceof Float32Array ||
      array instanceof Float64Array || array instanceof DataView) {
      throw new DOMException(
        "crypto.getRandomValues: expected an integer TypedArray",
        "TypeMismatchError",
      );
    }
    if (array.byteLength > 65536) {
      throw new DOMException(
        `crypto.getRandomValues: ${array.byteLength} bytes requested, at most 65536 allowed`,
        "QuotaExceededError",
      );
    }
    op_fwbench_random_fill(
      new Uint8Array(array.buffer, array.byteOffset, array.byteLength),
    );
    return array;
  }
  randomUUID() {
    return op_fwbench_random_uuid();
  }
  get subtle() {
    return webcrypto.subtle;
  }
}
define("crypto", new Crypto());
define("Crypto", Crypto);
define("CryptoKey", webcrypto.CryptoKey);
define("SubtleCrypto", webcrypto.SubtleCrypto);

// Atomics.wait blocks the calling thread, and here that thread is a worker's
// only one: no request, timer or 504 could run until it returns, and the
// watchdog cannot interrupt a native wait. Browsers' main threads refuse it
// the same way; Atomics.notify and the non-blocking operations stay.
Object.defineProperty(Atomics, "wait", {
  value: function wait() {
    throw new TypeError(
      "Atomics.wait cannot be called in fwbench: it would block the worker's only thread (as on a browser's main thread)",
    );
  },
  writable: true,
  enumerable: false,
  configurable: true,
});

// Unhandled rejections are logged, not fatal: one request's stray promise
// must not take the whole worker down.
core.setUnhandledPromiseRejectionHandler((_promise, reason) => {
  core.print(
    `fwbench: unhandled promise rejection: ${reason?.stack ?? reason}\n`,
    true,
  );
  return true;
});

// Host services for fwbench's own runtime modules (js/runtime/host.js
// re-exports them for the node:* shims). Symbol-keyed and non-enumerable:
// not part of any API an app should use.
//
// The node:http shim's entry points wait here for the adapter
// (js/runtime/serve.js) rather than being handed to it: node:http may be
// evaluated before the adapter exists, in a framework's startup snapshot.
let nodeBridge = null;
// The services of an app's project (src/engine/project/ops.rs) for the
// CommonJS loader, node:fs, node:zlib and process.env. Their ops are an
// extension each runtime adds after the startup snapshot, so they are
// looked up in `core.ops` when called, not bound here.
const projectServices = Object.freeze({
  resolve: (specifier, referrer, require) =>
    core.ops.op_fwbench_project_resolve(specifier, referrer, require),
  format: (path) => core.ops.op_fwbench_project_format(path),
  source: (path) => core.ops.op_fwbench_project_source(path),
  syntaxError: (path) => core.ops.op_fwbench_project_syntax_error(path),
  env: () => core.ops.op_fwbench_project_env(),
  root: () => core.ops.op_fwbench_project_root(),
  readFile: (path) => core.ops.op_fwbench_fs_read(path),
  stat: (path, follow) => core.ops.op_fwbench_fs_stat(path, follow),
  readdir: (path) => core.ops.op_fwbench_fs_readdir(path),
  realpath: (path) => core.ops.op_fwbench_fs_realpath(path),
  writeFd: (fd, bytes) => core.ops.op_fwbench_fd_write(fd, bytes),
  zlibOpen: (kind, level) => core.ops.op_fwbench_zlib_new(kind, level),
  zlibPush: (id, input, flush) => core.ops.op_fwbench_zlib_push(id, input, flush),
  zlibClose: (id) => core.ops.op_fwbench_zlib_close(id),
  // vm.compileFunction: a CommonJS module's wrapper, compiled with its
  // file's URL as the script's name (stack traces, import()).
  compileFunction: (source, url, params) =>
    core.compileFunction(source, url, undefined, params),
  // require() of an ES module (Node 22+): loads and evaluates it now.
  importSync: (url) => core.ops.op_import_sync(url),
});
Object.defineProperty(globalThis, Symbol.for("fwbench.internal"), {
  value: Object.freeze({
    offerNodeBridge: (bridge) => {
      nodeBridge ??= bridge;
    },
    nodeBridge: () => nodeBridge,
    hash: (algorithm, data) => op_fwbench_hash(algorithm, data),
    hmac: (algorithm, key, data) => op_fwbench_hmac(algorithm, key, data),
    timingSafeEqual: (a, b) => op_fwbench_timing_safe_equal(a, b),
    log: (line) => op_fwbench_log(String(line)),
    getAsyncContext: () => core.getAsyncContext(),
    setAsyncContext: (context) => core.setAsyncContext(context),
    project: () => projectServices,
    // node:timers' setImmediate: deno_core's immediate queue, drained in
    // the event loop's check phase (after I/O), as Node's.
    immediates: () => ({
      queue: (immediate) => core.queueImmediate(immediate),
      clear: (immediate) => core.clearImmediate(immediate),
      refCount: (increase) => core.immediateRefCount(increase),
      kRefed: core.kRefed,
    }),
  }),
  enumerable: false,
});

// Engine-internal globals, kept from app code. The QuickJS-ng backend (v8x)
// leaves its helpers on globalThis: among them `__v8x_snapshot_intrinsics`,
// an array of every native function, the original Atomics.wait included.
// They are taken off globalThis here, into `backend`, for the two uses
// below. The other engine-internal globals (`gc`, ShadowRealm,
// WebAssembly, the Temporal polyfill's symbols) are removed by the host
// once the runtime is built (src/engine/mod.rs, `REMOVE_GLOBALS`), not
// here: on V8 this module runs when the startup snapshot is built, and V8
// installs flag-enabled globals such as ShadowRealm again in every context
// made from a snapshot. tests/fixtures/globals/allowed.txt lists the
// surface an app may use, and a test holds both engines to it, with the
// snapshot and without.
const { ReflectApply, ReflectConstruct } = primordials;
const backend = {};
for (const name of Object.getOwnPropertyNames(globalThis)) {
  if (name.startsWith("__v8x")) {
    backend[name] = globalThis[name];
    delete globalThis[name];
  }
}
if (backend.__v8xAtomicsRegisterWaiter) rebindAtomics(backend);
if (backend.__v8x_snapshot_intrinsics) countSharedArrayBuffers();

/**
 * The QuickJS backend's Atomics.waitAsync and Atomics.notify look its
 * waiter helpers up on globalThis at every call; these take their place,
 * with the helpers (and the native notify, found among the intrinsics)
 * held here instead.
 */
function rebindAtomics(helpers) {
  const register = helpers.__v8xAtomicsRegisterWaiter;
  const notifyWaiters = helpers.__v8xAtomicsNotifyWaiters;
  const cancel = helpers.__v8xAtomicsCancelWaiter;
  const nativeNotify = helpers.__v8x_snapshot_intrinsics?.find((f) =>
    typeof f === "function" && f.name === "notify" && f !== Atomics.notify
  );
  const load = Atomics.load;
  const setTimeout = timers.setTimeout;
  const method = (fn) => ({
    value: fn,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  Object.defineProperty(
    Atomics,
    "waitAsync",
    method(function waitAsync(view, index, value, timeout) {
      if (ReflectApply(load, Atomics, [view, index]) !== value) {
        return { async: false, value: "not-equal" };
      }
      const ms = timeout === undefined ? Infinity : Number(timeout);
      if (ms <= 0) return { async: false, value: "timed-out" };
      let resolve;
      const promise = new Promise((r) => resolve = r);
      const id = register(view, index, resolve);
      if (Number.isFinite(ms)) {
        setTimeout(() => {
          if (cancel(id)) resolve("timed-out");
        }, ms);
      }
      return { async: true, value: promise };
    }),
  );
  Object.defineProperty(
    Atomics,
    "notify",
    method(function notify(view, index, count) {
      const woken = nativeNotify
        ? ReflectApply(nativeNotify, Atomics, [view, index, count])
        : 0;
      const wanted = count === undefined
        ? 0x7fffffff
        : Math.max(0, Math.min(0x7fffffff, Number(count) || 0));
      return woken + notifyWaiters(view, index, Math.max(0, wanted - woken));
    }),
  );
}

/**
 * The QuickJS backend allocates SharedArrayBuffers with calloc, outside
 * the heap limit's count (ArrayBuffers come from QuickJS's own malloc and
 * are counted). Each one is counted against the runtime's budget for
 * memory outside the heap once made, and given back when it is collected;
 * past the budget the constructor throws a RangeError. `slice` makes its
 * copy through the species constructor, this one.
 */
function countSharedArrayBuffers() {
  const Native = globalThis.SharedArrayBuffer;
  const getter = (name) =>
    Object.getOwnPropertyDescriptor(Native.prototype, name)?.get ??
      (() => 0);
  const growable = getter("growable");
  const maxByteLength = getter("maxByteLength");
  const byteLength = getter("byteLength");
  const collected = new FinalizationRegistry((bytes) =>
    op_fwbench_external_release(bytes)
  );
  function SharedArrayBuffer(length, options) {
    if (new.target === undefined) {
      throw new TypeError("Constructor SharedArrayBuffer requires 'new'");
    }
    const target = new.target === SharedArrayBuffer ? Native : new.target;
    const buffer = ReflectConstruct(Native, [length, options], target);
    // A growable buffer is allocated at its maximum. The getters as they
    // were at start-up: an app may redefine the prototype's.
    const bytes = ReflectApply(growable, buffer, [])
      ? ReflectApply(maxByteLength, buffer, [])
      : ReflectApply(byteLength, buffer, []);
    op_fwbench_external_reserve(bytes);
    collected.register(buffer, bytes);
    return buffer;
  }
  Object.defineProperty(SharedArrayBuffer, "prototype", {
    value: Native.prototype,
  });
  Object.defineProperty(SharedArrayBuffer, Symbol.species, {
    get() {
      return this;
    },
    configurable: true,
  });
  Object.defineProperty(Native.prototype, "constructor", {
    value: SharedArrayBuffer,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  define("SharedArrayBuffer", SharedArrayBuffer);
}

void webidl;
// `Deno` and `__bootstrap` are deleted by the host once the runtime is
// built (src/engine/mod.rs, `Engine::new`), not here: with the startup
// snapshot, deno_core binds the ops a runtime adds (the adapter's) through
// `Deno.core` after this module ran, so it must still be there then.
