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

/**
 * The project services (src/engine/project/ops.rs) over Node's own: the
 * CommonJS loader's resolution and sources, the read-only file system,
 * process.env and zlib codecs. Under Node the shims' tests need only what
 * they call; the loader's own behaviour is tested against Node in
 * tests/projects/ (Rust), where the real ops run.
 */
import { readFileSync, statSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import * as nodeZlib from 'node:zlib';

const codecs = new Map();
let nextCodec = 1;
const makers = {
  gzip: (level) => nodeZlib.createGzip({ level }), gunzip: () => nodeZlib.createGunzip(),
  deflate: (level) => nodeZlib.createDeflate({ level }), inflate: () => nodeZlib.createInflate(),
  deflateRaw: (level) => nodeZlib.createDeflateRaw({ level }), inflateRaw: () => nodeZlib.createInflateRaw(),
  unzip: () => nodeZlib.createUnzip(),
  brotliCompress: () => nodeZlib.createBrotliCompress(), brotliDecompress: () => nodeZlib.createBrotliDecompress(),
};
const services = {
  env: () => ({}),
  root: () => process.cwd(),
  readFile: (path) => new Uint8Array(readFileSync(path)),
  stat: (path, follow) => {
    const s = follow ? statSync(path) : lstatSync(path);
    const kind = s.isSymbolicLink() ? 'symlink' : s.isDirectory() ? 'dir' : s.isFile() ? 'file' : 'other';
    return { kind, size: s.size, mode: s.mode, mtimeMs: s.mtimeMs, atimeMs: s.atimeMs, ctimeMs: s.ctimeMs,
      ino: s.ino, dev: s.dev, nlink: s.nlink, uid: s.uid, gid: s.gid };
  },
  readdir: (path) => readdirSync(path, { withFileTypes: true })
    .map((d) => [d.name, d.isSymbolicLink() ? 'symlink' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : 'other']),
  realpath: (path) => realpathSync(path),
  writeFd: (fd, bytes) => process[fd === 1 ? 'stdout' : 'stderr'].write(bytes) && bytes.length,
  // Whole-buffer codecs: enough for the shims' tests (zlib's sync forms).
  zlibOpen: (kind, level) => {
    const id = nextCodec++;
    codecs.set(id, { kind, level, input: [] });
    return id;
  },
  zlibPush: (id, input, flush) => {
    const codec = codecs.get(id);
    codec.input.push(Buffer.from(input));
    if (flush !== 2) return new Uint8Array(0);
    const whole = Buffer.concat(codec.input);
    const sync = { gzip: 'gzipSync', gunzip: 'gunzipSync', deflate: 'deflateSync', inflate: 'inflateSync',
      deflateRaw: 'deflateRawSync', inflateRaw: 'inflateRawSync', unzip: 'unzipSync',
      brotliCompress: 'brotliCompressSync', brotliDecompress: 'brotliDecompressSync' }[codec.kind];
    void makers;
    return new Uint8Array(nodeZlib[sync](whole));
  },
  zlibClose: (id) => codecs.delete(id),
  resolve: () => {
    throw new Error('the CommonJS loader is tested in tests/projects/, not under Node');
  },
};
export function projectServices() {
  return services;
}

/** node:timers' immediates, over Node's own setImmediate. */
export function immediates() {
  const kRefed = Symbol('refed');
  const handles = new WeakMap();
  return {
    kRefed,
    queue: (immediate) => handles.set(immediate, setImmediate(() => immediate._onImmediate())),
    clear: (immediate) => clearImmediate(handles.get(immediate)),
    refCount: () => {},
  };
}
