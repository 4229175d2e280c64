// CommonJS: `require` for CommonJS files in a plugin's node_modules (and `createRequire`).
// Builtins, host modules and ES modules are required through the engine's synchronous import.
import { core, ops } from "paseo:internal/core";

const cache = new Map();

function dirname(path) {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

export function makeRequire(filename) {
  function require(specifier) {
    const resolved = ops.op_cjs_resolve(String(specifier), filename);
    if (resolved.kind === "commonjs") return requireFile(resolved.path);
    if (resolved.kind === "json") return requireFile(resolved.path);
    const ns = ops.op_import_sync(resolved.url);
    // A builtin's CommonJS face is its default export; an ES module's is its namespace.
    return resolved.kind === "builtin" && "default" in ns ? ns.default : ns;
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
