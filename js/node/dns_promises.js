// node:dns/promises: not implemented yet.
throw new Error("node:dns/promises is not supported by the Paseo plugin host yet");
