// Deep equality for fwbench's node:util (isDeepStrictEqual) and node:assert
// (deepEqual, deepStrictEqual). Follows Node's rules: strict mode compares
// with Object.is and checks prototypes; loose mode uses == for primitives.
// Compares own enumerable keys (and, in strict mode, own enumerable
// symbols), Maps and Sets by content, Dates by time, RegExps by source and
// flags, boxed primitives and typed arrays by value, Errors by name and
// message too; cycles are handled.

const { getPrototypeOf, keys: objectKeys, getOwnPropertySymbols, prototype: objectPrototype } = Object;
const toTag = (v) => objectPrototype.toString.call(v);

function ownKeys(value, strict) {
  const keys = objectKeys(value);
  if (strict) {
    for (const sym of getOwnPropertySymbols(value)) {
      if (objectPrototype.propertyIsEnumerable.call(value, sym)) keys.push(sym);
    }
  }
  return keys;
}

function isDeepEqual(a, b, strict, memo) {
  if (strict ? Object.is(a, b) : a == b || (a !== a && b !== b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    // Loose mode: primitives compared with == above; objects vs primitives are not equal.
    return false;
  }
  if (strict && getPrototypeOf(a) !== getPrototypeOf(b)) return false;
  const tag = toTag(a);
  if (tag !== toTag(b)) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;

  if (a instanceof Date) {
    if (!(b instanceof Date) || a.getTime() !== b.getTime()) return false;
  } else if (a instanceof RegExp) {
    if (!(b instanceof RegExp) || a.source !== b.source || a.flags !== b.flags || a.lastIndex !== b.lastIndex) return false;
  } else if (a instanceof Error) {
    if (!(b instanceof Error) || a.message !== b.message || a.name !== b.name) return false;
  } else if (ArrayBuffer.isView(a)) {
    if (!ArrayBuffer.isView(b) || a.byteLength !== b.byteLength) return false;
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true; // extra non-index properties on typed arrays are not compared
  } else if (a instanceof ArrayBuffer) {
    if (!(b instanceof ArrayBuffer) || a.byteLength !== b.byteLength) return false;
    return isDeepEqual(new Uint8Array(a), new Uint8Array(b), strict, memo);
  } else if (tag === '[object Number]' || tag === '[object String]' || tag === '[object Boolean]' ||
    tag === '[object BigInt]' || tag === '[object Symbol]') {
    if (!Object.is(a.valueOf(), b.valueOf())) return false;
  }

  // Cycle detection: a pair already being compared is assumed equal.
  memo ??= new Map();
  let seen = memo.get(a);
  if (seen?.has(b)) return true;
  if (!seen) memo.set(a, (seen = new Set()));
  seen.add(b);

  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [key, value] of a) {
      if (b.has(key)) {
        if (!isDeepEqual(value, b.get(key), strict, memo)) return false;
      } else {
        let found = false;
        for (const [otherKey, otherValue] of b) {
          if (isDeepEqual(key, otherKey, strict, memo) && isDeepEqual(value, otherValue, strict, memo)) {
            found = true;
            break;
          }
        }
        if (!found) return false;
      }
    }
  } else if (a instanceof Set) {
    if (!(b instanceof Set) || a.size !== b.size) return false;
    for (const value of a) {
      if (b.has(value)) continue;
      if (typeof value !== 'object' && strict) return false;
      let found = false;
      for (const other of b) {
        if (isDeepEqual(value, other, strict, memo)) {
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
  }

  const aKeys = ownKeys(a, strict);
  const bKeys = ownKeys(b, strict);
  if (aKeys.length !== bKeys.length) return false;
  for (const key of aKeys) {
    if (!objectPrototype.propertyIsEnumerable.call(b, key)) return false;
    if (!isDeepEqual(a[key], b[key], strict, memo)) return false;
  }
  return true;
}

export const isDeepStrictEqual = (a, b) => isDeepEqual(a, b, true);
export const isDeepLooseEqual = (a, b) => isDeepEqual(a, b, false);
