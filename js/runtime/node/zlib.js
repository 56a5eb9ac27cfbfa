// node:zlib for fwbench: not available (body-parser imports it and only uses it
// for compressed request bodies). The platform's CompressionStream is the
// way to compress in fwbench. Every function and class throws.
import { sandboxedModule, unavailableClass, unavailableFunction } from './_internal.js';

const constants = {
  Z_NO_FLUSH: 0, Z_PARTIAL_FLUSH: 1, Z_SYNC_FLUSH: 2, Z_FULL_FLUSH: 3, Z_FINISH: 4, Z_BLOCK: 5,
  Z_OK: 0, Z_STREAM_END: 1, Z_NEED_DICT: 2, Z_DEFAULT_COMPRESSION: -1, Z_BEST_SPEED: 1,
  Z_BEST_COMPRESSION: 9, BROTLI_OPERATION_PROCESS: 0, BROTLI_OPERATION_FLUSH: 1,
  BROTLI_OPERATION_FINISH: 2, BROTLI_PARAM_MODE: 0, BROTLI_PARAM_QUALITY: 1,
};
const Gzip = unavailableClass('zlib', 'Gzip');
const Gunzip = unavailableClass('zlib', 'Gunzip');
const Deflate = unavailableClass('zlib', 'Deflate');
const Inflate = unavailableClass('zlib', 'Inflate');
const DeflateRaw = unavailableClass('zlib', 'DeflateRaw');
const InflateRaw = unavailableClass('zlib', 'InflateRaw');
const Unzip = unavailableClass('zlib', 'Unzip');
const BrotliCompress = unavailableClass('zlib', 'BrotliCompress');
const BrotliDecompress = unavailableClass('zlib', 'BrotliDecompress');
const createGzip = unavailableFunction('zlib', 'createGzip');
const createGunzip = unavailableFunction('zlib', 'createGunzip');
const createDeflate = unavailableFunction('zlib', 'createDeflate');
const createInflate = unavailableFunction('zlib', 'createInflate');
const createDeflateRaw = unavailableFunction('zlib', 'createDeflateRaw');
const createInflateRaw = unavailableFunction('zlib', 'createInflateRaw');
const createUnzip = unavailableFunction('zlib', 'createUnzip');
const createBrotliCompress = unavailableFunction('zlib', 'createBrotliCompress');
const createBrotliDecompress = unavailableFunction('zlib', 'createBrotliDecompress');
const gzip = unavailableFunction('zlib', 'gzip');
const gzipSync = unavailableFunction('zlib', 'gzipSync');
const gunzip = unavailableFunction('zlib', 'gunzip');
const gunzipSync = unavailableFunction('zlib', 'gunzipSync');
const deflate = unavailableFunction('zlib', 'deflate');
const deflateSync = unavailableFunction('zlib', 'deflateSync');
const inflate = unavailableFunction('zlib', 'inflate');
const inflateSync = unavailableFunction('zlib', 'inflateSync');
const deflateRaw = unavailableFunction('zlib', 'deflateRaw');
const deflateRawSync = unavailableFunction('zlib', 'deflateRawSync');
const inflateRaw = unavailableFunction('zlib', 'inflateRaw');
const inflateRawSync = unavailableFunction('zlib', 'inflateRawSync');
const unzip = unavailableFunction('zlib', 'unzip');
const unzipSync = unavailableFunction('zlib', 'unzipSync');
const brotliCompress = unavailableFunction('zlib', 'brotliCompress');
const brotliCompressSync = unavailableFunction('zlib', 'brotliCompressSync');
const brotliDecompress = unavailableFunction('zlib', 'brotliDecompress');
const brotliDecompressSync = unavailableFunction('zlib', 'brotliDecompressSync');
const crc32 = unavailableFunction('zlib', 'crc32');

export default sandboxedModule('zlib', {
  constants, Gzip, Gunzip, Deflate, Inflate, DeflateRaw, InflateRaw, Unzip, BrotliCompress,
  BrotliDecompress, createGzip, createGunzip, createDeflate, createInflate, createDeflateRaw,
  createInflateRaw, createUnzip, createBrotliCompress, createBrotliDecompress, gzip, gzipSync,
  gunzip, gunzipSync, deflate, deflateSync, inflate, inflateSync, deflateRaw, deflateRawSync,
  inflateRaw, inflateRawSync, unzip, unzipSync, brotliCompress, brotliCompressSync,
  brotliDecompress, brotliDecompressSync, crc32,
});
export {
  constants, Gzip, Gunzip, Deflate, Inflate, DeflateRaw, InflateRaw, Unzip, BrotliCompress,
  BrotliDecompress, createGzip, createGunzip, createDeflate, createInflate, createDeflateRaw,
  createInflateRaw, createUnzip, createBrotliCompress, createBrotliDecompress, gzip, gzipSync,
  gunzip, gunzipSync, deflate, deflateSync, inflate, inflateSync, deflateRaw, deflateRawSync,
  inflateRaw, inflateRawSync, unzip, unzipSync, brotliCompress, brotliCompressSync,
  brotliDecompress, brotliDecompressSync, crc32,
};
