// The engine's primitives (ops, timers, encoding), captured before bootstrap hides `Deno`
// from plugin code. Only host modules (`paseo:` and `node:` URLs) can import this.
export const core = globalThis.Deno.core;
export const ops = core.ops;
// node:util stays free of imports (js/node/test runs it under Node) and is evaluated on first
// use, after `Deno` is hidden: it asks the engine whether a value is a Proxy through this.
Object.defineProperty(globalThis, Symbol.for("paseo.isProxy"), { value: (v) => core.isProxy(v) });

/** A function that fails naming the unsupported member, for `node:` modules' gaps. */
export function unsupported(member) {
  return function () {
    throw new Error(`${member} is not supported by the Paseo plugin host yet`);
  };
}

// Every host module appends a call to this when it finishes evaluating (host_js.rs
// `module_code`): `process.moduleLoadList` lists the builtins among them, as Node does.
const evaluated = [];
export function noteEvaluated(url) {
  evaluated.push(url);
}
/** The host modules evaluated so far, by URL, in order. */
export const evaluatedModules = () => evaluated.slice();

// The builtins loaded so far, by bare name (a cache in front of `lazyModule`).
const loaded = new Map();

/** What `op_node_builtin_kind` answers for a name (runtime/src/node/mod.rs). */
export const BuiltinKind = Object.freeze({ NONE: 0, UNSUPPORTED: 1, IMPLEMENTED: 2 });

/**
 * A host module evaluated on first use (the engine's lazily loaded ESM, see host_js.rs
 * `is_lazy`): its namespace, loaded synchronously, or the one an `import` loaded already.
 */
export function lazyModule(specifier) {
  return core.createLazyLoader(specifier)();
}

/**
 * A builtin's CommonJS face (its default export, as `require` gives it), loaded on first use;
 * undefined when this host does not implement `name` (bare or with `node:`).
 */
export function builtin(name) {
  const bare = String(name).replace(/^node:/, "");
  let ns = loaded.get(bare);
  if (ns === undefined) {
    if (ops.op_node_builtin_kind(bare) !== BuiltinKind.IMPLEMENTED) return undefined;
    ns = lazyModule(`node:${bare}`);
    loaded.set(bare, ns);
  }
  return "default" in ns ? ns.default : ns;
}
