// The engine's primitives (ops, timers, encoding), captured before bootstrap hides `Deno`
// from plugin code. Only host modules (`paseo:` and `node:` URLs) can import this.
export const core = globalThis.Deno.core;
export const ops = core.ops;

/** A function that fails naming the unsupported member, for `node:` modules' gaps. */
export function unsupported(member) {
  return function () {
    throw new Error(`${member} is not supported by the Paseo plugin host yet`);
  };
}

// Builtins register their namespace when they finish evaluating (the loader appends the call),
// so synchronous lookups (`require`, `process.getBuiltinModule`) find every builtin loaded so far.
const loaded = new Map();
export function registerBuiltin(name, namespace) {
  loaded.set(name, namespace);
}
/** A loaded builtin's CommonJS face (its default export, as `require` gives it), or undefined. */
export function loadedBuiltin(name) {
  const ns = loaded.get(String(name).replace(/^node:/, ""));
  return ns && ("default" in ns ? ns.default : ns);
}

/** What `op_node_builtin_kind` answers for a name (runtime/src/node/mod.rs). */
export const BuiltinKind = Object.freeze({ NONE: 0, UNSUPPORTED: 1, IMPLEMENTED: 2, LAZY: 3 });

/**
 * A host module evaluated on first use (the engine's lazily loaded ESM, see host_js.rs `LAZY`):
 * its namespace, loaded synchronously. Builtins are registered here, as they cannot register
 * themselves.
 */
export function lazyModule(specifier) {
  const namespace = core.createLazyLoader(specifier)();
  if (specifier.startsWith("node:")) registerBuiltin(specifier.slice(5), namespace);
  return namespace;
}

