// User Timing and its observers, as Node 20 has them: `performance.mark`/`measure`, the entry
// buffer (`getEntries*`, `clear*`), `PerformanceObserver` (delivered in an immediate, as Node's
// are), `timerify`, and the entry classes. The global `performance` (js/runtime/bootstrap.js)
// loads this module on its first mark, measure or lookup. Node's other entry types (gc, http,
// dns, net) are never produced here: an observer of them is accepted and hears nothing.
import { ops } from "paseo:internal/core";
import { setImmediate } from "paseo:internal/timers";
import { DOMException } from "paseo:internal/web/events";
import { invalidArgType, nodeError } from "paseo:internal/node/internal_errors";

const now = () => ops.op_timer_now();
const kConstruct = Symbol("construct");
const missingArgs = (what) => nodeError(TypeError, "ERR_MISSING_ARGS", `The ${what} must be specified`);
const illegal = () => nodeError(TypeError, "ERR_ILLEGAL_CONSTRUCTOR", "Illegal constructor");

const SUPPORTED = ["dns", "function", "gc", "http", "http2", "mark", "measure", "net", "resource"];

export class PerformanceEntry {
  #name; #type; #start; #duration; #detail;
  constructor(key, name, type, start, duration, detail) {
    if (key !== kConstruct) throw illegal();
    this.#name = name;
    this.#type = type;
    this.#start = start;
    this.#duration = duration;
    this.#detail = detail;
  }
  get name() { return this.#name; }
  get entryType() { return this.#type; }
  get startTime() { return this.#start; }
  get duration() { return this.#duration; }
  get detail() { return this.#detail; }
  get [Symbol.toStringTag]() { return this.constructor.name; }
  toJSON() {
    return { name: this.name, entryType: this.entryType, startTime: this.startTime, duration: this.duration, detail: this.detail };
  }
}

const cloneDetail = (detail) => (detail === undefined ? null : structuredClone(detail));

export class PerformanceMark extends PerformanceEntry {
  constructor(name, options = {}) {
    if (name === undefined && arguments.length === 0) throw missingArgs('"name" argument');
    if (options !== null && typeof options !== "object") throw invalidArgType("options", ["Object"], options);
    const start = options?.startTime ?? now();
    if (typeof start !== "number") throw invalidArgType("options.startTime", ["number"], start);
    super(kConstruct, `${name}`, "mark", start, 0, cloneDetail(options?.detail));
  }
}

export class PerformanceMeasure extends PerformanceEntry {
  constructor(key, ...args) {
    if (key !== kConstruct) throw illegal();
    super(kConstruct, ...args);
  }
}

// The timeline: marks and measures, in the order they were made.
let buffer = [];
const sorted = (entries) => entries.slice().sort((a, b) => a.startTime - b.startTime);

function timeOf(markOrTime, name) {
  if (markOrTime === undefined) return undefined;
  if (typeof markOrTime === "number") return markOrTime;
  const wanted = `${markOrTime}`;
  for (let i = buffer.length - 1; i >= 0; i--) {
    if (buffer[i].entryType === "mark" && buffer[i].name === wanted) return buffer[i].startTime;
  }
  throw new DOMException(`The "${wanted}" performance mark has not been set`, "SyntaxError");
}

export function mark(...args) {
  const entry = new PerformanceMark(...args);
  buffer.push(entry);
  enqueue(entry);
  return entry;
}

export function measure(name, startOrOptions, endMark) {
  if (name === undefined) throw missingArgs('"name" argument');
  let start, end, detail = null, duration;
  if (startOrOptions !== null && typeof startOrOptions === "object") {
    ({ start, end, duration } = startOrOptions);
    detail = cloneDetail(startOrOptions.detail);
    start = timeOf(start);
    end = timeOf(end);
    if (end === undefined && duration !== undefined) end = (start ?? 0) + duration;
    if (start === undefined && duration !== undefined && end !== undefined) start = end - duration;
  } else {
    start = timeOf(startOrOptions);
    end = timeOf(endMark);
  }
  start ??= 0;
  end ??= now();
  const entry = new PerformanceMeasure(kConstruct, `${name}`, "measure", start, end - start, detail);
  buffer.push(entry);
  enqueue(entry);
  return entry;
}

export const getEntries = () => sorted(buffer);
export const getEntriesByName = (name, type) => sorted(buffer.filter((e) => e.name === `${name}` && (type === undefined || e.entryType === type)));
export const getEntriesByType = (type) => sorted(buffer.filter((e) => e.entryType === `${type}`));
export function clearMarks(name) {
  buffer = buffer.filter((e) => e.entryType !== "mark" || (name !== undefined && e.name !== `${name}`));
}
export function clearMeasures(name) {
  buffer = buffer.filter((e) => e.entryType !== "measure" || (name !== undefined && e.name !== `${name}`));
}

/** `performance.timerify(fn)`: calls of the wrapper become 'function' entries for observers. */
export function timerify(fn) {
  if (typeof fn !== "function") throw invalidArgType("fn", ["Function"], fn);
  const timerified = function (...args) {
    const start = now();
    const result = new.target ? Reflect.construct(fn, args, fn) : Reflect.apply(fn, this, args);
    const record = () => enqueue(new PerformanceEntry(kConstruct, fn.name, "function", start, now() - start, args));
    if (result instanceof Promise) return result.finally(record);
    record();
    return result;
  };
  Object.defineProperties(timerified, {
    length: { configurable: false, enumerable: true, value: fn.length },
    name: { configurable: false, enumerable: true, value: `timerified ${fn.name}` },
  });
  return timerified;
}

export class PerformanceObserverEntryList {
  #entries;
  constructor(key, entries) {
    if (key !== kConstruct) throw illegal();
    this.#entries = sorted(entries);
  }
  getEntries() { return this.#entries.slice(); }
  getEntriesByType(type) { return this.#entries.filter((e) => e.entryType === `${type}`); }
  getEntriesByName(name, type) {
    return this.#entries.filter((e) => e.name === `${name}` && (type === undefined || e.entryType === type));
  }
}

const observers = new Set();
const pending = new Set();
let dispatchQueued = false;

function enqueue(entry) {
  for (const observer of observers) observer._take(entry);
}

function queueDispatch(observer) {
  pending.add(observer);
  if (dispatchQueued) return;
  dispatchQueued = true;
  setImmediate(() => {
    dispatchQueued = false;
    const due = [...pending];
    pending.clear();
    for (const o of due) o._dispatch();
  });
}

export class PerformanceObserver {
  #callback; #types = new Set(); #records = [];
  constructor(callback) {
    if (typeof callback !== "function") throw invalidArgType("callback", ["Function"], callback);
    this.#callback = callback;
  }
  static get supportedEntryTypes() { return SUPPORTED.slice(); }
  observe(options = {}) {
    if (options === null || typeof options !== "object") throw invalidArgType("options", ["Object"], options);
    const { entryTypes, type, buffered } = options;
    if (entryTypes === undefined && type === undefined) throw missingArgs('"options.entryTypes" and "options.type" arguments');
    if (entryTypes !== undefined && type !== undefined) {
      throw nodeError(TypeError, "ERR_INVALID_ARG_VALUE", "The property 'options.entryTypes' can not be used with 'options.type'. Received " + JSON.stringify(entryTypes));
    }
    if (entryTypes !== undefined) {
      if (!Array.isArray(entryTypes)) throw invalidArgType("options.entryTypes", ["string[]"], entryTypes);
      this.#types = new Set(entryTypes.filter((t) => SUPPORTED.includes(t)));
    } else {
      if (!SUPPORTED.includes(type)) return;
      this.#types.add(type);
      if (buffered) {
        const past = buffer.filter((e) => e.entryType === type);
        if (past.length) { this.#records.push(...past); queueDispatch(this); }
      }
    }
    if (this.#types.size) observers.add(this);
    else this.disconnect();
  }
  disconnect() {
    observers.delete(this);
    pending.delete(this);
    this.#types.clear();
    this.#records = [];
  }
  takeRecords() {
    const records = this.#records;
    this.#records = [];
    return records;
  }
  _take(entry) {
    if (!this.#types.has(entry.entryType)) return;
    this.#records.push(entry);
    queueDispatch(this);
  }
  _dispatch() {
    const records = this.takeRecords();
    if (records.length) this.#callback(new PerformanceObserverEntryList(kConstruct, records), this);
  }
  get [Symbol.toStringTag]() { return "PerformanceObserver"; }
}

// Node's PerformanceResourceTiming, never made here (fetch records no resource timing).
export class PerformanceResourceTiming extends PerformanceEntry {
  constructor() { throw illegal(); }
}
