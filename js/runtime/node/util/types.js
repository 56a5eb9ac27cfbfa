// node:util/types for fwbench. Where JavaScript offers a brand check (a
// built-in method that throws on the wrong receiver) it is used, so these
// agree with Node's internal-slot checks; isPromise, isNativeError and the
// function kinds fall back to instanceof / the constructor's toStringTag.
// Absent on purpose: isProxy and isExternal, which no script can decide.

const brand = (fn) => (value) => {
  if (value === null || typeof value !== 'object') return false;
  try {
    fn(value);
    return true;
  } catch {
    return false;
  }
};
const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
const typedArrayTag = getter(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag);
const tagOf = (value) => Object.prototype.toString.call(value);
const typedArrayIs = (name) => (value) => typedArrayTag.call(value) === name;

export const isDate = brand((v) => Date.prototype.getTime.call(v));
export const isRegExp = brand((v) => {
  getter(RegExp.prototype, 'source').call(v);
  if (v === RegExp.prototype) throw new TypeError('not a RegExp instance');
});
export const isMap = brand((v) => getter(Map.prototype, 'size').call(v));
export const isSet = brand((v) => getter(Set.prototype, 'size').call(v));
export const isWeakMap = brand((v) => WeakMap.prototype.has.call(v, {}));
export const isWeakSet = brand((v) => WeakSet.prototype.has.call(v, {}));
export const isArrayBuffer = brand((v) => getter(ArrayBuffer.prototype, 'byteLength').call(v));
export const isSharedArrayBuffer = brand((v) => getter(SharedArrayBuffer.prototype, 'byteLength').call(v));
export const isAnyArrayBuffer = (v) => isArrayBuffer(v) || isSharedArrayBuffer(v);
export const isDataView = brand((v) => getter(DataView.prototype, 'byteLength').call(v));
export const isArrayBufferView = (v) => ArrayBuffer.isView(v);
export const isTypedArray = (v) => typedArrayTag.call(v) !== undefined;
export const isUint8Array = typedArrayIs('Uint8Array');
export const isUint8ClampedArray = typedArrayIs('Uint8ClampedArray');
export const isUint16Array = typedArrayIs('Uint16Array');
export const isUint32Array = typedArrayIs('Uint32Array');
export const isInt8Array = typedArrayIs('Int8Array');
export const isInt16Array = typedArrayIs('Int16Array');
export const isInt32Array = typedArrayIs('Int32Array');
export const isFloat32Array = typedArrayIs('Float32Array');
export const isFloat64Array = typedArrayIs('Float64Array');
export const isBigInt64Array = typedArrayIs('BigInt64Array');
export const isBigUint64Array = typedArrayIs('BigUint64Array');
export const isNumberObject = brand((v) => Number.prototype.valueOf.call(v));
export const isStringObject = brand((v) => String.prototype.valueOf.call(v));
export const isBooleanObject = brand((v) => Boolean.prototype.valueOf.call(v));
export const isBigIntObject = brand((v) => BigInt.prototype.valueOf.call(v));
export const isSymbolObject = brand((v) => Symbol.prototype.valueOf.call(v));
export const isBoxedPrimitive = (v) =>
  isNumberObject(v) || isStringObject(v) || isBooleanObject(v) || isBigIntObject(v) || isSymbolObject(v);
export const isPromise = (v) => v instanceof Promise || tagOf(v) === '[object Promise]';
export const isNativeError = (v) => v instanceof Error || tagOf(v) === '[object Error]';
export const isAsyncFunction = (v) =>
  typeof v === 'function' && (v[Symbol.toStringTag] === 'AsyncFunction' || v[Symbol.toStringTag] === 'AsyncGeneratorFunction');
export const isGeneratorFunction = (v) =>
  typeof v === 'function' && (v[Symbol.toStringTag] === 'GeneratorFunction' || v[Symbol.toStringTag] === 'AsyncGeneratorFunction');
export const isGeneratorObject = (v) => tagOf(v) === '[object Generator]' || tagOf(v) === '[object AsyncGenerator]';
export const isMapIterator = (v) => tagOf(v) === '[object Map Iterator]';
export const isSetIterator = (v) => tagOf(v) === '[object Set Iterator]';
export const isModuleNamespaceObject = (v) =>
  v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === null && v[Symbol.toStringTag] === 'Module';
export const isArgumentsObject = (v) => tagOf(v) === '[object Arguments]';
export const isWeakRef = (v) => v instanceof WeakRef;
export const isCryptoKey = (v) => typeof CryptoKey === 'function' && v instanceof CryptoKey;
export const isKeyObject = () => false; // node:crypto's KeyObject does not exist in fwbench

const types = {
  isDate, isRegExp, isMap, isSet, isWeakMap, isWeakSet, isArrayBuffer, isSharedArrayBuffer,
  isAnyArrayBuffer, isDataView, isArrayBufferView, isTypedArray, isUint8Array, isUint8ClampedArray,
  isUint16Array, isUint32Array, isInt8Array, isInt16Array, isInt32Array, isFloat32Array,
  isFloat64Array, isBigInt64Array, isBigUint64Array, isNumberObject, isStringObject,
  isBooleanObject, isBigIntObject, isSymbolObject, isBoxedPrimitive, isPromise, isNativeError,
  isAsyncFunction, isGeneratorFunction, isGeneratorObject, isMapIterator, isSetIterator,
  isModuleNamespaceObject, isArgumentsObject, isWeakRef, isCryptoKey, isKeyObject,
};
export default types;
