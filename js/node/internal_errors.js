// Errors in Node's shapes, shared by the builtins (imported as "./internal_errors.js", which
// resolves to this file under Node too, so the Node-comparison scripts load it as well).
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
