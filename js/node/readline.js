// `node:readline` (and, through `promises`, node:readline/promises): line-by-line reading of a
// readable stream as Node 20 does it without a terminal. Input is decoded as UTF-8 and split on
// "\n", "\r\n" and a lone "\r" (a "\r" that ends one chunk and a "\n" that starts the next, within
// `crlfDelay` ms, are one line end); each line is a 'line' event, or the answer to a pending
// `question`; the input's end emits what is left as a last line, then 'close'. The interface is
// async iterable (lines queued from the moment the iterator is made, as Node's `events.on`
// queues them). A plugin has no terminal: `terminal: true` is recorded but input is still read as
// lines, with no echo, key handling, history or completion. The cursor helpers write Node's ANSI
// sequences to the stream they are given; `emitKeypressEvents` does nothing.
import process from "node:process";
import { EventEmitter } from "node:events";
import { StringDecoder } from "node:string_decoder";
import { AbortError, E, invalidArgType, nodeError } from "./internal_errors.js";

const kDecoder = Symbol("_decoder");
const kLineBuffer = Symbol("_line_buffer");
const kSawReturnAt = Symbol("_sawReturnAt");
const kPrompt = Symbol("_prompt");
const kOldPrompt = Symbol("_oldPrompt");
const kQuestionCallback = Symbol("_questionCallback");
const kLineIterator = Symbol("line object stream");
const kNormalWrite = Symbol("_normalWrite");
const kOnLine = Symbol("_onLine");
const kQuestion = Symbol("_question");
const kQuestionCancel = Symbol("_questionCancel");
const kWriteToOutput = Symbol("_writeToOutput");

const MIN_CRLF_DELAY = 100;
const HISTORY_SIZE = 30;
const promisifyCustom = Symbol.for("nodejs.util.promisify.custom");

const useAfterClose = () => nodeError(Error, "ERR_USE_AFTER_CLOSE", "readline was closed");
const outOfRange = (name, range, value) =>
  nodeError(RangeError, "ERR_OUT_OF_RANGE", `The value of "${name}" is out of range. It must be ${range}. Received ${value}`);

function validateInteger(value, name, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  if (typeof value !== "number") throw invalidArgType(name, ["number"], value);
  if (!Number.isInteger(value)) throw outOfRange(name, "an integer", value);
  if (value < min || value > max) throw outOfRange(name, `>= ${min} && <= ${max}`, value);
}

function validateAbortSignal(signal, name) {
  if (signal !== undefined && (signal === null || typeof signal !== "object" || !("aborted" in signal))) {
    throw invalidArgType(name, ["AbortSignal"], signal);
  }
}

// ---------------------------------------------------------------- the interface

// Node's InterfaceConstructor: a plain function, so that the callback-style `Interface` below can
// call it on an object it made (`readline.Interface(...)` works without `new`), and so that the
// properties come in Node's order.
function InterfaceConstructor(input, output, completer, terminal) {
  this[kSawReturnAt] = 0;
  this.isCompletionEnabled = true;
  this.escapeCodeTimeout = 500;
  this.tabSize = 8;
  EventEmitter.call(this);
  let history, historySize, removeHistoryDuplicates = false, crlfDelay, prompt = "> ", signal;
  if (input?.input) {
    // One options object.
    output = input.output;
    completer = input.completer;
    terminal = input.terminal;
    history = input.history;
    historySize = input.historySize;
    signal = input.signal;
    if (input.tabSize !== undefined) {
      validateInteger(input.tabSize, "tabSize", 1, 4294967295);
      this.tabSize = input.tabSize;
    }
    removeHistoryDuplicates = input.removeHistoryDuplicates;
    if (input.prompt !== undefined) prompt = input.prompt;
    if (input.escapeCodeTimeout !== undefined) {
      // Node names the current value (500) in the error, not the one given.
      if (!Number.isFinite(input.escapeCodeTimeout)) throw E.invalidArgValue("input.escapeCodeTimeout", this.escapeCodeTimeout);
      this.escapeCodeTimeout = input.escapeCodeTimeout;
    }
    if (signal) validateAbortSignal(signal, "options.signal");
    crlfDelay = input.crlfDelay;
    input = input.input;
  }
  if (completer !== undefined && typeof completer !== "function") throw E.invalidArgValue("completer", completer);
  if (history === undefined) history = [];
  else if (!Array.isArray(history)) throw invalidArgType("history", ["Array"], history);
  if (historySize === undefined) historySize = HISTORY_SIZE;
  if (typeof historySize !== "number" || Number.isNaN(historySize) || historySize < 0) {
    throw outOfRange("historySize", ">= 0", historySize);
  }
  if (terminal === undefined && output != null) terminal = Boolean(output.isTTY);

  this.line = "";
  this.output = output;
  this.input = input;
  this.history = history;
  this.historySize = historySize;
  this.removeHistoryDuplicates = Boolean(removeHistoryDuplicates);
  this.crlfDelay = crlfDelay ? Math.max(MIN_CRLF_DELAY, crlfDelay) : MIN_CRLF_DELAY;
  this.completer = completer;
  this.setPrompt(prompt);
  this.terminal = Boolean(terminal);
  this[kLineIterator] = undefined;
  this[kDecoder] = new StringDecoder("utf8");
  this[kLineBuffer] = "";

  const onError = (err) => this.emit("error", err);
  const onData = (data) => this[kNormalWrite](data);
  const onEnd = () => {
    const rest = this[kLineBuffer];
    if (typeof rest === "string" && rest.length > 0) this.emit("line", rest);
    this.close();
  };
  input.on("error", onError);
  input.on("data", onData);
  input.on("end", onEnd);
  this.once("close", () => {
    input.removeListener("data", onData);
    input.removeListener("error", onError);
    input.removeListener("end", onEnd);
  });
  if (signal) {
    const onAborted = () => this.close();
    if (signal.aborted) {
      process.nextTick(onAborted);
    } else {
      signal.addEventListener("abort", onAborted, { once: true });
      this.once("close", () => signal.removeEventListener("abort", onAborted));
    }
  }
  input.resume();
}
Object.setPrototypeOf(InterfaceConstructor.prototype, EventEmitter.prototype);
Object.setPrototypeOf(InterfaceConstructor, EventEmitter);

const BaseInterface = class Interface extends InterfaceConstructor {
  constructor(input, output, completer, terminal) {
    super(input, output, completer, terminal);
  }
  get columns() {
    return this.output?.columns || Infinity;
  }
  setPrompt(prompt) {
    this[kPrompt] = prompt;
  }
  getPrompt() {
    return this[kPrompt];
  }
  prompt(preserveCursor) {
    if (this.paused) this.resume();
    this[kWriteToOutput](this[kPrompt]);
  }
  [kWriteToOutput](text) {
    if (typeof text !== "string") throw invalidArgType("stringToWrite", ["string"], text);
    if (this.output != null) this.output.write(text);
  }
  [kQuestion](query, cb) {
    if (this.closed) throw useAfterClose();
    if (this[kQuestionCallback]) {
      this.prompt();
    } else {
      this[kOldPrompt] = this[kPrompt];
      this.setPrompt(query);
      this[kQuestionCallback] = cb;
      this.prompt();
    }
  }
  [kQuestionCancel]() {
    if (!this[kQuestionCallback]) return;
    this[kQuestionCallback] = null;
    this.setPrompt(this[kOldPrompt]);
    this[kWriteToOutput]("\r\n");
    this.line = "";
    this.cursor = 0;
    this.prevRows = 0;
  }
  [kOnLine](line) {
    const cb = this[kQuestionCallback];
    if (cb) {
      this[kQuestionCallback] = null;
      this.setPrompt(this[kOldPrompt]);
      cb(line);
    } else {
      this.emit("line", line);
    }
  }
  // Splits what arrived into lines; what follows the last line end waits for more.
  [kNormalWrite](chunk) {
    if (chunk === undefined) return;
    let text = this[kDecoder].write(chunk);
    if (this[kSawReturnAt] && Date.now() - this[kSawReturnAt] <= this.crlfDelay) {
      if (text.codePointAt(0) === 10) text = text.slice(1);
      this[kSawReturnAt] = 0;
    }
    const ending = /\r?\n|\r(?!\n)/g;
    if (!ending.test(text)) {
      if (text) this[kLineBuffer] = this[kLineBuffer] ? this[kLineBuffer] + text : text;
      return;
    }
    if (this[kLineBuffer]) {
      text = this[kLineBuffer] + text;
      this[kLineBuffer] = null;
    }
    this[kSawReturnAt] = text.endsWith("\r") ? Date.now() : 0;
    const lines = [];
    let start = 0;
    ending.lastIndex = 0;
    for (let m; (m = ending.exec(text)) !== null;) {
      lines.push(text.slice(start, m.index));
      start = ending.lastIndex;
    }
    this[kLineBuffer] = text.slice(start);
    for (const line of lines) this[kOnLine](line);
  }
  /** Takes `data` as if it had come from the input. */
  write(data, key) {
    if (this.paused) this.resume();
    this[kNormalWrite](data);
  }
  pause() {
    if (this.paused) return;
    this.input.pause();
    this.paused = true;
    this.emit("pause");
    return this;
  }
  resume() {
    if (!this.paused) return;
    this.input.resume();
    this.paused = false;
    this.emit("resume");
    return this;
  }
  close() {
    if (this.closed) return;
    this.pause();
    this.closed = true;
    this.emit("close");
  }
  [Symbol.asyncIterator]() {
    if (this[kLineIterator] === undefined) this[kLineIterator] = lineIterator(this);
    return this[kLineIterator];
  }
};

// The lines of `rl` from now on, as Node's `events.on(rl, 'line', { close: ['close'] })` yields
// them: queued until read (the interface pauses while more than 1024 wait), ended by 'close'
// after the queued ones, failed by 'error'. Leaving a loop early stops listening and leaves the
// interface open, as in Node 20.
function lineIterator(rl) {
  const HIGH_WATER_MARK = 1024;
  const queued = [];
  const waiting = [];
  let failure = null;
  let finished = false;
  let paused = false;
  const onLine = (line) => {
    if (waiting.length) {
      waiting.shift().resolve({ value: line, done: false });
      return;
    }
    queued.push(line);
    if (queued.length > HIGH_WATER_MARK && !paused) {
      paused = true;
      rl.pause();
    }
  };
  const onError = (err) => {
    if (waiting.length) waiting.shift().reject(err);
    else failure = err;
    finish();
  };
  const finish = () => {
    if (finished) return;
    finished = true;
    rl.removeListener("line", onLine);
    rl.removeListener("error", onError);
    rl.removeListener("close", finish);
    for (const reader of waiting.splice(0)) reader.resolve({ value: undefined, done: true });
  };
  rl.on("line", onLine);
  rl.on("error", onError);
  rl.on("close", finish);
  return {
    next() {
      if (queued.length) {
        const value = queued.shift();
        if (paused && queued.length < 1) {
          paused = false;
          rl.resume();
        }
        return Promise.resolve({ value, done: false });
      }
      if (failure) {
        const err = failure;
        failure = null;
        return Promise.reject(err);
      }
      if (finished) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return() {
      finish();
      return Promise.resolve({ value: undefined, done: true });
    },
    throw(err) {
      onError(err);
      return Promise.reject(err);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

// ---------------------------------------------------------------- readline.Interface (callbacks)

export function Interface(input, output, completer, terminal) {
  if (!(this instanceof Interface)) return new Interface(input, output, completer, terminal);
  InterfaceConstructor.call(this, input, output, completer, terminal);
}
Object.setPrototypeOf(Interface.prototype, BaseInterface.prototype);
Object.setPrototypeOf(Interface, BaseInterface);

Interface.prototype.question = function question(query, options, cb) {
  cb = typeof options === "function" ? options : cb;
  if (options !== null && typeof options === "object") {
    const { signal } = options;
    if (signal) {
      validateAbortSignal(signal, "options.signal");
      if (signal.aborted) return;
      const onAbort = () => this[kQuestionCancel]();
      signal.addEventListener("abort", onAbort, { once: true });
      const cleanup = () => signal.removeEventListener("abort", onAbort);
      const answer = cb;
      cb = typeof answer === "function" ? (line) => { cleanup(); return answer(line); } : cleanup;
    }
  }
  if (typeof cb === "function") this[kQuestion](query, cb);
};
Interface.prototype.question[promisifyCustom] = function question(query, options) {
  if (options === null || typeof options !== "object") options = {};
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(new AbortError(undefined, { cause: signal.reason }));
  return new Promise((resolve, reject) => {
    let cb = resolve;
    if (signal) {
      const onAbort = () => reject(new AbortError(undefined, { cause: signal.reason }));
      signal.addEventListener("abort", onAbort, { once: true });
      cb = (answer) => {
        signal.removeEventListener("abort", onAbort);
        resolve(answer);
      };
    }
    this.question(query, options, cb);
  });
};

export function createInterface(input, output, completer, terminal) {
  return new Interface(input, output, completer, terminal);
}

// ---------------------------------------------------------------- cursor helpers

const CSI = "\x1b[";
const CLEAR_TO_LINE_BEGINNING = `${CSI}1K`;
const CLEAR_TO_LINE_END = `${CSI}0K`;
const CLEAR_LINE = `${CSI}2K`;
const CLEAR_SCREEN_DOWN = `${CSI}0J`;

function validateCallback(callback) {
  if (callback !== undefined && typeof callback !== "function") throw invalidArgType("callback", ["function"], callback);
}
// Nothing to write: the callback still runs, in a tick, and the answer is true.
function nothingToWrite(callback) {
  if (typeof callback === "function") process.nextTick(callback, null);
  return true;
}

export function cursorTo(stream, x, y, callback) {
  validateCallback(callback);
  if (typeof y === "function") {
    callback = y;
    y = undefined;
  }
  if (Number.isNaN(x)) throw E.invalidArgValue("x", x);
  if (Number.isNaN(y)) throw E.invalidArgValue("y", y);
  if (stream == null || (typeof x !== "number" && typeof y !== "number")) return nothingToWrite(callback);
  if (typeof x !== "number") throw nodeError(TypeError, "ERR_INVALID_CURSOR_POS", "Cannot set cursor row without setting its column");
  const data = typeof y !== "number" ? `${CSI}${x + 1}G` : `${CSI}${y + 1};${x + 1}H`;
  return stream.write(data, callback);
}

function moveData(dx, dy) {
  let data = "";
  if (dx < 0) data += `${CSI}${-dx}D`;
  else if (dx > 0) data += `${CSI}${dx}C`;
  if (dy < 0) data += `${CSI}${-dy}A`;
  else if (dy > 0) data += `${CSI}${dy}B`;
  return data;
}

export function moveCursor(stream, dx, dy, callback) {
  validateCallback(callback);
  if (stream == null || !(dx || dy)) return nothingToWrite(callback);
  return stream.write(moveData(dx, dy), callback);
}

const clearLineData = (dir) => (dir < 0 ? CLEAR_TO_LINE_BEGINNING : dir > 0 ? CLEAR_TO_LINE_END : CLEAR_LINE);

export function clearLine(stream, dir, callback) {
  validateCallback(callback);
  if (stream == null) return nothingToWrite(callback);
  return stream.write(clearLineData(dir), callback);
}

export function clearScreenDown(stream, callback) {
  validateCallback(callback);
  if (stream == null) return nothingToWrite(callback);
  return stream.write(CLEAR_SCREEN_DOWN, callback);
}

// Keypress decoding is for terminals, which a plugin has none of.
export function emitKeypressEvents(stream, iface = {}) {}

// ---------------------------------------------------------------- readline/promises

const PromisesInterface = class Interface extends BaseInterface {
  constructor(input, output, completer, terminal) {
    super(input, output, completer, terminal);
  }
  question(query, options = {}) {
    return new Promise((resolve, reject) => {
      let cb = resolve;
      const signal = options?.signal;
      if (signal) {
        validateAbortSignal(signal, "options.signal");
        if (signal.aborted) return reject(new AbortError(undefined, { cause: signal.reason }));
        const onAbort = () => {
          this[kQuestionCancel]();
          reject(new AbortError(undefined, { cause: signal.reason }));
        };
        signal.addEventListener("abort", onAbort, { once: true });
        cb = (answer) => {
          signal.removeEventListener("abort", onAbort);
          resolve(answer);
        };
      }
      this[kQuestion](query, cb);
    });
  }
};

/** Cursor moves and clears gathered, then written at once by `commit()` (or each at once, with autoCommit). */
class Readline {
  #stream;
  #autoCommit = false;
  #todo = [];
  constructor(stream, options = undefined) {
    if (stream == null || typeof stream.write !== "function" || typeof stream.on !== "function") {
      throw invalidArgType("stream", ["Writable"], stream);
    }
    this.#stream = stream;
    if (options?.autoCommit != null) {
      if (typeof options.autoCommit !== "boolean") throw invalidArgType("options.autoCommit", ["boolean"], options.autoCommit);
      this.#autoCommit = options.autoCommit;
    }
  }
  #add(data) {
    if (this.#autoCommit) process.nextTick(() => this.#stream.write(data));
    else this.#todo.push(data);
  }
  cursorTo(x, y = undefined) {
    validateInteger(x, "x");
    if (y != null) validateInteger(y, "y");
    this.#add(y == null ? `${CSI}${x + 1}G` : `${CSI}${y + 1};${x + 1}H`);
    return this;
  }
  moveCursor(dx, dy) {
    if (dx || dy) {
      validateInteger(dx, "dx");
      validateInteger(dy, "dy");
      this.#add(moveData(dx, dy));
    }
    return this;
  }
  clearLine(dir) {
    validateInteger(dir, "dir", -1, 1);
    this.#add(clearLineData(dir));
    return this;
  }
  clearScreenDown() {
    this.#add(CLEAR_SCREEN_DOWN);
    return this;
  }
  commit() {
    if (this.#autoCommit) return Promise.resolve();
    const data = this.#todo.join("");
    this.#todo = [];
    return new Promise((resolve) => this.#stream.write(data, resolve));
  }
  rollback() {
    this.#todo = [];
    return this;
  }
}

export const promises = {
  Interface: PromisesInterface,
  Readline,
  createInterface(input, output, completer, terminal) {
    return new PromisesInterface(input, output, completer, terminal);
  },
};

export default {
  Interface, clearLine, clearScreenDown, createInterface, cursorTo, emitKeypressEvents, moveCursor, promises,
};
