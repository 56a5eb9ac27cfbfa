// node:string_decoder for fwbench: StringDecoder from the `string_decoder`
// npm package (Node's own implementation, bundled as
// fwbench:///vendor/polyfills/string_decoder.js), over fwbench's Buffer.
import polyfill from 'fwbench:///vendor/polyfills/string_decoder.js';

export const { StringDecoder } = polyfill;
export default polyfill;
