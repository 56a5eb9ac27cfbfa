// A stand-in for fwbench:///runtime/host.js (the Rust ops the embedded host
// exposes), so the shims run under plain Node in tests. Same exports, same
// shapes: hash, hmac, timingSafeEqual, log, hostPort, the node:http hand-off
// (registerNodeServer, unregisterNodeServer, provideNodeBridge), and the async context pair
// that deno_core provides (core.getAsyncContext/setAsyncContext).
import { createHash, createHmac, timingSafeEqual as nodeTimingSafeEqual } from 'node:crypto';
import { AsyncLocalStorage } from 'node:async_hooks';

/** Lines written through log(), for tests to inspect. */
export const logLines = [];

export function hash(algorithm, data) {
  if (!['sha1', 'md5', 'sha256', 'sha384', 'sha512'].includes(algorithm)) throw new Error(`host.hash: unsupported ${algorithm}`);
  if (!(data instanceof Uint8Array)) throw new TypeError('host.hash: data must be a Uint8Array');
  return new Uint8Array(createHash(algorithm).update(data).digest());
}

export function hmac(algorithm, key, data) {
  if (!['sha1', 'md5', 'sha256', 'sha384', 'sha512'].includes(algorithm)) throw new Error(`host.hmac: unsupported ${algorithm}`);
  if (!(key instanceof Uint8Array) || !(data instanceof Uint8Array)) throw new TypeError('host.hmac: key and data must be Uint8Arrays');
  return new Uint8Array(createHmac(algorithm, key).update(data).digest());
}

export function timingSafeEqual(a, b) {
  return nodeTimingSafeEqual(a, b);
}

export function log(line) {
  logLines.push(line);
  if (process.env.FWBENCH_TEST_LOG) process.stderr.write(`[host log] ${line}\n`);
}

export function hostPort() {
  return 8080;
}

/** Servers registered through registerNodeServer, for tests to inspect. */
export const registeredServers = [];

export function registerNodeServer(server) {
  registeredServers.push(server);
}

export function unregisterNodeServer(server) {
  const index = registeredServers.indexOf(server);
  if (index !== -1) registeredServers.splice(index, 1);
}

/** What node:http handed over through provideNodeBridge. */
export let nodeBridge = null;

export function provideNodeBridge(bridge) {
  nodeBridge ??= bridge;
}

const context = new AsyncLocalStorage();
export function getAsyncContext() {
  return context.getStore();
}
export function setAsyncContext(value) {
  context.enterWith(value);
}
