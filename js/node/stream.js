// node:stream: not implemented yet.
throw new Error("node:stream is not supported by the Paseo plugin host yet");
