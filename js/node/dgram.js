// `node:dgram`: UDP sockets over the dgram ops (runtime/src/node/dgram.rs). The socket's life
// (binding, the send queue while it binds, connecting, closing) and its errors follow Node.js
// lib/dgram.js and lib/internal/dgram.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
// Datagrams arrive through a receive op kept pending while the socket is bound, each delivered
// as an I/O callback ('message'); a send the kernel takes at once answers in a tick, as
// libuv's `uv_udp_try_send` does. Not here: cluster's shared handles, `bind({ fd })`,
// source-specific multicast, and ref/unref holding anything (a plugin lives as long as the host
// keeps it loaded).
import { ops, unsupported } from "paseo:internal/core";
import { EventEmitter, addAbortListener, errorMonitor } from "node:events";
import { Buffer } from "node:buffer";
import { lookup as dnsLookup } from "node:dns";
import { isIP } from "node:net";
import { E, invalidArgType, nodeError, received } from "./internal_errors.js";
import { validateAbortSignal, validateFunction } from "./internal/validators.js";
import { ioCallback, nextTick } from "paseo:internal/timers";

const UNBOUND = 0, BINDING = 1, BOUND = 2;
const DISCONNECTED = 0, CONNECTING = 1, CONNECTED = 2;
// op_dgram_bind's flags (libuv's UV_UDP_REUSEADDR and UV_UDP_IPV6ONLY).
const REUSE_ADDR = 1, IPV6_ONLY = 2;
// op_dgram_set_option's options.
const BROADCAST = 0, TTL = 1, MULTICAST_TTL = 2, MULTICAST_LOOP = 3;

const kState = Symbol("state symbol");

// ------------------------------------------------------------------------------ errors

// Node's negative errno values for the codes that are not OS errors.
const ERRNO = { ENOTFOUND: -3008, EAI_AGAIN: -3001, ENOTSUP: -95 };

/** An op's `<CODE> <errno> <text>` error as `{ code, errno, text }`; anything else as it is. */
function uvError(e) {
  const m = /^([A-Z][A-Z0-9_]*) (\d+) (.*)$/.exec(e?.message ?? "");
  if (!m) throw e;
  return { code: m[1], errno: ERRNO[m[1]] ?? -Number(m[2]), text: m[3] };
}

// Node's errnoException: `setTTL EINVAL`.
function errnoException(err, syscall) {
  const ex = new Error(`${syscall} ${err.code}`);
  ex.errno = err.errno;
  ex.code = err.code;
  ex.syscall = syscall;
  return ex;
}

// Node's exceptionWithHostPort: `bind EADDRINUSE 127.0.0.1:41234`.
function exceptionWithHostPort(err, syscall, address, port) {
  let details = "";
  if (port && port > 0) details = ` ${address}:${port}`;
  else if (address) details = ` ${address}`;
  const ex = new Error(`${syscall} ${err.code}${details}`);
  ex.errno = err.errno;
  ex.code = err.code;
  ex.syscall = syscall;
  ex.address = address;
  if (port) ex.port = port;
  return ex;
}

const EBADF = { code: "EBADF", errno: -9, text: "bad file descriptor" };
const EINVAL = { code: "EINVAL", errno: -22, text: "invalid argument" };

class SystemError extends Error {
  constructor(key, prefix, context) {
    super(`${prefix}: ${context.syscall} returned ${context.code} (${context.message})`);
    this.code = key;
    Object.defineProperty(this, "name", { value: "SystemError", enumerable: false, writable: true, configurable: true });
    this.info = context;
    this.errno = context.errno;
    this.syscall = context.syscall;
  }
}

const notRunning = () => nodeError(Error, "ERR_SOCKET_DGRAM_NOT_RUNNING", "Not running");
const notConnected = () => nodeError(Error, "ERR_SOCKET_DGRAM_NOT_CONNECTED", "Not connected");
const isConnected = () => nodeError(Error, "ERR_SOCKET_DGRAM_IS_CONNECTED", "Already connected");
const outOfBounds = (name) => nodeError(RangeError, "ERR_BUFFER_OUT_OF_BOUNDS", `"${name}" is outside of buffer bounds`);
const BUFFER_TYPES = ["Buffer", "TypedArray", "DataView", "string"];

function validateString(value, name) {
  if (typeof value !== "string") throw invalidArgType(name, ["string"], value);
}
function validateNumber(value, name) {
  if (typeof value !== "number") throw invalidArgType(name, ["number"], value);
}
// Node's validatePort(port, name, allowZero = false) from lib/internal/validators.js.
function validatePort(port, name) {
  if ((typeof port !== "number" && typeof port !== "string") ||
      (typeof port === "string" && port.trim().length === 0) ||
      +port !== (+port >>> 0) || port > 0xffff || port === 0) {
    throw nodeError(RangeError, "ERR_SOCKET_BAD_PORT", `${name} should be > 0 and < 65536. Received ${received(port)}.`);
  }
  return port | 0;
}

// ------------------------------------------------------------------------------ handles

// An address literal's family, as node:net tells it (Node's own regular expressions).
const ipFamily = isIP;

// dns.lookup, answering an IP address in a tick as Node's does (so 'listening' comes where it
// comes under Node), and names through the resolver.
function defaultLookup(address, family, callback) {
  const literal = typeof address === "string" ? ipFamily(address) : 0;
  if (literal) {
    nextTick(callback, null, address, literal);
    return {};
  }
  return dnsLookup(address, family, callback);
}

/**
 * What Node's UDP handle is: a socket of one family that exists (`rid`) once bound, and the
 * lookup that fills in the family's default address (127.0.0.1 or ::1).
 */
function newHandle(type, lookup) {
  if (lookup === undefined) lookup = defaultLookup;
  else validateFunction(lookup, "lookup");
  if (type !== "udp4" && type !== "udp6") {
    throw nodeError(TypeError, "ERR_SOCKET_BAD_TYPE", "Bad socket type specified. Valid types are: udp4, udp6");
  }
  const ipv6 = type === "udp6";
  const fallback = ipv6 ? "::1" : "127.0.0.1";
  return {
    ipv6,
    rid: null,
    lookup: (address, callback) => lookup(address || fallback, ipv6 ? 6 : 4, callback),
  };
}

/** Binds the handle's socket (made here, as libuv makes it at bind); an error or null. */
function handleBind(handle, ip, port, flags) {
  if (handle.rid !== null) return EINVAL; // already bound (implicitly, by addMembership)
  try {
    handle.rid = ops.op_dgram_bind(handle.ipv6, String(ip), (port >>> 0) & 0xffff, flags);
    return null;
  } catch (e) {
    return uvError(e);
  }
}

/** Runs an op on the handle's socket: an error (EBADF before it exists) or null. */
function handleCall(handle, fn) {
  if (handle.rid === null) return EBADF;
  try {
    fn(handle.rid);
    return null;
  } catch (e) {
    return uvError(e);
  }
}

// ------------------------------------------------------------------------------ Socket

export function Socket(type, listener) {
  EventEmitter.call(this);
  let lookup, recvBufferSize, sendBufferSize, options;
  if (type !== null && typeof type === "object") {
    options = type;
    type = options.type;
    lookup = options.lookup;
    recvBufferSize = options.recvBufferSize;
    sendBufferSize = options.sendBufferSize;
  }
  const handle = newHandle(type, lookup);
  this.type = type;
  if (typeof listener === "function") this.on("message", listener);
  this[kState] = {
    handle,
    receiving: false,
    bindState: UNBOUND,
    connectState: DISCONNECTED,
    queue: undefined,
    reuseAddr: options && options.reuseAddr,
    ipv6Only: options && options.ipv6Only,
    recvBufferSize,
    sendBufferSize,
  };
  if (options?.signal !== undefined) {
    const { signal } = options;
    validateAbortSignal(signal, "options.signal");
    const onAborted = () => {
      if (this[kState].handle) this.close();
    };
    if (signal.aborted) onAborted();
    else {
      const disposable = addAbortListener(signal, onAborted);
      this.once("close", disposable[Symbol.dispose ?? Symbol.for("nodejs.dispose")]);
    }
  }
}
Object.setPrototypeOf(Socket.prototype, EventEmitter.prototype);
Object.setPrototypeOf(Socket, EventEmitter);

export function createSocket(type, listener) {
  return new Socket(type, listener);
}

function healthCheck(socket) {
  if (!socket[kState].handle) throw notRunning();
}

function startListening(socket) {
  const state = socket[kState];
  state.receiving = true;
  state.bindState = BOUND;
  receive(socket, state, state.handle.rid);
  if (state.recvBufferSize) bufferSize(socket, state.recvBufferSize, true);
  if (state.sendBufferSize) bufferSize(socket, state.sendBufferSize, false);
  socket.emit("listening");
}

/** Keeps one receive pending while the socket receives; each datagram is an I/O callback. */
async function receive(socket, state, rid) {
  const current = () => state.receiving && state.handle?.rid === rid;
  while (current()) {
    let datagram;
    try {
      datagram = await ops.op_dgram_recv(rid);
    } catch (e) {
      if (!current()) return;
      let err;
      try { err = uvError(e); } catch { return; }
      if (err.code === "EIO") return; // not an error recvmsg reports: the socket is gone
      ioCallback(() => { if (current()) socket.emit("error", errnoException(err, "recvmsg")); });
      continue;
    }
    ioCallback(() => {
      if (!current()) return;
      const { data, address, family, port } = datagram;
      const msg = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      socket.emit("message", msg, { address, family, port, size: msg.length });
    });
  }
}

function bufferSize(socket, size, recv) {
  if (size >>> 0 !== size) throw nodeError(TypeError, "ERR_SOCKET_BAD_BUFFER_SIZE", "Buffer size must be a positive integer");
  const handle = socket[kState].handle;
  if (!handle) throw notRunning();
  const syscall = recv ? "uv_recv_buffer_size" : "uv_send_buffer_size";
  let err = EBADF;
  if (handle.rid !== null) {
    try {
      return ops.op_dgram_buffer_size(handle.rid, recv, size);
    } catch (e) {
      err = uvError(e);
    }
  }
  throw new SystemError("ERR_SOCKET_BUFFER_SIZE", "Could not get or set buffer size",
    { errno: err.errno, code: err.code, message: err.text, syscall });
}

Socket.prototype.bind = function (port_, address_ /* , callback */) {
  let port = port_;
  healthCheck(this);
  const state = this[kState];
  if (state.bindState !== UNBOUND) throw nodeError(Error, "ERR_SOCKET_ALREADY_BOUND", "Socket is already bound");
  state.bindState = BINDING;

  const cb = arguments.length && arguments[arguments.length - 1];
  if (typeof cb === "function") {
    function removeListeners() {
      this.removeListener("error", removeListeners);
      this.removeListener("listening", onListening);
    }
    function onListening() {
      removeListeners.call(this);
      cb.call(this);
    }
    this.on("error", removeListeners);
    this.on("listening", onListening);
  }

  if (port !== null && typeof port === "object" && Number.isInteger(port.fd) && port.fd > 0) {
    state.bindState = UNBOUND;
    unsupported("node:dgram.Socket.bind({ fd })")();
  }

  let address;
  if (port !== null && typeof port === "object") {
    address = port.address || "";
    port = port.port;
  } else {
    address = typeof address_ === "function" ? "" : address_;
  }
  if (!address) address = this.type === "udp4" ? "0.0.0.0" : "::";

  state.handle.lookup(address, (err, ip) => {
    if (err) {
      state.bindState = UNBOUND;
      this.emit("error", err);
      return;
    }
    if (!state.handle) return; // closed meanwhile
    let flags = 0;
    if (state.reuseAddr) flags |= REUSE_ADDR;
    if (state.ipv6Only) flags |= IPV6_ONLY;
    const bindErr = handleBind(state.handle, ip, port || 0, flags);
    if (bindErr) {
      const ex = exceptionWithHostPort(bindErr, "bind", ip, port);
      state.bindState = UNBOUND;
      this.emit("error", ex);
      return;
    }
    startListening(this);
  });
  return this;
};

Socket.prototype.connect = function (port, address, callback) {
  port = validatePort(port, "Port");
  if (typeof address === "function") {
    callback = address;
    address = "";
  } else if (address === undefined) {
    address = "";
  }
  validateString(address, "address");
  const state = this[kState];
  if (state.connectState !== DISCONNECTED) throw isConnected();
  state.connectState = CONNECTING;
  if (state.bindState === UNBOUND) this.bind({ port: 0, exclusive: true }, null);
  if (state.bindState !== BOUND) {
    enqueue(this, connectNow.bind(this, port, address, callback));
    return;
  }
  connectNow.call(this, port, address, callback);
};

function connectNow(port, address, callback) {
  const state = this[kState];
  if (callback) this.once("connect", callback);
  state.handle.lookup(address, (ex, ip) => {
    if (!state.handle) return;
    if (!ex) {
      const err = handleCall(state.handle, (rid) => ops.op_dgram_connect(rid, String(ip), port));
      if (err) ex = exceptionWithHostPort(err, "connect", address, port);
    }
    if (ex) {
      state.connectState = DISCONNECTED;
      nextTick(() => {
        if (callback) {
          this.removeListener("connect", callback);
          callback(ex);
        } else {
          this.emit("error", ex);
        }
      });
      return;
    }
    state.connectState = CONNECTED;
    nextTick(() => this.emit("connect"));
  });
}

Socket.prototype.disconnect = function () {
  const state = this[kState];
  if (state.connectState !== CONNECTED) throw notConnected();
  healthCheck(this);
  const err = handleCall(state.handle, (rid) => ops.op_dgram_connect(rid, "", 0));
  if (err) throw errnoException(err, "connect");
  state.connectState = DISCONNECTED;
};

Socket.prototype.sendto = function (buffer, offset, length, port, address, callback) {
  validateNumber(offset, "offset");
  validateNumber(length, "length");
  validateNumber(port, "port");
  validateString(address, "address");
  this.send(buffer, offset, length, port, address, callback);
};

function isView(value) {
  return ArrayBuffer.isView(value);
}

function sliceBuffer(buffer, offset, length) {
  if (typeof buffer === "string") buffer = Buffer.from(buffer);
  else if (!isView(buffer)) throw invalidArgType("buffer", BUFFER_TYPES, buffer);
  offset = offset >>> 0;
  length = length >>> 0;
  if (offset > buffer.byteLength) throw outOfBounds("offset");
  if (offset + length > buffer.byteLength) throw outOfBounds("length");
  return Buffer.from(buffer.buffer, buffer.byteOffset + offset, length);
}

function fixBufferList(list) {
  const out = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const buf = list[i];
    if (typeof buf === "string") out[i] = Buffer.from(buf);
    else if (!isView(buf)) return null;
    else out[i] = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  return out;
}

function enqueue(socket, entry) {
  const state = socket[kState];
  if (state.queue === undefined) {
    state.queue = [];
    socket.once(errorMonitor, onListenError);
    socket.once("listening", onListenSuccess);
  }
  state.queue.push(entry);
}

function onListenSuccess() {
  this.removeListener(errorMonitor, onListenError);
  const state = this[kState];
  const queue = state.queue;
  state.queue = undefined;
  for (const entry of queue) entry();
}

function onListenError() {
  this.removeListener("listening", onListenSuccess);
  this[kState].queue = undefined;
}

// send(buffer, offset, length, port, address, callback), send(bufferOrList, port, address,
// callback), and for a connected socket the same without port and address.
Socket.prototype.send = function (buffer, offset, length, port, address, callback) {
  let list;
  const state = this[kState];
  const connected = state.connectState === CONNECTED;
  if (!connected) {
    if (address || (port && typeof port !== "function")) {
      buffer = sliceBuffer(buffer, offset, length);
    } else {
      callback = port;
      port = offset;
      address = length;
    }
  } else {
    if (typeof length === "number") {
      buffer = sliceBuffer(buffer, offset, length);
      if (typeof port === "function") {
        callback = port;
        port = null;
      }
    } else {
      callback = offset;
    }
    if (port || address) throw isConnected();
  }

  if (!Array.isArray(buffer)) {
    if (typeof buffer === "string") list = [Buffer.from(buffer)];
    else if (!isView(buffer)) throw invalidArgType("buffer", BUFFER_TYPES, buffer);
    else list = [buffer];
  } else if (!(list = fixBufferList(buffer))) {
    throw invalidArgType("buffer list arguments", BUFFER_TYPES, buffer);
  }

  if (!connected) port = validatePort(port, "Port");
  if (typeof callback !== "function") callback = undefined;
  if (typeof address === "function") {
    callback = address;
    address = undefined;
  } else if (address != null) {
    validateString(address, "address");
  }

  healthCheck(this);
  if (state.bindState === UNBOUND) this.bind({ port: 0, exclusive: true }, null);
  if (list.length === 0) list.push(Buffer.alloc(0));
  if (state.bindState !== BOUND) {
    enqueue(this, this.send.bind(this, list, port, address, callback));
    return;
  }
  const afterDns = (ex, ip) => doSend(ex, this, ip, list, address, port, callback);
  if (!connected) state.handle.lookup(address, afterDns);
  else afterDns(null, null);
};

function doSend(ex, socket, ip, list, address, port, callback) {
  const state = socket[kState];
  if (ex) {
    if (typeof callback === "function") nextTick(callback, ex);
    else nextTick(() => socket.emit("error", ex));
    return;
  }
  if (!state.handle) return;
  const rid = state.handle.rid;
  // One datagram: the list's parts, in order.
  const data = list.length === 1 ? list[0] : Buffer.concat(list);
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const to = port ? String(ip) : "";
  let sent;
  try {
    sent = ops.op_dgram_send(rid, bytes, to, port || 0);
  } catch (e) {
    if (callback) nextTick(callback, exceptionWithHostPort(uvError(e), "send", address, port));
    return;
  }
  if (sent >= 0) {
    if (callback) nextTick(callback, null, sent);
    return;
  }
  // The kernel's buffer is full: wait until it takes the datagram.
  const copy = Uint8Array.prototype.slice.call(bytes);
  ops.op_dgram_send_async(rid, copy, to, port || 0).then(
    (n) => { if (callback) ioCallback(callback, null, n); },
    (e) => {
      if (!callback || state.handle?.rid !== rid) return;
      let err;
      try { err = uvError(e); } catch { return; }
      ioCallback(callback, exceptionWithHostPort(err, "send", address, port));
    },
  );
}

Socket.prototype.close = function (callback) {
  const state = this[kState];
  const queue = state.queue;
  if (typeof callback === "function") this.on("close", callback);
  if (queue !== undefined) {
    queue.push(this.close.bind(this));
    return this;
  }
  healthCheck(this);
  state.receiving = false;
  if (state.handle.rid !== null) ops.op_dgram_close(state.handle.rid);
  state.handle = null;
  nextTick(() => this.emit("close"));
  return this;
};

Socket.prototype[Symbol.asyncDispose] = async function () {
  if (!this[kState].handle) return;
  return new Promise((resolve) => this.close(() => resolve()));
};

Socket.prototype.address = function () {
  healthCheck(this);
  let out;
  const err = handleCall(this[kState].handle, (rid) => (out = ops.op_dgram_address(rid, false)));
  if (err) throw errnoException(err, "getsockname");
  return out;
};

Socket.prototype.remoteAddress = function () {
  healthCheck(this);
  const state = this[kState];
  if (state.connectState !== CONNECTED) throw notConnected();
  let out;
  const err = handleCall(state.handle, (rid) => (out = ops.op_dgram_address(rid, true)));
  if (err) throw errnoException(err, "getpeername");
  return out;
};

/** A socket option; Node's handle methods take their argument as an Int32. */
function setOption(socket, option, value, syscall) {
  healthCheck(socket);
  const err = handleCall(socket[kState].handle, (rid) => ops.op_dgram_set_option(rid, option, value | 0));
  if (err) throw errnoException(err, syscall);
}

Socket.prototype.setBroadcast = function (arg) {
  setOption(this, BROADCAST, arg ? 1 : 0, "setBroadcast");
};

Socket.prototype.setTTL = function (ttl) {
  validateNumber(ttl, "ttl");
  setOption(this, TTL, ttl, "setTTL");
  return ttl;
};

Socket.prototype.setMulticastTTL = function (ttl) {
  validateNumber(ttl, "ttl");
  setOption(this, MULTICAST_TTL, ttl, "setMulticastTTL");
  return ttl;
};

Socket.prototype.setMulticastLoopback = function (arg) {
  setOption(this, MULTICAST_LOOP, arg ? 1 : 0, "setMulticastLoopback");
  return arg;
};

Socket.prototype.setMulticastInterface = function (interfaceAddress) {
  healthCheck(this);
  validateString(interfaceAddress, "interfaceAddress");
  const err = handleCall(this[kState].handle, (rid) => ops.op_dgram_multicast_interface(rid, interfaceAddress));
  if (err) throw errnoException(err, "setMulticastInterface");
};

function membership(socket, multicastAddress, interfaceAddress, join) {
  healthCheck(socket);
  if (!multicastAddress) throw E.missingArgs("multicastAddress");
  const { handle } = socket[kState];
  const syscall = join ? "addMembership" : "dropMembership";
  // libuv binds a socket that is not bound yet (any address, a free port, reusable) to give it
  // the membership; the socket is then bound already for a later bind().
  if (handle.rid === null) {
    const err = handleBind(handle, handle.ipv6 ? "::" : "0.0.0.0", 0, REUSE_ADDR);
    if (err) throw errnoException(err, syscall);
  }
  const iface = interfaceAddress == null ? undefined : String(interfaceAddress);
  const err = handleCall(handle, (rid) => ops.op_dgram_membership(rid, String(multicastAddress), iface, join));
  if (err) throw errnoException(err, syscall);
}

Socket.prototype.addMembership = function (multicastAddress, interfaceAddress) {
  membership(this, multicastAddress, interfaceAddress, true);
};

Socket.prototype.dropMembership = function (multicastAddress, interfaceAddress) {
  membership(this, multicastAddress, interfaceAddress, false);
};

Socket.prototype.addSourceSpecificMembership = unsupported("node:dgram.Socket.addSourceSpecificMembership");
Socket.prototype.dropSourceSpecificMembership = unsupported("node:dgram.Socket.dropSourceSpecificMembership");

// A plugin's event loop runs as long as the plugin is loaded: there is nothing to hold open.
Socket.prototype.ref = function () {
  return this;
};
Socket.prototype.unref = function () {
  return this;
};

Socket.prototype.setRecvBufferSize = function (size) {
  bufferSize(this, size, true);
};
Socket.prototype.setSendBufferSize = function (size) {
  bufferSize(this, size, false);
};
Socket.prototype.getRecvBufferSize = function () {
  return bufferSize(this, 0, true);
};
Socket.prototype.getSendBufferSize = function () {
  return bufferSize(this, 0, false);
};

// Sends the kernel does not take at once wait in their op, not in a queue of ours: reported
// as none queued.
Socket.prototype.getSendQueueSize = function () {
  return 0;
};
Socket.prototype.getSendQueueCount = function () {
  return 0;
};

// Deprecated private members (DEP0112) that old code still calls.
Socket.prototype._healthCheck = function () {
  healthCheck(this);
};
Socket.prototype._stopReceiving = function () {
  this[kState].receiving = false;
};

export const _createSocketHandle = unsupported("node:dgram._createSocketHandle");

export default { _createSocketHandle, createSocket, Socket };
