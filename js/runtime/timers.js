// Node-style timers on deno_core's timer queue. Handles are `Timeout` objects with `ref`,
// `unref`, `hasRef`, `refresh` and a numeric primitive. A plugin lives as long as the host keeps
// it loaded, so `unref()` only changes what `hasRef()` reports.
import { core, ops } from "paseo:internal/core";

const byId = new Map();
let nextId = 1;

export class Timeout {
  #timer; #refed = true;
  constructor(callback, delay, args, repeat) {
    this.id = nextId++;
    this._onTimeout = callback;
    // The callback runs under the turn budget (runtime/src/engine/ops.rs `op_host_timer`).
    const fire = () => {
      if (!repeat) byId.delete(this.id);
      ops.op_host_timer(true);
      try { callback(...args); } finally { ops.op_host_timer(false); }
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
    const err = new TypeError(`The "callback" argument must be of type function. Received ${typeof callback}`);
    err.code = "ERR_INVALID_ARG_TYPE";
    throw err;
  }
}

function clear(handle) {
  const t = handle instanceof Timeout ? handle : byId.get(Number(handle));
  t?._cancel();
}

export function setTimeout(callback, delay, ...args) { check(callback); return new Timeout(callback, delay, args, false); }
export function setInterval(callback, delay, ...args) { check(callback); return new Timeout(callback, delay, args, true); }
export function setImmediate(callback, ...args) { check(callback); return new Timeout(callback, 0, args, false); }
export const clearTimeout = clear;
export const clearInterval = clear;
export const clearImmediate = clear;

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
