// node:assert/strict: not implemented yet.
throw new Error("node:assert/strict is not supported by the Paseo plugin host yet");
