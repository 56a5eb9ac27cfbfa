// node:crypto for fwbench: createHash and createHmac for md5, sha1, sha256,
// sha384 and sha512 (digests and HMACs computed in Rust by the host),
// secret KeyObjects (createSecretKey: what JWT libraries hand createHmac),
// timingSafeEqual (Rust), randomBytes/randomFill/randomInt/randomUUID/
// getRandomValues (the platform's crypto.getRandomValues and randomUUID).
// Ciphers, signatures, public and private keys, key generation and key
// derivation are not available and throw (JWT libraries probe
// createPublicKey and fall back to a secret key when it throws).
import {
  hash as hostHash,
  hmac as hostHmac,
  timingSafeEqual as hostTimingSafeEqual,
} from 'fwbench:///runtime/host.js';
import { Buffer } from './buffer.js';
import process from './process.js';
import { nodeError, unavailableFunction } from './_internal.js';

const BLOCK_SIZE = { md5: 64, sha1: 64, sha256: 64, sha384: 128, sha512: 128 };

function normalizeAlgorithm(algorithm) {
  const name = String(algorithm).toLowerCase().replace(/^rsa-/, '').replace(/-/g, '');
  if (!(name in BLOCK_SIZE)) {
    throw nodeError(
      'ERR_FWBENCH_NOT_AVAILABLE',
      `Digest method not supported: ${algorithm} (fwbench provides md5, sha1, sha256, sha384 and sha512)`,
    );
  }
  return name;
}

function toBytes(data, encoding, name = 'data') {
  if (typeof data === 'string') return Buffer.from(data, encoding);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  throw nodeError(
    'ERR_INVALID_ARG_TYPE',
    `The "${name}" argument must be of type string or an instance of Buffer, TypedArray, or DataView.`,
    TypeError,
  );
}

function concat(chunks) {
  if (chunks.length === 1) return chunks[0];
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function encodeDigest(bytes, encoding) {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return encoding === undefined || encoding === 'buffer' ? buf : buf.toString(encoding);
}

const kState = Symbol('fwbench.hashState');

function digestTwice(hash) {
  throw nodeError('ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
}

/** The object createHash() returns (Node's Hash, without the stream interface). */
class Hash {
  constructor(algorithm) {
    this[kState] = { algorithm: normalizeAlgorithm(algorithm), chunks: [], done: false };
  }

  update(data, inputEncoding) {
    const state = this[kState];
    if (state.done) digestTwice(this);
    // Copy: the caller may reuse its buffer before digest().
    state.chunks.push(toBytes(data, inputEncoding).slice());
    return this;
  }

  digest(encoding) {
    const state = this[kState];
    if (state.done) digestTwice(this);
    state.done = true;
    return encodeDigest(hostHash(state.algorithm, concat(state.chunks)), encoding);
  }

  copy() {
    const state = this[kState];
    if (state.done) digestTwice(this);
    const copy = new Hash(state.algorithm);
    copy[kState].chunks = state.chunks.slice();
    return copy;
  }
}

const kKey = Symbol('fwbench.keyBytes');

/**
 * Node's KeyObject, for secret keys only (createSecretKey). Public and
 * private keys need createPublicKey/createPrivateKey, which fwbench does
 * not provide, so `type` is always 'secret'.
 */
class KeyObject {
  constructor(type, bytes) {
    if (type !== 'secret') {
      throw nodeError('ERR_INVALID_ARG_VALUE', `The argument 'type' is invalid. Received '${type}'`, TypeError);
    }
    this[kKey] = bytes;
  }

  get type() {
    return 'secret';
  }

  get symmetricKeySize() {
    return this[kKey].byteLength;
  }

  get asymmetricKeyType() {
    return undefined;
  }

  get asymmetricKeyDetails() {
    return undefined;
  }

  export(options) {
    const buf = Buffer.from(this[kKey]);
    if (options?.format === 'jwk') {
      return { kty: 'oct', k: buf.toString('base64url') };
    }
    return buf;
  }

  equals(other) {
    if (!(other instanceof KeyObject)) {
      throw nodeError('ERR_INVALID_ARG_TYPE', 'The "otherKeyObject" argument must be an instance of KeyObject.', TypeError);
    }
    const a = this[kKey];
    const b = other[kKey];
    return a.byteLength === b.byteLength && hostTimingSafeEqual(a, b);
  }
}

/** crypto.createSecretKey(key[, encoding]): a KeyObject of type 'secret'. */
function createSecretKey(key, encoding) {
  if (key instanceof KeyObject) {
    throw nodeError('ERR_INVALID_ARG_TYPE', 'The "key" argument must be of type string or an instance of ArrayBuffer, Buffer, TypedArray, or DataView.', TypeError);
  }
  return new KeyObject('secret', toBytes(key, encoding, 'key').slice());
}

/** HMAC (RFC 2104), computed by the host when digest() is called. */
class Hmac {
  constructor(algorithm, key) {
    const name = normalizeAlgorithm(algorithm);
    let keyBytes;
    if (key instanceof KeyObject) keyBytes = key[kKey];
    else if (key !== null && typeof key === 'object' && key[Symbol.toStringTag] === 'CryptoKey') {
      throw nodeError('ERR_INVALID_ARG_TYPE', 'createHmac: a CryptoKey cannot be used here; pass a KeyObject, a string or a Buffer', TypeError);
    } else keyBytes = toBytes(key, 'utf8', 'key').slice();
    this[kState] = { algorithm: name, key: keyBytes, chunks: [], done: false };
  }

  update(data, inputEncoding) {
    const state = this[kState];
    if (state.done) digestTwice(this);
    state.chunks.push(toBytes(data, inputEncoding).slice());
    return this;
  }

  digest(encoding) {
    const state = this[kState];
    if (state.done) digestTwice(this);
    state.done = true;
    return encodeDigest(hostHmac(state.algorithm, state.key, concat(state.chunks)), encoding);
  }
}

const createHash = (algorithm, options) => new Hash(algorithm, options);
const createHmac = (algorithm, key, options) => new Hmac(algorithm, key, options);

/** crypto.hash(algorithm, data[, outputEncoding = 'hex']) (Node >= 21.7). */
function hash(algorithm, data, outputEncoding = 'hex') {
  return encodeDigest(hostHash(normalizeAlgorithm(algorithm), toBytes(data, 'utf8')), outputEncoding);
}

function timingSafeEqual(a, b) {
  const x = toBytes(a, undefined, 'buf1');
  const y = toBytes(b, undefined, 'buf2');
  if (x.byteLength !== y.byteLength) {
    throw nodeError('ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH', 'Input buffers must have the same byte length', RangeError);
  }
  return hostTimingSafeEqual(x, y);
}

const webcrypto = globalThis.crypto;
const getRandomValues = (array) => webcrypto.getRandomValues(array);
const randomUUID = () => webcrypto.randomUUID();

function randomFillSync(buf, offset = 0, size) {
  const view = toBytes(buf, undefined, 'buf');
  size ??= view.byteLength - offset;
  if (offset < 0 || size < 0 || offset + size > view.byteLength) {
    throw nodeError('ERR_OUT_OF_RANGE', 'The value of "offset + size" is out of range.', RangeError);
  }
  // getRandomValues fills at most 65536 bytes per call.
  for (let start = offset; start < offset + size; start += 65536) {
    webcrypto.getRandomValues(new Uint8Array(view.buffer, view.byteOffset + start, Math.min(65536, offset + size - start)));
  }
  return buf;
}

function randomFill(buf, offset, size, callback) {
  if (typeof offset === 'function') [callback, offset, size] = [offset, 0, undefined];
  else if (typeof size === 'function') [callback, size] = [size, undefined];
  randomFillSync(buf, offset, size);
  process.nextTick(callback, null, buf);
}

function randomBytes(size, callback) {
  if (typeof size !== 'number' || !(size >= 0) || size > 2 ** 31 - 1) {
    throw nodeError('ERR_OUT_OF_RANGE', `The value of "size" is out of range. Received ${size}`, RangeError);
  }
  const buf = randomFillSync(Buffer.allocUnsafe(size));
  if (typeof callback === 'function') {
    process.nextTick(callback, null, buf);
    return undefined;
  }
  return buf;
}

/** crypto.randomInt([min, ]max[, callback]), uniform by rejection sampling. */
function randomInt(min, max, callback) {
  if (typeof max === 'undefined' || typeof max === 'function') [callback, max, min] = [max, min, 0];
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max <= min || max - min > 2 ** 48) {
    throw nodeError('ERR_OUT_OF_RANGE', 'The "min" and "max" arguments must be safe integers with 0 < max - min <= 2^48', RangeError);
  }
  const range = max - min;
  const limit = 2 ** 48 - (2 ** 48 % range);
  const bytes = new Uint8Array(6);
  let x;
  do {
    webcrypto.getRandomValues(bytes);
    x = bytes.reduce((acc, b) => acc * 256 + b, 0);
  } while (x >= limit);
  const n = min + (x % range);
  if (typeof callback === 'function') {
    process.nextTick(callback, null, n);
    return undefined;
  }
  return n;
}

const getHashes = () => ['md5', 'sha1', 'sha256', 'sha384', 'sha512'];
const getCiphers = () => [];
const getCurves = () => [];
const constants = {};

const unavailable = (name) => unavailableFunction('crypto', name);
const createCipheriv = unavailable('createCipheriv');
const createDecipheriv = unavailable('createDecipheriv');
const createSign = unavailable('createSign');
const createVerify = unavailable('createVerify');
const sign = unavailable('sign');
const verify = unavailable('verify');
const pbkdf2 = unavailable('pbkdf2');
const pbkdf2Sync = unavailable('pbkdf2Sync');
const scrypt = unavailable('scrypt');
const scryptSync = unavailable('scryptSync');
const hkdf = unavailable('hkdf');
const hkdfSync = unavailable('hkdfSync');
const generateKeyPair = unavailable('generateKeyPair');
const generateKeyPairSync = unavailable('generateKeyPairSync');
const createPublicKey = unavailable('createPublicKey');
const createPrivateKey = unavailable('createPrivateKey');
const createECDH = unavailable('createECDH');
const createDiffieHellman = unavailable('createDiffieHellman');
const publicEncrypt = unavailable('publicEncrypt');
const privateDecrypt = unavailable('privateDecrypt');

const crypto = {
  createHash, createHmac, hash, Hash, Hmac, timingSafeEqual, randomBytes, randomFill, randomFillSync,
  randomInt, randomUUID, getRandomValues, webcrypto, getHashes, getCiphers, getCurves,
  constants, createCipheriv, createDecipheriv, createSign, createVerify, sign, verify, pbkdf2,
  pbkdf2Sync, scrypt, scryptSync, hkdf, hkdfSync, generateKeyPair, generateKeyPairSync,
  createPublicKey, createPrivateKey, createSecretKey, createECDH, createDiffieHellman,
  publicEncrypt, privateDecrypt, KeyObject, pseudoRandomBytes: randomBytes, prng: randomBytes,
  rng: randomBytes,
  // A getter: the platform's crypto.subtle throws when read in fwbench's host.
  get subtle() {
    return webcrypto.subtle;
  },
};
export default crypto;
export {
  createHash, createHmac, hash, Hash, Hmac, timingSafeEqual, randomBytes, randomFill, randomFillSync,
  randomInt, randomUUID, getRandomValues, webcrypto, getHashes, getCiphers, getCurves,
  constants, createCipheriv, createDecipheriv, createSign, createVerify, sign, verify, pbkdf2,
  pbkdf2Sync, scrypt, scryptSync, hkdf, hkdfSync, generateKeyPair, generateKeyPairSync,
  createPublicKey, createPrivateKey, createSecretKey, createECDH, createDiffieHellman,
  publicEncrypt, privateDecrypt, KeyObject,
};
