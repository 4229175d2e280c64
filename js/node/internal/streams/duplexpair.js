// duplexPair() (not supported yet).
// Derived from Node.js lib/internal/streams/duplexpair.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.

function duplexPairFn() {
  throw new Error("node:stream.duplexPair is not supported by the Paseo plugin host yet");
}

export { duplexPairFn };
