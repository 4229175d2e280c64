// `node:https`: node:http's client and server over node:tls sockets. Requests go through an
// Agent whose `createConnection` is `tls.connect`, with the request's TLS options (`ca`,
// `rejectUnauthorized`, `servername`, `checkServerIdentity`, `cert`/`key`, ...) and the agent's
// own; certificates are checked exactly as by tls.connect. As with node:http, every request has
// its own connection (no pooling, no session reuse).
import * as http from "node:http";
import * as tls from "node:tls";

export class Agent extends http.Agent {
  constructor(options) {
    super(options);
    this.defaultPort = 443;
    this.protocol = "https:";
    this.maxCachedSessions = this.options.maxCachedSessions ?? 100;
  }
  createConnection(port, host, options) {
    if (port !== null && typeof port === "object") options = { ...port };
    else if (host !== null && typeof host === "object") options = { ...host };
    else if (options === null || typeof options !== "object") options = {};
    else options = { ...options };
    if (typeof port === "number") options.port = port;
    if (typeof host === "string") options.host = host;
    return tls.connect(options);
  }
}

export const globalAgent = new Agent({ keepAlive: true, scheduling: "lifo", timeout: 5000 });

export function request(input, options, cb) {
  if (typeof input === "string" || input instanceof URL) {
    if (typeof options === "function") { cb = options; options = {}; }
    return new http.ClientRequest(input, { ...options, _defaultAgent: globalAgent }, cb);
  }
  if (typeof input === "function") { cb = input; input = {}; }
  if (typeof options === "function") cb = options;
  return new http.ClientRequest({ ...input, _defaultAgent: globalAgent }, cb);
}

export function get(input, options, cb) {
  const req = request(input, options, cb);
  req.end();
  return req;
}

/** An http.Server whose connections are TLS sockets (Node's https.Server is a tls.Server that
 *  serves HTTP; here it is the other way round, so `instanceof tls.Server` is false). */
export class Server extends http.Server {
  constructor(options, listener) {
    if (typeof options === "function") { listener = options; options = {}; }
    options = options ?? {};
    super(options, listener);
    // http.Server serves each 'connection'; here it serves each TLS socket instead.
    const serveHttp = this.listeners("connection").at(-1);
    this.removeListener("connection", serveHttp);
    this._tlsAllowHalfOpen = true;
    tls.Server[Symbol.for("paseo.tls.serve")](this, options, serveHttp);
  }
  setSecureContext(options) { this._tlsContext = tls.createSecureContext(options); }
}

export function createServer(options, listener) {
  return new Server(options, listener);
}

export default { Agent, globalAgent, Server, createServer, get, request };
