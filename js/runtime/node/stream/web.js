// node:stream/web for fwbench: the platform's WHATWG streams, which is what
// Node's stream/web exports too.
const {
  ReadableStream, ReadableStreamDefaultReader, ReadableStreamBYOBReader, ReadableStreamBYOBRequest,
  ReadableByteStreamController, ReadableStreamDefaultController, TransformStream,
  TransformStreamDefaultController, WritableStream, WritableStreamDefaultWriter,
  WritableStreamDefaultController, ByteLengthQueuingStrategy, CountQueuingStrategy,
  TextEncoderStream, TextDecoderStream, CompressionStream, DecompressionStream,
} = globalThis;

const web = {
  ReadableStream, ReadableStreamDefaultReader, ReadableStreamBYOBReader, ReadableStreamBYOBRequest,
  ReadableByteStreamController, ReadableStreamDefaultController, TransformStream,
  TransformStreamDefaultController, WritableStream, WritableStreamDefaultWriter,
  WritableStreamDefaultController, ByteLengthQueuingStrategy, CountQueuingStrategy,
  TextEncoderStream, TextDecoderStream, CompressionStream, DecompressionStream,
};
export default web;
export {
  ReadableStream, ReadableStreamDefaultReader, ReadableStreamBYOBReader, ReadableStreamBYOBRequest,
  ReadableByteStreamController, ReadableStreamDefaultController, TransformStream,
  TransformStreamDefaultController, WritableStream, WritableStreamDefaultWriter,
  WritableStreamDefaultController, ByteLengthQueuingStrategy, CountQueuingStrategy,
  TextEncoderStream, TextDecoderStream, CompressionStream, DecompressionStream,
};
