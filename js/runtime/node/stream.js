// node:stream for fwbench: Node's streams from the `readable-stream` npm
// package (a port of Node 18's lib/stream, bundled as
// fwbench:///vendor/polyfills/readable-stream.js). The default export is the
// legacy Stream constructor carrying Readable, Writable, Duplex, Transform,
// PassThrough, pipeline, finished and friends, as `require('stream')` is.
import Stream from 'fwbench:///vendor/polyfills/readable-stream.js';

export default Stream;
export const {
  Readable, Writable, Duplex, Transform, PassThrough, pipeline, finished, addAbortSignal,
  compose, destroy, isDisturbed, isErrored, isReadable, promises,
} = Stream;
export { Stream };
export const getDefaultHighWaterMark = (objectMode) => (objectMode ? 16 : 16 * 1024);
