// node:util for fwbench, written here (the browserify `util` polyfill tracks
// Node 0.x). format/formatWithOptions follow Node's % directives; inspect
// covers what servers log (primitives, objects, arrays, Map/Set, errors,
// dates, typed arrays, boxed primitives, getters, cycles, depth, the
// util.inspect.custom hook) and prints one line when it fits in 80 columns,
// else one entry per line; it does not group long arrays into columns or
// colour its output. Promise state cannot be read from script, so a promise
// prints as `Promise { <state unknown> }`.
//
// debuglog() is always disabled, as in Node without NODE_DEBUG (env is empty).
import process from './process.js';
import types from './util/types.js';
import { isDeepStrictEqual } from './_compare.js';
import { invalidArgType } from './_internal.js';

const customInspect = Symbol.for('nodejs.util.inspect.custom');
const customPromisify = Symbol.for('nodejs.util.promisify.custom');

const defaultOptions = {
  showHidden: false,
  depth: 2,
  colors: false,
  customInspect: true,
  showProxy: false,
  maxArrayLength: 100,
  maxStringLength: 10000,
  breakLength: 80,
  compact: 3,
  sorted: false,
  getters: false,
  numericSeparator: false,
};

const meta = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r', '\\': '\\\\' };
/** Quotes like Node: single quotes, else double, else backticks, escaping only the one used. */
function quote(str) {
  let q = "'";
  if (str.includes("'")) {
    if (!str.includes('"')) q = '"';
    else if (!str.includes('`') && !str.includes('${')) q = '`';
  }
  const re = q === "'" ? /[\x00-\x1f\x7f'\\]/g : q === '"' ? /[\x00-\x1f\x7f"\\]/g : /[\x00-\x1f\x7f`\\]/g;
  return `${q}${str.replace(re, (c) => meta[c] ?? (c === q ? `\\${c}` : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`))}${q}`;
}

const identifierRe = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
function formatKey(key) {
  if (typeof key === 'symbol') return `[${key.toString()}]`;
  return identifierRe.test(key) ? key : quote(key);
}

function formatPrimitive(ctx, value) {
  switch (typeof value) {
    case 'string': {
      let trailer = '';
      if (value.length > ctx.maxStringLength) {
        trailer = `... ${value.length - ctx.maxStringLength} more character${value.length - ctx.maxStringLength > 1 ? 's' : ''}`;
        value = value.slice(0, ctx.maxStringLength);
      }
      return quote(value) + trailer;
    }
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'bigint':
      return `${value}n`;
    case 'symbol':
      return value.toString();
    default:
      return String(value); // undefined, boolean
  }
}

function functionBase(fn) {
  const source = Function.prototype.toString.call(fn);
  if (source.startsWith('class') && /^class\b/.test(source)) {
    return `[class ${fn.name || '(anonymous)'}]`;
  }
  const tag = fn[Symbol.toStringTag];
  const kind = typeof tag === 'string' && tag.endsWith('Function') ? tag : 'Function';
  return `[${kind}${fn.name ? `: ${fn.name}` : ' (anonymous)'}]`;
}

function constructorName(value) {
  let proto = Object.getPrototypeOf(value);
  if (proto === null) return null;
  while (proto !== null) {
    const desc = Object.getOwnPropertyDescriptor(proto, 'constructor');
    if (desc && typeof desc.value === 'function' && desc.value.name !== '') return desc.value.name;
    proto = Object.getPrototypeOf(proto);
  }
  return '';
}

function formatProperty(ctx, value, recurseTimes, key) {
  const desc = Object.getOwnPropertyDescriptor(value, key) ?? { value: value[key], enumerable: true };
  let str;
  if (desc.value !== undefined || !('get' in desc || 'set' in desc)) {
    ctx.indentationLvl += 2;
    str = formatValue(ctx, desc.value, recurseTimes);
    ctx.indentationLvl -= 2;
  } else if (desc.get !== undefined) {
    str = desc.set !== undefined ? '[Getter/Setter]' : '[Getter]';
  } else {
    str = desc.set !== undefined ? '[Setter]' : 'undefined';
  }
  const name = desc.enumerable === false ? `[${formatKey(key)}]` : formatKey(key);
  return `${name}: ${str}`;
}

function reduceToSingleString(ctx, output, base, braces) {
  const start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
  const total = output.reduce((sum, entry) => sum + entry.length, 0) + start;
  if (total + output.length <= ctx.breakLength && !output.some((entry) => entry.includes('\n'))) {
    return `${base ? `${base} ` : ''}${braces[0]} ${output.join(', ')} ${braces[1]}`;
  }
  const indentation = ' '.repeat(ctx.indentationLvl);
  return `${base ? `${base} ` : ''}${braces[0]}\n${indentation}  ${output.join(`,\n${indentation}  `)}\n${indentation}${braces[1]}`;
}

function formatValue(ctx, value, recurseTimes) {
  if (value === null) return 'null';
  if (typeof value !== 'object' && typeof value !== 'function') return formatPrimitive(ctx, value);

  if (ctx.customInspect) {
    const custom = value[customInspect];
    if (typeof custom === 'function' && custom !== inspect) {
      const depth = ctx.depth === null ? null : ctx.depth - recurseTimes;
      const ret = custom.call(value, depth, { ...ctx, stylize: (s) => s }, inspect);
      if (ret !== value) return typeof ret === 'string' ? ret : formatValue(ctx, ret, recurseTimes);
    }
  }

  if (ctx.seen.includes(value)) return '[Circular *1]';
  return formatRaw(ctx, value, recurseTimes);
}

function formatRaw(ctx, value, recurseTimes) {
  const ctor = constructorName(value);
  const prefixFor = (fallback, size) => {
    const name = ctor === null ? `[${fallback}: null prototype]` : ctor || fallback;
    return size === undefined ? name : `${name}(${size})`;
  };
  let keys = Object.keys(value);
  if (ctx.showHidden) keys = Object.getOwnPropertyNames(value);
  for (const sym of Object.getOwnPropertySymbols(value)) {
    if (ctx.showHidden || Object.prototype.propertyIsEnumerable.call(value, sym)) keys.push(sym);
  }
  let base = '';
  let braces = ['{', '}'];
  let entries = null; // formatted container entries, before the keys
  let skipIndexKeys = false;

  if (Array.isArray(value)) {
    braces = [ctor === 'Array' ? '[' : `${prefixFor('Array', value.length)} [`, ']'];
    skipIndexKeys = true;
    if (value.length === 0 && keys.length === 0) return `${braces[0]}]`;
  } else if (types.isTypedArray(value)) {
    braces = [`${prefixFor(value[Symbol.toStringTag], value.length)} [`, ']'];
    skipIndexKeys = true;
    if (value.length === 0 && keys.length === 0) return `${braces[0]}]`;
  } else if (types.isMap(value)) {
    braces = [`${prefixFor('Map', value.size)} {`, '}'];
    if (value.size === 0 && keys.length === 0) return `${braces[0]}}`;
  } else if (types.isSet(value)) {
    braces = [`${prefixFor('Set', value.size)} {`, '}'];
    if (value.size === 0 && keys.length === 0) return `${braces[0]}}`;
  } else if (typeof value === 'function') {
    base = functionBase(value);
    if (keys.length === 0) return base;
  } else if (types.isRegExp(value)) {
    base = RegExp.prototype.toString.call(value);
    if (keys.length === 0) return base;
  } else if (types.isDate(value)) {
    base = Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
    if (keys.length === 0) return base;
  } else if (types.isNativeError(value)) {
    base = value.stack ? String(value.stack) : `[${Error.prototype.toString.call(value)}]`;
    keys = keys.filter((k) => k !== 'stack' && k !== 'message');
    if (keys.length === 0) return base;
  } else if (types.isBoxedPrimitive(value)) {
    const prim = value.valueOf();
    const kind = typeof prim === 'bigint' ? 'BigInt' : typeof prim === 'symbol' ? 'Symbol' : ctor || 'Object';
    base = `[${kind}: ${formatPrimitive(ctx, prim)}]`;
    if (typeof prim === 'string') keys = keys.filter((k) => !/^\d+$/.test(k) && k !== 'length');
    if (keys.length === 0) return base;
  } else if (types.isPromise(value)) {
    braces = [`${prefixFor('Promise')} {`, '}'];
    entries = ['<state unknown>'];
  } else if (types.isWeakMap(value) || types.isWeakSet(value)) {
    braces = [`${prefixFor(types.isWeakMap(value) ? 'WeakMap' : 'WeakSet')} {`, '}'];
    entries = ['<items unknown>'];
  } else if (types.isAnyArrayBuffer(value)) {
    braces = [`${prefixFor('ArrayBuffer')} {`, '}'];
    const bytes = [...new Uint8Array(value, 0, Math.min(value.byteLength, 50))].map((b) => b.toString(16).padStart(2, '0'));
    entries = [`[Uint8Contents]: <${bytes.join(' ')}${value.byteLength > 50 ? ` ... ${value.byteLength - 50} more bytes` : ''}>`, `byteLength: ${value.byteLength}`];
  } else {
    const tag = value[Symbol.toStringTag];
    const name = prefixFor('Object');
    const label = typeof tag === 'string' && tag !== '' && tag !== name ? `${name} [${tag}]` : name;
    braces = [label === 'Object' ? '{' : `${label} {`, '}'];
    if (keys.length === 0) return `${braces[0]}}`;
  }

  if (ctx.depth !== null && recurseTimes > ctx.depth) {
    return `[${ctor || prefixFor('Object').replace(/^\[|\]$/g, '')}]`;
  }

  ctx.seen.push(value);
  const output = entries ?? [];
  try {
    const next = recurseTimes + 1;
    if (Array.isArray(value) || types.isTypedArray(value)) {
      const shown = Math.min(value.length, ctx.maxArrayLength);
      for (let i = 0; i < shown; i++) {
        if (!Object.prototype.hasOwnProperty.call(value, i) && Array.isArray(value)) {
          output.push('<1 empty item>');
          continue;
        }
        ctx.indentationLvl += 2;
        output.push(formatValue(ctx, value[i], next));
        ctx.indentationLvl -= 2;
      }
      if (value.length > shown) output.push(`... ${value.length - shown} more item${value.length - shown > 1 ? 's' : ''}`);
    } else if (types.isMap(value)) {
      ctx.indentationLvl += 2;
      for (const [k, v] of value) output.push(`${formatValue(ctx, k, next)} => ${formatValue(ctx, v, next)}`);
      ctx.indentationLvl -= 2;
    } else if (types.isSet(value)) {
      ctx.indentationLvl += 2;
      for (const v of value) output.push(formatValue(ctx, v, next));
      ctx.indentationLvl -= 2;
    }
    for (const key of keys) {
      if (skipIndexKeys && typeof key === 'string' && /^(0|[1-9]\d*)$/.test(key)) continue;
      output.push(formatProperty(ctx, value, next, key));
    }
  } finally {
    ctx.seen.pop();
  }
  if (ctx.sorted) output.sort(typeof ctx.sorted === 'function' ? ctx.sorted : undefined);
  return reduceToSingleString(ctx, output, base, braces);
}

/**
 * util.inspect(value[, options]) — also the legacy (value, showHidden, depth, colors) form.
 */
function inspect(value, opts, ...legacy) {
  const ctx = { ...inspect.defaultOptions, seen: [], indentationLvl: 0 };
  if (typeof opts === 'boolean') {
    ctx.showHidden = opts;
    if (legacy.length > 0) ctx.depth = legacy[0];
  } else if (opts !== null && typeof opts === 'object') {
    Object.assign(ctx, opts);
  }
  if (ctx.depth === Infinity) ctx.depth = null;
  return formatValue(ctx, value, 0);
}
inspect.custom = customInspect;
inspect.defaultOptions = { ...defaultOptions };
inspect.colors = Object.assign(Object.create(null), {
  reset: [0, 0], bold: [1, 22], dim: [2, 22], italic: [3, 23], underline: [4, 24], inverse: [7, 27],
  hidden: [8, 28], strikethrough: [9, 29], black: [30, 39], red: [31, 39], green: [32, 39],
  yellow: [33, 39], blue: [34, 39], magenta: [35, 39], cyan: [36, 39], white: [37, 39],
  gray: [90, 39], grey: [90, 39],
});
inspect.styles = Object.assign(Object.create(null), {
  special: 'cyan', number: 'yellow', bigint: 'yellow', boolean: 'yellow', undefined: 'grey',
  null: 'bold', string: 'green', symbol: 'green', date: 'magenta', regexp: 'red', module: 'underline',
});

function hasUserToString(value) {
  let proto = value;
  while (proto !== null && proto !== Object.prototype) {
    if (Object.prototype.hasOwnProperty.call(proto, 'toString')) return proto !== Error.prototype;
    proto = Object.getPrototypeOf(proto);
  }
  return false;
}

/** util.formatWithOptions(inspectOptions, format[, ...args]): Node's algorithm and directives. */
function formatWithOptions(inspectOptions, ...args) {
  const first = args[0];
  const inspectArg = (v, extra) => inspect(v, { ...inspectOptions, ...extra });
  let a = 0;
  let str = '';
  let join = '';
  if (typeof first === 'string') {
    if (args.length === 1) return first;
    let tempStr;
    let lastPos = 0;
    for (let i = 0; i < first.length - 1; i++) {
      if (first.charCodeAt(i) !== 37) continue; // '%'
      const nextChar = first[++i];
      if (a + 1 !== args.length) {
        switch (nextChar) {
          case 's': {
            const arg = args[++a];
            if (typeof arg === 'number') tempStr = formatPrimitive({}, arg);
            else if (typeof arg === 'bigint') tempStr = `${arg}n`;
            else if (typeof arg !== 'object' || arg === null || hasUserToString(arg)) tempStr = String(arg);
            else tempStr = inspectArg(arg, { depth: 0, colors: false, compact: 3 });
            break;
          }
          case 'j': {
            const arg = args[++a];
            try {
              tempStr = JSON.stringify(arg);
            } catch (err) {
              if (!(err instanceof TypeError) || !/circular/i.test(err.message)) throw err;
              tempStr = '[Circular]';
            }
            break;
          }
          case 'd': {
            const arg = args[++a];
            tempStr = typeof arg === 'bigint' ? `${arg}n` : typeof arg === 'symbol' ? 'NaN' : formatPrimitive({}, Number(arg));
            break;
          }
          case 'O':
            tempStr = inspectArg(args[++a]);
            break;
          case 'o':
            tempStr = inspectArg(args[++a], { showHidden: true, showProxy: true, depth: 4 });
            break;
          case 'i': {
            const arg = args[++a];
            tempStr = typeof arg === 'bigint' ? `${arg}n` : typeof arg === 'symbol' ? 'NaN' : formatPrimitive({}, Number.parseInt(arg));
            break;
          }
          case 'f': {
            const arg = args[++a];
            tempStr = typeof arg === 'symbol' ? 'NaN' : formatPrimitive({}, Number.parseFloat(arg));
            break;
          }
          case 'c':
            a++;
            tempStr = '';
            break;
          case '%':
            str += first.slice(lastPos, i);
            lastPos = i + 1;
            continue;
          default:
            continue;
        }
        if (lastPos !== i - 1) str += first.slice(lastPos, i - 1);
        str += tempStr;
        lastPos = i + 1;
      } else if (nextChar === '%') {
        str += first.slice(lastPos, i);
        lastPos = i + 1;
      }
    }
    if (lastPos !== 0) {
      a++;
      join = ' ';
      if (lastPos < first.length) str += first.slice(lastPos);
    }
  }
  while (a < args.length) {
    const value = args[a];
    str += join;
    str += typeof value !== 'string' ? inspectArg(value) : value;
    join = ' ';
    a++;
  }
  return str;
}

function format(...args) {
  return formatWithOptions(undefined, ...args);
}

function inherits(ctor, superCtor) {
  if (typeof ctor !== 'function') throw invalidArgType('ctor', 'of type function', ctor);
  if (typeof superCtor !== 'function') throw invalidArgType('superCtor', 'of type function', superCtor);
  if (superCtor.prototype === undefined) throw invalidArgType('superCtor.prototype', 'of type object', undefined);
  Object.defineProperty(ctor, 'super_', { value: superCtor, writable: true, configurable: true });
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
}

function promisify(original) {
  if (typeof original !== 'function') throw invalidArgType('original', 'of type function', original);
  if (original[customPromisify]) {
    const fn = original[customPromisify];
    if (typeof fn !== 'function') throw invalidArgType('util.promisify.custom', 'of type function', fn);
    return Object.defineProperty(fn, customPromisify, { value: fn, configurable: true });
  }
  function fn(...args) {
    return new Promise((resolve, reject) => {
      Reflect.apply(original, this, [...args, (err, ...values) => {
        if (err) reject(err);
        else resolve(values[0]);
      }]);
    });
  }
  Object.setPrototypeOf(fn, Object.getPrototypeOf(original));
  Object.defineProperty(fn, customPromisify, { value: fn, configurable: true });
  return Object.defineProperties(fn, Object.getOwnPropertyDescriptors(original));
}
promisify.custom = customPromisify;

function callbackify(original) {
  if (typeof original !== 'function') throw invalidArgType('original', 'of type function', original);
  function callbackified(...args) {
    const cb = args.pop();
    if (typeof cb !== 'function') throw invalidArgType('last argument', 'of type function', cb);
    Reflect.apply(original, this, args).then(
      (value) => process.nextTick(cb, null, value),
      (reason) => {
        if (!reason) {
          const err = new Error('Promise was rejected with a falsy value');
          err.code = 'ERR_FALSY_VALUE_REJECTION';
          err.reason = reason;
          reason = err;
        }
        process.nextTick(cb, reason);
      },
    );
  }
  return callbackified;
}

const warnedCodes = new Set();
function deprecate(fn, msg, code) {
  if (process.noDeprecation === true) return fn;
  let warned = false;
  function deprecated(...args) {
    if (!warned) {
      warned = true;
      if (code === undefined || !warnedCodes.has(code)) {
        if (code !== undefined) warnedCodes.add(code);
        process.emitWarning(msg, 'DeprecationWarning', code);
      }
    }
    return new.target ? Reflect.construct(fn, args, new.target) : Reflect.apply(fn, this, args);
  }
  Object.setPrototypeOf(deprecated, fn);
  if (fn.prototype) deprecated.prototype = fn.prototype;
  return deprecated;
}

function debuglog(section, callback) {
  const logger = () => {};
  logger.enabled = false;
  return logger;
}

// eslint-disable-next-line no-control-regex
const ansiRe = /[\u001B\u009B][[\]()#;?]*(?:(?:(?:(?:;[-a-zA-Z\d/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?\u0007)|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-ntqry=><~]))/g;
const stripVTControlCharacters = (str) => String(str).replace(ansiRe, '');
const toUSVString = (str) => String(str).toWellFormed?.() ?? String(str).replace(/\p{Surrogate}/gu, '\uFFFD');

function _extend(target, source) {
  if (source === null || typeof source !== 'object') return target;
  for (const key of Object.keys(source)) target[key] = source[key];
  return target;
}

// Legacy predicates (deprecated in Node, still present in Node 20/22).
const isArray = Array.isArray;
const isBoolean = (v) => typeof v === 'boolean';
const isNull = (v) => v === null;
const isNullOrUndefined = (v) => v == null;
const isNumber = (v) => typeof v === 'number';
const isString = (v) => typeof v === 'string';
const isSymbol = (v) => typeof v === 'symbol';
const isUndefined = (v) => v === undefined;
const isRegExp = types.isRegExp;
const isObject = (v) => v !== null && typeof v === 'object';
const isDate = types.isDate;
const isError = types.isNativeError;
const isFunction = (v) => typeof v === 'function';
const isPrimitive = (v) => v === null || (typeof v !== 'object' && typeof v !== 'function');
const isBuffer = (v) => globalThis.Buffer?.isBuffer(v) ?? false;

const { TextEncoder, TextDecoder } = globalThis;

const util = {
  format, formatWithOptions, inspect, inherits, promisify, callbackify, deprecate, debuglog,
  debug: debuglog, isDeepStrictEqual, types, TextEncoder, TextDecoder, stripVTControlCharacters,
  toUSVString, _extend, isArray, isBoolean, isNull, isNullOrUndefined, isNumber, isString,
  isSymbol, isUndefined, isRegExp, isObject, isDate, isError, isFunction, isPrimitive, isBuffer,
};
export default util;
export {
  format, formatWithOptions, inspect, inherits, promisify, callbackify, deprecate, debuglog,
  debuglog as debug, isDeepStrictEqual, types, TextEncoder, TextDecoder, stripVTControlCharacters,
  toUSVString, _extend, isArray, isBoolean, isNull, isNullOrUndefined, isNumber, isString,
  isSymbol, isUndefined, isRegExp, isObject, isDate, isError, isFunction, isPrimitive, isBuffer,
};
