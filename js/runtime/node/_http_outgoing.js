// node:http's OutgoingMessage and ServerResponse (Node's _http_outgoing.js
// and _http_server.js): a header store and collected body chunks that the
// host sends once res.end() is called.
import Stream from './stream.js';
import { Buffer } from './buffer.js';
import process from './process.js';
import { nodeError } from './_internal.js';
import {
  STATUS_CODES,
  headersSentError,
  invalidHeaderCharRe,
  validateHeaderName,
  validateHeaderValue,
} from './_http_common.js';

export const kOutHeaders = Symbol('kOutHeaders');
export const kChunks = Symbol('fwbench.chunks');
export const kAllStrings = Symbol('fwbench.allStrings');
export const kFinalHeaders = Symbol('fwbench.finalHeaders');
/**
 * What `_header` reads: null before the head is fixed, then the status line
 * and header list it was fixed with, until something reads `_header` and
 * gets them as Node's raw header block (a string, built then and kept).
 * The host sends kFinalHeaders, so only app code that reads the block
 * pays for building it: a fifth of fastify's extra cost for five headers.
 */
const kHeaderBlock = Symbol('fwbench.headerBlock');
export const kOnEnd = Symbol('fwbench.onEnd');
export const kOnDestroy = Symbol('fwbench.onDestroy');
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
  this[kHeaderBlock] = null;
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
      return !!this[kHeaderBlock];
    },
    configurable: true,
  },
  _header: {
    get() {
      let block = this[kHeaderBlock];
      if (block !== null && typeof block === 'object') {
        let text = block.firstLine;
        for (const [name, value] of block.pairs) text += `${name}: ${value}\r\n`;
        block = `${text}\r\n`;
        this[kHeaderBlock] = block;
      }
      return block;
    },
    set(value) {
      this[kHeaderBlock] = value;
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
  if (this[kHeaderBlock]) throw headersSentError('set');
  validateHeaderName(name);
  validateHeaderValue(name, value);
  (this[kOutHeaders] ??= { __proto__: null })[name.toLowerCase()] = [name, value];
  return this;
};

proto.setHeaders = function setHeaders(headers) {
  if (this[kHeaderBlock]) throw headersSentError('set');
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
  if (this[kHeaderBlock]) throw headersSentError('append');
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
  if (this[kHeaderBlock]) throw headersSentError('remove');
  const key = name.toLowerCase();
  if (key === 'content-length') this._removedContLen = true;
  else if (key === 'transfer-encoding') this._removedTE = true;
  else if (key === 'connection') this._removedConnection = true;
  if (this[kOutHeaders]) delete this[kOutHeaders][key];
};

/**
 * Appends [name, value] pairs for one header field (arrays become repeated
 * fields). `validate` is false for the entries of kOutHeaders, which
 * setHeader() and appendHeader() checked already (as Node skips them too).
 */
function pushHeader(pairs, name, value, validate) {
  if (validate) validateHeaderName(name);
  if (Array.isArray(value)) {
    if (value.length < 2 || name.toLowerCase() !== 'cookie') {
      for (const item of value) {
        if (validate) validateHeaderValue(name, item);
        pairs.push([name, `${item}`]);
      }
      return;
    }
    value = value.join('; ');
  }
  if (validate) validateHeaderValue(name, value);
  pairs.push([name, `${value}`]);
}

/** Fixes the header list and the status line; after this, headersSent is true. */
proto._storeHeader = function _storeHeader(firstLine, headers) {
  const pairs = [];
  if (headers === this[kOutHeaders]) {
    if (headers) for (const key in headers) pushHeader(pairs, headers[key][0], headers[key][1], false);
  } else if (Array.isArray(headers)) {
    if (headers.length && Array.isArray(headers[0])) {
      for (const entry of headers) pushHeader(pairs, entry[0], entry[1], true);
    } else {
      if (headers.length % 2 !== 0) {
        throw nodeError('ERR_INVALID_ARG_VALUE', "The argument 'headers' is invalid.", TypeError);
      }
      for (let n = 0; n < headers.length; n += 2) pushHeader(pairs, headers[n], headers[n + 1], true);
    }
  } else if (headers) {
    for (const key of Object.keys(headers)) pushHeader(pairs, key, headers[key], true);
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
  this[kHeaderBlock] = { firstLine, pairs };
  this._headerSent = false;
};

proto.flushHeaders = function flushHeaders() {
  if (!this[kHeaderBlock]) this._implicitHeader();
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
  if (!msg[kHeaderBlock]) {
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
  } else if (!this[kHeaderBlock]) {
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
  if (this[kHeaderBlock]) throw headersSentError('write');
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
