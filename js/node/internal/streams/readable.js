// Readable: the reading side of a stream (ReadableState, flowing and paused modes, pipe, async
// iteration, Readable.from/wrap/toWeb/fromWeb).
// Derived from Node.js lib/internal/streams/readable.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { Buffer } from "node:buffer";
import { EventEmitter } from "node:events";
import process from "node:process";
import { StringDecoder } from "node:string_decoder";
import { AbortError, E, aggregateTwoErrors, chunkTypeError, invalidArgType, nodeError } from "../../internal_errors.js";
import { addAbortSignal } from "./add-abort-signal.js";
import { construct, destroy, destroyer, errorOrDestroy, undestroy } from "./destroy.js";
import { finished } from "./end-of-stream.js";
import { readableFrom } from "./from.js";
import { Stream, prependListener } from "./legacy.js";
import { promiseOperators, streamOperators } from "./operators.js";
import { getDefaultHighWaterMark, getHighWaterMark } from "./state.js";
import { isDestroyed, isDuplexInstance, isReadable, isReadableNodeStream, isUint8Array, isWebReadableStream, kPaused, nextTick, nop, toBuffer } from "./utils.js";

function ReadableState(options, stream, isDuplex) {
  if (typeof isDuplex !== "boolean") isDuplex = isDuplexInstance(stream);
  this.objectMode = !!(options?.objectMode || (isDuplex && options?.readableObjectMode));
  this.highWaterMark = options ? getHighWaterMark(this, options, "readableHighWaterMark", isDuplex) : getDefaultHighWaterMark(false);
  this.buffer = [];
  this.length = 0;
  this.pipes = [];
  this.flowing = null;
  this.ended = false;
  this.endEmitted = false;
  this.reading = false;
  this.constructed = true;
  // 'readable'/'data' emitted synchronously (sync) or on a later tick; true until the first read.
  this.sync = true;
  this.needReadable = false;
  this.emittedReadable = false;
  this.readableListening = false;
  this.resumeScheduled = false;
  this.errorEmitted = false;
  this.emitClose = options?.emitClose !== false;
  this.autoDestroy = options?.autoDestroy !== false;
  this.destroyed = false;
  this.errored = null;
  this.closed = false;
  this.closeEmitted = false;
  this.defaultEncoding = options?.defaultEncoding || "utf8";
  this.awaitDrainWriters = null;
  this.multiAwaitDrain = false;
  this.readingMore = false;
  this.dataEmitted = false;
  this.decoder = null;
  this.encoding = null;
  this[kPaused] = null;
  if (options?.encoding) {
    this.decoder = new StringDecoder(options.encoding);
    this.encoding = options.encoding;
  }
}

export function Readable(options) {
  if (!(this instanceof Readable)) return new Readable(options);
  const isDuplex = isDuplexInstance(this);
  this._readableState = new ReadableState(options, this, isDuplex);
  if (options) {
    if (typeof options.read === "function") this._read = options.read;
    if (typeof options.destroy === "function") this._destroy = options.destroy;
    if (typeof options.construct === "function") this._construct = options.construct;
    if (options.signal && !isDuplex) addAbortSignal(options.signal, this);
  }
  Stream.call(this, options);
  construct(this, () => {
    if (this._readableState.needReadable) maybeReadMore(this, this._readableState);
  });
}
Object.setPrototypeOf(Readable.prototype, Stream.prototype);
Object.setPrototypeOf(Readable, Stream);
Readable.ReadableState = ReadableState;

Readable.prototype.destroy = destroy;
Readable.prototype._undestroy = undestroy;
Readable.prototype._destroy = function (err, cb) { cb(err); };
Readable.prototype[EventEmitter.captureRejectionSymbol] = function (err) { this.destroy(err); };

if (typeof Symbol.asyncDispose === "symbol") {
  Readable.prototype[Symbol.asyncDispose] = function () {
    let error;
    if (!this.destroyed) {
      error = this.readableEnded ? null : new AbortError();
      this.destroy(error);
    }
    return new Promise((resolve, reject) => finished(this, (err) => (err && err !== error ? reject(err) : resolve(null))));
  };
}

Readable.prototype.push = function push(chunk, encoding) {
  return readableAddChunk(this, chunk, encoding, false);
};
Readable.prototype.unshift = function unshift(chunk, encoding) {
  return readableAddChunk(this, chunk, encoding, true);
};

function readableAddChunk(stream, chunk, encoding, addToFront) {
  const state = stream._readableState;
  let err;
  if (!state.objectMode) {
    if (typeof chunk === "string") {
      encoding = encoding || state.defaultEncoding;
      if (state.encoding !== encoding) {
        if (addToFront && state.encoding) {
          chunk = Buffer.from(chunk, encoding).toString(state.encoding);
        } else {
          chunk = Buffer.from(chunk, encoding);
          encoding = "";
        }
      }
    } else if (chunk instanceof Buffer) {
      encoding = "";
    } else if (isUint8Array(chunk)) {
      chunk = toBuffer(chunk);
      encoding = "";
    } else if (chunk != null) {
      err = chunkTypeError(chunk);
    }
  }
  if (err) {
    errorOrDestroy(stream, err);
  } else if (chunk === null) {
    state.reading = false;
    onEofChunk(stream, state);
  } else if (state.objectMode || chunk.length > 0) {
    if (addToFront) {
      if (state.endEmitted) errorOrDestroy(stream, E.unshiftAfterEnd());
      else if (state.destroyed || state.errored) return false;
      else addChunk(stream, state, chunk, true);
    } else if (state.ended) {
      errorOrDestroy(stream, E.pushAfterEOF());
    } else if (state.destroyed || state.errored) {
      return false;
    } else {
      state.reading = false;
      if (state.decoder && !encoding) {
        chunk = state.decoder.write(chunk);
        if (state.objectMode || chunk.length !== 0) addChunk(stream, state, chunk, false);
        else maybeReadMore(stream, state);
      } else {
        addChunk(stream, state, chunk, false);
      }
    }
  } else if (!addToFront) {
    state.reading = false;
    maybeReadMore(stream, state);
  }
  // More may be pushed while below the high-water mark (or while empty, for hwm 0).
  return !state.ended && (state.length < state.highWaterMark || state.length === 0);
}

function addChunk(stream, state, chunk, addToFront) {
  if (state.flowing && state.length === 0 && !state.sync && stream.listenerCount("data") > 0) {
    // Flowing and nothing buffered: hand the chunk straight to 'data'.
    if (state.multiAwaitDrain) state.awaitDrainWriters.clear();
    else state.awaitDrainWriters = null;
    state.dataEmitted = true;
    stream.emit("data", chunk);
  } else {
    state.length += state.objectMode ? 1 : chunk.length;
    if (addToFront) state.buffer.unshift(chunk);
    else state.buffer.push(chunk);
    if (state.needReadable) emitReadable(stream);
  }
  maybeReadMore(stream, state);
}

Readable.prototype.isPaused = function isPaused() {
  const state = this._readableState;
  return state[kPaused] === true || state.flowing === false;
};

Readable.prototype.setEncoding = function setEncoding(enc) {
  const state = this._readableState;
  const decoder = new StringDecoder(enc);
  state.decoder = decoder;
  state.encoding = decoder.encoding;
  let content = "";
  for (const data of state.buffer) content += decoder.write(data);
  state.buffer = content === "" ? [] : [content];
  state.length = content.length;
  return this;
};

const MAX_HWM = 0x40000000;
function computeNewHighWaterMark(n) {
  if (n > MAX_HWM) throw nodeError(RangeError, "ERR_OUT_OF_RANGE", `The value of "size" is out of range. It must be <= 1GiB. Received ${n}`);
  // The next power of two, so the mark does not creep up in tiny steps.
  n--;
  n |= n >>> 1; n |= n >>> 2; n |= n >>> 4; n |= n >>> 8; n |= n >>> 16;
  return n + 1;
}

function howMuchToRead(n, state) {
  if (n <= 0 || (state.length === 0 && state.ended)) return 0;
  if (state.objectMode) return 1;
  if (Number.isNaN(n)) {
    // Flowing: one buffered chunk at a time.
    if (state.flowing && state.length) return state.buffer[0].length;
    return state.length;
  }
  if (n <= state.length) return n;
  return state.ended ? state.length : 0;
}

Readable.prototype.read = function read(n) {
  if (n === undefined) n = NaN;
  else if (!Number.isInteger(n)) n = Number.parseInt(n, 10);
  const state = this._readableState;
  const nOrig = n;
  if (n > state.highWaterMark) state.highWaterMark = computeNewHighWaterMark(n);
  if (n !== 0) state.emittedReadable = false;

  // read(0) with enough buffered: just make sure 'readable' fires.
  if (n === 0 && state.needReadable &&
      ((state.highWaterMark !== 0 ? state.length >= state.highWaterMark : state.length > 0) || state.ended)) {
    if (state.length === 0 && state.ended) endReadable(this);
    else emitReadable(this);
    return null;
  }
  n = howMuchToRead(n, state);
  if (n === 0 && state.ended) {
    if (state.length === 0) endReadable(this);
    return null;
  }

  // Call _read when below the high-water mark, unless ended, reading, destroyed or unconstructed.
  let doRead = state.needReadable;
  if (state.length === 0 || state.length - n < state.highWaterMark) doRead = true;
  if (state.ended || state.reading || state.destroyed || state.errored || !state.constructed) {
    doRead = false;
  } else if (doRead) {
    state.reading = true;
    state.sync = true;
    if (state.length === 0) state.needReadable = true;
    try {
      this._read(state.highWaterMark);
    } catch (err) {
      errorOrDestroy(this, err);
    }
    state.sync = false;
    // A synchronous push may have changed how much there is to return.
    if (!state.reading) n = howMuchToRead(nOrig, state);
  }

  let ret = n > 0 ? fromList(n, state) : null;
  if (ret === null) {
    state.needReadable = state.length <= state.highWaterMark;
    n = 0;
  } else {
    state.length -= n;
    if (state.multiAwaitDrain) state.awaitDrainWriters.clear();
    else state.awaitDrainWriters = null;
  }
  if (state.length === 0) {
    if (!state.ended) state.needReadable = true;
    if (nOrig !== n && state.ended) endReadable(this);
  }
  if (ret !== null && !state.errorEmitted && !state.closeEmitted) {
    state.dataEmitted = true;
    this.emit("data", ret);
  }
  return ret;
};

function onEofChunk(stream, state) {
  if (state.ended) return;
  if (state.decoder) {
    const chunk = state.decoder.end();
    if (chunk?.length) {
      state.buffer.push(chunk);
      state.length += state.objectMode ? 1 : chunk.length;
    }
  }
  state.ended = true;
  if (state.sync) {
    emitReadable(stream);
  } else {
    state.needReadable = false;
    state.emittedReadable = true;
    emitReadable_(stream);
  }
}

function emitReadable(stream) {
  const state = stream._readableState;
  state.needReadable = false;
  if (!state.emittedReadable) {
    state.emittedReadable = true;
    nextTick(emitReadable_, stream);
  }
}
function emitReadable_(stream) {
  const state = stream._readableState;
  if (!state.destroyed && !state.errored && (state.length || state.ended)) {
    stream.emit("readable");
    state.emittedReadable = false;
  }
  state.needReadable = !state.flowing && !state.ended && state.length <= state.highWaterMark;
  flow(stream);
}

function maybeReadMore(stream, state) {
  if (!state.readingMore && state.constructed) {
    state.readingMore = true;
    nextTick(maybeReadMore_, stream, state);
  }
}
function maybeReadMore_(stream, state) {
  // Fill the buffer up to the high-water mark (or keep a flowing stream going).
  while (!state.reading && !state.ended &&
         (state.length < state.highWaterMark || (state.flowing && state.length === 0))) {
    const len = state.length;
    stream.read(0);
    if (len === state.length) break;
  }
  state.readingMore = false;
}

Readable.prototype._read = function (n) {
  throw E.notImplemented("_read()");
};

Readable.prototype.pipe = function pipe(dest, pipeOpts) {
  const src = this;
  const state = this._readableState;
  if (state.pipes.length === 1 && !state.multiAwaitDrain) {
    state.multiAwaitDrain = true;
    state.awaitDrainWriters = new Set(state.awaitDrainWriters ? [state.awaitDrainWriters] : []);
  }
  state.pipes.push(dest);

  const doEnd = pipeOpts?.end !== false && dest !== process.stdout && dest !== process.stderr;
  const endFn = doEnd ? onend : unpipe;
  if (state.endEmitted) nextTick(endFn);
  else src.once("end", endFn);

  dest.on("unpipe", onunpipe);
  function onunpipe(readable, unpipeInfo) {
    if (readable === src && unpipeInfo?.hasUnpiped === false) {
      unpipeInfo.hasUnpiped = true;
      cleanup();
    }
  }
  function onend() {
    dest.end();
  }

  let ondrain;
  let cleanedUp = false;
  function cleanup() {
    dest.removeListener("close", onclose);
    dest.removeListener("finish", onfinish);
    if (ondrain) dest.removeListener("drain", ondrain);
    dest.removeListener("error", onerror);
    dest.removeListener("unpipe", onunpipe);
    src.removeListener("end", onend);
    src.removeListener("end", unpipe);
    src.removeListener("data", ondata);
    cleanedUp = true;
    // If we were waiting for this dest to drain, stop waiting.
    if (ondrain && state.awaitDrainWriters && (!dest._writableState || dest._writableState.needDrain)) ondrain();
  }

  function pause() {
    if (!cleanedUp) {
      if (state.pipes.length === 1 && state.pipes[0] === dest) {
        state.awaitDrainWriters = dest;
        state.multiAwaitDrain = false;
      } else if (state.pipes.length > 1 && state.pipes.includes(dest)) {
        state.awaitDrainWriters.add(dest);
      }
      src.pause();
    }
    if (!ondrain) {
      ondrain = pipeOnDrain(src, dest);
      dest.on("drain", ondrain);
    }
  }

  src.on("data", ondata);
  function ondata(chunk) {
    if (dest.write(chunk) === false) pause();
  }

  // An error on dest unpipes; rethrow it if nobody else listens.
  function onerror(er) {
    unpipe();
    dest.removeListener("error", onerror);
    if (dest.listenerCount("error") === 0) {
      const s = dest._writableState || dest._readableState;
      if (s && !s.errorEmitted) errorOrDestroy(dest, er);
      else dest.emit("error", er);
    }
  }
  prependListener(dest, "error", onerror);

  function onclose() {
    dest.removeListener("finish", onfinish);
    unpipe();
  }
  dest.once("close", onclose);
  function onfinish() {
    dest.removeListener("close", onclose);
    unpipe();
  }
  dest.once("finish", onfinish);

  function unpipe() {
    src.unpipe(dest);
  }

  dest.emit("pipe", src);
  if (dest.writableNeedDrain === true) pause();
  else if (!state.flowing) src.resume();
  return dest;
};

function pipeOnDrain(src, dest) {
  return function pipeOnDrainFunctionResult() {
    const state = src._readableState;
    if (state.awaitDrainWriters === dest) state.awaitDrainWriters = null;
    else if (state.multiAwaitDrain) state.awaitDrainWriters.delete(dest);
    if ((!state.awaitDrainWriters || state.awaitDrainWriters.size === 0) && src.listenerCount("data")) src.resume();
  };
}

Readable.prototype.unpipe = function unpipe(dest) {
  const state = this._readableState;
  if (state.pipes.length === 0) return this;
  if (!dest) {
    const dests = state.pipes;
    state.pipes = [];
    this.pause();
    for (const d of dests) d.emit("unpipe", this, { hasUnpiped: false });
    return this;
  }
  const index = state.pipes.indexOf(dest);
  if (index === -1) return this;
  state.pipes.splice(index, 1);
  if (state.pipes.length === 0) this.pause();
  dest.emit("unpipe", this, { hasUnpiped: false });
  return this;
};

// Adding 'data' starts flowing; adding 'readable' switches to paused mode.
Readable.prototype.on = function on(ev, fn) {
  const res = Stream.prototype.on.call(this, ev, fn);
  const state = this._readableState;
  if (ev === "data") {
    state.readableListening = this.listenerCount("readable") > 0;
    if (state.flowing !== false) this.resume();
  } else if (ev === "readable") {
    if (!state.endEmitted && !state.readableListening) {
      state.readableListening = state.needReadable = true;
      state.flowing = false;
      state.emittedReadable = false;
      if (state.length) emitReadable(this);
      else if (!state.reading) nextTick(nReadingNextTick, this);
    }
  }
  return res;
};
Readable.prototype.addListener = Readable.prototype.on;

Readable.prototype.removeListener = function removeListener(ev, fn) {
  const res = Stream.prototype.removeListener.call(this, ev, fn);
  if (ev === "readable") nextTick(updateReadableListening, this);
  return res;
};
Readable.prototype.off = Readable.prototype.removeListener;

Readable.prototype.removeAllListeners = function removeAllListeners(ev) {
  const res = Stream.prototype.removeAllListeners.apply(this, arguments);
  if (ev === "readable" || ev === undefined) nextTick(updateReadableListening, this);
  return res;
};

function updateReadableListening(self) {
  const state = self._readableState;
  state.readableListening = self.listenerCount("readable") > 0;
  if (state.resumeScheduled && state[kPaused] === false) state.flowing = true;
  else if (self.listenerCount("data") > 0) self.resume();
  else if (!state.readableListening) state.flowing = null;
}

function nReadingNextTick(self) {
  self.read(0);
}

Readable.prototype.resume = function resume() {
  const state = this._readableState;
  if (!state.flowing) {
    // With 'readable' listeners, resume() does not switch to flowing mode.
    state.flowing = !state.readableListening;
    if (!state.resumeScheduled) {
      state.resumeScheduled = true;
      nextTick(resume_, this, state);
    }
  }
  state[kPaused] = false;
  return this;
};

function resume_(stream, state) {
  if (!state.reading) stream.read(0);
  state.resumeScheduled = false;
  stream.emit("resume");
  flow(stream);
  if (state.flowing && !state.reading) stream.read(0);
}

Readable.prototype.pause = function pause() {
  const state = this._readableState;
  if (state.flowing !== false) {
    state.flowing = false;
    this.emit("pause");
  }
  state[kPaused] = true;
  return this;
};

function flow(stream) {
  const state = stream._readableState;
  while (state.flowing && stream.read() !== null);
}

// Wraps an old-style stream (only 'data'/'end' events and pause/resume).
Readable.prototype.wrap = function wrap(stream) {
  let paused = false;
  stream.on("data", (chunk) => {
    if (!this.push(chunk) && stream.pause) {
      paused = true;
      stream.pause();
    }
  });
  stream.on("end", () => this.push(null));
  stream.on("error", (err) => errorOrDestroy(this, err));
  stream.on("close", () => this.destroy());
  stream.on("destroy", () => this.destroy());
  this._read = () => {
    if (paused && stream.resume) {
      paused = false;
      stream.resume();
    }
  };
  for (const key of Object.keys(stream)) {
    if (this[key] === undefined && typeof stream[key] === "function") this[key] = stream[key].bind(stream);
  }
  return this;
};

Readable.prototype[Symbol.asyncIterator] = function () {
  return streamToAsyncIterator(this);
};
Readable.prototype.iterator = function iterator(options) {
  return streamToAsyncIterator(this, options);
};

function streamToAsyncIterator(stream, options) {
  if (typeof stream.read !== "function") stream = Readable.wrap(stream, { objectMode: true });
  const iter = createAsyncIterator(stream, options);
  iter.stream = stream;
  return iter;
}

async function* createAsyncIterator(stream, options) {
  let callback = nop;
  function next(resolve) {
    if (this === stream) {
      callback();
      callback = nop;
    } else {
      callback = resolve;
    }
  }
  stream.on("readable", next);
  let error;
  const cleanup = finished(stream, { writable: false }, (err) => {
    error = err ? aggregateTwoErrors(error, err) : null;
    callback();
    callback = nop;
  });
  try {
    while (true) {
      const chunk = stream.destroyed ? null : stream.read();
      if (chunk !== null) yield chunk;
      else if (error) throw error;
      else if (error === null) return;
      else await new Promise(next);
    }
  } catch (err) {
    error = aggregateTwoErrors(error, err);
    throw error;
  } finally {
    if ((error || options?.destroyOnReturn !== false) && (error === undefined || stream._readableState.autoDestroy)) {
      destroyer(stream, null);
    } else {
      stream.off("readable", next);
      cleanup();
    }
  }
}

const readableProps = {
  readable: {
    get() {
      const r = this._readableState;
      return !!r && r.readable !== false && !r.destroyed && !r.errorEmitted && !r.endEmitted;
    },
    set(val) { if (this._readableState) this._readableState.readable = !!val; },
  },
  readableDidRead: { get() { return this._readableState.dataEmitted; } },
  readableAborted: {
    get() {
      const r = this._readableState;
      return !!(r.readable !== false && (r.destroyed || r.errored) && !r.endEmitted);
    },
  },
  readableHighWaterMark: { get() { return this._readableState.highWaterMark; } },
  readableBuffer: { get() { return this._readableState?.buffer; } },
  readableFlowing: {
    get() { return this._readableState.flowing; },
    set(value) { if (this._readableState) this._readableState.flowing = value; },
  },
  readableLength: { get() { return this._readableState.length; } },
  readableObjectMode: { get() { return this._readableState ? this._readableState.objectMode : false; } },
  readableEncoding: { get() { return this._readableState ? this._readableState.encoding : null; } },
  errored: { get() { return this._readableState ? this._readableState.errored : null; } },
  closed: { get() { return this._readableState ? this._readableState.closed : false; } },
  destroyed: {
    get() { return this._readableState ? this._readableState.destroyed : false; },
    set(value) { if (this._readableState) this._readableState.destroyed = value; },
  },
  readableEnded: { get() { return this._readableState ? this._readableState.endEmitted : false; } },
};
for (const d of Object.values(readableProps)) d.configurable = true;
Object.defineProperties(Readable.prototype, readableProps);

function fromList(n, state) {
  if (state.length === 0) return null;
  const buf = state.buffer;
  let ret;
  if (state.objectMode) {
    ret = buf.shift();
  } else if (!n || n >= state.length) {
    if (state.decoder) ret = buf.join("");
    else if (buf.length === 1) ret = buf[0];
    else ret = Buffer.concat(buf, state.length);
    state.buffer = [];
  } else {
    ret = consume(buf, n, !!state.decoder);
  }
  return ret;
}

// Takes n bytes (or characters) off the front of the buffer list.
function consume(buf, n, hasStrings) {
  const first = buf[0];
  if (n < first.length) {
    buf[0] = first.slice(n);
    return first.slice(0, n);
  }
  if (n === first.length) return buf.shift();
  const parts = [];
  let need = n;
  while (need > 0) {
    const chunk = buf[0];
    if (chunk.length <= need) {
      parts.push(buf.shift());
      need -= chunk.length;
    } else {
      parts.push(chunk.slice(0, need));
      buf[0] = chunk.slice(need);
      need = 0;
    }
  }
  return hasStrings ? parts.join("") : Buffer.concat(parts, n);
}

function endReadable(stream) {
  const state = stream._readableState;
  if (!state.endEmitted) {
    state.ended = true;
    nextTick(endReadableNT, state, stream);
  }
}
function endReadableNT(state, stream) {
  if (!state.errored && !state.closeEmitted && !state.endEmitted && state.length === 0) {
    state.endEmitted = true;
    stream.emit("end");
    if (stream.writable && stream.allowHalfOpen === false) {
      nextTick(endWritableNT, stream);
    } else if (state.autoDestroy) {
      // Destroy once the writable side (if any) is done too.
      const w = stream._writableState;
      if (!w || (w.autoDestroy && (w.finished || w.writable === false))) stream.destroy();
    }
  }
}
function endWritableNT(stream) {
  if (stream.writable && !stream.writableEnded && !stream.destroyed) stream.end();
}

Readable.from = function from(iterable, opts) {
  return readableFrom(Readable, iterable, opts);
};

Readable.wrap = function (src, options) {
  return new Readable({
    objectMode: src.readableObjectMode ?? src.objectMode ?? true,
    ...options,
    destroy(err, callback) {
      destroyer(src, err);
      callback(err);
    },
  }).wrap(src);
};

// A web ReadableStream fed by this Readable (paused while the web queue is full).
Readable.toWeb = function toWeb(streamReadable, options) {
  if (!isReadableNodeStream(streamReadable)) throw invalidArgType("streamReadable", ["stream.Readable"], streamReadable);
  if (isDestroyed(streamReadable) || !isReadable(streamReadable)) {
    const done = new ReadableStream();
    done.cancel();
    return done;
  }
  const objectMode = streamReadable.readableObjectMode;
  // Counted in chunks, as Node's fallback strategy does.
  const strategy = options?.strategy ?? { highWaterMark: streamReadable.readableHighWaterMark };
  let controller;
  let closed = false;
  function onData(chunk) {
    if (Buffer.isBuffer(chunk) && !objectMode) chunk = new Uint8Array(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength));
    controller.enqueue(chunk);
    if (controller.desiredSize <= 0) streamReadable.pause();
  }
  streamReadable.pause();
  const cleanup = finished(streamReadable, (error) => {
    if (error?.code === "ERR_STREAM_PREMATURE_CLOSE") error = new AbortError(undefined, { cause: error });
    cleanup();
    streamReadable.on("error", nop); // already reported through the web stream
    if (closed) return;
    closed = true;
    if (error) controller.error(error);
    else controller.close();
  });
  streamReadable.on("data", onData);
  return new ReadableStream({
    start(c) { controller = c; },
    pull() { streamReadable.resume(); },
    cancel(reason) {
      closed = true;
      destroyer(streamReadable, reason);
    },
  }, strategy);
};

// A Readable fed by a web ReadableStream's reader.
Readable.fromWeb = function fromWeb(readableStream, options = {}) {
  if (!isWebReadableStream(readableStream)) throw invalidArgType("readableStream", ["ReadableStream"], readableStream);
  const { highWaterMark, encoding, objectMode = false, signal } = options;
  const reader = readableStream.getReader();
  let closed = false;
  const readable = new Readable({
    objectMode, highWaterMark, encoding, signal,
    read() {
      reader.read().then(({ value, done }) => {
        if (done) readable.push(null);
        else readable.push(value);
      }, (error) => destroyer(readable, error));
    },
    destroy(error, callback) {
      const done = () => callback(error);
      if (!closed) {
        reader.cancel(error).then(done, done);
        return;
      }
      done();
    },
  });
  reader.closed.then(() => { closed = true; }, (error) => {
    closed = true;
    destroyer(readable, error);
  });
  return readable;
};

for (const [name, fn] of Object.entries({ ...streamOperators, ...promiseOperators })) {
  Object.defineProperty(Readable.prototype, name, { value: fn, writable: true, configurable: true, enumerable: false });
}

export { MAX_HWM, ReadableState, addChunk, computeNewHighWaterMark, consume, createAsyncIterator, emitReadable, emitReadable_, endReadable, endReadableNT, endWritableNT, flow, fromList, howMuchToRead, maybeReadMore, maybeReadMore_, nReadingNextTick, onEofChunk, pipeOnDrain, readableAddChunk, readableProps, resume_, streamToAsyncIterator, updateReadableListening };
