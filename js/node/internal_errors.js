// Errors in Node's shapes, shared by the builtins (imported as "./internal_errors.js", which
// resolves to this file under Node too, so the Node-comparison scripts load it as well).
// The stream errors follow Node.js lib/internal/errors.js: Copyright Joyent, Inc. and other Node
// contributors. MIT licence; the notice is in NOTICE.
import { inspect } from "node:util";

export function nodeError(Base, code, message) {
  const err = new Base(message);
  err.code = code;
  return err;
}

// Node's description of a received value in argument errors ("type number (5)", "an instance of X").
export function received(value) {
  if (value == null) return String(value);
  if (typeof value === "function") return `function ${value.name}`;
  if (typeof value === "object") return value.constructor && "name" in value.constructor ? `an instance of ${value.constructor.name}` : inspect(value, { depth: -1 });
  if (typeof value === "string") {
    const s = value.length > 28 ? `${value.slice(0, 25)}...` : value;
    return `type string (${s.includes("'") ? JSON.stringify(s) : `'${s}'`})`;
  }
  let shown = inspect(value, { colors: false });
  if (shown.length > 28) shown = `${shown.slice(0, 25)}...`;
  return `type ${typeof value} (${shown})`;
}

// Errors, in Node's shapes (class, code, message); nodeError and received are shared.

const LOWER_TYPES = ["string", "function", "number", "object", "boolean", "bigint", "symbol", "Function", "Object"];
const joinOr = (items, prefix) => items.length > 2 ? `${prefix}${items.slice(0, -1).join(", ")}, or ${items.at(-1)}` : items.join(" or ");

// Node's ERR_INVALID_ARG_TYPE wording for a list of type names, class names and other phrases.
function invalidArgType(name, expected, value) {
  const types = [], instances = [], other = [];
  for (const t of expected) {
    if (LOWER_TYPES.includes(t)) types.push(t.toLowerCase());
    else if (/^([A-Z][a-z0-9]*)+$/.test(t)) instances.push(t);
    else other.push(t);
  }
  if (instances.length && types.includes("object")) {
    types.splice(types.indexOf("object"), 1);
    instances.push("Object");
  }
  const parts = [];
  if (types.length) parts.push(`${types.length > 1 ? "one of type" : "of type"} ${joinOr(types, "")}`);
  if (instances.length) parts.push(`an instance of ${joinOr(instances, "")}`);
  if (other.length) parts.push(other.length > 1 ? `one of ${joinOr(other, "")}` : `${other[0].toLowerCase() !== other[0] ? "an " : ""}${other[0]}`);
  const kind = name.includes(".") ? "property" : "argument";
  return nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "${name}" ${kind} must be ${parts.join(" or ")}. Received ${received(value)}`);
}
// Node says "of type string or an instance of …" for one type; keep that exact form.
const chunkTypeError = (chunk) => nodeError(TypeError, "ERR_INVALID_ARG_TYPE",
  `The "chunk" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ${received(chunk)}`);

const E = {
  notImplemented: (m) => nodeError(Error, "ERR_METHOD_NOT_IMPLEMENTED", `The ${m} method is not implemented`),
  pushAfterEOF: () => nodeError(Error, "ERR_STREAM_PUSH_AFTER_EOF", "stream.push() after EOF"),
  unshiftAfterEnd: () => nodeError(Error, "ERR_STREAM_UNSHIFT_AFTER_END_EVENT", "stream.unshift() after end event"),
  writeAfterEnd: () => nodeError(Error, "ERR_STREAM_WRITE_AFTER_END", "write after end"),
  destroyed: (m) => nodeError(Error, "ERR_STREAM_DESTROYED", `Cannot call ${m} after a stream was destroyed`),
  nullValues: () => nodeError(TypeError, "ERR_STREAM_NULL_VALUES", "May not write null values to stream"),
  multipleCallback: () => nodeError(Error, "ERR_MULTIPLE_CALLBACK", "Callback called multiple times"),
  cannotPipe: () => nodeError(Error, "ERR_STREAM_CANNOT_PIPE", "Cannot pipe, not readable"),
  alreadyFinished: (m) => nodeError(Error, "ERR_STREAM_ALREADY_FINISHED", `Cannot call ${m} after a stream was finished`),
  prematureClose: () => nodeError(Error, "ERR_STREAM_PREMATURE_CLOSE", "Premature close"),
  unknownEncoding: (enc) => nodeError(TypeError, "ERR_UNKNOWN_ENCODING", `Unknown encoding: ${enc}`),
  missingArgs: (name) => nodeError(TypeError, "ERR_MISSING_ARGS", `The "${name}" argument must be specified`),
  invalidArgValue: (name, value) => nodeError(TypeError, "ERR_INVALID_ARG_VALUE",
    `The ${name.includes(".") ? "property" : "argument"} '${name}' is invalid. Received ${inspect(value)}`),
  invalidReturn: (input, name, value) => nodeError(TypeError, "ERR_INVALID_RETURN_VALUE",
    `Expected ${input} to be returned from the "${name}" function but got ${received(value)}.`),
};

class AbortError extends Error {
  constructor(message = "The operation was aborted", options = undefined) {
    super(message, options);
    this.code = "ABORT_ERR";
    this.name = "AbortError";
  }
}

function aggregateTwoErrors(inner, outer) {
  if (inner && outer && inner !== outer) {
    if (Array.isArray(outer.errors)) { outer.errors.push(inner); return outer; }
    const err = new AggregateError([outer, inner], outer.message);
    err.code = outer.code;
    return err;
  }
  return inner || outer;
}

export { AbortError, E, LOWER_TYPES, aggregateTwoErrors, chunkTypeError, invalidArgType, joinOr };
