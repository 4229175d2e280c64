// node:child_process: not implemented yet.
throw new Error("node:child_process is not supported by the Paseo plugin host yet");
