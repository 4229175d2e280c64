// node:assert: not implemented yet.
throw new Error("node:assert is not supported by the Paseo plugin host yet");
