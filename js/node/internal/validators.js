// Argument validators shared by the builtins.
// Derived from Node.js lib/internal/validators.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { invalidArgType } from "../internal_errors.js";

function validateFunction(fn, name) {
  if (typeof fn !== "function") throw invalidArgType(name, ["Function"], fn);
}
function validateAbortSignal(signal, name) {
  if (signal !== undefined && (signal === null || typeof signal !== "object" || !("aborted" in signal))) {
    throw invalidArgType(name, ["AbortSignal"], signal);
  }
}

export { validateAbortSignal, validateFunction };
