// `node:net`: TCP and unix-socket servers and sockets over the net ops (runtime/src/node/net.rs).
// Sockets are node:stream Duplexes; node:http and node:tls build on them.
import { ops, unsupported } from "paseo:internal/core";
import { EventEmitter } from "node:events";
import { Buffer } from "node:buffer";
import { Duplex } from "node:stream";
import { nodeError as codeError } from "./internal_errors.js";

import { nextTick } from "paseo:internal/timers";

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


// A TCP or unix-socket connection: a node:stream Duplex over a stream resource (or, for
// node:tls's TLSSocket, a TLS session's), reading while its consumer keeps up, as Node's does.
export class Socket extends Duplex {
  constructor(options = {}) {
    if (options.fd !== undefined || options.handle) unsupported("node:net.Socket({ fd, handle })")();
    // As Node's: no half-open sockets unless asked, 'close' (with hadError) emitted by the socket
    // once its descriptor is closed, strings written as they are.
    super({ ...options, allowHalfOpen: Boolean(options.allowHalfOpen), emitClose: false, autoDestroy: true, decodeStrings: false });
    this.connecting = false;
    this.pending = true;
    this.bytesRead = 0;
    this.bytesWritten = 0;
    this._rid = null;
    this._info = {};
    this._ready = new Promise((resolve) => (this._markReady = resolve));
    this._reading = null; // the pending read (or TLS handshake) that 'close' waits for
    this._pumping = false;
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
    if (this.readable && this.writable) return "open";
    if (this.readable && !this.writable) return "readOnly";
    if (!this.readable && this.writable) return "writeOnly";
    return "closed";
  }
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

  /** Binds this socket to an open stream resource and starts reading (unless paused). */
  _attach(info) {
    this._rid = info.rid;
    this._info = info;
    this.connecting = false;
    this.pending = false;
    this._markReady();
    this._touch();
    if (!this.isPaused() || this._readWanted) this._pump();
  }

  _read() {
    if (this.pending) this._readWanted = true; // reading starts once attached (_attach)
    else this._pump();
  }

  /** Reads chunks into the stream until it is full (push() says so), ended or destroyed. */
  _pump() {
    if (this._pumping || this.destroyed) return;
    this._pumping = true;
    const rid = this._rid;
    this._reading = (async () => {
      try {
        for (;;) {
          const chunk = await ops.op_net_read(rid);
          if (this.destroyed) return;
          if (!chunk.byteLength) {
            this._pumping = false;
            this.push(null);
            this.read(0); // 'end' even when nobody reads, once the buffer is empty (Node's onStreamRead)
            return;
          }
          this.bytesRead += chunk.byteLength;
          this._touch();
          if (!this.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))) return;
        }
      } catch (e) {
        if (!this.destroyed) this.destroy(netError(e));
      } finally {
        this._pumping = false;
      }
    })();
  }

  _write(chunk, encoding, cb) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, encoding) : chunk;
    this._ready.then(async () => {
      if (this.destroyed) return;
      try {
        if (bytes.length) await ops.op_net_write(this._rid, bytes);
      } catch (e) {
        cb(netError(e));
        return;
      }
      this.bytesWritten += bytes.length;
      this._touch();
      cb();
    });
  }

  _final(cb) {
    this._ready.then(async () => {
      // A peer that already went away makes shutdown fail; the socket is finished either way.
      if (!this.destroyed) try { await ops.op_net_shutdown(this._rid); } catch {}
      cb();
    });
  }

  _destroy(err, cb) {
    this.connecting = false;
    clearTimeout(this._timer);
    if (this._rid !== null) ops.op_net_close(this._rid);
    cb(err);
    // 'close' once the pending read has let go of the stream, so the descriptor is really closed;
    // as a tick, so that it follows the 'error' that `cb` queued, as Node emits them.
    Promise.resolve(this._reading).then(() => nextTick(() => this.emit("close", Boolean(err))));
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
      if (this.pauseOnConnect) socket.pause();
      socket._attach(info);
      if (this.maxConnections !== undefined && this._connections.size >= this.maxConnections) {
        socket.destroy();
        continue;
      }
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
