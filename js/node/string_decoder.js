// node:string_decoder: not implemented yet.
throw new Error("node:string_decoder is not supported by the Paseo plugin host yet");
