// addAbortSignal(signal, stream).
// Derived from Node.js lib/internal/streams/add-abort-signal.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { AbortError, invalidArgType } from "../../internal_errors.js";
import { validateAbortSignal } from "../validators.js";
import { finished } from "./end-of-stream.js";
import { isNodeStream, isWebReadableStream, once } from "./utils.js";

export function addAbortSignal(signal, stream) {
  validateAbortSignal(signal, "signal");
  if (signal === undefined) throw invalidArgType("signal", ["AbortSignal"], signal);
  if (isWebReadableStream(stream)) throw new Error("node:stream.addAbortSignal(signal, ReadableStream) is not supported by the Paseo plugin host yet");
  if (!isNodeStream(stream)) throw invalidArgType("stream", ["ReadableStream", "WritableStream", "Stream"], stream);
  const onAbort = () => stream.destroy(new AbortError(undefined, { cause: signal.reason }));
  if (signal.aborted) {
    onAbort();
  } else {
    signal.addEventListener("abort", onAbort, { once: true });
    finished(stream, () => signal.removeEventListener("abort", onAbort));
  }
  return stream;
}
