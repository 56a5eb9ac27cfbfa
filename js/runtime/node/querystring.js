// node:querystring for fwbench: Node's parse/stringify/escape/unescape
// semantics ('+' is a space, repeated keys become arrays, maxKeys 1000 by
// default, results have a null prototype, malformed %-escapes are decoded
// leniently byte by byte like Node's unescapeBuffer).
import { Buffer } from './buffer.js';

const hexValue = (code) => {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
};

/** querystring.unescapeBuffer(s[, decodeSpaces]): %XX to bytes, everything else as UTF-8. */
function unescapeBuffer(s, decodeSpaces) {
  const bytes = Buffer.from(String(s), 'utf8');
  const out = Buffer.allocUnsafe(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 37 && i + 2 < bytes.length) {
      const hi = hexValue(bytes[i + 1]);
      const lo = hexValue(bytes[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out[n++] = hi * 16 + lo;
        i += 2;
        continue;
      }
    }
    out[n++] = decodeSpaces && b === 43 ? 32 : b;
  }
  return out.subarray(0, n);
}

function unescape(s, decodeSpaces) {
  try {
    return decodeURIComponent(s);
  } catch {
    return unescapeBuffer(s, decodeSpaces).toString();
  }
}

function escape(str) {
  if (typeof str !== 'string') {
    if (typeof str === 'object') str = String(str);
    else str += '';
  }
  try {
    return encodeURIComponent(str);
  } catch {
    const err = new URIError('URI malformed');
    err.code = 'ERR_INVALID_URI';
    throw err;
  }
}

function stringifyPrimitive(v) {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return `${v}`;
  if (typeof v === 'bigint') return `${v}`;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return '';
}

function stringify(obj, sep = '&', eq = '=', options) {
  sep ||= '&';
  eq ||= '=';
  const encode = typeof options?.encodeURIComponent === 'function' ? options.encodeURIComponent : escape;
  if (obj === null || typeof obj !== 'object') return '';
  let fields = '';
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    const ks = `${encode(stringifyPrimitive(k))}${eq}`;
    if (Array.isArray(v)) {
      if (v.length === 0) continue;
      if (fields) fields += sep;
      for (let j = 0; j < v.length; ++j) {
        if (j) fields += sep;
        fields += ks + encode(stringifyPrimitive(v[j]));
      }
    } else {
      if (fields) fields += sep;
      fields += ks + encode(stringifyPrimitive(v));
    }
  }
  return fields;
}

function parse(qs, sep = '&', eq = '=', options) {
  const obj = { __proto__: null };
  if (typeof qs !== 'string' || qs.length === 0) return obj;
  sep = sep ? String(sep) : '&';
  eq = eq ? String(eq) : '=';
  let maxKeys = 1000;
  if (options && typeof options.maxKeys === 'number') maxKeys = options.maxKeys;
  const decode = typeof options?.decodeURIComponent === 'function' ? options.decodeURIComponent : unescape;
  const decodeStr = (s) => {
    try {
      return decode(s);
    } catch {
      return unescape(s, true);
    }
  };
  let pairs = 0;
  for (const part of qs.split(sep)) {
    if (part.length === 0) continue;
    if (maxKeys > 0 && pairs >= maxKeys) break;
    pairs++;
    const idx = part.indexOf(eq);
    let key = idx >= 0 ? part.slice(0, idx) : part;
    let value = idx >= 0 ? part.slice(idx + eq.length) : '';
    key = key.replace(/\+/g, ' ');
    value = value.replace(/\+/g, ' ');
    if (key.includes('%')) key = decodeStr(key);
    if (value.includes('%')) value = decodeStr(value);
    const current = obj[key];
    if (current === undefined) obj[key] = value;
    else if (Array.isArray(current)) current.push(value);
    else obj[key] = [current, value];
  }
  return obj;
}

const querystring = {
  parse,
  stringify,
  escape,
  unescape,
  unescapeBuffer,
  decode: parse,
  encode: stringify,
};

export default querystring;
export { parse, stringify, escape, unescape, unescapeBuffer, parse as decode, stringify as encode };
