/**
 * Light responses for s200-light: `LightHeaders`, `LightResponse`,
 * `toResponse()` and the adapter protocol.
 *
 * s200-light runs the same chain as s200, but the responses that travel
 * through it are these plain objects instead of the platform's `Response`.
 * Constructing a platform Response is the dominant cost of a request on
 * Node (measured ~20 us per `new Response(string, init)` on Node 20 against
 * ~0.1 us for a LightResponse), and every middleware header write on a
 * platform Response goes through WebIDL conversion and validation. A light
 * response keeps the chain contract (`ctx.res` exists after `await next()`,
 * mutate `ctx.res.headers` in place) at a fraction of the price.
 *
 * ## Adapter protocol (agreed with fwbench's `src/adapter/`)
 *
 * A host that can serialize a response itself may accept a light response
 * directly, without building a platform Response. A value `r` is a light
 * response when
 *
 *     r[Symbol.for('fwbench.light-response')] === true
 *
 * and the adapter then reads exactly three things:
 *
 * - `r.status`: a number (100-599).
 * - `r.headers.forEach((value, name) => ...)`: every header once, names in
 *   lower case, values as strings; `set-cookie` is delivered once per cookie
 *   (never comma-joined), every other repeated name joined with `", "`.
 * - `r.body`: `null`/`undefined` (no body), a `string` (sent as UTF-8), a
 *   `Uint8Array` or `ArrayBuffer` (sent as is), or a `ReadableStream` of
 *   `Uint8Array` chunks.
 *
 * Nothing else (statusText, methods) is part of the protocol. Anywhere a
 * platform Response is needed, `toResponse(r)` converts one; platform
 * Responses pass through it unchanged.
 *
 * @module
 */

/** The brand a host checks for: `r[LIGHT_RESPONSE] === true`. */
export const LIGHT_RESPONSE = Symbol.for('fwbench.light-response');

// RFC 9110 token characters: what a field name may contain. Same rule the
// platform Headers class enforces, so LightHeaders throws where Headers
// throws. A table and a loop instead of a regex: header writes are the hot
// path of every middleware link, and the loop (which also spots upper case,
// so already-lower names skip toLowerCase) is several times cheaper.
const TOKEN = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TOKEN[c.charCodeAt(0)] = 1;

function normalizeName(name) {
  const s = typeof name === 'string' ? name : String(name);
  const n = s.length;
  let upper = false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 127 || TOKEN[c] === 0) throw new TypeError(`Invalid header name: "${s}"`);
    if (c <= 90 && c >= 65) upper = true;
  }
  if (n === 0) throw new TypeError('Invalid header name: ""');
  return upper ? s.toLowerCase() : s;
}

function normalizeValue(value) {
  let s = typeof value === 'string' ? value : String(value);
  let n = s.length;
  // Headers strips leading and trailing HTTP whitespace; only pay for the
  // regex when the value actually starts or ends with it.
  if (n !== 0 && (s.charCodeAt(0) <= 32 || s.charCodeAt(n - 1) <= 32)) {
    s = s.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
    n = s.length;
  }
  // A field value may not contain NUL, CR or LF (the platform rejects these).
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 0 || c === 10 || c === 13) throw new TypeError(`Invalid header value: ${JSON.stringify(s)}`);
  }
  return s;
}

/**
 * A Headers-compatible header map without the platform's cost.
 *
 * Case-insensitive; names are stored and reported in lower case; repeated
 * `append`s of one name are joined with `", "`, except `set-cookie`, whose
 * values stay separate (`getSetCookie()`, and once each in `forEach` and the
 * iterators). Iteration follows insertion order with set-cookie last, where
 * the platform sorts names; HTTP gives no meaning to the order of distinct
 * field names, and skipping the sort keeps the adapter's `forEach` cheap.
 *
 * @example
 * const h = new LightHeaders({ 'Content-Type': 'text/plain' });
 * h.append('Set-Cookie', 'a=1');
 * h.append('Set-Cookie', 'b=2');
 * h.get('content-type'); // 'text/plain'
 * h.getSetCookie();      // ['a=1', 'b=2']
 */
export class LightHeaders {
  /** @param {HeadersInit | LightHeaders} [init] */
  constructor(init) {
    /** @type {Map<string, string>} */
    this._map = new Map();
    /** @type {string[] | null} */
    this._cookies = null;
    if (init != null) fill(this, init);
  }

  /** @param {string} name @returns {string | null} */
  get(name) {
    const key = normalizeName(name);
    if (key === 'set-cookie') return this._cookies === null ? null : this._cookies.join(', ');
    const v = this._map.get(key);
    return v === undefined ? null : v;
  }

  /** @param {string} name @param {string} value */
  set(name, value) {
    const key = normalizeName(name);
    const v = normalizeValue(value);
    if (key === 'set-cookie') this._cookies = [v];
    else this._map.set(key, v);
  }

  /** @param {string} name @param {string} value */
  append(name, value) {
    const key = normalizeName(name);
    const v = normalizeValue(value);
    if (key === 'set-cookie') {
      if (this._cookies === null) this._cookies = [v];
      else this._cookies.push(v);
      return;
    }
    const prev = this._map.get(key);
    this._map.set(key, prev === undefined ? v : `${prev}, ${v}`);
  }

  /** @param {string} name @returns {boolean} */
  has(name) {
    const key = normalizeName(name);
    return key === 'set-cookie' ? this._cookies !== null : this._map.has(key);
  }

  /** @param {string} name */
  delete(name) {
    const key = normalizeName(name);
    if (key === 'set-cookie') this._cookies = null;
    else this._map.delete(key);
  }

  /** @returns {string[]} every set-cookie value, separately. */
  getSetCookie() {
    return this._cookies === null ? [] : this._cookies.slice();
  }

  /**
   * Calls `callback(value, name, headers)` once per field, and once per
   * cookie for set-cookie. This is the adapter protocol's read path.
   * @param {(value: string, name: string, headers: LightHeaders) => void} callback
   * @param {unknown} [thisArg]
   */
  forEach(callback, thisArg) {
    for (const [name, value] of this._map) callback.call(thisArg, value, name, this);
    const cookies = this._cookies;
    if (cookies !== null) {
      for (let i = 0; i < cookies.length; i++) callback.call(thisArg, cookies[i], 'set-cookie', this);
    }
  }

  /** @returns {IterableIterator<[string, string]>} */
  *entries() {
    yield* this._map;
    if (this._cookies !== null) for (const c of this._cookies) yield ['set-cookie', c];
  }

  /** @returns {IterableIterator<string>} */
  *keys() {
    for (const [name] of this.entries()) yield name;
  }

  /** @returns {IterableIterator<string>} */
  *values() {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator]() {
    return this.entries();
  }

  get [Symbol.toStringTag]() {
    return 'LightHeaders';
  }
}

function fill(headers, init) {
  if (typeof init !== 'object') throw new TypeError('LightHeaders init must be an object, an array of pairs or a Headers');
  if (typeof init.forEach === 'function' && !Array.isArray(init)) {
    // Headers or LightHeaders: forEach yields set-cookie separately on both.
    init.forEach((value, name) => headers.append(name, value));
  } else if (Symbol.iterator in init) {
    for (const pair of init) {
      if (pair.length !== 2) throw new TypeError('LightHeaders init pairs must have exactly two items');
      headers.append(pair[0], pair[1]);
    }
  } else {
    for (const name of Object.keys(init)) headers.append(name, init[name]);
  }
}

/**
 * A response as a plain object: `status`, `statusText`, `headers`
 * (a `LightHeaders`) and `body` (see the module's adapter protocol for the
 * allowed body types). Carries the `LIGHT_RESPONSE` brand.
 *
 * @example
 * const r = new LightResponse('{"ok":true}', { headers: { 'content-type': 'application/json' } });
 * r.headers.set('x-extra', '1');
 * const platform = toResponse(r); // a real Response, where one is needed
 */
export class LightResponse {
  /**
   * @param {LightBody} [body]
   * @param {{ status?: number, statusText?: string, headers?: HeadersInit | LightHeaders }} [init]
   */
  constructor(body = null, init) {
    const status = init?.status ?? 200;
    if (!Number.isInteger(status) || status < 100 || status > 599) {
      throw new RangeError(`Invalid response status ${status}: use an integer in 100..599`);
    }
    /** @type {number} */
    this.status = status;
    /** @type {string} */
    this.statusText = init?.statusText ?? '';
    /** @type {LightHeaders} */
    this.headers = init?.headers instanceof LightHeaders ? init.headers : new LightHeaders(init?.headers);
    /** @type {LightBody} */
    this.body = body;
  }

  /** @returns {boolean} true for a 2xx status. */
  get ok() {
    return this.status >= 200 && this.status < 300;
  }

  /** Reads the body as text (via a platform Response; not for hot paths). */
  text() {
    return toResponse(this).text();
  }

  /** Reads the body as JSON (via a platform Response; not for hot paths). */
  json() {
    return toResponse(this).json();
  }

  /** Reads the body as bytes (via a platform Response; not for hot paths). */
  arrayBuffer() {
    return toResponse(this).arrayBuffer();
  }
}

// The brand lives on the prototype: one property for every instance, and
// `r[LIGHT_RESPONSE] === true` still holds for each.
Object.defineProperty(LightResponse.prototype, LIGHT_RESPONSE, { value: true });

/** @typedef {null | undefined | string | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array>} LightBody */

/**
 * Whether `r` follows the light response protocol.
 * @param {unknown} r
 * @returns {boolean}
 */
export function isLightResponse(r) {
  return r != null && r[LIGHT_RESPONSE] === true;
}

// Statuses that must not carry a body; the platform Response throws if given one.
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * Converts a light response to a platform `Response`; anything else (a
 * platform Response already) is returned unchanged.
 *
 * @param {LightResponse | Response} r
 * @returns {Response}
 * @example
 * export default { fetch: (req) => app.fetchLight(req).then(toResponse) };
 */
export function toResponse(r) {
  if (!isLightResponse(r)) return r;
  const headers = new Headers();
  r.headers.forEach((value, name) => headers.append(name, value));
  const body = NULL_BODY.has(r.status) || r.body === undefined ? null : r.body;
  return new Response(body, { status: r.status, statusText: r.statusText || '', headers });
}

/**
 * Builds the light response for `json()`/`text()`/`send()` without going
 * through init parsing for the common case (no init).
 * @param {LightBody} body
 * @param {number} status
 * @param {string | null} contentType
 * @param {ResponseInit | undefined} init
 * @returns {LightResponse}
 */
export function makeLightResponse(body, status, contentType, init) {
  const headers = new LightHeaders(init?.headers);
  if (contentType !== null && !headers._map.has('content-type')) headers._map.set('content-type', contentType);
  const r = new LightResponse(body, { status, statusText: init?.statusText, headers });
  return r;
}
