// node:net: not implemented yet.
throw new Error("node:net is not supported by the Paseo plugin host yet");
