// crypto.subtle for fwbench: the WebCrypto subset the production chains use
// (JWT bearer auth, scenarios/prod.js). SHA-1/256/384/512 digests; HMAC keys
// (importKey raw and jwk, exportKey, generateKey) with sign and verify.
// Every other algorithm, format or method rejects with NotSupportedError.
//
// The bytes are hashed and signed by host ops (src/engine/ops_crypto.rs);
// this module is the W3C Web Cryptography API's checks around them, with its
// errors: a name or format not supported is a NotSupportedError, a key used
// for what its algorithm or usages do not allow an InvalidAccessError, bad
// key material a DataError, bad usages a SyntaxError, an argument of the
// wrong type a TypeError. As the spec says, each method returns a promise
// and every one of those errors rejects it; none is thrown synchronously.
//
// js/runtime/bootstrap.js calls createSubtle with the ops, so this module
// holds no reference to deno_core; imported by an app, it is inert.

const HASHES = ["SHA-1", "SHA-256", "SHA-384", "SHA-512"];
/** HMAC's block size per hash, in bits: the default key length (spec). */
const BLOCK_BITS = { "SHA-1": 512, "SHA-256": 512, "SHA-384": 1024, "SHA-512": 1024 };
/** JWK `alg` per hash (RFC 7518, section 3.2). */
const JWK_ALG = { "SHA-1": "HS1", "SHA-256": "HS256", "SHA-384": "HS384", "SHA-512": "HS512" };
const HMAC_USAGES = ["sign", "verify"];

/**
 * Builds the `SubtleCrypto` instance and the `CryptoKey` class over host ops.
 * @param {{
 *   digest: (algorithm: string, data: Uint8Array) => Uint8Array,
 *   hmac: (algorithm: string, key: Uint8Array, data: Uint8Array) => Uint8Array,
 *   hmacVerify: (algorithm: string, key: Uint8Array, data: Uint8Array, signature: Uint8Array) => boolean,
 *   randomFill: (bytes: Uint8Array) => void,
 *   DOMException: typeof DOMException,
 *   atob: (text: string) => string,
 *   btoa: (text: string) => string,
 * }} host
 * @returns {{ subtle: object, SubtleCrypto: Function, CryptoKey: Function }}
 */
export function createSubtle(host) {
  const { DOMException } = host;
  const fail = (name, message) => new DOMException(message, name);
  /** The raw bytes of each CryptoKey, out of reach of app code. */
  const keyBytes = new WeakMap();
  const construction = Symbol("fwbench.CryptoKey");

  /** A key made by importKey or generateKey (the spec's CryptoKey). */
  class CryptoKey {
    #type;
    #extractable;
    #algorithm;
    #usages;
    constructor(token, type, extractable, algorithm, usages) {
      if (token !== construction) throw new TypeError("Illegal constructor");
      this.#type = type;
      this.#extractable = extractable;
      this.#algorithm = Object.freeze(algorithm);
      this.#usages = Object.freeze(usages);
    }
    get type() {
      return this.#type;
    }
    get extractable() {
      return this.#extractable;
    }
    get algorithm() {
      return this.#algorithm;
    }
    get usages() {
      return this.#usages;
    }
    get [Symbol.toStringTag]() {
      return "CryptoKey";
    }
  }

  /** Copies a BufferSource's bytes (the spec copies at call time). */
  function bytesOf(data, what) {
    if (ArrayBuffer.isView(data)) {
      return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
    }
    if (data instanceof ArrayBuffer || (typeof SharedArrayBuffer === "function" && data instanceof SharedArrayBuffer)) {
      return new Uint8Array(data).slice();
    }
    throw new TypeError(`${what} must be an ArrayBuffer or an ArrayBufferView`);
  }

  /** An algorithm argument as `{ name, ... }`, its name as given. */
  function algorithmObject(algorithm) {
    if (typeof algorithm === "string") return { name: algorithm };
    if (algorithm === null || typeof algorithm !== "object") {
      throw new TypeError("an algorithm must be a string or an object with a name");
    }
    if (algorithm.name === undefined) throw new TypeError("the algorithm has no name");
    return algorithm;
  }

  /** The registered spelling of a hash algorithm, or NotSupportedError. */
  function hashName(algorithm) {
    const { name } = algorithmObject(algorithm);
    const found = HASHES.find((h) => h.toLowerCase() === String(name).toLowerCase());
    if (found === undefined) {
      throw fail("NotSupportedError", `digest algorithm not supported in fwbench: ${String(name)} (supported: ${HASHES.join(", ")})`);
    }
    return found;
  }

  /** The algorithm's name as registered, when it is HMAC; else NotSupportedError. */
  function hmacName(algorithm, operation) {
    const { name } = algorithmObject(algorithm);
    if (String(name).toLowerCase() !== "hmac") {
      throw fail("NotSupportedError", `${operation}: algorithm not supported in fwbench: ${String(name)} (supported: HMAC)`);
    }
    return "HMAC";
  }

  /** HmacImportParams / HmacKeyGenParams: the hash and the length in bits. */
  function hmacParams(algorithm, operation) {
    hmacName(algorithm, operation);
    if (algorithm.hash === undefined) throw new TypeError(`${operation}: HMAC needs a hash`);
    const hash = hashName(algorithm.hash);
    let length;
    if (algorithm.length !== undefined) {
      length = Number(algorithm.length);
      if (!Number.isInteger(length) || length < 0 || length > 0xffffffff) {
        throw new TypeError(`${operation}: HMAC key length must be an unsigned long`);
      }
    }
    return { hash, length };
  }

  function checkUsages(usages, operation) {
    if (usages === null || typeof usages !== "object" || typeof usages[Symbol.iterator] !== "function") {
      throw new TypeError(`${operation}: keyUsages must be a sequence`);
    }
    const list = [...usages].map(String);
    const bad = list.find((u) => !HMAC_USAGES.includes(u));
    if (bad !== undefined) throw fail("SyntaxError", `${operation}: an HMAC key cannot be used to ${bad}`);
    if (list.length === 0) throw fail("SyntaxError", `${operation}: a secret key needs at least one usage`);
    return HMAC_USAGES.filter((u) => list.includes(u));
  }

  function makeKey(bytes, hash, extractable, usages) {
    const key = new CryptoKey(construction, "secret", Boolean(extractable), {
      name: "HMAC",
      hash: Object.freeze({ name: hash }),
      length: bytes.byteLength * 8,
    }, usages);
    keyBytes.set(key, bytes);
    return key;
  }

  function base64url(bytes) {
    let binary = "";
    for (const b of bytes) binary += String.fromCharCode(b);
    return host.btoa(binary).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  }

  function fromBase64url(text) {
    if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text)) {
      throw fail("DataError", "importKey: the JWK's k is not base64url");
    }
    const binary = host.atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  }

  /** The key bytes from a JsonWebKey for HMAC with `hash` (the spec's section 29.4.5, "jwk"). */
  function jwkBytes(jwk, hash, extractable, usages) {
    if (jwk === null || typeof jwk !== "object" || ArrayBuffer.isView(jwk) || jwk instanceof ArrayBuffer) {
      throw new TypeError("importKey: a jwk key must be a JsonWebKey object");
    }
    if (jwk.kty !== "oct") throw fail("DataError", `importKey: an HMAC JWK must have kty "oct", not ${JSON.stringify(jwk.kty)}`);
    if (jwk.k === undefined) throw fail("DataError", "importKey: the JWK has no k");
    if (jwk.alg !== undefined && jwk.alg !== JWK_ALG[hash]) {
      throw fail("DataError", `importKey: the JWK's alg ${JSON.stringify(jwk.alg)} does not match ${hash} (${JWK_ALG[hash]})`);
    }
    if (jwk.use !== undefined && jwk.use !== "sig") throw fail("DataError", `importKey: the JWK's use must be "sig"`);
    if (jwk.key_ops !== undefined) {
      if (!Array.isArray(jwk.key_ops)) throw fail("DataError", "importKey: the JWK's key_ops must be an array");
      const missing = usages.find((u) => !jwk.key_ops.includes(u));
      if (missing !== undefined) throw fail("DataError", `importKey: the JWK's key_ops do not allow ${missing}`);
    }
    if (jwk.ext === false && extractable) throw fail("DataError", "importKey: the JWK is not extractable (ext: false)");
    return fromBase64url(jwk.k);
  }

  /** The key's bytes, after the checks every key operation makes. */
  function usableKey(key, operation, usage) {
    if (!(key instanceof CryptoKey)) throw new TypeError(`${operation}: the key must be a CryptoKey`);
    if (key.algorithm.name !== "HMAC") {
      throw fail("InvalidAccessError", `${operation}: the key is for ${key.algorithm.name}, not HMAC`);
    }
    if (!key.usages.includes(usage)) {
      throw fail("InvalidAccessError", `${operation}: the key's usages (${key.usages.join(", ")}) do not include ${usage}`);
    }
    return keyBytes.get(key);
  }

  /** An op's bytes as an ArrayBuffer of exactly their length. */
  const arrayBuffer = (bytes) =>
    bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer;

  /** Runs `body` and settles a promise with its result or its error. */
  const settle = (body) => {
    try {
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(error);
    }
  };

  const unsupported = (method) =>
    function () {
      return Promise.reject(fail("NotSupportedError", `crypto.subtle.${method} is not supported in fwbench (supported: digest, importKey, exportKey, generateKey, sign, verify with HMAC and SHA)`));
    };

  /** The spec's SubtleCrypto, with the subset above. */
  class SubtleCrypto {
    constructor(token) {
      if (token !== construction) throw new TypeError("Illegal constructor");
    }

    digest(algorithm, data) {
      return settle(() => {
        const hash = hashName(algorithm);
        return arrayBuffer(host.digest(hash, bytesOf(data, "digest: data")));
      });
    }

    importKey(format, keyData, algorithm, extractable, keyUsages) {
      return settle(() => {
        const { hash, length } = hmacParams(algorithmObject(algorithm), "importKey");
        const usages = checkUsages(keyUsages, "importKey");
        let bytes;
        if (format === "raw") bytes = bytesOf(keyData, "importKey: raw key data");
        else if (format === "jwk") bytes = jwkBytes(keyData, hash, extractable, usages);
        else throw fail("NotSupportedError", `importKey: format ${String(format)} is not supported for HMAC in fwbench (supported: raw, jwk)`);
        if (bytes.byteLength === 0) throw fail("DataError", "importKey: an HMAC key cannot be empty");
        if (length !== undefined && (length > bytes.byteLength * 8 || length <= (bytes.byteLength - 1) * 8)) {
          throw fail("DataError", `importKey: length ${length} does not match the ${bytes.byteLength}-byte key`);
        }
        return makeKey(bytes, hash, extractable, usages);
      });
    }

    exportKey(format, key) {
      return settle(() => {
        if (!(key instanceof CryptoKey)) throw new TypeError("exportKey: the key must be a CryptoKey");
        if (!key.extractable) throw fail("InvalidAccessError", "exportKey: the key is not extractable");
        const bytes = keyBytes.get(key);
        if (format === "raw") return bytes.slice().buffer;
        if (format === "jwk") {
          return {
            kty: "oct",
            k: base64url(bytes),
            alg: JWK_ALG[key.algorithm.hash.name],
            key_ops: [...key.usages],
            ext: true,
          };
        }
        throw fail("NotSupportedError", `exportKey: format ${String(format)} is not supported for HMAC in fwbench (supported: raw, jwk)`);
      });
    }

    generateKey(algorithm, extractable, keyUsages) {
      return settle(() => {
        const { hash, length } = hmacParams(algorithmObject(algorithm), "generateKey");
        const usages = checkUsages(keyUsages, "generateKey");
        const bits = length ?? BLOCK_BITS[hash];
        if (bits === 0) throw fail("OperationError", "generateKey: an HMAC key cannot be 0 bits long");
        const bytes = new Uint8Array(Math.ceil(bits / 8));
        for (let start = 0; start < bytes.length; start += 65536) {
          host.randomFill(bytes.subarray(start, start + 65536));
        }
        return makeKey(bytes, hash, extractable, usages);
      });
    }

    sign(algorithm, key, data) {
      return settle(() => {
        hmacName(algorithm, "sign");
        const bytes = bytesOf(data, "sign: data");
        const secret = usableKey(key, "sign", "sign");
        return arrayBuffer(host.hmac(key.algorithm.hash.name, secret, bytes));
      });
    }

    verify(algorithm, key, signature, data) {
      return settle(() => {
        hmacName(algorithm, "verify");
        const mac = bytesOf(signature, "verify: signature");
        const bytes = bytesOf(data, "verify: data");
        const secret = usableKey(key, "verify", "verify");
        return host.hmacVerify(key.algorithm.hash.name, secret, bytes, mac);
      });
    }

    get [Symbol.toStringTag]() {
      return "SubtleCrypto";
    }
  }
  for (const method of ["encrypt", "decrypt", "deriveBits", "deriveKey", "wrapKey", "unwrapKey"]) {
    Object.defineProperty(SubtleCrypto.prototype, method, {
      value: unsupported(method),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }

  return { subtle: new SubtleCrypto(construction), SubtleCrypto, CryptoKey };
}
