// node:stream: Readable, Writable, Duplex, Transform, PassThrough and the helpers around them
// (finished, pipeline, addAbortSignal, Readable.from/toWeb/fromWeb, the iterator operators).
// The state machines follow Node 20's, laid out as Node's files are (internal/streams/*.js, so
// that each diffs against its original): 'end' before 'close', 'finish' before 'close', errors
// destroy, autoDestroy and emitClose default to true. Derived from Node.js lib/stream.js and
// lib/internal/streams: Copyright Joyent, Inc. and other Node contributors. MIT licence; the
// notice is in NOTICE.
import { Stream } from "./internal/streams/legacy.js";
import { Readable } from "./internal/streams/readable.js";
import { Writable } from "./internal/streams/writable.js";
import { Duplex } from "./internal/streams/duplex.js";
import { Transform } from "./internal/streams/transform.js";
import { PassThrough } from "./internal/streams/passthrough.js";
import { addAbortSignal } from "./internal/streams/add-abort-signal.js";
import { pipeline, pipelineImpl } from "./internal/streams/pipeline.js";
import { compose } from "./internal/streams/compose.js";
import { duplexPairFn } from "./internal/streams/duplexpair.js";
import { destroyer } from "./internal/streams/destroy.js";
import { finished } from "./internal/streams/end-of-stream.js";
import { getDefaultHighWaterMark, setDefaultHighWaterMark } from "./internal/streams/state.js";
import {
  isDestroyed, isDisturbed, isErrored, isIterable, isNodeStream, isReadable, isUint8Array, isWebReadableStream, isWritable, toBuffer,
} from "./internal/streams/utils.js";

export {
  Stream, Readable, Writable, Duplex, Transform, PassThrough, addAbortSignal, pipeline, compose, finished,
  getDefaultHighWaterMark, setDefaultHighWaterMark, isDestroyed, isDisturbed, isErrored, isReadable, isWritable,
};
export { destroyer as destroy };

// Promise forms (node:stream/promises) and the module's shape: the legacy Stream carries the rest.

function pipelinePromise(...streams) {
  return new Promise((resolve, reject) => {
    let signal, end;
    const last = streams[streams.length - 1];
    if (last && typeof last === "object" && !isNodeStream(last) && !isIterable(last) && !isWebReadableStream(last)) {
      const options = streams.pop();
      signal = options.signal;
      end = options.end;
    }
    pipelineImpl(streams, (err, value) => (err ? reject(err) : resolve(value)), { signal, end });
  });
}

function finishedPromise(stream, opts) {
  const autoCleanup = !!opts?.cleanup;
  return new Promise((resolve, reject) => {
    const cleanup = finished(stream, opts, (err) => {
      if (autoCleanup) cleanup();
      if (err) reject(err);
      else resolve();
    });
  });
}

export const promises = { pipeline: pipelinePromise, finished: finishedPromise };
Object.defineProperty(pipeline, promisifyCustom(), { value: pipelinePromise, enumerable: false });
Object.defineProperty(finished, promisifyCustom(), { value: finishedPromise, enumerable: false });
function promisifyCustom() {
  return Symbol.for("nodejs.util.promisify.custom");
}

export const _isUint8Array = isUint8Array;
export const _uint8ArrayToBuffer = toBuffer;
export const _isArrayBufferView = ArrayBuffer.isView;
export { duplexPairFn as duplexPair };

Object.assign(Stream, {
  isDestroyed, isDisturbed, isErrored, isReadable, isWritable, Readable, Writable, Duplex, Transform, PassThrough,
  duplexPair: duplexPairFn, pipeline, addAbortSignal, finished, destroy: destroyer, compose,
  setDefaultHighWaterMark, getDefaultHighWaterMark, promises, Stream,
  _isArrayBufferView: ArrayBuffer.isView, _isUint8Array: isUint8Array, _uint8ArrayToBuffer: toBuffer,
});

export default Stream;
