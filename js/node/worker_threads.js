// `node:worker_threads`: importable, for the many packages that look at it at load. A plugin is
// one thread: this is its main thread, it has no parent port and no worker data, and it cannot
// start workers (`Worker` throws naming itself). MessageChannel/MessagePort are the engine's
// (within the isolate); BroadcastChannel delivers to the other open channels of the same name in
// the isolate, as Node's does within one thread; environment data is a Map.
import { unsupported } from "paseo:internal/core";
import { EventTarget, MessageEvent, MessageChannel, MessagePort, DOMException } from "paseo:internal/web/events";

export const isMainThread = true;
export const parentPort = null;
export const workerData = null;
export const threadId = 0;
export const resourceLimits = {};
export const SHARE_ENV = Symbol.for("nodejs.worker_threads.SHARE_ENV");
export { MessageChannel, MessagePort };

export class Worker {
  constructor() {
    throw new Error("worker_threads.Worker is not supported by the Paseo plugin host yet");
  }
}

// Node marks an object so that a transfer list naming it clones it instead; nothing is
// transferred between threads here.
export function markAsUntransferable(object) {}

export const moveMessagePortToContext = unsupported("worker_threads.moveMessagePortToContext");
export const receiveMessageOnPort = unsupported("worker_threads.receiveMessageOnPort");
export const postMessageToThread = unsupported("worker_threads.postMessageToThread");

const environmentData = new Map();
export function setEnvironmentData(key, value) {
  if (value === undefined) environmentData.delete(key);
  else environmentData.set(key, value);
}
export function getEnvironmentData(key) {
  return environmentData.get(key);
}

// The open channels, in the order they were made, and by name.
const openChannels = new Set();
const byName = new Map();
let flushing = false;

// Delivers what waits, in a later task: channel by channel in the order they were made, as
// Node's ports (one per channel) are served by its event loop.
function scheduleFlush() {
  if (flushing) return;
  flushing = true;
  setTimeout(() => {
    flushing = false;
    for (const channel of openChannels) flush(channel);
  }, 0);
}
let flush;

export class BroadcastChannel extends EventTarget {
  #name;
  #closed = false;
  #queue = [];
  #onmessage = null;
  #onmessageerror = null;
  constructor(name) {
    if (arguments.length === 0) {
      const err = new TypeError('The "name" argument must be specified');
      err.code = "ERR_MISSING_ARGS";
      throw err;
    }
    super();
    this.#name = `${name}`;
    openChannels.add(this);
    if (!byName.has(this.#name)) byName.set(this.#name, new Set());
    byName.get(this.#name).add(this);
  }
  get name() {
    return this.#name;
  }
  close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue.length = 0;
    openChannels.delete(this);
    const named = byName.get(this.#name);
    named.delete(this);
    if (!named.size) byName.delete(this.#name);
  }
  postMessage(message) {
    if (this.#closed) throw new DOMException("BroadcastChannel is closed.", "InvalidStateError");
    const data = globalThis.structuredClone(message);
    for (const target of byName.get(this.#name)) {
      // Each receiver gets its own copy.
      if (target !== this) target.#queue.push(globalThis.structuredClone(data));
    }
    scheduleFlush();
  }
  static {
    flush = (channel) => channel.#flush();
  }
  #flush() {
    while (!this.#closed && this.#queue.length) {
      this.dispatchEvent(new MessageEvent("message", { data: this.#queue.shift() }));
    }
  }
  ref() {
    return this;
  }
  unref() {
    return this;
  }
  get onmessage() {
    return this.#onmessage;
  }
  set onmessage(fn) {
    if (this.#onmessage) this.removeEventListener("message", this.#onmessage);
    this.#onmessage = typeof fn === "function" ? fn : null;
    if (this.#onmessage) this.addEventListener("message", this.#onmessage);
  }
  get onmessageerror() {
    return this.#onmessageerror;
  }
  set onmessageerror(fn) {
    if (this.#onmessageerror) this.removeEventListener("messageerror", this.#onmessageerror);
    this.#onmessageerror = typeof fn === "function" ? fn : null;
    if (this.#onmessageerror) this.addEventListener("messageerror", this.#onmessageerror);
  }
}

export default {
  isMainThread, MessagePort, MessageChannel, markAsUntransferable, moveMessagePortToContext, receiveMessageOnPort,
  resourceLimits, postMessageToThread, threadId, SHARE_ENV, Worker, parentPort, workerData, BroadcastChannel,
  setEnvironmentData, getEnvironmentData,
};
