// A small runner for node:test-style suites inside fwbench's engine, so the
// same test files run under `node --test` and `fwbench test`.
//
// Supported: test/it and describe (nested, sync or async bodies), the
// `{ skip, todo }` options and .skip/.todo, hooks (before, after,
// beforeEach, afterEach) at file and describe level, and t.test subtests
// awaited in place. Not supported: .only, concurrency, mocks, snapshots:
// using them throws, so a suite never passes by skipping what it asked for.

/** @typedef {{ name: string, fn?: Function, skip?: boolean|string, todo?: boolean|string }} TestCase */

class Suite {
  constructor(name, parent) {
    this.name = name;
    this.parent = parent;
    /** @type {Array<{ kind: 'test', test: TestCase } | { kind: 'suite', suite: Suite }>} */
    this.children = [];
    this.hooks = { before: [], after: [], beforeEach: [], afterEach: [] };
    this.skip = false;
  }
  path() {
    return this.parent ? [...this.parent.path(), this.name].filter(Boolean) : [];
  }
}

const root = new Suite("", null);
let current = root;

function parseArgs(name, options, fn) {
  if (typeof name === "function") return { name: name.name || "<anonymous>", options: {}, fn: name };
  if (typeof options === "function") return { name, options: {}, fn: options };
  return { name, options: options ?? {}, fn };
}

function unsupported(what) {
  return () => {
    throw new Error(`node:test ${what} is not supported by fwbench's test runner`);
  };
}

/** Registers a test (node:test's `test` / `it`). */
export function test(name, options, fn) {
  const args = parseArgs(name, options, fn);
  if (args.options.only) unsupported("`only`")();
  current.children.push({
    kind: "test",
    test: { name: args.name, fn: args.fn, skip: args.options.skip, todo: args.options.todo },
  });
}
test.skip = (name, options, fn) => {
  const args = parseArgs(name, options, fn);
  test(args.name, { ...args.options, skip: true }, args.fn);
};
test.todo = (name, options, fn) => {
  const args = parseArgs(name, options, fn);
  test(args.name, { ...args.options, todo: true }, args.fn);
};
test.only = unsupported("test.only");

/** Registers a group (node:test's `describe`); its body runs now. */
export function describe(name, options, fn) {
  const args = parseArgs(name, options, fn);
  const suite = new Suite(args.name, current);
  suite.skip = Boolean(args.options.skip || args.options.todo);
  current.children.push({ kind: "suite", suite });
  const previous = current;
  current = suite;
  try {
    const result = args.fn?.();
    if (result && typeof result.then === "function") {
      throw new Error(`describe('${args.name}'): async describe bodies are not supported by fwbench's test runner`);
    }
  } finally {
    current = previous;
  }
}
describe.skip = (name, options, fn) => {
  const args = parseArgs(name, options, fn);
  describe(args.name, { ...args.options, skip: true }, args.fn);
};
describe.todo = describe.skip;
describe.only = unsupported("describe.only");

export function before(fn) {
  current.hooks.before.push(fn);
}
export function after(fn) {
  current.hooks.after.push(fn);
}
export function beforeEach(fn) {
  current.hooks.beforeEach.push(fn);
}
export function afterEach(fn) {
  current.hooks.afterEach.push(fn);
}

/** The `t` a test body receives. */
function context(name, counts, print) {
  return {
    name,
    diagnostic(message) {
      print(`# ${message}`);
    },
    async test(subName, options, fn) {
      const args = parseArgs(subName, options, fn);
      await runTest({ name: `${name} > ${args.name}`, fn: args.fn, ...args.options }, [], counts, print);
    },
    skip() {
      throw new Error("t.skip() is not supported by fwbench's test runner");
    },
    mock: undefined,
  };
}

async function runTest(testCase, eachHooks, counts, print) {
  if (testCase.skip || testCase.todo) {
    counts.skipped += 1;
    print(`ok - ${testCase.name} # ${testCase.todo ? "TODO" : "SKIP"}`);
    return;
  }
  try {
    for (const hook of eachHooks.before) await hook();
    const t = context(testCase.name, counts, print);
    if (testCase.fn.length >= 2) {
      await new Promise((resolve, reject) => {
        testCase.fn(t, (error) => (error ? reject(error) : resolve()));
      });
    } else {
      await testCase.fn(t);
    }
    for (const hook of eachHooks.after) await hook();
    counts.passed += 1;
    print(`ok - ${testCase.name}`);
  } catch (error) {
    counts.failed += 1;
    const detail = error?.stack ?? String(error);
    print(`not ok - ${testCase.name}\n  ${detail.split("\n").join("\n  ")}`);
  }
}

async function runSuite(suite, inherited, counts, print) {
  const eachHooks = {
    before: [...inherited.before, ...suite.hooks.beforeEach],
    after: [...suite.hooks.afterEach, ...inherited.after],
  };
  if (suite.skip) {
    for (const child of suite.children) {
      if (child.kind === "test") await runTest({ ...child.test, skip: true }, eachHooks, counts, print);
      else await runSuite(Object.assign(child.suite, { skip: true }), eachHooks, counts, print);
    }
    return;
  }
  try {
    for (const hook of suite.hooks.before) await hook();
  } catch (error) {
    counts.failed += 1;
    print(`not ok - ${[...suite.path(), "before"].join(" > ")}\n  ${error?.stack ?? error}`);
    return;
  }
  for (const child of suite.children) {
    if (child.kind === "test") {
      const name = [...suite.path(), child.test.name].join(" > ");
      await runTest({ ...child.test, name }, eachHooks, counts, print);
    } else {
      await runSuite(child.suite, eachHooks, counts, print);
    }
  }
  for (const hook of suite.hooks.after) await hook();
}

/**
 * Runs every registered test in order; resolves with the counts.
 * @param {(line: string) => void} print
 */
export async function run(print) {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  await runSuite(root, { before: [], after: [] }, counts, print);
  return counts;
}
