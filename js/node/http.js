// node:http: not implemented yet.
throw new Error("node:http is not supported by the Paseo plugin host yet");
