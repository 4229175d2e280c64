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
