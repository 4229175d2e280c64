// node:fs's watchers: `fs.watch` (FSWatcher, on runtime/src/node/fs_watch.rs), its
// `fs.promises.watch` async iterator, and `fs.watchFile`/`fs.unwatchFile` (StatWatcher, which
// polls `stat` on a timer as libuv's fs_poll does). Evaluated on first use (js/node/fs.js
// `watching`).
//
// Follows Node 20's lib/internal/fs/watchers.js and lib/fs.js:
// Copyright Joyent, Inc. and other Node contributors. MIT licence; the notice is in NOTICE.
import { ops } from "paseo:internal/core";
import { EventEmitter } from "node:events";
import { Buffer } from "node:buffer";
import process from "node:process";
import { resolve as resolvePath } from "node:path";
import { Stats, toPath, statSync } from "node:fs";
import { AbortError, nodeError, received } from "./internal_errors.js";

const invalidArgType = (name, expected, value) =>
  nodeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "${name}" argument must be ${expected}. Received ${received(value)}`);

// The error of a watch that could not start, with Node's keys in Node's order (uvException,
// then `filename`).
function watchError(e, filename) {
  if (typeof e?.errno !== "number") return e;
  const err = new Error(e.message);
  Object.assign(err, { errno: e.errno, syscall: e.syscall, code: e.code, path: e.path, filename });
  return err;
}

const nameAs = (encoding) => (encoding === "buffer" ? (name) => Buffer.from(name) : encoding && encoding !== "utf8" && encoding !== "utf-8" ? (name) => Buffer.from(name).toString(encoding) : (name) => name);

// One watch in Rust: `onEvents` gets each batch of [eventType, filename] until `close()`.
function startWatch(filename, recursive, onEvents) {
  const path = toPath(filename, "filename");
  let id;
  try {
    id = ops.op_fs_watch(path, !!recursive);
  } catch (e) {
    throw watchError(e, path);
  }
  let open = true;
  (async () => {
    while (open) {
      const batch = await ops.op_fs_watch_next(id);
      if (batch == null || !open) return;
      onEvents(batch, () => open);
    }
  })();
  return () => {
    if (!open) return;
    open = false;
    ops.op_fs_watch_close(id);
  };
}

export class FSWatcher extends EventEmitter {
  #stop = null;
  #closed = false;
  constructor() {
    super();
  }
  start(filename, recursive, encoding) {
    const name = nameAs(encoding);
    this.#stop = startWatch(filename, recursive, (batch, isOpen) => {
      for (const [eventType, file] of batch) {
        // A listener may close the watcher: nothing is delivered after that.
        if (!isOpen() || this.#closed) return;
        this.emit("change", eventType, name(file));
      }
    });
  }
  close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#stop?.();
    process.nextTick(() => this.emit("close"));
  }
  ref() { return this; }
  unref() { return this; }
}

function watchOptions(options) {
  if (typeof options === "string") return { encoding: options };
  if (options == null || typeof options === "function") return {};
  if (typeof options !== "object") throw invalidArgType("options", "of type object", options);
  return options;
}

/** `fs.watch(filename[, options][, listener])`. `persistent` is accepted and ignored. */
export function watch(filename, options, listener) {
  if (typeof options === "function") listener = options;
  options = watchOptions(options);
  const watcher = new FSWatcher();
  watcher.start(filename, options.recursive, options.encoding ?? "utf8");
  if (listener) watcher.addListener("change", listener);
  if (options.signal) {
    if (options.signal.aborted) process.nextTick(() => watcher.close());
    else options.signal.addEventListener("abort", () => watcher.close(), { once: true });
  }
  return watcher;
}

/**
 * `fs.promises.watch(filename[, options])`: `{ eventType, filename }`s until `signal` aborts
 * (then it throws an AbortError). Events not read yet wait, up to `maxQueue` (2048); past it
 * they are dropped (`overflow: 'ignore'`, the default) or the iterator throws
 * (`overflow: 'throw'`).
 */
export function watchAsync(filename, options = {}) {
  options = watchOptions(options);
  const { recursive = false, encoding = "utf8", signal, maxQueue = 2048, overflow = "ignore" } = options;
  const name = nameAs(encoding);
  let stop = null, queue = [], waiting = null, failure = null, finished = false;
  const fail = (e) => {
    failure ??= e;
    stop?.();
    waiting?.reject(failure);
    waiting = null;
  };
  const onAbort = () => fail(new AbortError(undefined, { cause: signal?.reason }));
  const iterator = {
    async next() {
      if (finished) return { value: undefined, done: true };
      if (stop === null && failure === null) {
        if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
        signal?.addEventListener("abort", onAbort, { once: true });
        stop = startWatch(filename, recursive, (batch) => {
          for (const [eventType, file] of batch) {
            const event = { eventType, filename: name(file) };
            if (waiting) { waiting.resolve({ value: event, done: false }); waiting = null; }
            else if (queue.length < maxQueue) queue.push(event);
            else if (overflow === "throw") {
              const err = nodeError(Error, "ERR_FS_WATCH_QUEUE_OVERFLOW", `fs.watch maxQueue exceeded`);
              fail(err);
              return;
            }
          }
        });
      }
      if (queue.length) return { value: queue.shift(), done: false };
      if (failure) {
        finished = true;
        signal?.removeEventListener("abort", onAbort);
        throw failure;
      }
      return new Promise((resolve, reject) => (waiting = {
        resolve,
        reject: (e) => { finished = true; signal?.removeEventListener("abort", onAbort); reject(e); },
      }));
    },
    async return() {
      finished = true;
      stop?.();
      signal?.removeEventListener("abort", onAbort);
      waiting?.resolve({ value: undefined, done: true });
      waiting = null;
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() { return this; },
  };
  return iterator;
}

// ---------------------------------------------------------------------------------------------
// watchFile: stat polling (libuv's uv_fs_poll): the listener gets (current, previous) each time
// they differ, zeroed Stats for a file that is missing.

const ZERO = Object.freeze({
  kind: "", dev: 0, ino: 0, mode: 0, nlink: 0, uid: 0, gid: 0, rdev: 0, size: 0, blksize: 0, blocks: 0,
  atimeMs: 0, mtimeMs: 0, ctimeMs: 0, birthtimeMs: 0,
});
const zeroStats = () => new Stats(ZERO);
const sameStats = (a, b) =>
  a.ctimeMs === b.ctimeMs && a.mtimeMs === b.mtimeMs && a.birthtimeMs === b.birthtimeMs && a.size === b.size &&
  a.mode === b.mode && a.uid === b.uid && a.gid === b.gid && a.ino === b.ino && a.dev === b.dev;

export class StatWatcher extends EventEmitter {
  #timer = null;
  #refs = 0;
  constructor() {
    super();
  }
  start(path, persistent, interval) {
    if (this.#timer) return;
    let status = null; // null: not polled yet; "ok"; or the code of the last error
    let last = null;
    const poll = () => {
      let curr;
      try {
        curr = statSync(path);
      } catch (e) {
        if (status !== e.code) {
          const first = status === null;
          status = e.code;
          const prev = last ?? zeroStats();
          // The first poll runs in watchFile(); its report comes on a later tick.
          if (first) process.nextTick(() => this.#timer && this.emit("change", zeroStats(), prev));
          else this.emit("change", zeroStats(), prev);
        }
        return;
      }
      if (status !== null && (status !== "ok" || !sameStats(last, curr))) this.emit("change", curr, last ?? zeroStats());
      last = curr;
      status = "ok";
    };
    // The first stat is the baseline (a missing file is reported at once, as Node does).
    poll();
    this.#timer = setInterval(poll, interval);
    if (!persistent) this.#timer.unref?.();
    this.#refs = 1;
  }
  stop() {
    if (!this.#timer) return;
    clearInterval(this.#timer);
    this.#timer = null;
    process.nextTick(() => this.emit("stop"));
  }
  addRef() { this.#refs++; }
  ref() { this.#timer?.ref?.(); return this; }
  unref() { this.#timer?.unref?.(); return this; }
}

const statWatchers = new Map();

export function watchFile(filename, options, listener) {
  const path = resolvePath(toPath(filename, "filename"));
  if (options === null || typeof options !== "object") {
    listener = options;
    options = null;
  }
  options = { interval: 5007, persistent: true, ...options };
  if (typeof listener !== "function") throw invalidArgType("listener", "of type function", listener);
  let stat = statWatchers.get(path);
  if (stat === undefined) {
    stat = new StatWatcher();
    statWatchers.set(path, stat);
    stat.addListener("change", listener);
    stat.start(path, options.persistent, options.interval);
  } else {
    stat.addRef();
    stat.addListener("change", listener);
  }
  return stat;
}

export function unwatchFile(filename, listener) {
  const path = resolvePath(toPath(filename, "filename"));
  const stat = statWatchers.get(path);
  if (stat === undefined) return;
  if (typeof listener === "function") stat.removeListener("change", listener);
  else stat.removeAllListeners("change");
  if (stat.listenerCount("change") === 0) {
    stat.stop();
    statWatchers.delete(path);
  }
}
