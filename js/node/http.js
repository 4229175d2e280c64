// `node:http`: an HTTP/1.1 server and client written in JS over node:net sockets. Requests are
// served one at a time per connection with keep-alive; bodies are framed by Content-Length or
// chunked encoding. The client opens one connection per request (`Connection: close`), through
// its agent's `createConnection` (node:https's makes TLS sockets); Agent pooling and trailers
// are not supported.
import { unsupported } from "paseo:internal/core";
import { EventEmitter } from "node:events";
import { Buffer } from "node:buffer";
import * as net from "node:net";
import { Readable, Stream } from "node:stream";
import { nodeError as codeError } from "./internal_errors.js";

import { nextTick } from "paseo:internal/timers";

export const METHODS = [
  "ACL", "BIND", "CHECKOUT", "CONNECT", "COPY", "DELETE", "GET", "HEAD", "LINK", "LOCK", "M-SEARCH",
  "MERGE", "MKACTIVITY", "MKCALENDAR", "MKCOL", "MOVE", "NOTIFY", "OPTIONS", "PATCH", "POST",
  "PROPFIND", "PROPPATCH", "PURGE", "PUT", "QUERY", "REBIND", "REPORT", "SEARCH", "SOURCE",
  "SUBSCRIBE", "TRACE", "UNBIND", "UNLINK", "UNLOCK", "UNSUBSCRIBE",
];

export const STATUS_CODES = {
  100: "Continue", 101: "Switching Protocols", 102: "Processing", 103: "Early Hints",
  200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
  205: "Reset Content", 206: "Partial Content", 207: "Multi-Status", 208: "Already Reported", 226: "IM Used",
  300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
  305: "Use Proxy", 307: "Temporary Redirect", 308: "Permanent Redirect",
  400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
  405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required", 408: "Request Timeout",
  409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed", 413: "Payload Too Large",
  414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable", 417: "Expectation Failed",
  418: "I'm a Teapot", 421: "Misdirected Request", 422: "Unprocessable Entity", 423: "Locked",
  424: "Failed Dependency", 425: "Too Early", 426: "Upgrade Required", 428: "Precondition Required",
  429: "Too Many Requests", 431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
  500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
  504: "Gateway Timeout", 505: "HTTP Version Not Supported", 506: "Variant Also Negotiates",
  507: "Insufficient Storage", 508: "Loop Detected", 509: "Bandwidth Limit Exceeded", 510: "Not Extended",
  511: "Network Authentication Required",
};

export const maxHeaderSize = 16384;


const tokenRe = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
const invalidValueRe = /[^\t\x20-\x7e\x80-\xff]/;

export function validateHeaderName(name) {
  if (typeof name !== "string" || !name || !tokenRe.test(name)) {
    throw codeError(TypeError, "ERR_INVALID_HTTP_TOKEN", `Header name must be a valid HTTP token ["${name}"]`);
  }
}
export function validateHeaderValue(name, value) {
  if (value === undefined) throw codeError(TypeError, "ERR_HTTP_INVALID_HEADER_VALUE", `Invalid value "${value}" for header "${name}"`);
  if (invalidValueRe.test(String(value))) throw codeError(TypeError, "ERR_INVALID_CHAR", `Invalid character in header content ["${name}"]`);
}

// Duplicates of these are dropped (first wins), as Node's IncomingMessage does.
const SINGLE = new Set([
  "age", "authorization", "content-length", "content-type", "etag", "expires", "from", "host",
  "if-modified-since", "if-unmodified-since", "last-modified", "location", "max-forwards",
  "proxy-authorization", "referer", "retry-after", "server", "user-agent",
]);

function headersFrom(raw) {
  const headers = {};
  const distinct = {};
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i].toLowerCase();
    const value = raw[i + 1];
    (distinct[key] ??= []).push(value);
    if (!(key in headers)) headers[key] = key === "set-cookie" ? [value] : value;
    else if (key === "set-cookie") headers[key].push(value);
    else if (key === "cookie") headers[key] += `; ${value}`;
    else if (!SINGLE.has(key)) headers[key] += `, ${value}`;
  }
  return { headers, distinct };
}

/** Parses one side of an HTTP/1.x connection: heads, then bodies framed as `onHead` says. */
class Parser {
  constructor(kind, handlers) {
    this.kind = kind;
    this.h = handlers;
    this.buf = Buffer.alloc(0);
    this.state = "head";
    this.remaining = 0;
    this.paused = false;
  }
  feed(chunk) {
    if (chunk?.length) this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    while (!this.paused) {
      const buf = this.buf;
      if (this.state === "head") {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) {
          if (buf.length > maxHeaderSize) throw codeError(Error, "HPE_HEADER_OVERFLOW", "Header overflow");
          return;
        }
        // Tolerate stray CRLFs between messages (RFC 9112 §2.2).
        const text = buf.toString("latin1", 0, end).replace(/^(\r\n)+/, "");
        this.buf = buf.subarray(end + 4);
        const framing = this.h.onHead(parseHead(this.kind, text));
        if (framing === "none") this._done();
        else if (framing === "chunked") this.state = "size";
        else if (framing === "eof") this.state = "eof";
        else if (framing === 0) this._done();
        else { this.state = "length"; this.remaining = framing; }
      } else if (this.state === "length" || this.state === "data") {
        if (!buf.length) return;
        const take = Math.min(this.remaining, buf.length);
        this.h.onBody(buf.subarray(0, take));
        this.buf = buf.subarray(take);
        this.remaining -= take;
        if (this.remaining === 0) { if (this.state === "length") this._done(); else this.state = "crlf"; }
      } else if (this.state === "crlf") {
        if (buf.length < 2) return;
        if (buf[0] !== 13 || buf[1] !== 10) throw codeError(Error, "HPE_STRICT", "Expected CRLF after chunk");
        this.buf = buf.subarray(2);
        this.state = "size";
      } else if (this.state === "size") {
        const end = buf.indexOf("\r\n");
        if (end < 0) return;
        const size = parseInt(buf.toString("latin1", 0, end).split(";")[0].trim(), 16);
        if (Number.isNaN(size)) throw codeError(Error, "HPE_INVALID_CHUNK_SIZE", "Invalid character in chunk size");
        this.buf = buf.subarray(end + 2);
        if (size === 0) this.state = "trailers";
        else { this.state = "data"; this.remaining = size; }
      } else if (this.state === "trailers") {
        // Trailer fields are read past and dropped.
        const end = buf.indexOf("\r\n");
        if (end < 0) return;
        this.buf = buf.subarray(end + 2);
        if (end === 0) this._done();
      } else if (this.state === "eof") {
        if (buf.length) { this.h.onBody(buf); this.buf = Buffer.alloc(0); }
        return;
      }
    }
  }
  /** The connection ended: an EOF-delimited body is complete; anything else was cut short. */
  finish() {
    if (this.state === "eof") { this._done(); return true; }
    return this.state === "head" && !this.buf.length;
  }
  _done() {
    this.state = "head";
    this.h.onDone();
  }
}

function parseHead(kind, text) {
  const lines = text.split("\r\n");
  const first = lines.shift();
  const head = { rawHeaders: [] };
  if (kind === "request") {
    const m = /^([A-Z][A-Z-]*) (\S+) HTTP\/(\d)\.(\d)$/.exec(first);
    if (!m) throw codeError(Error, "HPE_INVALID_METHOD", "Parse Error: Invalid method encountered");
    [, head.method, head.url] = m;
    head.major = Number(m[3]);
    head.minor = Number(m[4]);
  } else {
    const m = /^HTTP\/(\d)\.(\d) (\d{3})(?: (.*))?$/.exec(first);
    if (!m) throw codeError(Error, "HPE_INVALID_CONSTANT", "Parse Error: Expected HTTP/");
    head.major = Number(m[1]);
    head.minor = Number(m[2]);
    head.statusCode = Number(m[3]);
    head.statusMessage = m[4] ?? "";
  }
  for (const line of lines) {
    if (/^[ \t]/.test(line) && head.rawHeaders.length) {
      head.rawHeaders[head.rawHeaders.length - 1] += ` ${line.trim()}`; // obsolete line folding
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0 || !tokenRe.test(line.slice(0, colon))) throw codeError(Error, "HPE_INVALID_HEADER_TOKEN", "Parse Error: Invalid header value char");
    head.rawHeaders.push(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  Object.assign(head, headersFrom(head.rawHeaders));
  return head;
}

/** Body framing of a parsed head: "none", "chunked", "eof" or a byte count. */
function framing(head, { response = false, method } = {}) {
  if (response && (method === "HEAD" || head.statusCode === 204 || head.statusCode === 304 || (head.statusCode >= 100 && head.statusCode < 200))) return "none";
  const te = head.headers["transfer-encoding"];
  if (te && /(?:^|,)\s*chunked\s*$/i.test(te)) return "chunked";
  const cl = head.headers["content-length"];
  if (cl !== undefined) {
    if (!/^\d+$/.test(cl)) throw codeError(Error, "HPE_INVALID_CONTENT_LENGTH", "Parse Error: Invalid character in Content-Length");
    return Number(cl);
  }
  return response ? "eof" : "none";
}

function keepAliveOf(head) {
  const connection = (head.headers.connection ?? "").toLowerCase();
  if (head.major === 1 && head.minor >= 1) return !/\bclose\b/.test(connection);
  return /\bkeep-alive\b/.test(connection);
}

export class IncomingMessage extends Readable {
  constructor(socket) {
    // 'close' comes when the exchange is over (_close), not when the body has been read.
    super({ autoDestroy: false, emitClose: false });
    this.socket = socket;
    this.complete = false;
    this.aborted = false;
    this.headers = {};
    this.headersDistinct = {};
    this.rawHeaders = [];
    this.trailers = {};
    this.trailersDistinct = {};
    this.rawTrailers = [];
    this.httpVersion = "1.1";
    this.httpVersionMajor = 1;
    this.httpVersionMinor = 1;
    this.method = null;
    this.url = "";
    this.statusCode = null;
    this.statusMessage = null;
  }
  get connection() { return this.socket; }
  _setHead(head) {
    this.headers = head.headers;
    this.headersDistinct = head.distinct;
    this.rawHeaders = head.rawHeaders;
    this.httpVersionMajor = head.major;
    this.httpVersionMinor = head.minor;
    this.httpVersion = `${head.major}.${head.minor}`;
  }
  setTimeout(ms, cb) { this.socket?.setTimeout(ms, cb); return this; }
  // The parser pushes the body as it arrives.
  _read() {}
  _destroy(err, cb) {
    if (!this.complete) this.socket?.destroy();
    cb(err);
    nextTick(() => this.emit("close"));
  }
  /** The exchange is over: 'close' follows 'end' (buffered body data stays readable), or comes
   *  at once when the connection went away (`now`). */
  _close(now) {
    if (this._closing) return;
    this._closing = true;
    if (now || this.readableEnded || !this.complete) nextTick(() => this.emit("close"));
    else this.once("end", () => nextTick(() => this.emit("close")));
  }
}

/** What ServerResponse and ClientRequest share: headers, framing and writes to the socket. */
export class OutgoingMessage extends Stream {
  constructor() {
    super();
    this._headers = new Map();
    this.headersSent = false;
    this.writableEnded = false;
    this.writableFinished = false;
    this.finished = false;
    this.destroyed = false;
    this.sendDate = false;
    this.socket = null;
    this.chunkedEncoding = false;
    this.useChunkedEncodingByDefault = true;
    this.shouldKeepAlive = false;
    this._hasBody = true;
    this._contentLength = null;
  }
  get connection() { return this.socket; }
  get writable() { return !this.writableEnded && !this.destroyed; }
  get writableLength() { return this.socket?.writableLength ?? 0; }
  get writableHighWaterMark() { return 16384; }
  get writableCorked() { return 0; }
  setHeader(name, value) {
    if (this.headersSent) throw codeError(Error, "ERR_HTTP_HEADERS_SENT", "Cannot set headers after they are sent to the client");
    validateHeaderName(name);
    validateHeaderValue(name, value);
    this._headers.set(name.toLowerCase(), [name, value]);
    return this;
  }
  appendHeader(name, value) {
    const old = this._headers.get(String(name).toLowerCase());
    if (!old) return this.setHeader(name, value);
    validateHeaderValue(name, value);
    old[1] = [].concat(old[1], value);
    return this;
  }
  setHeaders(headers) {
    for (const [name, value] of headers instanceof Map || headers?.entries ? headers.entries() : Object.entries(headers)) this.setHeader(name, value);
    return this;
  }
  getHeader(name) { return this._headers.get(String(name).toLowerCase())?.[1]; }
  getHeaders() {
    const out = Object.create(null);
    for (const [key, [, value]] of this._headers) out[key] = value;
    return out;
  }
  getHeaderNames() { return [...this._headers.keys()]; }
  getRawHeaderNames() { return [...this._headers.values()].map(([name]) => name); }
  hasHeader(name) { return this._headers.has(String(name).toLowerCase()); }
  removeHeader(name) {
    if (this.headersSent) throw codeError(Error, "ERR_HTTP_HEADERS_SENT", "Cannot remove headers after they are sent to the client");
    this._headers.delete(String(name).toLowerCase());
  }
  flushHeaders() { if (!this.headersSent) this._sendHead(); }
  addTrailers() { unsupported("node:http.OutgoingMessage.addTrailers")(); }
  // Writes go straight to the socket; corking would only batch them.
  cork() {}
  uncork() {}

  /** Builds and sends the head: the subclass's first line and headers, then Node's defaults. */
  _sendHead() {
    const lines = [this._firstLine()];
    const has = (key) => this._headers.has(key);
    for (const [name, value] of this._headers.values()) {
      for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
    }
    this._defaultHeaders(lines);
    if (has("connection")) {
      if (/\bclose\b/i.test(String(this.getHeader("connection")))) this.shouldKeepAlive = false;
    } else if (this.shouldKeepAlive && (has("content-length") || this.useChunkedEncodingByDefault)) {
      lines.push("Connection: keep-alive", ...this._keepAliveLines());
    } else {
      this.shouldKeepAlive = false;
      lines.push("Connection: close");
    }
    // Node's framing: an explicit header wins; then Content-Length when end() came before any
    // write, else chunked; messages that do not default to chunked end with the connection.
    if (has("transfer-encoding")) {
      this.chunkedEncoding = /(?:^|,)\s*chunked\s*$/i.test(String(this.getHeader("transfer-encoding")));
    } else if (!has("content-length") && this._hasBody) {
      if (!this.useChunkedEncodingByDefault) this.shouldKeepAlive = false;
      else if (this._contentLength !== null) lines.push(`Content-Length: ${this._contentLength}`);
      else { lines.push("Transfer-Encoding: chunked"); this.chunkedEncoding = true; }
    }
    this.headersSent = true;
    this._header = `${lines.join("\r\n")}\r\n\r\n`;
    this.socket.write(this._header, "latin1");
  }
  _keepAliveLines() { return []; }

  write(chunk, encoding, cb) {
    if (typeof encoding === "function") { cb = encoding; encoding = undefined; }
    if (this.writableEnded) {
      const err = codeError(Error, "ERR_STREAM_WRITE_AFTER_END", "write after end");
      nextTick(() => { cb?.(err); this.emit("error", err); });
      return false;
    }
    if (chunk === null) throw codeError(TypeError, "ERR_STREAM_NULL_VALUES", "May not write null values to stream");
    if (!this.headersSent) this._sendHead();
    return this._writeBody(chunk, encoding, cb);
  }
  _writeBody(chunk, encoding, cb) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, encoding ?? "utf8") : chunk;
    if (!this._hasBody || !bytes.length || this.destroyed) { if (cb) nextTick(cb); return true; }
    if (this.chunkedEncoding) this.socket.write(`${bytes.length.toString(16)}\r\n`, "latin1");
    let ok = this.socket.write(bytes, cb);
    if (this.chunkedEncoding) ok = this.socket.write("\r\n", "latin1");
    return ok;
  }
  end(chunk, encoding, cb) {
    if (typeof chunk === "function") { cb = chunk; chunk = undefined; }
    if (typeof encoding === "function") { cb = encoding; encoding = undefined; }
    if (this.writableEnded) { if (cb) nextTick(cb); return this; }
    const bytes = chunk === undefined || chunk === null ? null : typeof chunk === "string" ? Buffer.from(chunk, encoding ?? "utf8") : chunk;
    if (!this.headersSent) {
      this._contentLength = bytes ? bytes.length : 0;
      this._sendHead();
    }
    if (bytes) this._writeBody(bytes);
    if (this.chunkedEncoding && this._hasBody) this.socket.write("0\r\n\r\n", "latin1");
    this.writableEnded = this.finished = true;
    const finish = () => {
      if (this.writableFinished) return;
      this.writableFinished = true;
      cb?.();
      this.emit("finish");
      this._onFinish();
    };
    if (this.socket.destroyed) nextTick(finish);
    else this.socket.write("", finish);
    return this;
  }
  _onFinish() {}
}

export class ServerResponse extends OutgoingMessage {
  constructor(req) {
    super();
    this.req = req;
    this.socket = req.socket;
    this.statusCode = 200;
    this.statusMessage = undefined;
    this.sendDate = true;
    this.strictContentLength = false;
    this.shouldKeepAlive = keepAliveOf({ major: req.httpVersionMajor, minor: req.httpVersionMinor, headers: req.headers });
    if (req.httpVersionMajor < 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor < 1)) {
      this.useChunkedEncodingByDefault = /(?:^|\W)chunked(?:$|\W)/i.test(req.headers.te ?? "");
    }
    if (req.method === "HEAD") this._hasBody = false;
  }
  _firstLine() {
    const code = this.statusCode;
    if (code === 204 || code === 304 || (code >= 100 && code < 200)) this._hasBody = false;
    this.statusMessage ??= STATUS_CODES[code] ?? "unknown";
    return `HTTP/1.1 ${code} ${this.statusMessage}`;
  }
  _defaultHeaders(lines) {
    if (this.sendDate && !this.hasHeader("date")) lines.push(`Date: ${new Date().toUTCString()}`);
  }
  _keepAliveLines() { return [`Keep-Alive: timeout=${Math.floor(this._server?.keepAliveTimeout / 1000) || 5}`]; }
  writeHead(statusCode, reason, headers) {
    if (this.headersSent) throw codeError(Error, "ERR_HTTP_HEADERS_SENT", "Cannot write headers after they are sent to the client");
    if (typeof reason !== "string") { headers = reason; reason = undefined; }
    const code = Number(statusCode) | 0;
    if (code < 100 || code > 999) throw codeError(RangeError, "ERR_HTTP_INVALID_STATUS_CODE", `Invalid status code: ${statusCode}`);
    this.statusCode = code;
    if (reason !== undefined) this.statusMessage = reason;
    if (Array.isArray(headers)) {
      if (Array.isArray(headers[0])) for (const [k, v] of headers) this.appendHeader(k, v);
      else for (let i = 0; i < headers.length; i += 2) this.appendHeader(headers[i], headers[i + 1]);
    } else if (headers) {
      for (const [k, v] of Object.entries(headers)) if (v !== undefined) this.setHeader(k, v);
    }
    this._sendHead();
    return this;
  }
  writeContinue(cb) { this.socket.write("HTTP/1.1 100 Continue\r\n\r\n", "latin1", cb); }
  writeProcessing(cb) { this.socket.write("HTTP/1.1 102 Processing\r\n\r\n", "latin1", cb); }
  writeEarlyHints() { unsupported("node:http.ServerResponse.writeEarlyHints")(); }
  setTimeout(ms, cb) { this.socket?.setTimeout(ms, cb); return this; }
  destroy(err) {
    if (!this.destroyed) this.socket?.destroy(err);
    return this;
  }
  _onFinish() { this._done?.(); }
}

export class Agent extends EventEmitter {
  // Accepted so that code passing an agent works; every request gets its own connection.
  constructor(options = {}) {
    super();
    this.options = { ...options };
    this.keepAlive = Boolean(options.keepAlive);
    this.maxSockets = options.maxSockets ?? Infinity;
    this.maxFreeSockets = options.maxFreeSockets ?? 256;
    this.sockets = {};
    this.freeSockets = {};
    this.requests = {};
    this.defaultPort = 80;
    this.protocol = "http:";
  }
  createConnection(...args) { return net.createConnection(...args); }
  destroy() {}
}
export const globalAgent = new Agent();

export class Server extends net.Server {
  constructor(options, listener) {
    if (typeof options === "function") { listener = options; options = {}; }
    super({ allowHalfOpen: true });
    this.keepAliveTimeout = options?.keepAliveTimeout ?? 5000;
    this.headersTimeout = 60000;
    this.requestTimeout = 300000;
    this.timeout = 0;
    this.maxHeadersCount = null;
    this.maxRequestsPerSocket = 0;
    this._httpConnections = new Set();
    if (listener) this.on("request", listener);
    this.on("connection", (socket) => serveConnection(this, socket));
  }
  close(cb) {
    super.close(cb);
    this.closeIdleConnections();
    return this;
  }
  closeAllConnections() { for (const c of this._httpConnections) c.socket.destroy(); }
  closeIdleConnections() { for (const c of this._httpConnections) if (c.idle) c.socket.destroy(); }
  // Server-wide socket timeouts are not applied; a plugin's loopback server has no need of them.
  setTimeout(ms, cb) { this.timeout = ms; if (cb) this.on("timeout", cb); return this; }
}

export function createServer(options, listener) {
  return new Server(options, listener);
}

function serveConnection(server, socket) {
  const conn = { socket, idle: true };
  server._httpConnections.add(conn);
  let req = null, res = null, reqDone = false, closeWhenDone = false, idleTimer = null;

  const next = () => {
    req = res = null;
    conn.idle = true;
    if (closeWhenDone || socket.destroyed) { socket.destroySoon(); return; }
    idleTimer = setTimeout(() => socket.destroy(), server.keepAliveTimeout);
    parser.paused = false;
    parse();
  };
  const parser = new Parser("request", {
    onHead(head) {
      clearTimeout(idleTimer);
      conn.idle = false;
      req = new IncomingMessage(socket);
      req._setHead(head);
      req.method = head.method;
      req.url = head.url;
      reqDone = false;
      res = new ServerResponse(req);
      res._server = server;
      const body = framing(head);
      const upgrade = head.headers.upgrade && /\bupgrade\b/i.test(head.headers.connection ?? "");
      // CONNECT goes to 'connect' (without a listener the socket is closed, as in Node); an
      // upgrade nobody listens for is answered as a plain request.
      const connect = head.method === "CONNECT";
      if (connect && !server.listenerCount("connect")) {
        parser.paused = true;
        socket.destroy();
        return "none";
      }
      if (connect || (upgrade && server.listenerCount("upgrade"))) {
        // The socket now belongs to the listener; stop reading HTTP from it.
        parser.paused = true;
        socket.removeListener("data", onData).removeListener("end", onEnd);
        socket.readableFlowing = null; // data waits for the new owner's listener, as in Node
        server._httpConnections.delete(conn);
        const rest = parser.buf;
        parser.buf = Buffer.alloc(0);
        const upgraded = req;
        req = res = null;
        server.emit(connect ? "connect" : "upgrade", upgraded, socket, rest);
        return "none";
      }
      const thisRes = res;
      res._done = () => {
        if (!thisRes.shouldKeepAlive) closeWhenDone = true;
        req._close();
        nextTick(() => thisRes.emit("close"));
        if (reqDone) next();
      };
      if (/^100-continue$/i.test(head.headers.expect ?? "")) {
        if (server.listenerCount("checkContinue")) { server.emit("checkContinue", req, res); return body; }
        res.writeContinue();
      }
      // A throwing handler is the plugin's uncaught error (reported by the engine), not a bad request.
      try { server.emit("request", req, res); } catch (e) { Promise.reject(e); socket.destroy(); }
      return body;
    },
    onBody(chunk) { req.push(chunk); },
    onDone() {
      reqDone = true;
      if (!req) return;
      req.complete = true;
      req.push(null);
      if (res.writableFinished) next();
      else parser.paused = true; // the next request waits for this response
    },
  });
  const parse = (chunk) => {
    try {
      parser.feed(chunk);
    } catch (err) {
      parser.paused = true;
      if (server.listenerCount("clientError")) server.emit("clientError", err, socket);
      else if (!res) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n", "latin1");
      else socket.destroy();
    }
  };
  const onData = (chunk) => parse(chunk);
  socket.on("data", onData);
  // The client stopped sending: as Node does by default (no httpAllowHalfOpen), a response in
  // progress is abandoned and the connection closes ('close' on req and res).
  const onEnd = () => socket.destroySoon();
  socket.on("end", onEnd);
  socket.on("error", (err) => {
    if (server.listenerCount("clientError")) server.emit("clientError", err, socket);
  });
  socket.on("close", () => {
    clearTimeout(idleTimer);
    server._httpConnections.delete(conn);
    if (res && !res.writableFinished) {
      res.destroyed = true;
      req.aborted = !req.complete;
      if (req.aborted) req.emit("aborted");
      req._close(true);
      res.emit("close");
    }
  });
}

export class ClientRequest extends OutgoingMessage {
  constructor(input, options, cb) {
    super();
    if (typeof input === "string" || input instanceof URL) {
      const url = input instanceof URL ? input : new URL(input);
      const fromUrl = {
        protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ""), port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        auth: url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
      };
      if (typeof options === "function") { cb = options; options = {}; }
      options = { ...fromUrl, ...options };
    } else {
      if (typeof input === "function") { cb = input; input = {}; }
      if (typeof options === "function") cb = options;
      options = { ...input };
    }
    // node:https passes its global agent as `_defaultAgent`, as Node's https.request does.
    const defaultAgent = options._defaultAgent ?? globalAgent;
    let agent = options.agent;
    if (agent === false) agent = new defaultAgent.constructor();
    else if (agent == null && typeof options.createConnection !== "function") agent = defaultAgent;
    const protocol = options.protocol ?? defaultAgent.protocol;
    const expected = agent?.protocol ?? defaultAgent.protocol;
    if (protocol !== expected) throw codeError(TypeError, "ERR_INVALID_PROTOCOL", `Protocol "${protocol}" not supported. Expected "${expected}"`);
    const method = String(options.method ?? "GET").toUpperCase();
    if (!tokenRe.test(method)) throw codeError(TypeError, "ERR_INVALID_HTTP_TOKEN", `Method must be a valid HTTP token ["${options.method}"]`);
    const path = options.path ?? "/";
    if (/[\u0000-\u0020]/.test(path)) throw codeError(TypeError, "ERR_UNESCAPED_CHARACTERS", "Request path contains unescaped characters");
    const host = options.hostname ?? options.host ?? "localhost";
    const defaultPort = options.defaultPort || agent?.defaultPort || 80;
    const port = Number(options.port || defaultPort);
    Object.assign(this, { method, path, host, protocol, agent, reusedSocket: false, aborted: false, maxHeadersCount: null });
    this.useChunkedEncodingByDefault = !["GET", "HEAD", "DELETE", "OPTIONS", "TRACE", "CONNECT"].includes(method);
    const headers = options.headers;
    if (Array.isArray(headers)) for (let i = 0; i < headers.length; i += 2) this.appendHeader(headers[i], headers[i + 1]);
    else if (headers) for (const [k, v] of Object.entries(headers)) if (v !== undefined) this.setHeader(k, v);
    if (!this.hasHeader("host") && options.setHost !== false) {
      const name = host.includes(":") ? `[${host}]` : host;
      this.setHeader("Host", port === Number(defaultPort) ? name : `${name}:${port}`);
    }
    if (options.auth && !this.hasHeader("authorization")) this.setHeader("Authorization", `Basic ${Buffer.from(options.auth).toString("base64")}`);
    if (cb) this.once("response", cb);

    // As Node's Agent: the request's options, then the agent's, with SNI from the Host header
    // (`path` is the request's; a unix socket's goes in as `path`).
    const connect = { ...options, ...agent?.options, host, port };
    for (const key of ["path", "socketPath", "agent", "_defaultAgent", "createConnection", "timeout", "signal"]) delete connect[key];
    if (options.socketPath) connect.path = options.socketPath;
    if (connect.servername === undefined) connect.servername = serverName(host, this.getHeader("host"));
    let socket;
    if (typeof options.createConnection === "function") socket = options.createConnection(connect);
    else socket = (agent.createConnection ?? defaultAgent.createConnection).call(agent, connect);
    if (!socket) unsupported("node:http.request({ createConnection }) that gives its socket to a callback")();
    this.socket = socket;
    nextTick(() => this.emit("socket", socket));
    if (options.timeout) this.setTimeout(options.timeout);
    if (options.signal) {
      const signal = options.signal;
      const onAbort = () => this.destroy(Object.assign(new Error("The operation was aborted"), { name: "AbortError", code: "ABORT_ERR", cause: signal.reason }));
      if (signal.aborted) nextTick(onAbort);
      else { signal.addEventListener("abort", onAbort, { once: true }); this.once("close", () => signal.removeEventListener("abort", onAbort)); }
    }
    this._attachSocket(socket);
  }
  _firstLine() { return `${this.method} ${this.path} HTTP/1.1`; }
  _defaultHeaders() {}

  _attachSocket(socket) {
    let res = null;
    const listeners = {};
    const parser = new Parser("response", {
      onHead: (head) => {
        // 101 Switching Protocols, or a CONNECT's 2xx: the socket now speaks another protocol
        // and goes to the 'upgrade' ('connect') listener with what followed the head; without
        // one it is closed, as in Node.
        const connect = this.method === "CONNECT" && head.statusCode >= 200 && head.statusCode < 300;
        if (head.statusCode === 101 || connect) {
          parser.paused = true;
          for (const [event, fn] of Object.entries(listeners)) socket.removeListener(event, fn);
          socket.readableFlowing = null; // data waits for the new owner's listener
          const rest = parser.buf;
          parser.buf = Buffer.alloc(0);
          const upgraded = new IncomingMessage(socket);
          upgraded._setHead(head);
          upgraded.statusCode = head.statusCode;
          upgraded.statusMessage = head.statusMessage;
          upgraded.upgrade = true;
          upgraded.req = this;
          this.res = upgraded;
          this.upgradeOrConnect = true;
          const event = connect ? "connect" : "upgrade";
          if (this.listenerCount(event) > 0) {
            this.destroyed = true;
            this.emit(event, upgraded, socket, rest);
            nextTick(() => this.emit("close"));
          } else {
            socket.destroy();
            nextTick(() => this.emit("close"));
          }
          return "none";
        }
        if (head.statusCode >= 100 && head.statusCode < 200) {
          this.emit("information", { statusCode: head.statusCode, statusMessage: head.statusMessage, httpVersion: `${head.major}.${head.minor}`, headers: head.headers, rawHeaders: head.rawHeaders });
          return "none";
        }
        res = new IncomingMessage(socket);
        res._setHead(head);
        res.statusCode = head.statusCode;
        res.statusMessage = head.statusMessage;
        res.req = this;
        this.res = res;
        const body = framing(head, { response: true, method: this.method });
        let heard = false;
        try { heard = this.emit("response", res); } catch (e) { Promise.reject(e); } // the plugin's uncaught error
        if (!heard) res.resume(); // nobody reads it: drain it, as Node does
        return body;
      },
      onBody: (chunk) => res.push(chunk),
      onDone: () => {
        if (!res) return; // after an informational (1xx) head
        res.complete = true;
        res.push(null);
        parser.paused = true;
        // The exchange is over: the request lets go of the socket, as Node's frees it to its
        // agent (node-fetch 2 takes a 'data' listener left on the socket when the response
        // closes for a body cut short), then closes it: one request per connection.
        for (const [event, fn] of Object.entries(listeners)) socket.removeListener(event, fn);
        socket.on("error", () => {});
        socket.destroy();
        listeners.close();
      },
    });
    listeners.data = (chunk) => {
      try { parser.feed(chunk); } catch (err) { this._fail(Object.assign(err, { bytesParsed: 0 })); }
    };
    listeners.end = () => {
      if (!parser.finish() && !res) this._fail(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
      socket.destroy();
    };
    listeners.timeout = () => this.emit("timeout");
    listeners.error = (err) => this._fail(err);
    listeners.close = () => {
      if (res && !res.complete) {
        res.aborted = true;
        res.emit("aborted");
        res.push(null);
      }
      if (!res && !this._failed) this._fail(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
      this.destroyed = true;
      res?._close();
      nextTick(() => this.emit("close"));
    };
    for (const [event, fn] of Object.entries(listeners)) socket.on(event, fn);
  }
  _fail(err) {
    if (this._failed) return;
    this._failed = true;
    if (!this.res) this.emit("error", err);
    this.socket.destroy();
  }
  setTimeout(ms, cb) {
    if (cb) this.once("timeout", cb);
    this.socket.setTimeout(ms);
    return this;
  }
  abort() {
    if (this.aborted) return;
    this.aborted = true;
    nextTick(() => this.emit("abort"));
    this._failed = true;
    this.socket.destroy();
  }
  destroy(err) {
    if (this._failed || this.destroyed) return this;
    if (err) this._fail(err);
    else { this._failed = true; this.socket.destroy(); }
    return this;
  }
  // The socket already has TCP_NODELAY; keep-alive probes do not apply to one-shot connections.
  setNoDelay() {}
  setSocketKeepAlive() {}
}

/** The TLS server name a request asks for: its Host header's name, none for an IP. */
function serverName(host, hostHeader) {
  let name = host;
  if (typeof hostHeader === "string" && hostHeader) {
    if (hostHeader.startsWith("[")) {
      const end = hostHeader.indexOf("]");
      name = end === -1 ? hostHeader : hostHeader.substring(1, end);
    } else {
      name = hostHeader.split(":", 1)[0];
    }
  }
  return net.isIP(name) ? "" : name;
}

export function request(input, options, cb) {
  return new ClientRequest(input, options, cb);
}
export function get(input, options, cb) {
  const req = request(input, options, cb);
  req.end();
  return req;
}

export const setMaxIdleHTTPParsers = unsupported("node:http.setMaxIdleHTTPParsers");
export const WebSocket = unsupported("node:http.WebSocket");

export default {
  METHODS, STATUS_CODES, maxHeaderSize, Agent, globalAgent, ClientRequest, IncomingMessage,
  OutgoingMessage, Server, ServerResponse, createServer, request, get, validateHeaderName,
  validateHeaderValue, setMaxIdleHTTPParsers, WebSocket,
};
