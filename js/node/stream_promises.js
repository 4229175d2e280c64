// node:stream/promises: not implemented yet.
throw new Error("node:stream/promises is not supported by the Paseo plugin host yet");
