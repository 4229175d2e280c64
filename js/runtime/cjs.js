// CommonJS: `require` for CommonJS files in a plugin's node_modules (and `createRequire`).
// Builtins are loaded on first use (core.js `builtin`); ES modules cannot be required.
import { ops, builtin } from "paseo:internal/core";

const cache = new Map();

function dirname(path) {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

export function makeRequire(filename) {
  function require(specifier) {
    const resolved = ops.op_cjs_resolve(String(specifier), filename);
    if (resolved.kind === "commonjs" || resolved.kind === "json") return requireFile(resolved.path);
    if (resolved.kind === "builtin") {
      const face = builtin(resolved.url);
      if (face !== undefined) return face;
      throw new Error(`Node built-in module ${resolved.url} is not supported by the Paseo plugin host yet`);
    }
    // As in Node 20 without --experimental-require-module.
    const err = new Error(`require() of ES Module ${resolved.path ?? resolved.url} from ${filename} is not supported. Use import instead.`);
    err.code = "ERR_REQUIRE_ESM";
    throw err;
  }
  require.resolve = (specifier) => {
    const r = ops.op_cjs_resolve(String(specifier), filename);
    return r.path ?? r.url;
  };
  require.cache = Object.fromEntries(cache);
  return require;
}

export function requireFile(filename) {
  const cached = cache.get(filename);
  if (cached) return cached.exports;
  const module = { id: filename, filename, path: dirname(filename), exports: {}, loaded: false, children: [], paths: [] };
  cache.set(filename, module);
  try {
    const source = ops.op_cjs_source(filename);
    if (filename.endsWith(".json")) {
      module.exports = JSON.parse(source);
    } else {
      const wrapper = (0, eval)(
        `(function (exports, require, module, __filename, __dirname) {${source}\n})\n//# sourceURL=file://${filename}`,
      );
      wrapper.call(module.exports, module.exports, makeRequire(filename), module, filename, module.path);
    }
    module.loaded = true;
  } catch (e) {
    cache.delete(filename);
    throw e;
  }
  return module.exports;
}
