// `node:fs`: synchronous, callback and promise forms over the fs ops. Paths may be strings,
// Buffers or file: URLs. Streams and watchers are not supported yet (they say so when called).
import { ops, unsupported } from "paseo:internal/core";
import { Buffer } from "node:buffer";

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
// and dest are set in Rust (runtime/src/node/fs.rs `FsError`).

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

const SYNC = {
  readFile: readFileSync, writeFile: writeFileSync, appendFile: appendFileSync, stat: statSync, lstat: lstatSync,
  readdir: readdirSync, mkdir: mkdirSync, rm: rmSync, rmdir: rmdirSync, unlink: unlinkSync, rename: renameSync,
  copyFile: copyFileSync, cp: cpSync, realpath: realpathSync, access: accessSync, chmod: chmodSync, symlink: symlinkSync,
  readlink: readlinkSync, link: linkSync, mkdtemp: mkdtempSync, truncate: truncateSync,
};

// Callback forms: run the sync op, answer on a later turn as Node does.
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
    queueMicrotask(() => (error ? cb(error) : cb(null, result)));
  };
}
export const readFile = callbackForm(readFileSync), writeFile = callbackForm(writeFileSync),
  appendFile = callbackForm(appendFileSync), stat = callbackForm(statSync), lstat = callbackForm(lstatSync),
  readdir = callbackForm(readdirSync), mkdir = callbackForm(mkdirSync), rm = callbackForm(rmSync),
  rmdir = callbackForm(rmdirSync), unlink = callbackForm(unlinkSync), rename = callbackForm(renameSync),
  copyFile = callbackForm(copyFileSync), cp = callbackForm(cpSync), realpath = callbackForm(realpathSync),
  access = callbackForm(accessSync), chmod = callbackForm(chmodSync), symlink = callbackForm(symlinkSync),
  readlink = callbackForm(readlinkSync), link = callbackForm(linkSync), mkdtemp = callbackForm(mkdtempSync),
  truncate = callbackForm(truncateSync);
export function exists(path, cb) { const r = existsSync(path); queueMicrotask(() => cb(r)); }

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
promises.open = unsupported("node:fs/promises.open");
promises.watch = unsupported("node:fs/promises.watch");
promises.statfs = unsupported("node:fs/promises.statfs");

export const createReadStream = unsupported("node:fs.createReadStream");
export const createWriteStream = unsupported("node:fs.createWriteStream");
export const watch = unsupported("node:fs.watch");
export const watchFile = unsupported("node:fs.watchFile");
export const openSync = unsupported("node:fs.openSync");
export const open = unsupported("node:fs.open");

export default {
  constants, F_OK, R_OK, W_OK, X_OK, Stats, Dirent, promises, existsSync, exists,
  ...SYNC,
  readFileSync, writeFileSync, appendFileSync, statSync, lstatSync, readdirSync, mkdirSync, rmSync, rmdirSync,
  unlinkSync, renameSync, copyFileSync, cpSync, realpathSync, accessSync, chmodSync, symlinkSync, readlinkSync,
  linkSync, mkdtempSync, truncateSync,
  readFile, writeFile, appendFile, stat, lstat, readdir, mkdir, rm, rmdir, unlink, rename, copyFile, cp, realpath,
  access, chmod, symlink, readlink, link, mkdtemp, truncate,
  createReadStream, createWriteStream, watch, watchFile, openSync, open,
};
