// finished(stream[, options], callback): calls back once when the stream is done or failed.
// Derived from Node.js lib/internal/streams/end-of-stream.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { AbortError, E, invalidArgType } from "../../internal_errors.js";
import { validateAbortSignal, validateFunction } from "../validators.js";
import { erroredOf, isClosed, isNodeStream, isReadable, isReadableFinished, isReadableNodeStream, isRequest, isWebReadableStream, isWritable, isWritableFinished, isWritableNodeStream, nextTick, nop, once, willEmitClose } from "./utils.js";

export function finished(stream, options, callback) {
  if (arguments.length === 2) { callback = options; options = {}; }
  else if (options == null) options = {};
  validateFunction(callback, "callback");
  validateAbortSignal(options.signal, "options.signal");
  callback = once(callback);
  if (isWebReadableStream(stream)) return finishedWeb(stream, options, callback);
  if (!isNodeStream(stream)) throw invalidArgType("stream", ["ReadableStream", "WritableStream", "Stream"], stream);

  const readable = options.readable ?? isReadableNodeStream(stream);
  const writable = options.writable ?? isWritableNodeStream(stream);
  const w = stream._writableState, r = stream._readableState;
  const onlegacyfinish = () => { if (!stream.writable) onfinish(); };
  let emitsClose = willEmitClose(stream) && isReadableNodeStream(stream) === readable && isWritableNodeStream(stream) === writable;
  let writableFinished = isWritableFinished(stream, false);
  const onfinish = () => {
    writableFinished = true;
    if (stream.destroyed) emitsClose = false;
    if (emitsClose && (!stream.readable || readable)) return;
    if (!readable || readableFinished) callback.call(stream);
  };
  let readableFinished = isReadableFinished(stream, false);
  const onend = () => {
    readableFinished = true;
    if (stream.destroyed) emitsClose = false;
    if (emitsClose && (!stream.writable || writable)) return;
    if (!writable || writableFinished) callback.call(stream);
  };
  const onerror = (err) => callback.call(stream, err);
  let closed = isClosed(stream);
  const onclose = () => {
    closed = true;
    const errored = erroredOf(stream, "writable") || erroredOf(stream, "readable");
    if (errored && typeof errored !== "boolean") return callback.call(stream, errored);
    if (readable && !readableFinished && isReadableNodeStream(stream, true) && !isReadableFinished(stream, false)) {
      return callback.call(stream, E.prematureClose());
    }
    if (writable && !writableFinished && !isWritableFinished(stream, false)) return callback.call(stream, E.prematureClose());
    callback.call(stream);
  };
  const onclosed = () => {
    closed = true;
    const errored = erroredOf(stream, "writable") || erroredOf(stream, "readable");
    if (errored && typeof errored !== "boolean") return callback.call(stream, errored);
    callback.call(stream);
  };
  const onrequest = () => stream.req.on("finish", onfinish);

  if (isRequest(stream)) {
    stream.on("complete", onfinish);
    if (!emitsClose) stream.on("abort", onclose);
    if (stream.req) onrequest();
    else stream.on("request", onrequest);
  } else if (writable && !w) {
    stream.on("end", onlegacyfinish);
    stream.on("close", onlegacyfinish);
  }
  if (!emitsClose && typeof stream.aborted === "boolean") stream.on("aborted", onclose);
  stream.on("end", onend);
  stream.on("finish", onfinish);
  if (options.error !== false) stream.on("error", onerror);
  stream.on("close", onclose);

  if (closed) nextTick(onclose);
  else if (w?.errorEmitted || r?.errorEmitted) { if (!emitsClose) nextTick(onclosed); }
  else if (!readable && (!emitsClose || isReadable(stream)) && (writableFinished || isWritable(stream) === false)) nextTick(onclosed);
  else if (!writable && (!emitsClose || isWritable(stream)) && (readableFinished || isReadable(stream) === false)) nextTick(onclosed);
  else if (r && stream.req && stream.aborted) nextTick(onclosed);

  const cleanup = () => {
    callback = nop;
    stream.removeListener("aborted", onclose);
    stream.removeListener("complete", onfinish);
    stream.removeListener("abort", onclose);
    stream.removeListener("request", onrequest);
    stream.req?.removeListener("finish", onfinish);
    stream.removeListener("end", onlegacyfinish);
    stream.removeListener("close", onlegacyfinish);
    stream.removeListener("finish", onfinish);
    stream.removeListener("end", onend);
    stream.removeListener("error", onerror);
    stream.removeListener("close", onclose);
  };
  if (options.signal && !closed) {
    const signal = options.signal;
    const abort = () => {
      const endCallback = callback;
      cleanup();
      endCallback.call(stream, new AbortError(undefined, { cause: signal.reason }));
    };
    if (signal.aborted) nextTick(abort);
    else {
      signal.addEventListener("abort", abort, { once: true });
      const original = callback;
      callback = once((...args) => {
        signal.removeEventListener("abort", abort);
        original.apply(stream, args);
      });
    }
  }
  return cleanup;
}

// Watching a web ReadableStream without locking it needs the stream's internals.
function finishedWeb() {
  throw new Error("node:stream.finished(ReadableStream) is not supported by the Paseo plugin host yet");
}

export { finishedWeb };
