// The JS half of fwbench's adapter: turns a request the Rust side holds into
// a platform Request, calls the app, and commits its Response in one op.
//
// It follows the shape of Deno's own serve path (ext/http/00_serve.ts):
// - the Request is materialized lazily: the inner request's URL and header
//   list are functions that call an op only when the app reads them;
// - a Response is read once from its internal state (no `.headers`/`.text()`
//   round trips) and committed to Rust in a single op;
// - a handler that returns synchronously is committed in the same call from
//   Rust, with no promise turn.
//
// Apps are recognized by shape (see `setApp`): a fetch-style default export
// (`{ fetch(request) }`: plain objects, hono, elysia), an express app and a
// fastify instance (through the node:http shim), or a light response
// (s200-light; see LIGHT below).
import { core, primordials } from "ext:core/mod.js";
// The adapter's ops, from `core.ops` rather than the `ext:core/ops` module:
// that module is made once, with the ops of the startup snapshot's
// extensions (src/engine/snapshot.rs), while this extension's ops are
// bound later, per runtime, and only into `core.ops`.
const {
  op_fwbench_heap_exhausted,
  op_fwbench_host_port,
  op_fwbench_register,
  op_fwbench_req_body_read,
  op_fwbench_req_headers,
  op_fwbench_req_path,
  op_fwbench_req_url,
  op_fwbench_respond_bytes,
  op_fwbench_respond_error,
  op_fwbench_respond_stream,
  op_fwbench_respond_text,
  op_fwbench_respond_typed_text,
  op_fwbench_stream_close,
  op_fwbench_stream_write,
} = core.ops;

const { ObjectPrototypeIsPrototypeOf, TypedArrayPrototypeGetSymbolToStringTag } =
  primordials;

const { InnerBody } = core.loadExtScript("ext:deno_fetch/22_body.js");
const { fromInnerRequest } = core.loadExtScript(
  "ext:deno_fetch/23_request.js",
);
const {
  getInnerResponse,
  ResponsePrototype,
  serveFastBodyKey,
  serveFastConsumedKey,
  serveFastContentTypeKey,
  serveFastHeaderKindKey,
  serveFastStatusKey,
  SERVE_FAST_HEADER_CONTENT_TYPE,
  SERVE_FAST_HEADER_DEFAULT_TEXT,
  toInnerResponse,
} = core.loadExtScript("ext:deno_fetch/23_response.js");
const { createReadableStream, ReadableStreamPrototype } = core.loadExtScript(
  "ext:deno_web/06_streams.js",
);

/**
 * Marks a light response (s200-light). The adapter serializes it without
 * building a platform Response: `status` (number), `headers.forEach((value,
 * name) => ...)` (set-cookie once per cookie), and `body`: null/undefined, a
 * string, a Uint8Array/ArrayBuffer or a ReadableStream.
 */
const LIGHT = Symbol.for("fwbench.light-response");

/** Per-request error kinds the Rust side logs and answers. */
const FAILED_HANDLER = 500;

/**
 * QuickJS's error for an allocation refused at the heap limit (V8 has no
 * such error: it terminates through the near-heap-limit callback). Taken
 * now, before app code could replace the global.
 */
const EngineInternalError = globalThis.InternalError;

function isOutOfMemory(error) {
  try {
    return typeof EngineInternalError === "function" &&
      ObjectPrototypeIsPrototypeOf(EngineInternalError.prototype, error) &&
      error.message === "out of memory";
  } catch {
    // A thrown object whose `message` getter throws: not the engine's.
    return false;
  }
}

/** The app's fetch function, once `setApp` has run. */
let appFetch = null;
/** A node-style request listener (express app, fastify's server handler). */
let nodeListener = null;
/** Servers that app code `listen()`ed on (node:http shim). */
const listened = [];
/** Resolves setApp's wait for a first listen() (see `setApp`). */
let listenedNow = null;
/**
 * The node:http shim's entry points, once an app that needs them is
 * installed (see `nodeBridge`).
 */
let nodeShim = null;

/**
 * The adapter's side of the host protocol, which js/runtime/host.js (and
 * only it) reads: `registerNodeServer(server)` is what `server.listen()`
 * calls. Its presence also tells s200 that this host reads light
 * responses.
 */
const host = {
  registerNodeServer(server) {
    listened.push(server);
    listenedNow?.();
  },
  unregisterNodeServer(server) {
    const index = listened.indexOf(server);
    if (index !== -1) listened.splice(index, 1);
  },
  hostPort() {
    return op_fwbench_host_port();
  },
};
Object.defineProperty(globalThis, Symbol.for("fwbench.host"), {
  value: host,
  enumerable: false,
});

function emptyBody() {
  return null;
}

/** A ReadableStream over the request body, pulled from Rust on demand. */
function requestBody(id) {
  const stream = createReadableStream(
    () => {},
    async (controller) => {
      const chunk = await op_fwbench_req_body_read(id);
      if (chunk.byteLength === 0) controller.close();
      else controller.enqueue(chunk);
    },
    () => Promise.resolve(),
    0,
  );
  return new InnerBody(stream);
}

/**
 * The inner request a platform Request wraps (the shape deno_fetch's
 * newInnerRequest returns), for request `id`: its URL and header list are
 * read from Rust on first use. A class, because newInnerRequest builds an
 * object literal with getters and setters, which V8 defines one by one in
 * its runtime on every request (about a twentieth of a bare app's time).
 */
class HostInnerRequest {
  constructor(id, method, body) {
    this.id = id;
    this.methodInner = method;
    this.headerListInner = null;
    this.body = body;
    this.redirectMode = "follow";
    this.redirectCount = 0;
    this.urlList = [() => op_fwbench_req_url(id)];
    this.urlListProcessed = [];
    this.clientRid = null;
    this.blobUrlEntry = null;
  }

  get method() {
    return this.methodInner;
  }

  set method(value) {
    this.methodInner = value;
  }

  get headerList() {
    if (this.headerListInner === null) {
      let flat;
      try {
        flat = op_fwbench_req_headers(this.id);
      } catch {
        throw new TypeError("Cannot read headers: request closed");
      }
      const list = new Array(flat.length >>> 1);
      for (let i = 0; i < list.length; i++) list[i] = [flat[2 * i], flat[2 * i + 1]];
      this.headerListInner = list;
    }
    return this.headerListInner;
  }

  set headerList(value) {
    this.headerListInner = value;
  }

  url() {
    return this.urlAt(0);
  }

  currentUrl() {
    return this.urlAt(this.urlList.length - 1);
  }

  urlAt(index) {
    if (this.urlListProcessed[index] === undefined) {
      try {
        this.urlListProcessed[index] = this.urlList[index]();
      } catch {
        throw new TypeError("Cannot read url: request closed");
      }
    }
    return this.urlListProcessed[index];
  }
}

/** Builds the lazily materialized platform Request for request `id`. */
function makeRequest(id, method, hasBody) {
  const inner = new HostInnerRequest(id, method, hasBody ? requestBody(id) : emptyBody());
  return fromInnerRequest(inner, "immutable");
}

/** Flattens a header list ([[name, value], ...]) for `sendStatic` and `sendStream`. */
function flatHeaders(list) {
  const flat = new Array(list.length * 2);
  for (let i = 0; i < list.length; i++) {
    flat[2 * i] = list[i][0];
    flat[2 * i + 1] = list[i][1];
  }
  return flat;
}

/**
 * Sends a static body (string or bytes) with its headers (flat [name,
 * value, ...]). The respond ops take the headers as their count and one
 * string joined by NUL: one string crosses into Rust far more cheaply than
 * an array of them (Rust refuses a NUL inside a name or value).
 */
function sendStatic(id, status, headers, body) {
  const count = headers.length >>> 1;
  const joined = headers.join("\0");
  if (typeof body === "string") {
    op_fwbench_respond_text(id, status, count, joined, body);
  } else if (body instanceof ArrayBuffer) {
    op_fwbench_respond_bytes(id, status, count, joined, new Uint8Array(body));
  } else if (ArrayBuffer.isView(body)) {
    op_fwbench_respond_bytes(
      id,
      status,
      count,
      joined,
      new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
    );
  } else {
    op_fwbench_respond_text(id, status, count, joined, "");
  }
}

/** Streams a ReadableStream body to Rust chunk by chunk. */
async function sendStream(id, status, headers, stream) {
  let sid;
  try {
    sid = op_fwbench_respond_stream(id, status, headers.length >>> 1, headers.join("\0"));
  } catch (error) {
    // A head Rust refuses (a 1xx status, an invalid header): a 500, now.
    fail(id, error);
    return;
  }
  const reader = stream.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      const bytes = typeof value === "string" ? core.encode(value) : value;
      if (!(await op_fwbench_stream_write(sid, bytes))) {
        // The client went away: stop producing.
        await reader.cancel();
        break;
      }
    }
    op_fwbench_stream_close(sid, false, "");
  } catch (error) {
    // Rust cuts the body and logs one line naming the request.
    op_fwbench_stream_close(sid, true, describe(error));
  }
}

function describe(error) {
  if (error && typeof error === "object" && typeof error.stack === "string") {
    return error.stack;
  }
  return String(error);
}

/**
 * Commits a Response-like object that is not a platform Response although
 * it may inherit from one: @hono/node-server's lightweight Response (when
 * app code installed it as the global, e.g. by calling its serve()) keeps
 * `[status, body, headers]` under an own symbol described "cache" until
 * something reads it; read that without materializing. Any other class is
 * read through the public API (status, headers, body stream).
 */
function commitForeign(id, response) {
  const cacheKey = Object.getOwnPropertySymbols(response).find((key) => key.description === "cache");
  const cached = cacheKey === undefined ? undefined : response[cacheKey];
  if (Array.isArray(cached)) {
    const [status, body, init] = cached;
    const headers = flatInit(init);
    if (typeof body === "string" && !hasContentType(headers)) {
      headers.push("content-type", "text/plain;charset=UTF-8");
    }
    commitLight(id, { status, headers: { forEach: (fn) => forEachPair(headers, fn) }, body });
    return;
  }
  commitLight(id, { status: response.status, headers: response.headers, body: response.body });
}

/**
 * A HeadersInit (plain object, [name, value] pairs, or anything with
 * forEach such as Headers) as a flat [name, value, ...] list. Values are
 * checked by Rust when the response is built.
 */
function flatInit(init) {
  const flat = [];
  if (init === undefined || init === null) return flat;
  if (typeof init.forEach === "function" && !Array.isArray(init)) {
    init.forEach((value, name) => flat.push(name, value));
  } else if (Array.isArray(init)) {
    for (const [name, value] of init) flat.push(name, String(value));
  } else {
    for (const name in init) flat.push(name, String(init[name]));
  }
  return flat;
}

function hasContentType(flat) {
  for (let i = 0; i < flat.length; i += 2) {
    if (flat[i].toLowerCase() === "content-type") return true;
  }
  return false;
}

function forEachPair(flat, fn) {
  for (let i = 0; i < flat.length; i += 2) fn(flat[i + 1], flat[i]);
}

/** Commits a platform Response: the fast static form or its inner state. */
function commitResponse(id, response) {
  if (getInnerResponse(response) === undefined) {
    commitForeign(id, response);
    return;
  }
  const fastStatus = response[serveFastStatusKey];
  if (fastStatus !== 0 && !response[serveFastConsumedKey]) {
    const kind = response[serveFastHeaderKindKey];
    const contentType = kind === SERVE_FAST_HEADER_DEFAULT_TEXT
      ? "text/plain;charset=UTF-8"
      : kind === SERVE_FAST_HEADER_CONTENT_TYPE
      ? response[serveFastContentTypeKey]
      : null;
    const body = response[serveFastBodyKey];
    if (contentType !== null && typeof body === "string") {
      // The common case gets an op without a header list.
      op_fwbench_respond_typed_text(id, fastStatus, contentType, body);
    } else {
      sendStatic(id, fastStatus, contentType === null ? [] : ["content-type", contentType], body);
    }
    return;
  }
  const inner = toInnerResponse(response);
  if (inner.type === "error") {
    op_fwbench_respond_error(id, FAILED_HANDLER, "handler returned Response.error()");
    return;
  }
  const headers = flatHeaders(inner.headerList);
  const body = inner.body;
  if (body === null) {
    sendStatic(id, inner.status, headers, "");
    return;
  }
  const source = body.streamOrStatic;
  if (ObjectPrototypeIsPrototypeOf(ReadableStreamPrototype, source)) {
    sendStream(id, inner.status, headers, source);
    return;
  }
  if (source.consumed) {
    op_fwbench_respond_error(id, FAILED_HANDLER, "response body was already read");
    return;
  }
  source.consumed = true;
  sendStatic(id, inner.status, headers, source.body);
}

/** Commits a light response (see LIGHT). */
function commitLight(id, response) {
  const headers = [];
  response.headers?.forEach((value, name) => {
    headers.push(name, String(value));
  });
  const status = response.status ?? 200;
  let body = response.body;
  if (body instanceof Blob) body = body.stream();
  if (body && ObjectPrototypeIsPrototypeOf(ReadableStreamPrototype, body)) {
    sendStream(id, status, headers, body);
  } else {
    sendStatic(id, status, headers, body);
  }
}

function commit(id, response) {
  try {
    if (ObjectPrototypeIsPrototypeOf(ResponsePrototype, response)) {
      commitResponse(id, response);
    } else if (response !== null && typeof response === "object" && response[LIGHT] === true) {
      commitLight(id, response);
    } else {
      op_fwbench_respond_error(
        id,
        FAILED_HANDLER,
        `handler did not return a Response (got ${response === null ? "null" : typeof response}); did you forget to return it?`,
      );
    }
  } catch (error) {
    fail(id, error);
  }
}

function fail(id, error) {
  // Past the heap limit: the worker answers 503 and rebuilds the runtime.
  if (isOutOfMemory(error)) op_fwbench_heap_exhausted();
  else op_fwbench_respond_error(id, FAILED_HANDLER, describe(error));
}

/**
 * Called by Rust for every request: `id` names it on the Rust side.
 * Never throws; every outcome ends in exactly one respond op.
 */
function handle(id, method, hasBody) {
  let result;
  try {
    if (nodeListener !== null) {
      handleNode(id, method, hasBody);
      return;
    }
    result = appFetch(makeRequest(id, method, hasBody));
  } catch (error) {
    fail(id, error);
    return;
  }
  if (result !== null && typeof result === "object" && typeof result.then === "function") {
    result.then((response) => commit(id, response), (error) => fail(id, error));
  } else {
    commit(id, result);
  }
}

/** Reads the whole request body (node-style apps get it as one buffer). */
async function readAll(id) {
  const chunks = [];
  let length = 0;
  while (true) {
    const chunk = await op_fwbench_req_body_read(id);
    if (chunk.byteLength === 0) break;
    chunks.push(chunk);
    length += chunk.byteLength;
  }
  const all = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}

/** Commits what runNode collected: { status, headers: [[name, value], ...], body }. */
function commitNode(id, out) {
  try {
    sendStatic(id, out.status, flatHeaders(out.headers), out.body);
  } catch (error) {
    fail(id, error);
  }
}

/**
 * Serves one request through the node:http shim's `runNode`, committing
 * from its callbacks (no promise per request: see runNode). Never throws.
 */
function handleNode(id, method, hasBody) {
  const node = nodeShim;
  const run = (body) => {
    const request = {
      method,
      url: op_fwbench_req_path(id),
      rawHeaders: op_fwbench_req_headers(id),
      body,
      remoteAddress: "127.0.0.1",
      remotePort: 0,
    };
    node.runNode(nodeListener, request, (out) => commitNode(id, out), (error) => fail(id, error));
  };
  const guarded = (body) => {
    try {
      run(body);
    } catch (error) {
      fail(id, error);
    }
  };
  if (hasBody) readAll(id).then(guarded, (error) => fail(id, error));
  else guarded(null);
}

function isExpressApp(value) {
  return typeof value === "function" && typeof value.handle === "function" &&
    typeof value.set === "function" && typeof value.use === "function";
}

function isFastify(value) {
  return value !== null && typeof value === "object" &&
    typeof value.ready === "function" && typeof value.routing === "function" &&
    value.server !== undefined;
}

function nodeBridge(what) {
  // Offered to the bootstrap's services when node:http was evaluated,
  // which may have been before this module ran (a startup snapshot).
  nodeShim ??= globalThis[Symbol.for("fwbench.internal")].nodeBridge();
  const node = nodeShim;
  if (node === null) {
    throw new TypeError(`${what} needs fwbench's node:http shim, which was not loaded`);
  }
  return node;
}

/**
 * Whether a main module's default export holds nothing to serve: none, or
 * a CommonJS entry's untouched `module.exports`.
 */
function isEmptyExport(app) {
  return app === undefined ||
    (app !== null && typeof app === "object" && Object.getPrototypeOf(app) === Object.prototype &&
      Object.keys(app).length === 0);
}

/**
 * Installs the app from the main module's default export. Async because a
 * fastify instance must be `ready()` before it serves.
 */
async function setApp(app) {
  if (app !== null && typeof app === "object" && typeof app.fetch === "function") {
    appFetch = (request) => app.fetch(request);
    return "fetch";
  }
  if (isExpressApp(app)) {
    nodeBridge("an express app");
    nodeListener = app;
    return "express";
  }
  if (isFastify(app)) {
    const node = nodeBridge("a fastify instance");
    await app.ready();
    nodeListener = node.serverHandler(app.server);
    return "fastify";
  }
  // Nothing to serve yet, but an entry may listen() later, once something
  // it awaits settles (`main().then(() => app.listen())`): wait for it
  // while the event loop runs. The host fails the load if the loop runs
  // dry or the load timeout passes first.
  if (listened.length === 0 && isEmptyExport(app)) {
    await new Promise((resolve) => {
      listenedNow = resolve;
    });
    listenedNow = null;
  }
  // A server the app listen()ed on, whatever else its module exports (a
  // CommonJS entry's `module.exports` is `{}` when it assigns nothing).
  if (listened.length > 0) {
    const node = nodeBridge("a listening node:http server");
    nodeListener = node.serverHandler(listened[listened.length - 1]);
    return "node:http";
  }
  if (typeof app === "function") {
    appFetch = app;
    return "function";
  }
  throw new TypeError(
    app === undefined
      ? "the app module has no default export: export default { fetch(request) { return new Response('hello') } }"
      : `the app module's default export is not a fetch handler (got ${typeof app}): export an object with a fetch(request) method, a hono/elysia app, an express app or a fastify instance`,
  );
}

op_fwbench_register(handle, setApp);
