// fetch and its classes: Headers, Request, Response, Blob and a minimal ReadableStream (default
// readers, async iteration, tee; no BYOB, no pipes). http(s) goes through the fetch ops
// (runtime/src/node/fetch.rs); data: URLs are decoded here. Errors take undici's shape, since
// plugins are written for Node: `TypeError: fetch failed` with the reason in `cause`.
import { ops, unsupported } from "paseo:internal/core";
import { AbortSignal, AbortController } from "paseo:internal/web/events";
import { TextEncoder, TextDecoder, atob } from "paseo:internal/web/encoding";
import { URL, URLSearchParams } from "paseo:internal/web/url";

const encoder = new TextEncoder();
const invalidState = (what) => new TypeError(`Invalid state: ${what}`);

function concat(chunks) {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.byteLength; }
  return out;
}
const copyBytes = (v) => new Uint8Array(v instanceof ArrayBuffer ? v.slice(0) : v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));

// ---------------------------------------------------------------------------------------------
// ReadableStream: a queue, pending reads, and an underlying source pulled on demand.

let streamState; // stream -> its internal state
let makeReader;

export class ReadableStreamDefaultController {
  #s;
  constructor(key, s) {
    if (key !== streamState) throw new TypeError("Illegal constructor");
    this.#s = s;
  }
  get desiredSize() {
    const s = this.#s;
    return s.state === "errored" ? null : s.state === "closed" ? 0 : s.hwm - s.queue.length;
  }
  enqueue(chunk) {
    const s = this.#s;
    if (s.closeRequested || s.state !== "readable") throw invalidState("Controller is already closed");
    if (s.reads.length) s.reads.shift().resolve({ value: chunk, done: false });
    else s.queue.push(chunk);
    pullIfNeeded(s);
  }
  close() {
    const s = this.#s;
    if (s.closeRequested || s.state !== "readable") throw invalidState("Controller is already closed");
    s.closeRequested = true;
    if (!s.queue.length) finishClose(s);
  }
  error(reason) { errorStream(this.#s, reason); }
  get [Symbol.toStringTag]() { return "ReadableStreamDefaultController"; }
}

function finishClose(s) {
  s.state = "closed";
  for (const r of s.reads.splice(0)) r.resolve({ value: undefined, done: true });
  s.reader?.closed.resolve();
}
function errorStream(s, reason) {
  if (s.state !== "readable") return;
  s.state = "errored";
  s.error = reason;
  s.queue = [];
  for (const r of s.reads.splice(0)) r.reject(reason);
  s.reader?.closed.reject(reason);
}
function pullIfNeeded(s) {
  if (!s.started || s.state !== "readable" || s.closeRequested || !s.source.pull) return;
  if (!s.reads.length && s.queue.length >= s.hwm) return;
  if (s.pulling) { s.pullAgain = true; return; }
  s.pulling = true;
  let result;
  try { result = s.source.pull.call(s.source, s.controller); } catch (e) { errorStream(s, e); return; }
  Promise.resolve(result).then(() => {
    s.pulling = false;
    if (s.pullAgain) { s.pullAgain = false; pullIfNeeded(s); }
  }, (e) => errorStream(s, e));
}
function read(s) {
  s.disturbed = true;
  if (s.queue.length) {
    const value = s.queue.shift();
    if (s.closeRequested && !s.queue.length) finishClose(s);
    else pullIfNeeded(s);
    return Promise.resolve({ value, done: false });
  }
  if (s.state === "closed") return Promise.resolve({ value: undefined, done: true });
  if (s.state === "errored") return Promise.reject(s.error);
  const pending = Promise.withResolvers?.() ?? deferred();
  s.reads.push(pending);
  pullIfNeeded(s);
  return pending.promise;
}
function cancel(s, reason) {
  s.disturbed = true;
  if (s.state === "closed") return Promise.resolve();
  if (s.state === "errored") return Promise.reject(s.error);
  s.queue = [];
  finishClose(s);
  try {
    return Promise.resolve(s.source.cancel?.call(s.source, reason)).then(() => undefined);
  } catch (e) {
    return Promise.reject(e);
  }
}
function deferred() {
  let resolve, reject;
  const promise = new Promise((a, b) => { resolve = a; reject = b; });
  return { promise, resolve, reject };
}

export class ReadableStream {
  #s;
  constructor(source = undefined, strategy = undefined) {
    source ??= {};
    if (source.type === "bytes") {
      // Byte streams work as default streams here; BYOB readers are what is missing.
    } else if (source.type !== undefined) {
      throw new RangeError(`The argument 'source.type' is invalid. Received '${source.type}'`);
    }
    const hwm = strategy?.highWaterMark ?? (source.type === "bytes" ? 0 : 1);
    const s = (this.#s = {
      source, hwm, state: "readable", queue: [], reads: [], error: undefined, reader: null,
      started: false, pulling: false, pullAgain: false, closeRequested: false, disturbed: false,
    });
    s.controller = new ReadableStreamDefaultController(streamState, s);
    const started = source.start?.call(source, s.controller);
    Promise.resolve(started).then(() => { s.started = true; pullIfNeeded(s); }, (e) => errorStream(s, e));
  }
  static {
    streamState = (stream) => stream.#s;
  }
  static from(iterable) {
    if (iterable instanceof ReadableStream) return iterable;
    const it = iterable?.[Symbol.asyncIterator]?.() ?? iterable?.[Symbol.iterator]?.();
    if (!it) throw new TypeError("The \"iterable\" argument must be an async iterable or an iterable.");
    return new ReadableStream({
      async pull(c) {
        const { value, done } = await it.next();
        if (done) c.close();
        else c.enqueue(await value);
      },
      async cancel(reason) { await it.return?.(reason); },
    }, { highWaterMark: 0 });
  }
  get locked() { return this.#s.reader !== null; }
  cancel(reason) {
    if (this.locked) return Promise.reject(invalidState("ReadableStream is locked"));
    return cancel(this.#s, reason);
  }
  getReader(options = undefined) {
    if (options?.mode === "byob") unsupported('ReadableStream.getReader({ mode: "byob" })')();
    if (options?.mode !== undefined) throw new TypeError(`The argument 'options.mode' is invalid. Received '${options.mode}'`);
    return new ReadableStreamDefaultReader(this);
  }
  tee() {
    const reader = this.getReader();
    const branches = [];
    let pulling = false, canceled = 0;
    const pull = async () => {
      if (pulling) return; // the other branch's pull will feed this one too
      pulling = true;
      try {
        const { value, done } = await reader.read();
        for (const c of branches) {
          try { if (done) c.close(); else c.enqueue(value); } catch {} // a canceled branch
        }
      } catch (e) {
        for (const c of branches) c.error(e);
      }
      pulling = false;
    };
    const branch = () => new ReadableStream({
      start: (c) => { branches.push(c); },
      pull,
      cancel: (reason) => (++canceled === 2 ? reader.cancel(reason) : undefined),
    }, { highWaterMark: 0 });
    return [branch(), branch()];
  }
  async *values({ preventCancel = false } = {}) {
    const reader = this.getReader();
    let finished = false;
    try {
      for (;;) {
        let step;
        try { step = await reader.read(); } catch (e) { finished = true; throw e; }
        if (step.done) { finished = true; return; }
        yield step.value;
      }
    } finally {
      if (!finished && !preventCancel) await reader.cancel();
      reader.releaseLock();
    }
  }
  [Symbol.asyncIterator](options) { return this.values(options); }
  pipeTo() { return Promise.reject(new Error("ReadableStream.pipeTo is not supported by the Paseo plugin host yet")); }
  pipeThrough() { unsupported("ReadableStream.pipeThrough")(); }
  get [Symbol.toStringTag]() { return "ReadableStream"; }
}

export class ReadableStreamDefaultReader {
  #s;
  #closed = deferred();
  constructor(stream) {
    if (!(stream instanceof ReadableStream)) throw new TypeError('The "stream" argument must be an instance of ReadableStream.');
    const s = streamState(stream);
    if (s.reader) throw invalidState("ReadableStream is locked");
    this.#s = s;
    s.reader = { closed: this.#closed };
    this.#closed.promise.catch(() => {}); // nobody has to watch `closed`
    if (s.state === "closed") this.#closed.resolve();
    if (s.state === "errored") this.#closed.reject(s.error);
  }
  get closed() { return this.#closed.promise; }
  read() {
    if (!this.#s) return Promise.reject(invalidState("The reader is not attached to a stream"));
    return read(this.#s);
  }
  cancel(reason) {
    if (!this.#s) return Promise.reject(invalidState("The reader is not attached to a stream"));
    return cancel(this.#s, reason);
  }
  releaseLock() {
    const s = this.#s;
    if (!s) return;
    const err = invalidState("Releasing reader");
    for (const r of s.reads.splice(0)) r.reject(err);
    if (s.state === "readable") this.#closed.reject(err);
    else this.#closed = { promise: Promise.reject(err), resolve() {}, reject() {} };
    this.#closed.promise.catch(() => {});
    s.reader = null;
    this.#s = null;
  }
  get [Symbol.toStringTag]() { return "ReadableStreamDefaultReader"; }
}

const isDisturbed = (stream) => streamState(stream).disturbed;

function streamOfBytes(bytes) {
  return new ReadableStream({
    start(c) {
      if (bytes.byteLength) c.enqueue(bytes.slice());
      c.close();
    },
  });
}

async function readAll(stream) {
  const reader = stream.getReader();
  const chunks = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return concat(chunks);
      if (!(value instanceof Uint8Array)) throw new TypeError("Received non-Uint8Array chunk");
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
}

// ---------------------------------------------------------------------------------------------
// Blob (in memory) and FormData (not supported).

let blobBytes;

export class Blob {
  #bytes;
  #type;
  constructor(parts = [], options = undefined) {
    if (typeof parts !== "object" || parts === null || !(Symbol.iterator in parts)) {
      throw new TypeError("The \"sources\" argument must be a sequence.");
    }
    const chunks = [];
    for (const part of parts) {
      if (part instanceof Blob) chunks.push(part.#bytes);
      else if (part instanceof ArrayBuffer || ArrayBuffer.isView(part)) chunks.push(copyBytes(part));
      else chunks.push(encoder.encode(String(part)));
    }
    this.#bytes = concat(chunks);
    const type = String(options?.type ?? "");
    this.#type = /^[\x20-\x7e]*$/.test(type) ? type.toLowerCase() : "";
  }
  static {
    blobBytes = (blob) => blob.#bytes;
  }
  get size() { return this.#bytes.byteLength; }
  get type() { return this.#type; }
  async text() { return new TextDecoder().decode(this.#bytes); }
  async arrayBuffer() { return this.#bytes.slice().buffer; }
  async bytes() { return this.#bytes.slice(); }
  slice(start = 0, end = this.size, type = "") {
    return new Blob([this.#bytes.slice(start, end)], { type });
  }
  stream() { return streamOfBytes(this.#bytes); }
  get [Symbol.toStringTag]() { return "Blob"; }
}

// A Blob with a name and a modification time, as Node has it globally.
export class File extends Blob {
  #name;
  #lastModified;
  constructor(bits, name, options = undefined) {
    if (arguments.length < 2) throw new TypeError("The \"fileBits\" and \"fileName\" arguments must be specified");
    super(bits, options);
    this.#name = `${name}`;
    const lastModified = options?.lastModified === undefined ? Date.now() : Number(options.lastModified);
    this.#lastModified = Number.isFinite(lastModified) ? Math.trunc(lastModified) : 0;
  }
  get name() { return this.#name; }
  get lastModified() { return this.#lastModified; }
  get [Symbol.toStringTag]() { return "File"; }
}

export class FormData {
  constructor() {
    unsupported("FormData")();
  }
}

// ---------------------------------------------------------------------------------------------
// Headers: a list of [lowercase name, value]; iteration is sorted and combined, as in undici.

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
let setGuard, isImmutable;

function checkName(prefix, name) {
  name = String(name);
  if (!TOKEN.test(name)) throw new TypeError(`${prefix}: "${name}" is an invalid header name.`);
  return name.toLowerCase();
}
function checkValue(prefix, value) {
  value = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
  if (/[\0\r\n]|[^\0-\xff]/.test(value)) throw new TypeError(`${prefix}: "${value}" is an invalid header value.`);
  return value;
}

export class Headers {
  #list = [];
  #immutable = false;
  constructor(init = undefined) {
    if (init === undefined || init === null) return;
    if (typeof init !== "object" && typeof init !== "function") {
      throw new TypeError("Headers constructor: Expected init to be either a Headers, an Array, or a Record.");
    }
    if (init instanceof Headers) {
      this.#list = init.#list.map(([k, v]) => [k, v]);
    } else if (Symbol.iterator in init) {
      for (const pair of init) {
        const p = [...pair];
        if (p.length !== 2) throw new TypeError(`Headers constructor: expected name/value pair to be length 2, found ${p.length}.`);
        this.append(p[0], p[1]);
      }
    } else {
      for (const key of Object.keys(init)) this.append(key, init[key]);
    }
  }
  static {
    setGuard = (h) => { h.#immutable = true; return h; };
    isImmutable = (h) => h.#immutable;
  }
  #mutate() {
    if (this.#immutable) throw new TypeError("immutable");
  }
  append(name, value) {
    const n = checkName("Headers.append", name), v = checkValue("Headers.append", value);
    this.#mutate();
    this.#list.push([n, v]);
  }
  set(name, value) {
    const n = checkName("Headers.set", name), v = checkValue("Headers.set", value);
    this.#mutate();
    const i = this.#list.findIndex(([k]) => k === n);
    if (i < 0) this.#list.push([n, v]);
    else this.#list = this.#list.filter(([k], j) => k !== n || j === i).map((e) => (e[0] === n ? [n, v] : e));
  }
  delete(name) {
    const n = checkName("Headers.delete", name);
    this.#mutate();
    this.#list = this.#list.filter(([k]) => k !== n);
  }
  get(name) {
    const n = checkName("Headers.get", name);
    const values = this.#list.filter(([k]) => k === n).map(([, v]) => v);
    return values.length ? values.join(", ") : null;
  }
  has(name) {
    const n = checkName("Headers.has", name);
    return this.#list.some(([k]) => k === n);
  }
  getSetCookie() {
    return this.#list.filter(([k]) => k === "set-cookie").map(([, v]) => v);
  }
  #sorted() {
    const out = [];
    for (const n of [...new Set(this.#list.map(([k]) => k))].sort()) {
      if (n === "set-cookie") for (const v of this.getSetCookie()) out.push([n, v]);
      else out.push([n, this.get(n)]);
    }
    return out;
  }
  forEach(fn, thisArg = undefined) {
    if (typeof fn !== "function") throw new TypeError("Headers.forEach: Expected callback to be a function.");
    for (const [k, v] of this.#sorted()) fn.call(thisArg, v, k, this);
  }
  keys() { return this.#sorted().map(([k]) => k)[Symbol.iterator](); }
  values() { return this.#sorted().map(([, v]) => v)[Symbol.iterator](); }
  entries() { return this.#sorted()[Symbol.iterator](); }
  [Symbol.iterator]() { return this.entries(); }
  get [Symbol.toStringTag]() { return "Headers"; }
}

// ---------------------------------------------------------------------------------------------
// Body: what Request and Response share. A body is bytes (read directly) or a stream.

let bodyOf; // (Request | Response) -> { bytes, stream, used }

function extractBody(value) {
  if (typeof value === "string") return { bytes: encoder.encode(value), type: "text/plain;charset=UTF-8" };
  if (value instanceof URLSearchParams) return { bytes: encoder.encode(value.toString()), type: "application/x-www-form-urlencoded;charset=UTF-8" };
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return { bytes: copyBytes(value) };
  if (value instanceof Blob) return { bytes: blobBytes(value), type: value.type || undefined };
  if (value instanceof ReadableStream) {
    if (value.locked || isDisturbed(value)) throw new TypeError("Response body object should not be disturbed or locked");
    return { stream: value };
  }
  if (value !== null && typeof value === "object" && Symbol.asyncIterator in value) return { stream: ReadableStream.from(value) };
  return { bytes: encoder.encode(String(value)), type: "text/plain;charset=UTF-8" };
}

class Body {
  #b = { bytes: null, stream: null, used: false };
  static {
    bodyOf = (r) => r.#b;
  }
  get body() {
    const b = this.#b;
    if (b.stream === null && b.bytes !== null) b.stream = streamOfBytes(b.bytes);
    return b.stream;
  }
  get bodyUsed() {
    const b = this.#b;
    return b.used || (b.stream !== null && isDisturbed(b.stream));
  }
  async #consume() {
    const b = this.#b;
    if (this.bodyUsed || b.stream?.locked) throw new TypeError("Body is unusable: Body has already been read");
    if (b.stream !== null) return readAll(b.stream);
    if (b.bytes === null) return new Uint8Array(0);
    b.used = true;
    return b.bytes.slice();
  }
  async arrayBuffer() { return (await this.#consume()).buffer; }
  async bytes() { return this.#consume(); }
  async text() { return new TextDecoder().decode(await this.#consume()); }
  async json() { return JSON.parse(await this.text()); }
  async blob() { return new Blob([await this.#consume()], { type: this.headers.get("content-type") ?? "" }); }
  async formData() { unsupported(this instanceof Request ? "Request.formData" : "Response.formData")(); }
}

function setBody(target, headers, value) {
  const { bytes = null, stream = null, type } = extractBody(value);
  Object.assign(bodyOf(target), { bytes, stream });
  if (type && !headers.has("content-type")) headers.set("content-type", type);
}
// A copy for clone(): bytes are shared (consumers copy), a stream is teed.
function cloneBody(from, to) {
  const a = bodyOf(from), b = bodyOf(to);
  b.bytes = a.bytes;
  if (a.stream !== null) [a.stream, b.stream] = a.stream.tee();
}

// ---------------------------------------------------------------------------------------------
// Request

const METHODS = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"];
const REDIRECTS = ["follow", "manual", "error"];

function parseUrl(input) {
  try {
    return new URL(String(input)).href;
  } catch (cause) {
    throw new TypeError(`Failed to parse URL from ${input}`, { cause });
  }
}

export class Request extends Body {
  #url; #method; #headers; #signal; #redirect; #duplex;
  constructor(input, init = undefined) {
    super();
    if (arguments.length === 0) throw new TypeError("Request constructor: 1 argument required, but only 0 present.");
    init ??= {};
    const base = input instanceof Request ? input : null;
    this.#url = base ? base.url : parseUrl(input);
    const u = new URL(this.#url);
    if (u.username || u.password) throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${input}`);
    let method = init.method !== undefined ? String(init.method) : base?.method ?? "GET";
    if (!TOKEN.test(method)) throw new TypeError(`'${method}' is not a valid HTTP method.`);
    if (METHODS.includes(method.toUpperCase())) method = method.toUpperCase();
    if (["CONNECT", "TRACE", "TRACK"].includes(method.toUpperCase())) throw new TypeError(`'${method}' HTTP method is unsupported.`);
    this.#method = method;
    this.#redirect = init.redirect !== undefined ? String(init.redirect) : base?.redirect ?? "follow";
    if (!REDIRECTS.includes(this.#redirect)) {
      throw new TypeError(`Request constructor: ${this.#redirect} is not an accepted type. Expected one of ${REDIRECTS.join(", ")}.`);
    }
    const signal = init.signal !== undefined ? init.signal : base?.signal;
    if (signal != null && !(signal instanceof AbortSignal)) {
      throw new TypeError("Request constructor: Expected signal (\"" + String(signal) + "\") to be an instance of AbortSignal.");
    }
    // Our own signal, following the caller's (as undici does).
    this.#signal = signal ? AbortSignal.any([signal]) : new AbortController().signal;
    this.#headers = new Headers(init.headers !== undefined ? init.headers : base?.headers);
    this.#duplex = init.duplex;
    const hasInitBody = init.body !== undefined && init.body !== null;
    if ((hasInitBody || (base && base.body !== null)) && (method === "GET" || method === "HEAD")) {
      throw new TypeError("Request with GET/HEAD method cannot have body.");
    }
    if (hasInitBody) {
      setBody(this, this.#headers, init.body);
      if (bodyOf(this).stream && init.duplex !== "half") {
        throw new TypeError("RequestInit: duplex option is required when sending a body.");
      }
    } else if (base && base.body !== null) {
      if (base.bodyUsed) throw new TypeError("Cannot construct a Request with a Request object that has already been used.");
      Object.assign(bodyOf(this), { bytes: bodyOf(base).bytes, stream: bodyOf(base).stream });
      bodyOf(base).used = true;
    }
  }
  get url() { return this.#url; }
  get method() { return this.#method; }
  get headers() { return this.#headers; }
  get signal() { return this.#signal; }
  get redirect() { return this.#redirect; }
  get duplex() { return this.#duplex ?? "half"; }
  get cache() { return "default"; }
  get credentials() { return "same-origin"; }
  get mode() { return "cors"; }
  get destination() { return ""; }
  get referrer() { return "about:client"; }
  get referrerPolicy() { return ""; }
  get integrity() { return ""; }
  get keepalive() { return false; }
  clone() {
    if (this.bodyUsed) throw new TypeError("Request.clone: Body has already been consumed.");
    const copy = new Request(this.#url, { method: this.#method, headers: this.#headers, redirect: this.#redirect, signal: this.#signal });
    cloneBody(this, copy);
    return copy;
  }
  get [Symbol.toStringTag]() { return "Request"; }
}

// ---------------------------------------------------------------------------------------------
// Response

// Ports the fetch standard refuses (other protocols' well-known ports).
const BAD_PORTS = new Set([0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102,
  103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526,
  530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190,
  5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080]);
const NULL_BODY = [101, 103, 204, 205, 304];
const REDIRECT_STATUS = [301, 302, 303, 307, 308];
let initResponse;

export class Response extends Body {
  #status = 200; #statusText = ""; #headers; #url = ""; #redirected = false; #type = "default";
  constructor(body = null, init = undefined) {
    super();
    init ??= {};
    const status = init.status !== undefined ? Number(init.status) : 200;
    if (!(status >= 200 && status <= 599) || !Number.isInteger(status)) {
      throw new RangeError('init["status"] must be in the range of 200 to 599, inclusive.');
    }
    this.#status = status;
    this.#statusText = init.statusText !== undefined ? String(init.statusText) : "";
    this.#headers = new Headers(init.headers);
    if (body !== null && body !== undefined) {
      if (NULL_BODY.includes(status)) throw new TypeError(`Response constructor: Invalid response status code ${status}`);
      setBody(this, this.#headers, body);
    }
  }
  static {
    initResponse = (r, fields) => {
      r.#status = fields.status;
      r.#statusText = fields.statusText ?? "";
      r.#headers = setGuard(fields.headers);
      r.#url = fields.url ?? "";
      r.#redirected = fields.redirected ?? false;
      r.#type = fields.type ?? "basic";
      return r;
    };
  }
  static error() {
    return initResponse(new Response(), { status: 0, headers: new Headers(), type: "error" });
  }
  static json(data, init = undefined) {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError("Value is not JSON serializable");
    const headers = new Headers(init?.headers);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
    return new Response(text, { ...init, headers });
  }
  static redirect(url, status = 302) {
    const href = parseUrl(url);
    if (!REDIRECT_STATUS.includes(status)) throw new RangeError(`Invalid status code ${status}`);
    const r = new Response(null, { status, headers: { location: href } });
    setGuard(r.headers);
    return r;
  }
  get status() { return this.#status; }
  get statusText() { return this.#statusText; }
  get ok() { return this.#status >= 200 && this.#status <= 299; }
  get headers() { return this.#headers; }
  get url() { return this.#url; }
  get redirected() { return this.#redirected; }
  get type() { return this.#type; }
  clone() {
    if (this.bodyUsed) throw new TypeError("Response.clone: Body has already been consumed.");
    const copy = initResponse(new Response(), {
      status: this.#status, statusText: this.#statusText, headers: new Headers(this.#headers),
      url: this.#url, redirected: this.#redirected, type: this.#type,
    });
    if (!isImmutable(this.#headers)) copy.#headers = new Headers(copy.#headers); // initResponse froze it
    cloneBody(this, copy);
    return copy;
  }
  get [Symbol.toStringTag]() { return "Response"; }
}

// ---------------------------------------------------------------------------------------------
// fetch

/** undici's shape: `TypeError: fetch failed` with the reason (and Node's error fields) in `cause`. */
function fetchFailed(reason) {
  const cause = reason instanceof Error && !(reason instanceof TypeError) ? reason : new Error(String(reason?.message ?? reason));
  const m = /^(\w+) (E[A-Z]+)(?: (\S+?)(?::(\d+))?)?$/.exec(cause.message);
  if (m) {
    const errno = { ECONNREFUSED: -111, ECONNRESET: -104, ETIMEDOUT: -110, ENOTFOUND: -3008 }[m[2]];
    Object.assign(cause, { errno, code: m[2], syscall: m[1] });
    if (m[1] === "connect" && m[3]) Object.assign(cause, { address: m[3], port: Number(m[4]) });
    if (m[1] === "getaddrinfo") cause.hostname = m[3];
  }
  return new TypeError("fetch failed", { cause });
}

function dataResponse(href) {
  const m = /^data:([^,]*),(.*)$/s.exec(href.replace(/#.*$/s, ""));
  if (!m) throw fetchFailed(new Error("invalid data: URL"));
  let meta = m[1].trim();
  const base64 = /;\s*base64\s*$/i.test(meta);
  if (base64) meta = meta.replace(/;\s*base64\s*$/i, "");
  let text = m[2].replace(/%([0-9a-fA-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
  if (base64) {
    try { text = atob(text); } catch { throw fetchFailed(new Error("invalid data: URL")); }
  }
  const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
  const type = meta.startsWith(";") ? `text/plain${meta}` : meta || "text/plain;charset=US-ASCII";
  const r = initResponse(new Response(), { status: 200, statusText: "OK", headers: new Headers({ "content-type": type }), url: href });
  bodyOf(r).bytes = bytes;
  return r;
}

// A body nobody reads or cancels would hold its connection until the plugin stops.
const unread = typeof FinalizationRegistry === "function" ? new FinalizationRegistry((rid) => ops.op_fetch_close(rid)) : null;

async function httpFetch(request) {
  const signal = request.signal;
  const body = bodyOf(request);
  let bytes = null;
  if (body.stream) bytes = await readAll(body.stream);
  else if (body.bytes) bytes = body.bytes;
  body.used = body.bytes !== null || body.stream !== null;
  if (signal.aborted) throw signal.reason;
  const headers = new Headers(request.headers);
  if (!headers.has("accept")) headers.set("accept", "*/*");
  if (!headers.has("user-agent")) headers.set("user-agent", "node");
  const rid = ops.op_fetch_request(request.method, request.url, [...headers], bytes ?? new Uint8Array(0), bytes !== null, request.redirect === "follow");
  let controller = null; // weakly held, so that a long-lived signal does not keep the body alive
  const onAbort = () => {
    ops.op_fetch_close(rid); // cancels the send or read in flight
    controller?.deref()?.error(signal.reason);
  };
  const done = () => {
    signal.removeEventListener("abort", onAbort);
    ops.op_fetch_close(rid);
  };
  signal.addEventListener("abort", onAbort);
  let head;
  try {
    head = await ops.op_fetch_send(rid);
  } catch (e) {
    done();
    throw signal.aborted ? signal.reason : fetchFailed(e);
  }
  if (signal.aborted) { done(); throw signal.reason; }
  if (request.redirect === "error" && REDIRECT_STATUS.includes(head.status)) {
    done();
    throw fetchFailed(new Error("unexpected redirect"));
  }
  const url = head.url.replace(/#.*$/s, "");
  const response = initResponse(new Response(), {
    status: head.status, statusText: head.statusText, headers: new Headers(head.headers),
    url, redirected: url !== request.url.replace(/#.*$/s, ""),
  });
  if (request.method === "HEAD" || NULL_BODY.includes(head.status)) {
    done();
    return response;
  }
  bodyOf(response).stream = new ReadableStream({
    start(c) { controller = typeof WeakRef === "function" ? new WeakRef(c) : { deref: () => c }; },
    async pull(c) {
      let chunk;
      try {
        chunk = await ops.op_fetch_read(rid);
      } catch (e) {
        done();
        // After an abort the stream already carries the signal's reason.
        c.error(new TypeError("terminated", { cause: new Error(e.message) }));
        return;
      }
      if (chunk.byteLength) {
        c.enqueue(chunk);
      } else {
        done();
        c.close();
      }
    },
    cancel() { done(); },
  }, { highWaterMark: 0 });
  // The stream's state, not the stream: clone() and readers keep only the state.
  unread?.register(streamState(bodyOf(response).stream), rid);
  return response;
}

export async function fetch(input, init = undefined) {
  const request = new Request(input, init);
  if (request.signal.aborted) throw request.signal.reason;
  const protocol = new URL(request.url).protocol;
  if (protocol === "data:") return dataResponse(request.url);
  if (protocol !== "http:" && protocol !== "https:") {
    throw fetchFailed(new Error(`fetch of ${protocol} URLs is not supported by the Paseo plugin host (only http:, https: and data:)`));
  }
  const port = new URL(request.url).port;
  if (port && BAD_PORTS.has(Number(port))) throw fetchFailed(new Error("bad port"));
  return httpFetch(request);
}
