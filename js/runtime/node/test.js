// node:test for fwbench: the subset of Node's test API that our JS suites
// use, backed by fwbench's own runner (js/runtime/test_runner.js), which
// `fwbench test` drives.
import {
  after,
  afterEach,
  before,
  beforeEach,
  describe,
  test,
} from "fwbench:///runtime/test_runner.js";

export { after, afterEach, before, beforeEach, describe, test };
export const it = test;
export default test;
