// The socket stand-in of the node:http shim: what req.socket and res.socket
// are when the host, not a socket, carries the exchange.
import * as host from 'fwbench:///runtime/host.js';
import EventEmitter from './events.js';
import process from './process.js';
import { notAvailable } from './_internal.js';

/** The port the host serves on: fixed for the runtime's life, so asked once. */
let knownPort;
function localPort() {
  if (knownPort === undefined) knownPort = host.hostPort();
  return knownPort;
}

/**
 * What req.socket / res.socket are: an EventEmitter with the fields
 * frameworks read (remoteAddress, encrypted, readable/writable, ...). The
 * real connection belongs to the host; destroy() marks this exchange dead.
 */
export class HostSocket extends EventEmitter {
  constructor(hostRequest) {
    super();
    this.remoteAddress = hostRequest?.remoteAddress ?? '127.0.0.1';
    this.remotePort = hostRequest?.remotePort;
    this.remoteFamily = this.remoteAddress.includes(':') ? 'IPv6' : 'IPv4';
    this.localAddress = '127.0.0.1';
    this.localPort = localPort();
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
