// node:http's client side, which fwbench apps do not have (they serve, they
// do not call out): every entry point throws, naming what was called.
import EventEmitter from './events.js';
import { notAvailable } from './_internal.js';
import { OutgoingMessage } from './_http_outgoing.js';

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
