// node:tls for fwbench: TLS is not available; every function and class throws.
import { sandboxedModule, unavailableClass, unavailableFunction } from './_internal.js';

const DEFAULT_MIN_VERSION = 'TLSv1.2';
const DEFAULT_MAX_VERSION = 'TLSv1.3';
const TLSSocket = unavailableClass('tls', 'TLSSocket');
const Server = unavailableClass('tls', 'Server');
const SecureContext = unavailableClass('tls', 'SecureContext');
const createServer = unavailableFunction('tls', 'createServer');
const connect = unavailableFunction('tls', 'connect');
const createSecureContext = unavailableFunction('tls', 'createSecureContext');
const checkServerIdentity = unavailableFunction('tls', 'checkServerIdentity');
const getCiphers = unavailableFunction('tls', 'getCiphers');

export default sandboxedModule('tls', {
  DEFAULT_MIN_VERSION, DEFAULT_MAX_VERSION, TLSSocket, Server, SecureContext, createServer,
  connect, createSecureContext, checkServerIdentity, getCiphers,
});
export {
  DEFAULT_MIN_VERSION, DEFAULT_MAX_VERSION, TLSSocket, Server, SecureContext, createServer,
  connect, createSecureContext, checkServerIdentity, getCiphers,
};
