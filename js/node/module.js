// `node:module`: `createRequire` for ES modules that need `require`.
import { makeRequire } from "paseo:internal/cjs";
import { ops } from "paseo:internal/core";
import { fileURLToPath } from "node:url";

export function createRequire(from) {
  const filename = String(from).startsWith("file:") ? fileURLToPath(from) : String(from);
  return makeRequire(filename);
}
export const builtinModules = ops.op_node_builtins();
export const isBuiltin = (name) => builtinModules.includes(String(name).replace(/^node:/, ""));
export default { createRequire, builtinModules, isBuiltin };
