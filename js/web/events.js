// DOM events for a runtime without a DOM: Event, CustomEvent, EventTarget,
// DOMException, AbortSignal and AbortController. Pure JS, no imports.
// There is no tree, so dispatch is always AT_TARGET and `capture` only
// matters for matching listeners on removal.

const LEGACY_CODES = {
  IndexSizeError: ['INDEX_SIZE_ERR', 1], DOMStringSizeError: ['DOMSTRING_SIZE_ERR', 2],
  HierarchyRequestError: ['HIERARCHY_REQUEST_ERR', 3], WrongDocumentError: ['WRONG_DOCUMENT_ERR', 4],
  InvalidCharacterError: ['INVALID_CHARACTER_ERR', 5], NoDataAllowedError: ['NO_DATA_ALLOWED_ERR', 6],
  NoModificationAllowedError: ['NO_MODIFICATION_ALLOWED_ERR', 7], NotFoundError: ['NOT_FOUND_ERR', 8],
  NotSupportedError: ['NOT_SUPPORTED_ERR', 9], InUseAttributeError: ['INUSE_ATTRIBUTE_ERR', 10],
  InvalidStateError: ['INVALID_STATE_ERR', 11], SyntaxError: ['SYNTAX_ERR', 12],
  InvalidModificationError: ['INVALID_MODIFICATION_ERR', 13], NamespaceError: ['NAMESPACE_ERR', 14],
  InvalidAccessError: ['INVALID_ACCESS_ERR', 15], ValidationError: ['VALIDATION_ERR', 16],
  TypeMismatchError: ['TYPE_MISMATCH_ERR', 17], SecurityError: ['SECURITY_ERR', 18],
  NetworkError: ['NETWORK_ERR', 19], AbortError: ['ABORT_ERR', 20], URLMismatchError: ['URL_MISMATCH_ERR', 21],
  QuotaExceededError: ['QUOTA_EXCEEDED_ERR', 22], TimeoutError: ['TIMEOUT_ERR', 23],
  InvalidNodeTypeError: ['INVALID_NODE_TYPE_ERR', 24], DataCloneError: ['DATA_CLONE_ERR', 25],
};

function nodeTypeError(code, msg) {
  const e = new TypeError(msg);
  e.code = code; // Node's error codes, for callers that check them
  return e;
}

export class DOMException extends Error {
  #name;
  #message;
  // `options` is a name string, or { name, cause } as in current WebIDL.
  constructor(message = '', options = 'Error') {
    super();
    this.#message = `${message}`;
    if (options !== null && typeof options === 'object') {
      this.#name = 'name' in options ? `${options.name}` : 'Error';
      if ('cause' in options) {
        Object.defineProperty(this, 'cause', { value: options.cause, writable: true, configurable: true });
      }
    } else {
      this.#name = `${options}`;
    }
  }
  get name() {
    return this.#name;
  }
  get message() {
    return this.#message;
  }
  get code() {
    return LEGACY_CODES[this.#name]?.[1] ?? 0;
  }
  get [Symbol.toStringTag]() {
    return 'DOMException';
  }
}
for (const [constant, code] of Object.values(LEGACY_CODES)) {
  const desc = { value: code, enumerable: true };
  Object.defineProperty(DOMException, constant, desc);
  Object.defineProperty(DOMException.prototype, constant, desc);
}

const abortError = () => new DOMException('This operation was aborted', 'AbortError');
const now = () => (typeof globalThis.performance?.now === 'function' ? globalThis.performance.now() : Date.now());

let eventState; // module-private access to an Event's internal state
let markTrusted;

export class Event {
  #s;
  constructor(type, init = undefined) {
    if (arguments.length === 0) throw nodeTypeError('ERR_MISSING_ARGS', 'The "type" argument must be specified');
    if (init !== undefined && init !== null && typeof init !== 'object' && typeof init !== 'function') {
      throw nodeTypeError('ERR_INVALID_ARG_TYPE', 'The "options" argument must be of type object.');
    }
    this.#s = {
      type: `${type}`,
      bubbles: Boolean(init?.bubbles),
      cancelable: Boolean(init?.cancelable),
      composed: Boolean(init?.composed),
      timeStamp: now(),
      trusted: false,
      canceled: false,
      stop: false,
      stopImmediate: false,
      passive: false, // inside a passive listener, preventDefault() is a no-op
      dispatching: false,
      target: null,
      currentTarget: null,
    };
  }
  static {
    eventState = (e) => e.#s;
    markTrusted = (e) => { e.#s.trusted = true; return e; };
  }
  get type() { return this.#s.type; }
  get bubbles() { return this.#s.bubbles; }
  get cancelable() { return this.#s.cancelable; }
  get composed() { return this.#s.composed; }
  get timeStamp() { return this.#s.timeStamp; }
  get isTrusted() { return this.#s.trusted; }
  get target() { return this.#s.target; }
  get srcElement() { return this.#s.target; }
  get currentTarget() { return this.#s.currentTarget; }
  get eventPhase() { return this.#s.dispatching ? Event.AT_TARGET : Event.NONE; }
  get defaultPrevented() { return this.#s.canceled; }
  get returnValue() { return !this.#s.canceled; }
  set returnValue(v) { if (!v) this.preventDefault(); }
  get cancelBubble() { return this.#s.stop; }
  set cancelBubble(v) { if (v) this.#s.stop = true; }
  composedPath() {
    return this.#s.dispatching ? [this.#s.currentTarget] : [];
  }
  preventDefault() {
    if (this.#s.cancelable && !this.#s.passive) this.#s.canceled = true;
  }
  stopPropagation() {
    this.#s.stop = true;
  }
  stopImmediatePropagation() {
    this.#s.stop = this.#s.stopImmediate = true;
  }
  initEvent(type, bubbles = false, cancelable = false) {
    if (arguments.length === 0) throw nodeTypeError('ERR_MISSING_ARGS', 'The "type" argument must be specified');
    if (this.#s.dispatching) return;
    Object.assign(this.#s, { type: `${type}`, bubbles: Boolean(bubbles), cancelable: Boolean(cancelable),
      canceled: false, stop: false, stopImmediate: false, target: null });
  }
  get [Symbol.toStringTag]() {
    return 'Event';
  }
}
for (const [name, value] of [['NONE', 0], ['CAPTURING_PHASE', 1], ['AT_TARGET', 2], ['BUBBLING_PHASE', 3]]) {
  Object.defineProperty(Event, name, { value, enumerable: true });
  Object.defineProperty(Event.prototype, name, { value, enumerable: true });
}

export class CustomEvent extends Event {
  #detail;
  constructor(type, init = undefined) {
    if (arguments.length === 0) throw nodeTypeError('ERR_MISSING_ARGS', 'The "type" argument must be specified');
    super(type, init);
    this.#detail = init?.detail ?? null;
  }
  get detail() {
    return this.#detail;
  }
  get [Symbol.toStringTag]() {
    return 'CustomEvent';
  }
}

// The event of a message (MessagePort, WebSocket, EventSource): without it `eventsource`
// cannot dispatch one and reconnects over and over.
export class MessageEvent extends Event {
  #m;
  constructor(type, init = undefined) {
    if (arguments.length === 0) throw nodeTypeError('ERR_MISSING_ARGS', 'The "type" argument must be specified');
    super(type, init);
    this.#m = {
      data: init?.data ?? null,
      origin: `${init?.origin ?? ''}`,
      lastEventId: `${init?.lastEventId ?? ''}`,
      source: init?.source ?? null,
      ports: Object.freeze([...(init?.ports ?? [])]),
    };
  }
  get data() { return this.#m.data; }
  get origin() { return this.#m.origin; }
  get lastEventId() { return this.#m.lastEventId; }
  get source() { return this.#m.source; }
  get ports() { return this.#m.ports; }
  // Node 20's MessageEvent keeps Event's tag: `[object Event]`.
}

// Listener exceptions must not stop dispatch; surface them out of band.
function reportException(err) {
  if (typeof globalThis.reportError === 'function') globalThis.reportError(err);
  else Promise.reject(err); // becomes an unhandled rejection the host can log
}

let addAbortAlgorithm; // (signal, fn) => remove(); defined by AbortSignal
let listenerCount; // (target, type) => number; defined by EventTarget

export class EventTarget {
  #listeners = new Map(); // type -> [{ callback, capture, once, passive, removed, unlink }]

  addEventListener(type, callback, options = undefined) {
    if (arguments.length < 2) {
      throw nodeTypeError('ERR_MISSING_ARGS', 'The "type" and "listener" arguments must be specified');
    }
    const { capture, once, passive, signal } = flattenOptions(options);
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw nodeTypeError('ERR_INVALID_ARG_TYPE', 'The "options.signal" property must be an instance of AbortSignal.');
    }
    if (callback == null) return;
    if (typeof callback !== 'function' && typeof callback !== 'object') {
      throw nodeTypeError('ERR_INVALID_ARG_TYPE', 'The "listener" argument must be an instance of EventListener.');
    }
    if (signal?.aborted) return;
    type = `${type}`;
    let list = this.#listeners.get(type);
    if (!list) this.#listeners.set(type, (list = []));
    if (list.some((l) => l.callback === callback && l.capture === capture)) return;
    const entry = { callback, capture, once, passive, removed: false, unlink: null };
    list.push(entry);
    if (signal) entry.unlink = addAbortAlgorithm(signal, () => this.removeEventListener(type, callback, { capture }));
  }

  removeEventListener(type, callback, options = undefined) {
    const capture = typeof options === 'boolean' ? options : Boolean(options?.capture);
    const list = this.#listeners.get(`${type}`);
    const i = list ? list.findIndex((l) => l.callback === callback && l.capture === capture) : -1;
    if (i < 0) return;
    const [entry] = list.splice(i, 1);
    entry.removed = true; // an in-progress dispatch must skip it
    entry.unlink?.();
    if (list.length === 0) this.#listeners.delete(`${type}`);
  }

  dispatchEvent(event) {
    if (!(event instanceof Event)) {
      throw nodeTypeError('ERR_INVALID_ARG_TYPE', 'The "event" argument must be an instance of Event.');
    }
    const s = eventState(event);
    if (s.dispatching) throw new DOMException('The event is already being dispatched', 'InvalidStateError');
    s.dispatching = true;
    s.target = s.currentTarget = this;
    try {
      // Per DOM, stopPropagation() before dispatch means no listener runs, and
      // the snapshot means listeners added during dispatch wait for the next one.
      const listeners = s.stop ? [] : this.#listeners.get(s.type)?.slice() ?? [];
      for (const l of listeners) {
        if (l.removed) continue;
        if (l.once) this.removeEventListener(s.type, l.callback, { capture: l.capture });
        s.passive = l.passive;
        try {
          if (typeof l.callback === 'function') l.callback.call(this, event);
          else if (typeof l.callback.handleEvent === 'function') l.callback.handleEvent(event);
          else throw new TypeError('The "listener" argument must have a handleEvent method');
        } catch (err) {
          reportException(err);
        }
        s.passive = false;
        if (s.stopImmediate) break;
      }
    } finally {
      s.dispatching = s.stop = s.stopImmediate = false;
      s.currentTarget = null;
    }
    return !s.canceled;
  }

  static {
    listenerCount = (target, type) => target.#listeners.get(type)?.length ?? 0;
  }
  get [Symbol.toStringTag]() {
    return 'EventTarget';
  }
}

function flattenOptions(options) {
  if (typeof options === 'boolean') return { capture: options, once: false, passive: false, signal: undefined };
  if (options == null) return { capture: false, once: false, passive: false, signal: undefined };
  return {
    capture: Boolean(options.capture),
    once: Boolean(options.once),
    passive: Boolean(options.passive),
    signal: options.signal,
  };
}

const kCreate = Symbol('AbortSignal.create');
// Dependent signals (from AbortSignal.any) are referenced weakly by their
// sources so long-lived sources don't accumulate them, but one that still has
// abort listeners or algorithms is kept alive here until it aborts.
const keepAlive = new Set();
const weak = (o) => (typeof WeakRef === 'function' ? new WeakRef(o) : { deref: () => o });
let signalAbort;

export class AbortSignal extends EventTarget {
  #aborted = false;
  #reason = undefined;
  #algorithms = new Set();
  #onabort = null;
  #onabortListener = null;
  #sources = null; // for dependent signals: the signals it follows
  #dependents = [];

  constructor(key) {
    if (key !== kCreate) throw nodeTypeError('ERR_ILLEGAL_CONSTRUCTOR', 'Illegal constructor');
    super();
  }
  get aborted() {
    return this.#aborted;
  }
  get reason() {
    return this.#reason;
  }
  throwIfAborted() {
    if (this.#aborted) throw this.#reason;
  }
  get onabort() {
    return this.#onabort;
  }
  set onabort(handler) {
    // Event-handler attribute: one listener, registered where it was first set.
    this.#onabort = typeof handler === 'function' || (handler !== null && typeof handler === 'object') ? handler : null;
    if (this.#onabort === null && this.#onabortListener) {
      this.removeEventListener('abort', this.#onabortListener);
      this.#onabortListener = null;
    } else if (this.#onabort !== null && !this.#onabortListener) {
      this.#onabortListener = (e) => (typeof this.#onabort === 'function' ? this.#onabort.call(this, e) : undefined);
      this.addEventListener('abort', this.#onabortListener);
    }
  }
  addEventListener(type, callback, options) {
    super.addEventListener(...arguments);
    this.#updateKeepAlive();
  }
  removeEventListener(type, callback, options) {
    super.removeEventListener(...arguments);
    this.#updateKeepAlive();
  }

  static abort(reason) {
    const signal = new AbortSignal(kCreate);
    signal.#aborted = true;
    signal.#reason = reason === undefined ? abortError() : reason;
    return signal;
  }
  static timeout(milliseconds) {
    if (typeof milliseconds !== 'number') {
      throw nodeTypeError('ERR_INVALID_ARG_TYPE', 'The "delay" argument must be of type number.');
    }
    if (!Number.isInteger(milliseconds) || milliseconds < 0 || milliseconds > 0xffffffff) {
      const e = new RangeError(`The value of "delay" is out of range. Received ${milliseconds}`);
      e.code = 'ERR_OUT_OF_RANGE';
      throw e;
    }
    if (typeof globalThis.setTimeout !== 'function') throw new TypeError('AbortSignal.timeout() needs setTimeout');
    const signal = new AbortSignal(kCreate);
    const timer = globalThis.setTimeout(() => {
      signal.#signalAbort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, milliseconds);
    timer?.unref?.(); // a pending timeout must not keep the process alive
    return signal;
  }
  static any(signals) {
    const list = [...signals];
    for (const s of list) {
      if (!(s instanceof AbortSignal)) {
        throw nodeTypeError('ERR_INVALID_ARG_TYPE', 'The "signals" argument must be an instance of AbortSignal[].');
      }
    }
    const result = new AbortSignal(kCreate);
    const aborted = list.find((s) => s.#aborted);
    if (aborted) {
      result.#aborted = true;
      result.#reason = aborted.#reason;
      return result;
    }
    result.#sources = [];
    for (const s of list) {
      // Link to the real sources, so chains of any() stay one level deep.
      for (const src of s.#sources ? s.#sources.map((r) => r.deref()).filter(Boolean) : [s]) {
        if (src.#aborted || result.#sources.some((r) => r.deref() === src)) continue;
        result.#sources.push(weak(src));
        src.#dependents = src.#dependents.filter((r) => r.deref() && !r.deref().#aborted);
        src.#dependents.push(weak(result));
      }
    }
    return result;
  }

  #signalAbort(reason) {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason === undefined ? abortError() : reason;
    // Per DOM: dependents get their reason before any abort event fires.
    const dependents = [];
    for (const ref of this.#dependents) {
      const d = ref.deref();
      if (d && !d.#aborted) {
        d.#aborted = true;
        d.#reason = this.#reason;
        dependents.push(d);
      }
    }
    this.#dependents = [];
    this.#runAbortSteps();
    for (const d of dependents) d.#runAbortSteps();
  }
  #runAbortSteps() {
    const algorithms = [...this.#algorithms];
    this.#algorithms.clear();
    for (const fn of algorithms) fn();
    this.dispatchEvent(markTrusted(new Event('abort')));
    keepAlive.delete(this);
  }
  #updateKeepAlive() {
    if (this.#sources && !this.#aborted && (this.#algorithms.size || listenerCount(this, 'abort'))) keepAlive.add(this);
    else keepAlive.delete(this);
  }
  static {
    signalAbort = (signal, reason) => signal.#signalAbort(reason);
    addAbortAlgorithm = (signal, fn) => {
      signal.#algorithms.add(fn);
      signal.#updateKeepAlive();
      return () => {
        signal.#algorithms.delete(fn);
        signal.#updateKeepAlive();
      };
    };
  }
  get [Symbol.toStringTag]() {
    return 'AbortSignal';
  }
}

export class AbortController {
  #signal = new AbortSignal(kCreate);
  get signal() {
    return this.#signal;
  }
  abort(reason = undefined) {
    signalAbort(this.#signal, reason);
  }
  get [Symbol.toStringTag]() {
    return 'AbortController';
  }
}

// MessageChannel's two ports, within the isolate: a message is a structured clone, delivered
// as a MessageEvent in a later task, once the receiving port is started (by `start()`, or by
// setting `onmessage` as on the web); until then, and after `close()`, messages wait or drop.
export class MessagePort extends EventTarget {
  #peer = null;
  #queue = [];
  #started = false;
  #closed = false;
  #onmessage = null;
  constructor(token = undefined) {
    if (token !== kPortToken) throw nodeTypeError('ERR_CONSTRUCT_CALL_INVALID', 'Constructor cannot be called');
    super();
  }
  static pair() {
    const a = new MessagePort(kPortToken), b = new MessagePort(kPortToken);
    a.#peer = b;
    b.#peer = a;
    return [a, b];
  }
  postMessage(message, transfer = undefined) {
    if (this.#closed || !this.#peer || this.#peer.#closed) return;
    const clone = globalThis.structuredClone(message, Array.isArray(transfer) ? { transfer } : transfer);
    this.#peer.#queue.push(clone);
    this.#peer.#flush();
  }
  start() {
    this.#started = true;
    this.#flush();
  }
  close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue.length = 0;
    const peer = this.#peer;
    this.#peer = null;
    if (peer) {
      peer.#peer = null;
      peer.close();
    }
    this.dispatchEvent(new Event('close'));
  }
  ref() { return this; }
  unref() { return this; }
  hasRef() { return false; }
  get onmessage() { return this.#onmessage; }
  set onmessage(fn) {
    if (this.#onmessage) this.removeEventListener('message', this.#onmessage);
    this.#onmessage = typeof fn === 'function' ? fn : null;
    if (this.#onmessage) this.addEventListener('message', this.#onmessage);
    this.start();
  }
  #flush() {
    if (!this.#started) return;
    setTimeout(() => {
      while (this.#started && !this.#closed && this.#queue.length) {
        this.dispatchEvent(new MessageEvent('message', { data: this.#queue.shift() }));
      }
    }, 0);
  }
  get [Symbol.toStringTag]() {
    return 'MessagePort';
  }
}
const kPortToken = Symbol('MessagePort');

export class MessageChannel {
  #ports;
  constructor() {
    this.#ports = MessagePort.pair();
  }
  get port1() { return this.#ports[0]; }
  get port2() { return this.#ports[1]; }
  get [Symbol.toStringTag]() {
    return 'MessageChannel';
  }
}
