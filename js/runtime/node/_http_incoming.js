// node:http's IncomingMessage (Node's _http_incoming.js): a Readable that
// yields the request body the host already read, with Node's header rules.
import { Readable } from './stream.js';
import { Buffer } from './buffer.js';

// Fields whose duplicates Node drops (keeps the first), see _http_incoming.js matchKnownFields.
const SINGLE_VALUED = new Set([
  'content-type', 'content-length', 'user-agent', 'referer', 'host', 'authorization',
  'proxy-authorization', 'if-modified-since', 'if-unmodified-since', 'from', 'location',
  'max-forwards', 'retry-after', 'etag', 'last-modified', 'server', 'age', 'expires',
]);

const kHeaders = Symbol('kHeaders');
const kHeadersDistinct = Symbol('kHeadersDistinct');
const kTrailers = Symbol('kTrailers');
export const kBody = Symbol('fwbench.body');

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
