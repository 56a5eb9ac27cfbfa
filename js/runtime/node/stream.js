// node:stream for fwbench: Node's streams from the `readable-stream` npm
// package (a port of Node 18's lib/stream, bundled as
// fwbench:///vendor/polyfills/readable-stream.js). The default export is the
// legacy Stream constructor carrying Readable, Writable, Duplex, Transform,
// PassThrough, pipeline, finished and friends, as `require('stream')` is.
//
// Added here (readable-stream predates them): Readable.toWeb and
// Readable.fromWeb, the bridges to WHATWG streams that @hono/node-server
// uses to hand a request body to hono. Writable.toWeb/fromWeb and
// Duplex.toWeb/fromWeb are absent.
import Stream from 'fwbench:///vendor/polyfills/readable-stream.js';

const { Readable: NodeReadable } = Stream;
const encoder = new TextEncoder();

/** Readable.toWeb(readable): a byte ReadableStream fed by a Node Readable, with backpressure. */
NodeReadable.toWeb ??= function toWeb(readable) {
  return new ReadableStream(
    {
      start(controller) {
        readable.on('data', (chunk) => {
          const bytes = typeof chunk === 'string'
            ? encoder.encode(chunk)
            : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
          controller.enqueue(bytes);
          if (controller.desiredSize <= 0) readable.pause();
        });
        readable.once('end', () => controller.close());
        readable.once('error', (err) => controller.error(err));
      },
      pull() {
        readable.resume();
      },
      cancel(reason) {
        readable.destroy(reason);
      },
    },
    { highWaterMark: 1 },
  );
};

/** Readable.fromWeb(readableStream[, options]): a Node Readable reading a WHATWG stream. */
NodeReadable.fromWeb ??= function fromWeb(webStream, options) {
  const reader = webStream.getReader();
  async function* chunks() {
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  return NodeReadable.from(chunks(), { objectMode: false, ...options });
};

export default Stream;
export const {
  Readable, Writable, Duplex, Transform, PassThrough, pipeline, finished, addAbortSignal,
  compose, destroy, isDisturbed, isErrored, isReadable, promises,
} = Stream;
export { Stream };
export const getDefaultHighWaterMark = (objectMode) => (objectMode ? 16 : 16 * 1024);
