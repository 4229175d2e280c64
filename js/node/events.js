// node:events — pure-JS port of Node's EventEmitter.
// Derived from Node.js lib/events.js: Copyright Joyent, Inc. and other Node contributors. MIT
// licence; the notice is in NOTICE.
// Standalone ES module: no imports. captureRejections is accepted but ignored,
// and the static `on()` async iterator and EventEmitterAsyncResource are omitted.

const kCapture = Symbol("kCapture");
const kRejection = Symbol.for("nodejs.rejection");
export const errorMonitor = Symbol("events.errorMonitor");
export const captureRejectionSymbol = kRejection;
export let defaultMaxListeners = 10;

// Small stand-in for util.inspect, used only in error/warning messages.
function inspectValue(value, depth = 1) {
  if (typeof value === "string") return depth === 1 ? `'${value.replace(/['\\\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`))}'` : `'${value}'`;
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
  if (typeof value === "symbol") return value.toString();
  if (typeof value === "function") return value.name ? `[Function: ${value.name}]` : "[Function (anonymous)]";
  if (value === null || typeof value !== "object") return String(value);
  const name = Object.getPrototypeOf(value)?.constructor?.name;
  if (Array.isArray(value)) {
    if (depth <= 0) return "[Array]";
    return value.length === 0 ? "[]" : `[ ${value.map((v) => inspectValue(v, depth - 1)).join(", ")} ]`;
  }
  if (depth <= 0) return `[${name ?? "Object: null prototype"}]`;
  const entries = Object.keys(value).map((k) =>
    `${/^[a-zA-Z_][a-zA-Z_0-9]*$/.test(k) ? k : `'${k}'`}: ${inspectValue(value[k], depth - 1)}`);
  const prefix = name === "Object" ? "" : name ? `${name} ` : "[Object: null prototype] ";
  return entries.length === 0 ? `${prefix}{}` : `${prefix}{ ${entries.join(", ")} }`;
}

function describeReceived(value) {
  if (value == null) return `${value}`;
  if (typeof value === "function") return `function ${value.name}`;
  if (typeof value === "object") {
    if (value.constructor?.name) return `an instance of ${value.constructor.name}`;
    return inspectValue(value, 0);
  }
  if (typeof value === "string" && value.length > 28) value = `${value.slice(0, 25)}...`;
  return `type ${typeof value} (${inspectValue(value)})`;
}

function nodeError(Base, code, message) {
  const err = new Base(message);
  err.code = code;
  return err;
}

// `expected` is e.g. "of type function" or "an instance of AbortSignal".
function invalidArgType(name, expected, actual) {
  const kind = name.includes(".") ? "property" : "argument";
  return nodeError(TypeError, "ERR_INVALID_ARG_TYPE",
    `The "${name}" ${kind} must be ${expected}. Received ${describeReceived(actual)}`);
}

function checkListener(listener) {
  if (typeof listener !== "function") throw invalidArgType("listener", "of type function", listener);
}

function validateMaxListeners(n, name) {
  if (typeof n !== "number") throw invalidArgType(name, "of type number", n);
  if (n < 0 || Number.isNaN(n)) {
    throw nodeError(RangeError, "ERR_OUT_OF_RANGE",
      `The value of "${name}" is out of range. It must be >= 0. Received ${inspectValue(n)}`);
  }
}

function abortError(signal) {
  const err = new Error("The operation was aborted", { cause: signal?.reason });
  err.name = "AbortError";
  err.code = "ABORT_ERR";
  return err;
}

// Constructor function (not a class) so that `EventEmitter.call(this)` keeps working
// for util.inherits-style subclasses.
export function EventEmitter(opts) {
  EventEmitter.init.call(this, opts);
}
EventEmitter.prototype._events = undefined;
EventEmitter.prototype._eventsCount = 0;
EventEmitter.prototype._maxListeners = undefined;

EventEmitter.init = function init(opts) {
  if (this._events === undefined || this._events === Object.getPrototypeOf(this)._events) {
    this._events = { __proto__: null };
    this._eventsCount = 0;
  }
  this._maxListeners = this._maxListeners || undefined;
  if (opts?.captureRejections !== undefined && typeof opts.captureRejections !== "boolean") {
    throw invalidArgType("options.captureRejections", "of type boolean", opts.captureRejections);
  }
  // Rejection capturing is not implemented; the flag is only recorded.
  this[kCapture] = opts?.captureRejections ? Boolean(opts.captureRejections) : EventEmitter.prototype[kCapture];
};
EventEmitter.prototype[kCapture] = false;

let captureRejections = false;
Object.defineProperties(EventEmitter, {
  captureRejections: {
    get: () => captureRejections,
    set(value) {
      if (typeof value !== "boolean") throw invalidArgType("EventEmitter.captureRejections", "of type boolean", value);
      captureRejections = value;
      EventEmitter.prototype[kCapture] = value;
    },
    enumerable: true,
  },
  defaultMaxListeners: {
    get: () => defaultMaxListeners,
    set(value) {
      validateMaxListeners(value, "defaultMaxListeners");
      defaultMaxListeners = value;
    },
    enumerable: true,
  },
});
EventEmitter.EventEmitter = EventEmitter;
EventEmitter.usingDomains = false;
EventEmitter.errorMonitor = errorMonitor;
EventEmitter.captureRejectionSymbol = captureRejectionSymbol;

function getMaxListenersOf(that) {
  return that._maxListeners === undefined ? defaultMaxListeners : that._maxListeners;
}

EventEmitter.prototype.setMaxListeners = function setMaxListeners(n) {
  validateMaxListeners(n, "setMaxListeners");
  this._maxListeners = n;
  return this;
};

EventEmitter.prototype.getMaxListeners = function getMaxListeners() {
  return getMaxListenersOf(this);
};

EventEmitter.prototype.emit = function emit(type, ...args) {
  let doError = type === "error";
  const events = this._events;
  if (events !== undefined) {
    if (doError && events[errorMonitor] !== undefined) this.emit(errorMonitor, ...args);
    doError = doError && events.error === undefined;
  } else if (!doError) {
    return false;
  }

  // An 'error' event without listeners throws, like Node.
  if (doError) {
    const er = args.length > 0 ? args[0] : undefined;
    if (er instanceof Error) throw er;
    let stringified;
    try {
      stringified = inspectValue(er);
    } catch {
      stringified = er;
    }
    const err = nodeError(Error, "ERR_UNHANDLED_ERROR", `Unhandled error. (${stringified})`);
    err.context = er;
    throw err;
  }

  const handler = events[type];
  if (handler === undefined) return false;
  if (typeof handler === "function") {
    Reflect.apply(handler, this, args);
  } else {
    // Copy so listeners added/removed during emit don't affect this round.
    for (const listener of handler.slice()) Reflect.apply(listener, this, args);
  }
  return true;
};

function addListener(target, type, listener, prepend) {
  checkListener(listener);
  let events = target._events;
  let existing;
  if (events === undefined) {
    events = target._events = { __proto__: null };
    target._eventsCount = 0;
  } else {
    // Emit 'newListener' before adding, so a 'newListener' listener doesn't see itself.
    if (events.newListener !== undefined) {
      target.emit("newListener", type, listener.listener ?? listener);
      events = target._events; // The handler may have replaced _events.
    }
    existing = events[type];
  }

  if (existing === undefined) {
    // A single listener is stored unwrapped.
    events[type] = listener;
    ++target._eventsCount;
  } else {
    if (typeof existing === "function") {
      existing = events[type] = prepend ? [listener, existing] : [existing, listener];
    } else if (prepend) {
      existing.unshift(listener);
    } else {
      existing.push(listener);
    }
    const m = getMaxListenersOf(target);
    if (m > 0 && existing.length > m && !existing.warned) {
      existing.warned = true;
      const w = new Error(`Possible EventEmitter memory leak detected. ${existing.length} ${String(type)} listeners ` +
        `added to [${target.constructor?.name ?? "EventEmitter"}]. MaxListeners is ${m}. ` +
        "Use emitter.setMaxListeners() to increase limit");
      Object.assign(w, { name: "MaxListenersExceededWarning", emitter: target, type, count: existing.length });
      if (typeof globalThis.process?.emitWarning === "function") globalThis.process.emitWarning(w);
      else console.warn(`${w.name}: ${w.message}`);
    }
  }
  return target;
}

EventEmitter.prototype.addListener = function addListener_(type, listener) {
  return addListener(this, type, listener, false);
};
EventEmitter.prototype.on = EventEmitter.prototype.addListener;

EventEmitter.prototype.prependListener = function prependListener(type, listener) {
  return addListener(this, type, listener, true);
};

function onceWrapper() {
  if (!this.fired) {
    this.target.removeListener(this.type, this.wrapFn);
    this.fired = true;
    return Reflect.apply(this.listener, this.target, arguments);
  }
}

// The wrapper keeps the original in `.listener` so removeListener(original) works.
function onceWrap(target, type, listener) {
  const state = { fired: false, wrapFn: undefined, target, type, listener };
  const wrapped = onceWrapper.bind(state);
  wrapped.listener = listener;
  state.wrapFn = wrapped;
  return wrapped;
}

EventEmitter.prototype.once = function once(type, listener) {
  checkListener(listener);
  this.on(type, onceWrap(this, type, listener));
  return this;
};

EventEmitter.prototype.prependOnceListener = function prependOnceListener(type, listener) {
  checkListener(listener);
  this.prependListener(type, onceWrap(this, type, listener));
  return this;
};

EventEmitter.prototype.removeListener = function removeListener(type, listener) {
  checkListener(listener);
  const events = this._events;
  if (events === undefined) return this;
  const list = events[type];
  if (list === undefined) return this;

  if (list === listener || list.listener === listener) {
    this._eventsCount -= 1;
    if (this._eventsCount === 0) {
      this._events = { __proto__: null };
    } else {
      delete events[type];
      if (events.removeListener) this.emit("removeListener", type, list.listener || listener);
    }
  } else if (typeof list !== "function") {
    let position = -1;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i] === listener || list[i].listener === listener) {
        position = i;
        break;
      }
    }
    if (position < 0) return this;
    list.splice(position, 1);
    if (list.length === 1) events[type] = list[0];
    if (events.removeListener !== undefined) this.emit("removeListener", type, listener);
  }
  return this;
};
EventEmitter.prototype.off = EventEmitter.prototype.removeListener;

EventEmitter.prototype.removeAllListeners = function removeAllListeners(type) {
  const events = this._events;
  if (events === undefined) return this;

  // Fast path: nobody listens for 'removeListener'.
  if (events.removeListener === undefined) {
    if (arguments.length === 0) {
      this._events = { __proto__: null };
      this._eventsCount = 0;
    } else if (events[type] !== undefined) {
      if (--this._eventsCount === 0) this._events = { __proto__: null };
      else delete events[type];
    }
    return this;
  }

  if (arguments.length === 0) {
    for (const key of Reflect.ownKeys(events)) {
      if (key === "removeListener") continue;
      this.removeAllListeners(key);
    }
    this.removeAllListeners("removeListener");
    this._events = { __proto__: null };
    this._eventsCount = 0;
    return this;
  }

  const listeners = events[type];
  if (typeof listeners === "function") {
    this.removeListener(type, listeners);
  } else if (listeners !== undefined) {
    for (let i = listeners.length - 1; i >= 0; i--) this.removeListener(type, listeners[i]); // LIFO
  }
  return this;
};

function listenersOf(target, type, unwrap) {
  const events = target._events;
  if (events === undefined) return [];
  const evlistener = events[type];
  if (evlistener === undefined) return [];
  if (typeof evlistener === "function") return unwrap ? [evlistener.listener || evlistener] : [evlistener];
  return unwrap ? evlistener.map((l) => l.listener || l) : evlistener.slice();
}

EventEmitter.prototype.listeners = function listeners(type) {
  return listenersOf(this, type, true);
};

EventEmitter.prototype.rawListeners = function rawListeners(type) {
  return listenersOf(this, type, false);
};

function listenerCountOf(type, listener) {
  const events = this._events;
  if (events !== undefined) {
    const evlistener = events[type];
    if (typeof evlistener === "function") {
      if (listener != null) return listener === evlistener || listener === evlistener.listener ? 1 : 0;
      return 1;
    } else if (evlistener !== undefined) {
      if (listener != null) return evlistener.filter((l) => l === listener || l.listener === listener).length;
      return evlistener.length;
    }
  }
  return 0;
}
EventEmitter.prototype.listenerCount = listenerCountOf;

EventEmitter.prototype.eventNames = function eventNames() {
  return this._eventsCount > 0 ? Reflect.ownKeys(this._events) : [];
};

// ---------------------------------------------------------------------------
// Static helpers

/** @deprecated Use emitter.listenerCount(). */
export function listenerCount(emitter, type) {
  if (typeof emitter.listenerCount === "function") return emitter.listenerCount(type);
  return listenerCountOf.call(emitter, type);
}

export function getEventListeners(emitter, type) {
  if (typeof emitter?.listeners === "function") return emitter.listeners(type);
  // EventTarget listeners are not introspectable from JavaScript.
  throw invalidArgType("emitter", "an instance of EventEmitter or EventTarget", emitter);
}

export function getMaxListeners(emitter) {
  if (typeof emitter?.getMaxListeners === "function") return getMaxListenersOf(emitter);
  throw invalidArgType("emitter", "an instance of EventEmitter or EventTarget", emitter);
}

export function setMaxListeners(n = defaultMaxListeners, ...eventTargets) {
  validateMaxListeners(n, "setMaxListeners");
  if (eventTargets.length === 0) {
    defaultMaxListeners = n;
    return;
  }
  for (const target of eventTargets) {
    if (typeof target?.setMaxListeners === "function") target.setMaxListeners(n);
    // An EventTarget (an AbortSignal, most often) keeps its limit as Node's does, under a
    // symbol; this host warns about no EventTarget's listener count, so it is only kept.
    else if (typeof target?.addEventListener === "function") target[kMaxEventTargetListeners] = n;
    else throw invalidArgType("eventTargets", "an instance of EventEmitter or EventTarget", target);
  }
}
const kMaxEventTargetListeners = Symbol("events.maxEventTargetListeners");

// `for await (const args of on(emitter, "data"))`: each event's arguments, in order, queued
// until read; an 'error' event ends the iteration by throwing it, as does an aborted signal;
// the events named in `close` end it normally.
export function on(emitter, event, options = {}) {
  const signal = options?.signal;
  validateAbortSignal(signal, "options.signal");
  if (signal?.aborted) throw abortError(signal);
  const unread = [];       // events no one has asked for yet
  const waiting = [];      // readers waiting for an event: { resolve, reject }
  let failure = null;
  let finished = false;
  const closeEvents = Array.isArray(options?.close) ? options.close : [];

  const onEvent = (...args) => {
    if (waiting.length) waiting.shift().resolve({ value: args, done: false });
    else unread.push(args);
  };
  const onError = (err) => {
    if (waiting.length) waiting.shift().reject(err);
    else failure = err;
    iterator.return();
  };
  const onAbort = () => onError(abortError(signal));
  const onClose = () => closeIteration();

  function closeIteration() {
    if (finished) return;
    finished = true;
    removeListenerAgnostic(emitter, event, onEvent);
    if (event !== "error" && typeof emitter.removeListener === "function") emitter.removeListener("error", onError);
    for (const name of closeEvents) removeListenerAgnostic(emitter, name, onClose);
    if (signal) removeListenerAgnostic(signal, "abort", onAbort);
    for (const reader of waiting.splice(0)) reader.resolve({ value: undefined, done: true });
  }

  const iterator = Object.setPrototypeOf({
    next() {
      if (unread.length) return Promise.resolve({ value: unread.shift(), done: false });
      if (failure) {
        const err = failure;
        failure = null;
        return Promise.reject(err);
      }
      if (finished) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return() {
      closeIteration();
      return Promise.resolve({ value: undefined, done: true });
    },
    throw(err) {
      if (!err || !(err instanceof Error)) throw invalidArgType("EventEmitter.AsyncIterator", "Error", err);
      onError(err);
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]() { return this; },
  }, Object.getPrototypeOf(Object.getPrototypeOf(async function* () {}).prototype));

  addListenerAgnostic(emitter, event, onEvent);
  if (event !== "error" && typeof emitter.on === "function") emitter.on("error", onError);
  for (const name of closeEvents) addListenerAgnostic(emitter, name, onClose);
  if (signal) addListenerAgnostic(signal, "abort", onAbort, { once: true });
  return iterator;
}

function addListenerAgnostic(emitter, name, listener, flags) {
  if (typeof emitter.on === "function") {
    if (flags?.once) emitter.once(name, listener);
    else emitter.on(name, listener);
  } else if (typeof emitter.addEventListener === "function") {
    emitter.addEventListener(name, listener, flags);
  } else {
    throw invalidArgType("emitter", "an instance of EventEmitter", emitter);
  }
}

function removeListenerAgnostic(emitter, name, listener, flags) {
  if (typeof emitter.removeListener === "function") emitter.removeListener(name, listener);
  else if (typeof emitter.removeEventListener === "function") emitter.removeEventListener(name, listener, flags);
  else throw invalidArgType("emitter", "an instance of EventEmitter", emitter);
}

function validateAbortSignal(signal, name) {
  if (signal !== undefined && (signal === null || typeof signal !== "object" || !("aborted" in signal))) {
    throw invalidArgType(name, "an instance of AbortSignal", signal);
  }
}

// Resolves with the event's arguments array; rejects on 'error' or abort.
export async function once(emitter, name, options = {}) {
  const signal = options?.signal; // Node 20 does not validate `options` itself.
  validateAbortSignal(signal, "options.signal");
  if (signal?.aborted) throw abortError(signal);
  return new Promise((resolve, reject) => {
    const errorListener = (err) => {
      emitter.removeListener(name, resolver);
      if (signal != null) removeListenerAgnostic(signal, "abort", abortListener);
      reject(err);
    };
    const resolver = (...args) => {
      if (typeof emitter.removeListener === "function") emitter.removeListener("error", errorListener);
      if (signal != null) removeListenerAgnostic(signal, "abort", abortListener);
      resolve(args);
    };
    addListenerAgnostic(emitter, name, resolver, { once: true });
    // EventTargets have no 'error' semantics; only listen on EventEmitters.
    if (name !== "error" && typeof emitter.once === "function") emitter.once("error", errorListener);
    function abortListener() {
      removeListenerAgnostic(emitter, name, resolver);
      removeListenerAgnostic(emitter, "error", errorListener);
      reject(abortError(signal));
    }
    if (signal != null) addListenerAgnostic(signal, "abort", abortListener, { once: true });
  });
}

export function addAbortListener(signal, listener) {
  if (signal === undefined) throw invalidArgType("signal", "an instance of AbortSignal", signal);
  validateAbortSignal(signal, "signal");
  if (typeof listener !== "function") throw invalidArgType("listener", "of type function", listener);
  let removeEventListener;
  if (signal.aborted) {
    Promise.resolve().then(() => listener()); // Async, like Node's queueMicrotask.
  } else {
    signal.addEventListener("abort", listener, { once: true });
    removeEventListener = () => signal.removeEventListener("abort", listener);
  }
  const disposable = {};
  disposable[Symbol.dispose ?? Symbol.for("nodejs.dispose")] = () => removeEventListener?.();
  return disposable;
}

Object.assign(EventEmitter, {
  once,
  on,
  listenerCount,
  getEventListeners,
  getMaxListeners,
  setMaxListeners,
  addAbortListener,
});

// `process` becomes an EventEmitter when this module is first evaluated (it is loaded on first
// use, see js/node/process.js), whoever loads it: a plugin's import or process.on(...).
globalThis[Symbol.for("paseo.process.becomeEmitter")]?.(EventEmitter);

export default EventEmitter;
