// `node:tls`: TLS client and server sockets over the tls ops (runtime/src/node/tls/, rustls).
// A TLSSocket is a net.Socket whose stream is a TLS session kept in Rust: JS reads and writes
// plaintext, as over TCP. Client sessions run over a TCP connection the ops open, or, with
// `{ socket }`, over any duplex the plugin has (the ciphertext pumped through an in-memory pipe);
// servers wrap the sockets a net.Server accepts the same way.
//
// The peer's chain is checked in Rust against Mozilla's roots (what Node bundles) or exactly the
// `ca` given, and reported with OpenSSL's codes; a bad chain fails the handshake unless
// `rejectUnauthorized: false`. The host name is then checked here by `checkServerIdentity`, as in
// Node. Sessions are not resumed, renegotiation and PSK are absent, `ciphers` is accepted and
// ignored (rustls offers its own safe suites), and `NODE_TLS_REJECT_UNAUTHORIZED` is not honoured.
import { ops, unsupported } from "paseo:internal/core";
import { Buffer } from "node:buffer";
import * as net from "node:net";
import { nodeError as codeError } from "./internal_errors.js";
import { nextTick } from "paseo:internal/timers";

const netError = net.Socket[Symbol.for("paseo.net.error")];


function describe(value) {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "function") return `function ${value.name}`;
  if (typeof value === "object") return value.constructor?.name ? `an instance of ${value.constructor.name}` : "an object";
  if (typeof value === "string") return `type string ('${value.length > 25 ? `${value.slice(0, 25)}...` : value}')`;
  return `type ${typeof value} (${String(value)})`;
}

/** An op error worded `CODE: message` (tls/mod.rs `coded`) as Node's error with that code; a
 *  TCP-level one as node:net words it. */
function tlsError(e) {
  const m = /^([A-Z][A-Z0-9_]*): ([\s\S]*)$/.exec(e?.message ?? "");
  if (!m) return netError(e);
  const err = new Error(m[2]);
  // OpenSSL's errors carry their library and reason, before the code (as Node sets them).
  const openssl = /^error:[0-9A-F]+:([^:]*):[^:]*:(.*)$/.exec(m[2]);
  if (openssl) {
    err.library = openssl[1];
    err.reason = openssl[2];
  } else if (m[1].startsWith("ERR_SSL_")) {
    err.library = "SSL routines";
    err.reason = m[2].replace(/: SSL alert number \d+$/, "");
  }
  err.code = m[1];
  return err;
}

export const CLIENT_RENEG_LIMIT = 3;
export const CLIENT_RENEG_WINDOW = 600;
export const DEFAULT_CIPHERS = "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES256-GCM-SHA384:DHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-SHA256:DHE-RSA-AES128-SHA256:ECDHE-RSA-AES256-SHA384:DHE-RSA-AES256-SHA384:ECDHE-RSA-AES256-SHA256:DHE-RSA-AES256-SHA256:HIGH:!aNULL:!eNULL:!EXPORT:!DES:!RC4:!MD5:!PSK:!SRP:!CAMELLIA";
export const DEFAULT_ECDH_CURVE = "auto";
export const DEFAULT_MIN_VERSION = "TLSv1.2";
export const DEFAULT_MAX_VERSION = "TLSv1.3";

// rustls's suites under OpenSSL's names (what getCipher() and getCiphers() use).
const SUITES = {
  TLS13_AES_256_GCM_SHA384: ["TLS_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384"],
  TLS13_AES_128_GCM_SHA256: ["TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"],
  TLS13_CHACHA20_POLY1305_SHA256: ["TLS_CHACHA20_POLY1305_SHA256", "TLS_CHACHA20_POLY1305_SHA256"],
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: ["ECDHE-ECDSA-AES256-GCM-SHA384"],
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: ["ECDHE-ECDSA-AES128-GCM-SHA256"],
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: ["ECDHE-ECDSA-CHACHA20-POLY1305"],
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: ["ECDHE-RSA-AES256-GCM-SHA384"],
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: ["ECDHE-RSA-AES128-GCM-SHA256"],
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: ["ECDHE-RSA-CHACHA20-POLY1305"],
};
export function getCiphers() {
  return Object.values(SUITES).map(([name]) => name.toLowerCase());
}

export const rootCertificates = Object.freeze(ops.op_tls_root_certificates());

// ---------------------------------------------------------------------------------------------
// checkServerIdentity, as Node's lib/tls.js does it. Derived from Node.js lib/tls.js:
// Copyright Joyent, Inc. and other Node contributors. MIT licence; the notice is in NOTICE.

function unfqdn(host) {
  return host.replace(/[.]$/, "");
}
function splitHost(host) {
  return unfqdn(host).replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32)).split(".");
}
function check(hostParts, pattern, wildcards) {
  if (!pattern) return false;
  const patternParts = splitHost(pattern);
  if (hostParts.length !== patternParts.length) return false;
  if (patternParts.includes("")) return false;
  if (patternParts.some((s) => /[^\u0021-\u007F]/u.test(s))) return false;
  for (let i = hostParts.length - 1; i > 0; i -= 1) if (hostParts[i] !== patternParts[i]) return false;
  const hostSubdomain = hostParts[0];
  const patternSubdomain = patternParts[0];
  const patternSubdomainParts = patternSubdomain.split("*");
  if (patternSubdomainParts.length === 1 || patternSubdomain.includes("xn--")) return hostSubdomain === patternSubdomain;
  if (!wildcards) return false;
  if (patternSubdomainParts.length > 2) return false;
  if (patternParts.length <= 2) return false;
  const [prefix, suffix] = patternSubdomainParts;
  if (prefix.length + suffix.length > hostSubdomain.length) return false;
  return hostSubdomain.startsWith(prefix) && hostSubdomain.endsWith(suffix);
}

const jsonStringPattern = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/;
function splitEscapedAltNames(altNames) {
  const result = [];
  let current = "";
  let offset = 0;
  while (offset !== altNames.length) {
    const nextSep = altNames.indexOf(", ", offset);
    const nextQuote = altNames.indexOf('"', offset);
    if (nextQuote !== -1 && (nextSep === -1 || nextQuote < nextSep)) {
      current += altNames.substring(offset, nextQuote);
      const match = jsonStringPattern.exec(altNames.substring(nextQuote));
      if (!match) throw codeError(SyntaxError, "ERR_TLS_CERT_ALTNAME_FORMAT", "Invalid subject alternative name string");
      current += JSON.parse(match[0]);
      offset = nextQuote + match[0].length;
    } else if (nextSep !== -1) {
      current += altNames.substring(offset, nextSep);
      result.push(current);
      current = "";
      offset = nextSep + 2;
    } else {
      current += altNames.substring(offset);
      offset = altNames.length;
    }
  }
  result.push(current);
  return result;
}

/** inet_pton then inet_ntop: IPv6 in its compressed lowercase form. */
function canonicalizeIP(ip) {
  if (net.isIPv4(ip)) return ip;
  if (!net.isIPv6(ip)) return undefined;
  try {
    const host = new URL(`http://[${ip}]/`).hostname;
    const v6 = host.slice(1, -1);
    // inet_ntop writes an IPv4-mapped address with its IPv4 part dotted.
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
    if (mapped) {
      const [a, b] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
      return `::ffff:${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
    }
    return v6;
  } catch {
    return ip;
  }
}

export function checkServerIdentity(hostname, cert) {
  const subject = cert.subject;
  const altNames = cert.subjectaltname;
  const dnsNames = [];
  const ips = [];
  hostname = "" + hostname;
  if (altNames) {
    const split = altNames.includes('"') ? splitEscapedAltNames(altNames) : altNames.split(", ");
    for (const name of split) {
      if (name.startsWith("DNS:")) dnsNames.push(name.slice(4));
      else if (name.startsWith("IP Address:")) ips.push(canonicalizeIP(name.slice(11)));
    }
  }
  let valid = false;
  let reason = "Unknown reason";
  hostname = unfqdn(hostname);
  if (net.isIP(hostname)) {
    valid = ips.includes(canonicalizeIP(hostname));
    if (!valid) reason = `IP: ${hostname} is not in the cert's list: ${ips.join(", ")}`;
  } else if (dnsNames.length > 0 || subject?.CN) {
    const hostParts = splitHost(hostname);
    const wildcard = (pattern) => check(hostParts, pattern, true);
    if (dnsNames.length > 0) {
      valid = dnsNames.some(wildcard);
      if (!valid) reason = `Host: ${hostname}. is not in the cert's altnames: ${altNames}`;
    } else {
      const cn = subject.CN;
      if (Array.isArray(cn)) valid = cn.some(wildcard);
      else if (cn) valid = wildcard(cn);
      if (!valid) reason = `Host: ${hostname}. is not cert's CN: ${cn}`;
    }
  } else {
    reason = "Cert does not contain a DNS name";
  }
  if (!valid) {
    const err = new Error(`Hostname/IP does not match certificate's altnames: ${reason}`);
    err.code = "ERR_TLS_CERT_ALTNAME_INVALID";
    err.reason = reason;
    err.host = hostname;
    err.cert = cert;
    return err;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Secure contexts

function pemList(value, name) {
  if (value === undefined || value === null || value === false) return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (!list.length) return undefined; // as in Node: no CA given keeps the default roots
  return list.map((v) => {
    if (typeof v === "string") return v;
    if (ArrayBuffer.isView(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("latin1");
    if (name === "key" && v && typeof v === "object" && "pem" in v) {
      if (v.passphrase !== undefined) unsupported("node:tls encrypted private keys ({ passphrase })")();
      return pemList(v.pem, name)[0];
    }
    throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "options.${name}" property must be of type string or an instance of Buffer, TypedArray, or DataView. Received ${describe(v)}`);
  });
}

const PROTOCOL_METHODS = {
  TLSv1_2_method: ["TLSv1.2", "TLSv1.2"], TLSv1_2_client_method: ["TLSv1.2", "TLSv1.2"], TLSv1_2_server_method: ["TLSv1.2", "TLSv1.2"],
  TLSv1_3_method: ["TLSv1.3", "TLSv1.3"], TLS_method: [], TLS_client_method: [], TLS_server_method: [],
  SSLv23_method: [], SSLv23_client_method: [], SSLv23_server_method: [],
};

export class SecureContext {
  constructor(options = {}) {
    if (options.pfx !== undefined) unsupported("node:tls.createSecureContext({ pfx })")();
    if (options.passphrase !== undefined && options.key !== undefined) unsupported("node:tls encrypted private keys ({ passphrase })")();
    let [minVersion, maxVersion] = [options.minVersion, options.maxVersion];
    if (options.secureProtocol !== undefined) {
      const range = PROTOCOL_METHODS[options.secureProtocol];
      if (!range) throw codeError(TypeError, "ERR_TLS_INVALID_PROTOCOL_METHOD", `Unknown method: ${options.secureProtocol}`);
      [minVersion, maxVersion] = [range[0] ?? minVersion, range[1] ?? maxVersion];
    }
    const spec = {
      ca: pemList(options.ca, "ca"),
      cert: pemList(options.cert, "cert") ?? [],
      key: pemList(options.key, "key") ?? [],
      minVersion: minVersion ?? undefined,
      maxVersion: maxVersion ?? undefined,
    };
    try {
      this._rid = ops.op_tls_context(spec);
    } catch (e) {
      throw tlsError(e);
    }
    this.context = this;
  }
}

export function createSecureContext(options) {
  return new SecureContext(options ?? {});
}

/** ALPN protocols as strings: from an array of strings or buffers, or Node's wire format. */
function alpnList(protocols) {
  if (protocols === undefined || protocols === null) return [];
  if (ArrayBuffer.isView(protocols) && !Array.isArray(protocols)) {
    const bytes = Buffer.from(protocols.buffer, protocols.byteOffset, protocols.byteLength);
    const out = [];
    for (let i = 0; i < bytes.length;) {
      const len = bytes[i];
      out.push(bytes.toString("latin1", i + 1, i + 1 + len));
      i += 1 + len;
    }
    return out;
  }
  if (!Array.isArray(protocols)) throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "protocols" argument must be an instance of Array, Buffer, TypedArray, or DataView. Received ${describe(protocols)}`);
  return protocols.map((p) => {
    const s = typeof p === "string" ? p : Buffer.from(p).toString("latin1");
    if (Buffer.byteLength(s) > 255) throw codeError(RangeError, "ERR_OUT_OF_RANGE", `The byte length of the protocol at index 0 exceeds the maximum length. It must be <= 255. Received ${Buffer.byteLength(s)}`);
    return s;
  });
}

export function convertALPNProtocols(protocols, out) {
  const list = alpnList(protocols);
  const parts = [];
  for (const p of list) { const b = Buffer.from(p, "latin1"); parts.push(Buffer.from([b.length]), b); }
  out.ALPNProtocols = Buffer.concat(parts);
}

// ---------------------------------------------------------------------------------------------
// Certificates as getPeerCertificate() shows them

function nameObject(entries) {
  const out = Object.create(null);
  for (const [key, value] of entries) {
    if (!(key in out)) out[key] = value;
    else if (Array.isArray(out[key])) out[key].push(value);
    else out[key] = [out[key], value];
  }
  return out;
}

const bytes = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);

function certObject(c) {
  const o = { subject: nameObject(c.subject), issuer: nameObject(c.issuer) };
  if (c.subjectaltname !== null) o.subjectaltname = c.subjectaltname;
  if (c.infoAccess !== null) {
    const info = Object.create(null);
    for (const [key, value] of c.infoAccess) (info[key] ??= []).push(value);
    o.infoAccess = info;
  }
  o.ca = c.ca;
  if (c.modulus !== null) o.modulus = c.modulus;
  if (c.bits !== null) o.bits = c.bits;
  if (c.exponent !== null) o.exponent = c.exponent;
  if (c.pubkey !== null) o.pubkey = bytes(c.pubkey);
  if (c.asn1Curve !== null) o.asn1Curve = c.asn1Curve;
  if (c.nistCurve !== null) o.nistCurve = c.nistCurve;
  o.valid_from = c.validFrom;
  o.valid_to = c.validTo;
  o.fingerprint = c.fingerprint;
  o.fingerprint256 = c.fingerprint256;
  o.fingerprint512 = c.fingerprint512;
  if (c.extKeyUsage !== null) o.ext_key_usage = c.extKeyUsage;
  o.serialNumber = c.serialNumber;
  o.raw = bytes(c.raw);
  return o;
}

/** The chain, each certificate's `issuerCertificate` the next; a self-signed root its own. */
function certChain(certs) {
  const objects = certs.map(certObject);
  objects.forEach((o, i) => { if (i + 1 < objects.length) o.issuerCertificate = objects[i + 1]; });
  const last = objects[objects.length - 1];
  const top = certs[certs.length - 1];
  if (JSON.stringify(top.subject) === JSON.stringify(top.issuer)) last.issuerCertificate = last;
  return objects[0];
}

// ---------------------------------------------------------------------------------------------
// TLSSocket

export class TLSSocket extends net.Socket {
  constructor(socket, options) {
    options = options ?? {};
    super({ allowHalfOpen: options.allowHalfOpen ?? socket?.allowHalfOpen });
    this.encrypted = true;
    this.authorized = false;
    this.authorizationError = null;
    this.alpnProtocol = null;
    this.servername = null;
    this.secureConnecting = true;
    this._tlsSession = null;
    this._tlsOptions = options;
    this._tlsRaw = null;
    this._tlsPipe = null;
    this.server = options.server;
    if (socket && options.isServer) this._startServer(socket, options);
    // A client over an existing socket (tls.connect passes none and starts the handshake itself).
    else if (socket) this._startClient({ rejectUnauthorized: true, checkServerIdentity, ...options, socket });
  }

  /** Runs a client handshake; `options` are tls.connect's, already normalized. */
  _startClient(options) {
    const ownContext = !options.secureContext;
    const context = options.secureContext ?? createSecureContext(options); // throws on bad PEM
    const start = {
      servername: typeof options.servername === "string" ? options.servername : "",
      alpn: alpnList(options.ALPNProtocols),
      rejectUnauthorized: options.rejectUnauthorized !== false,
    };
    this.connecting = true;
    // Over a socket, 'connect' is that socket's (and 'ready' too when tls.connect made it for a
    // unix path), as in Node.
    if (options.socket?.connecting) {
      options.socket.once("connect", () => {
        this.connecting = false;
        this.emit("connect");
        if (ownSockets.has(options.socket)) this.emit("ready");
      });
    }
    const transport = options.socket
      ? Promise.resolve(this._pipeOver(options.socket))
      : ops.op_tls_connect_tcp(options.host ?? "localhost", validatePort(options.port)).then((info) => {
        if (this.destroyed) { ops.op_net_close(info.rid); return null; }
        this._info = info;
        this.connecting = false;
        this.emit("connect");
        this.emit("ready");
        return info.rid;
      });
    this._reading = (async () => {
      let session;
      try {
        let rid;
        try {
          rid = await transport;
        } catch (e) {
          this.connecting = false;
          if (!this.destroyed) this.destroy(netError(e));
          return;
        }
        if (rid === null || this.destroyed) return;
        this._rid = rid; // destroy() now stops the handshake
        try {
          session = await ops.op_tls_start_client(rid, context._rid, start);
        } catch (e) {
          this._rid = null;
          if (!this.destroyed) this.destroy(tlsError(e));
          return;
        }
      } finally {
        if (ownContext) ops.op_net_close(context._rid);
      }
      if (this.destroyed) { ops.op_net_close(session.rid); return; }
      this._rid = session.rid; // writes still wait for _attach, after the checks below
      this._secure(session);
      this.servername = start.servername || false;
      let verifyError = null;
      if (session.verifyError) {
        verifyError = session.verifyError;
      } else {
        const hostname = options.servername || options.host || "localhost";
        const check = options.checkServerIdentity ?? checkServerIdentity;
        let err;
        try {
          err = check(hostname, this.getPeerCertificate(true));
        } catch (e) {
          err = e;
        }
        if (err) verifyError = err;
        if (this.destroyed) return; // the check destroyed the socket
      }
      if (verifyError) {
        this.authorized = false;
        this.authorizationError = typeof verifyError === "string" ? verifyError : verifyError.code || verifyError.message;
        if (options.rejectUnauthorized !== false && typeof verifyError !== "string") {
          this.destroy(verifyError);
          return;
        }
      } else {
        this.authorized = true;
      }
      this._attach({ ...this._info, rid: session.rid });
      this.secureConnecting = false;
      this.emit("secureConnect");
    })();
  }

  /** Server side: the handshake over an accepted socket. */
  _startServer(raw, options) {
    const server = options.server;
    const rid = this._pipeOver(raw);
    this._rid = rid;
    const start = {
      alpn: alpnList(options.ALPNProtocols),
      requestCert: Boolean(options.requestCert),
      rejectUnauthorized: options.rejectUnauthorized !== false,
    };
    this._reading = (async () => {
      let session;
      try {
        session = await ops.op_tls_start_server(rid, options.secureContext._rid, start);
      } catch (e) {
        this._rid = null;
        if (this.destroyed) return;
        const err = tlsError(e);
        // Node hands a failed handshake to 'tlsClientError' and closes the socket quietly.
        server?.emit("tlsClientError", err, this);
        this.destroy();
        return;
      }
      if (this.destroyed) { ops.op_net_close(session.rid); return; }
      this._rid = session.rid;
      this._secure(session);
      this.servername = session.servername ?? false;
      if (start.requestCert) {
        this.authorized = !session.verifyError;
        this.authorizationError = session.verifyError ?? null;
      }
      this._attach({ ...this._info, rid: session.rid });
      this.secureConnecting = false;
      this.emit("secure");
      server?.emit("secureConnection", this);
    })();
  }

  _secure(session) {
    this._tlsSession = session;
    this.alpnProtocol = session.alpnProtocol ?? false;
  }

  /** Runs the session over `raw` through an in-memory pipe; the pending transport's rid. */
  _pipeOver(raw) {
    const [pending, pipe] = ops.op_tls_pipe();
    this._tlsRaw = raw;
    this._tlsPipe = pipe;
    this._info = raw._info ? { ...raw._info } : {
      remoteAddress: raw.remoteAddress, remotePort: raw.remotePort, family: raw.remoteFamily,
      localAddress: raw.localAddress, localPort: raw.localPort,
    };
    // The session decides when to close; the raw socket carries both directions until then.
    raw.allowHalfOpen = true;
    let writing = Promise.resolve();
    let ended = false;
    const endInput = () => {
      if (ended) return;
      ended = true;
      writing = writing.then(() => ops.op_net_shutdown(pipe)).catch(() => {});
    };
    raw.on("data", (chunk) => {
      const data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      raw.pause?.();
      writing = writing.then(() => ops.op_net_write(pipe, data)).then(() => raw.resume?.(), () => {});
    });
    raw.on("end", endInput);
    raw.on("close", endInput);
    raw.on("error", (err) => { if (!this.destroyed) this.destroy(err); });
    if (raw.readableFlowing === null || raw.readableFlowing === undefined) raw.resume?.();
    (async () => {
      try {
        for (;;) {
          const chunk = await ops.op_net_read(pipe);
          if (!chunk.byteLength || raw.destroyed) break;
          if (raw.write(bytes(chunk)) === false) {
            await new Promise((resolve) => { raw.once("drain", resolve); raw.once("close", resolve); });
          }
        }
      } catch {
        // The pipe was closed: the socket was destroyed.
      }
      // Everything the session wrote is on its way: the raw socket's write side follows it.
      this._closePipe();
      if (!raw.destroyed && !raw.writableEnded) raw.end();
    })();
    // Once the session is closed, so is the raw socket, after what it still has to write.
    this.once("close", () => {
      if (raw.destroyed) return;
      if (raw.writableFinished) raw.destroy();
      else raw.once("finish", () => raw.destroy());
    });
    return pending;
  }

  _closePipe() {
    if (this._tlsPipe !== null) { ops.op_net_close(this._tlsPipe); this._tlsPipe = null; }
  }

  destroy(err) {
    if (this.destroyed) return this;
    super.destroy(err);
    // A failure ends the raw socket at once; otherwise the pipe drains first (see _pipeOver).
    if (err && this._tlsRaw) { this._closePipe(); this._tlsRaw.destroy(); }
    if (this._tlsRaw && this._tlsSession === null && this._tlsPipe !== null) { this._closePipe(); this._tlsRaw.destroy(); }
    return this;
  }

  getPeerCertificate(detailed) {
    if (this.destroyed) return null;
    const certs = this._tlsSession?.peerCertificates;
    if (!certs?.length) return {};
    return detailed ? certChain(certs) : certObject(certs[0]);
  }
  getCertificate() { return this.destroyed ? null : {}; }
  getProtocol() { return this.destroyed ? null : (this._tlsSession?.protocol ?? null); }
  getCipher() {
    const suite = this._tlsSession?.cipher;
    if (this.destroyed || !suite) return null;
    const [name, standardName = suite] = SUITES[suite] ?? [suite];
    return { name, standardName, version: suite.startsWith("TLS13_") ? "TLSv1.3" : "TLSv1.2" };
  }
  getSession() { return undefined; }
  getTLSTicket() { return undefined; }
  isSessionReused() { return false; }
  getFinished() { return undefined; }
  getPeerFinished() { return undefined; }
  getEphemeralKeyInfo() { return {}; }
  getSharedSigalgs() { return []; }
  setServername(name) {
    if (typeof name !== "string") throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "name" argument must be of type string. Received ${describe(name)}`);
    this._tlsOptions.servername = name;
  }
  setSession() {}
  setMaxSendFragment() { return false; }
  disableRenegotiation() {}
  enableTrace() {}
  renegotiate() { unsupported("node:tls.TLSSocket.renegotiate")(); }
  exportKeyingMaterial() { unsupported("node:tls.TLSSocket.exportKeyingMaterial")(); }
  setKeyCert() { unsupported("node:tls.TLSSocket.setKeyCert")(); }
  getX509Certificate() { return undefined; }
  getPeerX509Certificate() { unsupported("node:tls.TLSSocket.getPeerX509Certificate")(); }
}

function validatePort(port) {
  const n = typeof port === "string" && port.trim() !== "" ? Number(port) : port;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > 65535) {
    const shown = typeof port === "string" ? `type string ('${port}')` : `type ${typeof port} (${String(port)})`;
    throw codeError(RangeError, "ERR_SOCKET_BAD_PORT", `Port should be >= 0 and < 65536. Received ${port === undefined ? "undefined" : shown}.`);
  }
  return n;
}

// The sockets tls.connect opened itself (for unix paths).
const ownSockets = new WeakSet();

function normalizeConnectArgs(args) {
  const cb = typeof args[args.length - 1] === "function" ? args[args.length - 1] : undefined;
  const [a, b, c] = args;
  let options;
  if (a !== null && typeof a === "object") options = { ...a };
  else {
    options = typeof a === "string" && !/^\s*\d+\s*$/.test(a) ? { path: a } : { port: a };
    if (typeof b === "string") options.host = b;
    if (b !== null && typeof b === "object") Object.assign(options, b);
    else if (c !== null && typeof c === "object") Object.assign(options, c);
  }
  return [options, cb];
}

export function connect(...args) {
  const [given, cb] = normalizeConnectArgs(args);
  const options = { rejectUnauthorized: true, ciphers: DEFAULT_CIPHERS, checkServerIdentity, minDHSize: 1024, ...given };
  if (options.rejectUnauthorized === undefined) options.rejectUnauthorized = true;
  if (typeof options.checkServerIdentity !== "function") {
    throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "options.checkServerIdentity" property must be of type function. Received ${describe(options.checkServerIdentity)}`);
  }
  // Over a unix socket: the session runs over a net socket of its own.
  if (options.path !== undefined && !options.socket) {
    options.socket = net.connect(options.path);
    ownSockets.add(options.socket);
  }
  const socket = new TLSSocket(null, options);
  if (cb) socket.once("secureConnect", cb);
  if (options.timeout) socket.setTimeout(options.timeout);
  socket._startClient(options);
  return socket;
}

// ---------------------------------------------------------------------------------------------
// Servers

/** Makes `server` (a net.Server) a TLS server: every accepted socket is wrapped in a TLSSocket,
 *  'secureConnection' follows its handshake, and `onSecure` gets it too. */
function serveTls(server, options, onSecure) {
  if (options.SNICallback) unsupported("node:tls.createServer({ SNICallback })")();
  if (options.ALPNCallback) unsupported("node:tls.createServer({ ALPNCallback })")();
  server._tlsContext = createSecureContext(options);
  server._tlsServerOptions = options;
  server.on("connection", (raw) => {
    const socket = new TLSSocket(raw, {
      isServer: true, server, secureContext: server._tlsContext,
      requestCert: options.requestCert, rejectUnauthorized: options.rejectUnauthorized,
      ALPNProtocols: options.ALPNProtocols, allowHalfOpen: server._tlsAllowHalfOpen,
    });
    if (onSecure) socket.once("secure", () => onSecure(socket));
    if (options.handshakeTimeout !== 0) {
      const timer = setTimeout(() => {
        if (!socket.secureConnecting || socket.destroyed) return;
        server.emit("tlsClientError", codeError(Error, "ERR_TLS_HANDSHAKE_TIMEOUT", "TLS handshake timeout"), socket);
        socket.destroy();
      }, options.handshakeTimeout ?? 120000);
      socket.once("secure", () => clearTimeout(timer));
      socket.once("close", () => clearTimeout(timer));
    }
  });
}

export class Server extends net.Server {
  constructor(options, listener) {
    if (typeof options === "function") { listener = options; options = {}; }
    options = options ?? {};
    super({ ...options, allowHalfOpen: true });
    this._tlsAllowHalfOpen = Boolean(options.allowHalfOpen);
    serveTls(this, options);
    if (listener) this.on("secureConnection", listener);
  }
  setSecureContext(options) { this._tlsContext = createSecureContext(options); }
  addContext() { unsupported("node:tls.Server.addContext")(); }
  getTicketKeys() { unsupported("node:tls.Server.getTicketKeys")(); }
  setTicketKeys() { unsupported("node:tls.Server.setTicketKeys")(); }
}
// For node:https, whose server is an http.Server made to serve TLS.
Object.defineProperty(Server, Symbol.for("paseo.tls.serve"), { value: serveTls });

export function createServer(options, listener) {
  return new Server(options, listener);
}

export const createSecurePair = unsupported("node:tls.createSecurePair");

export default {
  CLIENT_RENEG_LIMIT, CLIENT_RENEG_WINDOW, DEFAULT_CIPHERS, DEFAULT_ECDH_CURVE, DEFAULT_MIN_VERSION,
  DEFAULT_MAX_VERSION, getCiphers, rootCertificates, convertALPNProtocols, checkServerIdentity,
  createSecureContext, SecureContext, TLSSocket, Server, createServer, connect, createSecurePair,
};
