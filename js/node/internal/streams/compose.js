// compose() (not supported yet).
// Derived from Node.js lib/internal/streams/compose.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.

export function compose() {
  throw new Error("node:stream.compose is not supported by the Paseo plugin host yet");
}
