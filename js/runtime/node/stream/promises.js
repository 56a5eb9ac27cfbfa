// node:stream/promises for fwbench: promise forms of pipeline and finished,
// from the readable-stream polyfill behind node:stream.
import Stream from '../stream.js';

const { promises } = Stream;
export default promises;
export const { pipeline, finished } = promises;
