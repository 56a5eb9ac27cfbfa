// node:http's Server: listen() opens no socket; it registers the server with
// the host, which serves it on its own port.
import * as host from 'fwbench:///runtime/host.js';
import EventEmitter from './events.js';
import process from './process.js';
import { nodeError } from './_internal.js';

const kListening = Symbol('fwbench.listening');


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
  host.registerNodeServer(this);
  process.nextTick(() => this.emit('listening'));
  return this;
};

Server.prototype.address = function address() {
  if (!this[kListening]) return null;
  return { address: '127.0.0.1', family: 'IPv4', port: host.hostPort() };
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
    host.unregisterNodeServer(this);
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
