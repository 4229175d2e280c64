// What kind of stream a value is (duck-typed, as Node does it), and shared symbols.
// Derived from Node.js lib/internal/streams/utils.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { Buffer } from "node:buffer";
import process from "node:process";

const nextTick = (fn, ...args) => process.nextTick(fn, ...args);
const nop = () => {};
const kConstruct = Symbol("kConstruct");
const kDestroy = Symbol("kDestroy");
const kPaused = Symbol("kPaused");
const kOnFinished = Symbol("kOnFinished");
const kCallback = Symbol("kCallback");
const kIsDestroyed = Symbol.for("nodejs.stream.destroyed");

function once(fn) {
  let called = false;
  return function (...args) {
    if (called) return;
    called = true;
    return fn.apply(this, args);
  };
}

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

// duplex.js sets this: readable.js and writable.js tell a Duplex apart without importing it (as
// Node requires it lazily there), so that Readable is complete before Duplex copies from it.
export const late = { Duplex: null };
export const isDuplexInstance = (v) => late.Duplex !== null && v instanceof late.Duplex;

export { erroredOf, isClosed, isDuplexNodeStream, isFinished, isIterable, isNodeStream, isReadableFinished, isReadableNodeStream, isRequest, isUint8Array, isWebReadableStream, isWritableEnded, isWritableFinished, isWritableNodeStream, kCallback, kConstruct, kDestroy, kIsDestroyed, kOnFinished, kPaused, nextTick, nop, once, toBuffer, willEmitClose };
