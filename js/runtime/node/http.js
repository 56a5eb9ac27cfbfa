// node:http for fwbench: Node's server-side HTTP objects, and the bridge that
// lets the host serve node-style apps (express, fastify, a bare
// `(req, res) => ...` listener) without sockets.
//
// - IncomingMessage is a Readable (node:stream) that yields the request
//   body the host already read; `headers` follows Node's rules (names
//   lowercased, set-cookie an array, cookie joined with '; ', other
//   duplicates joined with ', ', duplicates of content-type, host and
//   the other single-valued fields dropped).
// - ServerResponse keeps OutgoingMessage semantics: a header store
//   (setHeader/getHeader/removeHeader/hasHeader/getHeaders/appendHeader),
//   writeHead merging into it, write()/end() with headersSent, finished,
//   writableEnded/writableFinished, 'prefinish', 'finish' and 'close'
//   events, no body for HEAD, 1xx, 204 and 304. Instead of going to a
//   socket, the status, headers and body chunks are collected.
// - createServer()/Server: listen() opens no socket; it registers the
//   server with the host (globalThis[Symbol.for('fwbench.host')]
//   .registerNodeServer(server)) and emits 'listening'.
// - dispatchNode(handler, hostRequest) runs one request through a
//   listener and resolves with {status, headers, body} once res.end() is
//   called. The host's adapter calls it; serverHandler(server) gives the
//   listener of a Server. Both are also published, once this module is
//   loaded, as globalThis[Symbol.for('fwbench.node')] for the adapter.
//
// Both constructors are function-style like Node's, so frameworks can call
// `http.ServerResponse.call(this, req)` and `util.inherits` from them.
// Outbound HTTP (request/get/Agent sockets), trailers, 1xx informational
// responses and upgrades are not available and throw.
import * as host from 'fwbench:///runtime/host.js';
import EventEmitter from './events.js';
import Stream, { Readable } from './stream.js';
import { Buffer } from './buffer.js';
import process from './process.js';
import { nodeError, notAvailable } from './_internal.js';

export const METHODS = [
  'ACL', 'BIND', 'CHECKOUT', 'CONNECT', 'COPY', 'DELETE', 'GET', 'HEAD', 'LINK', 'LOCK',
  'M-SEARCH', 'MERGE', 'MKACTIVITY', 'MKCALENDAR', 'MKCOL', 'MOVE', 'NOTIFY', 'OPTIONS', 'PATCH',
  'POST', 'PROPFIND', 'PROPPATCH', 'PURGE', 'PUT', 'QUERY', 'REBIND', 'REPORT', 'SEARCH', 'SOURCE',
  'SUBSCRIBE', 'TRACE', 'UNBIND', 'UNLINK', 'UNLOCK', 'UNSUBSCRIBE',
];

export const STATUS_CODES = {
  100: 'Continue', 101: 'Switching Protocols', 102: 'Processing', 103: 'Early Hints',
  200: 'OK', 201: 'Created', 202: 'Accepted', 203: 'Non-Authoritative Information',
  204: 'No Content', 205: 'Reset Content', 206: 'Partial Content', 207: 'Multi-Status',
  208: 'Already Reported', 226: 'IM Used', 300: 'Multiple Choices', 301: 'Moved Permanently',
  302: 'Found', 303: 'See Other', 304: 'Not Modified', 305: 'Use Proxy', 307: 'Temporary Redirect',
  308: 'Permanent Redirect', 400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required',
  403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable',
  407: 'Proxy Authentication Required', 408: 'Request Timeout', 409: 'Conflict', 410: 'Gone',
  411: 'Length Required', 412: 'Precondition Failed', 413: 'Payload Too Large', 414: 'URI Too Long',
  415: 'Unsupported Media Type', 416: 'Range Not Satisfiable', 417: 'Expectation Failed',
  418: "I'm a Teapot", 421: 'Misdirected Request', 422: 'Unprocessable Entity', 423: 'Locked',
  424: 'Failed Dependency', 425: 'Too Early', 426: 'Upgrade Required', 428: 'Precondition Required',
  429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons', 500: 'Internal Server Error', 501: 'Not Implemented',
  502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported', 506: 'Variant Also Negotiates', 507: 'Insufficient Storage',
  508: 'Loop Detected', 509: 'Bandwidth Limit Exceeded', 510: 'Not Extended',
  511: 'Network Authentication Required',
};

export const maxHeaderSize = 16384;

// ---------------------------------------------------------------------------
// Header validation (Node's _http_common checkIsHttpToken / checkInvalidHeaderChar)

const tokenRe = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
const invalidHeaderCharRe = /[^\t\x20-\x7e\x80-\xff]/;

export function validateHeaderName(name, label = 'Header name') {
  if (typeof name !== 'string' || !name || !tokenRe.test(name)) {
    throw nodeError('ERR_INVALID_HTTP_TOKEN', `${label} must be a valid HTTP token ["${name}"]`, TypeError);
  }
}

export function validateHeaderValue(name, value) {
  if (value === undefined) {
    throw nodeError('ERR_HTTP_INVALID_HEADER_VALUE', `Invalid value "${value}" for header "${name}"`, TypeError);
  }
  if (invalidHeaderCharRe.test(String(value))) {
    throw nodeError('ERR_INVALID_CHAR', `Invalid character in header content ["${name}"]`, TypeError);
  }
}

const headersSentError = (what) =>
  nodeError('ERR_HTTP_HEADERS_SENT', `Cannot ${what} headers after they are sent to the client`);

// ---------------------------------------------------------------------------
// The socket stand-in

const kHostRequest = Symbol('fwbench.hostRequest');

/**
 * What req.socket / res.socket are: an EventEmitter with the fields
 * frameworks read (remoteAddress, encrypted, readable/writable, ...). The
 * real connection belongs to the host; destroy() marks this exchange dead.
 */
class HostSocket extends EventEmitter {
  constructor(hostRequest) {
    super();
    this.remoteAddress = hostRequest?.remoteAddress ?? '127.0.0.1';
    this.remotePort = hostRequest?.remotePort;
    this.remoteFamily = this.remoteAddress.includes(':') ? 'IPv6' : 'IPv4';
    this.localAddress = '127.0.0.1';
    this.localPort = typeof host.hostPort === 'function' ? host.hostPort() : undefined;
    this.encrypted = false;
    this.readable = true;
    this.writable = true;
    this.destroyed = false;
    this.connecting = false;
    this.readableHighWaterMark = 16384;
    this.writableHighWaterMark = 16384;
    this.bytesRead = 0;
    this.bytesWritten = 0;
    this._httpMessage = null;
  }

  address() {
    return { address: this.localAddress, family: 'IPv4', port: this.localPort };
  }

  setTimeout(msecs, callback) {
    if (callback) this.once('timeout', callback);
    return this;
  }

  setNoDelay() {
    return this;
  }

  setKeepAlive() {
    return this;
  }

  ref() {
    return this;
  }

  unref() {
    return this;
  }

  cork() {}

  uncork() {}

  pause() {
    return this;
  }

  resume() {
    return this;
  }

  write() {
    throw notAvailable('net', 'writing to the raw socket of a request (responses go through res.write/res.end)');
  }

  end() {
    this.destroy();
    return this;
  }

  destroySoon() {
    this.destroy();
  }

  destroy(err) {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.readable = false;
    this.writable = false;
    process.nextTick(() => {
      if (err && this.listenerCount('error') > 0) this.emit('error', err);
      this.emit('close', Boolean(err));
    });
    return this;
  }
}

// ---------------------------------------------------------------------------
// IncomingMessage

// Fields whose duplicates Node drops (keeps the first), see _http_incoming.js matchKnownFields.
const SINGLE_VALUED = new Set([
  'content-type', 'content-length', 'user-agent', 'referer', 'host', 'authorization',
  'proxy-authorization', 'if-modified-since', 'if-unmodified-since', 'from', 'location',
  'max-forwards', 'retry-after', 'etag', 'last-modified', 'server', 'age', 'expires',
]);

const kHeaders = Symbol('kHeaders');
const kHeadersDistinct = Symbol('kHeadersDistinct');
const kTrailers = Symbol('kTrailers');
const kBody = Symbol('fwbench.body');

/** Builds req.headers from a flat rawHeaders list with Node's joining rules. */
function headersFromRaw(rawHeaders, joinDuplicateHeaders) {
  const headers = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    const value = rawHeaders[i + 1];
    const current = headers[name];
    if (current === undefined) {
      headers[name] = name === 'set-cookie' ? [value] : value;
    } else if (name === 'set-cookie') {
      current.push(value);
    } else if (name === 'cookie') {
      headers[name] = `${current}; ${value}`;
    } else if (!SINGLE_VALUED.has(name) || joinDuplicateHeaders) {
      headers[name] = `${current}, ${value}`;
    }
  }
  return headers;
}

export function IncomingMessage(socket) {
  if (!(this instanceof IncomingMessage)) return new IncomingMessage(socket);
  Readable.call(this, socket ? { highWaterMark: socket.readableHighWaterMark } : undefined);
  this.socket = socket;
  this.httpVersionMajor = null;
  this.httpVersionMinor = null;
  this.httpVersion = null;
  this.complete = false;
  this.rawHeaders = [];
  this.rawTrailers = [];
  this.joinDuplicateHeaders = false;
  this.aborted = false;
  this.upgrade = null;
  this.url = '';
  this.method = null;
  this.statusCode = null;
  this.statusMessage = null;
  this.client = socket;
  this[kHeaders] = null;
  this[kHeadersDistinct] = null;
  this[kTrailers] = null;
  this[kBody] = null;
  this._consuming = false;
  this._dumped = false;
}
Object.setPrototypeOf(IncomingMessage.prototype, Readable.prototype);
Object.setPrototypeOf(IncomingMessage, Readable);

Object.defineProperties(IncomingMessage.prototype, {
  connection: {
    get() {
      return this.socket;
    },
    set(value) {
      this.socket = value;
    },
    configurable: true,
  },
  headers: {
    get() {
      this[kHeaders] ??= headersFromRaw(this.rawHeaders, this.joinDuplicateHeaders);
      return this[kHeaders];
    },
    set(value) {
      this[kHeaders] = value;
    },
    configurable: true,
    enumerable: true,
  },
  headersDistinct: {
    get() {
      if (!this[kHeadersDistinct]) {
        const distinct = {};
        for (let i = 0; i < this.rawHeaders.length; i += 2) {
          const name = this.rawHeaders[i].toLowerCase();
          (distinct[name] ??= []).push(this.rawHeaders[i + 1]);
        }
        this[kHeadersDistinct] = distinct;
      }
      return this[kHeadersDistinct];
    },
    set(value) {
      this[kHeadersDistinct] = value;
    },
    configurable: true,
    enumerable: true,
  },
  trailers: {
    get() {
      this[kTrailers] ??= {};
      return this[kTrailers];
    },
    set(value) {
      this[kTrailers] = value;
    },
    configurable: true,
    enumerable: true,
  },
  trailersDistinct: {
    get() {
      return {};
    },
    configurable: true,
  },
});

IncomingMessage.prototype.setTimeout = function setTimeout(msecs, callback) {
  if (callback) this.on('timeout', callback);
  return this;
};

IncomingMessage.prototype._read = function _read() {
  if (!this._consuming) this._consuming = true;
  const body = this[kBody];
  this[kBody] = null;
  if (body && body.byteLength > 0) {
    if (this.socket) this.socket.bytesRead += body.byteLength;
    this.push(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  }
  this.push(null);
};

IncomingMessage.prototype._destroy = function _destroy(err, callback) {
  if (!this.readableEnded || !this.complete) {
    this.aborted = true;
    this.emit('aborted');
  }
  callback(err);
};

/** Node's req._dump(): discard an unread body so the request can end. */
IncomingMessage.prototype._dump = function _dump() {
  if (!this._dumped) {
    this._dumped = true;
    this.removeAllListeners('data');
    this.resume();
  }
};

// ---------------------------------------------------------------------------
// OutgoingMessage and ServerResponse

export const kOutHeaders = Symbol('kOutHeaders');
const kChunks = Symbol('fwbench.chunks');
const kAllStrings = Symbol('fwbench.allStrings');
const kFinalHeaders = Symbol('fwbench.finalHeaders');
const kOnEnd = Symbol('fwbench.onEnd');
const kOnDestroy = Symbol('fwbench.onDestroy');
const kWritableFinished = Symbol('fwbench.writableFinished');
const kCorked = Symbol('kCorked');

export function OutgoingMessage(options) {
  if (!(this instanceof OutgoingMessage)) return new OutgoingMessage(options);
  Stream.call(this);
  this.outputData = [];
  this.outputSize = 0;
  this.writable = true;
  this.destroyed = false;
  this._last = false;
  this.chunkedEncoding = false;
  this.shouldKeepAlive = true;
  this.maxRequestsOnConnectionReached = false;
  this._defaultKeepAlive = true;
  this.useChunkedEncodingByDefault = true;
  this.sendDate = false;
  this._removedConnection = false;
  this._removedContLen = false;
  this._removedTE = false;
  this.strictContentLength = false;
  this._contentLength = null;
  this._hasBody = true;
  this._trailer = '';
  this.finished = false;
  this._headerSent = false;
  this._closed = false;
  this.socket = null;
  this._header = null;
  this[kOutHeaders] = null;
  this[kCorked] = 0;
  this[kChunks] = [];
  this[kAllStrings] = true;
  this[kFinalHeaders] = null;
  this[kWritableFinished] = false;
  this[kOnEnd] = null;
  this[kOnDestroy] = null;
}
Object.setPrototypeOf(OutgoingMessage.prototype, Stream.prototype);
Object.setPrototypeOf(OutgoingMessage, Stream);

Object.defineProperties(OutgoingMessage.prototype, {
  connection: {
    get() {
      return this.socket;
    },
    set(value) {
      this.socket = value;
    },
    configurable: true,
  },
  headersSent: {
    get() {
      return !!this._header;
    },
    configurable: true,
  },
  writableEnded: {
    get() {
      return this.finished;
    },
    configurable: true,
  },
  writableFinished: {
    get() {
      return this[kWritableFinished];
    },
    configurable: true,
  },
  writableObjectMode: { get: () => false, configurable: true },
  writableLength: { get: () => 0, configurable: true },
  writableHighWaterMark: { get: () => 16384, configurable: true },
  writableNeedDrain: { get: () => false, configurable: true },
  writableCorked: {
    get() {
      return this[kCorked];
    },
    configurable: true,
  },
  closed: {
    get() {
      return this._closed;
    },
    configurable: true,
  },
  errored: {
    get() {
      return this._errored ?? null;
    },
    configurable: true,
  },
});

const proto = OutgoingMessage.prototype;

proto.setHeader = function setHeader(name, value) {
  if (this._header) throw headersSentError('set');
  validateHeaderName(name);
  validateHeaderValue(name, value);
  (this[kOutHeaders] ??= { __proto__: null })[name.toLowerCase()] = [name, value];
  return this;
};

proto.setHeaders = function setHeaders(headers) {
  if (this._header) throw headersSentError('set');
  if (!headers || Array.isArray(headers) || typeof headers.keys !== 'function' || typeof headers.get !== 'function') {
    throw nodeError('ERR_INVALID_ARG_TYPE', 'The "headers" argument must be an instance of Headers or Map', TypeError);
  }
  const cookies = [];
  for (const [key, value] of headers) {
    if (key.toLowerCase() === 'set-cookie') {
      if (Array.isArray(value)) cookies.push(...value);
      else cookies.push(value);
      continue;
    }
    this.setHeader(key, value);
  }
  if (typeof headers.getSetCookie === 'function' && cookies.length === 0) cookies.push(...headers.getSetCookie());
  if (cookies.length) this.setHeader('set-cookie', cookies);
  return this;
};

proto.appendHeader = function appendHeader(name, value) {
  if (this._header) throw headersSentError('append');
  validateHeaderName(name);
  validateHeaderValue(name, value);
  const key = name.toLowerCase();
  const headers = (this[kOutHeaders] ??= { __proto__: null });
  const existing = headers[key];
  if (existing) {
    const current = Array.isArray(existing[1]) ? existing[1] : [existing[1]];
    headers[key] = [existing[0], current.concat(value)];
  } else {
    headers[key] = [name, value];
  }
  return this;
};

proto.getHeader = function getHeader(name) {
  if (typeof name !== 'string') {
    throw nodeError('ERR_INVALID_ARG_TYPE', 'The "name" argument must be of type string', TypeError);
  }
  return this[kOutHeaders]?.[name.toLowerCase()]?.[1];
};

proto.getHeaderNames = function getHeaderNames() {
  return this[kOutHeaders] ? Object.keys(this[kOutHeaders]) : [];
};

proto.getRawHeaderNames = function getRawHeaderNames() {
  return this[kOutHeaders] ? Object.values(this[kOutHeaders]).map((entry) => entry[0]) : [];
};

proto.getHeaders = function getHeaders() {
  const out = { __proto__: null };
  const headers = this[kOutHeaders];
  if (headers) for (const key in headers) out[key] = headers[key][1];
  return out;
};

proto.hasHeader = function hasHeader(name) {
  if (typeof name !== 'string') {
    throw nodeError('ERR_INVALID_ARG_TYPE', 'The "name" argument must be of type string', TypeError);
  }
  return this[kOutHeaders] != null && name.toLowerCase() in this[kOutHeaders];
};

proto.removeHeader = function removeHeader(name) {
  if (typeof name !== 'string') {
    throw nodeError('ERR_INVALID_ARG_TYPE', 'The "name" argument must be of type string', TypeError);
  }
  if (this._header) throw headersSentError('remove');
  const key = name.toLowerCase();
  if (key === 'content-length') this._removedContLen = true;
  else if (key === 'transfer-encoding') this._removedTE = true;
  else if (key === 'connection') this._removedConnection = true;
  if (this[kOutHeaders]) delete this[kOutHeaders][key];
};

/** Appends [name, value] pairs for one header field (arrays become repeated fields). */
function pushHeader(pairs, name, value) {
  validateHeaderName(name);
  if (Array.isArray(value)) {
    if (value.length < 2 || name.toLowerCase() !== 'cookie') {
      for (const item of value) {
        validateHeaderValue(name, item);
        pairs.push([name, `${item}`]);
      }
      return;
    }
    value = value.join('; ');
  }
  validateHeaderValue(name, value);
  pairs.push([name, `${value}`]);
}

/** Fixes the header list and the status line; after this, headersSent is true. */
proto._storeHeader = function _storeHeader(firstLine, headers) {
  const pairs = [];
  if (headers === this[kOutHeaders]) {
    if (headers) for (const key in headers) pushHeader(pairs, headers[key][0], headers[key][1]);
  } else if (Array.isArray(headers)) {
    if (headers.length && Array.isArray(headers[0])) {
      for (const entry of headers) pushHeader(pairs, entry[0], entry[1]);
    } else {
      if (headers.length % 2 !== 0) {
        throw nodeError('ERR_INVALID_ARG_VALUE', "The argument 'headers' is invalid.", TypeError);
      }
      for (let n = 0; n < headers.length; n += 2) pushHeader(pairs, headers[n], headers[n + 1]);
    }
  } else if (headers) {
    for (const key of Object.keys(headers)) pushHeader(pairs, key, headers[key]);
  }
  // Node adds Content-Length when it knows the length (end(chunk) before
  // any header was sent, or a framework set _contentLength) and the app set
  // neither Content-Length nor Transfer-Encoding; otherwise it would send
  // the body chunked, which the host decides on its own.
  let contLen = false;
  let te = false;
  for (const [name] of pairs) {
    const key = name.length === 14 || name.length === 17 ? name.toLowerCase() : '';
    if (key === 'content-length') contLen = true;
    else if (key === 'transfer-encoding') te = true;
  }
  if (!contLen && !te && this._hasBody && this.useChunkedEncodingByDefault && !this._removedContLen &&
    typeof this._contentLength === 'number') {
    pairs.push(['Content-Length', `${this._contentLength}`]);
  }
  this[kFinalHeaders] = pairs;
  let block = firstLine;
  for (const [name, value] of pairs) block += `${name}: ${value}\r\n`;
  this._header = `${block}\r\n`;
  this._headerSent = false;
};

proto.flushHeaders = function flushHeaders() {
  if (!this._header) this._implicitHeader();
};

proto.cork = function cork() {
  this[kCorked]++;
};

proto.uncork = function uncork() {
  if (this[kCorked] > 0) this[kCorked]--;
};

proto.setTimeout = function setTimeout(msecs, callback) {
  if (callback) this.on('timeout', callback);
  return this;
};

proto.addTrailers = function addTrailers() {
  throw new Error('HTTP trailers are not available in fwbench (responses are sent with a known length)');
};

function writeAfterEnd(msg, callback) {
  const err = nodeError('ERR_STREAM_WRITE_AFTER_END', 'write after end');
  process.nextTick(() => {
    if (msg.listenerCount('error') > 0) msg.emit('error', err);
    if (typeof callback === 'function') callback(err);
  });
  return false;
}

/** Collects one body chunk (Node's write_), returning true like Node's when nothing is buffered. */
function writeChunk(msg, chunk, encoding, callback, fromEnd) {
  if (typeof callback !== 'function') callback = null;
  if (chunk === null) throw nodeError('ERR_STREAM_NULL_VALUES', 'May not write null values to stream', TypeError);
  if (typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) {
    throw nodeError(
      'ERR_INVALID_ARG_TYPE',
      'The "chunk" argument must be of type string or an instance of Buffer or Uint8Array',
      TypeError,
    );
  }
  if (!msg._header) {
    if (fromEnd) msg._contentLength = typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding) : chunk.byteLength;
    msg._implicitHeader();
  }
  if (!msg._hasBody) {
    if (callback) process.nextTick(callback);
    return true;
  }
  const length = typeof chunk === 'string' ? chunk.length : chunk.byteLength;
  if (length > 0) {
    if (typeof chunk === 'string') {
      if (encoding && !/^utf-?8$/i.test(encoding)) {
        chunk = Buffer.from(chunk, encoding);
        msg[kAllStrings] = false;
      }
    } else {
      msg[kAllStrings] = false;
    }
    msg[kChunks].push(chunk);
  }
  if (callback) process.nextTick(callback);
  return true;
}

proto.write = function write(chunk, encoding, callback) {
  if (typeof encoding === 'function') {
    callback = encoding;
    encoding = null;
  }
  if (this.finished) return writeAfterEnd(this, callback);
  return writeChunk(this, chunk, encoding, callback, false);
};

proto.end = function end(chunk, encoding, callback) {
  if (typeof chunk === 'function') {
    callback = chunk;
    chunk = null;
    encoding = null;
  } else if (typeof encoding === 'function') {
    callback = encoding;
    encoding = null;
  }
  if (chunk) {
    if (this.finished) {
      writeAfterEnd(this, callback);
      return this;
    }
    writeChunk(this, chunk, encoding, null, true);
  } else if (this.finished) {
    if (typeof callback === 'function') {
      if (!this.writableFinished) this.on('finish', callback);
      else callback(nodeError('ERR_STREAM_ALREADY_FINISHED', 'Cannot call end after a stream was finished'));
    }
    return this;
  } else if (!this._header) {
    this._contentLength = 0;
    this._implicitHeader();
  }
  if (typeof callback === 'function') this.once('finish', callback);
  this.finished = true;
  this[kOnEnd]?.(this);
  this.emit('prefinish');
  process.nextTick(() => {
    this[kWritableFinished] = true;
    this.emit('finish');
  });
  return this;
};

proto.destroy = function destroy(error) {
  if (this.destroyed) return this;
  this.destroyed = true;
  this._errored = error ?? null;
  if (!this.finished) this[kOnDestroy]?.(error);
  if (this.socket) this.socket.destroy(error);
  return this;
};

proto._implicitHeader = function _implicitHeader() {
  throw nodeError('ERR_METHOD_NOT_IMPLEMENTED', 'The _implicitHeader() method is not implemented');
};

export function ServerResponse(req, options) {
  if (!(this instanceof ServerResponse)) return new ServerResponse(req, options);
  OutgoingMessage.call(this, options);
  if (req?.method === 'HEAD') this._hasBody = false;
  this.req = req;
  this.sendDate = true;
  this._sent100 = false;
  this._expect_continue = false;
  if (req && req.httpVersionMajor < 1 || (req?.httpVersionMajor === 1 && req.httpVersionMinor === 0)) {
    this.useChunkedEncodingByDefault = false;
  }
}
Object.setPrototypeOf(ServerResponse.prototype, OutgoingMessage.prototype);
Object.setPrototypeOf(ServerResponse, OutgoingMessage);

ServerResponse.prototype.statusCode = 200;
ServerResponse.prototype.statusMessage = undefined;

function onServerResponseClose() {
  // `this` is the socket: the exchange ended without end() (host aborted).
  const res = this._httpMessage;
  if (res) {
    res._closed = true;
    res.emit('close');
  }
}

ServerResponse.prototype.assignSocket = function assignSocket(socket) {
  if (socket._httpMessage) {
    throw nodeError('ERR_HTTP_SOCKET_ASSIGNED', 'ServerResponse has an already assigned socket');
  }
  socket._httpMessage = this;
  socket.on('close', onServerResponseClose);
  this.socket = socket;
  this.emit('socket', socket);
};

ServerResponse.prototype.detachSocket = function detachSocket(socket) {
  socket.removeListener('close', onServerResponseClose);
  socket._httpMessage = null;
  this.socket = null;
};

ServerResponse.prototype._implicitHeader = function _implicitHeader() {
  this.writeHead(this.statusCode);
};

ServerResponse.prototype.writeHead = function writeHead(statusCode, reason, obj) {
  if (this._header) throw headersSentError('write');
  const originalStatusCode = statusCode;
  statusCode |= 0;
  if (statusCode < 100 || statusCode > 999) {
    throw nodeError('ERR_HTTP_INVALID_STATUS_CODE', `Invalid status code: ${originalStatusCode}`, RangeError);
  }
  if (typeof reason === 'string') {
    this.statusMessage = reason;
  } else {
    this.statusMessage ||= STATUS_CODES[statusCode] || 'unknown';
    obj ??= reason;
  }
  this.statusCode = statusCode;
  let headers;
  if (this[kOutHeaders]) {
    // Headers set with setHeader() and passed here merge, the latter winning.
    if (Array.isArray(obj)) {
      if (obj.length % 2 !== 0) throw nodeError('ERR_INVALID_ARG_VALUE', "The argument 'headers' is invalid.", TypeError);
      for (let n = 0; n < obj.length; n += 2) this.removeHeader(obj[n]);
      for (let n = 0; n < obj.length; n += 2) if (obj[n]) this.appendHeader(obj[n], obj[n + 1]);
    } else if (obj) {
      for (const key of Object.keys(obj)) if (key) this.setHeader(key, obj[key]);
    }
    headers = this[kOutHeaders];
  } else {
    headers = obj;
  }
  if (invalidHeaderCharRe.test(this.statusMessage)) {
    throw nodeError('ERR_INVALID_CHAR', 'Invalid character in statusMessage', TypeError);
  }
  if (statusCode === 204 || statusCode === 304 || (statusCode >= 100 && statusCode <= 199)) {
    this._hasBody = false;
  }
  this._storeHeader(`HTTP/1.1 ${statusCode} ${this.statusMessage}\r\n`, headers);
  return this;
};

ServerResponse.prototype.writeContinue = function writeContinue() {
  throw new Error('res.writeContinue() is not available in fwbench (the host answers Expect: 100-continue)');
};

ServerResponse.prototype.writeProcessing = function writeProcessing() {
  throw new Error('res.writeProcessing() is not available in fwbench (no 1xx responses)');
};

ServerResponse.prototype.writeEarlyHints = function writeEarlyHints() {
  throw new Error('res.writeEarlyHints() is not available in fwbench (no 1xx responses)');
};

// ---------------------------------------------------------------------------
// Server

const kListening = Symbol('fwbench.listening');

/** The bridge object the host installs; absent when running outside fwbench. */
const hostBridge = () => globalThis[Symbol.for('fwbench.host')];

export function Server(options, requestListener) {
  if (!(this instanceof Server)) return new Server(options, requestListener);
  if (typeof options === 'function') {
    requestListener = options;
    options = {};
  } else if (options == null || typeof options === 'object') {
    options = { ...options };
  } else {
    throw nodeError('ERR_INVALID_ARG_TYPE', 'The "options" argument must be of type object', TypeError);
  }
  EventEmitter.call(this);
  this.options = options;
  this.joinDuplicateHeaders = options.joinDuplicateHeaders ?? false;
  if (requestListener) this.on('request', requestListener);
  this.timeout = 0;
  this.keepAliveTimeout = 5000;
  this.maxHeadersCount = null;
  this.maxRequestsPerSocket = 0;
  this.headersTimeout = 60000;
  this.requestTimeout = 300000;
  this[kListening] = false;
}
Object.setPrototypeOf(Server.prototype, EventEmitter.prototype);
Object.setPrototypeOf(Server, EventEmitter);

Object.defineProperty(Server.prototype, 'listening', {
  get() {
    return this[kListening];
  },
  configurable: true,
});

/**
 * server.listen(...): no socket is opened. The server is handed to the host,
 * which serves it on its own port; 'listening' (and the callback) follow
 * asynchronously, as in Node. Every argument form of net.Server#listen is
 * accepted; only the callback is used.
 */
Server.prototype.listen = function listen(...args) {
  if (this[kListening]) {
    throw nodeError('ERR_SERVER_ALREADY_LISTEN', 'Listen method has been called more than once without closing.');
  }
  const callback = args.findLast((arg) => typeof arg === 'function');
  if (callback) this.once('listening', callback);
  this[kListening] = true;
  hostBridge()?.registerNodeServer?.(this);
  process.nextTick(() => this.emit('listening'));
  return this;
};

Server.prototype.address = function address() {
  if (!this[kListening]) return null;
  const port = typeof host.hostPort === 'function' ? host.hostPort() : 0;
  return { address: '127.0.0.1', family: 'IPv4', port };
};

Server.prototype.close = function close(callback) {
  if (typeof callback === 'function') {
    if (!this[kListening]) {
      this.once('close', () => callback(nodeError('ERR_SERVER_NOT_RUNNING', 'Server is not running.')));
    } else {
      this.once('close', callback);
    }
  }
  if (this[kListening]) {
    this[kListening] = false;
    hostBridge()?.unregisterNodeServer?.(this);
  }
  process.nextTick(() => this.emit('close'));
  return this;
};

Server.prototype.closeAllConnections = function closeAllConnections() {};
Server.prototype.closeIdleConnections = function closeIdleConnections() {};

Server.prototype.setTimeout = function setTimeout(msecs, callback) {
  this.timeout = msecs;
  if (callback) this.on('timeout', callback);
  return this;
};

Server.prototype.ref = function ref() {
  return this;
};

Server.prototype.unref = function unref() {
  return this;
};

export function createServer(options, requestListener) {
  return new Server(options, requestListener);
}

// ---------------------------------------------------------------------------
// The host bridge

/** The request listener of a Server: emits 'request' as Node's server does. */
export function serverHandler(server) {
  return (req, res) => server.emit('request', req, res);
}

/** The collected body: one string when every chunk was UTF-8 text, else bytes. */
function collectBody(res) {
  const chunks = res[kChunks];
  if (chunks.length === 0) return '';
  if (res[kAllStrings]) return chunks.length === 1 ? chunks[0] : chunks.join('');
  const bytes = Buffer.concat(chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)));
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Runs one request through a node-style listener.
 *
 * hostRequest = { method, url, headers: [[name, value], ...], body:
 * Uint8Array | null, remoteAddress, remotePort }. Resolves with { status,
 * headers: [[name, value], ...], body: string | Uint8Array } as soon as
 * res.end() has been called; rejects if the handler throws synchronously,
 * if a promise it returns rejects before end(), or if the response is
 * destroyed before end().
 */
export function dispatchNode(handler, hostRequest) {
  return new Promise((resolve, reject) => {
    const socket = new HostSocket(hostRequest);
    const req = new IncomingMessage(socket);
    req.method = hostRequest.method;
    req.url = hostRequest.url;
    req.httpVersionMajor = 1;
    req.httpVersionMinor = 1;
    req.httpVersion = '1.1';
    const raw = [];
    for (const [name, value] of hostRequest.headers) raw.push(name, value);
    req.rawHeaders = raw;
    req[kBody] = hostRequest.body ?? null;
    req.complete = true;

    const res = new ServerResponse(req);
    res.shouldKeepAlive = true;
    res[kOnEnd] = () => {
      resolve({ status: res.statusCode, headers: res[kFinalHeaders] ?? [], body: collectBody(res) });
    };
    res[kOnDestroy] = (err) => {
      reject(err ?? new Error('the response was destroyed before res.end() was called'));
    };
    res.assignSocket(socket);
    res.on('finish', () => {
      // As Node does once a response is done: drop an unread request body
      // (so 'end' and 'close' reach the request), then close the response.
      if (!req._consuming && !req.readableEnded) req._dump();
      res.detachSocket(socket);
      process.nextTick(() => {
        res._closed = true;
        res.emit('close');
      });
    });

    let returned;
    try {
      returned = handler(req, res);
    } catch (err) {
      reject(err);
      return;
    }
    if (returned && typeof returned.then === 'function') returned.then(undefined, reject);
  });
}

// ---------------------------------------------------------------------------
// Client side: not available (fwbench apps serve, they do not call out)

export function Agent(options) {
  if (!(this instanceof Agent)) return new Agent(options);
  EventEmitter.call(this);
  this.options = { ...options };
  this.keepAlive = this.options.keepAlive ?? false;
  this.maxSockets = this.options.maxSockets ?? Infinity;
  this.maxFreeSockets = this.options.maxFreeSockets ?? 256;
  this.sockets = {};
  this.freeSockets = {};
  this.requests = {};
}
Object.setPrototypeOf(Agent.prototype, EventEmitter.prototype);
Agent.prototype.destroy = function destroy() {};
export const globalAgent = new Agent();

export function ClientRequest() {
  throw notAvailable('http', 'new http.ClientRequest() (outbound HTTP)');
}
Object.setPrototypeOf(ClientRequest.prototype, OutgoingMessage.prototype);

export function request() {
  throw notAvailable('http', 'http.request() (outbound HTTP)');
}

export function get() {
  throw notAvailable('http', 'http.get() (outbound HTTP)');
}

export function setMaxIdleHTTPParsers() {}

// The host's adapter (js/runtime/serve.js) finds the bridge here once any
// module has imported node:http (express and fastify do at import time).
if (!Object.prototype.hasOwnProperty.call(globalThis, Symbol.for('fwbench.node'))) {
  Object.defineProperty(globalThis, Symbol.for('fwbench.node'), {
    value: Object.freeze({ dispatchNode, serverHandler }),
    configurable: true,
  });
}

const http = {
  METHODS, STATUS_CODES, maxHeaderSize, validateHeaderName, validateHeaderValue, IncomingMessage,
  OutgoingMessage, ServerResponse, Server, createServer, Agent, globalAgent, ClientRequest, request,
  get, setMaxIdleHTTPParsers, serverHandler, dispatchNode,
};
export default http;
