// node:zlib for fwbench: gzip, deflate (zlib), raw deflate and brotli, in
// their stream (createGzip, new Gzip), callback (gzip) and sync (gzipSync)
// forms, over the host's codecs (src/engine/ops_zlib.rs: flate2 and the
// brotli crate). A stream is a Transform whose writes go through the codec
// as they come; flush() (compression's res.flush()) makes everything
// written so far decodable. Dictionaries, windowBits and memLevel tuning,
// and brotli parameters other than quality are not applied.
import { Buffer } from './buffer.js';
import { Transform } from './stream.js';
import { projectServices } from 'fwbench:///runtime/host.js';
import { nodeError } from './_internal.js';

const services = projectServices();

const constants = {
  Z_NO_FLUSH: 0, Z_PARTIAL_FLUSH: 1, Z_SYNC_FLUSH: 2, Z_FULL_FLUSH: 3, Z_FINISH: 4, Z_BLOCK: 5,
  Z_OK: 0, Z_STREAM_END: 1, Z_NEED_DICT: 2, Z_ERRNO: -1, Z_STREAM_ERROR: -2, Z_DATA_ERROR: -3,
  Z_MEM_ERROR: -4, Z_BUF_ERROR: -5, Z_VERSION_ERROR: -6, Z_NO_COMPRESSION: 0, Z_BEST_SPEED: 1,
  Z_BEST_COMPRESSION: 9, Z_DEFAULT_COMPRESSION: -1, Z_FILTERED: 1, Z_HUFFMAN_ONLY: 2, Z_RLE: 3,
  Z_FIXED: 4, Z_DEFAULT_STRATEGY: 0, Z_DEFAULT_CHUNK: 16384, Z_DEFAULT_LEVEL: -1,
  Z_DEFAULT_MEMLEVEL: 8, Z_DEFAULT_WINDOWBITS: 15, Z_MIN_WINDOWBITS: 8, Z_MAX_WINDOWBITS: 15,
  BROTLI_OPERATION_PROCESS: 0, BROTLI_OPERATION_FLUSH: 1, BROTLI_OPERATION_FINISH: 2,
  BROTLI_OPERATION_EMIT_METADATA: 3, BROTLI_PARAM_MODE: 0, BROTLI_MODE_GENERIC: 0,
  BROTLI_MODE_TEXT: 1, BROTLI_MODE_FONT: 2, BROTLI_PARAM_QUALITY: 1, BROTLI_MIN_QUALITY: 0,
  BROTLI_MAX_QUALITY: 11, BROTLI_DEFAULT_QUALITY: 11, BROTLI_PARAM_LGWIN: 2,
  BROTLI_PARAM_SIZE_HINT: 5,
};

const FLUSH_NONE = 0;
const FLUSH_SYNC = 1;
const FLUSH_END = 2;

function zlibError(error) {
  const message = String(error?.message ?? error);
  const match = /^(Z_[A-Z_]+|ERR_[A-Z_]+): /.exec(message);
  const out = new Error(match ? message.slice(match[0].length) : message);
  out.code = match ? match[1] : 'Z_DATA_ERROR';
  out.errno = constants[out.code] ?? constants.Z_DATA_ERROR;
  return out;
}

function toBytes(chunk, encoding) {
  if (typeof chunk === 'string') return Buffer.from(chunk, encoding);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw nodeError(
    'ERR_INVALID_ARG_TYPE',
    'The "buffer" argument must be of type string or an instance of Buffer, TypedArray, DataView, or ArrayBuffer.',
    TypeError,
  );
}

function asBuffer(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function levelOf(kind, options) {
  if (kind === 'brotliCompress') {
    return options?.params?.[constants.BROTLI_PARAM_QUALITY] ?? constants.BROTLI_DEFAULT_QUALITY;
  }
  return options?.level ?? constants.Z_DEFAULT_COMPRESSION;
}

/** One codec as a Transform stream. */
class ZlibBase extends Transform {
  constructor(kind, options) {
    super({ ...options, objectMode: false });
    this._kind = kind;
    this._id = services.zlibOpen(kind, levelOf(kind, options));
    this._closed = false;
    this.bytesWritten = 0;
  }

  _push(input, flush) {
    const out = services.zlibPush(this._id, input, flush);
    if (out.byteLength > 0) this.push(asBuffer(out));
  }

  _transform(chunk, encoding, callback) {
    try {
      const bytes = toBytes(chunk, encoding);
      this.bytesWritten += bytes.byteLength;
      this._push(bytes, FLUSH_NONE);
      callback();
    } catch (error) {
      callback(zlibError(error));
    }
  }

  _flush(callback) {
    try {
      this._push(new Uint8Array(0), FLUSH_END);
      this._release();
      callback();
    } catch (error) {
      callback(zlibError(error));
    }
  }

  _destroy(error, callback) {
    this._release();
    callback(error);
  }

  _release() {
    if (!this._closed) {
      this._closed = true;
      services.zlibClose(this._id);
    }
  }

  /** Makes everything written so far available to the reader. */
  flush(kind, callback) {
    if (typeof kind === 'function') callback = kind;
    if (!this._closed && !this.writableEnded) {
      try {
        this._push(new Uint8Array(0), FLUSH_SYNC);
      } catch (error) {
        this.destroy(zlibError(error));
      }
    }
    if (typeof callback === 'function') queueMicrotask(callback);
  }

  params(_level, _strategy, callback) {
    if (typeof callback === 'function') queueMicrotask(callback);
  }

  reset() {}

  close(callback) {
    if (typeof callback === 'function') this.once('close', callback);
    this.destroy();
  }
}

const classes = {};
const creators = {};
const callbacks = {};
const syncs = {};
const KINDS = [
  ['Gzip', 'gzip'], ['Gunzip', 'gunzip'], ['Deflate', 'deflate'], ['Inflate', 'inflate'],
  ['DeflateRaw', 'deflateRaw'], ['InflateRaw', 'inflateRaw'], ['Unzip', 'unzip'],
  ['BrotliCompress', 'brotliCompress'], ['BrotliDecompress', 'brotliDecompress'],
];
for (const [name, kind] of KINDS) {
  const cls = { [name]: class extends ZlibBase {
    constructor(options) {
      super(kind, options);
    }
  } }[name];
  classes[name] = cls;
  creators[`create${name}`] = (options) => new cls(options);
  const sync = (buffer, options) => {
    const id = services.zlibOpen(kind, levelOf(kind, options));
    try {
      return asBuffer(services.zlibPush(id, toBytes(buffer), FLUSH_END));
    } catch (error) {
      throw zlibError(error);
    } finally {
      services.zlibClose(id);
    }
  };
  syncs[`${kind}Sync`] = sync;
  callbacks[kind] = (buffer, options, callback) => {
    if (typeof options === 'function') [options, callback] = [undefined, options];
    if (typeof callback !== 'function') {
      throw nodeError('ERR_INVALID_ARG_TYPE', 'The "callback" argument must be of type function', TypeError);
    }
    let result;
    let error = null;
    try {
      result = sync(buffer, options);
    } catch (caught) {
      error = caught;
    }
    setTimeout(() => callback(error, result), 0);
  };
}

let crcTable;
/** CRC-32 of `data` (a string or bytes), continuing from `value`. */
function crc32(data, value = 0) {
  if (!crcTable) {
    crcTable = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
  }
  const bytes = toBytes(data, 'utf8');
  let crc = ~value;
  for (let i = 0; i < bytes.length; i++) crc = crcTable[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}

const {
  Gzip, Gunzip, Deflate, Inflate, DeflateRaw, InflateRaw, Unzip, BrotliCompress, BrotliDecompress,
} = classes;
const {
  createGzip, createGunzip, createDeflate, createInflate, createDeflateRaw, createInflateRaw,
  createUnzip, createBrotliCompress, createBrotliDecompress,
} = creators;
const { gzip, gunzip, deflate, inflate, deflateRaw, inflateRaw, unzip, brotliCompress, brotliDecompress } =
  callbacks;
const {
  gzipSync, gunzipSync, deflateSync, inflateSync, deflateRawSync, inflateRawSync, unzipSync,
  brotliCompressSync, brotliDecompressSync,
} = syncs;
const codes = {
  Z_OK: 0, Z_STREAM_END: 1, Z_NEED_DICT: 2, Z_ERRNO: -1, Z_STREAM_ERROR: -2, Z_DATA_ERROR: -3,
  Z_MEM_ERROR: -4, Z_BUF_ERROR: -5, Z_VERSION_ERROR: -6,
};

const zlib = {
  constants, codes, Gzip, Gunzip, Deflate, Inflate, DeflateRaw, InflateRaw, Unzip, BrotliCompress,
  BrotliDecompress, createGzip, createGunzip, createDeflate, createInflate, createDeflateRaw,
  createInflateRaw, createUnzip, createBrotliCompress, createBrotliDecompress, gzip, gzipSync,
  gunzip, gunzipSync, deflate, deflateSync, inflate, inflateSync, deflateRaw, deflateRawSync,
  inflateRaw, inflateRawSync, unzip, unzipSync, brotliCompress, brotliCompressSync,
  brotliDecompress, brotliDecompressSync, crc32, ...constants,
};
export default zlib;
export {
  constants, codes, Gzip, Gunzip, Deflate, Inflate, DeflateRaw, InflateRaw, Unzip, BrotliCompress,
  BrotliDecompress, createGzip, createGunzip, createDeflate, createInflate, createDeflateRaw,
  createInflateRaw, createUnzip, createBrotliCompress, createBrotliDecompress, gzip, gzipSync,
  gunzip, gunzipSync, deflate, deflateSync, inflate, inflateSync, deflateRaw, deflateRawSync,
  inflateRaw, inflateRawSync, unzip, unzipSync, brotliCompress, brotliCompressSync,
  brotliDecompress, brotliDecompressSync, crc32,
};
