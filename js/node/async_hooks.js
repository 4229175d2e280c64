// `node:async_hooks`: AsyncLocalStorage and AsyncResource on the engine's continuation-preserved
// embedder data (V8's, and v8x's QuickJS counterpart). The engine carries the current context
// across `await` and `.then` by itself; timers, immediates, ticks and I/O callbacks restore the
// context they were scheduled in (js/runtime/timers.js). A context is an immutable Map from a
// storage to its store: entering one copies the map, so a continuation keeps what it captured.
//
// `createHook` calls its hooks for the AsyncResources plugin code makes (init, before, after,
// destroy), which is what libraries that build their own resources rely on; the engine's own
// resources (promises, timers, sockets) emit nothing, and `executionAsyncId()` names the resource
// whose scope runs, or 1 (the top level) outside any.
import { core } from "paseo:internal/core";
import { invalidArgType } from "paseo:internal/node/internal_errors";

const currentContext = () => core.getAsyncContext();
const setContext = (context) => core.setAsyncContext(context);

/** Runs `fn` with `context` as the current one, then puts the previous one back. */
function runInContext(context, fn, thisArg, args) {
  const previous = currentContext();
  setContext(context);
  try {
    return Reflect.apply(fn, thisArg, args);
  } finally {
    setContext(previous);
  }
}

function withStore(storage, store) {
  const next = new Map(currentContext() instanceof Map ? currentContext() : undefined);
  next.set(storage, store);
  return next;
}

function validateFunction(value, name) {
  if (typeof value !== "function") throw invalidArgType(name, ["Function"], value);
}

export class AsyncLocalStorage {
  #enabled = false;

  static bind(fn) {
    return AsyncResource.bind(fn);
  }

  static snapshot() {
    const context = currentContext();
    return function runInAsyncScope(fn, ...args) {
      return runInContext(context, fn, this, args);
    };
  }

  disable() {
    this.#enabled = false;
    const context = currentContext();
    if (context instanceof Map && context.has(this)) {
      const next = new Map(context);
      next.delete(this);
      setContext(next);
    }
  }

  getStore() {
    if (!this.#enabled) return undefined;
    const context = currentContext();
    return context instanceof Map ? context.get(this) : undefined;
  }

  enterWith(store) {
    this.#enabled = true;
    setContext(withStore(this, store));
  }

  run(store, callback, ...args) {
    this.#enabled = true;
    return runInContext(withStore(this, store), callback, undefined, args);
  }

  exit(callback, ...args) {
    if (!this.#enabled) return Reflect.apply(callback, undefined, args);
    return runInContext(withStore(this, undefined), callback, undefined, args);
  }
}

// Ids as Node hands them out: 1 is the top level, resources count up from there.
let lastAsyncId = 1;
let executing = { asyncId: 1, triggerId: 0, resource: {} };
const hooks = new Set();

function emit(name, ...args) {
  for (const hook of hooks) {
    const fn = hook.callbacks[name];
    if (fn) Reflect.apply(fn, hook.callbacks, args);
  }
}

let warnedAsyncResource = false;
const kAsyncId = Symbol("asyncId");
const kTriggerId = Symbol("triggerAsyncId");
const kContext = Symbol("context");

export class AsyncResource {
  constructor(type, options = {}) {
    if (typeof type !== "string") throw invalidArgType("type", ["string"], type);
    // Node accepts a number here too (the older signature).
    const opts = typeof options === "number" ? { triggerAsyncId: options } : options ?? {};
    const triggerAsyncId = opts.triggerAsyncId ?? executionAsyncId();
    if (!Number.isSafeInteger(triggerAsyncId) || triggerAsyncId < -1) {
      const error = new RangeError(`Invalid triggerAsyncId value: ${triggerAsyncId}`);
      error.code = "ERR_INVALID_ASYNC_ID";
      throw error;
    }
    this[kAsyncId] = ++lastAsyncId;
    this[kTriggerId] = triggerAsyncId;
    this[kContext] = currentContext();
    emit("init", this[kAsyncId], type, triggerAsyncId, this);
  }

  runInAsyncScope(fn, thisArg, ...args) {
    const outer = executing;
    executing = { asyncId: this[kAsyncId], triggerId: this[kTriggerId], resource: this };
    emit("before", this[kAsyncId]);
    try {
      return runInContext(this[kContext], fn, thisArg, args);
    } finally {
      emit("after", this[kAsyncId]);
      executing = outer;
    }
  }

  emitDestroy() {
    emit("destroy", this[kAsyncId]);
    return this;
  }

  asyncId() {
    return this[kAsyncId];
  }

  triggerAsyncId() {
    return this[kTriggerId];
  }

  bind(fn, thisArg) {
    validateFunction(fn, "fn");
    let resource = this;
    const bound = thisArg === undefined
      ? function (...args) { return resource.runInAsyncScope(fn, this, ...args); }
      : (...args) => resource.runInAsyncScope(fn, thisArg, ...args);
    Object.defineProperties(bound, {
      length: { configurable: true, enumerable: false, value: fn.length, writable: false },
      asyncResource: {
        configurable: true,
        enumerable: true,
        get() {
          if (!warnedAsyncResource) {
            warnedAsyncResource = true;
            process.emitWarning("The asyncResource property on bound functions is deprecated", "DeprecationWarning", "DEP0172");
          }
          return resource;
        },
        set(value) { resource = value; },
      },
    });
    return bound;
  }

  static bind(fn, type, thisArg) {
    validateFunction(fn, "fn");
    return new AsyncResource(type || fn.name || "bound-anonymous-fn").bind(fn, thisArg);
  }
}

export function executionAsyncId() {
  return executing.asyncId;
}

export function triggerAsyncId() {
  return executing.triggerId;
}

export function executionAsyncResource() {
  return executing.resource;
}

class AsyncHook {
  constructor(callbacks) {
    this.callbacks = callbacks;
  }
  enable() {
    hooks.add(this);
    return this;
  }
  disable() {
    hooks.delete(this);
    return this;
  }
}

export function createHook(callbacks = {}) {
  for (const name of ["init", "before", "after", "destroy", "promiseResolve"]) {
    const fn = callbacks[name];
    if (fn !== undefined && typeof fn !== "function") {
      const error = new TypeError(`hook.${name} must be a function`);
      error.code = "ERR_ASYNC_CALLBACK";
      throw error;
    }
  }
  return new AsyncHook(callbacks);
}

// Node 20's provider names, numbered in this order (`asyncWrapProviders`).
export const asyncWrapProviders = Object.freeze(Object.assign(Object.create(null), Object.fromEntries([
  "NONE", "DIRHANDLE", "DNSCHANNEL", "ELDHISTOGRAM", "FILEHANDLE", "FILEHANDLECLOSEREQ",
  "BLOBREADER", "FSEVENTWRAP", "FSREQCALLBACK", "FSREQPROMISE", "GETADDRINFOREQWRAP",
  "GETNAMEINFOREQWRAP", "HEAPSNAPSHOT", "HTTP2SESSION", "HTTP2STREAM", "HTTP2PING",
  "HTTP2SETTINGS", "HTTPINCOMINGMESSAGE", "HTTPCLIENTREQUEST", "JSSTREAM", "JSUDPWRAP",
  "MESSAGEPORT", "PIPECONNECTWRAP", "PIPESERVERWRAP", "PIPEWRAP", "PROCESSWRAP", "PROMISE",
  "QUERYWRAP", "QUIC_LOGSTREAM", "QUIC_PACKET", "SHUTDOWNWRAP", "SIGNALWRAP", "STATWATCHER",
  "STREAMPIPE", "TCPCONNECTWRAP", "TCPSERVERWRAP", "TCPWRAP", "TTYWRAP", "UDPSENDWRAP", "UDPWRAP",
  "SIGINTWATCHDOG", "WORKER", "WORKERHEAPSNAPSHOT", "WRITEWRAP", "ZLIB", "CHECKPRIMEREQUEST",
  "PBKDF2REQUEST", "KEYPAIRGENREQUEST", "KEYGENREQUEST", "KEYEXPORTREQUEST", "CIPHERREQUEST",
  "DERIVEBITSREQUEST", "HASHREQUEST", "RANDOMBYTESREQUEST", "RANDOMPRIMEREQUEST", "SCRYPTREQUEST",
  "SIGNREQUEST", "TLSWRAP", "VERIFYREQUEST",
].map((name, i) => [name, i]))));

export default {
  AsyncLocalStorage, AsyncResource, asyncWrapProviders, createHook, executionAsyncId,
  executionAsyncResource, triggerAsyncId,
};
