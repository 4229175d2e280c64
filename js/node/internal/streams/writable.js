// Writable: the writing side of a stream (WritableState, buffering, cork, _final, finish).
// Derived from Node.js lib/internal/streams/writable.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { Buffer } from "node:buffer";
import { EventEmitter } from "node:events";
import { E, chunkTypeError } from "../../internal_errors.js";
import { addAbortSignal } from "./add-abort-signal.js";
import { construct, destroy, errorOrDestroy, undestroy } from "./destroy.js";
import { Stream } from "./legacy.js";
import { getDefaultHighWaterMark, getHighWaterMark } from "./state.js";
import { isDuplexInstance, isUint8Array, kOnFinished, nextTick, nop, toBuffer } from "./utils.js";

function WritableState(options, stream, isDuplex) {
  if (typeof isDuplex !== "boolean") isDuplex = isDuplexInstance(stream);
  this.objectMode = !!(options?.objectMode || (isDuplex && options?.writableObjectMode));
  this.highWaterMark = options ? getHighWaterMark(this, options, "writableHighWaterMark", isDuplex) : getDefaultHighWaterMark(false);
  this.finalCalled = false;
  this.needDrain = false;
  this.ending = false; // end() called
  this.ended = false; // end() returned
  this.finished = false; // 'finish' emitted
  this.destroyed = false;
  this.decodeStrings = options?.decodeStrings !== false;
  this.defaultEncoding = options?.defaultEncoding || "utf8";
  this.length = 0;
  this.writing = false;
  this.corked = 0;
  // true while _write may call back synchronously (callbacks are then deferred a tick).
  this.sync = true;
  this.bufferProcessing = false;
  this.onwrite = onwrite.bind(undefined, stream);
  this.writecb = null;
  this.writelen = 0;
  this.afterWriteTickInfo = null;
  resetBuffer(this);
  this.pendingcb = 0;
  this.constructed = true;
  this.prefinished = false;
  this.errorEmitted = false;
  this.emitClose = options?.emitClose !== false;
  this.autoDestroy = options?.autoDestroy !== false;
  this.errored = null;
  this.closed = false;
  this.closeEmitted = false;
  this[kOnFinished] = [];
}
function resetBuffer(state) {
  state.buffered = [];
  state.bufferedIndex = 0;
  state.allBuffers = true;
  state.allNoop = true;
}
WritableState.prototype.getBuffer = function getBuffer() {
  return this.buffered.slice(this.bufferedIndex);
};
Object.defineProperty(WritableState.prototype, "bufferedRequestCount", {
  get() { return this.buffered.length - this.bufferedIndex; },
});

export function Writable(options) {
  const isDuplex = isDuplexInstance(this);
  if (!isDuplex && !Function.prototype[Symbol.hasInstance].call(Writable, this)) return new Writable(options);
  this._writableState = new WritableState(options, this, isDuplex);
  if (options) {
    if (typeof options.write === "function") this._write = options.write;
    if (typeof options.writev === "function") this._writev = options.writev;
    if (typeof options.destroy === "function") this._destroy = options.destroy;
    if (typeof options.final === "function") this._final = options.final;
    if (typeof options.construct === "function") this._construct = options.construct;
    if (options.signal) addAbortSignal(options.signal, this);
  }
  Stream.call(this, options);
  construct(this, () => {
    const state = this._writableState;
    if (!state.writing) clearBuffer(this, state);
    finishMaybe(this, state);
  });
}
Object.setPrototypeOf(Writable.prototype, Stream.prototype);
Object.setPrototypeOf(Writable, Stream);
Writable.WritableState = WritableState;

// Duplex streams are instances of Writable too.
Object.defineProperty(Writable, Symbol.hasInstance, {
  value: function (object) {
    if (Function.prototype[Symbol.hasInstance].call(this, object)) return true;
    if (this !== Writable) return false;
    return !!(object && object._writableState instanceof WritableState);
  },
});

Writable.prototype.pipe = function () {
  errorOrDestroy(this, E.cannotPipe());
};

function _write(stream, chunk, encoding, cb) {
  const state = stream._writableState;
  if (typeof cb !== "function") cb = nop;
  if (chunk === null) throw E.nullValues();
  // Object mode passes the encoding through as given.
  if (!state.objectMode) {
    if (!encoding) encoding = state.defaultEncoding;
    else if (encoding !== "buffer" && !Buffer.isEncoding(encoding)) throw E.unknownEncoding(encoding);
    if (typeof chunk === "string") {
      if (state.decodeStrings !== false) {
        chunk = Buffer.from(chunk, encoding);
        encoding = "buffer";
      }
    } else if (chunk instanceof Buffer) {
      encoding = "buffer";
    } else if (isUint8Array(chunk)) {
      chunk = toBuffer(chunk);
      encoding = "buffer";
    } else {
      throw chunkTypeError(chunk);
    }
  }
  let err;
  if (state.ending) err = E.writeAfterEnd();
  else if (state.destroyed) err = E.destroyed("write");
  if (err) {
    nextTick(cb, err);
    errorOrDestroy(stream, err, true);
    return err;
  }
  state.pendingcb++;
  return writeOrBuffer(stream, state, chunk, encoding, cb);
}

Writable.prototype.write = function write(chunk, encoding, cb) {
  if (typeof encoding === "function") {
    cb = encoding;
    encoding = null;
  }
  return _write(this, chunk, encoding, cb) === true;
};
Writable.prototype.cork = function cork() {
  this._writableState.corked++;
};
Writable.prototype.uncork = function uncork() {
  const state = this._writableState;
  if (state.corked) {
    state.corked--;
    if (!state.writing) clearBuffer(this, state);
  }
};
Writable.prototype.setDefaultEncoding = function setDefaultEncoding(encoding) {
  if (typeof encoding === "string") encoding = encoding.toLowerCase();
  if (!Buffer.isEncoding(encoding)) throw E.unknownEncoding(encoding);
  this._writableState.defaultEncoding = encoding;
  return this;
};

// Writes now if idle, else queues; returns false once the high-water mark is reached.
function writeOrBuffer(stream, state, chunk, encoding, callback) {
  const len = state.objectMode ? 1 : chunk.length;
  state.length += len;
  if (state.writing || state.corked || state.errored || !state.constructed) {
    state.buffered.push({ chunk, encoding, callback });
    if (state.allBuffers && encoding !== "buffer") state.allBuffers = false;
    if (state.allNoop && callback !== nop) state.allNoop = false;
  } else {
    state.writelen = len;
    state.writecb = callback;
    state.writing = true;
    state.sync = true;
    stream._write(chunk, encoding, state.onwrite);
    state.sync = false;
  }
  // Measured after a synchronous _write, so a stream that keeps up never reports backpressure.
  const ret = state.length < state.highWaterMark || state.length === 0;
  if (!ret) state.needDrain = true;
  return ret && !state.errored && !state.destroyed;
}

function doWrite(stream, state, writev, len, chunk, encoding, cb) {
  state.writelen = len;
  state.writecb = cb;
  state.writing = true;
  state.sync = true;
  if (state.destroyed) state.onwrite(E.destroyed("write"));
  else if (writev) stream._writev(chunk, state.onwrite);
  else stream._write(chunk, encoding, state.onwrite);
  state.sync = false;
}

function onwriteError(stream, state, er, cb) {
  --state.pendingcb;
  cb(er);
  errorBuffer(state);
  errorOrDestroy(stream, er);
}

function onwrite(stream, er) {
  const state = stream._writableState;
  const sync = state.sync;
  const cb = state.writecb;
  if (typeof cb !== "function") {
    errorOrDestroy(stream, E.multipleCallback());
    return;
  }
  state.writing = false;
  state.writecb = null;
  state.length -= state.writelen;
  state.writelen = 0;
  if (er) {
    if (!state.errored) state.errored = er;
    if (stream._readableState && !stream._readableState.errored) stream._readableState.errored = er;
    if (sync) nextTick(onwriteError, stream, state, er, cb);
    else onwriteError(stream, state, er, cb);
  } else {
    if (state.buffered.length > state.bufferedIndex) clearBuffer(stream, state);
    if (sync) {
      // Batch the callbacks of synchronous writes into one tick.
      if (state.afterWriteTickInfo !== null && state.afterWriteTickInfo.cb === cb) {
        state.afterWriteTickInfo.count++;
      } else {
        state.afterWriteTickInfo = { count: 1, cb, stream, state };
        nextTick(afterWriteTick, state.afterWriteTickInfo);
      }
    } else {
      afterWrite(stream, state, 1, cb);
    }
  }
}

function afterWriteTick({ stream, state, count, cb }) {
  state.afterWriteTickInfo = null;
  return afterWrite(stream, state, count, cb);
}

function afterWrite(stream, state, count, cb) {
  const needDrain = !state.ending && !stream.destroyed && state.length === 0 && state.needDrain;
  if (needDrain) {
    state.needDrain = false;
    stream.emit("drain");
  }
  while (count-- > 0) {
    state.pendingcb--;
    cb(null);
  }
  if (state.destroyed) errorBuffer(state);
  finishMaybe(stream, state);
}

// Fails every queued write (and end() callback) after an error or destroy.
function errorBuffer(state) {
  if (state.writing) return;
  for (let n = state.bufferedIndex; n < state.buffered.length; ++n) {
    const { chunk, callback } = state.buffered[n];
    state.length -= state.objectMode ? 1 : chunk.length;
    callback(state.errored ?? E.destroyed("write"));
  }
  for (const cb of state[kOnFinished].splice(0)) cb(state.errored ?? E.destroyed("end"));
  resetBuffer(state);
}

function clearBuffer(stream, state) {
  if (state.corked || state.bufferProcessing || state.destroyed || !state.constructed) return;
  const { buffered, bufferedIndex, objectMode } = state;
  const bufferedLength = buffered.length - bufferedIndex;
  if (!bufferedLength) return;
  let i = bufferedIndex;
  state.bufferProcessing = true;
  if (bufferedLength > 1 && stream._writev) {
    state.pendingcb -= bufferedLength - 1;
    const callback = state.allNoop ? nop : (err) => {
      for (let n = i; n < buffered.length; ++n) buffered[n].callback(err);
    };
    const chunks = state.allNoop && i === 0 ? buffered : buffered.slice(i);
    chunks.allBuffers = state.allBuffers;
    doWrite(stream, state, true, state.length, chunks, "", callback);
    resetBuffer(state);
  } else {
    do {
      const { chunk, encoding, callback } = buffered[i];
      buffered[i++] = null;
      doWrite(stream, state, false, objectMode ? 1 : chunk.length, chunk, encoding, callback);
    } while (i < buffered.length && !state.writing);
    if (i === buffered.length) {
      resetBuffer(state);
    } else if (i > 256) {
      buffered.splice(0, i);
      state.bufferedIndex = 0;
    } else {
      state.bufferedIndex = i;
    }
  }
  state.bufferProcessing = false;
}

Writable.prototype._write = function (chunk, encoding, cb) {
  if (this._writev) this._writev([{ chunk, encoding }], cb);
  else throw E.notImplemented("_write()");
};
Writable.prototype._writev = null;

Writable.prototype.end = function end(chunk, encoding, cb) {
  const state = this._writableState;
  if (typeof chunk === "function") {
    cb = chunk;
    chunk = null;
    encoding = null;
  } else if (typeof encoding === "function") {
    cb = encoding;
    encoding = null;
  }
  let err;
  if (chunk !== null && chunk !== undefined) {
    const ret = _write(this, chunk, encoding);
    if (ret instanceof Error) err = ret;
  }
  if (state.corked) {
    state.corked = 1;
    this.uncork();
  }
  if (err) {
    // The write error is reported through the callback below.
  } else if (!state.errored && !state.ending) {
    state.ending = true;
    finishMaybe(this, state, true);
    state.ended = true;
  } else if (state.finished) {
    err = E.alreadyFinished("end");
  } else if (state.destroyed) {
    err = E.destroyed("end");
  }
  if (typeof cb === "function") {
    if (err) nextTick(cb, err);
    else if (state.errored) nextTick(cb, state.errored);
    else if (state.finished) nextTick(cb, null);
    else state[kOnFinished].push(cb);
  }
  return this;
};

function needFinish(state) {
  return state.ending && !state.destroyed && state.constructed && state.length === 0 && !state.errored &&
    state.buffered.length === 0 && !state.finished && !state.writing && !state.errorEmitted && !state.closeEmitted;
}

function callFinal(stream, state) {
  let called = false;
  function onFinish(err) {
    if (called) {
      errorOrDestroy(stream, err ?? E.multipleCallback());
      return;
    }
    called = true;
    state.pendingcb--;
    if (err) {
      for (const cb of state[kOnFinished].splice(0)) cb(err);
      errorOrDestroy(stream, err, state.sync);
    } else if (needFinish(state)) {
      state.prefinished = true;
      stream.emit("prefinish");
      state.pendingcb++;
      nextTick(finish, stream, state);
    }
  }
  state.sync = true;
  state.pendingcb++;
  try {
    stream._final(onFinish);
  } catch (err) {
    onFinish(err);
  }
  state.sync = false;
}

function prefinish(stream, state) {
  if (!state.prefinished && !state.finalCalled) {
    if (typeof stream._final === "function" && !state.destroyed) {
      state.finalCalled = true;
      callFinal(stream, state);
    } else {
      state.prefinished = true;
      stream.emit("prefinish");
    }
  }
}

function finishMaybe(stream, state, sync) {
  if (!needFinish(state)) return;
  prefinish(stream, state);
  if (state.pendingcb !== 0) return;
  if (sync) {
    state.pendingcb++;
    nextTick(() => {
      if (needFinish(state)) finish(stream, state);
      else state.pendingcb--;
    });
  } else if (needFinish(state)) {
    state.pendingcb++;
    finish(stream, state);
  }
}

function finish(stream, state) {
  state.pendingcb--;
  state.finished = true;
  for (const cb of state[kOnFinished].splice(0)) cb(null);
  stream.emit("finish");
  if (state.autoDestroy) {
    // Destroy once the readable side (if any) has ended too.
    const r = stream._readableState;
    if (!r || (r.autoDestroy && (r.endEmitted || r.readable === false))) stream.destroy();
  }
}

const writableProps = {
  closed: { get() { return this._writableState ? this._writableState.closed : false; } },
  destroyed: {
    get() { return this._writableState ? this._writableState.destroyed : false; },
    set(value) { if (this._writableState) this._writableState.destroyed = value; },
  },
  writable: {
    get() {
      const w = this._writableState;
      return !!w && w.writable !== false && !w.destroyed && !w.errored && !w.ending && !w.ended;
    },
    set(val) { if (this._writableState) this._writableState.writable = !!val; },
  },
  writableFinished: { get() { return this._writableState ? this._writableState.finished : false; } },
  writableObjectMode: { get() { return this._writableState ? this._writableState.objectMode : false; } },
  writableBuffer: { get() { return this._writableState && this._writableState.getBuffer(); } },
  writableEnded: { get() { return this._writableState ? this._writableState.ending : false; } },
  writableNeedDrain: {
    get() {
      const w = this._writableState;
      return !!w && !w.destroyed && !w.ending && w.needDrain;
    },
  },
  writableHighWaterMark: { get() { return this._writableState && this._writableState.highWaterMark; } },
  writableCorked: { get() { return this._writableState ? this._writableState.corked : 0; } },
  writableLength: { get() { return this._writableState && this._writableState.length; } },
  errored: { get() { return this._writableState ? this._writableState.errored : null; } },
  writableAborted: {
    get() {
      const w = this._writableState;
      return !!(w.writable !== false && (w.destroyed || w.errored) && !w.finished);
    },
  },
};
for (const d of Object.values(writableProps)) d.configurable = true;
Object.defineProperties(Writable.prototype, writableProps);

Writable.prototype.destroy = function (err, cb) {
  const state = this._writableState;
  // Fail pending writes on the next tick, after destroy has set errored.
  if (!state.destroyed && (state.bufferedIndex < state.buffered.length || state[kOnFinished].length)) nextTick(errorBuffer, state);
  destroy.call(this, err, cb);
  return this;
};
Writable.prototype._undestroy = undestroy;
Writable.prototype._destroy = function (err, cb) { cb(err); };
Writable.prototype[EventEmitter.captureRejectionSymbol] = function (err) { this.destroy(err); };

Writable.fromWeb = function () {
  throw new Error("node:stream.Writable.fromWeb is not supported by the Paseo plugin host yet");
};
Writable.toWeb = function () {
  throw new Error("node:stream.Writable.toWeb is not supported by the Paseo plugin host yet");
};

export { WritableState, _write, afterWrite, afterWriteTick, callFinal, clearBuffer, doWrite, errorBuffer, finish, finishMaybe, needFinish, onwrite, onwriteError, prefinish, resetBuffer, writableProps, writeOrBuffer };
