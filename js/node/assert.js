// node:assert: the assertion functions and AssertionError, with Node's messages (its line diff
// for strictEqual/deepStrictEqual). `assert.ok(value)` without a message cannot show the source
// expression here (Node reads it from the file), so it says "<value> == true" as Node does when
// the source is unavailable.
import { inspect, isDeepStrictEqual, types } from "node:util";
import { nodeError, received } from "./internal_errors.js";

const { isDate, isRegExp, isMap, isSet, isNativeError, isBoxedPrimitive, isAnyArrayBuffer, isPromise } = types;
const isError = (e) => isNativeError(e) || e instanceof Error;
const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

// `expected` reads like Node's: "of type function", "an instance of RegExp", …
const invalidArgType = (name, expected, value) =>
  nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "${name}" argument must be ${expected}. Received ${received(value)}`);
const missingArgs = () => nodeError(TypeError, "ERR_MISSING_ARGS", 'The "actual" and "expected" arguments must be specified');

// ---------------------------------------------------------------------------------------------
// AssertionError and its generated messages.

const kReadableOperator = {
  deepStrictEqual: "Expected values to be strictly deep-equal:",
  strictEqual: "Expected values to be strictly equal:",
  strictEqualObject: 'Expected "actual" to be reference-equal to "expected":',
  deepEqual: "Expected values to be loosely deep-equal:",
  notDeepStrictEqual: 'Expected "actual" not to be strictly deep-equal to:',
  notStrictEqual: 'Expected "actual" to be strictly unequal to:',
  notStrictEqualObject: 'Expected "actual" not to be reference-equal to "expected":',
  notDeepEqual: 'Expected "actual" not to be loosely deep-equal to:',
  notIdentical: "Values have same structure but are not reference-equal:",
  notDeepEqualUnequal: "Expected values not to be loosely deep-equal:",
};
const kMaxShortLength = 12;

const inspectValue = (val) => inspect(val, {
  compact: false, customInspect: false, depth: 1000, maxArrayLength: Infinity,
  showHidden: false, showProxy: false, sorted: true, getters: true,
});

// Prints up to three of the identical lines before a difference, eliding longer runs.
function identicalContext(lines, i, identical, state) {
  let out = "";
  if (identical > 2) {
    if (identical > 3) {
      if (identical > 4) {
        if (identical === 5) {
          out += `\n  ${lines[i - 3]}`;
          state.printed++;
        } else {
          out += "\n...";
          state.skipped = true;
        }
      }
      out += `\n  ${lines[i - 2]}`;
      state.printed++;
    }
    out += `\n  ${lines[i - 1]}`;
    state.printed++;
  }
  return out;
}

// Node 20's line diff of the inspected values: "+ actual - expected".
function createErrDiff(actual, expected, operator, header) {
  let other = "", res = "", end = "", indicator = "";
  const state = { printed: 0, skipped: false };
  const actualInspected = inspectValue(actual);
  const actualLines = actualInspected.split("\n");
  const expectedLines = inspectValue(expected).split("\n");
  const bothObjects = typeof actual === "object" && actual !== null && typeof expected === "object" && expected !== null;
  if (operator === "strictEqual" && (bothObjects || (typeof actual === "function" && typeof expected === "function"))) {
    operator = "strictEqualObject";
  }
  header ??= kReadableOperator[operator];
  if (actualLines.length === 1 && expectedLines.length === 1 && actualLines[0] !== expectedLines[0]) {
    const inputLength = actualLines[0].length + expectedLines[0].length;
    if (inputLength <= kMaxShortLength) {
      if ((typeof actual !== "object" || actual === null) && (typeof expected !== "object" || expected === null) &&
          (actual !== 0 || expected !== 0)) {
        return `${header}\n\n${actualLines[0]} !== ${expectedLines[0]}\n`;
      }
    } else if (operator !== "strictEqualObject" && inputLength < 80) {
      let at = 0;
      while (actualLines[0][at] === expectedLines[0][at]) at++;
      if (at > 2) indicator = `\n  ${" ".repeat(at)}^`; // points at the first difference
    }
  }
  // Drop identical trailing lines (keeping up to three for context).
  let i = 0;
  let a = actualLines.at(-1), b = expectedLines.at(-1);
  while (a === b) {
    if (i++ < 3) end = `\n  ${a}${end}`;
    else other = a;
    actualLines.pop();
    expectedLines.pop();
    if (actualLines.length === 0 || expectedLines.length === 0) break;
    a = actualLines.at(-1);
    b = expectedLines.at(-1);
  }
  const maxLines = Math.max(actualLines.length, expectedLines.length);
  if (maxLines === 0) {
    const lines = actualInspected.split("\n");
    if (lines.length > 50) {
      lines[46] = "...";
      lines.length = 47;
    }
    return `${kReadableOperator.notIdentical}\n\n${lines.join("\n")}\n`;
  }
  if (i >= 5) {
    end = `\n...${end}`;
    state.skipped = true;
  }
  if (other !== "") {
    end = `\n  ${other}${end}`;
    other = "";
  }
  let identical = 0;
  const msg = `${header}\n+ actual - expected`;
  const skippedMsg = " ... Lines skipped";
  let lines = actualLines, plusMinus = "+", maxLength = expectedLines.length;
  if (actualLines.length < maxLines) {
    lines = expectedLines;
    plusMinus = "-";
    maxLength = actualLines.length;
  }
  for (i = 0; i < maxLines; i++) {
    if (maxLength < i + 1) {
      // Only one side has lines left.
      res += identicalContext(lines, i, identical, state);
      identical = 0;
      if (lines === actualLines) res += `\n${plusMinus} ${lines[i]}`;
      else other += `\n${plusMinus} ${lines[i]}`;
      state.printed++;
    } else {
      const expectedLine = expectedLines[i];
      let actualLine = actualLines[i];
      let diverging = actualLine !== expectedLine && (!actualLine.endsWith(",") || actualLine.slice(0, -1) !== expectedLine);
      // Lines differing only in a trailing comma count as identical.
      if (diverging && expectedLine.endsWith(",") && expectedLine.slice(0, -1) === actualLine) {
        diverging = false;
        actualLine += ",";
      }
      if (diverging) {
        res += identicalContext(actualLines, i, identical, state);
        identical = 0;
        // Cache the expected lines so consecutive changes read +++--- rather than +-+-+-.
        res += `\n+ ${actualLine}`;
        other += `\n- ${expectedLine}`;
        state.printed += 2;
      } else {
        res += other;
        other = "";
        identical++;
        if (identical <= 2) {
          res += `\n  ${actualLine}`;
          state.printed++;
        }
      }
    }
    if (state.printed > 50 && i < maxLines - 2) return `${msg}${skippedMsg}\n${res}\n...${other}\n...`;
  }
  return `${msg}${state.skipped ? skippedMsg : ""}\n${res}${other}${end}${indicator}`;
}

export class AssertionError extends Error {
  constructor(options) {
    if (options === null || typeof options !== "object") throw invalidArgType("options", "of type object", options);
    const { message, operator, stackStartFn } = options;
    let { actual, expected } = options;
    if (operator === "deepStrictEqual" || operator === "strictEqual") {
      // A custom message replaces the diff's header line.
      super(createErrDiff(actual, expected, operator, message == null ? undefined : String(message)));
    } else if (message != null) {
      super(String(message));
    } else if (operator === "notDeepStrictEqual" || operator === "notStrictEqual") {
      let base = kReadableOperator[operator];
      const res = inspectValue(actual).split("\n");
      if (operator === "notStrictEqual" && ((typeof actual === "object" && actual !== null) || typeof actual === "function")) {
        base = kReadableOperator.notStrictEqualObject;
      }
      if (res.length > 50) {
        res[46] = "...";
        res.length = 47;
      }
      if (res.length === 1) super(`${base}${res[0].length > 5 ? "\n\n" : " "}${res[0]}`);
      else super(`${base}\n\n${res.join("\n")}\n`);
    } else {
      let res = inspectValue(actual);
      let other = inspectValue(expected);
      const knownOperator = kReadableOperator[operator];
      if (operator === "notDeepEqual" && res === other) {
        res = `${knownOperator}\n\n${res}`;
        if (res.length > 1024) res = `${res.slice(0, 1021)}...`;
        super(res);
      } else {
        if (res.length > 512) res = `${res.slice(0, 509)}...`;
        if (other.length > 512) other = `${other.slice(0, 509)}...`;
        if (operator === "deepEqual") {
          res = `${knownOperator}\n\n${res}\n\nshould loosely deep-equal\n\n`;
        } else {
          const newOp = kReadableOperator[`${operator}Unequal`];
          if (newOp) res = `${newOp}\n\n${res}\n\nshould not loosely deep-equal\n\n`;
          else other = ` ${operator} ${other}`;
        }
        super(`${res}${other}`);
      }
    }
    this.generatedMessage = !message;
    Object.defineProperty(this, "name", { value: "AssertionError", enumerable: false, writable: true, configurable: true });
    this.code = "ERR_ASSERTION";
    this.actual = actual;
    this.expected = expected;
    this.operator = operator;
    if (typeof Error.captureStackTrace === "function") Error.captureStackTrace(this, stackStartFn || AssertionError);
  }
  toString() {
    return `${this.name} [${this.code}]: ${this.message}`;
  }
}

function innerFail(obj) {
  if (obj.message instanceof Error) throw obj.message;
  throw new AssertionError(obj);
}

// ---------------------------------------------------------------------------------------------
// Loose deep equality (deepEqual): == for primitives, prototypes ignored.

function isDeepEqual(a, b, memos) {
  if (a === b) return true;
  if (a === null || typeof a !== "object") {
    if (b === null || typeof b !== "object") return a == b || (Number.isNaN(a) && Number.isNaN(b)); // eslint-disable-line eqeqeq
    return false;
  }
  if (b === null || typeof b !== "object") return false;
  const tag = Object.prototype.toString.call(a);
  if (tag !== Object.prototype.toString.call(b)) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
  } else if (isDate(a)) {
    if (!isDate(b) || a.getTime() !== b.getTime()) return false;
  } else if (isRegExp(a)) {
    if (!isRegExp(b) || a.source !== b.source || a.flags !== b.flags || a.lastIndex !== b.lastIndex) return false;
  } else if (isError(a)) {
    if (!isError(b) || a.message !== b.message || a.name !== b.name) return false;
  } else if (ArrayBuffer.isView(a)) {
    if (a.byteLength !== b.byteLength) return false;
    if (a instanceof Float32Array || a instanceof Float64Array) {
      for (let i = 0; i < a.length; i++) if (a[i] != b[i]) return false; // eslint-disable-line eqeqeq
    } else {
      const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength), y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    }
    return keysEqual(a, b, memos, Object.keys(a).filter((k) => !/^\d+$/.test(k)), Object.keys(b).filter((k) => !/^\d+$/.test(k)));
  } else if (isSet(a) || isMap(a)) {
    if (a.size !== b.size) return false;
  } else if (isAnyArrayBuffer(a)) {
    if (a.byteLength !== b.byteLength) return false;
    const x = new Uint8Array(a), y = new Uint8Array(b);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  } else if (isBoxedPrimitive(a)) {
    if (!isBoxedPrimitive(b) || !Object.is(a.valueOf(), b.valueOf())) return false;
  }
  return keysEqual(a, b, memos, Object.keys(a), Object.keys(b));
}

function keysEqual(a, b, memos, keysA, keysB) {
  if (keysA.length !== keysB.length) return false;
  for (const k of keysA) if (!hasOwn(b, k)) return false;
  // Track pairs being compared so cycles terminate.
  memos ??= { a: new Map(), b: new Map(), position: 0 };
  const seenA = memos.a.get(a);
  if (seenA !== undefined) {
    const seenB = memos.b.get(b);
    if (seenB !== undefined) return seenA === seenB;
  }
  memos.position++;
  memos.a.set(a, memos.position);
  memos.b.set(b, memos.position);
  let ok = keysA.every((k) => isDeepEqual(a[k], b[k], memos));
  if (ok && Array.isArray(a)) {
    for (let i = 0; ok && i < a.length; i++) ok = hasOwn(a, i) === hasOwn(b, i); // holes differ from undefined
  }
  if (ok && isSet(a)) ok = unorderedEqual([...a], [...b], (x, y) => isDeepEqual(x, y, memos));
  if (ok && isMap(a)) ok = unorderedEqual([...a], [...b], ([k1, v1], [k2, v2]) => isDeepEqual(k1, k2, memos) && isDeepEqual(v1, v2, memos));
  memos.a.delete(a);
  memos.b.delete(b);
  return ok;
}

function unorderedEqual(left, right, equal) {
  const pool = [...right];
  for (const item of left) {
    const at = pool.findIndex((other) => equal(item, other));
    if (at === -1) return false;
    pool.splice(at, 1);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The assertions

function innerOk(fn, argLen, value, message) {
  if (value) return;
  let generatedMessage = false;
  if (argLen === 0) {
    generatedMessage = true;
    message = "No value argument passed to `assert.ok()`";
  } else if (message == null) {
    generatedMessage = true;
  } else if (message instanceof Error) {
    throw message;
  }
  const err = new AssertionError({ actual: value, expected: true, message, operator: "==", stackStartFn: fn });
  err.generatedMessage = generatedMessage;
  throw err;
}

export function ok(...args) {
  innerOk(ok, args.length, ...args);
}

let warnedFail = false;
export function fail(actual, expected, message, operator, stackStartFn) {
  const argsLen = arguments.length;
  let internalMessage = false;
  if (actual == null && argsLen <= 1) {
    internalMessage = true;
    message = "Failed";
  } else if (argsLen === 1) {
    message = actual;
    actual = undefined;
  } else {
    if (!warnedFail) {
      warnedFail = true;
      globalThis.process?.emitWarning?.("assert.fail() with more than one argument is deprecated. Please use assert.strictEqual() instead or only pass a message.", "DeprecationWarning", "DEP0094");
    }
    if (argsLen === 2) operator = "!=";
  }
  if (message instanceof Error) throw message;
  const err = new AssertionError({ actual, expected, operator: operator === undefined ? "fail" : operator, stackStartFn: stackStartFn || fail, message });
  if (internalMessage) err.generatedMessage = true;
  throw err;
}

export function equal(actual, expected, message) {
  if (arguments.length < 2) throw missingArgs();
  if (actual != expected && (!Number.isNaN(actual) || !Number.isNaN(expected))) { // eslint-disable-line eqeqeq
    innerFail({ actual, expected, message, operator: "==", stackStartFn: equal });
  }
}
export function notEqual(actual, expected, message) {
  if (arguments.length < 2) throw missingArgs();
  if (actual == expected || (Number.isNaN(actual) && Number.isNaN(expected))) { // eslint-disable-line eqeqeq
    innerFail({ actual, expected, message, operator: "!=", stackStartFn: notEqual });
  }
}
export function deepEqual(actual, expected, message) {
  if (arguments.length < 2) throw missingArgs();
  if (!isDeepEqual(actual, expected)) innerFail({ actual, expected, message, operator: "deepEqual", stackStartFn: deepEqual });
}
export function notDeepEqual(actual, expected, message) {
  if (arguments.length < 2) throw missingArgs();
  if (isDeepEqual(actual, expected)) innerFail({ actual, expected, message, operator: "notDeepEqual", stackStartFn: notDeepEqual });
}
export function deepStrictEqual(actual, expected, message) {
  if (arguments.length < 2) throw missingArgs();
  if (!isDeepStrictEqual(actual, expected)) innerFail({ actual, expected, message, operator: "deepStrictEqual", stackStartFn: deepStrictEqual });
}
export function notDeepStrictEqual(actual, expected, message) {
  if (arguments.length < 2) throw missingArgs();
  if (isDeepStrictEqual(actual, expected)) innerFail({ actual, expected, message, operator: "notDeepStrictEqual", stackStartFn: notDeepStrictEqual });
}
export function strictEqual(actual, expected, message) {
  if (arguments.length < 2) throw missingArgs();
  if (!Object.is(actual, expected)) innerFail({ actual, expected, message, operator: "strictEqual", stackStartFn: strictEqual });
}
export function notStrictEqual(actual, expected, message) {
  if (arguments.length < 2) throw missingArgs();
  if (Object.is(actual, expected)) innerFail({ actual, expected, message, operator: "notStrictEqual", stackStartFn: notStrictEqual });
}

// Placeholder objects holding only the compared keys, for a readable diff.
class Comparison {
  constructor(obj, keys, actual) {
    for (const key of keys) {
      if (!(key in obj)) continue;
      if (actual !== undefined && typeof actual[key] === "string" && isRegExp(obj[key]) && obj[key].exec(actual[key]) !== null) {
        this[key] = actual[key];
      } else {
        this[key] = obj[key];
      }
    }
  }
}

function compareExceptionKey(actual, expected, key, message, keys, fn) {
  if (key in actual && isDeepStrictEqual(actual[key], expected[key])) return;
  if (!message) {
    const err = new AssertionError({ actual: new Comparison(actual, keys), expected: new Comparison(expected, keys, actual), operator: "deepStrictEqual", stackStartFn: fn });
    err.actual = actual;
    err.expected = expected;
    err.operator = fn.name;
    throw err;
  }
  innerFail({ actual, expected, message, operator: fn.name, stackStartFn: fn });
}

function expectedException(actual, expected, message, fn) {
  let generatedMessage = false;
  if (typeof expected !== "function") {
    if (isRegExp(expected)) {
      const str = String(actual);
      if (expected.exec(str) !== null) return;
      if (!message) {
        generatedMessage = true;
        message = `The input did not match the regular expression ${inspect(expected)}. Input:\n\n${inspect(str)}\n`;
      }
    } else if (typeof actual !== "object" || actual === null) {
      const err = new AssertionError({ actual, expected, message, operator: "deepStrictEqual", stackStartFn: fn });
      err.operator = fn.name;
      throw err;
    } else {
      // A validation object: each of its keys must match (strings may be tested by RegExps).
      const keys = Object.keys(expected);
      if (expected instanceof Error) keys.push("name", "message");
      else if (keys.length === 0) {
        throw nodeError(TypeError, "ERR_INVALID_ARG_VALUE", `The argument 'error' may not be an empty object. Received ${inspect(expected)}`);
      }
      for (const key of keys) {
        if (typeof actual[key] === "string" && isRegExp(expected[key]) && expected[key].exec(actual[key]) !== null) continue;
        compareExceptionKey(actual, expected, key, message, keys, fn);
      }
      return;
    }
  } else if (expected.prototype !== undefined && actual instanceof expected) {
    return;
  } else if (Object.prototype.isPrototypeOf.call(Error, expected)) {
    if (!message) {
      generatedMessage = true;
      message = `The error is expected to be an instance of "${expected.name}". Received `;
      if (isError(actual)) {
        const name = actual.constructor?.name || actual.name;
        message += expected.name === name ? "an error with identical name but a different prototype." : `"${name}"`;
        if (actual.message) message += `\n\nError message:\n\n${actual.message}`;
      } else {
        message += `"${inspect(actual, { depth: -1 })}"`;
      }
    }
  } else {
    // A validation function must return true.
    const res = expected.call({}, actual);
    if (res === true) return;
    if (!message) {
      generatedMessage = true;
      message = `The ${expected.name ? `"${expected.name}" ` : ""}validation function is expected to return "true". Received ${inspect(res)}`;
      if (isError(actual)) message += `\n\nCaught error:\n\n${actual}`;
    }
  }
  const err = new AssertionError({ actual, expected, message, operator: fn.name, stackStartFn: fn });
  err.generatedMessage = generatedMessage;
  throw err;
}

const NO_EXCEPTION = Symbol("no exception");

function getActual(fn) {
  if (typeof fn !== "function") throw invalidArgType("fn", "of type function", fn);
  try {
    fn();
  } catch (e) {
    return e;
  }
  return NO_EXCEPTION;
}

const isPromiseLike = (obj) => isPromise(obj) || (obj !== null && typeof obj === "object" && typeof obj.then === "function" && typeof obj.catch === "function");

async function waitForActual(promiseFn) {
  let resultPromise;
  if (typeof promiseFn === "function") {
    resultPromise = promiseFn();
    if (!isPromiseLike(resultPromise)) {
      throw nodeError(TypeError, "ERR_INVALID_RETURN_VALUE", `Expected instance of Promise to be returned from the "promiseFn" function but got ${received(resultPromise)}.`);
    }
  } else if (isPromiseLike(promiseFn)) {
    resultPromise = promiseFn;
  } else {
    throw invalidArgType("promiseFn", "of type function or an instance of Promise", promiseFn);
  }
  try {
    await resultPromise;
  } catch (e) {
    return e;
  }
  return NO_EXCEPTION;
}

const ERROR_TYPES = "of type function or an instance of Error, RegExp, or Object";

function expectsError(stackStartFn, actual, error, message, extra) {
  if (typeof error === "string") {
    if (extra) throw invalidArgType("error", ERROR_TYPES, error);
    if (typeof actual === "object" && actual !== null) {
      if (actual.message === error) {
        throw nodeError(TypeError, "ERR_AMBIGUOUS_ARGUMENT", `The "error/message" argument is ambiguous. The error message "${actual.message}" is identical to the message.`);
      }
    } else if (actual === error) {
      throw nodeError(TypeError, "ERR_AMBIGUOUS_ARGUMENT", `The "error/message" argument is ambiguous. The error "${actual}" is identical to the message.`);
    }
    message = error;
    error = undefined;
  } else if (error != null && typeof error !== "object" && typeof error !== "function") {
    throw invalidArgType("error", ERROR_TYPES, error);
  }
  if (actual === NO_EXCEPTION) {
    let details = "";
    if (error?.name) details += ` (${error.name})`;
    details += message ? `: ${message}` : ".";
    const fnType = stackStartFn === rejects ? "rejection" : "exception";
    innerFail({ actual: undefined, expected: error, operator: stackStartFn.name, message: `Missing expected ${fnType}${details}`, stackStartFn });
  }
  if (error) expectedException(actual, error, message, stackStartFn);
}

function hasMatchingError(actual, expected) {
  if (typeof expected !== "function") {
    if (isRegExp(expected)) return expected.exec(String(actual)) !== null;
    throw invalidArgType("expected", "of type function or an instance of RegExp", expected);
  }
  if (expected.prototype !== undefined && actual instanceof expected) return true;
  if (Object.prototype.isPrototypeOf.call(Error, expected)) return false;
  return expected.call({}, actual) === true;
}

function expectsNoError(stackStartFn, actual, error, message) {
  if (actual === NO_EXCEPTION) return;
  if (typeof error === "string") {
    message = error;
    error = undefined;
  }
  if (!error || hasMatchingError(actual, error)) {
    const details = message ? `: ${message}` : ".";
    const fnType = stackStartFn === doesNotReject ? "rejection" : "exception";
    innerFail({ actual, expected: error, operator: stackStartFn.name, message: `Got unwanted ${fnType}${details}\nActual message: "${actual?.message}"`, stackStartFn });
  }
  throw actual;
}

export function throws(promiseFn, ...args) {
  expectsError(throws, getActual(promiseFn), args[0], args[1], args.length === 2);
}
export async function rejects(promiseFn, ...args) {
  expectsError(rejects, await waitForActual(promiseFn), args[0], args[1], args.length === 2);
}
export function doesNotThrow(fn, ...args) {
  expectsNoError(doesNotThrow, getActual(fn), ...args);
}
export async function doesNotReject(fn, ...args) {
  expectsNoError(doesNotReject, await waitForActual(fn), ...args);
}

export function ifError(err) {
  if (err === null || err === undefined) return;
  let message = "ifError got unwanted exception: ";
  if (typeof err === "object" && typeof err.message === "string") {
    message += err.message.length === 0 && err.constructor ? err.constructor.name : err.message;
  } else {
    message += inspect(err);
  }
  throw new AssertionError({ actual: err, expected: null, operator: "ifError", message, stackStartFn: ifError });
}

function internalMatch(string, regexp, message, fn) {
  if (!isRegExp(regexp)) throw invalidArgType("regexp", "an instance of RegExp", regexp);
  const isMatch = fn === match;
  if (typeof string !== "string" || (regexp.exec(string) !== null) !== isMatch) {
    if (message instanceof Error) throw message;
    const generatedMessage = !message;
    message ||= typeof string !== "string"
      ? `The "string" argument must be of type string. Received type ${typeof string} (${inspect(string)})`
      : `${isMatch ? "The input did not match the regular expression " : "The input was expected to not match the regular expression "}${inspect(regexp)}. Input:\n\n${inspect(string)}\n`;
    const err = new AssertionError({ actual: string, expected: regexp, message, operator: fn.name, stackStartFn: fn });
    err.generatedMessage = generatedMessage;
    throw err;
  }
}
export function match(string, regexp, message) {
  internalMatch(string, regexp, message, match);
}
export function doesNotMatch(string, regexp, message) {
  internalMatch(string, regexp, message, doesNotMatch);
}

export const CallTracker = function CallTracker() {
  throw new Error("node:assert.CallTracker is not supported by the Paseo plugin host yet");
};

// The module is `ok` itself with the assertions as properties; `strict` swaps in the strict ones.
const members = {
  fail, AssertionError, ok, equal, notEqual, deepEqual, notDeepEqual, deepStrictEqual, notDeepStrictEqual,
  strictEqual, notStrictEqual, throws, rejects, doesNotThrow, doesNotReject, ifError, match, doesNotMatch, CallTracker,
};
const assert = Object.assign(function ok(...args) { innerOk(assert, args.length, ...args); }, members);

export function strict(...args) {
  innerOk(strict, args.length, ...args);
}
Object.assign(strict, members, {
  equal: strictEqual, deepEqual: deepStrictEqual, notEqual: notStrictEqual, notDeepEqual: notDeepStrictEqual,
});
strict.strict = strict;
assert.strict = strict;

export default assert;
