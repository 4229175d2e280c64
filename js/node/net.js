// `node:net`: TCP and unix-socket servers and sockets over the net ops (runtime/src/node/net.rs).
// Sockets carry the readable half of Node's streams (flowing 'data', pause/resume, setEncoding,
// 'end' once drained, async iteration, pipe) and a queued write half; node:http builds on them.
import { ops, unsupported } from "paseo:internal/core";
import { EventEmitter } from "node:events";
import { Buffer } from "node:buffer";

const kHighWaterMark = 64 * 1024;
const nextTick = (fn, ...args) => queueMicrotask(() => fn(...args));

// Node's negative errno values for the codes the ops report.
const ERRNO = {
  EADDRINUSE: -98, EADDRNOTAVAIL: -99, ECONNREFUSED: -111, ECONNRESET: -104, ECONNABORTED: -103,
  EPIPE: -32, ENOENT: -2, EACCES: -13, EPERM: -1, ETIMEDOUT: -110, EHOSTUNREACH: -113,
  ENETUNREACH: -101, ENOTCONN: -107, ENOTDIR: -20, EPROTOTYPE: -91, ENOTSOCK: -88,
  ENAMETOOLONG: -36, EMFILE: -24, EINVAL: -22, EIO: -5, ENOTFOUND: -3008, EAI_AGAIN: -3001,
};

/** Adds `code`, `errno`, `syscall` and `address`/`port` (or `hostname`) to an op error. */
function netError(e) {
  const m = /^(\w+) ([A-Z][A-Z0-9_]*)(?::[a-z /-]*)?(?: (.*))?$/.exec(e?.message ?? "");
  if (!m) return e;
  e.errno = ERRNO[m[2]];
  e.code = m[2];
  e.syscall = m[1];
  if (m[3] !== undefined) {
    if (m[1] === "getaddrinfo") e.hostname = m[3];
    else {
      const hp = /^(.*):(\d+)$/.exec(m[3]);
      if (hp && !m[3].startsWith("/")) { e.address = hp[1]; e.port = Number(hp[2]); } else e.address = m[3];
    }
  }
  return e;
}

function codeError(Ctor, code, message) {
  const err = new Ctor(message);
  err.code = code;
  return err;
}

function toBytes(data, encoding) {
  if (typeof data === "string") return Buffer.from(data, encoding ?? "utf8");
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "chunk" argument must be of type string or an instance of Buffer or Uint8Array. Received ${data === null ? "null" : typeof data}`);
}

// The readable half Node's streams give sockets and HTTP messages. Object mode and read(n) sizes
// are left out. `node:http` reaches it as `Object.getPrototypeOf(Socket)`, like Node's Duplex.
class Readable extends EventEmitter {
  constructor() {
    super();
    this._rs = { buffer: [], length: 0, flowing: null, ended: false, endEmitted: false, scheduled: false, decoder: null, encoding: null, wake: null };
    this.readable = true;
    this.readableEnded = false;
    this.destroyed = false;
  }
  get readableFlowing() { return this._rs.flowing; }
  get readableLength() { return this._rs.length; }
  get readableEncoding() { return this._rs.encoding; }
  get readableHighWaterMark() { return kHighWaterMark; }

  /** Queues a chunk (null: end of data); false once the consumer lags behind. */
  push(chunk) {
    const rs = this._rs;
    if (chunk === null) rs.ended = true;
    else if (chunk.length) { rs.buffer.push(chunk); rs.length += chunk.length; }
    this._schedule();
    return rs.length < kHighWaterMark;
  }
  unshift(chunk) {
    const bytes = Buffer.from(toBytes(chunk));
    this._rs.buffer.unshift(bytes);
    this._rs.length += bytes.length;
  }
  _schedule() {
    if (this._rs.scheduled) return;
    this._rs.scheduled = true;
    nextTick(() => { this._rs.scheduled = false; this._flow(); });
  }
  _decode(chunk) {
    const rs = this._rs;
    if (rs.decoder) return rs.decoder.decode(chunk, { stream: true });
    return rs.encoding ? chunk.toString(rs.encoding) : chunk;
  }
  _flow() {
    const rs = this._rs;
    if (this.destroyed) return;
    if (rs.flowing === false && rs.length && this.listenerCount("readable")) this.emit("readable");
    while (rs.flowing && rs.buffer.length && !this.destroyed) {
      const chunk = rs.buffer.shift();
      rs.length -= chunk.length;
      this.emit("data", this._decode(chunk));
    }
    if (rs.length < kHighWaterMark && rs.wake) { const wake = rs.wake; rs.wake = null; wake(); }
    // 'end' waits for a consumer, except on sockets, which Node reads with read(0) at EOF.
    if (rs.ended && !rs.buffer.length && !rs.endEmitted && (rs.flowing || this.listenerCount("readable") || this instanceof Socket)) {
      if (rs.flowing === false) this.emit("readable");
      rs.endEmitted = true;
      this.readable = false;
      this.readableEnded = true;
      this.emit("end");
      this._onEnd?.();
    }
  }
  on(type, listener) {
    super.on(type, listener);
    if (type === "data" && this._rs.flowing !== false) this.resume();
    if (type === "readable") { this._rs.flowing = false; this._schedule(); }
    return this;
  }
  addListener(type, listener) { return this.on(type, listener); }
  read() {
    const rs = this._rs;
    if (!rs.buffer.length) { if (rs.ended) this._schedule(); return null; }
    const all = rs.buffer.length === 1 ? rs.buffer[0] : Buffer.concat(rs.buffer);
    rs.buffer = [];
    rs.length = 0;
    this._schedule();
    return this._decode(all);
  }
  pause() {
    if (this._rs.flowing !== false) { this._rs.flowing = false; this.emit("pause"); }
    return this;
  }
  resume() {
    if (!this._rs.flowing) { this._rs.flowing = true; this.emit("resume"); }
    this._schedule();
    return this;
  }
  isPaused() { return this._rs.flowing === false; }
  setEncoding(encoding) {
    const enc = String(encoding ?? "utf8").toLowerCase();
    this._rs.encoding = enc;
    this._rs.decoder = enc === "utf8" || enc === "utf-8" ? new TextDecoder("utf-8") : null;
    return this;
  }
  pipe(dest, { end = true } = {}) {
    this.on("data", (chunk) => { if (dest.write(chunk) === false) this.pause(); });
    dest.on?.("drain", () => this.resume());
    if (end) this.once("end", () => dest.end());
    dest.emit?.("pipe", this);
    return dest;
  }
  unpipe() { this.removeAllListeners("data"); return this; }
  async *[Symbol.asyncIterator]() {
    const queue = [];
    let state = null;
    let wake = () => {};
    const onData = (chunk) => { queue.push(chunk); wake(); };
    const onEnd = () => { state ??= { done: true }; wake(); };
    const onError = (error) => { state ??= { error }; wake(); };
    this.on("data", onData).on("end", onEnd).on("error", onError).on("close", onEnd);
    try {
      for (;;) {
        if (queue.length) { yield queue.shift(); continue; }
        if (state?.error) throw state.error;
        if (state) return;
        await new Promise((resolve) => (wake = resolve));
      }
    } finally {
      this.removeListener("data", onData).removeListener("end", onEnd).removeListener("error", onError).removeListener("close", onEnd);
      if (!this.readableEnded) this.destroy();
    }
  }
}

export class Socket extends Readable {
  constructor(options = {}) {
    super();
    if (options.fd !== undefined || options.handle) unsupported("node:net.Socket({ fd, handle })")();
    this.allowHalfOpen = Boolean(options.allowHalfOpen);
    this.connecting = false;
    this.pending = true;
    this.bytesRead = 0;
    this.bytesWritten = 0;
    this.writable = true;
    this.writableLength = 0;
    this.writableEnded = false;
    this.writableFinished = false;
    this.writableNeedDrain = false;
    this._rid = null;
    this._info = {};
    this._ready = new Promise((resolve) => (this._markReady = resolve));
    this._writes = this._ready;
    this._timeout = 0;
    this._timer = null;
  }
  get remoteAddress() { return this._info.remoteAddress || undefined; }
  get remotePort() { return this._info.remotePort || undefined; }
  get remoteFamily() { return this._info.family || undefined; }
  get localAddress() { return this._info.family ? this._info.localAddress : undefined; }
  get localPort() { return this._info.family ? this._info.localPort : undefined; }
  get localFamily() { return this._info.family || undefined; }
  get readyState() {
    if (this.connecting) return "opening";
    if (this.destroyed || (this.readableEnded && this.writableEnded)) return "closed";
    if (this.readableEnded) return "writeOnly";
    return this.writableEnded ? "readOnly" : "open";
  }
  get writableHighWaterMark() { return kHighWaterMark; }
  address() {
    return this._info.family ? { address: this._info.localAddress, family: this._info.family, port: this._info.localPort } : {};
  }

  connect(...args) {
    const [options, cb] = normalizeConnectArgs(args);
    if (cb) this.once("connect", cb);
    if (options.timeout) this.setTimeout(options.timeout);
    this.connecting = true;
    const connecting = options.path !== undefined
      ? ops.op_net_connect_unix(String(options.path))
      : ops.op_net_connect_tcp(options.host ?? "localhost", validatePort(options.port, "Port"));
    connecting.then((info) => {
      if (this.destroyed) { ops.op_net_close(info.rid); return; }
      this._attach(info);
      this.emit("connect");
      this.emit("ready");
    }, (e) => {
      this.connecting = false;
      this.destroy(netError(e));
    });
    return this;
  }

  // The stream ops; node:tls's TLSSocket reads and writes its own streams through these.
  _opRead(rid) { return ops.op_net_read(rid); }
  _opWrite(rid, bytes) { return ops.op_net_write(rid, bytes); }
  _opShutdown(rid) { return ops.op_net_shutdown(rid); }

  /** Binds this socket to an open stream resource and starts reading. */
  _attach(info) {
    this._rid = info.rid;
    this._info = info;
    this.connecting = false;
    this.pending = false;
    this._markReady();
    this._touch();
    this._reading = this._readLoop();
  }

  async _readLoop() {
    const rid = this._rid;
    try {
      while (!this.destroyed) {
        // Stop reading while nobody consumes what is buffered.
        if (this._rs.length >= kHighWaterMark) { await new Promise((resolve) => (this._rs.wake = resolve)); continue; }
        const chunk = await this._opRead(rid);
        if (this.destroyed) return;
        if (!chunk.byteLength) break;
        this.bytesRead += chunk.byteLength;
        this._touch();
        this.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      }
    } catch (e) {
      if (!this.destroyed) this.destroy(netError(e));
      return;
    }
    if (!this.destroyed) this.push(null);
  }

  // After 'end': without allowHalfOpen our side ends too (Node's default).
  _onEnd() {
    if (!this.allowHalfOpen && !this.writableEnded) this.end();
    this._maybeClose();
  }
  _maybeClose() {
    if (this.readableEnded && this.writableFinished) this.destroy();
  }

  /** Runs `fn(rid)` after the writes queued before it; a failure destroys the socket. */
  _queue(fn) {
    this._writes = this._writes.then(() => (this.destroyed ? undefined : fn(this._rid))).catch((e) => {
      if (!this.destroyed) this.destroy(netError(e));
    });
  }

  write(data, encoding, cb) {
    if (typeof encoding === "function") { cb = encoding; encoding = undefined; }
    if (this.destroyed) {
      // As in Node: only the callback hears about it; a destroyed stream emits no more errors.
      const err = codeError(Error, "ERR_STREAM_DESTROYED", "Cannot call write after a stream was destroyed");
      nextTick(() => cb?.(err));
      return false;
    }
    if (this.writableEnded) {
      const err = codeError(Error, "ERR_STREAM_WRITE_AFTER_END", "write after end");
      nextTick(() => { cb?.(err); this.emit("error", err); });
      return false;
    }
    const bytes = toBytes(data, encoding);
    this.writableLength += bytes.length;
    this._queue(async (rid) => {
      if (bytes.length) await this._opWrite(rid, bytes);
      this.writableLength -= bytes.length;
      this.bytesWritten += bytes.length;
      this._touch();
      cb?.(null);
      if (this.writableNeedDrain && this.writableLength === 0) { this.writableNeedDrain = false; this.emit("drain"); }
    });
    const ok = this.writableLength < kHighWaterMark;
    if (!ok) this.writableNeedDrain = true;
    return ok;
  }

  end(data, encoding, cb) {
    if (typeof data === "function") { cb = data; data = undefined; }
    if (typeof encoding === "function") { cb = encoding; encoding = undefined; }
    if (data !== undefined && data !== null) this.write(data, encoding);
    if (this.writableEnded) { if (cb) nextTick(cb); return this; }
    this.writableEnded = true;
    this.writable = false;
    this._queue(async (rid) => {
      // A peer that already went away makes shutdown fail; the socket is finished either way.
      try { await this._opShutdown(rid); } catch {}
      this.writableFinished = true;
      this.emit("finish");
      cb?.();
      this._maybeClose();
    });
    return this;
  }

  destroy(err) {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.readable = this.writable = false;
    this.connecting = false;
    clearTimeout(this._timer);
    if (this._rid !== null) ops.op_net_close(this._rid);
    this._rs.wake?.();
    // 'close' once the pending read has let go of the stream, so the descriptor is really closed.
    (this._reading ?? Promise.resolve()).then(() => {
      if (err) this.emit("error", err);
      this.emit("close", Boolean(err));
    });
    return this;
  }
  /** Ends the write side, then destroys the socket once everything is written. */
  destroySoon() {
    if (this.writable) this.end();
    if (this.writableFinished) this.destroy();
    else this.once("finish", () => this.destroy());
  }
  resetAndDestroy() { return this.destroy(); }

  /** Emits 'timeout' after `ms` without reads or writes (the socket stays open, as in Node). */
  setTimeout(ms, cb) {
    this._timeout = ms;
    if (cb) { if (ms === 0) this.removeListener("timeout", cb); else this.once("timeout", cb); }
    this._touch();
    return this;
  }
  _touch() {
    clearTimeout(this._timer);
    if (this._timeout > 0 && !this.destroyed) this._timer = setTimeout(() => this.emit("timeout"), this._timeout);
  }
  // TCP_NODELAY is always on (net.rs sets it on every TCP socket), and keep-alive probes do not
  // matter for loopback servers: both accepted for compatibility.
  setNoDelay() { return this; }
  setKeepAlive() { return this; }
  // A plugin's event loop runs as long as the plugin is loaded; there is nothing to hold open.
  ref() { return this; }
  unref() { return this; }
  cork() {}
  uncork() {}
}
export const Stream = Socket;
// For node:tls, whose TCP connections fail with net's errors.
Object.defineProperty(Socket, Symbol.for("paseo.net.error"), { value: netError });

function normalizeConnectArgs(args) {
  const cb = typeof args[args.length - 1] === "function" ? args[args.length - 1] : undefined;
  const [a, b] = args;
  if (a !== null && typeof a === "object") return [{ ...a }, cb];
  if (typeof a === "string" && !/^\s*\d+\s*$/.test(a)) return [{ path: a }, cb];
  return [{ port: a, host: typeof b === "string" ? b : undefined }, cb];
}

function validatePort(port, name) {
  const n = typeof port === "string" && port.trim() !== "" ? Number(port) : port;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > 65535) {
    const shown = typeof port === "string" ? `type string ('${port}')` : `type ${typeof port} (${String(port)})`;
    throw codeError(RangeError, "ERR_SOCKET_BAD_PORT", `${name} should be >= 0 and < 65536. Received ${port === undefined ? "undefined" : shown}.`);
  }
  return n;
}

export function createConnection(...args) {
  const [options] = normalizeConnectArgs(args);
  return new Socket(options).connect(...args);
}
export const connect = createConnection;

export class Server extends EventEmitter {
  constructor(options, listener) {
    super();
    if (typeof options === "function") { listener = options; options = {}; }
    this.allowHalfOpen = Boolean(options?.allowHalfOpen);
    this.pauseOnConnect = Boolean(options?.pauseOnConnect);
    this.maxConnections = undefined;
    this.listening = false;
    this._rid = null;
    this._address = null;
    this._connections = new Set();
    this._closeEmitted = false;
    if (listener) this.on("connection", listener);
  }

  listen(...args) {
    const cb = typeof args[args.length - 1] === "function" ? args.pop() : undefined;
    const [a, b] = args;
    let options;
    if (a !== null && typeof a === "object") options = a;
    else if (typeof a === "string" && !/^\s*\d+\s*$/.test(a)) options = { path: a };
    else options = { port: a, host: typeof b === "string" ? b : undefined };
    if (cb) this.once("listening", cb);
    if (this.listening) throw codeError(Error, "ERR_SERVER_ALREADY_LISTEN", "Listen method has been called more than once without closing.");
    if (options.handle || options.fd !== undefined) unsupported("node:net.Server.listen({ handle })")();
    let info;
    try {
      info = options.path !== undefined
        ? ops.op_net_listen_unix(String(options.path))
        : ops.op_net_listen_tcp(options.host ?? "", validatePort(options.port ?? 0, "options.port"));
    } catch (e) {
      nextTick(() => this.emit("error", netError(e)));
      return this;
    }
    this._rid = info.rid;
    this._address = options.path !== undefined
      ? String(options.path)
      : { address: info.localAddress, family: info.family, port: info.localPort };
    this.listening = true;
    this._closeEmitted = false;
    nextTick(() => this.emit("listening"));
    const accepting = this._acceptLoop(info.rid).then(() => {
      if (this._accepting === accepting) this._accepting = null;
      this._maybeEmitClose();
    });
    this._accepting = accepting;
    return this;
  }

  async _acceptLoop(rid) {
    while (this._rid === rid) {
      let info;
      try {
        info = await ops.op_net_accept(rid);
      } catch (e) {
        if (this._rid !== rid) return;
        this.emit("error", netError(e));
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      if (this._rid !== rid) { ops.op_net_close(info.rid); return; }
      const socket = new Socket({ allowHalfOpen: this.allowHalfOpen });
      socket.server = this;
      socket._attach(info);
      if (this.maxConnections !== undefined && this._connections.size >= this.maxConnections) {
        socket.destroy();
        continue;
      }
      if (this.pauseOnConnect) socket.pause();
      this._connections.add(socket);
      socket.once("close", () => { this._connections.delete(socket); this._maybeEmitClose(); });
      // A throwing listener is the plugin's uncaught error; the server keeps accepting.
      try { this.emit("connection", socket); } catch (e) { Promise.reject(e); }
    }
  }

  close(cb) {
    if (typeof cb === "function") {
      if (this._rid === null) this.once("close", () => cb(codeError(Error, "ERR_SERVER_NOT_RUNNING", "Server is not running.")));
      else this.once("close", cb);
    }
    if (this._rid !== null) { ops.op_net_close(this._rid); this._rid = null; }
    this.listening = false;
    this._closing = true;
    this._maybeEmitClose();
    return this;
  }
  _maybeEmitClose() {
    // The pending accept must have let go of the listener first, so that the port is really free.
    if (this._closing && this._rid === null && !this._accepting && this._connections.size === 0 && !this._closeEmitted) {
      this._closeEmitted = true;
      this._closing = false;
      nextTick(() => this.emit("close"));
    }
  }
  address() { return this.listening ? this._address : null; }
  getConnections(cb) { nextTick(() => cb(null, this._connections.size)); return this; }
  // See Socket.ref: nothing to hold open.
  ref() { return this; }
  unref() { return this; }
  [Symbol.asyncDispose]() { return new Promise((resolve) => (this.listening ? this.close(() => resolve()) : resolve())); }
}

export function createServer(options, listener) {
  return new Server(options, listener);
}

const v4Seg = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])";
const v4Str = `(?:${v4Seg}\\.){3}${v4Seg}`;
const IPv4Reg = new RegExp(`^${v4Str}$`);
const v6Seg = "(?:[0-9a-fA-F]{1,4})";
const IPv6Reg = new RegExp("^(?:" +
  `(?:${v6Seg}:){7}(?:${v6Seg}|:)|` +
  `(?:${v6Seg}:){6}(?:${v4Str}|:${v6Seg}|:)|` +
  `(?:${v6Seg}:){5}(?::${v4Str}|(?::${v6Seg}){1,2}|:)|` +
  `(?:${v6Seg}:){4}(?:(?::${v6Seg}){0,1}:${v4Str}|(?::${v6Seg}){1,3}|:)|` +
  `(?:${v6Seg}:){3}(?:(?::${v6Seg}){0,2}:${v4Str}|(?::${v6Seg}){1,4}|:)|` +
  `(?:${v6Seg}:){2}(?:(?::${v6Seg}){0,3}:${v4Str}|(?::${v6Seg}){1,5}|:)|` +
  `(?:${v6Seg}:){1}(?:(?::${v6Seg}){0,4}:${v4Str}|(?::${v6Seg}){1,6}|:)|` +
  `(?::(?:(?::${v6Seg}){0,5}:${v4Str}|(?::${v6Seg}){1,7}|:))` +
")(?:%[0-9a-zA-Z-.:]{1,})?$");

export const isIPv4 = (input) => IPv4Reg.test(String(input));
export const isIPv6 = (input) => IPv6Reg.test(String(input));
export const isIP = (input) => (isIPv4(input) ? 4 : isIPv6(input) ? 6 : 0);

// Happy-eyeballs is not implemented: connect tries the resolved addresses in order.
export const getDefaultAutoSelectFamily = () => false;
export const setDefaultAutoSelectFamily = unsupported("node:net.setDefaultAutoSelectFamily");
export const getDefaultAutoSelectFamilyAttemptTimeout = () => 250;
export const setDefaultAutoSelectFamilyAttemptTimeout = unsupported("node:net.setDefaultAutoSelectFamilyAttemptTimeout");
export const BlockList = unsupported("node:net.BlockList");
export const SocketAddress = unsupported("node:net.SocketAddress");

export default {
  Socket, Stream, Server, createConnection, connect, createServer, isIP, isIPv4, isIPv6,
  getDefaultAutoSelectFamily, setDefaultAutoSelectFamily, getDefaultAutoSelectFamilyAttemptTimeout,
  setDefaultAutoSelectFamilyAttemptTimeout, BlockList, SocketAddress,
};
