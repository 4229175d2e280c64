// node:perf_hooks: not implemented yet.
throw new Error("node:perf_hooks is not supported by the Paseo plugin host yet");
