// The read-only half of node:fs (and node:fs/promises): the project's files
// through the host's ops, with Node's error codes. See ../fs.js.
import { Buffer } from '../buffer.js';
import { Readable } from '../stream.js';
import { projectServices } from 'fwbench:///runtime/host.js';
import { nodeError } from '../_internal.js';
import { fileURLToPath } from '../url.js';

const services = projectServices();

/** A path argument: a string, a `file:` URL or a Buffer. */
function toPath(path, name = 'path') {
  if (typeof path === 'string') return path;
  if (path instanceof URL) return fileURLToPath(path);
  if (path instanceof Uint8Array) return new TextDecoder().decode(path);
  throw nodeError('ERR_INVALID_ARG_TYPE', `The "${name}" argument must be of type string or an instance of Buffer or URL. Received ${typeof path}`, TypeError);
}

/** Makes a path absolute against the project directory (`process.cwd()`). */
function absolute(path) {
  const text = toPath(path);
  if (text.startsWith('/')) return text;
  let root;
  try {
    root = services.root();
  } catch {
    root = '/';
  }
  return `${root}/${text}`;
}

const ERRNO = { ENOENT: -2, EACCES: -13, EISDIR: -21, ENOTDIR: -20, EBADF: -9, EIO: -5 };

/** The host's error (`ENOENT: …, open '/x'`) as Node's, with its code. */
function fsError(error, path) {
  const message = String(error?.message ?? error);
  const match = /^([A-Z]+): .*?, (\w+)/.exec(message);
  const out = new Error(message);
  if (match) {
    out.code = match[1];
    out.errno = ERRNO[match[1]] ?? -1;
    out.syscall = match[2];
  }
  if (path !== undefined) out.path = path;
  return out;
}

function call(fn, path) {
  try {
    return fn();
  } catch (error) {
    throw fsError(error, path);
  }
}

function encodingOf(options) {
  return typeof options === 'string' ? options : options?.encoding ?? null;
}

export function readFileSync(path, options) {
  if (typeof path === 'number') {
    throw nodeError('ERR_FWBENCH_NOT_AVAILABLE', 'fs.readFileSync(fd) is not available in fwbench: the sandbox opens no descriptors');
  }
  const file = absolute(path);
  const bytes = call(() => services.readFile(file), toPath(path));
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const encoding = encodingOf(options);
  return encoding ? buffer.toString(encoding) : buffer;
}

/**
 * What fs.Stats and fs.Dirent share: the type predicates, from the host's
 * `kind` (file, dir, symlink or other; the sandbox has no FIFOs, sockets or
 * devices to show).
 */
class EntryKind {
  constructor(kind) {
    Object.defineProperty(this, 'kind', { value: kind, enumerable: false });
  }
  isFile() { return this.kind === 'file'; }
  isDirectory() { return this.kind === 'dir'; }
  isSymbolicLink() { return this.kind === 'symlink'; }
  isFIFO() { return false; }
  isSocket() { return false; }
  isBlockDevice() { return false; }
  isCharacterDevice() { return false; }
}

export class Stats extends EntryKind {
  constructor(raw) {
    super(raw.kind);
    this.dev = raw.dev;
    this.mode = raw.mode;
    this.nlink = raw.nlink;
    this.uid = raw.uid;
    this.gid = raw.gid;
    this.rdev = 0;
    this.blksize = 4096;
    this.ino = raw.ino;
    this.size = raw.size;
    this.blocks = Math.ceil(raw.size / 512);
    this.atimeMs = raw.atimeMs;
    this.mtimeMs = raw.mtimeMs;
    this.ctimeMs = raw.ctimeMs;
    this.birthtimeMs = raw.ctimeMs;
    this.atime = new Date(raw.atimeMs);
    this.mtime = new Date(raw.mtimeMs);
    this.ctime = new Date(raw.ctimeMs);
    this.birthtime = new Date(raw.ctimeMs);
  }
}

export class Dirent extends EntryKind {
  constructor(name, kind, parentPath) {
    super(kind);
    this.name = name;
    this.parentPath = parentPath;
    this.path = parentPath;
  }
}

function statWith(follow, path, options) {
  const file = absolute(path);
  try {
    return new Stats(services.stat(file, follow));
  } catch (error) {
    if (options?.throwIfNoEntry === false && /^ENOENT/.test(error.message)) return undefined;
    throw fsError(error, toPath(path));
  }
}

export const statSync = (path, options) => statWith(true, path, options);
export const lstatSync = (path, options) => statWith(false, path, options);

export function existsSync(path) {
  try {
    services.stat(absolute(path), true);
    return true;
  } catch {
    return false;
  }
}

export function readdirSync(path, options) {
  const dir = absolute(path);
  const entries = call(() => services.readdir(dir), toPath(path));
  if (options?.withFileTypes) return entries.map(([name, kind]) => new Dirent(name, kind, dir));
  const encoding = encodingOf(options);
  return encoding === 'buffer' ? entries.map(([name]) => Buffer.from(name)) : entries.map(([name]) => name);
}

export function realpathSync(path) {
  const file = absolute(path);
  return call(() => services.realpath(file), toPath(path));
}
realpathSync.native = realpathSync;

export function accessSync(path, mode = 0) {
  statSync(path);
  if (mode & 2) {
    throw fsError(`EACCES: permission denied, access '${toPath(path)}' (fwbench's sandbox is read-only)`, toPath(path));
  }
}

/** Node's callback form of a sync function: the callback runs on a later turn. */
function callbackForm(sync, name) {
  const fn = {
    [name](...args) {
      const callback = args.pop();
      if (typeof callback !== 'function') {
        throw nodeError('ERR_INVALID_ARG_TYPE', 'The "cb" argument must be of type function', TypeError);
      }
      let result;
      let error = null;
      try {
        result = sync(...args);
      } catch (caught) {
        error = caught;
      }
      queueMicrotask(() => (error ? callback(error) : callback(null, result)));
    },
  }[name];
  return fn;
}

export const readFile = callbackForm(readFileSync, 'readFile');
export const stat = callbackForm(statSync, 'stat');
export const lstat = callbackForm(lstatSync, 'lstat');
export const readdir = callbackForm(readdirSync, 'readdir');
export const realpath = callbackForm(realpathSync, 'realpath');
realpath.native = realpath;
export const access = callbackForm(accessSync, 'access');
export function exists(path, callback) {
  const found = existsSync(path);
  queueMicrotask(() => callback(found));
}

/** fs.createReadStream: the file's bytes (or its `start`-`end` range) as a Readable. */
export function createReadStream(path, options) {
  const encoding = encodingOf(options);
  let data;
  let failure;
  try {
    data = readFileSync(path);
    if (options?.start !== undefined || options?.end !== undefined) {
      data = data.subarray(options.start ?? 0, options.end === undefined ? undefined : options.end + 1);
    }
  } catch (error) {
    failure = error;
  }
  const highWaterMark = options?.highWaterMark ?? 64 * 1024;
  let offset = 0;
  const stream = new Readable({
    highWaterMark,
    read() {
      if (failure) {
        this.destroy(failure);
        return;
      }
      if (offset >= data.length) {
        this.push(null);
        return;
      }
      const chunk = data.subarray(offset, offset + highWaterMark);
      offset += chunk.length;
      this.push(encoding ? chunk.toString(encoding) : chunk);
    },
  });
  stream.path = toPath(path);
  stream.bytesRead = 0;
  queueMicrotask(() => {
    if (!failure) {
      stream.emit('open', -1);
      stream.emit('ready');
    }
  });
  return stream;
}

/** Writes to fd 1 or 2 (the server log); any other descriptor is EBADF. */
export function writeSync(fd, data, ...rest) {
  let bytes;
  if (typeof data === 'string') {
    const encoding = typeof rest[1] === 'string' ? rest[1] : typeof rest[0] === 'string' && rest.length === 1 ? rest[0] : 'utf8';
    bytes = Buffer.from(data, encoding);
  } else {
    const offset = typeof rest[0] === 'number' ? rest[0] : 0;
    const length = typeof rest[1] === 'number' ? rest[1] : data.byteLength - offset;
    bytes = new Uint8Array(data.buffer, data.byteOffset + offset, length);
  }
  return call(() => services.writeFd(fd, bytes));
}

export function write(fd, data, ...rest) {
  const callback = typeof rest[rest.length - 1] === 'function' ? rest.pop() : undefined;
  let written;
  let error = null;
  try {
    written = writeSync(fd, data, ...rest);
  } catch (caught) {
    error = caught;
  }
  if (callback) queueMicrotask(() => callback(error, written, data));
  else if (error) throw error;
}

/** The promise forms, for node:fs/promises. */
export const promised = {
  readFile: async (path, options) => readFileSync(path, options),
  stat: async (path, options) => statSync(path, options),
  lstat: async (path, options) => lstatSync(path, options),
  readdir: async (path, options) => readdirSync(path, options),
  realpath: async (path) => realpathSync(path),
  access: async (path, mode) => accessSync(path, mode),
};
