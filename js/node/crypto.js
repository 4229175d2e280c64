// node:crypto: not implemented yet.
throw new Error("node:crypto is not supported by the Paseo plugin host yet");
