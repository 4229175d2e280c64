// pipeline(...streams, callback).
// Derived from Node.js lib/internal/streams/pipeline.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { AbortError, E, aggregateTwoErrors, invalidArgType } from "../../internal_errors.js";
import { validateAbortSignal, validateFunction } from "../validators.js";
import { destroyer } from "./destroy.js";
import { Duplex } from "./duplex.js";
import { finished } from "./end-of-stream.js";
import { PassThrough } from "./passthrough.js";
import { Readable } from "./readable.js";
import { isIterable, isNodeStream, isReadable, isReadableFinished, isReadableNodeStream, isWebReadableStream, nextTick, once } from "./utils.js";

export function pipeline(...streams) {
  const callback = streams.pop();
  validateFunction(callback, "streams[stream.length - 1]");
  return pipelineImpl(streams, once(callback));
}

function pipelineImpl(streams, callback, opts) {
  if (streams.length === 1 && Array.isArray(streams[0])) streams = streams[0];
  if (streams.length < 2) throw E.missingArgs("streams");
  const ac = new AbortController();
  const signal = ac.signal;
  const outerSignal = opts?.signal;
  const lastStreamCleanup = [];
  validateAbortSignal(outerSignal, "options.signal");
  function abort() {
    finishImpl(new AbortError(undefined, { cause: outerSignal?.reason }));
  }
  outerSignal?.addEventListener("abort", abort, { once: true });

  let error, value;
  const destroys = [];
  let finishCount = 0;
  function finish(err) {
    finishImpl(err, --finishCount === 0);
  }
  function finishImpl(err, final) {
    if (err && (!error || error.code === "ERR_STREAM_PREMATURE_CLOSE")) error = err;
    if (!error && !final) return;
    while (destroys.length) destroys.shift()(error);
    outerSignal?.removeEventListener("abort", abort);
    ac.abort();
    if (final) {
      if (!error) lastStreamCleanup.forEach((fn) => fn());
      nextTick(callback, error, value);
    }
  }

  let ret;
  for (let i = 0; i < streams.length; i++) {
    const stream = streams[i];
    const reading = i < streams.length - 1;
    const writing = i > 0;
    const end = reading || opts?.end !== false;
    const isLastStream = i === streams.length - 1;

    if (isNodeStream(stream)) {
      if (end) {
        const { destroy, cleanup } = pipelineDestroyer(stream, reading, writing);
        destroys.push(destroy);
        if (isReadable(stream) && isLastStream) lastStreamCleanup.push(cleanup);
      }
      // Errors after the pipeline is done are not the pipeline's business.
      function onError(err) {
        if (err && err.name !== "AbortError" && err.code !== "ERR_STREAM_PREMATURE_CLOSE") finish(err);
      }
      stream.on("error", onError);
      if (isReadable(stream) && isLastStream) lastStreamCleanup.push(() => stream.removeListener("error", onError));
    }

    if (i === 0) {
      if (typeof stream === "function") {
        ret = stream({ signal });
        if (!isIterable(ret)) throw E.invalidReturn("Iterable, AsyncIterable or Stream", "source", ret);
      } else if (isIterable(stream) || isReadableNodeStream(stream)) {
        ret = stream;
      } else if (isWebReadableStream(stream)) {
        ret = Readable.fromWeb(stream);
      } else {
        ret = Duplex.from(stream);
      }
    } else if (typeof stream === "function") {
      ret = makeAsyncIterable(ret);
      ret = stream(ret, { signal });
      if (reading) {
        if (!isIterable(ret, true)) throw E.invalidReturn("AsyncIterable", `transform[${i - 1}]`, ret);
      } else {
        const pt = new PassThrough({ objectMode: true });
        const then = ret?.then;
        if (typeof then === "function") {
          finishCount++;
          then.call(ret, (val) => {
            value = val;
            if (val != null) pt.write(val);
            if (end) pt.end();
            nextTick(finish);
          }, (err) => {
            pt.destroy(err);
            nextTick(finish, err);
          });
        } else if (isIterable(ret, true)) {
          finishCount++;
          pumpToNode(ret, pt, finish, { end });
        } else {
          throw E.invalidReturn("AsyncIterable or Promise", "destination", ret);
        }
        ret = pt;
        const { destroy, cleanup } = pipelineDestroyer(ret, false, true);
        destroys.push(destroy);
        if (isLastStream) lastStreamCleanup.push(cleanup);
      }
    } else if (isNodeStream(stream)) {
      if (isReadableNodeStream(ret)) {
        finishCount += 2;
        const cleanup = pipe(ret, stream, finish, { end });
        if (isReadable(stream) && isLastStream) lastStreamCleanup.push(cleanup);
      } else if (isWebReadableStream(ret)) {
        finishCount++;
        pumpToNode(ret, stream, finish, { end });
      } else if (isIterable(ret)) {
        finishCount++;
        pumpToNode(ret, stream, finish, { end });
      } else {
        throw invalidArgType("val", ["Readable", "Iterable", "AsyncIterable", "ReadableStream", "TransformStream"], ret);
      }
      ret = stream;
    } else {
      ret = Duplex.from(stream);
    }
  }
  if (signal?.aborted || outerSignal?.aborted) nextTick(abort);
  return ret;
}

function pipelineDestroyer(stream, reading, writing) {
  let done = false;
  stream.on("close", () => { done = true; });
  const cleanup = finished(stream, { readable: reading, writable: writing }, (err) => { done = !err; });
  return {
    destroy: (err) => {
      if (done) return;
      done = true;
      destroyer(stream, err || E.destroyed("pipe"));
    },
    cleanup,
  };
}

function pipe(src, dst, finish, { end }) {
  let ended = false;
  dst.on("close", () => {
    if (!ended) finish(E.prematureClose()); // dst closed before src was done
  });
  src.pipe(dst, { end: false });
  if (end) {
    function endFn() {
      ended = true;
      dst.end();
    }
    if (isReadableFinished(src)) nextTick(endFn);
    else src.once("end", endFn);
    finished(src, { readable: true, writable: false }, (err) => {
      const r = src._readableState;
      if (err && err.code === "ERR_STREAM_PREMATURE_CLOSE" && r && r.ended && !r.errored && !r.errorEmitted) {
        // 'close' came before 'end' was emitted; wait for 'end'.
        src.once("end", finish).once("error", finish);
      } else {
        finish(err);
      }
    });
  } else {
    finish();
  }
  return finished(dst, { readable: false, writable: true }, finish);
}

async function pumpToNode(iterable, writable, finish, { end }) {
  let error;
  let onresolve = null;
  const resume = (err) => {
    if (err) error = err;
    if (onresolve) {
      const callback = onresolve;
      onresolve = null;
      callback();
    }
  };
  const wait = () => new Promise((resolve, reject) => {
    if (error) reject(error);
    else onresolve = () => (error ? reject(error) : resolve());
  });
  writable.on("drain", resume);
  const cleanup = finished(writable, { readable: false }, resume);
  try {
    if (writable.writableNeedDrain) await wait();
    for await (const chunk of iterable) {
      if (!writable.write(chunk)) await wait();
    }
    if (end) {
      writable.end();
      await wait();
    }
    finish();
  } catch (err) {
    finish(error !== err ? aggregateTwoErrors(error, err) : err);
  } finally {
    cleanup();
    writable.off("drain", resume);
  }
}

function makeAsyncIterable(val) {
  if (isIterable(val)) return val;
  if (isReadableNodeStream(val)) return (async function* () { yield* Readable.prototype[Symbol.asyncIterator].call(val); })();
  throw invalidArgType("val", ["Readable", "Iterable", "AsyncIterable"], val);
}

export { makeAsyncIterable, pipe, pipelineDestroyer, pipelineImpl, pumpToNode };
