// node:buffer for fwbench: Buffer from the `buffer` npm polyfill (bundled as
// fwbench:///vendor/polyfills/buffer.js), with two changes:
//
// - UTF-8 goes through the platform's native TextEncoder/TextDecoder instead
//   of the polyfill's per-byte JS loops. express turns every response body
//   into a Buffer (to compute its ETag), so this is on the request path.
//   The decoder keeps a leading BOM, as Node's buf.toString() does.
// - 'base64url' (Node >= 15) is accepted wherever an encoding is: the
//   polyfill's base64 decoder already reads the URL-safe alphabet, and
//   encoding maps '+/' to '-_' without padding.
// - Small Buffers from Buffer.from(string) and Buffer.allocUnsafe (and so
//   Buffer.concat) are slices of a shared pool of Buffer.poolSize bytes, as
//   in Node. The polyfill gives every Buffer its own ArrayBuffer, and each
//   of those is a native allocation that V8 tracks and frees on its own.
//   express makes one per response (for its ETag): with the polyfill's
//   allocations, malloc took 13 % of its server's time.
//
// Everything else (alloc, concat, compare, read/write of numbers, hex,
// latin1, base64, ucs2) is the polyfill's, which follows Node's semantics.
import polyfill from 'fwbench:///vendor/polyfills/buffer.js';

const { Buffer, SlowBuffer, INSPECT_MAX_BYTES, kMaxLength } = polyfill;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

const isUtf8Name = (enc) =>
  enc === undefined || enc === null || enc === 'utf8' || enc === 'utf-8' ||
  (typeof enc === 'string' && /^utf-?8$/i.test(enc));
const isBase64Url = (enc) => typeof enc === 'string' && enc.toLowerCase() === 'base64url';
const mapEncoding = (enc) => (isBase64Url(enc) ? 'base64' : enc);

/** Length in bytes of `s` as UTF-8 (lone surrogates count as U+FFFD, 3 bytes). */
function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      n += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a surrogate pair: 2 code units, 4 bytes
      i++;
    } else {
      n += 2;
    }
  }
  return n;
}

// The pool: slices are handed out from `poolOffset` on, never reused;
// when one does not fit, a fresh pool replaces the old, which lives on as
// long as a slice of it does.
let pool = null;
let poolOffset = 0;

/**
 * Whether a Buffer of up to `maxBytes` comes from the pool (Node's rule:
 * less than half a pool), making room for it if so.
 */
function poolHasRoom(maxBytes) {
  const size = Buffer.poolSize;
  if (!(maxBytes < size >>> 1)) return false;
  if (pool === null || maxBytes > pool.byteLength - poolOffset) {
    pool = new ArrayBuffer(size);
    poolOffset = 0;
  }
  return true;
}

/** The next `length` bytes of the pool as a Buffer (8-byte aligned, as Node's). */
function takeFromPool(length) {
  const buf = polyfillFrom(pool, poolOffset, length);
  poolOffset = (poolOffset + length + 7) & ~7;
  return buf;
}

const polyfillFrom = Buffer.from;
Buffer.from = function from(value, encodingOrOffset, length) {
  if (typeof value === 'string') {
    if (isUtf8Name(encodingOrOffset)) {
      // UTF-8 takes at most 3 bytes per UTF-16 code unit.
      if (poolHasRoom(value.length * 3)) {
        const { written } = encoder.encodeInto(value, new Uint8Array(pool, poolOffset, value.length * 3));
        return takeFromPool(written);
      }
      const bytes = encoder.encode(value);
      return polyfillFrom(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    return polyfillFrom(value, mapEncoding(encodingOrOffset));
  }
  return polyfillFrom(value, encodingOrOffset, length);
};

const polyfillAllocUnsafe = Buffer.allocUnsafe;
Buffer.allocUnsafe = function allocUnsafe(size) {
  // Anything but a small whole number goes to the polyfill, which checks it.
  if (Number.isInteger(size) && size > 0 && poolHasRoom(size)) return takeFromPool(size);
  return polyfillAllocUnsafe(size);
};

const polyfillByteLength = Buffer.byteLength;
Buffer.byteLength = function byteLength(string, encoding) {
  if (typeof string === 'string' && isUtf8Name(encoding)) return utf8Length(string);
  return polyfillByteLength(string, mapEncoding(encoding));
};

const polyfillIsEncoding = Buffer.isEncoding;
Buffer.isEncoding = function isEncoding(encoding) {
  return isBase64Url(encoding) || polyfillIsEncoding(encoding);
};

const polyfillToString = Buffer.prototype.toString;
Buffer.prototype.toString = function toString(encoding, start, end) {
  if (isUtf8Name(encoding)) {
    const length = this.length;
    start = start === undefined || start < 0 ? 0 : start >>> 0;
    end = end === undefined || end > length ? length : end >>> 0;
    if (start >= end) return '';
    return decoder.decode(new Uint8Array(this.buffer, this.byteOffset + start, end - start));
  }
  if (isBase64Url(encoding)) {
    return polyfillToString
      .call(this, 'base64', start, end)
      .replace(/[+/=]/g, (c) => (c === '+' ? '-' : c === '/' ? '_' : ''));
  }
  return polyfillToString.apply(this, arguments);
};

const polyfillWrite = Buffer.prototype.write;
Buffer.prototype.write = function write(string, ...rest) {
  return polyfillWrite.call(this, string, ...rest.map(mapEncoding));
};

const kStringMaxLength = 2 ** 29 - 24; // V8's String::kMaxLength on 64-bit, as Node reports
const constants = { MAX_LENGTH: kMaxLength, MAX_STRING_LENGTH: kStringMaxLength };

/** buffer.isUtf8(input): whether the bytes are valid UTF-8. */
function isUtf8(input) {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(input);
    return true;
  } catch {
    return false;
  }
}

/** buffer.isAscii(input): whether every byte is < 0x80. */
function isAscii(input) {
  const bytes = ArrayBuffer.isView(input)
    ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
    : new Uint8Array(input);
  for (let i = 0; i < bytes.length; i++) if (bytes[i] > 0x7f) return false;
  return true;
}

const { Blob, File, atob, btoa } = globalThis;

const buffer = {
  Buffer,
  SlowBuffer,
  INSPECT_MAX_BYTES,
  kMaxLength,
  kStringMaxLength,
  constants,
  Blob,
  File,
  atob,
  btoa,
  isUtf8,
  isAscii,
};

export default buffer;
export {
  Buffer,
  SlowBuffer,
  INSPECT_MAX_BYTES,
  kMaxLength,
  kStringMaxLength,
  constants,
  Blob,
  File,
  atob,
  btoa,
  isUtf8,
  isAscii,
};
