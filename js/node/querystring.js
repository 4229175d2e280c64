// node:querystring: not implemented yet.
throw new Error("node:querystring is not supported by the Paseo plugin host yet");
