// node:assert/strict for fwbench: assert.strict of node:assert (the loose
// checks replaced by the strict ones).
import assert from '../assert.js';

const { strict } = assert;
export default strict;
export const {
  AssertionError, ok, fail, equal, notEqual, strictEqual, notStrictEqual, deepEqual, notDeepEqual,
  deepStrictEqual, notDeepStrictEqual, throws, doesNotThrow, rejects, doesNotReject, ifError, match,
  doesNotMatch,
} = strict;
export { strict };
