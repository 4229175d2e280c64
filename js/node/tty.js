// `node:tty`. A plugin's stdio is the daemon's log, never a terminal: `isatty` is false for every
// descriptor, so colour libraries (`supports-color`, `chalk`, `debug`) pick no colour. The two
// classes are there as Node exports them, for code that makes one anyway: a `WriteStream` is a
// `net.Socket` whose writes go to the plugin's log (stderr for descriptor 2, stdout otherwise), sized
// 80×24, with no colours; a `ReadStream` never produces data. node:net (and node:stream under it)
// is loaded when the first one is made, not when this module is imported, which chalk and debug do
// at load.
import { lazyModule } from "paseo:internal/core";
import process from "node:process";

export function isatty(fd) {
  return false;
}

const kFd = Symbol("paseo.tty.fd");
// Node's error shapes, loaded only when one is thrown (they need node:util).
const errors = () => lazyModule("paseo:internal/node/internal_errors");
const rangeError = (code, message) => errors().nodeError(RangeError, code, message);

function validateFd(fd) {
  // Node's test: `fd >> 0 !== fd || fd < 0`.
  if (fd >> 0 !== fd || fd < 0) throw rangeError("ERR_INVALID_FD", `"fd" must be a positive integer: ${fd}`);
}

// The classes inherit from node:net's Socket, as Node's do; the link is made on first use.
let Socket;
function socketClass() {
  if (Socket === undefined) {
    Socket = lazyModule("node:net").Socket;
    for (const C of [ReadStream, WriteStream]) {
      Object.setPrototypeOf(C.prototype, Socket.prototype);
      Object.setPrototypeOf(C, Socket);
    }
  }
  return Socket;
}

export function ReadStream(fd, options) {
  if (!new.target) return new ReadStream(fd, options);
  validateFd(fd);
  // The socket has no descriptor or handle of its own: the options minus those.
  const { fd: _fd, handle: _handle, ...rest } = options ?? {};
  const self = Reflect.construct(socketClass(), [{ ...rest, readableHighWaterMark: 0 }], new.target);
  self[kFd] = fd;
  self.isRaw = false;
  self.isTTY = true;
  return self;
}

ReadStream.prototype.setRawMode = function setRawMode(flag) {
  this.isRaw = Boolean(flag);
  return this;
};
// Nothing ever arrives on a plugin's terminal.
Object.defineProperty(ReadStream.prototype, "_read", { value() {}, writable: true, configurable: true });

export function WriteStream(fd) {
  if (!new.target) return new WriteStream(fd);
  validateFd(fd);
  const self = Reflect.construct(socketClass(), [{ readableHighWaterMark: 0 }], new.target);
  self[kFd] = fd;
  self.columns = 80;
  self.rows = 24;
  return self;
}

WriteStream.prototype.isTTY = true;
WriteStream.prototype.getColorDepth = function getColorDepth(env = undefined) {
  return 1;
};
WriteStream.prototype.hasColors = function hasColors(count, env) {
  if (env === undefined && (count === undefined || (typeof count === "object" && count !== null))) {
    env = count;
    count = 16;
  } else if (typeof count !== "number") {
    throw errors().invalidArgType("count", ["number"], count);
  } else if (!Number.isInteger(count)) {
    throw rangeError("ERR_OUT_OF_RANGE", `The value of "count" is out of range. It must be an integer. Received ${count}`);
  } else if (count < 2) {
    throw rangeError("ERR_OUT_OF_RANGE", `The value of "count" is out of range. It must be >= 2 && <= 9007199254740991. Received ${count}`);
  }
  return count <= 2 ** this.getColorDepth(env);
};
WriteStream.prototype._refreshSize = function _refreshSize() {};
WriteStream.prototype.cursorTo = function cursorTo(x, y, cb) {
  return lazyModule("node:readline").cursorTo(this, x, y, cb);
};
WriteStream.prototype.moveCursor = function moveCursor(dx, dy, cb) {
  return lazyModule("node:readline").moveCursor(this, dx, dy, cb);
};
WriteStream.prototype.clearLine = function clearLine(dir, cb) {
  return lazyModule("node:readline").clearLine(this, dir, cb);
};
WriteStream.prototype.clearScreenDown = function clearScreenDown(cb) {
  return lazyModule("node:readline").clearScreenDown(this, cb);
};
WriteStream.prototype.getWindowSize = function getWindowSize() {
  return [this.columns, this.rows];
};
// The socket's transport, replaced: what is written goes to the plugin's log.
for (const [name, value] of Object.entries({
  _write(chunk, encoding, cb) {
    const out = this[kFd] === 2 ? process.stderr : process.stdout;
    out.write(typeof chunk === "string" ? chunk : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    cb();
  },
  _final(cb) {
    cb();
  },
  _read() {},
})) {
  Object.defineProperty(WriteStream.prototype, name, { value, writable: true, configurable: true });
}

export default { isatty, ReadStream, WriteStream };
