// node:dns: not implemented yet.
throw new Error("node:dns is not supported by the Paseo plugin host yet");
