// node:stream: Readable, Writable, Duplex, Transform, PassThrough and the helpers around them
// (finished, pipeline, addAbortSignal, Readable.from/toWeb/fromWeb, the iterator operators).
// The state machines follow Node 20's (lib/internal/streams) so that event order, backpressure
// and error handling match: 'end' before 'close', 'finish' before 'close', errors destroy,
// autoDestroy and emitClose default to true. Derived from Node.js lib/internal/streams:
// Copyright Joyent, Inc. and other Node contributors. MIT licence; the notice is in NOTICE.
import { EventEmitter } from "node:events";
import { Buffer } from "node:buffer";
import { inspect } from "node:util";
import { nodeError, received } from "./internal_errors.js";
import { StringDecoder } from "node:string_decoder";
import process from "node:process";

const nextTick = (fn, ...args) => process.nextTick(fn, ...args);
const nop = () => {};
const kConstruct = Symbol("kConstruct");
const kDestroy = Symbol("kDestroy");
const kPaused = Symbol("kPaused");
const kOnFinished = Symbol("kOnFinished");
const kCallback = Symbol("kCallback");
const kIsDestroyed = Symbol.for("nodejs.stream.destroyed");

// ---------------------------------------------------------------------------------------------
// Errors, in Node's shapes (class, code, message); nodeError and received are shared.

const LOWER_TYPES = ["string", "function", "number", "object", "boolean", "bigint", "symbol", "Function", "Object"];
const joinOr = (items, prefix) => items.length > 2 ? `${prefix}${items.slice(0, -1).join(", ")}, or ${items.at(-1)}` : items.join(" or ");

// Node's ERR_INVALID_ARG_TYPE wording for a list of type names, class names and other phrases.
function invalidArgType(name, expected, value) {
  const types = [], instances = [], other = [];
  for (const t of expected) {
    if (LOWER_TYPES.includes(t)) types.push(t.toLowerCase());
    else if (/^([A-Z][a-z0-9]*)+$/.test(t)) instances.push(t);
    else other.push(t);
  }
  if (instances.length && types.includes("object")) {
    types.splice(types.indexOf("object"), 1);
    instances.push("Object");
  }
  const parts = [];
  if (types.length) parts.push(`${types.length > 1 ? "one of type" : "of type"} ${joinOr(types, "")}`);
  if (instances.length) parts.push(`an instance of ${joinOr(instances, "")}`);
  if (other.length) parts.push(other.length > 1 ? `one of ${joinOr(other, "")}` : `${other[0].toLowerCase() !== other[0] ? "an " : ""}${other[0]}`);
  const kind = name.includes(".") ? "property" : "argument";
  return nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "${name}" ${kind} must be ${parts.join(" or ")}. Received ${received(value)}`);
}
// Node says "of type string or an instance of …" for one type; keep that exact form.
const chunkTypeError = (chunk) => nodeError(TypeError, "ERR_INVALID_ARG_TYPE",
  `The "chunk" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ${received(chunk)}`);

const E = {
  notImplemented: (m) => nodeError(Error, "ERR_METHOD_NOT_IMPLEMENTED", `The ${m} method is not implemented`),
  pushAfterEOF: () => nodeError(Error, "ERR_STREAM_PUSH_AFTER_EOF", "stream.push() after EOF"),
  unshiftAfterEnd: () => nodeError(Error, "ERR_STREAM_UNSHIFT_AFTER_END_EVENT", "stream.unshift() after end event"),
  writeAfterEnd: () => nodeError(Error, "ERR_STREAM_WRITE_AFTER_END", "write after end"),
  destroyed: (m) => nodeError(Error, "ERR_STREAM_DESTROYED", `Cannot call ${m} after a stream was destroyed`),
  nullValues: () => nodeError(TypeError, "ERR_STREAM_NULL_VALUES", "May not write null values to stream"),
  multipleCallback: () => nodeError(Error, "ERR_MULTIPLE_CALLBACK", "Callback called multiple times"),
  cannotPipe: () => nodeError(Error, "ERR_STREAM_CANNOT_PIPE", "Cannot pipe, not readable"),
  alreadyFinished: (m) => nodeError(Error, "ERR_STREAM_ALREADY_FINISHED", `Cannot call ${m} after a stream was finished`),
  prematureClose: () => nodeError(Error, "ERR_STREAM_PREMATURE_CLOSE", "Premature close"),
  unknownEncoding: (enc) => nodeError(TypeError, "ERR_UNKNOWN_ENCODING", `Unknown encoding: ${enc}`),
  missingArgs: (name) => nodeError(TypeError, "ERR_MISSING_ARGS", `The "${name}" argument must be specified`),
  invalidArgValue: (name, value) => nodeError(TypeError, "ERR_INVALID_ARG_VALUE",
    `The ${name.includes(".") ? "property" : "argument"} '${name}' is invalid. Received ${inspect(value)}`),
  invalidReturn: (input, name, value) => nodeError(TypeError, "ERR_INVALID_RETURN_VALUE",
    `Expected ${input} to be returned from the "${name}" function but got ${received(value)}.`),
};

class AbortError extends Error {
  constructor(message = "The operation was aborted", options = undefined) {
    super(message, options);
    this.code = "ABORT_ERR";
    this.name = "AbortError";
  }
}

function aggregateTwoErrors(inner, outer) {
  if (inner && outer && inner !== outer) {
    if (Array.isArray(outer.errors)) { outer.errors.push(inner); return outer; }
    const err = new AggregateError([outer, inner], outer.message);
    err.code = outer.code;
    return err;
  }
  return inner || outer;
}

function once(fn) {
  let called = false;
  return function (...args) {
    if (called) return;
    called = true;
    return fn.apply(this, args);
  };
}

function validateFunction(fn, name) {
  if (typeof fn !== "function") throw invalidArgType(name, ["Function"], fn);
}
function validateAbortSignal(signal, name) {
  if (signal !== undefined && (signal === null || typeof signal !== "object" || !("aborted" in signal))) {
    throw invalidArgType(name, ["AbortSignal"], signal);
  }
}

// ---------------------------------------------------------------------------------------------
// What kind of stream a value is (duck-typed, as Node does it).

const isUint8Array = (v) => v instanceof Uint8Array;
const toBuffer = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

function isReadableNodeStream(obj, strict = false) {
  return !!(obj && typeof obj.pipe === "function" && typeof obj.on === "function" &&
    (!strict || (typeof obj.pause === "function" && typeof obj.resume === "function")) &&
    (!obj._writableState || obj._readableState?.readable !== false) &&
    (!obj._writableState || obj._readableState));
}
function isWritableNodeStream(obj) {
  return !!(obj && typeof obj.write === "function" && typeof obj.on === "function" &&
    (!obj._readableState || obj._writableState?.writable !== false));
}
function isDuplexNodeStream(obj) {
  return !!(obj && typeof obj.pipe === "function" && obj._readableState && typeof obj.on === "function" && typeof obj.write === "function");
}
function isNodeStream(obj) {
  return !!(obj && (obj._readableState || obj._writableState ||
    (typeof obj.write === "function" && typeof obj.on === "function") ||
    (typeof obj.pipe === "function" && typeof obj.on === "function")));
}
function isWebReadableStream(obj) {
  return !!(obj && !isNodeStream(obj) && typeof obj.pipeThrough === "function" && typeof obj.getReader === "function" && typeof obj.cancel === "function");
}
function isIterable(obj, isAsync) {
  if (obj == null) return false;
  if (isAsync === true) return typeof obj[Symbol.asyncIterator] === "function";
  if (isAsync === false) return typeof obj[Symbol.iterator] === "function";
  return typeof obj[Symbol.asyncIterator] === "function" || typeof obj[Symbol.iterator] === "function";
}
export function isDestroyed(stream) {
  if (!isNodeStream(stream)) return null;
  const state = stream._writableState || stream._readableState;
  return !!(stream.destroyed || stream[kIsDestroyed] || state?.destroyed);
}
function isWritableEnded(stream) {
  if (!isWritableNodeStream(stream)) return null;
  if (stream.writableEnded === true) return true;
  const w = stream._writableState;
  if (w?.errored) return false;
  if (typeof w?.ended !== "boolean") return null;
  return w.ended;
}
function isWritableFinished(stream, strict) {
  if (!isWritableNodeStream(stream)) return null;
  if (stream.writableFinished === true) return true;
  const w = stream._writableState;
  if (w?.errored) return false;
  if (typeof w?.finished !== "boolean") return null;
  return !!(w.finished || (strict === false && w.ended === true && w.length === 0));
}
function isReadableFinished(stream, strict) {
  if (!isReadableNodeStream(stream)) return null;
  const r = stream._readableState;
  if (r?.errored) return false;
  if (typeof r?.endEmitted !== "boolean") return null;
  return !!(r.endEmitted || (strict === false && r.ended === true && r.length === 0));
}
export function isReadable(stream) {
  if (typeof stream?.readable !== "boolean") return null;
  if (isDestroyed(stream)) return false;
  return isReadableNodeStream(stream) && stream.readable && !isReadableFinished(stream);
}
export function isWritable(stream) {
  if (typeof stream?.writable !== "boolean") return null;
  if (isDestroyed(stream)) return false;
  return isWritableNodeStream(stream) && stream.writable && !isWritableEnded(stream);
}
function isFinished(stream, opts) {
  if (!isNodeStream(stream) || isDestroyed(stream)) return false;
  if (opts?.readable !== false && isReadable(stream)) return false;
  if (opts?.writable !== false && isWritable(stream)) return false;
  return true;
}
function isClosed(stream) {
  if (!isNodeStream(stream)) return null;
  const w = stream._writableState, r = stream._readableState;
  if (typeof w?.closed === "boolean" || typeof r?.closed === "boolean") return w?.closed || r?.closed;
  return null;
}
function willEmitClose(stream) {
  if (!isNodeStream(stream)) return null;
  const state = stream._writableState || stream._readableState;
  return !!(state && state.autoDestroy && state.emitClose && state.closed === false);
}
const erroredOf = (stream, side) => isNodeStream(stream) ? (stream[`${side}Errored`] || (stream[`_${side}State`]?.errored ?? null)) : null;
export function isErrored(stream) {
  return !!(stream && isNodeStream(stream) && (stream.readableErrored ?? stream.writableErrored ??
    stream._readableState?.errorEmitted ?? stream._writableState?.errorEmitted ??
    stream._readableState?.errored ?? stream._writableState?.errored));
}
export function isDisturbed(stream) {
  return !!(stream && (stream.readableDidRead || stream.readableAborted));
}
const isRequest = (stream) => stream && stream.setHeader && typeof stream.abort === "function";

// ---------------------------------------------------------------------------------------------
// Destruction and (async) construction, shared by both sides.

function destroy(err, cb) {
  const r = this._readableState, w = this._writableState;
  const s = w || r;
  if (w?.destroyed || r?.destroyed) {
    if (typeof cb === "function") cb();
    return this;
  }
  checkError(err, w, r);
  if (w) w.destroyed = true;
  if (r) r.destroyed = true;
  if (!s.constructed) {
    this.once(kDestroy, function (er) { _destroy(this, aggregateTwoErrors(er, err), cb); });
  } else {
    _destroy(this, err, cb);
  }
  return this;
}

function _destroy(self, err, cb) {
  let called = false;
  function onDestroy(err) {
    if (called) return;
    called = true;
    const r = self._readableState, w = self._writableState;
    checkError(err, w, r);
    if (w) w.closed = true;
    if (r) r.closed = true;
    if (typeof cb === "function") cb(err);
    if (err) nextTick(emitErrorCloseNT, self, err);
    else nextTick(emitCloseNT, self);
  }
  try {
    self._destroy(err || null, onDestroy);
  } catch (e) {
    onDestroy(e);
  }
}

function checkError(err, w, r) {
  if (!err) return;
  if (w && !w.errored) w.errored = err;
  if (r && !r.errored) r.errored = err;
}

function emitErrorCloseNT(self, err) {
  emitErrorNT(self, err);
  emitCloseNT(self);
}
function emitCloseNT(self) {
  const r = self._readableState, w = self._writableState;
  if (w) w.closeEmitted = true;
  if (r) r.closeEmitted = true;
  if (w?.emitClose || r?.emitClose) self.emit("close");
}
function emitErrorNT(self, err) {
  const r = self._readableState, w = self._writableState;
  if (w?.errorEmitted || r?.errorEmitted) return;
  if (w) w.errorEmitted = true;
  if (r) r.errorEmitted = true;
  self.emit("error", err);
}

function undestroy() {
  const r = this._readableState, w = this._writableState;
  if (r) {
    r.constructed = true; r.closed = false; r.closeEmitted = false; r.destroyed = false; r.errored = null;
    r.errorEmitted = false; r.reading = false; r.ended = r.readable === false; r.endEmitted = r.readable === false;
  }
  if (w) {
    w.constructed = true; w.destroyed = false; w.closed = false; w.closeEmitted = false; w.errored = null;
    w.errorEmitted = false; w.finalCalled = false; w.prefinished = false; w.ended = w.writable === false;
    w.ending = w.writable === false; w.finished = w.writable === false;
  }
}

function errorOrDestroy(stream, err, sync) {
  const r = stream._readableState, w = stream._writableState;
  if (w?.destroyed || r?.destroyed) return;
  if (r?.autoDestroy || w?.autoDestroy) {
    stream.destroy(err);
  } else if (err) {
    checkError(err, w, r);
    if (sync) nextTick(emitErrorNT, stream, err);
    else emitErrorNT(stream, err);
  }
}

function construct(stream, cb) {
  if (typeof stream._construct !== "function") return;
  const r = stream._readableState, w = stream._writableState;
  if (r) r.constructed = false;
  if (w) w.constructed = false;
  stream.once(kConstruct, cb);
  if (stream.listenerCount(kConstruct) > 1) return; // Duplex: already scheduled
  nextTick(constructNT, stream);
}
function constructNT(stream) {
  let called = false;
  function onConstruct(err) {
    if (called) {
      errorOrDestroy(stream, err ?? E.multipleCallback());
      return;
    }
    called = true;
    const r = stream._readableState, w = stream._writableState;
    const s = w || r;
    if (r) r.constructed = true;
    if (w) w.constructed = true;
    if (s.destroyed) stream.emit(kDestroy, err);
    else if (err) errorOrDestroy(stream, err, true);
    else nextTick(() => stream.emit(kConstruct));
  }
  try {
    stream._construct((err) => nextTick(onConstruct, err));
  } catch (err) {
    nextTick(onConstruct, err);
  }
}

// Destroys any stream-like thing (used by pipeline and the iterator).
function destroyer(stream, err) {
  if (!stream || isDestroyed(stream)) return;
  if (!err && !isFinished(stream)) err = new AbortError();
  if (isRequest(stream)) stream.abort();
  else if (isRequest(stream.req)) stream.req.abort();
  else if (typeof stream.destroy === "function") stream.destroy(err);
  else if (typeof stream.close === "function") stream.close();
  else if (err) nextTick(() => stream.emit("error", err));
  else nextTick(() => stream.emit("close"));
  if (!stream.destroyed) stream[kIsDestroyed] = true;
}
export { destroyer as destroy };

// ---------------------------------------------------------------------------------------------
// finished(stream[, options], callback): calls back once when the stream is done or failed.

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

// ---------------------------------------------------------------------------------------------
// Legacy Stream: the base class (an EventEmitter with the old pipe()).

export function Stream(opts) {
  EventEmitter.call(this, opts);
}
Object.setPrototypeOf(Stream.prototype, EventEmitter.prototype);
Object.setPrototypeOf(Stream, EventEmitter);

Stream.prototype.pipe = function pipe(dest, options) {
  const source = this;
  function ondata(chunk) {
    if (dest.writable && dest.write(chunk) === false && source.pause) source.pause();
  }
  function ondrain() {
    if (source.readable && source.resume) source.resume();
  }
  let didOnEnd = false;
  function onend() {
    if (didOnEnd) return;
    didOnEnd = true;
    dest.end();
  }
  function onclose() {
    if (didOnEnd) return;
    didOnEnd = true;
    if (typeof dest.destroy === "function") dest.destroy();
  }
  function onerror(er) {
    cleanup();
    if (this.listenerCount("error") === 0) this.emit("error", er);
  }
  function cleanup() {
    source.removeListener("data", ondata);
    dest.removeListener("drain", ondrain);
    source.removeListener("end", onend);
    source.removeListener("close", onclose);
    source.removeListener("error", onerror);
    dest.removeListener("error", onerror);
    source.removeListener("end", cleanup);
    source.removeListener("close", cleanup);
    dest.removeListener("close", cleanup);
  }
  source.on("data", ondata);
  dest.on("drain", ondrain);
  if (!dest._isStdio && options?.end !== false) {
    source.on("end", onend);
    source.on("close", onclose);
  }
  prependListener(source, "error", onerror);
  prependListener(dest, "error", onerror);
  source.on("end", cleanup);
  source.on("close", cleanup);
  dest.on("close", cleanup);
  dest.emit("pipe", source);
  return dest;
};

function prependListener(emitter, event, fn) {
  if (typeof emitter.prependListener === "function") return emitter.prependListener(event, fn);
  emitter.on(event, fn);
}

let defaultHwmBytes = 16 * 1024;
let defaultHwmObjects = 16;
export function getDefaultHighWaterMark(objectMode) {
  return objectMode ? defaultHwmObjects : defaultHwmBytes;
}
export function setDefaultHighWaterMark(objectMode, value) {
  if (!Number.isInteger(value) || value < 0) throw E.invalidArgValue("value", value);
  if (objectMode) defaultHwmObjects = value;
  else defaultHwmBytes = value;
}
function getHighWaterMark(state, options, duplexKey, isDuplex) {
  const hwm = options.highWaterMark != null ? options.highWaterMark : isDuplex ? options[duplexKey] : null;
  if (hwm != null) {
    if (!Number.isInteger(hwm) || hwm < 0) throw E.invalidArgValue(isDuplex ? `options.${duplexKey}` : "options.highWaterMark", hwm);
    return Math.floor(hwm);
  }
  return getDefaultHighWaterMark(state.objectMode);
}

// ---------------------------------------------------------------------------------------------
// Readable

function ReadableState(options, stream, isDuplex) {
  if (typeof isDuplex !== "boolean") isDuplex = stream instanceof Duplex;
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
  const isDuplex = this instanceof Duplex;
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

function readableFrom(Ctor, iterable, opts) {
  if (typeof iterable === "string" || iterable instanceof Buffer) {
    return new Ctor({
      objectMode: true,
      ...opts,
      read() {
        this.push(iterable);
        this.push(null);
      },
    });
  }
  let iterator, isAsync;
  if (iterable && typeof iterable[Symbol.asyncIterator] === "function") {
    isAsync = true;
    iterator = iterable[Symbol.asyncIterator]();
  } else if (iterable && typeof iterable[Symbol.iterator] === "function") {
    isAsync = false;
    iterator = iterable[Symbol.iterator]();
  } else {
    throw invalidArgType("iterable", ["Iterable"], iterable);
  }
  const readable = new Ctor({ objectMode: true, highWaterMark: 1, ...opts });
  let reading = false;
  readable._read = function () {
    if (!reading) {
      reading = true;
      next();
    }
  };
  readable._destroy = function (error, cb) {
    close(error).then(() => nextTick(cb, error), (e) => nextTick(cb, e || error));
  };
  async function close(error) {
    const hadError = error !== undefined && error !== null;
    if (hadError && typeof iterator.throw === "function") {
      const { value, done } = await iterator.throw(error);
      await value;
      if (done) return;
    }
    if (typeof iterator.return === "function") {
      const { value } = await iterator.return();
      await value;
    }
  }
  async function next() {
    for (;;) {
      try {
        const { value, done } = isAsync ? await iterator.next() : iterator.next();
        if (done) {
          readable.push(null);
        } else {
          const res = value && typeof value.then === "function" ? await value : value;
          if (res === null) {
            reading = false;
            throw E.nullValues();
          } else if (readable.push(res)) {
            continue;
          } else {
            reading = false;
          }
        }
      } catch (err) {
        readable.destroy(err);
      }
      break;
    }
  }
  return readable;
}

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

// Iterator helpers (Node's experimental operators), run one chunk at a time.
function operatorOptions(options) {
  if (options != null && typeof options !== "object") throw invalidArgType("options", ["Object"], options);
  validateAbortSignal(options?.signal, "options.signal");
  return options?.signal;
}
function throwIfAborted(signal) {
  if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
}
const streamOperators = {
  map(fn, options) {
    validateFunction(fn, "fn");
    const signal = operatorOptions(options);
    const src = this;
    return Readable.from((async function* () {
      for await (const chunk of src) {
        throwIfAborted(signal);
        yield await fn(chunk, { signal });
      }
    })());
  },
  filter(fn, options) {
    validateFunction(fn, "fn");
    const signal = operatorOptions(options);
    const src = this;
    return Readable.from((async function* () {
      for await (const chunk of src) {
        throwIfAborted(signal);
        if (await fn(chunk, { signal })) yield chunk;
      }
    })());
  },
  flatMap(fn, options) {
    const mapped = this.map(fn, options);
    return Readable.from((async function* () {
      for await (const inner of mapped) yield* inner;
    })());
  },
  take(number, options) {
    const signal = operatorOptions(options);
    const src = this;
    number = toIntegerOrInfinity(number);
    return Readable.from((async function* () {
      throwIfAborted(signal);
      if (number <= 0) return;
      for await (const chunk of src) {
        throwIfAborted(signal);
        yield chunk;
        if (--number <= 0) return;
      }
    })());
  },
  drop(number, options) {
    const signal = operatorOptions(options);
    const src = this;
    number = toIntegerOrInfinity(number);
    return Readable.from((async function* () {
      throwIfAborted(signal);
      for await (const chunk of src) {
        throwIfAborted(signal);
        if (number-- <= 0) yield chunk;
      }
    })());
  },
  asIndexedPairs(options) {
    const signal = operatorOptions(options);
    const src = this;
    return Readable.from((async function* () {
      let index = 0;
      for await (const chunk of src) {
        throwIfAborted(signal);
        yield [index++, chunk];
      }
    })());
  },
  compose() {
    throw new Error("node:stream.Readable.prototype.compose is not supported by the Paseo plugin host yet");
  },
};
const promiseOperators = {
  async toArray(options) {
    const signal = operatorOptions(options);
    const result = [];
    for await (const chunk of this) {
      throwIfAborted(signal);
      result.push(chunk);
    }
    return result;
  },
  async forEach(fn, options) {
    validateFunction(fn, "fn");
    const signal = operatorOptions(options);
    for await (const chunk of this) {
      throwIfAborted(signal);
      await fn(chunk, { signal });
    }
  },
  async some(fn, options) {
    validateFunction(fn, "fn");
    const signal = operatorOptions(options);
    for await (const chunk of this) {
      throwIfAborted(signal);
      if (await fn(chunk, { signal })) return true;
    }
    return false;
  },
  async every(fn, options) {
    validateFunction(fn, "fn");
    return !(await this.some(async (...args) => !(await fn(...args)), options));
  },
  async find(fn, options) {
    validateFunction(fn, "fn");
    const signal = operatorOptions(options);
    for await (const chunk of this) {
      throwIfAborted(signal);
      if (await fn(chunk, { signal })) return chunk;
    }
    return undefined;
  },
  async reduce(reducer, initialValue, options) {
    validateFunction(reducer, "reducer");
    const signal = operatorOptions(options);
    let hasInitial = arguments.length > 1;
    let acc = initialValue;
    for await (const chunk of this) {
      throwIfAborted(signal);
      if (!hasInitial) {
        acc = chunk;
        hasInitial = true;
      } else {
        acc = await reducer(acc, chunk, { signal });
      }
    }
    if (!hasInitial) throw nodeError(TypeError, "ERR_MISSING_ARGS", "Reduce of an empty stream requires an initial value");
    return acc;
  },
};
function toIntegerOrInfinity(number) {
  number = Number(number);
  if (Number.isNaN(number)) return 0;
  if (number < 0) throw nodeError(RangeError, "ERR_OUT_OF_RANGE", `The value of "number" is out of range. It must be >= 0. Received ${number}`);
  return Math.trunc(number);
}
for (const [name, fn] of Object.entries({ ...streamOperators, ...promiseOperators })) {
  Object.defineProperty(Readable.prototype, name, { value: fn, writable: true, configurable: true, enumerable: false });
}

// ---------------------------------------------------------------------------------------------
// Writable

function WritableState(options, stream, isDuplex) {
  if (typeof isDuplex !== "boolean") isDuplex = stream instanceof Duplex;
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
  const isDuplex = this instanceof Duplex;
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

// ---------------------------------------------------------------------------------------------
// Duplex: a Readable that is also a Writable (both states, one object).

export function Duplex(options) {
  if (!(this instanceof Duplex)) return new Duplex(options);
  this._readableState = new ReadableState(options, this, true);
  this._writableState = new WritableState(options, this, true);
  if (options) {
    this.allowHalfOpen = options.allowHalfOpen !== false;
    if (options.readable === false) {
      this._readableState.readable = false;
      this._readableState.ended = true;
      this._readableState.endEmitted = true;
    }
    if (options.writable === false) {
      const w = this._writableState;
      w.writable = false;
      w.ending = w.ended = w.finished = true;
    }
    for (const name of ["read", "write", "writev", "destroy", "final", "construct"]) {
      if (typeof options[name] === "function") this[`_${name}`] = options[name];
    }
    if (options.signal) addAbortSignal(options.signal, this);
  } else {
    this.allowHalfOpen = true;
  }
  Stream.call(this, options);
  construct(this, () => {
    const r = this._readableState, w = this._writableState;
    if (r.needReadable) maybeReadMore(this, r);
    if (!w.writing) clearBuffer(this, w);
    finishMaybe(this, w);
  });
}
Object.setPrototypeOf(Duplex.prototype, Readable.prototype);
Object.setPrototypeOf(Duplex, Readable);
for (const method of Object.keys(Writable.prototype)) {
  if (!Duplex.prototype[method]) Duplex.prototype[method] = Writable.prototype[method];
}
Duplex.prototype.destroy = Writable.prototype.destroy;
{
  const w = Object.getOwnPropertyDescriptors(Writable.prototype);
  const props = {};
  for (const name of ["writable", "writableHighWaterMark", "writableObjectMode", "writableBuffer", "writableLength",
    "writableFinished", "writableCorked", "writableEnded", "writableNeedDrain"]) props[name] = w[name];
  props.destroyed = {
    get() {
      if (this._readableState === undefined || this._writableState === undefined) return false;
      return this._readableState.destroyed && this._writableState.destroyed;
    },
    set(value) {
      if (this._readableState && this._writableState) {
        this._readableState.destroyed = value;
        this._writableState.destroyed = value;
      }
    },
    configurable: true,
  };
  Object.defineProperties(Duplex.prototype, props);
}

Duplex.from = function from(body) {
  return duplexify(body, "body");
};
Duplex.fromWeb = function () {
  throw new Error("node:stream.Duplex.fromWeb is not supported by the Paseo plugin host yet");
};
Duplex.toWeb = function () {
  throw new Error("node:stream.Duplex.toWeb is not supported by the Paseo plugin host yet");
};

function duplexify(body, name) {
  if (isDuplexNodeStream(body)) return body;
  if (typeof Blob === "function" && body instanceof Blob) return duplexify(Readable.fromWeb(body.stream()), name);
  if (isReadableNodeStream(body)) return duplexPair({ readable: body });
  if (isWritableNodeStream(body)) return duplexPair({ writable: body });
  if (isNodeStream(body)) return duplexPair({ writable: false, readable: false });
  if (typeof body === "function") {
    // An async generator function of its source: the written chunks go in, what it yields comes out.
    const input = new PassThrough({ objectMode: true, highWaterMark: 1 });
    const output = body(input[Symbol.asyncIterator]());
    if (isIterable(output)) return duplexPair({ readable: Readable.from(output), writable: input });
    if (typeof output?.then === "function") {
      const d = duplexPair({ writable: input });
      output.then(null, (err) => d.destroy(err));
      return d;
    }
    throw E.invalidReturn("Iterable, AsyncIterable or AsyncFunction", name, output);
  }
  if (isIterable(body)) return readableFrom(Duplex, body, { objectMode: true, writable: false });
  if (typeof body?.then === "function") {
    const d = new Duplex({ objectMode: true, writable: false, read() {} });
    body.then((val) => {
      if (val != null) d.push(val);
      d.push(null);
    }, (err) => destroyer(d, err));
    return d;
  }
  if (body && typeof body === "object" && (body.readable !== undefined || body.writable !== undefined)) {
    const readable = body.readable && isReadableNodeStream(body.readable) ? body.readable : body.readable ? duplexify(body.readable) : undefined;
    const writable = body.writable && isWritableNodeStream(body.writable) ? body.writable : body.writable ? duplexify(body.writable) : undefined;
    return duplexPair({ readable, writable });
  }
  throw invalidArgType(name, ["Blob", "ReadableStream", "WritableStream", "Stream", "Iterable", "AsyncIterable", "Function", "{ readable, writable } pair", "Promise"], body);
}

// One Duplex whose writable side writes to `pair.writable` and whose readable side reads `pair.readable`.
function duplexPair(pair) {
  const r = pair.readable && typeof pair.readable.read !== "function" ? Readable.wrap(pair.readable) : pair.readable;
  const w = pair.writable;
  let readable = !!isReadable(r);
  let writable = !!isWritable(w);
  let ondrain, onfinish, onreadable, onclose, d;
  function onfinished(err) {
    const cb = onclose;
    onclose = null;
    if (cb) cb(err);
    else if (err) d.destroy(err);
  }
  d = new Duplex({
    readableObjectMode: !!r?.readableObjectMode,
    writableObjectMode: !!w?.writableObjectMode,
    readable,
    writable,
  });
  if (writable) {
    finished(w, (err) => {
      writable = false;
      if (err) destroyer(r, err);
      onfinished(err);
    });
    d._write = function (chunk, encoding, callback) {
      if (w.write(chunk, encoding)) callback();
      else ondrain = callback;
    };
    d._final = function (callback) {
      w.end();
      onfinish = callback;
    };
    w.on("drain", () => {
      if (ondrain) {
        const cb = ondrain;
        ondrain = null;
        cb();
      }
    });
    w.on("finish", () => {
      if (onfinish) {
        const cb = onfinish;
        onfinish = null;
        cb();
      }
    });
  }
  if (readable) {
    finished(r, (err) => {
      readable = false;
      if (err) destroyer(r, err);
      onfinished(err);
    });
    r.on("readable", () => {
      if (onreadable) {
        const cb = onreadable;
        onreadable = null;
        cb();
      }
    });
    r.on("end", () => d.push(null));
    d._read = function () {
      while (true) {
        const buf = r.read();
        if (buf === null) {
          onreadable = d._read;
          return;
        }
        if (!d.push(buf)) return;
      }
    };
  }
  d._destroy = function (err, callback) {
    if (!err && onclose !== null) err = new AbortError();
    onreadable = ondrain = onfinish = null;
    if (onclose === null) {
      callback(err);
    } else {
      onclose = callback;
      destroyer(w, err);
      destroyer(r, err);
    }
  };
  return d;
}

// ---------------------------------------------------------------------------------------------
// Transform and PassThrough

export function Transform(options) {
  if (!(this instanceof Transform)) return new Transform(options);
  // A readable hwm of 0 would stall the transform; let the writable side buffer instead.
  const readableHighWaterMark = options ? getHighWaterMark(this, options, "readableHighWaterMark", true) : null;
  if (readableHighWaterMark === 0) {
    options = { ...options, highWaterMark: null, readableHighWaterMark, writableHighWaterMark: options.writableHighWaterMark || 0 };
  }
  Duplex.call(this, options);
  this._readableState.sync = false;
  this[kCallback] = null;
  if (options) {
    if (typeof options.transform === "function") this._transform = options.transform;
    if (typeof options.flush === "function") this._flush = options.flush;
  }
  this.on("prefinish", transformPrefinish);
}
Object.setPrototypeOf(Transform.prototype, Duplex.prototype);
Object.setPrototypeOf(Transform, Duplex);

function transformFinal(cb) {
  if (typeof this._flush === "function" && !this.destroyed) {
    this._flush((er, data) => {
      if (er) {
        if (cb) cb(er);
        else this.destroy(er);
        return;
      }
      if (data != null) this.push(data);
      this.push(null);
      if (cb) cb();
    });
  } else {
    this.push(null);
    if (cb) cb();
  }
}
function transformPrefinish() {
  if (this._final !== transformFinal) transformFinal.call(this);
}
Transform.prototype._final = transformFinal;

Transform.prototype._transform = function () {
  throw E.notImplemented("_transform()");
};

Transform.prototype._write = function (chunk, encoding, callback) {
  const rState = this._readableState;
  const wState = this._writableState;
  const length = rState.length;
  this._transform(chunk, encoding, (err, val) => {
    if (err) {
      callback(err);
      return;
    }
    if (val != null) this.push(val);
    if (rState.ended) {
      nextTick(callback);
    } else if (wState.ended || length === rState.length || rState.length < rState.highWaterMark) {
      callback();
    } else {
      // The readable side is full: take the next chunk when it is read.
      this[kCallback] = callback;
    }
  });
};

Transform.prototype._read = function () {
  if (this[kCallback]) {
    const callback = this[kCallback];
    this[kCallback] = null;
    callback();
  }
};

export function PassThrough(options) {
  if (!(this instanceof PassThrough)) return new PassThrough(options);
  Transform.call(this, options);
}
Object.setPrototypeOf(PassThrough.prototype, Transform.prototype);
Object.setPrototypeOf(PassThrough, Transform);
PassThrough.prototype._transform = function (chunk, encoding, cb) {
  cb(null, chunk);
};

// ---------------------------------------------------------------------------------------------
// addAbortSignal, pipeline, compose

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

export function compose() {
  throw new Error("node:stream.compose is not supported by the Paseo plugin host yet");
}

function duplexPairFn() {
  throw new Error("node:stream.duplexPair is not supported by the Paseo plugin host yet");
}

// ---------------------------------------------------------------------------------------------
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
