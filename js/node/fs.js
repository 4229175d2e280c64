// `node:fs`: synchronous, callback and promise forms over the fs ops. Paths may be strings,
// Buffers or file: URLs. Open files (`open`, `read`, `write`, `close`, fs/promises'
// `FileHandle`) are OS file descriptors kept by runtime/src/node/fs/open_files.rs, read and written by
// async ops off the plugin's thread. Streams (`createReadStream`, `ReadStream`, …) and
// watchers (`watch`, `watchFile`) are in js/node/fs_streams.js and fs_watch.js, evaluated on
// first use: a plugin that only reads files never evaluates node:stream.
import { ops, unsupported, lazyModule } from "paseo:internal/core";
import { ioCallback } from "paseo:internal/timers";
import { Buffer } from "node:buffer";

let streamsModule, watchModule;
const streams = () => (streamsModule ??= lazyModule("paseo:internal/node/fs_streams"));
const watching = () => (watchModule ??= lazyModule("paseo:internal/node/fs_watch"));

export const constants = Object.freeze({
  F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1,
  O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_EXCL: 128, O_NOCTTY: 256, O_TRUNC: 512,
  O_APPEND: 1024, O_DIRECTORY: 65536, O_NOFOLLOW: 131072, O_SYNC: 1052672, O_NONBLOCK: 2048,
  S_IFMT: 61440, S_IFREG: 32768, S_IFDIR: 16384, S_IFLNK: 40960,
  COPYFILE_EXCL: 1, COPYFILE_FICLONE: 2, COPYFILE_FICLONE_FORCE: 4,
});
export const F_OK = 0, R_OK = 4, W_OK = 2, X_OK = 1;

export function toPath(p, name = "path") {
  if (typeof p === "string") return p;
  if (p instanceof URL || (p && typeof p === "object" && typeof p.href === "string" && p.protocol)) {
    if (p.protocol !== "file:") throw new TypeError("The URL must be of scheme file");
    return decodeURIComponent(p.pathname);
  }
  if (p instanceof Uint8Array) return new TextDecoder().decode(p);
  const err = new TypeError(`The "${name}" argument must be of type string or an instance of Buffer or URL. Received ${p === null ? "null" : typeof p}`);
  err.code = "ERR_INVALID_ARG_TYPE";
  throw err;
}

// Errors of the fs ops arrive as Node makes them: class, message, errno, code, syscall, path
// and dest are set in Rust (runtime/src/node/fs/error.rs `FsError`).

const encodingOf = (options) => (typeof options === "string" ? options : options?.encoding ?? null);

export class Stats {
  constructor(s) {
    Object.assign(this, {
      dev: s.dev, ino: s.ino, mode: s.mode, nlink: s.nlink, uid: s.uid, gid: s.gid, rdev: s.rdev,
      size: s.size, blksize: s.blksize, blocks: s.blocks,
      atimeMs: s.atimeMs, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, birthtimeMs: s.birthtimeMs,
      atime: new Date(s.atimeMs), mtime: new Date(s.mtimeMs), ctime: new Date(s.ctimeMs), birthtime: new Date(s.birthtimeMs),
    });
    Object.defineProperty(this, "_kind", { value: s.kind });
  }
  isFile() { return this._kind === "file"; }
  isDirectory() { return this._kind === "dir"; }
  isSymbolicLink() { return this._kind === "symlink"; }
  isFIFO() { return this._kind === "fifo"; }
  isSocket() { return this._kind === "socket"; }
  isBlockDevice() { return this._kind === "block"; }
  isCharacterDevice() { return this._kind === "char"; }
}

export class Dirent {
  constructor(name, kind, parentPath) { this.name = name; this.parentPath = parentPath; this.path = parentPath; Object.defineProperty(this, "_kind", { value: kind }); }
  isFile() { return this._kind === "file"; }
  isDirectory() { return this._kind === "dir"; }
  isSymbolicLink() { return this._kind === "symlink"; }
  isFIFO() { return this._kind === "fifo"; }
  isSocket() { return this._kind === "socket"; }
  isBlockDevice() { return this._kind === "block"; }
  isCharacterDevice() { return this._kind === "char"; }
}

function toBytes(data, encoding) {
  if (typeof data === "string") return Buffer.from(data, encoding ?? "utf8");
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const err = new TypeError(`The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ${typeof data}`);
  err.code = "ERR_INVALID_ARG_TYPE";
  throw err;
}

function flagsOf(options, fallback) {
  const flag = (typeof options === "object" && options?.flag) || fallback;
  return { append: flag.includes("a"), exclusive: flag.includes("x") };
}

export function readFileSync(path, options) {
  const encoding = encodingOf(options);
  // Decoded text sits next to the bytes (up to twice their size as UTF-16): room for three.
  const bytes = ops.op_fs_read(toPath(path), encoding ? 3 : 1);
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return encoding ? buf.toString(encoding) : buf;
}
export function writeFileSync(path, data, options) {
  const { append, exclusive } = flagsOf(options, "w");
  ops.op_fs_write(toPath(path), toBytes(data, encodingOf(options)), append, exclusive, options?.mode ?? 0);
}
export function appendFileSync(path, data, options) {
  const { exclusive } = flagsOf(options, "a");
  ops.op_fs_write(toPath(path), toBytes(data, encodingOf(options)), true, exclusive, options?.mode ?? 0);
}
export function existsSync(path) {
  try { ops.op_fs_stat(toPath(path), false); return true; } catch { return false; }
}
export function statSync(path, options) {
  try { return new Stats(ops.op_fs_stat(toPath(path), false)); } catch (e) {
    if (options?.throwIfNoEntry === false && e.code === "ENOENT") return undefined;
    throw e;
  }
}
export function lstatSync(path, options) {
  try { return new Stats(ops.op_fs_stat(toPath(path), true)); } catch (e) {
    if (options?.throwIfNoEntry === false && e.code === "ENOENT") return undefined;
    throw e;
  }
}
export function readdirSync(path, options) {
  const dir = toPath(path);
  const walk = (rel) => {
    const entries = ops.op_fs_readdir(rel ? `${dir}/${rel}` : dir);
    const out = [];
    for (const [name, kind] of entries) {
      const relName = rel ? `${rel}/${name}` : name;
      out.push(options?.withFileTypes ? new Dirent(name, kind, rel ? `${dir}/${rel}` : dir) : relName);
      if (options?.recursive && kind === "dir") out.push(...walk(relName));
    }
    return out;
  };
  const out = walk("");
  return encodingOf(options) === "buffer" ? out.map((n) => Buffer.from(n)) : out;
}
export function mkdirSync(path, options) {
  const recursive = typeof options === "object" ? !!options?.recursive : false;
  const mode = typeof options === "number" ? options : options?.mode ?? 0;
  const first = ops.op_fs_mkdir(toPath(path), recursive, mode);
  return recursive ? first || undefined : undefined;
}
// Node's SystemError, which `rm` of a directory without `recursive` throws (ERR_FS_EISDIR from
// the op): the same fields, with Node's class, `info` and key order.
class SystemError extends Error {}
Object.defineProperty(SystemError.prototype, "name", { value: "SystemError", writable: true, configurable: true });
function systemError(e) {
  if (e?.code !== "ERR_FS_EISDIR") return e;
  const err = new SystemError(e.message);
  const { errno, syscall, path } = e;
  Object.assign(err, { code: e.code, info: { code: "EISDIR", message: "is a directory", path, syscall, errno }, errno, syscall, path });
  return err;
}
const RM = 0, RMDIR = 1, UNLINK = 2;
export function rmSync(path, options) {
  try { ops.op_fs_remove(toPath(path), RM, !!options?.recursive, !!options?.force); } catch (e) { throw systemError(e); }
}
export function rmdirSync(path, options) {
  if (options?.recursive) ops.op_fs_remove(toPath(path), RM, true, false);
  else ops.op_fs_remove(toPath(path), RMDIR, false, false);
}
export function unlinkSync(path) { ops.op_fs_remove(toPath(path), UNLINK, false, false); }
export function renameSync(from, to) { ops.op_fs_rename(toPath(from, "oldPath"), toPath(to, "newPath")); }
export function copyFileSync(from, to, mode = 0) { ops.op_fs_copy(toPath(from, "src"), toPath(to, "dest"), (mode & 1) === 1); }
export function cpSync(from, to, options) {
  const src = toPath(from, "src"), dest = toPath(to, "dest");
  if (statSync(src).isDirectory()) {
    if (!options?.recursive) { const e = new Error(`Recursive option is required to copy a directory: ${src}`); e.code = "ERR_FS_EISDIR"; throw e; }
    mkdirSync(dest, { recursive: true });
    for (const name of readdirSync(src)) cpSync(`${src}/${name}`, `${dest}/${name}`, options);
  } else {
    copyFileSync(src, dest);
  }
}
export function realpathSync(path) { return ops.op_fs_realpath(toPath(path)); }
realpathSync.native = realpathSync;
export function accessSync(path, mode = F_OK) { ops.op_fs_access(toPath(path), mode); }
export function chmodSync(path, mode) { ops.op_fs_chmod(toPath(path), typeof mode === "string" ? parseInt(mode, 8) : mode); }
export function symlinkSync(target, path) { ops.op_fs_symlink(toPath(target, "target"), toPath(path)); }
export function readlinkSync(path) { return ops.op_fs_readlink(toPath(path)); }
export function linkSync(from, to) { ops.op_fs_link(toPath(from, "existingPath"), toPath(to, "newPath")); }
export function mkdtempSync(prefix) { return ops.op_fs_mkdtemp(toPath(prefix, "prefix")); }
export function truncateSync(path, len = 0) { ops.op_fs_truncate(toPath(path), len); }

// Node's toUnixTimestamp: seconds as a finite number (a negative one means now), a numeric
// string, or a Date. Node names the argument "time", whichever it was.
function unixTime(time) {
  if (typeof time === "string" && +time == time) return +time;
  if (Number.isFinite(time)) return time < 0 ? Date.now() / 1000 : time;
  if (time instanceof Date) return time.getTime() / 1000;
  const err = new TypeError(`The "time" argument must be an instance of Date or an Time in seconds.${received(time)}`);
  err.code = "ERR_INVALID_ARG_TYPE";
  throw err;
}
function received(value) {
  if (value == null) return ` Received ${value}`;
  if (typeof value === "function") return ` Received function ${value.name}`;
  if (typeof value === "object") return value.constructor?.name ? ` Received an instance of ${value.constructor.name}` : " Received [object Object]";
  const shown = String(value).length > 28 ? `${String(value).slice(0, 25)}...` : String(value);
  return ` Received type ${typeof value} (${typeof value === "string" ? `'${shown}'` : shown})`;
}
export function utimesSync(path, atime, mtime) {
  ops.op_fs_utimes(toPath(path), unixTime(atime), unixTime(mtime), true);
}
export function lutimesSync(path, atime, mtime) {
  ops.op_fs_utimes(toPath(path), unixTime(atime), unixTime(mtime), false);
}

// `fs.opendir`: a directory's entries read once, handed out one at a time as Dirents.
export class Dir {
  #entries;
  #closed = false;
  constructor(path, entries) {
    this.path = path;
    this.#entries = entries;
  }
  #check() {
    if (this.#closed) {
      const err = new Error("Directory handle was closed");
      err.code = "ERR_DIR_CLOSED";
      throw err;
    }
  }
  readSync() {
    this.#check();
    return this.#entries.shift() ?? null;
  }
  read(cb) {
    if (typeof cb === "function") {
      let entry, error = null;
      try { entry = this.readSync(); } catch (e) { error = e; }
      if (error) ioCallback(cb, error); else ioCallback(cb, null, entry);
      return;
    }
    try { return Promise.resolve(this.readSync()); } catch (e) { return Promise.reject(e); }
  }
  closeSync() {
    this.#check();
    this.#closed = true;
  }
  close(cb) {
    if (typeof cb === "function") {
      let error = null;
      try { this.closeSync(); } catch (e) { error = e; }
      ioCallback(cb, error);
      return;
    }
    try { this.closeSync(); return Promise.resolve(); } catch (e) { return Promise.reject(e); }
  }
  async *entries() {
    try {
      for (let entry = this.readSync(); entry !== null; entry = this.readSync()) yield entry;
    } finally {
      if (!this.#closed) this.closeSync();
    }
  }
  [Symbol.asyncIterator]() { return this.entries(); }
}
export function opendirSync(path, options) {
  const dir = toPath(path);
  return new Dir(dir, readdirSync(dir, { withFileTypes: true, encoding: options?.encoding }));
}

// ---------------------------------------------------------------------------------------------
// Open files. `fd`s are the OS's; positions that are null, undefined or negative mean the
// file's own offset.

const invalidArgType = (name, expected, value) => {
  const shown = value === null ? "null" : value === undefined ? "undefined" : typeof value === "object" ? `an instance of ${value.constructor?.name ?? "Object"}` : `type ${typeof value} (${typeof value === "string" ? `'${value}'` : String(value)})`;
  const err = new TypeError(`The "${name}" argument must be ${expected}. Received ${shown}`);
  err.code = "ERR_INVALID_ARG_TYPE";
  return err;
};
const outOfRange = (name, range, value) => {
  const err = new RangeError(`The value of "${name}" is out of range. It must be ${range}. Received ${value}`);
  err.code = "ERR_OUT_OF_RANGE";
  return err;
};

const FLAGS = {
  r: 0, rs: 1052672, sr: 1052672, "r+": 2, "rs+": 1052674, "sr+": 1052674,
  w: 577, wx: 705, xw: 705, "w+": 578, "wx+": 706, "xw+": 706,
  a: 1089, ax: 1217, xa: 1217, as: 1053761, sa: 1053761,
  "a+": 1090, "ax+": 1218, "xa+": 1218, "as+": 1053762, "sa+": 1053762,
};
/** Node's `stringToFlags`: a flags string ('r', 'w+', 'ax', …) or number as `O_*` bits. */
function flagsToNumber(flags, name = "flags") {
  if (flags == null) return 0;
  if (typeof flags === "number") return flags;
  if (typeof flags === "string" && Object.hasOwn(FLAGS, flags)) return FLAGS[flags];
  const err = new TypeError(`The argument '${name}' is invalid. Received ${typeof flags === "string" ? `'${flags}'` : String(flags)}`);
  err.code = "ERR_INVALID_ARG_VALUE";
  throw err;
}
const modeOf = (mode, fallback) => (mode == null ? fallback : typeof mode === "string" ? parseInt(mode, 8) : mode);

function checkFd(fd) {
  if (!Number.isInteger(fd)) throw invalidArgType("fd", "of type number", fd);
  if (fd < 0 || fd > 2147483647) throw outOfRange("fd", ">= 0 && <= 2147483647", fd);
  return fd;
}
const positionOf = (position) => (position == null ? -1 : typeof position === "bigint" ? Number(position) : position < 0 ? -1 : position);
const bytesOf = (buffer) => (buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));

// The arguments of read(fd, buffer, offset, length, position), read(fd, buffer, options) and
// read(fd, options), as Node takes them.
function readArgs(buffer, offset, length, position) {
  if (buffer != null && !ArrayBuffer.isView(buffer) && typeof buffer === "object") {
    ({ buffer = Buffer.alloc(16384), offset = 0, length, position = null } = buffer);
    length ??= buffer.byteLength - offset;
  } else if (offset != null && typeof offset === "object") {
    ({ offset = 0, length = buffer.byteLength - offset, position = null } = offset);
  }
  if (!ArrayBuffer.isView(buffer)) throw invalidArgType("buffer", "an instance of Buffer, TypedArray, or DataView", buffer);
  offset ??= 0;
  length ??= buffer.byteLength - offset;
  if (offset < 0 || offset > buffer.byteLength) throw outOfRange("offset", `>= 0 && <= ${buffer.byteLength}`, offset);
  if (length < 0 || offset + length > buffer.byteLength) throw outOfRange("length", `>= 0 && <= ${buffer.byteLength - offset}`, length);
  return { buffer, offset, length, position: positionOf(position) };
}

// write(fd, buffer, offset, length, position) or write(fd, string, position, encoding).
function writeArgs(data, offset, length, position) {
  if (typeof data === "string") {
    const encoding = typeof length === "string" ? length : "utf8";
    return { bytes: Buffer.from(data, encoding), position: positionOf(typeof offset === "number" ? offset : null), value: data };
  }
  if (!ArrayBuffer.isView(data)) throw invalidArgType("buffer", "of type string or an instance of Buffer, TypedArray, or DataView", data);
  if (offset != null && typeof offset === "object") ({ offset = 0, length, position = null } = offset);
  offset ??= 0;
  length ??= data.byteLength - offset;
  if (offset < 0 || offset > data.byteLength) throw outOfRange("offset", `>= 0 && <= ${data.byteLength}`, offset);
  if (length < 0 || offset + length > data.byteLength) throw outOfRange("length", `>= 0 && <= ${data.byteLength - offset}`, length);
  return { bytes: bytesOf(data).subarray(offset, offset + length), position: positionOf(position), value: data };
}

export function openSync(path, flags, mode) {
  return ops.op_fs_open_sync(toPath(path), flagsToNumber(flags), modeOf(mode, 0o666));
}
export function closeSync(fd) { ops.op_fs_close(checkFd(fd)); }
export function readSync(fd, buffer, offset, length, position) {
  const a = readArgs(buffer, offset, length, position);
  if (a.length === 0) return 0;
  return ops.op_fs_fd_read_sync(checkFd(fd), bytesOf(a.buffer).subarray(a.offset, a.offset + a.length), a.position);
}
export function writeSync(fd, data, offset, length, position) {
  const a = writeArgs(data, offset, length, position);
  return ops.op_fs_fd_write_sync(checkFd(fd), a.bytes, a.position);
}
export function fstatSync(fd) { return new Stats(ops.op_fs_fstat(checkFd(fd))); }
export function fsyncSync(fd) { ops.op_fs_fsync(checkFd(fd), false); }
export function fdatasyncSync(fd) { ops.op_fs_fsync(checkFd(fd), true); }
export function ftruncateSync(fd, len = 0) { ops.op_fs_ftruncate(checkFd(fd), len); }
export function futimesSync(fd, atime, mtime) {
  ops.op_fs_futimes(checkFd(fd), unixTime(atime), unixTime(mtime));
}
export const futimes = (...args) => callbackForm(futimesSync)(...args);

const callbackOf = (args) => {
  const cb = args.pop();
  if (typeof cb !== "function") throw invalidArgType("cb", "of type function", cb);
  return cb;
};
/** Reads into `buffer` at `offset`: what the async op read, copied where it was asked. */
async function readInto(fd, a) {
  if (a.length === 0) return 0;
  const bytes = await ops.op_fs_fd_read(fd, a.length, a.position);
  bytesOf(a.buffer).set(bytes, a.offset);
  return bytes.byteLength;
}
export function open(path, flags, mode, cb) {
  cb = callbackOf([flags, mode, cb].filter((x) => x !== undefined));
  if (typeof flags === "function") flags = undefined;
  if (typeof mode === "function") mode = undefined;
  ops.op_fs_open(toPath(path), flagsToNumber(flags), modeOf(mode, 0o666)).then((fd) => ioCallback(cb, null, fd), (e) => ioCallback(cb, e));
}
export function close(fd, cb = () => {}) {
  let error = null;
  try { closeSync(fd); } catch (e) { error = e; }
  ioCallback(cb, error);
}
export function read(fd, ...args) {
  const cb = callbackOf(args);
  const a = readArgs(args[0] ?? {}, args[1], args[2], args[3]);
  checkFd(fd);
  readInto(fd, a).then((n) => ioCallback(cb, null, n, a.buffer), (e) => ioCallback(cb, e));
}
export function write(fd, data, ...args) {
  const cb = callbackOf(args);
  const a = writeArgs(data, args[0], args[1], args[2]);
  checkFd(fd);
  ops.op_fs_fd_write(fd, a.bytes, a.position).then((n) => ioCallback(cb, null, n, a.value), (e) => ioCallback(cb, e));
}
export function writev(fd, buffers, position, cb) {
  if (typeof position === "function") { cb = position; position = null; }
  const bytes = Buffer.concat(buffers.map((b) => bytesOf(b)));
  ops.op_fs_fd_write(checkFd(fd), bytes, positionOf(position)).then((n) => ioCallback(cb, null, n, buffers), (e) => ioCallback(cb, e));
}
export function fsync(fd, cb) { ops.op_fs_fsync_async(checkFd(fd), false).then(() => ioCallback(cb, null), (e) => ioCallback(cb, e)); }
export function fdatasync(fd, cb) { ops.op_fs_fsync_async(checkFd(fd), true).then(() => ioCallback(cb, null), (e) => ioCallback(cb, e)); }
export const fstat = callbackForm(fstatSync), ftruncate = callbackForm(ftruncateSync);

// fs/promises' FileHandle: an open fd, closed once (its `fd` is then -1).
const kFd = Symbol("kFd");
const kClosing = Symbol("kClosing");
// Shared with js/node/fs_streams.js without a name in node:fs's exports.
const kCloseListeners = Symbol.for("paseo.fs.FileHandle.closeListeners");
function handleClosed(syscall) {
  const err = new Error("file closed");
  err.code = "EBADF";
  err.syscall = syscall;
  return err;
}
class FileHandle {
  constructor(fd) {
    this[kFd] = fd;
    this[kClosing] = null;
    // What streams made on this handle do when it closes (Node's FileHandle is an
    // EventEmitter emitting 'close'; this one only tells its own streams).
    this[kCloseListeners] = new Set();
  }
  get fd() { return this[kFd]; }
  #open(syscall) {
    if (this[kFd] === -1 || this[kClosing]) throw handleClosed(syscall);
    return this[kFd];
  }
  async read(buffer, offset, length, position) {
    const fd = this.#open("read");
    const a = readArgs(buffer ?? {}, offset, length, position);
    return { bytesRead: await readInto(fd, a), buffer: a.buffer };
  }
  async readv(buffers, position) {
    const fd = this.#open("read");
    let bytesRead = 0, at = positionOf(position);
    for (const buffer of buffers) {
      const n = await readInto(fd, { buffer, offset: 0, length: buffer.byteLength, position: at });
      bytesRead += n;
      if (at >= 0) at += n;
      if (n < buffer.byteLength) break;
    }
    return { bytesRead, buffers };
  }
  async write(data, offset, length, position) {
    const fd = this.#open("write");
    const a = writeArgs(data, offset, length, position);
    return { bytesWritten: await ops.op_fs_fd_write(fd, a.bytes, a.position), buffer: a.value };
  }
  async writev(buffers, position) {
    const fd = this.#open("write");
    const bytes = Buffer.concat(buffers.map((b) => bytesOf(b)));
    return { bytesWritten: await ops.op_fs_fd_write(fd, bytes, positionOf(position)), buffers };
  }
  async readFile(options) {
    const fd = this.#open("read");
    const encoding = encodingOf(options);
    options?.signal?.throwIfAborted?.();
    const chunks = [];
    for (;;) {
      const bytes = await ops.op_fs_fd_read(fd, 64 * 1024, -1);
      if (bytes.byteLength === 0) break;
      chunks.push(bytes);
      options?.signal?.throwIfAborted?.();
    }
    const buf = Buffer.concat(chunks);
    return encoding ? buf.toString(encoding) : buf;
  }
  async writeFile(data, options) {
    const fd = this.#open("write");
    const encoding = encodingOf(options);
    options?.signal?.throwIfAborted?.();
    if (typeof data === "string" || ArrayBuffer.isView(data)) {
      await ops.op_fs_fd_write(fd, toBytes(data, encoding), -1);
      return;
    }
    if (data != null && (typeof data[Symbol.asyncIterator] === "function" || typeof data[Symbol.iterator] === "function")) {
      for await (const chunk of data) {
        await ops.op_fs_fd_write(fd, toBytes(chunk, encoding), -1);
        options?.signal?.throwIfAborted?.();
      }
      return;
    }
    throw toBytes(data);
  }
  async appendFile(data, options) { return this.writeFile(data, options); }
  async stat() { return new Stats(ops.op_fs_fstat(this.#open("fstat"))); }
  async truncate(len = 0) { ops.op_fs_ftruncate(this.#open("ftruncate"), len); }
  async utimes(atime, mtime) { futimesSync(this.#open("futime"), atime, mtime); }
  async sync() { await ops.op_fs_fsync_async(this.#open("fsync"), false); }
  async datasync() { await ops.op_fs_fsync_async(this.#open("fdatasync"), true); }
  close() {
    if (this[kFd] === -1) return Promise.resolve();
    if (this[kClosing]) return this[kClosing];
    const fd = this[kFd];
    this[kClosing] = new Promise((resolve, reject) => {
      queueMicrotask(() => {
        this[kFd] = -1;
        this[kClosing] = null;
        try { ops.op_fs_close(fd); } catch (e) { reject(e); return; }
        for (const listener of this[kCloseListeners]) listener();
        this[kCloseListeners].clear();
        resolve();
      });
    });
    return this[kClosing];
  }
  async [Symbol.asyncDispose]() { return this.close(); }
  createReadStream(options) { return new (streams().ReadStream)(undefined, { ...options, fd: this }); }
  createWriteStream(options) { return new (streams().WriteStream)(undefined, { ...options, fd: this }); }
  readableWebStream(options) {
    const fd = this.#open("read");
    // Node 20 gives ArrayBuffers, or Uint8Arrays for `type: 'bytes'` (BYOB readers aside).
    const bytes = options?.type === "bytes";
    return new ReadableStream({
      type: bytes ? "bytes" : undefined,
      pull: async (controller) => {
        const chunk = await ops.op_fs_fd_read(fd, 64 * 1024, -1);
        if (chunk.byteLength === 0) controller.close();
        else controller.enqueue(bytes ? chunk : chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength));
      },
    });
  }
}
Object.defineProperty(FileHandle.prototype, Symbol.toStringTag, { value: "FileHandle", configurable: true });

/** `fs.promises.open`: a FileHandle. */
async function openHandle(path, flags, mode) {
  return new FileHandle(await ops.op_fs_open(toPath(path), flagsToNumber(flags), modeOf(mode, 0o666)));
}

// ---------------------------------------------------------------------------------------------
// Streams and watchers, evaluated on first use. The named exports are stand-ins that construct
// and recognise the real classes (`instanceof`); the default export (what `require` gives)
// has the classes themselves, behind getters as in Node.

export function createReadStream(path, options) { return streams().createReadStream(path, options); }
export function createWriteStream(path, options) { return streams().createWriteStream(path, options); }
const standIn = (name, real) => {
  const f = { [name]: function (...args) { return new (real())(...args); } }[name];
  Object.defineProperty(f, Symbol.hasInstance, { value: (x) => x instanceof real() });
  return f;
};
export const ReadStream = standIn("ReadStream", () => streams().ReadStream);
export const WriteStream = standIn("WriteStream", () => streams().WriteStream);
export { ReadStream as FileReadStream, WriteStream as FileWriteStream };
export function watch(filename, options, listener) { return watching().watch(filename, options, listener); }
export function watchFile(filename, options, listener) { return watching().watchFile(filename, options, listener); }
export function unwatchFile(filename, listener) { return watching().unwatchFile(filename, listener); }

const SYNC = {
  readFile: readFileSync, writeFile: writeFileSync, appendFile: appendFileSync, stat: statSync, lstat: lstatSync,
  readdir: readdirSync, mkdir: mkdirSync, rm: rmSync, rmdir: rmdirSync, unlink: unlinkSync, rename: renameSync,
  copyFile: copyFileSync, cp: cpSync, realpath: realpathSync, access: accessSync, chmod: chmodSync, symlink: symlinkSync,
  readlink: readlinkSync, link: linkSync, mkdtemp: mkdtempSync, truncate: truncateSync,
  utimes: utimesSync, lutimes: lutimesSync, opendir: opendirSync,
};

// Callback forms: run the sync op, answer as an I/O callback would.
function callbackForm(fn) {
  return (...args) => {
    const cb = args.pop();
    if (typeof cb !== "function") {
      const err = new TypeError(`The "cb" argument must be of type function. Received ${typeof cb}`);
      err.code = "ERR_INVALID_ARG_TYPE";
      throw err;
    }
    let result, error = null;
    try { result = fn(...args); } catch (e) { error = e; }
    if (error) ioCallback(cb, error);
    else ioCallback(cb, null, result);
  };
}
export const readFile = callbackForm(readFileSync), writeFile = callbackForm(writeFileSync),
  appendFile = callbackForm(appendFileSync), stat = callbackForm(statSync), lstat = callbackForm(lstatSync),
  readdir = callbackForm(readdirSync), mkdir = callbackForm(mkdirSync), rm = callbackForm(rmSync),
  rmdir = callbackForm(rmdirSync), unlink = callbackForm(unlinkSync), rename = callbackForm(renameSync),
  copyFile = callbackForm(copyFileSync), cp = callbackForm(cpSync), realpath = callbackForm(realpathSync),
  access = callbackForm(accessSync), chmod = callbackForm(chmodSync), symlink = callbackForm(symlinkSync),
  readlink = callbackForm(readlinkSync), link = callbackForm(linkSync), mkdtemp = callbackForm(mkdtempSync),
  truncate = callbackForm(truncateSync), utimes = callbackForm(utimesSync), lutimes = callbackForm(lutimesSync),
  opendir = callbackForm(opendirSync);
export function exists(path, cb) { ioCallback(cb, existsSync(path)); }

// Promise forms. `signal` is honoured before the operation starts.
function promiseForm(fn) {
  return (...args) => {
    const options = args[args.length - 1];
    try {
      options?.signal?.throwIfAborted?.();
      return Promise.resolve(fn(...args));
    } catch (e) {
      return Promise.reject(e);
    }
  };
}
export const promises = Object.fromEntries(Object.entries(SYNC).map(([k, fn]) => [k, promiseForm(fn)]));
promises.constants = constants;
promises.open = openHandle;
promises.watch = (filename, options) => watching().watchAsync(filename, options);
promises.statfs = unsupported("node:fs/promises.statfs");

const fs = {
  constants, F_OK, R_OK, W_OK, X_OK, Stats, Dirent, promises, existsSync, exists,
  ...SYNC,
  readFileSync, writeFileSync, appendFileSync, statSync, lstatSync, readdirSync, mkdirSync, rmSync, rmdirSync,
  unlinkSync, renameSync, copyFileSync, cpSync, realpathSync, accessSync, chmodSync, symlinkSync, readlinkSync,
  linkSync, mkdtempSync, truncateSync, utimesSync, lutimesSync, futimesSync, opendirSync, Dir,
  readFile, writeFile, appendFile, stat, lstat, readdir, mkdir, rm, rmdir, unlink, rename, copyFile, cp, realpath,
  access, chmod, symlink, readlink, link, mkdtemp, truncate, utimes, lutimes, futimes, opendir,
  createReadStream, createWriteStream, watch, watchFile, unwatchFile,
  open, openSync, close, closeSync, read, readSync, write, writeSync, writev, fstat, fstatSync, fsync, fsyncSync,
  fdatasync, fdatasyncSync, ftruncate, ftruncateSync,
};
for (const [name, get] of [["ReadStream", () => streams().ReadStream], ["WriteStream", () => streams().WriteStream],
  ["FileReadStream", () => streams().ReadStream], ["FileWriteStream", () => streams().WriteStream]]) {
  Object.defineProperty(fs, name, {
    get, set(value) { Object.defineProperty(fs, name, { value, writable: true, enumerable: true, configurable: true }); },
    enumerable: true, configurable: true,
  });
}
export default fs;
