// node:zlib — gzip, deflate (zlib) and raw deflate, and unzip, in Node's sync, callback,
// promisified (util.promisify) and stream forms, on the engine's codecs
// (runtime/src/node/zlib.rs); brotli too (its compressing stream emits at the end).
import { ops } from "paseo:internal/core";
import { ioCallback } from "paseo:internal/timers";
import { Buffer } from "node:buffer";
import { Transform } from "node:stream";
import { received } from "./internal_errors.js";

export const constants = Object.freeze({
  Z_NO_FLUSH: 0, Z_PARTIAL_FLUSH: 1, Z_SYNC_FLUSH: 2, Z_FULL_FLUSH: 3, Z_FINISH: 4, Z_BLOCK: 5,
  Z_OK: 0, Z_STREAM_END: 1, Z_NEED_DICT: 2, Z_ERRNO: -1, Z_STREAM_ERROR: -2, Z_DATA_ERROR: -3,
  Z_MEM_ERROR: -4, Z_BUF_ERROR: -5, Z_VERSION_ERROR: -6,
  Z_NO_COMPRESSION: 0, Z_BEST_SPEED: 1, Z_BEST_COMPRESSION: 9, Z_DEFAULT_COMPRESSION: -1,
  Z_FILTERED: 1, Z_HUFFMAN_ONLY: 2, Z_RLE: 3, Z_FIXED: 4, Z_DEFAULT_STRATEGY: 0, ZLIB_VERNUM: 4865,
  DEFLATE: 1, INFLATE: 2, GZIP: 3, GUNZIP: 4, DEFLATERAW: 5, INFLATERAW: 6, UNZIP: 7,
  Z_MIN_WINDOWBITS: 8, Z_MAX_WINDOWBITS: 15, Z_DEFAULT_WINDOWBITS: 15,
  Z_MIN_CHUNK: 64, Z_MAX_CHUNK: Infinity, Z_DEFAULT_CHUNK: 16384,
  Z_MIN_MEMLEVEL: 1, Z_MAX_MEMLEVEL: 9, Z_DEFAULT_MEMLEVEL: 8,
  Z_MIN_LEVEL: -1, Z_MAX_LEVEL: 9, Z_DEFAULT_LEVEL: -1,
  BROTLI_OPERATION_PROCESS: 0, BROTLI_OPERATION_FLUSH: 1, BROTLI_OPERATION_FINISH: 2, BROTLI_OPERATION_EMIT_METADATA: 3,
  BROTLI_PARAM_MODE: 0, BROTLI_MODE_GENERIC: 0, BROTLI_MODE_TEXT: 1, BROTLI_MODE_FONT: 2, BROTLI_DEFAULT_MODE: 0,
  BROTLI_PARAM_QUALITY: 1, BROTLI_MIN_QUALITY: 0, BROTLI_MAX_QUALITY: 11, BROTLI_DEFAULT_QUALITY: 11,
  BROTLI_PARAM_LGWIN: 2, BROTLI_MIN_WINDOW_BITS: 10, BROTLI_MAX_WINDOW_BITS: 24, BROTLI_LARGE_MAX_WINDOW_BITS: 30,
  BROTLI_DEFAULT_WINDOW: 22, BROTLI_PARAM_LGBLOCK: 3, BROTLI_MIN_INPUT_BLOCK_BITS: 16, BROTLI_MAX_INPUT_BLOCK_BITS: 24,
  BROTLI_PARAM_DISABLE_LITERAL_CONTEXT_MODELING: 4, BROTLI_PARAM_SIZE_HINT: 5, BROTLI_PARAM_LARGE_WINDOW: 6,
  BROTLI_PARAM_NPOSTFIX: 7, BROTLI_PARAM_NDIRECT: 8,
});

const KIND = { Gzip: 0, Gunzip: 1, Deflate: 2, Inflate: 3, DeflateRaw: 4, InflateRaw: 5, Unzip: 6, BrotliCompress: 7, BrotliDecompress: 8 };
const MAX_LENGTH = 2 ** 32;

function invalidArg(message) {
  return Object.assign(new TypeError(message), { code: "ERR_INVALID_ARG_TYPE" });
}

function bytesOf(buffer) {
  if (typeof buffer === "string") return Buffer.from(buffer);
  if (buffer instanceof ArrayBuffer) return new Uint8Array(buffer);
  if (ArrayBuffer.isView(buffer)) return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  throw invalidArg(`The "buffer" argument must be of type string or an instance of Buffer, TypedArray, DataView, or ArrayBuffer. Received ${received(buffer)}`);
}

function levelOf(options) {
  const level = options?.level ?? -1;
  if (typeof level !== "number") throw invalidArg('The "options.level" property must be of type number.');
  return level;
}

function maxOutput(options) {
  return options?.maxOutputLength ?? MAX_LENGTH;
}

function oneShot(kind, buffer, options) {
  const bytes = bytesOf(buffer);
  const id = ops.op_zlib_new(kind, levelOf(options));
  // `finishFlush: Z_SYNC_FLUSH` (Node's way to read a truncated stream): everything that can
  // come out does, and a missing end is no error.
  const whole = options?.finishFlush === undefined || options.finishFlush === constants.Z_FINISH ||
    kind === KIND.BrotliCompress || kind === KIND.BrotliDecompress;
  try {
    return Buffer.from(ops.op_zlib_write(id, bytes, whole, !whole, maxOutput(options)));
  } finally {
    ops.op_zlib_close(id);
  }
}

function callbackForm(kind) {
  return function (buffer, options, callback) {
    if (typeof options === "function") [options, callback] = [{}, options];
    if (typeof callback !== "function") throw invalidArg('The "callback" argument must be of type function.');
    let result, error = null;
    try {
      result = oneShot(kind, buffer, options);
    } catch (e) {
      error = e;
    }
    if (error) ioCallback(callback, error);
    else ioCallback(callback, null, result);
  };
}

export const gzipSync = (buffer, options) => oneShot(KIND.Gzip, buffer, options);
export const gunzipSync = (buffer, options) => oneShot(KIND.Gunzip, buffer, options);
export const deflateSync = (buffer, options) => oneShot(KIND.Deflate, buffer, options);
export const inflateSync = (buffer, options) => oneShot(KIND.Inflate, buffer, options);
export const deflateRawSync = (buffer, options) => oneShot(KIND.DeflateRaw, buffer, options);
export const inflateRawSync = (buffer, options) => oneShot(KIND.InflateRaw, buffer, options);
export const unzipSync = (buffer, options) => oneShot(KIND.Unzip, buffer, options);
export const gzip = callbackForm(KIND.Gzip);
export const gunzip = callbackForm(KIND.Gunzip);
export const deflate = callbackForm(KIND.Deflate);
export const inflate = callbackForm(KIND.Inflate);
export const deflateRaw = callbackForm(KIND.DeflateRaw);
export const inflateRaw = callbackForm(KIND.InflateRaw);
export const unzip = callbackForm(KIND.Unzip);

/** The stream form: output leaves after every chunk, and the end writes the trailer. */
class ZlibBase extends Transform {
  #id;
  #max;
  #written = 0;
  constructor(kind, options) {
    super({ ...options, objectMode: false });
    this.#kind = kind;
    this.#level = levelOf(options);
    this.#id = ops.op_zlib_new(kind, this.#level);
    this.#max = maxOutput(options);
    this.bytesWritten = 0;
  }
  #kind;
  #level;
  #feed(chunk, finish, syncFlush = false) {
    const out = this.#step(chunk, finish, syncFlush);
    if (out.length) this.push(out);
  }
  #step(chunk, finish, syncFlush) {
    if (this.#id === null) {
      const err = new Error("zlib binding closed");
      err.code = "ERR_ZLIB_BINDING_CLOSED";
      throw err;
    }
    const out = ops.op_zlib_write(this.#id, chunk, finish, syncFlush, this.#max - this.#written);
    this.#written += out.length;
    if (finish) this.#id = null;
    return Buffer.from(out);
  }
  // Node's synchronous core, which minizlib (tar, npm's packages) calls directly: the chunk's
  // output for `flushFlag` (Z_FINISH ends the stream and closes the handle, as Node's does;
  // Z_SYNC_FLUSH and Z_FULL_FLUSH flush), through `Buffer.concat` as Node's goes.
  _processChunk(chunk, flushFlag, cb) {
    if (typeof cb === "function") {
      let out, error = null;
      try { out = this._processChunk(chunk, flushFlag); } catch (e) { error = e; }
      queueMicrotask(() => (error ? cb(error) : cb(null, out)));
      return;
    }
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    // Brotli's operations are numbered apart from zlib's flush flags (2 is FINISH there).
    const brotli = this.#kind === KIND.BrotliCompress || this.#kind === KIND.BrotliDecompress;
    const finish = brotli ? flushFlag === constants.BROTLI_OPERATION_FINISH : flushFlag === constants.Z_FINISH;
    const flush = brotli ? flushFlag === constants.BROTLI_OPERATION_FLUSH
      : flushFlag === constants.Z_SYNC_FLUSH || flushFlag === constants.Z_FULL_FLUSH;
    this.bytesWritten += bytes.length;
    const out = this.#step(bytes, finish, flush);
    if (finish) this._handle.close();
    return Buffer.concat([out]);
  }
  // What Node keeps as the native binding; minizlib swaps its `close` while it calls
  // `_processChunk`. Closing it frees the codec.
  get _handle() {
    return this.#handle ??= {
      close: () => {
        if (this.#id !== null) ops.op_zlib_close(this.#id);
        this.#id = null;
      },
    };
  }
  set _handle(value) { this.#handle = value; }
  #handle = null;
  reset() {
    if (this.#id !== null) ops.op_zlib_close(this.#id);
    this.#id = ops.op_zlib_new(this.#kind, this.#level);
    this.#written = 0;
  }
  flush(kind, callback) {
    if (typeof kind === "function") [kind, callback] = [undefined, kind];
    try {
      const out = this.#step(new Uint8Array(0), false, true);
      if (out.length) this.push(out);
      if (callback) queueMicrotask(callback);
    } catch (e) {
      if (callback) queueMicrotask(() => callback(e)); else this.destroy(e);
    }
  }
  _transform(chunk, encoding, callback) {
    try {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk, encoding) : chunk;
      this.bytesWritten += bytes.length;
      this.#feed(bytes, false);
      callback();
    } catch (e) {
      callback(e);
    }
  }
  _flush(callback) {
    try {
      this.#feed(new Uint8Array(0), true);
      callback();
    } catch (e) {
      callback(e);
    }
  }
  _destroy(error, callback) {
    if (this.#id !== null) ops.op_zlib_close(this.#id);
    this.#id = null;
    callback(error);
  }
  close(callback) {
    if (callback) this.once("close", callback);
    this.destroy();
  }
}

export class Gzip extends ZlibBase { constructor(options) { super(KIND.Gzip, options); } }
export class Gunzip extends ZlibBase { constructor(options) { super(KIND.Gunzip, options); } }
export class Deflate extends ZlibBase { constructor(options) { super(KIND.Deflate, options); } }
export class Inflate extends ZlibBase { constructor(options) { super(KIND.Inflate, options); } }
export class DeflateRaw extends ZlibBase { constructor(options) { super(KIND.DeflateRaw, options); } }
export class InflateRaw extends ZlibBase { constructor(options) { super(KIND.InflateRaw, options); } }
export class Unzip extends ZlibBase { constructor(options) { super(KIND.Unzip, options); } }

export const createGzip = (options) => new Gzip(options);
export const createGunzip = (options) => new Gunzip(options);
export const createDeflate = (options) => new Deflate(options);
export const createInflate = (options) => new Inflate(options);
export const createDeflateRaw = (options) => new DeflateRaw(options);
export const createInflateRaw = (options) => new InflateRaw(options);
export const createUnzip = (options) => new Unzip(options);

export function crc32(data, value = 0) {
  return ops.op_zlib_crc32(bytesOf(data), value >>> 0);
}

// Brotli: quality from `params[BROTLI_PARAM_QUALITY]` (0–11, default 11).
function brotliQuality(options) {
  const quality = options?.params?.[constants.BROTLI_PARAM_QUALITY] ?? constants.BROTLI_DEFAULT_QUALITY;
  if (typeof quality !== "number" || quality < 0 || quality > 11) {
    throw Object.assign(new RangeError(`Initialization failed`), { code: "ERR_BROTLI_INITIALIZATION_FAILED" });
  }
  return quality;
}
const brotliOptions = (options) => ({ ...options, level: brotliQuality(options) });
export const brotliCompressSync = (buffer, options) => oneShot(KIND.BrotliCompress, buffer, brotliOptions(options));
export const brotliDecompressSync = (buffer, options) => oneShot(KIND.BrotliDecompress, buffer, { ...options, level: 0 });
const brotliCompressCallback = callbackForm(KIND.BrotliCompress);
const brotliDecompressCallback = callbackForm(KIND.BrotliDecompress);
export function brotliCompress(buffer, options, callback) {
  if (typeof options === "function") [options, callback] = [{}, options];
  return brotliCompressCallback(buffer, brotliOptions(options), callback);
}
export function brotliDecompress(buffer, options, callback) {
  if (typeof options === "function") [options, callback] = [{}, options];
  return brotliDecompressCallback(buffer, { ...options, level: 0 }, callback);
}
export class BrotliCompress extends ZlibBase { constructor(options) { super(KIND.BrotliCompress, brotliOptions(options)); } }
export class BrotliDecompress extends ZlibBase { constructor(options) { super(KIND.BrotliDecompress, { ...options, level: 0 }); } }
export const createBrotliCompress = (options) => new BrotliCompress(options);
export const createBrotliDecompress = (options) => new BrotliDecompress(options);

export default {
  constants, crc32,
  gzipSync, gunzipSync, deflateSync, inflateSync, deflateRawSync, inflateRawSync, unzipSync,
  gzip, gunzip, deflate, inflate, deflateRaw, inflateRaw, unzip,
  Gzip, Gunzip, Deflate, Inflate, DeflateRaw, InflateRaw, Unzip,
  createGzip, createGunzip, createDeflate, createInflate, createDeflateRaw, createInflateRaw, createUnzip,
  brotliCompressSync, brotliDecompressSync, brotliCompress, brotliDecompress, createBrotliCompress, createBrotliDecompress,
  BrotliCompress, BrotliDecompress,
};
