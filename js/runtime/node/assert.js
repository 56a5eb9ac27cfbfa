// node:assert for fwbench: a callable assert (== assert.ok) with Node's
// AssertionError (code ERR_ASSERTION, actual/expected/operator,
// generatedMessage) and the usual checks: equal, strictEqual, deepEqual,
// deepStrictEqual and their negations, throws/doesNotThrow, rejects/
// doesNotReject, match/doesNotMatch, ifError, fail; assert.strict maps the
// loose checks to the strict ones. Messages are shorter than Node's (no
// diff of the two values).
import { isDeepStrictEqual, isDeepLooseEqual } from './_compare.js';
import { inspect } from './util.js';

class AssertionError extends Error {
  constructor(options) {
    const { message, actual, expected, operator, stackStartFn } = options ?? {};
    const generated = message === undefined || message === null;
    super(generated ? defaultMessage(actual, expected, operator) : String(message));
    this.name = 'AssertionError';
    this.code = 'ERR_ASSERTION';
    this.actual = actual;
    this.expected = expected;
    this.operator = operator;
    this.generatedMessage = generated;
    if (typeof stackStartFn === 'function' && Error.captureStackTrace) {
      Error.captureStackTrace(this, stackStartFn);
    }
  }
}

const short = (v) => inspect(v, { depth: 2, breakLength: Infinity });

function defaultMessage(actual, expected, operator) {
  switch (operator) {
    case '==':
      return `${short(actual)} == ${short(expected)}`;
    case '!=':
      return `${short(actual)} != ${short(expected)}`;
    case 'strictEqual':
      return `Expected values to be strictly equal:\n\n${short(actual)} !== ${short(expected)}\n`;
    case 'notStrictEqual':
      return `Expected "actual" to be strictly unequal to: ${short(expected)}`;
    case 'deepEqual':
      return `Expected values to be loosely deep-equal:\n\n${short(actual)}\n\nshould loosely deep-equal\n\n${short(expected)}`;
    case 'deepStrictEqual':
      return `Expected values to be strictly deep-equal:\n\n${short(actual)}\n\nshould equal\n\n${short(expected)}`;
    case 'notDeepEqual':
    case 'notDeepStrictEqual':
      return `Expected "actual" not to be ${operator === 'notDeepEqual' ? 'loosely ' : 'strictly '}deep-equal to: ${short(expected)}`;
    case 'fail':
      return 'Failed';
    default:
      return `${short(actual)} ${operator} ${short(expected)}`;
  }
}

function fail(actual, expected, message, operator = '!=', stackStartFn = fail) {
  if (arguments.length <= 1) {
    if (actual instanceof Error) throw actual;
    throw new AssertionError({ message: actual ?? 'Failed', operator: 'fail', stackStartFn: fail });
  }
  if (message instanceof Error) throw message;
  throw new AssertionError({ actual, expected, message, operator, stackStartFn });
}

function innerOk(fn, argLen, value, message) {
  if (value) return;
  if (message instanceof Error) throw message;
  const generated = argLen === 0 ? 'No value argument passed to `assert.ok()`' : 'The expression evaluated to a falsy value';
  throw new AssertionError({ actual: value, expected: true, message: message ?? generated, operator: '==', stackStartFn: fn });
}

function ok(...args) {
  innerOk(ok, args.length, ...args);
}

function check(pass, actual, expected, message, operator, fn) {
  if (pass) return;
  if (message instanceof Error) throw message;
  throw new AssertionError({ actual, expected, message, operator, stackStartFn: fn });
}

function equal(actual, expected, message) {
  check(actual == expected || (actual !== actual && expected !== expected), actual, expected, message, '==', equal);
}
function notEqual(actual, expected, message) {
  check(!(actual == expected || (actual !== actual && expected !== expected)), actual, expected, message, '!=', notEqual);
}
function strictEqual(actual, expected, message) {
  check(Object.is(actual, expected), actual, expected, message, 'strictEqual', strictEqual);
}
function notStrictEqual(actual, expected, message) {
  check(!Object.is(actual, expected), actual, expected, message, 'notStrictEqual', notStrictEqual);
}
function deepEqual(actual, expected, message) {
  check(isDeepLooseEqual(actual, expected), actual, expected, message, 'deepEqual', deepEqual);
}
function notDeepEqual(actual, expected, message) {
  check(!isDeepLooseEqual(actual, expected), actual, expected, message, 'notDeepEqual', notDeepEqual);
}
function deepStrictEqual(actual, expected, message) {
  check(isDeepStrictEqual(actual, expected), actual, expected, message, 'deepStrictEqual', deepStrictEqual);
}
function notDeepStrictEqual(actual, expected, message) {
  check(!isDeepStrictEqual(actual, expected), actual, expected, message, 'notDeepStrictEqual', notDeepStrictEqual);
}

/** Whether `err` satisfies the `expected` of throws/rejects (class, RegExp, validator, object). */
function matchesExpected(err, expected, fn, message) {
  if (expected === undefined) return;
  if (typeof expected === 'function') {
    if (expected.prototype !== undefined && err instanceof expected) return;
    if (Error.isPrototypeOf(expected) || expected === Error) {
      throw new AssertionError({ actual: err, expected, message: message ?? `The error is expected to be an instance of "${expected.name}".`, operator: fn.name, stackStartFn: fn });
    }
    if (expected.call({}, err) === true) return;
    throw new AssertionError({ actual: err, expected, message: message ?? 'The validation function is expected to return "true".', operator: fn.name, stackStartFn: fn });
  }
  if (expected instanceof RegExp) {
    if (expected.test(String(err))) return;
    throw new AssertionError({ actual: err, expected, message: message ?? `The input did not match the regular expression ${expected}.`, operator: fn.name, stackStartFn: fn });
  }
  if (typeof expected === 'object' && expected !== null) {
    for (const key of Object.keys(expected)) {
      const want = expected[key];
      const got = err?.[key];
      const pass = want instanceof RegExp && typeof got === 'string' ? want.test(got) : isDeepStrictEqual(got, want);
      if (!pass) {
        throw new AssertionError({ actual: err, expected, message: message ?? `Expected values to be strictly deep-equal at "${key}"`, operator: fn.name, stackStartFn: fn });
      }
    }
  }
}

const NO_EXCEPTION = Symbol('no exception');

function throws(fn, expected, message) {
  if (typeof fn !== 'function') throw new TypeError('The "fn" argument must be of type function');
  if (typeof expected === 'string') [message, expected] = [expected, undefined];
  let caught = NO_EXCEPTION;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  if (caught === NO_EXCEPTION) {
    throw new AssertionError({ expected, message: `Missing expected exception${message ? `: ${message}` : '.'}`, operator: 'throws', stackStartFn: throws });
  }
  matchesExpected(caught, expected, throws, message);
}

function doesNotThrow(fn, expected, message) {
  if (typeof expected === 'string') [message, expected] = [expected, undefined];
  try {
    fn();
  } catch (err) {
    throw new AssertionError({ actual: err, expected, message: `Got unwanted exception${message ? `: ${message}` : '.'}\nActual message: "${err?.message}"`, operator: 'doesNotThrow', stackStartFn: doesNotThrow });
  }
}

async function rejects(promiseFn, expected, message) {
  if (typeof expected === 'string') [message, expected] = [expected, undefined];
  let caught = NO_EXCEPTION;
  try {
    await (typeof promiseFn === 'function' ? promiseFn() : promiseFn);
  } catch (err) {
    caught = err;
  }
  if (caught === NO_EXCEPTION) {
    throw new AssertionError({ expected, message: `Missing expected rejection${message ? `: ${message}` : '.'}`, operator: 'rejects', stackStartFn: rejects });
  }
  matchesExpected(caught, expected, rejects, message);
}

async function doesNotReject(promiseFn, expected, message) {
  if (typeof expected === 'string') [message, expected] = [expected, undefined];
  try {
    await (typeof promiseFn === 'function' ? promiseFn() : promiseFn);
  } catch (err) {
    throw new AssertionError({ actual: err, expected, message: `Got unwanted rejection${message ? `: ${message}` : '.'}\nActual message: "${err?.message}"`, operator: 'doesNotReject', stackStartFn: doesNotReject });
  }
}

function ifError(err) {
  if (err === null || err === undefined) return;
  const message = `ifError got unwanted exception: ${typeof err === 'object' && typeof err.message === 'string' ? err.message : inspect(err)}`;
  const error = new AssertionError({ actual: err, expected: null, message, operator: 'ifError', stackStartFn: ifError });
  error.cause = err;
  throw error;
}

function match(string, regexp, message) {
  check(typeof string === 'string' && regexp.test(string), string, regexp, message ?? `The input did not match the regular expression ${regexp}. Input:\n\n${short(string)}\n`, 'match', match);
}
function doesNotMatch(string, regexp, message) {
  check(typeof string === 'string' && !regexp.test(string), string, regexp, message ?? `The input was expected to not match the regular expression ${regexp}. Input:\n\n${short(string)}\n`, 'doesNotMatch', doesNotMatch);
}

const members = {
  AssertionError, ok, fail, equal, notEqual, strictEqual, notStrictEqual, deepEqual, notDeepEqual,
  deepStrictEqual, notDeepStrictEqual, throws, doesNotThrow, rejects, doesNotReject, ifError, match,
  doesNotMatch,
};

const assert = Object.assign(function assert(...args) {
  innerOk(assert, args.length, ...args);
}, members);

const strict = Object.assign(function strict(...args) {
  innerOk(strict, args.length, ...args);
}, members, {
  equal: strictEqual,
  notEqual: notStrictEqual,
  deepEqual: deepStrictEqual,
  notDeepEqual: notDeepStrictEqual,
});
strict.strict = strict;
assert.strict = strict;

export default assert;
export {
  AssertionError, ok, fail, equal, notEqual, strictEqual, notStrictEqual, deepEqual, notDeepEqual,
  deepStrictEqual, notDeepStrictEqual, throws, doesNotThrow, rejects, doesNotReject, ifError, match,
  doesNotMatch, strict,
};
