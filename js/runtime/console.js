// `console`: every line goes to the plugin's log tail (and `tracing`) through op_host_log.
// `Console` (node:console) makes one more over streams of one's own, with the same methods.
import { ops, lazyModule } from "paseo:internal/core";

// node:util is loaded the first time something is logged.
let util = null;
const format = (...args) => (util ??= lazyModule("node:util")).format(...args);
const inspect = (...args) => (util ??= lazyModule("node:util")).inspect(...args);

const STDOUT = 0, STDERR = 1;

// The methods of a console whose lines go to `emit(stream, text)`; each console keeps its own
// indentation, counters and timers.
function consoleOver(emit) {
  let indent = "";
  const counts = new Map();
  const timers = new Map();
  const write = (stream, args) => {
    const text = format(...args);
    emit(stream, indent ? text.replace(/^/gm, indent) : text);
  };
  const elapsed = (label) => `${label}: ${(performance.now() - (timers.get(label) ?? 0)).toFixed(3)}ms`;
  const nothing = () => {};
  return {
    log: (...a) => write(STDOUT, a),
    info: (...a) => write(STDOUT, a),
    debug: (...a) => write(STDOUT, a),
    warn: (...a) => write(STDERR, a),
    error: (...a) => write(STDERR, a),
    trace: (...a) => write(STDERR, [`Trace: ${format(...a)}\n${new Error().stack.split("\n").slice(2).join("\n")}`]),
    dir: (v, opts) => write(STDOUT, [inspect(v, opts)]),
    dirxml: (...a) => write(STDOUT, a),
    table: (v) => write(STDOUT, [v]),
    assert: (cond, ...a) => { if (!cond) write(STDERR, ["Assertion failed" + (a.length ? ":" : ""), ...a]); },
    count: (label = "default") => { const n = (counts.get(label) ?? 0) + 1; counts.set(label, n); write(STDOUT, [`${label}: ${n}`]); },
    countReset: (label = "default") => counts.delete(label),
    group: (...a) => { if (a.length) write(STDOUT, a); indent += "  "; },
    groupCollapsed: (...a) => { if (a.length) write(STDOUT, a); indent += "  "; },
    groupEnd: () => { indent = indent.slice(2); },
    time: (label = "default") => timers.set(label, performance.now()),
    timeLog: (label = "default", ...a) => write(STDOUT, [elapsed(label), ...a]),
    timeEnd: (label = "default") => { write(STDOUT, [elapsed(label)]); timers.delete(label); },
    // A log has no screen to clear, and no profiler or inspector is attached.
    clear: nothing,
    profile: nothing,
    profileEnd: nothing,
    timeStamp: nothing,
  };
}

export const console = consoleOver((stream, text) => ops.op_host_log(stream, text));

// Node's `new Console(stdout[, stderr])` or `new Console({ stdout, stderr })`: lines (with a
// newline) written to the streams' `write`; stderr defaults to stdout.
export function Console(options, stderr = undefined) {
  if (!new.target) return new Console(options, stderr);
  const opts = options && typeof options.write !== "function" ? options : { stdout: options, stderr };
  const out = opts.stdout;
  const err = opts.stderr ?? out;
  for (const [name, stream] of [["stdout", out], ["stderr", err]]) {
    if (!stream || typeof stream.write !== "function") {
      const e = new TypeError(`The "${name}" argument must be an instance of Writable.`);
      e.code = "ERR_CONSOLE_WRITABLE_STREAM";
      throw e;
    }
  }
  Object.assign(this, consoleOver((stream, text) => (stream === STDERR ? err : out).write(`${text}\n`)));
}
console.Console = Console;
