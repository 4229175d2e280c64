// node:fs's ReadStream and WriteStream (`fs.createReadStream`, `fs.createWriteStream`,
// `FileHandle.createReadStream`/`createWriteStream`), on node:stream's Readable and Writable.
// Evaluated on first use (js/node/fs.js `streams`), so node:stream is evaluated only for
// plugins that stream files. Follows Node 20's lib/internal/fs/streams.js, so that options,
// event order ('open', 'ready', data, 'end', 'close'; an error of open: 'error' then 'close')
// and `bytesRead`/`bytesWritten` match.
//
// Derived from Node.js lib/internal/fs/streams.js:
// Copyright Joyent, Inc. and other Node contributors. MIT licence; the notice is in NOTICE.
import { Readable, Writable, finished } from "node:stream";
import { Buffer } from "node:buffer";
import process from "node:process";
import * as fs from "node:fs";
import { nodeError, received } from "./internal_errors.js";

const kIoDone = Symbol("kIoDone");
const kIsPerformingIO = Symbol("kIsPerformingIO");
const kFs = Symbol("kFs");
const kHandle = Symbol("kHandle");
// What a FileHandle (js/node/fs.js) calls when it closes.
const kCloseListeners = Symbol.for("paseo.fs.FileHandle.closeListeners");

const invalidArgType = (name, expected, value) =>
  nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "${name}" argument must be ${expected}. Received ${received(value)}`);
const outOfRange = (name, range, value) =>
  nodeError(RangeError, "ERR_OUT_OF_RANGE", `The value of "${name}" is out of range. It must be ${range}. Received ${value}`);

function validateInteger(value, name, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  if (typeof value !== "number") throw invalidArgType(name, "of type number", value);
  if (!Number.isInteger(value)) throw outOfRange(name, "an integer", value);
  if (value < min || value > max) throw outOfRange(name, `>= ${min} && <= ${max}`, value);
}
function validateFunction(value, name) {
  if (typeof value !== "function") throw invalidArgType(name, "of type function", value);
}
function validatePath(path) {
  if (typeof path !== "string" && !(path instanceof Uint8Array)) throw invalidArgType("path", "of type string or an instance of Buffer or URL", path);
  if (String(path).includes("\u0000")) {
    throw nodeError(TypeError, "ERR_INVALID_ARG_VALUE", `The argument 'path' must be a string, Uint8Array, or URL without null bytes. Received ${JSON.stringify(String(path))}`);
  }
}
function getValidatedFd(fd) {
  if (Object.is(fd, -0)) return 0;
  validateInteger(fd, "fd", 0, 2147483647);
  return fd;
}
const toPathIfFileURL = (path) => (path instanceof URL || (path && typeof path === "object" && typeof path.href === "string" && path.protocol) ? fs.toPath(path) : path);

function getOptions(options) {
  if (options == null || typeof options === "function") return {};
  if (typeof options === "string") return { encoding: options };
  if (typeof options !== "object") throw invalidArgType("options", "one of type string or object", options);
  return { ...options };
}

// errorOrDestroy (lib/internal/streams/destroy.js): destroy with the error when the stream
// destroys itself, else emit it.
function errorOrDestroy(stream, err) {
  const r = stream._readableState, w = stream._writableState;
  if (r?.destroyed || w?.destroyed) return;
  if (r?.autoDestroy || w?.autoDestroy) stream.destroy(err);
  else if (err) process.nextTick(() => stream.emit("error", err));
}

function _construct(callback) {
  const stream = this;
  if (typeof stream.fd === "number") {
    callback();
    return;
  }
  if (stream.open !== openWriteFs && stream.open !== openReadFs) {
    // Backwards compatibility for a monkey-patched open().
    const orgEmit = stream.emit;
    stream.emit = function (...args) {
      if (args[0] === "open") {
        this.emit = orgEmit;
        callback();
        Reflect.apply(orgEmit, this, args);
      } else if (args[0] === "error") {
        this.emit = orgEmit;
        callback(args[1]);
      } else {
        Reflect.apply(orgEmit, this, args);
      }
    };
    stream.open();
  } else {
    stream[kFs].open(stream.path, stream.flags, stream.mode, (er, fd) => {
      if (er) {
        callback(er);
      } else {
        stream.fd = fd;
        callback();
        stream.emit("open", stream.fd);
        stream.emit("ready");
      }
    });
  }
}

// The fs operations of a stream made on a FileHandle.
const FileHandleOperations = (handle) => ({
  open: () => {
    throw nodeError(Error, "ERR_METHOD_NOT_IMPLEMENTED", "The open() method is not implemented");
  },
  close: (fd, cb) => {
    handle.close().then(() => cb(), cb);
  },
  read: (fd, buf, offset, length, pos, cb) => {
    handle.read(buf, offset, length, pos).then((r) => cb(null, r.bytesRead, r.buffer), (err) => cb(err, 0, buf));
  },
  write: (fd, buf, offset, length, pos, cb) => {
    handle.write(buf, offset, length, pos).then((r) => cb(null, r.bytesWritten, r.buffer), (err) => cb(err, 0, buf));
  },
  writev: (fd, buffers, pos, cb) => {
    handle.writev(buffers, pos).then((r) => cb(null, r.bytesWritten, r.buffers), (err) => cb(err, 0, buffers));
  },
});

function close(stream, err, cb) {
  if (!stream.fd) {
    cb(err);
  } else if (stream.flush) {
    stream[kFs].fsync(stream.fd, (flushErr) => closeAfterSync(stream, err || flushErr, cb));
  } else {
    closeAfterSync(stream, err, cb);
  }
}

function closeAfterSync(stream, err, cb) {
  stream[kFs].close(stream.fd, (er) => cb(er || err));
  stream.fd = null;
}

function importFd(stream, options) {
  if (typeof options.fd === "number") {
    stream[kFs] = options.fs || fs;
    return options.fd;
  } else if (typeof options.fd === "object" && options.fd !== null && kCloseListeners in options.fd) {
    if (options.fs) throw nodeError(Error, "ERR_METHOD_NOT_IMPLEMENTED", "The FileHandle with fs method is not implemented");
    stream[kHandle] = options.fd;
    stream[kFs] = FileHandleOperations(stream[kHandle]);
    stream[kFs].fsync = (fd, cb) => stream[kHandle].sync().then(() => cb(), cb);
    options.fd[kCloseListeners].add(() => stream.close());
    return options.fd.fd;
  }
  throw invalidArgType("options.fd", "of type number or an instance of FileHandle", options.fd);
}

export function ReadStream(path, options) {
  if (!(this instanceof ReadStream)) return new ReadStream(path, options);

  // A little bit bigger buffer and water marks by default.
  options = getOptions(options);
  if (options.highWaterMark === undefined) options.highWaterMark = 64 * 1024;
  if (options.autoDestroy === undefined) options.autoDestroy = false;

  if (options.fd == null) {
    this.fd = null;
    this[kFs] = options.fs || fs;
    validateFunction(this[kFs].open, "options.fs.open");
    // The path is ignored when fd is given, so it may be falsy.
    this.path = toPathIfFileURL(path);
    this.flags = options.flags === undefined ? "r" : options.flags;
    this.mode = options.mode === undefined ? 0o666 : options.mode;
    validatePath(this.path);
  } else {
    this.fd = getValidatedFd(importFd(this, options));
  }

  options.autoDestroy = options.autoClose === undefined ? true : options.autoClose;

  validateFunction(this[kFs].read, "options.fs.read");
  if (options.autoDestroy) validateFunction(this[kFs].close, "options.fs.close");

  this.start = options.start;
  this.end = options.end;
  this.pos = undefined;
  this.bytesRead = 0;
  this[kIsPerformingIO] = false;

  if (this.start !== undefined) {
    validateInteger(this.start, "start", 0);
    this.pos = this.start;
  }

  if (this.end === undefined) {
    this.end = Infinity;
  } else if (this.end !== Infinity) {
    validateInteger(this.end, "end", 0);
    if (this.start !== undefined && this.start > this.end) {
      throw outOfRange("start", `<= "end" (here: ${this.end})`, this.start);
    }
  }

  Reflect.apply(Readable, this, [options]);
}
Object.setPrototypeOf(ReadStream.prototype, Readable.prototype);
Object.setPrototypeOf(ReadStream, Readable);

Object.defineProperty(ReadStream.prototype, "autoClose", {
  get() { return this._readableState.autoDestroy; },
  set(val) { this._readableState.autoDestroy = val; },
  configurable: true,
});

const openReadFs = function () {};
ReadStream.prototype.open = openReadFs;
ReadStream.prototype._construct = _construct;

ReadStream.prototype._read = function (n) {
  n = this.pos !== undefined ? Math.min(this.end - this.pos + 1, n) : Math.min(this.end - this.bytesRead + 1, n);
  if (n <= 0) {
    this.push(null);
    return;
  }

  const buf = Buffer.allocUnsafeSlow(n);

  this[kIsPerformingIO] = true;
  this[kFs].read(this.fd, buf, 0, n, this.pos, (er, bytesRead, buf) => {
    this[kIsPerformingIO] = false;

    // Tell ._destroy() that it's safe to close the fd now.
    if (this.destroyed) {
      this.emit(kIoDone, er);
      return;
    }

    if (er) {
      errorOrDestroy(this, er);
    } else if (bytesRead > 0) {
      if (this.pos !== undefined) this.pos += bytesRead;
      this.bytesRead += bytesRead;
      if (bytesRead !== buf.length) {
        // Shrink to fit: copy, so that a short read does not keep a large buffer.
        const dst = Buffer.allocUnsafeSlow(bytesRead);
        buf.copy(dst, 0, 0, bytesRead);
        buf = dst;
      }
      this.push(buf);
    } else {
      this.push(null);
    }
  });
};

ReadStream.prototype._destroy = function (err, cb) {
  // The fd must not be closed while a read uses it: wait for that read (kIoDone).
  if (this[kIsPerformingIO]) this.once(kIoDone, (er) => close(this, err || er, cb));
  else close(this, err, cb);
};

ReadStream.prototype.close = function (cb) {
  if (typeof cb === "function") finished(this, cb);
  this.destroy();
};

Object.defineProperty(ReadStream.prototype, "pending", {
  get() { return this.fd === null; },
  configurable: true,
});

export function WriteStream(path, options) {
  if (!(this instanceof WriteStream)) return new WriteStream(path, options);

  options = getOptions(options);
  // Only buffers are supported.
  options.decodeStrings = true;

  if (options.fd == null) {
    this.fd = null;
    this[kFs] = options.fs || fs;
    validateFunction(this[kFs].open, "options.fs.open");
    this.path = toPathIfFileURL(path);
    this.flags = options.flags === undefined ? "w" : options.flags;
    this.mode = options.mode === undefined ? 0o666 : options.mode;
    validatePath(this.path);
  } else {
    this.fd = getValidatedFd(importFd(this, options));
  }

  options.autoDestroy = options.autoClose === undefined ? true : options.autoClose;

  if (!this[kFs].write && !this[kFs].writev) throw invalidArgType("options.fs.write", "of type function", this[kFs].write);
  if (this[kFs].write) validateFunction(this[kFs].write, "options.fs.write");
  if (this[kFs].writev) validateFunction(this[kFs].writev, "options.fs.writev");
  if (options.autoDestroy) validateFunction(this[kFs].close, "options.fs.close");

  // Overriding either is enough; only that one is used then.
  if (!this[kFs].write) this._write = null;
  if (!this[kFs].writev) this._writev = null;

  this.start = options.start;
  this.pos = undefined;
  this.bytesWritten = 0;
  this.flush = options.flush == null ? false : !!options.flush;
  this[kIsPerformingIO] = false;

  if (this.start !== undefined) {
    validateInteger(this.start, "start", 0);
    this.pos = this.start;
  }

  Reflect.apply(Writable, this, [options]);

  if (options.encoding) this.setDefaultEncoding(options.encoding);
}
Object.setPrototypeOf(WriteStream.prototype, Writable.prototype);
Object.setPrototypeOf(WriteStream, Writable);

Object.defineProperty(WriteStream.prototype, "autoClose", {
  get() { return this._writableState.autoDestroy; },
  set(val) { this._writableState.autoDestroy = val; },
  configurable: true,
});

const openWriteFs = function () {};
WriteStream.prototype.open = openWriteFs;
WriteStream.prototype._construct = _construct;

function streamDestroyed(method) {
  return nodeError(Error, "ERR_STREAM_DESTROYED", `Cannot call ${method} after a stream was destroyed`);
}

function writeAll(data, size, pos, cb, retries = 0) {
  this[kFs].write(this.fd, data, 0, size, pos, (er, bytesWritten, buffer) => {
    if (er?.code === "EAGAIN") {
      er = null;
      bytesWritten = 0;
    }
    if (this.destroyed || er) return cb(er || streamDestroyed("write"));

    this.bytesWritten += bytesWritten;
    retries = bytesWritten ? 0 : retries + 1;
    size -= bytesWritten;
    if (pos != null) pos += bytesWritten;

    // Try writing a non-zero number of bytes up to 5 times.
    if (retries > 5) cb(nodeError(Error, "ERR_SYSTEM_ERROR", "A system error occurred: write failed"));
    else if (size) writeAll.call(this, buffer.slice(bytesWritten), size, pos, cb, retries);
    else cb();
  });
}

function writevAll(chunks, size, pos, cb, retries = 0) {
  this[kFs].writev(this.fd, chunks, pos, (er, bytesWritten, buffers) => {
    if (er?.code === "EAGAIN") {
      er = null;
      bytesWritten = 0;
    }
    if (this.destroyed || er) return cb(er || streamDestroyed("writev"));

    this.bytesWritten += bytesWritten;
    retries = bytesWritten ? 0 : retries + 1;
    size -= bytesWritten;
    if (pos != null) pos += bytesWritten;

    if (retries > 5) {
      cb(nodeError(Error, "ERR_SYSTEM_ERROR", "A system error occurred: writev failed"));
    } else if (size) {
      // Drop what was written, whole buffers first.
      let rest = bytesWritten;
      while (rest && chunks.length && rest >= chunks[0].length) rest -= chunks.shift().length;
      if (rest) chunks[0] = chunks[0].slice(rest);
      writevAll.call(this, chunks, size, pos, cb, retries);
    } else {
      cb();
    }
  });
}

WriteStream.prototype._write = function (data, encoding, cb) {
  this[kIsPerformingIO] = true;
  writeAll.call(this, data, data.length, this.pos, (er) => {
    this[kIsPerformingIO] = false;
    if (this.destroyed) {
      // Tell ._destroy() that it's safe to close the fd now.
      cb(er);
      return this.emit(kIoDone, er);
    }
    cb(er);
  });
  if (this.pos !== undefined) this.pos += data.length;
};

WriteStream.prototype._writev = function (data, cb) {
  const chunks = new Array(data.length);
  let size = 0;
  for (let i = 0; i < data.length; i++) {
    chunks[i] = data[i].chunk;
    size += chunks[i].length;
  }
  this[kIsPerformingIO] = true;
  writevAll.call(this, chunks, size, this.pos, (er) => {
    this[kIsPerformingIO] = false;
    if (this.destroyed) {
      cb(er);
      return this.emit(kIoDone, er);
    }
    cb(er);
  });
  if (this.pos !== undefined) this.pos += size;
};

WriteStream.prototype._destroy = function (err, cb) {
  // The fd must not be closed while a write uses it: wait for that write (kIoDone).
  if (this[kIsPerformingIO]) this.once(kIoDone, (er) => close(this, err || er, cb));
  else close(this, err, cb);
};

WriteStream.prototype.close = function (cb) {
  if (cb) {
    if (this.closed) {
      process.nextTick(cb);
      return;
    }
    this.on("close", cb);
  }
  // Without autoClose, destroy once finished.
  if (!this.autoClose) this.on("finish", this.destroy);
  // end(), not destroy(): https://github.com/nodejs/node/issues/2006
  this.end();
};

// There is no shutdown() for files.
WriteStream.prototype.destroySoon = WriteStream.prototype.end;

Object.defineProperty(WriteStream.prototype, "pending", {
  get() { return this.fd === null; },
  configurable: true,
});

export function createReadStream(path, options) {
  return new ReadStream(path, options);
}

export function createWriteStream(path, options) {
  return new WriteStream(path, options);
}
