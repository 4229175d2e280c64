// node:util — pure-JS implementation of the commonly used parts of Node's util.
// Standalone ES module: no imports. Engine internals (promise state, proxies,
// iterator previews) are not observable from JS, so those are approximated.

// ---------------------------------------------------------------------------
// Errors shaped like Node's internal errors.

function nodeError(Base, code, message) {
  const err = new Base(message);
  err.code = code;
  return err;
}

const kLowerTypes = new Set(["string", "function", "number", "object", "boolean", "bigint", "symbol"]);

function determineSpecificType(value) {
  if (value == null) return `${value}`;
  if (typeof value === "function") return `function ${value.name}`;
  if (typeof value === "object") {
    if (value.constructor?.name) return `an instance of ${value.constructor.name}`;
    return inspect(value, { depth: -1 });
  }
  // Long strings are cut before quoting; other primitives are shown in full.
  if (typeof value === "string" && value.length > 28) value = `${value.slice(0, 25)}...`;
  return `type ${typeof value} (${inspect(value, { colors: false })})`;
}

// `expected` is a type name ("string", "Function") or a class name ("AbortSignal").
function invalidArgType(name, expected, actual) {
  let msg = "The ";
  if (name.endsWith(" argument")) msg += `${name} `;
  else msg += `"${name}" ${name.includes(".") ? "property" : "argument"} `;
  const lower = expected.toLowerCase();
  msg += kLowerTypes.has(lower) ? `must be of type ${lower}` : `must be an instance of ${expected}`;
  return nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `${msg}. Received ${determineSpecificType(actual)}`);
}

function validateFunction(value, name) {
  if (typeof value !== "function") throw invalidArgType(name, "Function", value);
}

function validateString(value, name) {
  if (typeof value !== "string") throw invalidArgType(name, "string", value);
}

// ---------------------------------------------------------------------------
// util.types — brand checks via built-in methods/getters that throw on the wrong
// receiver, which (unlike instanceof) also work across realms and subclasses.

const uncurry = (fn) => (self, ...args) => fn.apply(self, args);
const getter = (proto, key) => uncurry(Object.getOwnPropertyDescriptor(proto, key).get);
const objectToString = uncurry(Object.prototype.toString);
const hasOwn = uncurry(Object.prototype.hasOwnProperty);
const propertyIsEnumerable = uncurry(Object.prototype.propertyIsEnumerable);

function brand(check) {
  return (value) => {
    if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
    try {
      check(value);
      return true;
    } catch {
      return false;
    }
  };
}

const TypedArrayPrototype = Object.getPrototypeOf(Int8Array.prototype);
const typedArrayTag = getter(TypedArrayPrototype, Symbol.toStringTag);
const typedArrayKind = (value) => (ArrayBuffer.isView(value) ? typedArrayTag(value) : undefined);
const regExpSource = getter(RegExp.prototype, "source");

const isDate = brand(uncurry(Date.prototype.getTime));
// The `source` getter special-cases RegExp.prototype itself, so exclude it.
const isRegExp = brand((v) => {
  if (v === RegExp.prototype) throw v;
  regExpSource(v);
});
const isMap = brand(getter(Map.prototype, "size"));
const isSet = brand(getter(Set.prototype, "size"));
const isWeakMap = brand((v) => WeakMap.prototype.has.call(v, {}));
const isWeakSet = brand((v) => WeakSet.prototype.has.call(v, {}));
const isArrayBuffer = brand(getter(ArrayBuffer.prototype, "byteLength"));
const isSharedArrayBuffer = typeof SharedArrayBuffer === "function"
  ? brand(getter(SharedArrayBuffer.prototype, "byteLength"))
  : () => false;
const isDataView = brand(getter(DataView.prototype, "buffer"));
const isNumberObject = (v) => typeof v === "object" && brand(uncurry(Number.prototype.valueOf))(v);
const isStringObject = (v) => typeof v === "object" && brand(uncurry(String.prototype.valueOf))(v);
const isBooleanObject = (v) => typeof v === "object" && brand(uncurry(Boolean.prototype.valueOf))(v);
const isBigIntObject = (v) => typeof v === "object" && brand(uncurry(BigInt.prototype.valueOf))(v);
const isSymbolObject = (v) => typeof v === "object" && brand(uncurry(Symbol.prototype.valueOf))(v);
const isBoxedPrimitive = (v) =>
  isNumberObject(v) || isStringObject(v) || isBooleanObject(v) || isBigIntObject(v) || isSymbolObject(v);
const isTypedArray = (v) => typedArrayKind(v) !== undefined;
const typedArrayCheck = (kind) => (v) => typedArrayKind(v) === kind;

// The following have no side-effect-free brand check in ECMAScript, so they rely
// on the built-in Symbol.toStringTag (which user code could spoof).
const hasTag = (...tags) => (v) =>
  v !== null && (typeof v === "object" || typeof v === "function") && tags.includes(objectToString(v).slice(8, -1));
const isPromise = (v) => v instanceof Promise || hasTag("Promise")(v);
const isAsyncFunction = (v) => typeof v === "function" && hasTag("AsyncFunction", "AsyncGeneratorFunction")(v);
const isGeneratorFunction = (v) =>
  typeof v === "function" && hasTag("GeneratorFunction", "AsyncGeneratorFunction")(v);
const isGeneratorObject = hasTag("Generator");
const isMapIterator = hasTag("Map Iterator");
const isSetIterator = hasTag("Set Iterator");
const isArgumentsObject = hasTag("Arguments");
const isModuleNamespaceObject = (v) => hasTag("Module")(v) && Object.getPrototypeOf(v) === null;
const isNativeError = typeof Error.isError === "function"
  ? (v) => Error.isError(v)
  : (v) => hasTag("Error")(v);

// A Proxy is invisible to JavaScript; the engine tells (js/runtime/core.js). Without the engine
// (these files tested under Node) there is no telling, and the answer is false.
const engineIsProxy = globalThis[Symbol.for("paseo.isProxy")];
const isProxy = (v) => (engineIsProxy ? engineIsProxy(v) : false);

// KeyObject and CryptoKey are node:crypto's: it registers its checks when it loads (before, no
// value can be one).
const cryptoCheck = (name) => (v) => globalThis[Symbol.for(`paseo.${name}`)]?.(v) ?? false;

export const types = {
  isProxy,
  isKeyObject: cryptoCheck("isKeyObject"),
  isCryptoKey: cryptoCheck("isCryptoKey"),
  isDate,
  isArgumentsObject,
  isBigIntObject,
  isBooleanObject,
  isNumberObject,
  isStringObject,
  isSymbolObject,
  isNativeError,
  isRegExp,
  isAsyncFunction,
  isGeneratorFunction,
  isGeneratorObject,
  isPromise,
  isMap,
  isSet,
  isMapIterator,
  isSetIterator,
  isWeakMap,
  isWeakSet,
  isArrayBuffer,
  isDataView,
  isSharedArrayBuffer,
  isModuleNamespaceObject,
  isAnyArrayBuffer: (v) => isArrayBuffer(v) || isSharedArrayBuffer(v),
  isBoxedPrimitive,
  isArrayBufferView: (v) => ArrayBuffer.isView(v),
  isTypedArray,
  isUint8Array: typedArrayCheck("Uint8Array"),
  isUint8ClampedArray: typedArrayCheck("Uint8ClampedArray"),
  isUint16Array: typedArrayCheck("Uint16Array"),
  isUint32Array: typedArrayCheck("Uint32Array"),
  isInt8Array: typedArrayCheck("Int8Array"),
  isInt16Array: typedArrayCheck("Int16Array"),
  isInt32Array: typedArrayCheck("Int32Array"),
  isFloat32Array: typedArrayCheck("Float32Array"),
  isFloat64Array: typedArrayCheck("Float64Array"),
  isBigInt64Array: typedArrayCheck("BigInt64Array"),
  isBigUint64Array: typedArrayCheck("BigUint64Array"),
};

const isAnyError = (v) => isNativeError(v) || v instanceof Error;

// ---------------------------------------------------------------------------
// inspect — follows the structure of Node's lib/internal/util/inspect.js.

const customInspectSymbol = Symbol.for("nodejs.util.inspect.custom");

const inspectDefaultOptions = {
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

const kObjectType = 0;
const kArrayType = 1;
const kArrayExtrasType = 2;
const kMinLineWidth = 16;

const keyStrRegExp = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
const numberRegExp = /^(0|[1-9][0-9]*)$/;

// Escape table for code points < 160 that need escaping inside quotes.
const meta = [];
for (let i = 0; i < 160; i++) {
  meta.push(i < 32 || (i > 126 && i < 160) ? `\\x${i.toString(16).toUpperCase().padStart(2, "0")}` : "");
}
Object.assign(meta, { 8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r", 39: "\\'", 92: "\\\\" });

// Global constructors whose prototype `toString` counts as "built-in" for %s: by name, as Node
// does it (reading the values would evaluate the modules behind lazy globals: Buffer, fetch, …).
const builtInObjects = new Set(
  Object.getOwnPropertyNames(globalThis).filter((name) => /^[A-Z][a-zA-Z0-9]+$/.test(name)),
);

function strEscape(str) {
  // Pick the quote that needs no escaping: ' then " then `.
  let quote = 39;
  if (str.includes("'")) {
    if (!str.includes('"')) quote = -1;
    else if (!str.includes("`") && !str.includes("${")) quote = -2;
  }
  let result = "";
  let last = 0;
  for (let i = 0; i < str.length; i++) {
    const point = str.charCodeAt(i);
    if (point === quote || point === 92 || point < 32 || (point > 126 && point < 160)) {
      result += str.slice(last, i) + meta[point];
      last = i + 1;
    } else if (point >= 0xd800 && point <= 0xdfff) {
      if (point <= 0xdbff && i + 1 < str.length) {
        const next = str.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          i++;
          continue;
        }
      }
      // Lone surrogate.
      result += `${str.slice(last, i)}\\u${point.toString(16)}`;
      last = i + 1;
    }
  }
  result += str.slice(last);
  if (quote === -1) return `"${result}"`;
  if (quote === -2) return `\`${result}\``;
  return `'${result}'`;
}

const stylizeNoColor = (str) => str;

const colorCodes = {
  reset: [0, 0], bold: [1, 22], dim: [2, 22], italic: [3, 23], underline: [4, 24],
  inverse: [7, 27], hidden: [8, 28], strikethrough: [9, 29],
  black: [30, 39], red: [31, 39], green: [32, 39], yellow: [33, 39], blue: [34, 39],
  magenta: [35, 39], cyan: [36, 39], white: [37, 39], gray: [90, 39], grey: [90, 39],
  bgBlack: [40, 49], bgRed: [41, 49], bgGreen: [42, 49], bgYellow: [43, 49],
  bgBlue: [44, 49], bgMagenta: [45, 49], bgCyan: [46, 49], bgWhite: [47, 49],
};
const styles = {
  special: "cyan", number: "yellow", bigint: "yellow", boolean: "yellow", undefined: "grey",
  null: "bold", string: "green", symbol: "green", date: "magenta", regexp: "red", module: "underline",
};

function stylizeWithColor(str, styleType) {
  const color = colorCodes[styles[styleType]];
  return color ? `\u001b[${color[0]}m${str}\u001b[${color[1]}m` : str;
}

function formatNumber(fn, number, numericSeparator) {
  if (!numericSeparator) return fn(Object.is(number, -0) ? "-0" : `${number}`, "number");
  const integer = Math.trunc(number);
  const string = String(integer);
  if (integer === number) {
    if (!Number.isFinite(number) || string.includes("e")) return fn(string, "number");
    return fn(addNumericSeparator(string), "number");
  }
  if (Number.isNaN(number)) return fn(string, "number");
  return fn(`${addNumericSeparator(string)}.${addNumericSeparatorEnd(String(number).slice(string.length + 1))}`, "number");
}

function addNumericSeparator(s) {
  let result = "";
  let i = s.length;
  const start = s.startsWith("-") ? 1 : 0;
  for (; i >= start + 4; i -= 3) result = `_${s.slice(i - 3, i)}${result}`;
  return i === s.length ? s : `${s.slice(0, i)}${result}`;
}

function addNumericSeparatorEnd(s) {
  let result = "";
  let i = 0;
  for (; i < s.length - 3; i += 3) result += `${s.slice(i, i + 3)}_`;
  return i === 0 ? s : `${result}${s.slice(i)}`;
}

function formatBigInt(fn, bigint, numericSeparator) {
  const string = String(bigint);
  return fn(`${numericSeparator ? addNumericSeparator(string) : string}n`, "bigint");
}

function formatPrimitive(fn, value, ctx) {
  if (typeof value === "string") {
    let trailer = "";
    if (value.length > ctx.maxStringLength) {
      const remaining = value.length - ctx.maxStringLength;
      value = value.slice(0, ctx.maxStringLength);
      trailer = `... ${remaining} more character${remaining > 1 ? "s" : ""}`;
    }
    // Long multi-line strings are split at newlines, one quoted chunk per line.
    if (ctx.compact !== true && value.length > kMinLineWidth &&
        value.length > ctx.breakLength - ctx.indentationLvl - 4) {
      return value
        .split(/(?<=\n)/)
        .map((line) => fn(strEscape(line), "string"))
        .join(` +\n${" ".repeat(ctx.indentationLvl + 2)}`) + trailer;
    }
    return fn(strEscape(value), "string") + trailer;
  }
  if (typeof value === "number") return formatNumber(fn, value, ctx.numericSeparator);
  if (typeof value === "bigint") return formatBigInt(fn, value, ctx.numericSeparator);
  if (typeof value === "boolean") return fn(`${value}`, "boolean");
  if (typeof value === "undefined") return fn("undefined", "undefined");
  return fn(value.toString(), "symbol");
}

function getConstructorName(obj) {
  const tmp = obj;
  let firstProto;
  while (obj) {
    const descriptor = Object.getOwnPropertyDescriptor(obj, "constructor");
    if (descriptor !== undefined && typeof descriptor.value === "function" &&
        descriptor.value.name !== "" && isInstanceof(tmp, descriptor.value)) {
      return String(descriptor.value.name);
    }
    obj = Object.getPrototypeOf(obj);
    if (firstProto === undefined) firstProto = obj;
  }
  if (firstProto === null) return null;
  return "Object"; // Node prints a "<Complex prototype>" hint here; keep it simple.
}

function isInstanceof(object, proto) {
  try {
    return object instanceof proto;
  } catch {
    return false;
  }
}

function getPrefix(constructor, tag, fallback, size = "") {
  if (constructor === null) {
    if (tag !== "" && fallback !== tag) return `[${fallback}${size}: null prototype] [${tag}] `;
    return `[${fallback}${size}: null prototype] `;
  }
  if (tag !== "" && constructor !== tag) return `${constructor}${size} [${tag}] `;
  return `${constructor}${size} `;
}

function getKeys(value, showHidden) {
  const symbols = Object.getOwnPropertySymbols(value);
  if (showHidden) return [...Object.getOwnPropertyNames(value), ...symbols];
  return [...Object.keys(value), ...symbols.filter((key) => propertyIsEnumerable(value, key))];
}

function getOwnNonIndexProperties(value, showHidden) {
  return getKeys(value, showHidden).filter(
    (key) => typeof key === "symbol" || !numberRegExp.test(key) || Number(key) >= 2 ** 32 - 1,
  );
}

function isBelowBreakLength(ctx, output, start, base) {
  let totalLength = output.length + start;
  if (totalLength + output.length > ctx.breakLength) return false;
  for (const entry of output) {
    totalLength += ctx.colors ? stripVTControlCharacters(entry).length : entry.length;
    if (totalLength > ctx.breakLength) return false;
  }
  return base === "" || !base.includes("\n");
}

// Lays out long arrays of short entries in aligned columns.
function groupArrayElements(ctx, output, value) {
  let totalLength = 0;
  let maxLength = 0;
  let outputLength = output.length;
  if (ctx.maxArrayLength < output.length) outputLength--; // Skip "... more items".
  const separatorSpace = 2; // ", "
  const dataLen = new Array(outputLength);
  for (let i = 0; i < outputLength; i++) {
    const len = ctx.colors ? stripVTControlCharacters(output[i]).length : output[i].length;
    dataLen[i] = len;
    totalLength += len + separatorSpace;
    if (maxLength < len) maxLength = len;
  }
  const actualMax = maxLength + separatorSpace;
  if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength &&
      (totalLength / actualMax > 5 || maxLength <= 6)) {
    const averageBias = Math.sqrt(actualMax - totalLength / output.length);
    const biasedMax = Math.max(actualMax - 3 - averageBias, 1);
    const columns = Math.min(
      // Aim for a roughly square block, characters being ~2.5 times taller than wide.
      Math.round(Math.sqrt(2.5 * biasedMax * outputLength) / biasedMax),
      Math.floor((ctx.breakLength - ctx.indentationLvl) / actualMax),
      ctx.compact * 4,
      15,
    );
    if (columns <= 1) return output;
    const tmp = [];
    const maxLineLength = [];
    for (let i = 0; i < columns; i++) {
      let lineLength = 0;
      for (let j = i; j < output.length; j += columns) {
        if (dataLen[j] > lineLength) lineLength = dataLen[j];
      }
      maxLineLength.push(lineLength + separatorSpace);
    }
    // Numbers are right-aligned, everything else left-aligned.
    let padStart = true;
    if (value !== undefined) {
      for (let i = 0; i < output.length; i++) {
        if (typeof value[i] !== "number" && typeof value[i] !== "bigint") {
          padStart = false;
          break;
        }
      }
    }
    for (let i = 0; i < outputLength; i += columns) {
      const max = Math.min(i + columns, outputLength);
      let str = "";
      let j = i;
      for (; j < max - 1; j++) {
        const padding = maxLineLength[j - i] + output[j].length - dataLen[j];
        str += padStart ? `${output[j]}, `.padStart(padding, " ") : `${output[j]}, `.padEnd(padding, " ");
      }
      if (padStart) {
        const padding = maxLineLength[j - i] + output[j].length - dataLen[j] - separatorSpace;
        str += output[j].padStart(padding, " ");
      } else {
        str += output[j];
      }
      tmp.push(str);
    }
    if (ctx.maxArrayLength < output.length) tmp.push(output[outputLength]);
    output = tmp;
  }
  return output;
}

function reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value) {
  if (ctx.compact !== true) {
    if (typeof ctx.compact === "number" && ctx.compact >= 1) {
      const entries = output.length;
      if (extrasType === kArrayExtrasType && entries > 6) {
        output = groupArrayElements(ctx, output, value);
      }
      // Put up to `compact` inner levels on a single line if they fit.
      if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
        const start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
        if (isBelowBreakLength(ctx, output, start, base)) {
          const joined = output.join(", ");
          if (!joined.includes("\n")) {
            return `${base ? `${base} ` : ""}${braces[0]} ${joined} ${braces[1]}`;
          }
        }
      }
    }
    const indentation = `\n${" ".repeat(ctx.indentationLvl)}`;
    return `${base ? `${base} ` : ""}${braces[0]}${indentation}  ${output.join(`,${indentation}  `)}${indentation}${braces[1]}`;
  }
  if (isBelowBreakLength(ctx, output, 0, base)) {
    return `${braces[0]}${base ? ` ${base}` : ""} ${output.join(", ")} ${braces[1]}`;
  }
  const indentation = " ".repeat(ctx.indentationLvl);
  const ln = base === "" && braces[0].length === 1 ? " " : `${base ? ` ${base}` : ""}\n${indentation}  `;
  return `${braces[0]}${ln}${output.join(`,\n${indentation}  `)} ${braces[1]}`;
}

function formatValue(ctx, value, recurseTimes, typedArray) {
  if (typeof value !== "object" && typeof value !== "function") {
    return formatPrimitive(ctx.stylize, value, ctx);
  }
  if (value === null) return ctx.stylize("null", "null");

  if (ctx.customInspect) {
    let maybeCustom;
    try {
      maybeCustom = value[customInspectSymbol];
    } catch {
      // Throwing getters are treated as "no custom inspect".
    }
    // Skip prototypes that merely define the custom inspect method for instances.
    if (typeof maybeCustom === "function" && maybeCustom !== inspect &&
        !(value.constructor && value.constructor.prototype === value)) {
      const depth = ctx.depth === null ? null : ctx.depth - recurseTimes;
      const options = { ...inspectDefaultOptions, ...ctx.userOptions };
      for (const key of Object.keys(inspectDefaultOptions)) options[key] = ctx[key];
      options.stylize = ctx.stylize;
      const ret = maybeCustom.call(value, depth, options, inspect);
      if (ret !== value) {
        if (typeof ret !== "string") return formatValue(ctx, ret, recurseTimes);
        return ret.replaceAll("\n", `\n${" ".repeat(ctx.indentationLvl)}`);
      }
    }
  }

  if (ctx.seen.includes(value)) {
    let index = 1;
    if (ctx.circular === undefined) {
      ctx.circular = new Map([[value, index]]);
    } else {
      index = ctx.circular.get(value);
      if (index === undefined) {
        index = ctx.circular.size + 1;
        ctx.circular.set(value, index);
      }
    }
    return ctx.stylize(`[Circular *${index}]`, "special");
  }
  return formatRaw(ctx, value, recurseTimes, typedArray);
}

function formatRaw(ctx, value, recurseTimes, typedArray) {
  let keys;
  const constructor = getConstructorName(value);
  let tag = value[Symbol.toStringTag];
  // Only show the tag if it isn't already printed as an own enumerable property.
  if (typeof tag !== "string" ||
      (tag !== "" && (ctx.showHidden ? hasOwn : propertyIsEnumerable)(value, Symbol.toStringTag))) {
    tag = "";
  }
  let base = "";
  let formatter = () => [];
  let braces;
  let noIterator = true;
  let extrasType = kObjectType;

  if (Symbol.iterator in value || constructor === null) {
    noIterator = false;
    if (Array.isArray(value)) {
      const prefix = constructor !== "Array" || tag !== ""
        ? getPrefix(constructor, tag, "Array", `(${value.length})`)
        : "";
      keys = getOwnNonIndexProperties(value, ctx.showHidden);
      braces = [`${prefix}[`, "]"];
      if (value.length === 0 && keys.length === 0) return `${braces[0]}]`;
      extrasType = kArrayExtrasType;
      formatter = formatArray;
    } else if (isSet(value)) {
      const size = value.size;
      const prefix = getPrefix(constructor, tag, "Set", `(${size})`);
      keys = getKeys(value, ctx.showHidden);
      formatter = (c, v, r) => formatSet(Set.prototype.values.call(v), size, c, r);
      if (size === 0 && keys.length === 0) return `${prefix}{}`;
      braces = [`${prefix}{`, "}"];
    } else if (isMap(value)) {
      const size = value.size;
      const prefix = getPrefix(constructor, tag, "Map", `(${size})`);
      keys = getKeys(value, ctx.showHidden);
      formatter = (c, v, r) => formatMap(Map.prototype.entries.call(v), size, c, r);
      if (size === 0 && keys.length === 0) return `${prefix}{}`;
      braces = [`${prefix}{`, "}"];
    } else if (isTypedArray(value)) {
      keys = getOwnNonIndexProperties(value, ctx.showHidden);
      const kind = typedArrayTag(value);
      const size = value.length;
      const prefix = getPrefix(constructor, tag, constructor === null ? kind : "", `(${size})`);
      braces = [`${prefix}[`, "]"];
      if (size === 0 && keys.length === 0 && !ctx.showHidden) return `${braces[0]}]`;
      formatter = (c, v, r) => formatTypedArray(v, size, c, r);
      extrasType = kArrayExtrasType;
    } else {
      noIterator = true;
    }
  }

  if (noIterator) {
    keys = getKeys(value, ctx.showHidden);
    braces = ["{", "}"];
    if (constructor === "Object") {
      if (isArgumentsObject(value)) braces[0] = "[Arguments] {";
      else if (tag !== "") braces[0] = `${getPrefix(constructor, tag, "Object")}{`;
      if (keys.length === 0) return `${braces[0]}}`;
    } else if (typeof value === "function") {
      base = getFunctionBase(value, constructor, tag);
      if (keys.length === 0) return ctx.stylize(base, "special");
    } else if (isRegExp(value)) {
      base = RegExp.prototype.toString.call(constructor !== null ? value : new RegExp(value));
      const prefix = getPrefix(constructor, tag, "RegExp");
      if (prefix !== "RegExp ") base = `${prefix}${base}`;
      if (keys.length === 0 || (recurseTimes > ctx.depth && ctx.depth !== null)) {
        return ctx.stylize(base, "regexp");
      }
    } else if (isDate(value)) {
      base = Number.isNaN(Date.prototype.getTime.call(value))
        ? Date.prototype.toString.call(value)
        : Date.prototype.toISOString.call(value);
      const prefix = getPrefix(constructor, tag, "Date");
      if (prefix !== "Date ") base = `${prefix}${base}`;
      if (keys.length === 0) return ctx.stylize(base, "date");
    } else if (isAnyError(value)) {
      base = formatError(value, constructor, tag, ctx, keys);
      if (keys.length === 0) return base;
    } else if (isArrayBuffer(value) || isSharedArrayBuffer(value)) {
      const prefix = getPrefix(constructor, tag, isArrayBuffer(value) ? "ArrayBuffer" : "SharedArrayBuffer");
      if (typedArray === undefined) formatter = formatArrayBuffer;
      else if (keys.length === 0) return `${prefix}{ byteLength: ${formatNumber(ctx.stylize, value.byteLength, false)} }`;
      braces[0] = `${prefix}{`;
      keys.unshift("byteLength");
    } else if (isDataView(value)) {
      braces[0] = `${getPrefix(constructor, tag, "DataView")}{`;
      keys.unshift("byteLength", "byteOffset", "buffer");
    } else if (isPromise(value)) {
      braces[0] = `${getPrefix(constructor, tag, "Promise")}{`;
      // Promise state is not observable synchronously from JavaScript.
      formatter = (c) => [c.stylize("<unknown>", "special")];
    } else if (isWeakSet(value) || isWeakMap(value)) {
      braces[0] = `${getPrefix(constructor, tag, isWeakSet(value) ? "WeakSet" : "WeakMap")}{`;
      formatter = (c) => [c.stylize("<items unknown>", "special")];
    } else if (isModuleNamespaceObject(value)) {
      braces[0] = `${getPrefix(constructor, tag, "Module")}{`;
    } else if (isBoxedPrimitive(value)) {
      base = getBoxedBase(value, ctx, keys, constructor, tag);
      if (keys.length === 0) return base;
    } else {
      if (keys.length === 0) return `${getPrefix(constructor, tag, "Object")}{}`;
      braces[0] = `${getPrefix(constructor, tag, "Object")}{`;
    }
  }

  if (recurseTimes > ctx.depth && ctx.depth !== null) {
    let constructorName = getPrefix(constructor, tag, "Object").slice(0, -1);
    if (constructor !== null) constructorName = `[${constructorName}]`;
    return ctx.stylize(constructorName, "special");
  }
  recurseTimes += 1;
  ctx.seen.push(value);
  ctx.currentDepth = recurseTimes;
  let output;
  try {
    output = formatter(ctx, value, recurseTimes);
    for (const key of keys) output.push(formatProperty(ctx, value, recurseTimes, key, extrasType));
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    // Most likely a stack overflow on a deeply nested structure.
    ctx.seen.pop();
    return ctx.stylize(`[${getPrefix(constructor, tag, "Object").slice(0, -1)}: Inspection interrupted ` +
      "prematurely. Maximum call stack size exceeded.]", "special");
  }
  if (ctx.circular !== undefined) {
    const index = ctx.circular.get(value);
    if (index !== undefined) {
      const reference = ctx.stylize(`<ref *${index}>`, "special");
      if (ctx.compact !== true) base = base === "" ? reference : `${reference} ${base}`;
      else braces[0] = `${reference} ${braces[0]}`;
    }
  }
  ctx.seen.pop();

  if (ctx.sorted) {
    const comparator = ctx.sorted === true ? undefined : ctx.sorted;
    if (extrasType === kObjectType) {
      output.sort(comparator);
    } else if (keys.length > 1) {
      const sorted = output.slice(output.length - keys.length).sort(comparator);
      output.splice(output.length - keys.length, keys.length, ...sorted);
    }
  }
  return reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value);
}

function getFunctionBase(value, constructor, tag) {
  let stringified = "";
  try {
    stringified = Function.prototype.toString.call(value);
  } catch {
    // Ignore: treated as a plain function.
  }
  if (stringified.startsWith("class") && stringified.endsWith("}")) {
    const slice = stringified.slice(5, -1);
    const bracketIndex = slice.indexOf("{");
    if (bracketIndex !== -1 && (!slice.slice(0, bracketIndex).includes("(") ||
        /^\s*(?:extends\s+[^{]+)?\s*\{/.test(slice.replace(/(\/\/.*?\n)|(\/\*(.|\n)*?\*\/)/g, "")))) {
      return getClassBase(value, constructor, tag);
    }
  }
  let type = "Function";
  if (isGeneratorFunction(value)) type = `Generator${type}`;
  if (isAsyncFunction(value)) type = `Async${type}`;
  let base = `[${type}`;
  if (constructor === null) base += " (null prototype)";
  base += value.name === "" ? " (anonymous)" : `: ${value.name}`;
  base += "]";
  if (constructor !== type && constructor !== null) base += ` ${constructor}`;
  if (tag !== "" && constructor !== tag) base += ` [${tag}]`;
  return base;
}

function getClassBase(value, constructor, tag) {
  const name = (hasOwn(value, "name") && value.name) || "(anonymous)";
  let base = `class ${name}`;
  if (constructor !== "Function" && constructor !== null) base += ` [${constructor}]`;
  if (tag !== "" && constructor !== tag) base += ` [${tag}]`;
  if (constructor !== null) {
    const superName = Object.getPrototypeOf(value).name;
    if (superName) base += ` extends ${superName}`;
  } else {
    base += " extends [null prototype]";
  }
  return `[${base}]`;
}

function getBoxedBase(value, ctx, keys, constructor, tag) {
  let type;
  let primitive;
  if (isNumberObject(value)) {
    type = "Number";
    primitive = Number.prototype.valueOf.call(value);
  } else if (isStringObject(value)) {
    type = "String";
    primitive = String.prototype.valueOf.call(value);
    keys.splice(0, primitive.length); // Drop the index keys of the characters.
  } else if (isBooleanObject(value)) {
    type = "Boolean";
    primitive = Boolean.prototype.valueOf.call(value);
  } else if (isBigIntObject(value)) {
    type = "BigInt";
    primitive = BigInt.prototype.valueOf.call(value);
  } else {
    type = "Symbol";
    primitive = Symbol.prototype.valueOf.call(value);
  }
  let base = `[${type}`;
  if (type !== constructor) base += constructor === null ? " (null prototype)" : ` (${constructor})`;
  base += `: ${formatPrimitive(stylizeNoColor, primitive, ctx)}]`;
  if (tag !== "" && tag !== constructor) base += ` [${tag}]`;
  if (keys.length !== 0 || ctx.stylize === stylizeNoColor) return base;
  return ctx.stylize(base, type.toLowerCase());
}

function getStackString(error) {
  let stack = error.stack ? String(error.stack) : Error.prototype.toString.call(error);
  // QuickJS stacks hold only the frames; prepend the "Name: message" header like V8.
  if (/^\s+at /.test(stack)) stack = `${Error.prototype.toString.call(error)}\n${stack}`;
  return stack.replace(/\n+$/, "");
}

function identicalSequenceRange(a, b) {
  for (let i = 0; i < a.length - 3; i++) {
    const pos = b.indexOf(a[i]);
    if (pos !== -1) {
      const rest = b.length - pos;
      if (rest > 3) {
        let len = 1;
        const maxLen = Math.min(a.length - i, rest);
        while (maxLen > len && a[i + len] === b[pos + len]) len++;
        if (len > 3) return { len, offset: i };
      }
    }
  }
  return { len: 0, offset: 0 };
}

function getStackFrames(ctx, err, stack) {
  const frames = stack.split("\n");
  let cause;
  try {
    ({ cause } = err);
  } catch {
    // Ignore throwing getters.
  }
  // Collapse frames that repeat the cause's stack trace.
  if (cause != null && isAnyError(cause)) {
    const causeStack = getStackString(cause);
    const causeStackStart = causeStack.indexOf("\n    at");
    if (causeStackStart !== -1) {
      const causeFrames = causeStack.slice(causeStackStart + 1).split("\n");
      const { len, offset } = identicalSequenceRange(frames, causeFrames);
      if (len > 0) {
        const skipped = len - 2;
        const msg = `    ... ${skipped} lines matching cause stack trace ...`;
        frames.splice(offset + 1, skipped, ctx.stylize(msg, "undefined"));
      }
    }
  }
  return frames;
}

function improveStack(stack, constructor, name, tag) {
  // Only touch "regular looking" errors: make the stack show the real class name.
  let len = name.length;
  if (constructor === null ||
      (name.endsWith("Error") && stack.startsWith(name) &&
       (stack.length === len || stack[len] === ":" || stack[len] === "\n"))) {
    let fallback = "Error";
    if (constructor === null) {
      const start = /^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n\s+at)/.exec(stack) ||
        /^([a-z_A-Z0-9-]*Error)$/.exec(stack);
      fallback = (start && start[1]) || "";
      len = fallback.length;
      fallback = fallback || "Error";
    }
    const prefix = getPrefix(constructor, tag, fallback).slice(0, -1);
    if (name !== prefix) {
      if (prefix.includes(name)) {
        stack = len === 0 ? `${prefix}: ${stack}` : `${prefix}${stack.slice(len)}`;
      } else {
        stack = `${prefix} [${name}]${stack.slice(len)}`;
      }
    }
  }
  return stack;
}

function formatError(err, constructor, tag, ctx, keys) {
  const name = err.name != null ? String(err.name) : "Error";
  let stack = getStackString(err);
  // Don't repeat name/message/stack as properties when the stack already shows them.
  if (!ctx.showHidden && keys.length !== 0) {
    for (const key of ["name", "message", "stack"]) {
      const index = keys.indexOf(key);
      if (index !== -1 && stack.includes(err[key])) keys.splice(index, 1);
    }
  }
  if ("cause" in err && (keys.length === 0 || !keys.includes("cause"))) keys.push("cause");
  if (Array.isArray(err.errors) && (keys.length === 0 || !keys.includes("errors"))) keys.push("errors");
  stack = improveStack(stack, constructor, name, tag);

  // Ignore the message if it is contained in the stack.
  let pos = (err.message && stack.indexOf(err.message)) || -1;
  if (pos !== -1) pos += err.message.length;
  const stackStart = stack.indexOf("\n    at", pos);
  if (stackStart === -1) {
    stack = `[${stack}]`; // No stack trace: wrap in brackets.
  } else {
    const frames = getStackFrames(ctx, err, stack.slice(stackStart + 1));
    stack = `${stack.slice(0, stackStart)}\n${frames.join("\n")}`;
  }
  if (ctx.indentationLvl !== 0) {
    stack = stack.replaceAll("\n", `\n${" ".repeat(ctx.indentationLvl)}`);
  }
  return stack;
}

function formatArrayBuffer(ctx, value) {
  let bytes;
  try {
    bytes = new Uint8Array(value);
  } catch {
    return [ctx.stylize("(detached)", "special")];
  }
  let str = Array.from(bytes.subarray(0, Math.min(ctx.maxArrayLength, bytes.length)),
    (b) => b.toString(16).padStart(2, "0")).join(" ");
  const remaining = bytes.length - ctx.maxArrayLength;
  if (remaining > 0) str += ` ... ${remaining} more byte${remaining > 1 ? "s" : ""}`;
  return [`${ctx.stylize("[Uint8Contents]", "special")}: <${str}>`];
}

function remainingText(remaining) {
  return `... ${remaining} more item${remaining > 1 ? "s" : ""}`;
}

function formatArray(ctx, value, recurseTimes) {
  const valLen = value.length;
  const len = Math.min(Math.max(0, ctx.maxArrayLength), valLen);
  const remaining = valLen - len;
  const output = [];
  for (let i = 0; i < len; i++) {
    if (!hasOwn(value, i)) return formatSpecialArray(ctx, value, recurseTimes, len, output, i);
    output.push(formatProperty(ctx, value, recurseTimes, i, kArrayType));
  }
  if (remaining > 0) output.push(remainingText(remaining));
  return output;
}

// Sparse arrays: print runs of holes as "<n empty items>".
function formatSpecialArray(ctx, value, recurseTimes, maxLength, output, i) {
  const keys = Object.keys(value);
  let index = i;
  for (; i < keys.length && output.length < maxLength; i++) {
    const key = keys[i];
    const tmp = +key;
    if (tmp > 2 ** 32 - 2) break;
    if (`${index}` !== key) {
      if (!numberRegExp.test(key)) break;
      const emptyItems = tmp - index;
      output.push(ctx.stylize(`<${emptyItems} empty item${emptyItems > 1 ? "s" : ""}>`, "undefined"));
      index = tmp;
      if (output.length === maxLength) break;
    }
    output.push(formatProperty(ctx, value, recurseTimes, key, kArrayType));
    index++;
  }
  const remaining = value.length - index;
  if (output.length !== maxLength) {
    if (remaining > 0) {
      output.push(ctx.stylize(`<${remaining} empty item${remaining > 1 ? "s" : ""}>`, "undefined"));
    }
  } else if (remaining > 0) {
    output.push(remainingText(remaining));
  }
  return output;
}

function formatTypedArray(value, length, ctx, recurseTimes) {
  const maxLength = Math.min(Math.max(0, ctx.maxArrayLength), length);
  const remaining = value.length - maxLength;
  const output = new Array(maxLength);
  const elementFormatter = value.length > 0 && typeof value[0] === "number" ? formatNumber : formatBigInt;
  for (let i = 0; i < maxLength; ++i) output[i] = elementFormatter(ctx.stylize, value[i], ctx.numericSeparator);
  if (remaining > 0) output[maxLength] = remainingText(remaining);
  if (ctx.showHidden) {
    ctx.indentationLvl += 2;
    for (const key of ["BYTES_PER_ELEMENT", "length", "byteLength", "byteOffset", "buffer"]) {
      output.push(`[${key}]: ${formatValue(ctx, value[key], recurseTimes, true)}`);
    }
    ctx.indentationLvl -= 2;
  }
  return output;
}

function formatSet(iterator, size, ctx, recurseTimes) {
  const maxLength = Math.min(Math.max(0, ctx.maxArrayLength), size);
  const output = [];
  ctx.indentationLvl += 2;
  for (const v of iterator) {
    if (output.length >= maxLength) break;
    output.push(formatValue(ctx, v, recurseTimes));
  }
  if (size > maxLength) output.push(remainingText(size - maxLength));
  ctx.indentationLvl -= 2;
  return output;
}

function formatMap(iterator, size, ctx, recurseTimes) {
  const maxLength = Math.min(Math.max(0, ctx.maxArrayLength), size);
  const output = [];
  ctx.indentationLvl += 2;
  for (const [k, v] of iterator) {
    if (output.length >= maxLength) break;
    output.push(`${formatValue(ctx, k, recurseTimes)} => ${formatValue(ctx, v, recurseTimes)}`);
  }
  if (size > maxLength) output.push(remainingText(size - maxLength));
  ctx.indentationLvl -= 2;
  return output;
}

function formatProperty(ctx, value, recurseTimes, key, type) {
  let str;
  let extra = " ";
  const desc = Object.getOwnPropertyDescriptor(value, key) || { value: value[key], enumerable: true };
  if (desc.value !== undefined) {
    const diff = ctx.compact !== true || type !== kObjectType ? 2 : 3;
    ctx.indentationLvl += diff;
    str = formatValue(ctx, desc.value, recurseTimes);
    if (diff === 3 && ctx.breakLength < str.length) extra = `\n${" ".repeat(ctx.indentationLvl)}`;
    ctx.indentationLvl -= diff;
  } else if (desc.get !== undefined) {
    const label = desc.set !== undefined ? "Getter/Setter" : "Getter";
    const s = ctx.stylize;
    if (ctx.getters && (ctx.getters === true ||
        (ctx.getters === "get" && desc.set === undefined) ||
        (ctx.getters === "set" && desc.set !== undefined))) {
      try {
        const tmp = desc.get.call(value);
        ctx.indentationLvl += 2;
        if (tmp === null) str = `${s(`[${label}:`, "special")} ${s("null", "null")}${s("]", "special")}`;
        else if (typeof tmp === "object") str = `${s(`[${label}]`, "special")} ${formatValue(ctx, tmp, recurseTimes)}`;
        else str = `${s(`[${label}:`, "special")} ${formatPrimitive(s, tmp, ctx)}${s("]", "special")}`;
        ctx.indentationLvl -= 2;
      } catch (err) {
        str = `${s(`[${label}:`, "special")} <Inspection threw (${err.message})>${s("]", "special")}`;
      }
    } else {
      str = s(`[${label}]`, "special");
    }
  } else if (desc.set !== undefined) {
    str = ctx.stylize("[Setter]", "special");
  } else {
    str = ctx.stylize("undefined", "undefined");
  }
  if (type === kArrayType) return str;
  let name;
  if (typeof key === "symbol") {
    name = `[${ctx.stylize(key.toString(), "symbol")}]`;
  } else if (key === "__proto__") {
    name = "['__proto__']";
  } else if (desc.enumerable === false) {
    name = `[${key.replace(/[\x00-\x1f\x27\x5c\x7f-\x9f]/g, (c) => meta[c.charCodeAt(0)])}]`;
  } else if (keyStrRegExp.test(key)) {
    name = ctx.stylize(key, "name");
  } else {
    name = ctx.stylize(strEscape(key), "string");
  }
  return `${name}:${extra}${str}`;
}

export function inspect(value, opts) {
  const ctx = {
    budget: {},
    indentationLvl: 0,
    seen: [],
    currentDepth: 0,
    stylize: stylizeNoColor,
    ...inspectDefaultOptions,
  };
  if (arguments.length > 1) {
    // Legacy signature: inspect(value, showHidden, depth, colors).
    if (arguments.length > 2) {
      if (arguments[2] !== undefined) ctx.depth = arguments[2];
      if (arguments.length > 3 && arguments[3] !== undefined) ctx.colors = arguments[3];
    }
    if (typeof opts === "boolean") {
      ctx.showHidden = opts;
    } else if (opts) {
      for (const key of Object.keys(opts)) {
        if (hasOwn(inspectDefaultOptions, key) || key === "stylize") ctx[key] = opts[key];
        else if (ctx.userOptions === undefined) ctx.userOptions = opts; // Passed on to custom inspectors.
      }
    }
  }
  if (ctx.colors) ctx.stylize = stylizeWithColor;
  if (ctx.maxArrayLength === null) ctx.maxArrayLength = Infinity;
  if (ctx.maxStringLength === null) ctx.maxStringLength = Infinity;
  return formatValue(ctx, value, 0);
}
inspect.custom = customInspectSymbol;
Object.defineProperty(inspect, "defaultOptions", {
  get: () => inspectDefaultOptions,
  set(options) {
    if (options === null || typeof options !== "object") throw invalidArgType("options", "Object", options);
    Object.assign(inspectDefaultOptions, options);
  },
});
inspect.colors = Object.assign(Object.create(null), colorCodes);
inspect.styles = Object.assign(Object.create(null), styles);

// ---------------------------------------------------------------------------
// format / formatWithOptions

// True if `value.toString` is the one inherited from a built-in constructor.
function hasBuiltInToString(value) {
  if (typeof value.toString !== "function") return true;
  if (hasOwn(value, "toString")) return false;
  let pointer = value;
  do {
    pointer = Object.getPrototypeOf(pointer);
  } while (!hasOwn(pointer, "toString"));
  const descriptor = Object.getOwnPropertyDescriptor(pointer, "constructor");
  return descriptor !== undefined && typeof descriptor.value === "function" &&
    builtInObjects.has(descriptor.value.name);
}

let circularErrorMessage;
function tryStringify(arg) {
  try {
    return JSON.stringify(arg);
  } catch (err) {
    if (!circularErrorMessage) {
      try {
        const a = {};
        a.a = a;
        JSON.stringify(a);
      } catch (circularError) {
        circularErrorMessage = circularError.message.split("\n")[0];
      }
    }
    if (err.name === "TypeError" && err.message.split("\n")[0] === circularErrorMessage) return "[Circular]";
    throw err;
  }
}

function formatWithOptionsInternal(inspectOptions, args) {
  const first = args[0];
  let a = 0;
  let str = "";
  let join = "";
  if (typeof first === "string") {
    if (args.length === 1) return first;
    let tempStr;
    let lastPos = 0;
    for (let i = 0; i < first.length - 1; i++) {
      if (first.charCodeAt(i) !== 37) continue; // '%'
      const nextChar = first.charCodeAt(++i);
      if (a + 1 !== args.length) {
        switch (nextChar) {
          case 115: { // 's'
            const tempArg = args[++a];
            if (typeof tempArg === "number") tempStr = formatNumber(stylizeNoColor, tempArg, false);
            else if (typeof tempArg === "bigint") tempStr = formatBigInt(stylizeNoColor, tempArg, false);
            else if (typeof tempArg !== "object" || tempArg === null || !hasBuiltInToString(tempArg)) tempStr = String(tempArg);
            else tempStr = inspect(tempArg, { ...inspectOptions, depth: 0, colors: false, compact: 3 });
            break;
          }
          case 106: // 'j'
            tempStr = tryStringify(args[++a]);
            break;
          case 100: { // 'd'
            const tempNum = args[++a];
            if (typeof tempNum === "bigint") tempStr = formatBigInt(stylizeNoColor, tempNum, false);
            else if (typeof tempNum === "symbol") tempStr = "NaN";
            else tempStr = formatNumber(stylizeNoColor, Number(tempNum), false);
            break;
          }
          case 79: // 'O'
            tempStr = inspect(args[++a], inspectOptions);
            break;
          case 111: // 'o'
            tempStr = inspect(args[++a], { ...inspectOptions, showHidden: true, showProxy: true, depth: 4 });
            break;
          case 105: { // 'i'
            const tempInteger = args[++a];
            if (typeof tempInteger === "bigint") tempStr = formatBigInt(stylizeNoColor, tempInteger, false);
            else if (typeof tempInteger === "symbol") tempStr = "NaN";
            else tempStr = formatNumber(stylizeNoColor, Number.parseInt(tempInteger), false);
            break;
          }
          case 102: { // 'f'
            const tempFloat = args[++a];
            if (typeof tempFloat === "symbol") tempStr = "NaN";
            else tempStr = formatNumber(stylizeNoColor, Number.parseFloat(tempFloat), false);
            break;
          }
          case 99: // 'c' — CSS is ignored outside browsers.
            a += 1;
            tempStr = "";
            break;
          case 37: // '%'
            str += first.slice(lastPos, i);
            lastPos = i + 1;
            continue;
          default: // Not a placeholder.
            continue;
        }
        if (lastPos !== i - 1) str += first.slice(lastPos, i - 1);
        str += tempStr;
        lastPos = i + 1;
      } else if (nextChar === 37) {
        str += first.slice(lastPos, i);
        lastPos = i + 1;
      }
    }
    if (lastPos !== 0) {
      a++;
      join = " ";
      if (lastPos < first.length) str += first.slice(lastPos);
    }
  }
  // Remaining arguments are appended, space separated.
  while (a < args.length) {
    const value = args[a];
    str += join;
    str += typeof value !== "string" ? inspect(value, inspectOptions) : value;
    join = " ";
    a++;
  }
  return str;
}

export function format(...args) {
  return formatWithOptionsInternal(undefined, args);
}

export function formatWithOptions(inspectOptions, ...args) {
  if (inspectOptions === null || typeof inspectOptions !== "object") {
    throw invalidArgType("inspectOptions", "Object", inspectOptions);
  }
  return formatWithOptionsInternal(inspectOptions, args);
}

// ---------------------------------------------------------------------------
// promisify / callbackify

const kCustomPromisifiedSymbol = Symbol.for("nodejs.util.promisify.custom");

// Copies own property descriptors (name, length, statics) onto `target`.
function copyDescriptors(target, source, edit) {
  const descriptors = Object.getOwnPropertyDescriptors(source);
  edit?.(descriptors);
  for (const desc of Object.values(descriptors)) Object.setPrototypeOf(desc, null);
  return Object.defineProperties(target, descriptors);
}

// Resolves once `signal` aborts (at once when it has); `resource` is what the wait is for,
// which Node holds weakly: here the promise simply holds nothing of it. Async, as in Node: a
// bad argument rejects, and the promise settles with the abort event (or nothing, when the
// signal had aborted already).
export async function aborted(signal, resource) {
  if (signal === undefined || signal === null || typeof signal !== "object" || !("aborted" in signal)) {
    throw invalidArgType("signal", "AbortSignal", signal);
  }
  if (resource === null || (typeof resource !== "object" && typeof resource !== "function")) {
    throw invalidArgType("resource", "object", resource);
  }
  if (signal.aborted) return;
  return new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
}

export function promisify(original) {
  validateFunction(original, "original");
  if (original[kCustomPromisifiedSymbol]) {
    const fn = original[kCustomPromisifiedSymbol];
    validateFunction(fn, "util.promisify.custom");
    return Object.defineProperty(fn, kCustomPromisifiedSymbol, {
      value: fn, enumerable: false, writable: false, configurable: true,
    });
  }
  function fn(...args) {
    return new Promise((resolve, reject) => {
      args.push((err, ...values) => {
        if (err) return reject(err);
        resolve(values[0]); // Only the first result is kept.
      });
      Reflect.apply(original, this, args);
    });
  }
  Object.setPrototypeOf(fn, Object.getPrototypeOf(original));
  Object.defineProperty(fn, kCustomPromisifiedSymbol, {
    value: fn, enumerable: false, writable: false, configurable: true,
  });
  return copyDescriptors(fn, original);
}
promisify.custom = kCustomPromisifiedSymbol;

const nextTick = (fn, ...args) => {
  if (typeof globalThis.process?.nextTick === "function") globalThis.process.nextTick(fn, ...args);
  else Promise.resolve().then(() => fn(...args)); // queueMicrotask may be absent.
};

function callbackifyOnRejected(reason, cb) {
  // A falsy rejection reason would look like success to the callback.
  if (!reason) {
    const err = nodeError(Error, "ERR_FALSY_VALUE_REJECTION", "Promise was rejected with falsy value");
    err.reason = reason;
    reason = err;
  }
  return cb(reason);
}

export function callbackify(original) {
  validateFunction(original, "original");
  function callbackified(...args) {
    const maybeCb = args.pop();
    validateFunction(maybeCb, "last argument");
    const cb = maybeCb.bind(this);
    Reflect.apply(original, this, args).then(
      (ret) => nextTick(cb, null, ret),
      (rej) => nextTick(callbackifyOnRejected, rej, cb),
    );
  }
  return copyDescriptors(callbackified, original, (descriptors) => {
    if (typeof descriptors.length?.value === "number") descriptors.length.value++;
    if (typeof descriptors.name?.value === "string") descriptors.name.value += "Callbackified";
  });
}

// ---------------------------------------------------------------------------
// Misc helpers

export function inherits(ctor, superCtor) {
  if (ctor === undefined || ctor === null) throw invalidArgType("ctor", "Function", ctor);
  if (superCtor === undefined || superCtor === null) throw invalidArgType("superCtor", "Function", superCtor);
  if (superCtor.prototype === undefined) {
    throw invalidArgType("superCtor.prototype", "Object", superCtor.prototype);
  }
  Object.defineProperty(ctor, "super_", { value: superCtor, writable: true, configurable: true });
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
}

const warnedCodes = new Set();

export function deprecate(fn, msg, code) {
  validateFunction(fn, "fn");
  if (globalThis.process?.noDeprecation === true) return fn;
  let warned = false;
  function deprecated(...args) {
    // Warn once per wrapper, and once per code across wrappers (like Node).
    if (!warned && !globalThis.process?.noDeprecation) {
      warned = true;
      if (code === undefined || !warnedCodes.has(code)) {
        if (code !== undefined) warnedCodes.add(code);
        console.warn(`${code !== undefined ? `[${code}] ` : ""}DeprecationWarning: ${msg}`);
      }
    }
    if (new.target) return Reflect.construct(fn, args, new.target);
    return Reflect.apply(fn, this, args);
  }
  Object.setPrototypeOf(deprecated, fn);
  if (fn.prototype) deprecated.prototype = fn.prototype;
  return deprecated;
}

export function debuglog(section, callback) {
  // Debug output (NODE_DEBUG) is not supported: the logger is a no-op.
  const logger = () => {};
  Object.defineProperty(logger, "enabled", { get: () => false, configurable: true, enumerable: true });
  return logger;
}
export const debug = debuglog;

// Pattern used by Node (from the `ansi-regex` package).
const ansiPattern = "[\\u001B\\u009B][[\\]()#;?]*" +
  "(?:(?:(?:(?:;[-a-zA-Z\\d\\/\\#&.:=?%@~_]+)*" +
  "|[a-zA-Z\\d]+(?:;[-a-zA-Z\\d\\/\\#&.:=?%@~_]*)*)?" +
  "(?:\\u0007|\\u001B\\u005C|\\u009C))" +
  "|(?:(?:\\d{1,4}(?:;\\d{0,4})*)?[\\dA-PR-TZcf-ntqry=><~]))";
const ansi = new RegExp(ansiPattern, "g");

export function stripVTControlCharacters(str) {
  validateString(str, "str");
  return str.replace(ansi, "");
}

export function toUSVString(input) {
  const str = `${input}`;
  if (typeof str.toWellFormed === "function") return str.toWellFormed();
  return str.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

export function parseArgs() {
  throw new Error("node:util.parseArgs is not supported by the Paseo plugin host");
}

// ---------------------------------------------------------------------------
// isDeepStrictEqual — same rules as assert.deepStrictEqual.

const kNoMemo = undefined;

function isDeepStrictEqualInternal(a, b, memos) {
  if (a === b) return a !== 0 || Object.is(a, b);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return typeof a === "number" && typeof b === "number" ? Number.isNaN(a) && Number.isNaN(b) : false;
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (objectToString(a) !== objectToString(b)) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;

  if (isDate(a)) {
    if (!isDate(b) || Date.prototype.getTime.call(a) !== Date.prototype.getTime.call(b)) return false;
  } else if (isRegExp(a)) {
    if (!isRegExp(b) || a.source !== b.source || a.flags !== b.flags || a.lastIndex !== b.lastIndex) return false;
  } else if (isNativeError(a) || a instanceof Error) {
    if (!(isNativeError(b) || b instanceof Error) || a.message !== b.message || a.name !== b.name) return false;
    if ("cause" in a !== "cause" in b || !isDeepStrictEqualInternal(a.cause, b.cause, memos)) return false;
    if ("errors" in a !== "errors" in b || !isDeepStrictEqualInternal(a.errors, b.errors, memos)) return false;
  } else if (ArrayBuffer.isView(a)) {
    if (!ArrayBuffer.isView(b) || typedArrayKind(a) !== typedArrayKind(b)) return false;
    if (!bytesEqual(a, b)) return false;
    // Compare only the non-index own properties below.
    const keysA = getOwnNonIndexProperties(a, false);
    const keysB = getOwnNonIndexProperties(b, false);
    return keysA.length === keysB.length && keyCheck(a, b, memos, keysA);
  } else if (isArrayBuffer(a) || isSharedArrayBuffer(a)) {
    if (!bytesEqual(new Uint8Array(a), new Uint8Array(b))) return false;
  } else if (isBoxedPrimitive(a)) {
    if (!isBoxedPrimitive(b) || !Object.is(a.valueOf(), b.valueOf())) return false;
  } else if (isBoxedPrimitive(b) || isDate(b) || isRegExp(b) || ArrayBuffer.isView(b) ||
             isArrayBuffer(b) || isSharedArrayBuffer(b)) {
    return false;
  }

  if (Array.isArray(a)) {
    if (a.length !== b.length) return false;
    const keysA = getOwnNonIndexProperties(a, false);
    const keysB = getOwnNonIndexProperties(b, false);
    if (keysA.length !== keysB.length) return false;
    // Holes and present-undefined differ.
    for (let i = 0; i < a.length; i++) {
      if (hasOwn(a, i) !== hasOwn(b, i)) return false;
    }
    return keyCheck(a, b, memos, [...Object.keys(a).filter((k) => numberRegExp.test(k)), ...keysA], true);
  }
  const keysA = getKeys(a, false);
  if (keysA.length !== getKeys(b, false).length) return false;
  if (isMap(a) && (!isMap(b) || a.size !== b.size)) return false;
  if (isSet(a) && (!isSet(b) || a.size !== b.size)) return false;
  return keyCheck(a, b, memos, keysA);
}

// Strict mode compares typed arrays byte by byte (so 0 and -0 differ).
function bytesEqual(a, b) {
  if (a.byteLength !== b.byteLength) return false;
  const x = new Uint8Array(a.buffer, a.byteOffset ?? 0, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset ?? 0, b.byteLength);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

function keyCheck(a, b, memos, keys) {
  for (const key of keys) {
    if (!propertyIsEnumerable(b, key)) return false;
  }
  // Track pairs being compared to terminate on cycles.
  if (memos === kNoMemo) memos = { a: new Map(), b: new Map(), position: 0 };
  else {
    const memoA = memos.a.get(a);
    if (memoA !== undefined) {
      const memoB = memos.b.get(b);
      if (memoB !== undefined) return memoA === memoB;
    }
    memos.position++;
  }
  memos.a.set(a, memos.position);
  memos.b.set(b, memos.position);
  let result = true;
  for (const key of keys) {
    if (!isDeepStrictEqualInternal(a[key], b[key], memos)) {
      result = false;
      break;
    }
  }
  if (result && isSet(a)) result = setEquiv(a, b, memos);
  else if (result && isMap(a)) result = mapEquiv(a, b, memos);
  memos.a.delete(a);
  memos.b.delete(b);
  return result;
}

function setEquiv(a, b, memos) {
  const pending = [];
  for (const val of a) {
    if (typeof val === "object" && val !== null) pending.push(val);
    else if (!b.has(val)) return false;
  }
  if (pending.length === 0) return true;
  const candidates = [...b].filter((v) => typeof v === "object" && v !== null);
  for (const val of pending) {
    const idx = candidates.findIndex((c) => isDeepStrictEqualInternal(val, c, memos));
    if (idx === -1) return false;
    candidates.splice(idx, 1);
  }
  return true;
}

function mapEquiv(a, b, memos) {
  const pending = [];
  for (const [key, val] of a) {
    if (typeof key === "object" && key !== null) pending.push([key, val]);
    else if (!b.has(key) || !isDeepStrictEqualInternal(val, b.get(key), memos)) return false;
  }
  if (pending.length === 0) return true;
  const candidates = [...b].filter(([k]) => typeof k === "object" && k !== null);
  for (const [key, val] of pending) {
    const idx = candidates.findIndex(([k, v]) =>
      isDeepStrictEqualInternal(key, k, memos) && isDeepStrictEqualInternal(val, v, memos));
    if (idx === -1) return false;
    candidates.splice(idx, 1);
  }
  return true;
}

export function isDeepStrictEqual(a, b) {
  return isDeepStrictEqualInternal(a, b, kNoMemo);
}

// ---------------------------------------------------------------------------
// Deprecated type checks still exported by Node 20.

export const isArray = Array.isArray;
export const isBoolean = (arg) => typeof arg === "boolean";
export const isNull = (arg) => arg === null;
export const isNullOrUndefined = (arg) => arg === null || arg === undefined;
export const isNumber = (arg) => typeof arg === "number";
export const isString = (arg) => typeof arg === "string";
export const isSymbol = (arg) => typeof arg === "symbol";
export const isUndefined = (arg) => arg === undefined;
export const isObject = (arg) => arg !== null && typeof arg === "object";
export const isFunction = (arg) => typeof arg === "function";
export const isPrimitive = (arg) => arg === null || (typeof arg !== "object" && typeof arg !== "function");
export const isError = isAnyError;
export const isBuffer = (arg) => typeof globalThis.Buffer?.isBuffer === "function" && globalThis.Buffer.isBuffer(arg);
export { isRegExp, isDate };

// Re-exported from the host when available (undefined otherwise).
export const TextEncoder = globalThis.TextEncoder;
export const TextDecoder = globalThis.TextDecoder;

const util = {
  callbackify,
  debug,
  debuglog,
  deprecate,
  format,
  formatWithOptions,
  inherits,
  inspect,
  isArray,
  isBoolean,
  isBuffer,
  isDeepStrictEqual,
  isNull,
  isNullOrUndefined,
  isNumber,
  isString,
  isSymbol,
  isUndefined,
  isRegExp,
  isObject,
  isDate,
  isError,
  isFunction,
  isPrimitive,
  parseArgs,
  aborted,
  promisify,
  stripVTControlCharacters,
  toUSVString,
  types,
};
// Only expose the encoders when the host actually provides them.
if (TextEncoder !== undefined) util.TextEncoder = TextEncoder;
if (TextDecoder !== undefined) util.TextDecoder = TextDecoder;

export default util;
