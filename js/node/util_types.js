// `node:util/types`: the same object as node:util's `types` (its default export), and a named
// export for each of Node's checks. The engine's `types` lacks `isExternal`, which cannot be true
// of anything a plugin holds here (no native externals): its named export answers false.
import { types } from "node:util";

const never = () => false;

export const {
  isDate, isArgumentsObject, isBigIntObject, isBooleanObject, isNumberObject, isStringObject, isSymbolObject,
  isNativeError, isRegExp, isAsyncFunction, isGeneratorFunction, isGeneratorObject, isPromise, isMap, isSet,
  isMapIterator, isSetIterator, isWeakMap, isWeakSet, isArrayBuffer, isDataView, isSharedArrayBuffer, isProxy,
  isModuleNamespaceObject, isAnyArrayBuffer, isBoxedPrimitive, isArrayBufferView, isTypedArray, isUint8Array,
  isUint8ClampedArray, isUint16Array, isUint32Array, isInt8Array, isInt16Array, isInt32Array, isFloat32Array,
  isFloat64Array, isBigInt64Array, isBigUint64Array, isKeyObject, isCryptoKey,
} = types;
export const isExternal = types.isExternal ?? never;

export default types;
