// `node:module`: `createRequire` for ES modules that need `require`.
import { makeRequire } from "paseo:internal/cjs";
import { fileURLToPath } from "node:url";

export function createRequire(from) {
  const filename = String(from).startsWith("file:") ? fileURLToPath(from) : String(from);
  return makeRequire(filename);
}
export const builtinModules = ["buffer", "events", "fs", "fs/promises", "module", "os", "path", "process", "timers", "timers/promises", "url", "util"];
export const isBuiltin = (name) => builtinModules.includes(String(name).replace(/^node:/, ""));
export default { createRequire, builtinModules, isBuiltin };
