// Node-style timers on deno_core's timer queue. Handles are `Timeout` objects with `ref`,
// `unref`, `hasRef`, `refresh` and a numeric primitive. A plugin lives as long as the host keeps
// it loaded, so `unref()` only changes what `hasRef()` reports.
import { core, lazyModule, ops } from "paseo:internal/core";

const byId = new Map();
let nextId = 1;

export class Timeout {
  #timer; #refed = true;
  constructor(callback, delay, args, repeat) {
    this.id = nextId++;
    this._onTimeout = callback;
    // The callback runs under the turn budget (runtime/src/engine/ops.rs `op_host_timer`), in
    // the async context it was scheduled in (node:async_hooks).
    const context = core.getAsyncContext();
    const fire = () => {
      if (!repeat) byId.delete(this.id);
      ops.op_host_timer(true);
      const outer = core.getAsyncContext();
      core.setAsyncContext(context);
      try { callback(...args); } finally { core.setAsyncContext(outer); ops.op_host_timer(false); }
    };
    this.#timer = core.createTimer(fire, delay, undefined, repeat, true, false);
    byId.set(this.id, this);
  }
  ref() { this.#refed = true; return this; }
  unref() { this.#refed = false; return this; }
  hasRef() { return this.#refed; }
  refresh() { core.refreshTimer(this.#timer); return this; }
  close() { clear(this); return this; }
  [Symbol.toPrimitive]() { return this.id; }
  _cancel() { core.cancelTimer(this.#timer); byId.delete(this.id); }
}

function check(callback) {
  if (typeof callback !== "function") {
    throw lazyModule("paseo:internal/node/internal_errors").invalidArgType("callback", ["Function"], callback);
  }
}

function clear(handle) {
  const t = handle instanceof Timeout ? handle : byId.get(Number(handle));
  t?._cancel();
}

export function setTimeout(callback, delay, ...args) { check(callback); return new Timeout(callback, delay, args, false); }
export function setInterval(callback, delay, ...args) { check(callback); return new Timeout(callback, delay, args, true); }
export const clearTimeout = clear;
export const clearInterval = clear;

// `process.nextTick`: deno_core's tick queue, which the event loop drains as Node's does: once
// the code that queued a tick returns (a call into the plugin, a timer callback, an op's
// resolution, an immediate), every tick runs, then the promise continuations, and again until
// both are empty. So a tick runs before continuations that were already queued.
export function nextTick(callback, ...args) {
  check(callback);
  core.queueNextTick({ callback, args: args.length ? args : undefined, snapshot: core.getAsyncContext() });
}

/**
 * Answers a Node-style callback the way an I/O callback would come: after the microtasks
 * queued so far, and as a tick, so that ticks it queues run before promise continuations it
 * queues. For callback forms whose work is done at once, or settled by an op's promise (call it
 * from the continuation: `op().then((r) => ioCallback(cb, null, r))`).
 *
 * As libuv runs them, each I/O callback is followed by every tick and continuation it queued
 * before the next one runs: callbacks that arrive together wait in `ioQueue`, and one tick
 * (`runIo`) runs them, draining the tick queue between two. Were they plain ticks, a tick
 * queued by the first would run after the second (a write stream whose open completes beside
 * a read could then write a chunk ahead of those it buffered while opening).
 */
export function ioCallback(callback, ...args) {
  const context = core.getAsyncContext();
  queueMicrotask(() => {
    ioQueue.push({ callback, args, context });
    if (!ioScheduled) {
      ioScheduled = true;
      nextTick(runIo);
    }
  });
}
const ioQueue = [];
let ioScheduled = false;
function runIo() {
  while (ioQueue.length) {
    const { callback, args, context } = ioQueue.shift();
    let threw = true;
    const outer = core.getAsyncContext();
    core.setAsyncContext(context);
    try {
      Reflect.apply(callback, undefined, args);
      threw = false;
    } finally {
      core.setAsyncContext(outer);
      // The tick queue reports what a callback throws; the rest run in a tick of their own.
      if (threw) {
        if (ioQueue.length) nextTick(runIo);
        else ioScheduled = false;
      }
    }
    if (ioQueue.length) core.runNextTicks();
  }
  ioScheduled = false;
}

// `setImmediate`: deno_core's immediate queue, run in the check phase after I/O, as libuv
// does; so an immediate queued in a timer callback runs before a 0 ms timeout queued beside it.
// The engine's own bookkeeping ignores our objects (its ref flag is private): what keeps the
// event loop polling for them is `immediateRefCount`, kept here.
export class Immediate {
  #refed = true;
  constructor(callback, args) {
    const context = core.getAsyncContext();
    this._onImmediate = () => {
      this.#unref();
      ops.op_host_timer(true);
      const outer = core.getAsyncContext();
      core.setAsyncContext(context);
      try { callback(...args); } finally { core.setAsyncContext(outer); ops.op_host_timer(false); }
    };
    this._argv = undefined;
    this._destroyed = false;
    this._idleNext = this._idlePrev = null;
    core.immediateRefCount(true);
    core.queueImmediate(this);
  }
  #unref() {
    if (this.#refed) { this.#refed = false; core.immediateRefCount(false); }
  }
  ref() { if (!this.#refed && !this._destroyed) { this.#refed = true; core.immediateRefCount(true); } return this; }
  unref() { this.#unref(); return this; }
  hasRef() { return this.#refed; }
  _cancel() {
    if (this._destroyed) return;
    this.#unref();
    core.clearImmediate(this);
  }
}

export function setImmediate(callback, ...args) { check(callback); return new Immediate(callback, args); }
export function clearImmediate(handle) {
  if (handle instanceof Immediate) handle._cancel();
}

export const promises = {
  setTimeout(delay, value, { signal } = {}) {
    return new Promise((resolve, reject) => {
      signal?.throwIfAborted();
      const t = setTimeout(() => resolve(value), delay);
      signal?.addEventListener("abort", () => { clear(t); reject(signal.reason); }, { once: true });
    });
  },
  setImmediate(value) { return new Promise((resolve) => setImmediate(() => resolve(value))); },
  async *setInterval(delay, value) {
    while (true) yield await promises.setTimeout(delay, value);
  },
  scheduler: { wait: (delay, opts) => promises.setTimeout(delay, undefined, opts), yield: () => promises.setImmediate() },
};
