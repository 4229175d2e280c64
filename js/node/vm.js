// `node:vm`. Code for this context runs as Node runs it (indirect eval, `new Function`). A plugin
// has one realm, so a "new context" is emulated: the code runs inside `with` over a proxy of the
// context object, which sees the context's properties and ECMAScript's own globals and nothing
// else of the plugin's (no `process`, timers, `fetch`), and receives the code's assignments and
// initialised `var`s. What differs from Node's separate realm: its builtins are the plugin's own
// (an array made there is `instanceof Array` here), and top-level function declarations and
// uninitialised `var`s stay local instead of becoming properties of the context. Like Node's,
// this is no security boundary (Node's docs: "The node:vm module is not a security mechanism").
import { ops } from "paseo:internal/core";
import { invalidArgType } from "paseo:internal/node/internal_errors";

const contexts = new WeakSet();

// What V8 puts on a new context's global: ECMAScript's globals, plus `console`.
const REALM_GLOBALS = new Set([
  "Object", "Function", "Array", "Number", "parseFloat", "parseInt", "Infinity", "NaN", "undefined",
  "Boolean", "String", "Symbol", "Date", "Promise", "RegExp", "Error", "AggregateError", "EvalError",
  "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError", "JSON", "Math", "Intl",
  "ArrayBuffer", "Atomics", "Uint8Array", "Int8Array", "Uint16Array", "Int16Array", "Uint32Array",
  "Int32Array", "Float32Array", "Float64Array", "Uint8ClampedArray", "BigUint64Array",
  "BigInt64Array", "DataView", "Map", "BigInt", "Set", "WeakMap", "WeakSet", "Proxy", "Reflect",
  "FinalizationRegistry", "WeakRef", "decodeURI", "decodeURIComponent", "encodeURI",
  "encodeURIComponent", "escape", "unescape", "eval", "isFinite", "isNaN", "SharedArrayBuffer",
  "WebAssembly", "console",
]);

function validateContext(context) {
  if (context === null || typeof context !== "object") throw invalidArgType("object", ["object"], context);
  if (!contexts.has(context)) {
    throw invalidArgType("contextifiedObject", ["vm.Context"], context);
  }
}

// The wrapper is sloppy code (made by `new Function`), so `with` and a direct `eval` are allowed.
const runWith = new Function(
  "__paseoScope",
  "__paseoCode",
  "with (__paseoScope) { return eval(__paseoCode); }",
);

function scopeOf(context) {
  let scope;
  const handler = {
    has(_, name) {
      return typeof name === "string" && !name.startsWith("__paseo");
    },
    get(_, name) {
      if (typeof name !== "string") return undefined; // Symbol.unscopables: none
      if (name === "globalThis") return scope;
      if (name in context) return context[name];
      return REALM_GLOBALS.has(name) ? globalThis[name] : undefined;
    },
    set(_, name, value) {
      context[name] = value;
      return true;
    },
    deleteProperty(_, name) {
      return delete context[name];
    },
  };
  scope = new Proxy(context, handler);
  return scope;
}


export class Script {
  #code;
  constructor(code, options) {
    this.#code = `${code}`;
    if (typeof options === "object" && options?.produceCachedData) this.cachedDataProduced = false;
  }
  runInThisContext() {
    return (0, eval)(this.#code);
  }
  runInContext(context) {
    validateContext(context);
    const scope = scopeOf(context);
    return Reflect.apply(runWith, scope, [scope, this.#code]);
  }
  runInNewContext(context = {}) {
    return this.runInContext(createContext(context));
  }
  createCachedData() {
    return new Uint8Array(0);
  }
}

export function createContext(context = {}) {
  if (context === null || typeof context !== "object") throw invalidArgType("object", ["object"], context);
  contexts.add(context);
  return context;
}

export function isContext(object) {
  if (object === null || typeof object !== "object") throw invalidArgType("object", ["object"], object);
  return contexts.has(object);
}

export const createScript = (code, options) => new Script(code, options);
export const runInThisContext = (code, options) => new Script(code, options).runInThisContext();
export const runInContext = (code, context, options) => new Script(code, options).runInContext(context);
export const runInNewContext = (code, context, options) => new Script(code, options).runInNewContext(context);

export function compileFunction(code, params = [], options = {}) {
  if (typeof code !== "string") throw invalidArgType("code", ["string"], code);
  if (!Array.isArray(params)) throw invalidArgType("params", ["Array"], params);
  const extensions = options.contextExtensions ?? [];
  let fn;
  if (extensions.length === 0 && options.parsingContext === undefined) {
    fn = new Function(...params, code);
  } else {
    const context = Object.assign({}, ...extensions);
    if (options.parsingContext) Object.setPrototypeOf(context, options.parsingContext);
    const source = `(function (${params.join(", ")}) {\n${code}\n})`;
    fn = Reflect.apply(runWith, undefined, [scopeOf(context), source]);
  }
  Object.defineProperty(fn, "name", { value: "", configurable: true });
  return fn;
}

export function measureMemory() {
  const heap = ops.op_host_heap_statistics();
  return Promise.resolve({ total: { jsMemoryEstimate: heap[4], jsMemoryRange: [heap[4], heap[0]] } });
}

export const constants = Object.freeze({
  __proto__: null,
  USE_MAIN_CONTEXT_DEFAULT_LOADER: Symbol("vm_dynamic_import_main_context_default"),
  DONT_CONTEXTIFY: Symbol("vm_context_no_contextify"),
});

export default {
  Script, createContext, createScript, runInContext, runInNewContext, runInThisContext, isContext,
  compileFunction, measureMemory, constants,
};
