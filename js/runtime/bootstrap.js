// Installs the globals a plugin sees (web platform + Node's), then the host. Runs before any
// plugin module; hides the engine's own `Deno` namespace afterwards.
import { core } from "paseo:internal/core";
import { console } from "paseo:internal/console";
import * as timers from "paseo:internal/timers";
import { URL, URLSearchParams } from "paseo:internal/web/url";
import process from "node:process";
import { ops, lazyModule } from "paseo:internal/core";

function define(name, value) {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}

// A global whose module is evaluated the first time the global is read (most plugins never
// touch fetch or Buffer): each isolate then carries only the host code its plugin uses.
function defineLazy(name, load) {
  Object.defineProperty(globalThis, name, {
    get() {
      const value = load();
      define(name, value);
      return value;
    },
    set(value) {
      define(name, value);
    },
    configurable: true,
    enumerable: false,
  });
}

// Set by `start` (below), for each isolate.
let timeOrigin = 0;
// User Timing lives in js/web/performance.js, loaded on the first call that needs it.
const timing = () => lazyModule("paseo:internal/web/performance");
const performance = {
  now: () => core.ops.op_timer_now(),
  timeOrigin,
  toJSON: () => ({ nodeTiming: undefined, timeOrigin: performance.timeOrigin, eventLoopUtilization: undefined }),
};
for (const name of ["mark", "measure", "getEntries", "getEntriesByName", "getEntriesByType", "clearMarks", "clearMeasures", "timerify"]) {
  performance[name] = (...args) => timing()[name](...args);
}
performance.eventLoopUtilization = () => {
  throw new Error("performance.eventLoopUtilization is not supported by the Paseo plugin host yet");
};

const crypto = {
  getRandomValues(array) {
    if (!ArrayBuffer.isView(array) || array instanceof Float32Array || array instanceof Float64Array) {
      throw new TypeError("The data argument must be an integer-type TypedArray");
    }
    if (array.byteLength > 65536) throw new DOMException(`The ArrayBufferView's byte length (${array.byteLength}) exceeds the number of bytes of entropy available via this API (65536)`, "QuotaExceededError");
    ops.op_crypto_fill_random(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    return array;
  },
  randomUUID() {
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  },
};

define("console", console);

// QuickJS's Intl.Segmenter is a stub that answers `segment(s)` with the string itself: replaced,
// on first use, by js/web/intl_segmenter.js. V8's (ICU's) answers with segments and stays.
const segmenterIsStub = (() => {
  try {
    const first = new Intl.Segmenter().segment("ab")[Symbol.iterator]().next().value;
    return first?.segment !== "a";
  } catch {
    return true;
  }
})();
if (segmenterIsStub) {
  const Native = Intl.Segmenter;
  Object.defineProperty(Intl, "Segmenter", {
    configurable: true,
    enumerable: false,
    get() {
      const Segmenter = lazyModule("paseo:internal/web/intl_segmenter").make(Native);
      Object.defineProperty(Intl, "Segmenter", { value: Segmenter, writable: true, configurable: true, enumerable: false });
      return Segmenter;
    },
    set(value) {
      Object.defineProperty(Intl, "Segmenter", { value, writable: true, configurable: true, enumerable: false });
    },
  });
}

// What a tick, timer, immediate or queueMicrotask callback throws is logged at once and the
// queue it came from goes on (where Node would end the process). deno_core's default ends the
// event-loop turn instead, and keeps one such error per turn, so a second one in the same turn
// went unlogged. (An unhandled rejection still ends the turn; the engine logs it.)
core.setReportExceptionCallback((error) => {
  let text;
  try {
    text = error instanceof Error && typeof error.stack === "string" ? error.stack : lazyModule("node:util").inspect(error);
  } catch {
    text = "(an error that cannot be printed)";
  }
  ops.op_host_log(1, `[paseo] Uncaught error: ${text}`);
});
for (const name of ["setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate"]) {
  define(name, timers[name]);
}
define("structuredClone", (value, options) => core.structuredClone(value, options?.transfer));
for (const [name, value] of Object.entries({ URL, URLSearchParams, process, performance, crypto, global: globalThis })) {
  define(name, value);
}
const events = () => lazyModule("paseo:internal/web/events");
const encoding = () => lazyModule("paseo:internal/web/encoding");
for (const name of ["Event", "EventTarget", "CustomEvent", "DOMException", "AbortController", "AbortSignal",
  "MessageEvent", "MessagePort", "MessageChannel"]) {
  defineLazy(name, () => events()[name]);
}
for (const name of ["TextEncoder", "TextDecoder", "atob", "btoa"]) defineLazy(name, () => encoding()[name]);
for (const name of ["PerformanceEntry", "PerformanceMark", "PerformanceMeasure", "PerformanceObserver", "PerformanceObserverEntryList", "PerformanceResourceTiming"]) {
  defineLazy(name, () => timing()[name]);
}
defineLazy("Buffer", () => lazyModule("node:buffer").Buffer);
// fetch and its classes, as web/fetch.js exports them.
const FETCH_GLOBALS = [
  "fetch", "Request", "Response", "Headers", "FormData", "Blob", "File",
  "ReadableStream", "ReadableStreamDefaultReader", "ReadableStreamDefaultController",
];
// web/fetch's imports must be loaded before it.
const fetchApi = () => (events(), encoding(), lazyModule("paseo:internal/web/fetch"));
for (const name of FETCH_GLOBALS) defineLazy(name, () => fetchApi()[name]);

await import("paseo:internal/host");

// What belongs to one isolate at one moment, made when the isolate starts. On V8 this module is
// evaluated once per process, into the startup snapshot every isolate boots from
// (runtime/src/engine/snapshot.rs, which sets `paseo.snapshot` first); what it computed then
// dates from the snapshot's making (perhaps by an earlier process), so an isolate booted
// from it runs `paseo.start` first.
function start(restored) {
  timeOrigin = Date.now() - core.ops.op_timer_now();
  performance.timeOrigin = timeOrigin;
  if (restored) globalThis[Symbol.for("paseo.process.restart")]();
  else delete globalThis[Symbol.for("paseo.process.restart")];
  // The engine reads `Deno` while an isolate boots from the snapshot: hidden only now.
  delete globalThis.Deno;
  delete globalThis.__bootstrap;
}
const SNAPSHOT = Symbol.for("paseo.snapshot"), START = Symbol.for("paseo.start");
if (globalThis[SNAPSHOT]) {
  delete globalThis[SNAPSHOT];
  Object.defineProperty(globalThis, START, {
    value() {
      delete globalThis[START];
      start(true);
    },
    configurable: true,
  });
} else {
  start(false);
}
